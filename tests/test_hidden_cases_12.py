"""A grading run's own cases for set 12 (issue 38, item 1), in-process and through the boundary.

Every exercise of lesson 12 draws its cases (``course_grader.hidden_cases.nb12``): servers of drawn GPUs, bus
ids, UUIDs and CUDA orders for 12.1; machines of drawn wheels and GPUs for 12.2; machines of every platform,
in drawn numbers and order, for 12.3. Here: the solutions pass every draw, in the checker and through
``boundary.grade``; a reply recorded from the solutions on the public cases, played back, passes the practice
check and fails every draw; answers looking up the public tables do too; two draws differ; the drawn expected
values agree with the tests' own references; and the practice checks keep their public tables.
"""

from __future__ import annotations

import copy
import random

import pytest
import torch
from hidden_case_support import (
    SWEEPS,
    assert_a_replay_passes_practice_and_fails_every_draw,
    assert_fails_every_draw,
    assert_the_solution_passes_every_draw,
    solution_namespace,
)

from course_grader.hidden_cases import RULES, Draw
from course_utils.builds import cuda_devices
from course_utils.checks import all_exercises, nb12
from course_utils.checks._core import cases, drawing_cases, get_exercise, run_checker
from course_utils.checks.machines import simulated

IDS = sorted(id for id in RULES if id.startswith("12."))
SEEDS = [bytes([k]) * 32 for k in range(4)]
PUBLIC = {"12.1": nb12.SERVERS, "12.2": nb12.KERNEL_MACHINES, "12.3": nb12.PLATFORM_MACHINES}


@pytest.fixture(scope="module")
def solutions() -> dict:
    return solution_namespace("12")


def test_every_exercise_of_set_12_draws_its_cases():
    assert IDS == sorted(id for id in all_exercises() if id.startswith("12.")) == sorted(PUBLIC)


@pytest.mark.parametrize("id", IDS)
def test_two_draws_differ_and_a_seed_draws_the_same_cases(id):
    first, second = RULES[id](random.Random(1)), RULES[id](random.Random(2))
    assert first != second  # the cases themselves (frozen dataclasses compare by value), not their reprs
    assert RULES[id](random.Random(1)) == first
    assert tuple(PUBLIC[id]) not in (tuple(first), tuple(second))


@pytest.mark.parametrize("id", IDS)
def test_the_practice_check_keeps_its_public_table(id):
    public, before = PUBLIC[id], copy.deepcopy(PUBLIC[id])
    assert cases(id, public) is public
    with drawing_cases(Draw()):
        assert cases(id, public) is not public
    assert public == before  # drawing left the public rows as they were


@pytest.mark.parametrize("id", IDS)
def test_the_solution_passes_drawn_cases_in_the_checker_and_through_the_boundary(id, solutions):
    assert_the_solution_passes_every_draw(id, solutions, SEEDS)


@pytest.mark.parametrize("id", IDS)
def test_a_replay_of_the_solutions_replies_passes_practice_and_fails_every_draw(id, solutions):
    assert_a_replay_passes_practice_and_fails_every_draw(id, solutions, SEEDS)


def _lookups(solutions: dict) -> dict:
    """Answers that return the public table's answer for what they are given or what torch says (issue 38,
    'looking up'): 12.1 by nvidia-smi's rows and the bus id, 12.2 by the GPU's name, 12.3 by the GPU count."""
    envs = {(repr(nb12.smi_rows(server)), bus): solutions["cuda_env"](nb12.smi_rows(server), bus) for server, bus in nb12.SERVERS}
    by_name = {m.build.gpu_name: want for m, want in (*nb12.KERNEL_MACHINES, *nb12.KERNEL_MACHINES_ALWAYS) if m.cuda}  # every row practice asks
    by_count = {m.cuda: want for m, want in nb12.PLATFORM_MACHINES if m.cuda}

    def cuda_env(rows, bus_id):
        return envs.get((repr(rows), bus_id), {"CUDA_VISIBLE_DEVICES": "0"})

    def gpu_has_kernels():
        return torch.cuda.is_available() and by_name.get(torch.cuda.get_device_name(0), True)

    def which_platform():
        if torch.cuda.is_available():
            return by_count.get(torch.cuda.device_count(), ("cuda", "cuda"))
        return solutions["which_platform"]()

    return {"12.1": cuda_env, "12.2": gpu_has_kernels, "12.3": which_platform}


@pytest.mark.parametrize("seeds", SWEEPS)
@pytest.mark.parametrize("id", IDS)
def test_an_answer_looking_up_the_public_rows_passes_practice_and_fails_grading(id, solutions, seeds):
    answer = _lookups(solutions)[id]
    assert run_checker(get_exercise(id), answer).passed
    assert_fails_every_draw(id, answer, seeds)  # stop 44's CI: 12.3's lookup by GPU count passed 7 draws of 500


def test_no_single_fact_decides_a_drawn_answer():
    """12.2's answer depends on the GPU and the wheel, 12.3's not on the GPU count: every draw shows it."""
    for k in range(200):
        rng = random.Random(k)
        rows = [(m.build, want) for m, want in RULES["12.2"](rng) if m.cuda]
        for fact in (lambda b: b.gpu_name, lambda b: b.arch_list):
            answers = {}
            for build, want in rows:
                answers.setdefault(fact(build), set()).add(want)
            assert any(len(seen) == 2 for seen in answers.values()), (k, answers)
        counts = {}
        for machine, want in RULES["12.3"](rng):
            if machine.cuda:
                counts.setdefault(machine.cuda, set()).add(want)
        assert any(len(seen) == 2 for seen in counts.values()), (k, counts)


def _runs_reference(arch_list, capability) -> bool:
    """NVIDIA's rule, written here: sm_XY runs on X.Z for Z >= Y; compute_XY (PTX) on any X.Y or newer."""
    for arch in arch_list:
        kind, _, digits = arch.partition("_")
        built = (int(digits[:-1]), int(digits[-1]))
        if (kind == "sm" and built[0] == capability[0] and built[1] <= capability[1]) or (kind == "compute" and built <= tuple(capability)):
            return True
    return False


def _platform_reference(machine) -> tuple[str, str]:
    with simulated(machine):
        if torch.cuda.is_available():
            return ("rocm" if torch.version.hip else "cuda", "cuda")
        if torch.xpu.is_available():
            return ("xpu", "xpu")
        return ("mps", "mps") if torch.backends.mps.is_available() else ("cpu", "cpu")


def test_drawn_expected_values_agree_with_the_references():
    for k in range(40):
        rng = random.Random(k)
        for machine, want in RULES["12.2"](rng):
            build = machine.build
            assert want == (machine.cuda > 0 and _runs_reference(build.arch_list, build.capability)), machine
        drawn = RULES["12.3"](rng)
        for machine, want in drawn:
            assert want == _platform_reference(machine), machine
        kinds = [want[0] for _, want in drawn]
        assert all(kinds.count(kind) >= 2 for kind in ("cuda", "rocm", "xpu", "mps", "cpu")), kinds


def test_drawn_servers_are_real_tables_and_the_gpu_asked_for_can_be_named_by_torchs_own_parser():
    for k in range(40):
        rows = RULES["12.1"](random.Random(k))
        assert 4 <= len(rows) <= 6
        beyond = False
        for server, bus_id in rows:
            buses = [g.pci_bus_id for g in server.gpus]
            assert buses == sorted(set(buses)) and bus_id in buses  # nvidia-smi's order is the bus's
            assert len({g.uuid for g in server.gpus}) == len(server.gpus)
            speeds = [server.gpus[i].capability for i in server.fastest_first]
            assert speeds == sorted(speeds, reverse=True) and server.fastest_first != tuple(range(len(buses)))
            wanted = server.gpus[buses.index(bus_id)]
            assert cuda_devices(server, {"CUDA_VISIBLE_DEVICES": wanted.uuid}) == (wanted,)
            index = buses.index(bus_id)
            beyond |= index >= 3 and server.fastest_first[index] != index != server.fastest_first[0]
        assert beyond, "no GPU asked for past the public table's three that CUDA numbers otherwise, and not first"


def _kernels_from_properties() -> bool:
    """12.2 answered with get_device_properties(0).major and .minor, as right as get_device_capability(0): it was
    refused, as the simulated machines answered get_device_properties from the installed (CPU-only) torch."""
    if not torch.cuda.is_available():
        return False
    props = torch.cuda.get_device_properties(0)
    for arch in torch.cuda.get_arch_list():
        kind, _, number = arch.partition("_")
        built = (int(number.rstrip("af")[:-1]), int(number.rstrip("af")[-1]))
        if kind == "sm" and built[0] == props.major and built[1] <= props.minor:
            return True
        if kind == "compute" and built <= (props.major, props.minor):
            return True
    return False


def test_12_2_reading_the_capability_from_get_device_properties_passes():
    from course_grader import boundary

    assert run_checker(get_exercise("12.2"), _kernels_from_properties).passed
    assert boundary.grade("12.2", boundary.local_channel({"gpu_has_kernels": _kernels_from_properties})).passed
