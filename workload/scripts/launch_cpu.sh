#!/usr/bin/env bash
# Script-mode launcher, Aorta's launch_*.sh shape: one node, NPROC local ranks.
# Usage: launch_cpu.sh CONFIG [--override key=value ...]
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
config=${1:?usage: launch_cpu.sh CONFIG [--override key=value ...]}
shift
nproc=${NPROC:-${GPUS:-2}}
cd "$repo"
# --monitor_interval 0.5: the 5 s default adds seconds to every short run.
exec bash "$repo/scripts/torchrun.sh" --standalone --nproc_per_node "$nproc" --monitor_interval 0.5 \
  "$repo/train.py" --config "$config" "$@"
