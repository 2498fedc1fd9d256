"""Issue 38's replay and lookup against sets 06, 08 and 11, and the smarter replays of 09 and 10, with real
kernels under ``--sandbox require``: 0 marks, while the solution keeps full marks (in the run that records its
replies, or in the same batch).

- **replay** (06, 08, 11): replies recorded while the public solution is graded, played back byte for byte by a
  notebook with no answer code (``keyed_replay.COUNTED_REPLAY``): the simplest replay, each request answered with
  the next recorded reply, kept as a control of the weakest attacker.
- **lookup** (06, 08, 11), the replay that would earn marks: answers that return what the solution answered to
  the same arguments on the public cases (a record made here, pickled into the notebook), 06.1's medians of the
  public table in order, and a 06.2 answer that fills the buffers and writes on the simulated device what right
  copies would leave. With the rules of these sets taken out of ``hidden_cases.RULES`` it earned 06.1, 06.3,
  06.4, 08.1 to 08.4, 11.1 and 11.2 (06.2 still failed: the submitted file shows no non-blocking ``copy_``).
- **smarter replay** (09, 10): 09.1 walks the public batch's shape (``nb09._nested``, importable in the kernel)
  whatever batch it is given; 10.1 copies in the values of the public models built from the public seed.

The in-process versions of these attacks, passing the practice check and failing the judging, are in
``tests/test_hidden_cases_later_sets.py``. Slow (real kernels, bubblewrap).
"""

from __future__ import annotations

import base64
import pathlib
import pickle
import shutil
import tempfile

import nbformat
import pytest
from grading_fixtures import sandbox_mark
from hidden_case_support import solution_namespace
from keyed_replay import COUNTED_REPLAY as REPLAY
from test_hidden_cases_later_sets import FORGED_06_2, PURE, SHAPE_REPLAY_09, VALUES_REPLAY_10, _Recorder
from test_source_rules import PEEK_06_1

import course_grader.runner as runner
from course_grader import BatchSettings, Limits, grade_batch
from course_utils.checks._core import get_exercise, run_checker

ROOT = pathlib.Path(__file__).resolve().parents[1]
EXERCISES, SOLUTIONS = ROOT / "exercises", ROOT / "solutions"
SETS = {
    "06": "06_transfers_and_timing_exercises.ipynb",
    "08": "08_one_process_per_device_exercises.ipynb",
    "09": "09_data_loading_and_memory_exercises.ipynb",
    "10": "10_models_bigger_than_a_device_exercises.ipynb",
    "11": "11_device_in_the_rest_of_your_code_exercises.ipynb",
}

pytestmark = [pytest.mark.slow, sandbox_mark()]

LOOKUP = """# lookup: what the solution answered to the same arguments on the public cases
import base64, pickle, statistics
import torch
from course_utils.checks import nb06

_RECORD = pickle.loads(base64.b64decode(RECORD_HERE))

def _look(name, args):
    kind, value = _RECORD[name].get(repr(args), ("value", None))
    if kind == "raise":
        raise ValueError(value)
    return value

_MEDIANS = iter([statistics.median([d[i % len(d)] for i in range(r)]) for d, _, r in (*nb06.TIMING_CASES, *nb06.TIMING_ALWAYS)])

def time_per_call(op, clock, synchronize, repeats=5):  # the medians practice asks for, in its order
    return next(_MEDIANS, 0.0)
"""


def _grade(folder: pathlib.Path, number: str) -> dict:
    # the sandbox's kernel sockets live in the scratch folder, whose path has a length limit: keep it short
    scratch = pathlib.Path(tempfile.mkdtemp(prefix="cg-", dir="/tmp"))
    saved, tempfile.tempdir = tempfile.tempdir, str(scratch)
    try:
        result = grade_batch(
            EXERCISES / SETS[number], folder, BatchSettings(jobs=2, limits=Limits(cell_timeout=40, total_timeout=400), sandbox="require")
        )
    finally:
        tempfile.tempdir = saved
        shutil.rmtree(scratch, ignore_errors=True)
    return {r.submission.learner: {g.exercise: g.status for g in r.grades} for r in result.rows}


def _recorded_replies(tmp_path: pathlib.Path, number: str, monkeypatch) -> list[str]:
    """Grade the solution alone, keeping every reply its kernel sent, in order (the attacker's recording)."""
    folder = tmp_path / f"record{number}"
    folder.mkdir()
    shutil.copy(SOLUTIONS / SETS[number], folder / "solution.ipynb")
    replies: list[str] = []
    read = runner.reply_of

    def recording(outputs):
        data = read(outputs)
        replies.append(base64.b64encode(data).decode("ascii"))
        return data

    with monkeypatch.context() as patch:
        patch.setattr(runner, "reply_of", recording)
        graded = _grade(folder, number)
    assert all(s == "pass" for s in graded["solution"].values()), graded
    return replies


def _lookup_cell(number: str) -> str:
    """The lookup notebook's last cell: a record of the solution's answers to the public cases of the set."""
    solution, record = solution_namespace(number), {}
    for id in (i for i in PURE if i.startswith(number)):
        recorder = _Recorder(solution[get_exercise(id).function])
        assert run_checker(get_exercise(id), recorder).passed
        record[recorder.__name__] = recorder.by_args
    cell = LOOKUP.replace("RECORD_HERE", repr(base64.b64encode(pickle.dumps(record)).decode("ascii")))
    # each answer defined by name in the cell, so the grader judges it after this cell (course_grader.plan.binds)
    cell += "".join(f"\ndef {name}(*args):\n    return _look({name!r}, args)\n" for name in record)
    return cell + ("\n" + FORGED_06_2 if number == "06" else "")


def _with_cell(number: str, source: str, at: int | None = None) -> nbformat.NotebookNode:
    nb = nbformat.read(EXERCISES / SETS[number], as_version=4)
    cell = nbformat.v4.new_code_cell(source)
    nb.cells.insert(at, cell) if at is not None else nb.cells.append(cell)
    return nb


@pytest.mark.parametrize("number", ["06", "08", "11"])
def test_replay_and_lookup_earn_nothing_and_the_solution_everything(tmp_path, number, monkeypatch):
    replies = _recorded_replies(tmp_path, number, monkeypatch)  # the solution's run: it earns every mark
    folder = tmp_path / f"class{number}"
    folder.mkdir()
    # at the top: the grader judges each exercise right after the cell that defines it (here, the stub's)
    nbformat.write(_with_cell(number, REPLAY.replace("REPLIES_HERE", repr(replies)), at=1), folder / "replays.ipynb")
    nbformat.write(_with_cell(number, _lookup_cell(number)), folder / "lookup.ipynb")
    graded = _grade(folder, number)
    assert not any(s == "pass" for s in graded["replays"].values()), graded["replays"]
    assert not any(s == "pass" for s in graded["lookup"].values()), graded["lookup"]


def test_smarter_replays_of_09_and_10_earn_nothing_and_the_solution_everything(tmp_path):
    for number, attack, hit in (
        ("09", SHAPE_REPLAY_09, "09.1"),
        ("10", VALUES_REPLAY_10, "10.1"),
        ("06", PEEK_06_1, "06.1"),
    ):  # reads op's closure: the grader's reading of the file
        folder = tmp_path / f"class{number}"
        folder.mkdir()
        shutil.copy(SOLUTIONS / SETS[number], folder / "solution.ipynb")
        nbformat.write(_with_cell(number, attack), folder / "smarter.ipynb")
        graded = _grade(folder, number)
        assert graded["solution"] and all(s == "pass" for s in graded["solution"].values()), graded["solution"]
        assert graded["smarter"][hit] != "pass", graded["smarter"]
