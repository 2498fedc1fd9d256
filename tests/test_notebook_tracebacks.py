"""Every deliberate error of a lesson reads as a lesson: its message within the first 15 lines (issue 22, item 2).

The rule runs on nbval's own execution of each lesson (the root ``conftest.py``, ``pytest_runtest_makereport``):
the error output of every cell tagged ``raises-exception`` is measured the way JupyterLab shows it, the traceback
list joined by newlines, ANSI colour codes stripped, and the ``ExceptionType: message`` line must be among the
first 15. ``%load_ext course_utils.tracebacks`` in the lesson's imports cell is what makes it so (the frames
inside torch folded into one line). Here, the measure itself, on errors raised for the purpose: a test that
can fail, without running the lessons a second time.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
import torch
from IPython.core.interactiveshell import InteractiveShell

# the root conftest.py holds the rule (tests/conftest.py is another module of the same name)
_spec = importlib.util.spec_from_file_location("course_root_conftest", Path(__file__).resolve().parents[1] / "conftest.py")
_rule = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_rule)
TRACEBACK_LINES, lines_to_message = _rule.TRACEBACK_LINES, _rule.lines_to_message


def _error_output(code: str, fold: bool) -> dict:
    """The error output a kernel would send for ``code`` (what IPython hands ``_showtraceback``, the hook
    ipykernel overrides), with or without the course's traceback folding."""
    shell = InteractiveShell.instance()  # cleared below, as the other shell tests' fixtures do: no settings leak
    shell.colors = "Linux"  # ANSI colours, as a Jupyter kernel sends them
    shell.user_ns["torch"] = torch
    sent = {}
    shell._showtraceback = lambda etype, value, stb: sent.update(ename=etype.__name__, traceback=stb)
    try:
        if fold:
            shell.run_line_magic("load_ext", "course_utils.tracebacks")
        shell.run_cell(code)
    finally:
        if fold:
            shell.run_line_magic("unload_ext", "course_utils.tracebacks")
        InteractiveShell.clear_instance()
    assert sent, "the cell raised nothing"
    return sent


def test_the_measure_finds_the_message_line():
    output = {
        "ename": "RuntimeError",
        "traceback": ["\x1b[0;31m---\x1b[0m", "Traceback (most recent call last)", "  frame", "RuntimeError: Expected all tensors"],
    }
    assert lines_to_message(output) == 4
    assert lines_to_message({"ename": "ValueError", "traceback": ["no message here"]}) is None
    assert lines_to_message({"ename": "OutOfMemoryError", "traceback": ["torch.OutOfMemoryError: CUDA"]}) == 1


@pytest.mark.parametrize("fold", [True, False])
def test_a_cross_device_error_deep_in_torch(fold):
    """The deliberate error the lessons show most, raised through a module stack: within the limit when folded."""
    code = "model = torch.nn.Sequential(*[torch.nn.Sequential(torch.nn.Linear(2, 2)) for _ in range(3)])\nmodel.to('meta')(torch.ones(1, 2))"
    at = lines_to_message(_error_output(code, fold))
    assert at is not None
    assert (at <= TRACEBACK_LINES) is fold, at  # unfolded, torch's frames push it down: the rule can fail
