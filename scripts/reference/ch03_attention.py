"""Goldens for chapter 3: each attention module built after torch.manual_seed(123),
its input, parameters (state_dict names), output, and the gradients of
(output * grad_output).sum() with respect to the input and every parameter."""
import torch

from attention import JOURNEY, run_case, simplified_self_attention
from common import save_golden


def config(d_in, d_out, context_length=6, num_heads=1, num_kv_groups=1, dropout=0.0, qkv_bias=False):
    return dict(d_in=d_in, d_out=d_out, context_length=context_length, num_heads=num_heads,
                num_kv_groups=num_kv_groups, dropout=dropout, qkv_bias=qkv_bias)


CASES = {
    # name: (kind, config, input shape)
    "self_attention_v1": ("self_attention_v1", config(3, 2), (6, 3)),
    "self_attention_v2": ("self_attention_v2", config(3, 2, qkv_bias=True), (6, 3)),
    "causal_attention": ("causal_attention", config(3, 2), (2, 6, 3)),
    "causal_attention_dropout": ("causal_attention", config(3, 2, dropout=0.5), (2, 6, 3)),
    "multi_attention_stacking": ("multi_attention_stacking", config(3, 2, num_heads=2), (2, 6, 3)),
    "multi_head_attention": ("multi_head_attention", config(8, 12, context_length=10, num_heads=4, qkv_bias=True),
                             (3, 7, 8)),
    "multi_head_attention_dropout": ("multi_head_attention", config(8, 12, context_length=10, num_heads=4,
                                                                    dropout=0.1), (3, 7, 8)),
    "grouped_query_attention": ("grouped_query_attention", config(8, 12, context_length=10, num_heads=4,
                                                                  num_kv_groups=2), (3, 7, 8)),
    "grouped_query_attention_mqa": ("grouped_query_attention", config(8, 12, context_length=10, num_heads=4,
                                                                      num_kv_groups=1, qkv_bias=True), (3, 7, 8)),
}


def main():
    inputs = torch.tensor(JOURNEY)
    scores, weights, context = simplified_self_attention(inputs)
    save_golden("ch03-simplified", {"input": inputs, "scores": scores, "weights": weights, "context": context})
    for name, (kind, c, shape) in CASES.items():
        save_golden(f"ch03-{name}", run_case(kind, c, shape))


if __name__ == "__main__":
    main()
