"""The attacks of issue 25 on grading earn nothing: learner code never runs where answers are judged.

Each submission is an exercise notebook as handed out, with a lazy or wrong answer and one attack
that once earned marks against a checker running in the learner's kernel. ``course-grade`` (no
sandbox: the process boundary, not the sandbox, is what holds) must give every attacked exercise
something other than a pass, and the untouched solutions full marks in the same batch.

1. rewriting the grader's cell as it runs (``input_transformers_post``);
2. an IPython startup file patching ``torch.equal``, then a loop until the kernel is restarted;
3. a ``TorchFunctionMode`` that makes ``torch.equal`` answer True, entered at the top;
4. reading the checker's ``expected`` from the caller's frames.
"""

from __future__ import annotations

import pathlib
import shutil

import nbformat
import pytest

from course_grader import Limits, grade_batch

ROOT = pathlib.Path(__file__).resolve().parents[1]
EXERCISES = ROOT / "exercises"
SOLUTIONS = ROOT / "solutions"

TRANSFORMER = '''# attack 1: rewrite every cell the grader sends, so it displays a pass (or a forged reply)
import base64
import torch
from IPython.display import display
from course_utils.checks._core import CheckResult

def _forge(lines):
    text = "".join(lines)
    if "course" not in text or "_forge" in text:
        return lines
    from course_grader.boundary import reply_bytes  # the reply's own format: the forgery is well made
    reply = base64.b64encode(reply_bytes({"probe": {"defined": True, "callable": True, "type": "function"},
                                          "result": [0, 1], "after": {}})).decode()
    return ["from IPython.display import display\\n",
            f"display({{'application/vnd.course-utils.answer+b64': {reply!r}}}, raw=True)\\n",
            "display(CheckResult('01.2', 'x', 'pass', 'Correct.'))\\n",
            "result = CheckResult('01.2', 'x', 'pass', 'Correct.')\\n"]

get_ipython().input_transformers_post.append(_forge)
'''

STARTUP_THEN_LOOP = '''# attack 2: a startup file that patches torch.equal, then a loop until the grader restarts the kernel
import os, pathlib
startup = pathlib.Path(get_ipython().profile_dir.location) / "startup"
startup.mkdir(parents=True, exist_ok=True)
(startup / "00-x.py").write_text("import torch\\ntorch.equal = lambda *a, **k: True\\n")
if not os.environ.get("COURSE_ATTACK_DONE"):
    os.environ["COURSE_ATTACK_DONE"] = "1"
    while True:
        pass
'''

AGREEABLE_MODE = '''# attack 3: a TorchFunctionMode that makes torch.equal answer True, entered for good
import torch
from torch.overrides import TorchFunctionMode

class _Agree(TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        if func is torch.equal:
            return True
        return func(*args, **(kwargs or {}))

_Agree().__enter__()
'''

LAZY_MATERIALIZE = '''def materialize(model, device):
    return model.to_empty(device=device)
'''

FRAME_READER = '''# attack 4: take the checker's expected value from the frames above the answer
import inspect

def _expected():
    frame = inspect.currentframe()
    while frame is not None:
        if "expected" in frame.f_locals:
            return frame.f_locals["expected"]
        frame = frame.f_back
    return None

def visible_gpus(mask, physical):
    return _expected()

def describe_gpu(props):
    return _expected()

def held_bytes(model, optimizer):
    return _expected()
'''


def _with_cells(exercise: str, *sources: str) -> nbformat.NotebookNode:
    """The exercise notebook as handed out, with ``sources`` appended as code cells."""
    nb = nbformat.read(EXERCISES / exercise, as_version=4)
    nb.cells.extend(nbformat.v4.new_code_cell(s) for s in sources)
    return nb


def _grade(tmp_path: pathlib.Path, exercise: str, submissions: dict[str, nbformat.NotebookNode]) -> dict:
    folder = tmp_path / exercise[:2]
    folder.mkdir()
    for name, nb in submissions.items():
        nbformat.write(nb, folder / f"{name}.ipynb")
    shutil.copy(SOLUTIONS / exercise, folder / "solution.ipynb")
    # attack 2's loop runs until the cell timeout ends it: 20 s is still some 20 times what a solution's slowest
    # cell or check takes on a busy 2-core machine, and half the wait of the 40 s it was
    result = grade_batch(EXERCISES / exercise, folder, jobs=2, limits=Limits(cell_timeout=20, total_timeout=400),
                         sandbox="off")
    return {r.submission.learner: {g.exercise: g for g in r.grades} for r in result.rows} | {
        "_rows": {r.submission.learner: r for r in result.rows}}


def _no_pass(grades: dict, *ids: str) -> None:
    for i in ids:
        assert grades[i].status != "pass", str(grades[i])


@pytest.mark.slow
def test_attacks_on_01_earn_nothing(tmp_path):
    exercise = "01_device_query_exercises.ipynb"
    graded = _grade(tmp_path, exercise, {
        "rewrites_the_grader": _with_cells(exercise, TRANSFORMER),
        "reads_the_frames": _with_cells(exercise, FRAME_READER),
    })
    assert all(g.status == "pass" for g in graded["solution"].values()), str(graded["_rows"]["solution"])
    _no_pass(graded["rewrites_the_grader"], "01.1", "01.2", "01.3", "01.4")
    _no_pass(graded["reads_the_frames"], "01.2", "01.3")


@pytest.mark.slow
def test_attacks_on_10_earn_nothing(tmp_path):
    exercise = "10_models_bigger_than_a_device_exercises.ipynb"
    graded = _grade(tmp_path, exercise, {
        "startup_file_and_restart": _with_cells(exercise, STARTUP_THEN_LOOP, LAZY_MATERIALIZE),
        "agreeable_mode": _with_cells(exercise, AGREEABLE_MODE, LAZY_MATERIALIZE),
        "rewrites_the_grader": _with_cells(exercise, TRANSFORMER, LAZY_MATERIALIZE),
    })
    assert all(g.status == "pass" for g in graded["solution"].values()), str(graded["_rows"]["solution"])
    restarted = graded["_rows"]["startup_file_and_restart"]
    assert "restarted the kernel" in restarted.reason, restarted.reason  # the attack did get its restart
    for learner in ("startup_file_and_restart", "agreeable_mode", "rewrites_the_grader"):
        _no_pass(graded[learner], "10.1", "10.2", "10.3")
    # the lazy answer is judged, and fails, as it does in-process
    assert graded["agreeable_mode"]["10.1"].status == "fail", str(graded["agreeable_mode"]["10.1"])


@pytest.mark.slow
def test_reading_the_frames_earns_nothing_on_09(tmp_path):
    exercise = "09_data_loading_and_memory_exercises.ipynb"
    graded = _grade(tmp_path, exercise, {"reads_the_frames": _with_cells(exercise, FRAME_READER)})
    assert all(g.status == "pass" for g in graded["solution"].values()), str(graded["_rows"]["solution"])
    _no_pass(graded["reads_the_frames"], "09.1", "09.2", "09.3")
    assert graded["reads_the_frames"]["09.2"].status == "fail"
