"""Show, on a machine that cannot run a GPU-only cell, what a GPU shows there: in words, then the evidence.

Lesson: every notebook's GPU cells. A cell names its requirement once, ``if gpu := needs_cuda(...,
key=K): ... else: display(gpu)`` or ``gpu = needs_accelerator(device, ..., key=K)`` ... ``display(gpu)``;
displaying an unmet requirement prints the SKIPPED line and displays ``recorded(K)``, the one way
the course shows a GPU result it did not compute here:

- first, in one or two plain sentences, what a GPU (or, for an accelerator cell, any accelerator)
  shows in that cell and why (``sources.CLAIMS[K].says``);
- then the output recorded for ``K`` by the course's own GPU run, with its provenance ("recorded by
  this course on NVIDIA H200, torch 2.11.0+cu130 (CUDA 13.0, driver ...), 2026-12-01"), from the
  package's ``recordings/``;
- or, where no course run has recorded ``K`` yet, a field record when one exists: what a real GPU
  printed there as someone published it, labelled with its GPU, torch version and link, and "not
  run by this course" (``field_records.RECORDS``);
- then, without a course recording, the PyTorch source that backs the sentences, folded away (an
  HTML ``<details>``, closed until clicked); a passage an earlier cell of the same notebook already
  showed is named, not repeated ("the same passage as for ... above, part 4").

The plain-text form stays short and says where the quotes are (``.source`` prints them). A key
with neither a recording nor a claim is a ValueError, so a notebook cannot show a GPU result from
nowhere.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from course_utils.display import CAUTION, INFO, PROBLEM, Html, card, escape, markup, pre, tag
from course_utils.evidence.field_records import STANDINS, FieldRecord, field_record, published_timings
from course_utils.evidence.records import Cell, EvidenceFile, GpuMachine, load
from course_utils.evidence.sources import CLAIMS, SourceQuote


@dataclass(frozen=True)
class Recording:
    """One cell's output from one machine's evidence file."""

    cell: Cell
    machine: GpuMachine
    fake: bool
    path: Path | None


@dataclass(frozen=True)
class ShownBefore:
    """A source passage an earlier GPU-only cell of the same notebook already showed in full."""

    quote: SourceQuote
    what: str  # that cell's needs_cuda(what=...): "the CUDA cross-device error"
    where: str  # "part 4", "part 2, Deeper", "Deeper: more errors, and where PyTorch raises them"

    def __str__(self) -> str:
        return f"the same passage of {self.quote.file} as for \u201c{self.what}\u201d above ({self.where})"


@dataclass(frozen=True)
class GpuEvidence:
    """What a GPU shows in cell ``key``: plain sentences, then the course's recording, or a field record
    (a public report, not run here) and PyTorch's source."""

    key: str
    says: str
    recording: Recording | None
    quotes: tuple[SourceQuote, ...]  # shown here, folded
    shown_before: tuple[ShownBefore, ...] = ()  # shown by an earlier cell: named, not repeated
    field: FieldRecord | None = None  # shown only without a recording: the course's own run replaces it

    @property
    def heading(self) -> str:
        if self.recording is None:
            return "Not yet recorded on a GPU by this course. Backed by PyTorch's source (a quote, not a run):"
        r = self.recording
        where = f" [{r.path.name}]" if r.path is not None else ""
        label = "FAKE RUN (test fixture, not a real GPU): " if r.fake else ""
        return f"{label}Recorded by this course on {r.machine.provenance}{where}:"

    @property
    def source(self) -> str:
        """Every quote in full, as text: what the folded part of the HTML holds."""
        lines = []
        for q in self.quotes:
            lines.append(f"{q.label}:")
            lines += ["    " + line for line in q.shown.splitlines()]
            if q.note:
                lines.append(f"  ({q.note})")
        lines += [f"{b}." for b in self.shown_before]
        return "\n".join(lines)

    def __str__(self) -> str:
        lines = [self.says] if self.says else []
        if self.recording is not None:
            lines.append(self.heading)
            lines += ["  " + line for line in self.recording.cell.output.rstrip("\n").splitlines()]
            return "\n".join(lines)
        if self.field is not None:
            lines += _record_text(self.field, f"Field record (a public report): {self.field.label}")
        where = [f"{q.file} ({q.releases})" for q in self.quotes] + [str(b) for b in self.shown_before]
        lines.append(f"Not yet recorded on a GPU by this course; backed by PyTorch's source: {'; '.join(where)}.")
        if self.quotes:
            lines.append(f"The quotes are folded under this cell; print(recorded({self.key!r}).source) prints them.")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return str(self)

    def _repr_html_(self) -> str:
        # red: a test fixture posing as a GPU run; blue: a real recording; amber: only a source quote
        tone = PROBLEM if self.recording is not None and self.recording.fake else (INFO if self.recording is not None else CAUTION)
        if self.recording is not None:
            body = markup(tag("div", tag("small", self.heading)), pre(self.recording.cell.output.rstrip()))
        else:
            folded = (tag("details", tag("summary", q.label), pre(q.shown), tag("small", q.note) if q.note else "") for q in self.quotes)
            named = (tag("div", tag("small", f"PyTorch's source: {b}.")) for b in self.shown_before)
            field = _record_html(self.field, "Field record (a public report): printed on") if self.field is not None else ()
            body = markup(*field, tag("div", tag("small", self.heading)), *folded, *named)
        return card(tone, self.says, body)


def _record_text(r: FieldRecord, heading: str) -> list[str]:
    """A field record as text: ``heading``, the excerpt indented, then its caveat."""
    return [f"{heading}:", *("  " + line for line in r.excerpt.splitlines()), *([f"({r.caveat})"] if r.caveat else [])]


def _record_html(r: FieldRecord, printed_on: str) -> tuple[str, ...]:
    """A field record as HTML: where it was printed and published, the excerpt, then its caveat."""
    label = tag(
        "small",
        f"{printed_on} {r.gpu}" + (f" over {r.link}" if r.link else "") + f" with torch {r.torch}, as reported in ",
        Html(f"<a href='{escape(r.url)}'>{escape(r.url)}</a>"),
        f" ({r.date}); not run by this course:",
    )
    caveat = (tag("div", tag("small", r.caveat)),) if r.caveat else ()
    return (tag("div", label), pre(r.excerpt), *caveat)


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
    """What a GPU shows in cell ``key``: plain sentences, then a GPU recording or PyTorch's source.

    Reads the recordings each call (a few small files), so a new GPU run shows up at once.
    """
    if not isinstance(key, str):
        raise TypeError(f"recorded() expects the cell's evidence key as a string, like '02-round-trip'; got {type(key).__name__}.")
    files = load(Path(evidence_dir) if evidence_dir is not None else None)
    recording = select(key, files)
    claim = CLAIMS.get(key)
    if recording is None and claim is None:
        raise ValueError(
            f"No GPU recording and no plain claim with a source quote for {key!r}. A notebook may only show a GPU "
            "result that was recorded on a GPU (scripts/gpu-verify) or backed by PyTorch's source: add the key to "
            "CLAIMS in course_utils/evidence/sources.py, or run scripts/gpu-verify on a GPU machine."
        )
    if claim is None:
        return GpuEvidence(key=key, says="", recording=recording, quotes=())
    quotes, before = first_showings(key, claim.quotes, files)
    field = field_record(key) if recording is None else None
    return GpuEvidence(key=key, says=claim.says, recording=recording, quotes=quotes, shown_before=before, field=field)


def first_showings(
    key: str, quotes: tuple[SourceQuote, ...], files: tuple[EvidenceFile, ...]
) -> tuple[tuple[SourceQuote, ...], tuple[ShownBefore, ...]]:
    """``quotes`` split into those cell ``key`` shows and those an earlier cell of its notebook showed.

    An earlier cell shows its quotes only while it has no recording; the order and parts come from
    the notebooks, as ``make pairs`` last scanned them (``course_utils.lesson_needs``).
    """
    from course_utils.lessons import course

    lesson = next((n for n in course() if key.startswith(n.number + "-")), None)
    keys = [c.key for c in lesson.cells] if lesson is not None else []
    if key not in keys:
        return quotes, ()
    parts = {p.label: p for p in lesson.parts}
    here, before = [], []
    for q in quotes:
        first = next(
            (c for c in lesson.cells[: keys.index(key)] if c.key in CLAIMS and q in CLAIMS[c.key].quotes and select(c.key, files) is None), None
        )
        if first is None:
            here.append(q)
            continue
        part = parts.get(first.part)
        where = f"part {first.part}" if part is not None and part.label != part.title else (first.part or "the start")
        before.append(ShownBefore(q, first.what, where + (", Deeper" if first.deeper and where.startswith("part") else "")))
    return tuple(here), tuple(before)


@dataclass(frozen=True)
class PublishedMeasurements:
    """Published measurements of what a lesson's stand-in imitates: a real GPU's figures, beside this machine's.

    Each is a ``FieldRecord`` from ``field_records.TIMINGS``, labelled with its GPU, link (where the report
    states one) and torch version and "not run by this course"; none of its figures enters the stand-in's.
    """

    key: str
    what: str  # what the stand-in imitates (STANDINS[key])
    records: tuple[FieldRecord, ...]

    @property
    def heading(self) -> str:
        return f"Published measurements of {self.what}, from real GPUs (not this machine's figures):"

    def __str__(self) -> str:
        lines = [self.heading]
        for r in self.records:
            lines += _record_text(r, r.label)
        if not self.records:
            lines.append("None published with its GPU and torch version has been found yet.")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return str(self)

    def _repr_html_(self) -> str:
        parts = [piece for r in self.records for piece in _record_html(r, "Printed on")]
        if not self.records:
            parts.append(tag("div", tag("small", "None published with its GPU and torch version has been found yet.")))
        return card(INFO, self.heading, markup(*parts))


def published(key: str) -> PublishedMeasurements:
    """The published GPU measurements shown beside stand-in ``key``; a ValueError names the known stand-ins."""
    return PublishedMeasurements(key=key, what=STANDINS[key] if key in STANDINS else key, records=published_timings(key))
