#!/usr/bin/env python3
"""The embedded default, end to end: real torchrun on this machine, every stage
passes or skips by configuration, and the report's metrics equal an independent
computation over the traces the run collected. Then node 0's training output
reaching the run's log file while the benchmark runs.
Usage: local_single_end_to_end.py AORTA_SUITE
"""
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile

import html_report
import suite_run
from suite_run import expect, run

HERE = os.path.dirname(os.path.abspath(__file__))
CHECKER = os.path.join(HERE, "..", "..", "tools", "independent_metrics.py")
WORKLOAD = os.path.join(HERE, "..", "..", "workload")

binary = os.path.abspath(sys.argv[1])
with tempfile.TemporaryDirectory() as work:
    p, stages, report = run(binary, work, "--gtest_filter=*single*")
    expect(p.returncode == 0, f"exit status {p.returncode}", p)
    expected = suite_run.passing_stages(binary)
    expect({k: v[0] for k, v in stages.items()} == expected, f"stages {stages}", p)
    # Each sub-test is a testcase of its own (<stage>/<suffix>).
    expect({k: v[0] for k, v in run.last_subtests.items()} ==
           {"test_collect_traces/localhost": "passed", "test_validate_thresholds/max_avg_iteration_ms": "passed",
            "test_validate_thresholds/max_time_variance_ratio": "passed"}, f"sub-tests {run.last_subtests}", p)
    expect(stages["test_build_rccl"][1].strip().endswith("skip_rccl_build=true"), str(stages["test_build_rccl"]))
    expect(stages["test_analyze"][1].strip().endswith("Optional TraceLens/GEMM analysis is disabled"),
           str(stages["test_analyze"]))
    expect(report is not None, "no aorta_benchmark_report.json", p)
    expect(stages["test_collect_traces"][2] == ["[trace collection] (host=localhost): passed"],
           str(stages["test_collect_traces"]))
    subtests = stages["test_validate_thresholds"][2]
    expect([t.split(":")[0] for t in subtests] ==
           ["[threshold] (metric=max_avg_iteration_ms)", "[threshold] (metric=max_time_variance_ratio)"],
           f"threshold sub-tests {subtests}")  # null thresholds never appear
    expect(all(t.endswith(": passed") for t in subtests), str(subtests))  # CVS's values exactly
    import xml.etree.ElementTree as ET
    suite = ET.parse(run.last_xml).getroot().find("testsuite")
    expect(suite.get("tests") == str(10 + 3) and suite.get("skipped") == "2" and suite.get("failures") == "0",
           f"testsuite counts {suite.attrib}")
    expect(report["status"] == "completed" and report["validation_passed"] is True, json.dumps(report)[:500])
    # The build that made the reports: what --version says, in the JSON report and the JUnit properties.
    version = subprocess.run([binary, "--version"], check=True, capture_output=True, text=True).stdout.strip()
    tool = report["tool"]
    expect(version == f"aorta_suite {tool['version']} (commit {tool['commit']})", f"{version} vs {tool}")
    props = {q.get("name"): q.get("value") for q in suite.find("properties")}
    expect(props.get("aorta_suite_commit") == tool["commit"] and props.get("aorta_suite_version") == tool["version"],
           f"JUnit properties {props}")
    expect(report["cluster"] == {"nodes": 1, "gpus_per_node": 2, "total_gpus": 2}, str(report["cluster"]))
    ranks = report["per_rank_summary"]
    expect([r["rank"] for r in ranks] == [0, 1], f"ranks {ranks}")
    expect("[benchmark] 1/1 nodes done" in p.stdout, "no progress line", p)
    # Collection's progress line: files and bytes as collected (sizes read here).
    sizes = [os.path.getsize(r["source"]) for r in report["per_rank_summary"]]
    expect(f"[collect] 1/1 nodes: localhost {len(sizes)}/{len(sizes)} file(s), {sum(sizes) / 1e6:.1f} MB in " in p.stdout,
           "no collection progress line with files and bytes", p)
    # gtest's own console names each threshold test with its actual value and limit.
    for key in ("max_avg_iteration_ms", "max_time_variance_ratio"):
        expect(f"[ RUN      ] aorta_single.test_validate_thresholds/{key}\n  {key}: actual " in p.stdout,
               f"gtest's console names {key} with its actual value", p)
    for r in ranks:
        ref = json.loads(subprocess.run([sys.executable, CHECKER, r["source"]], check=True, capture_output=True,
                                        text=True).stdout)
        # gloo on CPU: the CPU timeline (training-thread operators, gloo collectives), real numbers.
        expect(r["parser"] == ref["parser"] == "cpu_timeline", f"parser {r['parser']} vs {ref['parser']}")
        for key in ("total_time_us", "compute_time_us", "comm_time_us", "total_comm_time_us", "busy_time_us",
                    "idle_time_us", "compute_ratio", "comm_ratio", "overlap_ratio"):
            expect(abs(r[key] - ref[key]) <= 1e-9 * max(1, abs(ref[key])), f"rank {r['rank']} {key}: {r[key]} vs {ref[key]}")
        expect(r["compute_ratio"] > 0 and r["total_comm_time_us"] > 0, f"rank {r['rank']}: no compute or comm: {r}")
        # Null on this machine's torch 1.13 (its traces carry no [memory] events), a number with Kineto's.
        expect(r["peak_memory_gb"] == ref["peak_memory_gb"], f"rank {r['rank']} peak_memory_gb: {r['peak_memory_gb']} vs {ref['peak_memory_gb']}")
        # The checker's figures also in the closing console summary's rank table.
        # Ratios in %, as every human output shows them.
        pct = lambda v, width: f"{v * 100:.2f}%".rjust(width)  # noqa: E731
        row = f"\n{r['rank']:<6} {'cpu_timeline':<22} {ref['total_time_us'] / 1000:>17.3f} {pct(ref['compute_ratio'], 8)} " \
              f"{pct(ref['comm_ratio'], 10)} {pct(ref['comm_ratio'], 13)} {pct(ref['overlap_ratio'], 8)}\n"
        expect(row in p.stdout, f"the console summary's row for rank {r['rank']}: {row!r}", p)
    mean = sum(r["total_time_us"] for r in ranks) / len(ranks)
    expect(abs(report["performance"]["avg_iteration_time_ms"] - mean / 1000) < 1e-9, "avg_iteration_time_ms")
    summary = p.stdout[p.stdout.rindex("== aorta_single PASSED: "):]
    steps = report["performance"]["step_count"]
    window = "the whole profiled window" if steps is None else f"the profiled window of {steps} step{'' if steps == 1 else 's'}"
    expect(f"run: avg iteration time ({window}) {mean / 1000:.3f} ms" in summary, "the summary's run line", p)
    expect("SUBPASS [threshold] (metric=max_avg_iteration_ms): passed (actual " in summary, "its sub-test lines", p)
    # Logs and traces came home; no phase process is left running.
    run_dir = os.path.dirname(ranks[0]["source"].split("/traces/")[0] + "/")
    expect(os.path.exists(os.path.join(run_dir, "benchmark-node-0.log")), "benchmark log not collected")
    for name in ("aorta_single.xml", "aorta_single.log"):
        expect(os.path.exists(os.path.join(run_dir, name)), f"{name} not written to the run folder")
    rows, links, missing = html_report.read(os.path.join(run_dir, "aorta_single.html"))
    # One row per stage (the guide's page); each sub-test in its stage's panel, linking its own Full Log.
    expect(not any("/" in r["cells"]["col-name"] for r in rows), str([r["cells"]["col-name"] for r in rows]))
    sub_links = [(r["cells"]["col-name"].split("::")[1], label, link) for r in rows for label, link in r["subtest_links"]]
    expect([(stage, label) for stage, label, _ in sub_links] ==
           [("test_collect_traces", "[trace collection] (host=localhost)"),
            ("test_validate_thresholds", "[threshold] (metric=max_avg_iteration_ms)"),
            ("test_validate_thresholds", "[threshold] (metric=max_time_variance_ratio)")], str(sub_links))
    for (stage, _, link), name in zip(sub_links, ["localhost", "max_avg_iteration_ms", "max_time_variance_ratio"]):
        page = os.path.join(run_dir, link)
        expect(os.path.basename(link).startswith(f"{stage}_{name}_") and os.path.exists(page), link)
        expect(f"aorta_single::{stage}/{name}</h1>" in open(page).read(), f"{link} is the sub-test's own page")
    expect([r["cells"]["col-name"] for r in rows] == ["aorta_single::" + k for k in expected], str(rows))
    expect([r["class"] for r in rows] == list(expected.values()), str([r["class"] for r in rows]))
    expect(all(r["cells"]["col-links"] == "Full Log" for r in rows), "Full Log link on every row")
    expect(not missing, f"links to missing files: {missing}")
    expect("Skipped: skip_rccl_build=true" in rows[2]["extra"], rows[2]["extra"])
    threshold_row = rows[7]
    expect([(t["result"], t["label"]) for t in threshold_row["subtests"]] ==
           [("Passed", "[threshold] (metric=max_avg_iteration_ms)"),
            ("Passed", "[threshold] (metric=max_time_variance_ratio)")], str(threshold_row["subtests"]))
    html_dir = os.path.join(run_dir, "aorta_single_html")
    expect(sorted(f for f in os.listdir(html_dir) if f.startswith("config_")) ==
           ["config_local_cpu_single.json", "config_local_cpu_threshold.json"], str(os.listdir(html_dir)))
    import glob, zipfile
    bundles = glob.glob(os.path.join(run_dir, "aorta_single_*.zip"))
    expect(len(bundles) == 1, f"bundles {bundles}")
    names = zipfile.ZipFile(bundles[0]).namelist()
    expect(zipfile.ZipFile(bundles[0]).testzip() is None and names[0] == "aorta_single.html", str(names))
    # Every file under aorta_single_html/, the sub-tests' Full Log pages too, and what the
    # pages link beside the report (issue 31, 9: no dead link inside the zip).
    on_disk = [os.path.relpath(os.path.join(d, f), run_dir) for d, _, fs in os.walk(html_dir) for f in fs]
    beside = ["aorta_benchmark_report.json", "aorta_metrics.csv", "aorta_single.log", "aorta_single.xml", "metrics.txt"]
    expect(sorted(names[1:]) == sorted(on_disk + beside), f"{names} vs {on_disk}")
    expect(any(n.startswith("aorta_single_html/test_collect_traces_localhost_") for n in names), str(names))
    expect(not any("trace" in n and n.endswith(".json") for n in names), "the bundle must not hold traces")
    expect("aorta_single_html/aorta_run_deck.html" in links, "the report links the Run Deck")
    expect("Aorta Run Deck" in open(os.path.join(run_dir, "aorta_single.html")).read(), "Run Deck link text")
    expect({"aorta_single_html/aorta_run_deck.html", "aorta_single_html/aorta_run_deck.json"} <= set(names),
           "the bundle holds the Run Deck")
    deck = json.load(open(os.path.join(html_dir, "aorta_run_deck.json")))
    expect(deck["overall_status"] == "pass", deck["overall_status"])
    cell = deck["cells"][0]["metrics"]
    expect(cell["training.avg_iteration_time_ms"] == report["performance"]["avg_iteration_time_ms"], str(cell))
    # CVS's cell: one-element lists under the model id (reference §4.6.2, §5.4's run-deck revision).
    cvs_cell = deck["deck_results"][deck["cells"][0]["id"]]
    expect(cvs_cell["avg_iteration_time_ms"] == [report["performance"]["avg_iteration_time_ms"]], str(cvs_cell)[:400])
    expect(cvs_cell["ranks"] == [len(ranks)], str(cvs_cell["ranks"]))
    series = {(s["group"], s["name"]): s["points"] for s in deck["metric_charts"]["series"]}
    expect(series[("Time", "iteration")] == [[r["rank"], r["total_time_us"] * 0.001] for r in ranks],
           str(series[("Time", "iteration")]))
    expect(series[("Share of iteration", "comm")] == [[r["rank"], r["comm_ratio"] * 100] for r in ranks],
           str(series[("Share of iteration", "comm")]))
    log = open(os.path.join(run_dir, "aorta_single.log")).read()
    expect("== test_build_rccl skipped" in log and "skipped: skip_rccl_build=true" in log, log[:2000])
    left = subprocess.run(["pgrep", "-f", "aorta_suite-.*/train.py"], capture_output=True, text=True).stdout
    expect(left.strip() == "", f"training processes left running: {left}")
    print("ok: aorta_single end to end,", len(ranks), "ranks, avg iteration",
          round(report["performance"]["avg_iteration_time_ms"], 3), "ms")

# Audit O9b: node 0's training output is in <suite>.log while the benchmark runs. The
# training itself checks: it prints a line and waits (30 s at most) for that line to
# reach the log, keeping a copy of the log as it found it; it fails if it never does.
WATCH = """#!/usr/bin/env bash
echo "node 0 says: on its way to the live log"
for i in $(seq 300); do
  for log in "$OUT"/*/aorta_single.log; do
    if grep -q "node 0 says: on its way" "$log" 2>/dev/null; then cp "$log" "$SEEN"; exit 0; fi
  done
  sleep 0.1
done
exit 3
"""
with tempfile.TemporaryDirectory() as work:
    repo = os.path.join(work, "fs", "aorta")
    shutil.copytree(WORKLOAD, repo)
    seen = os.path.join(work, "seen.log")
    with open(os.path.join(repo, "scripts", "watch_live_log.sh"), "w") as f:
        f.write(WATCH.replace('"$OUT"', shlex.quote(os.path.join(work, "out"))).replace('"$SEEN"', shlex.quote(seen)))

    def watching(v):
        v["aorta_auto_clone"] = False
        v["experiment_script"] = "scripts/watch_live_log.sh"
    cfg = suite_run.copy_default(binary, work, watching)
    p, stages, _ = run(binary, work, "--config_file", cfg, "--gtest_filter=*single*", timeout=300)
    expect(stages.get("test_run_benchmark", ("missing",))[0] == "passed",
           f"the training never saw its line in aorta_single.log: {stages.get('test_run_benchmark')}", p)
    live = open(seen).read()
    run_id = os.listdir(os.path.join(work, "out"))[0]
    expect(live.startswith(f"aorta_single run {run_id}: the training output of node 0 while it runs;"), live[:500])
    expect("\nnode 0 says: on its way to the live log\n" in live, live[:2000])
    print("ok: node 0's training output reaches aorta_single.log while the benchmark runs")
