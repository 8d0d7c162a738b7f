"""Writes tests/golden/show-pytorch.pt: tensors and how PyTorch prints them (repr).

llm::show must print each the same way; the lessons' printouts are in this format.
"""
import torch

from common import save_golden


def cases():
    torch.manual_seed(123)
    yield "small floats", torch.randn(2, 6) * 0.3
    yield "scalar", torch.tensor(0.1324)
    yield "ints as floats", torch.tensor([[1.0, 2.0, 0.0], [-3.0, 4.0, 5.0]])
    yield "tiny values (scientific)", torch.tensor([[-5.9605e-08], [1.9868e-08]])
    yield "large range (scientific)", torch.tensor([1.0, 2000.0, 0.5])
    yield "zeros", torch.zeros(2, 3)
    yield "minus inf mask", torch.triu(torch.ones(4, 4), diagonal=1).masked_fill(
        torch.triu(torch.ones(4, 4), diagonal=1).bool(), -torch.inf)
    yield "nan", torch.tensor([1.5, float("nan"), -2.25])
    yield "ids", torch.tensor([[40, 367, 2885, 1464], [1807, 3619, 402, 271]])
    yield "long row wraps", torch.arange(40) * 1000
    yield "long float row wraps", torch.linspace(-1, 1, 30)
    yield "3-D", torch.rand(2, 3, 4)
    yield "summarised", torch.rand(50, 40)
    yield "summarised 1-D", torch.arange(2000)
    yield "float64", torch.tensor([0.5, 0.25], dtype=torch.float64)
    yield "int32", torch.tensor([1, 2, 3], dtype=torch.int32)
    yield "bool", torch.tensor([True, False])
    yield "empty", torch.empty(0)
    yield "empty 2-D", torch.empty(2, 0)


def main():
    tensors = {}
    for i, (name, t) in enumerate(cases()):
        tensors[f"{i}/tensor"] = t
        tensors[f"{i}/repr"] = torch.tensor(list(repr(t).encode()), dtype=torch.uint8)
        tensors[f"{i}/name"] = torch.tensor(list(name.encode()), dtype=torch.uint8)
    save_golden("show-pytorch", tensors)


if __name__ == "__main__":
    main()
