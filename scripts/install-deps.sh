#!/usr/bin/env bash
# Installs, from Debian's packages, whatever tally's build needs and this machine lacks.
# Usage: scripts/install-deps.sh examples|tests|bench|ci
set -euo pipefail
what=${1:-tests}

packages=(cmake g++ make)
case "$what" in
  examples) ;;
  tests) packages+=(catch2 clang libclang-rt-dev python3-numpy pkg-config libeigen3-dev libopenmpi-dev openmpi-bin doxygen) ;;
  bench) packages+=(libbenchmark-dev libeigen3-dev python3-matplotlib) ;;
  ci) packages+=(catch2 clang libclang-rt-dev python3-numpy pkg-config libeigen3-dev libopenmpi-dev openmpi-bin doxygen
                 g++-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user g++-mingw-w64-x86-64 wine64) ;;
  *) echo "usage: $0 examples|tests|bench|ci" >&2; exit 2 ;;
esac

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "Installing from Debian: ${missing[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
