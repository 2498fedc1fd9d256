"""Every check fails an odd answer plainly: never a pass, never a "course bug", never a crash.

A learner's first tries are often not plausible wrong answers (``test_checks_wrong_answers``) but
odd ones: ``None``, a string where a device was asked for, a list where a dict was, a tensor of
the wrong kind, an object whose comparisons raise. Each must come back as a "fail" that says
something, so the learner reads what went wrong instead of "the checker failed, this is a course
bug". A "course bug" is kept for a checker that breaks in the course's own code.
"""

from __future__ import annotations

import math
import re

import pytest
import torch
from torch import nn

from course_utils.checks import all_exercises, all_try_its, check

ODD_VALUES = {
    "None": None,
    "zero": 0,
    "minus one": -1,
    "True": True,
    "nan": math.nan,
    "empty string": "",
    "the string cuda": "cuda",
    "the string cuda:9": "cuda:9",
    "a bad device string": "gpu please",
    "empty list": [],
    "a list of Nones": [None, None],
    "empty dict": {},
    "a dict of junk": {"a": object()},
    "empty tuple": (),
    "a bare object": object(),
    "a scalar tensor": torch.tensor(3.0),
    "an empty tensor": torch.empty(0),
    "an empty module": nn.Module(),
    "a function": print,
}


class Hostile:
    """An answer whose every use raises: comparing, hashing, printing, iterating, reading an attribute."""

    def _refuse(self, *args, **kwargs):
        raise RuntimeError("hostile answer")

    __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = _refuse
    __hash__ = __bool__ = __len__ = __iter__ = __index__ = __int__ = __float__ = _refuse
    __str__ = __repr__ = __format__ = __fspath__ = __call__ = __getitem__ = _refuse

    def __getattr__(self, name):
        raise RuntimeError(f"hostile answer: no {name}")


class Unprintable(Exception):
    """An exception the learner's code raises whose message cannot be read."""

    def __str__(self):
        raise RuntimeError("unprintable")


def _returning(value):
    def answer(*args, **kwargs):
        return value

    return answer


def _raising_unprintable(*args, **kwargs):
    raise Unprintable()


COURSE_ID = re.compile(r"^\d\d\.\w$")  # the lessons' own, not what other test files register
EXERCISES = sorted(id for id in all_exercises() if COURSE_ID.match(id))
VALUE_TRY_ITS = sorted(id for id, ex in all_try_its().items() if ex.kind == "value" and COURSE_ID.match(id))
FUNCTION_TRY_ITS = sorted(id for id, ex in all_try_its().items() if ex.kind == "function" and COURSE_ID.match(id))


def _assert_plain_fail(id: str, what: str, result) -> None:
    assert result.status == "fail", f"{id} with {what}: {result.status}: {result.message}"
    assert "course bug" not in result.message and result.message.strip(), f"{id} with {what}: {result.message}"
    str(result)  # the result itself prints


@pytest.mark.parametrize("id", EXERCISES + FUNCTION_TRY_ITS)
def test_a_function_returning_an_odd_value_fails_plainly(id):
    for what, value in ODD_VALUES.items():
        _assert_plain_fail(id, what, check(id, _returning(value)))


@pytest.mark.parametrize("id", VALUE_TRY_ITS)
def test_an_odd_value_fails_plainly(id):
    for what, value in ODD_VALUES.items():
        if value is None:
            continue  # check(id, None) means "look the name up in the notebook": the missing-name case
        _assert_plain_fail(id, what, check(id, value))


@pytest.mark.parametrize("id", EXERCISES + FUNCTION_TRY_ITS + VALUE_TRY_ITS)
def test_a_hostile_answer_fails_plainly(id):
    answer = Hostile() if id in VALUE_TRY_ITS else _returning(Hostile())
    _assert_plain_fail(id, "a hostile object", check(id, answer))


@pytest.mark.parametrize("id", EXERCISES + FUNCTION_TRY_ITS)
def test_an_exception_that_cannot_be_printed_fails_plainly(id):
    result = check(id, _raising_unprintable)
    _assert_plain_fail(id, "an unprintable exception", result)
    assert "unprintable" in result.message.lower(), result.message  # says what happened
