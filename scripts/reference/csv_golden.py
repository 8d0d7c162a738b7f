#!/usr/bin/python3
"""Writes tests/golden/csv-pandas.json: what pandas (Debian's python3-pandas) makes of
tricky delimited text, for the C++ reader and writer of io/csv.h.

    /usr/bin/python3 scripts/reference/csv_golden.py

"read": pd.read_csv(text, sep=sep, header=None, dtype=str, keep_default_na=False): the
rows, or null where pandas refuses the text. "write": DataFrame({"Label": labels,
"Text": texts}).to_csv(index=None)."""
import io
import json

import pandas as pd

from common import GOLDEN

READ = [
    ("ham\tplain text\nspam\tFree entry, txt now\n", "\t"),
    ('ham\ta "quoted" word inside\n', "\t"),
    ('ham\t"opens with a quote\nham\tand runs on" past the line\nspam\tnext\n', "\t"),
    ('ham\t"doubled "" quote" tail\n', "\t"),
    ('ham\t"""leading"" quotes"\n', "\t"),
    ("ham\tx\n\n   \n\t \nspam\t  spaces kept  \n", "\t"),
    ("ham\tcrlf\r\nspam\tcr\rham\tlf\n", "\t"),
    ("ham\tno final newline", "\t"),
    ('ham\tx"\n', "\t"),
    ("Label,Text\n0,plain\n1,\"a, b\"\n0,\"multi\nline\"\n1,\"say \"\"hi\"\"\"\n", ","),
    ("Label,Text\n0,tab\tinside\n1,ünïcödé £ 😀\n", ","),
    ('ham\t"never closed\n', "\t"),
    ('a,"x"y,z\n', ","),
]

WRITE = [
    ([0, 1, 0, 1, 0, 1, 1], ["plain", "a,b", 'say "hi"', "multi\nline", "cr\rinside", " leading space", "tab\tx"]),
    ([1], ['"starts with a quote']),
]


def read(text, sep):
    try:
        df = pd.read_csv(io.StringIO(text), sep=sep, header=None, dtype=str, keep_default_na=False)
    except pd.errors.ParserError:
        return None
    return df.values.tolist()


def main():
    golden = {
        "read": [{"text": text, "sep": sep, "rows": read(text, sep)} for text, sep in READ],
        "write": [{"labels": labels, "texts": texts,
                   "csv": pd.DataFrame({"Label": labels, "Text": texts}).to_csv(index=None)}
                  for labels, texts in WRITE],
    }
    path = GOLDEN / "csv-pandas.json"
    path.write_text(json.dumps(golden, indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
