"""Drawn cases of exercise set 11 (the device in the rest of your code): devices for autocast's settings,
lengths and seeds of a shuffle, seeds of a model run under autocast. Each rule returns rows in the shape of the
public table of ``course_utils.checks.nb11``; 11.2's order and 11.3's output are computed by the checker."""

from __future__ import annotations

import random

import torch

_TYPES = ("cuda", "cpu", "mps", "xpu")


def _settings(kind: str, bf16: bool) -> tuple[str, torch.dtype, bool]:
    """autocast's settings: the type; bfloat16 on the CPU and where the GPU has it, else float16 with a scaler."""
    dtype = torch.bfloat16 if kind == "cpu" or bf16 else torch.float16
    return kind, dtype, dtype is torch.float16


def _device(rng: random.Random, kind: str):
    """A device of type ``kind`` as the exercise may get it: "cuda:3", torch.device("cuda", 3), or "cpu"."""
    index = rng.randrange(8) if kind != "cpu" else None
    name = kind if index is None else f"{kind}:{index}"
    return rng.choice((name, torch.device(name)))


def autocast_settings(rng: random.Random) -> list[tuple[object, bool, tuple[str, torch.dtype, bool]]]:
    """As ``AUTOCAST_CASES``: 7 to 10 (device, bf16_supported, settings), each device type at least once, a GPU
    both with and without bfloat16, and the CPU with the flag False (the CPU's bfloat16 does not ask it)."""
    rows = [(_device(rng, "cuda"), True, _settings("cuda", True)), (_device(rng, "cuda"), False, _settings("cuda", False))]
    rows += [(_device(rng, kind), flag, _settings(kind, flag)) for kind in _TYPES[1:] for flag in [kind != "cpu" and rng.random() < 0.5]]
    for _ in range(rng.randint(2, 5)):
        kind, flag = rng.choice(_TYPES), rng.random() < 0.5
        rows.append((_device(rng, kind), flag, _settings(kind, flag)))
    rng.shuffle(rows)
    return rows


def order_under(rng: random.Random) -> list[tuple[int, int]]:
    """As ``ORDER_CASES``: 3 (n, seed), n from 5 to 20, seeds from 0 to 2**31."""
    return [(rng.randint(5, 20), rng.randrange(2**31)) for _ in range(3)]


def autocast_forward(rng: random.Random) -> tuple[int, int]:
    """As ``FORWARD_SEEDS``: two distinct seeds for the model's parameters and its input."""
    first = rng.randrange(2**31)
    return first, (first + rng.randrange(1, 2**31)) % 2**31


RULES = {"11.1": autocast_settings, "11.2": order_under, "11.3": autocast_forward}
