"""Golden for NumpyRandomState (src/llm/util/numpy_random.h): what NumPy's legacy
RandomState draws, and what pandas' DataFrame.sample makes of it, as lesson 6.2 calls
it on the SMS spam data (747 of the 4825 ham messages, then a shuffle of the 1494
balanced rows, both with random_state=123).

    /usr/bin/python3 scripts/reference/numpy_sample.py

Writes tests/golden/numpy-sample.json.
"""
import json

import numpy as np
import pandas as pd

from common import ROOT

SEED = 123
golden = {"numpy": np.__version__, "pandas": pd.__version__, "seed": SEED, "cases": []}

uint32 = np.random.RandomState(SEED).randint(0, 2**32, size=5, dtype=np.uint32)  # MT19937's raw output
golden["first_uint32"] = [int(v) for v in uint32]
for n in [1, 2, 10, 1000, 1494]:
    golden["cases"].append({"call": "permutation", "n": n,
                            "values": np.random.RandomState(SEED).permutation(n).tolist()})

# Lesson 6.2's create_balanced_dataset and random_split, on a table of the same sizes.
ham = pd.DataFrame({"row": range(4825)})
ham_subset = ham.sample(747, random_state=SEED)
golden["cases"].append({"call": "choice_without_replacement", "n": 4825, "size": 747,
                        "values": ham_subset["row"].tolist()})
balanced = pd.DataFrame({"row": range(1494)})
shuffled = balanced.sample(frac=1, random_state=SEED)
assert shuffled["row"].tolist() == golden["cases"][-2]["values"], "pandas' shuffle is not RandomState.permutation"

out = ROOT / "tests/golden/numpy-sample.json"
out.write_text(json.dumps(golden) + "\n")
print(f"wrote {out.relative_to(ROOT)}")
