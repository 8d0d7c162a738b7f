#!/usr/bin/env bash
# Sets everything up: installs the missing Debian packages, fetches the data,
# configures and builds (the release preset, into build/): every target, or only the
# targets named as arguments. Running it again does almost nothing.
#
#   scripts/setup.sh [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-packages.sh

scripts/fetch-data.sh || echo "setup: some data is missing (see above); the tests that need it will be skipped"

[ -f build/CMakeCache.txt ] || cmake --preset release
targets=()
for t in "$@"; do targets+=(--target "$t"); done
cmake --build --preset release "${targets[@]}"
