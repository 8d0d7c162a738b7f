"""Golden for the data loader: batches of PyTorch's DataLoader after torch.manual_seed.

The dataset is the lesson's GPTDatasetV1 over the token ids 0..199, so the golden
does not depend on a tokenizer. The C++ DataLoader must give the same batches and
leave the global generator in the same state (checked by a draw after each epoch).
"""
import torch
from torch.utils.data import DataLoader, Dataset, RandomSampler

from common import save_golden


class GPTDatasetV1(Dataset):
    """The lesson's dataset, on token ids instead of text."""

    def __init__(self, token_ids, max_length, stride):
        self.input_ids, self.target_ids = [], []
        for i in range(0, len(token_ids) - max_length, stride):
            self.input_ids.append(torch.tensor(token_ids[i:i + max_length]))
            self.target_ids.append(torch.tensor(token_ids[i + 1:i + max_length + 1]))

    def __len__(self):
        return len(self.input_ids)

    def __getitem__(self, idx):
        return self.input_ids[idx], self.target_ids[idx]


def main():
    out = {}
    ids = list(range(200))
    cases = {
        # name: (max_length, stride, batch_size, shuffle, drop_last, num_samples with replacement)
        "shuffle": (4, 1, 8, True, True, None),
        "shuffle_keep_last": (5, 3, 7, True, False, None),
        "ordered": (4, 4, 8, False, True, None),
        # Random windows (sampling "random"): RandomSampler's draws with replacement.
        "random": (4, 1, 8, True, True, 50),
        "random_keep_last": (5, 1, 6, True, False, 75),
    }
    for name, (max_length, stride, batch_size, shuffle, drop_last, num_samples) in cases.items():
        torch.manual_seed(123)
        dataset = GPTDatasetV1(ids, max_length, stride)
        if num_samples is None:
            loader = DataLoader(dataset, batch_size=batch_size, shuffle=shuffle, drop_last=drop_last, num_workers=0)
        else:
            loader = DataLoader(dataset, batch_size=batch_size, drop_last=drop_last, num_workers=0,
                                sampler=RandomSampler(dataset, replacement=True, num_samples=num_samples))
        for epoch in range(2):
            inputs, targets = zip(*loader)
            out[f"{name}/epoch{epoch}/inputs"] = torch.cat(inputs)
            out[f"{name}/epoch{epoch}/targets"] = torch.cat(targets)
            out[f"{name}/epoch{epoch}/batches"] = torch.tensor(len(inputs))
            out[f"{name}/epoch{epoch}/next_rand"] = torch.rand(3)
    save_golden("ch02-data-loader", out)


if __name__ == "__main__":
    main()
