"""Suite-wide rules, for the unit tests and for nbval's notebook runs alike.

- COURSE_REQUIRE_CUDA=1 makes the whole run fail at once when CUDA is absent, so a
  misconfigured GPU runner cannot pass by silently skipping every CUDA test.
- A notebook cell tagged ``raises-exception`` must really raise: nbval only *allows* an error
  there, so without this hook a deliberate-error cell that stopped raising would pass.
- In ``solutions/``, a ``check("NN.K")`` cell must display a passing check result: a check never
  raises, so without this hook nbval would pass a solution whose check fails.
- In ``notebooks/``, a deliberate error shows its ``ExceptionType: message`` line within the first 15 lines of
  its traceback as JupyterLab shows it (issue 22): checked on nbval's own run, not a second execution.
- ``@pytest.mark.cuda(n)`` skips a test, with the reason, on a machine with fewer than n CUDA GPUs.
- In ``notebooks/``, a cell tagged ``try-it`` (the learner writes a line, a check answers) must
  display exactly one try-it check result ("01.a"), and, as shipped, a "not-attempted" one: the
  lesson leaves the line for the learner, and its check is wired to the cell.
"""

import os
import re
import sys
from pathlib import Path

import pytest

from course_utils.check_cells import CHECK_MIME, TRY_IT_ID, check_cell_id, try_it_id


def pytest_configure(config):
    if os.environ.get("COURSE_REQUIRE_CUDA") == "1":
        import torch

        if not torch.cuda.is_available():
            raise pytest.UsageError(
                "COURSE_REQUIRE_CUDA=1 but torch.cuda.is_available() is False "
                f"(torch {torch.__version__}, built for CUDA {torch.version.cuda}). "
                "This runner is meant to have a GPU: check the driver (nvidia-smi) and that a CUDA build "
                "of torch is installed, or unset COURSE_REQUIRE_CUDA to run the CPU suite."
            )


def pytest_collection_finish(session):
    """From here on no bytecode is written, by this process or by any it starts (a kernel, a judge, a child pytest).

    make's test targets compile the checkout before pytest starts (the Makefile's PRECOMPILE), pip compiled the
    venv, and each worker has written its rewritten test modules while collecting: everything is read from
    bytecode. A .pyc written later would appear in the checkout while another worker grades, and the grader's
    watch names it, as it should (a planted .pyc is code): in fresh clones a child pytest's rewritten plugin
    (course_authoring/recorder) and a helper imported late (tests/expected_values.py) once failed a grading test."""
    sys.dont_write_bytecode = True
    os.environ["PYTHONDONTWRITEBYTECODE"] = "1"


def pytest_xdist_auto_num_workers(config):
    """``-n auto`` (pyproject's addopts): one worker more than the cores this process may use.

    Much of ``make test`` waits rather than computes (a kernel's or a browser's start, torchrun's and the
    grader's timeouts), so a core would idle behind a waiting worker. On 2 cores, 3 workers ran make test
    in 11.0 minutes against 12.2 with 2 (one run each, 2026-12-05). ``make test-fast`` computes and waits
    little, and every worker collects every module again (about 8 s of CPU): it sets
    PYTEST_XDIST_AUTO_NUM_WORKERS to the cores, which xdist reads (a third worker measured 98.7 s against
    87 and 102 s with two: no gain beyond the machine's noise)."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return cores + 1


def pytest_runtest_setup(item):
    """``@pytest.mark.cuda`` / ``@pytest.mark.cuda(2)``: skip, saying why, where there are fewer CUDA devices.

    Under COURSE_REQUIRE_CUDA=1 a machine without CUDA has already stopped the run (above), so
    there a cuda test skips only for want of a second GPU, never silently for want of any."""
    marker = item.get_closest_marker("cuda")
    if marker is None:
        return
    needed = marker.args[0] if marker.args else 1
    if isinstance(needed, bool) or not isinstance(needed, int) or needed < 1:
        raise pytest.UsageError(f"{item.nodeid}: @pytest.mark.cuda takes a number of GPUs (1, 2, ...), not {needed!r}")
    import torch

    have = torch.cuda.device_count() if torch.cuda.is_available() else 0
    if have < needed:
        pytest.skip("needs CUDA" if needed == 1 else f"needs {needed} CUDA GPUs (this machine has {have})")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if call.when != "call" or not report.passed:
        return
    options = getattr(item, "options", None)
    if not isinstance(options, dict):
        return  # not an nbval cell
    outputs = getattr(item, "test_outputs", None) or []
    if options.get("check_exception") and not any(out.get("output_type") == "error" for out in outputs):
        report.outcome = "failed"
        report.longrepr = (
            f"{item.name}: this cell is tagged raises-exception (a deliberate error), "
            "but it ran without raising. The notebook claims an error PyTorch no longer raises: "
            "update the text and the cell."
        )
    if options.get("check_exception") and Path(str(item.fspath)).parent.name == "notebooks":
        at = [lines_to_message(out) for out in outputs if out.get("output_type") == "error"]
        if any(line is None or line > TRACEBACK_LINES for line in at):
            report.outcome = "failed"
            report.longrepr = (
                f"{item.fspath} {item.name}: a deliberate error should show its message within the first "
                f"{TRACEBACK_LINES} lines of its traceback (it is at line {at}); `%load_ext course_utils.tracebacks` "
                "in the lesson's imports cell folds the frames inside torch."
            )
    cell = getattr(item, "cell", None)
    tags = cell.get("metadata", {}).get("tags", []) if cell is not None else []
    if "try-it" in tags and Path(str(item.fspath)).parent.name == "notebooks":
        results = [out.get("data", {}).get(CHECK_MIME) for out in outputs]
        results = [r for r in results if isinstance(r, dict)]
        asked = try_it_id(cell.source)
        if (
            asked is None
            or len(results) != 1
            or results[0].get("exercise") != asked
            or not TRY_IT_ID.match(asked)
            or results[0].get("status") != "not-attempted"
        ):
            report.outcome = "failed"
            shown = results if results else "no check result"
            report.longrepr = (
                f'{item.fspath} {item.name}: a try-it cell should end with check("NN.x") and, as shipped '
                f"(the learner's line still `...`), show one not-attempted try-it result; it showed: {shown}"
            )
        return
    asked = check_cell_id(cell.source) if cell is not None else None
    if asked and Path(str(item.fspath)).parent.name == "solutions":
        results = [out.get("data", {}).get(CHECK_MIME) for out in outputs]
        results = [r for r in results if isinstance(r, dict)]
        if len(results) != 1 or results[0].get("exercise") != asked or not results[0].get("passed"):
            report.outcome = "failed"
            shown = results[0] if results else "no check result"
            report.longrepr = f"{item.fspath} {item.name}: the solution of exercise {asked} should pass its check, but the cell showed: {shown}"


TRACEBACK_LINES = 15
_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def lines_to_message(output) -> int | None:
    """The line number (from 1) of the ``ExceptionType: message`` line in an error output, as JupyterLab shows it:
    the traceback list joined by newlines, ANSI colour codes stripped. None when it is not there."""
    lines = _ANSI.sub("", "\n".join(output["traceback"])).split("\n")
    start = re.compile(rf"(?:\w+\.)*{re.escape(output['ename'])}(?::|$)")  # the class name, maybe with its module
    return next((i for i, line in enumerate(lines, 1) if start.match(line) and "Traceback (most recent call last)" not in line), None)


# The website (`make site`, course_authoring.site) shows each notebook with the outputs of one
# execution: nbval's, when `make test` has run it. After a notebook's last cell, its outputs are
# written to build/executed/ (course_authoring.executed), stamped with what they were run from.
_EXECUTED_OUTPUTS = pytest.StashKey[dict]()


def pytest_runtest_teardown(item, nextitem):
    if not isinstance(getattr(item, "options", None), dict) or not hasattr(item.parent, "nb"):
        return  # not an nbval cell
    from course_authoring.executed import record_nbval_cell

    collected = item.parent.stash.setdefault(_EXECUTED_OUTPUTS, {})
    record_nbval_cell(item, nextitem, Path(__file__).parent, collected)
