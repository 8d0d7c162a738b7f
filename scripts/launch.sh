#!/usr/bin/env bash
# Starts the processes of a data-parallel run on this machine, as torchrun does: each
# gets RANK, LOCAL_RANK, WORLD_SIZE, MASTER_ADDR and MASTER_PORT in its environment.
#
#   scripts/launch.sh -n N [--nnodes M --node-rank K] [--master-addr HOST] [--master-port PORT] [--grace S]
#                     COMMAND [ARGS...]
#
#   scripts/launch.sh -n 2 build/bin/ch05-02-train --config configs/tiny.json
#
# On several machines, run the same command on each, with --nnodes, its own
# --node-rank (0 on the machine whose address is --master-addr) and the same port:
# ranks node_rank*N .. node_rank*N+N-1 start there.
#
# As torchrun does, it waits for every process and exits with the first non-zero status
# of one, else 0. When a rank fails, it stops the others; SIGINT and SIGTERM it passes
# on. Stopping is SIGTERM (a rank stops at its next step boundary, rank 0 with a
# checkpoint), then SIGKILL after --grace seconds (30). If the launcher itself is
# killed, the ranks get SIGTERM from the kernel.
#
# On one machine (--nnodes 1), the ranks meet through a file in a fresh private folder
# (LLM_RENDEZVOUS_FILE, c10d's FileStore), so that no rendezvous port listens on any
# interface; with --nnodes above 1, rank 0 serves it on --master-port. The folder goes
# when the launcher ends (an empty one stays if the launcher is killed by SIGKILL).
set -uo pipefail

usage() {
  echo "launch.sh: $1" >&2
  echo "usage: scripts/launch.sh -n N [--nnodes M --node-rank K] [--master-addr HOST] [--master-port PORT]" \
       "[--grace S] COMMAND..." >&2
  exit 2
}
whole() { case "$2" in '' | *[!0-9]*) usage "$1 wants a whole number, got '$2'" ;; esac; }

n=1 nnodes=1 node_rank=0 grace=30 addr="${MASTER_ADDR:-127.0.0.1}" port="${MASTER_PORT:-29500}"
while [ $# -gt 0 ]; do
  case "$1" in
    -n | --nproc-per-node) [ $# -ge 2 ] || usage "$1 needs a value"; whole "$1" "$2"; n=$2; shift 2 ;;
    --nnodes) [ $# -ge 2 ] || usage "$1 needs a value"; whole "$1" "$2"; nnodes=$2; shift 2 ;;
    --node-rank) [ $# -ge 2 ] || usage "$1 needs a value"; whole "$1" "$2"; node_rank=$2; shift 2 ;;
    --master-addr) [ $# -ge 2 ] || usage "$1 needs a value"; addr=$2; shift 2 ;;
    --master-port) [ $# -ge 2 ] || usage "$1 needs a value"; whole "$1" "$2"; port=$2; shift 2 ;;
    --grace) [ $# -ge 2 ] || usage "$1 needs a value"; whole "$1" "$2"; grace=$2; shift 2 ;;
    --) shift; break ;;
    -*) usage "unknown option '$1'" ;;
    *) break ;;
  esac
done
[ $# -gt 0 ] || usage "no command to run"
[ "$n" -ge 1 ] && [ "$nnodes" -ge 1 ] || usage "-n and --nnodes must be at least 1"
[ "$node_rank" -lt "$nnodes" ] || usage "--node-rank must be below --nnodes ($nnodes), got $node_rank"

# Each rank gets SIGTERM if this script dies, even by SIGKILL (LLM_LAUNCHER_PID: the
# ranks ask the kernel for it), so no rank trains on alone.
export LLM_LAUNCHER_PID=$$
rendezvous_dir=""
if [ "$nnodes" -eq 1 ]; then
  rendezvous_dir="$(mktemp -d "${TMPDIR:-/tmp}/llm-rendezvous.XXXXXX")" || { echo "launch.sh: cannot make a folder in ${TMPDIR:-/tmp}" >&2; exit 1; }
  export LLM_RENDEZVOUS_FILE="$rendezvous_dir/store"
else
  unset LLM_RENDEZVOUS_FILE
fi
declare -A rank_of
for ((i = 0; i < n; i++)); do
  rank=$((node_rank * n + i))
  RANK=$rank LOCAL_RANK=$i WORLD_SIZE=$((nnodes * n)) MASTER_ADDR=$addr MASTER_PORT=$port "$@" &
  rank_of[$!]=$rank
done

# Stops the ranks still running: SIGTERM (each stops at its next step boundary, rank 0
# with a checkpoint), then SIGKILL for any still there after $grace seconds.
stop_ranks() {
  local running=()
  for pid in "${!rank_of[@]}"; do kill -0 "$pid" 2>/dev/null && running+=("$pid"); done
  [ ${#running[@]} -gt 0 ] || return 0
  kill -TERM "${running[@]}" 2>/dev/null
  [ -n "$killer" ] || { ( sleep "$grace"; kill -KILL "${running[@]}" ) >/dev/null 2>&1 & killer=$!; }
}
killer=""
trap stop_ranks INT TERM
trap '[ -z "$killer" ] || kill "$killer" 2>/dev/null; [ -z "$rendezvous_dir" ] || rm -rf "$rendezvous_dir"' EXIT

status=0
while [ ${#rank_of[@]} -gt 0 ]; do
  finished=""
  wait -n -p finished "${!rank_of[@]}"
  code=$?
  [ -n "$finished" ] || continue  # a signal interrupted the wait
  rank=${rank_of[$finished]}
  unset "rank_of[$finished]"
  if [ "$code" -ne 0 ] && [ $status -eq 0 ]; then
    status=$code
    if [ ${#rank_of[@]} -gt 0 ]; then
      echo "launch.sh: rank $rank exited with status $code; stopping the other ranks" >&2
      stop_ranks
    fi
  fi
done
exit $status
