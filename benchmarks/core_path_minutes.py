"""How long each lesson's core path takes a learner: issue 22's estimate, per lesson.

The estimate (the one issue 12's figures used):

- prose: the words of markdown cells not tagged ``deeper`` at 150 words a minute;
- 20 s per core code cell (read it, run it, glance at the output);
- 4 min per ``try-it`` cell (the learner types an answer and reads the check);
- plus the measured execution time of the core cells: the notebook is executed with its
  ``deeper`` cells removed (a temporary copy, with nbclient, in the notebook's own folder as
  ``make test`` runs it), and the per-cell times nbclient records are summed over core cells.

The header cells (tagged ``course-header``, written by ``make pairs``) count for nothing. A
``try-it`` cell is a core code cell too (20 s to read) and adds its 4 minutes of typing, as the
issue counted (07's "49 core code cells" include its two try-its). A ``.py`` path is read with
jupytext, so an author sees the effect of an edit before ``make pairs``.

Run from the repository root::

    PYTHONPATH=$PWD/src .venv/bin/python benchmarks/core_path_minutes.py            # all lessons
    PYTHONPATH=$PWD/src .venv/bin/python benchmarks/core_path_minutes.py notebooks/07_claims_checked.py
    ... --no-exec   # skip execution (exec seconds count as 0): a second or two per lesson

Lesson: every lesson notebook (the 20-minute core path of issue 22).
"""

from __future__ import annotations

import argparse
import copy
import sys
import tempfile
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
WORDS_PER_MINUTE = 150
SECONDS_PER_CODE_CELL = 20
MINUTES_PER_TRY_IT = 4
TARGET_MINUTES = 20


@dataclass(frozen=True)
class CorePath:
    """One lesson's core-path figures; ``minutes`` is the estimate."""

    lesson: str
    core_words: int
    deeper_words: int
    core_code_cells: int
    try_it_cells: int
    exec_seconds: float

    @property
    def minutes(self) -> float:
        return (
            self.core_words / WORDS_PER_MINUTE
            + self.core_code_cells * SECONDS_PER_CODE_CELL / 60
            + self.try_it_cells * MINUTES_PER_TRY_IT
            + self.exec_seconds / 60
        )


def tags(cell) -> list[str]:
    return cell.get("metadata", {}).get("tags", [])


def read(path: Path) -> nbformat.NotebookNode:
    """A notebook from its ``.ipynb`` or, through jupytext, its ``.py`` side."""
    if path.suffix == ".py":
        import jupytext

        return jupytext.read(path)
    return nbformat.read(path, as_version=4)


def cell_seconds(cell) -> float:
    """The seconds nbclient recorded for a cell (0 when it recorded none)."""
    timing = cell.get("metadata", {}).get("execution", {})
    start, end = timing.get("iopub.execute_input"), timing.get("shell.execute_reply")
    if not (start and end):
        return 0.0
    parse = lambda s: datetime.fromisoformat(s.replace("Z", "+00:00"))  # noqa: E731
    return max(0.0, (parse(end) - parse(start)).total_seconds())


def core_exec_seconds(nb: nbformat.NotebookNode, folder: Path, timeout: int) -> float:
    """Execute a copy of the notebook without its deeper cells; the core cells' seconds summed."""
    from nbclient import NotebookClient

    core = copy.deepcopy(nb)
    core.cells = [c for c in core.cells if "deeper" not in tags(c)]
    with tempfile.TemporaryDirectory() as scratch:  # the copy is written nowhere near the course
        nbformat.write(core, Path(scratch) / "core.ipynb")
        NotebookClient(core, timeout=timeout, kernel_name="python3", allow_errors=True, resources={"metadata": {"path": str(folder)}}).execute()
    errors = [
        i
        for i, c in enumerate(core.cells)
        if c.cell_type == "code" and "raises-exception" not in tags(c) and any(o.get("output_type") == "error" for o in c.get("outputs", []))
    ]
    if errors:
        print(f"  note: core cells {errors} (numbered without the deeper cells) raised without a raises-exception tag", file=sys.stderr)
    return sum(cell_seconds(c) for c in core.cells if c.cell_type == "code" and "course-header" not in tags(c))


def measure(path: Path, execute: bool = True, timeout: int = 600) -> CorePath:
    nb = read(path)
    words = {"core": 0, "deeper": 0}
    code = try_it = 0
    for cell in nb.cells:
        t = tags(cell)
        if "course-header" in t:
            continue
        if cell.cell_type == "markdown":
            # a word is a token with a letter in it, as tests/test_lesson_shape.py counts: a
            # table's | and --- are not read at 150 words a minute
            words["deeper" if "deeper" in t else "core"] += sum(1 for token in cell.source.split() if any(ch.isalpha() for ch in token))
        elif cell.cell_type == "code" and "deeper" not in t:
            code += 1
            try_it += "try-it" in t
    seconds = core_exec_seconds(nb, path.resolve().parent, timeout) if execute else 0.0
    return CorePath(path.stem, words["core"], words["deeper"], code, try_it, seconds)


def table(rows: list[CorePath]) -> str:
    head = f"{'lesson':34s} {'core words':>10s} {'deeper words':>12s} {'core code':>9s} {'try-it':>6s} {'exec s':>7s} {'minutes':>7s}"
    lines = [head, "-" * len(head)]
    for r in rows:
        flag = "  > 20" if r.minutes > TARGET_MINUTES else ""
        lines.append(
            f"{r.lesson:34s} {r.core_words:10d} {r.deeper_words:12d} {r.core_code_cells:9d} "
            f"{r.try_it_cells:6d} {r.exec_seconds:7.1f} {r.minutes:7.1f}{flag}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="*", type=Path, help="lesson notebooks (.py or .ipynb); default: every notebooks/NN_*.py")
    parser.add_argument("--no-exec", action="store_true", help="do not execute; exec seconds count as 0")
    parser.add_argument("--timeout", type=int, default=600, help="seconds per cell (default 600)")
    args = parser.parse_args(argv)
    # the lessons of the checkout it is run from (a copy of this script may live elsewhere)
    root = Path.cwd() if (Path.cwd() / "notebooks").is_dir() else ROOT
    paths = args.paths or sorted((root / "notebooks").glob("[0-9][0-9]_*.py"))
    rows = []
    for path in paths:
        if not path.exists():
            parser.error(f"{path}: no such notebook")
        rows.append(measure(path, execute=not args.no_exec, timeout=args.timeout))
        print(f"  measured {path.name}", file=sys.stderr, flush=True)
    print(table(rows))
    print(
        f"\nminutes = core words / {WORDS_PER_MINUTE} + {SECONDS_PER_CODE_CELL} s per core code cell"
        f" (try-its included) + {MINUTES_PER_TRY_IT} min per try-it + exec s / 60; target {TARGET_MINUTES}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
