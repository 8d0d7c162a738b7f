#!/usr/bin/python3
"""Plots a training run's losses, as the lesson's plot_losses does: training and
validation loss against epochs, with the tokens seen on a second x axis.

    /usr/bin/python3 scripts/plot_losses.py runs/lesson/metrics.jsonl runs/lesson/losses.png
"""
import json
import sys


def main():
    if len(sys.argv) != 3:
        sys.exit(f"usage: {sys.argv[0]} METRICS.jsonl OUT.png")
    metrics, out = sys.argv[1:]
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit("plot_losses: matplotlib is missing (Debian: apt install python3-matplotlib)")
    try:
        with open(metrics, encoding="utf-8") as f:
            rows = [json.loads(line) for line in f if line.strip()]
    except (OSError, ValueError) as e:
        sys.exit(f"plot_losses: {metrics}: {e}")
    if not rows:
        sys.exit(f"plot_losses: {metrics}: no evaluations to plot")
    epochs = [r["epochs_seen"] for r in rows]
    fig, ax1 = plt.subplots(figsize=(5, 3))
    ax1.plot(epochs, [r["train_loss"] for r in rows], label="Training loss")
    ax1.plot(epochs, [r["val_loss"] for r in rows], linestyle="-.", label="Validation loss")
    ax1.set_xlabel("Epochs")
    ax1.set_ylabel("Loss")
    ax1.legend(loc="upper right")
    ax2 = ax1.twiny()  # the same points against tokens seen
    ax2.plot([r["tokens_seen"] for r in rows], [r["train_loss"] for r in rows], alpha=0)
    ax2.set_xlabel("Tokens seen")
    fig.tight_layout()
    fig.savefig(out, dpi=120)


if __name__ == "__main__":
    main()
