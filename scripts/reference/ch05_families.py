"""Goldens for Llama 3.2, Qwen3 (dense and MoE) and Gemma 3 at tiny sizes
(configs/tiny-*.json), built by the course's own classes (llms.py) after
torch.manual_seed(123): the parameters as drawn (fingerprints, gpt.fingerprint), the
logits of two rows of ids, the gradients of (logits * grad_output).sum(), and 8 greedy
tokens after the first row's first 5 ids (the course's generate_text_simple loop).
Written to tests/golden/ch05-<config>.pt."""
import json

import torch

from common import ROOT, save_golden
from gpt import fingerprint
from llms import Gemma3Model, Llama3Model, Qwen3Model

MODELS = {"llama3": Llama3Model, "qwen3": Qwen3Model, "gemma3": Gemma3Model}


def course_config(path):
    """The JSON config as the course's dict: the dtype as a torch dtype, no family key."""
    cfg = json.loads(path.read_text())
    family = cfg.pop("family")
    cfg["dtype"] = {"float32": torch.float32, "bfloat16": torch.bfloat16}[cfg["dtype"]]
    return family, cfg


def greedy(model, ids, max_new_tokens):
    for _ in range(max_new_tokens):
        with torch.no_grad():
            logits = model(ids)[:, -1, :]
        ids = torch.cat((ids, torch.argmax(logits, dim=-1, keepdim=True)), dim=1)
    return ids


def record(name):
    family, cfg = course_config(ROOT / "configs" / f"{name}.json")
    torch.manual_seed(123)
    model = MODELS[family](cfg)
    result = {f"fingerprint/{k}": fingerprint(v) for k, v in model.state_dict().items()}
    ids = torch.randint(0, cfg["vocab_size"], (2, 12))
    logits = model(ids)
    grad_output = torch.randn(logits.shape)
    logits.backward(grad_output)
    result |= {"ids": ids, "logits": logits, "grad_output": grad_output,
               "parameters": torch.tensor(sum(p.numel() for p in model.parameters()))}
    result |= {f"grad/{k}": p.grad for k, p in model.named_parameters() if p.grad is not None}
    model.eval()
    result["greedy"] = greedy(model, ids[:1, :5], 8)
    save_golden(f"ch05-{name}", result)


def main():
    for name in ["tiny-llama32", "tiny-qwen3", "tiny-qwen3-moe", "tiny-gemma3"]:
        record(name)


if __name__ == "__main__":
    main()
