"""The PyTorch side of scripts/bench/generate.sh: greedy generation with the
reference GPT (scripts/reference/gpt.py), uncached and with a KV cache written the way
the course's KV-cache bonus writes it (each layer's keys and values concatenated step
by step, the mask offset by the cached length). One JSON line per variant."""
import argparse
import json
import pathlib
import sys
import time

import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "reference"))
from gpt import GPTModel  # noqa: E402


def forward_cached(model, idx, cache):
    """Logits of idx's tokens after those whose keys and values `cache` (one [k, v] or
    None per layer) holds; appends theirs."""
    b, t = idx.shape
    past = 0 if cache[0] is None else cache[0][0].shape[2]
    x = model.drop_emb(model.tok_emb(idx) + model.pos_emb(torch.arange(past, past + t)))
    for i, block in enumerate(model.trf_blocks):
        att = block.att
        h, hd = att.num_heads, att.head_dim
        normed = block.norm1(x)
        q = att.W_query(normed).view(b, t, h, hd).transpose(1, 2)
        k = att.W_key(normed).view(b, t, h, hd).transpose(1, 2)
        v = att.W_value(normed).view(b, t, h, hd).transpose(1, 2)
        if cache[i] is not None:
            k, v = torch.cat([cache[i][0], k], 2), torch.cat([cache[i][1], v], 2)
        cache[i] = (k, v)
        scores = q @ k.transpose(2, 3)
        scores.masked_fill_(att.mask.bool()[past:past + t, :past + t], -torch.inf)
        weights = att.dropout(torch.softmax(scores / hd ** 0.5, dim=-1))
        context = (weights @ v).transpose(1, 2).contiguous().view(b, t, h * hd)
        x = x + block.drop_shortcut(att.out_proj(context))
        x = x + block.drop_shortcut(block.ff(block.norm2(x)))
    return model.out_head(model.final_norm(x))


def generate(model, idx, new_tokens, ctx, cached):
    cache = [None] * len(model.trf_blocks)
    with torch.no_grad():
        for _ in range(new_tokens):
            n = idx.shape[1]
            if not cached:
                logits = model(idx[:, -ctx:])
            elif n > ctx:
                cache = [None] * len(model.trf_blocks)
                logits = forward_cached(model, idx[:, -ctx:], cache)
            else:
                past = 0 if cache[0] is None else cache[0][0].shape[2]
                logits = forward_cached(model, idx[:, past:], cache)
            idx = torch.cat([idx, logits[:, -1].argmax(-1, keepdim=True)], 1)
    return idx


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default=str(pathlib.Path(__file__).resolve().parents[2] / "configs/gpt2-small.json"))
    parser.add_argument("--new-tokens", type=int, default=200)
    parser.add_argument("--threads", type=int, default=0)
    parser.add_argument("--dtype", default="float32", choices=["float32", "bfloat16"])
    parser.add_argument("--cached-only", action="store_true")
    args = parser.parse_args()
    if args.threads > 0:
        torch.set_num_threads(args.threads)
    cfg = json.loads(pathlib.Path(args.config).read_text())
    torch.manual_seed(123)
    model = GPTModel(cfg)
    model.to(getattr(torch, args.dtype))
    model.eval()
    prompt = torch.tensor([[15496, 11, 314, 716]])
    generate(model, prompt, 5, cfg["context_length"], False)  # warm-up
    for cached in (True,) if args.cached_only else (False, True):
        start = time.perf_counter()
        out = generate(model, prompt, args.new_tokens, cfg["context_length"], cached)
        seconds = time.perf_counter() - start
        print(json.dumps({"variant": "kv-cache" if cached else "uncached", "tokens_per_second": args.new_tokens / seconds,
                          "ids": out[0].tolist(), "threads": torch.get_num_threads()}))


if __name__ == "__main__":
    main()
