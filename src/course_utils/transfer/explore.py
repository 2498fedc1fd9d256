"""The logic behind the transfer explorer widget, as plain functions: controls in, a measurement request out.

Lesson: notebook 06 (transfers and timing). ``course_utils.widgets.TransferExplorer`` only wires
ipywidgets to what is here, so this part is tested without a browser. A request is what the
controls say; ``plan_request`` turns it into what this machine can measure (on a machine without
an accelerator: the host-memory stand-in, unpinned), and ``describe`` says what was measured.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch

from course_utils.display import require_int
from course_utils.transfer.measure import MIB, SIZES, can_pin, measure_copy
from course_utils.transfer.results import STAND_IN, Transfer, fmt_bytes
from course_utils.transfer.timing import Instruments, Timing

EXPLORER_DIRECTIONS = ("h2d", "d2h", "d2d")


def size_options(device: str | torch.device) -> list[tuple[str, int]]:
    """``(label, nbytes)`` choices for the size control: 4 KiB to 256 MiB (64 MiB for the CPU stand-in)."""
    top = 256 * MIB if torch.device(device).type != "cpu" else 64 * MIB
    return [(fmt_bytes(size), size) for size in SIZES if size <= top]


@dataclass(frozen=True)
class Request:
    """What the explorer's controls ask for."""

    nbytes: int
    direction: str = "h2d"
    pinned: bool = False
    non_blocking: bool = False

    def __post_init__(self):
        if self.direction not in EXPLORER_DIRECTIONS:
            raise ValueError(f"direction must be one of {EXPLORER_DIRECTIONS}, got {self.direction!r}.")
        require_int(
            "nbytes", self.nbytes, expected="must be a positive integer", hint="size_options(device) lists the sizes the explorer offers."
        )


@dataclass(frozen=True)
class ExplorerPlan:
    """What will be measured for a request on a device, and what had to change."""

    request: Request
    device: str
    direction: str
    pinned: bool | None
    notes: tuple[str, ...] = ()

    @property
    def stand_in(self) -> bool:
        return torch.device(self.device).type == "cpu"


def plan_request(request: Request, device: str | torch.device) -> ExplorerPlan:
    """Fit ``request`` to ``device``: the stand-in on the CPU, no pinning where it is not possible."""
    dev = torch.device(device)
    notes = []
    direction, pinned = request.direction, request.pinned
    if dev.type == "cpu":
        notes.append(f"asked for {request.direction}; with no accelerator the copy is CPU-to-CPU")
        direction = "h2h"
    if direction == "d2d":
        if pinned:
            notes.append("pinned does not apply to d2d (no host side)")
        pinned = None
    elif pinned and not can_pin(dev):
        notes.append("pinned memory needs a CUDA device; measured pageable memory")
        pinned = False
    return ExplorerPlan(request, str(dev), direction, pinned, tuple(notes))


Measure = Callable[[ExplorerPlan, Callable[[int, int], None]], Transfer]


def default_measure(plan: ExplorerPlan, progress: Callable[[int, int], None]) -> Transfer:
    """Measure a plan quickly (about 0.3 s of copying), reporting progress per timed block."""
    return measure_copy(
        plan.direction,
        plan.request.nbytes,
        device=plan.device,
        pinned=plan.pinned,
        non_blocking=plan.request.non_blocking,
        timing=Timing(budget_s=0.3, instruments=Instruments(progress=progress)),
    )


def describe(result: Transfer, plan: ExplorerPlan) -> str:
    """One line for the explorer: what was measured, how fast, how noisy, with the plan's notes."""
    spread = result.spread
    text = (
        f"{fmt_bytes(result.nbytes)} {result.label}: {result.gbps:.2f} GB/s (median of {len(result.seconds)} blocks, "
        f"IQR {spread.relative:.0%} of the median)"
    )
    if not spread.meaningful:
        text += " — too noisy to quote (IQR ≥ 25%, torch.utils.benchmark's threshold): press Run when the machine is quiet"
    if result.stand_in:
        text = f"[{STAND_IN}] " + text
    if plan.notes:
        text += " — " + "; ".join(plan.notes)
    return text
