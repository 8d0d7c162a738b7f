"""Run by python3 at start when scripts/reference/python3-torch put this folder on
PYTHONPATH: the allocator that script preloaded for this interpreter is taken out of
the environment again, so the programs it starts run with the allocator they link."""
import os

preloaded = os.environ.pop("LLM_PRELOAD_FOR_PYTHON", None)
if preloaded:
    rest = [p for p in os.environ.get("LD_PRELOAD", "").split(":") if p and p != preloaded]
    if rest:
        os.environ["LD_PRELOAD"] = ":".join(rest)
    else:
        os.environ.pop("LD_PRELOAD", None)
