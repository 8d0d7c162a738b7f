"""The chat page of build/bin/serve in Debian's headless Chromium, driven through the
DevTools protocol over a pipe (--remote-debugging-pipe: no port, standard library
only): a prompt sent streams into the page token by token, tokens/s show, Stop ends
an answer (and the server's work on it), and the second turn's request carries the
first turn. For tests/cli/chat_page.sh.

    chat_page.py BROWSER PORT PROFILE_DIR [classify]

With "classify", the server holds a classifier: its page classifies a typed text.
"""
import json
import os
import select
import subprocess
import sys
import time
import urllib.request

browser, port, profile = sys.argv[1], int(sys.argv[2]), sys.argv[3]
classifier = sys.argv[4:] == ["classify"]


def fail(message):
    print(f"FAILED: {message}")
    sys.exit(1)


class DevTools:
    """Chromium with its DevTools protocol on fds 3 (commands) and 4 (replies)."""

    def __init__(self):
        to_browser, self.commands = os.pipe()
        self.replies, from_browser = os.pipe()

        def pipes():
            os.dup2(to_browser, 3)
            os.dup2(from_browser, 4)

        self.process = subprocess.Popen(
            [browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--remote-debugging-pipe",
             f"--user-data-dir={profile}", "--window-size=1000,800", "about:blank"],
            pass_fds=(3, 4), preexec_fn=pipes, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_browser)
        os.close(from_browser)
        self.next_id = 0
        self.buffer = b""

    def call(self, method, params=None, session=None, timeout=30):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self.commands, json.dumps(message).encode() + b"\0")
        deadline = time.time() + timeout
        while time.time() < deadline:
            while b"\0" in self.buffer:
                raw, self.buffer = self.buffer.split(b"\0", 1)
                reply = json.loads(raw)
                if reply.get("id") == self.next_id:
                    if "error" in reply:
                        raise RuntimeError(f"{method}: {reply['error']}")
                    return reply["result"]
            ready, _, _ = select.select([self.replies], [], [], max(0.0, deadline - time.time()))
            if ready:
                chunk = os.read(self.replies, 1 << 16)
                if not chunk:
                    fail("chromium closed its DevTools pipe")
                self.buffer += chunk
        fail(f"no reply to {method} within {timeout} s")

    def close(self):
        self.process.kill()
        self.process.wait(10)


tools = DevTools()
try:
    target = tools.call("Target.createTarget", {"url": f"http://127.0.0.1:{port}/"})["targetId"]
    session = tools.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]

    def js(expression, timeout=60):
        result = tools.call("Runtime.evaluate", {"expression": expression, "awaitPromise": True, "returnByValue": True},
                            session, timeout)
        if "exceptionDetails" in result:
            fail(f"the page's script failed: {result['exceptionDetails']}")
        return result["result"].get("value")

    # The page's own requests, recorded as they leave (the page is not changed otherwise).
    # Loaded: the page asked the server about its model (a navigation under way may refuse an evaluation).
    loaded = "classes:" if classifier else "chat format"
    deadline = time.time() + 30
    while True:
        try:
            if js("document.readyState === 'complete' && (document.getElementById('model') || {textContent: ''}).textContent"
                  ".includes('" + loaded + "')"):
                break
        except RuntimeError:
            pass
        if time.time() > deadline:
            fail("the page did not load within 30 s")
        time.sleep(0.1)
    if classifier:
        shown = js("""new Promise((done) => {
          document.getElementById('text').value = 'WIN a FREE prize now';
          document.getElementById('classify').click();
          const wait = () => document.getElementById('label').textContent
            ? done({label: document.getElementById('label').textContent,
                    rows: [...document.querySelectorAll('.class span')].map((e) => e.textContent)})
            : setTimeout(wait, 20);
          wait();
        })""")
        if shown["label"] not in ("spam", "not spam") or len(shown["rows"]) != 2:
            fail(f"the classifier's page shows {shown}")
        print(f"classifier page: {shown}")
        sys.exit(0)
    js("""window.sent = []; const pageFetch = window.fetch;
       window.fetch = (url, options) => { if (options && options.body) window.sent.push(JSON.parse(options.body)); return pageFetch(url, options); };
       true""")

    # A turn: type, press Enter, sample the answer's text every 20 ms until Send is back.
    turn = """(prompt, tokens) => new Promise((done) => {
      document.getElementById('max_tokens').value = tokens;
      const box = document.getElementById('prompt');
      box.value = prompt;
      box.dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter', bubbles: true}));
      const lengths = [];
      const sample = () => {
        const turns = document.querySelectorAll('.turn.assistant');
        const last = turns[turns.length - 1];
        lengths.push(last ? last.textContent.length : -1);
        if (!document.getElementById('send').disabled && lengths.length > 1) {
          done({lengths, text: last.textContent, speed: document.getElementById('speed').textContent});
        } else {
          setTimeout(sample, 20);
        }
      };
      setTimeout(sample, 20);
    })"""
    first = js(f"({turn})('Every effort moves you', 60)")
    growing = sorted(set(n for n in first["lengths"] if n > 0))
    if len(growing) < 3:
        fail(f"the answer did not stream in: its lengths were {first['lengths']}")
    if "tokens/s" not in first["speed"]:
        fail(f"no tokens/s shown: {first['speed']!r}")
    print(f"first turn: {len(first['text'])} characters in {len(growing)} steps; {first['speed']}")

    # Stop: a long answer, stopped once it has begun.
    stopped = js("""new Promise((done) => {
      document.getElementById('max_tokens').value = 2000;
      const box = document.getElementById('prompt');
      box.value = 'Tell me more';
      box.dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter', bubbles: true}));
      const wait = () => {
        const turns = document.querySelectorAll('.turn.assistant');
        const last = turns[turns.length - 1];
        if (last && last.textContent.length > 10) {
          document.getElementById('stop').click();
          const after = () => document.getElementById('send').disabled ? setTimeout(after, 20)
                                                                         : done(last.textContent);
          after();
        } else {
          setTimeout(wait, 20);
        }
      };
      wait();
    })""")
    if not stopped.endswith("[stopped]"):
        fail(f"Stop did not end the answer: {stopped[-80:]!r}")
    # The server ends it too: idle again long before the context (1,024 tokens) could fill.
    deadline = time.time() + 10
    while True:
        info = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/api/info", timeout=10))
        if not info["busy"]:
            break
        if time.time() > deadline:
            fail(f"the server still works on the stopped answer: {info}")
        time.sleep(0.1)
    if info["tokens_generated"] > 60 + 900:
        fail(f"the stopped answer ran on: {info}")

    # The third request carries the two turns before it.
    third = js(f"({turn})('And then?', 5)")
    sent = js("window.sent")
    if len(sent) != 3:
        fail(f"{len(sent)} requests sent, expected 3")
    roles = [m["role"] for m in sent[2]["messages"]]
    if roles != ["user", "assistant", "user", "assistant", "user"]:
        fail(f"the third request's turns: {roles}")
    if sent[2]["messages"][0]["content"] != "Every effort moves you" or sent[2]["messages"][1]["content"] != first["text"]:
        fail(f"the third request does not carry the first turn: {sent[2]['messages'][:2]}")
    if not sent[2]["stream"] or sent[2]["options"]["num_predict"] != 5:
        fail(f"the page's options did not go with the request: {sent[2]}")
    print(f"third turn: {third['text']!r}")
    print("chat page: OK")
finally:
    tools.close()
