"""The process boundary of grading is faithful: through it, every answer gets the verdict it gets in-process.

``local_channel`` serves the judge's requests in this process, but as the real kernel does: the
arguments are pickled and unpickled, the reply goes through ``reply_bytes`` and ``load_reply`` (a pickle without
globals, and torch's safe loader for its tensors), objects the judge sent come back as references to its own.
Every solution passes through it, and every plausible wrong answer of the suite gets the status
(and the feedback) it gets from ``check`` in-process.
"""

import collections
import io
import pathlib
import pickle

import pytest
import torch
from test_checks_wrong_answers import WRONG, _solution_functions

from course_grader import boundary
from course_utils.checks import all_exercises, check, get_exercise
from course_utils.handover import handover_folder
from course_utils.scopes import default_device

ROOT = pathlib.Path(__file__).resolve().parents[1]
SOLUTIONS = sorted((ROOT / "solutions").glob("*_exercises.py"))


def _through_the_boundary(id, namespace, draw=None):
    start = default_device()
    try:
        return boundary.grade(id, boundary.local_channel(namespace), draw=draw)
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
    # the practice check's own cases, so that the feedback can be compared word for word
    there = _through_the_boundary(id, {get_exercise(id).function: answer}, draw=boundary.practice_cases)
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

    class Evil:
        def __reduce__(self):
            return (exec, ("import sys; sys._course_boundary_pwned = True",))

    def evil(request):
        return pickle.dumps({"probe": Evil()})

    import sys

    result = boundary.grade("01.2", evil)
    assert result.status == "fail" and not hasattr(sys, "_course_boundary_pwned"), result
    # the same pickle where the reply's format puts its structure, and where it puts its tensors
    body = pickle.dumps({"probe": Evil()})
    saved = io.BytesIO()
    pickle.dump([Evil()], saved)
    for forged in (_framed(body), _framed(pickle.dumps({"probe": {}}), saved.getvalue())):
        result = boundary.grade("01.2", lambda request, forged=forged: forged)
        assert result.status == "fail" and not hasattr(sys, "_course_boundary_pwned"), result
        with pytest.raises(boundary.BadReply, match="could not be read safely"):
            boundary.load_reply(forged)


def _framed(structure: bytes, tensors: bytes | None = None) -> bytes:
    """A reply in the kernel's format (``boundary.reply_bytes``) around any structure and tensors' bytes."""
    if tensors is None:
        saved = io.BytesIO()
        torch.save([torch.ones(2)], saved)
        tensors = saved.getvalue()
    return boundary._REPLY_TAG + len(structure).to_bytes(8, "big") + structure + tensors


def test_a_reply_round_trips_its_data_and_names_no_class():
    """What a reply holds comes back equal, two tensors sharing memory still share it; a structure that names any
    class or function, refers to a tensor it does not carry, or gives a tensor hooks is refused; so is a reply in
    any other format (the whole reply through torch.save, as before stop 48)."""
    weight = torch.arange(6.0)
    reply = {
        "result": {
            "@": "tuple",
            "v": [weight, weight[2:4], torch.device("meta"), torch.float16, 1 + 2j, b"raw", None, True, 2**70, float("inf"), "text"],
        },
        "after": {3: {"@": "tensor-after", "v": torch.zeros(2, 3).t(), "rg": False, "grad": None}},
        "rng": torch.get_rng_state(),
    }
    back = boundary.load_reply(boundary.reply_bytes(reply))
    got = back["result"]["v"]
    assert torch.equal(got[0], weight) and torch.equal(got[1], weight[2:4])
    assert got[1].untyped_storage().data_ptr() == got[0].untyped_storage().data_ptr()  # one storage, as sent
    assert got[2:] == [torch.device("meta"), torch.float16, 1 + 2j, b"raw", None, True, 2**70, float("inf"), "text"]
    assert type(got[4]) is complex and back["after"][3]["v"].stride() == (1, 3)
    assert torch.equal(back["rng"], reply["rng"])

    protocol0_global = b"cposix\nsystem\n(S'true'\ntR."  # GLOBAL then REDUCE: os.system("true")
    stack_global = pickle.dumps({"x": collections.OrderedDict()}, protocol=4)  # any class at all

    class Refers(pickle.Pickler):
        def persistent_id(self, obj):
            return obj if type(obj) is tuple and obj[:1] in (("tensor",), ("dtype",), ("device",)) else None

    def referring(*pids) -> bytes:
        buffer = io.BytesIO()
        Refers(buffer, protocol=4).dump({"probe": list(pids)})
        return buffer.getvalue()

    # PERSID ("tensor", 0), then BUILD with (True, None, {"h": 1}): Tensor.__setstate__ gives it backward hooks
    hooked = b"\x80\x02}X\x05\x00\x00\x00probe(X\x06\x00\x00\x00tensorK\x00tQ(\x88N}X\x01\x00\x00\x00hK\x01stbs."
    with pytest.raises(boundary.BadReply, match="carry hooks"):
        boundary.load_reply(_framed(hooked))
    for structure in (
        protocol0_global,
        stack_global,
        referring(("tensor", 1)),
        referring(("tensor", -1)),
        referring(("dtype", "Tensor")),
        referring(("dtype", "__class__")),
        referring(("device", 7)),
    ):
        with pytest.raises(boundary.BadReply, match="could not be read safely"):
            boundary.load_reply(_framed(structure))
    saved = io.BytesIO()
    torch.save(reply, saved)
    for other in (saved.getvalue(), pickle.dumps(reply), b""):
        with pytest.raises(boundary.BadReply):
            boundary.load_reply(other)


# ----------------------------------------------------------------------------- files a check hands over


def _load_onto_recording(seen: list):
    """03.3's course answer, noting each path it was handed and whether it could read it there."""
    load_onto = _solution_functions(ROOT / "solutions" / "03_model_placement_exercises.py")["load_onto"]

    def recording(path, device, make_model):
        seen.append((pathlib.Path(path), pathlib.Path(path).is_file()))
        return load_onto(path, device, make_model)

    return recording


def test_a_checkpoint_is_handed_over_in_the_submissions_handover_folder(tmp_path):
    """03.3 hands the answer checkpoint files: written where the kernel reads them, and removed after."""
    seen: list = []
    result = boundary.grade("03.3", boundary.local_channel({"load_onto": _load_onto_recording(seen)}), handover=tmp_path)
    assert result.passed, result
    assert seen and all(readable and path.is_relative_to(tmp_path.resolve()) for path, readable in seen), seen
    assert list(tmp_path.iterdir()) == [], "the check's folder is removed once the check is done"


def test_without_a_handover_folder_the_files_go_to_the_temporary_folder():
    """nbgrader's kernel and a learner's own notebook share this machine's temporary folder."""
    import tempfile

    seen: list = []
    result = boundary.grade("03.3", boundary.local_channel({"load_onto": _load_onto_recording(seen)}))
    assert result.passed, result
    assert all(readable and path.is_relative_to(pathlib.Path(tempfile.gettempdir()).resolve()) for path, readable in seen)
    with handover_folder("x-") as folder:
        assert folder.is_dir() and folder.name.startswith("x-")
    assert not folder.exists()


def _handing(how: str):
    """A checker that hands the answer a file in a way the kernel may not be able to read."""
    import tempfile

    from course_utils.checks import call

    def checker(take):
        with tempfile.TemporaryDirectory() as tmp:  # the judge's own temporary folder: not the kernel's
            path = pathlib.Path(tmp) / "data.pt"
            path.write_bytes(b"")
            handed = {"path": path, "str": str(path), "relative": pathlib.Path("data.pt"), "nested": {"files": [path]}}[how]
            call(take, handed)
        return "handed over"

    return checker


@pytest.mark.parametrize("how", ["path", "str", "relative", "nested"])
def test_a_path_not_made_with_handover_folder_is_the_courses_bug(how, tmp_path, monkeypatch):
    """Never the learner's fail (``call`` would blame them for any Exception), and their code never runs."""
    from course_utils.checks import _core

    monkeypatch.setitem(_core._REGISTRY, "hand.1", _core.Exercise("hand.1", "Hand over", "take", _handing(how), ""))
    calls: list = []
    result = boundary.grade("hand.1", boundary.local_channel({"take": calls.append}), handover=tmp_path)
    assert result.status == "error" and "course bug" in result.message, result
    assert "handover_folder" in result.message and calls == []


def test_a_path_in_a_handover_folder_crosses(tmp_path, monkeypatch):
    from course_utils.checks import _core, call

    def checker(take):
        with handover_folder() as folder:
            (folder / "data.pt").write_bytes(b"x")
            if call(take, {"file": folder / "data.pt", "text": str(folder / "data.pt")}) != (b"x", b"x"):
                raise _core.Wrong("the file was not read")
        return "read"

    monkeypatch.setitem(_core._REGISTRY, "hand.2", _core.Exercise("hand.2", "Hand over", "take", checker, ""))

    def take(files):
        return files["file"].read_bytes(), pathlib.Path(files["text"]).read_bytes()

    result = boundary.grade("hand.2", boundary.local_channel({"take": take}), handover=tmp_path)
    assert result.passed, result


@pytest.mark.slow  # one kernel per exercise notebook
@pytest.mark.parametrize("path", SOLUTIONS, ids=lambda p: p.name[:2])
def test_every_solution_earns_full_marks_from_course_grade(path, tmp_path, capsys):
    """The same proof against real kernels, as an instructor runs ``course-grade`` (issue 33), with its
    default options: under bubblewrap wherever it works, which is then asserted, so that this one run
    is also the ``--sandbox require`` run (where bubblewrap cannot start, the kernels run bare and the
    summary says so; with ``COURSE_SANDBOX_REQUIRED=1``, as in CI, that fails instead). What the local
    channel cannot show shows here: process-wide state such as torch's random generator, and a file
    a check hands over that the sandboxed kernel cannot read."""
    import csv
    import os
    import shutil

    from course_grader import main
    from course_grader.bubblewrap import probe
    from course_grader.spec import read_spec

    isolation = probe("auto")
    if not isolation.sandboxed and os.environ.get("COURSE_SANDBOX_REQUIRED") == "1":
        pytest.fail(f"COURSE_SANDBOX_REQUIRED=1, but no sandbox is available: {isolation.reason}")
    exercise = ROOT / "exercises" / path.with_suffix(".ipynb").name
    (tmp_path / "submitted").mkdir()
    shutil.copy(path.with_suffix(".ipynb"), tmp_path / "submitted" / "solution.ipynb")
    code = main([str(exercise), str(tmp_path / "submitted"), "--out", str(tmp_path / "out")])
    captured = capsys.readouterr()
    err = captured.err
    assert code == 0, err + captured.out[-3000:]
    assert err.startswith("course-grade: sandbox: bubblewrap" if isolation.sandboxed else "course-grade: sandbox: NONE"), err
    with open(tmp_path / "out" / "grades.csv", encoding="utf-8", newline="") as handle:
        [row] = list(csv.DictReader(handle))
    details = (tmp_path / "out" / "details.csv").read_text(encoding="utf-8")
    assert int(row["total"]) == len(read_spec(exercise).exercises) > 0, row
    # the one flag a published solution gets is that it is one (issue 38, item 6); nothing else
    reasons = [r for r in row["reason"].split("; ") if r]
    assert row["passed"] == row["total"] and all(r.startswith("FLAG: copy of the published solution?") for r in reasons), (
        row["reason"],
        details,
    )


def test_a_reply_cannot_rebuild_a_class_that_would_run_code():
    """Only layers, optimizers, CUDA scopes and the course's records are rebuilt; never a class with __del__,
    nor one from outside torch's and the course's own modules."""

    def reply_with(cls_name):
        def send(request):
            return boundary.reply_bytes(
                {"probe": {"defined": True, "callable": True, "type": "function"}, "result": {"@": "obj", "cls": cls_name, "v": {}}, "after": {}}
            )

        return send

    for name in ("tempfile._TemporaryFileCloser", "subprocess.Popen", "torch.utils.data.DataLoader", "torch.multiprocessing.Process"):
        result = boundary.grade("01.1", reply_with(name))
        assert result.status == "fail" and "does not rebuild" in result.message, (name, result)
    assert not boundary.grade("01.1", reply_with("torch.nn.modules.linear.Linear")).passed  # rebuilt, and wrong


def test_a_reply_rebuilds_only_the_courses_namedtuples():
    """09.1 and 05.2 send a namedtuple in the batch, and a right answer returns one of that class: it comes
    back as that class, built from its fields; a namedtuple tag naming any other class is refused."""
    from course_utils.checks.nb09 import Sample

    def reply_with(cls_name, fields):
        def send(request):
            return boundary.reply_bytes(
                {
                    "probe": {"defined": True, "callable": True, "type": "function"},
                    "result": {"@": "namedtuple", "cls": cls_name, "v": fields},
                    "after": {},
                }
            )

        return send

    decoded = boundary._Decoder([]).value({"@": "namedtuple", "cls": "course_utils.checks.nb09.Sample", "v": [1, 2]})
    assert type(decoded) is Sample and decoded == (1, 2)
    for name, fields in (
        ("collections.OrderedDict", [1, 2]),
        ("course_utils.checks.nb09.Sample", [1]),
        ("course_utils.checks._core.CheckResult", [1, 2]),
    ):
        result = boundary.grade("09.1", reply_with(name, fields))
        assert result.status == "fail", (name, result)
    encoded = boundary._Encoder([]).value(Sample(torch.ones(1), 0.5))
    assert encoded["@"] == "namedtuple" and encoded["cls"] == "course_utils.checks.nb09.Sample"
    with pytest.raises(boundary.BadReply):  # a namedtuple of the learner's own is not sent back
        boundary._Encoder([]).value(collections.namedtuple("Mine", "a")(1))
