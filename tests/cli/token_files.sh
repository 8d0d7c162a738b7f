#!/usr/bin/env bash
# Token files (tools/prepare, then ch05-02-train --data FILE):
#   1. prepare on every core writes the same bytes as on one, in rounds of any size;
#   2. training on token files gives the same losses as training on the same texts;
#   3. random windows resume exactly: 4 steps, then 4 more, end as 8 in one go;
#   4. a stopped prepare leaves no file, finished or temporary;
#   and --val-fraction over two inputs says what it cut.
#
#   token_files.sh BIN_DIR WORK_DIR
set -uo pipefail
bin="$1" dir="$2"
source "$(dirname "$0")/common.sh"
require_data the-verdict.txt moby-dick.txt gpt2/encoder.json gpt2/vocab.bpe
scratch_dir "$dir"
data="${LLM_DATA_DIR:-$(pwd)/data}"

# 1. Two threads in 1 MB rounds, one thread in 64 MB rounds: the same file.
"$bin/prepare" "$data/moby-dick.txt" -o "$dir/moby-1.bin" --threads 1 --block-mb 64 >"$dir/p1.log" 2>&1 || fail "prepare --threads 1: $(cat "$dir/p1.log")"
"$bin/prepare" "$data/moby-dick.txt" -o "$dir/moby-2.bin" --threads 2 --block-mb 1 >"$dir/p2.log" 2>&1 || fail "prepare --threads 2: $(cat "$dir/p2.log")"
cmp -s "$dir/moby-1.bin" "$dir/moby-2.bin" || fail "prepare on 2 threads wrote other bytes than on 1"
grep -q "^Tokens: $dir/moby-2.bin (287096 tokens as uint16, 1 documents, 1.2 MB of text" "$dir/p2.log" ||
  fail "unexpected summary: $(cat "$dir/p2.log")"
echo "prepare: the same 287096 tokens on 1 and 2 threads"

# 2. The-verdict trains, Moby Dick's first 3000 bytes validate: as texts, then as token files.
head -c 3000 "$data/moby-dick.txt" >"$dir/val.txt"
"$bin/prepare" "$data/the-verdict.txt" -o "$dir/verdict.bin" --val-data "$dir/val.txt" --val-out "$dir/val.bin" \
  >"$dir/p3.log" 2>&1 || fail "prepare --val-data: $(cat "$dir/p3.log")"
# --val-fraction on two inputs cuts them joined, and says where validation came from;
# the closing hint trains a model that fits.
"$bin/prepare" "$data/the-verdict.txt" "$dir/val.txt" -o "$dir/two.bin" --val-fraction 0.1 >"$dir/p4.log" 2>&1 ||
  fail "prepare two inputs: $(cat "$dir/p4.log")"
grep -q "^Note: --val-fraction cut the inputs joined in order" "$dir/p4.log" || fail "no note on the cut: $(cat "$dir/p4.log")"
grep -q "^Train on it: ch05-02-train --data $dir/two.bin --val-data $dir/two.val.bin --config small.json" "$dir/p4.log" ||
  fail "unexpected hint: $(cat "$dir/p4.log")"
run=(--config configs/tiny.json --no-plot --progress never --max-steps 8 --eval-freq 2 --out-dir=)
"$bin/ch05-02-train" "${run[@]}" --data "$data/the-verdict.txt" --val-data "$dir/val.txt" >"$dir/text.log" 2>&1 ||
  fail "training on text: $(tail -2 "$dir/text.log")"
"$bin/ch05-02-train" "${run[@]}" --data "$dir/verdict.bin" --val-data "$dir/val.bin" >"$dir/tokens.log" 2>&1 ||
  fail "training on token files: $(tail -2 "$dir/tokens.log")"
grep "^Ep " "$dir/text.log" >"$dir/text.losses"
grep "^Ep " "$dir/tokens.log" >"$dir/tokens.losses"
[ "$(wc -l <"$dir/text.losses")" -eq 4 ] || fail "expected 4 evaluations: $(cat "$dir/text.log")"
diff "$dir/text.losses" "$dir/tokens.losses" || fail "token files trained to other losses than the texts"
echo "token files: the texts' losses, $(tail -1 "$dir/tokens.losses")"

# 3. Random windows, stopped after 4 steps and resumed to 8, against 8 in one go.
random=(--config configs/tiny.json --no-plot --progress never --data "$dir/moby-2.bin" --sampling random
        --batch-size 4 --eval-freq 2 --eval-iter 2)
"$bin/ch05-02-train" "${random[@]}" --max-steps 8 --out-dir "$dir/whole" >"$dir/whole.log" 2>&1 ||
  fail "random windows: $(tail -2 "$dir/whole.log")"
grep -q "random windows an epoch" "$dir/whole.log" || fail "no random windows: $(head -3 "$dir/whole.log")"
"$bin/ch05-02-train" "${random[@]}" --max-steps 4 --out-dir "$dir/parts" >"$dir/first.log" 2>&1 ||
  fail "the first 4 steps: $(tail -2 "$dir/first.log")"
"$bin/ch05-02-train" --resume "$dir/parts/checkpoint.pt" --max-steps 8 --no-plot --progress never >"$dir/second.log" 2>&1 ||
  fail "resuming: $(tail -2 "$dir/second.log")"
diff <(grep "^Ep " "$dir/whole.log") <(cat "$dir/first.log" "$dir/second.log" | grep "^Ep ") ||
  fail "the resumed run's losses differ from the uninterrupted run's"
tail -n 2 "$dir/whole/metrics.jsonl" | cmp -s - <(tail -n 2 "$dir/parts/metrics.jsonl") ||
  fail "the resumed run's last metrics differ"
echo "random windows resume exactly: $(grep "^Ep " "$dir/whole.log" | tail -1)"

# 4. SIGINT in the middle of a 40 MB corpus: exit 130, nothing written.
for _ in $(seq 36); do cat "$data/moby-dick.txt"; done >"$dir/big.txt"
"$bin/prepare" "$dir/big.txt" -o "$dir/big.bin" -j 1 --block-mb 1 --progress always >"$dir/big.out" 2>"$dir/big.err" &
pid=$!
for _ in $(seq 600); do grep -q "MB/s" "$dir/big.err" 2>/dev/null && break; sleep 0.05; done  # under way
kill -INT $pid
wait $pid
code=$?
[ $code -eq 130 ] || fail "prepare after SIGINT exited $code, expected 130: $(cat "$dir/big.err")"
stop="$(tr '\r' '\n' <"$dir/big.err" | grep -o "prepare: .*stopped by.*")"
[[ "$stop" == *"stopped by SIGINT (Ctrl-C); nothing was written"* ]] || fail "unclear stop: $(cat "$dir/big.err")"
ls -a "$dir" | grep -q "big.bin" && fail "a stopped prepare left a file: $(ls -a "$dir" | grep big.bin)"
echo "a stopped prepare: $stop, and no file"
echo "OK"
