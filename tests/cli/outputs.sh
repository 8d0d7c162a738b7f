#!/usr/bin/env bash
# Outputs are checked before the work starts, and nothing is written over an input or
# through a symbolic link:
# - an output flag that names an input (the same path, or a hard link to it) is refused
#   in one line, the input kept byte for byte;
# - a run folder holding a symbolic link (losses.png pointing at a user's file) is
#   refused before training, the user's file kept;
# - an output in a folder that is not there yet gets its folder before the work, and a
#   run refused after that leaves no empty folder behind;
# - a token with "$" signs (matplotlib's math) is drawn as text.
#
#   outputs.sh BIN_DIR TINY_CHECKPOINT WORK_DIR
set -uo pipefail
bin="$1" tiny="$2" work="$3"
source "$(dirname "$0")/common.sh"
require_data the-verdict.txt gpt2/encoder.json gpt2/vocab.bpe
scratch_dir "$work"
cp "$tiny" "$work/c.pt" && ln "$work/c.pt" "$work/hard-link.pt" || fail "cannot copy the checkpoint"
kept=$(sha256sum <"$work/c.pt")

# refused NAME EXPECTED_MESSAGE COMMAND...: exits 1 with one line holding the message,
# the checkpoint unchanged.
refused() {
  local name="$1" expected="$2"
  shift 2
  "$@" >"$work/$name.out" 2>"$work/$name.err"
  local code=$?
  [ $code -eq 1 ] || fail "$name exited $code, expected 1: $(cat "$work/$name.err")"
  [ "$(wc -l <"$work/$name.err")" -eq 1 ] || fail "$name: expected one line: $(cat "$work/$name.err")"
  grep -qF "$expected" "$work/$name.err" || fail "$name: unclear: $(cat "$work/$name.err")"
  [ "$(sha256sum <"$work/c.pt")" = "$kept" ] || fail "$name changed the checkpoint"
  echo "$name: $(cat "$work/$name.err")"
}
refused save-state-dict "file '$work/c.pt': is also an input ('$work/c.pt'); refusing to write over it" \
  "$bin/generate" --checkpoint "$work/c.pt" --save-state-dict "$work/c.pt"
refused html "file '$work/c.pt': is also an input ('$work/c.pt'); refusing to write over it" \
  "$bin/ch03-07-attention-heads" --checkpoint "$work/c.pt" --html "$work/c.pt"
refused hard-link "file '$work/hard-link.pt': is also an input ('$work/c.pt')" \
  "$bin/generate" --checkpoint "$work/c.pt" --save-state-dict "$work/hard-link.pt"

mkdir -p "$work/run" && echo "a user's file" >"$work/precious.txt" && ln -s "$work/precious.txt" "$work/run/losses.png"
refused run-folder-link "out_dir '$work/run': 'losses.png' is a symbolic link" \
  "$bin/ch05-02-train" --config configs/tiny.json --max-steps 1 --out-dir "$work/run"
grep -q "^Ep 1" "$work/run-folder-link.out" && fail "the refused run trained"
[ "$(cat "$work/precious.txt")" = "a user's file" ] || fail "the file behind the link was changed"

"$bin/ch04-06-gpt-model" --config configs/tiny.json --save-state-dict "$work/new/nested/c.pth" \
  >"$work/new-folder.log" 2>&1 || fail "--save-state-dict into a new folder: $(cat "$work/new-folder.log")"
[ -s "$work/new/nested/c.pth" ] || fail "no state dict in the new folder"
"$bin/ch04-06-gpt-model" --config configs/tiny.json --save-safetensors "$work/hf/nested/model.safetensors" \
  >"$work/new-hf-folder.log" 2>&1 || fail "--save-safetensors into a new folder: $(cat "$work/new-hf-folder.log")"
[ -s "$work/hf/nested/model.safetensors" ] && [ -s "$work/hf/nested/config.json" ] ||
  fail "no safetensors and config.json in the new folder"
# A run refused after its output folder was made leaves no folder behind.
echo '{' >"$work/bad-config.json"
"$bin/ch04-06-gpt-model" --config "$work/bad-config.json" --save-state-dict "$work/gone/nested/c.pth" \
  >"$work/refused-after-folder.log" 2>&1 && fail "a bad config was accepted"
[ -e "$work/gone" ] && fail "the refused run left the folder it made: $(find "$work/gone")"
"$bin/ch02-03-train-bpe" --vocab-size 300 --out-dir "$work/bpe/nested" >"$work/bpe.log" 2>&1 ||
  fail "--out-dir into a new folder: $(cat "$work/bpe.log")"
[ -s "$work/bpe/nested/encoder.json" ] && [ -s "$work/bpe/nested/vocab.bpe" ] || fail "no vocabulary in the new folder"

"$bin/ch03-07-attention-heads" --config configs/tiny-gqa.json --prompt 'It costs $$5, or $ 6 in $$.' \
  --png "$work/dollars.png" --layer 0 >"$work/dollars.log" 2>&1 || fail "--png with \$ signs: $(cat "$work/dollars.log")"
[ -s "$work/dollars.png" ] || fail "no PNG drawn"
echo "OK: inputs and linked files kept, outputs refused before the work, new folders made, \$ drawn as text"
