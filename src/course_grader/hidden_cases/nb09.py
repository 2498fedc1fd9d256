"""Drawn cases of exercise set 09: nested batches of drawn structure, shapes, dtypes and values (09.1)."""

from __future__ import annotations

import random

import torch

from course_utils.checks.nb09 import Sample

_KEYS = ("inputs", "label", "mask", "ids", "meta", "extra", "target", "weights", "tokens", "lengths", "aux", "step")
_DTYPES = (torch.float32, torch.int64, torch.bool, torch.float16)


def _tensor(rng: random.Random, generator: torch.Generator) -> torch.Tensor:
    shape = tuple(rng.randint(1, 4) for _ in range(rng.randint(0, 2)))
    dtype = rng.choice(_DTYPES)
    values = torch.randn(shape, generator=generator) * 5
    return values > 0 if dtype is torch.bool else values.to(dtype)


def _leaf(rng: random.Random, generator: torch.Generator, depth: int):
    roll = rng.random()
    if depth < 2 and roll < 0.35:
        return _container(rng, generator, depth + 1)
    if roll < 0.75:
        return _tensor(rng, generator)
    if roll < 0.85:
        return rng.randrange(256)  # small ints: one object per value, so identity means "passed untouched"
    if roll < 0.92:
        return f"batch-{rng.randrange(10**6)}"
    return Sample(_tensor(rng, generator), rng.random())


def _container(rng: random.Random, generator: torch.Generator, depth: int):
    items = [_leaf(rng, generator, depth) for _ in range(rng.randint(1, 3))]
    kind = rng.choice(("dict", "list", "tuple"))
    if kind == "dict":
        return dict(zip(rng.sample(_KEYS, len(items)), items))
    return items if kind == "list" else tuple(items)


def to_device(rng: random.Random):
    """A maker of batches ``make(device) -> (batch, path of the tensor already on device)``, as ``nb09._nested``."""
    seed = rng.randrange(2**62)

    def make(device: str):
        local = random.Random(seed)
        generator = torch.Generator().manual_seed(seed)
        keys = local.sample(_KEYS, local.randint(3, 5))
        batch = {key: _leaf(local, generator, 0) for key in keys}
        holder = local.choice(keys)
        already = torch.zeros(local.randint(1, 3), device=device)
        if isinstance(batch[holder], list):
            batch[holder].append(already)
            return batch, (holder, len(batch[holder]) - 1)
        batch[holder] = [batch[holder], already]
        return batch, (holder, 1)

    return make


RULES = {"09.1": to_device}
