"""Chapter 7 as the lesson writes it (ch07.ipynb, and exercise_experiments.py for the
exercises): format_input, the 85/10/5 split, InstructionDataset, custom_collate_fn,
the loaders, train_model_simple and the responses of 7.7. tiktoken's encoder is
gpt2_bpe.Encoder (OpenAI's encoder.py on the same vocabulary); LoRA is appendix E's
layer (ch06_classification.replace_linear_with_lora)."""
import json
from functools import partial

import torch
from torch.utils.data import DataLoader, Dataset

import ch06_classification as ch06
import gpt
import gpt2_bpe


def format_input(entry):
    instruction_text = (
        f"Below is an instruction that describes a task. "
        f"Write a response that appropriately completes the request."
        f"\n\n### Instruction:\n{entry['instruction']}"
    )

    input_text = f"\n\n### Input:\n{entry['input']}" if entry["input"] else ""

    return instruction_text + input_text


def format_input_phi(entry):
    instruction_text = (
        f"<|user|>\n{entry['instruction']}"
    )

    input_text = f"\n{entry['input']}" if entry["input"] else ""

    return instruction_text + input_text


def prompt_and_response(entry, style):
    """The prompt and the response text of exercise 7.1's style or the lesson's."""
    if style == "phi3":
        return format_input_phi(entry), f"\n<|assistant|>:\n{entry['output']}"
    return format_input(entry), f"\n\n### Response:\n{entry['output']}"


def load(path):
    with open(path, "r", encoding="utf-8") as file:
        return json.load(file)


def split(data):
    train_portion = int(len(data) * 0.85)  # 85% for training
    test_portion = int(len(data) * 0.1)    # 10% for testing

    train_data = data[:train_portion]
    test_data = data[train_portion:train_portion + test_portion]
    val_data = data[train_portion + test_portion:]
    return train_data, test_data, val_data


class InstructionDataset(Dataset):
    """The lesson's InstructionDataset; with mask_instructions, exercise 7.2's
    InstructionDatasetWithMasking (items are then (instruction_length, ids))."""
    def __init__(self, data, tokenizer, style="alpaca", mask_instructions=False):
        self.data = data
        self.mask_instructions = mask_instructions

        # Pre-tokenize texts
        self.encoded_texts = []
        self.instruction_lengths = []
        for entry in data:
            instruction_plus_input, response_text = prompt_and_response(entry, style)
            full_text = instruction_plus_input + response_text
            self.encoded_texts.append(
                tokenizer.encode(full_text)
            )
            self.instruction_lengths.append(len(tokenizer.encode(instruction_plus_input)))

    def __getitem__(self, index):
        if self.mask_instructions:
            return self.instruction_lengths[index], self.encoded_texts[index]
        return self.encoded_texts[index]

    def __len__(self):
        return len(self.data)


def custom_collate_fn(
    batch,
    pad_token_id=50256,
    ignore_index=-100,
    allowed_max_length=None,
    device="cpu"
):
    # Find the longest sequence in the batch
    batch_max_length = max(len(item)+1 for item in batch)

    # Pad and prepare inputs and targets
    inputs_lst, targets_lst = [], []

    for item in batch:
        new_item = item.copy()
        # Add an <|endoftext|> token
        new_item += [pad_token_id]
        # Pad sequences to max_length
        padded = (
            new_item + [pad_token_id] *
            (batch_max_length - len(new_item))
        )
        inputs = torch.tensor(padded[:-1])  # Truncate the last token for inputs
        targets = torch.tensor(padded[1:])  # Shift +1 to the right for targets

        # New: Replace all but the first padding tokens in targets by ignore_index
        mask = targets == pad_token_id
        indices = torch.nonzero(mask).squeeze()
        if indices.numel() > 1:
            targets[indices[1:]] = ignore_index

        # New: Optionally truncate to maximum sequence length
        if allowed_max_length is not None:
            inputs = inputs[:allowed_max_length]
            targets = targets[:allowed_max_length]

        inputs_lst.append(inputs)
        targets_lst.append(targets)

    # Convert list of inputs and targets to tensors and transfer to target device
    inputs_tensor = torch.stack(inputs_lst).to(device)
    targets_tensor = torch.stack(targets_lst).to(device)

    return inputs_tensor, targets_tensor


def custom_collate_with_masking_fn(
    batch,
    pad_token_id=50256,
    ignore_index=-100,
    allowed_max_length=None,
    device="cpu"
):
    # Find the longest sequence in the batch
    batch_max_length = max(len(item)+1 for instruction_length, item in batch)   # New: batch is now a tuple

    # Pad and prepare inputs and targets
    inputs_lst, targets_lst = [], []

    for instruction_length, item in batch:  # New: batch is now a tuple
        new_item = item.copy()
        # Add an <|endoftext|> token
        new_item += [pad_token_id]
        # Pad sequences to max_length
        padded = new_item + [pad_token_id] * (batch_max_length - len(new_item))
        inputs = torch.tensor(padded[:-1])  # Truncate the last token for inputs
        targets = torch.tensor(padded[1:])  # Shift +1 to the right for targets

        # Replace all but the first padding tokens in targets by ignore_index
        mask = targets == pad_token_id
        indices = torch.nonzero(mask).squeeze()
        if indices.numel() > 1:
            targets[indices[1:]] = ignore_index

        # New: Mask all input and instruction tokens in the targets
        targets[:instruction_length-1] = -100

        # Optionally truncate to maximum sequence length
        if allowed_max_length is not None:
            inputs = inputs[:allowed_max_length]
            targets = targets[:allowed_max_length]

        inputs_lst.append(inputs)
        targets_lst.append(targets)

    # Convert list of inputs and targets to tensors and transfer to target device
    inputs_tensor = torch.stack(inputs_lst).to(device)
    targets_tensor = torch.stack(targets_lst).to(device)

    return inputs_tensor, targets_tensor


def loaders(train_data, val_data, test_data, seed=123, batch_size=8, allowed_max_length=1024, style="alpaca",
            mask_instructions=False):
    """Lesson 7.3's loaders, after its torch.manual_seed(123)."""
    tokenizer = gpt2_bpe.Encoder()
    collate = custom_collate_with_masking_fn if mask_instructions else custom_collate_fn
    customized_collate_fn = partial(collate, device="cpu", allowed_max_length=allowed_max_length)
    torch.manual_seed(seed)
    made = []
    for data, train in ((train_data, True), (val_data, False), (test_data, False)):
        dataset = InstructionDataset(data, tokenizer, style, mask_instructions)
        made.append(DataLoader(dataset, batch_size=batch_size, collate_fn=customized_collate_fn, shuffle=train,
                               drop_last=train, num_workers=0))
    return made


def calc_loss_batch(input_batch, target_batch, model, device):
    input_batch, target_batch = input_batch.to(device), target_batch.to(device)
    logits = model(input_batch)
    loss = torch.nn.functional.cross_entropy(logits.flatten(0, 1), target_batch.flatten())
    return loss


def calc_loss_loader(data_loader, model, device, num_batches=None):
    total_loss = 0.
    if len(data_loader) == 0:
        return float("nan")
    elif num_batches is None:
        num_batches = len(data_loader)
    else:
        num_batches = min(num_batches, len(data_loader))
    for i, (input_batch, target_batch) in enumerate(data_loader):
        if i < num_batches:
            loss = calc_loss_batch(input_batch, target_batch, model, device)
            total_loss += loss.item()
        else:
            break
    return total_loss / num_batches


def evaluate_model(model, train_loader, val_loader, device, eval_iter):
    model.eval()
    with torch.no_grad():
        train_loss = calc_loss_loader(train_loader, model, device, num_batches=eval_iter)
        val_loss = calc_loss_loader(val_loader, model, device, num_batches=eval_iter)
    model.train()
    return train_loss, val_loss


def generate_and_print_sample(model, tokenizer, device, start_context):
    model.eval()
    context_size = model.pos_emb.weight.shape[0]
    encoded = torch.tensor(tokenizer.encode(start_context)).unsqueeze(0).to(device)
    with torch.no_grad():
        token_ids = gpt.generate_text_simple(model=model, idx=encoded, max_new_tokens=50, context_size=context_size)
    decoded_text = tokenizer.decode(token_ids.squeeze(0).tolist())
    print(decoded_text.replace("\n", " "))  # Compact print format
    model.train()


def train_model_simple(model, train_loader, val_loader, optimizer, device, num_epochs,
                       eval_freq, eval_iter, start_context, tokenizer):
    # Initialize lists to track losses and tokens seen
    train_losses, val_losses, track_tokens_seen = [], [], []
    tokens_seen, global_step = 0, -1

    # Main training loop
    for epoch in range(num_epochs):
        model.train()  # Set model to training mode

        for input_batch, target_batch in train_loader:
            optimizer.zero_grad()  # Reset loss gradients from previous batch iteration
            loss = calc_loss_batch(input_batch, target_batch, model, device)
            loss.backward()  # Calculate loss gradients
            optimizer.step()  # Update model weights using loss gradients
            tokens_seen += input_batch.numel()
            global_step += 1

            # Optional evaluation step
            if global_step % eval_freq == 0:
                train_loss, val_loss = evaluate_model(
                    model, train_loader, val_loader, device, eval_iter)
                train_losses.append(train_loss)
                val_losses.append(val_loss)
                track_tokens_seen.append(tokens_seen)
                print(f"Ep {epoch+1} (Step {global_step:06d}): "
                      f"Train loss {train_loss:.3f}, Val loss {val_loss:.3f}")

        # Print a sample text after each epoch
        generate_and_print_sample(
            model, tokenizer, device, start_context
        )

    return train_losses, val_losses, track_tokens_seen


def model_for_run(cfg, run):
    """Lesson 7.5's model with the seed's random weights (the lesson loads GPT-2's
    into it), and exercise 7.4's LoRA when the run has one."""
    torch.manual_seed(run["seed"])
    model = gpt.GPTModel(cfg)
    if run.get("lora_rank"):
        for param in model.parameters():
            param.requires_grad = False
        ch06.replace_linear_with_lora(model, rank=run["lora_rank"], alpha=run["lora_alpha"])
    return model


def finetune(cfg, run):
    """ch07-03-finetune's run, as the lesson's cells make it: the split, the loaders,
    the model, 7.5's losses before training after torch.manual_seed(seed), then 7.6's
    training after torch.manual_seed(seed). Returns the losses before training and
    train_model_simple's lists."""
    seed, device = run["seed"], torch.device("cpu")
    style = run.get("prompt_style", "alpaca")
    train_data, test_data, val_data = split(load(run["data"]))
    train_loader, val_loader, _ = loaders(train_data, val_data, test_data, seed, run["batch_size"],
                                          cfg["context_length"], style, run.get("mask_instructions", False))
    model = model_for_run(cfg, run)
    model.eval()
    torch.manual_seed(seed)
    with torch.no_grad():
        before = [calc_loss_loader(train_loader, model, device, num_batches=5),
                  calc_loss_loader(val_loader, model, device, num_batches=5)]
    torch.manual_seed(seed)
    optimizer = torch.optim.AdamW(model.parameters(), lr=run["lr"], weight_decay=run["weight_decay"])
    start_context = prompt_and_response(val_data[0], style)[0]
    return before, train_model_simple(model, train_loader, val_loader, optimizer, device, run["num_epochs"],
                                      run["eval_freq"], run["eval_iter"], start_context, gpt2_bpe.Encoder())


def response(model, entry, cfg, style="alpaca", max_new_tokens=256):
    """Lesson 7.7's response to one entry."""
    tokenizer = gpt2_bpe.Encoder()
    input_text = prompt_and_response(entry, style)[0]
    token_ids = gpt.generate(
        model=model,
        idx=torch.tensor(tokenizer.encode(input_text)).unsqueeze(0),
        max_new_tokens=max_new_tokens,
        context_size=cfg["context_length"],
        eos_id=50256
    )
    generated_text = tokenizer.decode(token_ids.squeeze(0).tolist())
    marker = "<|assistant|>:" if style == "phi3" else "### Response:"
    return generated_text[len(input_text):].replace(marker, "").strip()
