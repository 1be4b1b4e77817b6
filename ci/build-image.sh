#!/usr/bin/env bash
# Builds the test cluster's container image without any registry: Debian bookworm
# (debootstrap minbase) with Debian's python3-torch, imported into root podman's
# store, which every test-cluster node reads. Kept between runs: an existing image
# is reused unless REBUILD=1.
# Usage: ci/build-image.sh [TAG]
set -euo pipefail
tag=${1:-localhost/aorta-suite-cpu:bookworm}
here=$(cd "$(dirname "$0")" && pwd)
# The mirror apt already uses (one-line or deb822 sources), else Debian's.
mirror=${MIRROR:-$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.sources 2>/dev/null |
  awk '/^deb /{print $2; exit} /^URIs:/{print $2; exit}' || true)}
mirror=${mirror:-http://deb.debian.org/debian}
if [ "${REBUILD:-0}" != 1 ] && podman image exists "$tag"; then
  echo "build-image: $tag already built"
  exit 0
fi
work=$(mktemp -d /var/tmp/aorta-image.XXXXXX)
trap 'rm -rf "$work"' EXIT
start=$(date +%s)
echo "build-image: debootstrap bookworm from $mirror (about 30 s)"
debootstrap --variant=minbase bookworm "$work/rootfs" "$mirror" > "$work/debootstrap.log" 2>&1 ||
  { tail -20 "$work/debootstrap.log"; exit 1; }
cp /etc/resolv.conf "$work/rootfs/etc/resolv.conf"
# No service may start inside the chroot.
printf '#!/bin/sh\nexit 101\n' > "$work/rootfs/usr/sbin/policy-rc.d"
chmod +x "$work/rootfs/usr/sbin/policy-rc.d"
echo "build-image: python3-torch into the image (about 60 s)"
chroot "$work/rootfs" sh -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
  --no-install-recommends python3-torch procps iproute2 >/dev/null && apt-get clean && rm -rf /var/lib/apt/lists/*'
# Debian's torchrun crashes on Python 3.11 (Std.from_str); the workload's fix
# becomes the image's torchrun.
{ echo '#!/usr/bin/python3'; cat "$here/../workload/scripts/torchrun_py311.py"; } > "$work/rootfs/usr/local/bin/torchrun"
chmod 0755 "$work/rootfs/usr/local/bin/torchrun"
tar -C "$work/rootfs" -c . | podman import -q - "$tag" > /dev/null
echo "build-image: $tag built in $(( $(date +%s) - start )) s"
