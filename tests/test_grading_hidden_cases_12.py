"""Issue 38's replay and lookup attacks on set 12, against real kernels under ``--sandbox require``.

As ``test_grading_hidden_cases_02_05`` does for 02 to 05: the solution is graded alone while every reply its
kernel sends is recorded (that run gives it full marks); then a class is graded: a notebook with no answer
code that plays the recorded replies back, keyed by the request (``keyed_replay``), and a notebook of answers that
look up the public tables (12.1 by nvidia-smi's rows and the bus id, 12.2 by the GPU's name, 12.3 by the GPU
count): 0 marks. The control grades the same attacks with the draws switched off, where they earn every mark, so
that what fails them above is the drawn cases. Slow (real kernels, bubblewrap).
"""

from __future__ import annotations

import nbformat
import pytest
from grading_fixtures import sandbox_mark
from keyed_replay import EXERCISES, draws_off, grade, recorded_replies, replay_notebook

NOTEBOOK = "12_which_gpu_which_build_exercises.ipynb"
IDS = ("12.1", "12.2", "12.3")

pytestmark = [pytest.mark.slow, sandbox_mark()]

LOOKUP_12 = """# table lookup: the public rows, keyed by what the answer is given or what torch says
import torch
from course_utils.checks import nb12

_ENVS = {(repr(nb12.smi_rows(server)), bus): {"CUDA_VISIBLE_DEVICES": next(g.uuid for g in server.gpus
                                                                         if g.pci_bus_id == bus)}
         for server, bus in nb12.SERVERS}
_BY_NAME = {m.build.gpu_name: want for m, want in (*nb12.KERNEL_MACHINES, *nb12.KERNEL_MACHINES_ALWAYS) if m.cuda}
_BY_COUNT = {m.cuda: want for m, want in nb12.PLATFORM_MACHINES if m.cuda}

def cuda_env(rows, bus_id):
    return _ENVS.get((repr(rows), bus_id), {"CUDA_VISIBLE_DEVICES": "0"})

def gpu_has_kernels():
    return torch.cuda.is_available() and _BY_NAME.get(torch.cuda.get_device_name(0), True)

def which_platform():
    if torch.cuda.is_available():
        return _BY_COUNT.get(torch.cuda.device_count(), ("cuda", "cuda"))
    if torch.xpu.is_available():
        return ("xpu", "xpu")
    return ("mps", "mps") if torch.backends.mps.is_available() else ("cpu", "cpu")
"""


def _class(tmp_path, monkeypatch) -> dict[str, dict[str, str]]:
    """Record the solution's replies (that run earns it every mark), then grade the keyed replay and the lookups
    in one batch."""
    replies = recorded_replies(tmp_path / "record", NOTEBOOK, monkeypatch)
    assert set(replies) == {"cuda_env", "gpu_has_kernels", "which_platform"}
    folder = tmp_path / "class"
    folder.mkdir()
    nbformat.write(replay_notebook(NOTEBOOK, replies), folder / "replays.ipynb")
    nb = nbformat.read(EXERCISES / NOTEBOOK, as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell(LOOKUP_12))
    nbformat.write(nb, folder / "lookups.ipynb")
    return grade(NOTEBOOK, folder)


def test_replays_and_lookups_earn_nothing_and_the_solution_everything(tmp_path, monkeypatch):
    graded = _class(tmp_path, monkeypatch)
    assert not any(s == "pass" for s in graded["replays"].values()), graded["replays"]
    assert not any(graded["lookups"][id] == "pass" for id in IDS), graded["lookups"]


def test_with_the_draws_switched_off_the_same_replay_and_lookups_earn_every_mark(tmp_path, monkeypatch):
    """The control: on the public cases the attacks work, so the test above can fail."""
    with draws_off(monkeypatch):
        graded = _class(tmp_path, monkeypatch)
    assert all(graded["replays"][id] == "pass" for id in IDS), graded["replays"]
    assert all(graded["lookups"][id] == "pass" for id in IDS), graded["lookups"]
