"""Goldens for chapter 4: LayerNorm, GELU, FeedForward, TransformerBlock and small GPTs,
each after torch.manual_seed(123): input, output, grad_output and the gradients of
(output * grad_output).sum(); parameters as fingerprints (gpt.fingerprint), since the
C++ side rebuilds them from the seed. The 124M GPT: fingerprints of every parameter and
the ids of 10 greedy tokens after "Hello, I am"."""
import torch

from common import GOLDEN, save_golden
from gpt import FeedForward, GELU, GPTModel, LayerNorm, TransformerBlock, fingerprint, generate_text_simple


def record(module, x, seed):
    out = module(x)
    grad_output = torch.randn(out.shape)
    out.backward(grad_output)
    result = {"seed": torch.tensor(seed), "input": x.detach(), "output": out, "grad_output": grad_output}
    if x.requires_grad:
        result["grad/input"] = x.grad
    for name, tensor in module.state_dict().items():
        result[f"fingerprint/{name}"] = fingerprint(tensor)
    for name, p in module.named_parameters():
        result[f"grad/{name}"] = p.grad
    return result


def config_tensors(cfg):
    return {f"config/{k}": torch.tensor(cfg.get(k, 0)) for k in
            ["vocab_size", "context_length", "emb_dim", "n_heads", "n_layers", "drop_rate", "qkv_bias",
             "n_kv_groups"]} | {"config/gqa": torch.tensor(cfg.get("attention") == "gqa")}


def main():
    torch.manual_seed(123)
    save_golden("ch04-layer-norm", record(LayerNorm(16), torch.randn(2, 5, 16, requires_grad=True), 123))
    torch.manual_seed(123)
    save_golden("ch04-gelu", record(GELU(), torch.linspace(-3, 3, 100, requires_grad=True), 123))
    torch.manual_seed(123)
    save_golden("ch04-feed-forward", record(FeedForward({"emb_dim": 16}), torch.rand(2, 3, 16, requires_grad=True),
                                            123))
    block_cfg = dict(vocab_size=0, context_length=8, emb_dim=16, n_heads=4, n_layers=1, drop_rate=0.1,
                     qkv_bias=False)
    torch.manual_seed(123)
    block = TransformerBlock(block_cfg)
    save_golden("ch04-transformer-block", record(block, torch.rand(2, 6, 16, requires_grad=True), 123) |
                config_tensors(block_cfg))

    small = dict(vocab_size=512, context_length=16, emb_dim=64, n_heads=4, n_layers=2, drop_rate=0.0)
    for name, extra in {"mha": {}, "mha-bias": {"qkv_bias": True}, "gqa": {"attention": "gqa", "n_kv_groups": 2},
                        "gqa-bias": {"attention": "gqa", "n_kv_groups": 2, "qkv_bias": True},
                        "mha-dropout": {"drop_rate": 0.1}}.items():
        cfg = small | {"qkv_bias": False} | extra
        torch.manual_seed(123)
        model = GPTModel(cfg)
        ids = torch.randint(0, cfg["vocab_size"], (2, 16))
        save_golden(f"ch04-gpt-small-{name}", record(model, ids, 123) | config_tensors(cfg))

    # What torch.save writes for state dicts (an OrderedDict with _metadata) and for
    # views that share a storage, for the C++ archive reader.
    torch.manual_seed(123)
    torch.save(torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.LayerNorm(3)).state_dict(),
               GOLDEN / "io-state-dict.pt")
    w = torch.arange(12.0).reshape(3, 4)
    torch.save({"transposed": w.t(), "row": w[1], "ints": torch.arange(5), "half": torch.ones(2, dtype=torch.float16),
                "flags": torch.tensor([True, False]), "scalar": torch.tensor(2.5, dtype=torch.float64)},
               GOLDEN / "io-views.pt")

    # A PyTorch state dict of another shape, for the mis-shaped-key error.
    torch.manual_seed(123)
    micro = dict(vocab_size=100, context_length=8, emb_dim=16, n_heads=2, n_layers=1, drop_rate=0.0, qkv_bias=False)
    torch.save(GPTModel(micro).state_dict(), GOLDEN / "micro-state-dict.pt")

    cfg = dict(vocab_size=50257, context_length=1024, emb_dim=768, n_heads=12, n_layers=12, drop_rate=0.1,
               qkv_bias=False)
    torch.manual_seed(123)
    model = GPTModel(cfg)
    model.eval()
    prompt = torch.tensor([[15496, 11, 314, 716]])  # "Hello, I am"
    out = {f"fingerprint/{k}": fingerprint(v) for k, v in model.state_dict().items()}
    out["generated"] = generate_text_simple(model, prompt, max_new_tokens=10, context_size=cfg["context_length"])
    print("124M greedy:", out["generated"].tolist())
    save_golden("ch04-gpt-124m", out)


if __name__ == "__main__":
    main()
