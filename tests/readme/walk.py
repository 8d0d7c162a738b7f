#!/usr/bin/python3
"""The README, walked: every command it shows runs, in a scratch folder, and prints
what the README says it prints.

    walk.py list README            the ids of the commands it runs, one per line
    walk.py run README ID BIN      runs one of them (exit 0: it held, 1: it did not)
    walk.py check README BIN       every command the README shows is in WALK and every
                                   entry of WALK is in the README; the numbers a
                                   command's note quotes are among what it must print,
                                   or WALK says why not; the flags it names are in their
                                   executable's --help; the commands not run, and why

A command is a line of a ```sh block (with its continuation lines; a `# note` after it
is the README's comment) or an inline code span that starts with an executable (a
lesson step, a tool, build/bin/..., scripts/..., /usr/bin/python3, curl) and has an
argument. A bare name is a mention, not a command: the lesson steps with their defaults
are run by `ctest -L lessons` against docs/lesson-numbers.md.

Each command runs in its own folder under the build folder (readme-walk/ID), where the
repository's files are linked and runs/ and models/ are its own; the executables are
on PATH, as installed. WALK says, for each, what its placeholders stand for (FILE,
T, ...), which quick settings the run adds (the README's own runs take minutes to
hours: with them it checks that the command works, not the numbers of the full run),
what must exist first, and what it must print or write.
"""
import ctypes
import dataclasses
import os
import pathlib
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
import urllib.request

ROOT = pathlib.Path(__file__).resolve().parents[2]


@dataclasses.dataclass
class Walk:
    fill: dict = dataclasses.field(default_factory=dict)  # a placeholder word -> what it stands for
    quick: str = ""  # flags added after the command
    before: tuple = ()  # commands run first in the scratch folder
    code: int = 0  # its exit code
    prints: tuple = ()  # strings the output must hold
    writes: tuple = ()  # files the command must leave
    server: str = ""  # a serve command started first (its port replaces 8080)
    serves: bool = False  # the command is a server: it must start, answer and stop on Ctrl-C
    needs: tuple = ()  # data files (in the data folder) without which it cannot run
    flag: bool = False  # a flag named in prose: it must be in the executable's --help
    not_run: str = ""  # why it is not run
    unchecked: str = ""  # why the numbers its README note quotes are not checked


# What every command reads, directly or through the runs made before it.
COMMON_NEEDS = ("the-verdict.txt", "gpt2/encoder.json", "gpt2/vocab.bpe")
QUICK_RUN = "ch05-02-train --train-config configs/train-quick.json --max-steps 2 --no-plot --out-dir runs/{}"
# Sixteen short texts as chapter 6's CSV files, in spam/: the quick classifiers' data.
SPAM_TEXTS = (
    "/usr/bin/python3 -c 'import csv, os; os.makedirs(\"spam\"); "
    "rows = [(i % 2, (\"WIN a FREE prize now, call \" if i % 2 else \"See you at lunch, \") + str(i)) "
    "for i in range(16)]; "
    "[csv.writer(open(f\"spam/{n}.csv\", \"w\", newline=\"\")).writerows([(\"Label\", \"Text\"), *p]) "
    "for n, p in ((\"train\", rows), (\"validation\", rows[:8]), (\"test\", rows[8:]))]'")
CLASSIFY_QUICK = "--train-config configs/train-classify-quick.json --data spam --max-steps 1 --no-plot"
CLASSIFY_RUN = "ch06-04-finetune " + CLASSIFY_QUICK + " --out-dir runs/{}"
INSTRUCT_QUICK = "--train-config configs/train-instruct-quick.json --max-steps 1 --no-plot"
INSTRUCT_RUN = "ch07-03-finetune " + INSTRUCT_QUICK + " --out-dir runs/{}"
MOBY_RUN = "ch05-02-train --train-config configs/train-moby.json --max-steps 2 --no-plot"
MOBY_LOSSES = "the losses of the 20-minute run; walked with --max-steps"
TINY_WEIGHTS = "ch04-06-gpt-model --config configs/tiny.json --save-safetensors models/gpt2-124m/model.safetensors"
# Lesson 5.4's file, as the lesson writes it (torch.save of the model's and AdamW's
# state dicts), from the lesson's GPTModel on configs/tiny.json.
LESSON_5_4_FILE = (
    "/usr/bin/python3 -c 'import json, sys, torch; sys.path.insert(0, \"scripts/reference\"); import gpt; "
    "torch.manual_seed(123); m = gpt.GPTModel(json.load(open(\"configs/tiny.json\"))); "
    "o = torch.optim.AdamW(m.parameters(), lr=0.0004, weight_decay=0.1); "
    "torch.save({\"model_state_dict\": m.state_dict(), \"optimizer_state_dict\": o.state_dict()}, "
    "\"model_and_optimizer.pth\")'")
# Three test entries with a response, as ch07-04-responses writes them.
RESPONSES = (
    "/usr/bin/python3 -c 'import json; e = json.load(open(\"data/instruction-data.json\"))[-3:]; "
    "[x.update(model_response=x[\"output\"]) for x in e]; "
    "json.dump(e, open(\"instruction-data-with-response.json\", \"w\"), indent=4)'")
QUICK_SERVER = "serve --checkpoint runs/quick/checkpoint.pt"

WALK = {
    "scripts/run.sh": Walk(quick="--max-steps 36",
                           prints=("Checkpoint: runs/quick/checkpoint.pt", "runs/quick/metrics.jsonl",
                                   "runs/quick/losses.png"),
                           writes=("runs/quick/checkpoint.pt", "runs/quick/losses.png")),
    "scripts/test.sh": Walk(not_run="it is the suite this test belongs to"),
    "scripts/fetch-data.sh --retry": Walk(
        not_run="it reaches the data's sources on the network; cli:fetch-data:unreachable-not-retried runs it offline"),
    "scripts/run.sh --data moby-dick.txt --num-epochs 2": Walk(
        quick="--max-steps 10", needs=("moby-dick.txt",), prints=("Stopped at step 10",)),
    # The lesson steps' flags and the exercises.
    "ch06-04-finetune --train-config configs/train-classify-lora.json": Walk(
        before=(SPAM_TEXTS,), quick="--config configs/tiny.json --data spam --max-length 64 --max-steps 1 --no-plot",
        prints=("Total trainable LoRA parameters:",)),
    "ch07-03-finetune --save-state-dict": Walk(flag=True),
    'ch02-02-bpe-tokenizer --text "Akwirw ier"': Walk(prints=("Akwirw ier",)),
    "ch02-04-data-sampling --max-length 2 --stride 2": Walk(),
    "ch03-02-self-attention --exercise-3-1": Walk(),
    "ch03-04-multi-head-stacking --d-out 1": Walk(),
    "ch03-05-multi-head-attention --d-in 768 --d-out 768 --num-heads 12 --context-length 1024": Walk(),
    "ch04-06-gpt-model --config configs/gpt2-medium.json": Walk(prints=("406,212,608",)),
    "ch05-03-sampling --checkpoint runs/lesson/checkpoint.pt --temperature T --top-k K": Walk(
        fill={"T": "1.4", "K": "25"}, before=(QUICK_RUN.format("lesson"),)),
    "ch05-02-train --resume runs/lesson/checkpoint.pt --num-epochs 11": Walk(
        before=(QUICK_RUN.format("lesson"),), quick="--max-steps 4"),
    "ch05-02-train --load-state-dict model_and_optimizer.pth": Walk(
        before=(LESSON_5_4_FILE,), quick="--config configs/tiny.json --max-steps 2 --no-plot"),
    "ch05-01-loss --config configs/gpt2-124m.json --load-state-dict models/gpt2-124m/model.safetensors "
    "--max-length 256": Walk(
        # A small model's weights in the file's place: the 124M model's loss over the-verdict
        # is lesson 5.1's test (lessons:ch05-01-loss), and its real weights cannot be fetched.
        fill={"configs/gpt2-124m.json": "configs/tiny-256.json"},
        before=("ch04-06-gpt-model --config configs/tiny-256.json "
                "--save-safetensors models/gpt2-124m/model.safetensors",)),
    "scripts/download-gpt2.sh 1558M": Walk(not_run="it downloads 6 GB from OpenAI's servers"),
    "ch05-04-pretrained-gpt2 --size 1558M": Walk(not_run="it needs GPT-2 1558M's weights (6 GB)"),
    "ch06-02-loaders --max-length 1024": Walk(before=(SPAM_TEXTS,), quick="--data spam"),
    "ch06-04-finetune --max-length 1024": Walk(
        before=(SPAM_TEXTS, "/usr/bin/python3 -c 'import json; c = json.load(open(\"configs/tiny.json\")); "
                "c[\"context_length\"] = 1024; json.dump(c, open(\"tiny-1024.json\", \"w\"))'"),
        quick=CLASSIFY_QUICK + " --config tiny-1024.json --eval-iter 1"),
    "ch06-04-finetune --trainable all": Walk(before=(SPAM_TEXTS,), quick=CLASSIFY_QUICK),
    "ch06-04-finetune --class-token first": Walk(before=(SPAM_TEXTS,), quick=CLASSIFY_QUICK),
    "ch07-03-finetune --prompt-style phi3": Walk(quick=INSTRUCT_QUICK),
    "ch07-03-finetune --mask-instructions": Walk(quick=INSTRUCT_QUICK),
    "ch07-02-batching --mask-instructions": Walk(),
    "ch07-03-finetune --data FILE": Walk(fill={"FILE": "data/instruction-data.json"}, quick=INSTRUCT_QUICK),
    "ch07-03-finetune --lora-rank 16 --lora-alpha 16": Walk(quick=INSTRUCT_QUICK),
    # The explorer's recipe on Moby Dick (about 20 minutes as written; its losses are
    # those of the whole run, which no quick setting reproduces).
    "build/bin/ch05-02-train --train-config configs/train-moby.json": Walk(
        quick="--max-steps 2 --no-plot", needs=("moby-dick.txt",), writes=("runs/moby/checkpoint.pt",),
        unchecked=MOBY_LOSSES),
    "build/bin/ch05-02-train --resume runs/moby/checkpoint.pt --num-epochs 6": Walk(
        before=(MOBY_RUN,), quick="--max-steps 4", needs=("moby-dick.txt",), unchecked=MOBY_LOSSES),
    "build/bin/ch05-02-train --resume runs/moby/checkpoint.pt --num-epochs 10": Walk(
        before=(MOBY_RUN,), quick="--max-steps 4", needs=("moby-dick.txt",), unchecked=MOBY_LOSSES),
    'build/bin/ch03-07-attention-heads --checkpoint runs/moby/checkpoint.pt --prompt "I HAD always thought Jack '
    'Gisburn rather a cheap genius--though a good fellow enough. Poor Jack Gisburn!" --png runs/moby/heads.png '
    "--html runs/moby/heads.html": Walk(before=(MOBY_RUN,), needs=("moby-dick.txt",),
                                       writes=("runs/moby/heads.png", "runs/moby/heads.html")),
    # Pretraining's options.
    "build/bin/prepare TEXTS... -o corpus.bin [--val-fraction F]": Walk(
        fill={"TEXTS...": "data/the-verdict.txt", "[--val-fraction": "--val-fraction", "F]": "0.1"},
        writes=("corpus.bin",)),
    "ch05-02-train --data corpus.bin": Walk(
        before=("prepare data/the-verdict.txt -o corpus.bin --val-fraction 0.1",),
        quick="--config configs/tiny.json --max-steps 2 --no-plot"),
    "scripts/launch.sh -n 2 build/bin/ch05-02-train ...": Walk(
        fill={"...": "--train-config configs/train-quick.json --max-steps 2 --no-plot"}),
    "generate --checkpoint C --save-state-dict FILE": Walk(
        fill={"C": "runs/quick/checkpoint.pt", "FILE": "quick.pth"}, before=(QUICK_RUN.format("quick"),),
        writes=("quick.pth",)),
    # Chapters 6 and 7.
    "scripts/classify.sh": Walk(quick="--max-steps 2", prints=("Lesson 6.8",)),
    "scripts/download-gpt2.sh 124M": Walk(not_run="it downloads GPT-2 from OpenAI's servers"),
    "build/bin/ch06-04-finetune --load-state-dict models/gpt2-124m/model.safetensors": Walk(
        before=(SPAM_TEXTS, TINY_WEIGHTS), quick=CLASSIFY_QUICK + " --config configs/tiny.json"),
    "build/bin/ch06-04-finetune --train-config configs/train-classify-lora.json --load-state-dict "
    "models/gpt2-124m/model.safetensors": Walk(
        before=(SPAM_TEXTS, TINY_WEIGHTS),
        quick="--config configs/tiny.json --data spam --max-length 64 --max-steps 1 --no-plot",
        prints=("Total trainable LoRA parameters:",)),
    "scripts/instruct.sh": Walk(quick="--num-epochs 1", prints=("Lesson 7.7",)),
    "ch07-06-preference-data": Walk(prints=("Number of entries: 1100",)),
    "ch07-07-dpo": Walk(quick="--max-steps 1 --no-plot --response-tokens 8", prints=("random weights of --seed",)),
    "ch07-07-dpo --load-state-dict gpt2-medium355M-sft.pth": Walk(
        before=(INSTRUCT_RUN.format("sft") + " --save-state-dict gpt2-medium355M-sft.pth",),
        quick="--train-config configs/train-dpo-quick.json --config configs/tiny-256.json --max-steps 1 --no-plot "
              "--response-tokens 8"),
    # The server.
    "serve --checkpoint runs/quick/checkpoint.pt": Walk(before=(QUICK_RUN.format("quick"),), serves=True),
    "serve --checkpoint runs/instruct/checkpoint.pt": Walk(before=(INSTRUCT_RUN.format("instruct"),), serves=True),
    "serve --model-dir Qwen3-0.6B --weights-dtype bfloat16": Walk(
        not_run="it needs Qwen3 0.6B's Hugging Face folder (1.5 GB); cli:serve's tests serve small folders"),
    "curl http://127.0.0.1:8080/api/chat -d '{\"model\": \"quick\", \"messages\": [{\"role\": \"user\", \"content\": "
    "\"Every effort moves you\"}], \"options\": {\"num_predict\": 20}}'": Walk(
        before=(QUICK_RUN.format("quick"),), server=QUICK_SERVER, prints=('"done":true',)),
    "curl http://127.0.0.1:8080/v1/chat/completions -H 'Content-Type: application/json' -d '{\"model\": \"quick\", "
    "\"messages\": [{\"role\": \"user\", \"content\": \"Every effort moves you\"}], \"max_tokens\": 20, "
    "\"stream\": true}'": Walk(before=(QUICK_RUN.format("quick"),), server=QUICK_SERVER, prints=("data: [DONE]",)),
    "serve --checkpoint runs/classify/checkpoint.pt": Walk(before=(SPAM_TEXTS, CLASSIFY_RUN.format("classify")),
                                                           serves=True),
    "serve --load-state-dict review_classifier.pth --config configs/gpt2-124m.json --num-classes 2": Walk(
        fill={"configs/gpt2-124m.json": "configs/tiny.json"}, quick="--max-length 64", serves=True,
        before=(SPAM_TEXTS, CLASSIFY_RUN.format("classify") + " --save-state-dict review_classifier.pth")),
    # An untrained judge gives no score: the step asks the server about every entry,
    # then says that none got a score.
    "ch07-05-evaluate --host 127.0.0.1 --port 8080 --model NAME": Walk(
        fill={"8080": "PORT", "NAME": "instruct"}, before=(INSTRUCT_RUN.format("instruct"), RESPONSES),
        server="serve --checkpoint runs/instruct/checkpoint.pt", code=1,
        prints=("Number of scores: 0 of 3", "no entry of 'instruction-data-with-response.json' got a score")),
    "ch02-02-bpe-tokenizer --tokenizer qwen3 --chat qwen3 --text Hi": Walk(
        needs=("tokenizers/qwen3/tokenizer.json",)),
    # Checking against PyTorch.
    "/usr/bin/python3 scripts/reference/compare.py FILE": Walk(
        fill={"FILE": "emb.pt"}, before=("ch02-05-embeddings --save-outputs emb.pt",), prints=("OK",)),
    "build/bin/ch02-05-embeddings --save-outputs /tmp/emb.pt": Walk(fill={"/tmp/emb.pt": "emb.pt"},
                                                                     writes=("emb.pt",)),
    "/usr/bin/python3 scripts/reference/compare.py /tmp/emb.pt": Walk(
        fill={"/tmp/emb.pt": "emb.pt"}, before=("ch02-05-embeddings --save-outputs emb.pt",), prints=("OK",)),
    # Fuzzing and benchmarks.
    "scripts/fuzz.sh -t SECONDS": Walk(
        not_run="it builds a second, clang-sanitized build (build-fuzz/); ctest replays the fuzz corpus in "
                "every build"),
    "scripts/bench/quality.sh CHECKPOINT": Walk(fill={"CHECKPOINT": "runs/quick/checkpoint.pt"},
                                               before=(QUICK_RUN.format("quick"),)),
    "scripts/bench/kv_family.sh [THREADS] [NEW_TOKENS] [ROUNDS]": Walk(
        fill={"[THREADS]": "1", "[NEW_TOKENS]": "8", "[ROUNDS]": "1"}, quick="gqa"),
    "scripts/bench/generate.sh 2 200 configs/gpt2-medium.json": Walk(
        fill={"200": "8", "configs/gpt2-medium.json": "configs/small.json"}),
    "bench-train --profile [--by-shape]": Walk(fill={"[--by-shape]": "--by-shape"},
                                               quick="--config configs/tiny.json"),
    "bench-generate --profile": Walk(quick="--config configs/tiny.json --new-tokens 20"),
}

EXECUTABLE = re.compile(r"(build/bin/\S+|ch0\d-\d\d-[a-z0-9-]+|generate|prepare|serve|bench-[a-z-]+|"
                        r"scripts/\S+\.(sh|py)|/usr/bin/python3|curl)(\s|$)")


def readme_commands(text):
    """The README's commands in order, each as (line, command, the note after it in a code block)."""
    found = []
    lines = text.split("\n")
    prose = []  # the lines outside code blocks, blank inside them, so that spans keep their line numbers
    block = None
    i = 0
    while i < len(lines):
        line = lines[i]
        fence = line.strip().startswith("```")
        if fence:
            block = None if block is not None else line.strip()[3:]
            prose.append("")
        elif block == "sh":
            start = i
            command = line.strip()
            while command.endswith("\\") and i + 1 < len(lines):
                i += 1
                prose.append("")
                command = command[:-1].rstrip() + " " + lines[i].strip()
            note = re.search(r"\s+#\s(.*)$", command)
            command = command[:note.start()].strip() if note else command
            if command:
                found.append((start + 1, command, note.group(1) if note else ""))
            prose.append("")
        else:
            prose.append("" if block is not None else line)
        i += 1
    text = "\n".join(prose)
    for match in re.finditer(r"`([^`]+)`", text):
        span = " ".join(match.group(1).split())
        if EXECUTABLE.match(span) and " " in span:
            found.append((text.count("\n", 0, match.start()) + 1, span, ""))
    return sorted(found)


def ids(commands):
    """An id per command: its executable's name and which of that name's commands it is."""
    seen = {}
    out = []
    for _, command, _ in commands:
        name = pathlib.Path(shlex.split(command)[0]).name
        seen[name] = seen.get(name, 0) + 1
        out.append(f"{name}:{seen[name]}")
    return out


def fail(message):
    print(f"FAILED: {message}")
    sys.exit(1)


def scratch_folder(build, name):
    """A folder where the repository's files are linked and runs/ and models/ are its own,
    removed when the command holds."""
    folder = build / "readme-walk" / name.replace(":", "-")
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    for entry in ROOT.iterdir():
        if entry.name in (".git", "runs", "models", "build"):
            continue
        (folder / entry.name).symlink_to(entry)
    (folder / "build").symlink_to(build)
    (folder / "models").mkdir()
    if (ROOT / "models").is_dir():
        for entry in (ROOT / "models").iterdir():
            (folder / "models" / entry.name).symlink_to(entry)
    return folder


def words(command, walk):
    out = []
    for word in shlex.split(command):
        out += shlex.split(walk.fill[word]) if word in walk.fill else [word]
    return out + shlex.split(walk.quick)


def run_logged(argv, folder, env, timeout=600):
    print("$ " + shlex.join(argv), flush=True)
    try:
        done = subprocess.run(argv, cwd=folder, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        fail(f"{shlex.join(argv)} did not end within {timeout} s")
    print(done.stdout, flush=True)
    return done


def die_with_parent():
    ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


class Server:
    """A serve command on a free port of 127.0.0.1, stopped with Ctrl-C."""

    def __init__(self, command, folder, env):
        argv = shlex.split(command) + ["--port", "0"]
        print("$ " + shlex.join(argv), flush=True)
        self.log = folder / "serve.log"
        with open(self.log, "w") as log:  # the server dies with the walker (PR_SET_PDEATHSIG)
            self.process = subprocess.Popen(argv, cwd=folder, env=env, stdout=log, stderr=subprocess.STDOUT,
                                            preexec_fn=die_with_parent)
        self.port = None
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and self.port is None:
            found = re.search(r"^Serving on http://127\.0\.0\.1:(\d+)/", self.log.read_text(), re.M)
            if found:
                self.port = int(found.group(1))
            elif self.process.poll() is not None:
                fail(f"serve exited {self.process.returncode}: {self.log.read_text()}")
            else:
                time.sleep(0.1)
        if self.port is None:
            self.kill()
            fail(f"serve did not start within 120 s: {self.log.read_text()}")

    def kill(self):
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()

    def stop(self):
        self.process.send_signal(signal.SIGINT)
        try:
            code = self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.kill()
            fail("serve did not stop within 10 s of Ctrl-C")
        print(self.log.read_text(), flush=True)
        if code != 0:
            fail(f"serve exited {code} after Ctrl-C")


def walk_one(command, walk, name, bin_dir):
    data = pathlib.Path(os.environ.get("LLM_DATA_DIR") or bin_dir.parent / "share" / "libtorch-llm" / "data")
    missing = [need for need in COMMON_NEEDS + walk.needs if not (data / need).exists()]
    if missing:
        print(f"skipped: {data / missing[0]} is missing; run scripts/fetch-data.sh")
        sys.exit(77)
    folder = scratch_folder(bin_dir.parent, name)
    env = dict(os.environ, PATH=f"{bin_dir}:{os.environ['PATH']}")
    for before in walk.before:
        if run_logged(["bash", "-c", before], folder, env).returncode != 0:
            fail(f"could not make what the command needs: {before}")
    argv = words(command, walk)
    server = Server(walk.server, folder, env) if walk.server else None
    try:
        if walk.serves:
            served = Server(shlex.join(argv), folder, env)
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{served.port}/", timeout=30) as page:
                    page.read()
            except OSError as e:
                served.kill()
                fail(f"the chat page did not come: {e}")
            served.stop()
            output = served.log.read_text()
        else:
            if server:
                argv = [re.sub(r"^PORT$|(?<=127\.0\.0\.1:)8080", str(server.port), word) for word in argv]
            done = run_logged(argv, folder, env)
            if done.returncode != walk.code:
                fail(f"exit code {done.returncode}, expected {walk.code}")
            output = done.stdout
    finally:
        if server:
            server.stop()
    for text in walk.prints:
        if text not in output:
            fail(f"the output does not hold {text!r}")
    for path in walk.writes:
        if not (folder / path).is_file():
            fail(f"{path} was not written")
    print("held: " + command)
    shutil.rmtree(folder)  # a failed command's folder stays, to look at


def check(commands, bin_dir):
    shown = {command for _, command, _ in commands}
    problems = [f"README line {line}: `{command}` is not in tests/readme/walk.py's WALK"
                for line, command, _ in commands if command not in WALK]
    for line, command, note in commands:
        walk = WALK.get(command)
        quoted = re.findall(r"\d+(?:[.,]\d+)+", note)  # the values a note quotes: 5.968, 124,441,346
        if walk and not walk.unchecked and any(not any(q in p for p in walk.prints) for q in quoted):
            problems.append(f"README line {line}: the numbers of `# {note}` are neither in WALK's prints for "
                            "this command nor said to be unchecked")
    problems += [f"WALK's `{command}` is not in the README any more" for command in WALK if command not in shown]
    for command, walk in WALK.items():
        if walk.flag:
            exe, flag = shlex.split(command)[:2]
            help_text = subprocess.run([str(bin_dir / exe), "--help"], stdout=subprocess.PIPE, text=True).stdout
            if not re.search(rf"\s{re.escape(flag)}[\s=]", help_text):
                problems.append(f"`{command}`: {exe} --help does not list {flag}")
            else:
                print(f"{exe} --help lists {flag}")
        elif walk.not_run and command in shown:
            print(f"not run: {command}\n    ({walk.not_run})")
        if walk.unchecked and command in shown:
            print(f"numbers not checked: {command}\n    ({walk.unchecked})")
    for problem in problems:
        print("FAILED: " + problem)
    print(f"{len(commands)} commands in the README, {sum(1 for w in WALK.values() if w.not_run)} not run")
    return 1 if problems else 0


def main():
    arguments = {"list": 2, "check": 3, "run": 4}
    if len(sys.argv) < 2 or sys.argv[1] not in arguments or len(sys.argv) != arguments[sys.argv[1]] + 1:
        print("usage: walk.py list README | walk.py check README BIN | walk.py run README ID BIN", file=sys.stderr)
        sys.exit(2)
    mode, readme = sys.argv[1], pathlib.Path(sys.argv[2])
    commands = readme_commands(readme.read_text())
    runnable = [(name, command) for name, (_, command, _) in zip(ids(commands), commands)
                if command in WALK and not WALK[command].not_run and not WALK[command].flag]
    if mode == "list":
        print("\n".join(name for name, _ in runnable))
    elif mode == "check":
        sys.exit(check(commands, pathlib.Path(sys.argv[3])))
    elif mode == "run":
        name, bin_dir = sys.argv[3], pathlib.Path(sys.argv[4]).resolve()
        command = dict(runnable).get(name)
        if command is None:
            fail(f"no README command has the id {name} (walk.py list README)")
        walk_one(command, WALK[command], name, bin_dir)


if __name__ == "__main__":
    main()
