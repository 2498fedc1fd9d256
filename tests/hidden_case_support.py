"""What the tests of a grading run's drawn cases share (issue 38): the solutions' functions, a judging under a
draw, and the two things every drawn exercise must show: its solution passes every draw, in the checker and
through the boundary; a replay of the solution's replies to the public cases passes practice and fails every draw.
"""

from __future__ import annotations

import contextlib
import io
import pathlib

import pytest
import torch

from course_grader.boundary import grade, local_channel, practice_cases
from course_grader.hidden_cases import Draw
from course_utils.checks._core import drawing_cases, get_exercise, run_checker

ROOT = pathlib.Path(__file__).resolve().parents[1]


def solution_namespace(*numbers: str) -> dict:
    """The names the solution notebooks of these sets define, as their .py sides run (quietly)."""
    namespace = {"__name__": "__solution__"}
    for number in numbers:
        path = next((ROOT / "solutions").glob(f"{number}_*_exercises.py"))
        with contextlib.redirect_stdout(io.StringIO()):
            exec(compile(path.read_text(encoding="utf-8"), str(path), "exec"), namespace)
    return namespace


def answer_of(id: str, solutions: dict) -> dict:
    """The learner's namespace a grading kernel would hold for exercise ``id``: the solution's function only."""
    name = get_exercise(id).function
    return {name: solutions[name]}


def judged(id: str, fn, seed: bytes | None = None):
    """Exercise ``id``'s checker run on ``fn`` with the cases a grading run with this seed draws."""
    with drawing_cases(Draw(seed)):
        return run_checker(get_exercise(id), fn)


# A wrong answer that passes one draw in a hundred passes one CI run in a hundred, as 12.3's lookup by GPU count
# did at stop 44; in-process, wrong answers meet this many draws (a few seconds at most per exercise).
MANY_SEEDS = tuple(k.to_bytes(4, "big") * 8 for k in range(500))
# A lookup's sweep of MANY_SEEDS, in two parts: make test-fast and the version matrix judge the first 50 draws,
# make test all 500 (the other 450 are slow, and a sweep of the draws, which no torch release changes). Every seed
# in every run took about 25 s of test-fast's 150 s of CPU.
SWEEPS = [
    pytest.param(MANY_SEEDS[:50], id="draws-0-49"),
    pytest.param(MANY_SEEDS[50:], id="draws-50-499", marks=[pytest.mark.slow, pytest.mark.sweep]),
]


def assert_fails_every_draw(id: str, answer, seeds=MANY_SEEDS) -> None:
    """``answer`` fails exercise ``id`` under every draw of ``seeds``: how many it passed, and the first, if not."""
    passed = []
    for seed in seeds:
        try:
            if judged(id, answer, seed).passed:
                passed.append(seed)
        finally:
            torch.set_default_device(None)  # a wrong 02.3 answer may leave it set
    assert not passed, f"{id}: {getattr(answer, '__name__', answer)} passed {len(passed)} draws of {len(seeds)}, the first seeded {passed[0]!r}"


def assert_the_solution_passes_every_draw(id: str, solutions: dict, seeds) -> None:
    fn = solutions[get_exercise(id).function]
    for seed in seeds:
        assert judged(id, fn, seed).passed, seed
        assert grade(id, local_channel(answer_of(id, solutions)), draw=Draw(seed)).status == "pass", seed


def assert_a_replay_passes_practice_and_fails_every_draw(id: str, solutions: dict, seeds) -> None:
    """Replies recorded while the solution answers the public cases, played back in order (issue 38, 'replay')."""
    inner, replies = local_channel(answer_of(id, solutions)), []

    def recording(request: bytes) -> bytes:
        replies.append(inner(request))
        return replies[-1]

    assert grade(id, recording, draw=practice_cases).status == "pass"

    def replaying():
        sent = iter(range(10**6))
        return lambda request: replies[min(next(sent), len(replies) - 1)]

    assert grade(id, replaying(), draw=practice_cases).status == "pass"  # the attack works on public cases
    for seed in seeds:
        assert grade(id, replaying(), draw=Draw(seed)).status == "fail", seed
