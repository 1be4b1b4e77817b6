#!/usr/bin/env python3
"""Independent check of aorta_suite's per-rank diagnosis, standard library only.

Written from the definitions (README, "Diagnosis"), not from the C++ code:
- the GPU timeline's events as tools/independent_metrics.py selects them (linked);
- kernel classes by name: collective (nccl, rccl, cross_device_reduce), memcpy
  (gpu_memcpy, ROCm copy kernels), memset (gpu_memset, ROCm fill kernels), attention
  (flash, fmha, attention, attn, sdpa), GEMM (gemm, nvjet, cutlass, cublas, xmma,
  cijk_), other compute; time = the summed kernel spans, each (ts + dur) - ts as the
  timeline holds it (TraceLens's one rounding step), share = time / window;
- bandwidth per (Collective name, dtype, group size, S) from the kernel's args, with
  S = max(In, Out msg nelems) * dtype size, algbw = count * S / time, busbw = algbw
  times nccl-tests' factor; the record_param_comms CPU events are counted alongside;
- idle split as HTA defines it, over the whole GPU: walk the kernels by start (file
  order on a tie), keeping the end of the busy time so far; a kernel starting after it
  ends a gap, which is host wait when the kernel's runtime call (cat cuda_runtime or
  cuda_driver, same args.correlation, the first in the file) has a ts after the gap
  began, else kernel wait when shorter than 0.030 us (30 ns), else other;
- the GPU index: the one args.device (an integer in 0 .. 2^20 - 1) of every GPU
  event, else none;
- per step (independent_steps.py's steps and launch rule): the same classes and idle
  split over the kernels launched in the step, shares of their own span;
- outliers: median and MAD over the ranks (statistics.median), 3.5 * 1.4826 * MAD and
  a share (compute 5% per kernel, bandwidth, idle and host wait 10%), at least 3 ranks.

Usage: independent_diagnosis.py TRACE [TRACE ...]
Prints one JSON object: {"ranks": [...], "findings": [...]}.
"""
import json
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from independent_metrics import kind, linked_gpu_events, load, timeline  # noqa: E402
from independent_steps import step_annotations  # noqa: E402

DTYPE_BYTES = {"Bool": 1, "Byte": 1, "Char": 1, "QInt8": 1, "QUInt8": 1, "Float8_e5m2": 1, "Float8_e4m3fn": 1,
               "Float8_e5m2fnuz": 1, "Float8_e4m3fnuz": 1, "Short": 2, "UInt16": 2, "Half": 2, "BFloat16": 2,
               "Int": 4, "UInt32": 4, "QInt32": 4, "Float": 4, "ComplexHalf": 4, "Long": 8, "UInt64": 8,
               "Double": 8, "ComplexFloat": 8, "ComplexDouble": 16}
ATTENTION = re.compile(r"flash|fmha|attention|attn|sdpa", re.IGNORECASE)
GEMM = re.compile(r"gemm|nvjet|cutlass|cublas|xmma|cijk_", re.IGNORECASE)
FILL = re.compile(r"__amd_rocclr_fillBuffer(Aligned)?(\.kd)?")


def kernel_class(e):
    k = kind(e)
    if k == "comm":
        return "collective"
    if k == "memcpy":
        return "memcpy"
    if e.get("cat") == "gpu_memset" or (e.get("cat") == "kernel" and FILL.fullmatch(e.get("name", ""))):
        return "memset"
    if ATTENTION.search(e.get("name", "")):
        return "attention"
    if GEMM.search(e.get("name", "")):
        return "gemm"
    return "other_compute"


def factor(name, n):
    if n < 1:
        return None
    if "allreduce" in name or "all_reduce" in name:
        return 2 * (n - 1) / n
    if any(s in name for s in ("allgather", "all_gather", "reduce_scatter", "alltoall", "all_to_all")):
        return (n - 1) / n
    return 1.0 if name in ("broadcast", "reduce", "send", "recv") else None


def launch_times(events):
    out = {}
    for e in events:
        args = e.get("args") if isinstance(e.get("args"), dict) else {}
        if e.get("cat") in ("cuda_runtime", "cuda_driver") and "correlation" in args:
            out.setdefault(args["correlation"], e["ts"])
    return out


def idle_split(gpu, launched):
    split = {"host_wait_us": 0.0, "kernel_wait_us": 0.0, "other_us": 0.0, "gaps": 0, "host_wait_gaps": 0}
    busy_until = None
    for e in sorted(gpu, key=lambda g: g["ts"]):
        end = e["ts"] + e["dur"]
        if busy_until is not None and e["ts"] > busy_until:
            gap = e["ts"] - busy_until
            split["gaps"] += 1
            at = launched.get(e.get("args", {}).get("correlation"))
            if at is not None and at > busy_until:
                split["host_wait_us"] += gap
                split["host_wait_gaps"] += 1
            elif gap < 0.030:
                split["kernel_wait_us"] += gap
            else:
                split["other_us"] += gap
        busy_until = end if busy_until is None else max(busy_until, end)
    return split


def class_times(gpu, window):
    classes = {}
    for e in gpu:
        c = kernel_class(e)
        if c == "collective":
            c = "collective:" + (e.get("args", {}).get("Collective name") or "unknown")
        total = classes.setdefault(c, [0, 0.0])
        total[0] += 1
        total[1] += (e["ts"] + e["dur"]) - e["ts"]
    order = ["gemm", "attention", "other_compute"] + sorted(c for c in classes if c.startswith("collective:")) + [
        "memcpy", "memset"]
    return [{"name": c, "kernels": classes[c][0], "time_us": classes[c][1], "share": classes[c][1] / window}
            for c in order if c in classes]


def bandwidths(gpu):
    bandwidth = {}
    for e in gpu:
        args = e.get("args", {})
        if kernel_class(e) == "collective" and args.get("dtype") in DTYPE_BYTES and args.get("Group size", 0) >= 1:
            key = (args["Collective name"], args["dtype"], args["Group size"],
                   max(args.get("In msg nelems", -1), args.get("Out msg nelems", -1)) * DTYPE_BYTES[args["dtype"]])
            b = bandwidth.setdefault(key, [0, 0.0])
            b[0] += 1
            b[1] += (e["ts"] + e["dur"]) - e["ts"]
    rows = []
    for (name, dtype, n, size), (count, time) in sorted(bandwidth.items(), key=lambda kv: (kv[0][0], kv[0][3])):
        algbw = size * count / time / 1e3
        f = factor(name, n)
        rows.append({"collective": name, "dtype": dtype, "group_size": n, "bytes": size, "count": count,
                     "time_us": time, "algbw_gbps": algbw, "busbw_gbps": algbw * f if f is not None else None})
    return rows


def span(gpu):
    return max(e["ts"] + e["dur"] for e in gpu) - min(e["ts"] for e in gpu)


def diagnose(path):
    trace = load(path)
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    gpu = linked_gpu_events(events)
    window = span(gpu)
    launched = launch_times(events)
    steps = []
    for s in step_annotations(events):
        mine = [g for g in gpu if s["ts"] <= launched.get(g.get("args", {}).get("correlation"), -1e300)
                < s["ts"] + s["dur"]]
        if mine:
            steps.append({"step": s["step"], "classes": class_times(mine, span(mine)),
                          "idle": idle_split(mine, launched)})
    param_comms = {}
    for e in events:
        if e.get("name") == "record_param_comms":
            name = e.get("args", {}).get("Collective name", "unknown")
            param_comms[name] = param_comms.get(name, 0) + 1
    info = trace.get("distributedInfo", {}) if isinstance(trace, dict) else {}
    devices = {e["args"]["device"] for e in events if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")
               and isinstance(e.get("args"), dict) and type(e["args"].get("device")) is int
               and 0 <= e["args"]["device"] < 2 ** 20}
    return {"file": path, "rank": info.get("rank"), "gpu": devices.pop() if len(devices) == 1 else None,
            "window_us": window,
            "idle_time_us": timeline(gpu)["idle_time_us"], "idle": idle_split(gpu, launched),
            "classes": class_times(gpu, window), "collectives": bandwidths(gpu), "steps": steps,
            "record_param_comms": param_comms}


def findings(ranks):
    measures = {}  # name -> (share, worse, [(rank, value)])
    for r in ranks:
        measures.setdefault("GPU idle time", (0.10, "either", []))[2].append((r, r["idle_time_us"]))
        measures.setdefault("GPU host-wait time", (0.10, "higher", []))[2].append((r, r["idle"]["host_wait_us"]))
        for c in r["classes"]:
            if c["name"] in ("gemm", "attention", "other_compute"):
                measures.setdefault(c["name"] + " mean kernel time", (0.05, "higher", []))[2].append(
                    (r, c["time_us"] / c["kernels"]))
        for b in r["collectives"]:
            if b["busbw_gbps"] is not None:
                name = "%s %d B %s x%d bus bandwidth" % (b["collective"], b["bytes"], b["dtype"], b["group_size"])
                measures.setdefault(name, (0.10, "lower", []))[2].append((r, b["busbw_gbps"]))
    out = []
    for name, (share, worse, values) in measures.items():
        xs = [v for _, v in values]
        if len(xs) < 3:
            continue
        med = statistics.median(xs)
        mad = statistics.median([abs(x - med) for x in xs])
        if med <= 0:
            continue
        for r, x in values:
            direction_ok = worse == "either" or (x > med if worse == "higher" else x < med)
            if direction_ok and abs(x - med) > 3.5 * 1.4826 * mad and abs(x / med - 1) >= share:
                out.append({"rank": r["rank"], "file": r["file"], "measure": name, "value": x, "median": med,
                            "ranks": len(xs), "ratio": x / med})
    return sorted(out, key=lambda f: -abs(f["ratio"] - 1))


def main(paths):
    ranks = [diagnose(p) for p in paths]
    print(json.dumps({"ranks": ranks, "findings": findings(ranks)}, indent=1))


if __name__ == "__main__":
    main(sys.argv[1:])
