#!/usr/bin/env python3
"""`aorta_suite analyze`'s per-step figures on the real traces against
tools/independent_steps.py, to 1e-6 relative: every rank's steps array and the
run's step figures and stragglers; traces without ProfilerStep annotations give
nulls and a warning naming the file.
Usage: steps_vs_independent.py AORTA_SUITE TEST_DATA_DIR
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CHECKER = os.path.join(HERE, "..", "..", "tools", "independent_steps.py")
STEP_FIELDS = ["step", "start_us", "step_time_ms", "gpu_events", "compute_time_ms", "comm_time_ms",
               "exposed_comm_time_ms", "overlap_time_ms", "overlap_ratio"]
RUN_FIELDS = ["step_count", "step_samples", "avg_step_time_ms", "median_step_time_ms", "p95_step_time_ms",
              "max_step_time_ms", "step_time_cv"]


def close(a, b, what):
    if a is None and b is None:
        return
    if a is None or b is None or abs(a - b) > 1e-6 * max(1.0, abs(b)):
        raise SystemExit(f"MISMATCH {what}: aorta_suite {a} vs independent {b}")


def analyze(binary, traces, flag):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "a.json")
        subprocess.run([binary, "analyze", traces, "--output", out, "--jobs", "2"] + flag, check=True,
                       stdout=subprocess.DEVNULL)
        return json.load(open(out))


def check(binary, traces, unlinked=False):
    flag = ["--include-unlinked-kernels"] if unlinked else []
    mine = analyze(binary, traces, flag)
    files = sorted(os.path.join(traces, f) for f in os.listdir(traces))
    ref = subprocess.run([sys.executable, CHECKER] + flag + files, check=True, capture_output=True, text=True)
    lines = [json.loads(line) for line in ref.stdout.splitlines()]
    expected = {r["rank"]: r for r in lines[:-1]}
    run = lines[-1]["run"]
    assert mine["parse"]["status"] == "success", mine["parse"]
    ranks = mine["per_rank_summary"]
    assert [r["rank"] for r in ranks] == sorted(expected), ranks
    for r in ranks:
        e = expected[r["rank"]]["steps"]
        assert len(r["steps"]) == len(e), (r["rank"], len(r["steps"]), len(e))
        for got, want in zip(r["steps"], e):
            for f in STEP_FIELDS:
                close(got[f], want[f], f"rank {r['rank']} step {want['step']} {f} (unlinked={unlinked})")
    perf = mine["performance"]
    if run is None:
        for f in RUN_FIELDS + ["step_stragglers", "worst_step_straggler", "step_straggler_note"]:
            assert perf[f] is None, (f, perf[f])
        for path in files:
            name = os.path.join(traces, os.path.basename(path))
            assert any(w.startswith(name + ": no ProfilerStep annotations") for w in mine["parse"]["warnings"]), \
                mine["parse"]["warnings"]
        print(f"ok: {len(ranks)} ranks without ProfilerStep annotations: step figures null, warned per file")
        return
    for f in RUN_FIELDS:
        close(perf[f], run[f], f"performance.{f}")
    assert perf["step_straggler_note"] == run["step_straggler_note"], (perf["step_straggler_note"], run)
    if run["worst_step_straggler"] is None:  # one rank: no peer, and the reports say so
        assert perf["step_stragglers"] is None and perf["worst_step_straggler"] is None, perf
        print(f"ok: {len(ranks)} rank, {perf['step_count']} steps, no straggler: {perf['step_straggler_note']}")
        return
    assert len(perf["step_stragglers"]) == len(run["step_stragglers"]), perf["step_stragglers"]
    for got, want in zip(perf["step_stragglers"] + [perf["worst_step_straggler"]],
                         run["step_stragglers"] + [run["worst_step_straggler"]]):
        assert got["step"] == want["step"] and got["slowest_rank"] == want["slowest_rank"], (got, want)
        close(got["excess_ms"], want["excess_ms"], f"straggler of step {want['step']}")
        assert got["cause"] == want["cause"], (got, want)
        for f in ("compute_excess_ms", "comm_excess_ms", "idle_excess_ms"):
            if want[f] is None:
                assert got[f] is None, (f, got)
            else:
                close(got[f], want[f], f"straggler of step {want['step']} {f}")
    w = perf["worst_step_straggler"]
    print(f"ok: {len(ranks)} ranks, unlinked={unlinked}, {perf['step_count']} steps, mean "
          f"{perf['avg_step_time_ms']:.3f} ms, median {perf['median_step_time_ms']:.3f}, p95 "
          f"{perf['p95_step_time_ms']:.3f}, max {perf['max_step_time_ms']:.3f}, cv {perf['step_time_cv']:.4f}; "
          f"worst straggler step {w['step']} rank {w['slowest_rank']} +{w['excess_ms']:.3f} ms "
          f"(window avg_iteration_time_ms {perf['avg_iteration_time_ms']:.3f})")


def main():
    binary, data = os.path.abspath(sys.argv[1]), sys.argv[2]
    cases = [(("h200-aorta-overlap_rank0.pt.trace.json.gz", "h200-aorta-overlap_rank1.pt.trace.json.gz"), (False, True)),
             (("h200-torch2.11-kineto-nccl_rank0.json.gz", "h200-torch2.11-kineto-nccl_rank1.json.gz"), (False,)),
             # One rank: no peer, so no straggler (issue 28).
             (("h200-aorta-overlap_rank0.pt.trace.json.gz",), (False,)),
             # CPU-only (torch 1.13, gloo): the steps' shares of the CPU timeline.
             (("debian-torch1.13-gloo-legacy_rank0.json.gz",), (False,))]
    for names, modes in cases:
        with tempfile.TemporaryDirectory() as traces:
            for name in names:
                shutil.copy(os.path.join(data, name), traces)
            for unlinked in modes:
                check(binary, traces, unlinked)


if __name__ == "__main__":
    main()
