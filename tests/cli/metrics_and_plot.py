#!/usr/bin/python3
"""What ch05-02-train writes beside its checkpoint holds the run, not just a file name.

    metrics_and_plot.py CH05_02_EXE

Trains the tiny model for 7 steps, evaluating every 2, then checks:
  - metrics.jsonl has one JSON line per evaluation, with the step, epoch and losses
    that the run printed (`Ep 1 (Step 000002): Train loss ..., Val loss ...`) and the
    checkpoint's history holds, tokens_seen growing by the batch's tokens per step;
  - losses.png is a PNG of the plot's size (600 x 360: 5 x 3 inches at 120 dpi) whose pixels are
    not all one colour.
"""
import json
import pathlib
import re
import struct
import subprocess
import sys
import tempfile
import zlib

import torch

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts" / "reference"))
from common import require_data  # noqa: E402
exe = sys.argv[1]
data = require_data("the-verdict.txt", "gpt2/encoder.json", "gpt2/vocab.bpe")
try:
    import matplotlib  # noqa: F401
except ImportError:
    print("skipped: python3-matplotlib is missing")
    sys.exit(77)

failed = []
with tempfile.TemporaryDirectory() as tmp:
    out = pathlib.Path(tmp)
    run = subprocess.run([exe, "--config", str(ROOT / "configs" / "tiny.json"), "--max-steps", "7", "--eval-freq", "2",
                          "--out-dir", str(out)], capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"ch05-02-train exit {run.returncode}: {run.stderr.strip()}")
    printed = [tuple(map(float, m)) for m in re.findall(r"^Ep (\d+) \(Step (\d+)\): Train loss ([\d.]+), Val loss ([\d.]+)$",
                                                        run.stdout, re.M)]
    rows = [json.loads(line) for line in (out / "metrics.jsonl").read_text().splitlines()]
    history = torch.load(out / "checkpoint.pt")
    print(f"{len(printed)} evaluations printed, {len(rows)} metrics lines")
    if [int(p[1]) for p in printed] != [0, 2, 4, 6] or len(rows) != len(printed):
        failed.append("the evaluations printed and written differ from steps 0, 2, 4, 6")
    for p, r in zip(printed, rows):
        if (r["epoch"], r["step"]) != (int(p[0]), int(p[1])) or round(r["train_loss"], 3) != p[2] or \
                round(r["val_loss"], 3) != p[3]:
            failed.append(f"metrics line {r} is not the printed {p}")
    if [r["val_loss"] for r in rows] != history["history/val_loss"].tolist():
        failed.append("metrics.jsonl's losses are not the checkpoint's history")
    tokens = [r["tokens_seen"] for r in rows]
    if tokens != [(r["step"] + 1) * 2 * 64 for r in rows]:  # batch 2 x context 64 per step
        failed.append(f"tokens_seen {tokens} does not grow by 128 per step")

    png = (out / "losses.png").read_bytes()
    if png[:8] != b"\x89PNG\r\n\x1a\n":
        failed.append("losses.png is not a PNG")
    else:
        width, height = struct.unpack(">II", png[16:24])
        chunks, pos = [], 8
        while pos < len(png):
            length, kind = struct.unpack(">I4s", png[pos:pos + 8])
            chunks.append((kind, png[pos + 8:pos + 8 + length]))
            pos += 12 + length
        pixels = zlib.decompress(b"".join(body for kind, body in chunks if kind == b"IDAT"))
        distinct = len(set(pixels))
        print(f"losses.png: {width} x {height}, {distinct} distinct byte values in its pixels")
        if (width, height) != (600, 360) or distinct < 16:
            failed.append("losses.png has the wrong size or no drawing")
for f in failed:
    print("FAILED:", f)
sys.exit(1 if failed else 0)
