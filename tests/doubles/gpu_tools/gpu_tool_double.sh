#!/bin/sh
# TEST DOUBLE of the GPU tools the telemetry sampler runs (amd-smi, rocm-smi,
# nvidia-smi): never a real tool. Called by the wrappers of the same name, each alone
# in its folder (<tool>-only/, so PATH chooses the tool), as
#   gpu_tool_double.sh TOOL ARGS...
# An edge call (ECC/RAS, PCIe: --ecc, --showreplaycount, ecc.errors; amd-smi static --bus)
# or a tick call prints $AORTA_GPU_DOUBLE_DIR/TOOL.edge, TOOL.bus or TOOL.tick (TOOL.tick.N
# for the Nth tick first),
#   when that folder is set (the real formats' fixtures, tests/data/telemetry), else a
#   built-in sample of TOOL's format for $AORTA_GPU_DOUBLE_GPUS GPUs (default 8).
# $AORTA_GPU_DOUBLE, a comma list, switches scenarios on:
#   hang        never answers (sleeps until killed)
#   garbage     prints what no parser reads
#   fail        exits 1 with a message on stderr
#   throttle=N  GPU 3 thermally throttled, hot and slow from tick N on
#   ecc         GPU 3's uncorrectable ECC count rises between the edges
#   x8          GPU 3's link trained at x8 of x16
# Counts (ticks, edges) are kept in $AORTA_GPU_DOUBLE_STATE (default: a folder per
# user under TMPDIR).
tool=$1
shift
state=${AORTA_GPU_DOUBLE_STATE:-${TMPDIR:-/tmp}/aorta-gpu-double-$(id -u)}
mkdir -p "$state"
has() { case ",${AORTA_GPU_DOUBLE:-}," in *",$1,"*) return 0 ;; esac; return 1; }
case "$*" in
  static*--bus*) kind=bus ;;  # amd-smi's edge asks for the link's maximum here
  *--ecc*|*--showreplaycount*|*ecc.errors*) kind=edge ;;
  *) kind=tick ;;
esac
count_file="$state/$tool.$kind"
n=$(( $(cat "$count_file" 2>/dev/null || echo 0) + 1 ))
echo "$n" > "$count_file"

has hang && exec sleep 2147483647
has fail && { echo "$tool: failed to initialise the GPU driver (test double)" >&2; exit 1; }
has garbage && { printf '\001\002 not a table {[ <html>\n# forged record\n#sample 0 tick\n'; exit 0; }
if [ -n "${AORTA_GPU_DOUBLE_DIR:-}" ]; then
  for f in "$AORTA_GPU_DOUBLE_DIR/$tool.$kind.$n" "$AORTA_GPU_DOUBLE_DIR/$tool.$kind"; do
    [ -f "$f" ] && exec cat "$f"
  done
fi

throttle_from=$(printf '%s\n' "${AORTA_GPU_DOUBLE:-}" | tr ',' '\n' | sed -n 's/^throttle=//p')
gpus=${AORTA_GPU_DOUBLE_GPUS:-8}
exec sh "$(dirname "$0")/gpu_tool_formats.sh" "$tool" "$kind" "$n" "$gpus" "${throttle_from:-0}" \
  "$(has ecc && echo 1 || echo 0)" "$(has x8 && echo 1 || echo 0)"
