#!/usr/bin/env python3
"""Writes a copy of a Kineto trace with one kind of GPU kernel made longer, for the
diagnosis's perturbed-trace tests. Standard library only.

--kind all scales every GPU event (a uniformly slower or faster GPU: the test's
rank-to-rank spread). Each chosen kernel's dur is multiplied by FACTOR; every event (CPU and GPU) that
starts at or after a lengthened kernel's original end moves later by what was added,
so the timeline stays consistent. --rank and --world-size rewrite distributedInfo's.

Usage: perturb_trace.py IN OUT --kind gemm|collective|all --factor F [--rank N] [--world-size N]
"""
import argparse
import bisect
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from independent_diagnosis import kernel_class  # noqa: E402
from independent_metrics import load  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("src")
    p.add_argument("dst")
    p.add_argument("--kind", choices=("gemm", "collective", "all"), required=True)
    p.add_argument("--factor", type=float, default=1.0)
    p.add_argument("--rank", type=int)
    p.add_argument("--world-size", type=int)
    a = p.parse_args()
    trace = load(a.src)
    events = trace["traceEvents"]
    added = []  # (original end, extra)
    for e in events:
        if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset") and "dur" in e and a.kind in ("all", kernel_class(e)):
            added.append((e["ts"] + e["dur"], e["dur"] * (a.factor - 1)))
            e["dur"] *= a.factor
    added.sort()
    ends = [end for end, _ in added]
    cumulative = [0.0]
    for _, extra in added:
        cumulative.append(cumulative[-1] + extra)
    for e in events:
        if "ts" in e:
            e["ts"] += cumulative[bisect.bisect_right(ends, e["ts"])]
    if a.rank is not None:
        trace["distributedInfo"]["rank"] = a.rank
    if a.world_size is not None:
        trace["distributedInfo"]["world_size"] = a.world_size
    with open(a.dst, "w") as f:
        json.dump(trace, f)


if __name__ == "__main__":
    main()
