#!/usr/bin/env bash
# The packages work where the build's libraries are not: builds the TGZ and DEB with
# cpack, installs each into a minimal Debian 12 root (debootstrap minbase: no -dev
# packages, none of libfmt9, libsimdjson14, libssh2-1, Boost, libssl3 or libyaml-cpp0.7), and runs
# --version, `analyze` on real traces and `config import` of CVS's YAML there, expecting exactly what the build
# tree prints. The root is kept between runs in /var/tmp (REBUILD=1 makes it anew);
# every test works on an overlay of it, so the root itself is never changed.
# Usage: tests/package/bare_debian_install.sh BUILD_DIR   (as root)
set -euo pipefail
build=$(cd "${1:?build dir}" && pwd)
src=$(cd "$(dirname "$0")/../.." && pwd)
base=/var/tmp/aorta-bare-bookworm
mirror=${MIRROR:-$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.sources 2>/dev/null |
  awk '/^deb /{print $2; exit} /^URIs:/{print $2; exit}' || true)}
mirror=${mirror:-http://deb.debian.org/debian}
fail() { echo "FAIL: $*" >&2; exit 1; }

(cd "$build" && cpack -G "TGZ;DEB" > cpack.log 2>&1) || { cat "$build/cpack.log"; fail "cpack"; }
tgz=$(ls "$build"/aorta-suite-*-linux-x86_64.tar.gz)
deb=$(ls "$build"/aorta-suite-*-linux-x86_64.deb)

if [ "${REBUILD:-0}" = 1 ] || [ ! -x "$base/bin/sh" ]; then
  rm -rf "$base" "$base.tmp"
  echo "package test: debootstrap minbase bookworm from $mirror (about a minute)"
  debootstrap --variant=minbase bookworm "$base.tmp" "$mirror" > /var/tmp/aorta-bare-debootstrap.log 2>&1 ||
    { tail -20 /var/tmp/aorta-bare-debootstrap.log; fail "debootstrap"; }
  mv "$base.tmp" "$base"
fi

work=$(mktemp -d /var/tmp/aorta-package.XXXXXX)
root=$work/root
cleanup() {
  umount "$root/proc" 2> /dev/null || true
  umount "$root" 2> /dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$work/upper" "$work/overlay-work" "$root"
mount -t overlay overlay -o "lowerdir=$base,upperdir=$work/upper,workdir=$work/overlay-work" "$root"
mount -t proc proc "$root/proc"

# The root must really lack what the binary was built against.
for lib in libfmt.so.9 libsimdjson.so.14 libssh2.so.1 libboost_filesystem.so.1.81.0 libboost_program_options.so.1.81.0 \
           libzip.so.4 libcrypto.so.3 libyaml-cpp.so.0.7; do
  if chroot "$root" /sbin/ldconfig -p | grep -q "$lib"; then fail "the bare root already has $lib"; fi
done
if chroot "$root" dpkg-query -W -f '${Package}\n' | grep -- '-dev$'; then fail "the bare root has -dev packages"; fi

mkdir -p "$root/data"
cp "$src"/tests/data/cvs_aorta/aorta_benchmark.yaml "$root/"
cp "$src"/tests/data/h200-aorta-overlap_rank0.pt.trace.json.gz "$src"/tests/data/h200-aorta-overlap_rank1.pt.trace.json.gz "$root/data/"
expected_version=$("$build/aorta_suite" --version)
"$build/aorta_suite" analyze "$root/data" --jobs 1 --output "$work/expected.json" > /dev/null
# The run-independent part of analyze's output: the metrics, not the folder it read.
metrics() { /usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(json.dumps([d["performance"], [{k: v for k, v in r.items() if k != "source"} for r in d["per_rank_summary"]]], sort_keys=True))' "$1"; }
expected_metrics=$(metrics "$work/expected.json")

check_install() {  # $1: what, $2: the binary's path inside the root
  local version
  version=$(chroot "$root" "$2" --version) || fail "$1: --version did not run"
  [ "$version" = "$expected_version" ] || fail "$1: --version says '$version', the build says '$expected_version'"
  chroot "$root" "$2" analyze /data --jobs 1 --output /data/out.json > /dev/null || fail "$1: analyze failed"
  [ "$(metrics "$root/data/out.json")" = "$expected_metrics" ] || fail "$1: analyze's metrics differ from the build tree's"
  chroot "$root" "$2" config list | grep -q local_cpu_single.json || fail "$1: shipped configs not found"
  # yaml-cpp, bundled: CVS's sample imports and loads (exit 0 only when it loads).
  chroot "$root" "$2" config import /aorta_benchmark.yaml -o /data/imported.json > /dev/null ||
    fail "$1: config import of CVS's sample failed"
  rm -f "$root/data/out.json" "$root/data/imported.json" "$root/data/imported_threshold.json"
  echo "ok: $1 ($version)"
}

mkdir -p "$root/opt/unpacked"
tar -xzf "$tgz" -C "$root/opt/unpacked"
dir=$(basename "$tgz" .tar.gz)
check_install "TGZ" "/opt/unpacked/$dir/bin/aorta_suite"
# Relocatable: the same tree moved elsewhere still finds its libraries and data.
mv "$root/opt/unpacked/$dir" "$root/srv/moved"
check_install "TGZ moved to /srv/moved" "/srv/moved/bin/aorta_suite"

cp "$deb" "$root/tmp/aorta.deb"
chroot "$root" dpkg -i /tmp/aorta.deb > "$work/dpkg.log" 2>&1 || { cat "$work/dpkg.log"; fail "dpkg -i"; }
check_install "DEB" "/opt/aorta_suite/bin/aorta_suite"
