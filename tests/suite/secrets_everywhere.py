#!/usr/bin/env python3
"""Issue 29, 6: the values a config marks secret, echoed by the training in the forms
the probe used (plain, base64, basic auth, JSON, percent-encoded, curl -u), reach no
output of the run: console, JUnit, HTML, log, zip, nor the node log kept in the run's
folder. The training here is a script that prints them and fails (no torch needed).
Usage: secrets_everywhere.py AORTA_SUITE
"""
import base64
import glob
import json
import os
import subprocess
import sys
import tempfile
import urllib.parse
import zipfile

from suite_run import expect

binary = os.path.abspath(sys.argv[1])
SECRETS = {"WANDB_API_KEY": "S3cr3t-V4lue-xyz", "DB_PASS": 'p4ss "w0rd" &abc'}
LEAK = """#!/usr/bin/env bash
echo "logged in with $WANDB_API_KEY"
printf '%s' "$WANDB_API_KEY" | base64
echo "basic $(printf 'bob:%s' "$DB_PASS" | base64)"
python3 -c 'import json, os, urllib.parse; print(json.dumps({"k": os.environ["DB_PASS"]})); print(urllib.parse.quote(os.environ["DB_PASS"], safe=""))'
echo "curl -u bob:$DB_PASS https://example.com"
exit 3
"""


def forms(value):
    """The value as the script prints it, made here independently of the suite."""
    return [value, json.dumps(value)[1:-1], urllib.parse.quote(value, safe=""),
            base64.b64encode(value.encode()).decode(), base64.b64encode(b"bob:" + value.encode()).decode()]


with tempfile.TemporaryDirectory() as work:
    repo = os.path.join(work, "aorta")
    for folder in ("scripts", "config"):
        os.makedirs(os.path.join(repo, folder))
    with open(os.path.join(repo, "scripts", "leak.sh"), "w") as f:
        f.write(LEAK)
    with open(os.path.join(repo, "config", "local_cpu.json"), "w") as f:
        f.write("{}\n")  # the base config the script is given
    config = os.path.join(work, "cfg.json")
    for name, path in (("local_cpu_single.json", config), ("local_cpu_threshold.json", os.path.join(work, "local_cpu_threshold.json"))):
        subprocess.run([binary, "config", "copy", name, "--output", path], check=True, stdout=subprocess.DEVNULL)
    c = json.load(open(config))
    c.update({"aorta_path": repo, "aorta_auto_clone": False, "trust_aorta_path": True, "experiment_script": "scripts/leak.sh"})
    c["container"]["env"].update(SECRETS)
    json.dump(c, open(config, "w"))
    out = os.path.join(work, "out")
    p = subprocess.run([binary, "--config_file", config, "--output_dir", out, "--gtest_filter=*single*"], cwd=work,
                       capture_output=True, timeout=300)
    expect(p.returncode == 1, f"exit {p.returncode}: {p.stderr[-2000:]!r}")
    node_logs = glob.glob(os.path.join(out, "*", "benchmark-node-0.log"))
    expect(len(node_logs) == 1, f"no node log in the run folder: {os.listdir(out)}")
    kept = open(node_logs[0]).read()
    expect("logged in with <redacted>\n" in kept and "curl -u bob:<redacted> https://example.com" in kept,
           f"the script's lines are not in the node log, redacted: {kept!r}")
    outputs = {"stdout": p.stdout, "stderr": p.stderr}
    for path in glob.glob(os.path.join(out, "**", "*"), recursive=True):
        if not os.path.isfile(path):
            continue
        if path.endswith(".zip"):
            with zipfile.ZipFile(path) as z:
                outputs.update({f"{path}:{n}": z.read(n) for n in z.namelist()})
        else:
            outputs[path] = open(path, "rb").read()
    expect(any(n.endswith(".zip") or ".zip:" in n for n in outputs), f"no report bundle among {sorted(outputs)}")
    for value in SECRETS.values():
        for form in forms(value):
            leaks = [name for name, data in outputs.items() if form.encode() in data]
            expect(not leaks, f"{form!r} (a form of {value!r}) in {leaks}")
    print(f"ok: {len(SECRETS)} secrets in {len(forms(''))} forms each: in none of {len(outputs)} outputs")
