"""Shared helpers of the PyTorch reference scripts (python3-torch 1.13.1)."""
import os
import pathlib

import torch

ROOT = pathlib.Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "golden"


def data_file(name):
    """A fetched data file, as the C++ side finds it ($LLM_DATA_DIR or data/)."""
    return pathlib.Path(os.environ.get("LLM_DATA_DIR") or ROOT / "data") / name


def save_golden(name, tensors):
    """Writes tests/golden/<name>.pt: a dict of tensors, loadable by torch::pickle_load."""
    GOLDEN.mkdir(parents=True, exist_ok=True)
    path = GOLDEN / f"{name}.pt"
    torch.save({k: v.detach().clone().contiguous() for k, v in tensors.items()}, path)
    print(f"wrote {path.relative_to(ROOT)} ({path.stat().st_size} bytes)")
