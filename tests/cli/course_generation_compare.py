"""A chapter-4 bonus step against the course's own script (scripts/reference/course_ch04/,
run as scripts/reference/course_script.py runs it, on python3-torch): for each set of
flags, the step must print the script's generated ids, their count and their text,
the lines the script prints under OUT, exactly; and the logits of the whole generated
sequence, which the step writes with --save-outputs, must be those of the model the
script built, within the bfloat16 tolerance.

    python3 course_generation_compare.py EXE SCRIPT FLAGS [FLAGS...]

FLAGS is one set of the course's flags in one argument ("--emb_dim 64 --n_heads 4");
the step gets the same with dashes.
"""
import contextlib
import io
import os
import re
import runpy
import subprocess
import sys
import tempfile

import torch

REFERENCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "reference")
sys.path.insert(0, REFERENCE)
import course_script  # noqa: E402
from common import TOLERANCES, closeness, require_data  # noqa: E402


def generated(text):
    """From "Output:" to the "Output text:" line: the ids as PyTorch prints them, the count, the text."""
    match = re.search(r"^Output: .*?^Output text: [^\n]*$", text, re.S | re.M)
    return match.group(0) if match else None


def run_course(script, flags):
    """The course's script run as `python SCRIPT FLAGS` runs it, in this process: what
    it prints, and the model its main() built (its GPTModel class, recorded)."""
    sys.modules.setdefault("tiktoken", course_script.tiktoken_shim())
    path = os.path.join(REFERENCE, "course_ch04", script)
    main = runpy.run_path(path, run_name="course")["main"]  # defines everything, runs nothing
    built = []

    class Recorded(main.__globals__["GPTModel"]):
        def __init__(self, cfg):
            super().__init__(cfg)
            built.append(self)

    main.__globals__["GPTModel"] = Recorded
    sys.argv = [path, *flags]
    stdout = io.StringIO()
    with contextlib.redirect_stdout(stdout):
        main()
    return stdout.getvalue(), built[0]


def main():
    exe, script, *flag_sets = sys.argv[1:]
    require_data("gpt2/encoder.json", "gpt2/vocab.bpe")  # the step's tokenizer and tiktoken's stand-in
    for flags in flag_sets:
        course_stdout, course_model = run_course(script, flags.split())
        ours_flags = [f.replace("_", "-") if f.startswith("--") else f for f in flags.split()]
        with tempfile.TemporaryDirectory() as folder:
            outputs = os.path.join(folder, "outputs.pt")
            ours = subprocess.run([exe, *ours_flags, "--save-outputs", outputs], capture_output=True, text=True,
                                  timeout=600)
            if ours.returncode != 0:
                sys.exit(f"FAILED: {exe} {' '.join(ours_flags)} exited {ours.returncode}: {ours.stderr.strip()}")
            saved = torch.load(outputs)
        expected, got = generated(course_stdout), generated(ours.stdout)
        if expected is None or got != expected:
            sys.exit(f"FAILED: {flags}:\n--- the course's\n{expected}\n--- ours\n{got}")
        for line in ("Input text: Hello, I am", "Encoded input text: [15496, 11, 314, 716]"):
            if line not in ours.stdout:
                sys.exit(f"FAILED: {flags}: no line '{line}'")
        for label in re.findall(r"^(Avg [^:]*): [0-9.]+ ms$", course_stdout, re.M):  # the MoE script's timing
            if not re.search(rf"^{re.escape(label)}: [0-9]+\.[0-9]{{3}} ms$", ours.stdout, re.M):
                sys.exit(f"FAILED: {flags}: no line '{label}: N ms'")
        if not re.search(r"^[0-9]+ tokens/sec$", ours.stdout, re.M) or "Max memory (resident): " not in ours.stdout:
            sys.exit(f"FAILED: {flags}: no speed or memory line")
        with torch.no_grad():
            theirs = course_model(saved["generated"], use_cache=False)
        ok, diff, atol, rtol = closeness(saved["logits"], theirs, "bfloat16")
        if not ok or saved["logits"].dtype != torch.bfloat16:
            sys.exit(f"FAILED: {flags}: logits {saved['logits'].dtype} differ from the course's model's by up to "
                     f"{diff:.3g} (atol {atol}, rtol {rtol})")
        print(f"OK {flags}: {expected.splitlines()[-2]}, the same ids and text as the course's; "
              f"logits {tuple(theirs.shape)} within {diff:.3g} of its model's")


if __name__ == "__main__":
    main()
