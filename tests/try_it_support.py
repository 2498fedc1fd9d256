"""Run a lesson's try-it check on a line a learner might type, outside the notebook.

Each lesson's ``tests/wrong_answers_nbNN.py`` lists ``TRY_ITS``: ``Case(id, line, status, needle, setup)``,
where ``setup`` recreates what the lesson's earlier cells left in the namespace that the line
uses (``x = torch.arange(6)``), ``line`` is the learner's answer, ``status`` the check's verdict
("pass" or "fail") and ``needle`` a phrase the feedback must contain (for a fail: the mistake
named). ``tests/test_try_it.py`` holds every lesson to at least one right and two wrong answers
per try-it, and runs every case. The same module's ``WRONG`` lists plausible wrong answers to the lesson's
exercises (``tests/test_checks_wrong_answers.py`` runs them; lessons 01 to 09 keep theirs there).
"""

from __future__ import annotations

import importlib
import pathlib
from dataclasses import dataclass

import torch
from torch import nn

from course_utils.checks import CheckResult, check, get_exercise


@dataclass(frozen=True)
class Case:
    id: str
    line: str
    status: str
    needle: str = ""
    setup: str = ""

    def __str__(self) -> str:
        return f"{self.id}-{self.status}: {self.line}"


def run_case(case: Case) -> CheckResult:
    """Execute ``setup`` and ``line`` in a fresh namespace (torch, nn imported), then check it."""
    namespace: dict = {"torch": torch, "nn": nn, "__name__": "__try_it__"}
    exec(compile(case.setup, "<setup>", "exec"), namespace)
    exec(compile(case.line, "<learner's line>", "exec"), namespace)
    name = get_exercise(case.id).function
    if name not in namespace:
        raise AssertionError(f"{case}: the line does not define `{name}`, so the case tests nothing")
    return check(case.id, namespace[name])


def assert_case(case: Case) -> None:
    result = run_case(case)
    assert result.status == case.status, (str(case), str(result))
    feedback = f"{result.message} {result.hint}".lower()
    assert case.needle.lower() in feedback, (case.needle, str(result))


def lesson_modules() -> list:
    """Every lesson's ``tests/wrong_answers_nbNN.py``, imported, in lesson order: found by name, so a new
    lesson's file is run without being listed anywhere."""
    here = pathlib.Path(__file__).parent
    return [importlib.import_module(path.stem) for path in sorted(here.glob("wrong_answers_nb[0-9][0-9].py"))]
