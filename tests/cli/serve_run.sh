#!/usr/bin/env bash
# build/bin/serve on 127.0.0.1, checked by tests/cli/serve_client.py: the tiny model's
# answers in both APIs equal `generate`'s text (greedy, and sampled with a seed), stop
# strings, refusals, bad bytes and eight clients at once; then GPT-2 small (untrained,
# slow enough to be caught mid-answer): a client gone cancels its answer, a full queue
# refuses, and lesson 7.8's evaluation runs with it as the judge; a chapter-6 classifier
# answers /api/classify as ch06-05-classify does, from its checkpoint and from its state
# dict; Ctrl-C ends the server with exit 0.
# Every wait is bounded.
#
#   serve_run.sh BIN_DIR PYTHON WORK_DIR
set -uo pipefail
bin="$1" python="$2" work="$3"
source "$(dirname "$0")/common.sh"
require_data gpt2/encoder.json gpt2/vocab.bpe
scratch_dir "$work"
source "$(dirname "$0")/serve_common.sh"

prompt="Every effort moves you"
# The tiny model's weights in a file, so that the server and `generate` share them while
# each seeds its sampling with its own seed.
"$bin/generate" --config configs/tiny.json --seed 7 --max-new-tokens 1 --save-state-dict "$work/tiny.pth" >/dev/null ||
  fail "cannot write the tiny model"
tiny=(--config configs/tiny.json --load-state-dict "$work/tiny.pth")
greedy=$("$bin/generate" "${tiny[@]}" --prompt "$prompt" --max-new-tokens 12 | tail -n 1) || fail "generate greedy"
sampled=$("$bin/generate" "${tiny[@]}" --prompt "$prompt" --max-new-tokens 12 --temperature 1 --top-k 5 --seed 123 |
  tail -n 1) || fail "generate sampled"
"$python" - "$work/expected.json" "$prompt" "$greedy" "$sampled" <<'PY' || fail "expected.json"
import json, sys
path, prompt, greedy, sampled = sys.argv[1:5]
assert greedy.startswith(prompt) and sampled.startswith(prompt)
json.dump({"prompt": prompt, "greedy": greedy[len(prompt):], "sampled": sampled[len(prompt):], "max_new_tokens": 12},
          open(path, "w"))
PY

start_server "$work/tiny.log" "${tiny[@]}" --name tiny --max-body-bytes 4096 --max-tokens-limit 4096
timeout 120 "$python" tests/cli/serve_client.py "$port" answers "$work/expected.json" || fail "the tiny model's answers"
stop_server "$work/tiny.log"

start_server "$work/small.log" --queue 1 --max-new-tokens 8
timeout 120 "$python" tests/cli/serve_client.py "$port" limits || fail "the limits"
# Lesson 7.8's evaluation with this server as the judge (an untrained one: its answers
# are no numbers, which the lesson reports and leaves out, so the run ends with no score).
"$python" -c 'import json, sys; json.dump([{"instruction": f"Name a color ({i}).", "input": "", "output": "Blue.",
  "model_response": "Red."} for i in range(3)], open(sys.argv[1], "w"))' "$work/responses.json"
timeout 120 "$bin/ch07-05-evaluate" --data "$work/responses.json" --host 127.0.0.1 --port "$port" \
  --model untrained --timeout 60 >"$work/evaluate.log" 2>&1
code=$?
[ "$code" -eq 1 ] && grep -q "error: no entry of '$work/responses.json' got a score$" "$work/evaluate.log" ||
  fail "ch07-05-evaluate exited $code: $(cat "$work/evaluate.log")"
grep -q "^Number of scores: 0 of 3$" "$work/evaluate.log" || fail "not 3 entries judged: $(cat "$work/evaluate.log")"
[ "$(grep -c "^Could not convert score: " "$work/evaluate.log")" -eq 3 ] ||
  fail "not three answers read and reported: $(cat "$work/evaluate.log")"
stop_server "$work/small.log"

# A chapter-6 classifier (the tiny model, two steps on sixteen texts): /api/classify
# gives ch06-05-classify's label for the same text.
make_classifier "$work"
text="WIN a FREE prize now"
label=$("$bin/ch06-05-classify" --checkpoint "$work/classifier/checkpoint.pt" --text "$text" | sed 's/: .*//') ||
  fail "ch06-05-classify"
start_server "$work/classifier.log" --checkpoint "$work/classifier/checkpoint.pt"
grep -q "a classifier of texts up to 64 tokens" "$work/classifier.log" || fail "not served as a classifier"
timeout 60 "$python" tests/cli/serve_client.py "$port" classify "$label" "$text" || fail "the classifier"
stop_server "$work/classifier.log"

# The same classifier as a state dict (the lesson's review_classifier.pth): --num-classes
# on the GPT of --config, the same label as ch06-05-classify's from that file.
sd_flags=(--load-state-dict "$work/classifier.pth" --config configs/tiny.json --max-length 64)
sd_label=$("$bin/ch06-05-classify" "${sd_flags[@]}" --text "$text" | sed 's/: .*//') || fail "ch06-05-classify --load-state-dict"
[ "$sd_label" = "$label" ] || fail "the state dict's label '$sd_label' is not the checkpoint's '$label'"
start_server "$work/classifier-sd.log" "${sd_flags[@]}" --num-classes 2
grep -q "a classifier of texts up to 64 tokens" "$work/classifier-sd.log" || fail "the state dict not served as a classifier"
timeout 60 "$python" tests/cli/serve_client.py "$port" classify "$label" "$text" || fail "the state dict's classifier"
stop_server "$work/classifier-sd.log"
echo "serve: OK"
