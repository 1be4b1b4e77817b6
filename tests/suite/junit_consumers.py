#!/usr/bin/env python3
"""The JUnit XML as real consumers read it. Runs the built-in local default twice,
once passing and once with max_avg_iteration_ms set to fail, each as a CI matrix job
would (its own AORTA_JUNIT_PREFIX; the failing one in the strict xunit2 family), and
checks that python3-junitparser, test-results-parser, junit-to-ctrf and xunit-viewer
each count the same total, passed, failed and skipped tests, and name the same
failed tests, as gtest's own console summary of that run; then the same for a merge
of both files (GitLab merges a pipeline's reports), where every count must add up;
then the failing run once more in CVS's shape (the config's junit_shape: cvs), read by
the same consumers as CVS's own file would be.
Consumers missing is a failure, not a skip: bash ci/setup.sh installs them.
Usage: junit_consumers.py AORTA_SUITE
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
from suite_run import copy_default, expect  # noqa: E402

binary = os.path.abspath(sys.argv[1])
MODULES = os.environ.get("AORTA_JUNIT_CONSUMERS", os.path.join(REPO, "build", "npm-consumers", "node_modules"))
SETUP = "install them with: bash ci/setup.sh"

# --- the consumers are there, at the pinned versions -------------------------------
try:
    import junitparser
except ImportError:
    # Debian's python3-junitparser, when the interpreter is not Debian's own python3.
    sys.path.append("/usr/lib/python3/dist-packages")
    try:
        import junitparser
    except ImportError:
        raise SystemExit("FAIL: python3-junitparser is not installed; " + SETUP)
node = shutil.which("node")
expect(node is not None, "node is not installed; " + SETUP)
pinned = json.load(open(os.path.join(REPO, "tests", "junit", "package.json")))["dependencies"]
for name, version in pinned.items():
    manifest = os.path.join(MODULES, name, "package.json")
    expect(os.path.exists(manifest), f"the JUnit consumer {name} is not installed in {MODULES}; " + SETUP)
    got = json.load(open(manifest))["version"]
    expect(got == version, f"{name} {got} is installed, tests/junit/package.json pins {version}; " + SETUP)


def run_suite(work, tag, prefix, family, config=None):
    env = dict(os.environ, AORTA_JUNIT_PREFIX=prefix, AORTA_JUNIT_FAMILY=family)
    xml = os.path.join(work, f"{tag}.xml")
    args = [binary, "--output_dir", os.path.join(work, tag), f"--gtest_output=xml:{xml}", "--gtest_filter=*single*"]
    if config:
        args += ["--config_file", config]
    p = subprocess.run(args, cwd=work, env=env, capture_output=True, text=True, timeout=900)
    return p, xml


def gtest_summary(p):
    """gtest's console verdict: counts and the names it lists as failed, in the
    consumers' form classname.name (a sub-test's "stage/suffix" is class stage)."""
    out = p.stdout
    m = re.search(r"^\[==========\] (\d+) tests? from \d+ test suites? ran", out, re.M)
    expect(m is not None, "no gtest summary in the output", p)
    total = int(m.group(1))
    passed = re.search(r"^\[  PASSED  \] (\d+) tests?\.", out, re.M)
    skipped = re.search(r"^\[  SKIPPED \] (\d+) tests?, listed below:", out, re.M)
    failed = re.search(r"^\[  FAILED  \] (\d+) tests?, listed below:", out, re.M)
    names = re.findall(r"^\[  FAILED  \] (\S+\.\S+)$", out, re.M)
    return {"total": total, "passed": int(passed.group(1)) if passed else 0,
            "skipped": int(skipped.group(1)) if skipped else 0, "failed": int(failed.group(1)) if failed else 0,
            "gtest_names": names}


def with_prefix(summary, prefix):
    """gtest's "aorta_single.test_x/sub" is testcase "sub" of class "<prefix>.aorta_single.test_x"."""
    s = dict(summary)
    s["failed_names"] = sorted(f"{prefix}.{n.replace('/', '.', 1)}" for n in summary["gtest_names"])
    s["failed_short"] = sorted(n.split("/", 1)[1] if "/" in n else n.split(".", 1)[1] for n in summary["gtest_names"])
    return s


def add(a, b):
    return {k: (sorted(a[k] + b[k]) if isinstance(a[k], list) else a[k] + b[k]) for k in a}


def junitparser_counts(files):
    xml = junitparser.JUnitXml()
    for f in files:
        xml += junitparser.JUnitXml.fromfile(f)  # its merge, as GitLab adds reports
    counts = {"total": 0, "passed": 0, "failed": 0, "skipped": 0, "failed_names": [], "names": "full"}
    header = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for suite in xml:
        for key in header:
            header[key] += int(getattr(suite, key) or 0)
        for case in suite:
            counts["total"] += 1
            kinds = {type(r).__name__ for r in case.result}
            if kinds & {"Failure", "Error"}:
                counts["failed"] += 1
                counts["failed_names"].append(f"{case.classname}.{case.name}")
            elif "Skipped" in kinds:
                counts["skipped"] += 1
            else:
                counts["passed"] += 1
    # The <testsuite> header counts are what dashboards show before opening a file.
    expect(header == {"tests": counts["total"], "failures": counts["failed"], "errors": 0, "skipped": counts["skipped"]},
           f"junitparser: testsuite headers {header} disagree with the testcases {counts}")
    return counts


def junitparser_cvs_view(xml):
    """junitparser's reading of a CVS-shape file: header counts, and per testcase its
    name, results and cvs_aorta_subtest values."""
    suite = next(iter(junitparser.JUnitXml.fromfile(xml)))
    header = {"total": int(suite.tests), "failed": int(suite.failures), "skipped": int(suite.skipped)}
    cases = [(case.classname, case.name, [type(r).__name__ for r in case.result],
              [prop.get("value") for prop in case._elem.iter("property") if prop.get("name") == "cvs_aorta_subtest"])
             for case in suite]
    return header, cases


def check_cvs_shape(xml, p, prefix):
    """CVS's shape (issue 32, 1): a testcase per stage holding its sub-tests as
    cvs_aorta_subtest properties, each failed one with its own <failure>; the header
    counts every test as gtest's summary does. Consumers that read testcases see the
    stages; test-results-parser, which reads the header, sees gtest's counts."""
    g = gtest_summary(p)
    subs = re.findall(r"^SUB(PASS|FAIL) (.+)$", p.stdout, re.M)  # the console's sub-test lines, in order
    expect(subs and all(s[1].split(": ", 1)[1].startswith(("passed", "failed")) for s in subs), f"sub-tests {subs}", p)
    failed_stages = sorted(n.split(".", 1)[1] for n in g["gtest_names"] if "/" not in n)
    stages = {"total": g["total"] - len(subs), "failed": len(failed_stages), "skipped": g["skipped"]}
    stages["passed"] = stages["total"] - stages["failed"] - stages["skipped"]
    header, cases = junitparser_cvs_view(xml)
    expect(header == {k: g[k] for k in ("total", "failed", "skipped")}, f"cvs shape: header {header}, gtest {g}")
    expect(len(cases) == stages["total"] and all(c[0] == prefix + ".aorta_single" for c in cases),
           f"cvs shape: testcases {cases}, expected {stages['total']} stages of class {prefix}.aorta_single")
    # CVS's values exactly: the console line's "<label>: passed|failed", without what follows it.
    cvs_values = [re.match(r".*?: (?:passed|failed)", s[1]).group(0) for s in subs]
    expect([v for c in cases for v in c[3]] == cvs_values,
           f"cvs shape: cvs_aorta_subtest values {[c[3] for c in cases]}, console {subs}")
    for _, name, results, values in cases:  # a failed stage: each failed sub-test's <failure>, then its own
        if name in failed_stages:
            want = ["Failure"] * (sum(": failed" in v for v in values) + 1)
            expect(results == want, f"cvs shape: {name} has {results}, expected {want}")
    out = subprocess.run([node, os.path.join(REPO, "tests", "junit", "consumers.mjs"), MODULES, work, xml],
                         capture_output=True, text=True, timeout=300)
    expect(out.returncode == 0, f"the npm consumers could not read the cvs shape: {out.stderr[-2000:]}")
    for consumer, got in json.loads(out.stdout.strip().splitlines()[-1]).items():
        want = g if consumer == "test-results-parser" else stages
        for key in ("total", "passed", "failed", "skipped"):
            expect(got[key] == want[key], f"cvs shape: {consumer} counts {key}={got[key]}, expected {want[key]} ({got})")
        names = sorted(n.rsplit(".", 1)[-1] for n in got["failed_names"])
        expect(names == failed_stages, f"cvs shape: {consumer} names the failed tests {names}, expected {failed_stages}")
    print(f"ok: cvs shape: {stages['total']} stage testcases ({stages['failed']} failed), {len(subs)} sub-test "
          f"properties, header {header}; junitparser and the npm consumers agree")


def check(what, files, expected):
    """Every consumer's view of files equals expected (gtest's)."""
    seen = {"junitparser": junitparser_counts(files)}
    out = subprocess.run([node, os.path.join(REPO, "tests", "junit", "consumers.mjs"), MODULES, work, *files],
                         capture_output=True, text=True, timeout=300)
    expect(out.returncode == 0, f"the npm consumers could not read {what}: {out.stderr[-2000:]}")
    seen.update(json.loads(out.stdout.strip().splitlines()[-1]))
    for consumer, got in seen.items():
        for key in ("total", "passed", "failed", "skipped"):
            expect(got[key] == expected[key],
                   f"{what}: {consumer} counts {key}={got[key]}, gtest's summary says {expected[key]} ({got})")
        # A consumer that drops the classname is held to the testcase names.
        want = expected["failed_names"] if got["names"] == "full" else expected["failed_short"]
        expect(sorted(got["failed_names"]) == want,
               f"{what}: {consumer} names the failed tests {sorted(got['failed_names'])}, gtest {want}")
        expect(got.get("other", 0) == 0, f"{what}: {consumer} counts tests it cannot classify ({got})")
    print(f"ok: {what}: {', '.join(seen)} all count {expected['total']} tests, {expected['passed']} passed, "
          f"{expected['failed']} failed, {expected['skipped']} skipped, failed {expected['failed_names']}")


with tempfile.TemporaryDirectory() as work:
    # 1. A passing run, the default (legacy) family.
    p, passing_xml = run_suite(work, "pass", "matrix.cpu_pass", "")
    expect(p.returncode == 0, f"the passing run exited {p.returncode}", p)
    passing = with_prefix(gtest_summary(p), "matrix.cpu_pass")
    expect(passing["failed"] == 0 and passing["skipped"] > 0 and passing["total"] > 10, f"gtest said {passing}", p)
    check("passing run", [passing_xml], passing)
    lint = subprocess.run(["xmllint", "--noout", "--schema", os.path.join(REPO, "report", "junit.xsd"), passing_xml],
                          capture_output=True, text=True)
    expect(lint.returncode == 0, "the default family breaks report/junit.xsd: " + lint.stderr)

    # 2. A failing threshold, the strict xunit2 family.
    cfg = copy_default(binary, work,
                       edit_thresholds=lambda t: t["expected_results"].update(max_avg_iteration_ms=0.001))
    p, failing_xml = run_suite(work, "fail", "matrix.cpu_fail", "xunit2", cfg)
    expect(p.returncode == 1, f"the failing run exited {p.returncode}", p)
    failing = with_prefix(gtest_summary(p), "matrix.cpu_fail")
    expect("matrix.cpu_fail.aorta_single.test_validate_thresholds.max_avg_iteration_ms" in failing["failed_names"],
           f"gtest said {failing}", p)
    check("failing run (xunit2)", [failing_xml], failing)
    lint = subprocess.run(["xmllint", "--noout", "--schema", os.path.join(REPO, "report", "junit_xunit2.xsd"),
                           failing_xml], capture_output=True, text=True)
    expect(lint.returncode == 0, "the xunit2 family breaks report/junit_xunit2.xsd: " + lint.stderr)

    # 3. Both files merged, as GitLab shows a pipeline's reports: counts add up and
    #    no test of one job hides the same-named test of the other.
    check("merge of both runs", [passing_xml, failing_xml], add(passing, failing))

    # 4. The same failing run in CVS's shape, asked for by the config's junit_shape.
    variant = json.load(open(cfg))
    variant["junit_shape"] = "cvs"
    json.dump(variant, open(cfg, "w"))
    p, cvs_xml = run_suite(work, "cvs", "matrix.cpu_cvs", "", cfg)
    expect(p.returncode == 1, f"the failing run in CVS's shape exited {p.returncode}", p)
    check_cvs_shape(cvs_xml, p, "matrix.cpu_cvs")
