#!/usr/bin/env bash
# Runs a chapter executable with --save-outputs, then scripts/reference/compare.py on
# the archive: Python's torch.load must read it, and the PyTorch reference must
# reproduce its numbers.
#
#   compare_outputs.sh EXE PYTHON [FLAG]...
set -uo pipefail
exe="$1" python="$2"
shift 2
source "$(dirname "$0")/common.sh"
require_data_of "$exe"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
"$exe" "$@" --save-outputs "$dir/out.pt" >/dev/null || { echo "FAILED: $exe exited $?"; exit 1; }
"$python" scripts/reference/compare.py "$dir/out.pt"
