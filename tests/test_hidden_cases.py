"""A grading run's own cases (issue 38, items 1 to 3): drawn per judging, right by the references, unreadable
from the kernel, and different from the public tables a class can replay or look up.

The practice checks keep their public tables (``course_utils.checks.nbNN``); under ``drawing_cases``
(what ``course_grader.boundary.grade`` enters, with a ``Draw`` seeded from ``os.urandom``) the same
checkers run the drawn cases. Here: the solutions pass every draw, answers built from the public
tables fail them, the drawn cases differ from one judging to the next, the expected values agree
with the tests' own references, and the package of drawn cases is absent from the staged copy.
"""

from __future__ import annotations

import pathlib
import random

import pytest
import torch
from answer_references import reference_cpu_budget, reference_materialize, visible_gpus_reference
from hidden_case_support import SWEEPS, assert_fails_every_draw, solution_namespace
from torch import nn

from course_grader.boundary import grade, local_channel
from course_grader.hidden_cases import RULES, Draw
from course_grader.hidden_cases.nb01 import seen
from course_grader.sandbox import UNSTAGED, stage_package
from course_utils.checks import nb01, nb09
from course_utils.checks._core import cases, drawing_cases, get_exercise, run_checker
from course_utils.checks.machines import active_machine

ROOT = pathlib.Path(__file__).resolve().parents[1]
DRAWS = 12


@pytest.fixture(scope="module")
def solutions() -> dict:
    found: dict = {}
    for number in sorted({id[:2] for id in RULES}):  # every set that draws cases
        found.update(solution_namespace(number))
    return found


def _judged(id: str, fn, seed: bytes | None = None):
    with drawing_cases(Draw(seed)):
        return run_checker(get_exercise(id), fn)


@pytest.mark.parametrize("id", sorted(RULES))
def test_the_solution_passes_every_draw(id, solutions):
    fn = solutions[get_exercise(id).function]
    for k in range(DRAWS):
        result = _judged(id, fn, seed=bytes([k]) * 32)
        assert result.passed, (k, result)


@pytest.mark.parametrize("id", sorted(RULES))
def test_two_judgings_draw_different_cases(id):
    first, second = Draw(), Draw()
    assert repr(first(id)) != repr(second(id)) or id == "10.1" and first(id)[1] != second(id)[1]
    assert "seed" not in repr(first) and first._seed.hex() not in repr(first)


def test_practice_checks_keep_their_public_tables():
    assert cases("01.2", nb01.VISIBLE_CASES) is nb01.VISIBLE_CASES
    with drawing_cases(Draw()):
        assert cases("01.2", nb01.VISIBLE_CASES) is not nb01.VISIBLE_CASES
        assert cases("99.9", "public") == "public"  # an exercise without a rule keeps its table


def test_drawn_masks_agree_with_the_reference_and_with_torchs_parser():
    rng = random.Random(38)
    for _ in range(300):
        for mask, physical, expected in RULES["01.2"](rng):
            assert expected == visible_gpus_reference(mask, physical), (mask, physical)
            assert expected == seen(mask, physical) == nb01._seen_by_torch(mask, physical), (mask, physical)


def _lookup(table):
    """An answer that returns the public table's row for the arguments it is given (issue 38, 'looking up')."""
    rows = {(mask, physical): expected for mask, physical, expected in table}

    def visible_gpus(mask, physical):
        return rows.get((mask, physical), [])

    return visible_gpus


@pytest.mark.parametrize("seeds", SWEEPS)
def test_a_looked_up_public_row_passes_practice_and_fails_grading(seeds):
    answer = _lookup((*nb01.VISIBLE_CASES, *nb01.VISIBLE_ALWAYS))  # every row practice asks
    assert run_checker(get_exercise("01.2"), answer).passed
    assert_fails_every_draw("01.2", answer, seeds)

    by_name = {props.name: text for props, text in (*nb01.FAKE_GPUS, *nb01.FAKE_GPUS_ALWAYS)}
    assert run_checker(get_exercise("01.3"), lambda props: by_name.get(props.name, "")).passed
    assert_fails_every_draw("01.3", lambda props: by_name.get(props.name, ""), seeds)


def test_an_answer_reading_the_simulated_machine_fails_in_the_kernel(solutions):
    """Reading the request (active_machine) instead of torch.cuda: None in the kernel, so it has nothing to read."""

    def best_device():
        machine = active_machine()
        if machine is None:
            return torch.device("cpu")
        return torch.device("cuda" if machine.cuda else "mps" if machine.mps else "cpu")

    assert run_checker(get_exercise("01.1"), best_device).passed  # in-process, the practice check simulates here
    namespace = {"best_device": best_device}
    assert grade("01.1", local_channel(namespace)).status == "fail"
    namespace["best_device"] = solutions["best_device"]
    assert grade("01.1", local_channel(namespace)).status == "pass"


def test_a_model_emptied_in_place_fails_10_1(solutions):
    def empties(model, device):
        for module in model.modules():
            module._parameters.clear()
            module._buffers.clear()
        return model

    assert grade("10.1", local_channel({"materialize": empties})).status == "fail"
    assert grade("10.1", local_channel({"materialize": reference_materialize})).status == "pass"


@pytest.mark.parametrize("seeds", SWEEPS)
def test_a_batch_answer_from_the_public_shape_fails_09_1(solutions, seeds):
    """An answer that rebuilds the public batch's shape (keys, nesting) instead of walking what it is given."""

    def to_device(batch, device):
        public, _ = nb09._nested(str(device))
        return {key: solutions["to_device"](batch.get(key, public[key]), device) for key in public}

    assert run_checker(get_exercise("09.1"), to_device).passed
    assert_fails_every_draw("09.1", to_device, seeds)


def test_the_drawn_cases_are_not_staged(tmp_path):
    root = stage_package(tmp_path)
    assert (root / "course_grader" / "boundary.py").is_file()
    for name in UNSTAGED:
        assert not list(root.rglob(name)) and not list(root.rglob(f"{name}*")), name
    assert not any("hidden_cases" in str(p) for p in root.rglob("*"))


def test_drawn_cpu_budgets_agree_with_the_reference_and_with_the_installed_accelerate(caplog):
    rng = random.Random(36)
    rows = [row for _ in range(25) for row in RULES["10.4"](rng)]
    for what, build, on_cpu, budget, _ in rows:
        assert budget == reference_cpu_budget(build(), on_cpu), what
    accelerate = pytest.importorskip("accelerate", reason="needs accelerate, the optional hf extra (CI installs it)")
    for what, build, on_cpu, budget, _ in rows:
        model = build()
        names = [name for name, _ in model.named_children()]
        # with the budget the first on_cpu layers stay (one more too, when it is the last: no room is kept for it),
        # with a byte less one of them goes to disk
        for cpu, enough in ((budget, True), (budget - 1, False)):
            plan = accelerate.infer_auto_device_map(model, max_memory={"cpu": cpu}, clean_result=False)
            kept = [plan[n] for n in names].count("cpu")
            assert [plan[n] for n in names] == ["cpu"] * kept + ["disk"] * (len(names) - kept), what
            assert (kept >= on_cpu) is enough, (what, cpu, kept)


def test_drawn_models_are_real_modules_of_the_kernels_classes():
    models, seed = RULES["10.1"](random.Random(1))
    for _what, build in models:
        model = build()
        assert isinstance(model, nn.Sequential)
        assert all(type(m).__module__.startswith(("torch.nn.", "course_utils.")) for m in model.modules())
    assert isinstance(seed, int)


LIAR_09 = """import torch
from torch.overrides import _get_current_function_mode_stack

def to_device(batch, device):
    # moves without non_blocking, then rewrites the instrument's log the judge gets back
    def move(x):
        if isinstance(x, torch.Tensor):
            return x.to(device)
        if isinstance(x, dict):
            return {k: move(v) for k, v in x.items()}
        if isinstance(x, tuple) and hasattr(x, "_fields"):
            return type(x)(*(move(v) for v in x))
        if isinstance(x, (list, tuple)):
            return type(x)(move(v) for v in x)
        return x
    moved = move(batch)
    for mode in _get_current_function_mode_stack():
        if hasattr(mode, "calls"):
            mode.calls[:] = [True] * len(mode.calls)
    return moved
"""


def _channel_with_source(namespace: dict, source: str | None):
    channel = local_channel(namespace)

    def send(request: bytes) -> bytes:
        return channel(request)

    if source is not None:
        send.learner_source = source
    return send


def test_a_rewritten_log_does_not_pass_09_1_when_the_judge_reads_the_file(solutions):
    namespace: dict = {}
    exec(LIAR_09, namespace)
    # the kernel's own account alone (a channel that hands no source) is fooled: the gap the file closes
    assert grade("09.1", _channel_with_source(namespace, None)).status == "pass"
    assert grade("09.1", _channel_with_source(namespace, LIAR_09)).status == "fail"
    solution = (ROOT / "solutions" / "09_data_loading_and_memory_exercises.py").read_text(encoding="utf-8")
    assert grade("09.1", _channel_with_source({"to_device": solutions["to_device"]}, solution)).status == "pass"
