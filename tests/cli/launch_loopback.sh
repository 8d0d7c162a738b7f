#!/usr/bin/env bash
# scripts/launch.sh on one machine: the ranks meet through a file in a private folder
# (c10d's FileStore), nothing listens on MASTER_PORT while they train, and the folder
# is gone afterwards. Started by hand with MASTER_ADDR 127.0.0.1 and MASTER_PORT (no
# launcher), rank 0's rendezvous store listens there, on 127.0.0.1 and on no other
# address (the check sees it, so it would see a store on every interface too).
#
#   launch_loopback.sh BIN_DIR WORK_DIR
set -uo pipefail
bin="$1" dir="$2"
source "$(dirname "$0")/common.sh"
require_data the-verdict.txt gpt2/encoder.json gpt2/vocab.bpe
scratch_dir "$dir"
mkdir -p "$dir/tmp"
settings=(--config configs/tiny.json --max-steps 10 --no-plot --progress never --dist-timeout 30)

# Runs "$@" in the background, its output into LOG, and prints the local addresses
# (as /proc/net/tcp and tcp6 write them, comma-separated) of every socket seen
# listening on PORT (state 0A) at any poll while it ran, or "none"; then its exit code.
watch_port() {
  local port=$1 log=$2 hex seen=""
  shift 2
  hex=$(printf '%04X' "$port")
  "$@" >"$log" 2>&1 &
  local pid=$!
  while kill -0 $pid 2>/dev/null; do
    seen+=$(awk -v p=":$hex\$" '$2 ~ p && $4 == "0A" { printf "%s,", $2 }' /proc/net/tcp /proc/net/tcp6 2>/dev/null)
    sleep 0.05
  done
  wait $pid
  local code=$?
  seen=$(tr ',' '\n' <<<"$seen" | sed '/^$/d' | sort -u | paste -sd, -)
  echo "${seen:-none} $code"
}

port=$((20000 + RANDOM % 20000))
read -r listened code < <(watch_port $port "$dir/launched.log" env TMPDIR="$dir/tmp" scripts/launch.sh -n 2 \
  --master-port $port "$bin/ch05-02-train" "${settings[@]}" --out-dir "$dir/launched")
[ "$code" -eq 0 ] || fail "two ranks under launch.sh exited $code: $(tail -3 "$dir/launched.log")"
grep -q "^Ep 1 " "$dir/launched.log" || fail "no evaluation line: $(tail -3 "$dir/launched.log")"
[ "$listened" = none ] || fail "a socket listened on MASTER_PORT $port while launch.sh's ranks trained: $listened"
[ -z "$(ls -A "$dir/tmp")" ] || fail "the rendezvous folder was left behind: $(ls -A "$dir/tmp")"

# By hand, the same two ranks rendezvous over the store rank 0 serves on MASTER_ADDR only.
port=$((20000 + RANDOM % 20000))
read -r listened code < <(watch_port $port "$dir/by-hand.log" bash -c "
  status=0
  for rank in 0 1; do
    WORLD_SIZE=2 RANK=\$rank MASTER_ADDR=127.0.0.1 MASTER_PORT=$port '$bin/ch05-02-train' ${settings[*]} \
      --out-dir '$dir/by-hand'\$rank >'$dir/by-hand'\$rank.log 2>&1 &
  done
  for job in \$(jobs -p); do wait \$job || status=1; done
  exit \$status")
[ "$code" -eq 0 ] || fail "two ranks started by hand failed: $(tail -3 "$dir/by-hand0.log" "$dir/by-hand1.log")"
grep -q "^Ep 1 " "$dir/by-hand0.log" || fail "rank 0 started by hand printed no evaluation line"
hex=$(printf '%04X' $port)
[ "$listened" = "0100007F:$hex" ] ||
  fail "by hand with MASTER_ADDR 127.0.0.1, rank 0's store should listen on 127.0.0.1:$port only, saw: $listened"
echo "launch.sh: two ranks trained through a rendezvous file, nothing listened on MASTER_PORT, the folder is gone;" \
  "by hand, rank 0's store listened on 127.0.0.1:$port (0100007F:$hex) and on no other address"
