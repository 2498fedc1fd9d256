"""Drawn cases of exercise set 02 (tensor placement): references and values, batches, layers built under a
device, tensors to copy to NumPy; each of drawn dtypes, shapes, values and order."""

from __future__ import annotations

import random

import torch

_FLOATS = (torch.float16, torch.bfloat16, torch.float32, torch.float64)
_INTS = (torch.uint8, torch.int16, torch.int32, torch.int64)


def _values(rng: random.Random, dtype: torch.dtype, shape: tuple[int, ...]):
    """Nested lists (a Python number for shape ()) that the dtype holds exactly: quarters for floats."""
    if not shape:
        return rng.randint(-16, 16) / 4 if dtype.is_floating_point else rng.randint(0 if dtype == torch.uint8 else -50, 99)
    return [_values(rng, dtype, shape[1:]) for _ in range(shape[0])]


def _shape(rng: random.Random) -> tuple[int, ...]:
    return tuple(rng.randint(1, 4) for _ in range(rng.randint(0, 2)))


def like(rng: random.Random) -> list[tuple[torch.dtype, str, int, object]]:
    """6 to 8 (reference dtype, its device, its length, values), as ``checks.nb02.LIKE_CASES``: float and integer
    dtypes, references on the CPU and on the other devices ("other"), values of a drawn shape unlike the reference's."""
    rows = []
    for k in range(rng.randint(6, 8)):
        # the first of a dtype that torch.tensor(values) would not infer: the reference's dtype is asked
        dtype = rng.choice(_FLOATS + _INTS if k else [d for d in _FLOATS + _INTS if d not in (torch.float32, torch.int64)])
        rows.append((dtype, "cpu" if k % 2 else "other", rng.randint(1, 5), _values(rng, dtype, _shape(rng))))
    rng.shuffle(rows)
    return rows


_KEYS = ("x", "y", "mask", "ids", "name", "labels", "weights", "lengths", "tokens", "step", "extra", "target")


def _plain(local: random.Random):
    return local.choice(
        ([local.randrange(99) for _ in range(local.randint(1, 3))], f"batch-{local.randrange(10**5)}", (local.randrange(99),), None)
    )


def move_batch(rng: random.Random):
    """A maker of batches, ``make(device) -> (batch, the key of the tensor already on device)``, as
    ``checks.nb02._batch``: 2 to 4 tensors to move, of drawn dtypes and shapes, 1 to 3 values that are not
    tensors, one tensor already there; drawn keys."""
    seed = rng.randrange(2**62)

    def make(device: str):
        local, generator = random.Random(seed), torch.Generator().manual_seed(seed % 2**63)
        keys = local.sample(_KEYS, local.randint(4, 8))
        staying = keys[0]
        batch = {staying: torch.zeros(_shape(local), dtype=local.choice(_FLOATS + _INTS), device=device)}
        for k, key in enumerate(keys[1:]):
            if k < 2 or local.random() < 0.5:
                values = torch.randn(_shape(local) or (1,), generator=generator).abs() * 8
                batch[key] = values.to(local.choice(_FLOATS + _INTS))
            else:
                batch[key] = _plain(local)
        shuffled = list(batch.items())
        local.shuffle(shuffled)
        return dict(shuffled), staying

    return make


def build_on(rng: random.Random) -> list[tuple[str, int, int]]:
    """4 to 6 (where, in_features, out_features), as ``checks.nb02.BUILD_CASES``: the CPU, meta and this machine's
    accelerators ("accelerators"), each at least once, in a drawn order, layers of drawn widths."""
    wheres = ["cpu", "meta", "accelerators"] + [rng.choice(("cpu", "meta")) for _ in range(rng.randint(1, 3))]
    rng.shuffle(wheres)
    return [(where, rng.randint(1, 9), rng.randint(1, 9)) for where in wheres]


_HOW_SAID = {
    "plain": "a CPU {dtype} tensor",
    "grad": "a CPU {dtype} tensor that requires grad",
    "transposed": "a non-contiguous {dtype} view",
    "simulated-gpu": "a {dtype} tensor on cuda:0 (simulated)",
    "simulated-gpu-grad": "a {dtype} tensor on cuda:0 that requires grad (simulated)",
}


def numpy_copy(rng: random.Random) -> list[tuple[str, object, torch.dtype, str]]:
    """7 to 9 (what, values, dtype, how), as ``checks.nb02.NUMPY_CASES``: every kind of tensor once or more
    (plain, requiring grad, a transposed view, a simulated GPU tensor with and without grad), drawn values, shapes
    and dtypes (floating where grad is required), in a drawn order."""
    hows = list(_HOW_SAID) + [rng.choice(list(_HOW_SAID)) for _ in range(rng.randint(2, 4))]
    rows = []
    for how in hows:
        grad = how.endswith("grad")
        dtype = rng.choice((torch.float32, torch.float64) if grad else (torch.float32, torch.float64, torch.int64, torch.int32))
        shape = (rng.randint(2, 4), rng.randint(2, 4)) if how == "transposed" else (rng.randint(1, 6),)
        what = _HOW_SAID[how].format(dtype=str(dtype).removeprefix("torch."))
        rows.append((what, _values(rng, dtype, shape), dtype, how))
    rng.shuffle(rows)
    return rows


RULES = {"02.1": like, "02.2": move_batch, "02.3": build_on, "02.4": numpy_copy}
