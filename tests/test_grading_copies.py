"""Copies of the published solution are flagged in the summary, never failed (issue 38, item 6)."""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

import pytest
from grading_fixtures import ANSWERS, cells, exercise_notebook, notebook, write
from notebook_runner import ROOT

from course_grader import BatchSettings, Limits, grade_batch
from course_grader.copies import MIN_NODES, copied, published_solution
from course_grader.spec import read_spec
from course_grader.submissions import LearnerCell

SET_09 = "09_data_loading_and_memory_exercises.ipynb"


def _solution_sources(name: str) -> list[str]:
    nb = json.loads((ROOT / "solutions" / name).read_text(encoding="utf-8"))
    return ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]


def _cells(sources: list[str]) -> list[LearnerCell]:
    return [LearnerCell(k + 1, s) for k, s in enumerate(sources)]


def _disguised(source: str) -> str:
    """The solution as a learner who copies it might hand it in: comments gone, new ones, names changed."""
    import ast

    tree = ast.parse(source)
    bound = {a.arg for a in ast.walk(tree) if isinstance(a, ast.arg)}
    bound |= {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    for node in ast.walk(tree):
        if isinstance(node, ast.arg):
            node.arg = f"my_{node.arg}"
        elif isinstance(node, ast.Name) and node.id in bound:
            node.id = f"my_{node.id}"
    return "# my own work, honestly\n" + ast.unparse(tree).replace("\n", "\n\n")


def test_the_published_solution_is_read_beside_the_exercise_notebook():
    published = published_solution(read_spec(ROOT / "exercises" / SET_09))
    assert published.source.endswith(f"solutions/{SET_09}")
    assert [e for e, _, _ in published.functions] == ["09.1", "09.2"], "09.3 is shorter than MIN_NODES"
    assert f"{MIN_NODES}+ syntax nodes" in str(published)


def test_a_copy_is_found_through_comments_layout_and_new_names():
    published = published_solution(read_spec(ROOT / "exercises" / SET_09))
    sources = _solution_sources(SET_09)
    assert copied(published, _cells(sources)) == ["09.1", "09.2"]
    disguised = [_disguised(s) if "def to_device" in s or "def held_bytes" in s else s for s in sources]
    assert disguised != sources and copied(published, _cells(disguised)) == ["09.1", "09.2"]


def test_an_answer_of_ones_own_is_not_a_copy():
    published = published_solution(read_spec(ROOT / "exercises" / SET_09))
    sources = _solution_sources(SET_09)
    changed = [s.replace("non_blocking=", "non_blocking = not not ", 1) if "def to_device" in s else s for s in sources]
    assert changed != sources and copied(published, _cells(changed)) == ["09.2"]
    assert copied(published, _cells(["def to_device(batch, device):\n    return batch"])) == []


def test_without_a_solutions_notebook_nothing_is_looked_for(tmp_path):
    spec = read_spec(exercise_notebook(tmp_path / "exercises"))
    published = published_solution(spec)
    assert published.functions == () and "not looked for" in str(published)


LONG = (
    "    total = 0\n    for step in range(2):\n        total = total + x\n    if total != x + x:\n"
    '        raise ValueError(f"cannot double {x!r}: got {total!r}")\n    return total'
)
RENAMED = (
    "    # doubled by adding twice\n    acc = 0\n    for _i in range(2):\n        acc = acc + x\n"
    '    if acc != x + x:\n        raise ValueError(f"cannot double {x!r}: got {acc!r}")\n\n    return acc'
)


@pytest.mark.slow
def test_a_copy_is_flagged_in_the_summary_and_keeps_its_marks(tmp_path):
    """A batch: the copy (renamed, commented) is flagged and passes; an answer of its own is not flagged."""
    exercise = exercise_notebook(tmp_path / "exercises")
    (tmp_path / "solutions").mkdir()
    write(tmp_path / "solutions" / exercise.name, notebook(cells(LONG, ANSWERS["greet"])))
    (tmp_path / "submitted").mkdir()
    write(tmp_path / "submitted" / "copier.ipynb", notebook(cells(RENAMED, ANSWERS["greet"])))
    write(tmp_path / "submitted" / "own.ipynb", notebook(cells(ANSWERS["double"], ANSWERS["greet"])))
    scratch = Path(tempfile.mkdtemp(prefix="cg-", dir="/tmp"))
    saved, tempfile.tempdir = tempfile.tempdir, str(scratch)
    try:
        result = grade_batch(
            exercise, tmp_path / "submitted", BatchSettings(jobs=1, limits=Limits(cell_timeout=60, total_timeout=300), sandbox="off")
        )
    finally:
        tempfile.tempdir = saved
        shutil.rmtree(scratch, ignore_errors=True)
    rows = {row.submission.learner: row for row in result.rows}
    assert rows["copier"].passed_count == 2 and rows["own"].passed_count == 2
    assert [f for f in rows["copier"].flags if f.startswith("copy of the published solution? g.1 match")], rows["copier"]
    assert not rows["own"].flags
    summary = str(result)
    assert "copies of the published solution (flagged, not failed): 1 of 2" in summary
    assert "copies of the published solution: looked for in g.1" in summary
