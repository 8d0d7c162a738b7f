"""The chapter-3 attention modules in plain PyTorch, as the lessons write them.

GroupedQueryAttention is the course's (ch04/04_gqa/gpt_with_kv_gqa.py) without its KV
cache: W_key, W_value, W_query made in that order, out_proj without a bias, and the
causal mask made from positions in forward, not kept as a buffer.
"""
import torch
import torch.nn as nn

JOURNEY = [[0.43, 0.15, 0.89], [0.55, 0.87, 0.66], [0.57, 0.85, 0.64],
           [0.22, 0.58, 0.33], [0.77, 0.25, 0.10], [0.05, 0.80, 0.55]]


def simplified_self_attention(inputs):
    scores = inputs @ inputs.T
    weights = torch.softmax(scores, dim=-1)
    return scores, weights, weights @ inputs


class SelfAttentionV1(nn.Module):
    def __init__(self, d_in, d_out):
        super().__init__()
        self.W_query = nn.Parameter(torch.rand(d_in, d_out))
        self.W_key = nn.Parameter(torch.rand(d_in, d_out))
        self.W_value = nn.Parameter(torch.rand(d_in, d_out))

    def forward(self, x):
        keys = x @ self.W_key
        queries = x @ self.W_query
        values = x @ self.W_value
        attn_scores = queries @ keys.T
        attn_weights = torch.softmax(attn_scores / keys.shape[-1] ** 0.5, dim=-1)
        return attn_weights @ values


class SelfAttentionV2(nn.Module):
    def __init__(self, d_in, d_out, qkv_bias=False):
        super().__init__()
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)

    def forward(self, x):
        keys = self.W_key(x)
        queries = self.W_query(x)
        values = self.W_value(x)
        attn_scores = queries @ keys.T
        attn_weights = torch.softmax(attn_scores / keys.shape[-1] ** 0.5, dim=-1)
        return attn_weights @ values


class CausalAttention(nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, qkv_bias=False):
        super().__init__()
        self.d_out = d_out
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.dropout = nn.Dropout(dropout)
        self.register_buffer("mask", torch.triu(torch.ones(context_length, context_length), diagonal=1))

    def forward(self, x):
        b, num_tokens, d_in = x.shape
        keys = self.W_key(x)
        queries = self.W_query(x)
        values = self.W_value(x)
        attn_scores = queries @ keys.transpose(1, 2)
        attn_scores.masked_fill_(self.mask.bool()[:num_tokens, :num_tokens], -torch.inf)
        attn_weights = torch.softmax(attn_scores / keys.shape[-1] ** 0.5, dim=-1)
        attn_weights = self.dropout(attn_weights)
        return attn_weights @ values


class MultiAttentionStacking(nn.Module):
    """The lesson's MultiHeadAttentionWrapper."""

    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):
        super().__init__()
        self.heads = nn.ModuleList(
            [CausalAttention(d_in, d_out, context_length, dropout, qkv_bias) for _ in range(num_heads)])

    def forward(self, x):
        return torch.cat([head(x) for head in self.heads], dim=-1)


class MultiHeadAttention(nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):
        super().__init__()
        assert d_out % num_heads == 0, "d_out must be divisible by num_heads"
        self.d_out = d_out
        self.num_heads = num_heads
        self.head_dim = d_out // num_heads
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.out_proj = nn.Linear(d_out, d_out)
        self.dropout = nn.Dropout(dropout)
        self.register_buffer("mask", torch.triu(torch.ones(context_length, context_length), diagonal=1))

    def forward(self, x):
        b, num_tokens, d_in = x.shape
        keys = self.W_key(x)
        queries = self.W_query(x)
        values = self.W_value(x)
        keys = keys.view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)
        queries = queries.view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)
        values = values.view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)
        attn_scores = queries @ keys.transpose(2, 3)
        attn_scores.masked_fill_(self.mask.bool()[:num_tokens, :num_tokens], -torch.inf)
        attn_weights = torch.softmax(attn_scores / keys.shape[-1] ** 0.5, dim=-1)
        attn_weights = self.dropout(attn_weights)
        context_vec = (attn_weights @ values).transpose(1, 2)
        context_vec = context_vec.contiguous().view(b, num_tokens, self.d_out)
        return self.out_proj(context_vec)


class GroupedQueryAttention(nn.Module):
    def __init__(self, d_in, d_out, dropout, num_heads, num_kv_groups, dtype=None, qkv_bias=False):
        super().__init__()
        assert d_out % num_heads == 0, "d_out must be divisible by num_heads"
        assert num_heads % num_kv_groups == 0, "num_heads must be divisible by num_kv_groups"

        self.d_out = d_out
        self.num_heads = num_heads
        self.head_dim = d_out // num_heads

        self.W_key = nn.Linear(d_in, num_kv_groups * self.head_dim, bias=qkv_bias, dtype=dtype)
        self.W_value = nn.Linear(d_in, num_kv_groups * self.head_dim, bias=qkv_bias, dtype=dtype)
        self.num_kv_groups = num_kv_groups
        self.group_size = num_heads // num_kv_groups

        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias, dtype=dtype)
        self.out_proj = nn.Linear(d_out, d_out, bias=False, dtype=dtype)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        b, num_tokens, _ = x.shape

        queries = self.W_query(x)
        keys = self.W_key(x)
        values = self.W_value(x)

        queries = queries.view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)
        keys = keys.view(b, num_tokens, self.num_kv_groups, self.head_dim).transpose(1, 2)
        values = values.view(b, num_tokens, self.num_kv_groups, self.head_dim).transpose(1, 2)

        keys = keys.repeat_interleave(self.group_size, dim=1)
        values = values.repeat_interleave(self.group_size, dim=1)

        attn_scores = queries @ keys.transpose(2, 3)

        q_positions = torch.arange(queries.shape[-2], device=x.device, dtype=torch.long)
        k_positions = torch.arange(keys.shape[-2], device=x.device, dtype=torch.long)
        mask = q_positions.unsqueeze(-1) < k_positions.unsqueeze(0)
        attn_scores = attn_scores.masked_fill(mask, -torch.inf)

        attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)
        attn_weights = self.dropout(attn_weights)

        context_vec = (attn_weights @ values).transpose(1, 2)
        context_vec = context_vec.contiguous().view(b, num_tokens, self.d_out)
        return self.out_proj(context_vec)


def build(kind, c):
    """The module `kind` from a config dict (the archive's config/* entries)."""
    if kind == "self_attention_v1":
        return SelfAttentionV1(c["d_in"], c["d_out"])
    if kind == "self_attention_v2":
        return SelfAttentionV2(c["d_in"], c["d_out"], c["qkv_bias"])
    if kind == "causal_attention":
        return CausalAttention(c["d_in"], c["d_out"], c["context_length"], c["dropout"], c["qkv_bias"])
    if kind == "multi_attention_stacking":
        return MultiAttentionStacking(c["d_in"], c["d_out"], c["context_length"], c["dropout"], c["num_heads"],
                                      c["qkv_bias"])
    if kind == "multi_head_attention":
        return MultiHeadAttention(c["d_in"], c["d_out"], c["context_length"], c["dropout"], c["num_heads"],
                                  c["qkv_bias"])
    if kind == "grouped_query_attention":
        return GroupedQueryAttention(c["d_in"], c["d_out"], c["dropout"], c["num_heads"], c["num_kv_groups"],
                                     qkv_bias=c["qkv_bias"])
    raise ValueError(f"unknown attention kind {kind}")


KINDS = ["self_attention_v1", "self_attention_v2", "causal_attention", "multi_attention_stacking",
         "multi_head_attention", "grouped_query_attention"]
CONFIG_KEYS = ["d_in", "d_out", "context_length", "num_heads", "num_kv_groups", "dropout", "qkv_bias"]


def config_tensors(c):
    return {f"config/{k}": torch.tensor(v) for k, v in c.items()}


def config_from(saved):
    out = {}
    for k in CONFIG_KEYS:
        v = saved[f"config/{k}"]
        out[k] = v.item() if v.dtype != torch.bool else bool(v)
    return out


def attention_input(shape):
    """The lesson's sentence (repeated over the batch) when tokens is 6 and d_in 3, else torch.rand."""
    if tuple(shape[-2:]) == (6, 3):
        return torch.tensor(JOURNEY).expand(*shape).clone().requires_grad_()
    return torch.rand(*shape, requires_grad=True)


def string_tensor(text):
    return torch.tensor(list(text.encode()), dtype=torch.uint8)


def run_case(kind, c, input_shape, seed=123):
    """Seed, build, take the input, run forward (train mode), backward a fixed loss.

    The same sequence in C++ gives the same weights, input, dropout draws and output.
    """
    torch.manual_seed(seed)
    module = build(kind, c)
    x = attention_input(input_shape)
    out = module(x)
    grad_output = torch.randn(out.shape)
    out.backward(grad_output)
    result = {"kind": string_tensor(kind), "seed": torch.tensor(seed), "input": x, "output": out, "grad_output": grad_output,
              "grad/input": x.grad}
    result.update(config_tensors(c))
    for name, tensor in module.state_dict().items():
        result[name] = tensor
    for name, p in module.named_parameters():
        result[f"grad/{name}"] = p.grad
    return result
