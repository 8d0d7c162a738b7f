"""Chapter 4's KV-cache family side by side (scripts/bench/kv_family.sh): for each
variant, the course's own gpt_with_kv_<variant>.py on python3-torch
(scripts/reference/course_script.py) and the same model in C++ (bench-kv-family, which
runs it as the lesson steps do), one after the other, with the same flags and threads.
Prints tokens/s as each prints it (all tokens over the time of generate), the ratio,
the peak resident memory while generating (the course's CUDA "Max memory allocated":
the bfloat16 model, the cache, the activations; counted from the model's arrival in
bfloat16 through Linux's clear_refs, which resets the whole process's peak too), and
whether both generated the same ids and text.

    python3 kv_family.py BENCH THREADS NEW_TOKENS ROUNDS [VARIANT...]

With ROUNDS above 1 the two sides alternate that many times and each keeps its best
tokens/s, so that a noisy machine slows both alike.
    python3 kv_family.py --course SCRIPT FLAGS...   (one course script, measured)
"""
import os
import re
import runpy
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "reference"))

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")

# The course's script and its flags for each variant: the scripts' defaults (GPT-2
# 124M's sizes in bfloat16; SWA's window of 1024, which C++ narrows to a shorter
# context, where it changes nothing), and for MoE 8 experts of 768, 2 per token.
VARIANTS = [
    ("mha", "gpt_with_kv_mha.py", []),
    ("gqa", "gpt_with_kv_gqa.py", ["--n_kv_groups", "2"]),
    ("mla", "gpt_with_kv_mla.py", []),
    ("swa", "gpt_with_kv_swa.py", ["--sliding_window_stride", "2"]),
    ("moe", "gpt_with_kv_moe.py", ["--num_experts", "8", "--num_experts_per_tok", "2", "--hidden_dim", "768"]),
]


def vm_hwm():
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmHWM:"))


def run_course(script, flags):
    """The course's script, unmodified, as `python SCRIPT FLAGS` runs it (tiktoken's
    stand-in as scripts/reference/course_script.py has it), with its peak resident
    memory counted from the start of generate_text_simple_cached, and printed after."""
    import course_script

    sys.modules.setdefault("tiktoken", course_script.tiktoken_shim())
    path = os.path.join(ROOT, "scripts", "reference", "course_ch04", script)
    main = runpy.run_path(path, run_name="course")["main"]
    generate, peak = main.__globals__["generate_text_simple_cached"], []

    def measured(*args, **kwargs):
        with open("/proc/self/clear_refs", "w") as refs:
            refs.write("5")
        ids = generate(*args, **kwargs)
        peak.append(vm_hwm())
        return ids

    main.__globals__["generate_text_simple_cached"] = measured
    sys.argv = [path, *flags]
    main()
    print(f"Max memory (resident): {peak[0] / 1024**3:.2f} GB")


def measure(command, threads):
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), MKL_NUM_THREADS=str(threads))
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    stdout = process.stdout.read().decode()
    stderr = process.stderr.read().decode()
    _, status, _ = os.wait4(process.pid, 0)
    if status != 0:
        sys.exit(f"FAILED: {' '.join(command)}: {stderr.strip()[-2000:]}")
    length = int(re.search(r"^Output length: ([0-9]+)$", stdout, re.M).group(1))
    seconds = float(re.search(r"^Time: ([0-9.]+) sec$", stdout, re.M).group(1))
    generated = re.search(r"^Output: .*?^Output text: [^\n]*$", stdout, re.S | re.M).group(0)
    generating = float(re.search(r"^Max memory \(resident\): ([0-9.]+) GB$", stdout, re.M).group(1))
    return {"tokens_per_second": length / seconds, "generating": generating, "generated": generated}


def best(kept, run):
    return run if kept is None or run["tokens_per_second"] > kept["tokens_per_second"] else kept


def main():
    if sys.argv[1] == "--course":
        run_course(sys.argv[2], sys.argv[3:])
        return
    bench, threads, new_tokens, rounds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    picked = sys.argv[5:] or [name for name, _, _ in VARIANTS]
    print(f"{'variant':<8} {'C++ tok/s':>10} {'course tok/s':>13} {'C++ / course':>13} {'C++ memory':>11} "
          f"{'course memory':>14} {'same':>5}")
    for variant, script, flags in (v for v in VARIANTS if v[0] in picked):
        tokens = ["--max_new_tokens", str(new_tokens)]
        ours_flags = [f.replace("_", "-") if f.startswith("--") else f for f in tokens + flags]
        course, ours = None, None
        for _ in range(rounds):
            course = best(course, measure([sys.executable, os.path.abspath(__file__), "--course", script, *tokens,
                                           *flags], threads))
            ours = best(ours, measure([bench, "--variant", variant, "--threads", str(threads), *ours_flags], threads))
        same = ours["generated"] == course["generated"]
        print(f"{variant:<8} {ours['tokens_per_second']:>10.1f} {course['tokens_per_second']:>13.1f} "
              f"{ours['tokens_per_second'] / course['tokens_per_second']:>12.2f}x {ours['generating']:>8.2f} GB "
              f"{course['generating']:>11.2f} GB {'yes' if same else 'no':>5}", flush=True)


if __name__ == "__main__":
    main()
