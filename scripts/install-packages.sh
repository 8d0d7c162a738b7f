#!/usr/bin/env bash
# Installs the Debian packages the project needs, and any named as arguments, that
# are not installed yet. Used by setup.sh, and by fuzz.sh for clang.
set -euo pipefail

packages=(
  build-essential cmake pkg-config ccache curl
  clang  # the compiler of the presets: with LibTorch's precompiled header, twice as fast as g++
  lld  # the presets' linker: an executable linked against LibTorch in 0.3 s instead of GNU ld's 1.5 s
  libtorch-dev libcxxopts-dev libspdlog-dev catch2 nlohmann-json3-dev libpcre2-dev zlib1g-dev
  libutf8proc-dev  # NFC, for tokenizer.json's normalizers (Qwen3)
  libgloo-dev  # c10d's Gloo headers, for distributed training
  libcpp-httplib-dev  # HTTP for the server (serve)
  libdnnl-dev  # the size of oneDNN's kernel cache (LibTorch's bfloat16 matrix products)
  libopenblas0-pthread  # without it LibTorch's matrix products use the reference BLAS, ~40x slower
  python3-torch python3-matplotlib
  python3-pandas  # the references of lesson 6's data preparation (DataFrame.sample)
  python3-regex  # GPT-2's pre-tokenizer pattern (\\p{L}, \\p{N}) in the Python BPE reference
  libtcmalloc-minimal4  # the PyTorch references' allocator (scripts/reference/python3-torch): 4x faster replays
  "$@"
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
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
