#!/usr/bin/env bash
# install-deps.sh - installs the Debian 12 packages that cgp-ad needs to build,
# test and benchmark, but only those that are missing, so a second run is a
# quiet no-op (apt-get update runs only when something must be installed).
set -euo pipefail

packages=(
  cmake ninja-build g++ python3
  llvm-19-dev libclang-19-dev clang-19 libclang-cpp19-dev llvm-19-tools libzstd-dev zlib1g-dev
  libclang-rt-19-dev
  catch2 nlohmann-json3-dev libbenchmark-dev libadolc-dev libeigen3-dev
  graphviz python3-matplotlib chromium
)

# `dpkg -s` alone succeeds for removed packages that left config files behind.
missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [ "$status" = "install ok installed" ] || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages already installed"
  exit 0
fi

sudo=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps: not root and no sudo" >&2; exit 1; }
  sudo=(sudo)
fi
echo "install-deps: installing ${missing[*]}"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
apt() { "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -q "$@" >>"$log" 2>&1; }
if ! { apt update && apt install -y "${missing[@]}"; }; then
  cat "$log" >&2
  echo "install-deps: apt-get failed" >&2
  exit 1
fi
echo "install-deps: done"
