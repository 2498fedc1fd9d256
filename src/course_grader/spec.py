"""Read the instructor's exercise notebook: which exercises it checks, in order, and its setup cells.

Lesson: none; this is the instructors' tool (``course-grade``). The exercise notebook is the
one handed out (``exercises/NN_..._exercises.ipynb``). Its check cells are exactly
``check("NN.K")``; the code cell before each one defines the function the learner writes;
every other code cell (imports, usually) is a setup cell the grader can re-insert when a
learner deleted it.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass
from pathlib import Path

from course_utils.check_cells import BEGIN, STUB, check_cell_id

HEADING = re.compile(r"^#+\s*Exercise\s+(\S+?)\s*[·:\-–—]\s*(.+?)\s*$", re.M)


@dataclass(frozen=True)
class ExerciseSlot:
    """One exercise of the notebook: its id, the function it asks for (if known), its title."""

    id: str
    function: str | None
    title: str = ""


@dataclass(frozen=True)
class ExerciseSpec:
    """What the grader needs from the exercise notebook."""

    path: Path
    exercises: tuple[ExerciseSlot, ...]
    setup_sources: tuple[str, ...]  # the notebook's other code cells, in order
    kernel_name: str

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(e.id for e in self.exercises)

    def __str__(self) -> str:
        return f"{self.path.name}: exercises {', '.join(self.ids)}"


def _cell_source(cell: dict) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else str(source)


def _defined_function(source: str) -> str | None:
    """The function an exercise cell asks for: its only top-level def, or the one holding the stub."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    defs = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    if len(defs) == 1:
        return defs[0].name
    stubbed = [d.name for d in defs if STUB[1] in (ast.get_source_segment(source, d) or "")]
    return stubbed[0] if len(stubbed) == 1 else None


def read_spec(path: Path) -> ExerciseSpec:
    """Read an exercise notebook; ValueError when it is not one the grader can use."""
    path = Path(path)
    try:
        nb = json.loads(path.read_text(encoding="utf-8"))
        cells = nb["cells"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ValueError(
            f"Cannot read the exercise notebook {path}: {exc}. Expected an .ipynb file from exercises/ (run `make exercises`)."
        ) from exc
    titles = {}
    for cell in cells:
        if cell.get("cell_type") == "markdown":
            for match in HEADING.finditer(_cell_source(cell)):
                titles[match.group(1)] = match.group(2)
    code = [_cell_source(c) for c in cells if c.get("cell_type") == "code"]
    if any(BEGIN in source for source in code):
        raise ValueError(
            f"{path} holds solutions ({BEGIN}); give the exercise notebook the learners got, from exercises/ (`make exercises` writes it)."
        )
    slots, answer_cells, seen = [], set(), set()
    for i, source in enumerate(code):
        ex_id = check_cell_id(source)
        if ex_id is not None:
            if ex_id in seen:
                raise ValueError(f"{path} checks exercise {ex_id} twice; each check cell must be unique.")
            seen.add(ex_id)
            before = code[i - 1] if i > 0 and check_cell_id(code[i - 1]) is None else ""
            answer_cells.add(i - 1)
            slots.append(ExerciseSlot(ex_id, _defined_function(before), titles.get(ex_id, "")))
    setup = [s for i, s in enumerate(code) if i not in answer_cells and check_cell_id(s) is None and STUB[0] not in s]
    if not slots:
        raise ValueError(f'{path} has no check cells (cells that are exactly check("NN.K")); is it an exercise notebook from exercises/?')
    kernel = (nb.get("metadata", {}).get("kernelspec") or {}).get("name") or "python3"
    return ExerciseSpec(path, tuple(slots), tuple(s for s in setup if s.strip()), kernel)


def find_exercise_notebook(name: str, search: tuple[Path, ...]) -> Path:
    """Resolve EXERCISE: a path, a file name in exercises/, or a number like "01" or "1"."""
    given = Path(name)
    if given.is_file():
        return given
    candidates: list[Path] = []
    for folder in search:
        if not folder.is_dir():
            continue
        notebooks = sorted(folder.glob("*.ipynb"))
        if name.isdigit():
            candidates = [p for p in notebooks if p.name.startswith(f"{int(name):02d}_")]
        else:
            candidates = [p for p in notebooks if p.name in (name, f"{name}.ipynb")] or [p for p in notebooks if name in p.name]
        if candidates:
            break
    if len(candidates) == 1:
        return candidates[0]
    known = sorted({p.name for f in search if f.is_dir() for p in f.glob("*.ipynb")})
    found = "several match: " + ", ".join(p.name for p in candidates) if candidates else "none matches"
    raise ValueError(
        f"Cannot find the exercise notebook {name!r} ({found}). "
        f"Give its path, or one of: {', '.join(known) or 'no notebooks in ' + ', '.join(map(str, search))}."
    )
