#!/usr/bin/env python3
"""`aorta_suite analyze` on hostile traces (issue 14: items 2, 3 and 9).

Each case puts the real H200 rank-0 trace beside one damaged rank-1 file (made from
the real rank-1 trace, or generated here: nothing big is committed) and checks:
exit status 3 (partial), the error naming the damaged file and what is wrong with
it, parse.status "partial", valid UTF-8 output, and rank 0's numbers equal to
tools/independent_metrics.py's. The gzip bombs (10 GiB of JSON in a few MB of gzip)
run under an address-space limit (prlimit --as), as a memory-limited job would.
Usage: trace_hostile.py AORTA_SUITE TEST_DATA_DIR
"""
import gzip
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
CHECKER = os.path.join(HERE, "..", "..", "tools", "independent_metrics.py")
GOOD = "h200-aorta-overlap_rank0.pt.trace.json.gz"
BAD_SOURCE = "h200-aorta-overlap_rank1.pt.trace.json.gz"
FIELDS = ["total_time_us", "compute_time_us", "comm_time_us", "total_comm_time_us", "total_memcpy_time_us",
          "exposed_memcpy_time_us", "busy_time_us", "idle_time_us", "compute_ratio", "comm_ratio", "overlap_ratio"]
EXIT_PARTIAL = 3
NOBODY = 65534
EVENT_SEP = b"  },\n  {"


def gzip_member(data):
    c = zlib.compressobj(9, zlib.DEFLATED, 31)  # 31: a gzip member
    return c.compress(data) + c.flush()


def bomb(head, unit, gib):
    """A gzip file: `head`, then `unit` (64 MiB, compressed once) repeated to `gib` GiB.

    gzip members concatenate, so the file is one small member per 64 MiB."""
    block = unit * ((64 << 20) // len(unit))
    return gzip_member(head) + gzip_member(block) * ((gib << 30) // len(block))


class Case:
    def __init__(self, name, files, expected, env=None, as_limit=None, as_nobody=False, locked=None):
        self.name, self.files, self.expected = name, files, expected
        self.env, self.as_limit, self.as_nobody, self.locked = env or {}, as_limit, as_nobody, locked


def cases(rank1):
    first = rank1.index(EVENT_SEP, rank1.index(b'"traceEvents"'))
    tiny = b'{"ph":"X","cat":"kernel","name":"k","pid":1,"tid":1,"ts":1,"dur":1,"args":{"correlation":1}},'
    events_bomb = bomb(b'{"traceEvents": [', tiny, 10)
    yield Case("garbage_between_events",
               {"rank1.json": rank1[:first] + b"  },\n  garbage\n  {" + rank1[first + len(EVENT_SEP):]},
               "rank1.json: garbage between traceEvents elements at byte")
    yield Case("missing_comma", {"rank1.json": rank1[:first] + b"  }\n  {" + rank1[first + len(EVENT_SEP):]},
               "rank1.json: missing ',' before the traceEvents element at byte")
    yield Case("trailing_garbage", {"rank1.json": rank1 + b"\n#garbage"}, "rank1.json: trailing garbage at byte")
    yield Case("two_documents", {"rank1.json": rank1 + b"\n" + rank1}, "rank1.json: a second JSON document starts")
    yield Case("duplicate_traceEvents",
               {"rank1.json": rank1.replace(b'"traceName":', b'"traceEvents": [],\n  "traceName":', 1)},
               "rank1.json: duplicate top-level key 'traceEvents'")
    yield Case("rank_out_of_range",
               {"rank1.json": rank1.replace(b'"rank": 1, "world_size": 2', b'"rank": 7, "world_size": 2', 1)},
               "rank1.json: distributedInfo.rank 7 is out of range (0 to 1, world_size 2)")
    yield Case("dur_sum_overflows",
               {"rank1.json": b'{"traceEvents": [\n'
                              # CPU-only: the CPU timeline's window, -1e308 .. 1e308, is inf long
                              b'{"ph":"X","cat":"cpu_op","name":"a","pid":1,"tid":1,"ts":-1e308,"dur":1e308},\n'
                              b'{"ph":"X","cat":"cpu_op","name":"b","pid":1,"tid":1,"ts":0,"dur":1e308}]}'},
               "rank1.json: the event times overflow")
    yield Case("non_utf8_name_and_event",
               {b"rank1_\xff.json": b'{"traceEvents": [{"ph":"X","name":"\xff\xfe\xe2\x82","dur":NaN}]}'},
               "rank1_\ufffd.json: event at byte 17 is not valid JSON")
    yield Case("unreadable_subfolder", {os.path.join("locked", "rank1.json.gz"): gzip.compress(rank1, 1)},
               "cannot read folder ", as_nobody=True, locked="locked")
    # One string of 10 GiB: stops at the 64 MiB token limit, far below 1 GiB.
    yield Case("gzip_bomb_one_string", {"rank1.json.gz": bomb(b'{"traceEvents": [{"name": "', b"a", 10)},
               "rank1.json.gz: the traceEvents element at byte 17 is longer than the longest token the memory "
               "budget allows (64 MiB", as_limit=1 << 30)
    # ~110 million tiny events: stops at the event-state budget (3/8 of 256 MiB).
    yield Case("gzip_bomb_tiny_events", {"rank1.json.gz": events_bomb},
               "rank1.json.gz: the trace needs more event state than the memory budget allows (96 MiB of 256 MiB",
               env={"AORTA_TRACE_MEMORY_LIMIT": "256M"}, as_limit=1 << 30)
    # A budget set above what the process may have: the bad_alloc is this file's error.
    yield Case("out_of_memory_beyond_the_budget", {"rank1.json.gz": events_bomb},
               "rank1.json.gz: out of memory while reading this trace",
               env={"AORTA_TRACE_MEMORY_LIMIT": "64G"}, as_limit=1 << 30)


def close(a, b, what):
    if a is None or b is None or abs(a - b) > 1e-6 * max(1.0, abs(b)):
        raise SystemExit(f"MISMATCH {what}: aorta_suite {a} vs independent {b}")


def run_case(binary, data, case, expected_rank0):
    with tempfile.TemporaryDirectory() as tmp:
        traces = os.path.join(tmp, "traces")
        os.makedirs(traces)
        shutil.copy(os.path.join(data, GOOD), os.path.join(traces, "rank0.json.gz"))
        for name, content in case.files.items():
            path = os.path.join(os.fsencode(traces), os.fsencode(name))
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as f:
                f.write(content)
        out = os.path.join(tmp, "out", "analysis.json")
        os.makedirs(os.path.dirname(out))
        # An earlier output must survive anything short of a complete new one.
        with open(out, "w") as f:
            f.write('{"earlier": true}\n')
        cmd = [binary, "analyze", traces, "--output", out, "--jobs", "1"]
        if case.as_limit:
            cmd = ["prlimit", f"--as={case.as_limit}", "--"] + cmd
        preexec = None
        if case.as_nobody:
            # Readable by all; the output folder is the running user's own, as outputs
            # require (nobody's folder and file, not one all may write to).
            for root, dirs, files in os.walk(tmp):
                os.chmod(root, 0o755)
                for f in files:
                    os.chmod(os.path.join(root, f), 0o644)
            os.chmod(os.path.join(traces, case.locked), 0)
            if os.geteuid() == 0:  # root reads any folder: run as nobody
                for owned in (os.path.dirname(out), out):
                    os.chown(owned, NOBODY, NOBODY)
                preexec = lambda: (os.setgroups([]), os.setgid(NOBODY), os.setuid(NOBODY))
        env = dict(os.environ, MALLOC_ARENA_MAX="2", **case.env)
        proc = subprocess.run(cmd, capture_output=True, env=env, preexec_fn=preexec, timeout=300)
        if case.locked:
            os.chmod(os.path.join(traces, case.locked), 0o755)
        stderr = proc.stderr.decode("utf-8", "replace")
        where = f"{case.name}: exit {proc.returncode}\nstderr: {stderr[-3000:]}"
        assert proc.returncode == EXIT_PARTIAL, where
        raw = open(out, "rb").read()
        doc = json.loads(raw.decode("utf-8"))  # strict: invalid UTF-8 would raise here
        parse = doc["parse"]
        assert parse["status"] == "partial", (case.name, parse)
        assert parse["files_parsed"] == 1, (case.name, parse)
        hits = [e for e in parse["errors"] if case.expected in e]
        assert len(hits) == 1, f"{case.name}: no error with {case.expected!r} in {parse['errors']}"
        if case.locked:
            assert os.path.join(traces, case.locked) in hits[0], hits
        ranks = doc["per_rank_summary"]
        assert [r["rank"] for r in ranks] == [0], (case.name, ranks)
        for f in FIELDS:
            close(ranks[0][f], expected_rank0[f], f"{case.name}: rank 0 {f}")
        print(f"ok: {case.name}: exit 3, {hits[0][:150]}")


def earlier_output_survives_a_failed_write(binary, data):
    """The output cannot be written (RLIMIT_FSIZE: every write past 256 bytes fails with
    EFBIG): exit 1 naming the file, and the earlier output is still there, whole."""
    with tempfile.TemporaryDirectory() as tmp:
        traces = os.path.join(tmp, "traces")
        os.makedirs(traces)
        shutil.copy(os.path.join(data, GOOD), os.path.join(traces, "rank0.json.gz"))
        out = os.path.join(tmp, "analysis.json")
        earlier = '{"earlier": true}\n'
        with open(out, "w") as f:
            f.write(earlier)
        proc = subprocess.run(["prlimit", "--fsize=256", "--", binary, "analyze", traces, "--output", out],
                              capture_output=True, text=True, timeout=300,
                              preexec_fn=lambda: signal.signal(signal.SIGXFSZ, signal.SIG_IGN))
        assert proc.returncode == 1, f"exit {proc.returncode}: {proc.stderr[-2000:]}"
        assert out in proc.stderr and "File too large" in proc.stderr, proc.stderr[-2000:]
        assert open(out).read() == earlier, "the earlier output was lost"
        assert set(os.listdir(tmp)) == {"traces", "analysis.json"}, os.listdir(tmp)  # no temporary file left
        print("ok: earlier_output_survives_a_failed_write: exit 1, " + proc.stderr.strip().splitlines()[-1][:150])


def main():
    binary, data = os.path.abspath(sys.argv[1]), sys.argv[2]
    only = set(sys.argv[3:])
    ref = subprocess.run([sys.executable, CHECKER, os.path.join(data, GOOD)], check=True, capture_output=True,
                         text=True)
    expected_rank0 = json.loads(ref.stdout.split("\n")[0])
    assert expected_rank0["rank"] == 0
    with gzip.open(os.path.join(data, BAD_SOURCE), "rb") as f:
        rank1 = f.read()
    for case in cases(rank1):
        if not only or case.name in only:
            run_case(binary, data, case, expected_rank0)
    if not only or "earlier_output_survives_a_failed_write" in only:
        earlier_output_survives_a_failed_write(binary, data)


if __name__ == "__main__":
    main()
