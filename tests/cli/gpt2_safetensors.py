#!/usr/bin/python3
"""GPT-2 weights in Hugging Face's safetensors layout load as lesson 5.5 loads them,
and go out again.

    gpt2_safetensors.py BIN_DIR

Builds the lesson's GPTModel (configs/tiny.json with qkv_bias, as GPT-2 has), writes
its weights in Hugging Face's GPT-2 layout with this file's own safetensors writer
(scripts/reference/hf_gpt2.py, from the format's definition): F32, F16 and BF16, with and without the
"transformer." prefix, with the output head tied to wte or given as lm_head.weight,
with and without the old attn.bias / attn.masked_bias buffers. For each file the
C++ executables (--load-state-dict) must give
  - the weights of the lesson model loaded as lesson 5.5's load_weights_into_gpt
    loads them (Conv1D weights transposed, c_attn split into query, key, value),
    bit for bit (ch04-06 --save-state-dict);
  - its logits, to the allclose tolerance (ch04-06 --eval --save-outputs);
  - the ids of the lesson's generate(), greedy and sampled after torch.manual_seed
    (generate --save-outputs), for each dtype (a prefixed file's weights are its
    twin's, bit for bit).
Then --save-safetensors writes the layout back: the same keys and bytes as the F32
file without prefix, a config.json for transformers, and a second round trip gives
an identical file. Files that break the layout are refused with a message naming
the key and the config.
"""
import json
import re
import pathlib
import subprocess
import sys
import tempfile

import torch

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts" / "reference"))
from common import require_data  # noqa: E402
import gpt  # noqa: E402
from hf_gpt2 import DTYPES, hf_layout, read_safetensors, safetensors_bytes  # noqa: E402

BIN = pathlib.Path(sys.argv[1])
def load_weights_into_gpt(cfg, params):
    """Lesson 5.5's loading, from these tensors: split c_attn, transpose Conv1D."""
    model = gpt.GPTModel(cfg)
    p = {k.removeprefix("transformer."): v.float() for k, v in params.items()}
    sd = model.state_dict()
    sd["tok_emb.weight"], sd["pos_emb.weight"] = p["wte.weight"], p["wpe.weight"]
    for i in range(cfg["n_layers"]):
        h, o = f"h.{i}.", f"trf_blocks.{i}."
        q_w, k_w, v_w = torch.split(p[h + "attn.c_attn.weight"], cfg["emb_dim"], dim=-1)
        q_b, k_b, v_b = torch.split(p[h + "attn.c_attn.bias"], cfg["emb_dim"], dim=-1)
        sd |= {o + "att.W_query.weight": q_w.T, o + "att.W_key.weight": k_w.T, o + "att.W_value.weight": v_w.T,
               o + "att.W_query.bias": q_b, o + "att.W_key.bias": k_b, o + "att.W_value.bias": v_b,
               o + "att.out_proj.weight": p[h + "attn.c_proj.weight"].T, o + "att.out_proj.bias": p[h + "attn.c_proj.bias"],
               o + "ff.layers.0.weight": p[h + "mlp.c_fc.weight"].T, o + "ff.layers.0.bias": p[h + "mlp.c_fc.bias"],
               o + "ff.layers.2.weight": p[h + "mlp.c_proj.weight"].T, o + "ff.layers.2.bias": p[h + "mlp.c_proj.bias"],
               o + "norm1.scale": p[h + "ln_1.weight"], o + "norm1.shift": p[h + "ln_1.bias"],
               o + "norm2.scale": p[h + "ln_2.weight"], o + "norm2.shift": p[h + "ln_2.bias"]}
    sd["final_norm.scale"], sd["final_norm.shift"] = p["ln_f.weight"], p["ln_f.bias"]
    sd["out_head.weight"] = p.get("lm_head.weight", p["wte.weight"])
    model.load_state_dict({k: v.contiguous() for k, v in sd.items()})
    return model.eval()


def run(*args):
    result = subprocess.run([str(a) for a in args], capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"{pathlib.Path(str(args[0])).name} exit {result.returncode}: {result.stderr.strip()}")
    return result.stdout


def main():
    require_data("gpt2/encoder.json", "gpt2/vocab.bpe")
    cfg = json.loads((ROOT / "configs" / "tiny.json").read_text()) | {"qkv_bias": True}
    torch.manual_seed(11)
    model = gpt.GPTModel(cfg)
    hf = hf_layout(model)
    lm_head = model.out_head.weight.detach().clone()
    mask = torch.tril(torch.ones(cfg["context_length"], cfg["context_length"])).view(1, 1, cfg["context_length"], -1)
    variants = {}
    for dtype in (torch.float32, torch.float16, torch.bfloat16):
        for prefix in ("", "transformer."):
            name = f"{DTYPES[dtype]}{'-prefixed' if prefix else ''}"
            variants[name] = {prefix + k: v.to(dtype) for k, v in hf.items()}
    variants["F32-lm-head-and-buffers"] = hf | {"lm_head.weight": lm_head} | \
        {f"h.{i}.attn.bias": mask.to(torch.bool) for i in range(cfg["n_layers"])} | \
        {f"h.{i}.attn.masked_bias": torch.tensor(-1e4) for i in range(cfg["n_layers"])}

    failed = False
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        out1, out2 = tmp / "out1" / "model.safetensors", tmp / "out2" / "model.safetensors"
        out1.parent.mkdir()
        out2.parent.mkdir()
        config = tmp / "gpt2-tiny.json"
        config.write_text(json.dumps(cfg))
        for name, tensors in variants.items():
            file = tmp / f"{name}.safetensors"
            file.write_bytes(safetensors_bytes(tensors, {"format": "pt"}))
            lesson = load_weights_into_gpt(cfg, tensors)
            try:
                run(BIN / "ch04-06-gpt-model", "--config", config, "--load-state-dict", file, "--eval",
                    "--save-state-dict", tmp / "loaded.pt", "--save-outputs", tmp / "logits.pt")
                loaded = torch.load(tmp / "loaded.pt")
                expected = lesson.state_dict()
                weights_equal = loaded.keys() == expected.keys() and all(torch.equal(loaded[k], expected[k]) for k in expected)
                outputs = torch.load(tmp / "logits.pt")
                with torch.no_grad():
                    logits = lesson(outputs["inputs"])
                logits_close = torch.allclose(outputs["logits"], logits, atol=1e-5, rtol=1e-5)
                # The ids of each dtype (the prefixed files load as their twins, above); the
                # F32 file's greedy run also writes it out again (below).
                checks_ids = "prefixed" not in name
                ids_equal = True
                for temperature, top_k in ((0.0, None), (1.5, 50)) if checks_ids else ():
                    out = ["--save-safetensors", out1] if name == "F32" and temperature == 0.0 else []
                    run(BIN / "generate", "--config", config, "--load-state-dict", file, "--max-new-tokens", 12,
                        "--temperature", temperature, "--top-k", top_k or 0, "--seed", 123,
                        "--save-outputs", tmp / "ids.pt", *out)
                    saved = torch.load(tmp / "ids.pt")
                    torch.manual_seed(123)
                    ids = gpt.generate(lesson, saved["prompt"], 12, cfg["context_length"], temperature=temperature,
                                       top_k=top_k)
                    ids_equal = ids_equal and torch.equal(saved["generated"], ids)
            except RuntimeError as e:
                print(f"{name}: {e}")
                failed = True
                continue
            ids_said = f", greedy and sampled ids {'equal' if ids_equal else 'DIFFERENT'}" if checks_ids else ""
            print(f"{name}: weights {'bit-identical' if weights_equal else 'DIFFERENT'}, logits "
                  f"{'close' if logits_close else 'DIFFERENT'}{ids_said} to the lesson's")
            failed = failed or not (weights_equal and logits_close and ids_equal)

        # Out again: Hugging Face's layout, bit for bit, and a config for transformers.
        run(BIN / "generate", "--config", config, "--load-state-dict", out1, "--max-new-tokens", 1,
            "--save-safetensors", out2)
        written, metadata = read_safetensors(out1.read_bytes())
        same_layout = written.keys() == hf.keys() and all(torch.equal(written[k], hf[k]) for k in hf)
        hf_config = json.loads((out1.parent / "config.json").read_text())
        config_ok = (hf_config["model_type"] == "gpt2" and hf_config["n_embd"] == cfg["emb_dim"]
                     and hf_config["n_layer"] == cfg["n_layers"] and hf_config["n_positions"] == cfg["context_length"]
                     and hf_config["tie_word_embeddings"] is True)  # no lm_head.weight in F32.safetensors
        identical = out1.read_bytes() == out2.read_bytes()
        print(f"--save-safetensors: {'the layout written above' if same_layout else 'A DIFFERENT LAYOUT'} "
              f"(metadata {metadata}); config.json {'fits' if config_ok else 'DOES NOT FIT'}; second round trip "
              f"{'identical' if identical else 'DIFFERENT'}")
        failed = failed or not (same_layout and config_ok and identical)

        # Refusals name the key and the config.
        broken = {
            "missing-key": ({k: v for k, v in hf.items() if k != "h.1.mlp.c_fc.bias"}, "'h.1.mlp.c_fc.bias' is missing"),
            "extra-key": (hf | {"h.0.attn.extra": torch.zeros(2)}, "'h.0.attn.extra' is not part of such a GPT-2"),
            "wrong-shape": (hf | {"wpe.weight": torch.zeros(32, cfg["emb_dim"])},
                            "'wpe.weight' has shape \\[32, 64\\], expected \\[64, 64\\]"),
            "integer-weights": (hf | {"ln_f.bias": torch.zeros(cfg["emb_dim"], dtype=torch.int64)},
                                "'ln_f.bias' is Long, expected floating point"),
        }

        for name, (tensors, message) in broken.items():
            file = tmp / f"{name}.safetensors"
            file.write_bytes(safetensors_bytes(tensors))
            result = subprocess.run([str(BIN / "ch04-06-gpt-model"), "--config", str(config), "--load-state-dict",
                                     str(file)], capture_output=True, text=True)
            ok = result.returncode == 1 and re.search(message, result.stderr) and "context_length 64" in result.stderr
            print(f"{name}: exit {result.returncode}, {result.stderr.strip()[:160]}{'' if ok else '  <- EXPECTED ' + message}")
            failed = failed or not ok
    sys.exit(1 if failed else 0)


main()
