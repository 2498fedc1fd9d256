"""checks: every way a learner's answer can go wrong gives a result, never a traceback."""

import os
import random

import pytest
import torch

from course_utils.checks import CHECK_MIME, CheckResult, Wrong, all_exercises, call, check, exercise
from course_utils.checks.nb01 import VISIBLE_CASES, visible_gpus_reference


@exercise("test.1", "A test exercise", "double", hint="Multiply by two.")
def _double(double):
    for x in (0, 1, 5):
        got = call(double, x)
        if got != 2 * x:
            raise Wrong(f"double({x}) returned {got!r}; expected {2 * x}.")
    return "All doubled."


@exercise("test.broken", "A checker with a bug", "anything")
def _broken(anything):
    return 1 / 0


def test_pass():
    def double(x):
        return 2 * x

    result = check("test.1", double)
    assert result.passed and result.status == "pass" and result.message == "All doubled."


def test_wrong_answer_fails_with_the_exercise_hint():
    result = check("test.1", lambda x: x + 2)
    assert result.status == "fail" and "double(0) returned 2" in result.message
    assert result.hint == "Multiply by two."


def test_stub_is_not_attempted():
    def double(x):
        # YOUR CODE HERE
        raise NotImplementedError()

    result = check("test.1", double)
    assert result.status == "not-attempted" and not result.passed


def test_learner_exception_is_reported_with_its_line():
    def double(x):
        return torch.ones(2) + torch.ones(3)

    result = check("test.1", double)
    assert result.status == "fail"
    assert result.message.startswith("Your code raised RuntimeError")
    assert "torch.ones(2) + torch.ones(3)" in result.message


def test_missing_function_is_looked_up_in_the_callers_namespace():
    result = check("test.1")  # no `double` in this module's globals
    assert result.status == "missing" and "`double`" in result.message


def test_found_in_callers_namespace():
    namespace = {"check": check}
    exec("def double(x):\n    return 2 * x\nresult = check('test.1')", namespace)
    assert namespace["result"].passed


def test_not_callable():
    assert check("test.1", 42).status == "fail"


def test_a_broken_checker_is_an_error_never_a_pass():
    result = check("test.broken", lambda: None)
    assert result.status == "error" and not result.passed and "course bug" in result.message


def test_unknown_exercise_is_a_clear_error():
    with pytest.raises(ValueError, match="No exercise 'nope'"):
        check("nope", lambda: None)


def test_result_carries_structured_data_for_the_grader():
    result = CheckResult("01.1", "t", "fail", "m", "h")
    bundle = result._repr_mimebundle_()
    assert bundle[CHECK_MIME] == {"exercise": "01.1", "title": "t", "status": "fail", "message": "m", "hint": "h",
                                  "passed": False}
    assert "FAIL" in bundle["text/plain"] and "hint: h" in bundle["text/plain"]
    assert "&lt;" in CheckResult("x", "<t>", "pass", "<m>")._repr_mimebundle_()["text/html"]


def test_every_registered_exercise_names_its_function():
    for ex in all_exercises().values():
        assert ex.function.isidentifier(), ex


# ----------------------------------------------------------------- notebook 01's reference


def test_visible_cases_follow_the_reference():
    for mask, physical, expected in VISIBLE_CASES:
        assert visible_gpus_reference(mask, physical) == expected, mask


@pytest.mark.skipif(not hasattr(torch.cuda, "_parse_visible_devices"), reason="torch has no _parse_visible_devices")
def test_reference_agrees_with_torch_on_random_masks(monkeypatch):
    """Our CUDA_VISIBLE_DEVICES rules are torch's own parser plus the physical-count cut-off."""
    rng = random.Random(0)
    monkeypatch.delenv("HIP_VISIBLE_DEVICES", raising=False)
    monkeypatch.delenv("ROCR_VISIBLE_DEVICES", raising=False)
    for _ in range(500):
        entries = [rng.choice(["0", "1", "2", "3", "7", "-1", "x", " 2 ", "1gpu"]) for _ in range(rng.randint(1, 4))]
        mask, physical = ",".join(entries), rng.randint(1, 4)
        monkeypatch.setenv("CUDA_VISIBLE_DEVICES", mask)
        parsed = torch.cuda._parse_visible_devices()
        cut = next((i for i, v in enumerate(parsed) if v >= physical), len(parsed))
        assert visible_gpus_reference(mask, physical) == list(parsed[:cut]), (mask, physical)
    assert os.environ.get("CUDA_VISIBLE_DEVICES") is not None  # monkeypatch restores it afterwards


# ----------------------------------------------------------------- how results read


def test_a_syntax_error_in_the_answer_cell_is_named_with_its_line():
    """In IPython, a cell that does not compile leaves its SyntaxError in sys.last_value; the check says so."""
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    try:
        shell.run_cell("from course_utils import check")
        shell.run_cell("def describe_gpu(props):\n    return (f'{props.name}'\n            + 'x'\n    return 1\n")
        shell.run_cell("result = check('01.3')")
        result = shell.user_ns["result"]
        assert result.status == "fail", result
        # Python points at the bracket that was never closed, line 2 of the cell
        assert "SyntaxError" in result.message and "line 2" in result.message and "return (f'" in result.message
        assert "describe_gpu" in result.message and "Fix that line" in result.hint
        shell.run_cell("def describe_gpu(props):\n    return 'fixed'\n")
        shell.run_cell("result = check('01.3')")
        assert "SyntaxError" not in shell.user_ns["result"].message  # a fixed cell is checked as usual
    finally:
        InteractiveShell.clear_instance()


def test_an_unrelated_syntax_error_does_not_hide_a_missing_function():
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    try:
        shell.run_cell("from course_utils import check")
        shell.run_cell("x = (1,\n")
        shell.run_cell("result = check('01.3')")
        assert shell.user_ns["result"].status == "missing"
    finally:
        InteractiveShell.clear_instance()


def test_plain_text_has_no_markdown_backticks_and_html_shows_code():
    result = check("test.1")  # missing: its message and hint name `double`
    assert "`" not in str(result)
    assert "<code>double</code>" in result._repr_mimebundle_()["text/html"]
    assert "`double`" in result.to_dict()["message"]  # the data keeps Markdown, for feedback files
