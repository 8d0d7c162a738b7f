#!/usr/bin/python3
"""Hugging Face model folders load as the course's loaders load them.

    hf_folders.py BIN_DIR

For Llama 3.2, Qwen3, Qwen3 MoE and Gemma 3 at tiny sizes (configs/tiny-*.json), the
course's own model (scripts/reference/llms.py, torch.manual_seed(123)) is written as
the Hub holds such a model: config.json in transformers' keys, the weights in
Hugging Face's names (safetensors, from the format's definition), a byte-level
tokenizer.json. Four folders each: F32, F16 with tied embeddings and no lm_head.weight,
BF16 in three shards with model.safetensors.index.json, and F32 sharded and tied.
For each, `generate --model-dir` must give
  - the weights of the course's model of that dtype after the course's loader
    (load_weights_into_llama / _qwen / _gemma), bit for bit (--save-state-dict);
  - the ids of the course's generate(), greedy and sampled after
    torch.manual_seed(123) (--save-outputs).
--save-safetensors writes the F32 folder back: the same tensors under the same names,
and config.json's settings. A GPT-2 folder (vocab.json and merges.txt for a tokenizer)
gives what --load-state-dict gives from the same file. Broken folders are refused with one line naming the file.
"""
import json
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

import torch

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts" / "reference"))
from ch05_families import MODELS, course_config  # noqa: E402
from common import data_file, require_data  # noqa: E402
import gpt  # noqa: E402
from hf_gpt2 import hf_layout, read_safetensors, safetensors_bytes  # noqa: E402
from llms import hf_weight_names, load_weights_into  # noqa: E402

BIN = pathlib.Path(sys.argv[1])
DTYPE_NAMES = {torch.float32: "float32", torch.float16: "float16", torch.bfloat16: "bfloat16"}
PROMPT = "Every effort moves you"


def byte_level_tokenizer(vocab_size=500):
    """A tokenizer.json of GPT-2's 256 byte symbols, three merges and tokens up to
    vocab_size."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + len(cs) - 188)
    symbols = dict(zip(bs, map(chr, cs)))
    vocab = {symbols[b]: b for b in range(256)}
    merges = ["Ġ m", "o v", "e s"]
    for i, merge in enumerate(merges):
        vocab[merge.replace(" ", "")] = 256 + i
    for i in range(len(vocab), vocab_size):  # tokens no merge makes, so that every id decodes
        vocab[f"<t{i}>"] = i
    byte_level = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True}
    return {"version": "1.0", "truncation": None, "padding": None, "added_tokens": [], "normalizer": None,
            "pre_tokenizer": byte_level, "post_processor": None, "decoder": byte_level,
            "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None,
                      "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False, "ignore_merges": False,
                      "vocab": vocab, "merges": merges}}


def hf_config(family, cfg, dtype, tied, pattern=False):
    """config.json as transformers writes it for such a model."""
    common = {"vocab_size": cfg["vocab_size"], "max_position_embeddings": cfg["context_length"],
              "hidden_size": cfg["emb_dim"], "num_attention_heads": cfg["n_heads"],
              "num_hidden_layers": cfg["n_layers"], "num_key_value_heads": cfg["n_kv_groups"],
              "rope_theta": cfg["rope_base"], "attention_bias": False, "attention_dropout": 0.0,
              "initializer_range": 0.02, "use_cache": True, "bos_token_id": 1, "eos_token_id": 2,
              "tie_word_embeddings": tied, "torch_dtype": DTYPE_NAMES[dtype], "transformers_version": "4.56.0"}
    if family == "llama3":
        f = cfg["rope_freq"]
        return common | {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_act": "silu",
                         "intermediate_size": cfg["hidden_dim"], "head_dim": cfg["emb_dim"] // cfg["n_heads"],
                         "mlp_bias": False, "rms_norm_eps": 1e-5, "pretraining_tp": 1,
                         "rope_scaling": {"factor": f["factor"], "low_freq_factor": f["low_freq_factor"],
                                          "high_freq_factor": f["high_freq_factor"],
                                          "original_max_position_embeddings": f["original_context_length"],
                                          "rope_type": "llama3"}}
    if family == "qwen3":
        qwen = common | {"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "hidden_act": "silu",
                         "head_dim": cfg["head_dim"], "rms_norm_eps": 1e-6, "rope_scaling": None,
                         "use_sliding_window": False, "sliding_window": None, "max_window_layers": cfg["n_layers"],
                         "intermediate_size": cfg.get("hidden_dim", 96)}
        if cfg.get("num_experts", 0):
            qwen |= {"architectures": ["Qwen3MoeForCausalLM"], "model_type": "qwen3_moe",
                     "num_experts": cfg["num_experts"], "num_experts_per_tok": cfg["num_experts_per_tok"],
                     "moe_intermediate_size": cfg["moe_intermediate_size"], "norm_topk_prob": True,
                     "decoder_sparse_step": 1, "mlp_only_layers": [], "output_router_logits": False}
        return qwen
    gemma = common | {"architectures": ["Gemma3ForCausalLM"], "model_type": "gemma3_text",
                      "hidden_activation": "gelu_pytorch_tanh", "intermediate_size": cfg["hidden_dim"],
                      "head_dim": cfg["head_dim"], "rms_norm_eps": 1e-6, "rope_scaling": None,
                      "rope_local_base_freq": cfg["rope_local_base"], "sliding_window": cfg["sliding_window"],
                      "query_pre_attn_scalar": cfg["query_pre_attn_scalar"], "final_logit_softcapping": None,
                      "attn_logit_softcapping": None, "use_bidirectional_attention": False}
    if pattern:  # older configs: every n-th layer global
        return gemma | {"_sliding_window_pattern": cfg["layer_types"].index("full_attention") + 1}
    return gemma | {"layer_types": cfg["layer_types"]}


def write_folder(folder, config, tensors, shards):
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(config, indent=2))
    (folder / "tokenizer.json").write_text(json.dumps(byte_level_tokenizer(), ensure_ascii=False))
    if shards == 1:
        (folder / "model.safetensors").write_bytes(safetensors_bytes(tensors, {"format": "pt"}))
        return
    names = list(tensors)
    weight_map = {}
    for s in range(shards):
        file = f"model-{s + 1:05d}-of-{shards:05d}.safetensors"
        part = {n: tensors[n] for n in names[s::shards]}
        (folder / file).write_bytes(safetensors_bytes(part, {"format": "pt"}))
        weight_map |= {n: file for n in part}
    (folder / "model.safetensors.index.json").write_text(
        json.dumps({"metadata": {"total_size": sum(t.numel() * t.element_size() for t in tensors.values())},
                    "weight_map": weight_map}))


def run(*args):
    result = subprocess.run([str(a) for a in args], capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"{pathlib.Path(str(args[0])).name} exit {result.returncode}: {result.stderr.strip()}")
    return result.stdout


def check_folder(folder, family, cfg, params, tmp, written=None):
    """The C++ loading of `folder` against the course's loader of `params`; with
    `written` (a folder), the greedy run also writes the model back into it
    (--save-safetensors)."""
    course = MODELS[family](cfg)
    load_weights_into(course, family, cfg, params)
    course.eval()
    ids_equal, weights_equal = True, False
    for temperature, top_k in ((0.0, None), (1.5, 20)):
        saves = []
        if temperature == 0.0:  # the weights as loaded, and written back, from the greedy run
            saves = ["--save-state-dict", tmp / "loaded.pt"] + (["--save-safetensors", written / "model.safetensors"] if written else [])
        run(BIN / "generate", "--model-dir", folder, "--prompt", PROMPT, "--max-new-tokens", 10, "--temperature",
            temperature, "--top-k", top_k or 0, "--seed", 123, "--save-outputs", tmp / "ids.pt", *saves)
        if saves:
            loaded, expected = torch.load(tmp / "loaded.pt"), course.state_dict()
            weights_equal = loaded.keys() == expected.keys() and all(torch.equal(loaded[k], expected[k])
                                                                     for k in expected)
        saved = torch.load(tmp / "ids.pt")
        torch.manual_seed(123)
        with torch.no_grad():
            ids = gpt.generate(course, saved["prompt"], 10, cfg["context_length"], temperature=temperature, top_k=top_k)
        ids_equal = ids_equal and torch.equal(saved["generated"], ids)
    return weights_equal, ids_equal


def check_written(folder, tensors, out):
    """--save-safetensors (check_folder's run) wrote the folder's tensors back into
    `out` under the same names, and a config.json that holds the same model settings."""
    written, _ = read_safetensors((out / "model.safetensors").read_bytes())
    same = written.keys() == tensors.keys() and all(torch.equal(written[k], tensors[k]) for k in tensors)
    given, back = json.loads((folder / "config.json").read_text()), json.loads((out / "config.json").read_text())
    keys = ["architectures", "model_type", "vocab_size", "hidden_size", "num_hidden_layers", "num_key_value_heads",
            "head_dim", "rope_theta", "rope_scaling", "layer_types", "num_experts", "tie_word_embeddings", "torch_dtype"]
    config_same = all(given.get(k) == back.get(k) for k in keys)
    print(f"{folder.name} written back: {'the same tensors and names' if same else 'DIFFERENT TENSORS'}, config.json "
          f"{'the same settings' if config_same else 'DIFFERENT: ' + json.dumps(back)}")
    return not (same and config_same)


def check_families(tmp):
    failed = False
    for name in ["tiny-llama32", "tiny-qwen3", "tiny-qwen3-moe", "tiny-gemma3"]:
        family, cfg = course_config(ROOT / "configs" / f"{name}.json")
        torch.manual_seed(123)
        source = MODELS[family](cfg).state_dict()
        hf = {h: source[ours].detach().clone() for ours, h in hf_weight_names(family, cfg)}
        hf["lm_head.weight"] = source["out_head.weight"].detach().clone()
        for dtype, tied, shards in ((torch.float32, False, 1), (torch.float16, True, 1), (torch.bfloat16, False, 3),
                                    (torch.float32, True, 2)):
            variant = f"{name}-{DTYPE_NAMES[dtype]}{'-tied' if tied else ''}{f'-{shards}-shards' if shards > 1 else ''}"
            tensors = {k: v.to(dtype) for k, v in hf.items() if not (tied and k == "lm_head.weight")}
            folder = tmp / variant
            write_folder(folder, hf_config(family, cfg, dtype, tied, pattern=tied), tensors, shards)
            written = None
            if dtype == torch.float32 and shards == 1:
                written = tmp / f"{variant}-written"
                written.mkdir()
            try:
                computed = torch.float32 if dtype == torch.float16 else dtype  # no float16 matmul on the CPU
                weights_equal, ids_equal = check_folder(folder, family, cfg | {"dtype": computed}, tensors, tmp,
                                                        written)
            except RuntimeError as e:
                print(f"{variant}: {e}")
                failed = True
                continue
            print(f"{variant}: weights {'bit-identical' if weights_equal else 'DIFFERENT'}, greedy and sampled ids "
                  f"{'equal' if ids_equal else 'DIFFERENT'} to the course's loader and generate()")
            failed = failed or not (weights_equal and ids_equal)
            if written:
                failed |= check_written(folder, tensors, written)
    return failed


def check_gpt2(tmp):
    """A GPT-2 folder with GPT-2's own tokenizer files gives what --load-state-dict gives."""
    cfg = json.loads((ROOT / "configs" / "tiny.json").read_text()) | {"qkv_bias": True}
    torch.manual_seed(11)
    folder = tmp / "gpt2"
    folder.mkdir()
    (folder / "model.safetensors").write_bytes(safetensors_bytes(hf_layout(gpt.GPTModel(cfg)), {"format": "pt"}))
    (folder / "config.json").write_text(json.dumps({
        "architectures": ["GPT2LMHeadModel"], "model_type": "gpt2", "vocab_size": cfg["vocab_size"],
        "n_positions": cfg["context_length"], "n_ctx": cfg["context_length"], "n_embd": cfg["emb_dim"],
        "n_layer": cfg["n_layers"], "n_head": cfg["n_heads"], "n_inner": None, "activation_function": "gelu_new",
        "layer_norm_epsilon": 1e-5, "bos_token_id": 50256, "eos_token_id": 50256, "torch_dtype": "float32"}))
    shutil.copy(data_file("gpt2/encoder.json"), folder / "vocab.json")
    shutil.copy(data_file("gpt2/vocab.bpe"), folder / "merges.txt")
    (tmp / "gpt2.json").write_text(json.dumps(cfg))
    common = ["--prompt", PROMPT, "--max-new-tokens", 8, "--temperature", 1.0, "--top-k", 40, "--seed", 5, "--ids"]
    from_folder = run(BIN / "generate", "--model-dir", folder, *common)
    from_file = run(BIN / "generate", "--config", tmp / "gpt2.json", "--load-state-dict", folder / "model.safetensors",
                    *common)
    same = from_folder == from_file
    print(f"gpt2 folder: {'the same text and ids as' if same else 'NOT WHAT'} --load-state-dict gives")
    return not same


def refusals(tmp):
    """Broken folders: exit 1 and one line on stderr that names what is wrong."""
    family, cfg = course_config(ROOT / "configs" / "tiny-qwen3.json")
    torch.manual_seed(123)
    source = MODELS[family](cfg).state_dict()
    good = {h: source[ours] for ours, h in hf_weight_names(family, cfg)}
    config = hf_config(family, cfg, torch.float32, True)
    tokenizer = byte_level_tokenizer()
    big_vocab = byte_level_tokenizer(cfg["vocab_size"] + 1)
    cases = {
        "unknown-architecture": (config | {"architectures": ["MambaForCausalLM"]}, good, None,
                                 r"config.json '.*': architectures names no model this project has; expected one of "
                                 r"GPT2LMHeadModel, LlamaForCausalLM"),
        "unsupported-setting": (config | {"hidden_act": "gelu"}, good, None,
                                r"hidden_act is \"gelu\"; this project's model has \"silu\""),
        "untied-without-head": (config | {"tie_word_embeddings": False}, good, None,
                                r"tie_word_embeddings false, but the weights lack lm_head.weight"),
        "wrong-shape": (config, good | {"model.norm.weight": torch.ones(3)}, None, r"model.norm.weight|final_norm"),
        "integer-tensor": (config, good | {"model.norm.weight": torch.ones(cfg["emb_dim"], dtype=torch.int32)}, None,
                           r"final_norm|model.norm.weight"),
        "missing-tensor": (config, {k: v for k, v in good.items() if k != "model.layers.1.mlp.up_proj.weight"}, None,
                           r"model.layers.1.mlp.up_proj.weight"),
        "vocab-disagrees": (config, good, big_vocab, r"the tokenizer has \d+ tokens, more than config.json's vocab_size 500"),
        "unknown-tokenizer-model": (config, good, tokenizer | {"model": {"type": "WordPiece", "vocab": {}}},
                                    r"tokenizer.json.*WordPiece"),
    }
    failed = False
    for name, (cfg_json, tensors, tok, message) in cases.items():
        folder = tmp / f"bad-{name}"
        write_folder(folder, cfg_json, tensors, 1)
        if tok is not None:
            (folder / "tokenizer.json").write_text(json.dumps(tok, ensure_ascii=False))
        failed |= expect_refusal(name, folder, message)
    # Shards: one missing, one that names a file outside the folder.
    folder = tmp / "bad-shards"
    write_folder(folder, config, good, 2)
    (folder / "model-00002-of-00002.safetensors").unlink()
    failed |= expect_refusal("missing-shard", folder, r"model-00002-of-00002.safetensors")
    index = json.loads((folder / "model.safetensors.index.json").read_text())
    index["weight_map"]["model.norm.weight"] = "../model.safetensors"
    (folder / "model.safetensors.index.json").write_text(json.dumps(index))
    failed |= expect_refusal("shard-outside", folder, r"each weight_map entry must name a file in the folder")
    return failed


def expect_refusal(name, folder, message):
    result = subprocess.run([str(BIN / "generate"), "--model-dir", str(folder), "--max-new-tokens", "1"],
                            capture_output=True, text=True, timeout=120)
    lines = result.stderr.strip().splitlines()
    ok = result.returncode == 1 and len(lines) == 1 and re.search(message, lines[0]) is not None
    print(f"{name}: exit {result.returncode}, {result.stderr.strip()[:200]}{'' if ok else '  <- EXPECTED ' + message}")
    return not ok


def main():
    require_data("gpt2/encoder.json", "gpt2/vocab.bpe")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        failed = check_families(tmp)
        failed |= check_gpt2(tmp)
        failed |= refusals(tmp)
    sys.exit(1 if failed else 0)


main()
