#!/usr/bin/env bash
# Lessons 7.5-7.7 against the lesson's PyTorch code: ch07-03-finetune with a small
# random GPT gives the losses before training and of every evaluation that
# train_model_simple gives, on a small fixture in the lesson's format, with the
# lesson's settings and the exercises' (Phi-3 prompts with masked instructions, LoRA),
# and prints the lesson's split and lines on the lesson's data; a run stopped
# and resumed ends where one that was not does; ch07-04-responses' answers are the
# lesson's generate()'s, word for word, and its JSON is Python's json.dump.
#
#   instruct_run.sh BIN_DIR PYTHON WORK_DIR
set -uo pipefail
bin="$1" python="$2" work="$3"
source "$(dirname "$0")/common.sh"
require_data gpt2/encoder.json gpt2/vocab.bpe instruction-data.json
scratch_dir "$work"
small=tests/cli/fixtures/instructions/small.json

run=("$bin/ch07-03-finetune" --train-config configs/train-instruct-quick.json --no-plot --overwrite)
# The lesson's data: its split and loss lines (a whole epoch of it takes the PyTorch
# reference minutes; the replays below use a small file).
"${run[@]}" --max-steps 6 --eval-freq 5 --out-dir "$work/lesson" >"$work/lesson.log" ||
  fail "ch07-03-finetune on the lesson's data exited $?: $(tail -3 "$work/lesson.log")"
grep -Eq "^Ep 1 \(Step 000005\): Train loss [0-9]+\.[0-9]{3}, Val loss [0-9]+\.[0-9]{3}$" "$work/lesson.log" ||
  fail "no lesson loss line: $(head -20 "$work/lesson.log")"
grep -q "^Data: 'instruction-data.json': 935 training, 55 validation and 110 test entries" "$work/lesson.log" ||
  fail "not the lesson's split: $(grep '^Data' "$work/lesson.log")"

# Three evaluations of 2 batches each: the replays' time goes to the 50,257-word head.
# The LoRA run trains one epoch: the lesson's LoRA adds three tensors of logits' size to
# the head's every forward, and made that replay take as long as the other two together.
variant=0
for flags in "" "--mask-instructions --prompt-style phi3" "--lora-rank 4 --lora-alpha 8 --lr 0.005 --num-epochs 1 --eval-freq 3"; do
  variant=$((variant + 1))
  # shellcheck disable=SC2086  # the flags are words
  "${run[@]}" --data "$small" --eval-freq 4 --eval-iter 2 $flags --out-dir "$work/run-$variant" \
    --save-outputs "$work/run-$variant.pt" >"$work/run-$variant.log" ||
    fail "ch07-03-finetune $flags exited $?: $(tail -3 "$work/run-$variant.log")"
  "$python" scripts/reference/compare.py "$work/run-$variant.pt" || fail "compare.py on the run with '$flags'"
done
grep -q "^Total trainable parameters after: 0$" "$work/run-3.log" || fail "no LoRA counts: $(head -5 "$work/run-2.log")"

# Stopped after 5 of 12 steps, then resumed: the same weights and losses.
"${run[@]}" --data "$small" --eval-freq 2 --out-dir "$work/part" --max-steps 5 >/dev/null || fail "the first part"
# LoRA layers cannot be added to a resumed run: its checkpoint's weights have none.
"$bin/ch07-03-finetune" --resume "$work/part/checkpoint.pt" --lora-rank 4 --max-steps 0 --no-plot \
  >"$work/lora.out" 2>"$work/lora.err"
status=$?
[ $status -eq 2 ] && grep -qF -- "--lora-rank: a resumed run keeps its model as the checkpoint has it (lora_rank 0), got 4" \
  "$work/lora.err" || fail "--resume --lora-rank 4 exited $status: $(cat "$work/lora.err")"
"$bin/ch07-03-finetune" --resume "$work/part/checkpoint.pt" --max-steps 0 --no-plot --save-outputs "$work/part.pt" \
  >/dev/null || fail "--resume"
"${run[@]}" --data "$small" --eval-freq 2 --out-dir "$work/whole" --save-outputs "$work/whole.pt" \
  --save-state-dict "$work/sft.pth" >/dev/null || fail "the uninterrupted run"
same_outputs "$python" "$work/whole.pt" "$work/part.pt" || fail "the resumed run differs from the uninterrupted one"

# Lesson 7.7: the responses of the trained model, as the lesson's generate() gives them.
"$bin/ch07-04-responses" --checkpoint "$work/whole/checkpoint.pt" --data "$small" --max-new-tokens 30 \
  --out "$work/with-response.json" --save-outputs "$work/responses.pt" >"$work/responses.log" ||
  fail "ch07-04-responses exited $?: $(tail -3 "$work/responses.log")"
"$python" scripts/reference/compare.py "$work/responses.pt" || fail "the responses differ from PyTorch's"
"$python" - "$work/with-response.json" "$work/responses.pt" "$small" "$work/sft.pth" <<'PY' || fail "the responses file"
import json, sys
sys.path.insert(0, "scripts/reference")
import torch
import ch07_instruction as ch07, gpt
written = open(sys.argv[1], encoding="utf-8").read()
saved = torch.load(sys.argv[2])
responses = bytes(saved["responses"].tolist()).decode().split("\x00")
_, test, _ = ch07.split(ch07.load(sys.argv[3]))
for entry, response in zip(test, responses):
    entry["model_response"] = response
expected = json.dumps(test, indent=4)  # the lesson's json.dump(test_data, file, indent=4)
assert written == expected, "not Python's json.dump of the entries"
model = gpt.GPTModel(json.load(open("configs/tiny-256.json")))
model.load_state_dict(torch.load(sys.argv[4]))  # strict: the lesson's GPT
print(f"{len(test)} responses written as json.dump writes them; the state dict loads into the lesson's GPT")
PY
echo "OK: lessons 7.5-7.7 equal the lesson's PyTorch, and a resumed run the uninterrupted one"
