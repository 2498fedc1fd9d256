"""Make an nbgrader source notebook from a solutions notebook: answer cells and test cells marked.

Lesson: none; this is for instructors who already run nbgrader. ``solutions/`` uses nbgrader's
``### BEGIN SOLUTION`` / ``### END SOLUTION`` markers, but nbgrader's full pipeline also needs
cell metadata: the cell holding a solution region must be an "Autograded answer" cell, and a
graded check an "Autograder tests" cell. This writes a copy with both::

    python -m course_utils.grading.nbgrader solutions/01_device_query_exercises.ipynb \\
        source/ps01/01_device_query_exercises.ipynb

Each ``check("NN.K")`` cell becomes a locked test cell worth ``--points`` (default 1)::

    result = check("01.2")
    assert result.passed, str(result)

so nbgrader's feedback shows the check's message and hint when it fails. The metadata follows
nbgrader's cell schema, version 3 (``grade_id`` may hold only letters, digits, ``_`` and ``-``).
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import nbformat

from course_utils.exercises import BEGIN
from course_utils.grading.spec import check_cell_id

SCHEMA_VERSION = 3


def _grade_id(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]", "_", text)


def mark_for_nbgrader(nb: nbformat.NotebookNode, points: float = 1) -> nbformat.NotebookNode:
    """A copy of ``nb`` with nbgrader metadata on its answer cells and its check cells."""
    nb = nbformat.from_dict(nb)
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        exercise = check_cell_id(cell.source)
        if exercise is not None:
            cell.source = f'result = check("{exercise}")\nassert result.passed, str(result)'
            cell.metadata["nbgrader"] = {"schema_version": SCHEMA_VERSION, "grade": True, "locked": True,
                                         "solution": False, "points": points,
                                         "grade_id": _grade_id(f"check-{exercise}")}
        elif BEGIN in cell.source:
            name = re.search(r"^\s*def\s+(\w+)", cell.source, re.M)
            cell.metadata["nbgrader"] = {"schema_version": SCHEMA_VERSION, "grade": False, "locked": False,
                                         "solution": True,
                                         "grade_id": _grade_id(f"answer-{name.group(1) if name else id(cell)}")}
    ids = [c.metadata["nbgrader"]["grade_id"] for c in nb.cells if "nbgrader" in c.get("metadata", {})]
    if len(ids) != len(set(ids)):
        raise ValueError(f"two cells would get the same nbgrader grade_id: {sorted(ids)}; "
                         "each exercise needs its own function name and check id")
    return nb


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Write an nbgrader source notebook from a solutions notebook.")
    parser.add_argument("solution", type=Path, help="a notebook from solutions/")
    parser.add_argument("target", type=Path, help="where to write it, e.g. source/ps01/NAME.ipynb")
    parser.add_argument("--points", type=float, default=1, help="points per check (default 1)")
    args = parser.parse_args(argv)
    nb = mark_for_nbgrader(nbformat.read(args.solution, as_version=4), args.points)
    args.target.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, args.target)
    print(f"wrote {args.target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
