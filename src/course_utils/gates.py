"""The gates of GPU cells: ``needs_cuda`` (CUDA only) and ``needs_accelerator`` (any accelerator, ``meta`` without one).

Lessons import them as ``from course_utils.devices import needs_cuda`` (devices finds them here) or
``from course_utils import needs_cuda``. ``make pairs`` reads these calls in the lessons to count each
lesson's GPU cells (``course_utils.lesson_map``), which ``preflight()`` reports.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import torch

from course_utils.devices import usable_accelerator
from course_utils.display import CAUTION, OK, markup, require_int, tag
from course_utils.machine import MachineFacts


@dataclass(frozen=True)
class Requirement:
    """What a GPU cell needs, and whether this machine has it; falsy when it does not, with the reason.

    A cell names its needs and its evidence key once: ``if gpu := needs_cuda(1, what=..., key=...):``
    and, in the ``else`` branch, ``display(gpu)``: the SKIPPED line, then what a GPU shows there
    (``course_utils.evidence.recorded(key)``: plain words, then a real GPU's output or the PyTorch
    source behind them, folded). ``needs_accelerator`` also carries the ``device`` to run on.
    """

    met: bool
    reason: str
    key: str | None = None  # the cell's evidence key: its GPU output is recorded under it
    device: torch.device | None = None  # needs_accelerator: the accelerator, or meta when there is none

    def __bool__(self) -> bool:
        return self.met

    def __str__(self) -> str:
        return self.reason

    def evidence(self):
        """What a GPU shows in this cell (``recorded(key)``) when the machine lacks it, else None."""
        if self.met or self.key is None:
            return None
        from course_utils.evidence import recorded  # evidence reads files; import it only when shown

        return recorded(self.key)

    def __repr__(self) -> str:
        shown = self.evidence()
        return self.reason if shown is None else f"{self.reason}\n{shown}"

    def _repr_html_(self) -> str:
        shown = self.evidence()
        line = tag("p", self.reason, colour=OK if self.met else CAUTION)
        return line if shown is None else markup(line, shown._repr_html_())


def _check_key(function: str, key: str | None) -> None:
    if key is not None and not _KEY.fullmatch(str(key)):
        raise ValueError(f"{function}(key=...) expects the notebook number, a dash and lowercase words, "
                         f"like '02-round-trip'; got {key!r}.")


def needs_cuda(
    count: int = 1, *, what: str = "this cell", key: str | None = None, facts: MachineFacts | None = None
) -> Requirement:
    """Check for ``count`` CUDA GPUs before a cell whose point is CUDA's own.

    For what only CUDA has: the current CUDA device and ``device_of``, streams and events, pinned
    memory, NCCL, ``CUDA_LAUNCH_BLOCKING``, the caching allocator. Use as ``if gpu := needs_cuda(2,
    what="...", key="04-set-device"):`` with ``display(gpu)`` in the ``else`` branch (see
    ``Requirement``). ``key`` names the cell in the evidence files; a GPU run records the cell's
    output under it. ``make pairs`` counts these cells for ``preflight()``.
    """
    require_int("needs_cuda(count)", count, minimum=0, expected="should be a whole number of GPUs, 0 or more",
                hint="Example: needs_cuda(2, what='the two-GPU demo').")
    _check_key("needs_cuda", key)
    have = len(facts.gpus) if facts is not None else (torch.cuda.device_count() if torch.cuda.is_available() else 0)
    if have >= count:
        return Requirement(True, f"Running {what}: needs {count} CUDA GPU(s), this machine has {have}.", key)
    return Requirement(
        False,
        f"SKIPPED {what}: it needs {count} CUDA GPU{'s' if count != 1 else ''}, and this machine has {have}.",
        key,
    )


_ASK = object()  # needs_accelerator's default: ask this machine


def needs_accelerator(*, what: str = "this cell", key: str | None = None, accelerator=_ASK) -> Requirement:
    """The device for a cell whose point holds on every accelerator: the machine's, else ``meta``.

    For creating tensors on a device, ``.to()`` and its copies, results living with their operands,
    moving a model and its optimizer, ``map_location``, the cross-device errors, timing a copy, and
    materializing what was built on ``meta``. CUDA, MPS and XPU all count (``usable_accelerator()``).
    Use as ``gpu = needs_accelerator(what="...", key="03-module-cuda")``, run the cell on
    ``gpu.device`` and end it with ``display(gpu)``: it says which device ran the cell and, on
    ``meta`` (shapes and dtypes, no data, no real copies), what an accelerator shows there. Where
    meta cannot make the point (a copy's values, a timing), gate it like ``needs_cuda``:
    ``if gpu := needs_accelerator(...): ... else: display(gpu)``, showing meta's answer there.
    ``accelerator`` is for tests: the device ``usable_accelerator()`` would return.
    """
    _check_key("needs_accelerator", key)
    found = usable_accelerator() if accelerator is _ASK else accelerator
    if found is not None:
        return Requirement(True, f"Ran {what} on {found}, this machine's accelerator.", key, found)
    return Requirement(
        False,
        f"NO ACCELERATOR for {what}: this machine has no CUDA, MPS or XPU device, so the cell's device is meta, "
        "which keeps shapes and dtypes but holds no data (no values, no real copies or kernels).",
        key,
        torch.device("meta"),
    )


# An evidence key: the notebook's two digits, then lowercase words joined by dashes ("04-set-device").
_KEY = re.compile(r"\d\d-[a-z0-9]+(?:-[a-z0-9]+)*")
