"""Drawn cases of exercise set 10: meta models of drawn layers, widths and dtypes, and the seed that
initialises them (10.1)."""

from __future__ import annotations

import random

import torch
from torch import nn

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


RULES = {"10.1": materialize}
