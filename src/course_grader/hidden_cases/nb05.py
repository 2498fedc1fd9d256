"""Drawn cases of exercise set 05 (the error clinic): messages with drawn devices, indices, shapes and dtypes;
nested inputs of drawn structure; pairs of devices for an index; checkpoints of drawn tensors, saved on drawn devices."""

from __future__ import annotations

import random

import torch

from course_utils.checks.nb05 import Pair

# 05.1: (the fix, a message as PyTorch words it, its holes in braces); the fixed parts are PyTorch's, the
# holes what it fills in at run time. Every row is drawn once per judging, in a drawn order.
MESSAGE_TEMPLATES: tuple[tuple[str, str], ...] = (
    ("move-to-one-device", "Expected all tensors to be on the same device, but found at least two devices, {dev} and {dev2}!"),
    (
        "move-to-one-device",
        "Expected all tensors to be on the same device, but got mat1 is on {dev}, different from other "
        "tensors on {dev2} (when checking argument in method wrapper_CUDA_addmm)",
    ),
    (
        "move-to-one-device",
        "Expected all tensors to be on the same device, but found at least two devices, {dev} and "
        "{dev2}! (when checking argument for argument index in method wrapper_CUDA__index_select)",
    ),
    ("move-to-one-device", "Tensor on device {dev} is not on the expected device {dev2}!"),
    ("move-to-one-device", "Expected object of type torch.cuda.{kind}Tensor but found type torch.{kind}Tensor for argument #{n} '{arg}'"),
    ("index-to-table-device", "indices should be either on cpu or on the same device as the indexed tensor ({dev})"),
    (
        "map-location",
        "Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is False. If you "
        "are running on a CPU-only machine, please use torch.load with map_location=torch.device('cpu') "
        "to map your storages to the CPU.",
    ),
    (
        "map-location",
        "Attempting to deserialize object on CUDA device {gpu} but torch.cuda.device_count() is {count}. "
        "Please use torch.load with map_location to map your storages to an existing device.",
    ),
    ("cpu-before-numpy", "can't convert {gpu_name} device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory first."),
    (
        "existing-device-index",
        "CUDA error: invalid device ordinal\nCUDA kernel errors might be asynchronously reported "
        "at some other API call, so the stacktrace below might be incorrect.\nFor debugging "
        "consider passing CUDA_LAUNCH_BLOCKING=1.{dsa}",
    ),
    ("cpu-or-cuda-build", "Torch not compiled with CUDA enabled"),
    (
        "cpu-or-cuda-build",
        "Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed "
        "a driver from http://www.nvidia.com/Download/index.aspx",
    ),
    (
        "optimizer-after-move",
        "Tensors of the same index must be on the same device and the same dtype except `step` "
        "tensors that can be CPU and float32/64 notwithstanding",
    ),
    ("not-a-device-error", "mat1 and mat2 shapes cannot be multiplied ({a}x{b} and {c}x{d})"),
    ("not-a-device-error", "expected scalar type {dtype} but found {dtype2}"),
    ("not-a-device-error", "a Tensor with {n} elements cannot be converted to Scalar"),
    ("not-a-device-error", "Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: [{a}, {b}]"),
)

_DSA = "\nCompile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n"
_DTYPES = ("Float", "Double", "Half", "BFloat16", "Long", "Int")


def _holes(rng: random.Random) -> dict:
    dev, dev2 = rng.sample(["cpu", *(f"cuda:{i}" for i in range(8)), "mps:0"], 2)
    count = rng.randint(1, 7)
    dtype, dtype2 = rng.sample(_DTYPES, 2)
    a, b, c = (rng.randint(2, 4096) for _ in range(3))
    return {
        "dev": dev,
        "dev2": dev2,
        "gpu": rng.randint(count, 8),
        "count": count,
        "gpu_name": rng.choice([*(f"cuda:{i}" for i in range(8)), "mps:0"]),
        "kind": rng.choice(_DTYPES[:5]),
        "n": rng.randint(2, 9),
        "arg": rng.choice(("other", "self", "mat2", "weight", "index")),
        "dsa": rng.choice(("", _DSA)),
        "dtype": dtype,
        "dtype2": dtype2,
        "a": a,
        "b": b,
        "c": c if c != b else b + 1,
        "d": rng.randint(2, 4096),
    }


def fix_for(rng: random.Random) -> list[tuple[str, str]]:
    """Every message of ``MESSAGE_TEMPLATES`` once, its holes drawn, in a drawn order: (message, fix), as
    ``checks.nb05.MESSAGES``."""
    rows = [(template.format(**_holes(rng)), fix) for fix, template in MESSAGE_TEMPLATES]
    rng.shuffle(rows)
    return rows


_KEYS = ("x", "y", "mask", "ids", "labels", "meta", "extra", "lengths", "weights", "tokens")


_DTYPES = (torch.float32, torch.int64, torch.bool, torch.float64)


def _tensor(local: random.Random, generator: torch.Generator, dtypes=_DTYPES) -> torch.Tensor:
    shape = tuple(local.randint(1, 4) for _ in range(local.randint(0, 2)))
    dtype = local.choice(dtypes)
    values = torch.randn(shape, generator=generator) * 4
    return values > 0 if dtype is torch.bool else values.to(dtype)


def _plain(local: random.Random):
    return local.choice((local.randrange(200), f"label-{local.randrange(1000)}", None, local.random()))


def _input(local: random.Random, generator: torch.Generator, depth: int = 0):
    roll = local.random()
    if depth >= 2 or roll < 0.4:
        return _tensor(local, generator) if depth >= 2 or roll < 0.3 else _plain(local)
    items = [_input(local, generator, depth + 1) for _ in range(local.randint(1, 3))]
    if roll < 0.55:
        return items
    if roll < 0.7:
        return tuple(items)
    if roll < 0.85:
        return dict(zip(local.sample(_KEYS, len(items)), items))
    return Pair(_tensor(local, generator), _input(local, generator, depth + 1))


def to_model_device(rng: random.Random):
    """A maker of inputs, ``make() -> tuple``, as ``checks.nb05._inputs``: 3 to 7 inputs, tensors of drawn
    shapes and dtypes nested in lists, tuples, dicts and ``Pair``, with values that are not tensors among them.
    As in the public inputs, always a tensor, a tuple holding a tensor (kept a tuple, moved inside) and a
    ``Pair`` (a namedtuple: rebuilt field by field)."""
    seed = rng.randrange(2**62)

    def make() -> tuple:
        local, generator = random.Random(seed), torch.Generator().manual_seed(seed % 2**63)
        held = (_tensor(local, generator), *(_input(local, generator, 1) for _ in range(local.randint(0, 2))))
        inputs = [_tensor(local, generator), held, Pair(_tensor(local, generator), _input(local, generator, 1))]
        inputs += [_input(local, generator) for _ in range(local.randint(0, 4))]
        local.shuffle(inputs)
        return tuple(inputs)

    return make


_DEVICES = ("cpu", "meta", "mps:0", *(f"cuda:{i}" for i in range(8)))


def index_device(rng: random.Random) -> list[tuple[object, object, str]]:
    """12 (table's device, index's device, where the index must be), as ``checks.nb05.INDEX_CASES``: an index on
    the CPU, on the table's device, and elsewhere, at least three times each (once on another CUDA GPU); str or
    torch.device."""
    rows = []
    for k, kind in enumerate(("cpu", "same", "other") * 4):
        table = rng.choice(_DEVICES) if k != 2 else f"cuda:{rng.randrange(8)}"
        others = [d for d in _DEVICES if d not in (table, "cpu") and (k != 2 or d.startswith("cuda"))]
        # the first "other" row: two CUDA GPUs (the type alone does not tell where the index must be)
        index = "cpu" if kind == "cpu" else table if kind == "same" else rng.choice(others)
        expected = index if kind != "other" else table
        rows.append(tuple(torch.device(d) if rng.random() < 0.25 else d for d in (table, index)) + (expected,))
    rng.shuffle(rows)
    return rows


def load_anywhere(rng: random.Random):
    """(the devices checkpoints are saved on, a maker of the state saved), as ``checks.nb05.SAVED_ON`` and
    ``_saved_state``: the CPU, two drawn GPUs and mps in a drawn order; 2 to 4 tensors of drawn names, shapes and
    dtypes, one of them integer."""
    saved_on = ["cpu", "mps", *(f"cuda:{i}" for i in rng.sample(range(8), 2))]
    rng.shuffle(saved_on)
    seed, keys = rng.randrange(2**62), rng.sample(_KEYS, rng.randint(2, 4))

    def state() -> dict[str, torch.Tensor]:
        local, generator = random.Random(seed), torch.Generator().manual_seed(seed % 2**63)
        # the first an integer tensor, as the public state's step count: every tensor moves, not only the floats
        return {key: _tensor(local, generator, (torch.int64,) if k == 0 else _DTYPES) for k, key in enumerate(keys)}

    return tuple(saved_on), state


RULES = {"05.1": fix_for, "05.2": to_model_device, "05.3": index_device, "05.4": load_anywhere}
