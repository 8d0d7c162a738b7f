"""The PyTorch side of scripts/bench/dpo.sh: one step of the DPO notebook's code
(compute_dpo_loss_batch, backward, AdamW step) on the first batch of
instruction-data-with-preference.json, the policy and the reference both the course's
GPTModel of the config given. One JSON line, as bench/dpo.cpp prints it, with the
process's peak resident memory."""
import argparse
import json
import pathlib
import resource
import sys

import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "reference"))
import ch07_dpo  # noqa: E402
import gpt2_bpe  # noqa: E402
from common import data_file  # noqa: E402
from gpt import GPTModel  # noqa: E402
from timing import best_seconds  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config")
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--iters", type=int, default=3)
    parser.add_argument("--threads", type=int, default=0)
    args = parser.parse_args()
    if args.threads > 0:
        torch.set_num_threads(args.threads)
    cfg = json.loads(pathlib.Path(args.config).read_text())
    torch.manual_seed(123)
    policy = GPTModel(cfg)
    torch.manual_seed(123)
    reference = GPTModel(cfg)
    reference.eval()
    policy.train()
    data = json.loads(data_file("instruction-data-with-preference.json").read_text(encoding="utf-8"))
    dataset = ch07_dpo.PreferenceDataset(data[:args.batch_size], gpt2_bpe.Encoder())
    batch = ch07_dpo.custom_collate_fn([dataset[i] for i in range(args.batch_size)], allowed_max_length=1024)
    optimizer = torch.optim.AdamW(policy.parameters(), lr=5e-6, weight_decay=0.01)

    def step():
        optimizer.zero_grad()
        loss, _, _ = ch07_dpo.compute_dpo_loss_batch(batch, policy, reference, beta=0.1)
        loss.backward()
        optimizer.step()

    s = best_seconds(args.iters, step)
    print(json.dumps({"seconds_per_step": s, "tokens": 2 * batch["chosen"].numel(),
                      "threads": torch.get_num_threads(),
                      "peak_rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}))


if __name__ == "__main__":
    main()
