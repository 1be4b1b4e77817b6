#!/usr/bin/env python3
"""`aorta_suite analyze` on the real traces against tools/independent_metrics.py.

Every per-rank number the C++ engine reports must equal the independent
implementation's, in both kernel-selection modes, and the run averages must be
the plain means of the per-rank values.
Usage: metrics_vs_independent.py AORTA_SUITE TEST_DATA_DIR
"""
import gzip
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CHECKER = os.path.join(HERE, "..", "..", "tools", "independent_metrics.py")
FIELDS = ["total_time_us", "compute_time_us", "comm_time_us", "total_comm_time_us", "total_memcpy_time_us",
          "exposed_memcpy_time_us", "busy_time_us", "idle_time_us", "compute_ratio", "comm_ratio", "overlap_ratio"]


def close(a, b, what):
    if a is None or b is None or abs(a - b) > 1e-6 * max(1.0, abs(b)):
        raise SystemExit(f"MISMATCH {what}: aorta_suite {a} vs independent {b}")


def check(binary, traces, unlinked):
    flag = ["--include-unlinked-kernels"] if unlinked else []
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "a.json")
        subprocess.run([binary, "analyze", traces, "--output", out, "--jobs", "2"] + flag, check=True,
                       stdout=subprocess.DEVNULL)
        mine = json.load(open(out))
    files = sorted(os.path.join(traces, f) for f in os.listdir(traces))
    ref = subprocess.run([sys.executable, CHECKER] + flag + files, check=True, capture_output=True, text=True)
    expected = {r["rank"]: r for r in map(json.loads, ref.stdout.split("\n")[:-1])}
    assert mine["parse"]["status"] == "success", mine["parse"]
    ranks = mine["per_rank_summary"]
    assert [r["rank"] for r in ranks] == sorted(expected), ranks
    for r in ranks:
        e = expected[r["rank"]]
        assert r["parser"] == e["parser"] == "tracelens_gpu_timeline"
        for f in FIELDS:
            close(r[f], e[f], f"rank {r['rank']} {f} (unlinked={unlinked})")
        assert r["peak_memory_gb"] == e["peak_memory_gb"] is None, (r["peak_memory_gb"], e["peak_memory_gb"])  # no [memory] events
    perf = mine["performance"]
    n = len(ranks)
    mean = lambda k: sum(e[k] for e in expected.values()) / n
    close(perf["avg_iteration_time_ms"], mean("total_time_us") / 1000, "avg_iteration_time_ms")
    close(perf["avg_compute_ratio"], mean("compute_ratio"), "avg_compute_ratio")
    close(perf["avg_overlap_ratio"], mean("overlap_ratio"), "avg_overlap_ratio")
    totals = [e["total_time_us"] for e in expected.values()]
    m = sum(totals) / n
    std = (sum((t - m) ** 2 for t in totals) / (n - 1)) ** 0.5
    close(perf["std_iteration_time_us"], std, "std_iteration_time_us")
    close(perf["time_variance_ratio"], std / m, "time_variance_ratio")
    print(f"ok: {n} ranks, unlinked={unlinked}, overlap {perf['avg_overlap_ratio']:.4f}, "
          f"compute {perf['avg_compute_ratio']:.4f}, iteration {perf['avg_iteration_time_ms']:.3f} ms")


CPU_FIELDS = ["total_time_us", "compute_time_us", "comm_time_us", "total_comm_time_us", "exposed_comm_time_us",
              "busy_time_us", "idle_time_us", "compute_ratio", "comm_ratio", "overlap_ratio"]


def check_cpu(binary, data, name):
    """A trace without GPU events (gloo on CPU): the CPU timeline, real numbers."""
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copy(os.path.join(data, name), tmp)
        out = os.path.join(tmp, "a.json")
        subprocess.run([binary, "analyze", tmp, "--output", out], check=True, stdout=subprocess.DEVNULL)
        mine = json.load(open(out))
        ref = subprocess.run([sys.executable, CHECKER, os.path.join(tmp, name)], check=True, capture_output=True,
                             text=True)
    e = json.loads(ref.stdout)
    e["exposed_comm_time_us"] = e["comm_time_us"]
    assert mine["parse"]["status"] == "success", mine["parse"]
    [r] = mine["per_rank_summary"]
    assert r["parser"] == e["parser"] == "cpu_timeline", (r["parser"], e["parser"])
    assert r["total_memcpy_time_us"] is None and r["exposed_memcpy_time_us"] is None, r
    assert r["compute_ratio"] > 0 and r["total_comm_time_us"] > 0, r
    for f in CPU_FIELDS:
        close(r[f], e[f], f"{name} {f}")
    print(f"ok: {name}: cpu_timeline, compute {r['compute_ratio']:.4f}, comm {r['comm_ratio']:.4f}, "
          f"overlap {r['overlap_ratio']:.4f}, total {r['total_time_us'] / 1000:.3f} ms")


def check_peak_memory(binary, data):
    """Kineto's [memory] events (profile_memory=True) put into a real trace: the largest
    "Total Allocated" in GiB, against the checker; the shipped traces have none."""
    doc = json.load(gzip.open(os.path.join(data, "h200-torch2.11-kineto-nccl_rank0.json.gz")))
    rng = random.Random(21)
    sizes = [rng.randrange(1, 80 << 30) for _ in range(500)]
    for i, size in enumerate(sizes):
        doc["traceEvents"].insert(rng.randrange(len(doc["traceEvents"])), {
            "ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": i,
            "args": {"Total Reserved": size * 2, "Total Allocated": size, "Bytes": 512, "Device Id": 0}})
    with tempfile.TemporaryDirectory() as tmp:
        json.dump(doc, open(os.path.join(tmp, "rank0.json"), "w"))
        out = os.path.join(tmp, "a.json")
        subprocess.run([binary, "analyze", tmp, "--output", out], check=True, stdout=subprocess.DEVNULL)
        mine = json.load(open(out))
        ref = json.loads(subprocess.run([sys.executable, CHECKER, os.path.join(tmp, "rank0.json")], check=True,
                                        capture_output=True, text=True).stdout)
    [r] = mine["per_rank_summary"]
    close(r["peak_memory_gb"], ref["peak_memory_gb"], "peak_memory_gb")
    close(mine["performance"]["peak_memory_gb"], max(sizes) / 1024 ** 3, "performance.peak_memory_gb")
    print(f"ok: peak_memory_gb {r['peak_memory_gb']:.3f} over {len(sizes)} [memory] events")


def main():
    binary, data = os.path.abspath(sys.argv[1]), sys.argv[2]
    with tempfile.TemporaryDirectory() as traces:
        for name in ("h200-aorta-overlap_rank0.pt.trace.json.gz", "h200-aorta-overlap_rank1.pt.trace.json.gz"):
            shutil.copy(os.path.join(data, name), traces)
        check(binary, traces, unlinked=False)
        check(binary, traces, unlinked=True)
    with tempfile.TemporaryDirectory() as traces:
        for name in ("h200-torch2.11-kineto-nccl_rank0.json.gz", "h200-torch2.11-kineto-nccl_rank1.json.gz"):
            shutil.copy(os.path.join(data, name), traces)
        check(binary, traces, unlinked=False)
    for name in ("h200-torch2.11-kineto-gloo_rank0.json.gz", "debian-torch1.13-gloo-legacy_rank0.json.gz"):
        check_cpu(binary, data, name)
    check_peak_memory(binary, data)


if __name__ == "__main__":
    main()
