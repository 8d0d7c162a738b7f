#!/usr/bin/env bash
# Sets everything up: installs the missing Debian packages, fetches the data,
# configures and builds (the release preset, into build/): every target, or only the
# targets named as arguments. Running it again does almost nothing.
#
#   scripts/setup.sh [--packages "PACKAGE..."] [--python-later] [TARGET...]
#
# --packages names more Debian packages to install (test.sh: chromium).
# --python-later leaves out the Python packages, which the caller installs
# (scripts/install-packages.sh) once the build is done (run.sh: while it trains).
set -euo pipefail
cd "$(dirname "$0")/.."

extra=()
python=()
while [ $# -gt 0 ]; do
  case "$1" in
    --packages) read -r -a extra <<< "${2:-}"; shift 2 ;;
    --python-later) python=(--build); shift ;;
    *) break ;;
  esac
done

# What the build needs comes first. The rest of the packages and the data then come
# while it builds: apt unpacks on one core, at the lowest priority, and the build's first
# step (the precompiled header, half a minute) leaves the other idle.
scripts/install-packages.sh --build
logs="$(mktemp -d)"
trap 'rm -rf "$logs"' EXIT
nice -n 19 scripts/install-packages.sh "${python[@]}" "${extra[@]}" > "$logs/packages" 2>&1 &
packages=$!
{ scripts/fetch-data.sh || echo "setup: some data is missing (see above); the tests that need it will be skipped"; } \
  > "$logs/data" 2>&1 &
data=$!
echo "setup: the data and the other packages are seen to while the build runs (their output follows it)"

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
grep -E '^setup:|newly installed' "$logs/packages" || true
exit "$status"
