#!/usr/bin/env bash
# Sets everything up, then runs every test through ctest. Exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
ctest --preset release -j2 "$@"
