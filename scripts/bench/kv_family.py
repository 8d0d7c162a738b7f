"""Chapter 4's KV-cache family side by side (scripts/bench/kv_family.sh): for each
variant, the course's own gpt_with_kv_<variant>.py on python3-torch
(scripts/reference/course_script.py) and the same model in C++ (bench-kv-family, which
runs it as the lesson steps do), one after the other, with the same flags and threads.
Prints tokens/s as each prints it (all tokens over the time of generate), the ratio,
each process's peak resident memory (from wait4, as the kernel counts it) and whether
both generated the same ids and text.

    python3 kv_family.py BENCH THREADS NEW_TOKENS
"""
import os
import re
import subprocess
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
RUNNER = os.path.join(ROOT, "scripts", "reference", "course_script.py")

# The course's script and its flags for each variant: the scripts' defaults (GPT-2
# 124M's sizes in bfloat16), and for MoE 8 experts of 768, 2 per token.
VARIANTS = [
    ("mha", "gpt_with_kv_mha.py", []),
    ("gqa", "gpt_with_kv_gqa.py", ["--n_kv_groups", "2"]),
    ("mla", "gpt_with_kv_mla.py", []),
    ("swa", "gpt_with_kv_swa.py", ["--sliding_window_size", "1024", "--sliding_window_stride", "2"]),
    ("moe", "gpt_with_kv_moe.py", ["--num_experts", "8", "--num_experts_per_tok", "2", "--hidden_dim", "768"]),
]


def measure(command, threads):
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), MKL_NUM_THREADS=str(threads))
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    stdout = process.stdout.read().decode()
    stderr = process.stderr.read().decode()
    _, status, usage = os.wait4(process.pid, 0)
    if status != 0:
        sys.exit(f"FAILED: {' '.join(command)}: {stderr.strip()[-2000:]}")
    length = int(re.search(r"^Output length: ([0-9]+)$", stdout, re.M).group(1))
    seconds = float(re.search(r"^Time: ([0-9.]+) sec$", stdout, re.M).group(1))
    generated = re.search(r"^Output: .*?^Output text: [^\n]*$", stdout, re.S | re.M).group(0)
    return {"tokens_per_second": length / seconds, "peak_rss": usage.ru_maxrss * 1024, "generated": generated}


def main():
    bench, threads, new_tokens = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    print(f"{'variant':<8} {'C++ tok/s':>10} {'course tok/s':>13} {'C++ / course':>13} {'C++ peak':>10} "
          f"{'course peak':>12} {'same':>5}")
    for variant, script, flags in VARIANTS:
        tokens = ["--max_new_tokens", str(new_tokens)]
        course = measure([sys.executable, RUNNER, script, *tokens, *flags], threads)
        ours_flags = [f.replace("_", "-") if f.startswith("--") else f for f in tokens + flags]
        ours = measure([bench, "--variant", variant, "--threads", str(threads), *ours_flags], threads)
        same = ours["generated"] == course["generated"]
        print(f"{variant:<8} {ours['tokens_per_second']:>10.1f} {course['tokens_per_second']:>13.1f} "
              f"{ours['tokens_per_second'] / course['tokens_per_second']:>12.2f}x {ours['peak_rss'] / 1e9:>8.2f} GB "
              f"{course['peak_rss'] / 1e9:>9.2f} GB {'yes' if same else 'no':>5}", flush=True)


if __name__ == "__main__":
    main()
