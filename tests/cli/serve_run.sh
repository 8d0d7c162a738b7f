#!/usr/bin/env bash
# build/bin/serve on 127.0.0.1, checked by tests/cli/serve_client.py: the tiny model's
# answers in both APIs equal `generate`'s text (greedy, and sampled with a seed), stop
# strings, refusals, bad bytes and eight clients at once; then GPT-2 small (untrained,
# slow enough to be caught mid-answer): a client gone cancels its answer, a full queue
# refuses; Ctrl-C ends the server with exit 0. Every wait is bounded.
#
#   serve_run.sh BIN_DIR PYTHON WORK_DIR
set -uo pipefail
bin="$1" python="$2" work="$3"
source "$(dirname "$0")/common.sh"
require_data gpt2/encoder.json gpt2/vocab.bpe
fresh_dir "$work"
server=""
trap '[ -n "$server" ] && kill -9 "$server" 2>/dev/null' EXIT

# start_server LOG ARGS...: starts serve on a free port; sets $server and $port.
start_server() {
  local log="$1"
  shift
  timeout 300 "$bin/serve" --port 0 "$@" >"$log" 2>&1 &
  server=$!
  for _ in $(seq 600); do
    port=$(sed -nE 's|^Serving on http://127\.0\.0\.1:([0-9]+)/.*|\1|p' "$log")
    [ -n "$port" ] && return 0
    kill -0 "$server" 2>/dev/null || fail "serve exited: $(cat "$log")"
    sleep 0.1
  done
  fail "serve did not start within 60 s: $(cat "$log")"
}

# stop_server LOG: Ctrl-C, then exit 0 within 10 s and the line that says so.
stop_server() {
  kill -INT "$server"
  for _ in $(seq 100); do kill -0 "$server" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$server" 2>/dev/null && fail "serve did not stop within 10 s of SIGINT"
  wait "$server"
  local code=$?
  server=""
  [ "$code" -eq 0 ] || fail "serve exited $code after SIGINT: $(cat "$1")"
  grep -q "^Stopped by SIGINT (Ctrl-C)$" "$1" || fail "no stop line: $(cat "$1")"
}

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

start_server "$work/small.log" --queue 1
timeout 120 "$python" tests/cli/serve_client.py "$port" limits || fail "the limits"
stop_server "$work/small.log"
echo "serve: OK"
