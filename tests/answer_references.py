"""The course's reference implementations of its exercises: for the tests, never in the package.

They used to sit in ``course_utils.checks.nbNN``, where any notebook, a graded one included, could
import them as its answers (issue 25, attack 5). The checks now compare with data (tables of cases
and their expected results) or with judging code that solves no exercise; the tests here hold
that data to these references (``tests/test_case_tables.py``), and ``python tests/answer_references.py``
rewrites the one generated table, ``course_utils/checks/nb04_programs.json``.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import torch
from torch import nn

from course_utils.checks.nb04 import LISTING, STEP_KINDS
from course_utils.gates import needs_cuda

# --------------------------------------------------------------------------- 01.2 and 01.b


def _leading_uint(text: str) -> int:
    """C strtoul's view of an entry: its leading digits, or -1 when it has none."""
    digits = ""
    for i, ch in enumerate(text):
        if ch.isdigit() or (i == 0 and ch in "+-"):
            digits += ch
        else:
            break
    try:
        return int(digits)
    except ValueError:
        return -1


def visible_gpus_reference(mask: str, physical: int) -> list[int]:
    """The physical GPU behind each cuda:N, given an integer CUDA_VISIBLE_DEVICES value."""
    listed: list[int] = []
    for entry in mask.split(","):
        index = _leading_uint(entry.strip())
        if index in listed:
            return []
        if index < 0:
            break
        listed.append(index)
    for position, index in enumerate(listed):
        if index >= physical:
            return listed[:position]
    return listed


# --------------------------------------------------------------------------- 04.1 to 04.3


def simulate_reference(start: int, program: list[tuple]) -> list[int]:
    """The current CUDA device after each step, by the rules of torch/cuda/__init__.py.

    ``device(i)`` swaps in ``i`` and remembers the device current at entry; exit puts that one
    back (so a ``set_device`` inside the block is undone). A negative index is a no-op on entry
    *and* exit. ``None`` means the current device (a no-op switch whose exit still restores).
    ``device_of`` is ``device`` with the tensor's index, ``-1`` for a CPU tensor.
    ``torch.device(...)`` blocks change only the default device. ``set_device(i)`` sets ``i`` if
    ``i >= 0``.
    """
    current = start
    saved: list[int | None] = []  # per open block: the index to restore on exit (-1/None: nothing)
    after = []
    for step in program:
        kind = step[0]
        if kind in ("device", "device_of"):
            index = step[1]
            if kind == "device_of":
                index = -1 if index == "cpu" else index
            elif index is None:
                index = current
            if index >= 0:
                saved.append(current)
                current = index
            else:
                saved.append(-1)
        elif kind == "torch.device":
            saved.append(None)
        elif kind == "set_device":
            if step[1] >= 0:
                current = step[1]
        elif kind == "exit":
            if not saved:
                raise ValueError("the program leaves a block it never entered")
            previous = saved.pop()
            if previous is not None and previous >= 0:
                current = previous
        elif kind != "read":
            raise ValueError(f"unknown step {step!r}; the kinds are {', '.join(STEP_KINDS)}")
        after.append(current)
    return after


def replay(program: list[tuple], start: int = 0) -> list[int]:
    """Run ``program`` on this machine's GPUs and read the current device after each step."""
    needed = 1 + max([s[1] for s in program if s[0] in ("device", "device_of", "set_device") and isinstance(s[1], int)] + [start])
    enough = needs_cuda(needed, what="replay")
    if not enough:
        raise ValueError(f"{enough.reason} simulate_reference(start, program) predicts the same on any machine.")
    original = torch.cuda.current_device()
    torch.cuda.set_device(start)
    open_blocks: list = []
    after = []
    try:
        for step in program:
            kind = step[0]
            if kind == "exit":
                open_blocks.pop().__exit__(None, None, None)
            elif kind == "set_device":
                torch.cuda.set_device(step[1])
            elif kind != "read":
                if kind == "device":
                    manager = torch.cuda.device(step[1])
                elif kind == "device_of":
                    where = "cpu" if step[1] == "cpu" else f"cuda:{step[1]}"
                    manager = torch.cuda.device_of(torch.ones(1, device=where))
                else:
                    manager = torch.device(step[1])
                manager.__enter__()
                open_blocks.append(manager)
            after.append(torch.cuda.current_device())
    finally:
        while open_blocks:
            open_blocks.pop().__exit__(None, None, None)
        torch.cuda.set_device(original)
    return after


def listing_answers() -> list[int]:
    after = simulate_reference(0, LISTING)
    return [after[i] for i, step in enumerate(LISTING) if step[0] == "read"]


FIXED_PROGRAMS: tuple[tuple[int, list[tuple]], ...] = (
    (0, [("device", 1), ("exit",)]),
    (2, [("device", None), ("set_device", 3), ("exit",)]),
    (0, [("device", -1), ("set_device", 2), ("exit",)]),
    (1, [("device_of", "cpu"), ("set_device", 0), ("exit",)]),
    (0, [("device_of", 3), ("device", 2), ("exit",), ("exit",)]),
    (3, [("torch.device", "cuda:0"), ("set_device", 1), ("exit",)]),
    (0, [("set_device", -1), ("set_device", 2), ("read",)]),
    (0, LISTING),
)


def random_program(rng: random.Random, gpus: int = 4) -> list[tuple]:
    """A random but valid program: blocks nest properly and use GPU indices below ``gpus``."""
    program, depth = [], 0
    for _ in range(rng.randint(3, 14)):
        choice = rng.random()
        if depth and choice < 0.3:
            program.append(("exit",))
            depth -= 1
        elif choice < 0.45:
            program.append(("device", rng.choice([-1, None] + list(range(gpus)))))
            depth += 1
        elif choice < 0.6:
            program.append(("device_of", rng.choice(["cpu"] + list(range(gpus)))))
            depth += 1
        elif choice < 0.7:
            program.append(("torch.device", rng.choice(["cpu", "meta"] + [f"cuda:{i}" for i in range(gpus)])))
            depth += 1
        elif choice < 0.9:
            program.append(("set_device", rng.choice([-1] + list(range(gpus)))))
        else:
            program.append(("read",))
    return program + [("exit",)] * depth


def simulate_cases() -> list[tuple[int, list[tuple], list[int]]]:
    """Exercise 04.2's programs, as its check has always run them: the fixed ones, then 300 random."""
    rng = random.Random(404)
    programs = list(FIXED_PROGRAMS) + [(rng.randrange(4), random_program(rng)) for _ in range(300)]
    return [(start, program, simulate_reference(start, program)) for start, program in programs]


def landing_reference(spec, current: int) -> str:
    """Where ``x.cuda()`` (spec None), ``x.cuda(i)`` (an int) or ``x.to(spec)`` puts a tensor."""
    if spec is None:
        return f"cuda:{current}"
    if isinstance(spec, int):
        return f"cuda:{spec}"
    device = torch.device(spec)
    if device.type == "cuda":
        return f"cuda:{current if device.index is None else device.index}"
    return device.type if device.index is None else str(device)


# --------------------------------------------------------------------------- 05.3


def index_device_reference(table_device, index_device) -> str:
    """The device the index must be on for ``table[index]``: CPU or the table's device are allowed."""
    table, index = torch.device(table_device), torch.device(index_device)
    return str(index if index.type == "cpu" or index == table else table)


# --------------------------------------------------------------------------- 08.2


# --------------------------------------------------------------------------- 08.1 to 08.4 (they left course_utils.distributed)


def reference_device_for_rank(local_rank: int, gpu_count: int) -> torch.device:
    """08.1: the CPU without GPUs, else ``cuda:local_rank``; a rank past the last GPU is a ValueError."""
    if gpu_count == 0:
        return torch.device("cpu")
    if local_rank >= gpu_count:
        raise ValueError(f"local rank {local_rank} has no GPU of its own: this machine has {gpu_count}")
    return torch.device("cuda", local_rank)


def reference_pick(env: dict[str, str], gpu_count: int) -> torch.device:
    """08.2: LOCAL_RANK (absent under plain ``python train.py``: 0), then 08.1's rule."""
    return reference_device_for_rank(int(env.get("LOCAL_RANK", "0")), gpu_count)


def reference_ddp_device_ids(device) -> list[int] | None:
    """08.3: what ``DistributedDataParallel(device_ids=...)`` wants for a module on ``device``."""
    device = torch.device(device)
    return None if device.type == "cpu" else [device.index]


def reference_shared_gpus(devices: dict[int, str]) -> dict[str, list[int]]:
    """08.4: the GPUs two ranks or more chose (``cuda`` alone is ``cuda:0``), CPU left out."""
    by_gpu: dict[str, list[int]] = {}
    for rank, name in devices.items():
        device = torch.device(name)
        if device.type != "cpu":
            by_gpu.setdefault(f"{device.type}:{device.index or 0}", []).append(rank)
    return {gpu: sorted(ranks) for gpu, ranks in sorted(by_gpu.items()) if len(ranks) > 1}


# --------------------------------------------------------------------------- 10.2 (it left course_utils.bigmodels)


def _layer_bytes(layer: nn.Module) -> int:
    return sum(t.numel() * t.element_size() for t in [*layer.parameters(), *layer.buffers()])


def plan_variant(
    model: nn.Module, budgets: dict, size_of=_layer_bytes, fits=lambda size, room: size <= room, back: bool = False, skip: bool = True
) -> dict[str, torch.device] | None:
    """The plan of 10.2's rule with one knob turned (how a layer is sized, what fits, going back); None: it runs out.

    With the defaults it is the reference; the checker's table holds, for each case, the plans of the
    plausible wrong answers too, made here by turning one knob (``tests/test_case_tables.py``)."""
    devices, left, slot, plan = list(budgets), dict(budgets), 0, {}
    for name, layer in model.named_children():
        size = size_of(layer)
        if back:  # first fit: any device with room, earlier ones included
            slot = next((i for i, d in enumerate(devices) if fits(size, left[d])), len(devices))
        else:
            while slot < len(devices) and not fits(size, left[devices[slot]]):
                slot += 1
                if not skip and slot < len(devices) and not fits(size, left[devices[slot]]):
                    return None  # no skipping: a layer too big for the next device ends the plan
        if slot == len(devices):
            return None
        left[devices[slot]] -= size
        plan[name] = torch.device(devices[slot])
    return plan


def reference_plan_device_map(model: nn.Module, budgets: dict) -> dict[str, torch.device]:
    """10.2: top-level layers in order fill each device up to its budget, never going back; ValueError when out."""
    plan = plan_variant(model, budgets)
    if plan is None:
        raise ValueError(f"the layers of {type(model).__name__} do not fit in {budgets}")
    return plan


MISTAKE_VARIANTS = {  # the knob each plausible wrong answer of 10.2 turns (keys: checks.nb10.PLAN_MISTAKES)
    "numbers": dict(size_of=lambda layer: sum(t.numel() for t in [*layer.parameters(), *layer.buffers()])),
    "no buffers": dict(size_of=lambda layer: sum(t.numel() * t.element_size() for t in layer.parameters())),
    "strict fit": dict(fits=lambda size, room: size < room),
    "goes back": dict(back=True),
    "one dtype": dict(
        size_of=lambda layer: (
            sum(t.numel() for t in [*layer.parameters(), *layer.buffers()]) * next(iter(layer.parameters()), torch.empty(0)).element_size()
        )
    ),
    "shallow": dict(size_of=lambda layer: sum(t.numel() * t.element_size() for t in [*layer.parameters(False), *layer.buffers(False)])),
    "no skip": dict(skip=False),
}


# --------------------------------------------------------------------------- 10.1 and 10.3


def reference_materialize(model: nn.Module, device: torch.device) -> nn.Module:
    model.to_empty(device=device)
    for module in model.modules():
        if hasattr(module, "reset_parameters"):
            module.reset_parameters()
    return model


def reference_state_devices(model, optimizer) -> dict[str, dict[str, torch.device]]:
    # .get, not [p]: optimizer.state is a defaultdict, and reading it with [p] would add entries
    return {
        name: {key: value.device for key, value in optimizer.state.get(p, {}).items() if isinstance(value, torch.Tensor)}
        for name, p in model.named_parameters()
    }


# --------------------------------------------------------------------------- the generated table

CASES_NB04 = Path(__file__).resolve().parents[1] / "src" / "course_utils" / "checks" / "nb04_programs.json"


def cases_nb04_text() -> str:
    """The text of ``nb04_programs.json``: exercise 04.2's programs with torch.cuda's answers.

    One program a line, ``[start, [step, ...], [current device after each step, ...]]``, so a diff
    of the file shows which programs changed; ``checks/nb04.py`` reads it back into tuples.
    """
    rows = [json.dumps([start, [list(step) for step in program], list(expected)]) for start, program, expected in simulate_cases()]
    return "[\n" + ",\n".join(rows) + "\n]\n"


if __name__ == "__main__":
    if "--check" in sys.argv:
        sys.exit(0 if CASES_NB04.read_text(encoding="utf-8") == cases_nb04_text() else 1)
    CASES_NB04.write_text(cases_nb04_text(), encoding="utf-8")
    print(f"wrote {CASES_NB04}")


# --------------------------------------------------------------------------- 11


def reference_autocast_settings(device, bf16_supported: bool) -> dict:
    """11.1: the device's type; bfloat16 on the CPU and on a GPU that has it, else float16 with a GradScaler."""
    kind = torch.device(device).type
    dtype = torch.bfloat16 if kind == "cpu" or bf16_supported else torch.float16
    return {"device_type": kind, "dtype": dtype, "scaler": dtype is torch.float16}


# --------------------------------------------------------------------------- 10.4


def _layer_bytes(layer, numbers: bool = False, buffers: bool = True) -> int:
    tensors = [*layer.parameters(), *(layer.buffers() if buffers else ())]
    return sum(t.numel() * (1 if numbers else t.element_size()) for t in tensors)


def reference_cpu_budget(model, on_cpu: int, reserve: str = "largest to disk", numbers: bool = False, buffers: bool = True) -> int:
    """The smallest max_memory["cpu"] that keeps the first ``on_cpu`` layers on the CPU (accelerate 1.16.0's
    infer_auto_device_map), and, with its knobs, the budgets of 10.4's plausible wrong answers."""
    sizes = [_layer_bytes(layer, numbers, buffers) for _, layer in model.named_children()]
    kept, rest = sizes[:on_cpu], sizes[on_cpu:]
    room = {
        "largest to disk": max(rest, default=0),
        "none": 0,
        "largest of all": max(sizes),
        "next layer": rest[0] if rest else 0,
        "two or more to disk": max(rest) if len(rest) > 1 else 0,
    }[reserve]
    return sum(kept) + room


BUDGET_VARIANTS = {
    "no reserve": {"reserve": "none"},
    "largest of all": {"reserve": "largest of all"},
    "next layer": {"reserve": "next layer"},
    "always reserve": {"reserve": "largest of all"},
    "numbers": {"numbers": True},
    "no buffers": {"buffers": False},
    "one to disk": {"reserve": "two or more to disk"},
}
