#!/usr/bin/python3
"""Compares an archive written by a chapter executable's --save-outputs with PyTorch.

    /usr/bin/python3 scripts/reference/compare.py FILE [--step NAME] [--atol A --rtol R]

The archive is a torch.save dict. This script recognises the step that wrote it by its
keys (or by --step), rebuilds the same computation in plain PyTorch from the saved
inputs and the same seed, prints the largest absolute difference of each output, and
exits 1 when one is not within its tolerance: |ours - PyTorch's| <= atol + rtol *
|PyTorch's| for every element, as torch.allclose has it. Ids and other integers must
be equal.
"""
import argparse
import json
import pathlib
import re
import sys

import torch

import attention
import ch02_data_loader
import ch02_simple_tokenizer as simple
import ch05_notebooks
import ch05_other_llms
import ch05_train
import ch06_classification as ch06
import ch07_instruction as ch07
import ch07_dpo
from common import GOLDEN, TOLERANCES, closeness, data_file
import gpt
import bpe_train
import gpt2_bpe

STEPS = {}


def kind_of(key):
    """The kind of quantity an archive key holds, for its tolerance (common.TOLERANCES)."""
    if key.startswith("grad"):
        return "gradient"
    if key.startswith("history/"):
        return "training"
    return "forward"


def step(name, keys):
    def register(fn):
        STEPS[name] = (set(keys), fn)
        return fn
    return register


@step("ch02-01-simple-tokenizer", ["input", "text", "text_v2", "num_tokens", "vocab_size_v1", "vocab_size_v2",
                                    "ids_v1", "ids_v2"])
def simple_tokenizer(saved, seed):
    """Lessons 2.2-2.4: the lesson's tokenizers, built from the same text, encode the
    same sentences (by default the lesson's)."""
    raw_text = read_text(bytes(saved["input"].tolist()).decode())
    preprocessed = [item.strip() for item in re.split(simple.SPLIT, raw_text) if item.strip()]
    words = sorted(set(preprocessed))
    v1 = simple.SimpleTokenizerV1({t: i for i, t in enumerate(words)})
    v2 = simple.SimpleTokenizerV2({t: i for i, t in enumerate(words + ["<|endoftext|>", "<|unk|>"])})
    return {
        "num_tokens": torch.tensor(len(preprocessed)),
        "vocab_size_v1": torch.tensor(len(words)),
        "vocab_size_v2": torch.tensor(len(words) + 2),
        "ids_v1": torch.tensor(v1.encode(bytes(saved["text"].tolist()).decode())),
        "ids_v2": torch.tensor(v2.encode(bytes(saved["text_v2"].tolist()).decode())),
    }


def fnv1a64(ids):
    """The tiktoken golden's hash: FNV-1a 64 over each id as 4 little-endian bytes."""
    h = 0xcbf29ce484222325
    for i in ids:
        for byte in int(i).to_bytes(4, "little"):
            h = ((h ^ byte) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h


@step("ch02-02-bpe-tokenizer", ["ids", "sample_ids"])
def bpe_tokenizer(saved, seed):
    """Token ids have no PyTorch counterpart; they are checked against tiktoken's, as
    recorded in tests/golden/bpe-tiktoken.json, when the input was one of its books."""
    golden = json.loads((GOLDEN / "bpe-tiktoken.json").read_text())
    ids = saved["ids"].tolist()
    for name, book in golden["files"].items():
        if len(ids) == book["count"] and ids[:20] == book["first"]:
            same = f"{fnv1a64(ids):016x}" == book["fnv1a64"]
            print(f"  ids                  {len(ids)} tokens of {name}: tiktoken's ids "
                  f"{'OK' if same else 'differ  NOT OK'}")
            if not same:
                sys.exit(1)
            return {}
    sys.exit("compare: the ids are not of a book the tiktoken golden knows; nothing to compare")


@step("ch02-03-train-bpe", ["input", "vocab_size", "ids", "merges"])
def train_bpe(saved, seed):
    """Beyond the lesson: BPE training as bpe_trainer.h documents it, written apart
    (bpe_train.py), on the same text and vocabulary size."""
    text = read_text(bytes(saved["input"].tolist()).decode())
    merges = bpe_train.train(text, int(saved["vocab_size"]))
    return {"merges": torch.tensor(merges, dtype=torch.int64).view(-1, 2),
            "ids": torch.tensor(bpe_train.encode(text, merges), dtype=torch.int64)}


@step("ch02-04-data-sampling", ["input", "max_length", "stride", "batch_size", "shuffle", "drop_last",
                                 "inputs_0", "targets_0"])
def data_sampling(saved, seed):
    """Lesson 2.6's create_dataloader_v1 on the same text with the same settings: the
    batches the executable showed, then the lesson's batch of 8 with stride max_length."""
    raw_text = read_text(bytes(saved["input"].tolist()).decode())
    token_ids = gpt2_bpe.Encoder().encode(raw_text)
    max_length, stride = int(saved["max_length"]), int(saved["stride"])
    torch.manual_seed(seed)
    loader = torch.utils.data.DataLoader(ch02_data_loader.GPTDatasetV1(token_ids, max_length, stride),
                                         batch_size=int(saved["batch_size"]), shuffle=bool(saved["shuffle"]),
                                         drop_last=bool(saved["drop_last"]))
    out = {}
    shown = sum(1 for key in saved if key.startswith("inputs_"))
    for n, (inputs, targets) in zip(range(shown), loader):
        out[f"inputs_{n}"], out[f"targets_{n}"] = inputs, targets
    wide = torch.utils.data.DataLoader(ch02_data_loader.GPTDatasetV1(token_ids, max_length, max_length), batch_size=8,
                                       shuffle=False, drop_last=bool(saved["drop_last"]))
    for inputs, targets in wide:
        out["wide_inputs"], out["wide_targets"] = inputs, targets
        break
    return out


@step("ch02-05-embeddings", ["small_weight", "small_ids", "inputs", "token_embeddings", "pos_embeddings",
                             "input_embeddings"])
def embeddings(saved, seed):
    torch.manual_seed(seed)
    small = torch.nn.Embedding(6, 3)
    vocab_size, output_dim = 50257, saved["token_embeddings"].shape[-1]
    max_length = saved["inputs"].shape[1]
    token_embedding = torch.nn.Embedding(vocab_size, output_dim)
    torch.empty((), dtype=torch.int64).random_()  # the DataLoader's base seed, drawn at iter()
    pos_embedding = torch.nn.Embedding(max_length, output_dim)
    with torch.no_grad():
        token_embeddings = token_embedding(saved["inputs"])
        pos_embeddings = pos_embedding(torch.arange(max_length))
        return {
            "small_weight": small.weight,
            "token_embeddings": token_embeddings,
            "pos_embeddings": pos_embeddings,
            "input_embeddings": token_embeddings + pos_embeddings,
        }


def as_string(tensor):
    return bytes(tensor.tolist()).decode()


def string_tensor(text):
    return torch.tensor(list(text.encode()), dtype=torch.uint8)


@step("ch06-01-data", ["dataset", "source", "out_dir", "train_frac", "validation_frac", "train_csv",
                       "validation_csv", "test_csv"])
def spam_data(saved, seed):
    """Lesson 6.2 on the same table: the SMS Spam Collection's zip, or the SpamAssassin
    table the executable wrote (its conversion of the e-mails is not a lesson step);
    the three CSV files the lesson's to_csv writes, byte for byte."""
    if as_string(saved["dataset"]) == "sms":
        df = ch06.read_sms_spam_collection(as_string(saved["source"]))
    else:
        df = ch06.read_labelled_tsv(pathlib.Path(as_string(saved["out_dir"])) / "SpamAssassin.tsv")
    csvs = ch06.prepare(df, float(saved["train_frac"]), float(saved["validation_frac"]), seed)
    return {key: string_tensor(csv) for key, csv in zip(("train_csv", "validation_csv", "test_csv"), csvs)}


@step("ch06-02-loaders", ["data_dir", "batch_size", "max_length_flag", "max_length", "train_inputs",
                          "validation_inputs", "test_inputs", "first_batch_inputs", "first_batch_labels",
                          "last_batch_inputs", "last_batch_labels", "batches"])
def spam_loaders(saved, seed):
    """Lesson 6.3: SpamDataset on the same CSV files and the lesson's loaders after
    torch.manual_seed(seed); the padded ids, the first and last training batch."""
    flag = int(saved["max_length_flag"])
    train, val, test = ch06.datasets(pathlib.Path(as_string(saved["data_dir"])), flag if flag > 0 else None)
    train_loader, val_loader, test_loader = ch06.loaders(train, val, test, seed, int(saved["batch_size"]))
    batches = list(train_loader)
    return {"max_length": torch.tensor(train.max_length),
            "train_inputs": torch.tensor(train.encoded_texts, dtype=torch.long),
            "validation_inputs": torch.tensor(val.encoded_texts, dtype=torch.long),
            "test_inputs": torch.tensor(test.encoded_texts, dtype=torch.long),
            "first_batch_inputs": batches[0][0], "first_batch_labels": batches[0][1],
            "last_batch_inputs": batches[-1][0], "last_batch_labels": batches[-1][1],
            "batches": torch.tensor([len(train_loader), len(val_loader), len(test_loader)])}


@step("ch06-03-classifier", ["config", "weights", "num_classes", "trainable", "inputs", "continuation_1",
                             "continuation_2", "trainable_parameters", "classifier_outputs"])
def spam_classifier(saved, seed):
    """Lessons 6.4-6.5: the same GPT (the seed's weights; a weights file is not replayed)
    continues the lesson's two texts greedily; then frozen, given a new head after
    torch.manual_seed(seed) and partly unfrozen, it gives the same outputs."""
    import gpt
    if as_string(saved["weights"]):
        sys.exit("compare: ch06-03-classifier with a weights file: run it without --load-state-dict to compare")
    cfg = json.loads(as_string(saved["config"]))
    torch.manual_seed(seed)
    model = gpt.GPTModel(cfg)
    model.eval()
    encode = gpt2_bpe.Encoder().encode
    texts = {"continuation_1": ("Every effort moves you", 15),
             "continuation_2": ("Is the following text 'spam'? Answer with 'yes' or 'no': 'You are a winner you have "
                                "been specially selected to receive $1000 cash or a $2000 award.'", 23)}
    out = {key: gpt.generate_text_simple(model, torch.tensor([encode(text)]), n, cfg["context_length"])
           for key, (text, n) in texts.items()}
    trainable = as_string(saved["trainable"])
    for param in model.parameters():
        param.requires_grad = trainable == "all"
    torch.manual_seed(seed)
    model.out_head = torch.nn.Linear(in_features=cfg["emb_dim"], out_features=int(saved["num_classes"]))
    if trainable == "last-block":
        for param in list(model.trf_blocks[-1].parameters()) + list(model.final_norm.parameters()):
            param.requires_grad = True
    with torch.no_grad():
        out["classifier_outputs"] = model(saved["inputs"])
    out["trainable_parameters"] = torch.tensor(sum(p.numel() for p in model.parameters() if p.requires_grad))
    return out


def data_path(name):
    """A data file as a run names it: the path as given, else the data folder's file."""
    return pathlib.Path(name) if pathlib.Path(name).exists() else data_file(name)


@step("ch07-01-data", ["data", "prompt_style", "entries", "split_sizes", "prompt_0", "prompt_1"])
def instruction_data(saved, seed):
    """Lesson 7.2: the same entries formatted by the lesson's format_input (or exercise
    7.1's format_input_phi) with their responses, and the lesson's split."""
    data = ch07.load(data_path(as_string(saved["data"])))
    style = as_string(saved["prompt_style"])
    out = {}
    for k, index in enumerate(saved["entries"].tolist()):
        prompt, response = ch07.prompt_and_response(data[index], style)
        out[f"prompt_{k}"] = string_tensor(prompt + response)
    train, test, val = ch07.split(data)
    out["split_sizes"] = torch.tensor([len(train), len(val), len(test)])
    return out


@step("ch07-02-batching", ["data", "batch_size", "allowed_max_length", "prompt_style", "mask_instructions",
                           "toy_inputs", "toy_targets", "losses", "train_lengths", "last_inputs", "last_targets"])
def instruction_batching(saved, seed):
    """Lesson 7.3: custom_collate_fn on the lesson's toy batch, its loss example, and the
    loaders after torch.manual_seed(seed): every training batch's length and the last
    batch (exercise 7.2's masking collate when asked)."""
    toy_inputs, toy_targets = ch07.custom_collate_fn(([0, 1, 2, 3, 4], [5, 6], [7, 8, 9]))
    logits_2 = torch.tensor([[-1.0, 1.0], [-0.5, 1.5], [-0.5, 1.5]])
    losses = torch.stack([torch.nn.functional.cross_entropy(logits_2[:2], torch.tensor([0, 1])),
                          torch.nn.functional.cross_entropy(logits_2, torch.tensor([0, 1, 1])),
                          torch.nn.functional.cross_entropy(logits_2, torch.tensor([0, 1, -100]))])
    train, test, val = ch07.split(ch07.load(data_path(as_string(saved["data"]))))
    train_loader, _, _ = ch07.loaders(train, val, test, seed, int(saved["batch_size"]), int(saved["allowed_max_length"]),
                                      as_string(saved["prompt_style"]), bool(int(saved["mask_instructions"])))
    batches = list(train_loader)
    return {"toy_inputs": toy_inputs, "toy_targets": toy_targets, "losses": losses,
            "train_lengths": torch.tensor([inputs.shape[1] for inputs, _ in batches]),
            "last_inputs": batches[-1][0], "last_targets": batches[-1][1]}


def lesson_model(checkpoint):
    """The lesson's GPT with a checkpoint's weights (and appendix E's LoRA wrapper,
    whose weight sits one level down, when the run had one)."""
    cfg = json.loads(as_string(checkpoint["config/model"]))
    run = json.loads(as_string(checkpoint["config/train"]))
    model = gpt.GPTModel(cfg)
    if run.get("lora_rank"):
        ch06.replace_linear_with_lora(model, rank=run["lora_rank"], alpha=run["lora_alpha"])
    state = model.state_dict()
    def name(key):
        module, leaf = key.rsplit(".", 1)
        return key if key in state else f"{module}.linear.{leaf}"
    model.load_state_dict({name(k[len("model/"):]): v for k, v in checkpoint.items() if k.startswith("model/")},
                          strict=False)
    model.eval()
    return model, cfg, run


@step("ch07-04-responses", ["data", "checkpoint", "prompt_style", "max_new_tokens", "responses"])
def instruction_responses(saved, seed):
    """Lesson 7.7: the checkpoint's model in the lesson's code answers every test
    entry with the lesson's generate (greedy, eos 50256); the responses must be the
    same text."""
    if not as_string(saved["checkpoint"]):
        sys.exit("compare: ch07-04-responses from a state dict: run it with --checkpoint to compare")
    model, cfg, _ = lesson_model(torch.load(as_string(saved["checkpoint"])))
    _, test, _ = ch07.split(ch07.load(data_path(as_string(saved["data"]))))
    style = as_string(saved["prompt_style"])
    texts = [ch07.response(model, entry, cfg, style, int(saved["max_new_tokens"])) for entry in test]
    return {"responses": string_tensor("\x00".join(texts))}


@step("ch07-06-preference-data", ["data", "batch_size", "allowed_max_length", "split_sizes", "example_chosen",
                                  "example_rejected", "example_chosen_mask", "example_rejected_mask", "train_lengths"])
def preference_data(saved, seed):
    """The DPO notebook's data: its split, custom_collate_fn on the first two entries,
    and after torch.manual_seed(seed) the training loader's batch lengths."""
    data = ch07.load(data_path(as_string(saved["data"])))
    train, test, val = ch07.split(data)
    allowed = int(saved["allowed_max_length"])
    example = ch07_dpo.PreferenceDataset(data[:2], gpt2_bpe.Encoder())
    batch = ch07_dpo.custom_collate_fn([example[0], example[1]], allowed_max_length=allowed)
    torch.manual_seed(seed)
    train_loader, _ = ch07_dpo.loaders(train, val, allowed, int(saved["batch_size"]))
    return {"split_sizes": torch.tensor([len(train), len(val), len(test)]),
            "example_chosen": batch["chosen"], "example_rejected": batch["rejected"],
            "example_chosen_mask": batch["chosen_mask"], "example_rejected_mask": batch["rejected_mask"],
            "train_lengths": torch.tensor([b["chosen"].shape[1] for b in train_loader])}


@step("ch03-01-simplified-attention", ["input", "scores", "weights", "context"])
def simplified_attention(saved, seed):
    # The lesson's sentence, or torch.rand drawn right after the seed.
    torch.manual_seed(seed)
    inputs = attention.attention_input(tuple(saved["input"].shape)).detach()
    scores, weights, context = attention.simplified_self_attention(inputs)
    return {"input": inputs, "scores": scores, "weights": weights, "context": context}


def attention_run(saved, seed):
    """Replays the executable's run in PyTorch: seed, build the same module, take the
    same input, forward in training mode, draw grad_output, backward. The initial
    weights, the input and grad_output must be equal; they are compared too."""
    kind = bytes(saved["kind"].tolist()).decode()
    run = attention.run_case(kind, attention.config_from(saved), tuple(saved["input"].shape), seed)
    return {k: v for k, v in run.items() if k in saved and k not in ("kind", "seed") and not k.startswith("config/")}


@step("ch04-04-shortcuts", ["grad_means_without", "grad_means_with"])
def shortcuts(saved, seed):
    out = {}
    for shortcut in (False, True):
        torch.manual_seed(seed)
        model = gpt.ExampleDeepNeuralNetwork([3, 3, 3, 3, 3, 1], use_shortcut=shortcut)
        loss = torch.nn.MSELoss()(model(torch.tensor([[1.0, 0.0, -1.0]])), torch.tensor([[0.0]]))
        loss.backward()
        means = [p.grad.abs().mean().item() for name, p in model.named_parameters() if "weight" in name]
        out["grad_means_with" if shortcut else "grad_means_without"] = torch.tensor(means, dtype=torch.float64)
    return out


def layer_norm_lesson():
    """Lesson 4.2 as the notebook runs it, right after torch.manual_seed(123)."""
    batch_example = torch.randn(2, 5)
    layer = torch.nn.Sequential(torch.nn.Linear(5, 6), torch.nn.ReLU())
    out = layer(batch_example)
    mean = out.mean(dim=-1, keepdim=True)
    var = out.var(dim=-1, keepdim=True)
    out_norm = (out - mean) / torch.sqrt(var)
    ln = gpt.LayerNorm(emb_dim=6)
    return {"batch_example": batch_example, "out": out, "mean": mean, "var": var, "out_norm": out_norm,
            "out_ln": ln(out)}


def model_run(saved, seed):
    """Replays a chapter-4 run in PyTorch, step by step as the executable ran it."""
    kind = bytes(saved["kind"].tolist()).decode()
    torch.manual_seed(seed)
    if kind == "layer_norm":
        return layer_norm_lesson()
    cfg = gpt.config_from(saved)
    if kind == "dummy_gpt":
        model = gpt.DummyGPTModel(cfg)
        return {"logits": model(saved["inputs"])}
    if kind == "feed_forward":
        points = torch.linspace(-3, 3, 100)  # the lesson's plot
        ff = gpt.FeedForward(cfg)
        x = torch.rand(2, 3, cfg["emb_dim"])
        return {"points": points, "gelu": gpt.GELU()(points), "input": x, "output": ff(x)} | gpt.fingerprints(ff)
    if kind == "transformer_block":
        x = torch.rand(2, 4, cfg["emb_dim"])
        block = gpt.TransformerBlock(cfg)
        return {"input": x, "output": block(x)} | gpt.fingerprints(block)
    if kind == "gpt_model":
        model = gpt.GPTModel(cfg)
        if bool(saved["eval"]):
            model.eval()
        return {"logits": model(saved["inputs"])} | gpt.fingerprints(model)
    if kind == "sample":
        # Lesson 5.3.3: the same weights, torch.manual_seed(seed) right before generate().
        model = recorded_model(cfg, saved)
        model.eval()
        new_tokens = int(saved["max_new_tokens"])
        top_k = int(saved["top_k"]) or None
        eos_id = int(saved["eos_id"]) if int(saved["eos_id"]) >= 0 else None
        torch.manual_seed(seed)
        generated = gpt.generate(model, saved["prompt"], new_tokens, cfg["context_length"],
                                 temperature=float(saved["temperature"]), top_k=top_k, eos_id=eos_id)
        return {"generated": generated}
    if kind == "generate":
        model = gpt.GPTModel(cfg)
        model.eval()
        new_tokens = saved["generated"].shape[1] - saved["prompt"].shape[1]
        generated = gpt.generate_text_simple(model, saved["prompt"], new_tokens, cfg["context_length"])
        return {"generated": generated} | gpt.fingerprints(model)
    if kind == "loss":
        # Lesson 5.1 (and exercise 5.5 with loaded weights, in windows of max_length).
        model = recorded_model(cfg, saved)
        model.eval()
        run = ch05_train.RUN_DEFAULTS
        max_length = int(saved["max_length"]) if "max_length" in saved else 0
        with torch.no_grad():
            logits = model(saved["inputs"])
            loss = torch.nn.functional.cross_entropy(logits.flatten(0, 1), saved["targets"].flatten())
            train_ids, val_ids = ch05_train.split_ids(read_text(bytes(saved["data"].tolist()).decode()), run,
                                                      gpt2_bpe.Encoder().encode)
            window = cfg | {"context_length": max_length or cfg["context_length"]}
            train_loader, val_loader = ch05_train.loaders(window, run, train_ids, val_ids)
            return {"logits": logits, "loss": loss,
                    "train_loss": torch.tensor(ch05_train.calc_loss_loader(train_loader, model), dtype=torch.float64),
                    "val_loss": torch.tensor(ch05_train.calc_loss_loader(val_loader, model), dtype=torch.float64)}
    if kind == "attention_heads":
        # The multi-head lesson's attn_weights in every block, taken where the lesson's
        # MultiHeadAttention (or GroupedQueryAttention) hands them to its dropout: after
        # the softmax, in eval mode.
        model = recorded_model(cfg, saved)
        model.eval()
        weights = []
        hooks = [block.att.dropout.register_forward_pre_hook(lambda module, args: weights.append(args[0][0]))
                 for block in model.trf_blocks]
        with torch.no_grad():
            model(saved["ids"])
        for hook in hooks:
            hook.remove()
        return {"attention_weights": torch.stack(weights)}
    sys.exit(f"compare: unknown kind '{kind}'")


def recorded_model(cfg, saved):
    """The GPT of the archive's config: with its recorded weights ("model/...") when a run
    loaded or trained them, else the seed's initial ones (the caller seeded)."""
    model = gpt.GPTModel(cfg)
    weights = {k[len("model/"):]: v for k, v in saved.items() if k.startswith("model/")}
    if weights:
        model.load_state_dict(weights, strict=False)
    return model


def data_path(name):
    """A file a chapter-5 run read: its path as given, else the data folder's file."""
    return pathlib.Path(name) if pathlib.Path(name).exists() else data_file(name)


def read_text(name):
    return data_path(name).read_text(encoding="utf-8")


def train_run(saved, seed):
    """Replays a ch05-02-train run (its --save-outputs holds its configs) from the start
    in PyTorch; the evaluation history must agree."""
    cfg = json.loads(bytes(saved["config/model"].tolist()).decode())
    run = json.loads(bytes(saved["config/train"].tolist()).decode())
    val_path = data_path(run["val_data"]) if run.get("val_data") else None
    train_ids, val_ids = ch05_train.run_ids(ch05_train.RUN_DEFAULTS | run, data_path(run["data"]), val_path,
                                            gpt2_bpe.Encoder().encode)
    run = {k: v for k, v in run.items() if k in ch05_train.RUN_DEFAULTS}
    history = ch05_train.history_tensors(ch05_train.train(cfg, run, train_ids, val_ids))
    return {k: v for k, v in history.items() if k in saved}


def classify_run(saved, seed):
    """Replays a ch06-04-finetune run (its --save-outputs is its checkpoint) from the
    start with the lesson's code: the losses of every evaluation and the accuracies of
    every epoch must agree."""
    cfg = json.loads(as_string(saved["config/model"]))
    run = json.loads(as_string(saved["config/train"]))
    before, (train_losses, val_losses, train_accs, val_accs, _) = ch06.finetune(cfg, run, pathlib.Path(run["data"]))
    out = {"before_training": torch.tensor(before, dtype=torch.float64)} if "before_training" in saved else {}
    return out | {"history/train_loss": torch.tensor(train_losses, dtype=torch.float64),
            "history/val_loss": torch.tensor(val_losses, dtype=torch.float64),
            "accuracy/train": torch.tensor(train_accs, dtype=torch.float64),
            "accuracy/val": torch.tensor(val_accs, dtype=torch.float64)}


def instruct_run(saved, seed):
    """Replays a ch07-03-finetune run (its --save-outputs is its checkpoint) from the
    start with the lesson's code: the losses before training and of every evaluation
    must agree."""
    cfg = json.loads(as_string(saved["config/model"]))
    run = json.loads(as_string(saved["config/train"]))
    run["data"] = str(data_path(run["data"]))
    before, (train_losses, val_losses, _) = ch07.finetune(cfg, run)
    out = {"before_training": torch.tensor(before, dtype=torch.float64)} if "before_training" in saved else {}
    return out | {"history/train_loss": torch.tensor(train_losses, dtype=torch.float64),
                  "history/val_loss": torch.tensor(val_losses, dtype=torch.float64)}


def dpo_run(saved, seed):
    """Replays a ch07-07-dpo run (its --save-outputs is its checkpoint) from the start
    with the notebook's code: the losses and rewards before training and of every
    evaluation must agree."""
    cfg = json.loads(as_string(saved["config/model"]))
    run = json.loads(as_string(saved["config/train"]))
    run["data"] = str(data_path(run["data"]))
    before, tracking = ch07_dpo.dpo(cfg, run)
    out = {"before_training": torch.tensor(before, dtype=torch.float64)} if "before_training" in saved else {}
    columns = {"history/train_loss": "train_losses", "history/val_loss": "val_losses",
               "history/figure/train_chosen_reward": "train_chosen_rewards",
               "history/figure/train_rejected_reward": "train_rejected_rewards",
               "history/figure/val_chosen_reward": "val_chosen_rewards",
               "history/figure/val_rejected_reward": "val_rejected_rewards"}
    return out | {key: torch.tensor(tracking[name], dtype=torch.float64) for key, name in columns.items()}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file")
    parser.add_argument("--step", choices=sorted(STEPS), help="the executable that wrote FILE (default: by its keys)")
    parser.add_argument("--seed", type=int, default=123,
                        help="the --seed the executable ran with, when the archive does not hold it")
    parser.add_argument("--atol", type=float, help=f"absolute tolerance for every output (default: by kind, {TOLERANCES})")
    parser.add_argument("--rtol", type=float, help="relative tolerance for every output (default: by kind)")
    args = parser.parse_args()

    try:
        saved = torch.load(args.file)
    except Exception as e:  # noqa: BLE001 - any unreadable file is reported the same way
        sys.exit(f"compare: {args.file}: not a torch.save archive ({e})")
    if not isinstance(saved, dict):
        sys.exit(f"compare: {args.file}: expected a dict of tensors, got {type(saved).__name__}")
    seed = int(saved["seed"]) if "seed" in saved else args.seed
    if args.step is None and "kind" in saved:  # a module's run (chapters 3 and 4)
        name = bytes(saved["kind"].tolist()).decode()
        rebuild = (attention_run if name in attention.KINDS else train_run if name == "train"
                   else classify_run if name == "classify" else instruct_run if name == "instruct"
                   else dpo_run if name == "dpo"
                   else ch05_notebooks.rerun if name == "notebook"
                   else ch05_other_llms.rerun if name == "other-llms" else model_run)
    else:
        keys = set(saved) - {"seed"}
        name = args.step or next((n for n, (k, _) in STEPS.items() if k == keys or
                                  (n == "ch02-04-data-sampling" and k <= keys)), None)
        if name is None:
            sys.exit(f"compare: {args.file}: no known step writes the keys {sorted(saved)}; pass --step")
        rebuild = STEPS[name][1]
    print(f"{args.file}: {name}")
    expected = rebuild(saved, seed)
    all_ok = True
    for key, want in expected.items():
        got, want = saved[key], want.detach()
        if got.shape != want.shape:
            print(f"  {key:<20} shape {tuple(got.shape)} != PyTorch's {tuple(want.shape)}  NOT OK")
            all_ok = False
            continue
        if not (got.is_floating_point() or want.is_floating_point()):  # ids, fingerprints: exactly equal
            ok = torch.equal(got, want.to(got.dtype))
            print(f"  {key:<20} {'equal  OK' if ok else 'differ  NOT OK'}")
        else:
            ok, diff, atol, rtol = closeness(got, want, kind_of(key), args.atol, args.rtol)
            print(f"  {key:<20} max |diff| {diff:.3g} (atol {atol:g}, rtol {rtol:g})  {'OK' if ok else 'NOT OK'}")
        all_ok = all_ok and ok
    sys.exit(0 if all_ok else 1)

if __name__ == "__main__":
    main()
