#!/usr/bin/env python3
"""The GPU telemetry sampler's life on the local default (issue 47, 1), with the GPU tool
doubles (tests/doubles/gpu_tools) on PATH:
  1. a passing run: telemetry/node-0.log collected with its header, both edges and ticks;
  2. the tool hangs: the run passes and the file names the error;
  3. no tool on the node: one line says so, the run passes;
and after each of those, a failed run, a timed-out run, SIGINT, and SIGKILL of the suite,
no sampler of the run remains (SIGKILL: none once the training ended by itself).
A sampler is found by the run's own work folder in its command line.
Usage: telemetry_sampler.py AORTA_SUITE [CASE ...]
   (cases: passing hang no_tool failed timeout sigint sigkill)
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

HERE = os.path.dirname(os.path.abspath(__file__))
DOUBLES = os.path.normpath(os.path.join(HERE, "..", "doubles", "gpu_tools", "nvidia-smi-only"))
SYSTEM_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
NO_TOOL = ("no GPU telemetry tool (amd-smi, rocm-smi, nvidia-smi) on PATH; the run goes on without it")
binary = os.path.abspath(sys.argv[1])


def config(work, steps=8, edit=None):
    def training(doc):
        doc["training_overrides"] = {"training.max_steps": steps}
        if edit:
            edit(doc)
    return suite_run.copy_default(binary, work, edit_variant=training)


def samplers(work):
    """Pids of this run's samplers: telemetry.sh under this test's own aorta_path."""
    marker = os.path.join(work, "fs").encode()
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmdline = open(f"/proc/{pid}/cmdline", "rb").read()
        except OSError:
            continue
        if marker in cmdline and b"telemetry.sh" in cmdline:
            found.append(int(pid))
    return found


def expect_no_sampler(work, within=15, why=""):
    deadline = time.time() + within
    while samplers(work) and time.time() < deadline:
        time.sleep(0.2)
    expect(not samplers(work), f"{why}: sampler processes left: {samplers(work)}")


def launch(work, cfg, path, scenario="", on_line=None):
    env = dict(os.environ, PATH=path, AORTA_GPU_DOUBLE=scenario, AORTA_GPU_DOUBLE_GPUS="2",
               AORTA_GPU_DOUBLE_STATE=os.path.join(work, "double"))
    cmd = [binary, "--output_dir", os.path.join(work, "out"), f"--gtest_output=xml:{os.path.join(work, 'gtest.xml')}",
           "--config_file", cfg]
    proc = subprocess.Popen(cmd, cwd=work, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            errors="replace")
    lines = []
    for line in proc.stdout:
        lines.append(line)
        if on_line:
            on_line(line, proc)
    return proc.wait(timeout=600), "".join(lines)


def node_log(work):
    logs = glob.glob(os.path.join(work, "out", "*", "telemetry", "node-0.log"))
    expect(len(logs) == 1, f"telemetry/node-0.log not collected: {logs}")
    return open(logs[0]).read()


def with_doubles():
    return DOUBLES + ":" + os.environ.get("PATH", SYSTEM_PATH)


def passing():
    with tempfile.TemporaryDirectory() as work:
        rc, out = launch(work, config(work), with_doubles())
        expect(rc == 0, f"exit {rc}\n{out[-3000:]}")
        log = node_log(work)
        expect(log.startswith("#aorta-telemetry v1 host=") and " tool=nvidia-smi interval=1\n" in log.split("\n")[0] + "\n",
               log[:300])
        expect(len(re.findall(r"^#sample \S+ edge$", log, re.M)) == 2, log[-2000:])
        expect(len(re.findall(r"^#sample \S+ tick$", log, re.M)) >= 1, log[-2000:])
        expect(re.search(r"^#end \S+ (stopped|training ended)\n\Z", log, re.M), log[-500:])
        expect(NO_TOOL not in out, "a node with a tool said it had none")
        expect_no_sampler(work, why="passing run")
        print("ok: passing run: telemetry/node-0.log with header, edges, ticks and #end; no sampler left")


def hang():
    with tempfile.TemporaryDirectory() as work:
        rc, out = launch(work, config(work), with_doubles(), scenario="hang")
        expect(rc == 0, f"a hung tool failed the run: exit {rc}\n{out[-3000:]}")
        log = node_log(work)
        expect(re.search(r"^#error \S+ (edge|tick): nvidia-smi did not answer within \d+s$", log, re.M), log[-2000:])
        expect_no_sampler(work, why="hung tool")
        print("ok: a hung tool: the run passes, the file names the error; no sampler left")


def no_tool():
    with tempfile.TemporaryDirectory() as work:
        rc, out = launch(work, config(work), SYSTEM_PATH)
        expect(rc == 0, f"exit {rc}\n{out[-3000:]}")
        expect(out.count(NO_TOOL) == 1 and re.search(r"^node \S+: " + re.escape(NO_TOOL) + "$", out, re.M),
               f"the no-tool line, once: {out[-3000:]}")
        expect(" tool=none " in node_log(work), node_log(work)[:200])
        expect_no_sampler(work, why="no tool")
        print("ok: no tool: one line says so, the run passes")


def failed():
    with tempfile.TemporaryDirectory() as work:
        rc, out = launch(work, config(work, steps="not-a-number"), with_doubles())
        expect(rc == 1, f"the training did not fail: exit {rc}\n{out[-3000:]}")
        expect("#end " in node_log(work), node_log(work)[-300:])
        expect_no_sampler(work, why="failed run")
        print("ok: failed run: the file collected, no sampler left")


def timeout():
    with tempfile.TemporaryDirectory() as work:
        def short(doc):
            doc["timeout_seconds"] = 5
        rc, out = launch(work, config(work, steps=100000, edit=short), with_doubles())
        expect(rc == 1 and "did not complete within 5s" in out, f"exit {rc}\n{out[-3000:]}")
        expect("#end " in node_log(work), node_log(work)[-300:])
        expect_no_sampler(work, why="timed-out run")
        print("ok: timed-out run: the file collected, no sampler left")


def signal_once_training_runs(sig):
    sent = []

    def on_line(line, proc):
        if line.startswith("[benchmark] 0/1 nodes done") and not sent:
            time.sleep(2.0)  # the sampler has ticked
            proc.send_signal(sig)
            sent.append(True)
    return on_line, sent


def sigint():
    with tempfile.TemporaryDirectory() as work:
        on_line, sent = signal_once_training_runs(signal.SIGINT)
        rc, out = launch(work, config(work, steps=100000), with_doubles(), on_line=on_line)
        expect(sent and rc == 1, f"exit {rc}\n{out[-3000:]}")
        expect(re.search(r"^#end \S+ (stopped|training ended)$", node_log(work), re.M), node_log(work)[-300:])
        expect_no_sampler(work, within=5, why="SIGINT")
        print("ok: SIGINT: the sampler stopped with the training, no sampler left")


def sigkill():
    """Nothing of the suite runs after SIGKILL: the training runs on to its end, and the
    sampler ends itself when the training's process group is gone."""
    with tempfile.TemporaryDirectory() as work:
        on_line, sent = signal_once_training_runs(signal.SIGKILL)
        rc, out = launch(work, config(work, steps=12), with_doubles(), on_line=on_line)
        expect(sent and rc == -signal.SIGKILL, f"exit {rc}\n{out[-3000:]}")
        expect(samplers(work), "the sampler ended with the suite: the case proves nothing")
        expect_no_sampler(work, within=120, why="SIGKILL of the suite, after the training ended")
        logs = [os.path.join(d, "telemetry.log") for d, _, files in os.walk(os.path.join(work, "fs"))
                if "telemetry.log" in files]  # under .cvs-aorta: hidden from glob
        expect(len(logs) == 1 and re.search(r"^#end \S+ training ended$", open(logs[0]).read(), re.M),
               f"{logs}: {open(logs[0]).read()[-300:] if logs else ''}")
        # What the killed run leaves by design (its lock holder): ended by pid.
        for d, _, files in os.walk(os.path.join(work, "fs")):
            if os.path.basename(d) == "lock" and "owner" in files:
                for pid in re.findall(r"lock holder pid (\d+) on node", open(os.path.join(d, "owner")).read()):
                    subprocess.run(["kill", "-KILL", "--", f"-{pid}"], check=False, stderr=subprocess.DEVNULL)
        print("ok: SIGKILL of the suite: the sampler ended when the training did")


CASES = {f.__name__: f for f in (passing, hang, no_tool, failed, timeout, sigint, sigkill)}
for name in sys.argv[2:] or CASES:
    CASES[name]()
