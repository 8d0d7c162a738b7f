"""Chapter 5 in plain PyTorch: the lesson's loss helpers and training loop
(train_model_simple), with the same optional warmup, cosine decay, gradient clipping,
gradient accumulation and max_steps as the C++ trainer, off by default.

    /usr/bin/python3 scripts/reference/ch05_train.py [--model CONFIG] [--num-epochs N] ...

runs a training on the-verdict and prints the lesson's lines; with no arguments but
--goldens it writes tests/golden/ch05-train-*.pt for the C++ tests."""
import argparse
import json
import math

import numpy as np
import torch
from torch.utils.data import DataLoader, RandomSampler

from ch02_data_loader import GPTDatasetV1
from common import ROOT, data_file, save_golden
from gpt import GPTModel, generate_text_simple
import gpt2_bpe

RUN_DEFAULTS = dict(seed=123, train_ratio=0.9, batch_size=2, stride=0, num_epochs=10, lr=4e-4, weight_decay=0.1,
                    eval_freq=5, eval_iter=5, start_context="Every effort moves you", max_new_tokens=50,
                    warmup_steps=0, initial_lr=0.0, lr_schedule="constant", min_lr=0.0, grad_clip=0.0, clip_during_warmup=False, grad_accum=1,
                    max_steps=0, sampling="sliding")


def calc_loss_batch(input_batch, target_batch, model):
    logits = model(input_batch)
    return torch.nn.functional.cross_entropy(logits.flatten(0, 1), target_batch.flatten())


def calc_loss_loader(data_loader, model, num_batches=None):
    total_loss = 0.
    if len(data_loader) == 0:
        return float("nan")
    num_batches = len(data_loader) if num_batches is None else min(num_batches, len(data_loader))
    for i, (input_batch, target_batch) in enumerate(data_loader):
        if i < num_batches:
            total_loss += calc_loss_batch(input_batch, target_batch, model).item()
        else:
            break
    return total_loss / num_batches


def evaluate_model(model, train_loader, val_loader, eval_iter):
    model.eval()
    with torch.no_grad():
        train_loss = calc_loss_loader(train_loader, model, num_batches=eval_iter)
        val_loss = calc_loss_loader(val_loader, model, num_batches=eval_iter)
    model.train()
    return train_loss, val_loss


def learning_rate(run, step, total_steps):
    """Appendix D's schedule: linear warmup, then constant or cosine decay."""
    if step < run["warmup_steps"]:
        return run["initial_lr"] + step * (run["lr"] - run["initial_lr"]) / run["warmup_steps"]
    if run["lr_schedule"] != "cosine" or total_steps <= run["warmup_steps"]:
        return run["lr"]
    progress = min(1.0, (step - run["warmup_steps"]) / (total_steps - run["warmup_steps"]))
    return run["min_lr"] + (run["lr"] - run["min_lr"]) * 0.5 * (1 + math.cos(math.pi * progress))


def split_ids(text, run, encode):
    split_idx = int(run["train_ratio"] * len(text))
    return encode(text[:split_idx]), encode(text[split_idx:])


TOKEN_FILE_MAGIC = b"libtorch-llm tokens\n"


def read_token_file(path):
    """The ids of a token file (tools/prepare), read as nanoGPT reads its train.bin:
    np.memmap, here past the file's 1024-byte header."""
    with open(path, "rb") as f:
        head = f.read(1024)
    header = json.loads(head[len(TOKEN_FILE_MAGIC):].decode())
    dtype = np.uint16 if header["token_bytes"] == 2 else np.uint32
    return np.memmap(path, dtype=dtype, mode="r", offset=1024, shape=(header["tokens"],))


def is_token_file(path):
    with open(path, "rb") as f:
        return f.read(len(TOKEN_FILE_MAGIC)) == TOKEN_FILE_MAGIC


def run_ids(run, path, val_path, encode):
    """A run's training and validation ids: from token files, split by train_ratio of
    the tokens unless val_data names the validation file, or from text, as lesson 5.2
    splits it unless val_data names a validation text."""
    if is_token_file(path):
        ids = read_token_file(path).astype(np.int64).tolist()
        if val_path:
            return ids, read_token_file(val_path).astype(np.int64).tolist()
        split = int(run["train_ratio"] * len(ids))
        return ids[:split], ids[split:]
    text = path.read_text(encoding="utf-8")
    if val_path:
        return encode(text), encode(val_path.read_text(encoding="utf-8"))
    return split_ids(text, run, encode)


def loaders(cfg, run, train_ids, val_ids):
    """Lesson 5.1's loaders: shuffled training windows without a short last batch, and
    the validation windows in order. With sampling "random" (nanoGPT's way, beyond the
    lesson), a window starts at every token, and PyTorch's RandomSampler draws each
    epoch's windows with replacement: as many as the text makes without overlap, and
    as many again for each evaluation."""
    ctx = cfg["context_length"]
    if run["sampling"] == "random":
        train_set, val_set = GPTDatasetV1(train_ids, ctx, 1), GPTDatasetV1(val_ids, ctx, 1)
        draws = lambda ids: (len(ids) - ctx - 1) // ctx + 1
        train_loader = DataLoader(train_set, batch_size=run["batch_size"], drop_last=True, num_workers=0,
                                  sampler=RandomSampler(train_set, replacement=True, num_samples=draws(train_ids)))
        val_loader = DataLoader(val_set, batch_size=run["batch_size"], drop_last=False, num_workers=0,
                                sampler=RandomSampler(val_set, replacement=True, num_samples=draws(val_ids)))
        return train_loader, val_loader
    stride = run["stride"] or ctx
    train_loader = DataLoader(GPTDatasetV1(train_ids, ctx, stride), batch_size=run["batch_size"], shuffle=True,
                              drop_last=True, num_workers=0)
    val_loader = DataLoader(GPTDatasetV1(val_ids, ctx, stride), batch_size=run["batch_size"], shuffle=False,
                            drop_last=False, num_workers=0)
    return train_loader, val_loader


def train(cfg, run, train_ids, val_ids, on_eval=None, on_sample=None, start=None):
    """Returns the history: one row per evaluation, as the C++ checkpoint's history/.
    `start`, lesson 5.4's {"model_state_dict": ..., "optimizer_state_dict": ...}, is
    loaded as the lesson loads it, after the model and AdamW are built."""
    run = RUN_DEFAULTS | run
    torch.manual_seed(run["seed"])
    model = GPTModel(cfg)
    optimizer = torch.optim.AdamW(model.parameters(), lr=run["lr"], weight_decay=run["weight_decay"])
    if start is not None:
        model.load_state_dict(start["model_state_dict"], strict=False)  # with or without the masks
        if "optimizer_state_dict" in start:
            optimizer.load_state_dict(start["optimizer_state_dict"])
    train_loader, val_loader = loaders(cfg, run, train_ids, val_ids)
    accum = run["grad_accum"]
    total_steps = -(-len(train_loader) // accum) * run["num_epochs"]
    history = {k: [] for k in ["step", "epoch", "epochs_seen", "tokens_seen", "train_loss", "val_loss", "lr"]}
    tokens_seen, step = 0, 0
    for epoch in range(run["num_epochs"]):
        model.train()
        batches = iter(train_loader)
        used = 0
        while used < len(train_loader):
            if run["max_steps"] and step >= run["max_steps"]:
                return history
            lr = learning_rate(run, step, total_steps)
            for group in optimizer.param_groups:
                group["lr"] = lr
            optimizer.zero_grad()
            taken = 0
            while taken < accum and used < len(train_loader):
                input_batch, target_batch = next(batches)
                loss = calc_loss_batch(input_batch, target_batch, model)
                (loss / accum if accum > 1 else loss).backward()
                tokens_seen += input_batch.numel()
                taken += 1
                used += 1
            # Appendix D clips once warmup is over (global_step >= warmup_steps).
            if run["grad_clip"] > 0 and (run["clip_during_warmup"] or step >= run["warmup_steps"]):
                torch.nn.utils.clip_grad_norm_(model.parameters(), run["grad_clip"])
            optimizer.step()
            step += 1
            if (step - 1) % run["eval_freq"] == 0:
                train_loss, val_loss = evaluate_model(model, train_loader, val_loader, run["eval_iter"])
                row = dict(step=step - 1, epoch=epoch + 1, epochs_seen=epoch + used / len(train_loader),
                           tokens_seen=tokens_seen, train_loss=train_loss, val_loss=val_loss, lr=lr)
                for k, v in row.items():
                    history[k].append(v)
                if on_eval:
                    on_eval(row)
            if run["max_steps"] and step >= run["max_steps"]:
                return history
        if on_sample:
            model.eval()
            on_sample(model)
            model.train()
    return history


def history_tensors(history):
    return {f"history/{k}": torch.tensor(v, dtype=torch.float64 if isinstance(v[0], float) else torch.int64)
            for k, v in history.items()}


def print_line(row):
    print(f"Ep {row['epoch']} (Step {row['step']:06d}): Train loss {row['train_loss']:.3f}, "
          f"Val loss {row['val_loss']:.3f}", flush=True)


GOLDEN_RUNS = {
    # The lesson's algorithm on the tiny model.
    "lesson": dict(num_epochs=2),
    # Every option at once: warmup, cosine decay, clipping, accumulation, overlap.
    "options": dict(num_epochs=1, eval_freq=3, warmup_steps=4, initial_lr=1e-5, lr_schedule="cosine", min_lr=1e-4,
                    lr=2e-3, grad_clip=0.1, grad_accum=3, stride=48),
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--goldens", action="store_true", help="write tests/golden/ch05-train-*.pt")
    parser.add_argument("--model", default="gpt2-small-256.json", help="model config in configs/")
    for key, value in RUN_DEFAULTS.items():
        if isinstance(value, bool):
            parser.add_argument("--" + key.replace("_", "-"), action="store_true")
        else:
            parser.add_argument("--" + key.replace("_", "-"), type=type(value), default=value)
    args = parser.parse_args()
    encoder = gpt2_bpe.Encoder()
    text = data_file("the-verdict.txt").read_text(encoding="utf-8")
    if args.goldens:
        cfg = json.loads((ROOT / "configs" / "tiny.json").read_text())
        for name, run in GOLDEN_RUNS.items():
            train_ids, val_ids = split_ids(text, RUN_DEFAULTS | run, encoder.encode)
            history = train(cfg, run, train_ids, val_ids)
            config = {"config/train": torch.tensor(list(json.dumps(run).encode()), dtype=torch.uint8)}
            save_golden(f"ch05-train-{name}", history_tensors(history) | config)
        return
    cfg = json.loads((ROOT / "configs" / args.model).read_text())
    run = {k: getattr(args, k) for k in RUN_DEFAULTS}
    train_ids, val_ids = split_ids(text, run, encoder.encode)
    reverse = {v: k for k, v in encoder.encoder.items()}
    byte_decoder = {v: k for k, v in gpt2_bpe.bytes_to_unicode().items()}

    def sample(model):
        idx = torch.tensor([encoder.encode(run["start_context"])])
        out = generate_text_simple(model, idx, run["max_new_tokens"], cfg["context_length"])
        text = bytes(byte_decoder[c] for i in out[0].tolist() for c in reverse[i]).decode("utf-8", errors="replace")
        print(text.replace("\n", " "), flush=True)

    train(cfg, run, train_ids, val_ids, on_eval=print_line, on_sample=sample)


if __name__ == "__main__":
    main()
