"""Writes state dicts that do not fit configs/micro.json's model, from the one that
does (tests/golden/micro-state-dict.pt): one key missing, one key too many, one
tensor of the wrong shape, and one of the wrong dtype. Also two damaged checkpoints,
from the tiny one of the fuzz corpus: cut in half, and with one byte flipped.

    bad_state_dicts.py OUT_DIR
"""
import pathlib
import sys

import torch

root = pathlib.Path(__file__).resolve().parents[2]
out = pathlib.Path(sys.argv[1])
out.mkdir(parents=True, exist_ok=True)
good = torch.load(root / "tests" / "golden" / "micro-state-dict.pt")

missing = dict(good)
del missing["final_norm.shift"]
extra = dict(good, **{"trf_blocks.1.norm1.scale": torch.ones(16)})
mis_shaped = dict(good, **{"pos_emb.weight": torch.zeros(9, 16)})
wrong_dtype = dict(good, **{"out_head.weight": torch.zeros(100, 16, dtype=torch.long)})
for name, state in [("missing-key", missing), ("extra-key", extra), ("mis-shaped", mis_shaped),
                    ("wrong-dtype", wrong_dtype)]:
    torch.save(state, out / f"{name}.pt")

checkpoint = (root / "tests" / "fuzz" / "corpus" / "checkpoint" / "seed-tiny").read_bytes()
(out / "truncated-checkpoint.pt").write_bytes(checkpoint[:len(checkpoint) // 2])
flipped = bytearray(checkpoint)
flipped[len(flipped) // 2] ^= 0x40
(out / "corrupt-checkpoint.pt").write_bytes(bytes(flipped))
