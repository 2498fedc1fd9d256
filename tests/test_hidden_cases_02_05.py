"""A grading run's own cases for sets 02 to 05 (issue 38, items 1 and 2), in-process and through the boundary.

Every exercise of these sets whose check runs a fixed table draws its cases (``course_grader.hidden_cases``
nb02 to nb05); 04.1 does not: ``predictions()`` takes no argument. Here: the solutions pass every draw, in
the checker and through ``boundary.grade``; a reply recorded from the solutions on the public cases, played
back, passes the practice check and fails every draw; a row looked up in a public table fails too; two
draws differ; the drawn expected values agree with the tests' own references; the practice checks keep
their public tables; and a call that rewrites what the checker used to read after it no longer passes.
"""

from __future__ import annotations

import random

import answer_references as ref
import pytest
import torch
from hidden_case_support import (
    SWEEPS,
    assert_a_replay_passes_practice_and_fails_every_draw,
    assert_fails_every_draw,
    assert_the_solution_passes_every_draw,
    solution_namespace,
)
from test_errors import fix_for as explained_fix
from torch import nn

from course_grader.boundary import grade, local_channel, practice_cases
from course_grader.hidden_cases import RULES, Draw
from course_utils.checks import all_exercises, nb02, nb03, nb04, nb05
from course_utils.checks._core import cases, drawing_cases, get_exercise, run_checker
from course_utils.checks.nb04 import simulate_cases

SETS = ("02", "03", "04", "05")
IDS = sorted(id for id in RULES if id[:2] in SETS)
SEEDS = [bytes([k]) * 32 for k in range(3)]

PUBLIC = {  # exercise id -> the public table its checker passes to cases()
    "02.1": nb02.LIKE_CASES,
    "02.2": nb02._batch,
    "02.3": nb02.BUILD_CASES,
    "02.4": nb02.NUMPY_CASES,
    "03.1": nb03.BUGGY,
    "03.2": nb03.WHERE_CASES,
    "03.3": nb03.TRAINED,
    "03.4": nb03.STEPPED,
    "04.2": simulate_cases(),
    "04.3": nb04.LANDING_CASES,
    "04.4": (nb04.NO_SWITCH, nb04.SWITCH),
    "05.1": nb05.MESSAGES,
    "05.2": nb05._inputs,
    "05.3": nb05.INDEX_CASES,
    "05.4": (nb05.SAVED_ON, nb05._saved_state),
}


@pytest.fixture(scope="module")
def solutions() -> dict:
    return solution_namespace(*SETS)


def _shown(id: str, drawn) -> str:
    """A draw as text, makers called (the batch maker of 02.2 on meta)."""
    if id == "02.2":
        drawn = drawn("meta")
    elif id == "05.2":
        drawn = drawn()
    elif id == "05.4":
        drawn = (drawn[0], drawn[1]())
    return repr(drawn)


def test_every_exercise_of_the_sets_with_a_fixed_table_draws_its_cases():
    ids = sorted(id for id in all_exercises() if id[:2] in SETS)
    assert IDS == [id for id in ids if id != "04.1"] == sorted(PUBLIC)
    assert "04.1" not in RULES  # predictions() takes no argument: the lesson's one listing is the question


@pytest.mark.parametrize("id", IDS)
def test_two_draws_differ_and_a_draw_is_the_same_each_time_it_is_made(id):
    first, second = RULES[id](random.Random(1)), RULES[id](random.Random(2))
    assert _shown(id, first) != _shown(id, second)
    assert _shown(id, first) == _shown(id, first)  # makers give the same cases every call
    assert _shown(id, RULES[id](random.Random(1))) == _shown(id, first)


@pytest.mark.parametrize("id", IDS)
def test_the_practice_check_keeps_its_public_table(id):
    public = PUBLIC[id]
    assert cases(id, public) is public
    with drawing_cases(Draw()):
        assert cases(id, public) is not public


@pytest.mark.parametrize("id", IDS)
def test_the_solution_passes_drawn_cases_in_the_checker_and_through_the_boundary(id, solutions):
    assert_the_solution_passes_every_draw(id, solutions, SEEDS)


@pytest.mark.parametrize("id", IDS)
def test_a_replay_of_the_solutions_replies_passes_practice_and_fails_every_draw(id, solutions):
    assert_a_replay_passes_practice_and_fails_every_draw(id, solutions, SEEDS)


def _row_lookup(table, arity: int, otherwise):
    rows = {tuple(repr(a) for a in row[:arity]): row[arity] for row in table}
    return lambda *args: rows.get(tuple(repr(a) for a in args), otherwise)


@pytest.mark.parametrize("seeds", SWEEPS)
def test_an_answer_looking_up_the_public_rows_passes_practice_and_fails_grading(seeds):
    lookups = {
        "04.2": _row_lookup([(s, [tuple(x) for x in p], list(a)) for s, p, a in simulate_cases()], 2, []),
        "04.3": _row_lookup((*nb04.LANDING_CASES, *nb04.OTHER_LANDINGS), 2, "cpu"),  # the practice check runs both
        "05.1": _row_lookup(nb05.MESSAGES, 1, "not-a-device-error"),
        "05.3": _row_lookup(nb05.INDEX_CASES, 2, "cpu"),
    }
    for id, answer in lookups.items():
        assert run_checker(get_exercise(id), answer).passed, id
        assert_fails_every_draw(id, answer, seeds)


def test_drawn_expected_values_agree_with_the_references(solutions):
    for k in range(60):
        rng = random.Random(k)
        for start, program, after in RULES["04.2"](rng):
            assert list(after) == ref.simulate_reference(start, list(program)), (start, program)
        for spec, current, lands in RULES["04.3"](rng):
            assert lands == ref.landing_reference(spec, current), (spec, current)
        for table, index, expected in RULES["05.3"](rng):
            assert expected == ref.index_device_reference(table, index), (table, index)
        for message, fix in RULES["05.1"](rng):
            assert fix == explained_fix(message) == solutions["fix_for"](message), message
        no_switch, switch = RULES["04.4"](rng)
        assert all(torch.device(device).index is None for device in no_switch)
        assert all(torch.device(device) == torch.device("cuda", index) for device, index in switch)


def test_drawn_values_are_what_their_dtypes_hold_and_the_models_build():
    for k in range(30):
        rng = random.Random(k)
        for dtype, _, _, values in RULES["02.1"](rng):
            assert torch.tensor(values, dtype=dtype).tolist() == values, (dtype, values)
        for _, values, dtype, how in RULES["02.4"](rng):
            assert torch.tensor(values, dtype=dtype).tolist() == values and (dtype.is_floating_point or not how.endswith("grad"))
        values = RULES["03.1"](rng)
        model = nb03._Buggy(values)
        assert model(torch.ones(2, values["width"])).shape == (2, values["width"]) and min(values["std"]) > 0
        assert all(nb03._module(kind, device, width) is not None for kind, device, width, _ in RULES["03.2"](rng))


def _params_back(optimizer):
    """Swaps each parameter for one beside its state, instead of moving the state to it: a wrong answer the
    checker passed when it read the parameters' places after the call (issue 38, item 2)."""
    for group in optimizer.param_groups:
        for p in group["params"]:
            held = next((v for k, v in optimizer.state[p].items() if k != "step"), None)
            if held is not None and (p.device, p.dtype) != (held.device, held.dtype):
                torch.utils.swap_tensors(p, nn.Parameter(torch.zeros(p.shape, device=held.device, dtype=held.dtype)))


@pytest.mark.parametrize("draw", [practice_cases, Draw()], ids=["practice", "drawn"])
def test_a_call_that_moves_the_parameters_instead_of_the_state_fails_03_4(draw):
    assert grade("03.4", local_channel({"match_state_to_params": _params_back}), draw=draw).status == "fail"
    assert run_checker(get_exercise("03.4"), _params_back).status == "fail"
