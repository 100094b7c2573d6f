#!/usr/bin/env bash
# Install what tilec needs to build and test on Debian 12, when missing.
# Safe to run again: it only calls apt-get when a package is absent.
set -euo pipefail

packages=(
  cmake ninja-build g++ ccache
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools
  clang-22 libclang-rt-22-dev
  libzstd-dev zlib1g-dev
  libgtest-dev googletest
  python3 python3-numpy python3-pytest pybind11-dev python3-dev python3-venv
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
    || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "tilec: installing ${missing[*]}" >&2
sudo=""
if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
