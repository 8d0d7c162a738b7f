"""A client of build/bin/serve over 127.0.0.1, for tests/cli/serve_run.sh. Each phase
checks what a user of Ollama's and OpenAI's APIs relies on, with the standard library
only; every socket has a timeout, every wait a bound.

    serve_client.py PORT answers EXPECTED.json   the tiny model: texts, stops, errors, many clients
    serve_client.py PORT limits                  a slow model: a client gone, a full queue
    serve_client.py PORT classify LABEL TEXT     a classifier: TEXT's label is LABEL, as ch06-05-classify says
"""
import http.client
import json
import socket
import sys
import threading
import time

PORT = int(sys.argv[1])
TIMEOUT = 60


def fail(message):
    print(f"FAILED: {message}")
    sys.exit(1)


def check(ok, message):
    if not ok:
        fail(message)


def request(method, path, body=None, headers=None):
    """(status, content type, body text) of one request."""
    conn = http.client.HTTPConnection("127.0.0.1", PORT, timeout=TIMEOUT)
    data = body if isinstance(body, (bytes, str)) or body is None else json.dumps(body)
    conn.request(method, path, body=data, headers=headers or {"Content-Type": "application/json"})
    response = conn.getresponse()
    text = response.read().decode()
    conn.close()
    return response.status, response.getheader("Content-Type"), text


def post(path, body):
    status, _, text = request("POST", path, body)
    return status, text


def ollama_lines(text):
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def sse_events(text):
    events = [block[len("data: "):] for block in text.split("\n\n") if block.strip()]
    check(events and events[-1] == "[DONE]", f"the event stream does not end with [DONE]: {text[-200:]!r}")
    return [json.loads(e) for e in events[:-1]]


def info():
    return json.loads(request("GET", "/api/info")[2])


def phase_answers(expected_path):
    expected = json.load(open(expected_path))
    prompt, greedy, sampled = expected["prompt"], expected["greedy"], expected["sampled"]
    n = expected["max_new_tokens"]

    status, _, text = request("GET", "/api/tags")
    check(status == 200 and json.loads(text)["models"][0]["name"] == "tiny", f"/api/tags: {status} {text}")
    status, _, text = request("GET", "/v1/models")
    check(status == 200 and json.loads(text)["data"][0]["id"] == "tiny", f"/v1/models: {status} {text}")
    status, content_type, page = request("GET", "/")
    check(status == 200 and content_type.startswith("text/html") and "/api/chat" in page, "the chat page at /")
    check("http://" not in page and "https://" not in page, "the chat page loads something from the network")

    # Ollama: whole and streamed, the same text as `generate`.
    status, text = post("/api/generate", {"model": "tiny", "prompt": prompt, "stream": False, "options": {"num_predict": n}})
    whole = json.loads(text)
    check(status == 200 and whole["response"] == greedy, f"/api/generate whole: {status} {whole.get('response')!r} != {greedy!r}")
    check(whole["done"] and whole["done_reason"] == "length" and whole["eval_count"] == n, f"the end: {whole}")
    status, text = post("/api/generate", {"prompt": prompt, "options": {"num_predict": n}})
    lines = ollama_lines(text)
    check(status == 200 and len(lines) > 2 and lines[-1]["done"], f"/api/generate streamed: {status} {text[:200]}")
    check("".join(l["response"] for l in lines) == greedy, "the streamed pieces are not the whole answer")
    status, text = post("/api/chat", {"messages": [{"role": "user", "content": prompt}], "options": {"num_predict": n}})
    check(status == 200 and "".join(l["message"]["content"] for l in ollama_lines(text)) == greedy, "/api/chat streamed")

    # OpenAI: chat and completions, whole and as server-sent events.
    status, text = post("/v1/chat/completions", {"model": "tiny", "messages": [{"role": "user", "content": prompt}], "max_tokens": n})
    answer = json.loads(text)
    check(status == 200 and answer["choices"][0]["message"]["content"] == greedy, f"/v1/chat/completions: {text}")
    check(answer["usage"]["completion_tokens"] == n and answer["choices"][0]["finish_reason"] == "length", f"usage: {text}")
    status, text = post("/v1/chat/completions", {"messages": [{"role": "user", "content": prompt}], "max_tokens": n, "stream": True})
    events = sse_events(text)
    pieces = "".join(e["choices"][0]["delta"].get("content", "") for e in events)
    check(status == 200 and pieces == greedy and events[-1]["choices"][0]["finish_reason"] == "length", "SSE chat")
    status, text = post("/v1/completions", {"prompt": prompt, "max_tokens": n, "stream": True})
    check(status == 200 and "".join(e["choices"][0]["text"] for e in sse_events(text)) == greedy, "SSE completions")

    # Sampling: the seed gives `generate --seed`'s draws, every time.
    body = {"prompt": prompt, "stream": False, "options": {"num_predict": n, "temperature": 1.0, "top_k": 5, "seed": 123}}
    for _ in range(2):
        status, text = post("/api/generate", body)
        check(status == 200 and json.loads(text)["response"] == sampled, f"seeded sampling: {text}")

    # A stop string ends the answer before it, also when it spans tokens.
    stop = greedy[len(greedy) // 3: len(greedy) // 3 + 4]
    cut = greedy[:greedy.index(stop)]
    status, text = post("/v1/completions", {"prompt": prompt, "max_tokens": n, "stop": [stop]})
    choice = json.loads(text)["choices"][0]
    check(status == 200 and choice["text"] == cut and choice["finish_reason"] == "stop", f"stop {stop!r}: {choice}")
    status, text = post("/api/generate", {"prompt": prompt, "options": {"num_predict": n, "stop": [stop]}})
    check("".join(l["response"] for l in ollama_lines(text)) == cut, f"streamed stop {stop!r}: {text[-300:]}")

    # Refusals: a JSON error in each API's shape, with a 4xx status.
    refusals = [
        ("/api/generate", "{not json", 400, "not valid JSON"),
        ("/v1/chat/completions", "[" * 3000, 400, "nested more than 64"),
        ("/api/generate", {"model": "other", "prompt": "x"}, 404, "model 'other' not found"),
        ("/api/generate", {"prompt": "x", "options": {"num_predict": 5000}}, 400, "more than this server allows"),
        ("/api/generate", {"prompt": "x", "options": {"temperature": -1}}, 400, "'temperature' must be"),
        ("/api/generate", {"prompt": 7}, 400, "'prompt' must be a string"),
        ("/api/chat", {"messages": [{"role": "tool", "content": "x"}]}, 400, "'role' must be"),
        ("/v1/chat/completions", {"messages": []}, 400, "at least one message"),
        ("/api/generate", {"prompt": "word " * 100}, 400, "the model's context holds 64"),
        ("/api/generate", {"prompt": "x" * 5000}, 413, "longer than this server allows"),
        ("/v1/nothing", {}, 404, "no endpoint POST /v1/nothing"),
    ]
    for path, body, want, words in refusals:
        status, text = post(path, body)
        error = json.loads(text)["error"]
        message = error["message"] if path.startswith("/v1") else error
        check(status == want and words in message, f"{path} {str(body)[:60]!r}: {status} {text[:300]}")

    # Bytes that are not HTTP, and a request cut off: the server answers the next one.
    for raw in [b"\x00\xff garbage\r\n\r\n", b"POST /api/generate HTTP/1.1\r\nContent-Length: 100\r\n\r\n{\"pro",
                b"GET /" + b"a" * 20000 + b" HTTP/1.1\r\n\r\n"]:
        with socket.create_connection(("127.0.0.1", PORT), timeout=10) as s:
            s.sendall(raw)
            s.shutdown(socket.SHUT_WR)
            try:
                s.recv(4096)
            except OSError:
                pass
    check(request("GET", "/api/tags")[0] == 200, "the server stopped answering after bad bytes")

    # Eight clients at once, streaming: each gets the whole answer.
    results = []

    def client():
        results.append(post("/api/chat", {"messages": [{"role": "user", "content": prompt}], "options": {"num_predict": n}}))

    threads = [threading.Thread(target=client) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(TIMEOUT)
    check(len(results) == 8, f"{len(results)} of 8 clients got an answer")
    for status, text in results:
        check(status == 200 and "".join(l["message"]["content"] for l in ollama_lines(text)) == greedy, "a concurrent answer")
    print("answers: OK")


def wait_idle(before, seconds=30):
    deadline = time.time() + seconds
    while time.time() < deadline:
        now = info()
        if not now["busy"] and now["answers"] > before:
            return now
        time.sleep(0.1)
    fail(f"the server was still busy {seconds} s after its client went away: {info()}")


def open_stream(body):
    """Starts a streamed answer, reads its first line and returns the open socket."""
    s = socket.create_connection(("127.0.0.1", PORT), timeout=TIMEOUT)
    data = json.dumps(body).encode()
    s.sendall(b"POST /api/generate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: "
              + str(len(data)).encode() + b"\r\n\r\n" + data)
    got = b""
    while b'"done":false' not in got:
        chunk = s.recv(4096)
        check(chunk, "the stream ended before its first token")
        got += chunk
    return s


def phase_limits():
    long = {"prompt": "Every effort moves you", "options": {"num_predict": 1000}}
    # A streaming client that goes away: its answer stops and its slot frees.
    start = info()
    s = open_stream(long)
    s.close()
    done = wait_idle(start["answers"])
    check(done["tokens_generated"] - start["tokens_generated"] < 1000, f"the answer ran on without its client: {done}")

    # A whole answer's client that goes away: the same.
    start = info()
    s = socket.create_connection(("127.0.0.1", PORT), timeout=TIMEOUT)
    data = json.dumps(dict(long, stream=False)).encode()
    s.sendall(b"POST /api/generate HTTP/1.1\r\nHost: x\r\nContent-Length: " + str(len(data)).encode() + b"\r\n\r\n" + data)
    time.sleep(1.5)
    s.close()
    done = wait_idle(start["answers"])
    check(done["tokens_generated"] - start["tokens_generated"] < 1000, f"the whole answer ran on without its client: {done}")

    # One answer under way and one waiting (--queue 1): a third is refused with 429.
    start = info()
    first = open_stream(long)
    second = socket.create_connection(("127.0.0.1", PORT), timeout=TIMEOUT)
    data = json.dumps(long).encode()
    second.sendall(b"POST /api/generate HTTP/1.1\r\nHost: x\r\nContent-Length: " + str(len(data)).encode() + b"\r\n\r\n" + data)
    deadline = time.time() + 10
    while info()["waiting"] < 1:
        check(time.time() < deadline, "the second request did not queue")
        time.sleep(0.05)
    status, text = post("/v1/chat/completions", {"messages": [{"role": "user", "content": "x"}]})
    check(status == 429 and "busy" in json.loads(text)["error"]["message"], f"a full queue: {status} {text}")
    first.close()
    second.close()
    deadline = time.time() + 30
    while info()["busy"] or info()["waiting"]:
        check(time.time() < deadline, f"the answers did not end without their clients: {info()}")
        time.sleep(0.1)
    check(info()["tokens_generated"] - start["tokens_generated"] < 2000, "the two answers ran on")
    print("limits: OK")


def phase_classify(label, text):
    status, text_answer = post("/api/classify", {"text": text})
    answer = json.loads(text_answer)
    check(status == 200 and answer["label"] == label, f"/api/classify: {status} {text_answer} (ch06-05-classify: {label})")
    probabilities = answer["probabilities"]
    check(set(probabilities) == {"spam", "not spam"} and abs(sum(probabilities.values()) - 1) < 1e-6,
          f"the probabilities: {probabilities}")
    check(max(probabilities, key=probabilities.get) == label, f"the label is not the most likely class: {answer}")
    status, body = post("/api/classify", {"text": 3})
    check(status == 400 and "'text' must be a string" in json.loads(body)["error"], f"a bad text: {status} {body}")
    status, body = post("/api/chat", {"messages": [{"role": "user", "content": "x"}]})
    check(status == 400 and "is a classifier" in json.loads(body)["error"], f"chat with a classifier: {status} {body}")
    status, _, page = request("GET", "/")
    check(status == 200 and "/api/classify" in page, "the classifier's page at /")
    print("classify: OK")


if sys.argv[2] == "answers":
    phase_answers(sys.argv[3])
elif sys.argv[2] == "classify":
    phase_classify(sys.argv[3], sys.argv[4])
else:
    phase_limits()
