"""Drawn cases of exercise set 04 (the current CUDA device): scoping programs, landing specs, scopes to switch.

04.1 draws nothing: ``predictions()`` takes no argument and predicts the lesson's one listing, which
the learner reads in the notebook; there is no question to vary without changing the exercise.
"""

from __future__ import annotations

import random

import torch

from course_utils.checks.nb04 import simulate_cases


def after_each_step(start: int, program: list[tuple]) -> list[int]:
    """The current CUDA device after each step, by torch/cuda/__init__.py's rules (as ``checks.nb04`` states them).

    A block remembers, on entry, what its exit restores: the device current then for ``device(i)`` with
    i >= 0 (``None``: the current one) and ``device_of`` a GPU tensor; nothing for ``device(-1)``, a CPU
    ``device_of`` or a ``torch.device`` block. ``set_device(i)`` sets i when i >= 0."""
    current, saved, after = start, [], []
    for kind, *arg in program:
        if kind in ("device", "device_of"):
            index = arg[0]
            index = current if index is None else -1 if index == "cpu" else index
            saved.append(current if index >= 0 else None)
            current = index if index >= 0 else current
        elif kind == "torch.device":
            saved.append(None)
        elif kind == "set_device" and arg[0] >= 0:
            current = arg[0]
        elif kind == "exit":
            previous = saved.pop()
            current = current if previous is None else previous
        after.append(current)
    return after


def _step(rng: random.Random, gpus: int, depth: int) -> tuple:
    roll = rng.random()
    if depth and roll < 0.28:
        return ("exit",)
    if roll < 0.45:
        return ("device", rng.choice([-1, None, *range(gpus)]))
    if roll < 0.6:
        return ("device_of", rng.choice(["cpu", *range(gpus)]))
    if roll < 0.7:
        return ("torch.device", rng.choice(["cpu", "meta", *(f"cuda:{i}" for i in range(gpus))]))
    if roll < 0.9:
        return ("set_device", rng.choice([-1, *range(gpus)]))
    return ("read",)


def _program(rng: random.Random, gpus: int) -> list[tuple]:
    program, depth = [], 0
    for _ in range(rng.randint(3, 14)):
        step = _step(rng, gpus, depth)
        depth += 1 if step[0] in ("device", "device_of", "torch.device") else -1 if step[0] == "exit" else 0
        program.append(step)
    return program + [("exit",)] * depth


def simulate(rng: random.Random) -> list[tuple[int, tuple[tuple, ...], tuple[int, ...]]]:
    """40 programs over machines of 2 to 8 GPUs, as ``checks/nb04_programs.json`` holds them: every step kind
    many times (a block that restores nothing, a set_device undone by an exit, one that is not)."""
    rows = []
    for _ in range(39):
        gpus = rng.randint(2, 8)
        start, program = rng.randrange(gpus), _program(rng, gpus)
        rows.append((start, tuple(program), tuple(after_each_step(start, program))))
    # and, as the public programs, a set_device inside a block that restores nothing: its exit keeps it
    gpus = rng.randint(2, 8)
    start = rng.randrange(gpus)
    program = [*_program(rng, gpus)[: rng.randint(0, 2)], rng.choice((("device", -1), ("device_of", "cpu")))]
    current = after_each_step(start, program)[-1]
    program += [("set_device", rng.choice([i for i in range(gpus) if i != current])), ("exit",), ("read",)]
    program += [("exit",)] * (sum(s[0] in ("device", "device_of", "torch.device") for s in program) - sum(s[0] == "exit" for s in program))
    rows.insert(rng.randrange(40), (start, tuple(program), tuple(after_each_step(start, program))))
    return rows


_SPECS = ("x.cuda()", "x.cuda(i)", "'cuda'", "'cuda:i'", "device('cuda')", "device('cuda', i)", "other")


def _spec(rng: random.Random, kind: str, index: int):
    return {
        "x.cuda()": None,
        "x.cuda(i)": index,
        "'cuda'": "cuda",
        "'cuda:i'": f"cuda:{index}",
        "device('cuda')": torch.device("cuda"),
        "device('cuda', i)": torch.device("cuda", index),
        "other": rng.choice(("cpu", torch.device("cpu"), "meta", torch.device("meta"))),
    }[kind]


def where_it_lands(spec, current: int) -> str:
    """Where ``x.cuda()`` (None), ``x.cuda(i)`` (an int) or ``x.to(spec)`` puts a tensor with cuda:current current."""
    if spec is None or isinstance(spec, int):
        return f"cuda:{current if spec is None else spec}"
    device = torch.device(spec)
    if device.type == "cuda":
        return f"cuda:{current if device.index is None else device.index}"
    return str(device)


def landing(rng: random.Random) -> list[tuple[object, int, str]]:
    """14 (spec, current device, where it lands) as ``checks.nb04.LANDING_CASES``: every kind of spec twice,
    indices and current devices 0 to 7, in a drawn order."""
    rows = []
    for kind in _SPECS * 2:
        spec, current = _spec(rng, kind, rng.randrange(8)), rng.randrange(8)
        rows.append((spec, current, where_it_lands(spec, current)))
    rng.shuffle(rows)
    return rows


_NO_SWITCH = ("cpu", torch.device("cpu"), "meta", torch.device("meta"), "mps", "cuda", torch.device("cuda"))


def scope(rng: random.Random) -> tuple[tuple, tuple[tuple[object, int], ...]]:
    """(devices that switch nothing, in a drawn order; 4 to 6 indexed CUDA devices as a str or a torch.device,
    and the index each switches to), as ``checks.nb04.NO_SWITCH`` and ``SWITCH``."""
    no_switch = list(_NO_SWITCH)
    rng.shuffle(no_switch)
    switch = []
    for index in rng.sample(range(8), rng.randint(4, 6)):
        switch.append((f"cuda:{index}" if rng.random() < 0.5 else torch.device("cuda", index), index))
    return tuple(no_switch), tuple(switch)


RULES = {"04.2": simulate, "04.3": landing, "04.4": scope}

# 04.2's public table is 308 programs (checks/nb04_programs.json), each a call into the learner's kernel: a
# grading run checks 40 of them again after its own 40, drawn, not all (that took grading of set 04 from 1.0 to
# 1.7 times its time; the drawn programs carry what the public ones catch, tests/test_hidden_cases_wrong_answers.py)
PUBLIC_SAMPLES = {"04.2": lambda rng: rng.sample(simulate_cases(), 40)}
