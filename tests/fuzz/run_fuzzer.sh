#!/usr/bin/env bash
# run_fuzzer.sh FUZZER CORPUS_DIR RUNS SEED... : a fresh corpus from the seeds (gzip
# seeds also unpacked, so both reader paths are fed), then RUNS inputs. Every seed
# is first run once on its own, so a hostile seed that crashes is named as such.
# FUZZ_MAX_LEN (default 65536) bounds the size of an input.
set -euo pipefail
fuzzer=$1 corpus=$2 runs=$3
shift 3
rm -rf "$corpus"
mkdir -p "$corpus"
for seed in "$@"; do
  cp "$seed" "$corpus/"
  case "$seed" in *.gz) gzip -dc "$seed" > "$corpus/$(basename "$seed" .gz)" ;; esac
done
max_len=${FUZZ_MAX_LEN:-65536}
"$fuzzer" -timeout=30 -rss_limit_mb=4096 "$corpus"/*
exec "$fuzzer" -runs="$runs" -max_len="$max_len" -timeout=30 -rss_limit_mb=4096 "$corpus"
