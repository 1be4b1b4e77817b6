"""CPU stand-in for Aorta's train.py: DDP over gloo with the torch profiler.

Interface kept from Aorta: --config FILE, --override key=value ... (dotted keys,
values coerced bool/int/float/string; only the last --override group survives,
as with Aorta's argparse), outputs under training.output_dir.
"""
import argparse
import contextlib
import json
import os
import socket
import sys
import time
import types

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.profiler import ProfilerActivity, profile, schedule, tensorboard_trace_handler


def coerce(text):
    lowered = text.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return text


def apply_overrides(config, overrides):
    for item in overrides or []:
        if "=" not in item:
            raise SystemExit(f"--override expects key=value, got {item!r}")
        key, value = item.split("=", 1)
        node = config
        parts = key.split(".")
        for part in parts[:-1]:
            node = node.setdefault(part, {})
        node[parts[-1]] = coerce(value)
    return config


def inject_start_faults(faults, rank, info):
    """The fault suite's hooks (config "faults", all off by default): a kernel-log
    line, a rank that exits non-zero, a run held until a file exists, a run that hangs."""
    if faults.get("kmsg") and rank == 0:
        with open("/dev/kmsg", "w") as kmsg:
            kmsg.write(faults["kmsg"] + "\n")
        info("fault injected: wrote to /dev/kmsg")
    if faults.get("exit_rank", -1) == rank:
        info(f"fault injected: rank {rank} exits with {faults.get('exit_code', 3)}")
        os._exit(faults.get("exit_code", 3))
    if faults.get("hold_until"):
        info(f"fault injected: held until {faults['hold_until']} exists")
        while not os.path.exists(faults["hold_until"]):
            time.sleep(0.2)
    if faults.get("hang"):
        info("fault injected: hanging")
        while True:
            time.sleep(60)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", required=True)
    parser.add_argument("--override", nargs="*")
    args = parser.parse_args()
    with open(args.config) as f:
        config = apply_overrides(json.load(f), args.override)
    train = config.get("training", {})
    prof_cfg = config.get("profiling", {})
    mcfg = config.get("model", {})

    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    out_dir = train.get("output_dir", "artifacts/local_cpu")
    rank_dir = os.path.join(out_dir, "torch_profiler", f"rank{rank}")
    os.makedirs(rank_dir, exist_ok=True)
    log = open(os.path.join(out_dir, f"rank{rank}.log"), "a")
    metrics = open(os.path.join(out_dir, f"rank_{rank:02d}_metrics.jsonl"), "a")

    def info(msg):
        line = f"{time.strftime('%Y-%m-%d %H:%M:%S')} | INFO | train | {msg}"
        print(line, file=log, flush=True)
        if rank == 0:
            print(line, flush=True)

    info(f"Initialised distributed training | backend=gloo rank={rank} world={world}")
    faults = config.get("faults", {})
    inject_start_faults(faults, rank, info)
    torch.manual_seed(1234 + rank)
    in_dim, hidden, classes = mcfg.get("input_dim", 256), mcfg.get("hidden_dim", 512), mcfg.get("num_classes", 10)
    model = DDP(nn.Sequential(nn.Linear(in_dim, hidden), nn.ReLU(), nn.Linear(hidden, classes)))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    batch = train.get("batch_size", 64)
    steps = train.get("max_steps", 8)
    sched = schedule(wait=prof_cfg.get("wait", 1), warmup=prof_cfg.get("warmup", 1),
                     active=prof_cfg.get("active", 3), repeat=prof_cfg.get("repeat", 1))
    handler = tensorboard_trace_handler(rank_dir)
    # profile_memory: allocator events ("[memory]", args "Total Allocated") give peak_memory_gb.
    profiler = profile(activities=[ProfilerActivity.CPU], schedule=sched, on_trace_ready=handler,
                       profile_memory=prof_cfg.get("profile_memory", True))
    if not prof_cfg.get("enabled", True):
        profiler = contextlib.nullcontext(types.SimpleNamespace(step=lambda: None))
    with profiler as prof:
        for step in range(steps):
            t0 = time.time()
            x, y = torch.randn(batch, in_dim), torch.randint(0, classes, (batch,))
            opt.zero_grad()
            loss = nn.functional.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            total = torch.ones(1000) * rank
            dist.all_reduce(total)
            gathered = [torch.zeros(10) for _ in range(world)]
            dist.all_gather(gathered, torch.full((10,), float(rank)))
            prof.step()
            record = {"rank": rank, "world_size": world, "step": step, "loss": loss.item(),
                      "step_ms": (time.time() - t0) * 1000.0}
            print(json.dumps(record), file=metrics, flush=True)
            if step % train.get("log_interval", 2) == 0:
                info(f"step={step} loss={loss.item():.5f}")
    if faults.get("hostile_artifacts") and rank == 0:
        # Names a node could present to the collector: links out of the tree, and a
        # name with quotes and command substitutions in it.
        for link, target in (("evil.pt.trace.json", "/etc/shadow"), ("escape", "/")):
            path = os.path.join(rank_dir, link)
            if os.path.lexists(path):
                os.remove(path)
            os.symlink(target, path)
        with open(os.path.join(rank_dir, faults["hostile_artifacts"]), "w") as f:
            f.write("not a trace\n")
        info("fault injected: hostile artifact names")
    if faults.get("truncate_trace_rank", -1) == rank:
        for name in os.listdir(rank_dir):
            path = os.path.join(rank_dir, name)
            os.truncate(path, os.path.getsize(path) // 2)
            info(f"fault injected: truncated {path}")
    info(f"done host={socket.gethostname()} steps={steps}")
    # Without the barrier and del, gloo's destructor can deadlock on the GIL at exit
    # (seen in 5 of 10 runs with Debian's torch 1.13).
    dist.barrier()
    del model, opt
    dist.destroy_process_group()


if __name__ == "__main__":
    sys.exit(main())
