#!/usr/bin/python3
"""Plots a training run's losses, as the lesson's plot_losses does: training and
validation loss against epochs, with the tokens seen on a second x axis. With
--reward-margins, a DPO run's reward margins instead (the chosen responses' reward
minus the rejected ones', the DPO notebook's second plot_losses).

    /usr/bin/python3 scripts/plot_losses.py runs/lesson/metrics.jsonl runs/lesson/losses.png
    /usr/bin/python3 scripts/plot_losses.py --reward-margins runs/dpo/metrics.jsonl runs/dpo/reward-margins.png
"""
import json
import sys


def main():
    args = sys.argv[1:]
    margins = args[:1] == ["--reward-margins"]
    if margins:
        args = args[1:]
    if len(args) != 2:
        sys.exit(f"usage: {sys.argv[0]} [--reward-margins] METRICS.jsonl OUT.png")
    metrics, out = args
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
    label = "reward margins" if margins else "loss"
    try:
        if margins:
            train = [r["train_chosen_reward"] - r["train_rejected_reward"] for r in rows]
            val = [r["val_chosen_reward"] - r["val_rejected_reward"] for r in rows]
        else:
            train, val = [r["train_loss"] for r in rows], [r["val_loss"] for r in rows]
        epochs, tokens = [r["epochs_seen"] for r in rows], [r["tokens_seen"] for r in rows]
    except (KeyError, TypeError) as e:
        sys.exit(f"plot_losses: {metrics}: a record without {e} (expected a training run's metrics"
                 f"{', of a DPO run' if margins else ''})")
    fig, ax1 = plt.subplots(figsize=(5, 3))
    ax1.plot(epochs, train, label=f"Training {label}")
    ax1.plot(epochs, val, linestyle="-.", label=f"Validation {label}")
    ax1.set_xlabel("Epochs")
    ax1.set_ylabel(label.capitalize())
    ax1.legend(loc="upper right")
    ax2 = ax1.twiny()  # the same points against tokens seen
    ax2.plot(tokens, train, alpha=0)
    ax2.set_xlabel("Tokens seen")
    fig.tight_layout()
    fig.savefig(out, dpi=120)


if __name__ == "__main__":
    main()
