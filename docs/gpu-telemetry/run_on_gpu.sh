#!/usr/bin/env bash
# Issue 47 on a real GPU: the packaged aorta_suite runs the REAL Aorta (torchrun mode,
# one GPU) three times: a warm-up with telemetry off, then on (the real nvidia-smi every
# second), then off again,
# and records: the sampler's file and the report's per-GPU summary, the independent
# checker's figures from the same raw samples, `aorta_suite compare` of the two runs'
# per-step times (the sampler's cost on the training), and what one sample costs
# (bytes a GPU, CPU seconds a call). Run from the repository root with the tarball in
# .gpu/ and ROCm/aorta's files in third_party_aorta/ (neither committed), as
# docs/gpu-h200-single/README.md says. Results in ${OUT:-/tmp/aorta-gpu-telemetry}.
set -uo pipefail
out=${OUT:-/tmp/aorta-gpu-telemetry}
repo=$PWD
here=$repo/docs/gpu-telemetry
mkdir -p "$out"
export NCCL_NVLS_ENABLE=0  # NVLink multicast stays off on these machines
{
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  python3 -c 'import torch; print("torch", torch.__version__)'
  grep PRETTY_NAME /etc/os-release
} > "$out/machine.txt" 2>&1
pkg=$(mktemp -d /tmp/aorta-pkg.XXXXXX)
tar -xzf "$repo"/.gpu/aorta-suite-*-linux-x86_64.tar.gz -C "$pkg" || exit 1
suite=$(echo "$pkg"/aorta-suite-*/bin/aorta_suite)
"$suite" --version >> "$out/machine.txt" 2>&1
install -d -m 0700 /root/aorta_h200
rm -rf /root/aorta_h200/aorta
cp -a third_party_aorta /root/aorta_h200/aorta
status=0
# FORMS: the runs in order; "warmup" is a run with telemetry off whose results are not
# compared (the first run on a cold GPU is slower, whichever it is).
for form in ${FORMS:-warmup telemetry no_telemetry}; do
  config=$here/aorta_gpu_$form.json
  [ "$form" = warmup ] && config=$here/aorta_gpu_no_telemetry.json
  rm -rf "$out/results_$form"
  (cd "$out" && "$suite" --config_file "$config" --output_dir "$out/results_$form" \
     --gtest_filter='*single*') > "$out/suite_$form.txt" 2>&1
  rc=$?
  echo "aorta_suite exit status: $rc" >> "$out/suite_$form.txt"
  [ $rc = 0 ] || status=1
done
with=$(dirname "$(ls "$out"/results_telemetry/*/aorta_benchmark_report.json)")
without=$(dirname "$(ls "$out"/results_no_telemetry/*/aorta_benchmark_report.json)")
cp "$with"/telemetry/node-0.log "$out/telemetry-node-0.log"
python3 "$repo/tools/independent_telemetry.py" "$with"/telemetry/node-0.log > "$out/checker.json" 2>&1 || status=1
python3 "$here/check_telemetry.py" "$with/aorta_benchmark_report.json" "$out/checker.json" > "$out/check.txt" 2>&1 || status=1
"$suite" compare "$without" "$with" > "$out/compare.txt" 2>&1
echo "compare exit status: $?" >> "$out/compare.txt"
# One tick's CPU: ten calls of the nvidia-smi tick command (lib/telemetry/tool_commands.cc's).
tick="nvidia-smi --query-gpu=index,timestamp,temperature.gpu,temperature.memory,power.draw,clocks.sm,clocks.mem,\
clocks.max.sm,utilization.gpu,utilization.memory,clocks_event_reasons.active --format=csv,nounits"
{
  echo "GPUs: $(nvidia-smi --query-gpu=index --format=csv,noheader | wc -l)"
  /usr/bin/time -f "ten ticks: %e s wall, %U s user, %S s system" bash -c "for i in 1 2 3 4 5 6 7 8 9 10; do $tick >/dev/null; done"
} > "$out/sample_cost.txt" 2>&1
for form in ${FORMS:-warmup telemetry no_telemetry}; do
  tar -czf "$out/results_$form.tgz" --exclude='*.json.gz' --exclude='*.zip' -C "$out" "results_$form" &&
    rm -rf "$out/results_$form"
done
rm -rf "$pkg"
exit $status
