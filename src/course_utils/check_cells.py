"""Which cells of a notebook are check cells, and what a check shows: the one detector every tool uses.

Lesson: none; shared by the grader (``course_grader.spec``, ``course_grader.plan``, ``course_grader.nbgrader``),
the root ``conftest.py`` (solutions must pass, try-its must be wired) and the tests (exercise
ids, the browser's PASS rule). Two kinds:

- an **exercise check cell** holds only a check call, ``check("01.2")`` or ``check('01.2');``,
  comments allowed around it; the nbgrader test-cell form ``course_grader.nbgrader`` writes counts too;
- a **try-it cell** (tag ``try-it``) holds the learner's line(s) and ends with ``check("01.a")``.

A check shows its result as data under ``CHECK_MIME`` with one of ``CHECK_STATUSES``; the checks
(``checks._core``) write it, the grader and the pytest plugin read it. They live here, with no
import of torch or of the checks, so a tool that only reads results loads neither.
"""

from __future__ import annotations

import re

CHECK_MIME = "application/vnd.course-utils.check+json"

# "pass": right answer. "fail": wrong answer. "not-attempted": the stub still raises
# NotImplementedError. "missing": no function of the expected name was defined.
# "error": the checker itself broke, which is a course bug and never counts as a pass.
CHECK_STATUSES = ("pass", "fail", "not-attempted", "missing", "error")

CHECK_CALL = re.compile(r"""^\s*check\(\s*(["'])([^"']+)\1\s*\)\s*;?\s*(#[^\n]*)?\s*$""")
# the same check as an nbgrader test cell (see course_grader/nbgrader.py)
NBGRADER_CHECK = re.compile(r"""^result = check\((["'])([^"']+)\1\)\nassert result\.passed, str\(result\)$""")
# nbgrader's solution markers and the stub it writes in their place: how a solution cell of ``solutions/``
# marks its answer (``course_authoring.exercises`` writes the stub; the grader reads the markers).
BEGIN = "### BEGIN SOLUTION"
END = "### END SOLUTION"
STUB = ("# YOUR CODE HERE", "raise NotImplementedError()")
# Try-it ids have a letter where exercises have a number: "01.a" is a try-it of lesson 01.
TRY_IT_ID = re.compile(r"^\d\d\.[a-z]$")


def _code_lines(source: str) -> list[str]:
    return [ln.strip() for ln in source.splitlines() if ln.strip() and not ln.strip().startswith("#")]


def check_cell_id(source: str) -> str | None:
    """The exercise id when ``source`` is only a check call (``check("01.2")``), else None."""
    lines = _code_lines(source)
    match = CHECK_CALL.match(lines[0]) if len(lines) == 1 else NBGRADER_CHECK.match("\n".join(lines))
    return match.group(2) if match else None


def try_it_id(source: str) -> str | None:
    """The try-it id when the cell's last line of code is ``check("NN.x")`` with a try-it id, else None."""
    lines = _code_lines(source)
    match = CHECK_CALL.match(lines[-1]) if lines else None
    return match.group(2) if match and TRY_IT_ID.match(match.group(2)) else None


def check_cell_ids(cells) -> list[str]:
    """The exercise ids a notebook's check cells ask for, in order (``cells``: nbformat cells)."""
    return [
        i
        for c in cells
        if c.get("cell_type") == "code"
        for i in [check_cell_id(c.get("source", "") if isinstance(c.get("source"), str) else "".join(c.get("source", [])))]
        if i
    ]
