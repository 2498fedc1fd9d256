"""The gates of GPU cells: ``needs_cuda`` (CUDA only) and ``needs_accelerator`` (any accelerator, ``meta`` without one).

``needs_package`` gates the cells that use an optional package of the course (accelerate, the ``hf``
extra, in lesson 10): without it they say what they skipped and how to install it, and the lesson runs on.

A lesson decides its device once, in its first code cell (``device = pick_device()``, lesson 01's
idiom), and its gates take that: ``needs_accelerator(device, ...)`` runs the cell on the lesson's
device, or on ``meta`` when that is the CPU; ``needs_cuda(count, ...)`` takes the number of CUDA GPUs
a cell needs. Neither chooses a device again. Lessons import them from here
(``from course_utils.gates import needs_accelerator, needs_cuda``) or from ``course_utils``.
``make pairs`` reads these calls in the lessons to count each lesson's GPU cells
(``course_authoring.lesson_map`` writes ``course_utils.lesson_needs``), which ``preflight()`` reports.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import re
from dataclasses import dataclass

import torch

from course_utils.devices import as_device
from course_utils.display import CAUTION, OK, markup, require_int, tag
from course_utils.machine import MachineFacts


@dataclass(frozen=True)
class Requirement:
    """What a GPU cell needs, and whether this machine has it; falsy when it does not, with the reason.

    A cell names its needs and its evidence key once: ``if gpu := needs_cuda(1, what=..., key=...):``
    and, in the ``else`` branch, ``display(gpu)``: the SKIPPED line, then what a GPU shows there
    (``course_utils.evidence.recorded(key)``: plain words, then a real GPU's output or the PyTorch
    source behind them, folded). ``needs_accelerator`` also carries the ``device`` to run on: the
    lesson's accelerator, or ``meta``.
    """

    met: bool
    reason: str
    key: str | None = None  # the cell's evidence key: its GPU output is recorded under it
    device: torch.device | None = None  # needs_accelerator: the lesson's accelerator, or meta for a CPU lesson

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
        raise ValueError(f"{function}(key=...) expects the notebook number, a dash and lowercase words, like '02-round-trip'; got {key!r}.")


def needs_cuda(count: int = 1, *, what: str = "this cell", key: str | None = None, facts: MachineFacts | None = None) -> Requirement:
    """Check for ``count`` CUDA GPUs before a cell whose point is CUDA's own.

    For what only CUDA has: the current CUDA device and ``device_of``, streams and events, pinned
    memory, NCCL, ``CUDA_LAUNCH_BLOCKING``, the caching allocator. Use as ``if gpu := needs_cuda(2,
    what="...", key="04-set-device"):`` with ``display(gpu)`` in the ``else`` branch (see
    ``Requirement``). ``key`` names the cell in the evidence files; a GPU run records the cell's
    output under it. ``make pairs`` counts these cells for ``preflight()``. It takes a count, not the
    lesson's ``device``: such a cell names its CUDA devices itself (``"cuda"``, ``cuda:1``), and the
    gate counts this machine's CUDA GPUs (``facts``' for tests) without choosing one.
    """
    require_int(
        "needs_cuda(count)",
        count,
        minimum=0,
        expected="should be a whole number of GPUs, 0 or more",
        hint="Example: needs_cuda(2, what='the two-GPU demo').",
    )
    _check_key("needs_cuda", key)
    have = len(facts.gpus) if facts is not None else (torch.cuda.device_count() if torch.cuda.is_available() else 0)
    if have >= count:
        return Requirement(True, f"Running {what}: needs {count} CUDA GPU(s), this machine has {have}.", key)
    return Requirement(
        False,
        f"SKIPPED {what}: it needs {count} CUDA GPU{'s' if count != 1 else ''}, and this machine has {have}.",
        key,
    )


# Device types that are not an accelerator: a cell on them runs on meta instead.
_NOT_AN_ACCELERATOR = ("cpu", "meta")


def needs_accelerator(device, *, what: str = "this cell", key: str | None = None) -> Requirement:
    """The device for a cell whose point holds on every accelerator: the lesson's ``device``, else ``meta``.

    For creating tensors on a device, ``.to()`` and its copies, results living with their operands,
    moving a model and its optimizer, ``map_location``, the cross-device errors, timing a copy, and
    materializing what was built on ``meta``. ``device`` is the lesson's own, decided once in its
    first code cell (``device = pick_device()``); the gate does not choose again. On an accelerator
    (CUDA, MPS, XPU, ...) the cell runs there; on the CPU (a machine without an accelerator, or a
    lesson told ``pick_device("cpu")``) it runs on ``meta``. Use as ``gpu = needs_accelerator(device,
    what="...", key="03-module-cuda")``, run the cell on ``gpu.device`` and end it with
    ``display(gpu)``: it says which device ran the cell and, on ``meta`` (shapes and dtypes, no data,
    no real copies), what an accelerator shows there. Where meta cannot make the point (a copy's
    values, a timing), gate it like ``needs_cuda``: ``if gpu := needs_accelerator(device, ...): ...
    else: display(gpu)``, showing meta's answer there. A CUDA device this machine cannot use is a
    ValueError before the cell runs.
    """
    _check_key("needs_accelerator", key)
    if device is None:
        raise ValueError(
            "needs_accelerator(device) takes the lesson's device, decided once in its first code cell "
            "(device = pick_device()); got None. Pass that device: needs_accelerator(device, what=...)."
        )
    dev = as_device(device, "needs_accelerator(device)")
    if dev.type == "cuda":  # a device this machine lacks fails here, in words, not in the cell's first kernel
        cuda_here = torch.cuda.device_count() if torch.cuda.is_available() else 0
        if (dev.index or 0) >= cuda_here:
            raise ValueError(
                f"needs_accelerator(device): the lesson's device is {str(dev)!r}, but this machine has "
                f"{cuda_here} CUDA GPU(s). Decide it with device = pick_device(), which takes what this machine has."
            )
    if dev.type not in _NOT_AN_ACCELERATOR:
        return Requirement(True, f"Ran {what} on {dev}, the lesson's accelerator.", key, dev)
    return Requirement(
        False,
        f"NO ACCELERATOR for {what}: the lesson's device is {dev.type}, not an accelerator (CUDA, MPS, XPU), so the "
        "cell's device is meta, which keeps shapes and dtypes but holds no data (no values, no real copies or kernels).",
        key,
        torch.device("meta"),
    )


def needs_package(name: str, *, extra: str, what: str = "this cell") -> Requirement:
    """Check for an optional package (one of the course's extras) before the cells that use it.

    Use as ``if hf := needs_package("accelerate", extra="hf", what="accelerate's device map"):`` with
    ``display(hf)`` in the ``else`` branch: it says what was skipped and how to install the package. Found
    means importable here (``importlib.util.find_spec``); nothing is imported. Not a GPU cell: it takes no
    evidence key, and ``make pairs`` does not count it. Lesson: notebook 10 (accelerate's ``device_map``).
    """
    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z_][\w.]*", name):
        raise ValueError(f"needs_package(name) takes a module name such as 'accelerate'; got {name!r}.")
    if importlib.util.find_spec(name) is None:
        return Requirement(
            False,
            f"SKIPPED {what}: it needs {name}, an optional package that this Python has not got. Install it with "
            f'pip install "course-utils[{extra}]" (make lab does) or pip install {name}, then restart the kernel.',
        )
    try:
        version = importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:  # importable, but not installed by pip (a path on sys.path)
        version = "(version unknown)"
    return Requirement(True, f"Running {what} with {name} {version}.")


# An evidence key: the notebook's two digits, then lowercase words joined by dashes ("04-set-device").
_KEY = re.compile(r"\d\d-[a-z0-9]+(?:-[a-z0-9]+)*")
