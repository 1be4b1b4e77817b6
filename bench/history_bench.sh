#!/usr/bin/env bash
# Times `aorta_suite history` over RUNS run folders (default 1000), each a copy of the
# real sample report (docs/sample-output) with its own value and mtime, and prints the
# figure; it asserts nothing. Usage: bash bench/history_bench.sh BUILD_DIR [RUNS]
set -euo pipefail
build=$(realpath "$1"); runs=${2:-1000}
source_dir=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 - "$source_dir/docs/sample-output/aorta_benchmark_report.json" "$work/runs" "$runs" <<'PY'
import json, os, sys
sample, root, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
with open(sample) as f:
    report = json.load(f)
base = report["performance"]["avg_iteration_time_ms"]
for i in range(runs):
    report["performance"]["avg_iteration_time_ms"] = base * (1 + (i % 7) / 100)
    folder = os.path.join(root, f"{i:08x}")
    os.makedirs(folder)
    path = os.path.join(folder, "aorta_benchmark_report.json")
    with open(path, "w") as f:
        json.dump(report, f)
    os.utime(path, (1_000_000 + i * 3600,) * 2)
PY
bytes=$(du -sb "$work/runs" | cut -f1)
sync
start=$(date +%s.%N)
"$build/aorta_suite" history "$work/runs" --output "$work/history.json" --html "$work/history.html" >/dev/null
end=$(date +%s.%N)
python3 -c "import sys; s=float(sys.argv[2])-float(sys.argv[1]); print(f'history: {sys.argv[3]} run folders ({int(sys.argv[4])//1024} KiB of reports) read and analysed in {s:.3f} s (console, JSON and HTML written)')" "$start" "$end" "$runs" "$bytes"
