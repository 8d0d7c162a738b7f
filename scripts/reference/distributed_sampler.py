"""Golden for llm::DistributedSampler: torch.utils.data.DistributedSampler's indices."""
import torch
from torch.utils.data import DistributedSampler

from common import save_golden

CASES = [  # (size, replicas, shuffle, seed, drop_last)
    (10, 3, True, 123, False), (10, 3, True, 123, True), (10, 3, False, 0, False), (7, 2, True, 5, False),
    (2, 5, True, 0, False), (9, 4, False, 0, True), (16, 1, True, 42, False),
]


def main():
    out = {}
    for case, (size, replicas, shuffle, seed, drop_last) in enumerate(CASES):
        out[f"{case}/params"] = torch.tensor([size, replicas, int(shuffle), seed, int(drop_last)])
        for rank in range(replicas):
            sampler = DistributedSampler(range(size), num_replicas=replicas, rank=rank, shuffle=shuffle, seed=seed,
                                         drop_last=drop_last)
            for epoch in range(2):
                sampler.set_epoch(epoch)
                out[f"{case}/{rank}/{epoch}"] = torch.tensor(list(sampler), dtype=torch.long)
    save_golden("distributed-sampler", out)


if __name__ == "__main__":
    main()
