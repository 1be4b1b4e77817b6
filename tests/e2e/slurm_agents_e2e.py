#!/usr/bin/env python3
"""aorta_suite launched the CVS way on the test cluster's real Slurm: one job step,
one task per node (`srun -N<n> --ntasks-per-node=1 aorta_suite ...`). Rank 0 runs
the suite; every rank serves an agent; there is no SSH and no step per command.

Usage: slurm_agents_e2e.py AORTA_SUITE MODE
  distributed: aorta_distributed on 3 nodes with containers, green, metrics equal to
    the independent checker's, and the job's next step id 1 (the suite made one step)
  single: aorta_single in a one-node step, with a workspace: the run folder and the
    workspace's cvs_runs/ folder are named after the job id
  agent_lost: node3's agent killed while the benchmark runs: the run names node3, the
    survivors' traces are still collected and their containers removed
  agent_paused: node2's agent stopped (SIGSTOP) for 45 s while the benchmark runs, then
    continued: the run passes
  rank0_killed: rank 0 killed (SIGKILL) while the benchmark runs: every agent ends,
    runs its node's last will, and nothing of the run is left on any node
  bare_metal: CVS_SCHEDULER=bare_metal inside a step is an SSH run of the cluster file
  interrupted: SIGTERM to every task of the step (as scancel --signal=TERM or a
    preemption sends it) while the benchmark runs: rank 0 cleans up through the agents,
    which outlive the signal, and reports
"""
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "suite"))
from suite_run import expect, results  # noqa: E402
from test_cluster import expect_clean, on_node, passing_stages, slurm_env, submit, wait_for_job  # noqa: E402
from test_cluster import write_inputs  # noqa: E402

CHECKER = os.path.join(HERE, "..", "..", "tools", "independent_metrics.py")
binary, mode = os.path.abspath(sys.argv[1]), sys.argv[2]
nodes = {"distributed": 3, "agent_lost": 3, "agent_paused": 2, "rank0_killed": 2, "interrupted": 2}.get(mode, 1)
suite = "aorta_single" if nodes == 1 else "aorta_distributed"
env = slurm_env()
HOSTS = [f"10.211.0.{10 + i}" for i in range(1, 4)]


def suite_processes():
    """pid -> command line of this test's aorta_suite processes on the machine (the nodes
    share its pids): rank 0, the step's other ranks and the agents all name its folder."""
    found = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmd = open(f"/proc/{pid}/cmdline", "rb").read().split(b"\0")
        except OSError:
            continue
        line = b" ".join(cmd).decode(errors="replace")
        if cmd and os.path.basename(cmd[0].decode(errors="replace")) == "aorta_suite" and WORK in line:
            found[int(pid)] = line
    return found


def traced_ranks(root):
    """The ranks with a trace file somewhere below root (torch_profiler/rank<r>/)."""
    ranks = set()
    for d, _, files in os.walk(root):
        if os.path.basename(d).startswith("rank") and any(f.endswith(".pt.trace.json") for f in files):
            ranks.add(int(os.path.basename(d)[4:]))
    return ranks


def wait_for(what, check, seconds):
    deadline = time.time() + seconds
    while time.time() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.2)
    raise SystemExit(f"FAIL: {what} within {seconds} s")


with tempfile.TemporaryDirectory(dir="/tmp") as work:
    WORK = work
    shared = os.path.join(work, "shared")  # every node sees /tmp: shared storage

    def on_shared_storage(variant):
        variant["paths"]["shared_fs"] = shared
    write_inputs(work, edit_variant=on_shared_storage, nodes=1 if mode == "bare_metal" else None)
    extra = ""
    if mode == "bare_metal":
        extra = f"--cluster_file {work}/cluster.json "
    if mode == "single":
        extra = f"--workspace {work}/ws "
    script = os.path.join(work, "job.sh")
    with open(script, "w") as f:
        f.write("#!/bin/bash\n"
                f"#SBATCH --nodes={nodes}\n#SBATCH --time=30\n#SBATCH --output={work}/slurm-%j.out\n"
                f"cd {work}\n"
                + ("export CVS_SCHEDULER=bare_metal\n" if mode == "bare_metal" else "")
                + f"srun -N{nodes} --ntasks-per-node=1 {binary} {extra}--config_file cpu_docker.json --output_dir out "
                f"--gtest_output=xml:{work}/gtest.xml --gtest_filter={suite}.*\n"
                "echo SUITE_EXIT=$?\n"
                # The next step's id counts the steps the suite made.
                "srun -N1 --overlap bash -c 'echo NEXT_STEP=$SLURM_STEP_ID'\n")
    job_id = submit(script)
    out_file = os.path.join(work, f"slurm-{job_id}.out")
    output = lambda: open(out_file).read() if os.path.exists(out_file) else ""  # noqa: E731
    agents_dir = os.path.join(shared, f".aorta_suite_agents.{os.geteuid()}", f"{job_id}.0")

    def agent_pid(rank):
        return json.load(open(os.path.join(agents_dir, f"agent.{rank}")))["pid"]

    if mode in ("agent_lost", "rank0_killed", "interrupted", "agent_paused"):
        # Once the training runs on every node, break one part of the run for real.
        wait_for("training on every node", lambda: "[benchmark] 0/" in output(), 300)
        if mode == "agent_paused":
            # Node 2's agent silent for 45 s (stopped: it neither answers nor hears rank 0's
            # heartbeat), then on again: the run goes on.
            paused = agent_pid(1)
            os.kill(paused, signal.SIGSTOP)
            time.sleep(45)  # the fault itself lasts 45 s; nothing is waited for here
            os.kill(paused, signal.SIGCONT)
        elif mode == "agent_lost":
            # Once the survivors' traces are written: an ended agent fails the benchmark at
            # the next poll, which stops their training too.
            wait_for("the traces of ranks 0-3", lambda: {0, 1, 2, 3} <= traced_ranks(shared), 300)
            os.kill(agent_pid(2), signal.SIGKILL)
        elif mode == "interrupted":
            sent = subprocess.run(["scancel", "--signal=TERM", f"{job_id}.0"], env=env, capture_output=True, text=True)
            expect(sent.returncode == 0, sent.stderr)
        else:
            rank0 = int(open(f"/proc/{agent_pid(0)}/stat").read().rsplit(")", 1)[1].split()[1])  # its parent
            expect("agent" not in suite_processes().get(rank0, "agent"), "rank 0 is not the suite")
            os.kill(rank0, signal.SIGKILL)
            # Every agent ends what it started and exits; no container or training is left.
            wait_for("every agent gone", lambda: not suite_processes(), 60)
            expect_clean(HOSTS[:nodes])
            expect(not os.path.exists(agents_dir), f"{agents_dir} left behind")
    wait_for_job(job_id, 600)
    text = output()
    expect("NEXT_STEP=1" in text, f"the suite made more than one job step:\n{text[-3000:]}")
    expect(not suite_processes(), f"aorta_suite processes left: {suite_processes()}")
    if mode == "rank0_killed":
        print(f"PASS slurm agents {mode}: job {job_id}, rank 0 killed, agents and workload gone")
        sys.exit(0)
    stages, report = results(work)
    outcomes = {k: v[0] for k, v in stages.items()}
    if mode == "interrupted":
        expect("interrupted by SIGTERM; cleaned up and reported" in text, text[-4000:])
        expect(outcomes.get("test_teardown") == "passed", f"teardown {outcomes}\n{text[-3000:]}")
        expect_clean(HOSTS[:nodes])
        print(f"PASS slurm agents {mode}: job {job_id}, SIGTERM to the step, cleaned up through the agents")
        sys.exit(0)
    if mode == "agent_lost":
        expect("SUITE_EXIT=0" not in text, "a run that lost node3 passed")
        # An ended agent proves its node gone (its port refuses connections): the wait ends
        # at the next poll, not at timeout_seconds as for a node that is only silent.
        expect("lost contact with node node3 while waiting for benchmark" in stages["test_run_benchmark"][1]
               and "Connection refused. No later poll can mend this" in stages["test_run_benchmark"][1],
               f"node3 not named as gone: {stages['test_run_benchmark']}")
        collected = os.listdir(os.path.join(work, "out"))
        traces = subprocess.run(["find", os.path.join(work, "out"), "-name", "*.json*", "-path", "*node*"],
                                capture_output=True, text=True).stdout
        expect("node1" in traces and "node2" in traces, f"the survivors' traces were not collected: {collected}")
        expect_clean(HOSTS[:2])
        on_node(HOSTS[2], "docker rm -f $(docker ps -aq) >/dev/null 2>&1; pkill -f '[t]rain[.]py'; true")
        print(f"PASS slurm agents {mode}: job {job_id}, node3 named, node1 and node2 collected and clean")
        sys.exit(0)
    expect("SUITE_EXIT=0" in text, f"suite failed:\n{text[-4000:]}")
    if mode == "bare_metal":
        expect("CVS_SCHEDULER=bare_metal" in text and "commands go through agents" not in text, text[-3000:])
    else:
        expect(f"a task of Slurm (`scontrol version` answers) job {job_id} step 0" in text, text[-3000:])
        expect(f"inside Slurm job {job_id} on {nodes} node(s); commands go through agents" in text, text[-3000:])
    expect(outcomes == passing_stages(binary, distributed=nodes > 1), f"stages {outcomes}\n{text[-3000:]}")
    if mode == "single":  # named as CVS names it: <workspace>/cvs_runs/<job id>
        for parent in ("out", "ws/cvs_runs"):
            folders = os.listdir(os.path.join(work, parent))
            expect(folders == [job_id], f"{parent}: {folders}, job {job_id}")
        expect(os.path.exists(os.path.join(work, "ws", "cvs_runs", job_id, f"{suite}.xml")), "no JUnit in the workspace")
    ranks = report["per_rank_summary"]
    expect(sorted(r["rank"] for r in ranks) == list(range(2 * nodes)), f"ranks {[r['rank'] for r in ranks]}")
    for r in ranks:
        ref = json.loads(subprocess.run([sys.executable, CHECKER, r["source"]], check=True, capture_output=True,
                                        text=True).stdout)
        expect(abs(r["total_time_us"] - ref["total_time_us"]) <= 1e-9 * max(1, ref["total_time_us"]), f"rank {r}")
    expect_clean(HOSTS[:nodes])
    print(f"PASS slurm agents {mode}: job {job_id}, {len(ranks)} ranks on {nodes} node(s), one job step")
