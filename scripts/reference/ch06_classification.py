"""Lesson 6.2-6.3 as the chapter writes them (ch06.ipynb): create_balanced_dataset,
random_split and SpamDataset, with pandas (Debian's python3-pandas) and PyTorch's
DataLoader. The seed is a parameter where the lesson writes random_state=123;
tiktoken's encoder is gpt2_bpe.Encoder (OpenAI's encoder.py on the same vocabulary)."""
import io
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
