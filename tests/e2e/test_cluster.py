"""Shared by the test-cluster scripts: the run's input files, commands on a node,
and the check that a run left nothing behind. BASE (default /tmp/aorta-tc) is where
ci/testcluster.sh keeps its files."""
import json
import os
import subprocess
import time

import suite_run
from suite_run import command, expect, results

HERE = os.path.dirname(os.path.abspath(__file__))
BASE = os.environ.get("BASE", "/tmp/aorta-tc")


def on_node(host, command):
    return subprocess.run(["ssh", "-F", os.path.join(BASE, "ssh_config"), host, command],
                          capture_output=True, text=True, timeout=120)


def write_inputs(work, nodes=None, edit_variant=None, edit_thresholds=None, edit_cluster=None):
    """Writes cpu_docker.json and its threshold file into work, each edited in place
    by its edit function, and, unless nodes is None, cluster.json with the cluster's
    first `nodes` nodes. Returns those nodes' hosts."""
    variant = json.load(open(os.path.join(HERE, "cpu_docker.json")))
    thresholds = json.load(open(os.path.join(HERE, "cpu_docker_threshold.json")))
    for doc, edit in ((variant, edit_variant), (thresholds, edit_thresholds)):
        if edit:
            edit(doc)
    json.dump(variant, open(os.path.join(work, "cpu_docker.json"), "w"))
    json.dump(thresholds, open(os.path.join(work, "cpu_docker_threshold.json"), "w"))
    if nodes is None:
        return []
    cluster = json.load(open(os.path.join(BASE, "cluster.json")))
    hosts = list(cluster["node_dict"])[:nodes]
    cluster["node_dict"] = {h: cluster["node_dict"][h] for h in hosts}
    if edit_cluster:
        edit_cluster(cluster, work)
    json.dump(cluster, open(os.path.join(work, "cluster.json"), "w"))
    return hosts


def expect_clean(hosts):
    """No container and no training process on any of the hosts. The nodes share this
    machine's processes, so only a training in a container's folder (cwd /mnt) counts:
    another test's local run beside this one is not this run's."""
    for h in hosts:
        left = on_node(h, "docker ps -aq; for p in $(pgrep -f '[t]rain[.]py'); do "
                          "[ \"$(readlink /proc/$p/cwd)\" = /mnt ] && ps -o pid=,args= -p $p; done; true")
        expect(left.returncode == 0 and left.stdout.strip() == "", f"{h} still has: {left.stdout}{left.stderr}")


def passing_stages(binary, distributed):
    """Every stage's outcome in a good run of the test configuration."""
    return suite_run.passing_stages(binary, "aorta_distributed" if distributed else "aorta_single")


def launch(binary, work, on_line=None):
    """Runs the suite on work's input files; on_line(line, proc) sees each output
    line as it comes. Returns the exit status, the output, the stages and the report."""
    proc = subprocess.Popen(command(binary, work, "--cluster_file", os.path.join(work, "cluster.json"),
                                    "--config_file", os.path.join(work, "cpu_docker.json")),
                            cwd=work, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines = []
    for line in proc.stdout:
        lines.append(line)
        if on_line:
            on_line(line, proc)
    proc.wait(timeout=600)
    stages, report = results(work)
    return proc.returncode, "".join(lines), stages, report


def slurm_env():
    return dict(os.environ, SLURM_CONF=os.path.join(BASE, "slurm", "slurm.conf"))


def submit(script):
    """The job id of the batch script, submitted to the test cluster's Slurm."""
    done = subprocess.run(["sbatch", "--parsable", script], env=slurm_env(), capture_output=True, text=True, timeout=60)
    expect(done.returncode == 0, f"sbatch: {done.stderr}")
    return done.stdout.strip().split(";")[0]


def wait_for_job(job_id, seconds=900):
    """Waits until the job has left the queue (sbatch --wait polls with a back-off of
    up to 30 s; this asks every 0.2 s)."""
    deadline = time.time() + seconds
    while time.time() < deadline:
        queued = subprocess.run(["squeue", "-h", "-j", job_id], env=slurm_env(), capture_output=True, text=True)
        if queued.returncode == 0 and not queued.stdout.strip():
            return
        time.sleep(0.2)
    raise SystemExit(f"FAIL: job {job_id} still queued or running after {seconds} s")


def job_exit_code(job_id):
    """The batch script's exit status, from slurmctld's record of the job."""
    shown = subprocess.run(["scontrol", "show", "job", job_id], env=slurm_env(), capture_output=True, text=True)
    for field in shown.stdout.split():
        if field.startswith("ExitCode="):
            return int(field.split("=")[1].split(":")[0])
    return None
