#!/usr/bin/env python3
"""A simulated fleet: N netns nodes (ci/testcluster.sh with CONTAINERS=0, a cluster of
its own beside the test cluster: BASE /tmp/aorta-fleet, prefix atf, 10.212.0.x), each
with the real Aorta checkout (../shared/aorta) and the GPU-boundary double
(tests/doubles/aorta_gpu_boundary) and the nvidia-smi double (tests/doubles/gpu_tools)
first on its login PATH; the shipped distributed
config runs there bare-metal over SSH, RANKS ranks a node. Everything but the training
is real: SSH, the launch, torchrun's arguments reaching Aorta's config code, real H200
traces written per rank (re-ranked), collection, analysis, reports.

  fleet.py AORTA_SUITE check [NODES [RANKS]]   a fleet run that must pass, every rank's
                                               metrics equal to tools/independent_metrics.py
                                               (and every node's GPUs sampled over SSH, no
                                               sampler left)
  fleet.py AORTA_SUITE measure-agents NODES RANKS TRACES   the same as a managed run: Slurm on the
                                                     fleet, one task a node (srun), agents
  fleet.py AORTA_SUITE measure NODES RANKS TRACES [WHERE [ARCHIVE]]   one run, its head-node cost
                                                     as JSON (analysis.where, archive_traces)
                                                     (bench/fleet_bench.sh); FLEET_KEEP=DIR
                                                     keeps its reports and console there
  fleet.py AORTA_SUITE check-nodes NODES RANKS [TRACES [ARCHIVE]]   the same traces analyzed
                                               on the head, then on the nodes (analysis.where,
                                               archive_traces ARCHIVE, default all): per-rank
                                               figures, performance and diagnosis equal (==; with
                                               less than all, diagnosis and sources not compared),
                                               and each run's head-node cost as JSON
  (fleet_checks.py: the package placed on the nodes, archived outliers, telemetry through agents)
Exits 77 (skipped) when ../shared/aorta is absent.
"""
import fcntl
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "suite"))
import suite_run  # noqa: E402
from suite_run import command, expect, passing_stages, results  # noqa: E402
from real_aorta import copy_checkout, skip_without_real_aorta  # noqa: E402  (the real Aorta, as a user's checkout)

DOUBLE = os.path.join(ROOT, "tests", "doubles", "aorta_gpu_boundary")
GPU_TOOLS = os.path.join(ROOT, "tests", "doubles", "gpu_tools")
CHECKER = os.path.join(ROOT, "tools", "independent_metrics.py")
SMALL_TRACES = [os.path.join(ROOT, "tests", "data", f"h200-torch2.11-kineto-nccl_rank{r}.json.gz") for r in (0, 1)]
FLEET = {"BASE": "/tmp/aorta-fleet", "PREFIX": "atf", "NET": "10.212.0", "RUN_DIR": "/run/aorta-fleet",
         "CONTAINERS": "0"}
NODE_DIR = "/var/lib/aorta-node/fleet"  # each node's own storage (a bind mount only it sees)
FIELDS = ("total_time_us", "compute_time_us", "comm_time_us", "total_comm_time_us", "busy_time_us", "idle_time_us",
          "compute_ratio", "comm_ratio", "overlap_ratio")


def testcluster(action, nodes=None):
    env = dict(os.environ, **FLEET)
    env.pop("N", None)
    if nodes:
        env["N"] = str(nodes)
    subprocess.run(["bash", os.path.join(ROOT, "ci", "testcluster.sh"), action], env=env, check=True,
                   stdout=subprocess.DEVNULL)


def prepare_nodes(nodes, traces):
    """Each node's checkout, traces and double, in its own storage, and a login PATH
    that finds the double's torchrun first (torchrun mode runs `bash -lc`)."""
    base = FLEET["BASE"]
    for i in range(1, nodes + 1):
        local = os.path.join(base, f"node{i}", "local", "fleet")
        shutil.rmtree(local, ignore_errors=True)
        os.makedirs(os.path.join(local, "gpu-traces"), mode=0o700)
        os.makedirs(os.path.join(local, "bin"))
        copy_checkout(os.path.join(local, "repo"))
        for t in traces:
            shutil.copy(t, os.path.join(local, "gpu-traces"))
        for name in ("torchrun", "python"):
            shutil.copy(os.path.join(DOUBLE, name), os.path.join(local, "bin", name))
        # The GPU tool double (nvidia-smi's format) is the node's tool: the sampler's life and
        # collection over SSH, its count of ticks kept per node.
        shutil.copytree(GPU_TOOLS, os.path.join(local, "gpu_tools"))
        with open(os.path.join(base, f"node{i}", "home", ".bash_profile"), "w") as f:
            f.write(f"export PATH={NODE_DIR}/bin:{NODE_DIR}/gpu_tools/nvidia-smi-only:$PATH "
                    f"AORTA_GPU_DOUBLE_STATE={NODE_DIR}/gpu-double-state\n")


def fleet_inputs(work, nodes, ranks, small, shared_fs=NODE_DIR, analysis=None):
    variant = json.load(open(os.path.join(ROOT, "configs", "mi3xx_aorta_profile_overlap_2gpu_distributed.json")))
    variant.update(gpus_per_node=ranks, timeout_seconds=900)
    variant["paths"]["shared_fs"] = shared_fs
    variant["container"]["image"] = ""
    variant["container"]["runtime"] = {"name": "none", "args": {}}
    variant["container"]["env"].update({"NPROC": str(ranks), "AORTA_GPU_DOUBLE_TRACES": f"{shared_fs}/gpu-traces"})
    variant["multi_node"]["extra_env"] = {}
    variant["multi_node"]["master_launch_mode"] = "torchrun"
    variant["analysis"].update(analysis or {})
    thresholds = json.load(open(os.path.join(ROOT, "thresholds", variant["threshold_json"])))
    if small:  # the small traces are a collective micro-benchmark: almost no compute
        thresholds["expected_results"]["min_compute_ratio"] = None
    json.dump(thresholds, open(os.path.join(work, variant["threshold_json"]), "w"))
    json.dump(variant, open(os.path.join(work, "fleet.json"), "w"), indent=1)
    cluster = json.load(open(os.path.join(FLEET["BASE"], "cluster.json")))
    expect(len(cluster["node_dict"]) == nodes, f"the fleet has {len(cluster['node_dict'])} nodes, not {nodes}")
    json.dump(cluster, open(os.path.join(work, "cluster.json"), "w"))
    return ["--config_file", os.path.join(work, "fleet.json"), "--cluster_file", os.path.join(work, "cluster.json"),
            "--gtest_filter=aorta_distributed.*"]


class Connections(threading.Thread):
    """The most TCP connections the run held at once (sampled every 0.1 s)."""
    def __init__(self, pid):
        super().__init__(daemon=True)
        self.pid, self.peak, self.done = pid, 0, False

    def run(self):
        while not self.done:
            try:
                found = subprocess.run(["ss", "-Htnp", "state", "established"], capture_output=True, text=True).stdout
                self.peak = max(self.peak, found.count(f"pid={self.pid},"))
            except OSError:
                pass
            time.sleep(0.1)


def expect_checker_figures(row):
    """A report's rank row against tools/independent_metrics.py on the trace it names: the
    same rank, and every figure in FIELDS equal to within 1e-9 (relative)."""
    ref = json.loads(subprocess.run([sys.executable, CHECKER, row["source"]], check=True, capture_output=True,
                                    text=True).stdout)
    expect(ref["rank"] == row["rank"], f"rank {row['rank']}: the trace says rank {ref['rank']}")
    for key in FIELDS:
        expect(abs(row[key] - ref[key]) <= 1e-9 * max(1, abs(ref[key])),
               f"rank {row['rank']} {key}: {row[key]} vs {ref[key]}")


def bridge_rx_bytes():
    with open(f"/sys/class/net/{FLEET['PREFIX']}br0/statistics/rx_bytes") as f:
        return int(f.read())


def run_fleet(binary, work, nodes, ranks, small=True, analysis=None):
    """One run on the fleet that is up; its exit status, output and head-node cost."""
    args = fleet_inputs(work, nodes, ranks, small, analysis=analysis)
    rx0, t0 = bridge_rx_bytes(), time.monotonic()
    proc = subprocess.Popen(command(binary, work, *args), cwd=work, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    watch = Connections(proc.pid)
    watch.start()
    out = proc.stdout.read()
    # The suite's own usage (and its waited-for children's), not the sampler's `ss` runs.
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    watch.done = True
    cost = {"nodes": nodes, "ranks": nodes * ranks, "wall_s": round(time.monotonic() - t0, 3),
            "cpu_s": round(usage.ru_utime + usage.ru_stime, 3), "peak_rss_mb": round(usage.ru_maxrss / 1024, 1),
            "rx_bytes": bridge_rx_bytes() - rx0, "peak_connections": watch.peak, "exit": proc.returncode}
    return proc.returncode, out, cost


def check(binary, nodes, ranks):
    testcluster("down")
    testcluster("up", nodes)
    try:
        prepare_nodes(nodes, SMALL_TRACES)
        with tempfile.TemporaryDirectory() as work:
            rc, out, cost = run_fleet(binary, work, nodes, ranks)
            p = type("P", (), {"stdout": out, "stderr": ""})
            stages, report = results(work)
            expect({k: v[0] for k, v in stages.items()} == passing_stages(binary, "aorta_distributed"),
                   f"stages {stages}", p)
            expect(rc == 0, f"exit status {rc}", p)
            got = report["per_rank_summary"]
            expect([r["rank"] for r in got] == list(range(nodes * ranks)), f"ranks {[r['rank'] for r in got]}", p)
            for r in got:
                expect_checker_figures(r)
            collections = [k for k, v in suite_run.run.last_subtests.items()
                           if k.startswith("test_collect_traces/") and v[0] == "passed"]
            expect(len(collections) == nodes, f"{len(collections)} of {nodes} nodes' collections passed", p)
            # The console shows the first 8 node sub-tests and one line for the rest (the JUnit file has each).
            shown = [line for line in out.splitlines() if line.startswith("[ RUN      ] aorta_distributed.test_collect_traces/")]
            folded = [line for line in out.splitlines() if "test_collect_traces/* " in line]
            expect(len(shown) == min(nodes, 8) and
                   [f"{nodes - 8} more passed" in line for line in folded] == ([True] if nodes > 8 else []),
                   f"the console's node sub-tests: {len(shown)} shown, folded {folded}", p)
            left = subprocess.run(["pgrep", "-af", f"{NODE_DIR}/bin"], capture_output=True, text=True).stdout
            expect(left.strip() == "", f"training processes left on the fleet: {left}")
            telemetry = report.get("telemetry") or {}
            tools = [n["tool"] for n in telemetry.get("nodes", [])]
            expect(tools == ["nvidia-smi"] * nodes, f"each node's GPU tool over SSH: {tools}", p)
            expect(len(telemetry["gpus"]) == nodes * 8 and all(g["samples"] >= 1 for g in telemetry["gpus"]),
                   f"every node's 8 GPUs sampled: {[(g['node'], g['gpu'], g['samples']) for g in telemetry['gpus']]}", p)
            samplers = [line for line in subprocess.run(["pgrep", "-af", "telemetry.sh"], capture_output=True,
                                                         text=True).stdout.splitlines() if NODE_DIR in line]
            expect(not samplers, f"GPU samplers left on the fleet: {samplers}")
            print(f"PASS fleet: {nodes} nodes x {ranks} ranks over SSH, every rank's metrics match; {json.dumps(cost)}")
    finally:
        testcluster("down")
    left = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    expect(f"{FLEET['PREFIX']}node" not in left, f"fleet namespaces left after down: {left}")


def measure(binary, nodes, ranks, traces, where="head", archive="all"):
    testcluster("down")
    testcluster("up", nodes)
    try:
        sources = sorted(glob.glob(os.path.join(traces, "*.json*")))
        prepare_nodes(nodes, sources)
        with tempfile.TemporaryDirectory() as work:
            small = [os.path.basename(t) for t in sources] == [os.path.basename(t) for t in SMALL_TRACES]
            rc, out, cost = run_fleet(binary, work, nodes, ranks, small, {"where": where, "archive_traces": archive})
            if rc != 0:
                sys.stderr.write(out[-4000:])
            if os.environ.get("FLEET_KEEP"):  # the run's reports and console, kept for a look
                shutil.copytree(os.path.join(work, "out"), os.environ["FLEET_KEEP"], dirs_exist_ok=True)
                open(os.path.join(os.environ["FLEET_KEEP"], "console.txt"), "w").write(out)
            print(json.dumps(cost))
    finally:
        testcluster("down")


def measure_agents(binary, nodes, ranks, traces, inspect=None):
    """A managed run (srun -N NODES, one task a node: rank 0 the suite, every task an
    agent) on the fleet's own Slurm; rank 0's usage, its own node's agent included.
    inspect(work, out, exit_code), when given, looks at the run before its folder goes.
    False when the test cluster's Slurm holds the ports (nothing ran)."""
    if os.path.exists("/tmp/aorta-tc/pids/slurmctld.pid"):
        print(json.dumps({"nodes": nodes, "skipped": "the test cluster's Slurm holds the ports"}))
        return False
    testcluster("down")
    testcluster("up", nodes)
    try:
        testcluster("slurm-up")
        sources = sorted(glob.glob(os.path.join(traces, "*.json*")))
        prepare_nodes(nodes, sources)
        # Slurm tasks get root's home, not the sshd's per-node one: a home of the fleet's
        # whose login profile finds the double (the same node-local path on every node).
        home = os.path.join(FLEET["BASE"], "agents-home")
        os.makedirs(home, exist_ok=True)
        shutil.copy(os.path.join(FLEET["BASE"], "node1", "home", ".bash_profile"), home)
        # The rendezvous, the config and aorta_path must be on storage every node sees.
        shared = os.path.join(FLEET["BASE"], "shared", "fleet")
        shutil.rmtree(shared, ignore_errors=True)
        shutil.copytree(os.path.join(FLEET["BASE"], "node1", "local", "fleet"), shared)
        with tempfile.TemporaryDirectory(dir="/tmp") as work:
            small = [os.path.basename(t) for t in sources] == [os.path.basename(t) for t in SMALL_TRACES]
            args = fleet_inputs(work, nodes, ranks, small, shared)
            cut = args.index("--cluster_file")
            args = args[:cut] + args[cut + 2:]  # a managed run's nodes are the job's
            suite = " ".join(command(binary, work, *args))
            script = os.path.join(work, "job.sh")
            with open(script, "w") as f:
                f.write(f"#!/bin/bash\n#SBATCH --nodes={nodes}\n#SBATCH --time=30\n#SBATCH --output={work}/job.out\n"
                        f"cd {work}\nexport HOME={home}\n"
                        f"srun -N{nodes} --ntasks-per-node=1 bash -c 'if [ \"$SLURM_PROCID\" = 0 ]; then "
                        f"exec /usr/bin/time -f \"%e %U %S %M\" -o {work}/cost.txt {suite}; else exec {suite}; fi'\n"
                        "echo SUITE_EXIT=$?\n")
            rx0 = bridge_rx_bytes()
            env = dict(os.environ, SLURM_CONF=os.path.join(FLEET["BASE"], "slurm", "slurm.conf"))
            subprocess.run(["sbatch", "--wait", script], env=env, capture_output=True, text=True, timeout=1800)
            out = open(os.path.join(work, "job.out")).read() if os.path.exists(os.path.join(work, "job.out")) else ""
            timed = open(os.path.join(work, "cost.txt")).read().split() if os.path.exists(
                os.path.join(work, "cost.txt")) else []
            exit_code = int(out.rsplit("SUITE_EXIT=", 1)[1].split()[0]) if "SUITE_EXIT=" in out else -1
            if exit_code != 0 or len(timed) < 4:
                sys.stderr.write(out[-4000:])
            if os.environ.get("FLEET_KEEP"):
                shutil.copytree(os.path.join(work, "out"), os.environ["FLEET_KEEP"], dirs_exist_ok=True)
                open(os.path.join(os.environ["FLEET_KEEP"], "console.txt"), "w").write(out)
            wall, user, system, rss = (float(x) for x in timed[-4:]) if len(timed) >= 4 else (0, 0, 0, 0)
            print(json.dumps({"nodes": nodes, "ranks": nodes * ranks, "wall_s": wall, "cpu_s": round(user + system, 3),
                              "peak_rss_mb": round(rss / 1024, 1), "rx_bytes": bridge_rx_bytes() - rx0,
                              "peak_connections": None, "exit": exit_code}))
            if inspect:
                inspect(work, out, exit_code)
    finally:
        testcluster("down")
    return True


def analyzed(binary, nodes, ranks, small, where, archive="all"):
    """A run analyzed where `where` says: its report (each trace named by its folder in the
    run: the double names files by process id and time) and cost."""
    from node_analysis import name_by_folder
    with tempfile.TemporaryDirectory() as work:
        rc, out, cost = run_fleet(binary, work, nodes, ranks, small, {"where": where, "archive_traces": archive})
        p = type("P", (), {"stdout": out, "stderr": ""})
        stages, report = results(work)
        expect(rc == 0 and report and report["validation_passed"], f"the {where} run passes (exit {rc})", p)
        expect(("Node-side analysis: " in out) == (where == "nodes"), f"the {where} run says who read the traces", p)
        run_dir = os.path.dirname(glob.glob(os.path.join(work, "out", "*", "aorta_benchmark_report.json"))[0])
        name_by_folder(report, run_dir)
        return report, cost


def first_difference(a, b, where=""):
    """Where two JSON documents first differ, and the two values there; None when equal."""
    if type(a) is not type(b) or not isinstance(a, (dict, list)):
        return None if a == b else f"{where}: {str(a)[:300]} vs {str(b)[:300]}"
    keys = sorted(set(a) | set(b)) if isinstance(a, dict) else range(max(len(a), len(b)))
    for k in keys:
        if isinstance(a, list) and (k >= len(a) or k >= len(b)):
            return f"{where}: {len(a)} vs {len(b)} entries"
        found = first_difference(a.get(k) if isinstance(a, dict) else a[k], b.get(k) if isinstance(b, dict) else b[k],
                                 f"{where}/{k}")
        if found:
            return found
    return None


def check_nodes(binary, nodes, ranks, traces=None, archive="all"):
    sources = sorted(glob.glob(os.path.join(traces, "*.json*"))) if traces else SMALL_TRACES
    small = [os.path.basename(t) for t in sources] == [os.path.basename(t) for t in SMALL_TRACES]
    testcluster("down")
    testcluster("up", nodes)
    try:
        prepare_nodes(nodes, sources)
        head, head_cost = analyzed(binary, nodes, ranks, small, "head")
        on_nodes, nodes_cost = analyzed(binary, nodes, ranks, small, "nodes", archive)
        if archive != "all":  # a trace left on its node is named there (host:path)
            for doc in (head, on_nodes):
                for rank in doc["per_rank_summary"]:
                    del rank["source"]
                doc["diagnosis"] = None
        for key in ("per_rank_summary", "performance", "diagnosis"):
            expect(on_nodes[key] == head[key], f"{key} differs between head-side and node-side analysis: "
                                               f"{first_difference(head[key], on_nodes[key], key)}")
        print(f"PASS fleet check-nodes: {nodes} nodes x {ranks} ranks, node-side analysis equals head-side (==)")
        print(json.dumps({"head": head_cost, "nodes": nodes_cost}))
    finally:
        testcluster("down")


if __name__ == "__main__":
    skip_without_real_aorta()
    # One fleet on this machine at a time: a second waits (flock(1) on the same file too).
    lock = open("/tmp/aorta-fleet.lock", "a")
    fcntl.flock(lock, fcntl.LOCK_EX)
    binary, mode = os.path.abspath(sys.argv[1]), sys.argv[2]
    if mode == "check":
        check(binary, int(sys.argv[3]) if len(sys.argv) > 3 else 8, int(sys.argv[4]) if len(sys.argv) > 4 else 8)
    elif mode == "measure-agents":
        measure_agents(binary, int(sys.argv[3]), int(sys.argv[4]), sys.argv[5])
    elif mode == "check-nodes":
        check_nodes(binary, int(sys.argv[3]), int(sys.argv[4]), *sys.argv[5:7])
    elif mode == "measure":
        measure(binary, int(sys.argv[3]), int(sys.argv[4]), *sys.argv[5:8])
    else:
        sys.exit(__doc__)
