#!/usr/bin/env bash
# The recorded one-H200 run, exactly as it was made: run from the repository root on
# the GPU machine (Ubuntu 24.04, torch 2.11 with CUDA and NCCL, no container engine),
# with a stripped aorta_suite build and the libraries Ubuntu lacks in .gpu/ (made by
# pack_for_gpu.sh) and ROCm/aorta's files in third_party_aorta/. Neither is committed.
# Results, the independent checker's numbers and a tarball land in ${OUT:-/tmp/aorta-gpu}.
set -uo pipefail
out=${OUT:-/tmp/aorta-gpu}
repo=$PWD
mkdir -p "$out"
export LD_LIBRARY_PATH="$repo/.gpu/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export NCCL_NVLS_ENABLE=0  # NVLink multicast stays off on these machines
{
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  python3 -c 'import torch; print("torch", torch.__version__, "nccl", ".".join(map(str, torch.cuda.nccl.version())))'
  uname -srm
} > "$out/machine.txt" 2>&1
# aorta_path must be private to the user who runs the suite: a root-owned 0700
# parent with the checkout copied in.
install -d -m 0700 /root/aorta_h200
rm -rf /root/aorta_h200/aorta
cp -a third_party_aorta /root/aorta_h200/aorta
cd "$out"
"$repo/.gpu/bin/aorta_suite" --config_file "$repo/docs/gpu-h200-single/aorta_h200_single.json" \
  --output_dir "$out/results" --gtest_filter='*single*' > "$out/suite_stdout.txt" 2>&1
echo "aorta_suite exit status: $?" >> "$out/suite_stdout.txt"
# The independent checker on every trace the run collected.
find "$out/results" -name '*.pt.trace.json*' -print0 | sort -z |
  xargs -0 -r python3 "$repo/tools/independent_metrics.py" > "$out/independent.jsonl" 2>&1
tar -czf "$out/results.tgz" -C "$out" results && rm -rf "$out/results"
