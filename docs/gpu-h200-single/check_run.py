#!/usr/bin/env python3
"""Checks one aorta_suite run against the independent checkers, from its results alone:
every per-rank figure of aorta_benchmark_report.json against tools/independent_metrics.py
and every per-step figure (and the run's step figures) against tools/independent_steps.py,
both run on the traces the suite collected, to 1e-9 relative.
Usage: check_run.py RESULTS_DIR   (the suite's --output_dir); prints one line per rank, exit 1 on a mismatch.
"""
import glob
import json
import os
import subprocess
import sys

TOOLS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools")
RANK_FIELDS = ["total_time_us", "compute_time_us", "comm_time_us", "total_comm_time_us", "busy_time_us",
               "idle_time_us", "compute_ratio", "comm_ratio", "overlap_ratio"]
STEP_FIELDS = ["step", "start_us", "step_time_ms", "gpu_events", "compute_time_ms", "comm_time_ms",
               "exposed_comm_time_ms", "overlap_time_ms", "overlap_ratio"]
RUN_FIELDS = ["step_count", "step_samples", "avg_step_time_ms", "median_step_time_ms", "p95_step_time_ms",
              "max_step_time_ms", "step_time_cv", "step_straggler_note"]
mismatches = []


def same(a, b, what):
    equal = a == b if isinstance(a, str) or a is None or b is None else abs(a - b) <= 1e-9 * max(1.0, abs(b))
    if not equal:
        mismatches.append(f"{what}: aorta_suite {a} vs independent {b}")


def checker(name, files):
    out = subprocess.run([sys.executable, os.path.join(TOOLS, name)] + files, check=True, capture_output=True, text=True)
    return [json.loads(line) for line in out.stdout.splitlines()]


report = json.load(open(glob.glob(os.path.join(sys.argv[1], "*", "aorta_benchmark_report.json"))[0]))
ranks = report["per_rank_summary"]
files = [r["source"] for r in ranks]
metrics = checker("independent_metrics.py", files)
steps = checker("independent_steps.py", files)
for r, m, s in zip(ranks, metrics, steps[:-1]):
    same(r["parser"], m["parser"], f"rank {r['rank']} parser")
    for f in RANK_FIELDS:
        same(r[f], m[f], f"rank {r['rank']} {f}")
    same(len(r["steps"]), len(s["steps"]), f"rank {r['rank']} step count")
    for got, want in zip(r["steps"], s["steps"]):
        for f in STEP_FIELDS:
            same(got[f], want[f], f"rank {r['rank']} step {want['step']} {f}")
    print(f"rank {r['rank']} ({r['parser']}): window {r['total_time_us'] / 1000:.3f} ms, compute {r['compute_time_us'] / 1000:.3f} ms, "
          f"busy {r['busy_time_us'] / 1000:.3f} ms, {len(r['steps'])} steps "
          f"{', '.join('%.3f' % x['step_time_ms'] for x in r['steps'])} ms")
run = steps[-1]["run"]
for f in RUN_FIELDS:
    same(report["performance"][f], run[f], f"performance.{f}")
print(f"run: {report['status']}, validation_passed {report['validation_passed']}, step_straggler_note "
      f"{report['performance']['step_straggler_note']!r}")
for line in mismatches:
    print("MISMATCH " + line)
print("ALL EQUAL to tools/independent_metrics.py and tools/independent_steps.py" if not mismatches else
      f"{len(mismatches)} MISMATCH(ES)")
sys.exit(1 if mismatches else 0)
