# Sourced by the server's test scripts: start build/bin/serve on a free port of
# 127.0.0.1 and stop it with Ctrl-C. Needs $bin (the build's bin folder) and common.sh.

# start_server LOG ARGS...: starts serve (at most 300 s) and waits for its port; sets
# $server (the timeout wrapper's pid) and $port.
server=""
at_exit '[ -n "$server" ] && kill -9 "$server" $(pgrep -P "$server") 2>/dev/null'
start_server() {
  local log="$1"
  shift
  timeout 300 "$bin/serve" --port 0 "$@" >"$log" 2>&1 &
  server=$!
  port=""
  for _ in $(seq 600); do
    port=$(sed -nE 's|^Serving on http://127\.0\.0\.1:([0-9]+)/.*|\1|p' "$log")
    [ -n "$port" ] && return 0
    kill -0 "$server" 2>/dev/null || fail "serve exited: $(cat "$log")"
    sleep 0.1
  done
  fail "serve did not start within 60 s: $(cat "$log")"
}

# stop_server LOG: Ctrl-C to serve itself (timeout would send it a second one, which
# ends a program at once), then exit 0 within 10 s and the line that says so.
stop_server() {
  local child
  child=$(pgrep -P "$server") || fail "serve is not running: $(cat "$1")"
  kill -INT "$child"
  for _ in $(seq 100); do kill -0 "$server" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$server" 2>/dev/null && fail "serve did not stop within 10 s of SIGINT"
  wait "$server"
  local code=$?
  server=""
  [ "$code" -eq 0 ] || fail "serve exited $code after SIGINT: $(cat "$1")"
  grep -q "^Stopped by SIGINT (Ctrl-C)$" "$1" || fail "no stop line: $(cat "$1")"
}

# make_classifier DIR: a chapter-6 classifier in DIR/classifier/checkpoint.pt (the tiny
# model, two steps on sixteen texts of DIR/spam), its weights also in
# DIR/classifier.pth; needs $python.
make_classifier() {
  mkdir -p "$1/spam"
  "$python" - "$1/spam" <<'PY' || fail "the spam texts"
import csv, sys
rows = [(i % 2, ("WIN a FREE prize now, call " if i % 2 else "See you at lunch, ") + str(i)) for i in range(16)]
for name, part in (("train", rows), ("validation", rows[:8]), ("test", rows[8:])):
    with open(f"{sys.argv[1]}/{name}.csv", "w", newline="") as f:
        csv.writer(f).writerows([("Label", "Text"), *part])
PY
  "$bin/ch06-04-finetune" --train-config configs/train-classify-quick.json --data "$1/spam" --max-steps 2 \
    --no-plot --out-dir "$1/classifier" --save-state-dict "$1/classifier.pth" >"$1/finetune.log" 2>&1 || fail "ch06-04-finetune: $(cat "$1/finetune.log")"
}
