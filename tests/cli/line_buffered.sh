#!/usr/bin/env bash
# Output to a file comes line by line, not in blocks: a finetuning run's first lines
# are in its log while it runs (a block-buffered stdout shows nothing until 4 KB have
# gathered, and loses them all to a SIGKILL), and they stay there after a SIGKILL.
#
#   line_buffered.sh BIN_DIR WORK_DIR
set -uo pipefail
bin="$1" work="$2"
source "$(dirname "$0")/common.sh"
require_data instruction-data.json gpt2/encoder.json gpt2/vocab.bpe
scratch_dir "$work"
"$bin/ch07-03-finetune" --train-config configs/train-instruct-quick.json --config configs/tiny.json --num-epochs 100 \
  --out-dir "$work/run" --no-plot --progress never >"$work/log" 2>&1 &
pid=$!
at_exit 'kill -9 "$pid" 2>/dev/null'
for _ in $(seq 1200); do
  grep -q "^Run: " "$work/log" && break
  kill -0 "$pid" 2>/dev/null || fail "the run ended: $(cat "$work/log")"
  sleep 0.1
done
size=$(stat -c %s "$work/log")
kill -9 "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
grep -q "^Run: " "$work/log" || fail "no line of the run came within 120 s"
[ "$size" -lt 4096 ] || fail "the first lines came as a block of $size bytes"
grep -q "^Model: " "$work/log" || fail "the lines before were lost to SIGKILL"
echo "OK: the first lines ($size bytes) came while the run ran, and outlived a SIGKILL"
