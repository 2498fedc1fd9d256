"""A grading run's own cases for 09.2, 09.3, 10.2 and 10.3 (issue 38, item 1), in-process and through the boundary.

``course_grader.hidden_cases.nb09`` draws models of drawn widths, frozen layers and unused heads, stepped by a
drawn optimizer in a drawn dtype (09.2), and machines of drawn GPU counts asked in a drawn order (09.3);
``nb10`` draws meta models with budgets that split them or do not hold them, their plans worked out on the
judge's side (10.2), and models split over the CPU and meta stepped by a drawn optimizer (10.3). Here: the
solutions pass every draw, in the checker and through ``boundary.grade``; a reply recorded from the solutions on
the public cases, played back, passes the practice check and fails every draw; answers looking up the public
tables do too (09.3 has no table to look up that is not its rule: its answer is a function of what torch says);
two draws differ; the drawn expected values agree with the tests' references and with real optimizers; and
the practice checks keep their public tables.
"""

from __future__ import annotations

import random

import pytest
import torch
from answer_references import MISTAKE_VARIANTS, plan_variant, reference_plan_device_map, reference_state_devices
from hidden_case_support import (
    SWEEPS,
    assert_a_replay_passes_practice_and_fails_every_draw,
    assert_fails_every_draw,
    assert_the_solution_passes_every_draw,
    judged,
    solution_namespace,
)

from course_grader.hidden_cases import RULES, Draw
from course_grader.hidden_cases.nb10 import _MISTAKES as DRAWN_MISTAKES
from course_utils.checks import all_exercises, nb09, nb10
from course_utils.checks._core import cases, drawing_cases, get_exercise, run_checker
from course_utils.checks.machines import simulated

IDS = ("09.2", "09.3", "10.2", "10.3")
SEEDS = [bytes([k]) * 32 for k in range(4)]
PUBLIC = {"09.2": nb09.STEP_CASES, "09.3": nb09.LOADER_CASES, "10.2": (nb10.PLAN_CASES, nb10.PLAN_TOO_BIG), "10.3": nb10.STATE_CASES}


@pytest.fixture(scope="module")
def solutions() -> dict:
    return solution_namespace("09", "10")


def _shapes(model) -> list:
    return [(name, tuple(t.shape), t.dtype, str(t.device), t.requires_grad) for name, t in model.named_parameters()]


def _comparable(id: str, drawn):
    """The drawn cases as values (their builders built): what two draws are compared by."""
    if id == "09.2":
        return [(what, _shapes(build()), make(list(build().parameters())).__class__, dtype) for what, build, make, dtype in drawn]
    if id == "09.3":
        return list(drawn)
    if id == "10.2":
        fitting, too_big = drawn
        return (
            [(_shapes(build()), budgets, plan, mistakes) for _, build, budgets, plan, mistakes in fitting],
            [(_shapes(build()), budgets) for _, build, budgets in too_big],
        )
    return [(_shapes(make()[0]), type(make()[1]), devices) for _, make, devices in drawn]


def test_every_exercise_of_sets_09_and_10_draws_its_cases():
    assert sorted(id for id in all_exercises() if id[:2] in ("09", "10")) == sorted({*IDS, "09.1", "10.1", "10.4"})
    assert all(id in RULES for id in IDS)


@pytest.mark.parametrize("id", IDS)
def test_two_draws_differ_and_a_seed_draws_the_same_cases(id):
    first, second = RULES[id](random.Random(1)), RULES[id](random.Random(2))
    assert _comparable(id, first) != _comparable(id, second)
    assert _comparable(id, RULES[id](random.Random(1))) == _comparable(id, first)
    assert _comparable(id, PUBLIC[id]) not in (_comparable(id, first), _comparable(id, second))


@pytest.mark.parametrize("id", IDS)
def test_the_practice_check_keeps_its_public_table(id, solutions):
    public = PUBLIC[id]
    before = _comparable(id, public)
    assert cases(id, public) is public
    with drawing_cases(Draw()):
        assert cases(id, public) is not public
    assert _comparable(id, public) == before  # drawing left the public rows as they were
    assert run_checker(get_exercise(id), solutions[get_exercise(id).function]).passed


@pytest.mark.parametrize("id", IDS)
def test_the_solution_passes_drawn_cases_in_the_checker_and_through_the_boundary(id, solutions):
    assert_the_solution_passes_every_draw(id, solutions, SEEDS)


@pytest.mark.parametrize("id", IDS)
def test_a_replay_of_the_solutions_replies_passes_practice_and_fails_every_draw(id, solutions):
    assert_a_replay_passes_practice_and_fails_every_draw(id, solutions, SEEDS)


def _state_key(model, optimizer) -> tuple:
    return tuple(name for name, _ in model.named_parameters()), type(optimizer), len(optimizer.state)


def _lookups(solutions: dict) -> dict:
    """Answers that return the public table's answer for what they are given (issue 38, 'looking up'): 09.2 by
    the shapes of the parameters, 10.2 by the layers' shapes and the budgets, 10.3 by the parameters' names,
    the optimizer's class and how many parameters have state."""
    held = {}
    for _, build, make, dtype in (*nb09.STEP_CASES, *nb09.STEP_ALWAYS):  # every row practice asks
        model, optimizer = nb09._after_one_step(build, make, dtype)
        held[repr(_shapes(model))] = solutions["held_bytes"](model, optimizer)
    plans = {
        (repr(_shapes(build())), repr(budgets)): plan for _, build, budgets, plan, _ in (*nb10.PLAN_CASES, *nb10.PLAN_ALWAYS)
    }  # every row practice asks
    states = {_state_key(*make()): devices for _, make, devices in (*nb10.STATE_CASES, *nb10.STATE_ALWAYS)}

    def held_bytes(model, optimizer):
        return held.get(repr(_shapes(model)), 0)

    def plan_device_map(model, budgets):
        plan = plans.get((repr(_shapes(model)), repr(budgets)))
        if plan is None:
            raise ValueError("not in the table")
        return {name: torch.device(d) for (name, _), d in zip(model.named_children(), plan)}

    def optimizer_state_devices(model, optimizer):
        devices = states.get(_state_key(model, optimizer), {})
        return {name: {k: torch.device(v) for k, v in found.items()} for name, found in devices.items()}

    return {"09.2": held_bytes, "10.2": plan_device_map, "10.3": optimizer_state_devices}


@pytest.mark.parametrize("seeds", SWEEPS)
@pytest.mark.parametrize("id", ("09.2", "10.2", "10.3"))
def test_an_answer_looking_up_the_public_rows_passes_practice_and_fails_grading(id, solutions, seeds):
    answer = _lookups(solutions)[id]
    assert run_checker(get_exercise(id), answer).passed
    assert_fails_every_draw(id, answer, seeds)


def test_wrong_counts_of_held_bytes_fail_the_drawn_cases(solutions):
    def without_state(model, optimizer):
        params = list(model.parameters())
        return sum(t.numel() * t.element_size() for t in params + [p.grad for p in params if p.grad is not None])

    def four_times_the_parameters(model, optimizer):
        return 4 * sum(p.numel() * p.element_size() for p in model.parameters())

    for answer in (without_state, four_times_the_parameters):
        assert not all(judged("09.2", answer, seed).passed for seed in SEEDS), answer.__name__


def test_drawn_machines_agree_with_what_simulated_torch_says():
    rng = random.Random(9)
    for _ in range(50):
        for machine, touches_cuda in RULES["09.3"](rng):
            with simulated(machine):
                assert torch.cuda.is_available() is (machine.cuda > 0), machine
                assert torch.backends.mps.is_available() is machine.mps, machine
            assert isinstance(touches_cuda, bool)


def test_drawn_plans_and_their_mistakes_agree_with_the_reference():
    rng = random.Random(10)
    for _ in range(40):
        fitting, too_big = RULES["10.2"](rng)
        for what, build, budgets, plan, mistakes in fitting:
            model = build()
            assert {n: str(d) for n, d in reference_plan_device_map(model, budgets).items()} == dict(
                zip((n for n, _ in model.named_children()), plan)
            ), what
            for key, knob in MISTAKE_VARIANTS.items():
                if key not in DRAWN_MISTAKES:  # told apart by nb10.PLAN_ALWAYS, asked in every run
                    continue
                wrong = plan_variant(model, budgets, **knob)
                wrong = None if wrong is None else tuple(str(d) for d in wrong.values())
                assert mistakes.get(key, plan) == wrong, (what, key)
        for _what, build, budgets in too_big:
            with pytest.raises(ValueError):
                reference_plan_device_map(build(), budgets)


def test_drawn_state_devices_agree_with_real_optimizers():
    rng = random.Random(11)
    kinds = set()
    for _ in range(40):
        for what, make, devices in RULES["10.3"](rng):
            model, optimizer = make()
            kinds.add(type(optimizer))
            found = reference_state_devices(model, optimizer)
            assert {n: {k: str(d) for k, d in s.items()} for n, s in found.items()} == devices, what
    assert len(kinds) >= 5
