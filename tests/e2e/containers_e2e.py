#!/usr/bin/env python3
"""Containers on the test cluster as the original starts them: lifetime persistent
(start where it runs nowhere, attach where it runs everywhere, name the nodes that
lack it, keep it at teardown) and a pull failure naming the node and the image.
The sudo -n fallback is not covered here: the test nodes run as root with a docker
socket root can always reach (lib/job/container_test.cc covers it with a real shell).

Usage: containers_e2e.py AORTA_SUITE CASE      (CASE: persistent, pull_failure)
"""
import os
import sys
import tempfile
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "suite"))
from suite_run import expect  # noqa: E402
from test_cluster import expect_clean, launch, on_node, write_inputs  # noqa: E402

binary, case = os.path.abspath(sys.argv[1]), sys.argv[2]
NAME = f"aorta_persist_{uuid.uuid4().hex[:8]}"


def container_id(host):
    r = on_node(host, f"docker inspect -f '{{{{.State.Running}}}} {{{{.Id}}}}' {NAME}")
    return r.stdout.strip() if r.returncode == 0 else None


with tempfile.TemporaryDirectory() as work:
    if case == "persistent":
        def persistent(v):
            v["container"]["lifetime"] = "persistent"
            v["container"]["name"] = NAME
        hosts = write_inputs(work, 2, persistent)
        try:
            # Runs nowhere: started, and left running by teardown.
            rc, out, stages, _ = launch(binary, work)
            expect(rc == 0, f"first run exit {rc}: {stages}\n{out[-3000:]}")
            first = {h: container_id(h) for h in hosts}
            for h in hosts:
                expect(first[h] and first[h].startswith("true "), f"{h}: not left running: {first[h]}")
            # Runs everywhere: attached, the same containers.
            rc, out, stages, _ = launch(binary, work)
            expect(rc == 0, f"second run exit {rc}: {stages}\n{out[-3000:]}")
            for h in hosts:
                expect(container_id(h) == first[h], f"{h}: recreated ({first[h]} -> {container_id(h)})")
            # Runs on node 1 only: the run fails naming node 2, and node 1's is kept.
            on_node(hosts[1], f"docker rm -f {NAME}")
            rc, out, stages, _ = launch(binary, work)
            expect(rc == 1, f"third run exit {rc}")
            outcome, message = stages["test_launch_container"][0], stages["test_launch_container"][1]
            expect(outcome == "failed", f"test_launch_container: {outcome}: {message}")
            for m in [f"runs on [{hosts[0]}] but not on [{hosts[1]}]", "lifetime per_run"]:
                expect(m in message, f"message lacks {m!r}: {message}")
            expect(container_id(hosts[0]) == first[hosts[0]], "node 1's persistent container was touched")
            expect(container_id(hosts[1]) is None, "node 2 got a container")
        finally:
            for h in hosts:
                on_node(h, f"docker rm -f {NAME} >/dev/null 2>&1")
        expect_clean(hosts)

    elif case == "pull_failure":
        image = f"localhost/aorta-nowhere-{uuid.uuid4().hex[:8]}:1"

        def missing(v):
            v["container"]["image"] = image
        hosts = write_inputs(work, 2, missing)
        rc, out, stages, _ = launch(binary, work)
        expect(rc == 1, f"exit {rc}")
        outcome, message = stages["test_launch_container"][0], stages["test_launch_container"][1]
        expect(outcome == "failed", f"test_launch_container: {outcome}: {message}")
        for m in [f"Aorta container setup failed for image '{image}'",
                  f"docker pull failed on [{hosts[0]}, {hosts[1]}]", "registry"]:
            expect(m in message, f"message lacks {m!r}: {message}")
        expect_clean(hosts)
    else:
        sys.exit(f"unknown case {case}")
print("ok")
