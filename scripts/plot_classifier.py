#!/usr/bin/python3
"""Plots a classification run as lesson 6.7's plot_values does: training and
validation values against epochs, with the examples seen on a second x axis. The
points are spread evenly over the run, as the lesson's torch.linspace does.

    /usr/bin/python3 scripts/plot_classifier.py loss runs/classify/metrics.jsonl NUM_EPOCHS EXAMPLES losses.png
    /usr/bin/python3 scripts/plot_classifier.py accuracy runs/classify/accuracy.jsonl NUM_EPOCHS EXAMPLES accuracies.png
"""
import json
import sys


def main():
    if len(sys.argv) != 6 or sys.argv[1] not in ("loss", "accuracy"):
        sys.exit(f"usage: {sys.argv[0]} loss|accuracy RECORDS.jsonl NUM_EPOCHS EXAMPLES_SEEN OUT.png")
    label, records, num_epochs, examples_seen, out = sys.argv[1:]
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit("plot_classifier: matplotlib is missing (Debian: apt install python3-matplotlib)")
    try:
        with open(records, encoding="utf-8") as f:
            rows = [json.loads(line) for line in f if line.strip()]
    except (OSError, ValueError) as e:
        sys.exit(f"plot_classifier: {records}: {e}")
    if not rows:
        sys.exit(f"plot_classifier: {records}: nothing to plot")
    key = "_loss" if label == "loss" else "_accuracy"
    train = [r["train" + key] for r in rows]
    val = [r["val" + key] for r in rows]

    def linspace(end):
        n = len(rows)
        return [end * i / (n - 1) for i in range(n)] if n > 1 else [0.0]

    fig, ax1 = plt.subplots(figsize=(5, 3))
    ax1.plot(linspace(float(num_epochs)), train, label=f"Training {label}")
    ax1.plot(linspace(float(num_epochs)), val, linestyle="-.", label=f"Validation {label}")
    ax1.set_xlabel("Epochs")
    ax1.set_ylabel(label.capitalize())
    ax1.legend()
    ax2 = ax1.twiny()  # the same points against the examples seen
    ax2.plot(linspace(float(examples_seen)), train, alpha=0)
    ax2.set_xlabel("Examples seen")
    fig.tight_layout()
    fig.savefig(out, dpi=120)


if __name__ == "__main__":
    main()
