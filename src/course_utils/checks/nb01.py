"""Checks for the exercises of notebook 01, device query."""

from __future__ import annotations

from types import SimpleNamespace

import torch

from course_utils.checks._core import Wrong, call, exercise
from course_utils.checks._guard import seal
from course_utils.devices import choose_device


@exercise(
    "01.1",
    "Pick the best device",
    "best_device",
    hint="Ask torch.cuda.is_available() first, then torch.backends.mps.is_available(), else 'cpu'.",
)
def _best_device(best_device) -> str:
    got = call(best_device)
    if not isinstance(got, torch.device):
        raise Wrong(
            f"best_device() returned {got!r} (a {type(got).__name__}); expected a torch.device.",
            "Wrap the name: return torch.device('cuda') rather than the string 'cuda'.",
        )
    expected = torch.device(choose_device().device)
    if got.type != expected.type:
        raise Wrong(f"On this machine best_device() returned {got}, but the best device here is {expected.type}.")
    return f"best_device() returned {got}, the right choice on this machine."


# CUDA_VISIBLE_DEVICES cases: (mask, physical GPU count) -> physical indices torch sees, in order.
# The rules are CUDA's, as torch.cuda._parse_visible_devices implements them: entries are read
# left to right as unsigned integers (leading digits only, like C's strtoul); a repeated index
# hides every GPU; the list stops at the first entry that is not a number, and at the first index
# past the last physical GPU.
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


@exercise(
    "01.2",
    "Read CUDA_VISIBLE_DEVICES",
    "visible_gpus",
    hint="Split on commas; cuda:0 is the first listed GPU. Stop at the first invalid entry; "
    "a repeated index hides every GPU.",
)
def _visible_gpus(visible_gpus) -> str:
    for mask, physical, expected in VISIBLE_CASES:
        got = call(visible_gpus, mask, physical)
        if list(got) != expected:
            raise Wrong(
                f"visible_gpus({mask!r}, {physical}) returned {got!r}; expected {expected!r} "
                f"(cuda:0 is physical GPU {expected[0] if expected else 'none'}).",
            )
    return f"All {len(VISIBLE_CASES)} masks map as CUDA maps them."


FAKE_GPUS = (
    (SimpleNamespace(name="NVIDIA H200", major=9, minor=0, total_memory=150_754_820_096, multi_processor_count=132),
     "NVIDIA H200: compute capability 9.0, 140.4 GiB, 132 SMs"),
    (SimpleNamespace(name="Tesla T4", major=7, minor=5, total_memory=15_828_320_256, multi_processor_count=40),
     "Tesla T4: compute capability 7.5, 14.7 GiB, 40 SMs"),
    (SimpleNamespace(name="NVIDIA GeForce RTX 4090", major=8, minor=9, total_memory=25_390_809_088,
                     multi_processor_count=128),
     "NVIDIA GeForce RTX 4090: compute capability 8.9, 23.6 GiB, 128 SMs"),
)


@exercise(
    "01.3",
    "Describe a GPU from its properties",
    "describe_gpu",
    hint="Use props.name, props.major, props.minor, props.total_memory (bytes; 1 GiB = 1024**3 bytes) "
    "and props.multi_processor_count; format memory with one decimal.",
)
def _describe_gpu(describe_gpu) -> str:
    for props, expected in FAKE_GPUS:
        got = call(describe_gpu, props)
        if got != expected:
            raise Wrong(f"For a {props.name} you returned {got!r}; expected {expected!r}.")
    return "Your description matches for an H200, a T4 and an RTX 4090."


def _expected_current_index() -> int | None:
    if torch.cuda.is_available():
        return torch.cuda.current_device()
    return None


@exercise(
    "01.4",
    "The current device index, safely",
    "current_cuda_index",
    hint="torch.cuda.current_device() raises on a machine without CUDA: ask torch.cuda.is_available() first.",
)
def _current_cuda_index(current_cuda_index) -> str:
    got = call(current_cuda_index)
    expected = _expected_current_index()
    if got != expected or isinstance(got, bool):
        raise Wrong(f"current_cuda_index() returned {got!r}; on this machine it should return {expected!r}.")
    if expected is None:
        return "Returns None here, without raising: this machine has no CUDA device."
    return f"Returns {got}, the current CUDA device."


# Record this module as the file wrote it: check() compares with this record every time.
seal(__name__)
