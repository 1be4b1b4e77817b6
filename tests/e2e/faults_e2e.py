#!/usr/bin/env python3
"""Faults on the test cluster. Each case breaks one thing for real and checks what
the suite then says: the first failed stage is named with the node, the stages
that depend on it say "a prior lifecycle stage failed", artifacts and reports
survive, and no container or training process is left behind.

Usage: faults_e2e.py AORTA_SUITE CASE      (CASE: see CASES below)
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "suite"))
import suite_run  # noqa: E402
from suite_run import expect  # noqa: E402
from test_cluster import BASE, expect_clean, launch, on_node, write_inputs  # noqa: E402

TESTCLUSTER = os.path.join(HERE, "..", "..", "ci", "testcluster.sh")
PRIOR = "a prior lifecycle stage failed"
binary, case = os.path.abspath(sys.argv[1]), sys.argv[2]
MARKER = f"aorta-fault-{uuid.uuid4().hex[:12]}"


def fault_override(key, value):
    def edit(v):
        v.setdefault("training_overrides", {})[key] = value
    return edit


def expect_failed_then_gated(stages, first, must_mention, output):
    outcome, message = stages[first][0], stages[first][1]
    expect(outcome == "failed", f"{first} should fail, got {outcome}: {message}\n{output[-3000:]}")
    for m in must_mention:
        expect(m in message, f"{first}'s message lacks {m!r}: {message}")
    names = list(stages)
    for later in names[names.index(first) + 1:]:
        if later in ("test_collect_traces", "test_parse_results", "test_generate_report", "test_teardown",
                     "fixture_teardown"):
            continue  # these recover after a failure (the original's rule; the fixture's retry of a removal)
        expect(stages[later][0] == "skipped" and stages[later][1].strip().endswith(f"{PRIOR} ({first})"),
               f"{later} after {first}: {stages[later]}")


def clean_lost_node(host, checkout):
    """Ends what a node that lost contact kept: its containers, and the holder of its
    checkout's lock (the workload may still run there), so no later test finds them."""
    on_node(host, "docker rm -f $(docker ps -aq) > /dev/null 2>&1; true")
    on_node(host, f"f={checkout}/.cvs-aorta/lock/owner; "
                  "p=$(sed -n 's/^lock holder pid \\([0-9]*\\) on node .*/\\1/p' \"$f\"); "
                  f"[ -n \"$p\" ] && kill -- -\"$p\"; rm -rf {checkout}/.cvs-aorta/lock; true")


def run_dir(work):
    out = os.path.join(work, "out")
    return os.path.join(out, os.listdir(out)[0])


with tempfile.TemporaryDirectory() as work:
    if case == "unreachable_node":
        def add_dead_node(c, _):
            c["node_dict"]["10.211.0.99"] = {"vpc_ip": "10.211.0.99"}
            c["ssh"]["connect_timeout_seconds"] = 3
        hosts = write_inputs(work, 2, edit_cluster=add_dead_node)
        rc, out, stages, _ = launch(binary, work)
        expect(rc == 1, f"exit {rc}")
        expect_failed_then_gated(stages, "test_launch_container", ["10.211.0.99", "no TCP answer on port 22"], out)
        expect(stages["test_teardown"][0] == "passed", str(stages["test_teardown"]))
        expect_clean(hosts)

    elif case == "unknown_host_key":
        def forget_keys(c, w):
            open(os.path.join(w, "known_hosts"), "w").close()
            c["ssh"]["known_hosts"] = os.path.join(w, "known_hosts")
        hosts = write_inputs(work, 1, edit_cluster=forget_keys)
        rc, out, stages, _ = launch(binary, work)
        expect(rc == 1, f"exit {rc}")
        expect_failed_then_gated(stages, "test_launch_container", [hosts[0], "host key is not in", "ssh-keyscan"], out)

    elif case == "rank_exit":
        hosts = write_inputs(work, 1, fault_override("faults.exit_rank", 1))
        rc, out, stages, _ = launch(binary, work)
        expect(rc == 1, f"exit {rc}")
        expect_failed_then_gated(stages, "test_run_benchmark", ["Aorta command failed on nodes", hosts[0]], out)
        expect(os.path.exists(os.path.join(run_dir(work), "benchmark-node-0.log")), "benchmark log not kept")
        log = open(os.path.join(run_dir(work), "benchmark-node-0.log")).read()
        expect(re.search(r"rank\s*:\s*1 .*\n\s*exitcode\s*:\s*3", log), "the log lacks the cause:\n" + log[-2000:])
        expect_clean(hosts)

    elif case == "hang":
        def hang(v):
            v["timeout_seconds"] = 15
            v["training_overrides"]["faults.hang"] = True
        hosts = write_inputs(work, 1, hang)
        rc, out, stages, _ = launch(binary, work)
        expect(rc == 1, f"exit {rc}")
        expect_failed_then_gated(stages, "test_run_benchmark", ["did not complete within 15s"], out)
        expect("left before the 15s timeout" in out, "no progress line with the time left")
        expect_clean(hosts)

    elif case == "kernel_log":
        line = f"NVRM: Xid (PCI:0000:3b:00): 79, pid=4242, GPU has fallen off the bus. {MARKER}"
        hosts = write_inputs(work, 1, fault_override("faults.kmsg", line))
        rc, out, stages, _ = launch(binary, work)
        expect(rc == 1, f"exit {rc}")
        expect_failed_then_gated(stages, "test_run_benchmark", ["seen in Dmesg on node", MARKER], out)
        expect_clean(hosts)

    elif case == "no_traces":
        hosts = write_inputs(work, 1, fault_override("profiling.enabled", False))
        rc, out, stages, report = launch(binary, work)
        expect(rc == 1, f"exit {rc}")
        expect_failed_then_gated(stages, "test_collect_traces", [hosts[0]], out)
        expect(stages["test_run_benchmark"][0] == "passed", str(stages["test_run_benchmark"]))
        expect(os.path.exists(os.path.join(run_dir(work), "benchmark-node-0.log")), "benchmark log not kept")
        expect_clean(hosts)

    elif case == "corrupt_trace":
        # Rank 2 is the first rank of the second node: its trace is cut in half.
        hosts = write_inputs(work, 2, fault_override("faults.truncate_trace_rank", 2))
        rc, out, stages, report = launch(binary, work)
        expect(report is not None, "no report with three good ranks:\n" + out[-3000:])
        expect(sorted(r["rank"] for r in report["per_rank_summary"]) == [0, 1, 3],
               f"ranks {[r['rank'] for r in report['per_rank_summary']]}")
        # A lost rank is no pass (issue 29): the stage fails naming it, the gates are not
        # judged on the other three, the run exits 1; the report keeps the good ranks.
        parse = stages["test_parse_results"]
        expect(parse[0] == "failed" and "3 of 4 expected rank(s) parsed" in parse[1] and "missing: rank 2" in parse[1],
               str(parse))
        expect(stages["test_validate_thresholds"][0] == "skipped", str(stages["test_validate_thresholds"]))
        expect(rc == 1 and report["validation_passed"] is False, f"exit {rc}, validation {report['validation_passed']}")
        expect("rank2" in json.dumps(report) or "rank2" in parse[1] or "rank2" in out,
               "the corrupt file is not named anywhere")
        expect_clean(hosts)

    elif case == "sshd_killed":
        # A node that never answers again is polled until timeout_seconds (as in CVS),
        # said on the console, and named by the timeout with how long it was silent.
        def hang(v):
            v["training_overrides"]["faults.hang"] = True
            v["timeout_seconds"] = 30
        hosts = write_inputs(work, 2, hang)
        killed = []

        def kill_second_node(line, proc):
            if line.startswith("[benchmark] 0/2 nodes done") and not killed:
                subprocess.run(["bash", TESTCLUSTER, "kill-sshd", "2"], check=True)
                killed.append(True)
        try:
            rc, out, stages, _ = launch(binary, work, kill_second_node)
        finally:
            subprocess.run(["bash", TESTCLUSTER, "restart-sshd", "2"], check=True)
        # The reachable node's container is gone; the lost one keeps what it was
        # running until someone looks, and teardown says so by name. (All nodes share
        # one PID space here, so processes are checked once node 2 is cleaned.)
        left = on_node(hosts[0], "docker ps -aq")
        clean_lost_node(hosts[1], "/var/lib/aorta-node/aorta")
        expect(killed, "the benchmark never started")
        expect(rc == 1, f"exit {rc}")
        silent = re.escape(hosts[1]) + r" has not answered for 0:00:[0-3]\d \(last: [^)]*port 22"
        expect_failed_then_gated(stages, "test_run_benchmark", ["Aorta did not complete within 30s; "], out)
        expect(re.search(silent + r".*\): check that the node is up and its sshd answers",
                         stages["test_run_benchmark"][1]), stages["test_run_benchmark"][1])
        expect(re.search(r"\[benchmark\] " + re.escape(hosts[1]) + r" has not answered for 0:00:[23]\d \(cannot connect "
                         r"to port 22[^\n]*\); polling on, 0:00:\d\d left before the 30s timeout", out),
               "the console never said the node was silent:\n" + out[-3000:])
        expect(left.returncode == 0 and left.stdout.strip() == "", f"{hosts[0]} still has {left.stdout}")
        expect(stages["test_teardown"][0] == "failed" and hosts[1] in stages["test_teardown"][1],
               f"teardown should name {hosts[1]}: {stages['test_teardown']}")
        # The fixture retries the failed removal once, fails again on the lost node,
        # and says so as a testcase of its own (the exit status already says 1).
        retry = stages.get("fixture_teardown", ("missing", ""))
        expect(retry[0] == "failed" and hosts[1] in retry[1], f"the fixture's retry should name {hosts[1]}: {retry}")
        expect_clean(hosts)

    elif case == "sshd_restarted":
        # Issue 43, 2: node 2's sshd gone for 45 s while the benchmark runs, then back:
        # the run passes, and the console said the node was silent, for how long, and
        # that it answers again. The training is held until the sshd is back (a file
        # the test makes in each node's checkout, seen in the container as /mnt).
        checkout = f"aorta-{MARKER}"
        release = f"release-{MARKER}"

        def held(v):
            v["aorta_path"] = "{paths.shared_fs}/" + checkout  # a fresh clone: the workload's hold hook
            v["container"]["runtime"]["args"]["volumes"] = [v["aorta_path"] + ":/mnt"]
            v["training_overrides"]["faults.hold_until"] = "/mnt/" + release
        hosts = write_inputs(work, 2, held)
        blip, rc = [], None

        def stop_sshd_for_45s():
            subprocess.run(["bash", TESTCLUSTER, "kill-sshd", "2"], check=True)
            time.sleep(45)  # the fault itself lasts 45 s; nothing is waited for here
            subprocess.run(["bash", TESTCLUSTER, "restart-sshd", "2"], check=True)
            for i in (1, 2):
                open(os.path.join(BASE, f"node{i}", "local", checkout, release), "w").close()

        def on_benchmark(line, proc):
            if line.startswith("[benchmark] 0/2 nodes done") and not blip:
                blip.append(threading.Thread(target=stop_sshd_for_45s))
                blip[0].start()
        try:
            rc, out, stages, _ = launch(binary, work, on_benchmark)
        finally:
            if blip:
                blip[0].join()
            subprocess.run(["bash", TESTCLUSTER, "restart-sshd", "2"], check=True)
            if rc != 0:  # a run that lost node 2 left its container and lock holder there
                clean_lost_node(hosts[1], "/var/lib/aorta-node/" + checkout)
            for i in (1, 2):
                shutil.rmtree(os.path.join(BASE, f"node{i}", "local", checkout), ignore_errors=True)
        expect(blip, "the benchmark never started")
        expect(rc == 0, f"exit {rc}: {stages}\n{out[-3000:]}")
        node = re.escape(hosts[1])
        expect(re.search(r"\[benchmark\] " + node + r" has not answered for 0:00:[2-5]\d \([^\n]*\); polling on, "
                         r"\d:\d\d:\d\d left before the 600s timeout", out),
               "the console never said the node was silent:\n" + out[-3000:])
        expect(re.search(r"\[benchmark\] " + node + r" answers again, after 0:0[01]:\d\d without an answer", out),
               "the console never said the node answers again:\n" + out[-3000:])
        expect(stages["test_run_benchmark"][0] == "passed", str(stages["test_run_benchmark"]))
        expect_clean(hosts)
        print("\n".join(line for line in out.splitlines() if line.startswith("[benchmark] " + hosts[1])))

    elif case == "hostile_values":
        # Values that a shell would run if any of them reached one unquoted; the
        # canaries land on the host's /tmp or /mnt, or in the node-local repository
        # that containers see as /mnt. Secrets must not reach any output.
        canary = f"aorta-canary-{MARKER}"
        hostile = (f"$(touch /tmp/{canary}) `touch /mnt/{canary}`; touch /tmp/{canary} && touch /mnt/{canary} "
                   f"'\"|| touch /tmp/{canary} \n touch /mnt/{canary}")
        secret, password = f"hf_{MARKER}_secret", f"pw_{MARKER}"

        def hostile_variant(v):
            v["container"]["env"]["AORTA_HOSTILE"] = hostile
            v["container"]["env"]["HF_TOKEN"] = secret
            v["training_overrides"]["faults.note"] = hostile
            # A path with quotes, spaces and substitutions (no newline: git refuses those).
            v["aorta_path"] = f"{{paths.shared_fs}}/ao rta'\"$(touch /tmp/{canary});`touch /tmp/{canary}`"
            v["container"]["runtime"]["args"]["volumes"] = [v["aorta_path"] + ":/mnt"]

        def with_password(c, _):
            c["password"] = password
        hosts = write_inputs(work, 2, hostile_variant, edit_cluster=with_password)
        rc, out, stages, report = launch(binary, work)
        expect(rc == 0, f"exit {rc}: {stages}\n{out[-3000:]}")
        places = [f"/tmp/{canary}", f"/mnt/{canary}"] + [os.path.join(BASE, f"node{i}", "local", "aorta", canary)
                                                          for i in (1, 2)]
        expect(not any(os.path.exists(p) for p in places), "a hostile value ran: " + str([p for p in places if os.path.exists(p)]))
        for text, where in [(out, "stdout")] + [(open(os.path.join(d, f), "rb").read().decode("latin-1"), os.path.join(d, f))
                                                for d, _, files in os.walk(os.path.join(work, "out")) for f in files]:
            expect(secret not in text and password not in text, f"a secret reached {where}")
        copies = [os.path.join(d, f) for d, _, files in os.walk(os.path.join(work, "out")) for f in files
                  if f.endswith(".json") and "<redacted>" in open(os.path.join(d, f)).read()]
        expect(len(copies) >= 2, f"the input files are not in the report, redacted: {copies}")  # cluster and config
        expect_clean(hosts)

    elif case == "image_missing":
        # An image only node 1 has: /usr/bin/sleep, its libraries and a passwd file.
        image = f"localhost/aorta-only-node1:{MARKER}"

        def only_on_node1(v):
            v["container"]["image"] = image
        hosts = write_inputs(work, 2, only_on_node1)
        made = on_node(hosts[0], "tar -ch -C / etc/passwd etc/group usr/bin/sleep lib/x86_64-linux-gnu/libc.so.6 "
                                 "lib64/ld-linux-x86-64.so.2 "
                                 f"| docker import - {image} > /dev/null")
        expect(made.returncode == 0, "could not make the node-1 image: " + made.stderr)
        try:
            rc, out, stages, _ = launch(binary, work)
        finally:
            on_node(hosts[0], f"docker rmi {image} > /dev/null 2>&1")
        expect(rc == 1, f"exit {rc}")
        expect_failed_then_gated(stages, "test_launch_container",
                                 [f"Aorta container setup failed for image '{image}'", hosts[1]], out)
        expect(hosts[0] + ":" not in stages["test_launch_container"][1].split("failed for image")[1],
               "node 1 had the image and must not be blamed: " + stages["test_launch_container"][1])
        expect_clean(hosts)  # node 1's container was removed again

    elif case == "disk_full":
        # The output directory is a 1 MiB tmpfs with 100 KiB left: the first 64 KiB
        # trace fits, the second does not. (The JUnit XML goes outside it.) Plain
        # copies: compressed on the node, both traces would fit.
        hosts = write_inputs(work, 1, lambda v: v.__setitem__("trace_compression", "none"))
        out_dir = os.path.join(work, "out")
        os.makedirs(out_dir)
        subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", out_dir], check=True)
        with open(os.path.join(out_dir, "filler"), "wb") as f:
            f.write(b"\0" * (1024 - 100) * 1024)
        try:
            rc, out, stages, _ = launch(binary, work)
        finally:
            subprocess.run(["umount", out_dir])
        expect(rc == 1, f"exit {rc}")
        collect = stages.get("test_collect_traces", ("missing", ""))
        # The stage names the node; the node's sub-test says why (issue 31: said once), in
        # its own testcase (the stage's cvs_aorta_subtest values are CVS's "<label>: failed").
        why = " ".join(t[1] for name, t in suite_run.run.last_subtests.items() if name.startswith("test_collect_traces/"))
        expect(collect[0] == "failed" and hosts[0] in collect[1] and ("disk full" in why or "No space" in why),
               f"collect: {collect}\n{out[-3000:]}")
        expect(stages["test_teardown"][0] == "passed", str(stages["test_teardown"]))
        expect_clean(hosts)

    elif case == "hostile_artifacts":
        canary = f"aorta-canary-{MARKER}"
        weird = f"we'ird \"$(touch {canary})\" `touch {canary}` ..name.txt"  # a name has no "/"
        hosts = write_inputs(work, 1, fault_override("faults.hostile_artifacts", weird))
        rc, out, stages, report = launch(binary, work)
        expect(rc == 0, f"exit {rc}: {stages}\n{out[-3000:]}")
        # A substitution would run in the node's repository, the suite's working
        # directory, the session's starting directory or the node's home.
        places = [os.path.join(BASE, "node1", "local", "aorta", canary), os.path.join(work, canary), f"/root/{canary}",
                  os.path.join(BASE, "node1", "home", canary)]
        expect(not any(os.path.exists(p) for p in places), "a file name ran as a command")
        root = os.path.realpath(os.path.join(work, "out"))
        names = []
        for d, dirs, files in os.walk(root):
            for f in dirs + files:
                p = os.path.join(d, f)
                expect(not os.path.islink(p), f"a link was collected: {p}")
                expect(os.path.realpath(p).startswith(root + os.sep), f"outside output_dir: {p}")
                names.append(f)
        expect("evil.pt.trace.json" not in names and "escape" not in names, "a link target was copied")
        expect(weird in names, "the odd but harmless file was not kept under its own name")
        expect([r["rank"] for r in report["per_rank_summary"]] == [0, 1], "ranks")
        import zipfile
        bundle = [os.path.join(d, f) for d, _, files in os.walk(root) for f in files if f.endswith(".zip")][0]
        entries = zipfile.ZipFile(bundle).namelist()
        expect(all(not e.startswith("/") and ".." not in e.split("/") and "torch_profiler" not in e
                   and not e.endswith(".pt.trace.json") and "evil" not in e for e in entries),
               f"the bundle holds more than the report: {entries}")
        expect_clean(hosts)

    elif case == "wrong_key":
        def stranger_key(c, w):
            key = os.path.join(w, "stranger")
            subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", key], check=True)
            c["priv_key_file"] = key
        hosts = write_inputs(work, 2, edit_cluster=stranger_key)
        rc, out, stages, _ = launch(binary, work)
        expect(rc == 1, f"exit {rc}")
        expect_failed_then_gated(stages, "test_launch_container",
                                 [hosts[0], hosts[1], "authentication as root with key", "stranger"], out)

    else:
        raise SystemExit(f"unknown case {case}")
    print(f"PASS {case}: " + ", ".join(f"{k}={v[0]}" for k, v in stages.items()))
