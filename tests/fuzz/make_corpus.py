"""Writes the seed corpus of the fuzz targets (tests/fuzz/corpus/<target>/seed-*).

Run with Debian's python3-torch: /usr/bin/python3 tests/fuzz/make_corpus.py. The
seeds are small on purpose; libFuzzer grows its own corpus from them. Inputs that
once crashed a target are kept beside them as crash-* files and are not rewritten.
"""
import io
import json
import pathlib
import struct
import sys
import zipfile

import torch

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "scripts" / "reference"))
from gpt import GPTModel  # noqa: E402
from hf_gpt2 import hf_layout, safetensors_bytes  # noqa: E402

CORPUS = HERE / "corpus"


def write(target, name, data):
    folder = CORPUS / target
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"seed-{name}").write_bytes(data if isinstance(data, bytes) else data.encode())


def byte_to_unicode():
    printable = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAD)) + list(range(0xAE, 0x100))
    table, shifted = {}, 0
    for b in range(256):
        if b in printable:
            table[b] = chr(b)
        else:
            table[b] = chr(256 + shifted)
            shifted += 1
    return table


def bpe_seeds():
    texts = {
        "prose": "I HAD always thought Jack Gisburn rather a cheap genius--though a good fellow enough.",
        "contractions": "I'm sure you'll see they've gone; it's what we'd said. DON'T Shout",
        "whitespace": "a  b\t\tc\n\n\n   d   \r\n e \u00a0f",
        "numbers": "In 1999, 3.14159 and 42,000 or 1e-9; 0x1F",
        "unicode": "caf\u00e9 na\u0131ve \u4f60\u597d \U0001F600\U0001F44D\u200d e\u0301 \u05e9\u05dc\u05d5\u05dd",
        "special": "end<|endoftext|>start <|endoftext|><|endoftext|> <|endoftext",
        "empty": "",
    }
    for name, text in texts.items():
        write("bpe-roundtrip", name, text)
    write("bpe-roundtrip", "invalid-utf8", b"ok \xc3\x28 \xed\xa0\x80 \xf4\x90\x80\x80 \xc0\xaf")


def vocabulary_seeds():
    table = byte_to_unicode()
    tokens = [table[b] for b in range(256)]
    merges = [("h", "e"), ("l", "l"), ("he", "ll"), ("\u0120", "w"), ("o", "r")]
    for left, right in merges:
        tokens.append(left + right)
    encoder = json.dumps({token: i for i, token in enumerate(tokens)}, ensure_ascii=False)
    vocab_bpe = "#version: 0.2\n" + "".join(f"{left} {right}\n" for left, right in merges)
    write("bpe-vocabulary", "small", encoder + "\0" + vocab_bpe)
    write("bpe-vocabulary", "bytes-only", json.dumps({t: i for i, t in enumerate(tokens[:256])}) + "\0")


def tokenizer_json_seeds():
    """tokenizer.json files, each followed by a NUL and a text to encode."""
    table = byte_to_unicode()
    byte_level_vocab = {table[b]: b for b in range(256)}
    merges = [["h", "e"], ["l", "l"], ["he", "ll"], ["\u0120", "w"], ["o", "r"]]
    for left, right in merges:
        byte_level_vocab[left + right] = len(byte_level_vocab)
    pattern = r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
    byte_level = {
        "added_tokens": [{"id": len(byte_level_vocab), "content": "<|eot|>", "special": True}],
        "normalizer": {"type": "NFC"},
        "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
            {"type": "Split", "pattern": {"Regex": pattern}, "behavior": "Isolated", "invert": False},
            {"type": "ByteLevel", "add_prefix_space": False, "use_regex": False}]},
        "decoder": {"type": "ByteLevel"},
        "model": {"type": "BPE", "vocab": byte_level_vocab, "merges": merges, "ignore_merges": True},
    }
    sentencepiece = {
        "added_tokens": [{"id": 6, "content": "<eos>", "special": True}],
        "normalizer": {"type": "Replace", "pattern": {"String": " "}, "content": "\u2581"},
        "pre_tokenizer": {"type": "Split", "pattern": {"String": " "}, "behavior": "MergedWithPrevious"},
        "decoder": {"type": "Sequence", "decoders": [
            {"type": "Replace", "pattern": {"String": "\u2581"}, "content": " "}, {"type": "ByteFallback"}, {"type": "Fuse"}]},
        "model": {"type": "BPE", "unk_token": "<unk>", "byte_fallback": True,
                  "vocab": {"<unk>": 0, "a": 1, "b": 2, "\u2581": 3, "<0xC3>": 4, "<0xA9>": 5, "<eos>": 6, "ab": 7},
                  "merges": ["a b"]},
    }
    text = "Hello world, it's 12345!\n\n  caf\u00e9 e\u0301 <|eot|><eos> ab ba \u2581x"
    write("tokenizer-json", "byte-level", json.dumps(byte_level, ensure_ascii=False) + "\0" + text)
    write("tokenizer-json", "sentencepiece", json.dumps(sentencepiece, ensure_ascii=False) + "\0" + text)


def config_seeds():
    configs = HERE.parents[1] / "configs"
    for name in ["tiny.json", "tiny-gqa.json", "gpt2-small.json", "train-quick.json"]:
        write("config", name.removesuffix(".json"), (configs / name).read_text())


def archive_bytes(tensors):
    buffer = io.BytesIO()
    torch.save(tensors, buffer)
    return buffer.getvalue()


def tiny_checkpoint():
    """A checkpoint in the trainer's layout (train/checkpoint.h) of a 1-layer model."""
    model_config = {"vocab_size": 12, "context_length": 4, "emb_dim": 4, "n_heads": 2, "n_layers": 1,
                    "drop_rate": 0.0, "qkv_bias": False, "attention": "mha", "n_kv_groups": 0}
    train_config = json.loads((HERE.parents[1] / "configs" / "train-quick.json").read_text())
    torch.manual_seed(123)
    model = GPTModel(model_config)
    optimizer = torch.optim.AdamW(model.parameters(), lr=0.004, weight_decay=0.1)
    model(torch.tensor([[1, 2, 3]])).sum().backward()
    optimizer.step()

    def text(value):
        return torch.tensor(list(value.encode()), dtype=torch.uint8)

    out = {"format": text("libtorch-llm checkpoint 1"), "config/model": text(json.dumps(model_config)),
           "config/train": text(json.dumps(train_config))}
    for name, tensor in model.state_dict().items():
        out["model/" + name] = tensor
    for name, parameter in model.named_parameters():
        state = optimizer.state[parameter]
        out[f"optimizer/{name}/step"] = torch.tensor(int(state["step"]))
        out[f"optimizer/{name}/exp_avg"] = state["exp_avg"]
        out[f"optimizer/{name}/exp_avg_sq"] = state["exp_avg_sq"]
    out.update({"progress/step": torch.tensor(1), "progress/epoch": torch.tensor(0), "progress/batch": torch.tensor(1),
                "progress/tokens_seen": torch.tensor(12), "progress/order": torch.tensor([2, 0, 1])})
    for name in ["step", "epoch", "epochs_seen", "tokens_seen"]:
        out["history/" + name] = torch.tensor([1])
    for name in ["train_loss", "val_loss", "lr"]:
        out["history/" + name] = torch.tensor([2.5], dtype=torch.float64)
    out["rng/cpu"] = torch.get_rng_state()
    return out


def checkpoint_seeds():
    checkpoint = archive_bytes(tiny_checkpoint())
    write("checkpoint", "tiny", checkpoint)
    write("checkpoint", "state-dict", archive_bytes({"weight": torch.arange(6.0).reshape(2, 3)}))
    for name, data in [("tiny-checkpoint", checkpoint),
                       ("views", (HERE.parent / "golden" / "io-views.pt").read_bytes()),
                       ("state-dict", (HERE.parent / "golden" / "io-state-dict.pt").read_bytes())]:
        write("archive", name, archive_records(data))


def safetensors_seeds():
    """The micro GPT-2 of fuzz-safetensors.cpp, in the lesson's names and in Hugging
    Face's layout (F32, and F16 with the prefix)."""
    cfg = dict(vocab_size=10, context_length=4, emb_dim=4, n_heads=2, n_layers=2, drop_rate=0.0, qkv_bias=True)
    torch.manual_seed(1)
    model = GPTModel(cfg)
    lesson = {k: v for k, v in model.state_dict().items() if not k.endswith(".att.mask")}
    write("safetensors", "lesson-names", safetensors_bytes(lesson, {"format": "pt"}))
    hf = hf_layout(model)
    write("safetensors", "hf-layout", safetensors_bytes(hf, {"format": "pt"}))
    write("safetensors", "hf-layout-f16-prefixed",
          safetensors_bytes({"transformer." + k: v.half() for k, v in hf.items()}, {"format": "pt"}))


def zip_seeds():
    """The zip archive of ZipReader's test, written by Python's zipfile."""
    write("zip", "python-zipfile", (HERE.parent / "golden" / "zip-sample.zip").read_bytes())


def csv_seeds():
    """Lesson 6.2's files: the SMS file's kind of text (a tab: odd first byte) and the
    CSV that to_csv writes (a comma: even first byte), quoting included."""
    write("csv", "sms-tsv", b"\x01" + 'ham\tOk lar... Joking wif u oni...\nspam\t"Free entry\nham\tin 2" a wkly comp\n'
          "ham\tU dun say so early hor\r\n\n".encode())
    write("csv", "to-csv", b"\x00" + 'Label,Text\n0,"a, b"\n1,"say ""hi"""\n0,"two\nlines"\n'.encode())


def email_seeds():
    """E-mails as the SpamAssassin corpus holds them: plain with a quoted-printable body
    and an encoded subject, and multipart with an HTML part."""
    write("email", "plain-qp", "From a@example.com  Tue Aug  6 11:51:02 2002\nSubject: =?iso-8859-1?Q?Caf=E9?=\n"
          "Content-Type: text/plain; charset=iso-8859-1\nContent-Transfer-Encoding: quoted-printable\n\n"
          "Cr=E8me br=FBl=E9e for=\n everyone.\n".encode())
    write("email", "multipart-html", 'Subject: Win\n\tbig\nContent-Type: multipart/alternative; boundary="XYZ"\n\n'
          "--XYZ\nContent-Type: text/html\nContent-Transfer-Encoding: base64\n\n"
          "PHA+Q2xpY2smbmJzcDs8Yj5oZXJlPC9iPjwvcD4=\n--XYZ--\n".encode())


def archive_records(data):
    """A torch.save archive as fuzz-archive reads it: data.pkl, then data/0, data/1, ...
    each after the separator \\xffREC."""
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        records = {name.split("/", 1)[1]: archive.read(name) for name in archive.namelist()}
    storages = sorted(int(name.split("/")[1]) for name in records if name.startswith("data/"))
    assert storages == list(range(len(storages))), storages
    return b"\xffREC".join([records["data.pkl"]] + [records[f"data/{k}"] for k in storages])


def http_seeds():
    """Answers of an HTTP server: Ollama's streamed chat (chunked), one with a
    Content-Length, an error object, and one cut inside a chunk."""
    lines = [json.dumps({"message": {"role": "assistant", "content": c}, "done": c == ""}) + "\n"
             for c in ("8", "5", "")]
    body = "".join(f"{len(line):x}\r\n{line}\r\n" for line in lines) + "0\r\n\r\n"
    write("http", "chunked-chat", "HTTP/1.1 200 OK\r\nContent-Type: application/x-ndjson\r\n"
          "Transfer-Encoding: chunked\r\n\r\n" + body)
    reply = lines[0]
    write("http", "content-length", f"HTTP/1.1 200 OK\r\nContent-Length: {len(reply)}\r\n\r\n{reply}")
    error = json.dumps({"error": "model 'llama3' not found"})
    write("http", "error", f"HTTP/1.1 404 Not Found\r\ncontent-length: {len(error)}\r\n\r\n{error}")
    write("http", "cut-chunk", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n40\r\n{\"message\"")


def token_file_seeds():
    """Token files as tools/prepare writes them: GPT-2's uint16 ids, and uint32 ids of
    a larger vocabulary."""
    def token_file(ids, token_bytes, vocab_size):
        header = {"documents": 1, "source": "seed", "source_bytes": 0, "source_hash": "fnv1a64:0000000000000000",
                  "token_bytes": token_bytes, "tokens": len(ids), "version": 1,
                  "vocab_hash": "fnv1a64:8753314878a0e8fa", "vocab_size": vocab_size}
        head = (b"libtorch-llm tokens\n" + json.dumps(header, separators=(",", ":")).encode()).ljust(1023, b" ")
        return head + b"\n" + b"".join(i.to_bytes(token_bytes, "little") for i in ids)
    write("token-file", "uint16", token_file([15496, 11, 995, 0, 50256, 7], 2, 50257))
    write("token-file", "uint32", token_file([70000, 1, 2], 4, 100000))


def instruction_data_seeds():
    """Entries as lesson 7.2's and the DPO notebook's files hold them (the preference
    data's keys in its own order), an entry without "chosen", a wrongly typed field,
    and a list nested 2,000 deep."""
    entry = {"instruction": "Identify the correct spelling of the following word.", "input": "Ocassion",
             "output": "The correct spelling is 'Occasion.'"}
    write("instruction-data", "instruction", json.dumps([entry, {**entry, "input": ""}], indent=4))
    preference = {**entry, "rejected": "The correct spelling is obviously 'Occasion.'",
                  "chosen": "The correct spelling is 'Occasion.'"}
    write("instruction-data", "preference", json.dumps([preference], indent=4))
    write("instruction-data", "no-chosen", json.dumps([{k: v for k, v in preference.items() if k != "chosen"}]))
    write("instruction-data", "wrong-type", json.dumps([{**preference, "chosen": ["a list"]}]))
    write("instruction-data", "nested", "[" * 2000 + "]" * 2000)


def serve_request_seeds():
    # The first byte picks the endpoint: 0 /api/generate, 1 /api/chat, 2 /v1/completions, 3 /v1/chat/completions.
    chat = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}]
    write("serve-request", "ollama-generate", "\x00" + json.dumps(
        {"model": "m", "prompt": "Every effort", "stream": False, "system": "s",
         "options": {"temperature": 0.8, "top_k": 40, "num_predict": 8, "seed": 1, "stop": ["\n"]}}))
    write("serve-request", "ollama-chat", "\x01" + json.dumps({"messages": chat, "think": True}))
    write("serve-request", "openai-completions", "\x02" + json.dumps({"prompt": ["Once"], "max_tokens": 4, "stop": "x"}))
    write("serve-request", "openai-chat", "\x03" + json.dumps(
        {"messages": [{"role": "user", "content": [{"type": "text", "text": "a"}]}], "stream": True, "n": 1}))
    write("serve-request", "wrong-types", "\x03" + json.dumps({"messages": [{"role": 1}], "temperature": "hot"}))
    write("serve-request", "nested", "\x00" + "[" * 2000 + "]" * 2000)


def rendezvous_store_seeds():
    """Request frames as a rank sends them (src/llm/train/rendezvous_store.h): the
    operations 1 set, 2 get, 3 add, 4 compareSet, 5 deleteKey, 6 check, 7 wait,
    8 getNumKeys, and a frame cut short."""
    def request(op, *fields):
        body = bytes([op]) + struct.pack("<I", len(fields))
        body += b"".join(struct.pack("<I", len(f)) + f for f in fields)
        return struct.pack("<I", len(body)) + body
    write("rendezvous-store", "set-get-add", request(1, b"llm/world_size/1", b"2") + request(2, b"llm/world_size/1")
          + request(3, b"count", b"5") + request(3, b"count", b"-2"))
    write("rendezvous-store", "compare-set-delete",
          request(4, b"k", b"", b"v") + request(4, b"k", b"v", b"w") + request(5, b"k") + request(8))
    write("rendezvous-store", "check-wait", request(1, b"a", b"x") + request(6, b"a", b"b") + request(7, b"a")
          + request(7, b"b"))
    write("rendezvous-store", "cut-frame", request(1, b"key", b"value")[:-3])


def hf_config_seeds():
    """config.json as the Hub holds it for the families --model-dir reads."""
    llama = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "vocab_size": 128256,
             "max_position_embeddings": 131072, "hidden_size": 2048, "intermediate_size": 8192,
             "num_attention_heads": 32, "num_hidden_layers": 16, "num_key_value_heads": 8, "head_dim": 64,
             "hidden_act": "silu", "rms_norm_eps": 1e-05, "rope_theta": 500000.0, "attention_bias": False,
             "mlp_bias": False, "tie_word_embeddings": True, "torch_dtype": "bfloat16", "bos_token_id": 128000,
             "rope_scaling": {"factor": 32.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
                              "original_max_position_embeddings": 8192, "rope_type": "llama3"}}
    qwen = {"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "vocab_size": 151936,
            "max_position_embeddings": 40960, "hidden_size": 1024, "intermediate_size": 3072,
            "num_attention_heads": 16, "num_hidden_layers": 28, "num_key_value_heads": 8, "head_dim": 128,
            "hidden_act": "silu", "rms_norm_eps": 1e-06, "rope_theta": 1000000, "rope_scaling": None,
            "use_sliding_window": False, "tie_word_embeddings": True, "torch_dtype": "bfloat16"}
    moe = qwen | {"architectures": ["Qwen3MoeForCausalLM"], "model_type": "qwen3_moe", "hidden_size": 2048,
                  "num_attention_heads": 32, "num_key_value_heads": 4, "num_hidden_layers": 48, "num_experts": 128,
                  "num_experts_per_tok": 8, "moe_intermediate_size": 768, "norm_topk_prob": True,
                  "decoder_sparse_step": 1, "mlp_only_layers": [], "tie_word_embeddings": False}
    gemma = {"architectures": ["Gemma3ForCausalLM"], "model_type": "gemma3_text", "vocab_size": 262144,
             "max_position_embeddings": 32768, "hidden_size": 640, "intermediate_size": 2048,
             "num_attention_heads": 4, "num_hidden_layers": 18, "num_key_value_heads": 1, "head_dim": 256,
             "hidden_activation": "gelu_pytorch_tanh", "rms_norm_eps": 1e-06, "rope_theta": 1000000.0,
             "rope_local_base_freq": 10000.0, "sliding_window": 512, "query_pre_attn_scalar": 256,
             "_sliding_window_pattern": 6, "final_logit_softcapping": None, "attn_logit_softcapping": None,
             "rope_scaling": None, "torch_dtype": "bfloat16"}
    gpt2 = {"architectures": ["GPT2LMHeadModel"], "model_type": "gpt2", "vocab_size": 50257, "n_positions": 1024,
            "n_embd": 768, "n_layer": 12, "n_head": 12, "activation_function": "gelu_new"}
    for name, config in (("llama32-1b", llama), ("qwen3-0.6b", qwen), ("qwen3-30b-a3b", moe),
                         ("gemma3-270m", gemma), ("gpt2", gpt2)):
        write("hf-config", name, json.dumps(config, indent=2))


if __name__ == "__main__":
    hf_config_seeds()
    token_file_seeds()
    bpe_seeds()
    vocabulary_seeds()
    tokenizer_json_seeds()
    config_seeds()
    checkpoint_seeds()
    safetensors_seeds()
    zip_seeds()
    csv_seeds()
    email_seeds()
    http_seeds()
    instruction_data_seeds()
    serve_request_seeds()
    rendezvous_store_seeds()
    for folder in sorted(CORPUS.iterdir()):
        files = list(folder.iterdir())
        print(f"{folder.name}: {len(files)} files, {sum(f.stat().st_size for f in files)} bytes")
