#!/usr/bin/env bash
# Runs a chapter executable with --save-outputs, then scripts/reference/compare.py on
# the archive: Python's torch.load must read it, and the PyTorch reference must
# reproduce its numbers.
#
#   compare_outputs.sh [--scratch DIR] EXE PYTHON [FLAG]...
#
# DIR, a folder the run writes, is made empty before it and removed when the test passes.
set -uo pipefail
source "$(dirname "$0")/common.sh"
[ "$1" = "--scratch" ] && { scratch_dir "$2"; shift 2; }
exe="$1" python="$2"
shift 2
require_data_of "$exe"
dir="$(mktemp -d)"
at_exit 'rm -rf "$dir"'
"$exe" "$@" --save-outputs "$dir/out.pt" >/dev/null || { echo "FAILED: $exe exited $?"; exit 1; }
"$python" scripts/reference/compare.py "$dir/out.pt"
