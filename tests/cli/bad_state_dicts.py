"""Writes state dicts that do not fit configs/micro.json's model, from the one that
does (tests/golden/micro-state-dict.pt): one key missing, one key too many, one
tensor of the wrong shape, one of the wrong dtype, and one that fits but holds a NaN.
Also two damaged checkpoints,
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
nan_weight = dict(good)
nan_weight["trf_blocks.0.att.W_query.weight"] = good["trf_blocks.0.att.W_query.weight"].clone()
nan_weight["trf_blocks.0.att.W_query.weight"][0, 0] = float("nan")
for name, state in [("missing-key", missing), ("extra-key", extra), ("mis-shaped", mis_shaped),
                    ("wrong-dtype", wrong_dtype), ("nan-weight", nan_weight)]:
    torch.save(state, out / f"{name}.pt")

checkpoint = (root / "tests" / "fuzz" / "corpus" / "checkpoint" / "seed-tiny").read_bytes()
(out / "truncated-checkpoint.pt").write_bytes(checkpoint[:len(checkpoint) // 2])
flipped = bytearray(checkpoint)
flipped[len(flipped) // 2] ^= 0x40
(out / "corrupt-checkpoint.pt").write_bytes(bytes(flipped))


# Hostile pickles: a million nested lists, a million nested dicts, a list that holds
# itself. Reading them must end in an error, not a stack overflow.
def pickle_archive(name, pickle):
    import zipfile
    with zipfile.ZipFile(out / name, "w") as z:
        z.writestr("archive/data.pkl", pickle)
        z.writestr("archive/version", "3\n")


N = 10**6
pickle_archive("nested-lists.pt", b"\x80\x02" + b"]" * N + b"a" * (N - 1) + b".")
pickle_archive("nested-dicts.pt", b"\x80\x02}" + b"X\x01\x00\x00\x00k}" * N + b"s" * N + b".")
pickle_archive("self-holding-list.pt", b"\x80\x02}q\x00X\x01\x00\x00\x00a]q\x01h\x01as.")
