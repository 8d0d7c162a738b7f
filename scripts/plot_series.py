#!/usr/bin/python3
"""Draws panels of lines, one below the other, into one PNG: the memory plots of
chapter 4's bonus (ch04-11-kv-memory --png). The panels come as a JSON list, each
{title, xlabel, ylabel, xlog, ylog, series: [{label, x, y, marker, linestyle,
color?}], hlines: [{y, label}], grid?, wide?}, computed by the executable; this only draws.

    /usr/bin/python3 scripts/plot_series.py PANELS.json OUT.png
"""
import json
import sys


def draw(ax, panel):
    for s in panel["series"]:
        ax.plot(s["x"], s["y"], marker=s["marker"], linestyle=s["linestyle"], color=s.get("color"), label=s["label"])
    for line in panel.get("hlines", []):
        ax.axhline(line["y"], linestyle=":", color="gray", label=line["label"])
    if panel["xlog"]:
        ax.set_xscale("log")
    if panel["ylog"]:
        ax.set_yscale("log")
    ax.set_xlabel(panel["xlabel"])
    ax.set_ylabel(panel["ylabel"])
    ax.set_title(panel["title"], fontsize=8)
    if panel.get("grid", True):
        ax.grid(True, which="both")
    ax.legend(fontsize=7)


def main():
    if len(sys.argv) != 3:
        sys.exit(f"usage: {sys.argv[0]} PANELS.json OUT.png")
    source, out = sys.argv[1:]
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit("plot_series: matplotlib is missing (Debian: apt install python3-matplotlib)")
    try:
        with open(source, encoding="utf-8") as f:
            panels = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"plot_series: {source}: {e}")
    if not isinstance(panels, list) or not panels:
        sys.exit(f"plot_series: {source}: expected a list of panels")
    width = 10 if any(p.get("wide") for p in panels) else 7
    fig, axes = plt.subplots(len(panels), 1, figsize=(width, 5 * len(panels)), squeeze=False)
    for ax, panel in zip(axes[:, 0], panels):
        draw(ax, panel)
    fig.tight_layout()
    fig.savefig(out, format="png", dpi=100)


if __name__ == "__main__":
    main()
