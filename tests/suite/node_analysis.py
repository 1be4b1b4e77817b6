#!/usr/bin/env python3
"""Node-side analysis (analysis.where "nodes") gives the numbers head-side analysis
gives, to the bit. The same traces (the GPU-boundary double's real H200 traces, as in
tests/e2e/real_aorta.py) run twice on the local default in torchrun mode, once per
mode: the JSON reports' per-rank figures (every step), performance and diagnosis are
equal, every double compared with ==, and each rank's metrics also match the
independent checker. A third run keeps no trace (analysis.archive_traces none): none
comes home, each rank names its trace on the node (localhost:path), and the figures are
the same. Each trace is named by its folder (the double names its files by
process id and time). Usage: node_analysis.py AORTA_SUITE. Exits 77 (skipped) where
../shared/aorta is absent.
"""
import glob
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "e2e"))
from real_aorta import check_passed, local_setup, local_variant, run_suite, skip_without_real_aorta, write_inputs  # noqa: E402
from suite_run import expect  # noqa: E402


def name_by_folder(doc, run_dir):
    """Every trace named by its folder in the run: the double names each trace file by
    its process id and time, so the same trace has another name in each run."""
    if isinstance(doc, dict):
        for key, value in doc.items():
            if key == "source" and isinstance(value, str):
                doc[key] = os.path.dirname(os.path.relpath(value, run_dir))
            else:
                name_by_folder(value, run_dir)
    elif isinstance(doc, list):
        for value in doc:
            name_by_folder(value, run_dir)


def one_run(binary, where, archive="all"):
    """The report of a run analyzed where `where` says, its sources relative to its run
    folder; with archive_traces none, the sources as they are (host:path on the node)."""
    with tempfile.TemporaryDirectory() as work:
        _, traces, env = local_setup(work)

        def edit(v):
            v["multi_node"]["master_launch_mode"] = "torchrun"
            v["analysis"].update(where=where, archive_traces=archive)
        run, rc, p = run_suite(binary, work, write_inputs(work, local_variant(work, traces, edit)), "aorta_single", env)
        if archive == "all":
            check_passed(binary, run, rc, p, "aorta_single", 2)
            name_by_folder(run.report, run.run_dir)
        else:
            expect(rc == 0 and run.report["validation_passed"], f"the archive_traces {archive} run passes", p)
            kept = glob.glob(os.path.join(run.run_dir, "**", "*.json*"), recursive=True)
            expect(not [f for f in kept if "torch_profiler" in f], f"no trace came home: {kept}", p)
            sources = [r["source"] for r in run.report["per_rank_summary"]]
            expect(all(s.startswith("localhost:" + work) for s in sources), f"named on their node: {sources}", p)
        logs = "".join(open(f, errors="replace").read() for f in glob.glob(os.path.join(run.run_dir, "*.log")))
        said = "Node-side analysis: 2 trace(s) read on 1 node(s)" in run.out + logs
        expect(said == (where == "nodes"), f"the {where} run says whether the nodes read the traces", p)
        return run.report


def main(binary):
    head, nodes = one_run(binary, "head"), one_run(binary, "nodes")
    for key in ("per_rank_summary", "performance", "diagnosis"):
        expect(nodes[key] == head[key], f"{key} differs between head-side and node-side analysis:\n"
                                        f"head  {str(head[key])[:1500]}\nnodes {str(nodes[key])[:1500]}")
    kept_none = one_run(binary, "nodes", "none")
    for doc in (head, kept_none):
        for rank in doc["per_rank_summary"]:
            del rank["source"]
    expect(kept_none["per_rank_summary"] == head["per_rank_summary"], "archive_traces none: the same per-rank figures")
    expect(kept_none["performance"] == head["performance"], "archive_traces none: the same performance")
    steps = sum(len(r.get("steps") or []) for r in head["per_rank_summary"])
    expect(steps > 0, "the ranks' per-step figures are compared too")
    print(f"PASS node_analysis: 2 ranks, {steps} per-step rows, performance and diagnosis equal (==) "
          "between head-side and node-side analysis; archive_traces none keeps no trace, same figures")


if __name__ == "__main__":
    skip_without_real_aorta()
    main(os.path.abspath(sys.argv[1]))
