#!/usr/bin/env bash
# Installs everything aorta_suite needs to build, run the embedded default and run
# its tests, from Debian 12's packages only. Safe to run again.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
sudo=""
if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi
packages=(
  cmake g++ make pkg-config git
  ccache                  # CI's builds reuse the objects of an earlier build (.ci/run)
  libgtest-dev libgmock-dev nlohmann-json3-dev libfmt-dev libpugixml-dev libsimdjson-dev zlib1g-dev libzip-dev
  libzstd-dev libboost1.81-dev libboost-filesystem1.81-dev libboost-program-options1.81-dev libssh2-1-dev
  libpcre2-dev            # the kernel-log patterns (PCRE2 with JIT)
  libyaml-cpp-dev         # CVS's legacy test_aorta YAML (aorta_suite config import)
  python3 python3-torch   # the CPU workload: real torchrun with Debian's torch (gloo)
  python3-yaml            # the real Aorta's config code (YAML) in tests/e2e/real_aorta.py
  procps util-linux       # pgrep, dmesg
  zstd gzip               # traces compressed on the nodes as they are collected
  rsync                   # bench/collect_bench compares collection with rsync -z
  openssh-server openssh-client  # the SSH transport tests run a real sshd on loopback
  clang libclang-rt-14-dev       # ci/sanitize.sh: ASan + UBSan build and the libFuzzer targets
  # The test cluster (ci/testcluster.sh, ci/build-image.sh): netns nodes, podman
  # behind the docker CLI, an image built with debootstrap; pdsh for the fan-out bench.
  iproute2 podman runc conmon netavark catatonit uidmap fuse-overlayfs debootstrap pdsh
  slurm-wlm munge          # Slurm on the test cluster (ctest -L slurm)
  docker-registry apache2-utils openssl  # e2e_containers_registry: a private registry (TLS, htpasswd users)
  libxml2-utils           # xmllint: the tests validate the JUnit XML against report/junit.xsd
  python3-junitparser     # a real JUnit consumer for tests/suite/junit_consumers.py
  python3-prometheus-client  # a real OpenMetrics parser for metrics.txt (tests/suite/ci_contract.py)
  chromium fonts-dejavu-core  # the report tests render both HTML files headless
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
# The Docker CLI talks to each test node's podman API service. Many machines have
# it already; otherwise Debian's docker.io brings it (its daemon is not used).
if ! command -v docker > /dev/null; then
  $sudo apt-get install -y -qq --no-install-recommends docker.io
fi
# The npm JUnit consumers of tests/suite/junit_consumers.py (test-results-parser,
# junit-to-ctrf, xunit-viewer) at the versions tests/junit/package.json pins, in
# build/npm-consumers (ignored by git). Node comes from Debian unless one is there.
if ! command -v npm > /dev/null; then
  $sudo apt-get install -y -qq --no-install-recommends nodejs npm
fi
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
consumers="$root/build/npm-consumers"
mkdir -p "$consumers"
cp "$root/tests/junit/package.json" "$consumers/package.json"
(cd "$consumers" && npm install --no-audit --no-fund --no-package-lock --loglevel=error)
