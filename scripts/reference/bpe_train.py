"""Byte-level BPE training as ch02-03-train-bpe documents it (src/llm/text/bpe_trainer.h),
written apart from the C++ trainer: a reference for compare.py.

GPT-2's pre-tokenizer splits the text (special tokens left out), so no merge crosses
a word boundary. The 256 byte tokens come first, in GPT-2's byte order; each step
merges the adjacent pair that occurs most often, ties going to the smaller left id,
then the smaller right id; the special tokens come last. Encoding applies the
merges by rank inside each word, as GPT-2's encoder does."""
from collections import Counter

from gpt2_bpe import PATTERN, bytes_to_unicode

SPECIAL = "<|endoftext|>"


def byte_ids():
    """GPT-2's byte order: byte -> id 0..255."""
    return {b: i for i, b in enumerate(bytes_to_unicode())}


def words_of(text):
    pieces = []
    for part in text.split(SPECIAL):
        pieces += PATTERN.findall(part)
    return pieces


def merge_word(word, pair, new_id):
    out, i = [], 0
    while i < len(word):
        if i + 1 < len(word) and (word[i], word[i + 1]) == pair:
            out.append(new_id)
            i += 2
        else:
            out.append(word[i])
            i += 1
    return tuple(out)


def train(text, vocab_size):
    if not text.isascii():
        raise ValueError("bpe_train: the reference pre-tokenizer is exact on ASCII text only")
    ids = byte_ids()
    words = Counter(tuple(ids[b] for b in piece.encode("utf-8")) for piece in words_of(text))
    merges = []
    while 256 + len(merges) + 1 < vocab_size:  # room for one more merge before <|endoftext|>
        pairs = Counter()
        for word, count in words.items():
            for pair in zip(word, word[1:]):
                pairs[pair] += count
        if not pairs:
            break
        best = min(pairs, key=lambda p: (-pairs[p], p[0], p[1]))
        new_id = 256 + len(merges)
        merges.append(best)
        merged = Counter()
        for word, count in words.items():
            merged[merge_word(word, best, new_id)] += count
        words = merged
    return merges


def encode(text, merges):
    ids = byte_ids()
    rank = {pair: i for i, pair in enumerate(merges)}
    special_id = 256 + len(merges)
    out = []
    for n, part in enumerate(text.split(SPECIAL)):
        if n > 0:
            out.append(special_id)
        for piece in PATTERN.findall(part):
            word = tuple(ids[b] for b in piece.encode("utf-8"))
            while len(word) > 1:
                best = min(zip(word, word[1:]), key=lambda p: rank.get(p, len(rank)))
                if best not in rank:
                    break
                word = merge_word(word, best, 256 + rank[best])
            out += word
    return out
