"""Drawn cases of exercise set 03 (model placement): a buggy model's widths and tensor values, modules whose
device to tell, and the seeds and widths of the trained models behind a checkpoint and an optimizer's state."""

from __future__ import annotations

import random


def _quarters(rng: random.Random, width: int, low: int = -12) -> tuple[float, ...]:
    return tuple(rng.randint(low, 16) / 4 for _ in range(width))


def register_tensor_attributes(rng: random.Random) -> dict:
    """The values of ``checks.nb03._Buggy``'s tensor attributes, as ``checks.nb03.BUGGY``: a drawn width (2 to
    6), drawn means, standard deviations (positive), factors and step count."""
    width = rng.randint(2, 6)
    return {
        "width": width,
        "mean": _quarters(rng, width),
        "std": _quarters(rng, width, low=1),
        "factor": _quarters(rng, width),
        "steps": rng.randint(0, 500),
    }


_KINDS = ("linear", "buffer", "batchnorm", "attribute", "relu")


def where_is(rng: random.Random) -> list[tuple[str, str, int, str | None]]:
    """7 to 9 (what, kind, device, width) rows and what where_is must say, as ``checks.nb03.WHERE_CASES``: every kind
    of module (``checks.nb03._module``) once or more, on the CPU or meta, of drawn widths, in a drawn order."""
    rows = []
    for kind in list(_KINDS) + [rng.choice(_KINDS) for _ in range(rng.randint(2, 4))]:
        device, width = rng.choice(("cpu", "meta")), rng.randint(1, 6)
        rows.append((kind, "cpu" if kind == "relu" else device, width, None if kind == "relu" else device))
    rng.shuffle(rows)
    return rows


def _dims(rng: random.Random) -> tuple[int, int, int]:
    return rng.randint(2, 6), rng.randint(2, 7), rng.randint(1, 5)


def load_onto(rng: random.Random) -> tuple[int, tuple[int, int, int]]:
    """(the seed that trains the checkpoint's model, its widths: in, hidden, out), as ``checks.nb03.TRAINED``."""
    return rng.randrange(2**31), _dims(rng)


def match_state_to_params(rng: random.Random) -> tuple[int, tuple[int, int, int]]:
    """(the seed of the model an optimizer steps, its widths: in, hidden, out), as ``checks.nb03.STEPPED``."""
    return rng.randrange(2**31), _dims(rng)


RULES = {"03.1": register_tensor_attributes, "03.2": where_is, "03.3": load_onto, "03.4": match_state_to_params}
