"""Shared helpers of the PyTorch reference scripts (python3-torch 1.13.1)."""
import os
import pathlib
import sys

import torch

ROOT = pathlib.Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "golden"


def data_file(name):
    """A fetched data file, as the C++ side finds it ($LLM_DATA_DIR or data/)."""
    return pathlib.Path(os.environ.get("LLM_DATA_DIR") or ROOT / "data") / name


def require_data(*names):
    """For a test: exits 77 (ctest's SKIP_RETURN_CODE, before any check) naming the
    first of these data files that is missing; returns the data folder."""
    for name in names:
        if not data_file(name).is_file():
            print(f"skipped: {data_file(name)} is missing; run scripts/fetch-data.sh")
            sys.exit(77)
    return data_file("")


def blas_library():
    """The BLAS that libblas.so.3 resolves to (Debian's alternatives: OpenBLAS, BLIS, ...)."""
    import glob
    import os
    for link in sorted(glob.glob("/etc/alternatives/libblas.so.3*")):
        return os.path.realpath(link)
    return "unknown"


def provenance():
    """What made a golden: the CPU (its float kernels round differently), the libraries
    and the date."""
    import datetime
    import platform
    cpu = platform.processor() or platform.machine()
    try:
        for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    flags = pathlib.Path("/proc/cpuinfo").read_text() if pathlib.Path("/proc/cpuinfo").exists() else ""
    return {"cpu": cpu, "avx512": " avx512f " in flags, "machine": platform.machine(),
            "python": platform.python_version(), "torch": torch.__version__,
            "blas": blas_library(),
            "date": datetime.date.today().isoformat()}


def save_golden(name, tensors):
    """Writes tests/golden/<name>.pt, a dict of tensors loadable by torch::pickle_load,
    and records what made it in tests/golden/PROVENANCE.json."""
    import json
    GOLDEN.mkdir(parents=True, exist_ok=True)
    path = GOLDEN / f"{name}.pt"
    torch.save({k: v.detach().clone().contiguous() for k, v in tensors.items()}, path)
    record = GOLDEN / "PROVENANCE.json"
    made = json.loads(record.read_text()) if record.exists() else {}
    made[path.name] = provenance()
    record.write_text(json.dumps(dict(sorted(made.items())), indent=2) + "\n")
    print(f"wrote {path.relative_to(ROOT)} ({path.stat().st_size} bytes)")


# How far our float results may be from PyTorch's, per kind of quantity, as
# torch.allclose has it: |ours - PyTorch's| <= atol + rtol * |PyTorch's|. The same
# table as tests/helpers.h (llm::test::tolerance); docs/testing.md says how the
# values were chosen.
TOLERANCES = {
    "forward": (1e-5, 1e-5),   # activations, logits, attention weights, a forward pass's loss
    "gradient": (1e-5, 1e-4),  # sums over the batch and the tokens
    "training": (1e-5, 1e-5),  # losses and weights after training steps
    "bfloat16": (1e-2, 1e-2),  # bfloat16 results: a last-bit float32 difference can round one step the other way
}


def closeness(ours, theirs, kind, atol=None, rtol=None):
    """(ok, largest |difference|, atol, rtol) of two float tensors under the tolerance of `kind`."""
    default_atol, default_rtol = TOLERANCES[kind]
    atol = default_atol if atol is None else atol
    rtol = default_rtol if rtol is None else rtol
    ours, theirs = ours.detach().double(), theirs.detach().double()
    diff = (ours - theirs).abs().max().item() if ours.numel() else 0.0
    return torch.allclose(ours, theirs, rtol=rtol, atol=atol), diff, atol, rtol
