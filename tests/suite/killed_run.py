#!/usr/bin/env python3
"""A run killed outright (SIGKILL, as ctest's TIMEOUT or the OOM killer kill it:
nothing of it runs afterwards) still leaves reports of what finished: the JUnit file
(validating) holds the stages before the benchmark and a failed run_incomplete naming
the last stage that finished, so no dashboard shows the killed run green; the HTML
report says the same.
Usage: killed_run.py AORTA_SUITE
"""
import glob
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

import suite_run
from suite_run import expect

binary = os.path.abspath(sys.argv[1])
with tempfile.TemporaryDirectory() as work:
    config = suite_run.copy_default(binary, work)
    cmd = suite_run.command(binary, work, "--config_file", config, "--gtest_filter=*single*")
    p = subprocess.Popen(cmd, cwd=work, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                         start_new_session=True)
    seen = []
    try:
        # Killed a second into the benchmark stage, as gtest's console announces it.
        for line in p.stdout:
            seen.append(line)
            if "[ RUN      ] aorta_single.test_run_benchmark" in line:
                time.sleep(1)
                break
    finally:
        os.killpg(p.pid, signal.SIGKILL)  # the run and everything it started in its session
        output = "".join(seen) + p.communicate()[0]
    expect(p.returncode == -signal.SIGKILL, f"the run ended by itself first: {p.returncode}\n{output[-3000:]}")
    # What a killed run leaves by design (nothing of it runs to end them): the checkout
    # lock's holder, a session of its own that the next run would end, and any node
    # command that escaped into a session. Ended here, so no test after this one sees them.
    owners = [os.path.join(d, "owner") for d, _, files in os.walk(os.path.join(work, "fs"))
              if os.path.basename(d) == "lock" and "owner" in files]  # in hidden folders: no glob
    expect(owners, "the killed run left no lock owner file: the holder cannot be found")
    for owner in owners:
        for pid in re.findall(r"lock holder pid (\d+) on node", open(owner).read()):
            subprocess.run(["kill", "-KILL", "--", f"-{pid}"], check=False, stderr=subprocess.DEVNULL)
    subprocess.run(["pkill", "-KILL", "-f", work], check=False)

    xml = os.path.join(work, "gtest.xml")
    expect(os.path.exists(xml), f"a killed run left no JUnit file:\n{output[-3000:]}")
    cases = suite_run.junit_cases(xml)
    order = suite_run.stage_names(binary)
    finished = order[:order.index("test_run_benchmark")]
    expected = {name: suite_run.passing_stages(binary)[name] for name in finished}
    expect({n: c[0] for n, c in cases.items() if n != "run_incomplete"} == expected, f"stages on disk {cases}")
    expect(cases.get("run_incomplete", ("",))[0] == "failed", f"no failed run_incomplete: {cases}")
    expect(f"the last stage to finish was {finished[-1]}." in cases["run_incomplete"][1], cases["run_incomplete"][1])
    html = glob.glob(os.path.join(work, "out", "*", "aorta_single.html"))
    expect(html and "run_incomplete" in open(html[0]).read(), f"no HTML report naming run_incomplete: {html}")
    expect("aorta_suite: wrote" not in output.split("test_run_benchmark")[0],
           "the progress reports announced themselves before the benchmark")
print("PASS: a killed run leaves JUnit and HTML reports of the stages that finished, failed as incomplete")
