#!/usr/bin/env bash
# One out_dir, one run: a new run into a folder that holds another run's checkpoint is
# refused (the checkpoint kept, byte for byte) unless --overwrite says to replace it,
# --resume continues it, and a second run started while the first is still writing
# into the folder is refused by the lock, the first one's checkpoint whole.
#
#   out_dir.sh BIN_DIR WORK_DIR
set -uo pipefail
bin="$1" dir="$2"
source "$(dirname "$0")/common.sh"
require_data the-verdict.txt gpt2/encoder.json gpt2/vocab.bpe
scratch_dir "$dir"
run=(--config configs/tiny.json --no-plot --progress never --eval-freq 1000)
out="$dir/run" checkpoint="$dir/run/checkpoint.pt"

"$bin/ch05-02-train" "${run[@]}" --max-steps 2 --out-dir "$out" >"$dir/first.log" 2>&1 || fail "the first run failed"
before=$(sha256sum <"$checkpoint")
"$bin/ch05-02-train" "${run[@]}" --max-steps 2 --out-dir "$out" >"$dir/again.out" 2>"$dir/again.err"
code=$?
[ $code -eq 1 ] || fail "a second run into the same folder exited $code, expected 1"
[ "$(wc -l <"$dir/again.err")" -eq 1 ] || fail "expected one error line: $(cat "$dir/again.err")"
grep -q "out_dir '$out' already holds a checkpoint from another run ('$checkpoint'); continue it with --resume" \
  "$dir/again.err" || fail "unclear refusal: $(cat "$dir/again.err")"
grep -q "^Ep 1" "$dir/again.out" && fail "the refused run trained"
[ "$(sha256sum <"$checkpoint")" = "$before" ] || fail "the refused run changed the checkpoint"
echo "refused: $(cat "$dir/again.err")"

"$bin/ch05-02-train" "${run[@]}" --max-steps 3 --out-dir "$out" --overwrite >"$dir/overwrite.log" 2>&1 ||
  fail "--overwrite did not replace it: $(tail -2 "$dir/overwrite.log")"
[ "$(sha256sum <"$checkpoint")" != "$before" ] || fail "--overwrite left the old checkpoint"
"$bin/ch05-02-train" --resume "$checkpoint" --max-steps 4 >"$dir/resume.log" 2>&1 ||
  fail "--resume into its own folder was refused: $(tail -2 "$dir/resume.log")"
grep -q "^Resuming at step 3 " "$dir/resume.log" || fail "did not resume at step 3: $(head -5 "$dir/resume.log")"
# What a resumed run cannot do: train past its end.
resumed() {  # resumed CODE MESSAGE FLAGS...: --resume with FLAGS exits CODE saying MESSAGE on one line
  local code="$1" message="$2"
  shift 2
  "$bin/ch05-02-train" --resume "$checkpoint" --no-plot "$@" >"$dir/resumed.out" 2>"$dir/resumed.err"
  local status=$?
  [ $status -eq "$code" ] && [ "$(wc -l <"$dir/resumed.err")" -eq 1 ] && grep -qF -- "$message" "$dir/resumed.err" ||
    fail "--resume $* exited $status: $(cat "$dir/resumed.err")"
  grep -q "^Ep " "$dir/resumed.out" && fail "--resume $* trained"
}
resumed 1 "checkpoint '$checkpoint': its run is complete, 0 epochs (4 steps); train on with a larger --num-epochs or --max-steps"
resumed 2 "--max-steps 4: the checkpoint's run has done 0 epochs (4 steps); nothing is left to train" --max-steps 4
echo "--overwrite replaced it, and --resume continued it, but not past its end"

# A run begun in one folder with a relative out_dir, resumed from another: it goes on
# in the checkpoint's folder, not in a new one named by the stored out_dir.
mkdir -p "$dir/elsewhere"
root="$PWD"
(cd "$dir" && "$bin/ch05-02-train" --config "$root/configs/tiny.json" --no-plot --progress never --eval-freq 1000 \
  --max-steps 2 --out-dir relative >"$dir/relative.log" 2>&1) || fail "the run in a relative folder: $(tail -2 "$dir/relative.log")"
(cd "$dir/elsewhere" && "$bin/ch05-02-train" --resume ../relative/checkpoint.pt --max-steps 3 --no-plot \
  >"$dir/elsewhere.log" 2>&1) || fail "resuming from another folder: $(tail -2 "$dir/elsewhere.log")"
[ ! -e "$dir/elsewhere/relative" ] || fail "the resumed run wrote a new folder where it was started"
/usr/bin/python3 -c "import sys, torch; assert int(torch.load(sys.argv[1])['progress/step']) == 3" \
  "$dir/relative/checkpoint.pt" || fail "the resumed run did not go on in the checkpoint's folder"
echo "resumed from another folder: went on in the checkpoint's"

# Two runs at once: the second is refused while the first holds the folder.
rm -rf "$out"
"$bin/ch05-02-train" "${run[@]}" --num-epochs 1000 --out-dir "$out" >"$dir/long.log" 2>&1 &
first=$!
for _ in $(seq 600); do grep -q "^Ep 1" "$dir/long.log" 2>/dev/null && break; sleep 0.1; done
"$bin/ch05-02-train" "${run[@]}" --max-steps 2 --out-dir "$out" --overwrite >"$dir/second.out" 2>"$dir/second.err"
code=$?
kill -INT $first
wait $first
first_code=$?
[ $code -eq 1 ] || fail "a second run into a folder in use exited $code, expected 1"
grep -q "folder '$out': another run is writing there" "$dir/second.err" || fail "unclear refusal: $(cat "$dir/second.err")"
[ $first_code -eq 130 ] || fail "the first run, stopped by Ctrl-C, exited $first_code, expected 130"
/usr/bin/python3 -c "import sys, torch; c = torch.load(sys.argv[1]); assert int(c['progress/step']) > 2" "$checkpoint" ||
  fail "the first run's checkpoint is not its own"
echo "two at once: $(cat "$dir/second.err")"
echo "OK"
