"""Hugging Face's GPT-2 layout and the safetensors format, written from their
definitions (no safetensors or transformers package), for the tests.

hf_layout(model) gives the lesson GPTModel's weights under GPT2LMHeadModel's names:
Conv1D weights stored [in, out], query|key|value side by side in c_attn.
safetensors_bytes(tensors) is the file: a u64 little-endian header size, the JSON
header (dtype, shape, data_offsets per tensor), padded to 8 bytes, then the data."""
import json
import struct

import torch

DTYPES = {torch.float64: "F64", torch.float32: "F32", torch.float16: "F16", torch.bfloat16: "BF16",
          torch.int64: "I64", torch.int32: "I32", torch.uint8: "U8", torch.bool: "BOOL"}


def hf_layout(model):
    out = {"wte.weight": model.tok_emb.weight, "wpe.weight": model.pos_emb.weight}
    for i, b in enumerate(model.trf_blocks):
        att, h = b.att, f"h.{i}."
        out |= {h + "ln_1.weight": b.norm1.scale, h + "ln_1.bias": b.norm1.shift,
                h + "attn.c_attn.weight": torch.cat([att.W_query.weight.T, att.W_key.weight.T, att.W_value.weight.T], 1),
                h + "attn.c_attn.bias": torch.cat([att.W_query.bias, att.W_key.bias, att.W_value.bias]),
                h + "attn.c_proj.weight": att.out_proj.weight.T, h + "attn.c_proj.bias": att.out_proj.bias,
                h + "ln_2.weight": b.norm2.scale, h + "ln_2.bias": b.norm2.shift,
                h + "mlp.c_fc.weight": b.ff.layers[0].weight.T, h + "mlp.c_fc.bias": b.ff.layers[0].bias,
                h + "mlp.c_proj.weight": b.ff.layers[2].weight.T, h + "mlp.c_proj.bias": b.ff.layers[2].bias}
    out |= {"ln_f.weight": model.final_norm.scale, "ln_f.bias": model.final_norm.shift}
    return {k: v.detach().clone() for k, v in out.items()}


def safetensors_bytes(tensors, metadata=None):
    header, blobs, offset = {}, [], 0
    if metadata:
        header["__metadata__"] = metadata
    for name, t in tensors.items():
        t = t.detach().contiguous()
        raw = t.reshape(-1).view(torch.uint8).numpy().tobytes() if t.numel() else b""
        header[name] = {"dtype": DTYPES[t.dtype], "shape": list(t.shape), "data_offsets": [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text + b"".join(blobs)


def read_safetensors(data):
    """(tensors, metadata) of a file's bytes."""
    n = struct.unpack("<Q", data[:8])[0]
    header = json.loads(data[8:8 + n])
    metadata = header.pop("__metadata__", {})
    types = {v: k for k, v in DTYPES.items()}
    out = {}
    for name, info in header.items():
        begin, end = info["data_offsets"]
        raw = bytearray(data[8 + n + begin:8 + n + end])
        dtype = types[info["dtype"]]
        out[name] = torch.frombuffer(raw, dtype=dtype).reshape(info["shape"]) if raw else torch.empty(info["shape"], dtype=dtype)
    return out, metadata
