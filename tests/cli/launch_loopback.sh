#!/usr/bin/env bash
# scripts/launch.sh on one machine: the ranks meet through a file in a private folder
# (c10d's FileStore), nothing listens on MASTER_PORT while they train, and the folder
# is gone afterwards. Run directly with MASTER_PORT (no launcher), rank 0's TCPStore
# does listen there: the check sees it.
#
#   launch_loopback.sh BIN_DIR WORK_DIR
set -uo pipefail
bin="$1" dir="$2"
source "$(dirname "$0")/common.sh"
require_data the-verdict.txt gpt2/encoder.json gpt2/vocab.bpe
fresh_dir "$dir"
mkdir -p "$dir/tmp"
settings=(--config configs/tiny.json --max-steps 10 --no-plot --progress never --dist-timeout 30)

# Runs "$@" in the background, its output into LOG, and prints 1 when a socket
# listened on PORT (IPv4 or IPv6, state 0A) at any poll while it ran, else 0; then its
# exit code.
watch_port() {
  local port=$1 log=$2 hex listened=0
  shift 2
  hex=$(printf '%04X' "$port")
  "$@" >"$log" 2>&1 &
  local pid=$!
  while kill -0 $pid 2>/dev/null; do
    awk -v p=":$hex\$" '$2 ~ p && $4 == "0A"' /proc/net/tcp /proc/net/tcp6 2>/dev/null | grep -q . && listened=1
    sleep 0.05
  done
  wait $pid
  echo "$listened $?"
}

port=$((20000 + RANDOM % 20000))
read -r listened code < <(watch_port $port "$dir/launched.log" env TMPDIR="$dir/tmp" scripts/launch.sh -n 2 \
  --master-port $port "$bin/ch05-02-train" "${settings[@]}" --out-dir "$dir/launched")
[ "$code" -eq 0 ] || fail "two ranks under launch.sh exited $code: $(tail -3 "$dir/launched.log")"
grep -q "^Ep 1 " "$dir/launched.log" || fail "no evaluation line: $(tail -3 "$dir/launched.log")"
[ "$listened" -eq 0 ] || fail "a socket listened on MASTER_PORT $port while launch.sh's ranks trained"
[ -z "$(ls -A "$dir/tmp")" ] || fail "the rendezvous folder was left behind: $(ls -A "$dir/tmp")"

# The control: the same two ranks started by hand rendezvous over rank 0's TCPStore.
port=$((20000 + RANDOM % 20000))
read -r listened code < <(watch_port $port "$dir/by-hand.log" bash -c "
  for rank in 0 1; do
    WORLD_SIZE=2 RANK=\$rank MASTER_ADDR=127.0.0.1 MASTER_PORT=$port '$bin/ch05-02-train' ${settings[*]} \
      --out-dir '$dir/by-hand'\$rank >'$dir/by-hand'\$rank.log 2>&1 &
  done
  wait")
[ "$listened" -eq 1 ] || fail "the check did not see rank 0's TCPStore on port $port"
echo "launch.sh: two ranks trained through a rendezvous file, nothing listened on MASTER_PORT, the folder is gone;" \
  "by hand, rank 0's TCPStore listened on its port (the check sees it)"
