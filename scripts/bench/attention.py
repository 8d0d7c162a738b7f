"""The PyTorch side of scripts/bench/attention.sh: the same modules (scripts/reference/
attention.py), sizes, threads and timing as bench/attention.cpp."""
import argparse
import json
import pathlib
import sys

import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "reference"))
from attention import GroupedQueryAttention, MultiAttentionStacking, MultiHeadAttention  # noqa: E402
from timing import best_seconds  # noqa: E402


def seconds_per_step(module, x, iters):
    def step():
        module.zero_grad(set_to_none=True)
        module(x).sum().backward()
    return best_seconds(iters, step)


def main():
    p = argparse.ArgumentParser()
    for name, default in [("batch_size", 8), ("tokens", 1024), ("width", 768), ("heads", 12), ("groups", 4), ("iters", 3),
                          ("threads", 0)]:
        p.add_argument(f"--{name.replace('_', '-')}", type=int, default=default)
    a = p.parse_args()
    if a.threads > 0:
        torch.set_num_threads(a.threads)
    torch.manual_seed(123)
    x = torch.rand(a.batch_size, a.tokens, a.width, requires_grad=True)
    variants = {
        "stacking": MultiAttentionStacking(a.width, a.width // a.heads, a.tokens, 0.0, a.heads),
        "splitting": MultiHeadAttention(a.width, a.width, a.tokens, 0.0, a.heads),
        "gqa": GroupedQueryAttention(a.width, a.width, 0.0, a.heads, a.groups),
    }
    for name, module in variants.items():
        print(json.dumps({"variant": name, "seconds": round(seconds_per_step(module, x, a.iters), 5),
                          "threads": torch.get_num_threads()}))


if __name__ == "__main__":
    main()
