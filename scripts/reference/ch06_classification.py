"""Lesson 6.2-6.3 as the chapter writes them (ch06.ipynb): create_balanced_dataset,
random_split and SpamDataset, with pandas (Debian's python3-pandas) and PyTorch's
DataLoader. The seed is a parameter where the lesson writes random_state=123;
tiktoken's encoder is gpt2_bpe.Encoder (OpenAI's encoder.py on the same vocabulary).
Lessons 6.4-6.8 and appendix E's LoRA (appendix-E.ipynb) follow, as they write them."""
import io
import math
import zipfile

import pandas as pd
import torch
from torch.utils.data import DataLoader, Dataset

import gpt2_bpe


def read_sms_spam_collection(zip_path):
    """download_and_unzip_spam_data's file, read as the lesson reads it."""
    with zipfile.ZipFile(zip_path, "r") as zip_ref:
        tsv = zip_ref.read("SMSSpamCollection")
    return pd.read_csv(io.BytesIO(tsv), sep="\t", header=None, names=["Label", "Text"])


def read_labelled_tsv(path):
    return pd.read_csv(path, sep="\t", header=None, names=["Label", "Text"])


def create_balanced_dataset(df, seed=123):
    # Count the instances of "spam"
    num_spam = df[df["Label"] == "spam"].shape[0]

    # Randomly sample "ham" instances to match the number of "spam" instances
    ham_subset = df[df["Label"] == "ham"].sample(num_spam, random_state=seed)

    # Combine ham "subset" with "spam"
    balanced_df = pd.concat([ham_subset, df[df["Label"] == "spam"]])

    return balanced_df


def random_split(df, train_frac, validation_frac, seed=123):
    # Shuffle the entire DataFrame
    df = df.sample(frac=1, random_state=seed).reset_index(drop=True)

    # Calculate split indices
    train_end = int(len(df) * train_frac)
    validation_end = train_end + int(len(df) * validation_frac)

    # Split the DataFrame
    train_df = df[:train_end]
    validation_df = df[train_end:validation_end]
    test_df = df[validation_end:]

    return train_df, validation_df, test_df


def prepare(df, train_frac=0.7, validation_frac=0.1, seed=123):
    """The lesson's cells from the table to the three CSV texts (to_csv(index=None))."""
    balanced_df = create_balanced_dataset(df, seed)
    balanced_df["Label"] = balanced_df["Label"].map({"ham": 0, "spam": 1})
    train_df, validation_df, test_df = random_split(balanced_df, train_frac, validation_frac, seed)
    return [split.to_csv(index=None) for split in (train_df, validation_df, test_df)]


class SpamDataset(Dataset):
    def __init__(self, csv_file, tokenizer, max_length=None, pad_token_id=50256):
        self.data = pd.read_csv(csv_file)

        # Pre-tokenize texts
        self.encoded_texts = [
            tokenizer.encode(text) for text in self.data["Text"]
        ]

        if max_length is None:
            self.max_length = self._longest_encoded_length()
        else:
            self.max_length = max_length
            # Truncate sequences if they are longer than max_length
            self.encoded_texts = [
                encoded_text[:self.max_length]
                for encoded_text in self.encoded_texts
            ]

        # Pad sequences to the longest sequence
        self.encoded_texts = [
            encoded_text + [pad_token_id] * (self.max_length - len(encoded_text))
            for encoded_text in self.encoded_texts
        ]

    def __getitem__(self, index):
        encoded = self.encoded_texts[index]
        label = self.data.iloc[index]["Label"]
        return (
            torch.tensor(encoded, dtype=torch.long),
            torch.tensor(label, dtype=torch.long)
        )

    def __len__(self):
        return len(self.data)

    def _longest_encoded_length(self):
        max_length = 0
        for encoded_text in self.encoded_texts:
            encoded_length = len(encoded_text)
            if encoded_length > max_length:
                max_length = encoded_length
        return max_length


def datasets(data_dir, max_length=None, tokenizer=None):
    """The lesson's train, validation and test datasets (the latter two at the training
    length)."""
    tokenizer = tokenizer or gpt2_bpe.Encoder()
    train_dataset = SpamDataset(csv_file=data_dir / "train.csv", max_length=max_length, tokenizer=tokenizer)
    val_dataset = SpamDataset(csv_file=data_dir / "validation.csv", max_length=train_dataset.max_length,
                              tokenizer=tokenizer)
    test_dataset = SpamDataset(csv_file=data_dir / "test.csv", max_length=train_dataset.max_length,
                               tokenizer=tokenizer)
    return train_dataset, val_dataset, test_dataset


def loaders(train_dataset, val_dataset, test_dataset, seed=123, batch_size=8):
    """The lesson's loaders, after its torch.manual_seed(123)."""
    num_workers = 0
    torch.manual_seed(seed)
    train_loader = DataLoader(dataset=train_dataset, batch_size=batch_size, shuffle=True, num_workers=num_workers,
                              drop_last=True)
    val_loader = DataLoader(dataset=val_dataset, batch_size=batch_size, num_workers=num_workers, drop_last=False)
    test_loader = DataLoader(dataset=test_dataset, batch_size=batch_size, num_workers=num_workers, drop_last=False)
    return train_loader, val_loader, test_loader


# Lessons 6.5-6.7. `position` is the lesson's -1 (the last token), or 0 for exercise
# 6.3's first token.
def calc_accuracy_loader(data_loader, model, device, num_batches=None, position=-1):
    model.eval()
    correct_predictions, num_examples = 0, 0

    if num_batches is None:
        num_batches = len(data_loader)
    else:
        num_batches = min(num_batches, len(data_loader))
    for i, (input_batch, target_batch) in enumerate(data_loader):
        if i < num_batches:
            input_batch, target_batch = input_batch.to(device), target_batch.to(device)

            with torch.no_grad():
                logits = model(input_batch)[:, position, :]  # Logits of last output token
            predicted_labels = torch.argmax(logits, dim=-1)

            num_examples += predicted_labels.shape[0]
            correct_predictions += (predicted_labels == target_batch).sum().item()
        else:
            break
    return correct_predictions / num_examples


def calc_loss_batch(input_batch, target_batch, model, device, position=-1):
    input_batch, target_batch = input_batch.to(device), target_batch.to(device)
    logits = model(input_batch)[:, position, :]  # Logits of last output token
    loss = torch.nn.functional.cross_entropy(logits, target_batch)
    return loss


def calc_loss_loader(data_loader, model, device, num_batches=None, position=-1):
    total_loss = 0.
    if len(data_loader) == 0:
        return float("nan")
    elif num_batches is None:
        num_batches = len(data_loader)
    else:
        num_batches = min(num_batches, len(data_loader))
    for i, (input_batch, target_batch) in enumerate(data_loader):
        if i < num_batches:
            loss = calc_loss_batch(input_batch, target_batch, model, device, position)
            total_loss += loss.item()
        else:
            break
    return total_loss / num_batches


def evaluate_model(model, train_loader, val_loader, device, eval_iter, position=-1):
    model.eval()
    with torch.no_grad():
        train_loss = calc_loss_loader(train_loader, model, device, num_batches=eval_iter, position=position)
        val_loss = calc_loss_loader(val_loader, model, device, num_batches=eval_iter, position=position)
    model.train()
    return train_loss, val_loss


def train_classifier_simple(model, train_loader, val_loader, optimizer, device, num_epochs,
                            eval_freq, eval_iter, position=-1):
    # Initialize lists to track losses and examples seen
    train_losses, val_losses, train_accs, val_accs = [], [], [], []
    examples_seen, global_step = 0, -1

    # Main training loop
    for epoch in range(num_epochs):
        model.train()  # Set model to training mode

        for input_batch, target_batch in train_loader:
            optimizer.zero_grad()  # Reset loss gradients from previous batch iteration
            loss = calc_loss_batch(input_batch, target_batch, model, device, position)
            loss.backward()  # Calculate loss gradients
            optimizer.step()  # Update model weights using loss gradients
            examples_seen += input_batch.shape[0]  # New: track examples instead of tokens
            global_step += 1

            # Optional evaluation step
            if global_step % eval_freq == 0:
                train_loss, val_loss = evaluate_model(
                    model, train_loader, val_loader, device, eval_iter, position)
                train_losses.append(train_loss)
                val_losses.append(val_loss)
                print(f"Ep {epoch+1} (Step {global_step:06d}): "
                      f"Train loss {train_loss:.3f}, Val loss {val_loss:.3f}")

        # Calculate accuracy after each epoch
        train_accuracy = calc_accuracy_loader(train_loader, model, device, num_batches=eval_iter, position=position)
        val_accuracy = calc_accuracy_loader(val_loader, model, device, num_batches=eval_iter, position=position)
        print(f"Training accuracy: {train_accuracy*100:.2f}% | ", end="")
        print(f"Validation accuracy: {val_accuracy*100:.2f}%")
        train_accs.append(train_accuracy)
        val_accs.append(val_accuracy)

    return train_losses, val_losses, train_accs, val_accs, examples_seen


def classifier(cfg, seed, num_classes=2, trainable="last-block", weights=None):
    """Lessons 6.4-6.5: the GPT (seeded, or given weights), frozen, a new head after
    torch.manual_seed(seed), and the lesson's parameters unfrozen."""
    from gpt import GPTModel
    torch.manual_seed(seed)
    model = GPTModel(cfg)
    if weights is not None:
        model.load_state_dict(weights)
    for param in model.parameters():
        param.requires_grad = trainable == "all"
    torch.manual_seed(seed)
    model.out_head = torch.nn.Linear(in_features=cfg["emb_dim"], out_features=num_classes)
    if trainable == "last-block":
        for param in model.trf_blocks[-1].parameters():
            param.requires_grad = True
        for param in model.final_norm.parameters():
            param.requires_grad = True
    return model


class LoRALayer(torch.nn.Module):
    """Appendix E's LoRALayer."""
    def __init__(self, in_dim, out_dim, rank, alpha):
        super().__init__()
        self.A = torch.nn.Parameter(torch.empty(in_dim, rank))
        torch.nn.init.kaiming_uniform_(self.A, a=math.sqrt(5))  # similar to standard weight initialization
        self.B = torch.nn.Parameter(torch.zeros(rank, out_dim))
        self.alpha = alpha
        self.rank = rank

    def forward(self, x):
        x = (self.alpha / self.rank) * (x @ self.A @ self.B)
        return x


class LinearWithLoRA(torch.nn.Module):
    """Appendix E's LinearWithLoRA."""
    def __init__(self, linear, rank, alpha):
        super().__init__()
        self.linear = linear
        self.lora = LoRALayer(
            linear.in_features, linear.out_features, rank, alpha
        )

    def forward(self, x):
        return self.linear(x) + self.lora(x)


def replace_linear_with_lora(model, rank, alpha):
    """Appendix E's replace_linear_with_lora."""
    for name, module in model.named_children():
        if isinstance(module, torch.nn.Linear):
            # Replace the Linear layer with LinearWithLoRA
            setattr(model, name, LinearWithLoRA(module, rank, alpha))
        else:
            # Recursively apply the same function to child modules
            replace_linear_with_lora(module, rank, alpha)


def add_lora(model, run, loaders, device):
    """Appendix E's cells between the new head and training: every parameter frozen,
    the accuracy on 10 batches of each split after torch.manual_seed(seed), then a
    LoRA for every Linear."""
    for param in model.parameters():
        param.requires_grad = False
    torch.manual_seed(run["seed"])
    for loader in loaders:
        calc_accuracy_loader(loader, model, device, num_batches=10)
    replace_linear_with_lora(model, rank=run["lora_rank"], alpha=run["lora_alpha"])


def finetune(cfg, run, data_dir):
    """ch06-04-finetune's run, as the lesson's cells make it: the datasets and loaders,
    the classifier, 6.6's accuracies and losses before training, then 6.7's training
    after torch.manual_seed(seed); with lora_rank set, appendix E's LoRA before 6.6's
    numbers. Returns 6.6's numbers (the accuracies, then the losses,
    of the three splits) and train_classifier_simple's lists."""
    seed, device = run["seed"], torch.device("cpu")
    position = -1 if run.get("class_token", "last") == "last" else 0
    train_dataset, val_dataset, test_dataset = datasets(data_dir, run.get("max_length") or None)
    train_loader, val_loader, test_loader = loaders(train_dataset, val_dataset, test_dataset, seed, run["batch_size"])
    model = classifier(cfg, seed, run.get("num_classes", 2), run.get("trainable", "last-block"))
    if run.get("lora_rank"):
        add_lora(model, run, (train_loader, val_loader, test_loader), device)
    torch.manual_seed(seed)
    before = [calc_accuracy_loader(loader, model, device, num_batches=10, position=position)
              for loader in (train_loader, val_loader, test_loader)]
    with torch.no_grad():
        before += [calc_loss_loader(loader, model, device, num_batches=5, position=position)
                   for loader in (train_loader, val_loader, test_loader)]
    torch.manual_seed(seed)
    optimizer = torch.optim.AdamW(model.parameters(), lr=run["lr"], weight_decay=run["weight_decay"])
    return before, train_classifier_simple(model, train_loader, val_loader, optimizer, device, run["num_epochs"],
                                   run["eval_freq"], run["eval_iter"], position)


def classify_review(text, model, tokenizer, device, max_length=None, pad_token_id=50256):
    """Lesson 6.8's classify_review (with the label number returned, not the word)."""
    model.eval()

    # Prepare inputs to the model
    input_ids = tokenizer.encode(text)
    supported_context_length = model.pos_emb.weight.shape[0]

    # Truncate sequences if they too long
    input_ids = input_ids[:min(max_length, supported_context_length)]

    # Pad sequences to the longest sequence
    input_ids += [pad_token_id] * (max_length - len(input_ids))
    input_tensor = torch.tensor(input_ids, device=device).unsqueeze(0)  # add batch dimension

    # Model inference
    with torch.no_grad():
        logits = model(input_tensor)[:, -1, :]  # Logits of the last output token
    return torch.argmax(logits, dim=-1).item()
