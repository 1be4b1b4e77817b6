#!/usr/bin/env python3
"""GPU telemetry joined to the diagnosis, end to end (issue 47, "done when"): the real
Aorta checkout and the GPU-boundary double write 4 ranks on this machine, made from a
real H200 Aorta trace (tools/perturb_trace.py: ranks 0-2 a healthy spread, rank 3's
GEMMs 15 % slower, each rank's kernels on GPU <rank>), while the nvidia-smi double
(tests/doubles/gpu_tools) is the node's GPU tool:
  1. GPU 3 thermally throttled from the first tick: rank 3's finding carries its GPU's
     evidence in the JSON report, the console, the HTML report and the Run Deck;
  2. GPU 3's uncorrectable ECC count rises, max_gpu_uncorrectable_errors 0 configured:
     the gate fails naming the node and GPU 3 (JSON, JUnit), the run exits 1.
Usage: telemetry_diagnosis.py AORTA_SUITE. Exits 77 (skipped) where ../shared/aorta is absent.
"""
import glob
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "e2e"))
from real_aorta import AORTA, ROOT, local_setup, local_variant, run_suite, write_inputs  # noqa: E402
from suite_run import expect  # noqa: E402

SOURCE = os.path.join(ROOT, "tests", "data", "h200-aorta-overlap_rank1.pt.trace.json.gz")
GPU_TOOLS = os.path.join(ROOT, "tests", "doubles", "gpu_tools", "nvidia-smi-only")
RANKS = 4
SLOW = 3  # the rank (and GPU) the double makes sick


def make_ranks(folder):
    """Ranks 0-2 scaled as a whole by 1.00, 1.01, 0.99; rank 3's GEMMs 15 % slower."""
    kinds = [("all", 1.00), ("all", 1.01), ("all", 0.99), ("gemm", 1.15)]
    procs = [subprocess.Popen(["/usr/bin/python3", os.path.join(ROOT, "tools", "perturb_trace.py"), SOURCE,
                               os.path.join(folder, f"rank{r}.json"), "--kind", kind, "--factor", str(factor),
                               "--rank", str(r), "--world-size", str(RANKS), "--device", str(r)])
             for r, (kind, factor) in enumerate(kinds)]
    expect(all(p.wait() == 0 for p in procs), "perturb_trace.py failed")


def one_run(binary, traces, work, scenario, gate=None):
    _, own_traces, env = local_setup(work)
    # The sampler runs where the training does (here: this machine, the suite's PATH).
    env.update(PATH=f"{GPU_TOOLS}:{env['PATH']}", AORTA_GPU_DOUBLE=scenario, AORTA_GPU_DOUBLE_GPUS=str(RANKS),
               AORTA_GPU_DOUBLE_STATE=os.path.join(work, "double"))

    def edit(v):
        v["gpus_per_node"] = RANKS
        v["container"]["env"]["NPROC"] = str(RANKS)
        v["container"]["env"]["AORTA_GPU_DOUBLE_TRACES"] = traces
        v["multi_node"]["master_launch_mode"] = "torchrun"
        v["trace_compression"] = "none"
    args = write_inputs(work, local_variant(work, own_traces, edit))
    thresholds = os.path.join(work, "mi3xx_aorta_profile_overlap_2gpu_threshold.json")
    t = json.load(open(thresholds))
    if gate:
        t["expected_results"].update(gate)
    json.dump(t, open(thresholds, "w"))
    run, rc, p = run_suite(binary, work, args, "aorta_single", env)
    return run, rc, p


def pages(run):
    html = open(os.path.join(run.run_dir, "aorta_single.html")).read()
    deck = open(os.path.join(run.run_dir, "aorta_single_html", "aorta_run_deck.html")).read()
    return html, deck


def throttled(binary, traces):
    with tempfile.TemporaryDirectory(prefix="telemetry-throttle-") as work:
        checked_throttled(*one_run(binary, traces, work, "throttle=1"))


def checked_throttled(run, rc, p):
    expect(rc == 0 and run.report and run.report["validation_passed"], f"the throttled run passes (exit {rc})", p)
    findings = [f for f in run.report["diagnosis"]["outliers"] if f.get("rank") == SLOW and not f["of_node"]]
    expect(findings, f"rank {SLOW} is not named: {run.report['diagnosis']['outliers']}", p)
    evidence = findings[0]["evidence"] or ""
    expect(findings[0]["gpu"] == SLOW and "throttled" in evidence, f"rank {SLOW}'s finding: {findings[0]}", p)
    others = [f for f in run.report["diagnosis"]["outliers"] if f.get("rank") not in (None, SLOW)]
    expect(not others, f"healthy ranks named: {others}", p)
    gpus = {g["gpu"]: g for g in run.report["telemetry"]["gpus"]}
    expect(sorted(gpus) == list(range(RANKS)), f"telemetry of GPUs {sorted(gpus)}", p)
    expect(gpus[SLOW]["throttle_share"] and not any(gpus[g]["throttle_share"].get("hw_thermal_slowdown")
                                                     for g in range(SLOW)), f"throttle shares {gpus}", p)
    html, deck = pages(run)
    for name, text in (("console", run.out), ("HTML report", html), ("Run Deck", deck)):
        expect(evidence.split(";")[0][:40] in text.replace("&#39;", "'"), f"the {name} lacks the evidence '{evidence}'", p)
    print(f"ok: rank {SLOW} named with its GPU's evidence in the JSON, console, HTML and deck: {evidence}")


def ecc(binary, traces):
    with tempfile.TemporaryDirectory(prefix="telemetry-ecc-") as work:
        checked_ecc(*one_run(binary, traces, work, "ecc", {"max_gpu_uncorrectable_errors": 0}))


def checked_ecc(run, rc, p):
    expect(rc == 1 and run.report and not run.report["validation_passed"], f"the ECC run fails (exit {rc})", p)
    gates = [g for g in run.report["gates"] if g["key"] == "max_gpu_uncorrectable_errors"]
    expect(gates and gates[0]["outcome"] == "failed", f"gates {run.report['gates']}", p)
    junit = open(glob.glob(os.path.join(run.run_dir, "*.xml"))[0]).read()
    named = f"GPU {SLOW}"
    expect(named in json.dumps(gates[0]) and named in junit, f"the gate does not name GPU {SLOW}: {gates[0]}", p)
    print(f"ok: new uncorrectable ECC errors fail the configured gate naming GPU {SLOW}: {gates[0]}")


def main():
    if not os.path.isdir(AORTA):
        print(f"skipped: no Aorta checkout at {AORTA}")
        sys.exit(77)
    binary = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory() as traces:
        make_ranks(traces)
        throttled(binary, traces)
        ecc(binary, traces)


if __name__ == "__main__":
    main()
