#!/usr/bin/env bash
# The recorded one-H200 runs, exactly as they were made (issue 28): the packaged
# aorta_suite (cpack's tarball, unpacked as a user would) runs the REAL Aorta in both
# launch forms on the GPU machine (Ubuntu 24.04, torch 2.11 with CUDA and NCCL, no
# container engine):
#   script    Aorta's own scripts/launch_cuda.sh (aorta_h200_single_script.json), as
#             Aorta's users launch it: train.py gets the YAML alone
#   torchrun  the suite starts torchrun (aorta_h200_single.json): the overrides arrive
# one after the other in the same aorta_path (the second run must not take the first's
# traces). Each run is checked by check_run.py against tools/independent_metrics.py and
# tools/independent_steps.py. Run from the repository root with the tarball in .gpu/
# and ROCm/aorta's files in third_party_aorta/ (neither is committed). Results land in
# ${OUT:-/tmp/aorta-gpu}: machine.txt, and per form suite_<form>.txt, check_<form>.txt,
# results_<form>.tgz.
set -uo pipefail
out=${OUT:-/tmp/aorta-gpu}
repo=$PWD
mkdir -p "$out"
export NCCL_NVLS_ENABLE=0  # NVLink multicast stays off on these machines
{
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  python3 -c 'import torch; print("torch", torch.__version__, "nccl", ".".join(map(str, torch.cuda.nccl.version())))'
  uname -srm
  grep PRETTY_NAME /etc/os-release
} > "$out/machine.txt" 2>&1
# The package as a head node gets it: unpacked anywhere, nothing else on the path.
pkg=$(mktemp -d /tmp/aorta-pkg.XXXXXX)
tar -xzf "$repo"/.gpu/aorta-suite-*-linux-x86_64.tar.gz -C "$pkg" || exit 1
suite=$(echo "$pkg"/aorta-suite-*/bin/aorta_suite)
"$suite" --version >> "$out/machine.txt" 2>&1
# aorta_path must be private to the user who runs the suite: a root-owned 0700
# parent with the checkout copied in.
install -d -m 0700 /root/aorta_h200
rm -rf /root/aorta_h200/aorta
cp -a third_party_aorta /root/aorta_h200/aorta
status=0
for form in torchrun script; do
  config=$repo/docs/gpu-h200-single/aorta_h200_single.json
  [ "$form" = script ] && config=$repo/docs/gpu-h200-single/aorta_h200_single_script.json
  rm -rf "$out/results_$form"
  (cd "$out" && "$suite" --config_file "$config" --output_dir "$out/results_$form" --gtest_filter='*single*') \
    > "$out/suite_$form.txt" 2>&1
  rc=$?
  echo "aorta_suite exit status: $rc" >> "$out/suite_$form.txt"
  python3 "$repo/docs/gpu-h200-single/check_run.py" "$out/results_$form" > "$out/check_$form.txt" 2>&1
  check=$?
  [ $rc = 0 ] && [ $check = 0 ] || status=1
  tar -czf "$out/results_$form.tgz" -C "$out" "results_$form" && rm -rf "$out/results_$form"
done
rm -rf "$pkg"
exit $status
