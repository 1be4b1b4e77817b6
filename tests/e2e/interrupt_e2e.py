#!/usr/bin/env python3
"""SIGINT or SIGTERM during test_run_benchmark on the test cluster: the run stops,
the training is ended, teardown runs, the reports say why, the exit status is 1
and nothing is left on the node.
Usage: interrupt_e2e.py AORTA_SUITE SIGINT|SIGTERM
"""
import os
import signal
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "suite"))
from suite_run import expect  # noqa: E402
from test_cluster import expect_clean, launch, write_inputs  # noqa: E402

binary, name = os.path.abspath(sys.argv[1]), sys.argv[2]

with tempfile.TemporaryDirectory() as work:
    host = write_inputs(work, 1)[0]
    signalled = []

    def interrupt_once_training_runs(line, proc):
        if line.startswith("[benchmark] 0/1 nodes done") and not signalled:  # training has started on the node
            proc.send_signal(getattr(signal, name))
            signalled.append(True)
    rc, output, stages, _ = launch(binary, work, interrupt_once_training_runs)
    expect(signalled, "the benchmark never started:\n" + output[-3000:])
    expect(rc == 1, f"exit status {rc}\n{output[-3000:]}")
    expect(f"aorta_suite: interrupted by {name}; cleaned up and reported" in output, output[-3000:])

    outcome, message = stages["test_run_benchmark"][0], stages["test_run_benchmark"][1]
    expect(outcome == "failed" and f"interrupted by {name}" in message, f"test_run_benchmark: {outcome} {message}")
    expect(stages["test_teardown"][0] == "passed", str(stages["test_teardown"]))
    run_dirs = [os.path.join(work, "out", d) for d in os.listdir(os.path.join(work, "out"))]
    for report in ("aorta_single.xml", "aorta_single.html", "aorta_single.log"):
        expect(os.path.exists(os.path.join(run_dirs[0], report)), f"{report} not written")
    expect(os.path.exists(os.path.join(run_dirs[0], "benchmark-node-0.log")), "the benchmark log was not kept")
    expect_clean([host])
    print(f"PASS {name}: stages " + ", ".join(f"{k}={v[0]}" for k, v in stages.items()))
