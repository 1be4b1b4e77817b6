#!/usr/bin/env python3
"""Writes a copy of a Kineto trace with one kind of GPU kernel made longer, for the
diagnosis's perturbed-trace tests. Standard library only.

--kind all scales every GPU event (a uniformly slower or faster GPU: the test's
rank-to-rank spread). Each chosen kernel's dur is multiplied by FACTOR; every event (CPU and GPU) that
starts at or after a lengthened kernel's original end moves later by what was added,
so the timeline stays consistent. --rank and --world-size rewrite distributedInfo's; --device
rewrites every GPU event's args.device (the GPU index a rank's finding names).

--kind hostgap inserts FACTOR microseconds of host stall before the launch of every
kernel that already ends a host-wait gap (independent_diagnosis.idle_split's rule: the
GPU was idle when the CPU launched it): from each such launch's ts on, every event
moves later by FACTOR, and an event spanning the point (a step, an operator) grows by
it. The GPU was idle there, so each of those gaps, and the rank's host wait, grows by
exactly FACTOR.

Usage: perturb_trace.py IN OUT --kind gemm|collective|all|hostgap --factor F [--rank N] [--world-size N] [--device N]
"""
import argparse
import bisect
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from independent_diagnosis import kernel_class, launch_times  # noqa: E402
from independent_metrics import linked_gpu_events, load  # noqa: E402


def host_wait_launches(events):
    """The CPU ts of each launch whose kernel ends a host-wait gap."""
    launched = launch_times(events)
    points, busy_until = [], None
    for e in sorted(linked_gpu_events(events), key=lambda g: g["ts"]):
        at = launched.get(e.get("args", {}).get("correlation"))
        if busy_until is not None and e["ts"] > busy_until and at is not None and at > busy_until:
            points.append(at)
        busy_until = e["ts"] + e["dur"] if busy_until is None else max(busy_until, e["ts"] + e["dur"])
    return sorted(points)


def insert_host_gaps(events, gap):
    points = host_wait_launches(events)
    for e in events:
        if "ts" not in e:
            continue
        start_shift = gap * bisect.bisect_right(points, e["ts"])  # points at or before the start
        if "dur" in e:
            end_shift = gap * bisect.bisect_left(points, e["ts"] + e["dur"])  # points before the end
            e["dur"] += end_shift - start_shift
        e["ts"] += start_shift
    return len(points)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("src")
    p.add_argument("dst")
    p.add_argument("--kind", choices=("gemm", "collective", "all", "hostgap"), required=True)
    p.add_argument("--factor", type=float, default=1.0)
    p.add_argument("--rank", type=int)
    p.add_argument("--world-size", type=int)
    p.add_argument("--device", type=int)
    a = p.parse_args()
    trace = load(a.src)
    events = trace["traceEvents"]
    if a.kind == "hostgap":
        insert_host_gaps(events, a.factor)
    added = []  # (original end, extra)
    for e in events:
        if a.kind == "hostgap":
            break
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
    if a.device is not None:
        for e in events:
            if isinstance(e.get("args"), dict) and "device" in e["args"]:
                e["args"]["device"] = a.device
    with open(a.dst, "w") as f:
        json.dump(trace, f)


if __name__ == "__main__":
    main()
