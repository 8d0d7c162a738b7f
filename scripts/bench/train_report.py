"""Reads scripts/bench/train.sh's lines ("CASE SIDE JSON") and prints, per case, the
best tokens/s of each side, their ratio and each side's MFU against its best matmul
peak. The FLOPs per token are 6 x the parameters that take part in matrix products
(all but the token and position embeddings, which are looked up), plus attention's
6 x layers x context x width; a bfloat16 config shows no MFU, its products having
another peak than the float32 one measured. Each side's peak resident memory follows."""
import json
import pathlib
import sys


def main():
    root = pathlib.Path(sys.argv[1])
    best = {}
    for line in sys.stdin:
        case, side, record = line.split(" ", 2)
        record = json.loads(record)
        value = record.get("gflops", record.get("tokens_per_second"))
        if value > best.get((case, side), {}).get("value", 0):
            best[(case, side)] = dict(record, value=value)
    peak = {side: best[("peak", side)]["value"] for side in ("cpp", "py")}
    print(f"float32 matmul peak: C++ {peak['cpp']:.1f} GFLOP/s, PyTorch {peak['py']:.1f} GFLOP/s")
    print(f"{'config':<22} {'C++ tok/s':>10} {'PyTorch tok/s':>14} {'C++ / PyTorch':>14} {'C++ MFU':>8} {'PyTorch MFU':>12}"
          f" {'C++ peak RSS':>13} {'PyTorch peak RSS':>17}")
    for case in dict.fromkeys(c for c, _ in best if c != "peak"):
        config, context = case.split(":")
        cfg = json.loads((root / "configs" / config).read_text())
        t = int(context) or cfg["context_length"]
        cpp, py = best[(case, "cpp")], best[(case, "py")]
        matmul_parameters = cpp["parameters"] - cpp["embedding_parameters"]
        flops_per_token = 6 * matmul_parameters + 6 * cfg["n_layers"] * t * cfg["emb_dim"]
        mfu = {side: flops_per_token * best[(case, side)]["value"] / (peak[side] * 1e9) for side in ("cpp", "py")}
        label = config.removesuffix(".json") + (f" ctx {t}" if int(context) else "")
        rss = {side: best[(case, side)].get("peak_rss", 0) / 2**30 for side in ("cpp", "py")}
        # MFU is against the float32 peak: a bfloat16 model's products run at another peak.
        shown = {side: f"{mfu[side]:.1%}" if cfg.get("dtype", "float32") == "float32" else "n/a" for side in mfu}
        print(f"{label:<22} {cpp['value']:>10.1f} {py['value']:>14.1f} {cpp['value'] / py['value']:>13.2f}x "
              f"{shown['cpp']:>8} {shown['py']:>12} {rss['cpp']:>10.2f} GB {rss['py']:>14.2f} GB")


if __name__ == "__main__":
    main()
