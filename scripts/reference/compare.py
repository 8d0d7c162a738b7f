#!/usr/bin/python3
"""Compares an archive written by a chapter executable's --save-outputs with PyTorch.

    /usr/bin/python3 scripts/reference/compare.py FILE [--step NAME] [--tol 1e-5]

The archive is a torch.save dict. This script recognises the step that wrote it by its
keys (or by --step), rebuilds the same computation in plain PyTorch from the saved
inputs and the same seed, prints the largest absolute difference of each output, and
exits 1 when one is above the tolerance.
"""
import argparse
import re
import sys

import torch

import attention
import ch02_simple_tokenizer as simple

STEPS = {}


def step(name, keys):
    def register(fn):
        STEPS[name] = (set(keys), fn)
        return fn
    return register


@step("ch02-01-simple-tokenizer", ["num_tokens", "vocab_size_v1", "vocab_size_v2", "ids_v1", "ids_v2"])
def simple_tokenizer(saved, seed):
    raw_text = simple.data_file("the-verdict.txt").read_text(encoding="utf-8")
    preprocessed = [item.strip() for item in re.split(simple.SPLIT, raw_text) if item.strip()]
    words = sorted(set(preprocessed))
    v1 = simple.SimpleTokenizerV1({t: i for i, t in enumerate(words)})
    v2 = simple.SimpleTokenizerV2({t: i for i, t in enumerate(words + ["<|endoftext|>", "<|unk|>"])})
    text_v1 = v1.decode(saved["ids_v1"].tolist())
    return {
        "num_tokens": torch.tensor(len(preprocessed)),
        "vocab_size_v1": torch.tensor(len(words)),
        "vocab_size_v2": torch.tensor(len(words) + 2),
        # V1 round trip: decoding the C++ ids and encoding again in Python.
        "ids_v1": torch.tensor(v1.encode(text_v1)),
        "ids_v2": torch.tensor(v2.encode(v2.decode(saved["ids_v2"].tolist()))),
    }


@step("ch02-04-data-sampling", ["inputs_0", "targets_0"])
def data_sampling(saved, seed):
    # Targets are the inputs shifted by one within each window; the token ids
    # themselves are checked against tiktoken by the BPE tests.
    out = {}
    for key in saved:
        if key.startswith("inputs_"):
            n = key.split("_")[1]
            out[f"targets_{n}"] = saved[f"targets_{n}"]
            out[key] = saved[key]
            assert torch.equal(saved[key][:, 1:], saved[f"targets_{n}"][:, :-1]), f"{key}: targets are not shifted"
    return out


@step("ch02-05-embeddings", ["small_weight", "small_ids", "inputs", "token_embeddings", "pos_embeddings",
                             "input_embeddings"])
def embeddings(saved, seed):
    torch.manual_seed(seed)
    small = torch.nn.Embedding(6, 3)
    vocab_size, output_dim = 50257, saved["token_embeddings"].shape[-1]
    max_length = saved["inputs"].shape[1]
    token_embedding = torch.nn.Embedding(vocab_size, output_dim)
    torch.empty((), dtype=torch.int64).random_()  # the DataLoader's base seed, drawn at iter()
    pos_embedding = torch.nn.Embedding(max_length, output_dim)
    with torch.no_grad():
        token_embeddings = token_embedding(saved["inputs"])
        pos_embeddings = pos_embedding(torch.arange(max_length))
        return {
            "small_weight": small.weight,
            "token_embeddings": token_embeddings,
            "pos_embeddings": pos_embeddings,
            "input_embeddings": token_embeddings + pos_embeddings,
        }


@step("ch03-01-simplified-attention", ["input", "scores", "weights", "context"])
def simplified_attention(saved, seed):
    # The lesson's sentence, or torch.rand drawn right after the seed.
    torch.manual_seed(seed)
    inputs = attention.attention_input(tuple(saved["input"].shape)).detach()
    scores, weights, context = attention.simplified_self_attention(inputs)
    return {"input": inputs, "scores": scores, "weights": weights, "context": context}


def attention_run(saved, seed):
    """Replays the executable's run in PyTorch: seed, build the same module, take the
    same input, forward in training mode, draw grad_output, backward. The initial
    weights, the input and grad_output must be equal; they are compared too."""
    kind = bytes(saved["kind"].tolist()).decode()
    run = attention.run_case(kind, attention.config_from(saved), tuple(saved["input"].shape), seed)
    return {k: v for k, v in run.items() if k in saved and k not in ("kind", "seed") and not k.startswith("config/")}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file")
    parser.add_argument("--step", choices=sorted(STEPS), help="the executable that wrote FILE (default: by its keys)")
    parser.add_argument("--seed", type=int, default=123,
                        help="the --seed the executable ran with, when the archive does not hold it")
    parser.add_argument("--tol", type=float, default=1e-5)
    args = parser.parse_args()

    try:
        saved = torch.load(args.file)
    except Exception as e:  # noqa: BLE001 - any unreadable file is reported the same way
        sys.exit(f"compare: {args.file}: not a torch.save archive ({e})")
    if not isinstance(saved, dict):
        sys.exit(f"compare: {args.file}: expected a dict of tensors, got {type(saved).__name__}")
    seed = int(saved["seed"]) if "seed" in saved else args.seed
    if args.step is None and "kind" in saved:  # an attention module's run (chapter 3)
        name, rebuild = bytes(saved["kind"].tolist()).decode(), attention_run
    else:
        keys = set(saved) - {"seed"}
        name = args.step or next((n for n, (k, _) in STEPS.items() if k == keys or
                                  (n == "ch02-04-data-sampling" and k <= keys)), None)
        if name is None:
            sys.exit(f"compare: {args.file}: no known step writes the keys {sorted(saved)}; pass --step")
        rebuild = STEPS[name][1]
    expected = rebuild(saved, seed)
    worst = 0.0
    print(f"{args.file}: {name}")
    for key, want in expected.items():
        got = saved[key]
        if got.shape != want.shape:
            print(f"  {key:<20} shape {tuple(got.shape)} != PyTorch's {tuple(want.shape)}  NOT OK")
            worst = float("inf")
            continue
        diff = (got.double() - want.double()).abs().max().item() if got.numel() else 0.0
        worst = max(worst, diff)
        print(f"  {key:<20} max |diff| {diff:.3g}  {'OK' if diff <= args.tol else 'NOT OK'}")
    sys.exit(0 if worst <= args.tol else 1)


if __name__ == "__main__":
    main()
