"""Drawn cases of exercise set 10: meta models of drawn layers, widths and dtypes, and the seed that
initialises them (10.1); meta models of drawn Linear and BatchNorm layers, how many stay on the CPU, and the
smallest CPU budget that keeps them there (10.4); meta models of drawn layers and dtypes, device budgets that split
them (or do not hold them), their plans worked out here (10.2); models split over the CPU and meta, stepped by a
drawn optimizer, and where each state tensor lives (10.3)."""

from __future__ import annotations

import random

import torch
from torch import nn

from course_utils.checks.nb10 import PLAN_CASES, STATE_CASES, Block


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
    """(models, seed): three drawn models as ``nb10.MATERIALIZE_MODELS`` holds them, and a drawn seed. As in the
    public models, one of them holds a nested block (its layers are not the model's children)."""
    models = []
    for k in range(3):
        what, calls = _layers(rng)
        while k == 0 and not any(cls is Block for cls, _, _ in calls):
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
    the tests' reference and to the installed accelerate). 4 rows or more: each of ``_BUDGET_MISTAKES`` gives
    another budget on one of them at least, as the public rows were chosen to."""
    rows, missing = [], set(_BUDGET_MISTAKES)
    while missing or len(rows) < 4:  # each plausible mistake wrong on one row at least, then drawn rows to 4
        what, build = _budget_model(rng)
        model = build()
        on_cpu = rng.randint(1, len(list(model.children())))
        budget = _budget(_sizes(model), on_cpu)
        caught = {key for key, mistake in _BUDGET_MISTAKES.items() if mistake(model, on_cpu) != budget}
        if caught & missing or not missing:
            missing -= caught
            rows.append((what, build, on_cpu, budget, {}))
    rng.shuffle(rows)
    return tuple(rows)


def _budget(sizes: list[int], on_cpu: int) -> int:
    return sum(sizes[:on_cpu]) + max(sizes[on_cpu:], default=0)


# 10.4's plausible mistakes (tests/wrong_answers_nb10.py): no room kept for a disk layer, room for the largest
# layer of all, room for the next layer only, buffers not counted
_BUDGET_MISTAKES = {
    "no reserve": lambda model, on_cpu: sum(_sizes(model)[:on_cpu]),
    "largest of all": lambda model, on_cpu: sum(_sizes(model)[:on_cpu]) + max(_sizes(model)),
    "next layer": lambda model, on_cpu: sum(_sizes(model)[:on_cpu]) + sum(_sizes(model)[on_cpu : on_cpu + 1]),
    "no buffers": lambda model, on_cpu: _budget(_sizes(model, buffers=False), on_cpu),
}


def _sizes(model: nn.Module, numbers: bool = False, buffers: bool = True) -> list[int]:
    tensors = [[*layer.parameters(), *(layer.buffers() if buffers else ())] for _, layer in model.named_children()]
    return [sum(t.numel() * (1 if numbers else t.element_size()) for t in ts) for ts in tensors]


def _planned(sizes: list[int], budgets: dict, strict: bool = False, back: bool = False):
    """10.2's plan, as device names in order, with a knob turned for a plausible mistake; None: out of devices."""
    devices, left, slot, plan = list(budgets), dict(budgets), 0, []

    def fits(size: int, device: str) -> bool:
        return size < left[device] if strict else size <= left[device]

    for size in sizes:
        if back:
            slot = next((i for i, d in enumerate(devices) if fits(size, d)), len(devices))
        else:
            while slot < len(devices) and not fits(size, devices[slot]):
                slot += 1
        if slot == len(devices):
            return None
        left[devices[slot]] -= size
        plan.append(devices[slot])
    return tuple(plan)


def _plan_model(rng: random.Random) -> tuple[str, object]:
    """(what, a builder on meta) of 2 to 6 Linear layers in one dtype, a BatchNorm1d after some."""
    dtype = rng.choice((torch.float32, torch.float16, torch.bfloat16, torch.float64))
    width, calls, words = rng.choice((64, 128, 256, 500)), [], []
    for _ in range(rng.randint(2, 6)):
        if calls and rng.random() < 0.25:
            calls.append((nn.BatchNorm1d, (width,)))
            words.append(f"BatchNorm1d({width})")
            continue
        out = rng.choice((10, 64, 128, 256, 500, 1000))
        calls.append((nn.Linear, (width, out)))
        words.append(f"Linear({width}, {out})")
        width = out

    def build(calls=calls, dtype=dtype):
        with torch.device("meta"):
            return nn.Sequential(*(cls(*args, dtype=dtype) for cls, args in calls))

    return f"nn.Sequential({', '.join(words)}) in {str(dtype).removeprefix('torch.')}", build


def _budgets(rng: random.Random, sizes: list[int]) -> dict[str, int]:
    """Budgets of 2 or 3 devices that split the layers in drawn places: each device the bytes of its layers, plus
    room short of the next layer (none at times: an exact fit)."""
    devices = rng.choice((["cuda:0", "cuda:1"], ["cuda:0", "cpu"], ["cuda:0", "cuda:1", "cpu"], ["cuda:1", "cuda:0"]))
    devices = devices[: len(sizes)]
    cuts = sorted(rng.sample(range(1, len(sizes)), len(devices) - 1)) + [len(sizes)]
    budgets, start = {}, 0
    for device, end in zip(devices, cuts):
        room = 0 if rng.random() < 0.3 else rng.randrange(sizes[end] if end < len(sizes) else max(sizes))
        budgets[device], start = sum(sizes[start:end]) + room, end
    return budgets


_MISTAKES = {"numbers": dict(numbers=True), "no buffers": dict(buffers=False), "strict fit": dict(strict=True), "goes back": dict(back=True)}


def _plan_row(rng: random.Random, fits: bool):
    while True:
        what, build = _plan_model(rng)
        model = build()
        sizes = _sizes(model)
        budgets = _budgets(rng, sizes)
        if not fits:  # one device loses up to a layer's bytes, drawn again until the layers no longer fit
            device = rng.choice(list(budgets))
            budgets[device] = max(0, budgets[device] - rng.randint(1, max(sizes)))
        plan = _planned(sizes, budgets)
        if (plan is not None) is fits:
            break
    if not fits:
        return what, build, budgets
    mistakes = {}
    for key, knob in _MISTAKES.items():
        counted = {k: v for k, v in knob.items() if k in ("numbers", "buffers")}
        wrong = _planned(_sizes(model, **counted), budgets, **{k: v for k, v in knob.items() if k not in counted})
        if wrong != plan:
            mistakes[key] = wrong
    return what, build, budgets, plan, mistakes


def device_maps(rng: random.Random):
    """(rows, too big) as ``nb10.PLAN_CASES`` and ``PLAN_TOO_BIG`` hold them: 4 models or more with their budgets
    and plans, each of ``_MISTAKES`` planning otherwise on one at least, and 1 or 2 that do not fit; the plans in
    order are never the public table's."""
    public = [devices for *_, devices, _ in PLAN_CASES]
    while True:
        rows, missing = [], set(_MISTAKES)
        while missing:  # first rows on which each plausible mistake plans otherwise, as the public rows were chosen
            row = _plan_row(rng, True)
            if missing & set(row[4]):
                missing -= set(row[4])
                rows.append(row)
        rows += [_plan_row(rng, True) for _ in range(rng.randint(4, 6) - len(rows))]
        rng.shuffle(rows)
        if [row[3] for row in rows[: len(public)]] != public[: len(rows)]:
            return tuple(rows), tuple(_plan_row(rng, False) for _ in range(rng.randint(1, 2)))


# (optimizer, its options, where each state tensor lives once it has any: "param" for the parameter's device),
# as PyTorch 2.13.0's torch/optim keeps them (tests/test_hidden_cases_09_10.py holds them to real optimizers);
# Adagrad fills its state when it is made, for every parameter it holds, trained or not
_STATE_KEEPERS = (
    (torch.optim.Adam, {}, {"step": "cpu", "exp_avg": "param", "exp_avg_sq": "param"}),
    (torch.optim.AdamW, {"amsgrad": True}, {"step": "cpu", "exp_avg": "param", "exp_avg_sq": "param", "max_exp_avg_sq": "param"}),
    (torch.optim.SGD, {"momentum": 0.9}, {"momentum_buffer": "param"}),
    (torch.optim.SGD, {}, {}),
    (torch.optim.RMSprop, {"momentum": 0.5}, {"step": "cpu", "square_avg": "param", "momentum_buffer": "param"}),
    (torch.optim.Adagrad, {}, {"step": "cpu", "sum": "param"}),
)


def _stepped_by(layers, optimizer, options: dict, steps: int, frozen: frozenset):
    """A maker of (model, optimizer), as ``nb10._stepped``: gradients set by hand (meta holds no values to run)."""

    def make():
        model = nn.Sequential(*(cls(*shape, device=where) for cls, shape, where in layers))
        for name, p in model.named_parameters():
            p.requires_grad_(name not in frozen)
        opt = optimizer(model.parameters(), lr=0.1, **options)
        for _ in range(steps):
            for p in model.parameters():
                p.grad = torch.ones_like(p) if p.requires_grad else None
            opt.step()
        return model, opt

    return make


def state_devices(rng: random.Random):
    """Rows as ``nb10.STATE_CASES`` holds them: (what, make, the device of each state tensor of each parameter),
    for a Sequential of 2 to 4 layers each on the CPU or meta, some weights frozen, 0 to 3 steps; 4 to 6 rows, as
    in the public table one whose CPU step count belongs to a parameter on meta and one with a parameter that
    has no state yet."""
    rows = []
    while len(rows) < 2:  # first a row with state on the CPU for a parameter on meta, and one with empty state
        row = _state_row(rng)
        devices, needed = row[2], ("split", "empty")[len(rows)]
        if (
            needed == "empty"
            and any(not found for found in devices.values())
            or needed == "split"
            and any(found.get("step") == "cpu" and any(d == "meta" for d in found.values()) for found in devices.values())
        ):
            rows.append(row)
    rows += [_state_row(rng) for _ in range(rng.randint(2, 4))]
    rng.shuffle(rows)
    if [row[2] for row in rows[: len(STATE_CASES)]] == [row[2] for row in STATE_CASES[: len(rows)]]:
        return state_devices(rng)
    return tuple(rows)


def _state_row(rng: random.Random):
    """One row of ``state_devices``: a drawn optimizer, its steps, 2 to 4 layers on the CPU or meta, frozen weights."""
    optimizer, options, keeps = rng.choice(_STATE_KEEPERS)
    steps = rng.choice((0, 1, 1, 2, 3))
    layers = []
    for _ in range(rng.randint(2, 4)):
        kind = rng.choice(("linear", "linear", "layernorm"))
        shape = (rng.randint(2, 9), rng.randint(2, 9)) if kind == "linear" else (rng.randint(2, 9),)
        layers.append((nn.Linear if kind == "linear" else nn.LayerNorm, shape, rng.choice(("cpu", "meta"))))
    names = [f"{k}.{p}" for k, _ in enumerate(layers) for p in ("weight", "bias")]
    frozen = frozenset(n for n in names if rng.random() < 0.2)
    devices = {}
    for name in names:
        where = layers[int(name.split(".")[0])][2]
        has = (steps > 0 and name not in frozen) or optimizer is torch.optim.Adagrad
        devices[name] = {key: where if at == "param" else at for key, at in keeps.items()} if has else {}
    make = _stepped_by(layers, optimizer, options, steps, frozen)
    words = ", ".join(f"{cls.__name__}({', '.join(map(str, shape))}) on {where}" for cls, shape, where in layers)
    return (
        f"{optimizer.__name__}({', '.join(f'{k}={v}' for k, v in options.items())}) after {steps} "
        f"step{'s' * (steps != 1)}, nn.Sequential({words})" + (f", {', '.join(sorted(frozen))} frozen" if frozen else ""),
        make,
        devices,
    )


RULES = {"10.1": materialize, "10.2": device_maps, "10.3": state_devices, "10.4": cpu_budget}
