"""Checks for notebook 01, device query: its exercises ("01.1") and the lesson's try-it cells ("01.a")."""

from __future__ import annotations

import os
from types import SimpleNamespace

import torch

from course_utils.checks._core import LearnerRaised, Wrong, call, cases, exercise, same, try_it
from course_utils.checks.machines import SimulatedMachine, simulated
from course_utils.devices import choose_device


def _best_device_machines() -> tuple[tuple[SimulatedMachine, str], ...]:
    return (
        (SimulatedMachine("a GPU server (CUDA available, no MPS)", cuda=4, mps=False), "cuda"),
        (SimulatedMachine("a Mac with Apple silicon (MPS available, no CUDA)", cuda=0, mps=True), "mps"),
        (SimulatedMachine("a laptop with neither CUDA nor MPS", cuda=0, mps=False), "cpu"),
        (SimulatedMachine("a machine where both answer yes", cuda=1, mps=True), "cuda"),
    )


def _best_device_always() -> tuple[tuple[SimulatedMachine, str], ...]:
    """Asked in every run (practice or graded): a CUDA build without a driver, where an answer that asks
    torch.accelerator.current_accelerator() without check_available=True gets the build's accelerator, cuda."""
    return ((SimulatedMachine("a laptop with the CUDA build of torch but no NVIDIA driver", cuda=0, mps=False, no_cuda="no-driver"), "cpu"),)


@exercise(
    "01.1",
    "Pick the best device",
    "best_device",
    hint=(
        "Ask PyTorch, each time the function runs, which backends work here, best first: an NVIDIA GPU "
        "(torch.cuda), then a Mac's GPU (torch.backends.mps), then the CPU. Return a torch.device."
    ),
)
def _best_device(best_device) -> str:
    machines = (*cases("01.1", _best_device_machines()), *_best_device_always())
    for machine, expected in machines:
        with simulated(machine):
            got = call(best_device)
        if not isinstance(got, torch.device):
            raise Wrong(
                f"best_device() returned {got!r} (a {type(got).__name__}); expected a torch.device.",
                "Wrap the name in torch.device(...): a string such as 'cuda' is not a device object.",
            )
        if got.type == expected:
            continue
        found = f"On {machine.name}, best_device() returned {got}, which is not the best device there."
        if expected == "mps":
            raise Wrong(found, "After CUDA, ask torch.backends.mps.is_available(): a Mac's GPU is 'mps'.")
        if expected == "cuda":
            raise Wrong(
                found, "Ask torch.cuda.is_available() first, inside the function, each time it runs; never hard-code this machine's answer."
            )
        if machine.no_cuda == "no-driver" and got.type == "cuda":
            raise Wrong(
                found,
                "A CUDA build of torch is not a working GPU: ask whether CUDA is available here "
                "(torch.cuda.is_available(), or current_accelerator(check_available=True)).",
            )
        raise Wrong(found, "The CPU is the answer when neither torch.cuda.is_available() nor torch.backends.mps.is_available() is True.")
    got = call(best_device)
    expected = torch.device(choose_device().device)
    if not isinstance(got, torch.device) or got.type != expected.type:
        raise Wrong(f"On this machine best_device() returned {got!r}, which is not the best device here.")
    return (
        f"Right on {len(machines)} simulated machines (GPU servers, Macs, laptops, both) and here ({got}): "
        "the check simulated them through torch.cuda.is_available() and torch.backends.mps.is_available()."
    )


# CUDA_VISIBLE_DEVICES cases: (mask, physical GPU count) -> physical indices torch sees, in order.
# The rules are torch.cuda._parse_visible_devices' (which torch uses to count GPUs through NVML,
# mimicking the driver): entries are read left to right as unsigned integers (leading digits only,
# like C's strtoul) until one is not a number or is negative; a repeated index among those read
# hides every GPU, even after an index past the last GPU ('1,7,1' -> none); only then is the list
# cut at the first index past the last physical GPU (_device_count_nvml). tests/test_case_tables.py
# holds every case against torch's parser.
VISIBLE_CASES: tuple[tuple[str, int, list[int]], ...] = (
    ("0", 4, [0]),
    ("2,0", 4, [2, 0]),
    ("3,1,2", 4, [3, 1, 2]),
    ("", 4, []),
    ("1,7,2", 4, [1]),
    ("1,-1,2", 4, [1]),
    ("-1", 8, []),
    ("0,0", 2, []),
    ("1,7,1", 4, []),
    (" 1 , 0 ", 2, [1, 0]),
    ("5", 2, []),
)
# asked in every run (practice or graded): an index equal to the GPU count (the first past the last GPU: an
# answer that cuts at > instead of >= keeps it), and a repeat after the entry that stops the reading (it is not
# read, so it hides nothing: an answer that looks for repeats among all the entries shows no GPU), and an empty
# entry between two commas (it is not a number, so the reading stops there: an answer that skips empty entries
# reads on)
VISIBLE_ALWAYS: tuple[tuple[str, int, list[int]], ...] = (
    ("2,4,1", 4, [2]),
    ("1,x,1", 4, [1]),
    ("1,,2", 4, [1]),
)


@exercise(
    "01.2",
    "Read CUDA_VISIBLE_DEVICES",
    "visible_gpus",
    hint=(
        "Read the mask left to right as the driver does: the first index listed becomes cuda:0. Three things "
        "end or empty the list: an entry that is not a number, an index seen twice, an index past the last "
        "GPU. Apply them in the order they are met."
    ),
)
def _visible_gpus(visible_gpus) -> str:
    masks = (*cases("01.2", VISIBLE_CASES), *VISIBLE_ALWAYS)
    for mask, physical, expected in masks:
        got = call(visible_gpus, mask, physical)
        if not same(got, expected):
            found = f"visible_gpus({mask!r}, {physical}) returned {got!r}, which is not what CUDA makes of that mask."
            read = [e.strip() for e in mask.split(",")]
            if not expected and len(set(read)) < len(read) and got:
                raise Wrong(
                    found,
                    "An index repeated among the entries read hides every GPU, even when an index "
                    "past the last GPU comes before the repeat: the repeat is found while reading.",
                )
            if isinstance(got, list) and len(got) > len(expected) and any(isinstance(i, int) and i >= physical for i in got):
                raise Wrong(found, f"There are only {physical} physical GPUs: cut the list before the first index past the last GPU.")
            if isinstance(got, list) and len(got) > len(expected) and "" in read[:-1]:
                raise Wrong(
                    found,
                    "An empty entry (two commas in a row) is not a number either: the reading stops there, it does not skip it.",
                )
            if expected and got == [] and len(set(read)) < len(read):
                raise Wrong(
                    found,
                    "Only a repeat among the entries read hides every GPU: an entry that is not a "
                    "number ends the reading, and what follows it is never read.",
                )
            raise Wrong(found)
    return f"All {len(masks)} masks map as CUDA maps them."


FAKE_GPUS = (
    (
        SimpleNamespace(name="NVIDIA H200", major=9, minor=0, total_memory=150_754_820_096, multi_processor_count=132),
        "NVIDIA H200: compute capability 9.0, 140.4 GiB, 132 SMs",
    ),
    (
        SimpleNamespace(name="Tesla T4", major=7, minor=5, total_memory=15_828_320_256, multi_processor_count=40),
        "Tesla T4: compute capability 7.5, 14.7 GiB, 40 SMs",
    ),
    (
        SimpleNamespace(name="NVIDIA GeForce RTX 4090", major=8, minor=9, total_memory=25_390_809_088, multi_processor_count=128),
        "NVIDIA GeForce RTX 4090: compute capability 8.9, 23.6 GiB, 128 SMs",
    ),
)
# asked in every run (practice or graded): a size whose second decimal rounds the first up (39.59 GiB), so an
# answer that cuts the digits off (int(gib * 10) / 10) instead of rounding to one decimal fails
FAKE_GPUS_ALWAYS = (
    (
        SimpleNamespace(name="NVIDIA A100-SXM4-40GB", major=8, minor=0, total_memory=42_505_273_344, multi_processor_count=108),
        "NVIDIA A100-SXM4-40GB: compute capability 8.0, 39.6 GiB, 108 SMs",
    ),
)


def _first_difference(got, expected: str) -> str:
    """Which part of the sentence is off (its parts are separated by ", "), without the right text (issue 33.3)."""
    if type(got) is not str:
        return f"expected a str, the sentence the exercise gives, not a {type(got).__name__}."
    mine, right = got.split(", "), expected.split(", ")
    for number, (part, want) in enumerate(zip(mine, right), 1):
        if part != want:
            return f"part {number} of it, {part!r}, is not right for this GPU."
    return f"it has {len(mine)} parts (separated by ', '), the exercise's sentence {len(right)}."


@exercise(
    "01.3",
    "Describe a GPU from its properties",
    "describe_gpu",
    hint=(
        "The properties object has name, major, minor, total_memory (bytes) and multi_processor_count. A GiB "
        "is 1024**3 bytes; show it with one decimal, in the exact sentence the exercise gives."
    ),
)
def _describe_gpu(describe_gpu) -> str:
    gpus = (*cases("01.3", FAKE_GPUS), *FAKE_GPUS_ALWAYS)
    for props, expected in gpus:
        got = call(describe_gpu, props)
        if not same(got, expected):
            raise Wrong(f"For a {props.name} you returned {got!r}; {_first_difference(got, expected)}")
    return f"Your description matches for {len(gpus)} GPUs ({', '.join(p.name for p, _ in gpus)})."


def _current_index_machines() -> tuple[tuple[SimulatedMachine, int | None], ...]:
    return (
        (SimulatedMachine("a 4-GPU server with cuda:2 current", cuda=4, mps=False, current=2), 2),
        (SimulatedMachine("a 1-GPU machine (cuda:0 current)", cuda=1, mps=False, current=0), 0),
        (SimulatedMachine("a laptop with the CPU-only build of torch", cuda=0, mps=False, no_cuda="cpu-build"), None),
        (SimulatedMachine("a machine with the CUDA build of torch but no NVIDIA driver", cuda=0, mps=False, no_cuda="no-driver"), None),
        (SimulatedMachine("a Mac (MPS, no CUDA)", cuda=0, mps=True), None),
    )


@exercise(
    "01.4",
    "The current device index, safely",
    "current_cuda_index",
    hint=(
        "torch.cuda.current_device() raises on a machine without CUDA: find out first whether CUDA is available, and return None when it is not."
    ),
)
def _current_cuda_index(current_cuda_index) -> str:
    machines = cases("01.4", _current_index_machines())
    for machine, expected in machines:
        try:
            with simulated(machine):
                got = call(current_cuda_index)
        except LearnerRaised as raised:
            exc = raised.exc
            if expected is not None:
                raise Wrong(
                    f"On {machine.name}, current_cuda_index() raised {type(exc).__name__}: {exc}; CUDA works there.",
                    "The check plays that machine through torch.cuda.is_available(), device_count() and "
                    "current_device(): ask those (it cannot make real CUDA tensors).",
                ) from None
            raise Wrong(
                f"On {machine.name}, current_cuda_index() raised {type(exc).__name__}: {exc}; it should return None.",
                "Catching one kind of error is not enough: a CPU-only build raises AssertionError, a CUDA build "
                "without a driver raises RuntimeError. Ask torch.cuda.is_available() first.",
            ) from None
        if same(got, expected):
            continue
        found = f"On {machine.name}, current_cuda_index() returned {got!r}, which is not the right answer there."
        if expected is None:
            raise Wrong(found, "Without CUDA there is no current CUDA device: return None.")
        if got is None:
            raise Wrong(
                found,
                "When torch.cuda.is_available() is True, ask torch.cuda for the index of its current device: the answer is not always None.",
            )
        raise Wrong(found, "Ask torch.cuda for the current device's index: it is not always cuda:0.")
    got = call(current_cuda_index)
    expected = torch.cuda.current_device() if torch.cuda.is_available() else None
    if not same(got, expected):
        raise Wrong(f"current_cuda_index() returned {got!r}, which is not the right answer on this machine.")
    return (
        f"Right on {len(machines)} simulated machines (GPU servers with various current devices, CPU-only "
        f"builds, CUDA builds without a driver, Macs) and here ({got!r})."
    )


# --------------------------------------------------------------------------- the lesson's try-its


def _seen_by_torch(mask: str, physical: int) -> list[int]:
    """The physical GPUs a child sees with ``CUDA_VISIBLE_DEVICES=mask``, by torch's own parser ([] for names).

    ``torch.cuda._parse_visible_devices`` reads the variable from the environment; it is set here
    for that one call and put back. The cut at the last physical GPU is ``_device_count_nvml``'s.
    """
    if "\0" in mask:  # no environment variable can hold it
        return []
    saved = {name: os.environ.get(name) for name in ("CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES")}
    try:
        for name in saved:
            os.environ.pop(name, None)
        os.environ["CUDA_VISIBLE_DEVICES"] = mask
        parsed = torch.cuda._parse_visible_devices()
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
    if not all(type(index) is int for index in parsed):  # "GPU-<uuid>" names: which physical GPUs is unknown
        return []
    cut = next((i for i, index in enumerate(parsed) if index >= physical), len(parsed))
    return list(parsed[:cut])


def _usable_machines() -> tuple[tuple[SimulatedMachine, str], ...]:
    return (
        (SimulatedMachine("a GPU server (4 CUDA GPUs)", cuda=4, mps=False), "cuda"),
        (SimulatedMachine("a Mac with Apple silicon (MPS, no CUDA)", cuda=0, mps=True), "mps"),
        (SimulatedMachine("a laptop with the CUDA build of torch but no NVIDIA driver", cuda=0, mps=False, no_cuda="no-driver"), "cpu"),
        (SimulatedMachine("a laptop with the CPU-only build of torch", cuda=0, mps=False), "cpu"),
        (SimulatedMachine("a laptop with an Intel GPU (XPU)", cuda=0, mps=False, xpu=True), "xpu"),
    )


@try_it(
    "01.a",
    "The usable device, for any backend",
    name="usable_device",
    kind="function",
    hint=(
        "torch.accelerator knows CUDA, MPS and other backends. Ask it for the current accelerator, but only "
        "one that works on this machine (see current_accelerator's arguments), and fall back to the CPU."
    ),
)
def _usable_device(usable_device) -> str:
    for machine, expected in _usable_machines():
        with simulated(machine):
            got = call(usable_device)
        if got is None:
            raise Wrong(
                f"On {machine.name}, usable_device() returned None; it should return a torch.device.",
                "None is how torch.accelerator says that no accelerator works here; the function still "
                "owes a device then, the one every machine has.",
            )
        if type(got) is not torch.device:
            raise Wrong(
                f"On {machine.name}, usable_device() returned {got!r} (a {type(got).__name__}); expected a torch.device.",
                "Wrap a name: torch.device('cpu'), not the string 'cpu'.",
            )
        if got.type == expected:
            continue
        found = f"On {machine.name}, usable_device() returned {got}, which is not the usable device there."
        if expected == "cpu" and got.type == "cuda":
            raise Wrong(
                found + " current_accelerator() as called names the accelerator the build is for, even on a machine where it cannot run.",
                "Look at current_accelerator's arguments: one of them asks for an accelerator that works here.",
            )
        if expected == "mps":
            raise Wrong(found, "torch.cuda knows only NVIDIA GPUs; torch.accelerator also knows a Mac's GPU.")
        if expected == "xpu" and got.type == "cpu":
            raise Wrong(
                found + " An answer that asks CUDA, then MPS, by name misses every other backend, Intel's GPUs among them.",
                "Ask torch.accelerator, which knows every backend this PyTorch supports, instead of listing them by hand.",
            )
        raise Wrong(found, "Ask torch.accelerator inside the function, each time it runs; never hard-code this machine's answer.")
    got = call(usable_device)
    acc = torch.accelerator.current_accelerator(check_available=True)
    here = acc if acc is not None else torch.device("cpu")
    if type(got) is not torch.device or got.type != here.type:
        raise Wrong(f"On this machine usable_device() returned {got!r}; the usable device here is {here.type}.")
    return (
        f"Right on a GPU server, a Mac, a CUDA build without a driver, a CPU-only build, a laptop with an Intel GPU, "
        f"and here ({got}); the check simulated the first five through torch.accelerator."
    )


@try_it(
    "01.b",
    "Renumber GPUs with CUDA_VISIBLE_DEVICES",
    name="mask",
    hint=(
        "The value of an environment variable is one string: the physical GPU indices, separated by commas, "
        "in the order the child should number them."
    ),
    writes="the value for CUDA_VISIBLE_DEVICES, as a Python string in quotes",
)
def _mask(mask) -> str:
    if type(mask) is not str:
        raise Wrong(
            f"`mask` is a {type(mask).__name__}; the value of an environment variable is a string.",
            'Write the physical indices in one string, separated by commas, like "2,0".',
        )
    seen = _seen_by_torch(mask, 4)
    if seen == [3, 1]:
        return f"With CUDA_VISIBLE_DEVICES={mask!r} a child on a 4-GPU machine sees GPU 3 as cuda:0 and GPU 1 as cuda:1."
    found = (
        f"With CUDA_VISIBLE_DEVICES={mask!r} the child sees "
        + (", ".join(f"physical GPU {p} as cuda:{i}" for i, p in enumerate(seen)) if seen else "no GPU at all")
        + "; the task asks for GPU 3 as cuda:0 and GPU 1 as cuda:1, and nothing else."
    )
    if sorted(seen) == [1, 3]:
        raise Wrong(found, "The order of the list is the new numbering: the first index listed becomes cuda:0.")
    if not seen:
        raise Wrong(
            found,
            'List bare physical indices ("2,0"), not device names; an entry that is not a number '
            "ends the list, and a repeated index hides every GPU.",
        )
    if 3 in seen and 1 in seen:
        raise Wrong(found, "Every GPU listed is visible: list only the two the child should see.")
    raise Wrong(found)
