"""Goldens for the building blocks of Llama 3.2, Qwen3 and Gemma 3 (scripts/reference/
llms.py, the course's code): each block after torch.manual_seed(123), its input, output,
grad_output and the gradients of (output * grad_output).sum(), and its parameters as
drawn (they are small). Norm weights that start at ones or zeros are drawn again from
the seeded generator (randn, in registration order), so that the test sees them act.
Written to tests/golden/ch05-blocks.pt, every key prefixed with its block's name."""
import torch

from common import save_golden
from llms import (GeGLUFeedForward, Gemma3RMSNorm, GroupedQueryAttention, LlamaGroupedQueryAttention, LlamaRMSNorm,
                  MoEFeedForward, Qwen3RMSNorm, SwiGLUFeedForward, apply_rope, compute_rope_params, gemma3_masks)

LLAMA32_ROPE_FREQ = {"factor": 32.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0, "original_context_length": 8192}


def randomize_norms(module):
    with torch.no_grad():
        for m in module.modules():
            if isinstance(m, (LlamaRMSNorm, Qwen3RMSNorm, Gemma3RMSNorm)):
                for p in m.parameters():
                    p.copy_(torch.randn(p.shape))


def record(prefix, module, x, *args):
    out = module(x, *args)
    grad_output = torch.randn(out.shape)
    out.backward(grad_output)
    result = {"input": x.detach(), "output": out, "grad_output": grad_output, "grad/input": x.grad}
    for name, p in module.named_parameters():
        result[f"param/{name}"] = p.detach().clone()
        result[f"grad/{name}"] = p.grad.clone()
    return {f"{prefix}/{k}": v for k, v in result.items()}


def main():
    golden = {}
    for name, norm in {"llama": lambda: LlamaRMSNorm(16, eps=1e-5), "qwen3": lambda: Qwen3RMSNorm(16),
                       "gemma3": lambda: Gemma3RMSNorm(16)}.items():
        torch.manual_seed(123)
        module = norm()
        randomize_norms(module)
        golden |= record(f"rms_norm/{name}", module, torch.randn(2, 5, 16, requires_grad=True))
        x16 = torch.randn(2, 5, 16).to(torch.bfloat16)  # the course's default dtype
        golden[f"rms_norm/{name}/bf16/input"] = x16
        golden[f"rms_norm/{name}/bf16/output"] = module.to(torch.bfloat16)(x16) if name == "llama" else module(x16)

    for name, (base, freq) in {"llama32": (500_000.0, LLAMA32_ROPE_FREQ), "qwen3": (1_000_000.0, None),
                               "gemma3-local": (10_000.0, None)}.items():
        cos, sin = compute_rope_params(head_dim=16, theta_base=base, context_length=64, freq_config=freq)
        golden[f"rope/{name}/cos"], golden[f"rope/{name}/sin"] = cos, sin
    cos, sin = golden["rope/llama32/cos"], golden["rope/llama32/sin"]
    torch.manual_seed(123)
    x = torch.randn(2, 3, 5, 16)
    golden["rope/apply/input"] = x
    golden["rope/apply/output"] = apply_rope(x, cos, sin)
    golden["rope/apply/offset7"] = apply_rope(x, cos, sin, offset=7)

    for name, ff in {"swiglu": SwiGLUFeedForward, "geglu": GeGLUFeedForward}.items():
        torch.manual_seed(123)
        module = ff({"emb_dim": 16, "hidden_dim": 40, "dtype": None})
        golden |= record(f"feed_forward/{name}", module, torch.randn(2, 3, 16, requires_grad=True))

    torch.manual_seed(123)
    moe = MoEFeedForward({"emb_dim": 16, "num_experts": 4, "num_experts_per_tok": 2, "moe_intermediate_size": 8,
                          "dtype": None})
    golden |= record("feed_forward/moe", moe, torch.randn(2, 5, 16, requires_grad=True))

    t = 6
    causal = torch.triu(torch.ones(t, t, dtype=torch.bool), diagonal=1)
    torch.manual_seed(123)
    llama = LlamaGroupedQueryAttention(d_in=32, d_out=32, num_heads=4, num_kv_groups=2)
    cos, sin = compute_rope_params(head_dim=8, theta_base=500_000.0, context_length=16, freq_config=LLAMA32_ROPE_FREQ)
    golden |= record("attention/llama32", llama, torch.randn(2, t, 32, requires_grad=True), causal, cos, sin)

    # The course's GQA equivalence test (pkg/llms_from_scratch/tests/test_llama3.py), with
    # its sizes, seed, RoPE scaling and draws: d_in 32 and d_out 64, so that out_proj
    # maps d_out to d_out.
    torch.manual_seed(42)
    b, t8, d_in, d_out, num_heads, num_kv_groups = 2, 8, 32, 64, 4, 2
    x = torch.randn(b, t8, d_in)
    cos, sin = compute_rope_params(head_dim=d_out // num_heads, theta_base=50_000, context_length=t8,
                                   freq_config={"factor": 32.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                                                "original_context_length": t8})
    mask = torch.triu(torch.ones(t8, t8, dtype=torch.bool), diagonal=1)
    llama = LlamaGroupedQueryAttention(d_in, d_out, num_heads, num_kv_groups)
    golden |= record("attention/llama32-d_out", llama, x.requires_grad_(), mask, cos, sin)

    cos, sin = compute_rope_params(head_dim=16, theta_base=1_000_000.0, context_length=16)
    torch.manual_seed(123)
    qwen3 = GroupedQueryAttention(d_in=32, num_heads=4, num_kv_groups=2, head_dim=16, qk_norm=True)
    randomize_norms(qwen3)
    golden |= record("attention/qwen3", qwen3, torch.randn(2, t, 32, requires_grad=True), causal, cos, sin)

    cos, sin = compute_rope_params(head_dim=16, theta_base=10_000.0, context_length=16)
    _, local = gemma3_masks(t, sliding_window=3)
    torch.manual_seed(123)
    gemma3 = GroupedQueryAttention(d_in=32, num_heads=4, num_kv_groups=1, head_dim=16, qk_norm=True,
                                   query_pre_attn_scalar=16, norm=Gemma3RMSNorm)
    randomize_norms(gemma3)
    golden |= record("attention/gemma3-local", gemma3, torch.randn(2, t, 32, requires_grad=True), local, cos, sin)
    golden["attention/gemma3-local/mask"] = local
    save_golden("ch05-blocks", golden)


if __name__ == "__main__":
    main()
