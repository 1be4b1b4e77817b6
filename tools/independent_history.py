#!/usr/bin/env python3
"""An independent recomputation of `aorta_suite history`'s rolling baselines and named
counts, from the run folders alone (no aorta_suite code): the reports at ROOT/*/ and
ROOT/*/*/aorta_benchmark_report.json, oldest first by mtime (then by folder); grouped
by suite (one node: aorta_single), nodes, GPUs per node and every configuration value;
per run and metric the median of the last K passing runs (status completed, validation
passed) of its group before it that have the metric; and per node and rank, the runs
of the last N naming it (diagnosis outliers, failed gates' subjects, kernel-log
findings that name one of the report's nodes).
Usage: independent_history.py ROOT K N METRIC... ; prints JSON:
{"baselines": {"GROUP|METRIC|RUN": median}, "named": {"SUBJECT": [RUN, ...]}}
"""
import json
import os
import re
import statistics
import sys


def reports(root):
    found = []
    for entry in sorted(os.listdir(root)):
        folder = os.path.join(root, entry)
        if not os.path.isdir(folder):
            continue
        if os.path.lexists(os.path.join(folder, "aorta_benchmark_report.json")):
            found.append(os.path.join(folder, "aorta_benchmark_report.json"))
            continue
        for sub in sorted(os.listdir(folder)):
            path = os.path.join(folder, sub, "aorta_benchmark_report.json")
            if os.path.isdir(os.path.join(folder, sub)) and os.path.lexists(path):
                found.append(path)
    runs = []
    for path in found:
        try:
            with open(path, encoding="utf-8") as f:
                report = json.load(f)
        except (OSError, ValueError):
            continue
        if not isinstance(report, dict) or (report.get("tool") or {}).get("name") != "aorta_suite":
            continue
        run = os.path.relpath(os.path.dirname(path), root)
        runs.append((os.stat(path).st_mtime_ns, run, report))
    runs.sort(key=lambda r: (r[0], r[1]))
    return [(run, report) for _, run, report in runs]


def group(report):
    cluster = report["cluster"]
    nodes = cluster["nodes"]
    text = ("aorta_single" if nodes == 1 else "aorta_distributed") + \
        f", {nodes} node{'' if nodes == 1 else 's'} x {cluster['gpus_per_node']} GPU" + \
        ("" if cluster["gpus_per_node"] == 1 else "s")
    for key, value in sorted((report.get("configuration") or {}).items()):
        if value is not None:
            text += f", {key} {value if isinstance(value, str) else json.dumps(value)}"
    return text


def passed(report):
    return report.get("status") == "completed" and report.get("validation_passed") is True


def subject(who):
    rank = f"rank {who['rank']}" if who.get("rank") is not None else "rank unknown"
    if who.get("gpu") is not None:
        rank += f" (GPU {who['gpu']})"
    return f"{who['node']} {rank}" if who.get("node") is not None else rank


def named(report):
    out = set()
    whos = [(o, o.get("of_node") is True) for o in (report.get("diagnosis") or {}).get("outliers", [])]
    whos += [(g["subject"], False) for g in report.get("gates", [])
             if g.get("outcome") == "failed" and isinstance(g.get("subject"), dict)]
    for who, node_only in whos:
        if who.get("node") is not None:
            out.add(who["node"])
        if not node_only and who.get("rank") is not None:
            out.add(subject(who))
    nodes = {r["node"] for r in report.get("per_rank_summary", []) if isinstance(r.get("node"), str)}
    for node in nodes:
        pattern = re.compile(r"(^|[^A-Za-z0-9_.-])" + re.escape(node) + r"($|[^A-Za-z0-9_-])")
        if any(isinstance(m, str) and pattern.search(m) for m in report.get("kernel_log_matches", [])):
            out.add(node)
    return out


def main():
    root, k, n, metrics = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]
    runs = reports(root)
    baselines, passing = {}, {}
    for run, report in runs:
        g = group(report)
        window = passing.setdefault(g, [])[-k:]
        for metric in metrics:
            values = [(r.get("performance") or {}).get(metric) for r in window]
            values = [v for v in values if isinstance(v, (int, float))]
            if values and isinstance((report.get("performance") or {}).get(metric), (int, float)):
                baselines[f"{g}|{metric}|{run}"] = statistics.median(values)
        if passed(report):
            passing[g].append(report)
    counts = {}
    for run, report in runs[-n:]:
        for s in named(report):
            counts.setdefault(s, []).append(run)
    print(json.dumps({"baselines": baselines, "named": counts}, indent=1, sort_keys=True))


if __name__ == "__main__":
    main()
