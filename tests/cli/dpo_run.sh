#!/usr/bin/env bash
# The DPO bonus against its notebook's PyTorch code: ch07-07-dpo with a small random
# GPT gives the losses and rewards before training and of every evaluation that
# train_model_dpo_simple gives (the notebook's settings, then beta 0.5 with LoRA, then
# no prompt mask), and prints the notebook's split and lines on its data; a run
# stopped and resumed ends where one that was not does; a checkpoint names its
# reference instead of holding it, and refuses to resume once that file has changed;
# Ctrl-C stops a run with a checkpoint that resumes.
#
#   dpo_run.sh BIN_DIR PYTHON WORK_DIR
set -uo pipefail
bin="$1" python="$2" work="$3"
source "$(dirname "$0")/common.sh"
require_data gpt2/encoder.json gpt2/vocab.bpe instruction-data-with-preference.json
scratch_dir "$work"
small=tests/cli/fixtures/preferences/small.json
run=("$bin/ch07-07-dpo" --no-plot --overwrite --response-tokens 8)

# The notebook's data without finetuned weights: the small model, said so, and the
# notebook's lines (a whole epoch takes the PyTorch reference minutes; the replays
# below use the first 60 entries, at batch 2: the notebook's log_softmax over the whole
# vocabulary is most of their time).
"${run[@]}" --max-steps 2 --eval-freq 1 --eval-iter 1 --out-dir "$work/lesson" >"$work/lesson.log" ||
  fail "ch07-07-dpo on the notebook's data exited $?: $(tail -3 "$work/lesson.log")"
for line in "^No finetuned weights given \(--load-state-dict\): this run tunes a small GPT of random weights" \
            "^Data: 'instruction-data-with-preference.json': 935 training, 55 validation and 110 test entries" \
            "^Training loss: 0\.69314718" "^Train reward margin: 0\.0$" "^Val reward margin: 0\.0$" \
            "^Ep 1 \(Step 000001\): Train loss [0-9]+\.[0-9]{3}, Val loss [0-9]+\.[0-9]{3}, Train reward margins -?[0-9]+\.[0-9]{3}, Val reward margins -?[0-9]+\.[0-9]{3}$" \
            "^Policy model response:$" "^Reference model response:$"; do
  grep -Eq "$line" "$work/lesson.log" || fail "no line /$line/ in: $(head -30 "$work/lesson.log")"
done

quick=("${run[@]}" --train-config configs/train-dpo-quick.json --data "$small" --eval-freq 1 --eval-iter 2)
variant=0
for flags in "" "--beta 0.5 --lora-rank 4 --lora-alpha 8 --lr 0.01" "--mask-instructions=false"; do
  variant=$((variant + 1))
  # shellcheck disable=SC2086  # the flags are words
  "${quick[@]}" $flags --batch-size 2 --eval-freq 2 --max-steps 5 --out-dir "$work/run-$variant" \
    --save-outputs "$work/run-$variant.pt" \
    >"$work/run-$variant.log" || fail "ch07-07-dpo $flags exited $?: $(tail -3 "$work/run-$variant.log")"
  "$python" scripts/reference/compare.py "$work/run-$variant.pt" || fail "compare.py on the run with '$flags'"
done

# Stopped after 3 of 6 steps, then resumed: the same weights, losses and rewards.
"${quick[@]}" --out-dir "$work/part" --max-steps 3 --save-state-dict "$work/part.pth" >/dev/null || fail "the first part"
"$bin/ch07-07-dpo" --resume "$work/part/checkpoint.pt" --max-steps 0 --no-plot --response-tokens 8 \
  --save-outputs "$work/part.pt" >/dev/null || fail "--resume"
"${quick[@]}" --out-dir "$work/whole" --save-outputs "$work/whole.pt" --save-state-dict "$work/sft.pth" >/dev/null ||
  fail "the uninterrupted run"
"$python" - "$work/whole.pt" "$work/part.pt" <<'PY' || fail "the resumed run differs from the uninterrupted one"
import sys, torch
whole, resumed = torch.load(sys.argv[1]), torch.load(sys.argv[2])
keys = [k for k in whole if k.startswith(("model/", "history/"))]
assert any(k.startswith("history/figure/") for k in keys), "no rewards in the history"
bad = [k for k in keys if not torch.equal(whole[k], resumed[k])]
print(f"{len(keys) - len(bad)} of {len(keys)} entries equal" + (f"; differ: {bad}" if bad else ""))
sys.exit(1 if bad else 0)
PY

# From weights: the reference is their file, named in the checkpoint, not copied; once
# the file changes, the run is not resumed.
cp "$work/sft.pth" "$work/reference.pth"
"${quick[@]}" --load-state-dict "$work/reference.pth" --out-dir "$work/from-weights" --max-steps 2 \
  >"$work/from-weights.log" || fail "a run from weights exited $?: $(tail -3 "$work/from-weights.log")"
grep -q "^Reference: '$work/reference.pth', frozen$" "$work/from-weights.log" ||
  fail "no reference line: $(grep '^Reference' "$work/from-weights.log")"
"$python" - "$work/from-weights/checkpoint.pt" "$work/reference.pth" <<'PY' || fail "the checkpoint's reference"
import sys, torch
checkpoint = torch.load(sys.argv[1])
task = {k: v for k, v in checkpoint.items() if k.startswith("task/")}
assert set(task) == {"task/reference", "task/reference_fingerprint"}, sorted(task)
assert bytes(task["task/reference"].tolist()).decode() == sys.argv[2]
size = lambda keys: sum(checkpoint[k].numel() * checkpoint[k].element_size() for k in keys)
model = size(k for k in checkpoint if k.startswith("model/"))
rest = size(k for k in checkpoint if not k.startswith(("model/", "optimizer/")))
assert rest < model / 10, f"{rest} bytes beside the model's {model}: the checkpoint holds a second model"
print(f"the checkpoint names its reference ({sys.argv[2]}) and holds one model ({model} bytes; {rest} beside it)")
PY
cp "$work/part.pth" "$work/reference.pth"
"$bin/ch07-07-dpo" --resume "$work/from-weights/checkpoint.pt" --max-steps 3 --no-plot >"$work/changed.log" 2>&1
status=$?
[ "$status" -eq 1 ] && grep -q "was made with another reference model: the weights of '$work/reference.pth' have changed" \
  "$work/changed.log" || fail "a changed reference was not refused (exit $status): $(tail -2 "$work/changed.log")"
# Finetuned weights given without a run config: the notebook's settings, GPT-2 355M
# (which the small model's weights do not fit).
"$bin/ch07-07-dpo" --load-state-dict "$work/sft.pth" --out-dir "$work/notebook" --no-plot >"$work/notebook.log" 2>&1
status=$?
[ "$status" -eq 1 ] && grep -q "sft.pth': 'tok_emb.weight' has shape \[50257, 64\], expected \[50257, 1024\]" \
  "$work/notebook.log" || fail "--load-state-dict alone is not the notebook's 355M run (exit $status): $(tail -2 "$work/notebook.log")"

# Ctrl-C stops a DPO run at a step with a checkpoint, which resumes.
"${quick[@]}" --num-epochs 100 --out-dir "$work/interrupted" >"$work/interrupted.log" 2>"$work/interrupted.err" &
pid=$!
for _ in $(seq 600); do
  grep -q "Step 000002" "$work/interrupted.log" 2>/dev/null && break
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.1
done
kill -INT "$pid"
wait "$pid"
status=$?
[ "$status" -eq 130 ] && grep -q "stopped by SIGINT (Ctrl-C) after step [0-9]*; continue with --resume" "$work/interrupted.err" ||
  fail "Ctrl-C: exit $status, $(cat "$work/interrupted.err")"
"$bin/ch07-07-dpo" --resume "$work/interrupted/checkpoint.pt" --num-epochs 2 --max-steps 8 --no-plot \
  --response-tokens 2 >"$work/resumed.log" || fail "resuming the interrupted run: $(tail -2 "$work/resumed.log")"
grep -q "^Resuming at step" "$work/resumed.log" || fail "no resume line: $(head -12 "$work/resumed.log")"

echo "OK: the DPO bonus equals its notebook's PyTorch, a resumed run the uninterrupted one, and the reference is named"
