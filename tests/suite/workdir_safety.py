#!/usr/bin/env python3
"""The node working folder is safe by default (issue 14), with the real binary and
the local transport: a planted or world-writable aorta_path is refused before any
script in it runs, the explicit opt-out works, a second concurrent run of the
embedded default is refused naming the first, a deleted aorta_path fails the run
within seconds naming the node, and extra launch arguments a shell would read as
code are refused before anything runs.
Runs as root (it chowns a folder to nobody).
Usage: workdir_safety.py AORTA_SUITE
"""
import glob
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

from suite_run import command, expect, results, run

HERE = os.path.dirname(os.path.abspath(__file__))
WORKLOAD = os.path.join(HERE, "..", "..", "workload")
binary = os.path.abspath(sys.argv[1])
PRIOR = "a prior lifecycle stage failed"
NOBODY = 65534
# WORKDIR_SAFETY_ONLY=1,3 runs only those cases (to see each fail without its fix).
ONLY = os.environ.get("WORKDIR_SAFETY_ONLY")


def want(case):
    return not ONLY or str(case) in ONLY.split(",")


def copy_default(work, edit):
    for name in ("local_cpu_single.json", "local_cpu_threshold.json"):
        if os.path.exists(os.path.join(work, name)):
            os.remove(os.path.join(work, name))
        subprocess.run([binary, "config", "copy", name, "--output", os.path.join(work, name)], check=True,
                       stdout=subprocess.DEVNULL)
    path = os.path.join(work, "local_cpu_single.json")
    doc = json.load(open(path))
    edit(doc)
    json.dump(doc, open(path, "w"))
    return path


def plant(repo, canary):
    """A complete checkout whose experiment script only touches the canary."""
    shutil.copytree(WORKLOAD, repo)
    with open(os.path.join(repo, "scripts", "launch_cpu.sh"), "w") as f:
        f.write(f"#!/usr/bin/env bash\ntouch {canary}\n")


def private_work():
    work = tempfile.TemporaryDirectory()
    os.chmod(work.name, 0o700)
    return work


def refused_at_launch(p, stages, needles):
    expect(p.returncode == 1, f"exit {p.returncode}", p)
    launch = stages.get("test_launch_container", ("missing", ""))
    expect(launch[0] == "failed", f"test_launch_container: {launch}", p)
    for needle in needles:
        expect(needle in launch[1], f"'{needle}' not in: {launch[1]}", p)
    for name in ("test_clone_aorta", "test_run_benchmark", "test_collect_traces"):
        expect(stages[name][0] == "skipped" and stages[name][1].strip().endswith(f"{PRIOR} (test_launch_container)"), f"{name}: {stages[name]}")
    expect(stages["test_teardown"][0] == "passed", str(stages["test_teardown"]))


# 1. A checkout planted in the working folder by another user: refused, never run.
if want(1):
    with private_work() as work:
        fs = os.path.join(work, "fs")
        canary = os.path.join(work, "canary-planted")
        plant(os.path.join(fs, "aorta"), canary)
        for d, dirs, files in os.walk(fs):
            for name in [d] + [os.path.join(d, f) for f in dirs + files]:
                os.lchown(name, NOBODY, NOBODY)
        cfg = copy_default(work, lambda v: v["paths"].update(shared_fs=fs))
        p, stages, _ = run(binary, work, "--config_file", cfg)
        expect(not os.path.exists(canary), "the planted script ran", p)
        refused_at_launch(p, stages, [f"aorta_path {fs}/aorta is not safe to run from: node localhost: {fs}/aorta belongs "
                                      "to uid 65534 (nobody), not to you (uid 0) or root", '"trust_aorta_path": true'])
        print("ok: a working folder planted by another user is refused and its script never runs")

# 2. A configured aorta_path that others may write to: refused; with the explicit
#    opt-out the same folder runs the whole benchmark.
if want(2):
    with private_work() as work:
        repo = os.path.join(work, "repo")
        canary = os.path.join(work, "canary-writable")
        plant(repo, canary)
        os.chmod(repo, 0o777)
        cfg = copy_default(work, lambda v: v.update(aorta_path=repo, aorta_auto_clone=False))
        p, stages, _ = run(binary, work, "--config_file", cfg)
        expect(not os.path.exists(canary), "the script in a world-writable aorta_path ran", p)
        refused_at_launch(p, stages, [f"node localhost: {repo} is writable by group or others (mode 0777)"])
        print("ok: a world-writable aorta_path is refused")

        shutil.copy(os.path.join(WORKLOAD, "scripts", "launch_cpu.sh"), os.path.join(repo, "scripts", "launch_cpu.sh"))
        shutil.rmtree(os.path.join(work, "out"))
        cfg = copy_default(work, lambda v: v.update(aorta_path=repo, aorta_auto_clone=False, trust_aorta_path=True))
        p, stages, report = run(binary, work, "--config_file", cfg)
        expect(p.returncode == 0, f"opt-out: exit {p.returncode}", p)
        expect(report is not None and report["status"] == "completed", "opt-out: no completed report", p)
        print("ok: trust_aorta_path true runs from that folder")

# 3. Two concurrent runs of the embedded default: the second is refused naming the
#    first (run id, host, pid, start time); the first passes on its own traces.
if want(3):
    with tempfile.TemporaryDirectory() as work_a, tempfile.TemporaryDirectory() as work_b:
        first = subprocess.Popen(command(binary, work_a, "--gtest_filter=*single*"), cwd=work_a, stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT, text=True)
        seen = []
        for line in first.stdout:
            seen.append(line)
            if line.startswith("[benchmark]"):
                break
        expect(any(l.startswith("[benchmark]") for l in seen), "the first run never reached the benchmark:\n" +
               "".join(seen)[-3000:])
        p, stages_b, report_b = run(binary, work_b, "--gtest_filter=*single*")
        rest = first.stdout.read()
        first.wait(timeout=600)
        stages_a, report_a = results(work_a)
        run_a = os.listdir(os.path.join(work_a, "out"))
        expect(len(run_a) == 1 and re.fullmatch("[0-9a-f]{32}", run_a[0]), f"first run's folder: {run_a}")
        refused_at_launch(p, stages_b, [f"node localhost: aorta_path /tmp/aorta_suite-", "in use by another run (run " +
                                        run_a[0] + f", host {socket.gethostname()}, pid {first.pid}, started 20",
                                        "lock holder pid "])
        expect(report_b is None, "the refused run wrote a benchmark report")
        expect(first.returncode == 0, f"first run: exit {first.returncode}\n{''.join(seen)[-2000:]}{rest[-3000:]}")
        expect(all(v[0] in ("passed", "skipped") for v in stages_a.values()), str(stages_a))
        # Its traces came from its own output folder on the node, and only from there.
        sources = [r["source"] for r in report_a["per_rank_summary"]]
        own = os.path.join(work_a, "out", run_a[0], "traces", "output", "torch_profiler")
        expect(len(sources) == 2 and all(s.startswith(own + "/rank") for s in sources), f"sources {sources}")
        node_side = glob.glob(f"/tmp/aorta_suite-*/aorta/.cvs-aorta/{run_a[0]}/output/torch_profiler/rank*/*.json")
        expect(len(node_side) == 2, f"node-side traces of the run: {node_side}")
        print("ok: a second concurrent run is refused naming the first; the first reports only its own traces")

        # The lock is released at teardown: the next run of the default passes.
        shutil.rmtree(os.path.join(work_b, "out"))
        p, stages_b, report_b = run(binary, work_b, "--gtest_filter=*single*")
        expect(p.returncode == 0, f"the run after: exit {p.returncode}", p)
        print("ok: the lock is released at teardown")

# 4. aorta_path deleted while the workload runs: the run fails within seconds naming
#    the node, and no training process is left behind.
if want(4):
    with private_work() as work:
        fs = os.path.join(work, "fs")

        def hang(v):
            v["paths"]["shared_fs"] = fs
            v["training_overrides"]["faults.hang"] = "true"
        cfg = copy_default(work, hang)
        proc = subprocess.Popen(command(binary, work, "--config_file", cfg), cwd=work, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True)
        seen = []
        for line in proc.stdout:
            seen.append(line)
            if line.startswith("[benchmark]"):
                break
        time.sleep(2)
        shutil.rmtree(os.path.join(fs, "aorta"))
        deleted = time.monotonic()
        try:
            rest, _ = proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            raise SystemExit("FAIL: the run did not notice the deleted aorta_path within 60 s")
        took = time.monotonic() - deleted
        stages, _ = results(work)
        expect(proc.returncode == 1, f"exit {proc.returncode}\n{rest[-3000:]}")
        bench = stages["test_run_benchmark"]
        expect(bench[0] == "failed" and f"the benchmark log on node localhost is gone" in bench[1] and
               f"aorta_path {fs}/aorta was deleted or moved during the run" in bench[1], str(bench))
        expect(took < 30, f"noticed only after {took:.1f} s")
        time.sleep(0.5)
        left = subprocess.run(["pgrep", "-f", f"{fs}/aorta/train.py"], capture_output=True, text=True).stdout
        expect(left.strip() == "", f"training processes left running: {left}")
        print(f"ok: a deleted aorta_path failed the run {took:.1f} s later, naming the node")

# 5. Extra launch arguments that a shell would read as code (CVS splices them into a
# bash line) are refused at load time, each named, and nothing runs.
if want(5):
    with private_work() as work:
        canary = os.path.join(work, "canary-args")

        def hostile(v):
            v["paths"]["shared_fs"] = os.path.join(work, "fs")
            v["multi_node"]["master_launch_mode"] = "torchrun"
            # ${IFS}, not a space: an element holding whitespace is refused for that.
            v["multi_node"]["extra_torchrun_args"] = ["--max_restarts=0", f"$(touch${{IFS}}{canary})"]
            v["multi_node"]["extra_train_args"] = [f"`touch${{IFS}}{canary}`", f"x;touch${{IFS}}{canary}"]
        cfg = copy_default(work, hostile)
        p, stages, _ = run(binary, work, "--config_file", cfg)
        expect(p.returncode == 2, f"exit {p.returncode} (expected 2, a configuration error)", p)
        for key, char in (("multi_node.extra_torchrun_args[1]", '"$"'), ("multi_node.extra_train_args[0]", '"`"'),
                          ("multi_node.extra_train_args[1]", '";"')):
            expect(f"{key}: element " in p.stderr and f"holds {char}" in p.stderr, f"{key} not refused", p)
        expect("put the literal value you mean in the config" in p.stderr, "the refusal gives no fix", p)
        expect(not os.path.exists(canary), "an extra launch argument ran as shell code")
        expect(not glob.glob(os.path.join(work, "out", "*")), "a run folder was started")
        print("ok: extra launch arguments with shell meaning are refused before anything runs")

# 6. Ctrl-C during the benchmark: teardown still releases the working folder's lock.
if want(6):
    with private_work() as work:
        fs = os.path.join(work, "fs")

        def hang(v):
            v["paths"]["shared_fs"] = fs
            v["training_overrides"]["faults.hang"] = "true"
        cfg = copy_default(work, hang)
        proc = subprocess.Popen(command(binary, work, "--config_file", cfg), cwd=work, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True)
        for line in proc.stdout:
            if line.startswith("[benchmark]"):
                break
        lock = os.path.join(fs, "aorta", ".cvs-aorta", "lock")
        expect(os.path.isfile(os.path.join(lock, "owner")), "the lock is not held while the run runs")
        proc.send_signal(signal.SIGINT)
        rest, _ = proc.communicate(timeout=120)
        expect(proc.returncode == 1, f"exit {proc.returncode}\n{rest[-3000:]}")
        expect(not os.path.exists(lock), "the lock is still held after an interrupted run\n" + rest[-3000:])
        print("ok: an interrupted run releases the lock at teardown")
