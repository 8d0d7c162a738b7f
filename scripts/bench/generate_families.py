"""The PyTorch side of scripts/bench/generate_families.sh: greedy KV-cache generation
with the course's KV-cache Llama 3.2 or Qwen3 (scripts/reference/llms_kv_cache.py,
pkg/llms_from_scratch/kv_cache) on the seeded random model of a config, in its dtype.
One JSON line: tokens/s, the ids and the peak resident memory."""
import argparse
import json
import pathlib
import resource
import sys
import time

import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "reference"))
from ch05_families import MODELS, course_config  # noqa: E402
from llms_kv_cache import cached, generate_text_simple  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", required=True)
    parser.add_argument("--dtype", choices=["float32", "bfloat16"], required=True)
    parser.add_argument("--new-tokens", type=int, default=20)
    parser.add_argument("--threads", type=int, default=0)
    args = parser.parse_args()
    if args.threads > 0:
        torch.set_num_threads(args.threads)
    family, cfg = course_config(pathlib.Path(args.config))
    cfg["dtype"] = {"float32": torch.float32, "bfloat16": torch.bfloat16}[args.dtype]
    torch.manual_seed(123)
    model = cached(MODELS[family](cfg))
    prompt = torch.tensor([[15496, 11, 314, 716]])
    generate_text_simple(model, prompt, 2)  # warm-up
    start = time.perf_counter()
    out = generate_text_simple(model, prompt, args.new_tokens)
    seconds = time.perf_counter() - start
    print(json.dumps({"tokens_per_second": args.new_tokens / seconds, "ids": out[0].tolist(),
                      "peak_rss_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
                      "threads": torch.get_num_threads()}))


if __name__ == "__main__":
    main()
