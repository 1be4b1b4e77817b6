#!/usr/bin/env python3
"""Nightly runs do not fill the nodes: four runs of the local default in a row leave
the per-run folders of the last two on the node (aorta_path/.cvs-aorta/<run-id>), the
lock and everything else untouched, and teardown says what it removed and kept; with
keep_node_runs 0 a run whose traces came home leaves none.
Usage: node_retention.py AORTA_SUITE
"""
import glob
import json
import os
import re
import sys
import tempfile

from suite_run import copy_default, expect, run

binary = os.path.abspath(sys.argv[1])
RUN_ID = re.compile(r"^[0-9a-f]{32}$")


def run_folders(suite_dir):
    return sorted(d for d in os.listdir(suite_dir) if RUN_ID.match(d))


def one_run(work, *args):
    before = set(os.listdir(os.path.join(work, "out"))) if os.path.isdir(os.path.join(work, "out")) else set()
    p, stages, report = run(binary, work, "--config_file", os.path.join(work, "local_cpu_single.json"), *args)
    expect(p.returncode == 0 and report and report["validation_passed"], "the run passes", p)
    new = set(os.listdir(os.path.join(work, "out"))) - before
    expect(len(new) == 1, f"one new run folder at home: {new}", p)
    return p, new.pop()


with tempfile.TemporaryDirectory() as work:
    copy_default(binary, work)
    suite_dir = os.path.join(work, "fs", "aorta", ".cvs-aorta")
    ids = []
    for n in range(4):
        p, run_id = one_run(work)
        ids.append(run_id)
        kept = run_folders(suite_dir)
        expect(kept == sorted(ids[-2:]), f"after run {n + 1} the node keeps the last two runs' folders: {kept}", p)
    line = [l for l in p.stdout.splitlines() if l.startswith("run folders on localhost: ")]
    expect(line == [f"run folders on localhost: removed 1 run folder(s) ({ids[1][:8]}), kept 2 (this run's, "
                    f"{ids[2][:8]}) (keep_node_runs 2)"], f"teardown says what it removed and kept: {line}", p)
    expect(os.path.isdir(os.path.join(work, "fs", "aorta", "scripts")), "the checkout itself is untouched", p)
    expect(not os.path.exists(os.path.join(suite_dir, "lock")), "the lock is released", p)
    print("ok: four runs leave the last two runs' folders, and teardown says so")

    config = os.path.join(work, "local_cpu_single.json")
    doc = json.load(open(config))
    doc["keep_node_runs"] = 0
    json.dump(doc, open(config, "w"))
    p, run_id = one_run(work)
    expect(run_folders(suite_dir) == [], f"keep_node_runs 0 leaves no run folder: {run_folders(suite_dir)}", p)
    home = glob.glob(os.path.join(work, "out", run_id, "**", "*.pt.trace.json*"), recursive=True)
    expect(len(home) == 2, f"both ranks' traces are home: {home}", p)
    print("ok: keep_node_runs 0 removes every run folder once the traces are home")
