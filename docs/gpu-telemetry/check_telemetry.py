#!/usr/bin/env python3
"""The report's GPU telemetry against tools/independent_telemetry.py's figures from the
same raw samples: every figure of every GPU equal (to 1e-9 relative), and the sampler's
file in bytes per tick a GPU.  Usage: check_telemetry.py REPORT.json CHECKER.json"""
import json
import sys


def same(a, b, path, bad):
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b)):
            if key in a and key in b:
                same(a[key], b[key], f"{path}.{key}", bad)
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            same(x, y, f"{path}[{i}]", bad)
    elif isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        if abs(a - b) > 1e-9 * max(1.0, abs(a), abs(b)):
            bad.append(f"{path}: report {a}, checker {b}")
    elif a != b:
        bad.append(f"{path}: report {a!r}, checker {b!r}")


report = json.load(open(sys.argv[1]))["telemetry"]
checker = json.load(open(sys.argv[2]))
bad = []
same(report["gpus"], checker["gpus"], "gpus", bad)
same(report["fleet_clock_median_mhz"], checker["fleet_clock_median_mhz"], "fleet_clock_median_mhz", bad)
for gpu in report["gpus"]:
    print(f"{gpu['node']} GPU {gpu['gpu']}: {gpu['samples']} ticks over {gpu['window_seconds']:.1f} s; "
          f"temperature {gpu['temperature_c']}; power {gpu['power_w']}; clock median {gpu['clock_median_mhz']} MHz; "
          f"throttle {gpu['throttle_share']}; ecc {gpu['ecc']}; link {gpu['link']}")
print("\n".join(bad) if bad else f"ALL EQUAL: {len(report['gpus'])} GPU(s), every figure")
sys.exit(1 if bad else 0)
