"""The course's answers, read from a checkout's ``solutions/``: the installed package holds none.

Lesson: every exercise notebook and every lesson's try-it cells (``check("01.2", show_answer=True)``).
An answer in the package would be importable by any notebook, including one being graded
(issue 25, attack 5), so the answers live only where the course repository keeps them:

- an exercise's ("01.2") is the cell of ``solutions/NN_<lesson>_exercises.py`` that defines its
  function, without nbgrader's ``### BEGIN SOLUTION`` / ``### END SOLUTION`` lines;
- a try-it's ("01.a") is its section of ``solutions/try_its/NN_<lesson>.py``, which starts at a
  line ``# %% try-it 01.a``.

The checkout is found from the notebook's working folder upward (a learner's clone, ``workspace/``),
then beside the package when it is installed from a checkout (``pip install -e .``). Without one
(a graded kernel's staged copy of the package, a plain install), ``where_it_lives`` says which
file of the course repository holds the answer.
"""

from __future__ import annotations

import re
from pathlib import Path

from course_utils.check_cells import TRY_IT_ID

SOLUTIONS = "solutions"
TRY_ITS = "try_its"
_MARKERS = ("### BEGIN SOLUTION", "### END SOLUTION")
_CELL = re.compile(r"^# %%.*$", re.MULTILINE)
_TRY_IT_CELL = re.compile(r"^# %% try-it (?P<id>\d\d\.[a-z])\s*$", re.MULTILINE)


def _is_checkout(root: Path) -> bool:
    return (root / SOLUTIONS).is_dir() and (root / "pyproject.toml").is_file()


def solutions_folder(start: Path | None = None) -> Path | None:
    """The ``solutions/`` folder of the course checkout this notebook runs in, or None."""
    here = (start or Path.cwd()).resolve()
    package_root = Path(__file__).resolve().parents[3]  # src/course_utils/checks/answers.py -> the checkout
    for root in (here, *here.parents, package_root):
        if _is_checkout(root):
            return root / SOLUTIONS
    return None


def _lesson_stem(number: str) -> str | None:
    """``01_device_query`` for lesson ``01``, from the generated lesson table (no checkout needed)."""
    from course_utils.lesson_needs import LESSONS

    for lesson in LESSONS:
        if lesson[0] == number:
            return Path(lesson[2]).stem
    return None


def where_it_lives(id: str) -> str:
    """The file of the course repository that holds the answer to ``id`` ("" for an id of no lesson)."""
    stem = _lesson_stem(id[:2])
    if stem is None:
        return ""
    if TRY_IT_ID.match(id):
        return f"{SOLUTIONS}/{TRY_ITS}/{stem}.py"
    return f"{SOLUTIONS}/{stem}_exercises.ipynb"


def _exercise_answer(solutions: Path, id: str, function: str) -> str:
    for path in sorted(solutions.glob(f"{id[:2]}_*_exercises.py")):
        for cell in _CELL.split(path.read_text(encoding="utf-8")):
            if _MARKERS[0] in cell and re.search(rf"^def {re.escape(function)}\(", cell, re.MULTILINE):
                lines = [line for line in cell.strip("\n").split("\n") if line.strip() not in _MARKERS]
                return "\n".join(lines).strip("\n") + "\n"
    return ""


def _try_it_answer(solutions: Path, id: str) -> str:
    for path in sorted((solutions / TRY_ITS).glob(f"{id[:2]}_*.py")):
        text = path.read_text(encoding="utf-8")
        starts = list(_TRY_IT_CELL.finditer(text))
        for start, following in zip(starts, [*starts[1:], None]):
            if start["id"] == id:
                body = text[start.end() : following.start() if following else len(text)]
                return body.strip("\n") + "\n"
    return ""


def course_answer(id: str, function: str, start: Path | None = None) -> str:
    """The course's answer to exercise or try-it ``id`` (which defines ``function``); "" without a checkout."""
    solutions = solutions_folder(start)
    if solutions is None:
        return ""
    return _try_it_answer(solutions, id) if TRY_IT_ID.match(id) else _exercise_answer(solutions, id, function)
