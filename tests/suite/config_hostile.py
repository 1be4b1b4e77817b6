#!/usr/bin/env python3
"""Hostile config, cluster and threshold files against the real binary: each one is a
configuration error (exit 2) that names the file and the dotted key, never an
exception, a signal or unbounded memory, and nothing runs (no run folder, no clone).
Usage: config_hostile.py AORTA_SUITE
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

from suite_run import expect

binary = os.path.abspath(sys.argv[1])


def shipped(work, name):
    path = os.path.join(work, name)
    subprocess.run([binary, "config", "copy", name, "--output", path], check=True, stdout=subprocess.DEVNULL)
    return path


def case(title, work, args, file, key, words, env=None):
    """Runs the binary; expects exit 2 with 'file: key: ...words' on stderr and no run.
    A key ending in '...' is a prefix (a long key is shortened in the message)."""
    out = os.path.join(work, "out")
    cmd = [binary, "--output_dir", out, *args]
    try:
        p = subprocess.run(cmd, cwd=work, capture_output=True, timeout=60, env=env)
    except subprocess.TimeoutExpired:
        raise SystemExit(f"FAIL: {title}: still running after 60 s (reading without a limit?)")
    stderr = p.stderr.decode("utf-8", "replace")
    expect(stderr.encode("utf-8") == p.stderr, f"{title}: stderr is not UTF-8 text: {p.stderr[-500:]!r}")
    detail = f"\n--- stderr ---\n{stderr[-3000:]}\n--- stdout ---\n{p.stdout.decode('utf-8', 'replace')[-1500:]}"
    expect(p.returncode == 2, f"{title}: exit {p.returncode} (expected 2; 134 is an abort, 139 a crash){detail}")
    expect("nothing was run" in stderr, f"{title}: not reported as a configuration error{detail}")
    where = f"{file}: {key[:-3]}" if key.endswith("...") else f"{file}: {key}: " if key else f"{file}: "
    lines = [l for l in stderr.splitlines() if where in l and words in l]
    expect(lines, f"{title}: no line with '{where}...{words}'{detail}")
    expect(len(stderr) < 20000, f"{title}: {len(stderr)} bytes of errors")
    started = os.listdir(out) if os.path.exists(out) else []
    expect(not started, f"{title}: a run folder was started: {started}")
    expect(not os.path.exists(os.path.join(work, "fs")), f"{title}: the workload was cloned")
    print(f"ok: {title}: {lines[0].strip()[:160]}")


def edited(work, edit_variant=None, threshold_text=None, variant_text=None):
    cfg = shipped(work, "local_cpu_single.json")
    thr = shipped(work, "local_cpu_threshold.json")
    doc = json.load(open(cfg))
    doc["paths"]["shared_fs"] = os.path.join(work, "fs")
    if edit_variant:
        edit_variant(doc)
    text = variant_text(json.dumps(doc)) if variant_text else json.dumps(doc)
    with open(cfg, "wb") as f:
        f.write(text.encode("utf-8", "surrogateescape") if isinstance(text, str) else text)
    if threshold_text is not None:
        with open(thr, "w") as f:
            f.write(threshold_text)
    return cfg, thr


def swap(old, new):
    return lambda text: text.replace(old, new, 1)


def variant_cases():
    yield ("1e400 in the config", dict(variant_text=swap('"gpus_per_node": 2', '"gpus_per_node": 1e400')),
           "cfg", "gpus_per_node", "number out of range")
    yield ("1e400 in the threshold file",
           dict(threshold_text='{"expected_results": {"max_avg_iteration_ms": -1e400}}'),
           "thr", "expected_results.max_avg_iteration_ms", "number out of range")
    yield ("100,000 levels of nesting",
           dict(variant_text=swap('"id": "local_cpu"', '"id": ' + "[" * 100000 + "]" * 100000)),
           "cfg", "model.id" + "[0]" * 62, "nests deeper than 64 levels")
    bomb = {f"b{i}": "{b%d}{b%d}" % (i + 1, i + 1) for i in range(40)}
    bomb["b40"] = "x"
    yield ("placeholders that double at each step", dict(edit_variant=lambda d: d["paths"].update(bomb)),
           "cfg", "paths.b23", "placeholders expand it past 64 KiB")
    yield ("ill-formed UTF-8 in a value", dict(variant_text=swap('"local_cpu"', '"local_\udcff\udcfecpu"')),
           "cfg", "model.id", "ill-formed UTF-8")
    yield ("ill-formed UTF-8 in a key", dict(variant_text=swap('"remote"', '"rem\udcc3(ote"')),
           "cfg", "model", "ill-formed UTF-8")
    yield ("2^64-1 into an int field", dict(variant_text=swap('"timeout_seconds": 600',
                                                             '"timeout_seconds": 18446744073709551615')),
           "cfg", "timeout_seconds", "must be an integer from -2147483648 to 2147483647")
    yield ("NaN as a threshold", dict(threshold_text='{"expected_results": {"max_avg_iteration_ms": NaN}}'),
           "thr", "expected_results.max_avg_iteration_ms", "is not valid JSON")
    yield ("a 300 KB training override key",
           dict(edit_variant=lambda d: d["training_overrides"].update({"k" * 300000 + "!": 1})),
           "cfg", "training_overrides." + "k" * 100 + "...", "Invalid training override key")
    yield ("a config of 2 MiB", dict(variant_text=lambda t: "{" + " " * (2 << 20) + t[1:]),
           "cfg", "", "is larger than 1 MiB")
    # Issue 32 (5): an element is one argument; one holding a space was meant as two.
    yield ("an extra train argument holding a space",
           dict(edit_variant=lambda d: d["multi_node"].update(extra_train_args=["--seed", "--foo bar"])),
           "cfg", "multi_node.extra_train_args[1]", 'element "--foo bar" holds whitespace')
    # Issue 43 (4): CVS splices the elements into a bash line, so $VAR would expand there.
    yield ("an extra train argument holding $VAR",
           dict(edit_variant=lambda d: d["multi_node"].update(extra_train_args=["--run_name=$HOSTNAME"])),
           "cfg", "multi_node.extra_train_args[0]", 'holds "$" (character 12), which starts a variable')
    yield ("an unknown junit_shape", dict(edit_variant=lambda d: d.update(junit_shape="pytest")),
           "cfg", "junit_shape", "must be gtest or cvs, got 'pytest'")


with tempfile.TemporaryDirectory() as top:
    for n, (title, kwargs, which, key, words) in enumerate(variant_cases()):
        work = os.path.join(top, f"v{n}")
        os.makedirs(work)
        cfg, thr = edited(work, **kwargs)
        case(title, work, ["--config_file", cfg], cfg if which == "cfg" else thr, key, words)

    # Files that are no JSON document at all.
    work = os.path.join(top, "dir")
    os.makedirs(os.path.join(work, "config.json"))
    case("a config that is a directory", work, ["--config_file", os.path.join(work, "config.json")],
         os.path.join(work, "config.json"), "", "is not a regular file (a directory)")
    work = os.path.join(top, "zero")
    os.makedirs(work)
    case("/dev/zero as the config", work, ["--config_file", "/dev/zero"], "/dev/zero", "",
         "is not a regular file (a device, pipe or socket)")
    cfg, _ = edited(work)
    case("/dev/zero as the cluster file", work, ["--cluster_file", "/dev/zero", "--config_file", cfg], "/dev/zero",
         "", "cluster file is not a regular file")

    # Cluster files.
    good_cluster = {"username": "u", "transport": "local", "node_dict": {"n1": {"vpc_ip": "127.0.0.1"}}}
    for n, (title, text, key, words) in enumerate([
        ("1e400 in the cluster file", json.dumps(good_cluster).replace('"local"', '"local", "ssh": {"port": 1e400}'),
         "ssh.port", "number out of range"),
        ("100,000 levels in the cluster file", '{"node_dict": ' + '{"a": ' * 100000, "node_dict" + ".a" * 63,
         "nests deeper than 64 levels"),
    ]):
        work = os.path.join(top, f"c{n}")
        os.makedirs(work)
        cfg, _ = edited(work)
        cluster = os.path.join(work, "cluster.json")
        open(cluster, "w").write(text)
        case(title, work, ["--cluster_file", cluster, "--config_file", cfg], cluster, key, words)

    # $USER that is not UTF-8: {user-id} would carry it into every report.
    work = os.path.join(top, "user")
    os.makedirs(work)
    cfg, _ = edited(work)
    env = dict(os.environb)
    env[b"USER"] = b"al\xffice"
    case("$USER that is not UTF-8", work, ["--config_file", cfg], cfg, "container.name", "not valid UTF-8", env=env)

    # master_launch_mode script on two nodes: refused at config time, as the original
    # does at setup (it crashed test_run_benchmark with no report).
    work = os.path.join(top, "script")
    os.makedirs(work)
    cfg, _ = edited(work, edit_variant=lambda d: d["multi_node"].update(master_launch_mode="script"))
    two = dict(good_cluster, node_dict={"n1": {"vpc_ip": "127.0.0.1"}, "n2": {"vpc_ip": "127.0.0.2"}})
    cluster = os.path.join(work, "cluster.json")
    json.dump(two, open(cluster, "w"))
    case("script mode on two nodes", work, ["--cluster_file", cluster, "--config_file", cfg], cfg,
         "multi_node.master_launch_mode", "master_launch_mode='script' requires one node; use auto or torchrun")

# Issue 32 (8): `config list` from a binary away from its share/aorta_suite names where
# it looked and exits 2 (it printed nothing and exited 0).
with tempfile.TemporaryDirectory() as work:
    alone = os.path.join(work, "bin", "aorta_suite")
    os.makedirs(os.path.dirname(alone))
    shutil.copy(binary, alone)
    env = {k: v for k, v in os.environ.items() if k != "AORTA_SUITE_DATA"}
    p = subprocess.run([alone, "config", "list"], capture_output=True, text=True, timeout=60, env=env)
    looked = os.path.join(work, "bin", "share", "aorta_suite")
    expect(p.returncode == 2 and p.stdout == "" and looked in p.stderr and "AORTA_SUITE_DATA" in p.stderr,
           f"config list with no shipped folder: exit {p.returncode}, stdout {p.stdout!r}, stderr {p.stderr!r}")
    print("ok: config list with no shipped folder: " + p.stderr.strip())

print("ok: every hostile file is an exit-2 configuration error naming its file and key; nothing ran")
