#!/usr/bin/env bash
# Runs one command and checks how it ends.
#
#   expect.sh CODE REGEX [--needs DATA_FILE]... [--scratch DIR]... -- COMMAND [ARG]...
#
# Passes when COMMAND exits with CODE within 300 s, its output (stdout and stderr)
# matches the extended REGEX (each of its lines), and nothing crashed or printed a
# C++ stack trace. A failing command must say why on exactly one stderr line. When a
# data file is missing the test exits 77 before running anything, and ctest reports it
# skipped. Each --scratch DIR, a folder the command writes, is removed when the test
# passes.
set -uo pipefail
code="$1" regex="$2"
shift 2
data_dir="${LLM_DATA_DIR:-$(cd "$(dirname "$0")/../.." && pwd)/data}"
scratch=()
while [ "$1" = "--needs" ] || [ "$1" = "--scratch" ]; do
  if [ "$1" = "--scratch" ]; then
    scratch+=("$2")
  elif [ ! -f "$data_dir/$2" ]; then
    echo "skipped: $data_dir/$2 is missing; run scripts/fetch-data.sh"
    exit 77
  fi
  shift 2
done
[ "$1" = "--" ] && shift

out="$(mktemp)" err="$(mktemp)"
trap 'rm -f "$out" "$err"' EXIT
timeout 300 "$@" >"$out" 2>"$err"
status=$?
cat "$out" "$err"
fail() { echo "FAILED: $*" >&2; exit 1; }
[ "$status" -eq "$code" ] || fail "exit code $status, expected $code"
# grep reads a pattern with newlines as one pattern per line, any of which may match:
# here each line of REGEX must match, and none may be empty (it would match anything).
while IFS= read -r pattern; do
  [ -n "$pattern" ] || fail "REGEX has an empty line, which matches anything"
  cat "$out" "$err" | grep -Eq -- "$pattern" || fail "output does not match: $pattern"
done <<<"$regex"
! grep -Eq "terminate called|Exception raised from|Segmentation fault|core dumped|AddressSanitizer|runtime error:" "$out" "$err" ||
  fail "crashed or printed a stack trace"
if [ "$code" -ne 0 ]; then
  lines=$(wc -l <"$err")
  [ "$lines" -eq 1 ] || fail "expected one line on stderr, got $lines"
fi
[ ${#scratch[@]} -eq 0 ] || rm -rf "${scratch[@]}"
exit 0
