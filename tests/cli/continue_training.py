#!/usr/bin/python3
"""Lesson 5.4: a run continues from model_and_optimizer.pth as the lesson continues it.

    continue_training.py CH05_02_EXE

Writes lesson 5.4's file from the lesson's GPTModel (configs/tiny.json) after three
AdamW steps. ch05-02-train then trains four steps from it (--load-state-dict), and
PyTorch trains the same steps with the lesson's loop after model.load_state_dict and
optimizer.load_state_dict. The evaluation losses must agree. The same is done with
the weights alone (AdamW starting fresh), and those losses must differ from the first
ones: the optimizer's state is seen to count.
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
import ch05_train  # noqa: E402
import gpt  # noqa: E402
import gpt2_bpe  # noqa: E402

exe = sys.argv[1]
data = require_data("the-verdict.txt", "gpt2/encoder.json", "gpt2/vocab.bpe")

cfg = json.loads((ROOT / "configs" / "tiny.json").read_text())
run = json.loads((ROOT / "configs" / "train-lesson.json").read_text())
run.update(max_steps=4, eval_freq=1, eval_iter=1)
run = {k: v for k, v in run.items() if k in ch05_train.RUN_DEFAULTS}
train_ids, val_ids = ch05_train.split_ids((data / "the-verdict.txt").read_text(encoding="utf-8"), ch05_train.RUN_DEFAULTS | run,
                                          gpt2_bpe.Encoder().encode)

torch.manual_seed(5)
model = gpt.GPTModel(cfg)
optimizer = torch.optim.AdamW(model.parameters(), lr=0.0004, weight_decay=0.1)
for _ in range(3):
    optimizer.zero_grad()
    model(torch.randint(0, cfg["vocab_size"], (2, 8))).sum().backward()
    optimizer.step()
files = {"model_and_optimizer.pth": {"model_state_dict": model.state_dict(), "optimizer_state_dict": optimizer.state_dict()},
         "model.pth": {"model_state_dict": model.state_dict()}}

losses, failed = {}, False
with tempfile.TemporaryDirectory() as tmp:
    tmp = pathlib.Path(tmp)
    for name, content in files.items():
        torch.save(content, tmp / name)
        archive = tmp / f"{name}.outputs.pt"
        command = [exe, "--train-config", str(ROOT / "configs" / "train-lesson.json"), "--config",
                   str(ROOT / "configs" / "tiny.json"), "--data", str(data / "the-verdict.txt"), "--max-steps", "4",
                   "--eval-freq", "1", "--eval-iter", "1", "--out-dir", str(tmp / f"{name}.run"), "--no-plot",
                   "--load-state-dict", str(tmp / name), "--save-outputs", str(archive)]
        result = subprocess.run(command, capture_output=True, text=True)
        if result.returncode != 0:
            print(f"{name}: exit {result.returncode}: {result.stderr.strip()}")
            failed = True
            continue
        print(next(line for line in result.stdout.splitlines() if line.startswith("Starting from:")))
        saved = torch.load(archive)
        ours = torch.stack([saved["history/train_loss"], saved["history/val_loss"]])
        history = ch05_train.train(cfg, run, train_ids, val_ids, start=content)
        lesson = torch.tensor([history["train_loss"], history["val_loss"]], dtype=torch.float64)
        same = ours.shape == lesson.shape and torch.allclose(ours, lesson, atol=1e-5, rtol=1e-5)
        print(f"{name}: losses {ours.tolist()}\n  lesson loop: {lesson.tolist()}: {'equal' if same else 'DIFFERENT'}")
        failed = failed or not same
        losses[name] = ours
if not failed:
    apart = (losses["model_and_optimizer.pth"] - losses["model.pth"]).abs().max().item()
    print(f"largest difference between continuing with and without AdamW's state: {apart:.6f}")
    failed = apart < 1e-4
sys.exit(1 if failed else 0)
