"""The lessons and their GPU-only cells, as ``make pairs`` last scanned them: what ``preflight()`` and the evidence read.

Lesson: none; what the course says about itself (``preflight()`` in notebook 01, a skipped GPU cell's
evidence). ``course()`` reads the generated module ``course_utils/lesson_needs.py``, so a pip install
on Colab has it without the notebooks; the authors' ``course_authoring.lesson_map`` scans the notebooks
and writes that module.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


def gpus_label(n: int) -> str:
    """``a CPU``, ``1 GPU``, ``2 GPUs``: what runs a cell or a lesson that needs ``n`` CUDA GPUs."""
    return "a CPU" if n == 0 else f"{n} GPU{'s' if n > 1 else ''}"


@dataclass(frozen=True)
class GpuCell:
    """One GPU cell, in ``part``: ``needs_cuda(gpus, what=what, key=key)`` or ``needs_accelerator(...)``."""

    key: str
    gpus: int  # CUDA GPUs it needs; 1 for an accelerator cell
    what: str
    part: str  # the part's label ("3", "A"), or the section's title ("Deeper: more errors"), "" before any
    deeper: bool  # tagged ``deeper``: optional material
    needs: str = "cuda"  # "cuda": CUDA only; "accelerator": any accelerator runs it, meta stands in without one

    @property
    def label(self) -> str:
        """``1 GPU``, ``2 GPUs`` or ``1 accelerator`` (any kind): what runs it for real."""
        return "1 accelerator" if self.needs == "accelerator" else gpus_label(self.gpus)


@dataclass(frozen=True)
class Part:
    """A ``## `` section of a lesson, in order."""

    label: str  # "3", "A", or the whole title of an unnumbered section
    title: str

    @property
    def heading(self) -> str:
        return f"{self.label}. {self.title}" if self.label != self.title else self.title


@dataclass(frozen=True)
class Lesson:
    """One lesson notebook: its parts and its GPU-only cells, in notebook order."""

    number: str  # "01"
    title: str  # "Device query: what does this machine have?"
    notebook: str  # "notebooks/01_device_query.ipynb"
    parts: tuple[Part, ...]
    cells: tuple[GpuCell, ...]

    @property
    def needs(self) -> int:
        """How many CUDA GPUs run every cell of the lesson for real (0: a CPU is enough)."""
        return max((c.gpus for c in self.cells), default=0)

    @property
    def name(self) -> str:
        """``01 device query``: the name ``preflight()`` lists."""
        return f"{self.number} {Path(self.notebook).stem[3:].replace('_', ' ')}"

    def skipped_with(self, gpus: int, accelerator: bool | None = None) -> tuple[GpuCell, ...]:
        """The cells that skip (or run on meta) on a machine with ``gpus`` CUDA GPUs.

        ``accelerator``: whether it has any accelerator (MPS, XPU count); by default, ``gpus > 0``.
        """
        has_accelerator = gpus > 0 if accelerator is None else accelerator
        return tuple(c for c in self.cells if (not has_accelerator if c.needs == "accelerator" else c.gpus > gpus))

    def in_part(self, label: str) -> tuple[GpuCell, ...]:
        return tuple(c for c in self.cells if c.part == label)


def course() -> tuple[Lesson, ...]:
    """The lessons as ``make pairs`` last scanned them: works from a pip install, without notebooks/."""
    from course_utils.lesson_needs import LESSONS

    return tuple(
        Lesson(number, title, notebook, tuple(Part(*p) for p in parts), tuple(GpuCell(*c) for c in cells))
        for number, title, notebook, parts, cells in LESSONS
    )
