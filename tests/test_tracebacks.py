"""tracebacks: the frames inside torch folded into one line, in a real IPython shell (issue 22, item 2)."""

import os
import re
import sys

import pytest

from course_utils import tracebacks
from course_utils.tracebacks import hidden_note, inside_torch, shorten, torch_folder

ANSI = re.compile(r"\x1b\[[0-9;]*m")
MESSAGE = "RuntimeError: Tensor on device cpu is not on the expected device meta!"


# --------------------------------------------------------------------------- the filter, on a synthetic traceback


def _deep_traceback(folder: str, depth: int):
    """A traceback: this test's frame, then ``depth`` frames whose code claims to live in ``folder``, then a raise."""
    source = "def dive(n):\n    if n == 0:\n        raise RuntimeError('deep inside')\n    return dive(n - 1)\n"
    namespace: dict = {}
    exec(compile(source, os.path.join(folder, "_prims_common", "fake.py"), "exec"), namespace)
    try:
        namespace["dive"](depth - 1)
    except RuntimeError as exc:
        return exc.__traceback__
    raise AssertionError("dive did not raise")


def _files(tb):
    names = []
    while tb is not None:
        names.append(tb.tb_frame.f_code.co_filename)
        tb = tb.tb_next
    return names


def test_shorten_keeps_the_callers_frames_and_counts_the_hidden_ones():
    tb = _deep_traceback("/fake/site-packages/torch/", 20)
    assert len(_files(tb)) == 21  # this test's frame, then 20 "torch" frames
    short, hidden = shorten(tb, hide=lambda f: f.startswith("/fake/site-packages/torch/"))
    assert hidden == 20 and _files(short) == [__file__]
    assert short.tb_lineno == tb.tb_lineno and short.tb_frame is tb.tb_frame
    assert len(_files(tb)) == 21  # the original is left as it was


def test_shorten_hides_the_installed_torch_folder_by_default():
    folder = torch_folder()
    assert folder and folder.endswith(os.sep) and os.path.isfile(os.path.join(folder, "__init__.py"))
    short, hidden = shorten(_deep_traceback(folder, 11))
    assert hidden == 11 and _files(short) == [__file__]
    assert not inside_torch(__file__) and inside_torch(os.path.join(folder, "nn", "modules", "linear.py"))
    # a sibling package whose name starts with "torch" is not torch
    assert not inside_torch(folder.rstrip(os.sep) + "vision" + os.sep + "ops.py")


def test_shorten_without_hidden_frames_keeps_every_frame():
    tb = _deep_traceback("/elsewhere/", 3)
    short, hidden = shorten(tb, hide=lambda f: False)
    assert hidden == 0 and _files(short) == _files(tb)


def test_the_note_names_the_count_and_the_way_back():
    assert hidden_note(1) == "... 1 frame inside torch hidden: run %tb for the full traceback"
    assert hidden_note(14) == "... 14 frames inside torch hidden: run %tb for the full traceback"


# --------------------------------------------------------------------------- a real meta error, in a real shell


@pytest.fixture
def shell():
    from IPython.core.interactiveshell import InteractiveShell

    ip = InteractiveShell.instance()
    ip.run_cell("import torch\nm = torch.ones(3, device='meta')\nc = torch.ones(3)", store_history=False)
    yield ip
    InteractiveShell.clear_instance()


def run(shell, capsys, code):
    capsys.readouterr()
    result = shell.run_cell(code, store_history=False)
    return result, ANSI.sub("", capsys.readouterr().out)


def lines_to(out: str, message: str) -> int:
    """How many lines the output runs, from its start, down to and including ``message``'s line."""
    lines = out.splitlines()
    return next(i for i, line in enumerate(lines, 1) if line.startswith(message))


def test_meta_error_shows_the_message_within_a_few_lines(shell, capsys):
    _, full = run(shell, capsys, "m + c")
    assert "_prims_common" in full and lines_to(full, MESSAGE) > 50  # what a learner sees without the extension
    shell.run_line_magic("load_ext", "course_utils.tracebacks")
    try:
        result, short = run(shell, capsys, "m + c")
        assert isinstance(result.error_in_exec, RuntimeError)
        assert lines_to(short, MESSAGE) <= 15, short
        assert "----> 1 m + c" in short  # the learner's line stays
        assert "site-packages" not in short and "_prims_common" not in short
        hidden = int(re.search(r"\.\.\. (\d+) frames inside torch hidden: run %tb for the full traceback", short)[1])
        assert hidden == full.count("File ") and hidden >= 5
        # %tb shows the whole original traceback
        _, again = run(shell, capsys, "%tb")
        assert "_prims_common" in again and again.count("File ") == hidden and MESSAGE in again
        assert len(_files(sys.last_traceback)) == len(_files(result.error_in_exec.__traceback__))
    finally:
        shell.run_line_magic("unload_ext", "course_utils.tracebacks")


def test_module_error_hides_nn_module_frames(shell, capsys):
    shell.run_line_magic("load_ext", "course_utils.tracebacks")
    try:
        _, out = run(shell, capsys, "torch.nn.Linear(3, 1, device='meta')(torch.rand(2, 3))")
    finally:
        shell.run_line_magic("unload_ext", "course_utils.tracebacks")
    assert lines_to(out, "RuntimeError: Tensor on device meta is not on the expected device cpu!") <= 15, out
    assert "module.py" not in out


def test_chained_exceptions_keep_each_message_and_their_own_notes(shell, capsys):
    shell.run_line_magic("load_ext", "course_utils.tracebacks")
    try:
        _, out = run(shell, capsys, "try:\n    m + c\nexcept RuntimeError as e:\n    raise ValueError('wrapped') from e")
    finally:
        shell.run_line_magic("unload_ext", "course_utils.tracebacks")
    lines = out.splitlines()
    cause, wrapper = lines.index(MESSAGE), lines.index("ValueError: wrapped")
    assert cause < wrapper and "direct cause" in out
    assert lines[cause - 1].startswith("... ") and "frames inside torch hidden" in lines[cause - 1]
    assert out.count("inside torch hidden") == 1  # the ValueError itself was raised in the cell
    assert "_prims_common" not in out


def test_errors_outside_torch_look_exactly_as_before(shell, capsys):
    _, plain = run(shell, capsys, "1/0")
    _, plain_here = run(shell, capsys, "def f():\n    return [].foo\nf()")
    shell.run_line_magic("load_ext", "course_utils.tracebacks")
    try:
        _, div = run(shell, capsys, "1/0")
        _, here = run(shell, capsys, "def f():\n    return [].foo\nf()")
    finally:
        shell.run_line_magic("unload_ext", "course_utils.tracebacks")
    assert (div, here) == (plain, plain_here)


def test_unload_restores_ipythons_handling(shell, capsys):
    before = (shell.custom_exceptions, shell.CustomTB)
    shell.run_line_magic("load_ext", "course_utils.tracebacks")
    shell.run_line_magic("reload_ext", "course_utils.tracebacks")
    assert shell.custom_exceptions == (Exception,)
    shell.run_line_magic("unload_ext", "course_utils.tracebacks")
    assert (shell.custom_exceptions, shell.CustomTB) == before
    _, out = run(shell, capsys, "m + c")
    assert "_prims_common" in out and "hidden" not in out
    tracebacks.unload_ipython_extension(shell)  # twice: harmless
    assert (shell.custom_exceptions, shell.CustomTB) == before


@pytest.mark.parametrize("order", [("tracebacks", "errors"), ("errors", "tracebacks")])
def test_with_the_errors_extension_both_compose_in_either_order(shell, capsys, order):
    before = (shell.custom_exceptions, shell.CustomTB)
    for name in order:
        shell.run_line_magic("load_ext", f"course_utils.{name}")
    _, out = run(shell, capsys, "m + c")
    assert lines_to(out, MESSAGE) <= 15 and "_prims_common" not in out
    assert out.index("Device error (mixed-devices)") > out.index(MESSAGE)  # the explanation under it
    _, div = run(shell, capsys, "1/0")
    assert "Device error" not in div and "hidden" not in div
    # unload the first one loaded: the other keeps working alone
    shell.run_line_magic("unload_ext", f"course_utils.{order[0]}")
    _, out = run(shell, capsys, "m + c")
    if order[0] == "tracebacks":
        assert "_prims_common" in out and "Device error (mixed-devices)" in out
    else:
        assert "_prims_common" not in out and "Device error" not in out and lines_to(out, MESSAGE) <= 15
    shell.run_line_magic("unload_ext", f"course_utils.{order[1]}")
    assert (shell.custom_exceptions, shell.CustomTB) == before
