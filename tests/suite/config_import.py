#!/usr/bin/env python3
"""`config import` against the real binary: CVS's own sample aorta_benchmark.yaml
imports to a config the run's checks accept; the sample with this machine's values
(the CPU workload, two ranks, loose gates) imports and runs aorta_single end to end
once its runtime is `none` (the one edit a machine without a container engine needs);
hostile YAML is exit 2 naming the problem, never a crash or a hang, and writes nothing.
Usage: config_import.py AORTA_SUITE TEST_DATA_DIR
"""
import json
import os
import subprocess
import sys
import tempfile

from suite_run import expect, run

binary = os.path.abspath(sys.argv[1])
sample = os.path.join(sys.argv[2], "cvs_aorta", "aorta_benchmark.yaml")


def config_import(work, yaml_path, output, timeout=60):
    try:
        return subprocess.run([binary, "config", "import", yaml_path, "-o", output], cwd=work, capture_output=True,
                              text=True, errors="replace", timeout=timeout)
    except subprocess.TimeoutExpired:
        raise SystemExit(f"FAIL: config import of {yaml_path} still running after {timeout} s")


def local_values(text, work):
    """The sample with this machine's values, as a CVS user would edit it."""
    swaps = {
        "aorta_path: /home/{user-id}/aorta # change to your own path":
            f"aorta_path: {work}/fs/aorta\naorta_auto_clone: true\naorta_clone_url: '{{aorta-suite-workload}}'",
        "base_config: config/profile_overlap_2gpu.yaml": "base_config: config/local_cpu.json",
        "experiment_script: scripts/launch_rocm.sh": "experiment_script: scripts/launch_cpu.sh",
        "gpus_per_node: 8": "gpus_per_node: 2",
        "timeout_seconds: 3600": "timeout_seconds: 600",
        "training.max_steps: 15": "training.max_steps: 8",
        "  profiling.active: 6\n": "",
        "max_avg_iteration_ms: 12000": "max_avg_iteration_ms: 60000",
        "min_compute_ratio: 0.01 ": "min_compute_ratio: null ",
        "min_overlap_ratio: 0.0": "min_overlap_ratio: null",
        "max_time_variance_ratio: 0.5": "max_time_variance_ratio: 1.0",
    }
    for old, new in swaps.items():
        expect(old in text, f"the sample no longer holds {old!r}")
        text = text.replace(old, new)
    return text


def hostile_cases():
    laughs = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]\n" for i in range(1, 10))
    yield "an alias bomb (10^9 values)", laughs.encode(), "expands to more than 100000 values"
    yield "100,000 levels of nesting", b"aorta_path: " + b"[" * 100000 + b"]" * 100000 + b"\n", "nests deeper than 64 levels"
    yield "bytes that are not UTF-8", b"aorta_path: /home/\xff\n", "is not UTF-8 text"
    yield "a duplicate key", b"aorta_path: /a\naorta_path: /b\n", "aorta_path: appears twice"
    yield "a python tag", b"aorta_path: !!python/object/apply:os.system ['id']\n", "aorta_path: has the tag"
    yield "a stray comma (yaml-cpp's LoadAll made documents without end)", b",", "must hold a YAML mapping"
    yield "a NUL byte", b"aorta_path: /a\0b\n", "holds the control character 0x00"
    yield "a file over 1 MiB", b"aorta_path: /" + b"x" * (2 << 20) + b"\n", "is larger than 1 MiB"


with tempfile.TemporaryDirectory() as work:
    # CVS's sample as it is: imported, it loads, and the run's own checks accept it.
    out = os.path.join(work, "aorta_benchmark.json")
    p = config_import(work, sample, out)
    expect(p.returncode == 0 and "it loads" in p.stdout, f"sample import: exit {p.returncode}", p)
    expect(os.path.exists(os.path.join(work, "aorta_benchmark_threshold.json")), "no threshold file beside it", p)
    listed = subprocess.run([binary, "--config_file", out, "--gtest_list_tests"], cwd=work, capture_output=True,
                            text=True, timeout=60)
    expect(listed.returncode == 0 and "test_run_benchmark" in listed.stdout, "the run's checks refuse it", listed)
    again = config_import(work, sample, out)
    expect(again.returncode == 2 and "refusing to overwrite" in again.stderr, "an existing output replaced", again)
    print("ok: the sample imports, loads and lists")

    for title, text, words in hostile_cases():
        path = os.path.join(work, "hostile.yaml")
        with open(path, "wb") as f:
            f.write(text)
        target = os.path.join(work, "hostile.json")
        p = config_import(work, path, target)
        expect(p.returncode == 2 and words in p.stderr, f"{title}: exit {p.returncode}, no '{words}'", p)
        expect(not os.path.exists(target), f"{title}: a config was written")
        print(f"ok: {title}: {p.stderr.splitlines()[1].strip()[:120]}")

    local = os.path.join(work, "local.yaml")
    with open(local, "w") as f:
        f.write(local_values(open(sample).read(), work))
    imported = os.path.join(work, "local", "aorta_local.json")
    os.makedirs(os.path.dirname(imported))
    p = config_import(work, local, imported)
    expect(p.returncode == 0, f"local import: exit {p.returncode}", p)
    doc = json.load(open(imported))
    doc["container"]["runtime"] = {"name": "none", "args": {}}
    json.dump(doc, open(imported, "w"))
    p, stages, report = run(binary, work, "--config_file", imported, "--gtest_filter=aorta_single.*", timeout=600)
    expect(p.returncode == 0, f"the imported config's run: exit {p.returncode}", p)
    for stage in ("test_run_benchmark", "test_collect_traces", "test_parse_results", "test_validate_thresholds"):
        expect(stages.get(stage, ("missing",))[0] == "passed", f"{stage}: {stages.get(stage)}", p)
    expect(report["cluster"] == {"nodes": 1, "gpus_per_node": 2, "total_gpus": 2}, str(report["cluster"]))
    print("ok: the sample with local values imports and runs aorta_single")
