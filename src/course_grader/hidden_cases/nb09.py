"""Drawn cases of exercise set 09: nested batches of drawn structure, shapes, dtypes and values (09.1); models of
drawn widths, frozen layers and unused heads, stepped by a drawn optimizer in a drawn dtype (09.2); machines of
drawn GPU counts, MPS and no-CUDA kinds, asked in a drawn order (09.3)."""

from __future__ import annotations

import random

import torch
from torch import nn

from course_utils.checks.machines import SimulatedMachine
from course_utils.checks.nb09 import LOADER_CASES, Sample, WithUnused

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
    """A maker of batches ``make(device) -> (batch, path of the tensor already on device)``, as ``nb09._nested``:
    3 to 5 entries of drawn structure and, as in the public batch, a tuple holding a tensor (kept a tuple, moved
    inside) and a ``Sample`` (a namedtuple: rebuilt field by field)."""
    seed = rng.randrange(2**62)

    def make(device: str):
        local = random.Random(seed)
        generator = torch.Generator().manual_seed(seed)
        keys = local.sample(_KEYS, local.randint(5, 7))
        batch = {key: _leaf(local, generator, 0) for key in keys[2:]}
        batch[keys[0]] = (_tensor(local, generator), *(_leaf(local, generator, 1) for _ in range(local.randint(0, 2))))
        batch[keys[1]] = Sample(_tensor(local, generator), local.random())
        batch = {key: batch[key] for key in local.sample(keys, len(keys))}  # the two among the rest, not first
        holder = local.choice(keys)
        already = torch.zeros(local.randint(1, 3), device=device)
        if isinstance(batch[holder], list):
            batch[holder].append(already)
            return batch, (holder, len(batch[holder]) - 1)
        batch[holder] = [batch[holder], already]
        return batch, (holder, 1)

    return make


# (what, a maker of the optimizer from the parameters that train): each keeps its own kind of state per parameter
_OPTIMIZERS = (
    ("Adam", lambda ps: torch.optim.Adam(ps, lr=1e-3)),
    ("AdamW with amsgrad", lambda ps: torch.optim.AdamW(ps, amsgrad=True)),
    ("SGD with momentum", lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.9)),
    ("SGD without momentum", lambda ps: torch.optim.SGD(ps, lr=0.1)),
    ("RMSprop, centered", lambda ps: torch.optim.RMSprop(ps, centered=True)),
    ("Adagrad", lambda ps: torch.optim.Adagrad(ps)),
)


def _step_model(rng: random.Random) -> tuple[str, object]:
    """(what, a builder) of an MLP of drawn widths, perhaps with a frozen layer, or a model with an unused head."""
    if rng.random() < 0.3:
        widths = tuple(rng.randint(2, 24) for _ in range(4))
        return f"a model with an unused head (widths {widths})", lambda: WithUnused(widths)
    widths = [rng.randint(2, 24) for _ in range(rng.randint(3, 5))]
    frozen = rng.randrange(len(widths) - 1) if rng.random() < 0.4 else None

    def build():
        layers = []
        for k, (i, o) in enumerate(zip(widths, widths[1:])):
            layers += [nn.Linear(i, o, bias=k % 2 == 0 or o > 8), nn.ReLU()]
        model = nn.Sequential(*layers[:-1])
        if frozen is not None:
            model[2 * frozen].requires_grad_(False)  # a frozen layer: no gradient, no optimizer state
        return model

    what = f"an MLP of widths {widths}" + (f", layer {2 * frozen} frozen" if frozen is not None else "")
    return what, build


def stepped_models(rng: random.Random):
    """Rows as ``nb09.STEP_CASES`` holds them: (what, build, make_optimizer, dtype); the checker steps each once and
    counts, on the judge's side, what the step left (parameters, gradients, optimizer state)."""
    rows = []
    for k in range(rng.randint(4, 6)):
        what, build = _step_model(rng)
        # the first keeps a step count (a 0-dim tensor is held memory too), as Adam does in the public rows
        name, make_optimizer = rng.choice([o for o in _OPTIMIZERS if not o[0].startswith("SGD")] if k == 0 else _OPTIMIZERS)
        dtype = rng.choice((torch.float32, torch.float32, torch.bfloat16, torch.float64))
        rows.append((f"{what} with {name} in {str(dtype).removeprefix('torch.')}", build, make_optimizer, dtype))
    return tuple(rows)


def _machine(rng: random.Random, kind: str) -> SimulatedMachine:
    if kind == "gpus":
        count = rng.randint(1, 8)
        return SimulatedMachine(f"a server with {count} GPUs", cuda=count, mps=False, current=rng.randrange(count))
    no_cuda = rng.choice(("cpu-build", "no-driver"))
    return SimulatedMachine(
        f"a {'Mac with MPS' if kind == 'mac' else 'CPU-only machine'} ({no_cuda})", cuda=0, mps=kind == "mac", no_cuda=no_cuda
    )


def _answers(rows) -> list[tuple[bool, bool]]:
    return [(machine.cuda > 0, touches_cuda) for machine, touches_cuda in rows]


def machines(rng: random.Random):
    """Rows as ``nb09.LOADER_CASES`` holds them: (machine, touches_cuda), 6 to 9, whose right answers in order are
    never those of the public table (a reply recorded there, played back, answers another question). As in the
    public table: a GPU server, a Mac and a CPU-only machine, and datasets that touch CUDA and that do not."""
    while True:
        size = rng.randint(6, 9)
        kinds = ["gpus", "mac", "cpu"] + [rng.choice(("gpus", "gpus", "mac", "cpu")) for _ in range(size - 3)]
        touches = [True, False] + [rng.random() < 0.5 for _ in range(size - 2)]
        rng.shuffle(kinds)
        rng.shuffle(touches)
        rows = tuple((_machine(rng, kind), touches_cuda) for kind, touches_cuda in zip(kinds, touches))
        if _answers(rows[: len(LOADER_CASES)]) != _answers(LOADER_CASES):
            return rows


RULES = {"09.1": to_device, "09.2": stepped_models, "09.3": machines}
