"""Lesson 10 without accelerate (the optional `hf` extra): its device_map cells say what they skipped, and the
lesson runs to its end. The lesson is executed as a learner without the extra would run it: a first cell hides
accelerate from the kernel (``sys.modules["accelerate"] = None``, so ``import accelerate`` fails)."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
LESSON = ROOT / "notebooks" / "10_models_bigger_than_a_device.ipynb"


def _text(cell) -> str:
    out = []
    for o in cell.get("outputs", []):
        out.append(o.get("text", ""))
        out.extend(str(v) for k, v in o.get("data", {}).items() if k == "text/plain")
    return "".join(out)


@pytest.mark.slow
def test_lesson_10_runs_to_its_end_without_accelerate_and_says_what_it_skipped():
    nb = nbformat.read(LESSON, as_version=4)
    hide = nbformat.v4.new_code_cell('import sys\nsys.modules["accelerate"] = None  # a learner without the hf extra')
    nb.cells.insert(1, hide)
    # the deliberate errors of the lesson raise, as under nbval; every other cell must run
    client = NotebookClient(nb, timeout=300, kernel_name="python3", allow_errors=True, resources={"metadata": {"path": str(LESSON.parent)}})
    client.execute()
    unexpected = [
        i
        for i, c in enumerate(nb.cells)
        if c.cell_type == "code"
        and any(o.get("output_type") == "error" for o in c.get("outputs", []))
        and "raises-exception" not in c.metadata.get("tags", [])
    ]
    assert not unexpected, [nb.cells[i].source[:80] for i in unexpected]
    uses = [c for c in nb.cells if c.cell_type == "code" and 'needs_package("accelerate"' in c.source]
    assert len(uses) == 1
    shown = _text(uses[0])
    assert "SKIPPED accelerate's device map: it needs accelerate" in shown and "course-utils[hf]" in shown
    assert "hf_device_map" not in "".join(_text(c) for c in nb.cells), "a device_map cell ran without accelerate"
