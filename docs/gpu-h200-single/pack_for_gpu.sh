#!/usr/bin/env bash
# Packs a Debian 12 build for the GPU machine (Ubuntu 24.04): the stripped binary,
# its shipped data, and the libraries of Debian 12's sonames that Ubuntu 24.04 lacks.
# Usage: docs/gpu-h200-single/pack_for_gpu.sh BUILD_DIR   (writes .gpu/ in the repository root)
set -euo pipefail
build=${1:?build dir}
rm -rf .gpu && mkdir -p .gpu/bin .gpu/lib
cp "$build/aorta_suite" .gpu/bin/ && strip .gpu/bin/aorta_suite
cp -r "$build/share" .gpu/share   # the binary finds its data at <bin>/../share/aorta_suite
for soname in libfmt.so.9 libsimdjson.so.14 libboost_filesystem.so.1.81.0 libboost_program_options.so.1.81.0 libssh2.so.1 libcrypto.so.3 libzip.so.4; do
  path=$(ldd .gpu/bin/aorta_suite | awk -v s="$soname" '$1 == s {print $3}')
  [ -n "$path" ] && cp -L "$path" .gpu/lib/
done
du -sh .gpu
