#!/usr/bin/env python3
"""Writes tests/fuzz/seeds/trace/: one small seed per corruption class the trace
reader must name (issue 14), each a variation of one well-formed Kineto-shaped
trace, so the fuzzer starts next to every check. Run it again after changing it;
its output is committed (a few hundred bytes a file).
"""
import gzip
import os
import zlib

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "seeds", "trace")

LAUNCH = b'{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":2,"ts":10,"dur":3,' \
         b'"args":{"correlation":7}}'
FLOW_S = b'{"ph":"s","cat":"ac2g","id":7,"pid":1,"tid":2,"ts":10}'
FLOW_F = b'{"ph":"f","cat":"ac2g","id":7,"pid":0,"tid":9,"ts":20,"bp":"e"}'
KERNEL = b'{"ph":"X","cat":"kernel","name":"ncclDevKernel_AllReduce","pid":0,"tid":9,"ts":20,"dur":50,' \
         b'"args":{"correlation":7,"External id":3}}'
EVENTS = [LAUNCH, FLOW_S, FLOW_F, KERNEL]
# ProfilerStep#3 around the launch, in Kineto's key order, sorted, and with an escape.
STEP = b'{"ph":"X","cat":"user_annotation","name":"ProfilerStep#3","pid":1,"tid":2,"ts":0,"dur":100}'
STEP_SORTED = b'{"args":{},"cat":"user_annotation","dur":100,"name":"ProfilerStep#3","ph":"X","pid":1,"tid":2,"ts":0}'
STEP_ESCAPED = STEP.replace(b"#", b"\\u0023")
STEP_NESTED = STEP.replace(b"#3", b"#4").replace(b'"ts":0,"dur":100', b'"ts":5,"dur":20')
INFO = b'"distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 2}'


def trace(events, info=INFO, sep=b",\n  ", tail=b""):
    return b'{\n  "schemaVersion": 1,\n  ' + info + b',\n  "traceEvents": [\n  ' + sep.join(events) + \
        b'\n  ],\n  "traceName": "seed"\n}' + tail


SEEDS = {
    "good.json": trace(EVENTS),
    "garbage_between_events.json": trace(EVENTS, sep=b",\n garbage "),
    "number_between_events.json": trace(EVENTS[:2] + [b"17"] + EVENTS[2:]),
    "missing_comma.json": trace(EVENTS, sep=b"\n  "),
    "two_commas.json": trace(EVENTS, sep=b",,"),
    "trailing_comma.json": trace(EVENTS + [b""]),
    "trailing_garbage.json": trace(EVENTS, tail=b"\n}garbage"),
    "two_documents.json": trace(EVENTS, tail=b"\n" + trace(EVENTS)),
    "duplicate_trace_events.json": trace(EVENTS, info=INFO + b', "traceEvents": [' + KERNEL + b"]"),
    "duplicate_distributed_info.json": trace(EVENTS, info=INFO + b", " + INFO),
    "rank_out_of_range.json": trace(EVENTS, info=b'"distributedInfo": {"rank": 9, "world_size": 2}'),
    "rank_huge.json": trace(EVENTS, info=b'"distributedInfo": {"rank": 99999999999999999999}'),
    "world_size_zero.json": trace(EVENTS, info=b'"distributedInfo": {"rank": 0, "world_size": 0}'),
    "dur_overflow.json": trace([KERNEL.replace(b'"ts":20,"dur":50', b'"ts":-1e308,"dur":1e308'),
                                KERNEL.replace(b'"dur":50', b'"dur":1e308')]),
    "invalid_utf8_name.json": trace(EVENTS + [KERNEL.replace(b"ncclDevKernel", b"\xff\xfe\xe2\x82nccl")]),
    "invalid_utf8_key.json": trace(EVENTS, info=INFO + b', "\xc3\x28": 1'),
    "overlong_utf8.json": trace([KERNEL.replace(b"ncclDevKernel", b"\xc0\xaf\xed\xa0\x80")]),
    "leading_garbage.json": b"xx" + trace(EVENTS),
    "legacy_garbage.json": b"[" + b"; ".join(EVENTS) + b"]",
    "legacy_two_documents.json": b"[" + b",".join(EVENTS) + b"][]",
    "long_string.json": trace([KERNEL.replace(b"ncclDevKernel", b"n" * 20000)]),
    "step_sorted_keys.json": trace([STEP_SORTED] + EVENTS),
    "step_escaped.json": trace([STEP_ESCAPED] + EVENTS),
    "step_nested_and_duplicate.json": trace([STEP, STEP_NESTED, STEP] + EVENTS),
}


def zstd_frame(blocks):
    """A zstd frame by hand (RFC 8878): no checksum or content size, a 128 KiB window.
    blocks: (type, size, payload), type 0 raw (payload: the bytes) or 1 RLE (one byte)."""
    out = b"\x28\xb5\x2f\xfd\x00" + bytes([7 << 3])
    for i, (kind, size, payload) in enumerate(blocks):
        header = size << 3 | kind << 1 | (i == len(blocks) - 1)
        out += header.to_bytes(3, "little") + payload
    return out


def zstd_raw(data):
    return zstd_frame([(0, len(data[i:i + (128 << 10)]), data[i:i + (128 << 10)])
                       for i in range(0, len(data), 128 << 10)])


def zstd_spaces(mib):
    return zstd_frame([(1, 128 << 10, b" ")] * (mib * 8))


def main():
    os.makedirs(OUT, exist_ok=True)
    for name, data in SEEDS.items():
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(data)
    # Gzip with a stream that ends inside the string: a tiny bomb's shape.
    c = zlib.compressobj(9, zlib.DEFLATED, 31)
    bomb = c.compress(b'{"traceEvents": [{"name": "' + b"a" * 60000) + c.flush()
    with open(os.path.join(OUT, "gzip_one_string.json.gz"), "wb") as f:
        f.write(bomb)
    with open(os.path.join(OUT, "gzip_good.json.gz"), "wb") as f:
        f.write(gzip.compress(SEEDS["good.json"], 9, mtime=0))
    # Concatenated members are one stream; bytes after the last member are an error.
    good = SEEDS["good.json"]
    with open(os.path.join(OUT, "gzip_two_members.json.gz"), "wb") as f:
        f.write(gzip.compress(good[:100], 9, mtime=0) + gzip.compress(good[100:], 9, mtime=0))
    with open(os.path.join(OUT, "gzip_trailing_garbage.json.gz"), "wb") as f:
        f.write(gzip.compress(good, 9, mtime=0) + b"garbage!")
    # zstd: a trace in raw blocks, and a whitespace bomb (40 MiB of spaces from 1.3 KB,
    # past the 1024:1 limit) between its first event and the rest.
    with open(os.path.join(OUT, "zstd_good.json.zst"), "wb") as f:
        f.write(zstd_raw(good))
    cut = good.index(b"},") + 2
    with open(os.path.join(OUT, "zstd_whitespace_bomb.json.zst"), "wb") as f:
        f.write(zstd_raw(good[:cut]) + zstd_spaces(40) + zstd_raw(good[cut:]))


if __name__ == "__main__":
    main()
