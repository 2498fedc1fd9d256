"""Issue 38's replay and lookup attacks on sets 02 to 05, against real kernels under ``--sandbox require``.

As ``test_grading_hidden_cases`` does for 01, 09 and 10: the solution is graded alone while every reply its
kernel sends is recorded; then a class is graded: the untouched solution (full marks), a notebook with no
answer code that plays the recorded replies back (``REPLAY``), and, for 03 to 05, a notebook of answers that
look up the public tables or lie about what they left (0 marks on the exercises they aim at). Every exercise
of these sets draws its cases but 04.1, whose ``predictions()`` takes no argument: the replay earns that one,
as typing the eight numbers would. Slow (real kernels, bubblewrap).
"""

from __future__ import annotations

import base64
import pathlib
import shutil
import tempfile

import nbformat
import pytest

import course_grader.runner as runner
from course_grader import Limits, grade_batch
from course_grader.boundary import load_reply
from course_grader.bubblewrap import probe
from course_utils.checks import all_exercises

ROOT = pathlib.Path(__file__).resolve().parents[1]
EXERCISES, SOLUTIONS = ROOT / "exercises", ROOT / "solutions"
SETS = {"02": "02_tensor_placement_exercises.ipynb", "03": "03_model_placement_exercises.ipynb",
        "04": "04_current_device_exercises.ipynb", "05": "05_error_clinic_exercises.ipynb"}
UNDRAWN = {"04.1"}  # its question is the lesson's listing: nothing to draw

SANDBOX = probe("auto")
pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not SANDBOX.sandboxed, reason=f"needs a working bubblewrap: {SANDBOX.reason}")]

REPLAY = '''# replay, keyed: each request is answered with the reply the solution's run gave to the same request
# (the probe for a name, then its calls in order), read off the request the grader sends
import base64 as _b64, pickle as _pickle, re as _re
REPLIES = REPLIES_HERE
_calls, _answered = {}, {}

def _replay(lines):
    text = "".join(lines)
    if "_course_grade_serve" not in text or "_replay" in text:
        return lines
    if text in _answered:  # IPython transforms a cell more than once: the same request, the same reply
        return _answered[text]
    request = _pickle.loads(_b64.b64decode(_re.search(r"_course_grade_serve\\('([^']+)'\\)", text)[1]))
    replies = REPLIES.get(request["name"], [""])
    if request["kind"] == "probe":
        reply = replies[0]
    else:
        _calls[request["name"]] = _calls.get(request["name"], 0) + 1
        reply = replies[min(_calls[request["name"]], len(replies) - 1)]
    _answered[text] = ["from IPython.display import display as _d\\n",
                       "_d(%r, raw=True)\\n" % ({"application/vnd.course-utils.answer+b64": reply},)]
    return _answered[text]

get_ipython().input_transformers_post.append(_replay)
'''

LOOKUP_03 = '''# lying after-state: the parameters swapped to sit beside the optimizer's state, which stays where it was
import torch
from torch import nn

def match_state_to_params(optimizer):
    for group in optimizer.param_groups:
        for p in group["params"]:
            held = next((v for k, v in optimizer.state[p].items() if k != "step"), None)
            if held is not None and (p.device, p.dtype) != (held.device, held.dtype):
                torch.utils.swap_tensors(p, nn.Parameter(torch.zeros(p.shape, device=held.device, dtype=held.dtype)))
'''

LOOKUP_04 = '''# table lookup: the public rows, keyed by their arguments
from course_utils.checks import nb04
from course_utils.checks._cases_nb04 import SIMULATE_CASES

_PROGRAMS = {(start, repr([tuple(s) for s in program])): list(after) for start, program, after in SIMULATE_CASES}
_LANDINGS = {(repr(spec), current): lands for spec, current, lands in nb04.LANDING_CASES}

def simulate(start, program):
    return _PROGRAMS.get((start, repr(list(program))), [start] * len(program))

def landing_device(spec, current):
    return _LANDINGS.get((repr(spec), current), "cpu")
'''

LOOKUP_05 = '''# table lookup: the public rows, keyed by their arguments
from course_utils.checks import nb05

_FIXES = dict(nb05.MESSAGES)
_INDEX = {(repr(table), repr(index)): where for table, index, where in nb05.INDEX_CASES}

def fix_for(message):
    return _FIXES.get(message, "not-a-device-error")

def index_device(table_device, index_device):
    return _INDEX.get((repr(table_device), repr(index_device)), "cpu")
'''

ATTACKS = {"03": (LOOKUP_03, ("03.4",)), "04": (LOOKUP_04, ("04.2", "04.3")), "05": (LOOKUP_05, ("05.1", "05.3"))}


def _grade(folder: pathlib.Path, number: str):
    # the sandbox's kernel sockets live in the scratch folder, whose path has a length limit: keep it short
    scratch = pathlib.Path(tempfile.mkdtemp(prefix="cg-", dir="/tmp"))
    saved, tempfile.tempdir = tempfile.tempdir, str(scratch)
    try:
        result = grade_batch(EXERCISES / SETS[number], folder, jobs=2,
                             limits=Limits(cell_timeout=60, total_timeout=500), sandbox="require")
    finally:
        tempfile.tempdir = saved
        shutil.rmtree(scratch, ignore_errors=True)
    return {r.submission.learner: {g.exercise: g.status for g in r.grades} for r in result.rows}


def _recorded_replies(tmp_path: pathlib.Path, number: str, monkeypatch) -> dict[str, list[str]]:
    """Grade the solution alone, keeping every reply its kernel sent, by the function it answered for: its
    probe's, then its calls' in order (the attacker's recording)."""
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
    # the exercises are judged in order, each starting with a probe for its function's name
    names = [ex.function for id, ex in sorted(all_exercises().items()) if id[:2] == number]
    starts = [k for k, reply in enumerate(replies) if "probe" in load_reply(base64.b64decode(reply))]
    assert len(starts) == len(names), (len(starts), names)
    return {name: replies[start:end] for name, start, end in zip(names, starts, [*starts[1:], len(replies)])}


@pytest.mark.parametrize("number", sorted(SETS))
def test_replays_and_lookups_earn_nothing_and_the_solution_everything(tmp_path, number, monkeypatch):
    replies = _recorded_replies(tmp_path, number, monkeypatch)
    assert replies
    folder = tmp_path / f"class{number}"
    folder.mkdir()
    shutil.copy(SOLUTIONS / SETS[number], folder / "solution.ipynb")
    nb = nbformat.read(EXERCISES / SETS[number], as_version=4)
    # at the top: the grader judges each exercise right after the cell that defines it (here, the stub's)
    nb.cells.insert(1, nbformat.v4.new_code_cell(REPLAY.replace("REPLIES_HERE", repr(replies))))
    nbformat.write(nb, folder / "replays.ipynb")
    attack, hit = ATTACKS.get(number, (None, ()))
    if attack:
        nb = nbformat.read(EXERCISES / SETS[number], as_version=4)
        nb.cells.append(nbformat.v4.new_code_cell(attack))
        nbformat.write(nb, folder / "attacks.ipynb")
    graded = _grade(folder, number)
    assert graded["solution"] and all(s == "pass" for s in graded["solution"].values()), graded["solution"]
    earned = {id for id, s in graded["replays"].items() if s == "pass"}
    assert earned <= UNDRAWN, graded["replays"]
    if attack:
        assert not any(graded["attacks"][id] == "pass" for id in hit), graded["attacks"]
