#!/usr/bin/env python3
"""A Slurm job without a step, given a --cluster_file, runs over SSH to the cluster
file's nodes, as CVS runs it (a CPU controller job driving the cluster's nodes), and
its run folder is named after the job id: an sbatch job on node1 runs two suites at
once into one output_dir, aorta_distributed over SSH on node2 and node3 (nodes the job
does not have) and aorta_single on node1. Both pass, each says at start why it runs
over SSH, neither starts a job step, and their folders are <job id> and <job id>-2.

Usage: slurm_cluster_file_e2e.py AORTA_SUITE
"""
import json
import os
import sys
import tempfile
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "suite"))
from suite_run import expect  # noqa: E402
from test_cluster import expect_clean, job_exit_code, passing_stages, submit, wait_for_job, write_inputs  # noqa: E402

binary = os.path.abspath(sys.argv[1])
RUNS = {"a": ("aorta_distributed", ["10.211.0.12", "10.211.0.13"]), "b": ("aorta_single", ["10.211.0.11"])}


def outcomes(xml):
    """stage -> passed|failed|skipped, from a run's JUnit file (its stages, not sub-tests)."""
    root = ET.parse(xml).getroot()
    suite = root.find("testsuite").get("name")
    found = {}
    for case in root.iter("testcase"):
        if (case.get("classname") or "").startswith(suite + "."):
            continue  # a sub-test
        found[case.get("name")] = ("failed" if case.find("failure") is not None else
                                   "skipped" if case.find("skipped") is not None else "passed")
    return found


with tempfile.TemporaryDirectory(dir="/tmp") as work:
    write_inputs(work, nodes=3)
    everything = json.load(open(os.path.join(work, "cluster.json")))
    for run, (_, hosts) in RUNS.items():
        cluster = dict(everything, node_dict={h: everything["node_dict"][h] for h in hosts})
        json.dump(cluster, open(os.path.join(work, f"cluster_{run}.json"), "w"))
    script = os.path.join(work, "job.sh")
    with open(script, "w") as f:
        f.write("#!/bin/bash\n#SBATCH --nodes=1\n#SBATCH --nodelist=node1\n#SBATCH --time=30\n"
                f"#SBATCH --output={work}/slurm-%j.out\ncd {work}\n")
        for run, (suite, _) in RUNS.items():
            f.write(f"{binary} --cluster_file cluster_{run}.json --config_file cpu_docker.json --output_dir out "
                    f"--gtest_output=xml:{work}/{run}.xml --gtest_filter={suite}.* > {run}.log 2>&1 &\n{run}=$!\n")
        f.write("wait $a; echo A_EXIT=$?\nwait $b; echo B_EXIT=$?\n"
                # The next step's id counts the steps the suites made: none.
                "srun -N1 --overlap bash -c 'echo NEXT_STEP=$SLURM_STEP_ID'\n")
    job_id = submit(script)
    wait_for_job(job_id, 900)
    text = open(os.path.join(work, f"slurm-{job_id}.out")).read()
    logs = {run: open(os.path.join(work, f"{run}.log")).read() for run in RUNS}
    expect(job_exit_code(job_id) == 0 and "A_EXIT=0" in text and "B_EXIT=0" in text,
           f"{text}\n--- a:\n{logs['a'][-3000:]}\n--- b:\n{logs['b'][-3000:]}")
    expect("NEXT_STEP=0" in text, f"a suite started a job step:\n{text}")
    folders = sorted(os.listdir(os.path.join(work, "out")))
    expect(folders == sorted([job_id, f"{job_id}-2"]), f"run folders {folders}, job {job_id}")
    nodes_by_folder = {}
    for run, (suite, hosts) in RUNS.items():
        why = (f"inside Slurm (`scontrol version` answers) job {job_id} but not a job step (no SLURM_STEP_ID), "
               "with --cluster_file: over SSH to the cluster file's nodes, as CVS runs it")
        expect(why in logs[run] and "commands go through agents" not in logs[run], logs[run][-3000:])
        said = [line for line in logs[run].splitlines() if f", folder {work}/out/" in line]
        expect(len(said) == 1, f"run {run} did not name its folder once:\n{logs[run][-3000:]}")
        folder = said[0].rsplit("/", 1)[1]
        expect(folder in folders, f"run {run} named {folder}, not one of {folders}")
        report = json.load(open(os.path.join(work, "out", folder, "aorta_benchmark_report.json")))
        nodes_by_folder[folder] = report["cluster"]["nodes"]
        expect(report["cluster"]["nodes"] == len(hosts), f"run {run}: {report['cluster']}")
        got = outcomes(os.path.join(work, f"{run}.xml"))
        expect(got == passing_stages(binary, distributed=len(hosts) > 1), f"run {run} stages {got}\n{logs[run][-3000:]}")
    expect(len(nodes_by_folder) == 2, f"both runs wrote into one folder: {nodes_by_folder}")
    expect_clean(RUNS["a"][1] + RUNS["b"][1])
    print(f"PASS slurm cluster_file: job {job_id} ran two suites over SSH at once, folders {folders}")
