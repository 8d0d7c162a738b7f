"""The course's KV-cache versions of Llama 3.2 and Qwen3 (Apache-2.0,
rasbt/LLMs-from-scratch: pkg/llms_from_scratch/kv_cache/llama3.py, qwen3.py, utils.py
and generate.py), for the generation benchmark. Their parameters and draws are the
plain models' (llms.py), whose blocks they reuse; what changes is the forward pass,
which keeps each layer's keys and values and rotates new tokens from start_pos."""
import torch
import torch.nn as nn

from llms import Llama3Model as PlainLlama3Model
from llms import Qwen3Model as PlainQwen3Model
from llms import apply_rope


class KVCache:
    def __init__(self, n_layers):
        self.cache = [None] * n_layers

    def get(self, layer_idx):
        return self.cache[layer_idx]

    def update(self, layer_idx, value):
        self.cache[layer_idx] = value

    def get_all(self):
        return self.cache

    def reset(self):
        for i in range(len(self.cache)):
            self.cache[i] = None


def attention_forward(att, x, mask, cos, sin, start_pos=0, cache=None):
    """kv_cache/qwen3.py's GroupedQueryAttention.forward (kv_cache/llama3.py's is the
    same without QK-norm, dividing by keys.shape[-1] ** 0.5, which is head_dim)."""
    b, num_tokens, _ = x.shape

    queries = att.W_query(x)
    keys = att.W_key(x)
    values = att.W_value(x)

    queries = queries.view(b, num_tokens, att.num_heads, att.head_dim).transpose(1, 2)
    keys_new = keys.view(b, num_tokens, att.num_kv_groups, att.head_dim).transpose(1, 2)
    values_new = values.view(b, num_tokens, att.num_kv_groups, att.head_dim).transpose(1, 2)

    if getattr(att, "q_norm", None):
        queries = att.q_norm(queries)
    if getattr(att, "k_norm", None):
        keys_new = att.k_norm(keys_new)

    queries = apply_rope(queries, cos, sin, offset=start_pos)
    keys_new = apply_rope(keys_new, cos, sin, offset=start_pos)

    if cache is not None:
        prev_k, prev_v = cache
        keys = torch.cat([prev_k, keys_new], dim=2)
        values = torch.cat([prev_v, values_new], dim=2)
        next_cache = (keys, values)
    else:
        start_pos = 0
        keys, values = keys_new, values_new
        next_cache = (keys, values)

    keys = keys.repeat_interleave(att.group_size, dim=1)
    values = values.repeat_interleave(att.group_size, dim=1)

    attn_scores = queries @ keys.transpose(2, 3)
    attn_scores = attn_scores.masked_fill(mask, -torch.inf)
    attn_weights = torch.softmax(attn_scores / att.head_dim**0.5, dim=-1)

    context = (attn_weights @ values).transpose(1, 2).reshape(b, num_tokens, att.num_heads * att.head_dim)
    return att.out_proj(context), next_cache


def block_forward(block, x, mask, cos, sin, start_pos=0, cache=None):
    """kv_cache/qwen3.py's (and llama3.py's) TransformerBlock.forward."""
    shortcut = x
    x = block.norm1(x)
    x, next_cache = attention_forward(block.att, x, mask, cos, sin, start_pos=start_pos, cache=cache)
    x = x + shortcut

    shortcut = x
    x = block.norm2(x)
    x = block.ff(x)
    x = x + shortcut

    return x, next_cache


class CachedModel:
    """kv_cache's Qwen3Model / Llama3Model: forward(in_idx, cache) and reset_kv_cache."""

    def __init__(self, model):
        self.model = model
        self.cfg = model.cfg
        self.current_pos = 0

    def eval(self):
        self.model.eval()
        return self

    def __call__(self, in_idx, cache=None):
        m = self.model
        x = m.tok_emb(in_idx)

        num_tokens = x.shape[1]
        if cache is not None:
            pos_start = self.current_pos
            pos_end = pos_start + num_tokens
            self.current_pos = pos_end
            mask = torch.triu(
                torch.ones(pos_end, pos_end, device=x.device, dtype=torch.bool), diagonal=1
            )[pos_start:pos_end, :pos_end]
        else:
            pos_start = 0
            mask = torch.triu(
                torch.ones(num_tokens, num_tokens, device=x.device, dtype=torch.bool), diagonal=1
            )
        mask = mask[None, None, :, :]

        for i, block in enumerate(m.trf_blocks):
            blk_cache = cache.get(i) if cache else None
            x, new_blk_cache = block_forward(block, x, mask, m.cos, m.sin, start_pos=pos_start, cache=blk_cache)
            if cache is not None:
                cache.update(i, new_blk_cache)

        x = m.final_norm(x)
        return m.out_head(x.to(self.cfg["dtype"]))

    def reset_kv_cache(self):
        self.current_pos = 0


def cached(model):
    """The KV-cache version of a plain Llama3Model or Qwen3Model, with its weights."""
    assert isinstance(model, (PlainLlama3Model, PlainQwen3Model))
    return CachedModel(model)


def generate_text_simple(model, idx, max_new_tokens, context_size=None, use_cache=True):
    """kv_cache/generate.py's generate_text_simple."""
    model.eval()
    ctx_len = context_size or model.cfg["context_length"]

    with torch.no_grad():
        if use_cache:
            cache = KVCache(n_layers=model.cfg["n_layers"])
            model.reset_kv_cache()
            logits = model(idx[:, -ctx_len:], cache=cache)

            for _ in range(max_new_tokens):
                next_idx = logits[:, -1].argmax(dim=-1, keepdim=True)
                idx = torch.cat([idx, next_idx], dim=1)
                logits = model(next_idx, cache=cache)
        else:
            for _ in range(max_new_tokens):
                logits = model(idx[:, -ctx_len:], cache=None)
                next_idx = logits[:, -1].argmax(dim=-1, keepdim=True)
                idx = torch.cat([idx, next_idx], dim=1)

    return idx
