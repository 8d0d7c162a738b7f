"""The bonus notebooks ch05/14_ch05_with_other_llms (ch05-qwen3.ipynb and
ch05-llama32.ipynb, Apache-2.0, rasbt/LLMs-from-scratch): chapter 5's pretraining on
the-verdict with Qwen3 or Llama 3.2 in place of GPT-2. From a ch05-14-other-llms run's
archive (its model config and run settings) this runs the notebooks' code: the course's
model class (llms.py) after torch.manual_seed(123), the untrained model's greedy
continuation, the loaders of the 90/10 split, the losses before training, then
train_model_simple with AdamW after the model is seeded again (stopping after the run's
max_steps, as the C++ trainer does, so that a test can run a few steps).

The notebooks encode with Hugging Face's tokenizers (Qwen3) and tiktoken (Llama 3).
Neither is packaged for python3-torch's Debian, so the split's ids come from
tests/golden/verdict-split-ids.json, written by @lenml/tokenizers (a JavaScript
tokenizer.json reader independent of ours, scripts/reference/tokenizer_json_golden.mjs);
the notebooks' own dataset code then cuts them into windows."""
import json

import torch
from torch.utils.data import DataLoader, Dataset

# Chapter 5's loss helpers with their `device` argument, as the notebooks (and chapter 7) have them.
from ch07_instruction import calc_loss_batch, calc_loss_loader, evaluate_model
from common import GOLDEN, data_file
from gpt import generate_text_simple
from llms import Llama3Model, Qwen3Model

MODELS = {"llama3": Llama3Model, "qwen3": Qwen3Model}
DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}
# The notebooks' run; other settings are the C++ trainer's extensions, which the
# notebooks' code does not have.
NOTEBOOK_RUN = dict(data="the-verdict.txt", train_ratio=0.9, stride=0, sampling="sliding", warmup_steps=0,
                    lr_schedule="constant", grad_clip=0.0, grad_accum=1, val_data="", task="pretrain")


class GoldenTokenizer:
    """The ids @lenml/tokenizers gave the split's two texts."""

    def __init__(self, name, text_data, train_ratio):
        golden = json.loads((GOLDEN / "verdict-split-ids.json").read_text())
        if golden["train_ratio"] != train_ratio or name not in golden["tokenizers"]:
            raise SystemExit(f"compare: the golden holds the {golden['train_ratio']} split "
                             "of Qwen3's and Llama 3's ids")
        split_idx = int(train_ratio * len(text_data))
        ids = golden["tokenizers"][name]
        self.ids = {text_data[:split_idx]: ids["train"], text_data[split_idx:]: ids["val"],
                    "Every effort moves you": ids["start"]}

    def encode(self, text):
        return self.ids[text]


class GPTDatasetV1(Dataset):
    def __init__(self, txt, tokenizer, max_length, stride):
        self.input_ids = []
        self.target_ids = []

        # Tokenize the entire text
        token_ids = tokenizer.encode(txt)

        # Use a sliding window to chunk the book into overlapping sequences of max_length
        for i in range(0, len(token_ids) - max_length, stride):
            input_chunk = token_ids[i:i + max_length]
            target_chunk = token_ids[i + 1: i + max_length + 1]
            self.input_ids.append(torch.tensor(input_chunk))
            self.target_ids.append(torch.tensor(target_chunk))

    def __len__(self):
        return len(self.input_ids)

    def __getitem__(self, idx):
        return self.input_ids[idx], self.target_ids[idx]


def create_dataloader_v1(txt, tokenizer, batch_size=4, max_length=256,
                         stride=128, shuffle=True, drop_last=True, num_workers=0):
    dataset = GPTDatasetV1(txt, tokenizer, max_length, stride)
    return DataLoader(dataset, batch_size=batch_size, shuffle=shuffle, drop_last=drop_last, num_workers=num_workers)


def train_model_simple(model, train_loader, val_loader, optimizer, device, num_epochs, eval_freq, eval_iter,
                       max_steps=0):
    """The notebooks' loop, less generate_and_print_sample (greedy: it draws nothing),
    and, as the C++ trainer's max_steps, an early stop after max_steps steps."""
    train_losses, val_losses, track_tokens_seen = [], [], []
    tokens_seen, global_step = 0, -1
    for epoch in range(num_epochs):
        model.train()
        for input_batch, target_batch in train_loader:
            optimizer.zero_grad()
            loss = calc_loss_batch(input_batch, target_batch, model, device)
            loss.backward()
            optimizer.step()
            tokens_seen += input_batch.numel()
            global_step += 1
            if global_step % eval_freq == 0:
                train_loss, val_loss = evaluate_model(model, train_loader, val_loader, device, eval_iter)
                train_losses.append(train_loss)
                val_losses.append(val_loss)
                track_tokens_seen.append(tokens_seen)
            if max_steps and global_step + 1 >= max_steps:
                return train_losses, val_losses, track_tokens_seen
    return train_losses, val_losses, track_tokens_seen


def notebook_run(model_json, run_json, text_data):
    """The notebook's cells on the run's config: what they print, as tensors."""
    cfg, run = json.loads(model_json), json.loads(run_json)
    for key, value in NOTEBOOK_RUN.items():
        if run.get(key, value) != value and not (key == "stride" and run[key] == cfg["context_length"]):
            raise SystemExit(f"compare: {key} {run[key]!r} is not the notebooks' ({value!r})")
    family = cfg.pop("family")
    cfg["dtype"] = DTYPES[cfg["dtype"]]
    context_length = cfg["context_length"]  # the notebooks' train_context_length
    tokenizer = GoldenTokenizer(run["tokenizer"], text_data, run["train_ratio"])
    device = torch.device("cpu")

    torch.manual_seed(123)
    model = MODELS[family](cfg)
    model.eval()
    start = torch.tensor(tokenizer.encode("Every effort moves you")).unsqueeze(0)
    generated = generate_text_simple(model, start, 10, context_length)

    split_idx = int(run["train_ratio"] * len(text_data))
    torch.manual_seed(123)
    train_loader = create_dataloader_v1(text_data[:split_idx], tokenizer=tokenizer, batch_size=run["batch_size"],
                                        max_length=context_length, stride=context_length, drop_last=True,
                                        shuffle=True, num_workers=0)
    val_loader = create_dataloader_v1(text_data[split_idx:], tokenizer=tokenizer, batch_size=run["batch_size"],
                                      max_length=context_length, stride=context_length, drop_last=False,
                                      shuffle=False, num_workers=0)
    torch.manual_seed(123)
    with torch.no_grad():
        train_loss = calc_loss_loader(train_loader, model, device)
        val_loss = calc_loss_loader(val_loader, model, device)

    torch.manual_seed(run["seed"])
    model = MODELS[family](cfg)
    optimizer = torch.optim.AdamW(model.parameters(), lr=run["lr"], weight_decay=run["weight_decay"])
    train_losses, val_losses, tokens_seen = train_model_simple(
        model, train_loader, val_loader, optimizer, device, num_epochs=run["num_epochs"], eval_freq=run["eval_freq"],
        eval_iter=run["eval_iter"], max_steps=run["max_steps"])
    return {"initial_generated": generated,
            "initial_train_loss": torch.tensor(train_loss, dtype=torch.float64),
            "initial_val_loss": torch.tensor(val_loss, dtype=torch.float64),
            "history/train_loss": torch.tensor(train_losses, dtype=torch.float64),
            "history/val_loss": torch.tensor(val_losses, dtype=torch.float64),
            "history/tokens_seen": torch.tensor(tokens_seen)}


def rerun(saved, seed):
    """compare.py's entry: the notebook run of a ch05-14-other-llms archive."""
    def text(key):
        return bytes(saved[key].tolist()).decode()
    run = json.loads(text("config/train"))
    text_data = data_file(run["data"]).read_text(encoding="utf-8")
    expected = notebook_run(text("config/model"), text("config/train"), text_data)
    return {k: v for k, v in expected.items() if k in saved}
