#!/usr/bin/python3
"""Checks that a lesson step prints the numbers its notebook prints.

    lesson_numbers.py TABLE STEP BIN_DIR

TABLE (docs/lesson-numbers.md) lists, for each step, the notebook cells and the
numbers they print, in order. The step runs with its defaults; the numbers of each row
must appear in its output as one run of consecutive numbers, the rows in the table's
order. A printed value agrees when it is within one unit of its last printed digit
(other CPUs round the last digit differently); integers (ids, counts) must be equal.
Exit 0: all found; 1: a row is missing (the output is shown); 77: the data the step
needs was not fetched (ctest reports a skip).
"""
import math
import os
import pathlib
import re
import subprocess
import sys

NUMBER = re.compile(r"(?<![\w.])-?(?:\d+\.?\d*(?:e[-+]?\d+)?|inf|nan)(?![\w])")


def read_table(path):
    """{step: (needs, [(cell, label, [value text])])} from the markdown table."""
    steps, step = {}, None
    for line in pathlib.Path(path).read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            step = line[3:].split()[0].strip("`")
            steps[step] = ([], [])
        elif step and line.startswith("Needs:"):
            steps[step][0].extend(re.findall(r"`([^`]+)`", line))
        elif step and line.startswith("|") and not line.startswith("|--") and not line.startswith("| Cell"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            if len(cells) == 3:
                steps[step][1].append((cells[0], cells[1], NUMBER.findall(cells[2].replace("`", ""))))
    return steps


def tolerance(text):
    """How far a value printed as `text` may be from it."""
    if "e" in text:
        return 1e-4 + 1e-4 * abs(float(text))
    if text.endswith("."):  # PyTorch's integer mode ("1."): the value was integral
        return 1e-4
    if "." in text:
        decimals = len(text.split(".")[1])
        return 1.01 * 10 ** -decimals
    return 0.0


def agrees(got, want):
    if want in ("inf", "-inf", "nan"):
        return got == want
    if got in ("inf", "-inf", "nan"):
        return False
    return abs(float(got) - float(want)) <= tolerance(want)


def find_run(numbers, values, start):
    """The first index >= start where `values` appear consecutively in `numbers`."""
    for i in range(start, len(numbers) - len(values) + 1):
        if all(agrees(numbers[i + k], v) for k, v in enumerate(values)):
            return i
    return None


def main():
    table, step, bin_dir = sys.argv[1:4]
    steps = read_table(table)
    if step not in steps:
        sys.exit(f"{table}: no section for {step}")
    needs, rows = steps[step]
    data = pathlib.Path(os.environ.get("LLM_DATA_DIR") or pathlib.Path(table).resolve().parents[1] / "data")
    for name in needs:
        if not (data / name).is_file():
            print(f"skipped: {data / name} is missing; run scripts/fetch-data.sh")
            sys.exit(77)
    if not rows:
        sys.exit(f"{table}: the section for {step} has no rows")
    run = subprocess.run([str(pathlib.Path(bin_dir) / step)], capture_output=True, text=True, errors="replace",
                         timeout=600)
    if run.returncode != 0:
        print(run.stdout + run.stderr)
        sys.exit(f"{step} exited {run.returncode}")
    numbers = NUMBER.findall(run.stdout)
    at, failed = 0, False
    for cell, label, values in rows:
        found = find_run(numbers, values, at)
        if found is None:
            print(f"NOT FOUND  cell [{cell}] {label}: {' '.join(values)}")
            failed = True
        else:
            print(f"ok         cell [{cell}] {label}: {len(values)} numbers")
            at = found + len(values)
    if failed:
        print(f"--- {step}'s output:\n{run.stdout}")
        sys.exit(1)


if __name__ == "__main__":
    main()
