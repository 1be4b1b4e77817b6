#!/usr/bin/env python3
"""aorta_suite inside real Slurm jobs on the test cluster (ci/testcluster.sh
slurm-up): sbatch runs the suite on the job's first node without srun (the form the
README shows), the cluster comes from the job, the suite starts one agent step and
every node command goes through the agents, and Aorta lives on shared storage.

Usage: slurm_e2e.py AORTA_SUITE single|distributed|outside_node|not_shared
  outside_node: in a job step (srun), a cluster file naming a node the step does not
    have is refused (without a step it is an SSH run: slurm_cluster_file_e2e.py)
  not_shared: aorta_path on node-local storage is refused before anything runs, and
    the JUnit asked for names why (the early-error report)
"""
import xml.etree.ElementTree as ET
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "suite"))
from suite_run import expect, results  # noqa: E402
from test_cluster import job_exit_code, on_node, passing_stages, submit, wait_for_job, write_inputs  # noqa: E402

CHECKER = os.path.join(HERE, "..", "..", "tools", "independent_metrics.py")
binary, mode = os.path.abspath(sys.argv[1]), sys.argv[2]
nodes = 1 if mode == "single" else 2

with tempfile.TemporaryDirectory(dir="/tmp") as work:
    def on_shared_storage(variant):
        if mode != "not_shared":  # else the nodes' own /var/lib/aorta-node, which only each node sees
            variant["paths"]["shared_fs"] = os.path.join(work, "shared")  # every node sees /tmp: shared storage
    write_inputs(work, edit_variant=on_shared_storage)  # no cluster file: the nodes come from the job
    suite = "aorta_single" if mode == "single" else "aorta_distributed"
    extra = ""
    if mode == "outside_node":
        nodes, suite = 1, "aorta_single"
        json.dump({"username": "root", "password": "unused", "node_dict": {"node3": {"vpc_ip": "10.211.0.13"}}},
                  open(os.path.join(work, "cluster.json"), "w"))
        extra = "--cluster_file cluster.json "
    launch = "srun -N1 --ntasks-per-node=1 " if mode == "outside_node" else ""
    if mode == "not_shared":
        nodes, suite = 2, "aorta_distributed"
        extra = f"--junitxml {work}/early.xml "
    script = os.path.join(work, "job.sh")
    with open(script, "w") as f:
        f.write("#!/bin/bash\n"
                # 10 minutes is less than timeout_seconds (600 s) plus container launch: a warning.
                f"#SBATCH --nodes={nodes}\n#SBATCH --time={10 if mode == 'single' else 30}\n"
                f"#SBATCH --output={work}/slurm-%j.out\n"
                f"cd {work}\n"
                # A relative output_dir resolves against the job's working directory.
                f"{launch}{binary} {extra}--config_file cpu_docker.json --output_dir out "
                f"--gtest_output=xml:{work}/gtest.xml --gtest_filter={suite}.*\n"
                "rc=$?\n"
                # The next step's id counts the steps the suite made: one, its agents'.
                "srun -N1 --overlap bash -c 'echo NEXT_STEP=$SLURM_STEP_ID'\n"
                "exit $rc\n")
    job_id = submit(script)
    wait_for_job(job_id)
    returncode = job_exit_code(job_id)
    out_file = os.path.join(work, f"slurm-{job_id}.out")
    output = open(out_file).read() if os.path.exists(out_file) else ""
    if mode == "outside_node":
        expect(returncode != 0, "a node outside the job was accepted")
        expect(f"node(s) node3 are not in Slurm job {job_id}" in output and "cluster.json" in output, output[-3000:])
        expect(not os.path.exists(os.path.join(work, "out")), "something ran")
        print(f"PASS slurm {mode}: job {job_id} refused node3")
        sys.exit(0)
    if mode == "not_shared":
        expect(returncode != 0, "aorta_path on node-local storage was accepted")
        why = "no agent from rank(s) 1 within 60 s; the config file, its threshold file and aorta_path's folder " \
              "must be on storage every node of the job sees at the same path"
        expect(why in output, output[-3000:])
        expect(not os.path.exists(os.path.join(work, "out")) or not os.listdir(os.path.join(work, "out")), "something ran")
        cases = ET.parse(os.path.join(work, "early.xml")).getroot().iter("testcase")
        failures = [c.find("failure") for c in cases if c.get("name") == "test_configuration"]
        expect(len(failures) == 1 and failures[0] is not None, "no failed test_configuration in the early JUnit")
        text = (failures[0].get("message") or "") + (failures[0].text or "")
        expect(why in text, f"the early JUnit does not say why: {text[:2000]}")
        print(f"PASS slurm {mode}: job {job_id} refused node-local aorta_path, and the JUnit says so")
        sys.exit(0)
    expect(returncode == 0, f"sbatch exit {returncode}:\n{output[-4000:]}")
    expect(f"not a job step (no SLURM_STEP_ID): one agent step is started" in output, output[-3000:])
    expect(f"inside Slurm job {job_id} on {nodes} node(s); commands go through agents" in output, output[-3000:])
    expect("NEXT_STEP=1" in output, f"the suite made more than its agents' step:\n{output[-3000:]}")
    # The run folder is named after the job, as CVS names it.
    folders = os.listdir(os.path.join(work, "out"))
    expect(folders == [job_id], f"run folders {folders}, job {job_id}")
    expect(f", folder {work}/out/{job_id}\n" in output, output[-3000:])
    warned = f"WARNING: Slurm job {job_id} has" in output and "less than timeout_seconds plus container launch" in output
    expect(warned == (mode == "single"), f"time-limit warning {'missing' if mode == 'single' else 'wrong'}")
    expect("requested no GPUs through GRES, so GPUs per node cannot be checked" in output, "no GRES note")
    stages, report = results(work)
    outcomes = {k: v[0] for k, v in stages.items()}
    expected = passing_stages(binary, distributed=mode != "single")
    expect(outcomes == expected, f"stages {outcomes}\n{output[-3000:]}")
    ranks = report["per_rank_summary"]
    expect(sorted(r["rank"] for r in ranks) == list(range(2 * nodes)), f"ranks {[r['rank'] for r in ranks]}")
    expect(report["cluster"]["nodes"] == nodes, str(report["cluster"]))
    for r in ranks:
        ref = json.loads(subprocess.run([sys.executable, CHECKER, r["source"]], check=True, capture_output=True,
                                        text=True).stdout)
        expect(abs(r["total_time_us"] - ref["total_time_us"]) <= 1e-9 * max(1, ref["total_time_us"]), f"rank {r}")
    # The job's steps are gone and no container is left on any node.
    for i in range(1, nodes + 1):
        left = on_node(f"10.211.0.{10 + i}", "docker ps -aq")
        expect(left.returncode == 0 and left.stdout.strip() == "", f"node{i} still has containers: {left.stdout}")
    print(f"PASS slurm {mode}: job {job_id}, {len(ranks)} ranks on {nodes} node(s)")
