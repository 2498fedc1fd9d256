"""Run a notebook in a fresh kernel for the tests, the way a learner's "Run All" does."""

from __future__ import annotations

from pathlib import Path

import nbformat
from nbclient import NotebookClient

from course_utils import check_cells
from course_utils.checks import CheckResult, results_in

ROOT = Path(__file__).resolve().parents[1]


def execute(path: Path, timeout: int = 300) -> nbformat.NotebookNode:
    """Execute every cell; an error in a cell not tagged raises-exception fails the run."""
    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, timeout=timeout, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}).execute()
    return nb


def check_results(path: Path) -> list[CheckResult]:
    return results_in(execute(path))


def check_cell_ids(path: Path) -> list[str]:
    """The exercise ids the notebook's check cells ask for, in order, read from the source."""
    return check_cells.check_cell_ids(nbformat.read(path, as_version=4).cells)
