"""GPT-2's byte-level BPE as OpenAI's original encoder.py runs it, on the vocabulary
files in the data folder: a tokenizer independent of the C++ one and of tiktoken.

The pre-tokenizer is encoder.py's pattern, with the `regex` module (Debian's
python3-regex) for \\p{L} and \\p{N}."""
import json

import regex

from common import data_file

PATTERN = regex.compile(r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+""")


def bytes_to_unicode():
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, map(chr, cs)))


class Encoder:
    def __init__(self):
        self.encoder = json.loads(data_file("gpt2/encoder.json").read_text(encoding="utf-8"))
        merges = data_file("gpt2/vocab.bpe").read_text(encoding="utf-8").split("\n")[1:-1]
        self.ranks = {tuple(m.split()): i for i, m in enumerate(merges)}
        self.byte_encoder = bytes_to_unicode()
        self.cache = {}

    def bpe(self, token):
        if token in self.cache:
            return self.cache[token]
        word = list(token)
        while len(word) > 1:
            pairs = {(a, b) for a, b in zip(word, word[1:])}
            best = min(pairs, key=lambda p: self.ranks.get(p, float("inf")))
            if best not in self.ranks:
                break
            merged, i = [], 0
            while i < len(word):
                if i < len(word) - 1 and (word[i], word[i + 1]) == best:
                    merged.append(word[i] + word[i + 1])
                    i += 2
                else:
                    merged.append(word[i])
                    i += 1
            word = merged
        self.cache[token] = word
        return word

    def encode(self, text):
        ids = []
        for piece in PATTERN.findall(text):
            token = "".join(self.byte_encoder[b] for b in piece.encode("utf-8"))
            ids.extend(self.encoder[t] for t in self.bpe(token))
        return ids

    def decode(self, ids):
        """encoder.py's decode: the tokens' bytes, as UTF-8 with errors="replace"."""
        if not hasattr(self, "decoder"):
            self.decoder = {v: k for k, v in self.encoder.items()}
            self.byte_decoder = {v: k for k, v in self.byte_encoder.items()}
        text = "".join(self.decoder[i] for i in ids)
        return bytearray(self.byte_decoder[c] for c in text).decode("utf-8", errors="replace")
