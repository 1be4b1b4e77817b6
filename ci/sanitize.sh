#!/usr/bin/env bash
# The second CI build: clang with AddressSanitizer and UndefinedBehaviorSanitizer on
# the whole project, the unit tests under it, and the libFuzzer targets for a fixed
# number of inputs each (ctest labels unit and fuzz). Needs ci/setup.sh first.
set -euo pipefail
cd "$(dirname "$0")/.."
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}" CCACHE_NOHASHDIR=1  # as .ci/run: reusable from another clone
CC=clang CXX=clang++ cmake -S . -B build-asan -DAORTA_SANITIZE=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_COMPILER_LAUNCHER=ccache
cmake --build build-asan -j2 --target aorta_unit_tests fuzz_config_loader fuzz_cluster_loader fuzz_trace_reader \
  fuzz_compare_report fuzz_workbook fuzz_agent_protocol fuzz_cvs_yaml
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1
ctest --test-dir build-asan -L 'unit|fuzz' --output-on-failure -j2
