"""Drawn cases of exercise set 01 (device query): machines, CUDA_VISIBLE_DEVICES masks, GPU properties."""

from __future__ import annotations

import random
from types import SimpleNamespace

from course_utils.checks.machines import SimulatedMachine
from course_utils.checks.nb01 import VISIBLE_CASES

_NO_CUDA = ("cpu-build", "no-driver")


def _machine(rng: random.Random, cuda: int, mps: bool, current: int = 0, no_cuda: str | None = None) -> SimulatedMachine:
    no_cuda = no_cuda or rng.choice(_NO_CUDA)
    words = [
        f"{cuda} CUDA GPU{'s' if cuda != 1 else ''}"
        if cuda
        else ("a CPU-only build of torch" if no_cuda == "cpu-build" else "a CUDA build of torch but no driver"),
        "MPS" if mps else "no MPS",
    ]
    if cuda:
        words.append(f"cuda:{current} current")
    return SimulatedMachine("a machine with " + ", ".join(words), cuda=cuda, mps=mps, current=current, no_cuda=no_cuda)


def best_device(rng: random.Random) -> list[tuple[SimulatedMachine, str]]:
    """9 to 12 machines, each kind of answer at least three times, one CUDA machine with MPS too, in a drawn order
    (a replayed sequence of answers matches one in thousands)."""
    rows = []
    for k, kind in enumerate(("cuda", "mps", "cpu") * 3 + tuple(rng.choice(("cuda", "mps", "cpu")) for _ in range(rng.randint(0, 3)))):
        cuda = rng.randint(1, 8) if kind == "cuda" else 0
        # the first CUDA machine has MPS too (CUDA wins: an answer that asks MPS first is wrong there)
        mps = (k == 0 or rng.random() < 0.5) if kind == "cuda" else kind == "mps"
        rows.append((_machine(rng, cuda, mps), kind))
    rng.shuffle(rows)
    return rows


def seen(mask: str, physical: int) -> list[int]:
    """The physical GPU behind each cuda:N: the rules of torch.cuda._parse_visible_devices and _device_count_nvml
    (entries read as leading unsigned digits until one is not a number or negative; a repeat among those read
    hides every GPU; then the list is cut at the first index past the last GPU)."""
    listed: list[int] = []
    for entry in mask.split(","):
        text = entry.strip()
        digits = len(text) - len(text.lstrip("0123456789"))
        if not digits:
            break
        index = int(text[:digits])
        if index in listed:
            return []
        listed.append(index)
    cut = next((i for i, index in enumerate(listed) if index >= physical), len(listed))
    return listed[:cut]


def _entry(rng: random.Random, physical: int) -> str:
    roll = rng.random()
    if roll < 0.7:
        text = str(rng.randrange(physical))
    elif roll < 0.8:
        text = str(rng.randint(physical, physical + 6))
    elif roll < 0.88:
        text = f"-{rng.randint(1, 3)}"
    else:
        text = rng.choice(("x", "gpu", "a1", "?"))
    return " " * rng.randint(0, 1) + text + " " * rng.randint(0, 1)


def _shaped_mask(rng: random.Random, shape: str) -> tuple[str, int]:
    """A mask of one of the shapes the public table was chosen for, drawn: a repeat among GPUs that exist
    ("repeat": torch sees none), an index past the last GPU and then a repeat of one before it ("cut-then-repeat":
    torch reads every number before it cuts, so it still sees none), an index past the last GPU and no repeat
    ("past-the-end": the list stops there)."""
    physical = rng.randint(2, 8)
    listed = rng.sample(range(physical), rng.randint(1, min(3, physical)))
    if shape == "repeat":
        tail = [rng.choice(listed)]
    elif shape == "cut-then-repeat":
        tail = [rng.randint(physical, physical + 6), rng.choice(listed)]
    else:
        tail = [rng.randint(physical, physical + 6)] + rng.sample(
            [i for i in range(physical) if i not in listed], rng.randint(0, physical - len(listed))
        )[:2]
    entries = [" " * rng.randint(0, 1) + str(i) for i in listed + tail]
    return ",".join(entries), physical


def visible_gpus(rng: random.Random) -> list[tuple[str, int, list[int]]]:
    """12 masks over 1 to 8 physical GPUs: one of each shape of ``_shaped_mask``, an empty mask, four more that
    show GPUs and are not the public table's (an answer of [] wherever it does not know the mask is wrong on
    those), and five drawn freely (bad entries, negative numbers, spaces)."""
    public = {(mask, physical) for mask, physical, _ in VISIBLE_CASES}
    rows = [_shaped_mask(rng, shape) for shape in ("repeat", "cut-then-repeat", "past-the-end")] + [("", rng.randint(1, 8))]
    while len(rows) < 12:
        physical = rng.randint(1, 8)
        mask = ",".join(_entry(rng, physical) for _ in range(rng.randint(1, 5)))
        if len(rows) >= 8 or (seen(mask, physical) and (mask, physical) not in public):
            rows.append((mask, physical))
    rows = [(mask, physical, seen(mask, physical)) for mask, physical in rows]
    rng.shuffle(rows)
    return rows


_GPU_NAMES = (
    "NVIDIA H100 80GB HBM3",
    "NVIDIA A100-SXM4-40GB",
    "NVIDIA L4",
    "Tesla V100-SXM2-16GB",
    "NVIDIA GeForce RTX 3090",
    "NVIDIA RTX A6000",
    "NVIDIA A10G",
    "NVIDIA GeForce GTX 1080 Ti",
)


def describe_gpu(rng: random.Random) -> list[tuple[SimpleNamespace, str]]:
    """Three GPUs with drawn names, capabilities, memory sizes and SM counts, and the exercise's sentence for each."""
    rows = []
    for name in rng.sample(_GPU_NAMES, 3):
        props = SimpleNamespace(
            name=name,
            major=rng.randint(5, 10),
            minor=rng.randint(0, 9),
            total_memory=rng.randint(2 * 1024**3, 190 * 1024**3),
            multi_processor_count=rng.randint(8, 160),
        )
        rows.append(
            (
                props,
                f"{props.name}: compute capability {props.major}.{props.minor}, "
                f"{props.total_memory / 1024**3:.1f} GiB, {props.multi_processor_count} SMs",
            )
        )
    return rows


def current_index(rng: random.Random) -> list[tuple[SimulatedMachine, int | None]]:
    """6 to 8 machines: some with GPUs and a drawn current device, some without CUDA (both kinds), some Macs."""
    rows = []
    for k in range(rng.randint(3, 4)):
        cuda = rng.randint(2 if k == 0 else 1, 8)
        current = rng.randrange(1 if k == 0 else 0, cuda)  # the first not cuda:0: the current device is asked
        rows.append((_machine(rng, cuda, rng.random() < 0.2, current), current))
    for no_cuda in _NO_CUDA:
        rows.append((_machine(rng, 0, rng.random() < 0.5, no_cuda=no_cuda), None))
    rng.shuffle(rows)
    return rows


RULES = {"01.1": best_device, "01.2": visible_gpus, "01.3": describe_gpu, "01.4": current_index}
