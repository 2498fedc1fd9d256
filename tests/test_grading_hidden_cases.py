"""Issue 38's attacks on the boundary itself, against real kernels under ``--sandbox require``: 0 marks.

A class that has read the course attacked 01, 09 and 10 (items 1 to 3 and 7 of issue 38):

- **replay**: replies recorded while the public solution is graded, played back in a second run by a
  notebook with no answer code that answers each request with the recorded reply to the same request
  (``keyed_replay``: keyed by the function's name and its call's number, as the grader asks them);
- **table lookup**: answers that return the public tables' rows (``checks.nb01.VISIBLE_CASES``,
  ``FAKE_GPUS``) or import the judge's drawn cases (``course_grader.hidden_cases``: not staged);
- **reading the request**: answers that read the simulated machine (``active_machine()``, or the request their
  kernel receives) instead of torch.cuda / torch.backends.mps;
- **lying after-state**: a 10.1 answer that empties the model in place; a 09.1 answer that moves without
  non_blocking, rewrites the instrument's log the judge gets back and holds the call in dead code;
- **the course's own tool**: 09.2 answered with ``course_utils.memory.storage_bytes`` (its numbers are right).

The solution's own run, which records the replies, must earn every mark. Slow (real kernels, bubblewrap).

With the draws switched off (``hidden_cases.RULES`` emptied for the run) the keyed replay earns every exercise
of the three sets (the control), 09.1 included: the grader reads the notebook's file for a
``.to(..., non_blocking=True)`` that ``to_device`` can reach (``course_grader.source_rules``), and the replay's
cell holds a decoy ``to_device`` whose call sits behind a condition false at run time. With the draws on it earns
nothing: every exercise of the three sets draws its cases (09.2, 09.3, 10.2 and 10.3 were the last to, and the
replay earned them before). The replay this test used before counted cells; IPython transforms a cell more than
once, so it drifted and failed even on the public cases, which hid those four.
"""

from __future__ import annotations

import nbformat
import pytest
from grading_fixtures import sandbox_mark
from keyed_replay import EXERCISES, draws_off, grade, recorded_replies, replay_notebook
from test_hidden_cases import LIAR_09
from test_source_rules import HELPER_09_2

from course_grader.hidden_cases import RULES
from course_utils.checks import all_exercises

SETS = {
    "01": "01_device_query_exercises.ipynb",
    "09": "09_data_loading_and_memory_exercises.ipynb",
    "10": "10_models_bigger_than_a_device_exercises.ipynb",
}

pytestmark = [pytest.mark.slow, sandbox_mark()]

LOOKUP_01 = """# table lookup: the public rows, or the judge's own drawn cases if they can be imported
from course_utils.checks import nb01
from course_utils.checks.machines import active_machine
import torch

try:
    from course_grader.hidden_cases.nb01 import seen as _seen
except ImportError:
    _seen = None

_ROWS = {(m, p): e for m, p, e in (*nb01.VISIBLE_CASES, *nb01.VISIBLE_ALWAYS)}
_GPUS = {props.name: text for props, text in (*nb01.FAKE_GPUS, *nb01.FAKE_GPUS_ALWAYS)}

def visible_gpus(mask, physical):
    return _seen(mask, physical) if _seen else _ROWS.get((mask, physical), [])

def describe_gpu(props):
    return _GPUS.get(props.name, "")

def best_device():  # reading the request: the simulated machine instead of torch.cuda
    m = active_machine()
    return torch.device("cpu" if m is None else "cuda" if m.cuda else "mps" if m.mps else "cpu")

def current_cuda_index():
    m = active_machine()
    return None if m is None or not m.cuda else m.current
"""

# reading the request itself: the kernel's serve wrapped, so that the answers take the simulated machine from the
# request they are called for, not from torch.cuda / torch.backends.mps (issue 38, item 3). The request names no
# machine now (course_grader.boundary.AskedMachine): before, this earned 01.1 and 01.4 on every draw.
REQUEST_READER_01 = """import pickle as _pickle
import course_grader.boundary as _boundary
import torch

_serve, _seen = _boundary.serve, {}

def _reading(request, namespace, *rest):
    _seen["machine"] = _pickle.loads(request)["ambient"].machine
    return _serve(request, namespace, *rest)

_boundary.serve = _reading

def best_device():
    m = _seen.get("machine")
    return torch.device("cuda" if getattr(m, "cuda", 0) else "mps" if getattr(m, "mps", False) else "cpu")

def current_cuda_index():
    m = _seen.get("machine")
    return m.current if getattr(m, "cuda", 0) else None
"""

EMPTIES_10 = """# lying after-state: the model emptied in place, so nothing is left on meta
def materialize(model, device):
    for module in model.modules():
        module._parameters.clear()
        module._buffers.clear()
    return model
"""

# 09: the liar also parks the call the grader reads the file for where it never runs, and 09.2 is answered by the
# course's own storage_bytes (right numbers: only the grader's reading of the file stops it)
DEAD_CODE_LIAR_09 = LIAR_09.replace("    return moved\n", "    return moved\n    batch.to(device, non_blocking=True)\n")
ATTACKS = {"01": LOOKUP_01, "09": DEAD_CODE_LIAR_09 + "\n" + HELPER_09_2, "10": EMPTIES_10}
HIT = {"01": ("01.1", "01.2", "01.3", "01.4"), "09": ("09.1", "09.2"), "10": ("10.1",)}  # what the attacks aim at
IDS = {number: {id for id in all_exercises() if id[:2] == number} for number in SETS}


def _class(tmp_path, number: str, monkeypatch) -> dict[str, dict[str, str]]:
    """Record the solution's replies (that run earns it every mark), then grade the keyed replay and the attacks
    in one batch."""
    replies = recorded_replies(tmp_path / f"record{number}", SETS[number], monkeypatch)
    assert replies
    folder = tmp_path / f"class{number}"
    folder.mkdir()
    nbformat.write(replay_notebook(SETS[number], replies), folder / "replays.ipynb")
    nb = nbformat.read(EXERCISES / SETS[number], as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell(ATTACKS[number]))
    nbformat.write(nb, folder / "attacks.ipynb")
    if number == "01":
        nb = nbformat.read(EXERCISES / SETS[number], as_version=4)
        nb.cells.append(nbformat.v4.new_code_cell(REQUEST_READER_01))
        nbformat.write(nb, folder / "reader.ipynb")
    return grade(SETS[number], folder)


@pytest.mark.parametrize("number", sorted(SETS))
def test_attacks_earn_nothing_and_the_solution_everything(tmp_path, number, monkeypatch):
    assert IDS[number] <= set(RULES)  # every exercise of the set draws its cases
    graded = _class(tmp_path, number, monkeypatch)
    assert set(graded["replays"]) == IDS[number] and "pass" not in graded["replays"].values(), graded["replays"]
    assert not any(graded["attacks"][i] == "pass" for i in HIT[number]), graded["attacks"]
    if number == "01":
        assert graded["reader"]["01.1"] != "pass" and graded["reader"]["01.4"] != "pass", graded["reader"]


@pytest.mark.parametrize("number", sorted(SETS))
def test_with_the_draws_switched_off_the_keyed_replay_earns_marks(tmp_path, number, monkeypatch):
    """The control: on the public cases the same replay earns every mark of the set, so the test above can fail."""
    with draws_off(monkeypatch):
        graded = _class(tmp_path, number, monkeypatch)
    earned = {id for id, s in graded["replays"].items() if s == "pass"}
    assert earned == IDS[number], graded["replays"]
