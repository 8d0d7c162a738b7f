#!/usr/bin/python3
"""Writes hostile JSON inputs for the robustness tests, too large to keep in the
repository:

    hostile_json.py OUT_DIR

  deep-config.json          a model config whose emb_dim nests 10^6 lists deep
  long-string-config.json   a model config whose emb_dim is a 10 MB string
  deep-instructions.json    instruction data nesting 10^6 lists deep
  deep-shape.safetensors    a safetensors file whose tensor shape nests 10^6 deep
"""
import os
import struct
import sys

DEEP = 10**6


def nested(depth):
    return "[" * depth + "]" * depth


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    files = {
        "deep-config.json": f'{{"emb_dim": {nested(DEEP)}}}',
        "long-string-config.json": '{"emb_dim": "' + "x" * 10**7 + '"}',
        "deep-instructions.json": nested(DEEP),
    }
    for name, text in files.items():
        with open(os.path.join(out, name), "w") as f:
            f.write(text)
    header = f'{{"tok_emb.weight": {{"dtype": "F32", "shape": {nested(DEEP)}, "data_offsets": [0, 0]}}}}'.encode()
    with open(os.path.join(out, "deep-shape.safetensors"), "wb") as f:
        f.write(struct.pack("<Q", len(header)) + header)


if __name__ == "__main__":
    main()
