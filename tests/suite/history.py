#!/usr/bin/env python3
"""aorta_suite history on run folders made from real reports (docs/sample-output's and
the H200 run's of docs/gpu-h200-single): 6 nightly runs with avg_iteration_time_ms 10 %
worse in run4, node17 named in 4 of the last 5 runs (diagnosis outliers in run2 and
run3, a kernel-log finding in run4, a failed gate in run5, 50 % slower, which no later
baseline takes in; its rank 1 in 3 of them), one damaged report, and 2 older runs of
another configuration; baselines of 3 runs. Checks the exact run,
change and counts reported, the rolling baselines against tools/independent_history.py,
--max-regression's exit code on a regressed newest run, history.html under a CSP, and
ROOT without a readable report (exit 2 naming it).
Usage: history.py AORTA_SUITE
"""
import copy
import json
import os
import subprocess
import sys
import tempfile

from suite_run import expect

binary = os.path.abspath(sys.argv[1])
source = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
DAY = 86400


def load(path):
    with open(os.path.join(source, path), encoding="utf-8") as f:
        return json.load(f)


def write(root, name, report, when):
    folder = os.path.join(root, name)
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "aorta_benchmark_report.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(report, f)
    os.utime(path, (when, when))
    return path


def outlier(node, rank):
    return {"rank": rank, "node": node, "gpu": rank, "source": "rank1.json", "measure": "compute", "unit": "us",
            "value": 2.0, "median": 1.0, "ranks": 8, "ratio_to_median": 2.0, "of_node": False, "reason": "slow"}


def nights(root):
    """The runs: h200-1, h200-2 (another configuration), run1 .. run6, and run9 damaged."""
    h200 = load("docs/gpu-h200-single/run_torchrun/aorta_benchmark_report.json")
    for i in (1, 2):
        write(root, f"h200-{i}", h200, 1_000_000 + i * DAY)
    sample = load("docs/sample-output/aorta_benchmark_report.json")
    sample["per_rank_summary"][1]["node"] = "node17"
    base = sample["performance"]["avg_iteration_time_ms"]
    for i in range(1, 7):
        r = copy.deepcopy(sample)
        if i == 4:
            r["performance"]["avg_iteration_time_ms"] = base * 1.10
            r["kernel_log_matches"] = ["WARN - GPU in degraded state (xgmi) on node17: link down -- perf numbers "
                                       "from this run may not be trustworthy"]
        if i in (2, 3):
            r["diagnosis"]["outliers"] = [outlier("node17", 1)]
        if i == 5:
            r["validation_passed"] = False
            r["performance"]["avg_iteration_time_ms"] = base * 1.5
            r["gates"][0].update(outcome="failed", subject={"node": "node17", "rank": 1, "gpu": 1,
                                                            "text": "node17 rank 1 (GPU 1)"})
        write(root, f"run{i}", r, 2_000_000 + i * DAY)
    os.makedirs(os.path.join(root, "run9"))
    with open(os.path.join(root, "run9", "aorta_benchmark_report.json"), "w") as f:
        f.write('{"status": "compl')
    return base


def history(*args, cwd):
    return subprocess.run([binary, "history", *args], capture_output=True, text=True, cwd=cwd, timeout=300)


def main():
    with tempfile.TemporaryDirectory() as work:
        root = os.path.join(work, "runs")
        base = nights(root)
        p = history(root, "--last", "5", "--baseline-runs", "3", "--output", "h.json", "--html", "page/history.html", cwd=work)
        expect(p.returncode == 0, f"history exit {p.returncode}", p)
        with open(os.path.join(work, "h.json"), encoding="utf-8") as f:
            h = json.load(f)
        expect(h["runs_read"] == 8, f"8 runs read, got {h['runs_read']}", p)
        expect([u["report"] for u in h["unreadable"]] == [os.path.join(root, "run9", "aorta_benchmark_report.json")],
               f"the damaged report named: {h['unreadable']}", p)
        expect("unreadable: " + os.path.join(root, "run9") in p.stdout, "the console names the damaged report", p)
        changes = [(c["run"], c["metric"], round(c["change"], 6), c["direction"]) for c in h["changes"]]
        expect(changes == [("run4", "avg_iteration_time_ms", 10.0, "worse"), ("run5", "avg_iteration_time_ms", 50.0, "worse")],
               f"two changes, run4 and the failed run5: {changes}", p)
        run4 = h["changes"][0]
        expect(abs(run4["baseline"] - base) < 1e-9 and abs(run4["value"] - base * 1.1) < 1e-9, f"run4: {run4}", p)
        trend = next(t for t in h["trends"] if t["metric"] == "avg_iteration_time_ms" and "2 GPUs" in t["group"])
        run6 = trend["points"][-1]
        expect(run6["run"] == "run6" and abs(run6["baseline"] - base) < 1e-9 and run6["verdict"] == "same",
               f"run6 against runs 2 to 4 (run5 failed): {run6}", p)
        expect("changed: run4 avg_iteration_time_ms" in p.stdout, "the console lists run4's change", p)
        named = [(n["subject"], n["runs"], n["of_last"], n["run_ids"]) for n in h["named"]]
        expect(named == [("node17", 4, 5, ["run2", "run3", "run4", "run5"]),
                         ("node17 rank 1 (GPU 1)", 3, 5, ["run2", "run3", "run5"])], f"named: {named}", p)
        expect(h["named"][0]["sources"] == ["diagnosis", "gate max_avg_iteration_ms", "kernel log"],
               f"node17's sources: {h['named'][0]['sources']}", p)
        groups = {t["group"] for t in h["trends"]}
        expect(len(groups) == 2, f"two groups: {groups}", p)
        check_independent(root, h, p)
        check_page(os.path.join(work, "page"), h, p)
        check_gate(root, work, base)
        empty = os.path.join(work, "empty")
        os.makedirs(empty)
        p = history(empty, cwd=work)
        expect(p.returncode == 2 and empty in p.stderr, f"an empty ROOT: exit {p.returncode}", p)
    print("PASS")


def check_independent(root, h, p):
    """Every trend point's baseline equals the independent script's median; the counts too."""
    metrics = sorted({t["metric"] for t in h["trends"]})
    out = subprocess.run([sys.executable, os.path.join(source, "tools", "independent_history.py"), root, "3", "5",
                          *metrics], capture_output=True, text=True, check=True)
    mine = json.loads(out.stdout)
    ours = {f"{t['group']}|{t['metric']}|{pt['run']}": pt["baseline"]
            for t in h["trends"] for pt in t["points"] if pt["baseline"] is not None}
    expect(ours.keys() == mine["baselines"].keys(), f"baselines of the same points: {sorted(ours)} vs "
           f"{sorted(mine['baselines'])}", p)
    for key, value in ours.items():
        expect(abs(value - mine["baselines"][key]) <= 1e-9 * max(1.0, abs(value)), f"{key}: {value} vs "
               f"{mine['baselines'][key]}", p)
    expect({n["subject"]: n["run_ids"] for n in h["named"]} == mine["named"], f"named vs {mine['named']}", p)
    expect(len(ours) > 20, f"baselines compared: {len(ours)}", p)


def check_page(folder, h, p):
    with open(os.path.join(folder, "history.html"), encoding="utf-8") as f:
        page = f.read()
    expect(os.path.isfile(os.path.join(folder, "history.css")), "history.css beside the page", p)
    expect(page.count("<svg") == len(h["trends"]), f"{page.count('<svg')} charts for {len(h['trends'])} trends", p)
    for blocked in ("<script", "style=", "<style"):
        expect(blocked not in page, f"{blocked} in history.html", p)


def check_gate(root, work, base):
    """A newest run 20 % slower is past --max-regression 5: exit 1, naming metric and run."""
    sample = load("docs/sample-output/aorta_benchmark_report.json")
    sample["per_rank_summary"][1]["node"] = "node17"
    sample["performance"]["avg_iteration_time_ms"] = base * 1.2
    write(root, "run7", sample, 2_000_000 + 7 * DAY)
    p = history(root, "--max-regression", "5", cwd=work)
    expect(p.returncode == 1, f"a regressed newest run: exit {p.returncode}", p)
    expect("regressed: avg_iteration_time_ms in run7" in p.stdout, "the regression named", p)
    p = history(root, "--max-regression", "25", cwd=work)
    expect(p.returncode == 0, f"within 25 %: exit {p.returncode}", p)


if __name__ == "__main__":
    main()
