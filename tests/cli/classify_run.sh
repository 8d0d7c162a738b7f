#!/usr/bin/env bash
# Lessons 6.6-6.7 against the lesson's PyTorch code: ch06-04-finetune on the stand-in
# SMS data (tests/cli/sms_fixture.py) with a small random GPT gives the losses of every
# evaluation and the accuracies of every epoch that train_classifier_simple gives, for
# the lesson's settings and the exercises' (what trains, the first token); and a run
# stopped and resumed ends with the same weights as one that was not.
#
#   classify_run.sh BIN_DIR PYTHON WORK_DIR
set -uo pipefail
bin="$1" python="$2" work="$3"
source "$(dirname "$0")/common.sh"
require_data gpt2/encoder.json gpt2/vocab.bpe
scratch_dir "$work"
"$python" tests/cli/sms_fixture.py "$work/sms.zip" || fail "cannot write the stand-in zip"
"$bin/ch06-01-data" --zip "$work/sms.zip" --out-dir "$work/data" >/dev/null || fail "ch06-01-data"

run=("$bin/ch06-04-finetune" --train-config configs/train-classify-quick.json --data "$work/data" --num-epochs 2
     --eval-freq 5 --max-length 32 --no-plot --overwrite)
variant=0
for flags in "--trainable last-block" "--trainable head --class-token first" "--trainable all"; do
  variant=$((variant + 1))
  # shellcheck disable=SC2086  # the flags are words
  "${run[@]}" $flags --out-dir "$work/run-$variant" --save-outputs "$work/run-$variant.pt" >"$work/run-$variant.log" ||
    fail "ch06-04-finetune $flags exited $?: $(tail -3 "$work/run-$variant.log")"
  grep -Eq "^Training accuracy: [0-9]+\.[0-9]{2}% \| Validation accuracy: [0-9]+\.[0-9]{2}%$" "$work/run-$variant.log" ||
    fail "no lesson accuracy line with $flags"
  "$python" scripts/reference/compare.py "$work/run-$variant.pt" || fail "compare.py on the run with $flags"
done

# Stopped after 20 of 30 steps, then resumed: the same weights, losses and accuracies.
"${run[@]}" --trainable last-block --out-dir "$work/part" --max-steps 20 >/dev/null || fail "the first part of the run"
"$bin/ch06-04-finetune" --resume "$work/part/checkpoint.pt" --max-steps 0 --no-plot --save-outputs "$work/part.pt" \
  >"$work/part.log" || fail "--resume exited $?: $(tail -3 "$work/part.log")"
grep -q "^Resuming at step 20 (160 examples seen)$" "$work/part.log" || fail "no resume line: $(head -5 "$work/part.log")"
same_outputs "$python" "$work/run-1.pt" "$work/part.pt" || fail "the resumed run differs from the uninterrupted one"

# Lesson 6.8: the classifier saved as a state dict loads into the lesson's PyTorch model
# (strict), which classifies texts as ch06-05-classify does, from the state dict and
# from the checkpoint.
"${run[@]}" --trainable all --num-epochs 8 --out-dir "$work/saved" --save-state-dict "$work/review_classifier.pth" >/dev/null ||
  fail "ch06-04-finetune --save-state-dict"
printf '%s\n' "free prize call now claim cash" "see you at dinner tonight love" "urgent txt win mobile" "ok lar" \
  >"$work/texts.txt"
from_checkpoint="$("$bin/ch06-05-classify" --checkpoint "$work/saved/checkpoint.pt" --data "$work/texts.txt")" ||
  fail "ch06-05-classify --checkpoint"
from_state_dict="$("$bin/ch06-05-classify" --load-state-dict "$work/review_classifier.pth" --config configs/tiny.json \
  --max-length 32 --data "$work/texts.txt")" || fail "ch06-05-classify --load-state-dict"
[ "$from_checkpoint" = "$from_state_dict" ] || fail "checkpoint and state dict classify differently"
"$python" - "$work/review_classifier.pth" "$work/texts.txt" "$from_checkpoint" <<'PY' || fail "PyTorch classifies differently"
import json, sys
sys.path.insert(0, "scripts/reference")
import torch
import ch06_classification as ch06, gpt, gpt2_bpe
cfg = json.load(open("configs/tiny.json"))
model = gpt.GPTModel(cfg)
model.out_head = torch.nn.Linear(cfg["emb_dim"], 2)
model.load_state_dict(torch.load(sys.argv[1]))  # strict: the same keys and shapes
texts = open(sys.argv[2]).read().splitlines()
words = ["spam" if ch06.classify_review(t, model, gpt2_bpe.Encoder(), "cpu", max_length=32) == 1 else "not spam"
         for t in texts]
print("PyTorch:", words)
lines = sys.argv[3].splitlines()  # "label: text", a line per text
sys.exit(0 if words == [line.split(": ", 1)[0] for line in lines] and texts == [line.split(": ", 1)[1] for line in lines]
         else 1)
PY
# A --text with commas is one text (a list flag would split it), and each line says
# which text it labels.
two="$("$bin/ch06-05-classify" --checkpoint "$work/saved/checkpoint.pt" \
  --text "Hey, are we still meeting for dinner tonight?" --text "ok lar")" || fail "ch06-05-classify --text"
[ "$(printf '%s\n' "$two" | wc -l)" -eq 2 ] || fail "two --text flags gave: $two"
printf '%s\n' "$two" | head -1 | grep -Eq '^(spam|not spam): Hey, are we still meeting for dinner tonight\?$' ||
  fail "the first line does not name its text: $two"
# A pretraining checkpoint is not a classifier: one line saying so.
"$bin/ch05-02-train" --train-config configs/train-quick.json --max-steps 1 --out-dir "$work/pretrain" --no-plot >/dev/null ||
  fail "ch05-02-train"
"$bin/ch06-05-classify" --checkpoint "$work/pretrain/checkpoint.pt" >"$work/wrong.log" 2>&1 && fail "a pretraining checkpoint classified"
grep -q "is a pretraining run's; expected a classifier's" "$work/wrong.log" || fail "unclear refusal: $(cat "$work/wrong.log")"
echo "OK: lessons 6.6-6.8 equal the lesson's PyTorch, and a resumed run the uninterrupted one"
