#!/usr/bin/env python3
"""Independent check of aorta_suite's trace metrics, standard library only.

Written from the algorithm's description (TraceLens gpu_timeline: reference part
B.3-B.5; the original's basic scan: reference 3.5), not from the C++ code, and
deliberately simple: json.load the whole file, plain lists, plain loops.

Usage: independent_metrics.py [--include-unlinked-kernels] TRACE [TRACE ...]
Prints one JSON object per trace: {"file", "parser", per-rank fields...}.
"""
import gzip
import subprocess
import json
import re
import sys

COPY_KERNEL = re.compile(
    r"(MEMORY_COPY_(HOST_TO_DEVICE|DEVICE_TO_HOST|DEVICE_TO_DEVICE)|__amd_rocclr_copyBuffer(Rect)?(Aligned)?)(\.kd)?")
FILL_KERNEL = re.compile(r"__amd_rocclr_fillBuffer(Aligned)?(\.kd)?")
COMM_NAME = re.compile(r"nccl|rccl|cross_device_reduce", re.IGNORECASE)
GPU_CATS = ("kernel", "gpu_memcpy", "gpu_memset")


def load(path):
    if path.endswith(".zst"):  # collection keeps traces zstd-compressed; Python has no zstd module here
        return json.loads(subprocess.run(["zstd", "-dc", "--", path], check=True, capture_output=True).stdout)
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f)


def kind(event):
    cat, name = event.get("cat"), event.get("name", "")
    if cat == "gpu_memcpy":
        return "memcpy"
    if cat == "kernel" and COPY_KERNEL.fullmatch(name):
        return "memcpy"
    if cat == "kernel" and FILL_KERNEL.fullmatch(name):
        return "comp"
    if COMM_NAME.search(name):
        return "comm"
    return "comp"


def linked_gpu_events(events):
    key = "External id"
    for e in events:
        if e.get("cat") in ("cuda_runtime", "cuda_driver") and "launch" in e.get("name", "").lower():
            if "correlation" in e.get("args", {}):
                key = "correlation"
            break
    starts, ends, by_triple = {}, {}, {}
    for e in events:
        if e.get("cat") == "ac2g":
            if e.get("ph") == "s":
                starts[e.get("id")] = e
            elif e.get("ph") == "f":
                ends[e.get("id")] = e
            continue
        args = e.get("args")
        if isinstance(args, dict) and "pid" in e and "tid" in e and key in args:
            by_triple[(e["pid"], e["tid"], args[key])] = e
    linked = set()
    for e in events:
        if e.get("cat") not in ("cuda_runtime", "cuda_driver"):
            continue
        value = e.get("args", {}).get(key)
        if e.get("name") in ("cudaGraphLaunch", "hipGraphLaunch"):
            for g in events:
                if g.get("cat") in GPU_CATS and g.get("args", {}).get(key) == value:
                    linked.add(id(g))
            continue
        if value in starts and value in ends:
            f = ends[value]
            target = by_triple.get((f.get("pid"), f.get("tid"), f.get("id")))
            if target is not None:
                linked.add(id(target))
    return [e for e in events if e.get("cat") in GPU_CATS and "ts" in e and "dur" in e and id(e) in linked]


def union(intervals):
    out = []
    for start, end in sorted(intervals, key=lambda x: x[0]):
        if out and start <= out[-1][1]:
            out[-1][1] = max(out[-1][1], end)
        else:
            out.append([start, end])
    return out


def length(intervals):
    return sum(end - start for start, end in intervals)


def minus(b, a):
    """Parts of b not covered by a (both unions), by walking every boundary."""
    out = []
    for start, end in b:
        cursor = start
        for a_start, a_end in a:
            if a_end <= cursor or a_start >= end:
                continue
            if a_start > cursor:
                out.append([cursor, a_start])
            cursor = max(cursor, a_end)
        if cursor < end:
            out.append([cursor, end])
    return out


def timeline(gpu):
    sets = {"comp": [], "comm": [], "memcpy": []}
    for e in gpu:
        sets[kind(e)].append((e["ts"], e["ts"] + e["dur"]))
    comp, comm, mem = union(sets["comp"]), union(sets["comm"]), union(sets["memcpy"])
    everything = union(sets["comp"] + sets["comm"] + sets["memcpy"])
    total = max(e["ts"] + e["dur"] for e in gpu) - min(e["ts"] for e in gpu)
    busy = length(everything)
    exposed_comm = length(minus(comm, comp))
    total_comm = length(comm)
    overlap = total_comm - exposed_comm
    return {
        "parser": "tracelens_gpu_timeline",
        "total_time_us": total,
        "compute_time_us": length(comp),
        "comm_time_us": exposed_comm,
        "total_comm_time_us": total_comm,
        "total_memcpy_time_us": length(mem),
        "exposed_memcpy_time_us": length(minus(minus(mem, comp), comm)),
        "busy_time_us": busy,
        "idle_time_us": total - busy,
        "compute_ratio": length(comp) / total if total else 0.0,
        "comm_ratio": exposed_comm / total if total else 0.0,
        "overlap_ratio": overlap / total_comm if total_comm else 0.0,
    }


def basic(events):
    total = compute = comm = 0.0
    for e in events:
        dur = e.get("dur", 0)
        if not dur or dur <= 0:
            continue
        name, cat = e.get("name", "").lower(), str(e.get("cat", "")).lower()
        if any(s in name for s in ("nccl", "allreduce", "allgather", "broadcast", "reduce_scatter")):
            comm += dur
        elif any(s in name for s in ("memcpy", "memset", "cudamemcpy")):
            pass
        elif cat == "kernel" or "kernel" in name or cat == "gpu":
            compute += dur
        total += dur
    if total == 0:
        timed = [e for e in events if "ts" in e]
        if timed:
            total = max(e["ts"] + e.get("dur", 0) for e in timed) - min(e["ts"] for e in timed)
    return {
        "parser": "basic_scan",
        "total_time_us": total,
        "compute_time_us": compute,
        "comm_time_us": comm,
        "total_comm_time_us": comm,
        "compute_ratio": compute / total if total else 0.0,
        "comm_ratio": comm / total if total else 0.0,
        "overlap_ratio": max(0.0, compute + comm - total) / comm if comm > 0 else 0.0,
    }


def analyse(path, include_unlinked):
    doc = load(path)
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    if include_unlinked:
        gpu = [e for e in events if e.get("cat") in GPU_CATS and "ts" in e and "dur" in e]
    else:
        gpu = linked_gpu_events(events)
    result = timeline(gpu) if gpu else basic(events)
    if isinstance(doc, dict) and "distributedInfo" in doc:
        result["rank"] = doc["distributedInfo"].get("rank")
    result["file"] = path
    result["selected_gpu_events"] = len(gpu)
    return result


def main(argv):
    include_unlinked = "--include-unlinked-kernels" in argv
    for path in [a for a in argv if not a.startswith("--")]:
        print(json.dumps(analyse(path, include_unlinked)))


if __name__ == "__main__":
    main(sys.argv[1:])
