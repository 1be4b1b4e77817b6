#!/usr/bin/env python3
"""The pytest arguments CVS users give `cvs run` (issue 43, 5), on the real binary and
the built-in local default: `run aorta_single -v -s --capture=tee-sys` runs the whole
suite, saying in one line what each argument did; -k runs the stages and sub-tests it
matches and refuses a selection without the stages they need, as --gtest_filter is
refused; -q is gtest's brief output; any other pytest argument is refused by name.
Usage: pytest_args.py AORTA_SUITE
"""
import os
import subprocess
import sys
import tempfile

from suite_run import copy_default, expect, junit_cases

binary = os.path.abspath(sys.argv[1])


def suite(work, *args):
    env = dict(os.environ)
    for name in ("CVS_WORKSPACE", "GTEST_FILTER", "GTEST_BRIEF", "GTEST_FAIL_FAST"):
        env.pop(name, None)
    return subprocess.run([binary, *args], capture_output=True, text=True, cwd=work, env=env, timeout=600)


def junit_outcomes(path):
    return {name: case[0] for name, case in junit_cases(path).items()}


def said(p):
    return f"exit {p.returncode}\n--- stdout\n{p.stdout[-3000:]}\n--- stderr\n{p.stderr[-2000:]}"


with tempfile.TemporaryDirectory() as work:
    config = copy_default(binary, work)

    # 1. The Done-when: CVS's usual pytest arguments, the whole suite, end to end.
    p = suite(work, "run", "aorta_single", "-v", "-s", "--capture=tee-sys", "--config_file", config,
              "--output_dir", "out", "--junitxml", "full.xml")
    expect(p.returncode == 0, said(p))
    lines = [line for line in p.stdout.splitlines() if line.startswith("aorta_suite: pytest arguments")]
    expect(len(lines) == 1, f"one line says what the arguments did: {lines}\n{said(p)}")
    for part in ("-v: each test and its outcome are printed", "; -s, --capture=tee-sys: nothing is captured"):
        expect(part in lines[0], f"{part!r} in {lines[0]!r}")
    outcomes = junit_outcomes(os.path.join(work, "full.xml"))
    expect(outcomes.get("test_run_benchmark") == "passed" and outcomes.get("test_teardown") == "passed"
           and "failed" not in outcomes.values(), f"the whole suite ran and passed: {outcomes}")
    expect("[ RUN      ] aorta_single.test_run_benchmark" in p.stdout, "each test printed, as always")

    # 2. -k: the stages and sub-tests it matches, nothing else; -q is gtest's brief output.
    p = suite(work, "run", "aorta_single", "-q", "-k", "LAUNCH or teardown", "--config_file", config,
              "--output_dir", "out", "--junitxml", "k.xml")
    expect(p.returncode == 0, said(p))
    expect(junit_outcomes(os.path.join(work, "k.xml")) == {"test_launch_container": "passed",
                                                          "test_teardown": "passed"},
           f"-k selects by pytest's case-insensitive substring: {junit_outcomes(os.path.join(work, 'k.xml'))}")
    expect("[ RUN      ]" not in p.stdout and "-q: --gtest_brief=1" in p.stdout, f"-q is brief: {said(p)}")

    # 3. A -k selection without the stages its tests need is refused as --gtest_filter's is.
    runs_before = sorted(os.listdir(os.path.join(work, "out")))
    p = suite(work, "run", "aorta_single", "-vs", "-k", "benchmark", "--config_file", config, "--output_dir", "out")
    expect(p.returncode == 2, said(p))
    expect("-k 'benchmark' selects aorta_single.test_run_benchmark without test_launch_container, test_clone_aorta, "
           "test_build_rccl, which it needs" in p.stderr, said(p))
    expect("add them (-k '(benchmark) or test_launch_container or test_clone_aorta or test_build_rccl')" in p.stderr,
           said(p))
    expect(sorted(os.listdir(os.path.join(work, "out"))) == runs_before, "nothing was run")
    # ... and the widened expression it suggests runs.
    p = suite(work, "run", "aorta_single", "-k", "clone", "--config_file", config, "--output_dir", "out")
    advice = "add them (-k '(clone) or test_launch_container')"
    expect(p.returncode == 2 and advice in p.stderr, said(p))
    p = suite(work, "run", "aorta_single", "-k", "(clone) or test_launch_container", "--config_file", config,
              "--output_dir", "out", "--junitxml", "w.xml")
    expect(p.returncode == 0, said(p))
    expect(junit_outcomes(os.path.join(work, "w.xml")) == {"test_launch_container": "passed",
                                                          "test_clone_aorta": "passed"},
           f"{junit_outcomes(os.path.join(work, 'w.xml'))}")

    # 4. Listing honours -k: both suites' stages without a config.
    p = suite(work, "--gtest_list_tests", "-k", "teardown")
    expect(p.returncode == 0 and p.stdout.split() == ["aorta_single.", "test_teardown", "aorta_distributed.",
                                                      "test_teardown"], said(p))

# 5. Anything else is refused naming the argument; a bad value names what it takes.
for args, words in [(["-m", "slow"], "unknown argument: -m"),
                    (["--tb=short"], "unknown argument: --tb=short"),
                    (["--capture=tee-merged"], "--capture=tee-merged: pytest's capture methods are fd, sys, no and "
                                               "tee-sys"),
                    (["--maxfail=x"], "--maxfail=x: needs a whole number >= 0"),
                    (["-k", "a and"], "Wrong expression passed to '-k': a and: at column 6"),
                    (["-k", "x", "--gtest_filter=*"], "-k and --gtest_filter both select tests")]:
    with tempfile.TemporaryDirectory() as work:
        p = suite(work, "run", "aorta_single", *args)
        expect(p.returncode == 2 and words in p.stderr, f"{args}: {said(p)}")
        expect(os.listdir(work) == [], f"{args}: nothing written: {os.listdir(work)}")

print("pytest_args: ok")
