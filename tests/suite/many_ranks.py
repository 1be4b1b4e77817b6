#!/usr/bin/env python3
"""Reports that read at 512 ranks (issue 46): the real Aorta checkout and the
GPU-boundary double (tests/e2e/real_aorta.py) write 512 small ranks on this machine (the
nccl H200 traces of tests/data, re-ranked, with ProfilerStep annotations added so the
deck has its heatmap), once, and 2 ranks the same way. Checked: the console grows by at
most 20 lines from 2 ranks to 512; the HTML report and the Run Deck are at most 2 MB
each, the deck's charts a few dozen <svg>, its Diagnosis before the charts and its
rank x step heatmap present; both pages render in headless Chromium under Jenkins' CSP
with no violation, each in under 2 s (the time printed). Usage: many_ranks.py
AORTA_SUITE. Exits 77 (skipped) where ../shared/aorta is absent.
"""
import glob
import gzip
import json
import os
import re
import shutil
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "e2e"))
from chromium import chromium, serve  # noqa: E402
from real_aorta import ROOT, local_setup, local_variant, run_suite, skip_without_real_aorta, write_inputs  # noqa: E402
from suite_run import expect  # noqa: E402

SMALL = [os.path.join(ROOT, "tests", "data", f"h200-torch2.11-kineto-nccl_rank{r}.json.gz") for r in (0, 1)]
MAX_BYTES = 2 * 1024 * 1024
MAX_DECK_SVG = 36
MAX_GROWTH = 20
STEPS = 4


def with_steps(source, dest):
    """The trace with ProfilerStep#1..STEPS around equal parts of its CPU window, on the
    thread that launched most kernels (torch.profiler's step() marks that thread)."""
    doc = json.load(gzip.open(source))
    events = doc["traceEvents"]
    cpu = [e for e in events if e.get("ph") == "X" and e.get("cat") in ("cpu_op", "cuda_runtime", "user_annotation")]
    threads = {}
    for e in cpu:
        threads[(e["pid"], e["tid"])] = threads.get((e["pid"], e["tid"]), 0) + (e.get("cat") == "cuda_runtime")
    pid, tid = max(threads, key=threads.get)
    start = min(e["ts"] for e in cpu)
    end = max(e["ts"] + e.get("dur", 0) for e in cpu)
    part = (end - start) / STEPS
    for n in range(STEPS):
        events.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{n + 1}", "pid": pid, "tid": tid,
                       "ts": start + n * part, "dur": part})
    with gzip.open(dest, "wt") as f:
        json.dump(doc, f)


def counted_lines(console):
    """The console's lines but the progress lines paced by the clock (a line every few
    seconds while the benchmark runs or a node copies): they grow with the machine's
    speed, not with the ranks."""
    paced = re.compile(r"\[benchmark\] \d+/\d+ nodes done|\[collect\] still copying")
    return [line for line in console.splitlines() if not paced.match(line)]


def one_run(binary, ranks):
    """A passing run of `ranks` ranks on this machine: its console and its run folder (kept)."""
    work = tempfile.mkdtemp(prefix=f"many-ranks-{ranks}-")
    _, traces, env = local_setup(work)
    for name in os.listdir(traces):
        os.remove(os.path.join(traces, name))
    for source in SMALL:
        with_steps(source, os.path.join(traces, os.path.basename(source)))

    def edit(v):
        v["gpus_per_node"] = ranks
        v["container"]["env"]["NPROC"] = str(ranks)
        v["multi_node"]["master_launch_mode"] = "torchrun"
        v["trace_compression"] = "none"
    args = write_inputs(work, local_variant(work, traces, edit))
    thresholds = os.path.join(work, "mi3xx_aorta_profile_overlap_2gpu_threshold.json")
    t = json.load(open(thresholds))
    t["expected_results"]["min_compute_ratio"] = None  # the nccl traces are a collective micro-benchmark
    json.dump(t, open(thresholds, "w"))
    started = time.monotonic()
    run, rc, p = run_suite(binary, work, args, "aorta_single", env)
    expect(rc == 0 and run.report and run.report["validation_passed"], f"the {ranks}-rank run passes", p)
    expect(len(run.report["per_rank_summary"]) == ranks, f"{ranks} ranks in the JSON report", p)
    print(f"{ranks} ranks: {len(run.out.splitlines())} console lines, {time.monotonic() - started:.1f} s")
    return run, work


def render_seconds(work, page):
    """Navigation start to the page parsed and laid out, as the page's own clock says:
    a copy with a script at its end (the real page has none; file://, no CSP)."""
    probe = page[:-len(".html")] + "-timed.html"
    open(probe, "w").write(open(page).read().replace("</body>", """<script>
document.body.getBoundingClientRect();
document.body.insertAdjacentHTML('beforeend', '<p id="rendered-ms">' + performance.now() + '</p>');
</script></body>"""))
    dom = chromium(work, "--dump-dom", "file://" + probe).stdout
    os.remove(probe)
    found = re.search(r'<p id="rendered-ms">([0-9.]+)</p>', dom)
    expect(found, f"no time from {probe}: {dom[-500:]}")
    return float(found.group(1)) / 1000


def check_pages(work, run_dir):
    report = os.path.join(run_dir, "aorta_single.html")
    deck = os.path.join(run_dir, "aorta_single_html", "aorta_run_deck.html")
    for page in (report, deck):
        expect(os.path.getsize(page) <= MAX_BYTES, f"{page}: {os.path.getsize(page)} bytes, over 2 MB")
    text, deck_text = open(report).read(), open(deck).read()
    expect(deck_text.count("<svg") <= MAX_DECK_SVG, f"the deck has {deck_text.count('<svg')} <svg>")
    order = [deck_text.find(s) for s in ('id="diagnosis-section"', 'id="per-rank"', 'id="per-step"')]
    expect(-1 not in order and order == sorted(order), f"the deck's Diagnosis before its charts: {order}")
    expect('id="step-heatmap"' in deck_text, "the deck has its rank x step heatmap")
    expect('<details id="per-rank-all">' in text and "8 of 512 ranks listed" in text, "the report folds the ranks")
    print(f"HTML report {os.path.getsize(report)} bytes, {text.count('<svg')} <svg>; deck {os.path.getsize(deck)} bytes, "
          f"{deck_text.count('<svg')} <svg>")
    server = serve(run_dir)
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    for page in (report, deck):
        name = os.path.relpath(page, run_dir)
        started = time.monotonic()
        shot = chromium(work, "--enable-logging=stderr", "--v=0", f"--screenshot={os.path.join(work, 'shot.png')}",
                        base + name)
        wall = time.monotonic() - started
        expect(shot.returncode == 0 and "Content Security Policy" not in shot.stderr,
               f"{name} under Jenkins' CSP: {shot.stderr[-1500:]}")
        seconds = render_seconds(work, page)
        print(f"{name}: rendered in {seconds:.3f} s (Chromium's start and screenshot under the CSP: {wall:.1f} s)")
        expect(seconds < 2, f"{name} took {seconds:.3f} s to render, not under 2 s")
    server.shutdown()


def main(binary):
    small, small_work = one_run(binary, 2)
    large, large_work = one_run(binary, 512)
    try:
        raw = len(large.out.splitlines()) - len(small.out.splitlines())
        grown = len(counted_lines(large.out)) - len(counted_lines(small.out))
        print(f"console: +{raw} lines from 2 ranks to 512, +{grown} without the progress lines paced by time")
        expect(grown <= MAX_GROWTH, f"the console grew by {grown} lines from 2 ranks to 512:\n{large.out}\n"
                                    f"--- 2 ranks:\n{small.out}")
        expect("8 of 512 ranks listed" in large.out, "the console's rank table says how many ranks it left out")
        check_pages(large_work, large.run_dir)
        print(f"PASS many_ranks: console +{grown} lines from 2 ranks to 512; reports under 2 MB, rendered under 2 s")
    finally:
        for work in (small_work, large_work):
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    skip_without_real_aorta()
    main(os.path.abspath(sys.argv[1]))
