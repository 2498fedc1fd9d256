"""Grading is the practice check and more (issue 38): every plausible wrong answer the tests know fails a grading
run, whatever it draws.

``tests/test_checks_wrong_answers.py`` (and the ``WRONG`` lists of ``tests/wrong_answers_nbNN.py``) hold the
mistakes the public tables were chosen to catch. A grading run draws cases of its own, so a replay or a lookup of
the public rows fails; stop 44 found that random draws let many of those mistakes through (01.2's "cut before
the repeat" passed 147 draws in 200). So ``boundary.grade`` runs the public table too, after a pass on the drawn
cases, and the draws themselves carry the rows that catch each mistake, so that a lookup of the public rows
glued to a wrong rule for the rest fails as well. Both are held here, in-process (a few seconds).
"""

from __future__ import annotations

import pytest
import torch
from hidden_case_support import MANY_SEEDS, assert_fails_every_draw, judged
from test_checks_wrong_answers import WRONG

from course_grader.boundary import grade, local_channel
from course_grader.hidden_cases import RULES, Draw
from course_utils.checks._core import get_exercise

DRAWN = [(id, answer) for id, answer, _ in WRONG if id in RULES]
IDS = [f"{id}-{answer.__name__}" for id, answer in DRAWN]
SEEDS = MANY_SEEDS[:100]


def _graded(id: str, answer, seed: bytes) -> str:
    try:
        return grade(id, local_channel({get_exercise(id).function: answer}), draw=Draw(seed)).status
    finally:
        torch.set_default_device(None)  # a wrong 02.3 answer may leave it set


@pytest.mark.parametrize("id, answer", DRAWN, ids=IDS)
def test_a_plausible_wrong_answer_fails_grading(id, answer):
    assert [_graded(id, answer, seed) for seed in SEEDS[:2]] == ["fail", "fail"]


@pytest.mark.slow  # 27,100 judgings, about 30 s of CPU: make test's, not make test-fast's (which keeps the test above)
@pytest.mark.sweep  # and not the version matrix's, which runs the test above on each release
@pytest.mark.parametrize("id, answer", DRAWN, ids=IDS)
def test_the_drawn_cases_alone_fail_a_plausible_wrong_answer(id, answer):
    """What the public table catches, every draw catches too: a lookup of the public rows glued to this answer
    for the rest would pass grading otherwise."""
    assert_fails_every_draw(id, answer, SEEDS)


def test_every_exercise_that_draws_has_plausible_wrong_answers_here():
    assert {id for id, _ in DRAWN} == set(RULES)


def test_a_long_public_table_is_checked_again_in_a_drawn_part():
    """04.2's 308 public programs are each a call into the kernel: grading checks a drawn 40 of them again."""
    from course_grader.hidden_cases import PUBLIC_SAMPLES
    from course_utils.checks.nb04 import simulate_cases

    assert set(PUBLIC_SAMPLES) <= set(RULES)
    first, second = Draw(SEEDS[0]).public("04.2"), Draw(SEEDS[1]).public("04.2")
    assert len(first) == 40 and set(first) <= set(simulate_cases()) and first != second
    assert Draw(SEEDS[0]).public("04.2") == first  # one seed, one sample
    assert Draw(SEEDS[0]).public("01.2") is None  # the whole public table


def test_the_public_table_runs_after_a_pass_on_the_drawn_cases():
    """An answer right on every drawn case and wrong on one public row fails grading, saying where."""
    from course_utils.checks import nb01

    mask, physical, _ = nb01.VISIBLE_CASES[0]

    def right_but_one(mask_, physical_):
        from course_grader.hidden_cases.nb01 import seen

        return [99] if (mask_, physical_) == (mask, physical) else seen(mask_, physical_)

    result = grade("01.2", local_channel({"visible_gpus": right_but_one}), draw=Draw(SEEDS[0]))
    assert result.status == "fail" and result.message.startswith("On the cases the practice check"), result
    assert judged("01.2", right_but_one, SEEDS[0]).passed  # the drawn cases alone pass it
