"""The lessons' try-it cells: every lesson has at least two, each wired to a registered check,
and every check is held to a right answer and at least two plausible wrong ones
(``TRY_ITS`` in each lesson's ``tests/wrong_answers_nbNN.py``, run here). Lesson: every lesson notebook."""

import json
import pathlib
import warnings

import pytest
import torch
import wrong_answers_nb05
from torch import nn
from try_it_support import Case, assert_case, lesson_modules

from course_utils.check_cells import try_it_id
from course_utils.checks import CheckResult, all_try_its, check, get_exercise
from course_utils.checks._core import Exercise

ROOT = pathlib.Path(__file__).resolve().parents[1]
LESSONS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))


def try_it_cells(path: pathlib.Path) -> list[tuple[str, str]]:
    """(source, try-it id) of every cell tagged try-it in a lesson notebook."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    found = []
    for cell in cells:
        if "try-it" in cell.get("metadata", {}).get("tags", []):
            source = "".join(cell["source"])
            found.append((source, try_it_id(source) or ""))
    return found


CASES = [case for module in lesson_modules() for case in getattr(module, "TRY_ITS", [])]


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.name[:2])
def test_every_lesson_has_two_try_it_cells_each_with_one_check(path):
    cells = try_it_cells(path)
    assert len(cells) >= 2, f"{path.name} has {len(cells)} try-it cells; every lesson needs at least two"
    for source, id in cells:
        assert id, f'{path.name}: a try-it cell should end with exactly one check("NN.x"):\n{source}'
        assert id.startswith(path.name[:2] + "."), f"{path.name} checks {id}, another lesson's try-it"


def test_every_try_it_is_asked_in_exactly_one_lesson_cell():
    asked = [id for path in LESSONS for _, id in try_it_cells(path)]
    assert sorted(asked) == sorted(set(asked)), "a try-it is checked twice"
    assert set(asked) == set(all_try_its())


def test_every_try_it_has_a_right_and_two_wrong_answers():
    counts = {id: {"pass": 0, "fail": 0} for id in all_try_its()}
    for case in CASES:
        assert case.id in counts, f"{case}: {case.id} is not a registered try-it"
        counts[case.id][case.status] = counts[case.id].get(case.status, 0) + 1
    short = {id: c for id, c in counts.items() if c["pass"] < 1 or c["fail"] < 2}
    assert not short, f"try-its without a right and two wrong answers: {short}"


def test_every_try_it_answer_passes_its_check():
    """The answer a stuck learner is shown is right, after the lesson's earlier cells (a passing case's setup)."""
    from try_it_support import Case, run_case

    setups = {}
    for case in CASES:
        if case.status == "pass":
            setups.setdefault(case.id, case.setup)
    for id, ex in all_try_its().items():
        setup = setups[id] + "\nimport io\nfrom torch.utils.data import DataLoader\nfrom course_utils.loading import WhereAmI"
        result = run_case(Case(id, ex.answer, "pass", setup=setup))
        assert result.passed, (id, str(result))


def test_a_wrong_try_it_answer_gets_a_nudge_not_the_answer():
    """On a first wrong answer no try-it hands over its answer's code, in its nudge or its mistake-specific hint:
    not a line of it, not a key move the learner's line lacks (``device=x.device``, ``x.to(``), not a recipe."""
    from test_checks import _gives_away
    from try_it_support import run_case

    from course_utils.checks._core import ATTEMPTS

    given = []
    for case in CASES:
        if case.status != "fail":
            continue
        ATTEMPTS.reset()
        result = run_case(case)
        leaked = _gives_away(get_exercise(case.id).answer, f"{result.message} {result.hint}", case.line)
        if leaked or result.answer:
            given.append(f"{case}: the feedback spells out {leaked or 'the answer'}")
    ATTEMPTS.reset()
    assert not given, "\n".join(given)


def test_no_wrong_try_it_answer_is_told_the_value_the_check_expected():
    """Issue 33.3, for the try-its: the value a try-it expects is what its course answer gives (a value try-it's
    bound value, a function try-it's returns); no feedback to a plausible wrong answer spells one out."""
    from expected_values import Recording, leaked
    from try_it_support import Case

    from course_utils.checks._core import ATTEMPTS

    def run(case):
        namespace = {"torch": torch, "nn": nn, "__name__": "__try_it__"}
        exec(compile(case.setup, "<setup>", "exec"), namespace)
        exec(compile(case.line, "<line>", "exec"), namespace)
        ex = get_exercise(case.id)
        value = namespace[ex.function]
        recording = Recording(value) if ex.kind == "function" else None
        try:
            result = check(case.id, recording if recording else value)
        finally:
            torch.set_default_device(None)
        return result, (recording.returned if recording else [value]), (recording.given if recording else [])

    setups = {}
    for case in CASES:
        if case.status == "pass":
            setups.setdefault(case.id, case.setup)
    expected = {}
    for id, ex in all_try_its().items():
        setup = setups[id] + "\nimport io\nfrom torch.utils.data import DataLoader\nfrom course_utils.loading import WhereAmI"
        result, returned, _ = run(Case(id, ex.answer, "pass", setup=setup))
        assert result.passed, (id, str(result))
        expected[id] = returned
    told = []
    for case in CASES:
        if case.status != "fail":
            continue
        result, returned, given = run(case)
        feedback = f"{result.message} {result.hint} {result.ask}"
        said = leaked(expected[case.id], returned, feedback, given=given)
        if said:
            told.append(f"{case}: {said} in: {feedback}")
    ATTEMPTS.reset()
    assert not told, "\n".join(told)


def test_a_value_try_it_as_shipped_is_not_attempted_and_a_missing_name_is_said():
    from course_utils.checks import _core

    probe = Exercise("99.z", "probe", "ones", lambda value: "ok", kind="value")
    _core._REGISTRY["99.z"] = probe
    try:
        assert check("99.z", ...).status == "not-attempted"
        missing = check("99.z")  # this module defines no global `ones`
        assert missing.status == "missing" and "`ones`" in missing.message
    finally:
        del _core._REGISTRY["99.z"]
    assert isinstance(missing, CheckResult)


def test_only_the_untouched_stub_counts_as_not_attempted():
    """PyTorch's own NotImplementedError inside an answer (a meta tensor's data) is a real fail."""
    import torch

    from course_utils.checks import call
    from course_utils.checks._core import LearnerRaised, _NotAttempted

    def stub():
        raise NotImplementedError()

    def copies_meta():
        return torch.ones(2, device="meta").tolist()

    with pytest.raises(_NotAttempted):
        call(stub)
    with pytest.raises(LearnerRaised):
        call(copies_meta)


@pytest.mark.parametrize("case", CASES, ids=str)
def test_case(case):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # 10.b's wrong answers load without assign=True: a no-op warning
        assert_case(case)


# ----------------------------------------------------------------------------- 05's try-its, beyond their cases


def test_05_a_a_refused_move_is_the_checks_finding_not_an_error_of_the_learners_code():
    """The check's model refuses to move; that is what the check found, not an exception the learner raised."""
    from try_it_support import run_case

    result = run_case(Case("05.a", "def call_model(model, x):\n    return model.to(x.device)(x)", "fail"))
    assert "tried to move the model" in result.message, str(result)
    assert "raised" not in result.message and "RuntimeError" not in result.message, str(result)


def test_05_a_an_error_names_the_case_it_came_from():
    from try_it_support import run_case

    result = run_case(Case("05.a", "def call_model(model, x):\n    return model(x.to('cpu'))", "fail"))
    assert result.message.startswith("With the model on meta and x on meta, your code raised NotImplementedError"), str(result)


def test_05_b_a_value_that_is_no_tensor_is_not_told_to_stop_indexing():
    # check("05.b") as the lesson's cell calls it: `state` read from the notebook's namespace
    # (check(id, None) would mean "no value given", so run_case cannot pass None)
    from course_utils.checks import check

    namespace = {"torch": __import__("torch"), "check": check}
    exec(compile(wrong_answers_nb05.CHECKPOINT + "state = None\nresult = check('05.b')", "<learner's line>", "exec"), namespace)
    result = namespace["result"]
    assert result.status == "fail" and "NoneType" in result.message, str(result)
    assert "index" not in result.hint and "what torch.load(...) returns" in result.hint, str(result)
