"""Every deliberate error of a lesson reads as a lesson: its message within the first 15 lines (issue 22, item 2).

Each lesson with a cell tagged ``raises-exception`` is executed as "Run All" does (nbclient, a
fresh kernel), and the error output of every such cell is measured the way JupyterLab shows it:
the traceback list joined by newlines, ANSI colour codes stripped. The ``ExceptionType: message``
line must be among the first 15. ``%load_ext course_utils.tracebacks`` in the lesson's imports
cell is what makes it so (the frames inside torch folded into one line).
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest
from notebook_runner import execute

ROOT = Path(__file__).resolve().parents[1]
ANSI = re.compile(r"\x1b\[[0-9;]*m")
LIMIT = 15
LESSONS = sorted(p for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")
                 if any("raises-exception" in c.metadata.get("tags", [])
                        for c in nbformat.read(p, as_version=4).cells))


def lines_to_message(output) -> int | None:
    """The line number (from 1) of the ``ExceptionType: message`` line in an error output, as JupyterLab shows it."""
    lines = ANSI.sub("", "\n".join(output.traceback)).split("\n")
    start = re.compile(rf"(?:\w+\.)*{re.escape(output.ename)}(?::|$)")  # the class name, maybe with its module
    return next((i for i, line in enumerate(lines, 1) if start.match(line)
                 and "Traceback (most recent call last)" not in line), None)


def deliberate_errors(nb) -> list[tuple[int, int | None]]:
    """(cell index, line of the message) for every error output of a raises-exception cell."""
    found = []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type == "code" and "raises-exception" in cell.metadata.get("tags", []):
            found += [(index, lines_to_message(o)) for o in cell.get("outputs", []) if o.output_type == "error"]
    return found


@pytest.mark.slow  # one kernel per lesson, each running the whole notebook
@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.stem)
def test_each_deliberate_error_shows_its_message_within_15_lines(path):
    nb = execute(path)
    errors = deliberate_errors(nb)
    print(path.stem, errors)  # the measurement, for the record (pytest -s)
    too_long = [(index, at) for index, at in errors if at is None or at > LIMIT]
    assert not too_long, (f"{path.name}: deliberate errors whose message is not within the first {LIMIT} lines "
                          f"(cell index, line of the message): {too_long}")
