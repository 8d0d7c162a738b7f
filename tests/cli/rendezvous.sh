#!/usr/bin/env bash
# A data-parallel run whose ranks do not fit together says which rank and why, in one
# line, before Gloo connects:
#  1. ranks started with different WORLD_SIZEs (2 and 4) both name the mismatch;
#  2. a world of 3 with rank 2 never started: ranks 0 and 1 name rank 2 within the
#     timeout (3 s), not after a multiple of it;
#  3. rank 0 on a port another program holds names the port, not "is rank 0 running?";
#  4. rank 0 with a MASTER_ADDR that is not this machine's (192.0.2.1, a documentation
#     address) says it cannot serve there, at once: its store binds MASTER_ADDR only.
#
#   rendezvous.sh BIN_DIR WORK_DIR
set -uo pipefail
bin="$1" dir="$2"
source "$(dirname "$0")/common.sh"
require_data the-verdict.txt gpt2/encoder.json gpt2/vocab.bpe
scratch_dir "$dir"
settings=(--config configs/tiny.json --out-dir= --max-steps 2 --progress never --dist-timeout 3)

# rank R of WORLD_SIZE W on PORT, in the background; its stderr in $dir/NAME.err.
start_rank() {
  local name=$1 world=$2 rank=$3 port=$4
  WORLD_SIZE=$world RANK=$rank MASTER_PORT=$port "$bin/ch05-02-train" "${settings[@]}" >/dev/null 2>"$dir/$name.err" &
}
# expect_line NAME PID TEXT: the rank exited 1 with TEXT as its one line on stderr.
expect_line() {
  local name=$1 pid=$2 text=$3 code
  wait "$pid"
  code=$?
  [ $code -eq 1 ] || fail "$name exited $code, expected 1: $(cat "$dir/$name.err")"
  [ "$(wc -l <"$dir/$name.err")" -eq 1 ] || fail "$name: expected one line: $(cat "$dir/$name.err")"
  grep -qF "$text" "$dir/$name.err" || fail "$name said: $(cat "$dir/$name.err")"
  echo "$name: $(cat "$dir/$name.err")"
}

port=$((20000 + RANDOM % 20000))
start_rank two 2 0 $port; two=$!
start_rank four 4 1 $port; four=$!
expect_line two $two "rank 0: the ranks were started with different world sizes (rank 0: 2, rank 1: 4); every rank needs the same WORLD_SIZE"
expect_line four $four "rank 1: the ranks were started with different world sizes (rank 0: 2, rank 1: 4)"

port=$((20000 + RANDOM % 20000))
started=$(date +%s)
start_rank zero 3 0 $port; zero=$!
start_rank one 3 1 $port; one=$!
expect_line zero $zero "rank 0: rank 2 did not join within 3 s"
expect_line one $one "rank 1: rank 2 did not join within 3 s"
took=$(($(date +%s) - started))
[ $took -le 10 ] || fail "the ranks took $took s to give up, with a 3 s timeout"
echo "a missing rank: both others gave up after $took s"

port=$((20000 + RANDOM % 20000))
/usr/bin/python3 -c "import socket, sys, time
s = socket.socket(); s.bind(('0.0.0.0', int(sys.argv[1]))); s.listen(); time.sleep(30)" $port &
holder=$!
at_exit 'kill $holder 2>/dev/null'
sleep 0.5
start_rank held 2 0 $port; held=$!
expect_line held $held "rank 0: cannot serve the rendezvous on port $port ("
grep -qF "is another program using MASTER_PORT $port?" "$dir/held.err" || fail "the port was not named"

port=$((20000 + RANDOM % 20000))
MASTER_ADDR=192.0.2.1 start_rank elsewhere 2 0 $port; elsewhere=$!
expect_line elsewhere $elsewhere "rank 0: cannot serve the rendezvous at 192.0.2.1:$port (cannot listen on 192.0.2.1"
grep -qF "is MASTER_ADDR an address of this machine?" "$dir/elsewhere.err" || fail "MASTER_ADDR was not questioned"
echo "OK"
