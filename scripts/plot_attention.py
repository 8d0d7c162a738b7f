#!/usr/bin/python3
"""Draws the attention weights of ch03-07-attention-heads as a grid of heatmaps, one
per head, the tokens on the axes, as the lesson's attention figures show them: rows
are the tokens that attend, columns what they attend to.

    /usr/bin/python3 scripts/plot_attention.py MAPS.json LAYER|all OUT.png

MAPS.json is the explorer's JSON (the executable writes it; --png calls this script).
With "all", each layer is a row of the grid; one layer's heads make a near-square grid.
"""
import json
import math
import sys
import textwrap


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
    heads, tokens = maps["n_heads"], [label(t) for t in maps["tokens"]]
    if which == "all":  # a row per layer
        cols, rows = heads, maps["n_layers"]
        panels = [(layer, head) for layer in range(rows) for head in range(heads)]
    else:  # one layer's heads as a near-square grid, not a strip
        cols = math.ceil(math.sqrt(heads))
        rows = math.ceil(heads / cols)
        panels = [(int(which), head) for head in range(heads)]
    t = len(tokens)
    cell = max(1.6, min(3.2, 0.16 * t + 0.6))  # inches per heatmap
    # The title wraps to the figure's width (about 11 characters an inch at its size),
    # and the figure grows by its lines.
    title = textwrap.wrap(plain(f"Attention weights: {maps['model']}"), width=max(30, int(11 * cell * cols)))
    title_room = 0.2 + 0.2 * len(title)
    height = cell * rows + title_room
    # constrained_layout keeps each panel's title clear of the token labels of the row
    # above, and the grid below the wrapped title.
    fig, axes = plt.subplots(rows, cols, figsize=(cell * cols, height), squeeze=False, constrained_layout=True)
    show_labels = t <= 40
    for i, (layer, head) in enumerate(panels):
        ax = axes[i // cols][i % cols]
        weights = [r + [0.0] * (t - len(r)) for r in maps["layers"][layer][head]["weights"]]
        ax.imshow(weights, cmap="viridis", vmin=0.0, vmax=1.0)
        ax.set_title(f"layer {layer}, head {head}", fontsize=8)
        ax.set_xticks(range(t) if show_labels else [])
        ax.set_yticks(range(t) if show_labels else [])
        if show_labels:
            ax.set_xticklabels(tokens, rotation=90, fontsize=6)
            ax.set_yticklabels(tokens, fontsize=6)
    for i in range(len(panels), rows * cols):
        axes[i // cols][i % cols].axis("off")
    fig.suptitle("\n".join(title), fontsize=9)
    try:
        fig.savefig(out, dpi=110)
    except OSError as e:
        sys.exit(f"plot_attention: {out}: {e}")


if __name__ == "__main__":
    main()
