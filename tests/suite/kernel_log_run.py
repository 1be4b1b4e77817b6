#!/usr/bin/env python3
"""The kernel-log check on real local runs (issue 43, 1): the workload writes one line
to this machine's kernel log (/dev/kmsg) while it trains. A line node-scraper names
fails test_run_benchmark naming the pattern and the node; a benign line passes; with
CVS_DMESG_PARSER=legacy the same named line passes, as CVS's legacy scan (its own
categories over `dmesg -T`) does not name it.
/dev/kmsg is the machine's log, shared with every other run here: each line carries
this run's marker, and only what holds the marker is asserted on.
Usage: kernel_log_run.py AORTA_SUITE
"""
import glob
import os
import sys
import tempfile
import uuid

import suite_run
from suite_run import expect, run

binary = os.path.abspath(sys.argv[1])
MARKER = f"aorta-kernellog-{uuid.uuid4().hex[:12]}"
STAGE = "test_run_benchmark"
# node-scraper's "I/O Page Fault" (IO_PAGE_FAULT); none of CVS's legacy categories
# names it (its crash category's \bfault\b needs a word boundary before "fault").
NAMED = f"AMD-Vi: Event logged [IO_PAGE_FAULT device=00:14.0 domain=0x0000 address=0x0] {MARKER}"
BENIGN = f"aorta kernel-log check: a benign note {MARKER}"


def run_writing(line, parser=None):
    """One local run whose rank 0 writes line to /dev/kmsg; its stage and output."""
    env_before = os.environ.get("CVS_DMESG_PARSER")
    if parser is None:
        os.environ.pop("CVS_DMESG_PARSER", None)
    else:
        os.environ["CVS_DMESG_PARSER"] = parser
    try:
        with tempfile.TemporaryDirectory() as work:
            cfg = suite_run.copy_default(
                binary, work, lambda v: v.setdefault("training_overrides", {}).update({"faults.kmsg": line}))
            p, stages, _ = run(binary, work, "--config_file", cfg)
            # The console keeps a node log's last lines only; the run's text log keeps every one.
            logs = "".join(open(f, errors="replace").read() for f in glob.glob(os.path.join(work, "out", "*", "*.log")))
    finally:
        if env_before is None:
            os.environ.pop("CVS_DMESG_PARSER", None)
        else:
            os.environ["CVS_DMESG_PARSER"] = env_before
    expect(STAGE in stages, f"no {STAGE} in the JUnit file", p)
    expect("fault injected: wrote to /dev/kmsg" in p.stdout + p.stderr + logs, "the workload wrote no kernel-log line", p)
    return stages[STAGE], p


# 1. node-scraper's scan (CVS's default): the named line fails the node, in CVS's words
#    with the pattern's name.
stage, p = run_writing(NAMED)
expect(stage[0] == "failed", f"a named kernel-log line passed: {stage}", p)
expect(f"ERROR - Failure pattern *** " in stage[1] and f"{NAMED} *** seen in Dmesg on node localhost: I/O Page Fault"
       in stage[1], f"the failure does not name the pattern and the node: {stage[1]}", p)
expect(p.returncode == 1, f"exit {p.returncode}", p)
print("ok: node-scraper's I/O Page Fault fails test_run_benchmark naming the pattern and the node")

# 2. A benign line: the check passes.
stage, p = run_writing(BENIGN)
expect(MARKER not in stage[1], f"a benign line failed the check: {stage[1]}", p)
expect(stage[0] == "passed", f"the benign run failed (another run's kernel line in this window?): {stage}", p)
print("ok: a benign kernel-log line passes")

# 3. CVS_DMESG_PARSER=legacy (any case, blanks around): CVS's legacy scan, which does
#    not name the line node-scraper fails.
stage, p = run_writing(NAMED, " Legacy ")
expect(MARKER not in stage[1], f"the legacy scan named a line only node-scraper names: {stage[1]}", p)
expect(stage[0] == "passed", f"the legacy run failed (another run's kernel line in this minute?): {stage}", p)
print("ok: CVS_DMESG_PARSER=legacy runs CVS's legacy scan, which passes the I/O page fault")
