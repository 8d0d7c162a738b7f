"""The chapter-4 GPT in plain PyTorch, as the lessons write it (GQA as an option)."""
import torch
import torch.nn as nn

from attention import GroupedQueryAttention, MultiHeadAttention


class LayerNorm(nn.Module):
    def __init__(self, emb_dim):
        super().__init__()
        self.eps = 1e-5
        self.scale = nn.Parameter(torch.ones(emb_dim))
        self.shift = nn.Parameter(torch.zeros(emb_dim))

    def forward(self, x):
        mean = x.mean(dim=-1, keepdim=True)
        var = x.var(dim=-1, keepdim=True, unbiased=False)
        norm_x = (x - mean) / torch.sqrt(var + self.eps)
        return self.scale * norm_x + self.shift


class GELU(nn.Module):
    def forward(self, x):
        return 0.5 * x * (1 + torch.tanh(torch.sqrt(torch.tensor(2.0 / torch.pi)) * (x + 0.044715 * torch.pow(x, 3))))


class FeedForward(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.layers = nn.Sequential(nn.Linear(cfg["emb_dim"], 4 * cfg["emb_dim"]), GELU(),
                                    nn.Linear(4 * cfg["emb_dim"], cfg["emb_dim"]))

    def forward(self, x):
        return self.layers(x)


def drop_rate(cfg, where):
    """Exercise 4.3's separate rates (drop_rate_emb, _attn, _shortcut), else drop_rate."""
    return cfg.get(f"drop_rate_{where}", cfg["drop_rate"])


class TransformerBlock(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        if cfg.get("attention", "mha") == "gqa":
            self.att = GroupedQueryAttention(cfg["emb_dim"], cfg["emb_dim"], drop_rate(cfg, "attn"), cfg["n_heads"],
                                             cfg.get("n_kv_groups") or cfg["n_heads"], qkv_bias=cfg["qkv_bias"])
        else:
            self.att = MultiHeadAttention(cfg["emb_dim"], cfg["emb_dim"], cfg["context_length"], drop_rate(cfg, "attn"),
                                          cfg["n_heads"], cfg["qkv_bias"])
        self.ff = FeedForward(cfg)
        self.norm1 = LayerNorm(cfg["emb_dim"])
        self.norm2 = LayerNorm(cfg["emb_dim"])
        self.drop_shortcut = nn.Dropout(drop_rate(cfg, "shortcut"))

    def forward(self, x):
        shortcut = x
        x = self.norm1(x)
        x = self.att(x)
        x = self.drop_shortcut(x)
        x = x + shortcut
        shortcut = x
        x = self.norm2(x)
        x = self.ff(x)
        x = self.drop_shortcut(x)
        return x + shortcut


class GPTModel(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.tok_emb = nn.Embedding(cfg["vocab_size"], cfg["emb_dim"])
        self.pos_emb = nn.Embedding(cfg["context_length"], cfg["emb_dim"])
        self.drop_emb = nn.Dropout(drop_rate(cfg, "emb"))
        self.trf_blocks = nn.Sequential(*[TransformerBlock(cfg) for _ in range(cfg["n_layers"])])
        self.final_norm = LayerNorm(cfg["emb_dim"])
        self.out_head = nn.Linear(cfg["emb_dim"], cfg["vocab_size"], bias=False)

    def forward(self, in_idx):
        batch_size, seq_len = in_idx.shape
        tok_embeds = self.tok_emb(in_idx)
        pos_embeds = self.pos_emb(torch.arange(seq_len, device=in_idx.device))
        x = self.drop_emb(tok_embeds + pos_embeds)
        x = self.trf_blocks(x)
        x = self.final_norm(x)
        return self.out_head(x)


def generate_text_simple(model, idx, max_new_tokens, context_size):
    for _ in range(max_new_tokens):
        idx_cond = idx[:, -context_size:]
        with torch.no_grad():
            logits = model(idx_cond)
        logits = logits[:, -1, :]
        probas = torch.softmax(logits, dim=-1)
        idx_next = torch.argmax(probas, dim=-1, keepdim=True)
        idx = torch.cat((idx, idx_next), dim=1)
    return idx


def generate(model, idx, max_new_tokens, context_size, temperature=0.0, top_k=None, eos_id=None):
    """Lesson 5.3.3's generate(), as the notebook has it."""
    for _ in range(max_new_tokens):
        idx_cond = idx[:, -context_size:]
        with torch.no_grad():
            logits = model(idx_cond)
        logits = logits[:, -1, :]
        if top_k is not None:
            top_logits, _ = torch.topk(logits, top_k)
            min_val = top_logits[:, -1]
            logits = torch.where(logits < min_val, torch.tensor(float("-inf")).to(logits.device), logits)
        if temperature > 0.0:
            logits = logits / temperature
            logits = logits - logits.max(dim=-1, keepdim=True).values
            probs = torch.softmax(logits, dim=-1)
            idx_next = torch.multinomial(probs, num_samples=1)
        else:
            idx_next = torch.argmax(logits, dim=-1, keepdim=True)
        if idx_next == eos_id:
            break
        idx = torch.cat((idx, idx_next), dim=1)
    return idx


def fingerprint(t):
    """An order-independent 64-bit fingerprint of a float32 tensor's bits: the sum of
    bits[i] * (i * 2654435761 + 1), wrapping in int64. Equal bits, equal fingerprint."""
    bits = t.detach().contiguous().flatten().view(torch.int32).to(torch.int64)
    weights = torch.arange(bits.numel(), dtype=torch.int64) * 2654435761 + 1
    return (bits * weights).sum()


OPTIONAL_KEYS = ["drop_rate_emb", "drop_rate_attn", "drop_rate_shortcut"]
CONFIG_KEYS = ["vocab_size", "context_length", "emb_dim", "n_heads", "n_layers", "drop_rate", "qkv_bias",
               "n_kv_groups"]


class DummyGPTModel(nn.Module):
    """Lesson 4.1's placeholder: blocks and norm pass their input through."""

    def __init__(self, cfg):
        super().__init__()
        self.tok_emb = nn.Embedding(cfg["vocab_size"], cfg["emb_dim"])
        self.pos_emb = nn.Embedding(cfg["context_length"], cfg["emb_dim"])
        self.drop_emb = nn.Dropout(cfg["drop_rate"])
        self.out_head = nn.Linear(cfg["emb_dim"], cfg["vocab_size"], bias=False)

    def forward(self, in_idx):
        batch_size, seq_len = in_idx.shape
        x = self.drop_emb(self.tok_emb(in_idx) + self.pos_emb(torch.arange(seq_len, device=in_idx.device)))
        return self.out_head(x)


class ExampleDeepNeuralNetwork(nn.Module):
    def __init__(self, layer_sizes, use_shortcut):
        super().__init__()
        self.use_shortcut = use_shortcut
        self.layers = nn.ModuleList([nn.Sequential(nn.Linear(layer_sizes[i], layer_sizes[i + 1]), GELU())
                                     for i in range(len(layer_sizes) - 1)])

    def forward(self, x):
        for layer in self.layers:
            layer_output = layer(x)
            x = x + layer_output if self.use_shortcut and x.shape == layer_output.shape else layer_output
        return x


def config_from(saved):
    """A GPT config dict from an archive's config/* entries."""
    cfg = {k: saved[f"config/{k}"].item() for k in CONFIG_KEYS}
    cfg["qkv_bias"] = bool(cfg["qkv_bias"])
    cfg["attention"] = "gqa" if bool(saved["config/gqa"]) else "mha"
    cfg.update({k: saved[f"config/{k}"].item() for k in OPTIONAL_KEYS if f"config/{k}" in saved})
    return cfg


def fingerprints(module):
    return {f"fingerprint/{k}": fingerprint(v) for k, v in module.state_dict().items()}
