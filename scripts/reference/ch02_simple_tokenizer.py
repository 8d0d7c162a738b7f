"""Golden for the simple tokenizers: the lesson's SimpleTokenizerV1/V2 on the-verdict."""
import re

import torch

from common import data_file, save_golden

SPLIT = r'([,.:;?_!"()\']|--|\s)'


class SimpleTokenizerV1:
    def __init__(self, vocab):
        self.str_to_int = vocab
        self.int_to_str = {i: s for s, i in vocab.items()}

    def encode(self, text):
        preprocessed = [item.strip() for item in re.split(SPLIT, text) if item.strip()]
        return [self.str_to_int[s] for s in preprocessed]

    def decode(self, ids):
        text = " ".join([self.int_to_str[i] for i in ids])
        return re.sub(r'\s+([,.?!"()\'])', r'\1', text)


class SimpleTokenizerV2(SimpleTokenizerV1):
    def encode(self, text):
        preprocessed = [item.strip() for item in re.split(SPLIT, text) if item.strip()]
        preprocessed = [item if item in self.str_to_int else "<|unk|>" for item in preprocessed]
        return [self.str_to_int[s] for s in preprocessed]

    def decode(self, ids):
        text = " ".join([self.int_to_str[i] for i in ids])
        return re.sub(r'\s+([,.:;?!"()\'])', r'\1', text)


def main():
    raw_text = data_file("the-verdict.txt").read_text(encoding="utf-8")
    preprocessed = [item.strip() for item in re.split(SPLIT, raw_text) if item.strip()]
    all_words = sorted(set(preprocessed))
    v1 = SimpleTokenizerV1({token: i for i, token in enumerate(all_words)})
    all_tokens = all_words + ["<|endoftext|>", "<|unk|>"]
    v2 = SimpleTokenizerV2({token: i for i, token in enumerate(all_tokens)})

    text_v1 = """"It's the last he painted, you know," Mrs. Gisburn said with pardonable pride."""
    text_v2 = " <|endoftext|> ".join(("Hello, do you like tea?", "In the sunlit terraces of the palace."))
    ids_v1 = v1.encode(text_v1)
    ids_v2 = v2.encode(text_v2)
    print("V1:", ids_v1, v1.decode(ids_v1))
    print("V2:", ids_v2, v2.decode(ids_v2))
    save_golden("ch02-simple-tokenizer", {
        "num_tokens": torch.tensor(len(preprocessed)),
        "vocab_size_v1": torch.tensor(len(all_words)),
        "vocab_size_v2": torch.tensor(len(all_tokens)),
        "ids_v1": torch.tensor(ids_v1),
        "ids_v2": torch.tensor(ids_v2),
        "all_ids_v2": torch.tensor(v2.encode(raw_text)),
    })


if __name__ == "__main__":
    main()
