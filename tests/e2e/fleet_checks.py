#!/usr/bin/env python3
"""Checks on the simulated fleet (tests/e2e/fleet.py's nodes, doubles and runs) beyond a
plain run:

  fleet_checks.py AORTA_SUITE check-package NODES RANKS BUILD_DIR   the head runs the relocatable package
                                               (cmake --install BUILD_DIR --strip, the TGZ's layout)
                                               with analysis on the nodes: the package is placed in
                                               each node's own storage, every file's SHA-256 equal to
                                               the install's (hashlib), the nodes run it, every rank's
                                               metrics match the checker and the figures equal a
                                               head-side run's (==); a second run places nothing
  fleet_checks.py AORTA_SUITE check-outliers         2 nodes x 2 ranks made from a real H200 Aorta trace, rank 3's
                                               GEMMs 15 % slower (tools/perturb_trace.py), analyzed on the
                                               nodes with archive_traces outliers: only rank 3's trace comes
                                               home, its figures equal the independent checker's, the others
                                               are named host:path and are on their nodes
  fleet_checks.py AORTA_SUITE check-agents    a managed run on the fleet's own Slurm (srun, one task a
                                               node, every node an agent) with the nvidia-smi double:
                                               every node's GPUs sampled through its agent, every rank's
                                               metrics match the checker, no sampler or suite process left;
                                               skipped (77) while the test cluster's Slurm holds the ports
Exits 77 (skipped) when ../shared/aorta is absent.
"""
import fcntl
import glob
import hashlib
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from fleet import (FLEET, NODE_DIR, SMALL_TRACES, analyzed, expect, expect_checker_figures,  # noqa: E402
                   first_difference, measure_agents, prepare_nodes, results, run_fleet, skip_without_real_aorta,
                   testcluster)


def package_files(prefix):
    """The install's files by the names the package places them under, and their SHA-256
    (a library by its link's name: the name the binary loads)."""
    files = {"bin/aorta_suite": os.path.join(prefix, "bin", "aorta_suite")}
    libs = os.path.join(prefix, "lib", "aorta_suite")
    targets = {os.path.realpath(os.path.join(libs, n)) for n in os.listdir(libs) if os.path.islink(os.path.join(libs, n))}
    for name in sorted(os.listdir(libs)):
        path = os.path.join(libs, name)
        if os.path.islink(path) or (os.path.isfile(path) and os.path.realpath(path) not in targets):
            files["lib/aorta_suite/" + name] = path
    return {name: sha256_of(path) for name, path in files.items()}


def sha256_of(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def check_package(binary, nodes, ranks, build):
    testcluster("down")
    testcluster("up", nodes)
    try:
        prepare_nodes(nodes, SMALL_TRACES)
        with tempfile.TemporaryDirectory() as prefix:
            subprocess.run(["cmake", "--install", build, "--prefix", prefix, "--strip"], check=True,
                           stdout=subprocess.DEVNULL)
            packaged = os.path.join(prefix, "bin", "aorta_suite")
            want = package_files(prefix)
            head, _ = analyzed(packaged, nodes, ranks, True, "head")
            for attempt, placed in ((1, nodes), (2, 0)):
                with tempfile.TemporaryDirectory() as work:
                    rc, out, _ = run_fleet(packaged, work, nodes, ranks, analysis={"where": "nodes"})
                    p = type("P", (), {"stdout": out, "stderr": ""})
                    stages, report = results(work)
                    expect(rc == 0 and report and report["validation_passed"], f"run {attempt} passes (exit {rc})", p)
                    said = [line for line in out.splitlines() if "Suite package " in line]
                    print(said[0].strip() if said else "(no placement line)")
                    expect(len(said) == 1 and f"already on {nodes - placed} of {nodes} node(s), placed on {placed}"
                           in said[0], f"run {attempt} says what it placed: {said}", p)
                    held = []
                    for i in range(1, nodes + 1):
                        found = glob.glob(os.path.join(FLEET["BASE"], f"node{i}", "local", "fleet", "**", ".cvs-aorta",
                                                       "package", "*"), recursive=True)
                        expect(len(found) == 1, f"node{i} holds one package folder: {found}")
                        got = {name: sha256_of(os.path.join(found[0], name)) for name in want}
                        expect(got == want, f"node{i}'s placed files equal the install's: {got} vs {want}")
                        held.append(os.path.basename(found[0]))
                    ran = [line for line in out.splitlines() if "Node-side analysis: " in line]
                    node_binary = f"{NODE_DIR}/repo/.cvs-aorta/package/{held[0]}/bin/aorta_suite"
                    expect(ran and f"by {node_binary}" in ran[0], f"the nodes ran the placed binary: {ran}", p)
                    for r in report["per_rank_summary"]:
                        expect_checker_figures(r)
                    expect(len(report["per_rank_summary"]) == nodes * ranks, "every rank analyzed")
                    from node_analysis import name_by_folder
                    run_dir = os.path.dirname(glob.glob(os.path.join(work, "out", "*", "aorta_benchmark_report.json"))[0])
                    name_by_folder(report, run_dir)
                    for key in ("per_rank_summary", "performance", "diagnosis"):
                        expect(report[key] == head[key], f"{key} differs between head-side and node-side analysis: "
                                                         f"{first_difference(head[key], report[key], key)}")
            print(f"PASS fleet check-package: {len(want)} files placed on {nodes} nodes, SHA-256 equal to the install's; "
                  "the nodes ran it, their merged figures equal head-side analysis (==); the second run placed nothing")
    finally:
        testcluster("down")


def check_outliers(binary):
    from telemetry_diagnosis import make_ranks
    nodes, ranks, slow = 2, 2, 3
    testcluster("down")
    testcluster("up", nodes)
    try:
        with tempfile.TemporaryDirectory() as made, tempfile.TemporaryDirectory() as work:
            make_ranks(made)  # rank0.json .. rank3.json: the double gives rank N the N-th file
            prepare_nodes(nodes, sorted(glob.glob(os.path.join(made, "*.json"))))
            rc, out, _ = run_fleet(binary, work, nodes, ranks, small=False,
                                   analysis={"where": "nodes", "archive_traces": "outliers"})
            p = type("P", (), {"stdout": out, "stderr": ""})
            stages, report = results(work)
            expect(rc == 0 and report and report["validation_passed"], f"the run passes (exit {rc})", p)
            named = sorted({f["rank"] for f in report["diagnosis"]["outliers"] if not f["of_node"]})
            expect(named == [slow], f"the diagnosis names rank {slow} alone: {report['diagnosis']['outliers']}", p)
            run_dir = os.path.dirname(glob.glob(os.path.join(work, "out", "*", "aorta_benchmark_report.json"))[0])
            traces = report["traces"]
            expect(traces["analyzed_on"] == "nodes" and traces["archive"] == "outliers" and
                   len(traces["kept_here"]) == 1 and traces["left_on_nodes"] == nodes * ranks - 1,
                   f"the traces block: {traces}", p)
            home = [f for f in glob.glob(os.path.join(run_dir, "**", "*"), recursive=True)
                    if os.path.isfile(f) and ("trace" in os.path.basename(f) or "rank" in f) and
                    os.path.basename(f).endswith((".json", ".json.gz", ".json.zst"))
                    and "report" not in os.path.basename(f)]
            by_rank = {r["rank"]: r for r in report["per_rank_summary"]}
            kept = traces["kept_here"][0]
            expect(by_rank[slow]["source"] == kept and os.path.isfile(kept), f"rank {slow}'s trace is home: {kept}")
            expect(home == [kept], f"the one trace in the run folder is rank {slow}'s: {home}")
            expect_checker_figures(by_rank[slow])  # its source is the kept trace (above)
            cluster = json.load(open(os.path.join(FLEET["BASE"], "cluster.json")))
            hosts = list(cluster["node_dict"])
            for rank, r in by_rank.items():
                if rank == slow:
                    continue
                host, _, path = r["source"].partition(":")
                node = hosts.index(host) + 1 if host in hosts else 0
                expect(node == rank // ranks + 1 and path.startswith(NODE_DIR + "/"),
                       f"rank {rank} is named on its node: {r['source']}")
                on_node = os.path.join(FLEET["BASE"], f"node{node}", "local", "fleet", os.path.relpath(path, NODE_DIR))
                expect(os.path.isfile(on_node), f"rank {rank}'s trace is on node{node}: {on_node}")
            print(f"PASS fleet check-outliers: rank {slow} named and its trace alone came home; "
                  f"{nodes * ranks - 1} traces named on their nodes")
    finally:
        testcluster("down")


def check_agents(binary, nodes, ranks):
    def inspect(work, out, exit_code):
        p = type("P", (), {"stdout": out, "stderr": ""})
        reports = glob.glob(os.path.join(work, "out", "*", "aorta_benchmark_report.json"))
        expect(exit_code == 0 and len(reports) == 1, f"the managed run passes (exit {exit_code})", p)
        report = json.load(open(reports[0]))
        expect(report["validation_passed"], "the managed run's gates pass", p)
        telemetry = report.get("telemetry") or {}
        tools = [n["tool"] for n in telemetry.get("nodes", [])]
        expect(tools == ["nvidia-smi"] * nodes, f"each node's GPU tool through its agent: {tools}", p)
        gpus = telemetry.get("gpus", [])
        expect(len(gpus) == nodes * 8 and all(g["samples"] >= 1 for g in gpus),
               f"every node's 8 GPUs sampled: {[(g['node'], g['gpu'], g['samples']) for g in gpus]}", p)
        expect(len(report["per_rank_summary"]) == nodes * ranks, "every rank analyzed", p)
        for r in report["per_rank_summary"]:
            expect_checker_figures(r)
        left = [line for line in subprocess.run(["pgrep", "-af", "telemetry.sh|aorta_suite"], capture_output=True,
                                                text=True).stdout.splitlines() if work in line or NODE_DIR in line]
        expect(not left, f"samplers or suite processes left on the fleet: {left}")

    with tempfile.TemporaryDirectory() as traces:
        for t in SMALL_TRACES:
            os.symlink(t, os.path.join(traces, os.path.basename(t)))
        if not measure_agents(binary, nodes, ranks, traces, inspect):
            print("SKIPPED: the test cluster's Slurm holds the ports the fleet's Slurm needs")
            sys.exit(77)
    print(f"PASS fleet check-agents: {nodes} nodes x {ranks} ranks through agents, every GPU sampled, "
          "every rank's metrics match")


if __name__ == "__main__":
    skip_without_real_aorta()
    lock = open("/tmp/aorta-fleet.lock", "a")  # one fleet on this machine at a time
    fcntl.flock(lock, fcntl.LOCK_EX)
    binary, mode = os.path.abspath(sys.argv[1]), sys.argv[2]
    if mode == "check-package":
        check_package(binary, int(sys.argv[3]), int(sys.argv[4]), sys.argv[5])
    elif mode == "check-outliers":
        check_outliers(binary)
    elif mode == "check-agents":
        check_agents(binary, int(sys.argv[3]), int(sys.argv[4]))
    else:
        sys.exit(__doc__)
