"""nbgrader as ``make nbgrader-env`` installs it, end to end: autograde without checksum warnings, then feedback.

Issue 25, part 6. ``generate_feedback`` needs nbconvert's templates, which the overlay venv finds
only through the link ``--overlay`` makes (before it: "No template sub-directory with name
'classic'" unless ``JUPYTER_PATH`` pointed at ``.venv``). A submission without nbgrader metadata
(a copy of ``solutions/``) has its check cells marked with the source's test and points, so
autograde no longer logs "checksum ... has changed" for each of them. Runs where nbgrader is
installed (``make nbgrader-env``); skipped otherwise, a failure in CI.
"""

from __future__ import annotations

import csv

import nbformat
import pytest
from notebook_runner import ROOT
from test_grading_nbgrader import NAME, _nbgrader_or_skip, _run, _solved_release

from course_grader.nbgrader import main as convert
from course_grader.nbgrader import mark_submission


def test_a_marked_check_cell_carries_the_sources_test_and_points():
    nb = nbformat.read(ROOT / "exercises" / f"{NAME}.ipynb", as_version=4)
    marked, _ = mark_submission(nb, points=2)
    tests = [c for c in marked.cells if c.metadata.get("nbgrader", {}).get("grade")]
    assert [c.source for c in tests][:1] == ['result = check("01.1")\nassert result.passed, str(result)']
    assert {c.metadata["nbgrader"]["points"] for c in tests} == {2}


def test_the_config_passes_the_points_to_the_marker(tmp_path):
    convert(
        [
            str(ROOT / "solutions" / f"{NAME}.ipynb"),
            str(tmp_path / "source" / "ps01" / f"{NAME}.ipynb"),
            "--config",
            str(tmp_path),
            "--points",
            "2",
        ]
    )
    assert "c.MarkCourseCells.points = 2.0" in (tmp_path / "nbgrader_config.py").read_text(encoding="utf-8")


@pytest.mark.slow
def test_nbgrader_as_installed_autogrades_quietly_and_writes_feedback(tmp_path):
    nbgrader = _nbgrader_or_skip()
    course = tmp_path / "course"
    source = course / "source" / "ps01" / f"{NAME}.ipynb"
    assert convert([str(ROOT / "solutions" / f"{NAME}.ipynb"), str(source), "--config", str(course)]) == 0
    made = _run(nbgrader, course, "generate_assignment", "ps01")
    assert made.returncode == 0, made.stderr[-3000:]
    release = course / "release" / "ps01" / f"{NAME}.ipynb"
    for student, nb in (
        ("solved", _solved_release(release, source)),
        ("from_solutions", nbformat.read(ROOT / "solutions" / f"{NAME}.ipynb", as_version=4)),
    ):
        path = course / "submitted" / student / "ps01" / f"{NAME}.ipynb"
        path.parent.mkdir(parents=True)
        nbformat.write(nb, path)
    graded = _run(nbgrader, course, "autograde", "ps01")
    log = graded.stderr + graded.stdout
    assert graded.returncode == 0, log[-3000:]
    assert "has changed" not in log, [line for line in log.splitlines() if "has changed" in line]
    assert "student from_solutions has no nbgrader metadata" in log
    feedback = _run(nbgrader, course, "generate_feedback", "ps01")
    assert feedback.returncode == 0, (feedback.stderr + feedback.stdout)[-3000:]
    for student in ("solved", "from_solutions"):
        html = course / "feedback" / student / "ps01" / f"{NAME}.html"
        assert html.is_file(), sorted(p.relative_to(course).as_posix() for p in course.rglob("*.html"))
        assert "4.0 / 4.0" in html.read_text(encoding="utf-8") or "4 / 4" in html.read_text(encoding="utf-8")
    exported = _run(nbgrader, course, "export")
    assert exported.returncode == 0, exported.stderr[-3000:]
    with open(course / "grades.csv", encoding="utf-8", newline="") as handle:
        scores = {r["student_id"]: float(r["score"]) for r in csv.DictReader(handle)}
    assert scores == {"solved": 4.0, "from_solutions": 4.0}
