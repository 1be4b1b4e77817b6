#!/usr/bin/env bash
# A CMake user's project finds the installed suite with find_package and
# registers it with aorta_suite_add_test (twice, on one node); ctest runs them (the built-in
# local default, an aorta_path of its own) and it leaves the JUnit file it promises.
# Usage: tests/package/cmake_consumer.sh BUILD_DIR
set -euo pipefail
build=$(cd "${1:?build dir}" && pwd)
src=$(cd "$(dirname "$0")/../.." && pwd)
fail() { echo "FAIL: $*" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cmake --install "$build" --prefix "$work/prefix" > "$work/install.log" 2>&1 || { cat "$work/install.log"; fail "install"; }
[ -f "$work/prefix/lib/cmake/aorta_suite/aorta_suite-config.cmake" ] || fail "no package config installed"
for f in local_cpu_single.json local_cpu_threshold.json; do
  "$work/prefix/bin/aorta_suite" config copy "$f" --output "$work/$f" > /dev/null
done
sed -i "s|\"shared_fs\": \"[^\"]*\"|\"shared_fs\": \"$work/fs\"|" "$work/local_cpu_single.json"
grep -q "\"shared_fs\": \"$work/fs\"" "$work/local_cpu_single.json" || fail "could not give the config its own folder"

cmake -S "$src/tests/package/consumer" -B "$work/consumer" -DCMAKE_PREFIX_PATH="$work/prefix" \
  -DAORTA_CONFIG="$work/local_cpu_single.json" > "$work/configure.log" 2>&1 || { cat "$work/configure.log"; fail "configure"; }
listed=$(ctest --test-dir "$work/consumer" -N | grep -c "Test *#" || true)
[ "$listed" = 2 ] || { ctest --test-dir "$work/consumer" -N; fail "expected two ctest tests, found $listed"; }
# ctest never kills a run before the suite's own limits would (the config's timeout_seconds
# is 600: four commands of 600 s and an hour besides), and two runs on one node never overlap.
ctest --test-dir "$work/consumer" --show-only=json-v1 > "$work/tests.json"
/usr/bin/python3 - "$work/tests.json" "$work/local_cpu_single.json" <<'PY' || fail "the tests' TIMEOUT or RESOURCE_LOCK"
import json, sys
tests = json.load(open(sys.argv[1]))["tests"]
aorta_path = json.load(open(sys.argv[2]))["aorta_path"]
for t in tests:
    props = {p["name"]: p["value"] for p in t["properties"]}
    assert props.get("TIMEOUT") == 4 * 600 + 3600, (t["name"], props.get("TIMEOUT"))
    assert props.get("RESOURCE_LOCK") == ["aorta_suite_node:localhost", "aorta_suite_path:" + aorta_path], \
        (t["name"], props.get("RESOURCE_LOCK"))
PY
ctest --test-dir "$work/consumer" -j2 --output-on-failure > "$work/ctest.log" 2>&1 || { cat "$work/ctest.log"; fail "the suite's tests failed"; }
grep -q "100% tests passed" "$work/ctest.log" || { cat "$work/ctest.log"; fail "ctest did not pass it"; }
junit="$work/consumer/aorta_local.xml"
[ -s "$junit" ] || fail "no JUnit file at $junit"
grep -q '<testcase name="test_teardown" classname="aorta_single"' "$junit" || fail "the JUnit file lacks the run's stages"
ls "$work/consumer/aorta_local-results"/*/aorta_benchmark_report.json > /dev/null || fail "no run folder with its report"
ls "$work/consumer/aorta_local_again-results"/*/aorta_benchmark_report.json > /dev/null || fail "the second test has no report"

# A project pointed at a prefix without the suite is told so by find_package.
mkdir -p "$work/empty/lib/cmake/aorta_suite"
cp "$work/prefix/lib/cmake/aorta_suite/"*.cmake "$work/empty/lib/cmake/aorta_suite/"
if cmake -S "$src/tests/package/consumer" -B "$work/consumer2" -DCMAKE_PREFIX_PATH="$work/empty" \
     -DAORTA_CONFIG=x > "$work/configure2.log" 2>&1; then
  fail "configured against a prefix without the binary"
fi
grep -q "no aorta_suite binary at $work/empty/bin/aorta_suite" "$work/configure2.log" ||
  { cat "$work/configure2.log"; fail "find_package did not say why"; }
echo "cmake_consumer: ok: find_package(aorta_suite), two ctest tests (TIMEOUT, RESOURCE_LOCK, run under -j2 one after the other), their JUnit files and run folders"
