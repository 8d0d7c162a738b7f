#!/usr/bin/python3
"""Weights move both ways between the C++ GPTModel and PyTorch's, by state_dict.

    /usr/bin/python3 scripts/reference/state_dict_roundtrip.py build/bin/ch04-06-gpt-model configs/tiny.json

C++ -> PyTorch: the executable writes its state_dict; PyTorch loads it with
strict=True and must give the executable's logits. PyTorch -> C++: PyTorch writes
torch.save(model.state_dict()); the executable loads it and must give PyTorch's
logits, within the forward tolerance (common.TOLERANCES), in eval mode. Exits 1
otherwise.
"""
import json
import pathlib
import subprocess
import sys
import tempfile

import torch

from common import closeness, require_data
from gpt import GPTModel


def run(exe, *args):
    subprocess.run([exe, *args], check=True, stdout=subprocess.DEVNULL)


def main():
    exe, config_path = sys.argv[1], sys.argv[2]
    require_data("gpt2/encoder.json", "gpt2/vocab.bpe")  # the executable tokenizes its example batch
    cfg = {"qkv_bias": False} | json.loads(pathlib.Path(config_path).read_text())
    all_ok = True
    with tempfile.TemporaryDirectory() as d:
        d = pathlib.Path(d)
        # C++ -> file -> PyTorch
        run(exe, "--config", config_path, "--seed", "11", "--eval", "--save-state-dict", str(d / "cpp.pt"),
            "--save-outputs", str(d / "cpp-out.pt"))
        model = GPTModel(cfg)
        model.load_state_dict(torch.load(d / "cpp.pt"), strict=True)
        model.eval()
        saved = torch.load(d / "cpp-out.pt")
        with torch.no_grad():
            ok, diff, _, _ = closeness(saved["logits"], model(saved["inputs"]), "forward")
        print(f"C++ -> PyTorch (strict load): logits max |diff| {diff:.3g}")
        all_ok = all_ok and ok

        # PyTorch -> file -> C++
        torch.manual_seed(12)
        model = GPTModel(cfg)
        model.eval()
        torch.save(model.state_dict(), d / "py.pt")
        run(exe, "--config", config_path, "--eval", "--load-state-dict", str(d / "py.pt"),
            "--save-outputs", str(d / "py-out.pt"))
        saved = torch.load(d / "py-out.pt")
        with torch.no_grad():
            ok, diff, _, _ = closeness(saved["logits"], model(saved["inputs"]), "forward")
        print(f"PyTorch -> C++: logits max |diff| {diff:.3g}")
        all_ok = all_ok and ok
    print("OK" if all_ok else "NOT OK")
    sys.exit(0 if all_ok else 1)


if __name__ == "__main__":
    main()
