#!/usr/bin/env python3
"""Both HTML reports as a person sees them: rendered by headless Chromium (Debian's
chromium, no network), DOM checked after rendering, screenshots produced.
Usage: reports_in_chromium.py AORTA_SUITE
"""
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

import html_report
import png_pixels
from chromium import chromium, serve
from suite_run import expect

binary = os.path.abspath(sys.argv[1])
FAILED_RED = (0xcf, 0x22, 0x2e)


with tempfile.TemporaryDirectory() as work:
    for name in ("local_cpu_single.json", "local_cpu_threshold.json"):
        subprocess.run([binary, "config", "copy", name, "--output", os.path.join(work, name)], check=True,
                       stdout=subprocess.DEVNULL)
    thresholds = os.path.join(work, "local_cpu_threshold.json")
    t = json.load(open(thresholds))
    t["expected_results"]["max_avg_iteration_ms"] = 0.001  # one failing sub-test to show
    json.dump(t, open(thresholds, "w"))
    p = subprocess.run([binary, "--config_file", os.path.join(work, "local_cpu_single.json"), "--output_dir",
                        os.path.join(work, "out")], capture_output=True, text=True, cwd=work)
    expect(p.returncode == 1, f"exit {p.returncode}", p)
    report = glob.glob(os.path.join(work, "out", "*", "aorta_single.html"))[0]
    deck = os.path.join(os.path.dirname(report), "aorta_single_html", "aorta_run_deck.html")

    dom = chromium(work, "--dump-dom", "file://" + report)
    expect(dom.returncode == 0 and "<tbody" in dom.stdout, f"chromium could not render the report: {dom.stderr[-500:]}")
    rendered = os.path.join(work, "rendered.html")
    open(rendered, "w").write(dom.stdout)
    rows, links, _ = html_report.read(rendered)
    # One row per stage (10); the 3 sub-tests (a collecting node, two thresholds) in their stages' panels.
    expect(len(rows) == 10, f"{len(rows)} rows")
    expect(sum(len(r["subtest_links"]) for r in rows) == 3, str([r["subtest_links"] for r in rows]))
    thresholds_row = [r for r in rows if r["cells"]["col-name"].endswith("::test_validate_thresholds")][0]
    expect(thresholds_row["class"] == "failed" and
           thresholds_row["subtests"][0] == {"result": "Failed", "label": "[threshold] (metric=max_avg_iteration_ms)"},
           str(thresholds_row))
    missing = [l for l in links if not os.path.exists(os.path.join(os.path.dirname(report), l))]
    expect(not missing and "aorta_single_html/aorta_run_deck.html" in links, f"links {links}, missing {missing}")

    deck_dom = chromium(work, "--dump-dom", "file://" + deck).stdout
    for needle in ("Aorta Run Deck", "Threshold gates", "Time by rank", "Share of iteration by rank",
                   "max_avg_iteration_ms", "Metrics source", 'id="overall-status" class="verdict fail"', "gtest stages",
                   "HTML report", 'id="step-heatmap"', 'class="gate" data-threshold="max_avg_iteration_ms"'):
        expect(needle in deck_dom, f"deck DOM lacks {needle!r}")
    # The CPU run: no accelerator fields, no pytest wording.
    for needle in ("NCCL channels", "RCCL branch", "Pytest"):
        expect(needle not in deck_dom, f"deck DOM has {needle!r} on a CPU run")
    expect(deck_dom.count("<svg") >= 4, "deck charts are inline SVG")

    # Issue 45, 7: the gates and the Diagnosis right after the verdict, before the run
    # card and the charts; at 800 px every gate's reason inside its card, not scrolled
    # out of it (a copy of the deck measures itself: the real one has no script).
    order = [deck_dom.find(s) for s in ('id="overall-status"', 'id="gates"', 'id="diagnosis-section"', 'id="run-card"',
                                        'id="per-rank"')]
    expect(-1 not in order and order == sorted(order), f"deck sections in order {order}")
    probe = os.path.join(os.path.dirname(deck), "deck-at-800.html")
    open(probe, "w").write(open(deck).read().replace("</body>", """<script>
const hidden = [];
const reasons = document.querySelectorAll('#gates td.reason');
for (const td of reasons) {
  const card = td.closest('section').getBoundingClientRect(), r = td.getBoundingClientRect();
  if (r.right > card.right || r.width < 100) hidden.push(td.textContent + ' at ' + r.left + '-' + r.right + ' of ' + card.right);
}
document.body.insertAdjacentHTML('beforeend', '<p id="layout">' + reasons.length + ' reasons, hidden: ' + hidden.join('; ') + '</p>');
</script></body>"""))
    probed = chromium(work, "--dump-dom", "--window-size=800,1000", "file://" + probe).stdout
    os.remove(probe)
    layout = re.search(r'<p id="layout">(\d+) reasons, hidden: (.*?)</p>', probed)
    expect(layout and int(layout.group(1)) >= 1 and not layout.group(2),
           f"at 800 px a gate's reason is out of its card: {layout.group(0) if layout else probed[-600:]}")

    # The report: the gate cells in their unit, the failed metric marked in words, the
    # per-rank table and a Diagnosis line on this CPU run.
    for needle in ("≤ 0.001 ms</td>", '<tr class="gate-failed"><th>avg iteration time', "fails max_avg_iteration_ms",
                   '<table id="per-rank">', "No diagnosis: no rank has kernels on a GPU timeline."):
        expect(needle in dom.stdout, f"the report lacks {needle!r}")

    # Readable with styles off: the verdict is words, the facts are tables.
    failed = sum(r["class"] == "failed" for r in rows)
    expect(f'id="verdict" class="verdict failed">FAILED: {failed} of {len(rows)} stages failed, 1 of 3 subtests failed<'
           in dom.stdout, f"the verdict banner names {failed} failed of {len(rows)}")
    for table in ('id="metrics"', 'id="environment"', 'id="json-report"', 'id="node-logs"'):
        expect(table in dom.stdout, f"the report lacks {table}")

    # Served as Jenkins serves an archived report, under its default policy: the styles
    # still apply (no violation logged, the FAILED banner is red on the screen).
    folder = os.path.dirname(report)
    server = serve(folder)
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    css = open(os.path.join(folder, "aorta_single_html", "report.css")).read()
    inline = open(report).read().replace('<link rel="stylesheet" href="aorta_single_html/report.css">',
                                         f"<style>{css}</style>")
    open(os.path.join(folder, "inline-styles.html"), "w").write(inline)
    for name, styled in (("aorta_single.html", True), ("inline-styles.html", False)):
        shot = os.path.join(work, f"csp-{name}.png")
        r = chromium(work, "--enable-logging=stderr", "--v=0", f"--screenshot={shot}", "--window-size=1000,700",
                     base + name)
        violated = "Content Security Policy" in r.stderr
        red = png_pixels.count_colour(shot, FAILED_RED)
        # The inline copy is the check's own control: the policy blocks it, so no red.
        expect(violated != styled and (red > 2000) == styled,
               f"{name} under Jenkins' CSP: violation logged {violated}, {red} red pixels\n{r.stderr[-1500:]}")
    # The Run Deck too: its styles from its own folder, its failed verdict red.
    shot = os.path.join(work, "csp-deck.png")
    r = chromium(work, "--enable-logging=stderr", "--v=0", f"--screenshot={shot}", "--window-size=1000,700",
                 base + "aorta_single_html/aorta_run_deck.html")
    red = png_pixels.count_colour(shot, FAILED_RED)
    expect("Content Security Policy" not in r.stderr and red > 20,
           f"the Run Deck under Jenkins' CSP: {red} red pixels\n{r.stderr[-1500:]}")
    server.shutdown()
    os.remove(os.path.join(folder, "inline-styles.html"))

    for page, png in ((report, "report.png"), (deck, "deck.png")):
        shot = os.path.join(work, png)
        chromium(work, f"--screenshot={shot}", "file://" + page)
        expect(os.path.exists(shot) and open(shot, "rb").read(8) == b"\x89PNG\r\n\x1a\n" and os.path.getsize(shot) > 10000,
               f"no screenshot of {page}")
    print("ok: report and Run Deck render in Chromium; rows, sub-tests, links and charts present; the report keeps its "
          "styles under Jenkins' CSP; screenshots taken")
