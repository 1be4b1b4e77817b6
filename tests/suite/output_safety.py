#!/usr/bin/env python3
"""Every output valid, whole and kept; no signal or bad byte ends a run without
reports. The embedded default run (local transport, real torchrun):
  1. a trace file name and a trace event name that are not UTF-8: the JSON report
     parses, the JUnit XML validates, every report file is UTF-8;
  2. SIGHUP mid-benchmark: reports written naming SIGHUP, no training process left,
     exit 1;
  3. SIGINT then SIGTERM: the reports name SIGINT;
  4. an output_dir that is a file, read-only or /dev/full: exit 2 before anything
     runs (aorta_path is never created);
  5. the disk fills during the run (a tmpfs, as root): exit 1, each report file that
     did not fit named on stderr, no empty report files, the earlier run intact;
  6. outputs aimed at what another user planted (as root): the HTML report's folder a
     link of theirs to a folder holding a private key, the JUnit file a device node, the
     live log a link, the log the run's own config: each refused and named, nothing
     written through, the key in no bundle (issue 29).
Usage: output_safety.py AORTA_SUITE [CASE ...]   (cases: utf8 sighup sigint_sigterm output_dir full_disk planted)
"""
import glob
import hashlib
import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
import zipfile

from suite_run import expect, results

HERE = os.path.dirname(os.path.abspath(__file__))
WORKLOAD = os.path.join(HERE, "..", "..", "workload")
binary = os.path.abspath(sys.argv[1])
IS_ROOT = os.geteuid() == 0


def config(work, edit=None, steps=8):
    """The shipped default with its files under work; returns the config path."""
    for name in ("local_cpu_single.json", "local_cpu_threshold.json"):
        subprocess.run([binary, "config", "copy", name, "--output", os.path.join(work, name)], check=True,
                       stdout=subprocess.DEVNULL)
    path = os.path.join(work, "local_cpu_single.json")
    doc = json.load(open(path))
    doc["paths"]["shared_fs"] = os.path.join(work, "fs")
    doc["training_overrides"] = {"training.max_steps": steps}
    if edit:
        edit(doc)
    json.dump(doc, open(path, "w"))
    return path


def training_processes(work):
    """Pids of processes started from this test's aorta_path (torchrun, train.py)."""
    marker = os.path.join(work, "fs").encode()
    pids = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            cmdline = open(f"/proc/{pid}/cmdline", "rb").read()
        except OSError:
            continue
        if marker in cmdline and b"aorta_suite" not in cmdline.split(b"\0")[0]:
            pids.append(int(pid))
    return pids


def launch(work, cfg, on_line, output_dir=None, junit=None):
    """Runs the suite, calling on_line(line, proc) for each stdout line; returns
    (exit status, stdout, stderr)."""
    junit = junit or os.path.join(work, "gtest.xml")
    cmd = [binary, "--output_dir", output_dir or os.path.join(work, "out"), f"--gtest_output=xml:{junit}",
           "--config_file", cfg]
    err_path = os.path.join(work, "stderr.txt")
    with open(err_path, "w") as err:
        proc = subprocess.Popen(cmd, cwd=work, stdout=subprocess.PIPE, stderr=err, text=True, errors="replace")
        lines = []
        for line in proc.stdout:
            lines.append(line)
            on_line(line, proc)
        rc = proc.wait(timeout=600)
    return rc, "".join(lines), open(err_path, errors="replace").read()


def run_dir(out):
    dirs = [os.path.join(out, d) for d in os.listdir(out)]
    expect(len(dirs) == 1, f"run folders: {dirs}")
    return dirs[0]


def report_files(folder):
    """The files the report pipeline writes into a run folder."""
    names = [os.path.join(folder, n) for n in os.listdir(folder)
             if n.endswith((".xml", ".html", ".zip")) or n in ("aorta_single.log", "aorta_benchmark_report.json")]
    html = os.path.join(folder, "aorta_single_html")
    # Sub-tests' Full Log pages sit in their stage's folder: every file, at any depth.
    names += [os.path.join(d, n) for d, _, files in os.walk(html) for n in files]
    return names


def check_utf8_everywhere(folder):
    for path in report_files(folder):
        if path.endswith(".zip"):
            continue
        data = open(path, "rb").read()
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as e:
            expect(False, f"{path} is not UTF-8: {e}")
        if path.endswith(".json"):
            json.loads(data)


def run_sub(work):
    """The sub-tests of the last results() read, by name."""
    import suite_run
    return suite_run.run.last_subtests


def expect_interrupted(work, name, rc, out, err):
    expect(rc == 1, f"exit {rc}\n{out[-3000:]}\n{err[-3000:]}")
    expect(f"aorta_suite: interrupted by {name}; cleaned up and reported" in err, err[-3000:])
    stages, _ = results(work)  # the JUnit XML validates
    bench = stages["test_run_benchmark"]
    expect(bench[0] == "failed" and f"interrupted by {name}" in bench[1], f"test_run_benchmark: {bench}")
    expect(stages["test_teardown"][0] == "passed", str(stages["test_teardown"]))
    # Reported as interrupted (issue 31, 9): one failure, the interrupted stage; what the
    # stopped training never wrote is skipped, naming the signal; the banner says it.
    failed = [n for n, s in {**stages, **run_sub(work)}.items() if s[0] == "failed"]
    expect(failed == ["test_run_benchmark"], f"only the interrupted stage fails: {failed}")
    expect(f"== aorta_single INTERRUPTED by {name}:" in out, f"the banner: {out[-2000:]}")
    folder = run_dir(os.path.join(work, "out"))
    for report in ("aorta_single.xml", "aorta_single.html", "aorta_single.log"):
        expect(os.path.getsize(os.path.join(folder, report)) > 0, f"{report} not written")
    log = open(os.path.join(folder, "aorta_single.log"), errors="replace").read()
    expect(f"interrupted by {name}" in log, "the text log does not name the signal")
    others = {"SIGINT", "SIGTERM", "SIGHUP"} - {name}
    everything = log + open(os.path.join(folder, "aorta_single.xml"), errors="replace").read() + err
    expect(not any(f"by {o}" in everything for o in others), f"a later signal is reported: {everything[-2000:]}")
    deadline = time.time() + 10  # a process group ended with TERM may take a moment to go
    while training_processes(work) and time.time() < deadline:
        time.sleep(0.2)
    expect(not training_processes(work), f"training processes left: {training_processes(work)}")


def signal_during_benchmark(*signals):
    """Sends the signals 0.3 s apart once the training runs."""
    sent = []

    def on_line(line, proc):
        if line.startswith("[benchmark] 0/1 nodes done") and not sent:
            time.sleep(1.0)  # torchrun and its ranks are up
            for i, s in enumerate(signals):
                if i:
                    time.sleep(0.3)  # the first one has been handled
                proc.send_signal(s)
            sent.append(True)
    return on_line, sent


# The workload's traces after training: an event name cut inside a three-byte
# character and followed by a byte that is never UTF-8; a file name that is not UTF-8.
MANGLE = r'''
import glob, os, sys
# The run's own output folder (<repo>/.cvs-aorta/<run-id>/output): the newest
# torch_profiler folder under the repository, hidden folders included.
found = [os.path.join(d, "torch_profiler") for d, subdirs, _ in os.walk(sys.argv[1]) if "torch_profiler" in subdirs]
root = max(found, key=os.path.getmtime)
rank0 = sorted(glob.glob(os.path.join(root, "rank0", "*.pt.trace.json")), key=os.path.getmtime)[-1]
data = open(rank0, "rb").read()
assert b'"name": "' in data, "no event name to mangle"
data = data.replace(b'"name": "', b'"name": "\xe2\x82\xff', 1)
open(rank0, "wb").write(data)
rank1 = sorted(glob.glob(os.path.join(root, "rank1", "*.pt.trace.json")), key=os.path.getmtime)[-1]
os.rename(rank1, os.path.join(os.path.dirname(rank1).encode(), b"h\xffst\xc3_1.pt.trace.json"))
'''


# 1. Bytes that are not UTF-8 in a trace's file name and in an event name.
def utf8():
    with tempfile.TemporaryDirectory() as work:
        repo = os.path.join(work, "fs", "aorta")
        shutil.copytree(WORKLOAD, repo)
        with open(os.path.join(repo, "scripts", "launch_bytes.sh"), "w") as f:
            f.write('#!/usr/bin/env bash\nset -euo pipefail\nrepo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)\n'
                    'bash "$repo/scripts/launch_cpu.sh" "$@"\npython3 "$repo/scripts/mangle.py" "$repo"\n')
        with open(os.path.join(repo, "scripts", "mangle.py"), "w") as f:
            f.write(MANGLE)

        def bytes_workload(v):
            v["aorta_auto_clone"] = False
            v["experiment_script"] = "scripts/launch_bytes.sh"
        cfg = config(work, bytes_workload)
        rc, out, err = launch(work, cfg, lambda line, proc: None)
        p = subprocess.CompletedProcess([], rc, out, err)
        expect(rc in (0, 1), f"exit {rc}", p)
        expect("terminate called" not in err and "type_error" not in err, "an exception escaped", p)
        stages, report = results(work)  # validates the XML against the JUnit schema, loads the JSON report
        expect(report is not None, "aorta_benchmark_report.json missing", p)
        sources = [r["source"] for r in report["per_rank_summary"]]
        parse = json.dumps(report["parse"], ensure_ascii=False)
        expect(any("h\ufffdst\ufffd_1.pt.trace.json" in s for s in sources) or "h\ufffdst\ufffd_1" in parse,
               f"the file name is not in the report with its bad bytes replaced: {sources} {parse}")
        rank0_errors = [e for e in report["parse"]["errors"] if "/rank0/" in e]
        expect(any("\ufffd" in e for e in rank0_errors),
               f"the bad event name's snippet is not in the report with its bytes replaced: {rank0_errors}")
        expect(stages["test_generate_report"][0] == "passed", str(stages["test_generate_report"]), p)
        folder = run_dir(os.path.join(work, "out"))
        check_utf8_everywhere(folder)
        print("ok: a trace file name and an event name that are not UTF-8: valid JSON report and JUnit XML")


# 2. SIGHUP (a dropped login) mid-benchmark: handled like SIGTERM.
def sighup():
    with tempfile.TemporaryDirectory() as work:
        cfg = config(work, steps=100000)
        on_line, sent = signal_during_benchmark(signal.SIGHUP)
        rc, out, err = launch(work, cfg, on_line)
        expect(sent, "the benchmark never started:\n" + out[-3000:])
        expect_interrupted(work, "SIGHUP", rc, out, err)
        print("ok: SIGHUP mid-benchmark: reports name SIGHUP, no training process left, exit 1")


# 3. SIGINT, then SIGTERM while the run is stopping: the reports name the first.
def sigint_sigterm():
    with tempfile.TemporaryDirectory() as work:
        cfg = config(work, steps=100000)
        on_line, sent = signal_during_benchmark(signal.SIGINT, signal.SIGTERM)
        rc, out, err = launch(work, cfg, on_line)
        expect(sent, "the benchmark never started:\n" + out[-3000:])
        expect_interrupted(work, "SIGINT", rc, out, err)
        print("ok: SIGINT then SIGTERM: the reports name SIGINT")


# 4. An output_dir that cannot take files: exit 2 before any node is touched.
def output_dir():
    with tempfile.TemporaryDirectory() as work:
        cfg = config(work)
        a_file = os.path.join(work, "a_file")
        open(a_file, "w").write("not a folder\n")
        read_only = os.path.join(work, "read_only")
        os.makedirs(read_only)
        mounted = False
        if IS_ROOT:  # root writes through mode bits: a read-only mount it is
            mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "ro,size=1m", "tmpfs", read_only]).returncode == 0
        else:
            os.chmod(read_only, 0o555)
        cases = [(a_file, "it is a regular file, not a folder"), ("/dev/full", "it is a character device, not a folder")]
        if mounted or not IS_ROOT:
            cases.append((read_only, "Read-only file system" if mounted else "Permission denied"))
        else:
            print("note: cannot mount a read-only tmpfs here; the read-only case is not run")
        try:
            for output_dir, reason in cases:
                p = subprocess.run([binary, "--output_dir", output_dir, "--config_file", cfg], cwd=work,
                                   capture_output=True, text=True, timeout=120)
                expect(p.returncode == 2, f"{output_dir}: exit {p.returncode}", p)
                expect("output_dir cannot be used (nothing was run)" in p.stderr and output_dir in p.stderr and
                       reason in p.stderr, f"{output_dir}: the message names neither the path nor the reason", p)
                expect("[ RUN" not in p.stdout, f"{output_dir}: a stage ran", p)
                expect(not os.path.exists(os.path.join(work, "fs")), f"{output_dir}: aorta_path was touched", p)
        finally:
            if mounted:
                subprocess.run(["umount", read_only])
        print("ok: output_dir a file / read-only / /dev/full: exit 2 with path and reason, nothing run")


# 5. The disk fills during the run: every report file is whole or absent, each one
#    that did not fit is named, the earlier run's files are intact, exit 1.
def digests(root):
    return {os.path.relpath(os.path.join(d, f), root): hashlib.sha256(open(os.path.join(d, f), "rb").read()).hexdigest()
            for d, _, files in os.walk(root) for f in files}


def fill(path):
    """Writes zeros to path until the file system has no byte left."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o644)
    chunk = 1 << 20
    while chunk:
        try:
            os.write(fd, b"\0" * chunk)
        except OSError:
            chunk //= 2
    os.close(fd)


def full_disk():
    if not IS_ROOT:
        print("skip: the full-disk case needs root (it mounts a tmpfs)")
        return
    with tempfile.TemporaryDirectory() as work:
        disk = os.path.join(work, "disk")
        os.makedirs(disk)
        subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64m", "tmpfs", disk], check=True)
        try:
            junit = os.path.join(disk, "gtest.xml")
            out_dir = os.path.join(disk, "out")
            cfg = config(work)
            rc, out, err = launch(work, cfg, lambda line, proc: None, out_dir, junit)
            expect(rc == 0, f"first run: exit {rc}\n{out[-2000:]}\n{err[-2000:]}")
            before = digests(disk)
            first = run_dir(out_dir)

            filled = []

            def fill_during_benchmark(line, proc):
                if line.startswith("[benchmark] 0/1 nodes done") and not filled:
                    fill(os.path.join(disk, "filler"))
                    filled.append(True)
            rc, out, err = launch(work, cfg, fill_during_benchmark, out_dir, junit)
            expect(filled, "the benchmark never started:\n" + out[-3000:])
            expect(rc == 1, f"second run: exit {rc}\n{out[-2000:]}\n{err[-2000:]}")
            after = digests(disk)
            for name, digest in before.items():
                if name == "gtest.xml":
                    continue  # the path both runs were given: checked below
                expect(after.get(name) == digest, f"an earlier file changed or vanished: {name}")
            # The JUnit path both runs share holds the second run's last progress report (its
            # final one did not fit): failed as incomplete, never the first run's stale pass.
            shared = ET.parse(junit).getroot()
            expect(any(c.get("name") == "run_incomplete" and c.find("failure") is not None for c in shared.iter("testcase")),
                   f"{junit} does not say the second run is incomplete: {open(junit).read()[:1500]}")
            second = [os.path.join(out_dir, d) for d in os.listdir(out_dir) if os.path.join(out_dir, d) != first][0]
            expected = [os.path.join(second, n) for n in ("aorta_single.xml", "aorta_single.log", "aorta_single.html")]
            expected += [os.path.join(second, "aorta_single_html", n) for n in ("aorta_run_deck.json", "aorta_run_deck.html")]
            expected.append(junit)
            for path in expected:
                if not os.path.exists(path) or path == junit:
                    expect(f"{path}: could not write: No space left on device" in err,
                           f"{path} did not fit and is not named on stderr:\n{err[-3000:]}")
            for path in report_files(second):
                expect(".tmp." not in path, f"a temporary file was left: {path}")
                expect(os.path.getsize(path) > 0, f"an empty report file looks written: {path}")
                if path.endswith(".xml"):
                    ET.parse(path)
                if path.endswith(".json"):
                    json.load(open(path))
            expect(not glob.glob(os.path.join(disk, "*.tmp.*")), "a temporary JUnit file was left")
            print("ok: a full disk: exit 1, every report that did not fit named, none left empty, the earlier run intact, "
                  "the shared JUnit path says the second run is incomplete")
        finally:
            subprocess.run(["umount", disk])


# 6. Outputs aimed at what another user planted: refused before the run (issue 31, 4);
#    the write itself refuses them too (lib/common/output_path, its unit tests).
def planted():
    if not IS_ROOT:
        print("note: not root: cannot plant another user's link or a device node; not run")
        return
    with tempfile.TemporaryDirectory() as work:
        cfg = config(work)
        shared = os.path.join(work, "shared")  # a folder all may write to, as /tmp
        os.makedirs(shared)
        os.chmod(shared, 0o1777)
        secrets = os.path.join(work, "root_ssh")
        os.makedirs(secrets, mode=0o700)
        open(os.path.join(secrets, "id_ed25519"), "w").write("PRIVATE KEY\n")
        planted_link = os.path.join(shared, "aorta_single_html")
        os.symlink(secrets, planted_link)
        os.lchown(planted_link, 4242, 4242)  # another user's
        device = os.path.join(work, "junit.device")  # a node like /dev/null, made here
        os.mknod(device, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
        victim = os.path.join(work, "victim.txt")
        open(victim, "w").write("untouched\n")
        log_link = os.path.join(work, "live.log")
        os.symlink(victim, log_link)
        cmd = [binary, "--output_dir", os.path.join(work, "out"), "--config_file", cfg,
               "--html", os.path.join(shared, "report.html"), "--junitxml", device, "--log-file", log_link]
        p = subprocess.run(cmd, cwd=work, capture_output=True, text=True, timeout=600)
        # Each refused before the run (issue 31, 4), all in one message.
        expect(p.returncode == 2 and "report paths cannot be written (nothing was run)" in p.stderr, f"exit {p.returncode}", p)
        expect(not os.path.exists(os.path.join(work, "out")), "nothing may run", p)
        expect(sorted(os.listdir(secrets)) == ["id_ed25519"], f"written through the planted link: {os.listdir(secrets)}")
        expect(f"{planted_link}: refused to write there: it is a symbolic link owned by uid 4242" in p.stderr,
               "the planted link is not named", p)
        for z in glob.glob(os.path.join(shared, "*.zip")) + glob.glob(os.path.join(work, "out", "*", "*.zip")):
            expect(not any("id_ed25519" in n for n in zipfile.ZipFile(z).namelist()), f"the key is in {z}")
        expect(stat.S_ISCHR(os.lstat(device).st_mode), "the device node was replaced", p)
        expect(f"{device}: refused to write there: it is a character device" in p.stderr, "the device is not named", p)
        expect(os.path.islink(log_link) and open(victim).read() == "untouched\n", "the live log wrote through a link", p)
        expect(f"{log_link}: refused to write there: it is a symbolic link" in p.stderr, "the log link is not named", p)
        # The run's own config as its log: refused, the config as it was.
        before = open(cfg).read()
        p = subprocess.run([binary, "--output_dir", os.path.join(work, "out2"), "--config_file", cfg, "--log-file", cfg],
                           cwd=work, capture_output=True, text=True, timeout=600)
        expect(open(cfg).read() == before, "the config was overwritten by the log", p)
        expect(f"{cfg}: refused to write there: it is one of this run's inputs" in p.stderr, "the input is not named", p)
        expect(p.returncode == 2, f"exit {p.returncode}", p)
        print("ok: a planted link, a device node, a log link and the config as outputs: each refused and named")


CASES = {"utf8": utf8, "sighup": sighup, "sigint_sigterm": sigint_sigterm, "output_dir": output_dir,
         "full_disk": full_disk, "planted": planted}
for name in sys.argv[2:] or CASES:
    CASES[name]()
