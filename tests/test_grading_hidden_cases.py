"""Issue 38's attacks on the boundary itself, against real kernels under ``--sandbox require``: 0 marks.

A class that has read the course attacked 01, 09 and 10 (items 1 to 3 and 7 of issue 38):

- **replay**: replies recorded while the public solution is graded, played back in a second run by a
  notebook with no answer code (an ``input_transformers_post`` that answers each request cell with the
  next recorded reply);
- **table lookup**: answers that return the public tables' rows (``checks.nb01.VISIBLE_CASES``,
  ``FAKE_GPUS``) or import the judge's drawn cases (``course_grader.hidden_cases``: not staged);
- **reading the request**: answers that read the simulated machine (``active_machine()``) instead of
  torch.cuda / torch.backends.mps;
- **lying after-state**: a 10.1 answer that empties the model in place; a 09.1 answer that moves without
  non_blocking and rewrites the instrument's log the judge gets back.

Each batch holds the untouched solution too, which must keep full marks. Slow (real kernels, bubblewrap).

With the draws switched off (``hidden_cases.RULES`` emptied), the replay of 01 earns 01.2 and 01.3 and the
lookup earns them too: what holds here is the drawn cases. For 09 and 10 this replay, a reply played back
byte for byte, fails even on the public cases (the objects a reply refers to are numbered by identity in
the judge, which differs between runs); it stands for the simplest replay, not the cleverest.
"""

from __future__ import annotations

import base64
import pathlib
import shutil
import tempfile

import nbformat
import pytest
from test_hidden_cases import LIAR_09

import course_grader.runner as runner
from course_grader import Limits, grade_batch
from course_grader.bubblewrap import probe

ROOT = pathlib.Path(__file__).resolve().parents[1]
EXERCISES, SOLUTIONS = ROOT / "exercises", ROOT / "solutions"
SETS = {"01": "01_device_query_exercises.ipynb", "09": "09_data_loading_and_memory_exercises.ipynb",
        "10": "10_models_bigger_than_a_device_exercises.ipynb"}

SANDBOX = probe("auto")
pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not SANDBOX.sandboxed, reason=f"needs a working bubblewrap: {SANDBOX.reason}")]

REPLAY = '''# replay: answer every request of the grader with the reply a solution's run gave, in order
REPLIES = REPLIES_HERE
_next = [0]

def _replay(lines):
    text = "".join(lines)
    if "_course_grade_serve" not in text or "_replay" in text:
        return lines
    reply = REPLIES[min(_next[0], len(REPLIES) - 1)]
    _next[0] += 1
    return ["from IPython.display import display as _d\\n",
            "_d(%r, raw=True)\\n" % ({"application/vnd.course-utils.answer+b64": reply},)]

get_ipython().input_transformers_post.append(_replay)
'''


LOOKUP_01 = '''# table lookup: the public rows, or the judge's own drawn cases if they can be imported
from course_utils.checks import nb01
from course_utils.checks.machines import active_machine
import torch

try:
    from course_grader.hidden_cases.nb01 import seen as _seen
except ImportError:
    _seen = None

_ROWS = {(m, p): e for m, p, e in nb01.VISIBLE_CASES}
_GPUS = {props.name: text for props, text in nb01.FAKE_GPUS}

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
'''

EMPTIES_10 = '''# lying after-state: the model emptied in place, so nothing is left on meta
def materialize(model, device):
    for module in model.modules():
        module._parameters.clear()
        module._buffers.clear()
    return model
'''


def _grade(folder: pathlib.Path, number: str):
    # the sandbox's kernel sockets live in the scratch folder, whose path has a length limit: keep it short
    scratch = pathlib.Path(tempfile.mkdtemp(prefix="cg-", dir="/tmp"))
    saved, tempfile.tempdir = tempfile.tempdir, str(scratch)
    try:
        result = grade_batch(EXERCISES / SETS[number], folder, jobs=2,
                             limits=Limits(cell_timeout=40, total_timeout=400), sandbox="require")
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
    read = runner.reply_of  # where the grader takes each reply from the kernel's output, before any judge sees it

    def recording(outputs):
        data = read(outputs)
        replies.append(base64.b64encode(data).decode("ascii"))
        return data

    with monkeypatch.context() as patch:
        patch.setattr(runner, "reply_of", recording)
        graded = _grade(folder, number)
    assert all(s == "pass" for s in graded["solution"].values()), graded
    return replies


@pytest.mark.parametrize("number", sorted(SETS))
def test_attacks_earn_nothing_and_the_solution_everything(tmp_path, number, monkeypatch):
    replies = _recorded_replies(tmp_path, number, monkeypatch)
    assert replies
    folder = tmp_path / f"class{number}"
    folder.mkdir()
    shutil.copy(SOLUTIONS / SETS[number], folder / "solution.ipynb")
    nb = nbformat.read(EXERCISES / SETS[number], as_version=4)
    # at the top: the grader judges each exercise right after the cell that defines it (here, the stub's)
    nb.cells.insert(1, nbformat.v4.new_code_cell(REPLAY.replace("REPLIES_HERE", repr(replies))))
    nbformat.write(nb, folder / "replays.ipynb")
    attacks = {"01": LOOKUP_01, "09": LIAR_09, "10": EMPTIES_10}[number]
    nb = nbformat.read(EXERCISES / SETS[number], as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell(attacks))
    nbformat.write(nb, folder / "attacks.ipynb")
    graded = _grade(folder, number)
    assert all(s == "pass" for s in graded["solution"].values()), graded["solution"]
    assert not any(s == "pass" for s in graded["replays"].values()), graded["replays"]
    hit = {"01": ("01.1", "01.2", "01.3", "01.4"), "09": ("09.1",), "10": ("10.1",)}[number]
    assert not any(graded["attacks"][i] == "pass" for i in hit), graded["attacks"]
