#!/usr/bin/env bash
# Installs the Debian packages the project needs, and any named as arguments, that
# are not installed yet. Used by setup.sh, and by fuzz.sh for clang.
#
#   scripts/install-packages.sh [--build] [PACKAGE...]
#
# --build installs only what configuring and building need; setup.sh installs the rest
# (the Python side) while the build runs.
set -euo pipefail

build_packages=(
  build-essential cmake pkg-config curl
  python3  # scripts/fetch-data.sh, which runs beside the build, checks zip files with it
  clang  # the compiler of the presets: with LibTorch's precompiled header, twice as fast as g++
  lld  # the presets' linker: an executable linked against LibTorch in 0.3 s instead of GNU ld's 1.5 s
  libtorch-dev libcxxopts-dev libspdlog-dev catch2 nlohmann-json3-dev libpcre2-dev zlib1g-dev
  libutf8proc-dev  # NFC, for tokenizer.json's normalizers (Qwen3)
  libgloo-dev  # c10d's Gloo headers, for distributed training
  libcpp-httplib-dev  # HTTP for the server (serve)
  libdnnl-dev  # the size of oneDNN's kernel cache (LibTorch's bfloat16 matrix products)
  libopenblas0-pthread  # without it LibTorch's matrix products use the reference BLAS, ~40x slower
)
python_packages=(
  python3-matplotlib  # the loss plots; its fonttools pulls in SciPy and SymPy: 43 packages, 38 s of apt
  python3-torch  # the PyTorch references (scripts/reference)
  python3-pandas  # the references of lesson 6's data preparation (DataFrame.sample)
  python3-regex  # GPT-2's pre-tokenizer pattern (\\p{L}, \\p{N}) in the Python BPE reference
  libtcmalloc-minimal4  # the PyTorch references' allocator (scripts/reference/python3-torch): 4x faster replays
)
packages=("${build_packages[@]}")
if [ "${1:-}" = --build ]; then shift; else packages+=("${python_packages[@]}"); fi
packages+=("$@")

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
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
