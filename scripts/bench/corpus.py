"""scripts/bench/corpus.sh: token files at scale, this project next to nanoGPT's way in
Python, in one run.

  make DIR MB...          synthetic corpora: the public texts repeated to MB megabytes
  prepare-py IN OUT JOBS  nanoGPT's prepare: chunks encoded by a process pool with the
                          same GPT-2 BPE (scripts/reference/gpt2_bpe.py), appended to a
                          uint16 .bin file
  train-py BIN CONFIG N   nanoGPT's loop: np.memmap, random windows, the lesson's GPT
  run ROOT DIR MB...      all of it, measured, as a table
"""
import json
import multiprocessing
import os
import pathlib
import re
import subprocess
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "reference"))

HEADER = 1024  # a token file's header; its ids follow


# ---------------------------------------------------------------------------
# The corpora
def make(directory, sizes_mb, data):
    """One file per size: Moby Dick and The Verdict, repeated (synthetic repetition),
    cut at a line end once the size is reached."""
    texts = [(data / "moby-dick.txt").read_bytes(), (data / "the-verdict.txt").read_bytes()]
    unit = b"\n\n".join(texts) + b"\n\n"
    for mb in sizes_mb:
        path = directory / f"corpus-{mb}MB.txt"
        target = mb * 1_000_000
        if path.exists() and path.stat().st_size >= target - len(unit):
            continue
        with open(path, "wb") as f:
            written = 0
            while written + len(unit) <= target:
                f.write(unit)
                written += len(unit)
            rest = unit[: target - written]
            f.write(rest[: rest.rfind(b"\n") + 1])


# ---------------------------------------------------------------------------
# nanoGPT's way in Python
def graphic(c):
    return 0x20 < c < 0x7F


def chunks(path, size=1 << 20):
    """The text in pieces of about `size` bytes, each cut after a newline between two
    graphic characters, where GPT-2's pre-tokenizer splits anyway (as tools/prepare
    cuts)."""
    with open(path, "rb") as f:
        carry = b""
        while True:
            block = f.read(size)
            text = carry + block
            if not block:
                if text:
                    yield text.decode("utf-8")
                return
            cut = len(text) - 1
            while cut >= 2 and not (text[cut - 1] == 0x0A and graphic(text[cut - 2]) and graphic(text[cut])):
                cut -= 1
            if cut < 2:
                carry = text
                continue
            yield text[:cut].decode("utf-8")
            carry = text[cut:]


_encoder = None


def encode(text):
    import numpy as np
    global _encoder
    if _encoder is None:
        import gpt2_bpe
        _encoder = gpt2_bpe.Encoder()
    return np.array(_encoder.encode(text), dtype=np.uint16)


def prepare_py(source, out, jobs):
    start = time.perf_counter()
    tokens = 0
    with open(out, "wb") as f, multiprocessing.Pool(jobs) as pool:
        for ids in pool.imap(encode, chunks(source)):
            f.write(ids.tobytes())
            tokens += len(ids)
    seconds = time.perf_counter() - start
    print(json.dumps({"tokens": tokens, "seconds": seconds}))


def train_py(path, config, steps, batch):
    """nanoGPT's train.py loop on the lesson's GPTModel: get_batch draws random windows
    from an np.memmap made anew for each batch (as nanoGPT does), then AdamW steps."""
    import numpy as np
    import torch
    from gpt import GPTModel

    torch.set_num_threads(1)
    cfg = json.loads(pathlib.Path(config).read_text())
    block = cfg["context_length"]
    torch.manual_seed(123)
    model = GPTModel(cfg)
    optimizer = torch.optim.AdamW(model.parameters(), lr=4e-4, weight_decay=0.1)

    def get_batch():
        data = np.memmap(path, dtype=np.uint16, mode="r", offset=HEADER)
        ix = torch.randint(len(data) - block, (batch,))
        x = torch.stack([torch.from_numpy(data[i:i + block].astype(np.int64)) for i in ix])
        y = torch.stack([torch.from_numpy(data[i + 1:i + 1 + block].astype(np.int64)) for i in ix])
        return x, y

    data_seconds = step_seconds = 0.0
    for step in range(1, steps + 1):
        start = time.perf_counter()
        x, y = get_batch()
        loaded = time.perf_counter()
        logits = model(x)
        loss = torch.nn.functional.cross_entropy(logits.flatten(0, 1), y.flatten())
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        data_seconds += loaded - start
        step_seconds += time.perf_counter() - start
        if step == 1:
            print("step 1", flush=True)
    print(json.dumps({"data_share": data_seconds / step_seconds, "seconds_per_step": step_seconds / steps}),
          flush=True)


# ---------------------------------------------------------------------------
# Measuring
def tree_memory(pid):
    """(RSS, anonymous RSS) in bytes of `pid` and its descendants, from /proc."""
    children = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = pathlib.Path(f"/proc/{entry}/stat").read_text()
                children.setdefault(int(stat.rsplit(")", 1)[1].split()[1]), []).append(int(entry))
            except OSError:
                pass
    rss = anon = 0
    todo = [pid]
    while todo:
        p = todo.pop()
        todo += children.get(p, [])
        try:
            status = pathlib.Path(f"/proc/{p}/status").read_text()
        except OSError:
            continue
        fields = dict(re.findall(r"^(\w+):\s+(\d+) kB", status, re.M))
        rss += int(fields.get("VmRSS", 0)) * 1024
        anon += int(fields.get("RssAnon", 0)) * 1024
    return rss, anon


def measure(command, first_step=None, env=None):
    """Runs `command`; returns its output, seconds, the peak RSS and anonymous RSS of
    its process tree (sampled every 20 ms), and the seconds until `first_step` (a
    pattern) appeared in its output."""
    start = time.perf_counter()
    out_path = pathlib.Path(os.environ.get("TMPDIR", "/tmp")) / f"corpus-bench-{os.getpid()}.log"
    with open(out_path, "wb") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=env)
        peak = peak_anon = 0
        first = None
        while process.poll() is None:
            rss, anon = tree_memory(process.pid)
            peak, peak_anon = max(peak, rss), max(peak_anon, anon)
            if first_step and first is None and re.search(first_step, out_path.read_bytes().decode(errors="replace")):
                first = time.perf_counter() - start
            time.sleep(0.02)
    seconds = time.perf_counter() - start
    text = out_path.read_bytes().decode(errors="replace")
    out_path.unlink()
    if process.returncode != 0:
        sys.exit(f"{' '.join(map(str, command))} failed ({process.returncode}):\n{text[-2000:]}")
    if first_step and first is None and re.search(first_step, text):
        first = seconds
    return {"output": text, "seconds": seconds, "peak": peak, "peak_anon": peak_anon, "first_step": first}


def mb(n):
    return f"{n / 1e6:,.0f} MB"


def run(root, directory, sizes_mb, py_prepare_mb, steps):
    data = pathlib.Path(os.environ.get("LLM_DATA_DIR") or root / "data")
    bin_dir = root / "build" / "bin"
    make(directory, sizes_mb, data)
    python = "/usr/bin/python3"
    me = [python, str(HERE / "corpus.py")]
    config = root / "configs" / "small.json"
    rows = {"prepare": [], "train": []}

    for size in sizes_mb:
        text = directory / f"corpus-{size}MB.txt"
        tokens = directory / f"corpus-{size}MB.bin"
        for jobs in (1, 2):
            r = measure([bin_dir / "prepare", text, "-o", tokens, "-j", str(jobs), "--progress", "never"])
            rows["prepare"].append(("C++ tools/prepare", size, jobs, text.stat().st_size / r["seconds"], r["peak"],
                                    r["peak_anon"], r["seconds"]))
            print(f"prepare {size} MB, {jobs} threads: {r['seconds']:.1f} s, peak RSS {mb(r['peak'])}", flush=True)
        if size <= py_prepare_mb:
            for jobs in (1, 2):
                py_out = directory / f"corpus-{size}MB-py.bin"
                r = measure(me + ["prepare-py", text, py_out, str(jobs)])
                rows["prepare"].append(("Python, nanoGPT's way", size, jobs, text.stat().st_size / r["seconds"],
                                        r["peak"], r["peak_anon"], r["seconds"]))
                print(f"prepare-py {size} MB, {jobs} processes: {r['seconds']:.1f} s", flush=True)
            with open(tokens, "rb") as ours, open(py_out, "rb") as theirs:
                ours.seek(HEADER)
                same = ours.read() == theirs.read()
            print(f"the two token files of {size} MB hold {'the same' if same else 'OTHER'} ids", flush=True)
            if not same:
                sys.exit("the C++ and Python token files differ")
            py_out.unlink()
        r = measure([bin_dir / "ch05-02-train", "--config", config, "--data", tokens, "--sampling", "random",
                     "--max-steps", str(steps), "--batch-size", "8", "--eval-freq", "1000", "--eval-iter", "1",
                     "--out-dir=", "--no-plot", "--progress", "always", "--threads", "1"], first_step=r"step 1/")
        share = float(re.search(r"Data loading: ([0-9.]+)%", r["output"]).group(1)) / 100
        per_step = float(re.search(r"\(([0-9.]+) s of ([0-9.]+) s\)", r["output"]).group(2)) / steps
        rows["train"].append(("C++ ch05-02-train", size, r["peak"], r["peak_anon"], r["first_step"], share, per_step))
        r = measure(me + ["train-py", tokens, config, str(steps), "8"], first_step=r"step 1")
        result = json.loads(r["output"].strip().splitlines()[-1])
        rows["train"].append(("Python, nanoGPT's way", size, r["peak"], r["peak_anon"], r["first_step"],
                              result["data_share"], result["seconds_per_step"]))
        print(f"train {size} MB: done", flush=True)

    print()
    print("| prepare | corpus | threads | MB/s | peak RSS | of it anonymous | seconds |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, size, jobs, rate, peak, anon, seconds in rows["prepare"]:
        print(f"| {name} | {size} MB | {jobs} | {rate / 1e6:.1f} | {mb(peak)} | {mb(anon)} | {seconds:.1f} |")
    print()
    print(f"| training ({steps} steps) | corpus | peak RSS | of it anonymous | start to first step | "
          "data loading share | s/step |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, size, peak, anon, first, share, per_step in rows["train"]:
        print(f"| {name} | {size} MB | {mb(peak)} | {mb(anon)} | {first:.2f} s | {100 * share:.2f}% | "
              f"{per_step:.3f} |")


def main():
    command, args = sys.argv[1], sys.argv[2:]
    if command == "make":
        make(pathlib.Path(args[0]), [int(a) for a in args[1:]], pathlib.Path(os.environ.get("LLM_DATA_DIR")
                                                                             or HERE.parents[1] / "data"))
    elif command == "prepare-py":
        prepare_py(args[0], args[1], int(args[2]))
    elif command == "train-py":
        train_py(args[0], args[1], int(args[2]), int(args[3]))
    elif command == "run":
        run(pathlib.Path(args[0]), pathlib.Path(args[1]), [int(a) for a in args[4:]], int(args[2]), int(args[3]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
