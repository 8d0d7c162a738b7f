#!/usr/bin/env bash
# scripts/fetch-data.sh remembers a source it could not reach: with curl and npm
# failing, the first run tries the network and notes what failed; the second tries
# nothing, says so, and still exits 1 for what is missing; --retry tries again.
#
#   fetch_unreachable.sh WORK_DIR
set -uo pipefail
work="$1"
source "$(dirname "$0")/common.sh"
scratch_dir "$work"
mkdir -p "$work/bin" "$work/data"
for tool in curl npm; do
  printf '#!/bin/sh\necho "%s $*" >>"%s"\nexit 1\n' "$tool" "$work/calls" >"$work/bin/$tool"
  chmod +x "$work/bin/$tool"
done
fetch() { env -u LLM_DATA_MIRROR LLM_DATA_DIR="$work/data" PATH="$work/bin:$PATH" scripts/fetch-data.sh "$@"; }

fetch >"$work/first.log" 2>&1 && fail "the first run exited 0 with every source unreachable"
[ -s "$work/calls" ] || fail "the first run tried no source"
grep -qx "sms_spam_collection.zip" "$work/data/.unreachable" || fail "the SMS zip's source was not noted"
rm -f "$work/calls"
fetch >"$work/second.log" 2>&1 && fail "the second run exited 0 with data missing"
[ -e "$work/calls" ] && fail "the second run tried the network again: $(cat "$work/calls")"
grep -q "sms_spam_collection.zip: its source was unreachable in the last day, not tried again" "$work/second.log" ||
  fail "the second run did not say why it skipped: $(cat "$work/second.log")"
fetch --retry >"$work/retry.log" 2>&1
[ -s "$work/calls" ] || fail "--retry tried no source"
echo "OK: an unreachable source is tried once a day, or on --retry"
