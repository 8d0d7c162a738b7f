#!/usr/bin/env bash
# Appendix E against its PyTorch code: ch06-04-finetune with a LoRA on every Linear of
# a small random GPT prints the appendix's counts, and gives the losses and
# accuracies the appendix's cells give (the LoRA drawn where it draws them); a LoRA run
# stopped and resumed ends where one that was not does; and its merged export is a
# plain state dict that PyTorch's lesson GPT loads and classifies with as the LoRA
# checkpoint does.
#
#   lora_run.sh BIN_DIR PYTHON WORK_DIR
set -uo pipefail
bin="$1" python="$2" work="$3"
source "$(dirname "$0")/common.sh"
require_data gpt2/encoder.json gpt2/vocab.bpe
scratch_dir "$work"
"$python" tests/cli/sms_fixture.py "$work/sms.zip" || fail "cannot write the stand-in zip"
"$bin/ch06-01-data" --zip "$work/sms.zip" --out-dir "$work/data" >/dev/null || fail "ch06-01-data"

run=("$bin/ch06-04-finetune" --train-config configs/train-classify-quick.json --data "$work/data" --num-epochs 2
     --eval-freq 5 --max-length 32 --lora-rank 4 --lora-alpha 8 --lr 8e-4 --no-plot --overwrite)
"${run[@]}" --out-dir "$work/lora" --save-outputs "$work/lora.pt" --save-state-dict "$work/merged.pth" \
  >"$work/lora.log" || fail "ch06-04-finetune with LoRA exited $?: $(tail -3 "$work/lora.log")"
# tiny.json: 2 blocks of emb_dim 64, each with 4 attention projections of 64 -> 64
# and 64 -> 256 -> 64; the head 64 -> 2. Rank 4: A is [in, 4], B [4, out].
lora=$(( 2 * (4 * (64 * 4 + 4 * 64) + (64 * 4 + 4 * 256) + (256 * 4 + 4 * 64)) + 64 * 4 + 4 * 2 ))
grep -q "^Total trainable parameters after: 0$" "$work/lora.log" || fail "no frozen count: $(head -5 "$work/lora.log")"
grep -q "^Total trainable LoRA parameters: $("$python" -c "print(f'{$lora:,}')")$" "$work/lora.log" ||
  fail "not $lora LoRA parameters: $(grep -i lora "$work/lora.log")"
"$python" scripts/reference/compare.py "$work/lora.pt" || fail "compare.py on the LoRA run"

# Stopped after 20 of 30 steps, then resumed: the same LoRA weights, losses and accuracies.
"${run[@]}" --out-dir "$work/part" --max-steps 20 >/dev/null || fail "the first part of the LoRA run"
"$bin/ch06-04-finetune" --resume "$work/part/checkpoint.pt" --max-steps 0 --no-plot --save-outputs "$work/part.pt" \
  >/dev/null || fail "--resume of the LoRA run"
"$python" - "$work/lora.pt" "$work/part.pt" <<'PY' || fail "the resumed LoRA run differs from the uninterrupted one"
import sys, torch
whole, resumed = torch.load(sys.argv[1]), torch.load(sys.argv[2])
keys = [k for k in whole if k.startswith(("model/", "history/", "accuracy/"))]
lora = [k for k in keys if ".lora." in k]
bad = [k for k in keys if not torch.equal(whole[k], resumed[k])]
print(f"{len(keys) - len(bad)} of {len(keys)} entries equal ({len(lora)} LoRA matrices)" + (f"; differ: {bad}" if bad else ""))
sys.exit(1 if bad or not lora else 0)
PY

# The merged export: no LoRA keys, loads strictly into the lesson's GPT with a plain
# Linear head, and classifies as the LoRA checkpoint does.
printf '%s\n' "free prize call now claim cash" "see you at dinner tonight love" "urgent txt win mobile" "ok lar" \
  >"$work/texts.txt"
from_checkpoint="$("$bin/ch06-05-classify" --checkpoint "$work/lora/checkpoint.pt" --data "$work/texts.txt")" ||
  fail "ch06-05-classify --checkpoint of the LoRA run"
"$python" - "$work/merged.pth" "$work/lora.pt" "$work/texts.txt" "$from_checkpoint" <<'PY' || fail "the merged export"
import json, sys
sys.path.insert(0, "scripts/reference")
import torch
import ch06_classification as ch06, gpt, gpt2_bpe
cfg = json.load(open("configs/tiny.json"))
merged, saved = torch.load(sys.argv[1]), torch.load(sys.argv[2])
assert not [k for k in merged if "lora" in k], "LoRA keys in the merged state dict"
model = gpt.GPTModel(cfg)
model.out_head = torch.nn.Linear(cfg["emb_dim"], 2)
model.load_state_dict(merged)  # strict: the plain model's keys and shapes
# The same model with the appendix's LinearWithLoRA, from the checkpoint's weights:
# the merged one computes what it computes.
with_lora = gpt.GPTModel(cfg)
with_lora.out_head = torch.nn.Linear(cfg["emb_dim"], 2)
ch06.replace_linear_with_lora(with_lora, rank=4, alpha=8)
# Our Linear keeps its weight beside its LoRA (W_query.weight, W_query.lora.A); the
# appendix's wrapper holds it one level down (W_query.linear.weight).
state = with_lora.state_dict()
def appendix_name(key):
    module, name = key.rsplit(".", 1)
    return key if key in state else f"{module}.linear.{name}"
with_lora.load_state_dict({appendix_name(k[len("model/"):]): v for k, v in saved.items() if k.startswith("model/")})
model.eval(), with_lora.eval()
ids = torch.randint(cfg["vocab_size"], (3, 32), generator=torch.Generator().manual_seed(0))
with torch.no_grad():
    a, b = model(ids), with_lora(ids)
print(f"merged vs LoRA logits: max difference {(a - b).abs().max().item():.2e}")
assert torch.allclose(a, b, atol=1e-5, rtol=1e-4), "the merged model computes something else"
texts = open(sys.argv[3]).read().splitlines()
words = ["spam" if ch06.classify_review(t, model, gpt2_bpe.Encoder(), "cpu", max_length=32) == 1 else "not spam"
         for t in texts]
print("PyTorch, merged:", words)
sys.exit(0 if words == [line.split(": ", 1)[0] for line in sys.argv[4].splitlines()] else 1)
PY
echo "OK: appendix E's LoRA run equals its PyTorch, resumes exactly, and exports merged"
