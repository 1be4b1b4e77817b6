#!/usr/bin/env bash
# run_fuzzer.sh FUZZER CORPUS_DIR RUNS SEED... : a fresh corpus from the seeds (gzip
# seeds also unpacked, so both reader paths are fed), then RUNS inputs. Seeds whose
# names clash (two folders' good.json) are kept apart by a numbered prefix. Every seed
# is first run once on its own, so a hostile seed that crashes is named as such.
# FUZZ_MAX_LEN (default 65536) bounds the size of an input.
set -euo pipefail
fuzzer=$1 corpus=$2 runs=$3
shift 3
rm -rf "$corpus"
mkdir -p "$corpus"
n=0
for seed in "$@"; do
  n=$((n + 1))
  cp "$seed" "$corpus/$n-$(basename "$seed")"
  case "$seed" in *.gz) gzip -dc "$seed" > "$corpus/$n-$(basename "$seed" .gz)" || true ;; esac
done
max_len=${FUZZ_MAX_LEN:-65536}
# A dictionary beside this script named after the fuzzer (fuzz_trace_reader.dict:
# trace keys, separators, invalid UTF-8) steers mutations towards the checks.
dict="$(dirname "$0")/$(basename "$fuzzer").dict"
extra=()
[ -f "$dict" ] && extra+=("-dict=$dict")
"$fuzzer" -timeout=30 -rss_limit_mb=4096 "$corpus"/*
exec "$fuzzer" -runs="$runs" -max_len="$max_len" -timeout=30 -rss_limit_mb=4096 "${extra[@]}" "$corpus"
