"""Helpers for the end-to-end tests: run aorta_suite, read gtest's XML."""
import glob
import json
import os
import subprocess
import xml.etree.ElementTree as ET

import json_schema

REPORT_SCHEMA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "report",
                             "benchmark_report.schema.json")
XSD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "report", "junit.xsd")


def command(binary, workdir, *args):
    return [binary, "--output_dir", os.path.join(workdir, "out"),
            f"--gtest_output=xml:{os.path.join(workdir, 'gtest.xml')}", *args]


def run(binary, workdir, *args, timeout=900):
    p = subprocess.run(command(binary, workdir, *args), cwd=workdir, capture_output=True, text=True, timeout=timeout)
    stages, report = results(workdir)
    return p, stages, report


def results(workdir):
    """The stages of the JUnit file (validated; its sub-tests in run.last_subtests) and
    the JSON report (schema-checked)."""
    xml = os.path.join(workdir, "gtest.xml")
    stages = {}
    subtests = {}
    if os.path.exists(xml):
        # The JUnit file is aorta_suite's own (it replaces gtest's): it must load in
        # Jenkins and GitLab, so it must validate against the JUnit schema.
        lint = subprocess.run(["xmllint", "--noout", "--schema", XSD, xml], capture_output=True, text=True)
        expect(lint.returncode == 0, "JUnit XML does not validate: " + lint.stderr)
        root = ET.parse(xml).getroot()
        suite_name = root.find("testsuite").get("name") if root.find("testsuite") is not None else ""
        for case in root.iter("testcase"):
            skipped = case.find("skipped")
            failure = case.find("failure")
            outcome = "failed" if failure is not None else "skipped" if skipped is not None else "passed"
            text = (skipped.get("message") if skipped is not None else
                    failure.get("message") if failure is not None else "")
            # A failed stage's message is CVS's one line, its failures as Python's list repr
            # (quotes escaped); the failures as written are the <failure>'s text: both are read.
            if failure is not None and (failure.text or "") not in ("", text):
                text = (text or "") + "\n" + failure.text
            props = [p.get("value") for p in case.iter("property") if p.get("name") == "cvs_aorta_subtest"]
            entry = (outcome, text or "", props, len(case.findall("failure")))
            # A sub-test is testcase <suffix> of class <suite>.<stage>: it goes to
            # run.last_subtests under its gtest name, <stage>/<suffix>; stages holds stages.
            classname = case.get("classname") or ""
            if classname.startswith(suite_name + "."):
                subtests[classname[len(suite_name) + 1:] + "/" + case.get("name")] = entry
            else:
                stages[case.get("name")] = entry
    reports = glob.glob(os.path.join(workdir, "out", "*", "aorta_benchmark_report.json"))
    report = json.load(open(reports[0])) if reports else None
    if report is not None:
        problems = json_schema.errors(report, json.load(open(REPORT_SCHEMA)))
        expect(not problems, "aorta_benchmark_report.json breaks its schema: " + "; ".join(problems))
    run.last_xml = xml
    run.last_subtests = subtests
    return stages, report


def listing(binary, *suite):
    """`aorta_suite list`: the one table of suites, so no test restates it."""
    return subprocess.run([binary, "list", *suite], capture_output=True, text=True, check=True).stdout.splitlines()


def suite_names(binary):
    return [line for line in listing(binary) if not line.startswith(" ")]


def stage_names(binary, suite="aorta_single"):
    """The suite's stages in run order."""
    return [line.split(". ", 1)[1] for line in listing(binary, suite) if line.startswith("  ")]


def passing_stages(binary, suite="aorta_single"):
    """Every stage's outcome in a good run of the test configurations: each passes but
    the RCCL build and the TraceLens analysis, which they switch off."""
    return {name: "skipped" if name in ("test_build_rccl", "test_analyze") else "passed"
            for name in stage_names(binary, suite)}


def expect(condition, message, p=None):
    if not condition:
        detail = f"\n--- stdout ---\n{p.stdout[-4000:]}\n--- stderr ---\n{p.stderr[-4000:]}" if p else ""
        raise SystemExit("FAIL: " + message + detail)


def copy_default(binary, work, edit_variant=None, edit_thresholds=None):
    """The shipped default's config and threshold file in work, its aorta_path in a
    folder of its own (work/fs: another run on this machine holds its own lock), each
    file edited as given (a function of its JSON). Returns the config's path."""
    for name in ("local_cpu_single.json", "local_cpu_threshold.json"):
        subprocess.run([binary, "config", "copy", name, "--output", os.path.join(work, name)], check=True,
                       stdout=subprocess.DEVNULL)

    def own_folder(v):
        v["paths"]["shared_fs"] = os.path.join(work, "fs")
        if edit_variant:
            edit_variant(v)
    for name, edit in (("local_cpu_single.json", own_folder), ("local_cpu_threshold.json", edit_thresholds)):
        if edit:
            path = os.path.join(work, name)
            doc = json.load(open(path))
            edit(doc)
            json.dump(doc, open(path, "w"))
    return os.path.join(work, "local_cpu_single.json")


def junit_cases(path):
    """{name: (outcome, failure text, classname)} of a JUnit file that validates against the schema."""
    lint = subprocess.run(["xmllint", "--noout", "--schema", XSD, path], capture_output=True, text=True)
    expect(lint.returncode == 0, f"{path} does not validate: {lint.stderr}")
    cases = {}
    for case in ET.parse(path).getroot().iter("testcase"):
        failure = case.find("failure")
        outcome = "failed" if failure is not None else "skipped" if case.find("skipped") is not None else "passed"
        cases[case.get("name")] = (outcome, (failure.text or "") if failure is not None else "", case.get("classname"))
    return cases
