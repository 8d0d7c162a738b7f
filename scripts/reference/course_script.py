"""Runs one of the course's chapter-4 bonus scripts (scripts/reference/course_ch04/,
copied unmodified) as `python SCRIPT ARGS...` runs it, on python3-torch (PyTorch 1.13):
tiktoken, which Debian does not package, is OpenAI's encoder.py on the same vocabulary
(gpt2_bpe.Encoder); nothing else changes.

    /usr/bin/python3 scripts/reference/course_script.py gpt_with_kv_mla.py --emb_dim 64 ...
"""
import os
import runpy
import sys
import types

import gpt2_bpe


def tiktoken_shim():
    module = types.ModuleType("tiktoken")
    module.get_encoding = lambda name: gpt2_bpe.Encoder()  # "gpt2", the only encoding the scripts ask for
    return module


def main():
    if len(sys.argv) < 2:
        sys.exit(f"usage: {sys.argv[0]} SCRIPT [ARG...]")
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "course_ch04", os.path.basename(sys.argv[1]))
    sys.modules.setdefault("tiktoken", tiktoken_shim())
    sys.argv = [path] + sys.argv[2:]
    runpy.run_path(path, run_name="__main__")


if __name__ == "__main__":
    main()
