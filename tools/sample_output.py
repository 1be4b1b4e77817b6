#!/usr/bin/env python3
"""docs/sample-output: the reports of one run of the built-in local default, as this
build writes them, so the documentation shows what a user gets.

  sample_output.py AORTA_SUITE DEST          runs the default, writes its reports into DEST
  sample_output.py AORTA_SUITE --check DOCS  runs it into a temporary folder and fails
                                             when DOCS has another shape: other files, JSON
                                             keys, JUnit testcases, log stages, HTML
                                             headings, metric names or CSV columns

The check compares shapes, not values: a run's numbers (and whether a CPU's timings
pass) differ from run to run; which files, keys, tests and headings there are do not,
and those are what goes stale when the code changes.
"""
import html.parser
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

LEFT_OUT = (".zip",)  # the bundle repeats the other files
LEFT_OUT_DIRS = ("traces",)  # the run's traces: generated data, never committed


def run_default(binary, work):
    """Runs the default into work/out; returns its report folder and console text."""
    out = os.path.join(work, "out")
    p = subprocess.run([binary, "--output_dir", out], cwd=work, capture_output=True, text=True, timeout=900)
    folders = [os.path.join(out, f) for f in os.listdir(out)] if os.path.isdir(out) else []
    if len(folders) != 1:
        sys.exit(f"sample_output: the run made no report folder (exit {p.returncode}):\n{p.stdout[-3000:]}{p.stderr[-3000:]}")
    return folders[0], (p.stdout + p.stderr)


def copy_reports(binary, folder, console, dest):
    # Paths of this machine are nobody's: the temporary output folder and the build.
    places = [(os.path.dirname(folder), "/path/to/output_dir"), (os.path.dirname(binary), "/path/to/aorta_suite")]
    def placeless(data):
        for here, shown in places:
            data = data.replace(here.encode(), shown.encode())
        return data
    if os.path.isdir(dest):
        shutil.rmtree(dest)
    for root, dirs, files in os.walk(folder):
        dirs[:] = [d for d in dirs if not (root == folder and d in LEFT_OUT_DIRS)]
        for name in files:
            if name.endswith(LEFT_OUT):
                continue
            source = os.path.join(root, name)
            target = os.path.join(dest, os.path.relpath(source, folder))
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(source, "rb") as f:
                data = f.read()
            with open(target, "wb") as f:
                f.write(placeless(data))
    with open(os.path.join(dest, "console.txt"), "wb") as f:
        f.write(placeless(console.encode()))


def json_shape(value, path="$"):
    """Every path in a JSON document and what is there: object, array, empty (an empty
    array) or value (a scalar or null: its type may vary, a null where a run has no figure)."""
    if isinstance(value, dict):
        found = {path: "object"}
        for k, v in value.items():
            found.update(json_shape(v, f"{path}.{k}"))
        return found
    if isinstance(value, list):
        found = {path: "array" if value else "empty"}
        for v in value:
            found.update(json_shape(v, path + "[]"))
        return found
    return {path: "value"}


def json_differences(now, then):
    """Paths one side has and the other lacks, except below what the other side left
    open: an empty array (no element to have keys) or a value (a null where a run had
    nothing); a value against an object or array at one path is such a case too."""
    def open_above(path, other):
        parts = [i for i, c in enumerate(path) if c in ".["] + [len(path)]
        return any(other.get(path[:i]) in ("empty", "value") for i in parts)

    def lacks(mine, other):
        return sorted(p for p in mine if p not in other and not open_above(p, other)) + \
            sorted(p for p in mine if p in other and mine[p] != other[p] and
                   "value" not in (mine[p], other[p]) and "empty" not in (mine[p], other[p]))
    return lacks(then, now), lacks(now, then)


class Headings(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.found, self.inside = [], None

    def handle_starttag(self, tag, attrs):
        if tag in ("h1", "h2", "h3", "th"):
            self.inside = [tag, ""]

    def handle_data(self, data):
        if self.inside:
            self.inside[1] += data

    def handle_endtag(self, tag):
        if self.inside and tag == self.inside[0]:
            self.found.append(f"<{tag}> " + digits_out(self.inside[1].strip()))
            self.inside = None


def digits_out(text):
    return re.sub(r"[0-9]+(\.[0-9]+)?", "#", text)


def shape(path):
    """What a file is made of, without its values."""
    name = os.path.basename(path)
    text = open(path, errors="replace").read()
    if name.endswith(".json"):
        return json_shape(json.loads(text))
    if name.endswith(".xml"):
        return [f"{e.tag} {e.get('name', '')}" for e in ET.fromstring(text).iter()
                if e.tag in ("testsuites", "testsuite", "testcase", "property")]
    if name.endswith(".html"):
        parser = Headings()
        parser.feed(text)
        return parser.found
    if name.endswith(".log") and not name.startswith("benchmark"):
        return [line.split(" ")[1] for line in text.splitlines() if line.startswith("== ")]
    if name == "metrics.txt":
        return sorted({line.split("{")[0].split(" ")[0] for line in text.splitlines() if line and line[0] != "#"})
    if name.endswith(".csv"):
        return text.splitlines()[:1]
    return []


def files(folder):
    """Each file's name, a Full Log page's hash (of its run) left out."""
    names = {}
    for root, _, found in os.walk(folder):
        for name in found:
            rel = os.path.relpath(os.path.join(root, name), folder)
            names[re.sub(r"_[0-9a-f]{12}\.html$", "_<hash>.html", rel)] = os.path.join(root, name)
    return names


def check(made, docs):
    ours, theirs = files(made), files(docs)
    problems = [f"{name}: in the docs, no longer written" for name in sorted(theirs.keys() - ours.keys())]
    problems += [f"{name}: written, not in the docs" for name in sorted(ours.keys() - theirs.keys())]
    for name in sorted(ours.keys() & theirs.keys()):
        now, then = shape(ours[name]), shape(theirs[name])
        if isinstance(now, dict):
            gone, new = json_differences(now, then)
        else:
            gone, new = [s for s in then if s not in now], [s for s in now if s not in then]
        if gone or new:
            problems.append(f"{name}: its shape changed (docs only: {gone[:3]}; this build only: {new[:3]})")
    return problems


def main():
    if len(sys.argv) == 4 and sys.argv[2] == "--check":
        binary, docs = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[3])
        with tempfile.TemporaryDirectory() as work:
            made = os.path.join(work, "sample")
            copy_reports(binary, *run_default(binary, work), made)
            problems = check(made, docs)
        if problems:
            print(f"FAIL: {docs} is stale:\n  " + "\n  ".join(problems) +
                  f"\nRegenerate it: tools/sample_output.py {sys.argv[1]} {sys.argv[3]}")
            return 1
        print(f"PASS: {docs} has the shape of this build's reports")
        return 0
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    binary = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory() as work:
        copy_reports(binary, *run_default(binary, work), os.path.abspath(sys.argv[2]))
    print(f"wrote {sys.argv[2]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
