"""The process boundary of grading is faithful: through it, every answer gets the verdict it gets in-process.

``local_channel`` serves the judge's requests in this process, but as the real kernel does: the
arguments are pickled and unpickled, the reply goes through ``torch.save`` and
``torch.load(weights_only=True)``, objects the judge sent come back as references to its own.
Every solution passes through it, and every plausible wrong answer of the suite gets the status
(and the feedback) it gets from ``check`` in-process.
"""

import pathlib

import pytest
import torch
from test_checks_wrong_answers import WRONG, _solution_functions

from course_utils import boundary
from course_utils.checks import all_exercises, check, get_exercise
from course_utils.scopes import default_device

ROOT = pathlib.Path(__file__).resolve().parents[1]
SOLUTIONS = sorted((ROOT / "solutions").glob("*_exercises.py"))


def _through_the_boundary(id, namespace):
    start = default_device()
    try:
        return boundary.grade(id, boundary.local_channel(namespace))
    finally:
        torch.set_default_device(None)
        assert default_device() == start


@pytest.mark.parametrize("path", SOLUTIONS, ids=lambda p: p.name[:2])
def test_every_solution_passes_through_the_boundary(path):
    namespace = _solution_functions(path)
    number = path.name[:2]
    ids = [i for i in all_exercises() if i.startswith(number + ".")]
    assert ids
    failed = [str(r) for r in (_through_the_boundary(i, namespace) for i in ids) if not r.passed]
    assert not failed, "\n".join(failed)


@pytest.mark.parametrize("id, answer, needle", WRONG, ids=[f"{i}-{a.__name__}" for i, a, _ in WRONG])
def test_a_wrong_answer_gets_the_same_verdict_through_the_boundary(id, answer, needle):
    try:
        here = check(id, answer)
    finally:
        torch.set_default_device(None)
    there = _through_the_boundary(id, {get_exercise(id).function: answer})
    assert there.status == here.status, (str(here), str(there))
    assert needle.lower() in f"{there.message} {there.hint}".lower(), (needle, str(there))


def _stub(*args, **kwargs):
    raise NotImplementedError()


def test_a_stub_a_missing_function_and_a_non_function_through_the_boundary():
    ex = get_exercise("01.2")
    assert _through_the_boundary("01.2", {ex.function: _stub}).status == "not-attempted"
    assert _through_the_boundary("01.2", {}).status == "missing"
    assert _through_the_boundary("01.2", {ex.function: 3}).status == "fail"


def test_an_answer_that_raises_is_a_fail_naming_the_error():
    def visible_gpus(mask, physical):
        raise KeyError("nope")

    result = _through_the_boundary("01.2", {"visible_gpus": visible_gpus})
    assert result.status == "fail" and "KeyError" in result.message, result


def test_a_reply_the_judge_cannot_read_is_the_learners_failure():
    def forged(request):
        return b"not a torch file"

    result = boundary.grade("01.2", forged)
    assert result.status == "fail" and "could not read" in result.message, result

    def too_big(request):
        return b"x" * (boundary.REPLY_CAP + 1)

    assert boundary.grade("01.2", too_big).status == "fail"


def test_a_reply_cannot_carry_code():
    """A pickle that would run code on loading is refused by the safe loader: a fail, nothing runs."""
    import pickle

    class Evil:
        def __reduce__(self):
            return (exec, ("import sys; sys._course_boundary_pwned = True",))

    def evil(request):
        return pickle.dumps({"probe": Evil()})

    import sys

    result = boundary.grade("01.2", evil)
    assert result.status == "fail" and not hasattr(sys, "_course_boundary_pwned"), result


@pytest.mark.slow  # one kernel per exercise notebook
def test_every_solution_earns_full_marks_from_course_grade(tmp_path):
    """The same proof against real kernels: what the local channel cannot show (process-wide state such
    as torch's random generator) shows here."""
    import shutil

    from course_utils.grading import Limits, grade_batch

    failed = []
    for path in SOLUTIONS:
        one = tmp_path / path.stem
        one.mkdir()
        shutil.copy(path.with_suffix(".ipynb"), one / "solution.ipynb")
        result = grade_batch(ROOT / "exercises" / path.with_suffix(".ipynb").name, one, jobs=1,
                             limits=Limits(cell_timeout=120, total_timeout=900), sandbox="off")
        failed += [str(g) for r in result.rows for g in r.grades if not g.passed]
    assert not failed, "\n".join(failed)


def test_a_reply_cannot_rebuild_a_class_that_would_run_code():
    """Only layers, optimizers, CUDA scopes and the course's records are rebuilt; never a class with __del__,
    nor one from outside torch's and the course's own modules."""
    import io

    def reply_with(cls_name):
        def send(request):
            buffer = io.BytesIO()
            torch.save({"probe": {"defined": True, "callable": True, "type": "function"},
                        "result": {"@": "obj", "cls": cls_name, "v": {}}, "after": {}}, buffer)
            return buffer.getvalue()
        return send

    for name in ("tempfile._TemporaryFileCloser", "subprocess.Popen", "torch.utils.data.DataLoader",
                 "torch.multiprocessing.Process"):
        result = boundary.grade("01.1", reply_with(name))
        assert result.status == "fail" and "does not rebuild" in result.message, (name, result)
    assert not boundary.grade("01.1", reply_with("torch.nn.modules.linear.Linear")).passed  # rebuilt, and wrong


def test_a_reply_rebuilds_only_the_courses_namedtuples():
    """09.1 and 05.2 send a namedtuple in the batch, and a right answer returns one of that class: it comes
    back as that class, built from its fields; a namedtuple tag naming any other class is refused."""
    import collections
    import io

    from course_utils.checks.nb09 import Sample

    def reply_with(cls_name, fields):
        def send(request):
            buffer = io.BytesIO()
            torch.save({"probe": {"defined": True, "callable": True, "type": "function"},
                        "result": {"@": "namedtuple", "cls": cls_name, "v": fields}, "after": {}}, buffer)
            return buffer.getvalue()
        return send

    decoded = boundary._Decoder([]).value({"@": "namedtuple", "cls": "course_utils.checks.nb09.Sample", "v": [1, 2]})
    assert type(decoded) is Sample and decoded == (1, 2)
    for name, fields in (("collections.OrderedDict", [1, 2]), ("course_utils.checks.nb09.Sample", [1]),
                         ("course_utils.checks._core.CheckResult", [1, 2])):
        result = boundary.grade("09.1", reply_with(name, fields))
        assert result.status == "fail", (name, result)
    encoded = boundary._Encoder([]).value(Sample(torch.ones(1), 0.5))
    assert encoded["@"] == "namedtuple" and encoded["cls"] == "course_utils.checks.nb09.Sample"
    with pytest.raises(boundary.BadReply):  # a namedtuple of the learner's own is not sent back
        boundary._Encoder([]).value(collections.namedtuple("Mine", "a")(1))
