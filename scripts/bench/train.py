"""The PyTorch side of scripts/bench/train.sh: the reference model's training step
(forward, cross-entropy, backward, AdamW step) on random batches, best of N, and the
float32 matmul peak. The model is the course's class of the config's family: the
chapter-4 GPT, or Llama3Model, Qwen3Model and Gemma3Model (llms.py) in the config's
dtype, as the ch05/14 notebooks train them. One JSON line, as bench/train.cpp prints it,
with the process's peak resident memory."""
import argparse
import json
import pathlib
import resource
import sys

import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "reference"))
from gpt import GPTModel  # noqa: E402
from llms import Gemma3Model, Llama3Model, Qwen3Model  # noqa: E402
from timing import best_seconds  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config")
    parser.add_argument("--batch-size", type=int, default=2)
    parser.add_argument("--context", type=int, default=0)
    parser.add_argument("--iters", type=int, default=3)
    parser.add_argument("--threads", type=int, default=0)
    parser.add_argument("--matmul", type=int, default=0)
    parser.add_argument("--device", default="cpu")
    args = parser.parse_args()
    device = torch.device(args.device)
    sync = torch.cuda.synchronize if device.type == "cuda" else (lambda: None)
    if args.threads > 0:
        torch.set_num_threads(args.threads)
    if args.matmul:
        n = args.matmul
        a, b = torch.randn(n, n, device=device), torch.randn(n, n, device=device)
        s = best_seconds(args.iters, lambda: (torch.mm(a, b), sync()))
        print(json.dumps({"matmul": n, "gflops": 2 * n ** 3 / s / 1e9, "threads": torch.get_num_threads()}))
        return
    cfg = json.loads(pathlib.Path(args.config).read_text())
    if args.context:
        cfg["context_length"] = args.context
    family = cfg.pop("family", "gpt2")
    if family != "gpt2":
        cfg["dtype"] = getattr(torch, cfg["dtype"])
    torch.manual_seed(123)
    model = {"gpt2": GPTModel, "llama3": Llama3Model, "qwen3": Qwen3Model, "gemma3": Gemma3Model}[family](cfg).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=5e-4, weight_decay=0.1)
    b, t = args.batch_size, cfg["context_length"]
    inputs, targets = torch.randint(0, cfg["vocab_size"], (b, t)), torch.randint(0, cfg["vocab_size"], (b, t))
    inputs, targets = inputs.to(device), targets.to(device)

    def step():
        optimizer.zero_grad()
        logits = model(inputs)
        torch.nn.functional.cross_entropy(logits.flatten(0, 1), targets.flatten()).backward()
        optimizer.step()
        sync()

    s = best_seconds(args.iters, step)
    print(json.dumps({"tokens_per_second": b * t / s, "seconds_per_step": s,
                      "parameters": sum(p.numel() for p in model.parameters()),
                      "embedding_parameters": sum(p.numel() for n, p in model.named_parameters()
                                                  if n in ("tok_emb.weight", "pos_emb.weight")),
                      "threads": torch.get_num_threads(),
                      "peak_rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}))


if __name__ == "__main__":
    main()
