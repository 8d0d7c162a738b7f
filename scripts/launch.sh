#!/usr/bin/env bash
# Starts the processes of a data-parallel run on this machine, as torchrun does: each
# gets RANK, LOCAL_RANK, WORLD_SIZE, MASTER_ADDR and MASTER_PORT in its environment.
#
#   scripts/launch.sh -n N [--nnodes M --node-rank K] [--master-addr HOST] [--master-port PORT] COMMAND [ARGS...]
#
#   scripts/launch.sh -n 2 build/bin/ch05-02-train --config configs/tiny.json
#
# On several machines, run the same command on each, with --nnodes, its own
# --node-rank (0 on the machine whose address is --master-addr) and the same port:
# ranks node_rank*N .. node_rank*N+N-1 start there. Waits for every process, passes
# SIGINT and SIGTERM on to them (they stop at a step boundary, rank 0 with a
# checkpoint), and exits with the first non-zero status of a process, else 0.
set -uo pipefail

usage() {
  echo "launch.sh: $1" >&2
  echo "usage: scripts/launch.sh -n N [--nnodes M --node-rank K] [--master-addr HOST] [--master-port PORT] COMMAND..." >&2
  exit 2
}
whole() { case "$2" in '' | *[!0-9]*) usage "$1 wants a whole number, got '$2'" ;; esac; }

n=1 nnodes=1 node_rank=0 addr="${MASTER_ADDR:-127.0.0.1}" port="${MASTER_PORT:-29500}"
while [ $# -gt 0 ]; do
  case "$1" in
    -n | --nproc-per-node) [ $# -ge 2 ] || usage "$1 needs a value"; whole "$1" "$2"; n=$2; shift 2 ;;
    --nnodes) [ $# -ge 2 ] || usage "$1 needs a value"; whole "$1" "$2"; nnodes=$2; shift 2 ;;
    --node-rank) [ $# -ge 2 ] || usage "$1 needs a value"; whole "$1" "$2"; node_rank=$2; shift 2 ;;
    --master-addr) [ $# -ge 2 ] || usage "$1 needs a value"; addr=$2; shift 2 ;;
    --master-port) [ $# -ge 2 ] || usage "$1 needs a value"; whole "$1" "$2"; port=$2; shift 2 ;;
    --) shift; break ;;
    -*) usage "unknown option '$1'" ;;
    *) break ;;
  esac
done
[ $# -gt 0 ] || usage "no command to run"
[ "$n" -ge 1 ] && [ "$nnodes" -ge 1 ] || usage "-n and --nnodes must be at least 1"
[ "$node_rank" -lt "$nnodes" ] || usage "--node-rank must be below --nnodes ($nnodes), got $node_rank"

pids=()
for ((i = 0; i < n; i++)); do
  RANK=$((node_rank * n + i)) LOCAL_RANK=$i WORLD_SIZE=$((nnodes * n)) MASTER_ADDR=$addr MASTER_PORT=$port "$@" &
  pids+=($!)
done
trap 'kill -TERM "${pids[@]}" 2>/dev/null' INT TERM

status=0
for pid in "${pids[@]}"; do
  while :; do
    wait "$pid"
    code=$?
    kill -0 "$pid" 2>/dev/null || break  # else a signal interrupted the wait
  done
  [ $status -ne 0 ] || status=$code
done
exit $status
