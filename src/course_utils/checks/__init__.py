"""Exercise checks: ``check("01.2")`` after your answer, for a clear pass or a fail with a hint.

Lesson: every exercise notebook. A check never crashes on a wrong answer. It returns a
``CheckResult`` that the notebook shows (text and HTML) and that the grader reads as data
(MIME type ``application/vnd.course-utils.check+json``), so no one parses printed text.

The checks of notebook NN live in ``checks/nbNN.py``; each registers itself with
``@exercise(...)``. The first ``check("NN.K")`` (or try-it ``check("NN.a")``) of a lesson imports
its module, so a notebook loads its own lesson's checks and no other's. ``check()`` finds your
function by the name the exercise asks for, in the notebook's namespace, so a misspelt or unrun
definition is reported, not a ``NameError``.

Hints come in steps: a fail names the mistake and nudges, and offers the course's answer, which
``check("03.3", show_answer=True)`` shows (never a wrong answer by itself, however many). The
count of wrong answers, which words the offer, is ``_core.ATTEMPTS``, the only state the checks keep.
"""

from course_utils.checks._core import (
    CHECK_MIME,
    CheckResult,
    Exercise,
    Wrong,
    all_exercises,
    all_try_its,
    call,
    check,
    exercise,
    get_exercise,
    results_in,
    tensor_answer,
    try_it,
)

__all__ = [
    "CHECK_MIME",
    "CheckResult",
    "Exercise",
    "Wrong",
    "all_exercises",
    "all_try_its",
    "call",
    "check",
    "exercise",
    "get_exercise",
    "results_in",
    "tensor_answer",
    "try_it",
]
