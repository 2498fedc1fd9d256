"""The replay attack of issue 38 against real kernels, shared by the slow tests of the drawn cases.

An attacker grades the public solution once and keeps every reply its kernel sent, by the function it answered
for (``recorded_replies``); a notebook with no answer code then answers each of the grader's requests with the
recorded reply to the same request (``replay_notebook``): the probe for a name, then that name's calls in order,
read off the request itself. The replay takes the place of ``course_grader.boundary.serve`` in its kernel, which
answers every request there, on course-grade's and nbgrader's paths alike. With the draws switched off
(``draws_off``) this replay earns the marks the recorded run earned: what it fails under drawn cases, it fails
because the questions differ.
"""

from __future__ import annotations

import base64
import contextlib
import pathlib
import shutil
import tempfile

import nbformat

import course_grader.hidden_cases as hidden_cases
import course_grader.runner as runner
from course_grader import BatchSettings, Limits, grade_batch
from course_grader.boundary import load_reply
from course_utils.checks import all_exercises

ROOT = pathlib.Path(__file__).resolve().parents[1]
EXERCISES, SOLUTIONS = ROOT / "exercises", ROOT / "solutions"

REPLAY = """# replay, keyed: each request is answered with the reply the solution's run gave to the same request
# (the probe for a name, then its calls in order), read off the request the grader sends
import base64 as _b64, pickle as _pickle
import course_grader.boundary as _boundary
REPLIES = REPLIES_HERE
_calls = {}

def _replay(request, namespace):
    request = _pickle.loads(request)
    replies = REPLIES.get(request["name"], [""])
    if request["kind"] == "probe":
        return _b64.b64decode(replies[0])
    _calls[request["name"]] = _calls.get(request["name"], 0) + 1
    return _b64.b64decode(replies[min(_calls[request["name"]], len(replies) - 1)])

_boundary.serve = _replay  # what answers each request in this kernel, looked up at each one
"""

# The simplest replay: every request answered with the next recorded reply, whatever it asks: a control of the
# weakest attacker only (tests/test_grading_hidden_cases_later_sets.py), never evidence that a replay fails.
COUNTED_REPLAY = """# replay: answer every request of the grader with the reply a solution's run gave, in order
import base64 as _b64
import course_grader.boundary as _boundary
REPLIES = REPLIES_HERE
_next = [0]

def _replay(request, namespace):
    reply = REPLIES[min(_next[0], len(REPLIES) - 1)]
    _next[0] += 1
    return _b64.b64decode(reply)

_boundary.serve = _replay  # what answers each request in this kernel, looked up at each one
"""


def grade(notebook: str, folder: pathlib.Path) -> dict[str, dict[str, str]]:
    """``course-grade`` of every notebook in ``folder`` against ``exercises/notebook``, under ``--sandbox require``:
    learner -> exercise -> status."""
    # the sandbox's kernel sockets live in the scratch folder, whose path has a length limit: keep it short
    scratch = pathlib.Path(tempfile.mkdtemp(prefix="cg-", dir="/tmp"))
    saved, tempfile.tempdir = tempfile.tempdir, str(scratch)
    try:
        result = grade_batch(
            EXERCISES / notebook, folder, BatchSettings(jobs=2, limits=Limits(cell_timeout=60, total_timeout=500), sandbox="require")
        )
    finally:
        tempfile.tempdir = saved
        shutil.rmtree(scratch, ignore_errors=True)
    return {r.submission.learner: {g.exercise: g.status for g in r.grades} for r in result.rows}


def recorded_replies(folder: pathlib.Path, notebook: str, monkeypatch) -> dict[str, list[str]]:
    """Grade the solution alone in ``folder``, keeping every reply its kernel sent, by the function it answered for:
    its probe's, then its calls' in order (the attacker's recording). The solution must earn every mark."""
    folder.mkdir()
    shutil.copy(SOLUTIONS / notebook, folder / "solution.ipynb")
    replies: list[str] = []
    read = runner.reply_of  # where the grader takes each reply from the kernel's messages, before any judge sees it

    def recording(outputs):
        data = read(outputs)
        replies.append(base64.b64encode(data).decode("ascii"))
        return data

    with monkeypatch.context() as patch:
        patch.setattr(runner, "reply_of", recording)
        graded = grade(notebook, folder)
    assert graded["solution"] and all(s == "pass" for s in graded["solution"].values()), graded
    # the exercises are judged in order, each starting with a probe for its function's name
    number = notebook[:2]
    names = [ex.function for id, ex in sorted(all_exercises().items()) if id[:2] == number]
    starts = [k for k, reply in enumerate(replies) if "probe" in load_reply(base64.b64decode(reply))]
    assert len(starts) == len(names), (len(starts), names)
    return {name: replies[start:end] for name, start, end in zip(names, starts, [*starts[1:], len(replies)])}


# In place of 09.1's stub: a decoy for the grader's reading of the file (course_grader.source_rules), whose call is
# reachable as far as the file shows, behind a condition that is false when it runs
DECOY_09_1 = """def to_device(batch, device):
    if device is None:
        return batch.to(device, non_blocking=True)
    return batch
"""


def replay_notebook(notebook: str, replies: dict[str, list[str]]) -> nbformat.NotebookNode:
    """The exercise notebook, answers untouched (the stubs; 09.1's a decoy), with the replay in a cell at the top:
    the grader judges each exercise right after the cell that defines it."""
    nb = nbformat.read(EXERCISES / notebook, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code" and cell.source.startswith("def to_device("):
            cell.source = DECOY_09_1
    nb.cells.insert(1, nbformat.v4.new_code_cell(REPLAY.replace("REPLIES_HERE", repr(replies))))
    return nb


@contextlib.contextmanager
def draws_off(monkeypatch):
    """For the length of a block, grading runs the public cases: ``hidden_cases.RULES`` is empty (the judges are
    forked from this process, so they see it)."""
    with monkeypatch.context() as patch:
        patch.setattr(hidden_cases, "RULES", {})
        yield
