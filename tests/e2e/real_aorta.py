#!/usr/bin/env python3
"""Contract tests with the REAL Aorta workload (../shared/aorta, ROCm/aorta): the
shipped configs run end to end with a copy of it as the checkout, through Aorta's own
launch scripts (scripts/launch_rocm.sh, scripts/launch_cuda.sh) and through the
suite's torchrun mode. The one double is at the GPU boundary:
tests/doubles/aorta_gpu_boundary/torchrun, found first on PATH as the real launcher
finds torchrun; it learns the output folder from Aorta's own config code and writes
real H200 traces (tests/data) there. Every metric is compared with
tools/independent_metrics.py over the collected files.

Usage: real_aorta.py AORTA_SUITE CASE
  local_launch_rocm      the shipped single config as it is (launch_rocm.sh, auto), on
                         this machine, twice in the same checkout: the second run
                         never takes the first run's traces
  local_launch_cuda      script mode with launch_cuda.sh and a YAML whose output_dir
                         is absolute (chrome_trace names)
  local_torchrun         torchrun mode: the overrides reach train.py
  local_lock             a second run on the same aorta_path is refused by the lock
  local_crash            after the suite is killed (SIGKILL, SIGTRAP) the next run takes its lock over
  cluster_launch_rocm    the shipped single config over SSH, in a container
  cluster_launch_cuda    launch_cuda.sh over SSH, in a container
  cluster_torchrun       torchrun mode over SSH, in a container
  cluster_distributed    the shipped distributed config (auto: torchrun), 2 nodes x 2 ranks
Exits 77 (skipped) when ../shared/aorta is absent.
"""
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "suite"))
from suite_run import command, expect, passing_stages, results  # noqa: E402
from test_cluster import expect_clean  # noqa: E402

AORTA = os.path.normpath(os.path.join(ROOT, "..", "shared", "aorta"))
DOUBLE = os.path.join(ROOT, "tests", "doubles", "aorta_gpu_boundary")
TRACES = [os.path.join(ROOT, "tests", "data", f"h200-aorta-overlap_rank{r}.pt.trace.json.gz") for r in (0, 1)]
CHECKER = os.path.join(ROOT, "tools", "independent_metrics.py")
SHIPPED = os.path.join(ROOT, "configs")
BASE = os.environ.get("BASE", "/tmp/aorta-tc")
SYSTEM_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
FIELDS = ("total_time_us", "compute_time_us", "comm_time_us", "total_comm_time_us", "busy_time_us", "idle_time_us",
          "compute_ratio", "comm_ratio", "overlap_ratio")


def skip_without_real_aorta():
    """Exits 77 (ctest's skip) where ../shared/aorta is absent."""
    if not os.path.isdir(os.path.join(AORTA, "scripts")):
        print(f"SKIPPED: the real Aorta is not at {AORTA} (../shared/aorta beside the repository)")
        sys.exit(77)


def copy_checkout(dest):
    """The real Aorta, copied as a user's checkout: theirs to write (shared/ is read-only)."""
    subprocess.run(["cp", "-r", "--no-preserve=mode,ownership", AORTA, dest], check=True)
    subprocess.run(["chmod", "-R", "go-w", dest], check=True)


def add_yaml(checkout, name, edit):
    """A user's own YAML beside Aorta's: config/profile_overlap_2gpu.yaml with lines replaced."""
    text = open(os.path.join(checkout, "config", "profile_overlap_2gpu.yaml")).read()
    for old, new in edit.items():
        expect(old in text, f"{old!r} not in Aorta's profile_overlap_2gpu.yaml")
        text = text.replace(old, new)
    open(os.path.join(checkout, "config", name), "w").write(text)


def shipped_variant(distributed, edit):
    name = "distributed" if distributed else "single"
    variant = json.load(open(os.path.join(SHIPPED, f"mi3xx_aorta_profile_overlap_2gpu_{name}.json")))
    variant["gpus_per_node"] = 2
    variant["timeout_seconds"] = 600
    variant["multi_node"]["extra_env"] = {}
    edit(variant)
    return variant


def write_inputs(work, variant, cluster=None):
    shutil.copy(os.path.join(ROOT, "thresholds", variant["threshold_json"]), work)
    json.dump(variant, open(os.path.join(work, "aorta.json"), "w"), indent=1)
    args = ["--config_file", os.path.join(work, "aorta.json")]
    if cluster:
        json.dump(cluster, open(os.path.join(work, "cluster.json"), "w"))
        args += ["--cluster_file", os.path.join(work, "cluster.json")]
    return args


def start(binary, work, args, suite, env):
    return subprocess.Popen(command(binary, work, *args, f"--gtest_filter={suite}.*"), cwd=work, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def finish(proc, work):
    out, _ = proc.communicate(timeout=900)
    proc.stdout_text = out
    stages, report = results(work)
    return out, stages, report


class Run:
    def __init__(self, out, stages, report, work):
        self.out, self.stages, self.report, self.work = out, stages, report, work
        self.run_dir = sorted(glob.glob(os.path.join(work, "out", "*", "")), key=os.path.getmtime)[-1]


def run_suite(binary, work, args, suite, env):
    proc = start(binary, work, args, suite, env)
    out, stages, report = finish(proc, work)
    fake = type("P", (), {"stdout": out, "stderr": ""})
    return Run(out, stages, report, work), proc.returncode, fake


def check_passed(binary, run, rc, p, suite, ranks):
    outcomes = {k: v[0] for k, v in run.stages.items()}
    expected = passing_stages(binary, suite)
    expect(outcomes == expected, f"stages {outcomes}", p)
    expect(rc == 0, f"exit status {rc}", p)
    report = run.report
    expect(report is not None and report["status"] == "completed" and report["validation_passed"] is True,
           f"report {json.dumps(report)[:600]}", p)
    got = report["per_rank_summary"]
    expect([r["rank"] for r in got] == list(range(ranks)), f"ranks {[r['rank'] for r in got]}", p)
    for r in got:
        ref = json.loads(subprocess.run([sys.executable, CHECKER, r["source"]], check=True, capture_output=True,
                                        text=True).stdout)
        expect(r["parser"] == ref["parser"] == "tracelens_gpu_timeline", f"rank {r['rank']} parser {r['parser']}")
        expect(ref["rank"] == r["rank"], f"rank {r['rank']}: the trace says rank {ref['rank']}")
        for key in FIELDS:
            expect(abs(r[key] - ref[key]) <= 1e-9 * max(1, abs(ref[key])), f"rank {r['rank']} {key}: {r[key]} vs {ref[key]}")
    mean = sum(r["total_time_us"] for r in got) / len(got)
    expect(abs(report["performance"]["avg_iteration_time_ms"] - mean / 1000) < 1e-9, "avg_iteration_time_ms")
    return got


def train_py_arguments(run, node=0):
    """What reached train.py on a node, as the double printed it into the training log."""
    log = open(os.path.join(run.run_dir, f"benchmark-node-{node}.log")).read()
    found = re.search(r"aorta_gpu_boundary: train.py arguments (.*)", log)
    expect(found, f"no train.py arguments in benchmark-node-{node}.log:\n{log[-2000:]}")
    return json.loads(found.group(1)), log


def collected(run, pattern):
    files = sorted(os.path.relpath(f, run.run_dir) for f in glob.glob(os.path.join(run.run_dir, pattern), recursive=True))
    # Exactly the traces the double wrote in this run, on every node: none of an
    # earlier run's, none missing.
    written = []
    for log in glob.glob(os.path.join(run.run_dir, "benchmark-node-*.log")):
        written += [os.path.basename(m) for m in re.findall(r"aorta_gpu_boundary: rank \d+ trace (\S+)", open(log).read())]
    got = [re.sub(r"\.(zst|gz)$", "", os.path.basename(f)) for f in files]
    expect(sorted(got) == sorted(written), f"collected {got}, the double wrote {written} in this run")
    return files


# --- on this machine (the local default: no SSH, no container) ---

def local_setup(work):
    """A checkout, the double's traces and a home whose login shell finds the double
    first (torchrun mode runs `bash -lc`, and /etc/profile sets PATH anew)."""
    checkout = os.path.join(work, "aorta", "repo")
    os.makedirs(os.path.dirname(checkout), mode=0o700)
    copy_checkout(checkout)
    traces = os.path.join(work, "gpu-traces")
    os.makedirs(traces)
    for t in TRACES:
        shutil.copy(t, traces)
    home = os.path.join(work, "home")
    os.makedirs(home)
    open(os.path.join(home, ".bash_profile"), "w").write(f"export PATH={DOUBLE}:$PATH\n")
    env = dict(os.environ, PATH=f"{DOUBLE}:{SYSTEM_PATH}", HOME=home)
    return checkout, traces, env


def local_variant(work, traces, edit=lambda v: None):
    def local(v):
        v["paths"]["shared_fs"] = os.path.join(work, "aorta")
        v["container"]["image"] = ""
        v["container"]["runtime"] = {"name": "none", "args": {}}
        v["container"]["env"].update({"NPROC": "2", "AORTA_GPU_DOUBLE_TRACES": traces})
        edit(v)
    return shipped_variant(False, local)


def case_local_launch_rocm(binary):
    with tempfile.TemporaryDirectory() as work:
        checkout, traces, env = local_setup(work)
        args = write_inputs(work, local_variant(work, traces))
        first, rc, p = run_suite(binary, work, args, "aorta_single", env)
        check_passed(binary, first, rc, p, "aorta_single", 2)
        argv, _ = train_py_arguments(first)
        # launch_rocm.sh passes the YAML alone (and its own flag): the suite's overrides are dropped.
        expect(argv == ["--config", os.path.join(checkout, "config", "profile_overlap_2gpu.yaml"),
                        "--enable-rocm-metrics"], f"train.py got {argv}")
        files = collected(first, "traces/**/*.json*")
        expect(len(files) == 2 and all(f.startswith("traces/artifacts/profile_overlap_2gpu/torch_profiler/rank")
                                       for f in files), f"collected {files}")
        on_node = sorted(glob.glob(os.path.join(checkout, "artifacts", "profile_overlap_2gpu", "torch_profiler", "rank*", "*")))
        expect(len(on_node) == 2, f"on the node: {on_node}")
        expect("localhost: found 2 file(s) of this run in artifacts/profile_overlap_2gpu/torch_profiler" in first.out,
               "the stage log does not say where the traces were found", p)

        # Again in the same checkout: the first run's traces are still there, fresh
        # within the minute of clock skew, and are never taken.
        second, rc, p = run_suite(binary, work, args, "aorta_single", env)
        check_passed(binary, second, rc, p, "aorta_single", 2)
        again = collected(second, "traces/**/*.json*")
        expect(len(again) == 2 and not set(os.path.basename(f) for f in again) & set(os.path.basename(f) for f in files),
               f"second run collected {again}, first {files}")
        for f in on_node:
            rel = os.path.relpath(f, checkout)
            expect(re.search(re.escape(f"localhost: skipped {rel}") + r".*: there before the benchmark started, unchanged",
                             second.out), f"the second run's log does not name {rel} as skipped", p)
        expect("localhost: skipped .cvs-aorta/" in second.out, "the first run's own folder is not named as skipped", p)
        print(f"PASS local_launch_rocm: 2 runs, each its own 2 traces of artifacts/profile_overlap_2gpu")


def case_local_launch_cuda(binary):
    with tempfile.TemporaryDirectory() as work:
        checkout, traces, env = local_setup(work)
        out_dir = os.path.join(checkout, "runs", "absolute")
        add_yaml(checkout, "contract_absolute.yaml",
                 {"output_dir: artifacts/profile_overlap_2gpu": f"output_dir: {out_dir}",
                  "chrome_trace: false": "chrome_trace: true", "tensorboard: true": "tensorboard: false"})

        def cuda(v):
            v["experiment_script"] = "scripts/launch_cuda.sh"
            v["base_config"] = "config/contract_absolute.yaml"
            v["multi_node"]["master_launch_mode"] = "script"
        run, rc, p = run_suite(binary, work, write_inputs(work, local_variant(work, traces, cuda)), "aorta_single", env)
        check_passed(binary, run, rc, p, "aorta_single", 2)
        argv, _ = train_py_arguments(run)
        expect(argv == ["--config", os.path.join(checkout, "config", "contract_absolute.yaml")], f"train.py got {argv}")
        # active 4 > 1: export_chrome_trace's trace_step<N>.json, N the YAML's max_steps (12).
        files = collected(run, "traces/**/*.json*")
        expect(files == [f"traces/runs/absolute/torch_profiler/rank{r}/trace_step12.json.zst" for r in (0, 1)],
               f"collected {files}")
        print("PASS local_launch_cuda: absolute output_dir, chrome_trace names")


def case_local_torchrun(binary):
    with tempfile.TemporaryDirectory() as work:
        checkout, traces, env = local_setup(work)

        def torchrun(v):
            v["multi_node"]["master_launch_mode"] = "torchrun"
        run, rc, p = run_suite(binary, work, write_inputs(work, local_variant(work, traces, torchrun)), "aorta_single", env)
        check_passed(binary, run, rc, p, "aorta_single", 2)
        argv, log = train_py_arguments(run)
        expect(argv[:2] == ["--config", os.path.join(checkout, "config", "profile_overlap_2gpu.yaml")] and
               argv[2] == "--override" and "training.max_steps=15" in argv and "profiling.active=6" in argv,
               f"train.py got {argv}")
        expect('"max_steps": 15' in log or "max_steps 15" in log, "the override did not reach Aorta's config code")
        # The suite's output override arrived: the run's own folder, collected as <output>/torch_profiler.
        files = collected(run, "combined_traces/**/*.json*")
        expect(len(files) == 2 and all(f.startswith("combined_traces/node_0/output/torch_profiler/rank") for f in files),
               f"collected {files}")
        expect(not os.path.exists(os.path.join(checkout, "artifacts")), "traces written outside the run's own folder")
        print("PASS local_torchrun: overrides reach train.py; the run's own folder")


def case_local_lock(binary):
    with tempfile.TemporaryDirectory() as work:
        checkout, traces, env = local_setup(work)
        started, hold = os.path.join(work, "started"), os.path.join(work, "hold")
        held_env = dict(env, AORTA_GPU_DOUBLE_STARTED=started, AORTA_GPU_DOUBLE_HOLD=hold)
        args = write_inputs(work, local_variant(work, traces))
        first_work = os.path.join(work, "first")
        os.makedirs(first_work)
        shutil.copy(os.path.join(work, "aorta.json"), first_work)
        shutil.copy(os.path.join(work, "mi3xx_aorta_profile_overlap_2gpu_threshold.json"), first_work)
        first = start(binary, first_work, ["--config_file", os.path.join(first_work, "aorta.json")], "aorta_single", held_env)
        try:
            deadline = time.monotonic() + 300
            while not os.path.exists(started):  # the first run's training is under way
                expect(first.poll() is None and time.monotonic() < deadline, "the first run never started training")
                time.sleep(0.1)
            second, rc, p = run_suite(binary, work, args, "aorta_single", env)
            expect(rc != 0, "a second run on the same aorta_path was not refused", p)
            launch = second.stages["test_launch_container"]
            expect(launch[0] == "failed" and "in use by another run" in launch[1] and f"pid {first.pid}" in launch[1],
                   f"test_launch_container: {launch}", p)
            expect(not glob.glob(os.path.join(second.run_dir, "traces", "**", "*.json*"), recursive=True),
                   "the refused run collected traces")
        finally:
            open(hold, "w").close()
        out, stages, report = finish(first, first_work)
        fake = type("P", (), {"stdout": out, "stderr": ""})
        check_passed(binary, Run(out, stages, report, first_work), first.returncode, fake, "aorta_single", 2)
        print("PASS local_lock: the second run refused, the first one unharmed")


def processes_naming(text):
    """The pids whose command line holds text (the lock holder's names its run)."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if text.encode() in open(f"/proc/{pid}/cmdline", "rb").read():
                found.append(int(pid))
        except OSError:
            pass
    return found


def case_local_crash(binary):
    """Issue 31, 3: the suite ended by SIGKILL, then by SIGTRAP (what
    --gtest_break_on_failure would send; that flag is refused), mid-benchmark: the
    next run takes over the lock, saying so, passes, and leaves no process of the
    dead run behind."""
    import signal
    with tempfile.TemporaryDirectory() as work:
        checkout, traces, env = local_setup(work)
        args = write_inputs(work, local_variant(work, traces))
        for sig in (signal.SIGKILL, signal.SIGTRAP):
            started, hold = os.path.join(work, "started"), os.path.join(work, "hold")
            for f in (started, hold):
                if os.path.exists(f):
                    os.remove(f)
            crashed_work = os.path.join(work, f"crashed_{sig.name}")
            os.makedirs(crashed_work)
            for name in ("aorta.json", "mi3xx_aorta_profile_overlap_2gpu_threshold.json"):
                shutil.copy(os.path.join(work, name), crashed_work)
            crashed = start(binary, crashed_work, ["--config_file", os.path.join(crashed_work, "aorta.json")],
                            "aorta_single", dict(env, AORTA_GPU_DOUBLE_STARTED=started, AORTA_GPU_DOUBLE_HOLD=hold))
            deadline = time.monotonic() + 300
            while not os.path.exists(started):  # its training is under way, the lock taken
                expect(crashed.poll() is None and time.monotonic() < deadline, "the run never started training")
                time.sleep(0.1)
            os.kill(crashed.pid, sig)
            crashed.communicate(timeout=60)
            expect(crashed.returncode == -sig, f"{sig.name}: the suite ended by it ({crashed.returncode})")
            run_id = os.listdir(os.path.join(crashed_work, "out"))[0]
            expect(processes_naming(f"run {run_id},"), f"{sig.name}: the dead run's lock holder is there to take over")
            open(hold, "w").close()  # its training may end now
            run, rc, p = run_suite(binary, work, args, "aorta_single", env)
            expect(f"took over the aorta_path lock of run {run_id}: its suite (pid {crashed.pid} on this head node) "
                   "is no longer running" in run.out, f"{sig.name}: the takeover is said", p)
            check_passed(binary, run, rc, p, "aorta_single", 2)
            deadline = time.monotonic() + 10
            while processes_naming(f"run {run_id},") and time.monotonic() < deadline:
                time.sleep(0.1)
            expect(not processes_naming(f"run {run_id},"), f"{sig.name}: a process of the dead run is left")
        print("PASS local_crash: after SIGKILL and SIGTRAP the next run takes the lock over, saying so, and passes")


# --- the test cluster: SSH to netns nodes, podman containers ---

def cluster_setup(nodes):
    """The checkout and the double on each node's own storage (/var/lib/aorta-node)."""
    cluster = json.load(open(os.path.join(BASE, "cluster.json")))
    hosts = list(cluster["node_dict"])[:nodes]
    cluster["node_dict"] = {h: cluster["node_dict"][h] for h in hosts}
    for i in range(1, nodes + 1):
        local = os.path.join(BASE, f"node{i}", "local", "real-aorta")
        shutil.rmtree(local, ignore_errors=True)
        os.makedirs(os.path.join(local, "gpu-traces"), mode=0o700)
        copy_checkout(os.path.join(local, "repo"))
        for t in TRACES:
            shutil.copy(t, os.path.join(local, "gpu-traces"))
        for name in ("torchrun", "python"):
            shutil.copy(os.path.join(DOUBLE, name), os.path.join(local, name))
    return cluster, hosts


def cluster_variant(distributed, edit=lambda v: None):
    def in_containers(v):
        e2e = json.load(open(os.path.join(HERE, "cpu_docker.json")))
        v["paths"]["shared_fs"] = "/var/lib/aorta-node/real-aorta"
        v["container"]["image"] = e2e["container"]["image"]
        args = e2e["container"]["runtime"]["args"]
        # The double first on the container's PATH (/usr/local/bin, login shells too).
        args["volumes"] = ["{paths.shared_fs}/repo:/mnt", "{paths.shared_fs}/torchrun:/usr/local/bin/torchrun:ro",
                           "{paths.shared_fs}/python:/usr/local/bin/python:ro",
                           "{paths.shared_fs}/gpu-traces:/opt/gpu-traces:ro"]
        v["container"]["runtime"]["args"] = args
        v["container"]["env"].update({"NPROC": "2", "AORTA_GPU_DOUBLE_TRACES": "/opt/gpu-traces"})
        edit(v)
    return shipped_variant(distributed, in_containers)


def cluster_case(binary, distributed, edit, expect_argv, combined, tree):
    nodes = 2 if distributed else 1
    cluster, hosts = cluster_setup(nodes)
    suite = "aorta_distributed" if distributed else "aorta_single"
    with tempfile.TemporaryDirectory() as work:
        args = write_inputs(work, cluster_variant(distributed, edit), cluster)
        run, rc, p = run_suite(binary, work, args, suite, dict(os.environ))
        check_passed(binary, run, rc, p, suite, 2 * nodes)
        for i in range(nodes):
            argv, _ = train_py_arguments(run, i)
            expect_argv(argv)
        files = collected(run, "combined_traces/**/*.json*" if combined else "traces/**/*.json*")
        expect(len(files) == 2 * nodes and all(tree in f for f in files), f"collected {files}")
        expect_clean(hosts)  # no container, no training process left on any node
        return files


def script_argv(yaml, extra):
    def check(argv):
        expect(argv == ["--config", f"/mnt/config/{yaml}"] + extra, f"train.py got {argv}")
    return check


def case_cluster_launch_rocm(binary):
    files = cluster_case(binary, False, lambda v: None,
                         script_argv("profile_overlap_2gpu.yaml", ["--enable-rocm-metrics"]), False,
                         "traces/artifacts/profile_overlap_2gpu/torch_profiler/rank")
    print(f"PASS cluster_launch_rocm: {files}")


def case_cluster_launch_cuda(binary):
    def cuda(v):
        v["experiment_script"] = "scripts/launch_cuda.sh"
        v["multi_node"]["master_launch_mode"] = "script"
    files = cluster_case(binary, False, cuda, script_argv("profile_overlap_2gpu.yaml", []), False,
                         "traces/artifacts/profile_overlap_2gpu/torch_profiler/rank")
    print(f"PASS cluster_launch_cuda: {files}")


def torchrun_argv(argv):
    expect(argv[:2] == ["--config", "/mnt/config/profile_overlap_2gpu.yaml"] and "training.max_steps=15" in argv,
           f"train.py got {argv}")


def case_cluster_torchrun(binary):
    def torchrun(v):
        v["multi_node"]["master_launch_mode"] = "torchrun"
    files = cluster_case(binary, False, torchrun, torchrun_argv, True, "combined_traces/node_0/output/torch_profiler/rank")
    print(f"PASS cluster_torchrun: {files}")


def case_cluster_distributed(binary):
    files = cluster_case(binary, True, lambda v: None, torchrun_argv, True, "/output/torch_profiler/rank")
    nodes_seen = sorted({f.split("/")[1] for f in files})
    expect(nodes_seen == ["node_0", "node_1"], f"collected from {nodes_seen}")
    print(f"PASS cluster_distributed: {files}")


if __name__ == "__main__":
    skip_without_real_aorta()
    binary, case = os.path.abspath(sys.argv[1]), sys.argv[2]
    globals()[f"case_{case}"](binary)
