#!/usr/bin/env bash
# The head node's cost of a whole suite run as the fleet grows: for each node count, a
# fleet of bare-metal netns nodes (tests/e2e/fleet.py: real SSH, launch, collection,
# analysis and reports; the GPU-boundary double writes real H200 traces, re-ranked)
# runs the distributed suite, and the suite process's CPU seconds, peak memory, bytes
# received from the nodes, peak TCP connections and wall time are printed, then the
# growth per added node (least-squares slope) and a projection to 64 nodes.
# All nodes share this machine's CPUs: judge the slopes, not the wall times.
#   bash bench/fleet_bench.sh BUILD_DIR [NODE_COUNTS] [RANKS]
#   TRACES=big: the 29 MB real Aorta rank traces (tests/data/h200-aorta-overlap_*), else
#   the 0.3 MB ones (h200-torch2.11-kineto-nccl_*).
#   PATHS="ssh ssh-nodes agents" (default): over SSH (a cluster file); over SSH with the
#   analysis on the nodes and no trace archived (analysis.where nodes, archive_traces
#   none); and as a managed run on the fleet's own Slurm (one task a node, the node agents;
#   the run on shared storage, so its traces cross no wire; skipped while the test
#   cluster's Slurm is up).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(realpath "$1"); counts=${2:-"4 8 16 32"}; ranks=${3:-8}
traces=$(mktemp -d); results=$(mktemp); trap 'rm -rf "$traces" "$results"' EXIT
if [ "${TRACES:-small}" = big ]; then cp "$root"/tests/data/h200-aorta-overlap_rank*.pt.trace.json.gz "$traces"
else cp "$root"/tests/data/h200-torch2.11-kineto-nccl_rank*.json.gz "$traces"; fi
for path in ${PATHS:-ssh ssh-nodes agents}; do
  mode=measure; extra=""
  [ "$path" = agents ] && mode=measure-agents
  [ "$path" = ssh-nodes ] && extra="nodes none"
  for n in $counts; do
    echo "fleet_bench: $path, $n nodes x $ranks ranks ..." >&2
    # shellcheck disable=SC2086 # extra: two words or none
    python3 "$root/tests/e2e/fleet.py" "$build/aorta_suite" "$mode" "$n" "$ranks" "$traces" $extra | tail -1 |
      sed "s/^{/{\"path\": \"$path\", /" >> "$results"
  done
done
python3 - "$results" "${TRACES:-small}" <<'PY'
import json, sys
every = [json.loads(line) for line in open(sys.argv[1])]
for path in dict.fromkeys(r["path"] for r in every):
  runs = [r for r in every if r["path"] == path and "skipped" not in r]
  for r in every:
    if r["path"] == path and "skipped" in r:
      print(f"{path}, {r['nodes']} nodes: skipped: {r['skipped']}")
  cols = ("cpu_s", "peak_rss_mb", "rx_bytes", "wall_s")
  print(f"fleet_bench ({sys.argv[2]} traces): the suite process on the head node, {path}")
  print(f"{'nodes':>5} {'ranks':>5} {'cpu s':>8} {'peak MB':>8} {'rx MB':>9} {'conns':>6} {'wall s':>8} exit")
  for r in runs:
      print(f"{r['nodes']:>5} {r['ranks']:>5} {r['cpu_s']:>8.2f} {r['peak_rss_mb']:>8.1f} {r['rx_bytes'] / 1e6:>9.2f} "
            f"{r['peak_connections'] if r['peak_connections'] is not None else '-':>6} {r['wall_s']:>8.2f} {r['exit']}")
  if len(runs) >= 2:
      xs = [r["nodes"] for r in runs]
      mx = sum(xs) / len(xs)
      line = []
      for c in cols:
          ys = [r[c] for r in runs]
          my = sum(ys) / len(ys)
          slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
          at64 = my + slope * (64 - mx)
          unit = {"rx_bytes": 1e6}.get(c, 1)
          line.append(f"{c} {slope / unit:.3f}/node (projected at 64 nodes: {at64 / unit:.1f})")
      print("per added node: " + "; ".join(line))
      print("(a projection from a line through these counts on one shared machine, not a measurement at 64 nodes)")
PY
