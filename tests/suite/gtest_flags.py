#!/usr/bin/env python3
"""The gtest flags a gtest user passes, on the real binary with the built-in local
default: refused where they would break a run (repeat, shuffle, misspelt, flagfile,
json), honoured as gtest does where they fit (NO_COLOR, bare --gtest_output=xml,
--gtest_list_tests through the config).
Usage: gtest_flags.py AORTA_SUITE
"""
import json
import os
import pty
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

import suite_run
from suite_run import expect

binary = os.path.abspath(sys.argv[1])
TEARDOWN = "--gtest_filter=aorta_single.test_teardown"  # one quick stage: enough for gtest's own output
ESC = "\x1b["


def suite(work, *args, env=None):
    return subprocess.run([binary, *args], capture_output=True, text=True, cwd=work, env=env, timeout=600)


def made(work):
    """Everything in work that the test did not put there."""
    return sorted(n for n in os.listdir(work) if not n.endswith(".json"))


def on_terminal(work, *args, env):
    """The run's standard output through a pseudo-terminal, as gtest's color=auto sees a user's."""
    main, side = pty.openpty()
    p = subprocess.Popen([binary, *args], stdout=side, stderr=side, cwd=work, env=env)
    os.close(side)
    out = b""
    while True:
        try:
            chunk = os.read(main, 65536)
        except OSError:  # EIO: the other side closed
            break
        if not chunk:
            break
        out += chunk
    os.close(main)
    return p.wait(timeout=600), out.decode(errors="replace")


def copy_default(work, edit=None):
    for name in ("local_cpu_single.json", "local_cpu_threshold.json"):
        if not os.path.exists(os.path.join(work, name)):
            subprocess.run([binary, "config", "copy", name, "--output", os.path.join(work, name)], check=True,
                           stdout=subprocess.DEVNULL)
    path = os.path.join(work, "local_cpu_single.json")
    if edit:
        doc = json.load(open(path))
        edit(doc)
        json.dump(doc, open(path, "w"))
    return path


# 1. Flags that would repeat or reorder the session, misspelt ones, a flag file and
#    JSON output: exit 2 naming the flag, before anything runs or any folder exists.
refused = [
    (["--gtest_repeat=2"], "--gtest_repeat=2 is refused: one run is one session of stages"),
    (["--gtest_repeat=0"], "--gtest_repeat=0 is refused"),
    (["--gtest_repeat=-1"], "--gtest_repeat=-1 is refused"),
    (["--gtest_shuffle"], "--gtest_shuffle is refused: the stages run in order"),
    (["--gtest_shuffle=1"], "--gtest_shuffle=1 is refused"),
    (["--gtest_shuffle=true"], "--gtest_shuffle=true is refused"),
    (["--gtest_filtr=x"], "unknown GoogleTest flag --gtest_filtr"),
    (["--gtest_list_test"], "unknown GoogleTest flag --gtest_list_test"),
    (["--gtest_flagfile=flags.txt"], "--gtest_flagfile is not supported"),
    (["--gtest_output=json"], "--gtest_output=json is not supported"),
    (["--gtest_output=json:r.json"], "--gtest_output=json:r.json is not supported"),
]
for args, words in refused:
    with tempfile.TemporaryDirectory() as work:
        open(os.path.join(work, "flags.txt"), "w").write("--gtest_repeat=5\n")
        p = suite(work, *args)
        expect(p.returncode == 2 and words in p.stderr, f"{args}: exit 2 with '{words}'", p)
        expect("[==========]" not in p.stdout, f"{args}: gtest must not have run", p)
        expect(made(work) == ["flags.txt"], f"{args}: nothing may be created, found {made(work)}", p)
with tempfile.TemporaryDirectory() as work:
    p = suite(work, "--output_dir", os.path.join(work, "out"), env={**os.environ, "GTEST_REPEAT": "2"})
    expect(p.returncode == 2 and "GTEST_REPEAT=2 is refused" in p.stderr, "GTEST_REPEAT=2", p)
    p = suite(work, "--output_dir", os.path.join(work, "out"), env={**os.environ, "GTEST_SHUFFLE": "1"})
    expect(p.returncode == 2 and "GTEST_SHUFFLE=1 is refused" in p.stderr, "GTEST_SHUFFLE=1", p)
    expect(made(work) == [], f"environment refusals created {made(work)}")
print("ok: repeat, shuffle, unknown flags, flagfile and json refused with exit 2, nothing run")

# 2. --gtest_repeat=1 runs; a bare --gtest_output=xml writes test_detail.xml in the
#    current folder, xml:DIR/ writes DIR/aorta_single.xml (gtest's naming).
with tempfile.TemporaryDirectory() as work:
    p = suite(work, "--output_dir", os.path.join(work, "out"), "--gtest_repeat=1", "--gtest_output=xml", TEARDOWN)
    expect(p.returncode == 0, "--gtest_repeat=1 with a bare --gtest_output=xml runs", p)
    junit = os.path.join(work, "test_detail.xml")
    expect(os.path.exists(junit), f"bare xml must write test_detail.xml in the current folder; found {made(work)}", p)
    names = [c.get("name") for c in ET.parse(junit).getroot().iter("testcase")]
    expect(names == ["test_teardown"], f"test_detail.xml holds the run's testcases: {names}")
    os.makedirs(os.path.join(work, "j"))
    p = suite(work, "--output_dir", os.path.join(work, "out"), f"--gtest_output=xml:{work}/j/", TEARDOWN)
    expect(p.returncode == 0 and os.listdir(os.path.join(work, "j")) == ["aorta_single.xml"], "xml:DIR/", p)
print("ok: --gtest_repeat=1 runs; bare xml writes ./test_detail.xml; xml:DIR/ writes DIR/aorta_single.xml")

# 3. NO_COLOR: on a terminal gtest colours its lines; with NO_COLOR set (any
#    non-empty value) it does not, unless --gtest_color is given.
with tempfile.TemporaryDirectory() as work:
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "GTEST_COLOR")}
    env["TERM"] = "xterm"
    base = ["--output_dir", os.path.join(work, "out"), TEARDOWN]
    rc, out = on_terminal(work, *base, env=env)
    expect(rc == 0 and ESC in out, "without NO_COLOR a terminal gets gtest's colours:\n" + out[-2000:])
    rc, out = on_terminal(work, *base, env={**env, "NO_COLOR": "1"})
    expect(rc == 0 and ESC not in out and "[==========]" in out, "NO_COLOR=1 must turn colour off:\n" + out[-2000:])
    rc, out = on_terminal(work, *base, "--gtest_color=yes", env={**env, "NO_COLOR": "1"})
    expect(rc == 0 and ESC in out, "an explicit --gtest_color=yes wins over NO_COLOR:\n" + out[-2000:])
print("ok: NO_COLOR turns gtest's colour off unless --gtest_color is given")

# 4. --gtest_list_tests: no config lists both suites; with a config it goes through
#    the run's config checks and lists what that config would run, touching nothing.
with tempfile.TemporaryDirectory() as work:
    p = suite(work, "--gtest_list_tests")
    suites = [l for l in p.stdout.splitlines() if not l.startswith(" ")]
    every_suite = suite_run.suite_names(binary)
    expect(p.returncode == 0 and sorted(suites) == sorted(s + "." for s in every_suite), "list without a config", p)
    every_stage = [name for s in every_suite for name in suite_run.stage_names(binary, s)]
    expect(len([l for l in p.stdout.splitlines() if l.startswith("  ")]) == len(every_stage), "every stage listed", p)
    cfg = copy_default(work)
    out = os.path.join(work, "out")
    p = suite(work, "--config_file", cfg, "--output_dir", out, "--gtest_list_tests")
    listed = [l.strip() for l in p.stdout.splitlines() if l.startswith("  ")]
    # The config's thresholds (two non-null) and its one collecting node are tests too.
    single_tests = len(suite_run.stage_names(binary)) + 3
    expect(p.returncode == 0 and p.stdout.startswith("aorta_single.\n") and len(listed) == single_tests
           and listed[-1] == "test_teardown" and "aorta_distributed." not in p.stdout, "list with a config", p)
    expect(listed[listed.index("test_validate_thresholds") + 1:listed.index("test_generate_report")] ==
           ["test_validate_thresholds/max_avg_iteration_ms", "test_validate_thresholds/max_time_variance_ratio"] and
           "test_collect_traces/localhost" in listed, "threshold and collection tests listed in stage order", p)
    expect(made(work) == [], f"listing must create nothing; found {made(work)}", p)
    os.rename(cfg, os.path.join(work, "good.json"))
    cfg = os.path.join(work, "good.json")
    broken = copy_default(work, lambda v: v.update({"gpus_per_node": "two"}))
    p = suite(work, "--config_file", broken, "--gtest_list_tests")
    expect(p.returncode == 2 and "configuration errors" in p.stderr and "gpus_per_node" in p.stderr
           and "aorta_single." not in p.stdout, "a broken config is reported, not listed", p)
    p = suite(work, "--cluster_file", os.path.join(work, "missing.json"), "--config_file", cfg, "--gtest_list_tests")
    expect(p.returncode == 2 and "missing.json" in p.stderr, "a missing cluster file is reported when listing", p)
    expect(made(work) == [], f"listing must create nothing; found {made(work)}", p)
    # Two nodes over SSH at addresses nobody answers: listing reads the files only.
    e2e = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e")
    for name in ("cpu_docker.json", "cpu_docker_threshold.json"):
        shutil.copy(os.path.join(e2e, name), os.path.join(work, name))
    key = os.path.join(work, "key.json")  # the key file is only checked for its mode
    open(key, "w").close()
    os.chmod(key, 0o600)
    cluster = os.path.join(work, "cluster.json")
    json.dump({"username": "u", "priv_key_file": key,
               "node_dict": {"n1": {"vpc_ip": "192.0.2.1"}, "n2": {"vpc_ip": "192.0.2.2"}}}, open(cluster, "w"))
    p = suite(work, "--cluster_file", cluster, "--config_file", os.path.join(work, "cpu_docker.json"), "--output_dir",
              out, "--gtest_list_tests")
    listed = [l.strip() for l in p.stdout.splitlines() if l.startswith("  ")]
    expect(p.returncode == 0 and p.stdout.startswith("aorta_distributed.\n")
           and "aorta_single." not in p.stdout, "a two-node cluster file lists aorta_distributed only", p)
    # torchrun collects from both nodes: a test each, right after the collection stage.
    at = listed.index("test_collect_traces")
    expect(listed[at + 1:at + 3] == ["test_collect_traces/n1", "test_collect_traces/n2"], "per-node tests", p)
    expect(made(work) == [], f"listing must create nothing; found {made(work)}", p)
print("ok: --gtest_list_tests lists both suites without a config, goes through the config checks with one")

# 5. Per-command --help and --version anywhere.
with tempfile.TemporaryDirectory() as work:
    version = suite(work, "--version").stdout
    for args, words in [(["run", "--help"], "aorta_suite run [SUITE] [--cluster_file FILE]"), (["analyze", "--help"], "--include-unlinked-kernels"),
                        (["list", "--help"], "aorta_suite list"), (["config", "--help"], "config copy NAME"),
                        (["analyze", "t", "--version"], version), (["--gtest_filter=x", "--version"], version)]:
        p = suite(work, *args)
        expect(p.returncode == 0 and words in p.stdout, f"{args}", p)
    p = suite(work, "analyze", "t", "--jobs")
    expect(p.returncode == 2 and "--jobs" in p.stderr, "a flag without its value names it", p)
print("ok: per-command --help, --version anywhere")
