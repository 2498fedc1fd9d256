"""Show, on a machine that cannot run a GPU-only cell, what a real GPU printed there.

Lesson: every notebook's GPU-only cells. The ``else`` branch of ``if needs_cuda(..., key=K):``
ends on ``recorded(K)``, the one way the course shows a GPU result it did not compute here:

- the output recorded for ``K`` on a real GPU, with its provenance ("recorded on NVIDIA H200,
  torch 2.11.0+cu130 (CUDA 13.0, driver ...), 2026-12-01"), from ``evidence/``;
- where no GPU run has recorded ``K`` yet, "not yet recorded on a GPU" and what PyTorch's source
  says instead, labelled as a source quote with its file and the version it was checked against.

A key with neither is a ValueError, so a notebook cannot show a GPU result from nowhere.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from course_utils.display import CAUTION, INFO, PROBLEM, card, markup, pre, tag
from course_utils.evidence.records import Cell, EvidenceFile, Machine, load
from course_utils.evidence.sources import QUOTES, SourceQuote


@dataclass(frozen=True)
class Recording:
    """One cell's output from one machine's evidence file."""

    cell: Cell
    machine: Machine
    fake: bool
    path: Path | None


@dataclass(frozen=True)
class GpuEvidence:
    """What a GPU shows in cell ``key``: a recording, or else PyTorch's source quoted."""

    key: str
    recording: Recording | None
    quotes: tuple[SourceQuote, ...]

    @property
    def heading(self) -> str:
        if self.recording is None:
            return "Not yet recorded on a GPU. What PyTorch's source says instead (a source quote, not a run):"
        r = self.recording
        where = f" [{r.path.name}]" if r.path is not None else ""
        label = "FAKE RUN (test fixture, not a real GPU): " if r.fake else ""
        return f"{label}Recorded on {r.machine.provenance}{where}:"

    def __str__(self) -> str:
        lines = [self.heading]
        if self.recording is not None:
            lines += ["  " + line for line in self.recording.cell.output.rstrip("\n").splitlines()]
        else:
            for q in self.quotes:
                lines.append(f"  {q.label}:")
                lines += ["    " + line for line in q.shown.splitlines()]
                if q.note:
                    lines.append(f"  ({q.note})")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return str(self)

    def _repr_html_(self) -> str:
        # red: a test fixture posing as a GPU run; blue: a real recording; amber: only a source quote
        tone = PROBLEM if self.recording is not None and self.recording.fake else (
            INFO if self.recording is not None else CAUTION)
        if self.recording is not None:
            body = pre(self.recording.cell.output.rstrip())
        else:
            body = markup(*(
                tag("div", tag("i", q.label), pre(q.shown), tag("small", q.note) if q.note else "")
                for q in self.quotes
            ))
        return card(tone, self.heading, body)


def select(key: str, files: tuple[EvidenceFile, ...]) -> Recording | None:
    """The recording of ``key`` to show: the newest run, then the one with more GPUs.

    Every recording of a key came from a machine that ran the cell, so any file holding the key
    had enough GPUs for it; the tie-breaks only make the choice the same on every machine.
    """
    holding = [f for f in files if key in f.cells]
    if not holding:
        return None
    best = max(holding, key=lambda f: (f.machine.date, f.machine.gpu_count, f.machine.torch, f.machine.slug))
    return Recording(cell=best.cells[key], machine=best.machine, fake=best.fake, path=best.path)


def recorded(key: str, *, evidence_dir: Path | str | None = None) -> GpuEvidence:
    """What a real GPU printed in cell ``key``, or PyTorch's source quoted where none has yet.

    Reads ``evidence/`` each call (a few small files), so a new GPU run shows up at once.
    """
    if not isinstance(key, str):
        raise TypeError(f"recorded() expects the cell's evidence key as a string, like '02-round-trip'; "
                        f"got {type(key).__name__}.")
    files = load(Path(evidence_dir) if evidence_dir is not None else None)
    recording = select(key, files)
    quotes = QUOTES.get(key, ())
    if recording is None and not quotes:
        raise ValueError(
            f"No GPU recording and no source quote for {key!r}. A notebook may only show a GPU result that "
            "was recorded on a GPU (scripts/gpu-verify) or quoted from PyTorch's source: add the quote to "
            "course_utils/evidence/sources.py, or run scripts/gpu-verify on a GPU machine."
        )
    return GpuEvidence(key=key, recording=recording, quotes=quotes)
