"""Shared by the PyTorch sides of the benchmarks."""
import time


def best_seconds(iters, f):
    """Runs f once to warm up, then iters times, and returns the fastest run's seconds."""
    f()
    best = float("inf")
    for _ in range(iters):
        start = time.perf_counter()
        f()
        best = min(best, time.perf_counter() - start)
    return best
