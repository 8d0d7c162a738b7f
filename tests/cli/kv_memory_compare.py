"""ch04-11-kv-memory against the course's own estimators (scripts/reference/course_ch04/,
copies of ch04/0*_*/memory_estimator_*.py): every table it prints must equal, to the
byte, what the course's script prints for the command printed above the table. The
lines of Gated DeltaNet's plot (--save-outputs) must equal those that ch04/08_deltanet's
plot_memory_estimates_gated_deltanet.py draws.

    python3 kv_memory_compare.py EXE
"""
import contextlib
import io
import os
import runpy
import subprocess
import sys

COURSE = os.path.join(os.path.dirname(__file__), "..", "..", "scripts", "reference", "course_ch04")
HEADING = "$ python ch04/"

# With no flags, the READMEs' four tables; then each estimator on other settings:
# another dtype, a latent larger than MHA's cache (negative savings), gigabytes with
# thousands separators, ratios that leave a partial block, a GELU mixture not matched
# to the dense layer, and a match that rounds.
RUNS = [
    [],
    ["--estimator", "gqa", "--dtype", "fp32", "--n-kv-groups", "8", "--batch-size", "3"],
    ["--estimator", "mla", "--latent-dim", "20000", "--context-length", "131072", "--dtype", "int8"],
    ["--estimator", "mla", "--context-length", "1000000", "--n-heads", "7", "--n-kv-groups", "7"],
    ["--estimator", "swa", "--swa-ratio", "1:5", "--n-layers", "26", "--sliding-window-size", "4096"],
    ["--estimator", "swa", "--swa-ratio", "0:1", "--context-length", "512"],
    ["--estimator", "swa", "--swa-ratio", "3:0", "--n-layers", "10", "--sliding-window-size", "100000"],
    ["--estimator", "moe", "--ffn-type", "gelu", "--num-experts", "64", "--top-k", "6", "--match-dense=false"],
    ["--estimator", "moe", "--emb-dim", "1000", "--hidden-dim", "2500", "--num-experts", "3", "--top-k", "3"],
    ["--dtype", "fp8", "--emb-dim", "3072"],
]


def course_output(command):
    """What the course's script prints for `command` (its argv after `python`)."""
    script, *argv = command.split(" ")
    path = os.path.join(COURSE, os.path.basename(script))
    out = io.StringIO()
    saved = sys.argv
    sys.argv = [path] + argv
    try:
        with contextlib.redirect_stdout(out):
            runpy.run_path(path, run_name="__main__")
    finally:
        sys.argv = saved
    return out.getvalue()


def main():
    exe = sys.argv[1]
    tables = 0
    for flags in RUNS:
        printed = subprocess.run([exe] + flags, capture_output=True, text=True, timeout=60)
        if printed.returncode != 0:
            sys.exit(f"FAILED: {exe} {' '.join(flags)} exited {printed.returncode}: {printed.stderr.strip()}")
        blocks = printed.stdout.split("\n" + HEADING)
        if not blocks[0].startswith(HEADING):
            sys.exit(f"FAILED: {' '.join(flags)}: the output does not open with the course's command")
        blocks[0] = blocks[0][len(HEADING):]
        for i, block in enumerate(blocks):
            command, _, table = block.partition("\n")
            command = "ch04/" + command
            expected = course_output(command)
            if table != expected:
                sys.exit(f"FAILED: {' '.join(flags) or '(no flags)'}: python {command}:\n"
                         f"--- the course's\n{expected}--- ours\n{table}")
            tables += 1
        print(f"OK {' '.join(flags) or '(no flags)'}: {len(blocks)} tables equal the course's")
    if tables != 16:  # four, one for each of the eight with --estimator, four
        sys.exit(f"FAILED: {tables} tables compared")
    print(f"OK: {tables} tables")
    check_deltanet(exe)
    check_png(exe)


def course_plot_lines(script):
    """The (label, x, y) of every line the course's plot script draws, with its README's
    flags (its defaults); matplotlib draws nothing and saves nothing."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.axes
    import matplotlib.pyplot as plt
    lines = []
    saved = matplotlib.axes.Axes.plot, matplotlib.axes.Axes.legend, plt.savefig, sys.argv
    matplotlib.axes.Axes.plot = lambda ax, x, y, label=None, **kw: lines.append((label, x, y))
    matplotlib.axes.Axes.legend = plt.savefig = lambda *a, **kw: None
    sys.argv = [script]
    try:
        runpy.run_path(os.path.join(COURSE, script), run_name="__main__")
    finally:
        matplotlib.axes.Axes.plot, matplotlib.axes.Axes.legend, plt.savefig, sys.argv = saved
    return lines


def check_deltanet(exe):
    import tempfile
    import numpy as np
    import torch
    with tempfile.TemporaryDirectory() as folder:
        out = os.path.join(folder, "lines.pt")
        printed = subprocess.run([exe, "--save-outputs", out], capture_output=True, text=True, timeout=60)
        if printed.returncode != 0:
            sys.exit(f"FAILED: --save-outputs: exit {printed.returncode}: {printed.stderr.strip()}")
        ours = torch.load(out)
    course = course_plot_lines("plot_memory_estimates_gated_deltanet.py")
    if len(course) != 3:
        sys.exit(f"FAILED: the course's Gated DeltaNet plot drew {len(course)} lines, expected 3")
    for n, (label, x, y) in enumerate(course):
        for axis, expected in (("x", x), ("y", y)):
            got = ours.get(f"deltanet.{n}.{axis}")
            if got is None or not np.array_equal(got.numpy(), np.asarray(expected, dtype=float)):
                sys.exit(f"FAILED: Gated DeltaNet's line {n} ({label}), {axis}: not the course's")
    print(f"OK: Gated DeltaNet's {len(course)} lines ({len(course[0][1])} points each) equal the course's plot")


def check_png(exe):
    """--png: the five plots (the four estimators' and Gated DeltaNet's) as five panels of
    10 x 5 inches at 100 dpi, one (MoE's, 7 x 5) for one estimator, and a PNG that
    cannot be written: one line, exit 1."""
    import tempfile
    import matplotlib.image
    with tempfile.TemporaryDirectory() as folder:
        for flags, size in ((["--estimator", "all"], (2500, 1000)), (["--estimator", "moe"], (500, 700))):
            out = os.path.join(folder, "kv.png")
            printed = subprocess.run([exe, *flags, "--png", out], capture_output=True, text=True, timeout=120)
            if printed.returncode != 0 or f"Plot: {out}\n" not in printed.stdout:
                sys.exit(f"FAILED: --png {' '.join(flags)}: exit {printed.returncode}: {printed.stderr.strip()}")
            if matplotlib.image.imread(out).shape[:2] != size:
                sys.exit(f"FAILED: --png {' '.join(flags)}: {matplotlib.image.imread(out).shape}, expected {size}")
        # A --png whose folder would be a file: one line, exit 1, the file untouched.
        in_the_way = os.path.join(folder, "a-file")
        open(in_the_way, "w").close()
        bad = subprocess.run([exe, "--png", os.path.join(in_the_way, "kv.png")], capture_output=True, text=True,
                             timeout=120)
        if bad.returncode != 1 or len(bad.stderr.splitlines()) != 1 or "--png" not in bad.stderr:
            sys.exit(f"FAILED: an unwritable --png: exit {bad.returncode}: {bad.stderr}")
        if not os.path.isfile(in_the_way) or os.path.getsize(in_the_way) != 0:
            sys.exit("FAILED: an unwritable --png changed the file in its way")
    print("OK: --png")


if __name__ == "__main__":
    main()
