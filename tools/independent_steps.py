#!/usr/bin/env python3
"""Independent check of aorta_suite's per-step figures, standard library only.

Written from the definitions, not from the C++ code:
- a step is a complete ("ph": "X") CPU event named ProfilerStep#N (PyTorch's
  profiler step annotation); GPU-side copies (cat gpu_user_annotation) are not steps;
- a GPU event belongs to the step in which it was launched: the runtime call
  (cat cuda_runtime / cuda_driver) with the same args.correlation has its CPU ts in
  [step ts, step ts + dur); which GPU events count at all, and whether each is
  compute, communication or memcpy, is tools/independent_metrics.py's selection;
- on a trace without GPU events, the CPU timeline instead (independent_metrics.py's
  cpu_timeline): a step's compute and communication are the rank's COMP and COMM
  within [step ts, step ts + dur);
- per step: compute = |union of compute|, comm = |union of communication|,
  overlap = |compute ∩ comm| (found here by a sweep over all boundaries),
  exposed comm = comm - overlap, overlap ratio = overlap / comm;
- per run, over every (rank, step) time together: mean, median, p95 (linear
  interpolation between order statistics, numpy's default), max, and cv =
  population standard deviation / mean; per step number the slowest rank and how
  much slower it is than the fastest (the lower rank on a tie), and the worst step;
  with fewer than two ranks that have steps there is no peer, so no straggler (both
  null, and a note says so); the straggler's cause: of compute, exposed comm and the
  rest of the step (step time - compute - exposed comm), the part the slowest rank
  spent longest in beyond the fastest (the first of compute, communication, idle on a
  tie), null on a timeline-less trace or when the slowest is no slower.

Usage: independent_steps.py [--include-unlinked-kernels] TRACE [TRACE ...]
Prints one JSON object per trace ({"file", "rank", "steps"}), then {"run": ...}.
"""
import json
import math
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import independent_metrics as im  # noqa: E402  (the GPU event selection and classes)

STEP_NAME = re.compile(r"ProfilerStep#(\d+)")


def step_annotations(events):
    out = []
    for e in events:
        m = STEP_NAME.fullmatch(str(e.get("name", "")))
        if not m or e.get("ph") != "X" or "ts" not in e or "dur" not in e:
            continue
        if e.get("cat") in ("gpu_user_annotation", "kernel", "gpu_memcpy", "gpu_memset", "cuda_runtime",
                            "cuda_driver", "ac2g"):
            continue
        out.append({"step": int(m.group(1)), "ts": e["ts"], "dur": e["dur"]})
    return sorted(out, key=lambda s: s["ts"])


def covered(intervals_a, intervals_b):
    """(|A|, |B|, |A ∩ B|) for two lists of intervals, by a sweep over every boundary."""
    points = sorted({p for iv in intervals_a + intervals_b for p in iv})
    len_a = len_b = both = 0.0
    for lo, hi in zip(points, points[1:]):
        in_a = any(s <= lo and hi <= e for s, e in intervals_a)
        in_b = any(s <= lo and hi <= e for s, e in intervals_b)
        len_a += (hi - lo) if in_a else 0.0
        len_b += (hi - lo) if in_b else 0.0
        both += (hi - lo) if in_a and in_b else 0.0
    return len_a, len_b, both


def per_step(path, include_unlinked):
    doc = im.load(path)
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    steps = step_annotations(events)
    if include_unlinked:
        gpu = [e for e in events if e.get("cat") in im.GPU_CATS and "ts" in e and "dur" in e]
    else:
        gpu = im.linked_gpu_events(events)
    launch_ts = {}
    for e in events:
        c = e.get("args", {}).get("correlation") if isinstance(e.get("args"), dict) else None
        if e.get("cat") in ("cuda_runtime", "cuda_driver") and c is not None and c not in launch_ts:
            launch_ts[c] = e["ts"]
    any_gpu = any(e.get("cat") in im.GPU_CATS and "ts" in e and "dur" in e and e["dur"] >= 0 for e in events)
    cpu = im.cpu_timeline(events) if not gpu and not any_gpu else None
    out = []
    for s in steps:
        if cpu is not None:
            lo, hi = s["ts"], s["ts"] + s["dur"]
            comp_len, comm_len, overlap = covered(im.clip(cpu["_compute"], lo, hi), im.clip(cpu["_comm"], lo, hi))
            out.append({"step": s["step"], "start_us": s["ts"], "step_time_ms": s["dur"] / 1000.0, "gpu_events": 0,
                        "compute_time_ms": comp_len / 1000.0, "comm_time_ms": comm_len / 1000.0,
                        "exposed_comm_time_ms": (comm_len - overlap) / 1000.0, "overlap_time_ms": overlap / 1000.0,
                        "overlap_ratio": overlap / comm_len if comm_len > 0 else None})
            continue
        mine = [g for g in gpu
                if g.get("args", {}).get("correlation") in launch_ts
                and s["ts"] <= launch_ts[g["args"]["correlation"]] < s["ts"] + s["dur"]]
        comp = [(g["ts"], g["ts"] + g["dur"]) for g in mine if im.kind(g) == "comp"]
        comm = [(g["ts"], g["ts"] + g["dur"]) for g in mine if im.kind(g) == "comm"]
        comp_len, comm_len, overlap = covered(comp, comm)
        row = {"step": s["step"], "start_us": s["ts"], "step_time_ms": s["dur"] / 1000.0}
        if gpu:
            row.update({"gpu_events": len(mine), "compute_time_ms": comp_len / 1000.0,
                        "comm_time_ms": comm_len / 1000.0, "exposed_comm_time_ms": (comm_len - overlap) / 1000.0,
                        "overlap_time_ms": overlap / 1000.0,
                        "overlap_ratio": overlap / comm_len if comm_len > 0 else None})
        else:  # neither timeline: step times only
            row.update({"gpu_events": 0, "compute_time_ms": None, "comm_time_ms": None,
                        "exposed_comm_time_ms": None, "overlap_time_ms": None, "overlap_ratio": None})
        out.append(row)
    rank = doc.get("distributedInfo", {}).get("rank") if isinstance(doc, dict) else None
    if rank is None:
        m = re.search(r"rank(\d+)", os.path.basename(path))
        rank = int(m.group(1)) if m else None
    return {"file": path, "rank": rank, "steps": out}


def percentile(values, p):
    xs = sorted(values)
    h = (len(xs) - 1) * p
    lo = math.floor(h)
    return xs[lo] if lo + 1 >= len(xs) else xs[lo] + (h - lo) * (xs[lo + 1] - xs[lo])


def cause(slow, fast):
    if slow["step_time_ms"] - fast["step_time_ms"] <= 0 or any(x.get(f) is None for x in (slow, fast) for f in ("compute_time_ms", "exposed_comm_time_ms")):
        return {"cause": None, "compute_excess_ms": None, "comm_excess_ms": None, "idle_excess_ms": None}
    parts = {}
    for name, f in (("compute", lambda x: x["compute_time_ms"]), ("communication", lambda x: x["exposed_comm_time_ms"]),
                    ("idle", lambda x: x["step_time_ms"] - x["compute_time_ms"] - x["exposed_comm_time_ms"])):
        parts[name] = f(slow) - f(fast)
    top = max(parts.values())
    return {"cause": next(n for n in ("compute", "communication", "idle") if parts[n] == top),
            "compute_excess_ms": parts["compute"], "comm_excess_ms": parts["communication"],
            "idle_excess_ms": parts["idle"]}


def run_summary(ranks):
    ranks = sorted(ranks, key=lambda r: (r["rank"] is None, r["rank"] or 0))
    times = [s["step_time_ms"] for r in ranks for s in r["steps"]]
    if not times:
        return None
    mean = statistics.fmean(times)
    by_step = {}
    figures = {}  # (step, rank) -> the step's row
    for r in ranks:
        for s in r["steps"]:
            by_step.setdefault(s["step"], {}).setdefault(r["rank"], s["step_time_ms"])
            figures.setdefault((s["step"], r["rank"]), s)
    note = None
    stragglers = []
    if sum(1 for r in ranks if r["steps"]) < 2:
        note = "one rank: no peer to compare with, so no straggler"
        by_step = {}
    for step in sorted(by_step):
        per_rank = list(by_step[step].items())  # ranks in order
        slowest = max(t for _, t in per_rank)
        rank = next(rk for rk, t in per_rank if t == slowest)
        fastest = min(t for _, t in per_rank)
        fast_rank = next(rk for rk, t in per_rank if t == fastest)
        row = {"step": step, "slowest_rank": rank, "excess_ms": slowest - fastest}
        row.update(cause(figures[(step, rank)], figures[(step, fast_rank)]))
        stragglers.append(row)
    worst = stragglers[0] if stragglers else None
    for s in stragglers:
        if s["excess_ms"] > worst["excess_ms"]:
            worst = s
    step_count = len({s["step"] for r in ranks for s in r["steps"]})
    return {"step_count": step_count, "step_samples": len(times), "avg_step_time_ms": mean,
            "median_step_time_ms": statistics.median(times), "p95_step_time_ms": percentile(times, 0.95),
            "max_step_time_ms": max(times), "step_time_cv": statistics.pstdev(times) / mean if mean > 0 else 0.0,
            "step_stragglers": stragglers if worst else None, "worst_step_straggler": worst,
            "step_straggler_note": note}


def main(argv):
    include_unlinked = "--include-unlinked-kernels" in argv
    ranks = [per_step(p, include_unlinked) for p in argv if not p.startswith("--")]
    for r in ranks:
        print(json.dumps(r))
    print(json.dumps({"run": run_summary(ranks)}))


if __name__ == "__main__":
    main(sys.argv[1:])
