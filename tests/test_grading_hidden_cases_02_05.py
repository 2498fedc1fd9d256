"""Issue 38's replay and lookup attacks on sets 02 to 05, against real kernels under ``--sandbox require``.

As ``test_grading_hidden_cases`` does for 01, 09 and 10: the solution is graded alone while every reply its
kernel sends is recorded (that run gives it full marks); then a class is graded: a notebook with no
answer code that plays the recorded replies back, keyed by the request (``keyed_replay``), and, for 03 to
05, a notebook of answers that look up the public tables or lie about what they left (0 marks on the
exercises they aim at). Every exercise of these sets draws its cases but 04.1, whose ``predictions()`` takes
no argument: the replay earns that one, as typing the eight numbers would. With the draws switched off the same
replay earns every exercise (the control). Slow (real kernels, bubblewrap).
"""

from __future__ import annotations

import nbformat
import pytest
from grading_fixtures import sandbox_mark
from keyed_replay import EXERCISES, draws_off, grade, recorded_replies, replay_notebook

from course_utils.checks import all_exercises

SETS = {
    "02": "02_tensor_placement_exercises.ipynb",
    "03": "03_model_placement_exercises.ipynb",
    "04": "04_current_device_exercises.ipynb",
    "05": "05_error_clinic_exercises.ipynb",
}
UNDRAWN = {"04.1"}  # its question is the lesson's listing: nothing to draw

pytestmark = [pytest.mark.slow, sandbox_mark()]

LOOKUP_03 = """# lying after-state: the parameters swapped to sit beside the optimizer's state, which stays where it was
import torch
from torch import nn

def match_state_to_params(optimizer):
    for group in optimizer.param_groups:
        for p in group["params"]:
            held = next((v for k, v in optimizer.state[p].items() if k != "step"), None)
            if held is not None and (p.device, p.dtype) != (held.device, held.dtype):
                torch.utils.swap_tensors(p, nn.Parameter(torch.zeros(p.shape, device=held.device, dtype=held.dtype)))
"""

LOOKUP_04 = """# table lookup: the public rows, keyed by their arguments
from course_utils.checks import nb04
from course_utils.checks.nb04 import simulate_cases

_PROGRAMS = {(start, repr([tuple(s) for s in program])): list(after) for start, program, after in simulate_cases()}
_LANDINGS = {(repr(spec), current): lands for spec, current, lands in nb04.LANDING_CASES}

def simulate(start, program):
    return _PROGRAMS.get((start, repr(list(program))), [start] * len(program))

def landing_device(spec, current):
    return _LANDINGS.get((repr(spec), current), "cpu")
"""

LOOKUP_05 = """# table lookup: the public rows, keyed by their arguments
from course_utils.checks import nb05

_FIXES = dict(nb05.MESSAGES)
_INDEX = {(repr(table), repr(index)): where for table, index, where in nb05.INDEX_CASES}

def fix_for(message):
    return _FIXES.get(message, "not-a-device-error")

def index_device(table_device, index_device):
    return _INDEX.get((repr(table_device), repr(index_device)), "cpu")
"""

ATTACKS = {"03": (LOOKUP_03, ("03.4",)), "04": (LOOKUP_04, ("04.2", "04.3")), "05": (LOOKUP_05, ("05.1", "05.3"))}


@pytest.mark.parametrize("number", sorted(SETS))
def test_replays_and_lookups_earn_nothing_and_the_solution_everything(tmp_path, number, monkeypatch):
    replies = recorded_replies(tmp_path / f"record{number}", SETS[number], monkeypatch)  # the solution earns every mark
    assert replies
    folder = tmp_path / f"class{number}"
    folder.mkdir()
    nbformat.write(replay_notebook(SETS[number], replies), folder / "replays.ipynb")
    attack, hit = ATTACKS.get(number, (None, ()))
    if attack:
        nb = nbformat.read(EXERCISES / SETS[number], as_version=4)
        nb.cells.append(nbformat.v4.new_code_cell(attack))
        nbformat.write(nb, folder / "attacks.ipynb")
    graded = grade(SETS[number], folder)
    earned = {id for id, s in graded["replays"].items() if s == "pass"}
    assert earned <= UNDRAWN, graded["replays"]
    if attack:
        assert not any(graded["attacks"][id] == "pass" for id in hit), graded["attacks"]


@pytest.mark.parametrize("number", sorted(SETS))
def test_with_the_draws_switched_off_the_keyed_replay_earns_every_mark(tmp_path, number, monkeypatch):
    """The control: on the public cases (``hidden_cases.RULES`` emptied for the run) the same replay earns every
    exercise of the set, so what fails it above is the drawn cases."""
    with draws_off(monkeypatch):
        replies = recorded_replies(tmp_path / f"record{number}", SETS[number], monkeypatch)
        folder = tmp_path / f"class{number}"
        folder.mkdir()
        nbformat.write(replay_notebook(SETS[number], replies), folder / "replays.ipynb")
        graded = grade(SETS[number], folder)
    assert set(graded["replays"]) == {id for id in all_exercises() if id[:2] == number}, graded["replays"]
    assert all(s == "pass" for s in graded["replays"].values()), graded["replays"]
