"""The CI examples (ci/examples/gitlab-ci.yml and Jenkinsfile) run as written, their
shell steps read from the files themselves, each in an empty workspace that holds only
the unpacked release tarball (cpack -G TGZ of the binary's build tree), on the shipped
local CPU default named by its file name; then what their report and plot steps read is
checked. Used by ci_contract.py."""
import csv
import glob
import os
import re
import subprocess
import tarfile
import textwrap
import sys
import xml.etree.ElementTree as ET

from suite_run import expect

try:
    import yaml
except ImportError:
    sys.path.append("/usr/lib/python3/dist-packages")  # Debian's python3-yaml, when the interpreter is not Debian's
    import yaml

EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "ci", "examples")
# The one line that says which config the bare name meant (issue 45, 4).
SHIPPED_LINE = re.compile(r"^aorta_suite: --config_file local_cpu_single\.json: the shipped (\S+) \(none in the "
                          r"working directory\)$", re.M)

# torchrun's own store (Debian's torch, --standalone) now and then drops its connection
# on a loaded 2-core machine: the training exits 1 before any step. That one named
# failure of the launcher, not of the suite, is run again once, saying so.
TORCHRUN_FLAKE = "RendezvousConnectionError: The connection to the C10d store has failed"


def once_more_on_torchrun_flake(run):
    p = run()
    if TORCHRUN_FLAKE in p.stdout:
        print("note: torchrun's c10d store dropped its connection (a launcher flake); running it once more")
        p = run()
    return p


def release_tarball(binary, work):
    """The TGZ package of the binary's build tree, made as package_in_bare_debian makes it."""
    out = os.path.join(work, "package")
    p = subprocess.run(["cpack", "-G", "TGZ", "-B", out, "--config", "CPackConfig.cmake"],
                       cwd=os.path.dirname(binary), capture_output=True, text=True, timeout=900)
    tarballs = glob.glob(os.path.join(out, "aorta-suite-*-linux-x86_64.tar.gz"))
    expect(p.returncode == 0 and len(tarballs) == 1, f"cpack made one tarball: {tarballs}", p)
    return tarballs[0]


def workspace(work, name, tarball):
    """An empty folder with only the tarball unpacked in it."""
    ws = os.path.join(work, name)
    os.mkdir(ws)
    with tarfile.open(tarball) as t:
        t.extractall(ws)
    return ws


def shipped_config_said(p, ws):
    """The run said, once, that the bare name is the package's shipped file."""
    said = SHIPPED_LINE.findall(p.stderr)
    expect(len(said) == 1 and said[0].startswith(ws + "/aorta-suite-") and
           said[0].endswith("/share/aorta_suite/config/local_cpu_single.json"),
           f"one line names the shipped config's full path: {said}", p)


def gitlab(work, tarball, env):
    """The job's script as GitLab's runner runs it (bash, one shell, stopping at the
    first failing line), twice in one workspace as a kept workspace runs it; then the
    report paths its artifacts name."""
    job = yaml.safe_load(open(os.path.join(EXAMPLES, "gitlab-ci.yml")))["aorta"]
    ws = workspace(work, "gitlab", tarball)
    script = "set -eo pipefail\n" + "\n".join(job["script"]) + "\n"
    for _ in range(2):
        p = once_more_on_torchrun_flake(lambda: subprocess.run(["bash", "-c", script], capture_output=True, text=True,
                                                                cwd=ws, env=env, timeout=900))
        expect(p.returncode == 0, f"the GitLab example's script passes, exit {p.returncode}", p)
        shipped_config_said(p, ws)
    for key, path in job["artifacts"]["reports"].items():
        expect(os.path.isfile(os.path.join(ws, path)), f"the GitLab example's {key} report {path} exists", p)
    expect(len(glob.glob(os.path.join(ws, "results", "*", "aorta_benchmark_report.json"))) == 1, "one run folder", p)
    return ws


def plots(jenkinsfile):
    """Each plot step's y axis, CSV file and the columns it includes."""
    found = re.findall(r"\bplot\b.*?yaxis: '([^']*)'.*?csvSeries: \[\[file: '([^']*)', inclusionFlag: "
                       r"'INCLUDE_BY_STRING',\s*exclusionValues: '([^']*)'", jenkinsfile, re.S)
    expect(len(found) == len(re.findall(r"^\s*plot ", jenkinsfile, re.M)), f"every plot step read: {found}")
    return [(yaxis, file, columns.split(",")) for yaxis, file, columns in found]


def unit_of(column):
    return "ms" if column.endswith("_ms") else "fraction" if column.endswith("_ratio") else None


def check_plots(ws, jenkinsfile):
    """Every plot draws values of one unit that the run's CSV has; no two share a unit."""
    units = []
    for yaxis, file, columns in plots(jenkinsfile):
        rows = list(csv.reader(open(os.path.join(ws, file))))
        expect(len(rows) == 2 and len(rows[0]) == len(rows[1]), f"{file}: a header row and a value row: {rows}")
        values = dict(zip(rows[0], rows[1]))
        for column in columns:
            expect(column in values, f"the plot '{yaxis}' draws {column}, which {file} lacks: {rows[0]}")
            float(values[column])
        plot_units = {unit_of(c) for c in columns}
        expect(len(plot_units) == 1 and None not in plot_units, f"one plot, one unit: {columns}")
        units += plot_units
    expect(len(units) >= 2 and len(set(units)) == len(units), f"one plot per unit: {units}")


def jenkins(work, tarball, env):
    """The pipeline's sh steps as Jenkins runs them (sh -xe, one shell each), then the
    files its junit and plot steps read."""
    jenkinsfile = open(os.path.join(EXAMPLES, "Jenkinsfile")).read()
    steps = [textwrap.dedent(block or line)
             for block, line in re.findall(r"^\s*sh (?:'''(.*?)'''|'([^'\n]*)')", jenkinsfile, re.S | re.M)]
    expect(steps and len(steps) == len(re.findall(r"^\s*sh ", jenkinsfile, re.M)), f"every sh step is read: {steps}")
    ws = workspace(work, "jenkins", tarball)
    for step in steps:
        p = once_more_on_torchrun_flake(lambda: subprocess.run(["sh", "-xe", "-c", step], capture_output=True,
                                                                text=True, cwd=ws, env=env, timeout=900))
        expect(p.returncode == 0, f"the Jenkinsfile's sh step passes, exit {p.returncode}:\n{step}", p)
    shipped_config_said(p, ws)
    junit = re.search(r"junit testResults: '([^']*)'", jenkinsfile).group(1)
    ET.parse(os.path.join(ws, junit))
    check_plots(ws, jenkinsfile)
    return ws


def run_examples(binary, work, env):
    tarball = release_tarball(binary, work)
    gitlab(work, tarball, env)
    jenkins(work, tarball, env)
    print("ok: the GitLab and Jenkins examples pass as written from a workspace holding only the unpacked tarball; "
          "the bare config name is the shipped file, said once; each plot draws values of one unit")
