"""Drawn cases of exercise set 10: meta models of drawn layers, widths and dtypes, and the seed that
initialises them (10.1); meta models of drawn Linear and BatchNorm layers, how many stay on the CPU, and the
smallest CPU budget that keeps them there (10.4)."""

from __future__ import annotations

import random

import torch
from torch import nn

from course_utils.bigmodels import module_bytes
from course_utils.checks.nb10 import Block


def _layers(rng: random.Random) -> tuple[str, list]:
    """(what, the constructor calls) of a Sequential: Linear, LayerNorm, BatchNorm1d and a nested block."""
    width = rng.randint(3, 9)
    calls, words = [], []
    for _ in range(rng.randint(2, 5)):
        kind = rng.choice(("linear", "layernorm", "batchnorm", "block", "relu"))
        if kind == "linear":
            out = rng.randint(2, 9)
            calls.append((nn.Linear, (width, out), {"bias": rng.random() < 0.8}))
            words.append(f"Linear({width}, {out})")
            width = out
        elif kind == "layernorm":
            calls.append((nn.LayerNorm, (width,), {}))
            words.append(f"LayerNorm({width})")
        elif kind == "batchnorm":
            calls.append((nn.BatchNorm1d, (width,), {}))
            words.append(f"BatchNorm1d({width})")
        elif kind == "block":
            calls.append((Block, (width,), {}))
            words.append(f"a residual block of width {width} (LayerNorm and Linear nested)")
        else:
            calls.append((nn.ReLU, (), {}))
            words.append("ReLU")
    if all(c[0] is nn.ReLU for c in calls):
        calls.append((nn.Linear, (width, 2), {}))
        words.append(f"Linear({width}, 2)")
    return ", ".join(words), calls


def materialize(rng: random.Random):
    """(models, seed): three drawn models as ``nb10.MATERIALIZE_MODELS`` holds them, and a drawn seed."""
    models = []
    for _ in range(3):
        what, calls = _layers(rng)
        dtype = rng.choice((torch.float32, torch.float64))

        def build(calls=calls, dtype=dtype):
            return nn.Sequential(*(cls(*args, **kwargs) for cls, args, kwargs in calls)).to(dtype)

        models.append((f"nn.Sequential({what}) in {str(dtype).removeprefix('torch.')}", build))
    return tuple(models), rng.randrange(2**31)


def _budget_model(rng: random.Random) -> tuple[str, object]:
    """(what, a builder on meta) of a Sequential of 2 to 6 Linear layers, a BatchNorm1d after some, in one dtype."""
    dtype = rng.choice((torch.float32, torch.float16, torch.bfloat16))
    width, calls, words = rng.choice((8, 16, 32, 64)), [], []
    for _ in range(rng.randint(2, 6)):
        out = rng.choice((8, 16, 32, 64, 128))
        calls.append((nn.Linear, (width, out), {"bias": rng.random() < 0.8}))
        words.append(f"Linear({width}, {out})")
        width = out
        if rng.random() < 0.3:
            calls.append((nn.BatchNorm1d, (width,), {}))
            words.append(f"BatchNorm1d({width})")

    def build(calls=calls, dtype=dtype):
        with torch.device("meta"):
            return nn.Sequential(*(cls(*args, **kwargs, dtype=dtype) for cls, args, kwargs in calls))

    return f"nn.Sequential({', '.join(words)}) in {str(dtype).removeprefix('torch.')}", build


def cpu_budget(rng: random.Random):
    """Rows as ``nb10.BUDGET_CASES`` holds them: (what, build, on_cpu, the smallest CPU budget, no mistakes named).

    The budget is what accelerate 1.16.0's infer_auto_device_map needs to keep the first ``on_cpu`` layers on
    the CPU: their bytes, plus room for the largest layer going to disk (tests/test_hidden_cases.py holds it to
    the tests' reference and to the installed accelerate)."""
    rows = []
    for _ in range(4):
        what, build = _budget_model(rng)
        sizes = [module_bytes(layer) for _, layer in build().named_children()]
        on_cpu = rng.randint(1, len(sizes))
        rows.append((what, build, on_cpu, sum(sizes[:on_cpu]) + max(sizes[on_cpu:], default=0), {}))
    return tuple(rows)


RULES = {"10.1": materialize, "10.4": cpu_budget}
