#!/usr/bin/python3
"""Draws the attention weights of ch03-07-attention-heads as a grid of heatmaps, one
per head, the tokens on the axes, as the lesson's attention figures show them: rows
are the tokens that attend, columns what they attend to.

    /usr/bin/python3 scripts/plot_attention.py MAPS.json LAYER|all OUT.png

MAPS.json is the explorer's JSON (the executable writes it; --png calls this script).
With "all", each layer is a row of the grid.
"""
import json
import sys


def plain(text):
    """Text that matplotlib shows as it is: a "$" pair would start math mode."""
    return text.replace("$", r"\$")


def label(token):
    shown = token.replace("\n", "\\n").replace("\t", "\\t").lstrip(" ")
    shown = shown or "␣"
    return plain(shown if len(shown) <= 12 else shown[:11] + "…")


def main():
    if len(sys.argv) != 4:
        sys.exit(f"usage: {sys.argv[0]} MAPS.json LAYER|all OUT.png")
    source, which, out = sys.argv[1:]
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit("plot_attention: matplotlib is missing (Debian: apt install python3-matplotlib)")
    try:
        with open(source, encoding="utf-8") as f:
            maps = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"plot_attention: {source}: {e}")
    layers = range(maps["n_layers"]) if which == "all" else [int(which)]
    heads, tokens = maps["n_heads"], [label(t) for t in maps["tokens"]]
    t = len(tokens)
    cell = max(1.6, min(3.2, 0.16 * t + 0.6))  # inches per heatmap
    height = cell * len(layers) + 0.6
    fig, axes = plt.subplots(len(layers), heads, figsize=(cell * heads, height), squeeze=False)
    for row, layer in enumerate(layers):
        for head in range(heads):
            ax = axes[row][head]
            weights = [r + [0.0] * (t - len(r)) for r in maps["layers"][layer][head]["weights"]]
            ax.imshow(weights, cmap="viridis", vmin=0.0, vmax=1.0)
            ax.set_title(f"layer {layer}, head {head}", fontsize=8)
            show_labels = t <= 40
            ax.set_xticks(range(t) if show_labels else [])
            ax.set_yticks(range(t) if show_labels else [])
            if show_labels:
                ax.set_xticklabels(tokens, rotation=90, fontsize=6)
                ax.set_yticklabels(tokens, fontsize=6)
    fig.suptitle(plain(f"Attention weights: {maps['model']}"[:120]), fontsize=9)
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.45 / height))  # the title's room above the grid
    try:
        fig.savefig(out, dpi=110)
    except OSError as e:
        sys.exit(f"plot_attention: {out}: {e}")


if __name__ == "__main__":
    main()
