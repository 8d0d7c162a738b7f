#!/usr/bin/env bash
# Sets everything up: installs the missing Debian packages, fetches the data,
# configures and builds (the release preset, into build/): every target, or only the
# targets named as arguments. Running it again does almost nothing.
#
#   scripts/setup.sh [--packages "PACKAGE..."] [TARGET...]
#
# --packages names more Debian packages to install (test.sh: chromium).
set -euo pipefail
cd "$(dirname "$0")/.."

extra=()
if [ "${1:-}" = --packages ]; then read -r -a extra <<< "${2:-}"; shift 2; fi

# What the build needs comes first. The Python side, any extra packages and the data
# then come while it builds: apt unpacks on one core, and the build's first step (the
# precompiled header, half a minute) leaves the other idle.
scripts/install-packages.sh --build
logs="$(mktemp -d)"
trap 'rm -rf "$logs"' EXIT
scripts/install-packages.sh "${extra[@]}" > "$logs/packages" 2>&1 &
packages=$!
{ scripts/fetch-data.sh || echo "setup: some data is missing (see above); the tests that need it will be skipped"; } \
  > "$logs/data" 2>&1 &
data=$!
echo "setup: the Python packages and the data are seen to while the build runs (their output follows it)"

status=0
{ [ -f build/CMakeCache.txt ] || cmake --preset release; } || status=$?
if [ "$status" -eq 0 ]; then
  targets=()
  for t in "$@"; do targets+=(--target "$t"); done
  cmake --build --preset release "${targets[@]}" || status=$?
fi

wait "$data" || true
cat "$logs/data"
wait "$packages" || { cat "$logs/packages"; echo "setup: installing the packages failed (above)" >&2; exit 1; }
grep -v -E '^(Selecting|Preparing|Unpacking|Setting up|Processing|\(Reading)' "$logs/packages" || true
exit "$status"
