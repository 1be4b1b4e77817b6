#!/usr/bin/env python3
"""Independent check of aorta_suite's trace metrics, standard library only.

Written from the algorithm's description (TraceLens gpu_timeline: reference part
B.3-B.5; the CPU timeline of traces without GPU events: the definitions in
cpu_timeline() below, as the README states them; the original's basic scan:
reference 3.5), not from the C++ code, and deliberately simple: json.load the whole
file, plain lists, plain loops.

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


CPU_CATS = ("cpu_op", "user_annotation")
COLLECTIVE_PREFIXES = ("c10d::", "gloo:", "nccl:", "mpi:", "ucc:")
PROFILER_STEP = re.compile(r"ProfilerStep#\d+")


def intersect(a, b):
    """Parts covered by both a and b (both unions), pair by pair."""
    out = []
    for a_start, a_end in a:
        for b_start, b_end in b:
            lo, hi = max(a_start, b_start), min(a_end, b_end)
            if lo < hi:
                out.append([lo, hi])
    return union(out)


def clip(intervals, lo, hi):
    return [[max(s, lo), min(e, hi)] for s, e in intervals if max(s, lo) < min(e, hi)]


def cpu_timeline(events):
    """The CPU timeline of a trace without GPU events, from its definitions:
    - its events: complete ("X") ones with ts, dur >= 0, pid and tid, of cat cpu_op
      or user_annotation, or without a cat (torch 1.13's legacy writer);
      ProfilerStep#N is the step marker; a name starting c10d::, gloo:, nccl:, mpi:
      or ucc:, or record_param_comms, is a collective; the rest are operators;
    - the training thread: the thread of the first ProfilerStep annotation, else the
      thread whose top-level operators take the most time (the first seen on a tie);
    - top-level: not contained in another operator or collective of the same thread
      (of two identical ones, the first in the file contains the second);
    - window: first step start .. last step end, else first start .. last end of
      everything in COMP or COMM;
    - COMM: union of the collectives on every thread; COMP: union of the top-level
      operators of the training thread minus the collectives of that thread;
    - both clipped to the window; the rest as on the GPU timeline.
    Returns None where there is no such timeline."""
    ops = []
    for index, e in enumerate(events):
        if e.get("ph") != "X" or "ts" not in e or "dur" not in e or "pid" not in e or "tid" not in e:
            continue
        if e.get("cat", "") not in ("",) + CPU_CATS:
            continue
        if e["dur"] < 0:
            continue
        name = str(e.get("name", ""))
        if name.startswith("ProfilerStep#"):
            role = "step"
        elif name.startswith(COLLECTIVE_PREFIXES) or name == "record_param_comms":
            role = "comm"
        else:
            role = "op"
        ops.append({"index": index, "thread": (e["pid"], e["tid"]), "start": e["ts"], "end": e["ts"] + e["dur"],
                    "role": role})
    steps = [e for e in events if e.get("ph") == "X" and PROFILER_STEP.fullmatch(str(e.get("name", "")))
             and "ts" in e and "dur" in e and e.get("cat") not in GPU_CATS + ("gpu_user_annotation",)]

    def contains(outer, inner):
        if outer is inner or outer["thread"] != inner["thread"]:
            return False
        if not (outer["start"] <= inner["start"] and inner["end"] <= outer["end"]):
            return False
        if outer["start"] == inner["start"] and outer["end"] == inner["end"]:
            return outer["index"] < inner["index"]
        return True

    # Containment is transitive: an event inside any other is inside a top-level
    # one, so it is enough to test each against the top-level events found so far
    # (in order of start, the longer first).
    top, top_of_thread = [], {}
    for o in sorted((o for o in ops if o["role"] != "step"), key=lambda o: (o["start"], -o["end"], o["index"])):
        mine = top_of_thread.setdefault(o["thread"], [])
        if not any(contains(t, o) for t in reversed(mine)):
            mine.append(o)
            top.append(o)
    step_ops = [o for o in ops if o["role"] == "step"]
    if step_ops:
        training = min(step_ops, key=lambda o: o["index"])["thread"]
    else:
        time, first_seen = {}, {}
        for o in top:
            if o["role"] == "op":
                time[o["thread"]] = time.get(o["thread"], 0.0) + (o["end"] - o["start"])
        for o in ops:
            first_seen.setdefault(o["thread"], o["index"])
        if not time:
            training = None
        else:
            training = max(time, key=lambda t: (time[t], -first_seen[t]))
    comp_raw = [[o["start"], o["end"]] for o in top if o["role"] == "op" and o["thread"] == training]
    comm_raw = [[o["start"], o["end"]] for o in ops if o["role"] == "comm"]
    own_comm = [[o["start"], o["end"]] for o in ops if o["role"] == "comm" and o["thread"] == training]
    if not comp_raw and not comm_raw:
        return None
    if steps:
        lo = min(s["ts"] for s in steps)
        hi = max(s["ts"] + s["dur"] for s in steps)
    else:
        lo = min(s for s, _ in comp_raw + comm_raw)
        hi = max(e for _, e in comp_raw + comm_raw)
    inside = [iv for iv in comp_raw + comm_raw if iv[0] < hi and iv[1] > lo]
    if not hi > lo or not inside:
        return None
    comp = clip(minus(union(comp_raw), union(own_comm)), lo, hi)
    comm = clip(union(comm_raw), lo, hi)
    total = hi - lo
    exposed = length(minus(comm, comp))
    total_comm = length(comm)
    overlap = length(intersect(comp, comm))
    busy = length(union(comp + comm))
    return {
        "parser": "cpu_timeline",
        "total_time_us": total,
        "compute_time_us": length(comp),
        "comm_time_us": exposed,
        "total_comm_time_us": total_comm,
        "busy_time_us": busy,
        "idle_time_us": total - busy,
        "compute_ratio": length(comp) / total,
        "comm_ratio": exposed / total,
        "overlap_ratio": overlap / total_comm if total_comm else 0.0,
        "selected_cpu_events": len(inside),
        "_compute": comp,
        "_comm": comm,
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
    any_gpu = any(e.get("cat") in GPU_CATS and "ts" in e and "dur" in e and e["dur"] >= 0 for e in events)
    result = timeline(gpu) if gpu else (None if any_gpu else cpu_timeline(events)) or basic(events)
    result.pop("_compute", None)
    result.pop("_comm", None)
    if isinstance(doc, dict) and "distributedInfo" in doc:
        result["rank"] = doc["distributedInfo"].get("rank")
    result["file"] = path
    result["selected_gpu_events"] = len(gpu)
    # The original's peak memory: the largest "Total Allocated" (bytes) of any event, in GiB.
    allocated = [e["args"]["Total Allocated"] for e in events
                 if isinstance(e.get("args"), dict) and isinstance(e["args"].get("Total Allocated"), (int, float))
                 and not isinstance(e["args"]["Total Allocated"], bool) and e["args"]["Total Allocated"] >= 0]
    result["peak_memory_gb"] = max(allocated) / 1024 ** 3 if allocated else None
    return result


def main(argv):
    include_unlinked = "--include-unlinked-kernels" in argv
    for path in [a for a in argv if not a.startswith("--")]:
        print(json.dumps(analyse(path, include_unlinked)))


if __name__ == "__main__":
    main(sys.argv[1:])
