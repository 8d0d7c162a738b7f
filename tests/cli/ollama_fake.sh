#!/usr/bin/env bash
# Lesson 7.8's client against a fake Ollama on 127.0.0.1 (tests/cli/fake_ollama.py):
# streamed scores are read and averaged, and each bad answer (not a number, too slow,
# dripping past --timeout, cut off, endless, nested too deep, not JSON) costs its entry
# only, said in one line, within its time; a complete answer on a connection left open
# counts; terminal escapes in a reply are shown escaped; Ctrl-C stops a wait at once;
# an "error" answer and a server that is not there end the run with one line.
#
#   ollama_fake.sh BIN_DIR PYTHON WORK_DIR
set -uo pipefail
bin="$1" python="$2" work="$3"
source "$(dirname "$0")/common.sh"
scratch_dir "$work"
"$python" tests/cli/fake_ollama.py "$work/port" 90 &
server=$!
at_exit 'kill "$server" 2>/dev/null'
for _ in $(seq 50); do [ -s "$work/port" ] && break; sleep 0.1; done
port="$(cat "$work/port")" || fail "the fake server did not start"

"$python" - "$work/responses.json" <<'PY'
import json, sys
responses = ["good-85", "good-100", "words", "slow", "close", "good-40", "deep", "drip", "huge", "escape", "garbage",
             "open"]
json.dump([{"instruction": f"Task {i}.", "input": "", "output": "x", "model_response": r}
           for i, r in enumerate(responses)], open(sys.argv[1], "w"), indent=4)
PY
# Two entries wait for --timeout (2 s) each; the rest answer at once: 60 s is ample.
timeout 60 "$bin/ch07-05-evaluate" --data "$work/responses.json" --port "$port" --host 127.0.0.1 --timeout 2 \
  >"$work/scores.log" 2>&1 || fail "ch07-05-evaluate exited $?: $(cat "$work/scores.log")"
cat "$work/scores.log"
grep -q "^Number of scores: 4 of 12$" "$work/scores.log" || fail "not 4 scores of 12"
grep -q "^Average score: 71.25$" "$work/scores.log" || fail "not the average of 85, 100, 40 and 60"
url="http://127.0.0.1:$port/api/chat"
grep -Fxq "Could not score entry 6: line 1 of the answer from '$url': nested more than 64 levels deep at offset 73; expected at most 64" \
  "$work/scores.log" || fail "the deep answer was not reported"
grep -Eq "^Could not score entry 7: $url: the answer was not whole within 2000 ms \([0-9]+ bytes came\)$" \
  "$work/scores.log" || fail "the dripping answer was not cut at --timeout"
grep -Fxq "Could not score entry 8: $url: the answer is longer than 16777216 bytes" "$work/scores.log" ||
  fail "the endless answer was not cut"
grep -Fxq 'Could not convert score: \x1b]0;pwned\x07\x1b[2J70' "$work/scores.log" || fail "the escapes were not escaped"
grep -q $'\x1b' "$work/scores.log" && fail "an escape character reached the output"
grep -Eq "^Could not score entry 10: line 1 of the answer from '$url': not valid JSON" "$work/scores.log" ||
  fail "the line that is not JSON was not reported"
[ "$(wc -l <"$work/scores.log")" -eq 10 ] || fail "not one line per entry lost and two for the scores"
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
"$bin/ch07-05-evaluate" --data "$work/error.json" --port "$port" --host 127.0.0.1 >"$work/error.log" 2>&1 &&
  fail "an Ollama error was not an error"
grep -q "Ollama says: model 'llama3' not found" "$work/error.log" || fail "unclear error: $(cat "$work/error.log")"

# Ctrl-C while an answer is awaited stops the wait at once, not at --timeout or when
# the slow answer comes (5 s): exit 130, one line.
"$python" - "$work/slow.json" <<'PY'
import json, sys
json.dump([{"instruction": "T.", "input": "", "output": "x", "model_response": "slow"}] * 3, open(sys.argv[1], "w"))
PY
"$bin/ch07-05-evaluate" --data "$work/slow.json" --port "$port" --host 127.0.0.1 --timeout 60 \
  >"$work/stop.out" 2>"$work/stop.err" &
pid=$!
# A background job starts with SIGINT ignored, until the client installs its handler:
# Ctrl-C once it has (bit 2 of SigCgt), however slowly it starts, in at most 30 s.
for _ in $(seq 300); do
  caught="$(sed -n 's/^SigCgt:[[:space:]]*//p' "/proc/$pid/status" 2>/dev/null)"
  [ -n "$caught" ] && (((0x$caught & 2) != 0)) && break
  sleep 0.1
done
sleep 0.5  # into the wait for the slow answer
start=$(date +%s%N)
kill -INT "$pid"
wait "$pid"
status=$? waited=$((($(date +%s%N) - start) / 1000000))
[ $status -eq 130 ] || fail "Ctrl-C: exit $status, expected 130: $(cat "$work/stop.err")"
grep -q "stopped by SIGINT (Ctrl-C) after 0 of 3 entries$" "$work/stop.err" || fail "Ctrl-C: $(cat "$work/stop.err")"
[ "$(wc -l <"$work/stop.err")" -eq 1 ] || fail "Ctrl-C: not one line: $(cat "$work/stop.err")"
[ $waited -lt 3000 ] || fail "Ctrl-C took $waited ms to stop the wait"

kill "$server" 2>/dev/null; wait "$server" 2>/dev/null
"$bin/ch07-05-evaluate" --data "$work/responses.json" --port "$port" --host 127.0.0.1 >"$work/none.log" 2>&1 &&
  fail "scoring with no server succeeded"
[ "$(wc -l <"$work/none.log")" -eq 1 ] || fail "not one line: $(cat "$work/none.log")"
grep -q "nothing listens on http://127.0.0.1:$port/api/chat" "$work/none.log" || fail "unclear: $(cat "$work/none.log")"
echo "OK: scores read, bad answers named and skipped, a missing server said in one line"
