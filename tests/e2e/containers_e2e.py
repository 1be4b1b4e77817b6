#!/usr/bin/env python3
"""Containers on the test cluster as the original starts them: lifetime persistent
(start where it runs nowhere, attach where it runs everywhere, name the nodes that
lack it, keep it at teardown), a pull failure naming the node and the image, and a
private registry (CVS's registry object): a wrong password fails the launch naming
nodes, server and user; the right one logs every node in and the image is pulled;
the password is in none of the run's outputs.
The sudo -n fallback is not covered here: the test nodes run as root with a docker
socket root can always reach (lib/job/container_test.cc covers it with a real shell).

Usage: containers_e2e.py AORTA_SUITE CASE      (CASE: persistent, pull_failure, registry)
"""
import base64
import os
import sys
import tempfile
import uuid
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "suite"))
from suite_run import expect  # noqa: E402
from private_registry import PrivateRegistry  # noqa: E402
from test_cluster import BASE, expect_clean, launch, on_node, write_inputs  # noqa: E402

binary, case = os.path.abspath(sys.argv[1]), sys.argv[2]
NAME = f"aorta_persist_{uuid.uuid4().hex[:8]}"


def container_id(host):
    r = on_node(host, f"docker inspect -f '{{{{.State.Running}}}} {{{{.Id}}}}' {NAME}")
    return r.stdout.strip() if r.returncode == 0 else None


def found_in(folders, needles):
    """Files under the folders (and entries of zips there) holding any of the needles (bytes)."""
    hits = []
    for top in folders:
        for d, _, files in os.walk(top):
            for name in files:
                path = os.path.join(d, name)
                try:
                    data = open(path, "rb").read()
                except OSError:
                    continue
                hits += [f"{path}: {n!r}" for n in needles if n in data]
                if zipfile.is_zipfile(path):  # the report bundle, each entry as it unpacks
                    with zipfile.ZipFile(path) as z:
                        hits += [f"{path}!{e}: {n!r}" for e in z.namelist() for n in needles if n in z.read(e)]
    return hits


def registry_case(work):
    secret = f"pw-{uuid.uuid4().hex}"
    registry = PrivateRegistry("robot", secret)
    hosts, image = [], None
    try:
        registry.start()
        image = registry.push_tiny_image(f"aorta-e2e/tiny:{uuid.uuid4().hex[:8]}")
        # On the nodes: the cluster's nodes share this machine's /tmp.
        wrong, right = registry.path("wrong-password"), registry.path("password")
        for path, text in ((wrong, "not-" + secret), (right, secret)):
            with open(path, "w") as f:
                f.write(text)
            os.chmod(path, 0o600)

        def private(password_file):
            def edit(v):
                v["container"]["image"] = image
                v["container"]["runtime"]["args"]["registry"] = {"username": "robot", "password_file": password_file,
                                                                 "server": registry.server}
            return edit
        hosts = write_inputs(work, 2, private(wrong))
        for h in hosts:
            r = on_node(h, f'mkdir -p "{registry.certs_dir()}" && cp {registry.path("ca.crt")} "{registry.certs_dir()}/"')
            expect(r.returncode == 0, f"{h}: {r.stderr}")
        rc, out, stages, _ = launch(binary, work)
        launch_stage = stages["test_launch_container"]
        expect(rc == 1 and launch_stage[0] == "failed", f"wrong password: exit {rc}, {launch_stage}\n{out[-3000:]}")
        for m in [f"docker login to {registry.server} as robot failed on [{hosts[0]}, {hosts[1]}]",
                  f"password_file {wrong} exists on those nodes", "401 Unauthorized"]:
            expect(m in launch_stage[1], f"message lacks {m!r}: {launch_stage[1]}")
        first_out = out

        write_inputs(work, 2, private(right))
        rc, out, stages, _ = launch(binary, work)
        expect(stages["test_launch_container"][0] == "passed", f"right password: {stages}\n{out[-3000:]}")
        for h in hosts:  # pulled there, from the registry
            r = on_node(h, f"docker image inspect -f '{{{{.Id}}}}' {image}")
            expect(r.returncode == 0, f"{h} has not got {image}: {r.stderr}")
        # The tiny image has no shell: the stages after the launch fail, every output is written.
        expect(rc == 1 and stages["test_clone_aorta"][0] == "failed", f"exit {rc}: {stages}")
        # Each node's node-local storage (its checkout and run folders), by its address 10.211.0.1I.
        nodes_local = [os.path.join(BASE, f"node{int(h.rsplit('.', 1)[1]) - 10}", "local") for h in hosts]
        docker_auth = base64.b64encode(f"robot:{secret}".encode())
        hits = found_in([work] + nodes_local, [secret.encode(), docker_auth])
        expect(not hits, "the password is in the run's outputs:\n" + "\n".join(hits))
        expect(secret not in first_out + out, "the password is on the console")
        print(f"ok: {len(hosts)} nodes logged in to {registry.server} and pulled {image}; the password is in no output")
    finally:
        for h in hosts if image else []:
            on_node(h, f'docker rmi -f {image} >/dev/null 2>&1; docker logout {registry.server} >/dev/null 2>&1; '
                       f'rm -rf "{registry.certs_dir()}"; rmdir "$HOME/.config/containers/certs.d" "$HOME/.config/containers" '
                       '"$HOME/.config" 2>/dev/null')  # those made for it, if left empty
        registry.stop()
    expect(registry.left_running() == "", f"the registry still runs: {registry.left_running()}")
    expect_clean(hosts)


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
    elif case == "registry":
        registry_case(work)
    else:
        sys.exit(f"unknown case {case}")
print("ok")
