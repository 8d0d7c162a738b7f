#!/usr/bin/python3
"""A stand-in for Ollama's chat API on 127.0.0.1, for the tests of ch07-05-evaluate.

    fake_ollama.py PORT_FILE [LIFETIME_SECONDS]

Listens on a free port of 127.0.0.1 (written to PORT_FILE), answers POST /api/chat as
Ollama does (newline-delimited JSON, chunked), and stops by itself after
LIFETIME_SECONDS (default 60). What it answers depends on the last user message: the
word after "score the model response `" picks the behaviour:
  good-N   the score N, streamed over several lines and chunks
  words    a sentence instead of a number
  slow     nothing for 5 seconds (longer than the client's --timeout)
  close    half an answer, then the connection closed
  error    Ollama's {"error": ...} object
  deep     an error object nested 200,000 lists deep
  drip     the score 50, one byte every half second (an answer that never ends in time)
  huge     a chunked body without end (until the client leaves)
  escape   the score 70 with terminal escapes (retitle, clear the screen) around it
  garbage  a line that is not JSON
  open     the score 60 with a Content-Length, the connection then left open 5 seconds
Any other prompt gets "Llamas eat grass." in three streamed parts."""
import json
import re
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def chunk(self, data):
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if self.path != "/api/chat" or body.get("options") != {"seed": 123, "temperature": 0, "num_ctx": 2048}:
            self.send_response(404)
            self.send_header("Content-Length", "9")
            self.end_headers()
            self.wfile.write(b"not found")
            return
        prompt = body["messages"][-1]["content"]
        match = re.search(r"score the model response `(\w+)(?:-(\d+))?", prompt)
        kind, number = (match.group(1), match.group(2)) if match else ("chat", None)
        if kind == "slow":
            time.sleep(5)
        line = lambda text, done=False: (json.dumps({"model": body["model"], "message": {"role": "assistant",
                                                     "content": text}, "done": done}) + "\n").encode()
        if kind == "open":
            data = line("6") + line("0", done=True)
            self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/x-ndjson\r\n"
                             + f"Content-Length: {len(data)}\r\n\r\n".encode() + data)
            self.wfile.flush()
            time.sleep(5)
            self.close_connection = True
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/x-ndjson")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        if kind == "good":
            parts = [number[:1], number[1:], ""]
        elif kind == "words":
            parts = ["I'd rate it ", "85 out of 100.", ""]
        elif kind == "close":
            self.wfile.write(b"40\r\n" + line("1")[:20])
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_RDWR)
            return
        elif kind in ("deep", "garbage"):
            self.chunk(b'{"error": ' + b"[" * 200000 + b"]" * 200000 + b"}\n" if kind == "deep" else b"<html>\n")
            self.chunk(b"")
            return
        elif kind == "drip":
            data = line("5", done=True)
            try:
                for i in range(len(data)):
                    self.chunk(data[i:i + 1])
                    time.sleep(0.5)
                self.chunk(b"")
            except OSError:
                pass
            return
        elif kind == "huge":
            block = line("9" * 65536)
            try:
                for _ in range(4096):  # 256 MB at most, far past the client's limit
                    self.chunk(block)
            except OSError:
                pass
            return
        elif kind == "escape":
            parts = ["\x1b]0;pwned\x07\x1b[2J7", "0", ""]
        elif kind == "error":
            self.chunk((json.dumps({"error": "model 'llama3' not found"}) + "\n").encode())
            self.chunk(b"")
            return
        else:
            parts = ["Llamas ", "eat grass.", ""]
        for i, part in enumerate(parts):
            self.chunk(line(part, done=i == len(parts) - 1))
        self.chunk(b"")


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    lifetime = float(sys.argv[2]) if len(sys.argv) > 2 else 60.0
    threading.Timer(lifetime, server.shutdown).start()
    with open(sys.argv[1], "w") as f:
        f.write(str(server.server_address[1]))
    server.serve_forever()


if __name__ == "__main__":
    main()
