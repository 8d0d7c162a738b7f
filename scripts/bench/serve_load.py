"""Load on build/bin/serve over 127.0.0.1, for scripts/bench/serve.sh.

    serve_load.py PORT PID CLIENTS SECONDS NEW_TOKENS

First one client alone: generate's prompt ("Hello, I am") continued greedily by
NEW_TOKENS tokens, timed from the request to the answer's last line. Then CLIENTS
clients at once, each streaming one answer after another for SECONDS: the time to
each answer's first token (p50, p99), the tokens of all answers per second, failed
requests, and the server's resident memory (VmRSS of PID) sampled every 0.5 s.
Prints one JSON object. Every socket has a timeout; the run ends by itself.
"""
import http.client
import json
import sys
import threading
import time

port, pid, clients, seconds, new_tokens = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5])


def rss_mb():
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def stream_answer(prompt, tokens):
    """(seconds to the first token, seconds in all, tokens, ids-free text) of one streamed answer."""
    start = time.perf_counter()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    body = {"prompt": prompt, "raw": True, "options": {"num_predict": tokens, "temperature": 0}}
    conn.request("POST", "/api/generate", json.dumps(body), {"Content-Type": "application/json"})
    response = conn.getresponse()
    if response.status != 200:
        raise RuntimeError(f"HTTP {response.status}: {response.read()[:200]!r}")
    first, text, count = None, "", 0
    for line in response:
        message = json.loads(line)
        if message.get("error"):
            raise RuntimeError(message["error"])
        if not message["done"]:
            first = first or time.perf_counter() - start
            text += message["response"]
        else:
            count = message["eval_count"]
    conn.close()
    return first, time.perf_counter() - start, count, text


# One client alone, twice (the first warms the allocator up); the second is timed.
stream_answer("Hello, I am", new_tokens)
_, alone_seconds, alone_tokens, alone_text = stream_answer("Hello, I am", new_tokens)

# Many clients at once.
first_token, totals, failures, memory = [], [0], [0], []
lock = threading.Lock()
end = time.time() + seconds


def client(i):
    while time.time() < end:
        try:
            first, _, count, _ = stream_answer(f"Client {i} says hello and", new_tokens)
            with lock:
                first_token.append(first)
                totals[0] += count
        except Exception as e:  # noqa: BLE001 (a failed request is counted, and said)
            with lock:
                failures[0] += 1
            print(f"request failed: {e}", file=sys.stderr)


memory.append(rss_mb())
start = time.perf_counter()
threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
for t in threads:
    t.start()
while any(t.is_alive() for t in threads):
    time.sleep(0.5)
    memory.append(rss_mb())
elapsed = time.perf_counter() - start
first_token.sort()


def percentile(values, p):
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))] if values else float("nan")


print(json.dumps({
    "alone_tokens": alone_tokens, "alone_seconds": alone_seconds, "alone_tokens_per_second": alone_tokens / alone_seconds,
    "alone_text": alone_text, "clients": clients, "seconds": elapsed, "answers": len(first_token),
    "failures": failures[0], "tokens_per_second": totals[0] / elapsed,
    "ttft_p50": percentile(first_token, 50), "ttft_p99": percentile(first_token, 99),
    "rss_start_mb": memory[0], "rss_end_mb": memory[-1], "rss_max_mb": max(memory),
}))
