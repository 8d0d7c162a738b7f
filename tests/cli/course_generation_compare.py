"""A chapter-4 bonus step against the course's own script (scripts/reference/course_ch04/,
run by scripts/reference/course_script.py on python3-torch): for each set of flags,
the step must print the script's generated ids, their count and their text, the
lines the script prints under OUT, exactly.

    python3 course_generation_compare.py EXE SCRIPT FLAGS [FLAGS...]

FLAGS is one set of the course's flags in one argument ("--emb_dim 64 --n_heads 4");
the step gets the same with dashes.
"""
import os
import re
import subprocess
import sys

REFERENCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "reference")
RUNNER = os.path.join(REFERENCE, "course_script.py")
sys.path.insert(0, REFERENCE)
from common import require_data  # noqa: E402


def generated(text):
    """From "Output:" to the "Output text:" line: the ids as PyTorch prints them, the count, the text."""
    match = re.search(r"^Output: .*?^Output text: [^\n]*$", text, re.S | re.M)
    return match.group(0) if match else None


def main():
    exe, script, *flag_sets = sys.argv[1:]
    require_data("gpt2/encoder.json", "gpt2/vocab.bpe")  # the step's tokenizer and tiktoken's stand-in
    for flags in flag_sets:
        course = subprocess.run([sys.executable, RUNNER, script, *flags.split()], capture_output=True, text=True,
                                timeout=600)
        if course.returncode != 0:
            sys.exit(f"FAILED: the course's {script} {flags}: {course.stderr.strip()}")
        ours_flags = [f.replace("_", "-") if f.startswith("--") else f for f in flags.split()]
        ours = subprocess.run([exe, *ours_flags], capture_output=True, text=True, timeout=600)
        if ours.returncode != 0:
            sys.exit(f"FAILED: {exe} {' '.join(ours_flags)} exited {ours.returncode}: {ours.stderr.strip()}")
        expected, got = generated(course.stdout), generated(ours.stdout)
        if expected is None or got != expected:
            sys.exit(f"FAILED: {flags}:\n--- the course's\n{expected}\n--- ours\n{got}")
        for line in ("Input text: Hello, I am", "Encoded input text: [15496, 11, 314, 716]"):
            if line not in ours.stdout:
                sys.exit(f"FAILED: {flags}: no line '{line}'")
        if not re.search(r"^[0-9]+ tokens/sec$", ours.stdout, re.M) or "Max memory (resident): " not in ours.stdout:
            sys.exit(f"FAILED: {flags}: no speed or memory line")
        print(f"OK {flags}: {expected.splitlines()[-2]}, the same ids and text as the course's")


if __name__ == "__main__":
    main()
