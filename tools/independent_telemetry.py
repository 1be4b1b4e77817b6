#!/usr/bin/env python3
"""Independent check of aorta_suite's GPU telemetry summary, standard library only.

Written from the sample file's record format (lib/telemetry/tool_commands.h) and the
tools' own output formats (tests/data/telemetry/README.md names the sources), not
from the C++ code, and deliberately simple: every record's body parsed whole, plain
lists, plain loops.

Usage: independent_telemetry.py NODE_FILE [NODE_FILE ...]   (in the cluster's order)
Prints {"fleet_clock_median_mhz", "nodes": [{"node", "tool", "truncated", "records"}],
"gpus": [...]} with the figures of the JSON report's "telemetry".
"""
import json
import math
import re
import sys

NVML_REASONS = {0x1: "gpu_idle", 0x2: "applications_clocks_setting", 0x4: "sw_power_cap", 0x8: "hw_slowdown",
                0x10: "sync_boost", 0x20: "sw_thermal_slowdown", 0x40: "hw_thermal_slowdown",
                0x80: "hw_power_brake_slowdown", 0x100: "display_clock_setting"}


def strict_json(text):
    """json.loads without Python's NaN/Infinity extensions, which are not JSON."""
    def refuse(name):
        raise ValueError(name)
    return json.loads(text, parse_constant=refuse)


def number(v):
    """A figure as the tools print it: 35, {"value": 35, "unit": "C"}, "35.0", "(1980Mhz)"; None for N/A."""
    if isinstance(v, dict):
        return number(v.get("value"))
    if isinstance(v, bool) or v is None:
        return None
    if isinstance(v, (int, float)):
        return float(v) if math.isfinite(v) else None
    if isinstance(v, str):
        m = re.search(r"-?\d+(\.\d+)?([eE][-+]?\d+)?", v)
        if m:
            f = float(m.group(0))
            return f if math.isfinite(f) else None
    return None


def amd_documents(body):
    """amd-smi's edge command prints two JSON lists one after the other."""
    decoder, docs, i = json.JSONDecoder(parse_constant=lambda n: (_ for _ in ()).throw(ValueError(n))), [], 0
    while True:
        while i < len(body) and body[i].isspace():
            i += 1
        if i >= len(body):
            return docs
        doc, i = decoder.raw_decode(body, i)
        docs.append(doc)


def amd_smi(body):
    gpus = {}
    for doc in amd_documents(body):
        if isinstance(doc, dict):
            doc = doc.get("gpu_data")
        for entry in doc:
            g = gpus.setdefault(entry["gpu"], {"temps": {}, "throttle": {}, "blocks": {}})
            t = entry.get("temperature") if isinstance(entry.get("temperature"), dict) else {}
            for key, name in (("edge", "edge"), ("hotspot", "hotspot"), ("mem", "memory")):
                if number(t.get(key)) is not None:
                    g["temps"][name] = number(t.get(key))
            if isinstance(entry.get("power"), dict):
                g["power"] = number(entry["power"].get("socket_power"))
                if entry["power"].get("throttle_status") in ("THROTTLED", "UNTHROTTLED"):
                    g["throttle"]["throttle_status"] = entry["power"]["throttle_status"] == "THROTTLED"
            if isinstance(entry.get("clock"), dict):
                g["clock"] = number(entry["clock"].get("gfx_0", {}).get("clk"))
                g["mclock"] = number(entry["clock"].get("mem_0", {}).get("clk"))
            if isinstance(entry.get("usage"), dict):
                g["use"] = number(entry["usage"].get("gfx_activity"))
            for key, value in (entry.get("throttle") or {}).items():
                if key.endswith("_violation_status") and value in ("ACTIVE", "NOT ACTIVE"):
                    g["throttle"][key[:-len("_violation_status")]] = value == "ACTIVE"
            ecc = entry.get("ecc") if isinstance(entry.get("ecc"), dict) else {}
            c, u = number(ecc.get("total_correctable_count")), number(ecc.get("total_uncorrectable_count"))
            if c is not None and u is not None:
                g["ecc"] = (c, u)
            for block, counts in (entry.get("ecc_blocks") or {}).items():
                c, u = number(counts.get("correctable_count")), number(counts.get("uncorrectable_count"))
                if c is not None and u is not None:
                    g["blocks"][block] = (c, u)
            pcie, bus = entry.get("pcie") or {}, entry.get("bus") or {}
            for key, src, field in (("width", pcie, "width"), ("speed", pcie, "speed"), ("replays", pcie, "replay_count"),
                                    ("width_max", bus, "max_pcie_width"), ("speed_max", bus, "max_pcie_speed")):
                if number(src.get(field)) is not None:
                    g[key] = number(src.get(field))
    return gpus


def rocm_smi(body):
    gpus = {}
    sensors = {"Temperature (Sensor edge) (C)": "edge", "Temperature (Sensor junction) (C)": "hotspot",
               "Temperature (Sensor memory) (C)": "memory"}
    for card, fields in strict_json(body).items():
        m = re.fullmatch(r"card(\d+)", card)
        if not m:
            continue
        g = gpus.setdefault(int(m.group(1)), {"temps": {}, "throttle": {}, "blocks": {}})
        for key, value in fields.items():
            v = number(value)
            if key in sensors and v is not None:
                g["temps"][sensors[key]] = v
            for label, name in (("Graphics Package Power (W)", "power"), ("sclk clock speed:", "clock"),
                                ("mclk clock speed:", "mclock"), ("GPU use (%)", "use"), ("PCIe Replay Count", "replays")):
                if label in key and v is not None:
                    g[name] = v
            link = re.search(r"([\d.]+)GT/s x(\d+)", value)
            if link and key == "pcie clock level":
                g["speed"], g["width"] = float(link.group(1)), float(link.group(2))
            elif link and key.isdigit():  # --showclkfrq's supported PCIe levels
                g["speed_max"] = max(g.get("speed_max", 0), float(link.group(1)))
                g["width_max"] = max(g.get("width_max", 0), float(link.group(2)))
    return gpus


def nvidia_smi(body):
    gpus = {}
    lines = [l for l in body.splitlines() if l.strip()]
    header = [re.sub(r"\s*\[.*\]$", "", h.strip()) for h in lines[0].split(",")]
    names = {"temperature.gpu": "t:gpu", "temperature.memory": "t:memory", "power.draw": "power", "clocks.current.sm": "clock",
             "clocks.current.memory": "mclock", "utilization.gpu": "use", "pcie.link.gen.current": "speed",
             "pcie.link.gen.max": "speed_max", "pcie.link.width.current": "width", "pcie.link.width.max": "width_max"}
    for line in lines[1:]:
        row = dict(zip(header, (c.strip() for c in line.split(","))))
        g = gpus.setdefault(int(row["index"]), {"temps": {}, "throttle": {}, "blocks": {}})
        for field, value in row.items():
            if field == "clocks_event_reasons.active" and re.fullmatch(r"0x[0-9a-fA-F]+", value):
                for bit, name in NVML_REASONS.items():
                    g["throttle"][name] = bool(int(value, 16) & bit)
            elif field in names and not value.startswith("[") and number(value) is not None:
                if names[field].startswith("t:"):
                    g["temps"][names[field][2:]] = number(value)
                else:
                    g[names[field]] = number(value)
        c, u = row.get("ecc.errors.corrected.volatile.total"), row.get("ecc.errors.uncorrected.volatile.total")
        if c is not None and u is not None and not c.startswith("[") and not u.startswith("["):
            g["ecc"] = (float(c), float(u))
    return gpus


TOOLS = {"amd-smi": amd_smi, "rocm-smi": rocm_smi, "nvidia-smi": nvidia_smi}


def read_file(path):
    """(header fields, [(time, kind, body)], truncated, unreadable records)."""
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.read().split("\n")
    head = dict(kv.split("=", 1) for kv in lines[0].split()[2:] if "=" in kv) if lines[0].startswith("#aorta-telemetry v1") else {}
    records, truncated, current = [], False, None
    for line in lines[1:]:
        if line.startswith("#"):
            current = None
            m = re.fullmatch(r"#sample ([\d.]+) (tick|edge)", line)
            if m:
                current = [float(m.group(1)), m.group(2), ""]
                records.append(current)
            truncated = truncated or line.startswith("#truncated")
        elif current is not None:
            current[2] += line + "\n"
    return head, records, truncated


def median(values):
    v = sorted(values)
    if not v:
        return None
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def summarise_gpu(host, index, ticks, edges, fleet):
    """ticks/edges: [(time, readings)] in file order."""
    def reported(key):
        return [r[key] for _, r in ticks if r.get(key) is not None]
    out = {"node": host, "gpu": index, "samples": len(ticks),
           "window_seconds": ticks[-1][0] - ticks[0][0] if ticks else 0.0}
    temps = {}
    for _, r in ticks:
        for sensor, c in r["temps"].items():
            temps.setdefault(sensor, []).append(c)
    out["temperature_c"] = {s: {"mean": sum(v) / len(v), "max": max(v)} for s, v in temps.items()}
    power = reported("power")
    out["power_w"] = {"mean": sum(power) / len(power), "max": max(power)} if power else None
    clocks = reported("clock")
    out["clock_median_mhz"] = median(clocks)
    out["memory_clock_median_mhz"] = median(reported("mclock"))
    use = reported("use")
    out["utilisation_mean_pct"] = sum(use) / len(use) if use else None
    out["share_under_fleet_clock"] = (sum(1 for c in clocks if c < 0.9 * fleet) / len(clocks)
                                      if clocks and fleet is not None else None)
    reasons = {}
    for _, r in ticks:
        for reason, active in r["throttle"].items():
            reasons[reason] = reasons.get(reason, 0) + (1 if active else 0)
    out["throttle_share"] = {k: n / len(ticks) for k, n in reasons.items()}
    ecc = [r["ecc"] for _, r in edges if "ecc" in r]
    out["ecc"] = ({"correctable": ecc[-1][0] - ecc[0][0], "uncorrectable": ecc[-1][1] - ecc[0][1]}
                  if len(ecc) >= 2 else None)
    blocks = {}
    for _, r in edges:
        for block, counts in r["blocks"].items():
            blocks.setdefault(block, []).append(counts)
    out["ecc_blocks"] = {b: {"correctable": c[-1][0] - c[0][0], "uncorrectable": c[-1][1] - c[0][1]}
                         for b, c in blocks.items() if len(c) >= 2}
    link, replays, seen = {}, [], False
    downgraded = False
    for _, r in edges:
        for key, name in (("speed", "speed_current"), ("speed_max", "speed_max"), ("width", "width_current"),
                          ("width_max", "width_max")):
            if r.get(key) is not None:
                link[name], seen = r[key], True
        if r.get("replays") is not None:
            replays.append(r["replays"])
            seen = True
        # a link trained narrower than it can be; its speed drops at idle by design
        if r.get("width") is not None and r.get("width_max") is not None and r["width"] < r["width_max"]:
            downgraded = True
    if seen:
        out["link"] = {k: link.get(k) for k in ("speed_current", "speed_max", "width_current", "width_max")}
        out["link"]["replay_delta"] = replays[-1] - replays[0] if len(replays) >= 2 else None
        out["link"]["downgraded"] = downgraded
    else:
        out["link"] = None
    return out


def main(paths):
    nodes, series = [], []
    for path in paths:
        head, records, truncated = read_file(path)
        host, tool = head.get("host", path), head.get("tool", "unknown")
        parse, per_gpu, unreadable = TOOLS.get(tool), {}, 0
        for time, kind, body in records if parse else []:
            try:
                readings = parse(body)
            except (ValueError, KeyError, TypeError, AttributeError, IndexError):
                unreadable += 1
                continue
            for index, r in readings.items():
                per_gpu.setdefault(index, {"tick": [], "edge": []})[kind].append((time, r))
        nodes.append({"node": host, "tool": tool, "truncated": truncated, "unreadable_records": unreadable})
        series += [(host, i, s["tick"], s["edge"]) for i, s in sorted(per_gpu.items())]
    fleet = median([r["clock"] for _, _, ticks, _ in series for _, r in ticks if r.get("clock") is not None])
    gpus = [summarise_gpu(host, i, ticks, edges, fleet) for host, i, ticks, edges in series]
    print(json.dumps({"fleet_clock_median_mhz": fleet, "nodes": nodes, "gpus": gpus}, indent=1))


if __name__ == "__main__":
    main(sys.argv[1:])
