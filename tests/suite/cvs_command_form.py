#!/usr/bin/env python3
"""CVS's command form on the real binary with the built-in local default:
`run SUITE`, --html, --log-file, --no-html, --no-log-file, --junitxml and
--workspace / CVS_WORKSPACE put the files where they say; a run that cannot start
(a config or node-count error) exits 2, runs nothing, and still writes the reports
asked for, naming every problem.
Usage: cvs_command_form.py AORTA_SUITE
"""
import glob
import json
import os
import subprocess
import sys
import tempfile
import zipfile

from suite_run import expect, junit_cases

binary = os.path.abspath(sys.argv[1])
TEARDOWN = "--gtest_filter=aorta_single.test_teardown"  # one quick stage


def suite(work, *args, env=None):
    e = dict(os.environ)
    e.pop("CVS_WORKSPACE", None)
    e.update(env or {})
    return subprocess.run([binary, *args], capture_output=True, text=True, cwd=work, env=e, timeout=600)


def copy_default(work):
    for name in ("local_cpu_single.json", "local_cpu_threshold.json"):
        subprocess.run([binary, "config", "copy", name, "--output", os.path.join(work, name)], check=True,
                       stdout=subprocess.DEVNULL)
    return os.path.join(work, "local_cpu_single.json")


def files_under(root):
    return sorted(os.path.relpath(os.path.join(d, f), root) for d, _, fs in os.walk(root) for f in fs)


# 1. The CVS form: the suite as a word, every report where its flag says.
with tempfile.TemporaryDirectory() as work:
    config = copy_default(work)
    html = os.path.join(work, "html", "report.html")
    log = os.path.join(work, "logs", "run.log")
    junit = os.path.join(work, "ci", "junit.xml")
    p = suite(work, "run", "aorta_single", "--config_file", config, "--output_dir", "out", "--workspace", "ws",
              "--html", "html/report.html", "--log-file", "logs/run.log", "--junitxml", "ci/junit.xml", TEARDOWN)
    expect(p.returncode == 0, f"exit {p.returncode}\n{p.stdout[-2000:]}\n{p.stderr[-2000:]}")
    runs = os.listdir(os.path.join(work, "ws", "cvs_runs"))
    expect(len(runs) == 1, f"one run folder in the workspace: {runs}")
    run_id = runs[0]
    expect(f"run {run_id}" in p.stdout, f"the run id printed is the folder's: {run_id}\n{p.stdout[-1000:]}")
    expect(os.path.isdir(os.path.join(work, "out", run_id)), "the run's own folder keeps output_dir/<run-id>")
    in_ws = files_under(os.path.join(work, "ws", "cvs_runs", run_id))
    expect(in_ws == ["aorta_metrics.csv", "aorta_single.xml", "metrics.txt"],
           f"--html and --log-file move those two out of the workspace: {in_ws}")
    for path in (junit, os.path.join(work, "ws", "cvs_runs", run_id, "aorta_single.xml")):
        cases = junit_cases(path)
        expect(cases.get("test_teardown", ("",))[0] == "passed", f"{path}: {cases}")
    expect("test_teardown" in open(log).read(), "the log names the stage")
    html_dir = os.path.join(work, "html")
    names = os.listdir(html_dir)
    expect("report.html" in names and "aorta_single_html" in names, f"the HTML's folder beside it: {names}")
    pages = glob.glob(os.path.join(html_dir, "aorta_single_html", "test_teardown_*.html"))
    expect(len(pages) == 1, f"the stage's Full Log page beside the report: {pages}")
    page_link = os.path.relpath(pages[0], html_dir)
    expect(f'href="{page_link}"' in open(html).read(), f"the report links its Full Log page {page_link}")
    zips = glob.glob(os.path.join(html_dir, "aorta_single_*.zip"))
    expect(len(zips) == 1, f"the zip beside the report: {names}")
    entries = zipfile.ZipFile(zips[0]).namelist()
    expect("report.html" in entries and f"aorta_single_html/{os.path.basename(pages[0])}" in entries,
           f"the zip holds the report at its root and its folder: {entries}")
    deck_dir = os.path.join(html_dir, "aorta_single_html")
    deck = json.load(open(os.path.join(deck_dir, "aorta_run_deck.json")))
    prov = deck["provenance"]
    expect(os.path.samefile(os.path.join(deck_dir, prov["pytest_html_path"]), html), f"the deck's report link: {prov}")
    expect(os.path.samefile(os.path.join(deck_dir, prov["log_file_path"]), log), f"the deck's log link: {prov}")

# 2. CVS_WORKSPACE, --no-html and --no-log-file: the JUnit file alone in the workspace.
with tempfile.TemporaryDirectory() as work:
    config = copy_default(work)
    ws = os.path.join(work, "shared ws")
    p = suite(work, "run", "--config_file", config, "--output_dir", "out", "--no-html", "--no-log-file", TEARDOWN,
              env={"CVS_WORKSPACE": ws})
    expect(p.returncode == 0, f"exit {p.returncode}\n{p.stderr[-2000:]}")
    runs = os.listdir(os.path.join(ws, "cvs_runs"))
    expect(len(runs) == 1, f"CVS_WORKSPACE holds the run: {runs}")
    left = files_under(os.path.join(ws, "cvs_runs", runs[0]))
    expect(set(left) == {"aorta_single_html/aorta_run_deck.html", "aorta_single_html/aorta_run_deck.json",
                         "aorta_single_html/aorta_run_deck.css", "aorta_single.xml", "metrics.txt",
                         "aorta_metrics.csv"}, f"no HTML, zip or log: {left}")
    # --workspace wins over the variable.
    p = suite(work, "--config_file", config, "--output_dir", "out", "--workspace", "flag ws", TEARDOWN,
              env={"CVS_WORKSPACE": ws})
    expect(p.returncode == 0, f"exit {p.returncode}\n{p.stderr[-2000:]}")
    expect(len(os.listdir(os.path.join(ws, "cvs_runs"))) == 1, "the variable's workspace untouched")
    run = glob.glob(os.path.join(work, "flag ws", "cvs_runs", "*"))
    expect(len(run) == 1, f"--workspace holds the run: {run}")
    expect(all(os.path.exists(os.path.join(run[0], n)) for n in ("aorta_single.html", "aorta_single.log")),
           f"by default every report in the workspace's run folder: {files_under(run[0])}")

# 3. A run that cannot start: exit 2, nothing run, the reports asked for name every problem.
with tempfile.TemporaryDirectory() as work:
    config = copy_default(work)
    p = suite(work, "run", "aorta_distributed", "--config_file", config, "--output_dir", "out",
              "--junitxml", "junit.xml", "--html", "r/report.html", "--log-file", "run.log")
    expect(p.returncode == 2, f"the distributed suite on one node exits 2: {p.returncode}\n{p.stderr[-2000:]}")
    expect(not os.path.exists(os.path.join(work, "out")), "nothing run, no run folder")
    cases = junit_cases(os.path.join(work, "junit.xml"))
    expect(list(cases) == ["test_configuration"], f"one testcase: {cases}")
    outcome, text, classname = cases["test_configuration"]
    expect(outcome == "failed" and classname == "aorta_distributed", f"{cases}")
    expect("aorta_distributed" in text and "node" in text and text in p.stderr, f"the node-count problem: {text!r}")
    report = open(os.path.join(work, "r", "report.html")).read()
    expect("test_configuration" in report, "the HTML report shows the failed configuration")
    expect("test_configuration" in open(os.path.join(work, "run.log")).read(), "so does the log")

with tempfile.TemporaryDirectory() as work:
    config = copy_default(work)
    doc = json.load(open(config))
    doc["unknown_key_one"] = 1
    doc["unknown_key_two"] = 2
    json.dump(doc, open(config, "w"))
    p = suite(work, "--config_file", config, "--output_dir", "out", "--workspace", "ws",
              "--gtest_output=xml:gtest/")
    expect(p.returncode == 2, f"a bad config exits 2: {p.returncode}\n{p.stderr[-2000:]}")
    expect(not os.path.exists(os.path.join(work, "out")), "nothing run, no run folder")
    for path in glob.glob(os.path.join(work, "ws", "cvs_runs", "*", "aorta_suite.xml")) + \
            [os.path.join(work, "gtest", "aorta_suite.xml")]:
        outcome, text, _ = junit_cases(path)["test_configuration"]
        expect(outcome == "failed" and "unknown_key_one" in text and "unknown_key_two" in text,
               f"{path}: every problem named: {text!r}")
    left = files_under(glob.glob(os.path.join(work, "ws", "cvs_runs", "*"))[0])
    expect({"aorta_suite.xml", "aorta_suite.html", "aorta_suite.log"} <= set(left), f"the workspace's reports: {left}")

    # Nothing asked for: nothing written, as before.
    p = suite(work, "--config_file", config, "--output_dir", "out2")
    expect(p.returncode == 2 and sorted(os.listdir(work)) == ["gtest", "local_cpu_single.json",
                                                              "local_cpu_threshold.json", "ws"],
           f"no file without a request: {os.listdir(work)}")

# 4. Words and flags that cannot be meant: exit 2 naming them, nothing written.
for args, words in [
    (["run", "aorta_triple"], "a suite is aorta_single or aorta_distributed"),
    (["run", "aorta_single", "aorta_single"], "unknown argument: aorta_single"),
    (["--html", "r.html", "--no-html"], "--html and --no-html contradict each other"),
    (["--log-file", "r.log", "--no-log-file"], "--log-file and --no-log-file contradict each other"),
    (["--junitxml", ""], "--junitxml needs a path"),
    (["--workspace", ""], "--workspace needs a path"),
]:
    with tempfile.TemporaryDirectory() as work:
        p = suite(work, *args)
        expect(p.returncode == 2 and words in p.stderr, f"{args}: exit {p.returncode}, {p.stderr[-600:]!r}")
        expect(os.listdir(work) == [], f"{args}: nothing written: {os.listdir(work)}")

print("cvs_command_form: ok")
