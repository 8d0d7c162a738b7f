#!/usr/bin/python3
"""scripts/download-gpt2.sh against a local HTTP server on 127.0.0.1 (no internet).

    download_gpt2.py

Serves a generated file (with Range support, or without it) and checks that the
script: downloads it whole to models/gpt2-124m/model.safetensors with its SHA-256;
says it is present on a second run; continues a .part left by an interrupted run,
and starts over when the server cannot continue; refuses a file whose SHA-256 is not
the pinned one, leaving nothing behind and keeping a file already there; reads a
pin for its own size only; and, with the server gone, says what to do.
The server stops with the test.
"""
import functools
import hashlib
import http.server
import os
import pathlib
import subprocess
import sys
import tempfile
import threading

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "download-gpt2.sh"
PAYLOAD = bytes((i * 7 + i // 251) % 256 for i in range(300_000))
RANGES = {"on": True}


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def send_payload(self, body):
        start = 0
        header = self.headers.get("Range")
        if header and RANGES["on"] and header.startswith("bytes="):
            start = int(header[len("bytes="):].split("-")[0])
            self.send_response(206)
            self.send_header("Content-Range", f"bytes {start}-{len(PAYLOAD) - 1}/{len(PAYLOAD)}")
        else:
            self.send_response(200)
        self.send_header("Content-Length", str(len(PAYLOAD) - start))
        self.end_headers()
        if body:
            self.wfile.write(PAYLOAD[start:])

    def do_HEAD(self):
        self.send_payload(False)

    def do_GET(self):
        self.send_payload(True)


def main():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    sha = hashlib.sha256(PAYLOAD).hexdigest()
    failed = False
    with tempfile.TemporaryDirectory() as tmp:
        models = pathlib.Path(tmp)
        out = models / "gpt2-124m" / "model.safetensors"

        def run(*args, pinned=None, url=base, pin_size="124M"):
            env = {k: v for k, v in os.environ.items() if not k.startswith("LLM_GPT2_SHA256")}
            env.update(LLM_MODELS_DIR=str(models), LLM_GPT2_BASE_URL=url)
            if pinned:
                env["LLM_GPT2_SHA256_" + pin_size] = pinned
            return subprocess.run(["bash", str(SCRIPT), *args], capture_output=True, text=True, env=env, timeout=120)

        def check(what, ok, result):
            nonlocal failed
            print(f"{'ok  ' if ok else 'FAIL'} {what}: exit {result.returncode}; "
                  f"{(result.stdout + result.stderr).strip().splitlines()[-1]}")
            failed = failed or not ok

        r = run("124M", pinned=sha)
        check("download", r.returncode == 0 and out.read_bytes() == PAYLOAD and not out.with_suffix(".safetensors.part").exists(), r)
        r = run("124M")
        check("second run", r.returncode == 0 and "present, SHA-256 checked" in r.stdout, r)

        out.unlink()
        part = out.with_name("model.safetensors.part")
        part.write_bytes(PAYLOAD[:123_456])
        r = run("124M", pinned=sha)
        check("continue a .part", r.returncode == 0 and "continuing" in r.stdout and out.read_bytes() == PAYLOAD, r)

        out.unlink()
        part.write_bytes(PAYLOAD[:50_000])
        RANGES["on"] = False
        r = run("124M", pinned=sha)
        check("start over without ranges", r.returncode == 0 and "starting over" in r.stdout and out.read_bytes() == PAYLOAD, r)
        RANGES["on"] = True

        out.unlink()
        r = run("124M", pinned="0" * 64)
        check("wrong SHA-256", r.returncode == 1 and "expected " + "0" * 64 in r.stderr and not out.exists()
              and not part.exists() and len(r.stderr.strip().splitlines()) == 1, r)

        # A wrong pin for the file already there: it stays (no network is needed to keep it).
        r = run("124M", pinned=sha)
        check("download again", r.returncode == 0 and out.read_bytes() == PAYLOAD, r)
        r = run("124M", pinned="0" * 64, url="http://127.0.0.1:9")
        check("wrong SHA-256, offline: the file kept", r.returncode == 1 and "cannot reach" in r.stderr
              and out.read_bytes() == PAYLOAD and (out.parent / "model.safetensors.sha256").exists(), r)
        r = run("124M", pinned="0" * 64, pin_size="355M")
        check("another size's pin", r.returncode == 0 and "present, SHA-256 checked" in r.stdout, r)

        r = run("125M")
        check("bad size", r.returncode == 2 and "expected 124M, 355M, 774M or 1558M" in r.stderr, r)

        server.shutdown()
        server.server_close()
        out.unlink()
        r = run("124M", url=base)
        check("offline", r.returncode == 1 and "cannot reach" in r.stderr and "--load-state-dict" in r.stderr, r)
    sys.exit(1 if failed else 0)


main()
