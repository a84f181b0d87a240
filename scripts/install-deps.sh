#!/usr/bin/env bash
# Installs every Debian 12 package hermit needs to build, test and benchmark. Run as root.
# --compat also installs the heavy programs of the full compatibility matrix (scripts/compat-matrix.sh):
# Node.js and a JVM.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
packages=(
  build-essential cmake pkg-config clang clang-format
  capnproto libcapnp-dev liblzma-dev libunwind-dev nettle-dev
  qt6-base-dev libgtest-dev libcli11-dev libfmt-dev libspdlog-dev nlohmann-json3-dev
  gdb strace python3 sqlite3 git make procps hyperfine
  xz-utils zstd bzip2 jq bc openssl openssh-client curl file ninja-build
)
if [[ ${1:-} == --compat ]]; then
  packages+=(nodejs default-jdk-headless)
fi
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if ((${#missing[@]})); then
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
