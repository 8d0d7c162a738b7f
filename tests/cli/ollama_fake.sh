#!/usr/bin/env bash
# Lesson 7.8's client against a fake Ollama on 127.0.0.1 (tests/cli/fake_ollama.py):
# streamed scores are read and averaged, and each bad answer (not a number, too slow,
# cut off) costs its entry only, said in one line; an "error" answer and a server that
# is not there end the run with one line.
#
#   ollama_fake.sh BIN_DIR PYTHON WORK_DIR
set -uo pipefail
bin="$1" python="$2" work="$3"
source "$(dirname "$0")/common.sh"
fresh_dir "$work"
"$python" tests/cli/fake_ollama.py "$work/port" 90 &
server=$!
trap 'kill "$server" 2>/dev/null' EXIT
for _ in $(seq 50); do [ -s "$work/port" ] && break; sleep 0.1; done
port="$(cat "$work/port")" || fail "the fake server did not start"

"$python" - "$work/responses.json" <<'PY'
import json, sys
responses = ["good-85", "good-100", "words", "slow", "close", "good-40"]
json.dump([{"instruction": f"Task {i}.", "input": "", "output": "x", "model_response": r}
           for i, r in enumerate(responses)], open(sys.argv[1], "w"), indent=4)
PY
"$bin/ch07-05-evaluate" --responses "$work/responses.json" --port "$port" --host 127.0.0.1 --timeout 2 \
  >"$work/scores.log" 2>&1 || fail "ch07-05-evaluate exited $?: $(cat "$work/scores.log")"
cat "$work/scores.log"
grep -q "^Number of scores: 3 of 6$" "$work/scores.log" || fail "not 3 scores of 6"
grep -q "^Average score: 75.00$" "$work/scores.log" || fail "not the average of 85, 100 and 40"
grep -q "^Could not convert score: I'd rate it 85 out of 100.$" "$work/scores.log" || fail "the sentence was not reported"
grep -q "^Could not score entry 3: http://127.0.0.1:$port/api/chat: no answer within 2000 ms$" "$work/scores.log" ||
  fail "the slow answer was not reported"
grep -Eq "^Could not score entry 4: .*closed the connection before the answer ended" "$work/scores.log" ||
  fail "the cut answer was not reported"

answer="$("$bin/ch07-05-evaluate" --query "What do Llamas eat?" --port "$port" --host 127.0.0.1)" ||
  fail "--query exited $?"
[ "$answer" = "Llamas eat grass." ] || fail "--query printed '$answer'"

"$python" - "$work/error.json" <<'PY'
import json, sys
json.dump([{"instruction": "T.", "input": "", "output": "x", "model_response": "error"}], open(sys.argv[1], "w"))
PY
"$bin/ch07-05-evaluate" --responses "$work/error.json" --port "$port" --host 127.0.0.1 >"$work/error.log" 2>&1 &&
  fail "an Ollama error was not an error"
grep -q "Ollama says: model 'llama3' not found" "$work/error.log" || fail "unclear error: $(cat "$work/error.log")"

kill "$server" 2>/dev/null; wait "$server" 2>/dev/null
"$bin/ch07-05-evaluate" --responses "$work/responses.json" --port "$port" --host 127.0.0.1 >"$work/none.log" 2>&1 &&
  fail "scoring with no server succeeded"
[ "$(wc -l <"$work/none.log")" -eq 1 ] || fail "not one line: $(cat "$work/none.log")"
grep -q "nothing listens on http://127.0.0.1:$port/api/chat" "$work/none.log" || fail "unclear: $(cat "$work/none.log")"
echo "OK: scores read, bad answers named and skipped, a missing server said in one line"
