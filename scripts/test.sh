#!/usr/bin/env bash
# Sets everything up, then runs every test through ctest. Exits non-zero on any failure.
# The last line counts the tests that were skipped (their data was not fetched, or a
# tool they need is missing); ctest lists them above it.
set -euo pipefail
cd "$(dirname "$0")/.."
# The browser tests (ctest -L browser) open pages in Debian's headless Chromium.
scripts/setup.sh --packages chromium
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
status=0
ctest --preset release -j2 "$@" 2>&1 | tee "$log" || status=$?
skipped=$(grep -c -- '\*\*\*Skipped' "$log" || true)
echo "Skipped: ${skipped} tests (each says why in its output: ctest --preset release -R NAME -V)"
exit "$status"
