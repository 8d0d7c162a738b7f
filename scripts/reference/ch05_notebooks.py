"""The standalone notebooks of today's models: ch05/07_gpt_to_llama/standalone-llama32,
ch05/11_qwen3/standalone-qwen3 and ch05/12_gemma3/standalone-gemma3 (Apache-2.0,
rasbt/LLMs-from-scratch). From a ch05-07/11/12 run's archive (its config, seed and
prompt ids) this builds the course's class of the family (llms.py) after
torch.manual_seed(seed), as the notebooks build it, and computes what they print: the
logits of [1, 2, 3], the parameter count, calc_model_memory_size's elements, and the
greedy ids of generate_text_basic_stream: the notebooks' loop, or with kv_cache the
-plus-kvcache notebooks' loop over the course's KV-cache model (llms_kv_cache.py, for
Llama 3.2 and Qwen3; in bfloat16 its ids can part from the uncached loop's, since the
one-token steps round differently). Gemma 3's KV-cache notebook is not transcribed: its
cached run is checked against the uncached loop, which it equals in float32."""
import json

import torch

from llms import Gemma3Model, Llama3Model, Qwen3Model
from llms_kv_cache import KVCache, cached

MODELS = {"llama3": Llama3Model, "qwen3": Qwen3Model, "gemma3": Gemma3Model}
DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}


def course_config(config_json):
    """The run's config as the notebook's dict: the dtype a torch dtype, no family key."""
    cfg = json.loads(config_json)
    family = cfg.pop("family")
    cfg["dtype"] = DTYPES[cfg["dtype"]]
    return family, cfg


def memory_elements(model):
    """calc_model_memory_size's (total_params + total_grads + total_buffers), which the
    notebook multiplies by the dtype's element size."""
    total_params = 0
    total_grads = 0
    for param in model.parameters():
        param_size = param.numel()
        total_params += param_size
        if param.requires_grad:
            total_grads += param_size
    total_buffers = sum(buf.numel() for buf in model.buffers())
    return total_params + total_grads + total_buffers


def generate_text_basic_stream(model, token_ids, max_new_tokens, eos_token_id=None):
    """The notebooks' generator, as written there."""
    model.eval()
    with torch.no_grad():
        for _ in range(max_new_tokens):
            out = model(token_ids)[:, -1]
            next_token = torch.argmax(out, dim=-1, keepdim=True)

            if (eos_token_id is not None
                    and torch.all(next_token == eos_token_id)):
                break

            yield next_token

            token_ids = torch.cat([token_ids, next_token], dim=1)


def generate_text_basic_stream_cached(model, token_ids, max_new_tokens, eos_token_id=None):
    """The -plus-kvcache notebooks' generator: the prompt once, then one token at a time."""
    model.eval()
    with torch.no_grad():
        cache = KVCache(n_layers=model.cfg["n_layers"])
        model.reset_kv_cache()
        out = model(token_ids, cache=cache)[:, -1]
        for _ in range(max_new_tokens):
            next_token = torch.argmax(out, dim=-1, keepdim=True)

            if (eos_token_id is not None
                    and torch.all(next_token == eos_token_id)):
                break

            yield next_token

            out = model(next_token, cache=cache)[:, -1]


def rerun(saved, seed):
    family, cfg = course_config(bytes(saved["config_json"].tolist()).decode())
    torch.manual_seed(seed)
    model = MODELS[family](cfg)
    result = {}
    if "logits" in saved:
        result["logits"] = model(torch.tensor([1, 2, 3]).unsqueeze(0))
    if "parameters" in saved:
        result["parameters"] = torch.tensor(sum(p.numel() for p in model.parameters()))
    if "memory_elements" in saved:
        result["memory_elements"] = torch.tensor(float(memory_elements(model)), dtype=torch.float64)
    if "generated" in saved:
        prompt = saved["prompt"]
        eos = int(saved["eos_id"])
        if bool(saved["kv_cache"]) and family != "gemma3":
            stream = generate_text_basic_stream_cached(cached(model), prompt, int(saved["max_new_tokens"]),
                                                       eos_token_id=None if eos < 0 else eos)
        else:
            stream = generate_text_basic_stream(model, prompt, int(saved["max_new_tokens"]),
                                                eos_token_id=None if eos < 0 else eos)
        new = list(stream)
        result["generated"] = torch.cat([prompt] + new, dim=1)
    return result
