"""What each lesson needs, computed from the lessons' own GPU cells (``needs_cuda``, ``needs_accelerator``).

Lesson: none; what the course says about itself (``preflight()`` in notebook 01, README's tables,
each lesson's intro table). ``scan_course`` reads ``notebooks/NN_*.py`` and finds every GPU cell
(``gpu_cells``: ``if gpu := needs_cuda(N, ...)``, ``gpu = needs_accelerator(...)``), the part
it sits in (``## 3. Title``) and whether it is a ``deeper`` cell. ``make pairs`` writes the result into ``course_utils/lesson_needs.py``
(a generated module, so a pip install on Colab has it without the notebooks) and into the
tables; ``python -m course_utils.header`` (``make check-pairs``, ``tests/test_header.py``)
reports any of them that disagrees with the notebooks.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from course_utils.gpu_cells import gpu_cells_in_source

# A lesson's part: "## 3. Title" or "## A. Title". Other "## " headings (Summary, "Deeper: ...")
# are sections too; they get a row only when they hold a GPU-only cell.
_HEADING = re.compile(r"^# ## (?P<title>.+?)\s*$")
_PART = re.compile(r"^(?P<label>\d+|[A-Z])\. (?P<title>.+)$")
_CELL = re.compile(r"^# %%(?P<markdown> \[markdown\])?(?P<rest>.*)$")


class MakePairsError(ValueError):
    """A file ``make pairs`` writes cannot be written: what is missing, and what to put back."""


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
        return "1 accelerator" if self.needs == "accelerator" else _gpus(self.gpus)


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


def _code_calls(source: str) -> list[tuple[int, str, str, str]]:
    return [(c.count, c.key or "", c.what, c.needs) for c in gpu_cells_in_source(source)]


def scan_lesson(path: Path, root: Path | None = None) -> Lesson:
    """The parts and GPU-only cells of one lesson's ``.py`` side (Jupytext py:percent)."""
    text = path.read_text(encoding="utf-8")
    title, parts, cells = "", [], []
    current, kind, deeper, body = "", None, False, []

    def flush() -> None:
        nonlocal title, current
        if kind == "markdown":
            for line in body:
                if not title and line.startswith("# # "):
                    title = line[4:].strip()
                heading = _HEADING.match(line)
                if heading:
                    part = _PART.match(heading["title"])
                    label, name = (part["label"], part["title"]) if part else (heading["title"], heading["title"])
                    parts.append(Part(label, name))
                    current = label
        elif kind == "code":
            for count, key, what, needs in _code_calls("\n".join(body)):
                cells.append(GpuCell(key, count, what, current, deeper, needs))

    for line in text.splitlines():
        cell = _CELL.match(line)
        if cell:
            flush()
            kind = "markdown" if cell["markdown"] else "code"
            deeper, body = '"deeper"' in cell["rest"], []
        else:
            body.append(line)
    flush()
    number = path.name[:2]
    title = re.sub(rf"^{number}\s*·\s*", "", title)
    where = path.parent.name if root is None else path.parent.relative_to(root).as_posix()
    return Lesson(number, title, f"{where}/{path.stem}.ipynb", tuple(parts), tuple(cells))


def scan_course(root: Path) -> tuple[Lesson, ...]:
    """Every lesson in ``root/notebooks``, in order."""
    return tuple(scan_lesson(p, root) for p in sorted((root / "notebooks").glob("[0-9][0-9]_*.py")))


# --------------------------------------------------------------------------- the generated module

MODULE_NOTE = '"""What each lesson needs: GENERATED by `make pairs` (course_utils.lesson_map) from notebooks/*.py; do not edit."""'


def module_text(lessons: tuple[Lesson, ...]) -> str:
    """``course_utils/lesson_needs.py``: the scan as plain data, one GPU-only cell a line."""
    out = [MODULE_NOTE, "", "# ruff: noqa: E501",
           "# (number, title, notebook, parts as (label, title), cells as (key, gpus, what, part, deeper, needs))", "LESSONS = ("]
    for lesson in lessons:
        out.append(f"    ({lesson.number!r}, {lesson.title!r}, {lesson.notebook!r},")
        out.append("     (")
        out += [f"         ({p.label!r}, {p.title!r})," for p in lesson.parts]
        out.append("     ),")
        out.append("     (")
        out += [f"         ({c.key!r}, {c.gpus}, {c.what!r}, {c.part!r}, {c.deeper}, {c.needs!r})," for c in lesson.cells]
        out.append("     )),")
    out.append(")")
    return "\n".join(out) + "\n"


def course() -> tuple[Lesson, ...]:
    """The lessons as ``make pairs`` last scanned them: works from a pip install, without notebooks/."""
    from course_utils.lesson_needs import LESSONS

    return tuple(
        Lesson(number, title, notebook, tuple(Part(*p) for p in parts), tuple(GpuCell(*c) for c in cells))
        for number, title, notebook, parts, cells in LESSONS
    )


# --------------------------------------------------------------------------- the tables


def _gpus(n: int) -> str:
    return "a CPU" if n == 0 else f"{n} GPU{'s' if n > 1 else ''}"


def _by_label(cells: tuple[GpuCell, ...]) -> dict[str, int]:
    """How many cells need each thing: accelerator cells first, then by CUDA GPUs needed."""
    order = sorted({(c.needs != "accelerator", c.gpus, c.label) for c in cells})
    return {label: sum(c.label == label for c in cells) for _, _, label in order}


def cell_counts(cells: tuple[GpuCell, ...]) -> str:
    """``2 need 1 accelerator, 3 need 1 GPU, 1 needs 2 GPUs``: the GPU cells among ``cells``, by what they need."""
    if not cells:
        return "none"
    return ", ".join(f"{k} need{'s' if k == 1 else ''} {label}" for label, k in _by_label(cells).items())


def _short_counts(cells: tuple[GpuCell, ...]) -> str:
    """``2 (1 accelerator) and 1 (2 GPUs)``: the compact form the intro tables use."""
    return " and ".join(f"{k} ({label})" for label, k in _by_label(cells).items())


def runs_for_real_with(cells: tuple[GpuCell, ...]) -> str:
    """What runs every one of ``cells`` for real: ``a CPU``, ``1 accelerator`` (any kind), ``1 GPU``, ``2 GPUs``."""
    cuda = max((c.gpus for c in cells if c.needs == "cuda"), default=0)
    if cuda == 0 and any(c.needs == "accelerator" for c in cells):
        return "1 accelerator"
    return _gpus(cuda)


def part_rows(lesson: Lesson) -> list[tuple[str, str, str]]:
    """(part, runs for real with, GPU-only cells) for each part, and each other section with GPU cells."""
    rows = []
    sections = [Part("", "before part 1")] + list(lesson.parts)
    for part in sections:
        cells = lesson.in_part(part.label)
        numbered = part.label != part.title and part.label != ""
        if not numbered and not cells:
            continue
        core = tuple(c for c in cells if not c.deeper)
        deeper = tuple(c for c in cells if c.deeper)
        counts = [_short_counts(core)] if core else []
        # "in Deeper:" and "and" keep "5 (1 GPU) and 1 (2 GPUs)" from reading as core cells
        counts += [f"in Deeper: {_short_counts(deeper)}"] if deeper else []
        name = part.label if numbered else ("Deeper" if part.title.startswith("Deeper") else part.title)
        rows.append((name, runs_for_real_with(cells), "; ".join(counts) or "none"))
    return rows


NEEDS_START = "<!-- lesson-needs:start, written by make pairs -->"
NEEDS_END = "<!-- lesson-needs:end -->"


def intro_block(lesson: Lesson, recorded_keys: frozenset[str], field_keys: frozenset[str] = frozenset()) -> str:
    """The markdown block for a lesson's first cell: its parts, what each needs, and what a CPU shows."""
    lines = [NEEDS_START, "| Part | Runs for real with | GPU-only cells |", "|---|---|---|"]
    lines += [f"| {a} | {b} | {c} |" for a, b, c in part_rows(lesson)]
    lines.append("")
    lines.append(without_a_gpu(lesson, recorded_keys, field_keys))
    lines.append(NEEDS_END)
    return "\n".join(lines)


def without_a_gpu(lesson: Lesson, recorded_keys: frozenset[str], field_keys: frozenset[str] = frozenset()) -> str:
    """One or two sentences, true for this lesson today: what a learner without a GPU sees.

    ``recorded_keys``: cells the course's own GPU run recorded; ``field_keys``: cells with a field record
    (a public report of a real GPU's output, ``evidence.field_records``), shown where no recording is.
    """
    n = len(lesson.cells)
    if n == 0:
        return "Without a GPU every cell runs for real."
    on_meta = sum(c.needs == "accelerator" for c in lesson.cells)
    if on_meta:
        first = f"{on_meta} cell{'s run' if on_meta > 1 else ' runs'} on any accelerator, else meta."
        return first if on_meta == n else f"{first} {_skipped_sentence(lesson, recorded_keys, field_keys)}"
    return _skipped_sentence(lesson, recorded_keys, field_keys)


def _skipped_sentence(lesson: Lesson, recorded_keys: frozenset[str], field_keys: frozenset[str] = frozenset()) -> str:
    cuda = [c for c in lesson.cells if c.needs == "cuda"]
    n = len(cuda)
    real = [c for c in cuda if c.key in recorded_keys]
    field = [c for c in cuda if c.key in field_keys and c.key not in recorded_keys]
    said = "Without a GPU, each GPU-only cell prints SKIPPED, says what a GPU shows, then"
    if not real and not field:
        # "Not yet recorded on a GPU by this course" heads the folded quote in the cell itself.
        return f"{said} folds away the PyTorch source behind it."
    if len(real) == n:
        return f"{said} shows what a real GPU printed there."
    shown = []
    if real:
        shown.append(f"recorded by the course ({len(real)} of {n} cells)")
    if field:
        shown.append(f"from a public report, not run here ({len(field)} of {n} cells)")
    return f"{said} shows a real GPU's output {' or '.join(shown)} and folds away the PyTorch source."


def with_intro_block(text: str, block: str, where: str) -> str:
    """A lesson's py:percent ``text`` with the generated needs block of its first cell replaced."""
    commented = "\n".join(("# " + line).rstrip() for line in block.splitlines())
    start, end = text.find("# <!-- lesson-needs:start"), text.find("# " + NEEDS_END)
    if start >= 0 and end > start:
        return text[:start] + commented + text[end + len("# " + NEEDS_END):]
    raise MakePairsError(
        f"{where}: the first cell should hold the lines `# {NEEDS_START}` and `# {NEEDS_END}` (the lesson's "
        "generated table of what each part needs); put them back after the \"You will be able to\" list, "
        "then run `make pairs`."
    )


# --------------------------------------------------------------------------- README

LESSONS_TABLE = "| # | Lesson | What you learn | GPU-only cells (without a GPU, each says what it would show) |"
COVERS_TABLE = "| # | Notebook | What you learn | Every cell for real with |"


def readme_with_needs(readme: str, lessons: tuple[Lesson, ...]) -> str:
    """README with the last column of its two lesson tables computed; a lesson without a row is an error."""
    for head, value in ((LESSONS_TABLE, lambda n: cell_counts(n.cells)), (COVERS_TABLE, lambda n: runs_for_real_with(n.cells))):
        readme = _rewrite_last_column(readme, head, {n.number: value(n) for n in lessons})
    return readme


def _rewrite_last_column(readme: str, head: str, values: dict[str, str]) -> str:
    lines = readme.split("\n")
    if head not in lines:
        raise MakePairsError(f"README.md should hold a table headed {head!r}; put it back, then run `make pairs`.")
    i = lines.index(head) + 2
    seen = []
    while i < len(lines) and lines[i].startswith("| "):
        cells = lines[i].split(" | ")
        number = cells[0][2:].strip()
        if number not in values:
            raise MakePairsError(f"README.md, table {head!r}: row {number!r} is no lesson in notebooks/; remove it.")
        seen.append(number)
        lines[i] = " | ".join(cells[:-1] + [values[number] + " |"])
        i += 1
    missing = [n for n in values if n not in seen]
    if missing or seen != sorted(seen):
        raise MakePairsError(
            f"README.md, table {head!r}: rows should be the lessons in order ({', '.join(values)}); "
            f"missing {', '.join(missing) or 'none'}. Add a row `| NN | ... | what you learn | |` per lesson, "
            "then run `make pairs` to fill in the last column."
        )
    return "\n".join(lines)
