"""checks: every way a learner's answer can go wrong gives a result, never a traceback."""

import re

import pytest
import torch

from course_utils.checks import CHECK_MIME, CheckResult, Wrong, all_exercises, call, check, exercise, get_exercise


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
    assert bundle[CHECK_MIME] == {
        "exercise": "01.1",
        "title": "t",
        "status": "fail",
        "message": "m",
        "hint": "h",
        "note": "",
        "ask": "",
        "answer": "",
        "passed": False,
    }
    assert "FAIL" in bundle["text/plain"] and "hint: h" in bundle["text/plain"]
    assert "&lt;" in CheckResult("x", "<t>", "pass", "<m>")._repr_mimebundle_()["text/html"]


def test_each_status_has_its_own_look_and_only_pass_passes():
    """Every status renders, in HTML and plain text, with its word; a check not attempted yet (the cell as
    shipped) is the learner's turn: neither FAIL nor red, yet never a pass (issue 33.2)."""
    from course_utils.check_cells import CHECK_STATUSES
    from course_utils.checks._core import LOOKS
    from course_utils.display import OK, PROBLEM, TO_DO

    assert set(LOOKS) == set(CHECK_STATUSES)
    shown = {}
    for status in CHECK_STATUSES:
        result = CheckResult("01.a", "t", status, "m", "h")
        bundle = result._repr_mimebundle_()
        look = LOOKS[status]
        assert bundle["text/plain"].startswith(f"{look.word} [01.a] t: m"), bundle["text/plain"]
        assert (
            f"{look.symbol} {look.word}" in bundle["text/html"]
            and f"solid {look.tone}" in bundle["text/html"]
            or look.dashed
            and f"dashed {look.tone}" in bundle["text/html"]
        )
        assert f"course-check-{status}" in bundle["text/html"]
        assert result.passed is (status == "pass") and bundle[CHECK_MIME]["passed"] is (status == "pass")
        shown[status] = (bundle["text/plain"].split(" [")[0], look.tone)
    assert shown["pass"] == ("PASS", OK) and shown["fail"] == ("FAIL", PROBLEM)
    assert shown["not-attempted"] == ("TO DO", TO_DO) and TO_DO not in (OK, PROBLEM)
    todo = CheckResult("01.a", "t", "not-attempted", "m", "h")._repr_mimebundle_()
    assert "FAIL" not in todo["text/plain"] + todo["text/html"] and "✘" not in todo["text/html"]
    assert "✎ TO DO" in todo["text/html"] and "dashed" in todo["text/html"] and "hint: h" in todo["text/plain"]
    # a status nobody wrote a look for shows as a failure, never as a pass
    assert str(CheckResult("01.a", "t", "new-status", "m")).startswith("FAIL")


def test_an_untouched_stub_and_a_shipped_try_it_show_to_do_never_pass():
    def double(x):
        raise NotImplementedError()

    for result in (check("test.1", double), check("09.c", ...)):
        assert result.status == "not-attempted" and not result.passed, result
        assert str(result).startswith("TO DO") and "FAIL" not in str(result)


def test_every_registered_exercise_names_its_function():
    for ex in all_exercises().values():
        assert ex.function.isidentifier(), ex


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


# ----------------------------------------------------------------- hints in steps (issue 22, item 7)


def _loads_before_moving(path, device, make_model):
    """03.3 wrong: the model stays on the CPU and the meta checkpoint is copied into it."""
    model = make_model()
    model.load_state_dict(torch.load(path, map_location=device, weights_only=True))
    return model


def _loads_to_cpu_first(path, device, make_model):
    """03.3 right, another way: load on the CPU, then into the moved model (meta warns about it)."""
    model = make_model().to(device)
    model.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
    return model


@pytest.fixture
def attempts():
    """A kernel's count of wrong answers, fresh for the test and forgotten afterwards."""
    from course_utils.checks._core import ATTEMPTS

    ATTEMPTS.reset()
    yield ATTEMPTS
    ATTEMPTS.reset()


def test_a_first_wrong_answer_names_the_mistake_and_nudges_without_the_answer(attempts):
    result = check("03.3", _loads_before_moving)
    answer = get_exercise("03.3").answer
    assert result.status == "fail" and "never moved to the device" in result.message
    assert result.hint and result.answer == ""
    text = str(result)
    assert "map_location=device" not in text and answer not in text, text
    # the way to the answer is printed beside the FAIL, and does not count as an answer cell for the grader
    assert 'check("03.3", show_answer=True)' in text and "in a new cell" in text
    assert "Stuck?" in result._repr_mimebundle_()["text/html"]


def test_the_answer_shows_when_asked_for(attempts):
    result = check("03.3", _loads_before_moving, show_answer=True)
    assert result.status == "fail" and result.answer == get_exercise("03.3").answer
    assert "model = make_model().to(device)" in str(result)
    assert "<pre" in result._repr_mimebundle_()["text/html"] and "stuck?" not in str(result)


def test_repeated_wrong_answers_offer_the_answer_and_never_show_it(attempts):
    """Issue 33.3: three different mistakes at 09.1 printed its whole answer. Now no number of wrong answers
    shows it; from the OFFER_AFTER-th one the offer counts them, and only show_answer=True shows the answer."""
    from course_utils.checks._core import OFFER_AFTER

    results = [check("03.3", _loads_before_moving) for _ in range(OFFER_AFTER + 2)]
    assert [r.answer for r in results] == [""] * (OFFER_AFTER + 2)
    assert all('check("03.3", show_answer=True)' in str(r) for r in results)
    assert [f"wrong answer {n} to 03.3" in str(r) for n, r in enumerate(results, 1)] == [False] * (OFFER_AFTER - 1) + [True] * 3
    assert attempts.wrong("03.3") == OFFER_AFTER + 2 and attempts.wrong("03.2") == 0
    assert "wrong answer" not in str(check("03.4", lambda optimizer: None))  # counted per exercise
    attempts.reset("03.3")
    assert "wrong answer 1 to" not in str(check("03.3", _loads_before_moving))
    assert check("03.3", _loads_before_moving, show_answer=True).answer == get_exercise("03.3").answer


def test_different_mistakes_never_bring_the_answer(attempts):
    """The report's case: three distinct wrong attempts at 09.1, and none of them prints the solution."""
    import test_checks_wrong_answers as wrong

    answer = get_exercise("09.1").answer
    for mistake in (wrong.to_device_blocking, wrong.to_device_top_level, wrong.to_device_lists, wrong.to_device_in_place):
        result = check("09.1", mistake)
        assert result.status == "fail" and result.answer == "" and answer not in str(result), str(result)
    assert attempts.wrong("09.1") == 4


def test_only_a_wrong_answer_counts_towards_the_answer(attempts):
    def stub(path, device, make_model):
        raise NotImplementedError()

    for _ in range(5):
        assert check("03.3", stub).status == "not-attempted"
    assert attempts.wrong("03.3") == 0 and check("03.3", _loads_to_cpu_first).passed


def test_a_right_answer_passes_without_a_wall_of_warnings(attempts):
    """03.3 with map_location="cpu" is right; loading into a meta model warns once per tensor, but that
    is the check's meta case (a real device would not warn), so no note is shown at all."""
    import warnings

    with warnings.catch_warnings(record=True) as escaped:
        warnings.simplefilter("always")
        result = check("03.3", _loads_to_cpu_first)
    assert result.passed, result
    assert escaped == [], [str(w.message) for w in escaped]
    assert result.note == "", result.note  # every warning came from the check's own meta case
    assert len(str(result).splitlines()) == 1, str(result)


def test_a_warning_is_summarised_in_one_line(attempts):
    import warnings

    def double(x):
        for _ in range(18):
            warnings.warn("doubling " + "very " * 60 + "loudly", UserWarning, stacklevel=1)
        return 2 * x

    result = check("test.1", double)
    assert result.passed and "54 warnings (1 different)" in result.note  # the check calls it 3 times and "UserWarning: doubling" in result.note
    assert len(result.note) < 300
    assert check("test.1", lambda x: 2 * x).note == ""


def test_a_value_try_it_as_shipped_asks_for_the_kind_of_thing_it_wants():
    assert "Python string" in check("01.b", ...).hint and "CUDA_VISIBLE_DEVICES" in check("01.b", ...).hint
    assert "torchrun command" in check("08.b", ...).hint
    assert "line of PyTorch" in check("03.a", ...).hint


def test_a_value_try_it_as_shipped_reads_without_a_stray_full_stop():
    """The placeholder is `...`: a sentence that ends on it with its own full stop read '... is still ....'."""
    for id in ("01.b", "08.b", "03.a"):
        text = str(check(id, ...))
        assert "...." not in text and "is still the placeholder ..." in text, text


def test_every_exercise_and_try_it_has_a_nudge_and_an_answer():
    from course_utils.checks import all_try_its

    bad = []
    for id, ex in {**all_exercises(), **all_try_its()}.items():
        if not id[:2].isdigit():  # a test's own exercise ("test.x", the grading fixture's "g.1"), not the course's
            continue
        if not (ex.hint and ex.answer):
            bad.append(f"{id}: needs a hint (a nudge) and an answer")
        elif _gives_away(ex.answer, ex.hint):
            bad.append(f"{id}: the hint spells out the answer's {_gives_away(ex.answer, ex.hint)}")
    assert not bad, "\n".join(bad)


def _normal(text: str) -> str:
    return " ".join(text.replace("'", '"').replace("`", "").split())


_NOT_A_STEP = {
    "isinstance",
    "len",
    "range",
    "list",
    "tuple",
    "type",
    "int",
    "str",
    "dict",
    "set",
    "sorted",
    "enumerate",
    "items",
    "append",
    "pop",
    "ValueError",
    "device",
    "torch",
    "nn",
    "f",
    "return",
    "print",
}


def _key_moves(answer: str) -> set[str]:
    """The answer's key moves, as a learner would copy them: its keyword arguments with their values
    (``device=x.device``, ``map_location="cpu"``), the attribute an argument's value reads
    (``x.device``), and what it moves with ``.to`` (``x.to(``), including ``next(....parameters())``."""
    code = _normal("\n".join(line for line in answer.splitlines() if not line.lstrip().startswith("def ")))
    keys = set()
    for name, value in re.findall(r"\b([a-z_]+)=((?:\w+\.)*\w+|\"[^\"]*\")", code):
        keys.add(f"{name}={value}")
        if "." in value and not value.startswith(("torch.", '"')):
            keys.add(value)
    keys.update(f"{receiver}.to(" for receiver in re.findall(r"([\w.]*\w)\.to\(", code))
    keys.update(re.findall(r"next\(\w+\.parameters\(\)\)", code))
    return keys


def _steps(answer: str) -> set[str]:
    """The functions, methods and keyword arguments the answer uses (the steps a recipe in words would name)."""
    code = "\n".join(line for line in answer.splitlines() if not line.lstrip().startswith("def "))
    named = set(re.findall(r"\b([a-z_]\w*)\(", code)) | set(re.findall(r"\b([a-z_]+)=", code))
    return {name for name in named if name not in _NOT_A_STEP and len(name) > 2}


def _gives_away(answer: str, hint: str, wrote: str = "") -> list[str]:
    """What of the answer the hint hands over: a line of its code, a key move that the learner's own
    code (``wrote``) does not already hold, or three of its steps named together (a recipe in words).

    A line counts whole, or as its expression without ``return`` or ``name =`` when that is a call
    with real arguments (``labels.to(logits.device)``; not ``torch.device(device)``, which merely
    names a function the task is about, nor a string an answer returns, which a message may quote)."""
    said, own = _normal(hint), _normal(wrote)
    found = [f"its key move {key}" for key in sorted(_key_moves(answer)) if key in said and key not in own]
    steps = {s for s in _steps(answer) if re.search(rf"\b{s}\b", said) and not re.search(rf"\b{s}\b", own)}
    if {"map_location", "load_state_dict"} <= steps:  # where to load, and into what: the recipe in words
        found.append("its recipe (map_location with load_state_dict)")
    return found + _lines_given(answer, said)


def _lines_given(answer: str, said: str) -> list[str]:
    lines = [_normal(line) for line in answer.splitlines()]
    code = [line for line in lines if len(line) >= 18 and not line.startswith(("def ", "return model"))]
    found = []
    for line in code:
        expression = re.sub(r"^(return |\w+ = )", "", line.rstrip(":"))
        arguments = re.search(r"\((.+)\)", expression)
        a_call = arguments is not None and re.search(r"[.,(]", arguments.group(1)) is not None
        if line.rstrip(":") in said or (a_call and expression in said):
            found.append(line)
    return found


def test_every_exercise_answer_passes_its_check():
    """The answer a stuck learner is shown is right: defined as written, it passes."""
    import contextlib
    import io
    import statistics

    import numpy as np
    from torch import nn

    for id, ex in all_exercises().items():
        if not id[:2].isdigit():  # a test's own exercise ("test.x", the grading fixture's "g.1"), not the course's
            continue
        namespace = {"torch": torch, "nn": nn, "np": np, "io": io, "contextlib": contextlib, "statistics": statistics}
        exec(compile(ex.answer, f"<answer {id}>", "exec"), namespace)
        result = check(id, namespace[ex.function])
        assert result.passed, result


def test_the_answers_that_move_batches_take_a_dataloaders_namedtuple_batch():
    """Issue 33.4: 09.1's answer, shown by show_answer=True, raised TypeError (Sample.__new__() missing an
    argument) on a DataLoader batch that is a namedtuple, and 05.2's had the same line. A real DataLoader's
    namedtuple batch now goes through both answers, stays that namedtuple, and every tensor moves."""
    import collections
    import contextlib
    import io
    import statistics

    from torch import nn
    from torch.utils.data import DataLoader

    Sample = collections.namedtuple("Sample", ["x", "y"])

    class Samples(torch.utils.data.Dataset):
        def __len__(self):
            return 4

        def __getitem__(self, i):
            return Sample(torch.full((3,), float(i)), i)

    batch = next(iter(DataLoader(Samples(), batch_size=2)))
    assert type(batch) is Sample  # what default_collate makes of namedtuple samples
    namespace = {"torch": torch, "nn": nn, "io": io, "contextlib": contextlib, "statistics": statistics}
    for id in ("09.1", "05.2"):
        ex = get_exercise(id)
        exec(compile(ex.answer, f"<answer {id}>", "exec"), namespace)
    moved = namespace["to_device"]({"batch": batch, "step": 1}, torch.device("meta"))["batch"]
    (model_moved,) = namespace["to_model_device"](nn.Linear(3, 1, device="meta"), batch)
    for got in (moved, model_moved):
        assert type(got) is Sample and got.x.device.type == "meta" and got.y.device.type == "meta", got
