#!/usr/bin/env bash
# The server under load, beside `generate` in one run (GPT-2 124M, untrained, greedy,
# one LibTorch thread): bench-generate's KV-cache tokens/s for the same prompt and
# length, then serve with one client alone (the same prompt and length, the whole request:
# HTTP, prompt and decoding), then CLIENTS streaming clients at once for SECONDS:
# time to first token p50/p99, tokens/s of all answers, failed requests, and the
# server's resident memory at the start, the end and its highest.
#
#   scripts/bench/serve.sh [CLIENTS] [SECONDS] [NEW_TOKENS]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
clients="${1:-4}" seconds="${2:-30}" new_tokens="${3:-100}"
bin="$root/build/bin"
[ -x "$bin/serve" ] || { echo "build first: scripts/setup.sh" >&2; exit 1; }
work="$(mktemp -d)"
server=""
trap '[ -n "$server" ] && kill "$server" 2>/dev/null; rm -rf "$work"' EXIT
echo "Serving GPT-2 124M (untrained), $clients clients for ${seconds} s, $new_tokens tokens an answer, $(nproc) cores:" \
  "$(lscpu | sed -n 's/^Model name: *//p')"
generate="$("$bin/bench-generate" --cached-only --new-tokens "$new_tokens" --threads 1)"
"$bin/serve" --port 0 --threads 1 --queue "$clients" >"$work/serve.log" 2>&1 &
server=$!
for _ in $(seq 600); do grep -q "^Serving on" "$work/serve.log" && break; sleep 0.1; done
port="$(sed -nE 's|^Serving on http://127\.0\.0\.1:([0-9]+)/.*|\1|p' "$work/serve.log")"
[ -n "$port" ] || { echo "serve did not start: $(cat "$work/serve.log")" >&2; exit 1; }
load="$(timeout $((${seconds%.*} + 300)) /usr/bin/python3 "$root/scripts/bench/serve_load.py" "$port" "$server" \
  "$clients" "$seconds" "$new_tokens")"
kill -INT "$server"
wait "$server" || true
server=""
/usr/bin/python3 - "$generate" "$load" <<'PY'
import json, sys
generate, load = json.loads(sys.argv[1]), json.loads(sys.argv[2])
print(f"generate (bench-generate, KV cache): {generate['tokens_per_second']:.1f} tok/s")
print(f"serve, one client: {load['alone_tokens_per_second']:.1f} tok/s over the whole request "
      f"({load['alone_tokens']} tokens in {load['alone_seconds']:.2f} s): "
      f"{100 * (generate['tokens_per_second'] / load['alone_tokens_per_second'] - 1):+.1f}% time over generate")
print(f"serve, {load['clients']} clients for {load['seconds']:.0f} s: {load['answers']} answers, "
      f"{load['failures']} failed, {load['tokens_per_second']:.1f} tok/s in all, time to first token "
      f"p50 {load['ttft_p50'] * 1000:.0f} ms, p99 {load['ttft_p99'] * 1000:.0f} ms")
print(f"serve's resident memory: {load['rss_start_mb']:.0f} MB at the start, {load['rss_end_mb']:.0f} MB at the end, "
      f"{load['rss_max_mb']:.0f} MB at most")
PY
