#!/usr/bin/env python3
"""End to end on the project's test cluster (ci/testcluster.sh): real sshd nodes,
real containers (podman behind the docker CLI), real torchrun across nodes, real
traces brought home over SFTP.

Usage: cluster_e2e.py AORTA_SUITE single|distributed|failing_thresholds
  single              aorta_single on node 1
  distributed         aorta_distributed on nodes 1-3 (3 x 2 ranks)
  failing_thresholds  aorta_distributed with a gate no run can meet
BASE (default /tmp/aorta-tc) is where testcluster.sh keeps its files.
"""
import glob
import json
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "suite"))
from suite_run import expect, run  # noqa: E402
from test_cluster import expect_clean, passing_stages, write_inputs  # noqa: E402

CHECKER = os.path.join(HERE, "..", "..", "tools", "independent_metrics.py")

binary, mode = os.path.abspath(sys.argv[1]), sys.argv[2]
nodes = 1 if mode == "single" else 3


def impossible_gate(thresholds):
    thresholds["expected_results"]["max_avg_iteration_ms"] = 0.001  # no real run is this fast


with tempfile.TemporaryDirectory() as work:
    hosts = write_inputs(work, nodes, edit_thresholds=impossible_gate if mode == "failing_thresholds" else None)
    suite = "aorta_single" if mode == "single" else "aorta_distributed"

    p, stages, report = run(binary, work, "--cluster_file", os.path.join(work, "cluster.json"), "--config_file",
                            os.path.join(work, "cpu_docker.json"), f"--gtest_filter={suite}.*")
    outcomes = {k: v[0] for k, v in stages.items()}
    expected = passing_stages(binary, distributed=mode != "single")
    if mode == "failing_thresholds":
        expected["test_validate_thresholds"] = "failed"
    expect(outcomes == expected, f"stages {outcomes}", p)
    expect(p.returncode == (1 if mode == "failing_thresholds" else 0), f"exit status {p.returncode}", p)

    # Every node's collection is a passed sub-test naming the node.
    collect = stages["test_collect_traces"][2]
    expect(sorted(collect) == sorted(f"[trace collection] (host={h}): passed" for h in hosts), str(collect))

    expect(report is not None, "no aorta_benchmark_report.json", p)
    ranks = report["per_rank_summary"]
    expect([r["rank"] for r in ranks] == list(range(2 * nodes)), f"ranks {[r['rank'] for r in ranks]}")
    expect(report["cluster"] == {"nodes": nodes, "gpus_per_node": 2, "total_gpus": 2 * nodes}, str(report["cluster"]))
    for r in ranks:
        ref = json.loads(subprocess.run([sys.executable, CHECKER, r["source"]], check=True, capture_output=True,
                                        text=True).stdout)
        # gloo on CPU: both sides on the CPU timeline.
        expect(r["parser"] == ref["parser"] == "cpu_timeline", f"rank {r['rank']} parser {r['parser']} vs {ref['parser']}")
        for key in ("total_time_us", "compute_time_us", "comm_time_us", "compute_ratio", "comm_ratio", "overlap_ratio"):
            expect(abs(r[key] - ref[key]) <= 1e-9 * max(1, abs(ref[key])), f"rank {r['rank']} {key}: {r[key]} vs {ref[key]}")
    mean = sum(r["total_time_us"] for r in ranks) / len(ranks)
    expect(abs(report["performance"]["avg_iteration_time_ms"] - mean / 1000) < 1e-9, "avg_iteration_time_ms")

    run_dir = glob.glob(os.path.join(work, "out", "*", ""))[0]
    if mode != "single":
        # Traces land per node: combined_traces/node_<i>/<output dir>/torch_profiler/.
        for i in range(nodes):
            found = glob.glob(os.path.join(run_dir, "combined_traces", f"node_{i}", "**", "*.json*"), recursive=True)
            expect(len(found) == 2, f"node_{i}: {len(found)} traces ({found})")
    for i in range(nodes):
        expect(os.path.exists(os.path.join(run_dir, f"benchmark-node-{i}.log")), f"benchmark log of node {i} missing")
    for name in (f"{suite}.xml", f"{suite}.log", f"{suite}.html"):
        expect(os.path.exists(os.path.join(run_dir, name)), f"{name} not written")

    if mode == "failing_thresholds":
        failed = [t for t in stages["test_validate_thresholds"][2] if ": failed" in t]
        expect(len(failed) == 1 and "max_avg_iteration_ms" in failed[0], f"failed sub-tests {failed}")
        expect(report["validation_passed"] is False, "validation_passed")
        suite_el = ET.parse(run.last_xml).getroot().find("testsuite")
        expect(int(suite_el.get("failures")) >= 1, f"JUnit failures {suite_el.attrib}")

    expect_clean(hosts)  # nothing is left behind on any node
    print(f"PASS {mode}: {len(ranks)} ranks on {nodes} node(s), avg iteration "
          f"{report['performance']['avg_iteration_time_ms']:.1f} ms")
