#!/usr/bin/env python3
"""SIGINT or SIGTERM during test_run_benchmark on the test cluster: the run stops,
the training is ended, teardown runs, the reports say why, the exit status is 1
and nothing is left on the node.
Usage: interrupt_e2e.py AORTA_SUITE SIGINT|SIGTERM
"""
import json
import os
import signal
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "suite"))
from suite_run import command, expect, results  # noqa: E402

BASE = os.environ.get("BASE", "/tmp/aorta-tc")
binary, name = os.path.abspath(sys.argv[1]), sys.argv[2]
cluster = json.load(open(os.path.join(BASE, "cluster.json")))
host = list(cluster["node_dict"])[0]
cluster["node_dict"] = {host: cluster["node_dict"][host]}

with tempfile.TemporaryDirectory() as work:
    json.dump(cluster, open(os.path.join(work, "cluster.json"), "w"))
    for f in ("cpu_docker.json", "cpu_docker_threshold.json"):
        json.dump(json.load(open(os.path.join(HERE, f))), open(os.path.join(work, f), "w"))
    proc = subprocess.Popen(command(binary, work, "--cluster_file", os.path.join(work, "cluster.json"),
                                    "--config_file", os.path.join(work, "cpu_docker.json")),
                            cwd=work, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    seen = []
    for line in proc.stdout:
        seen.append(line)
        if line.startswith("[benchmark] 0/1 nodes done"):  # training has started on the node
            proc.send_signal(getattr(signal, name))
            break
    rest, _ = proc.communicate(timeout=300)
    output = "".join(seen) + rest
    expect(any(l.startswith("[benchmark] 0/1") for l in seen), "the benchmark never started:\n" + output[-3000:])
    expect(proc.returncode == 1, f"exit status {proc.returncode}\n{output[-3000:]}")
    expect(f"aorta_suite: interrupted by {name}; cleaned up and reported" in output, output[-3000:])

    stages, _ = results(work)
    outcome, message = stages["test_run_benchmark"][0], stages["test_run_benchmark"][1]
    expect(outcome == "failed" and f"interrupted by {name}" in message, f"test_run_benchmark: {outcome} {message}")
    expect(stages["test_teardown"][0] == "passed", str(stages["test_teardown"]))
    run_dirs = [os.path.join(work, "out", d) for d in os.listdir(os.path.join(work, "out"))]
    for report in ("aorta_single.xml", "aorta_single.html", "aorta_single.log"):
        expect(os.path.exists(os.path.join(run_dirs[0], report)), f"{report} not written")
    expect(os.path.exists(os.path.join(run_dirs[0], "benchmark-node-0.log")), "the benchmark log was not kept")
    left = subprocess.run(["ssh", "-F", os.path.join(BASE, "ssh_config"), host,
                           "docker ps -aq; pgrep -af '[t]rain[.]py' || true"], capture_output=True, text=True)
    expect(left.returncode == 0 and left.stdout.strip() == "", f"{host} still has: {left.stdout}{left.stderr}")
    print(f"PASS {name}: stages " + ", ".join(f"{k}={v[0]}" for k, v in stages.items()))
