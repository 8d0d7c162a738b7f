#!/usr/bin/python3
"""Lesson 5.4's files load as the lesson writes them.

    lesson_weights.py CH04_06_EXE

Writes, from the lesson's GPTModel on configs/tiny.json after one AdamW step:
model_and_optimizer.pth ({"model_state_dict": ..., "optimizer_state_dict": ...}) and a
state dict without the causal-mask buffers. ch04-06-gpt-model loads each with
--load-state-dict and saves its weights with --save-state-dict; they must equal the
lesson's model's exactly, masks included.
"""
import json
import pathlib
import subprocess
import sys
import tempfile

import torch

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts" / "reference"))
from common import require_data  # noqa: E402
import gpt  # noqa: E402

exe = sys.argv[1]
data = require_data("gpt2/encoder.json", "gpt2/vocab.bpe")
cfg = json.loads((ROOT / "configs" / "tiny.json").read_text())
torch.manual_seed(5)
model = gpt.GPTModel(cfg)
optimizer = torch.optim.AdamW(model.parameters(), lr=0.0004, weight_decay=0.1)
model(torch.randint(0, cfg["vocab_size"], (2, 8))).sum().backward()
optimizer.step()
expected = model.state_dict()

with tempfile.TemporaryDirectory() as tmp:
    tmp = pathlib.Path(tmp)
    files = {
        "model_and_optimizer.pth": {"model_state_dict": expected, "optimizer_state_dict": optimizer.state_dict()},
        "without-masks.pth": {k: v for k, v in expected.items() if not k.endswith(".att.mask")},
    }
    failed = False
    for name, content in files.items():
        torch.save(content, tmp / name)
        out = tmp / f"{name}.loaded.pt"
        run = subprocess.run([exe, "--config", str(ROOT / "configs" / "tiny.json"), "--load-state-dict",
                              str(tmp / name), "--save-state-dict", str(out)], capture_output=True, text=True)
        if run.returncode != 0:
            print(f"{name}: exit {run.returncode}: {run.stderr.strip()}")
            failed = True
            continue
        loaded = torch.load(out)
        same = loaded.keys() == expected.keys() and all(torch.equal(loaded[k], expected[k]) for k in expected)
        print(f"{name}: {len(loaded)} entries, {'equal to the lesson model' if same else 'DIFFERENT'}")
        failed = failed or not same
sys.exit(1 if failed else 0)
