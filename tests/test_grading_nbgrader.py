"""The real nbgrader pipeline on exercise 01: generate_assignment, autograde, export, grades right.

nbgrader runs from its own venv layered over .venv (``make nbgrader-env``; ``.ci/run`` makes it),
so its kernel imports torch and course_utils. Five submissions: nbgrader's release copy solved
and untouched; a copy of solutions/ and of exercises/ (no nbgrader metadata: without the course's
``MarkCourseCells`` these were a silent 0/4); and a copy with no check cell at all, which must
stop autograde with an error naming it; and the two attacks of issue 39 (read the instructor's
``source/`` from the kernel; patch ``checks/nb01.py`` from the first cell), which the sandbox and
the judge loaded before any cell defeat. Without nbgrader the test is skipped, with how to get it;
in CI (``CI`` set) a missing nbgrader is a failure, not a skip.
"""

from __future__ import annotations

import csv
import os
import shutil
import subprocess
from pathlib import Path

import nbformat
import pytest
from notebook_runner import ROOT

from course_grader.manifest import verify_package
from course_grader.nbgrader import main as convert
from course_grader.nbgrader import mark_submission
from course_utils.check_cells import BEGIN, END

NAME = "01_device_query_exercises"
NBGRADER = Path(os.environ.get("COURSE_NBGRADER", ROOT / ".venv-nbgrader" / "bin" / "nbgrader"))


# The first cell of a submission that takes the answers from the instructor's source notebook.
READ_THE_SOURCE = """import json, os
source = os.path.join("..", "..", "..", "source", "ps01", "01_device_query_exercises.ipynb")
try:
    with open(source) as handle:
        _answers = {c["metadata"].get("nbgrader", {}).get("grade_id"): "".join(c["source"])
                    for c in json.load(handle)["cells"]}
    print("source readable: True")
except OSError as exc:
    _answers = {}
    print("source readable: False", exc)
"""

# The first cell of a submission that makes every check of lesson 01 pass, by rewriting checks/nb01.py.
PATCH_THE_CHECKS = """import os
target = {target!r}
try:
    with open(target, "a") as handle:
        handle.write("\\nfrom course_utils.checks import _core\\n_core.Wrong = type('Never', (Exception,), {{}})\\n")
    print("patched: True")
except OSError as exc:
    print("patched: False", exc)
"""


def _nbgrader_or_skip() -> Path:
    if NBGRADER.is_file():
        return NBGRADER
    why = f"needs nbgrader at {NBGRADER}: `make nbgrader-env` installs it (in .venv-nbgrader, over .venv)"
    if os.environ.get("CI"):
        pytest.fail(why + "; .ci/run must run `make nbgrader-env` before the tests")
    pytest.skip(why)


def _solved_release(release: Path, source: Path) -> nbformat.NotebookNode:
    """nbgrader's release copy with each answer cell filled in as a learner would: the source's answer."""
    answers = {
        c.metadata["nbgrader"]["grade_id"]: c.source
        for c in nbformat.read(source, as_version=4).cells
        if c.metadata.get("nbgrader", {}).get("solution")
    }
    nb = nbformat.read(release, as_version=4)
    for cell in nb.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id in answers:
            cell.source = "\n".join(ln for ln in answers[grade_id].splitlines() if ln.strip() not in (BEGIN, END))
    return nb


def _run(nbgrader: Path, course: Path, *args: str) -> subprocess.CompletedProcess:
    # without JUPYTER_PATH: nbgrader must find its templates as installed (make nbgrader-env), not through it;
    # nbgrader runs `alembic` from its own bin; no instructor-wide config may leak in
    env = {k: v for k, v in os.environ.items() if k != "JUPYTER_PATH"}
    env["PATH"] = f"{nbgrader.parent}{os.pathsep}{env.get('PATH', '')}"
    env["JUPYTER_CONFIG_DIR"] = str(course / ".jupyter")
    if args[:1] == ("autograde",) and not verify_package().clean:
        # a developer's uncommitted edits to src/ would make the autograde refuse (grading.manifest)
        args = (*args, "--JudgeCourseChecks.allow_modified_course=True")
    return subprocess.run([str(nbgrader), *args], cwd=course, env=env, capture_output=True, text=True, timeout=900)


@pytest.mark.slow
def test_real_nbgrader_grades_solved_untouched_and_metadata_less_submissions(tmp_path):
    nbgrader = _nbgrader_or_skip()
    course = tmp_path / "course"
    source = course / "source" / "ps01" / f"{NAME}.ipynb"
    assert convert([str(ROOT / "solutions" / f"{NAME}.ipynb"), str(source), "--config", str(course)]) == 0
    made = _run(nbgrader, course, "generate_assignment", "ps01")
    assert made.returncode == 0, made.stderr[-3000:]
    release = course / "release" / "ps01" / f"{NAME}.ipynb"
    assert "raise NotImplementedError()" in release.read_text(encoding="utf-8")

    def submit(student: str, nb) -> None:
        path = course / "submitted" / student / "ps01" / f"{NAME}.ipynb"
        path.parent.mkdir(parents=True)
        nbformat.write(nb, path)

    submit("solved", _solved_release(release, source))
    submit("untouched", nbformat.read(release, as_version=4))
    submit("from_solutions", nbformat.read(ROOT / "solutions" / f"{NAME}.ipynb", as_version=4))
    submit("from_exercises", nbformat.read(ROOT / "exercises" / f"{NAME}.ipynb", as_version=4))
    bare = nbformat.read(ROOT / "exercises" / f"{NAME}.ipynb", as_version=4)
    bare.cells = [c for c in bare.cells if "check(" not in c.source]
    submit("no_checks", bare)
    rewriting = nbformat.read(release, as_version=4)  # attack 1 of issue 25: rewrite the test cells as they run
    rewriting.cells.insert(
        1,
        nbformat.v4.new_code_cell(
            "def _always(lines):\n"
            "    return [ln.replace('assert result.passed', 'assert True or result.passed') for ln in lines]\n"
            "get_ipython().input_transformers_post.append(_always)\n"
        ),
    )
    submit("rewrites_tests", rewriting)
    # issue 39, attack 1: the instructor's source/ holds the answers, three levels above the kernel's folder
    reading = nbformat.read(release, as_version=4)
    for cell in reading.cells:  # each answer: the source's, read from the instructor's folder
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if cell.metadata.get("nbgrader", {}).get("solution"):
            cell.source = f"exec(_answers.get({grade_id!r}, 'raise NotImplementedError()'))"
    reading.cells.insert(1, nbformat.v4.new_code_cell(READ_THE_SOURCE))
    submit("reads_source", reading)
    # issue 39, attack 2: patch the checks in the checkout from the first cell, before nbgrader's judge loads them
    target = ROOT / "src" / "course_utils" / "checks" / "nb01.py"
    before = target.read_bytes()
    patching = nbformat.read(release, as_version=4)
    patching.cells.insert(1, nbformat.v4.new_code_cell(PATCH_THE_CHECKS.format(target=str(target))))
    submit("patches_checks", patching)

    try:
        graded = _run(nbgrader, course, "autograde", "ps01")
    finally:
        patched = target.read_bytes() != before
        if patched:  # never leave the checkout's checks changed for the other tests on this machine
            target.write_bytes(before)
    assert not patched, "a submission changed the course's checks in the checkout"
    log = graded.stderr + graded.stdout
    # the one submission nbgrader cannot grade stops it loudly, naming the student and why
    assert graded.returncode != 0, log[-3000:]
    assert "student no_checks has no nbgrader metadata and no check cells" in log, log[-3000:]
    for student in ("from_solutions", "from_exercises"):
        assert f"student {student} has no nbgrader metadata (it was made from exercises/ or solutions/" in log
    exported = _run(nbgrader, course, "export")
    assert exported.returncode == 0, exported.stderr[-3000:]
    with open(course / "grades.csv", encoding="utf-8", newline="") as handle:
        scores = {r["student_id"]: (float(r["score"]), float(r["max_score"])) for r in csv.DictReader(handle)}
    assert scores["solved"] == (4.0, 4.0), scores
    assert scores["untouched"] == (0.0, 4.0), scores
    assert scores["from_solutions"] == (4.0, 4.0), "the silent zero is back: " + str(scores)
    assert scores["from_exercises"] == (0.0, 4.0), scores
    # the test cells are judged in nbgrader's process: rewriting them in the kernel earns nothing
    assert scores["rewrites_tests"] == (0.0, 4.0), scores
    # the kernel runs in the sandbox: source/ is out of its sight, the checkout's checks out of its reach
    assert scores["reads_source"] == (0.0, 4.0), scores
    assert scores["patches_checks"] == (0.0, 4.0), scores
    seen = {}
    for student in ("reads_source", "patches_checks"):
        graded = nbformat.read(course / "autograded" / student / "ps01" / f"{NAME}.ipynb", as_version=4)
        seen[student] = "".join(o.get("text", "") for o in graded.cells[1].get("outputs", []))
    assert seen["reads_source"].startswith("source readable: False"), seen
    assert seen["patches_checks"].startswith("patched: False"), seen


def test_a_submission_without_nbgrader_metadata_gets_the_sources_grade_ids():
    nb = nbformat.read(ROOT / "exercises" / f"{NAME}.ipynb", as_version=4)
    marked, ids = mark_submission(nb)
    assert ids == ["01.1", "01.2", "01.3", "01.4"]
    meta = [c.metadata["nbgrader"] for c in marked.cells if "nbgrader" in c.metadata]
    assert [m["grade_id"] for m in meta] == [
        "answer-best_device",
        "check-01_1",
        "answer-visible_gpus",
        "check-01_2",
        "answer-describe_gpu",
        "check-01_3",
        "answer-current_cuda_index",
        "check-01_4",
    ]
    assert all("nbgrader" not in c.metadata for c in nb.cells), "the submission itself must not change"
    nbformat.validate(marked)


def test_the_config_written_puts_the_fallback_before_overwrite_cells(tmp_path):
    convert([str(ROOT / "solutions" / f"{NAME}.ipynb"), str(tmp_path / "source" / "ps01" / f"{NAME}.ipynb"), "--config", str(tmp_path)])
    config = (tmp_path / "nbgrader_config.py").read_text(encoding="utf-8")
    order = [line.strip().strip('",') for line in config.splitlines() if line.strip().startswith('"')]
    assert order.index("course_grader.nbgrader.MarkCourseCells") < order.index("nbgrader.preprocessors.OverwriteCells")
    compile(config, "nbgrader_config.py", "exec")
    shutil.rmtree(tmp_path / "source")


@pytest.mark.slow
def test_nbgrader_judges_09_1_by_the_submitted_code_not_the_kernels_log(tmp_path):
    """Issue 38, item 2, on nbgrader's path: a 09.1 answer that moves without non_blocking and rewrites the log
    of .to calls the kernel sends back earns nothing, as under course-grade (the judge reads the code nbgrader
    read from the file), while the solved copy keeps every mark."""
    from test_hidden_cases import LIAR_09

    nbgrader = _nbgrader_or_skip()
    name = "09_data_loading_and_memory_exercises"
    course = tmp_path / "course"
    source = course / "source" / "ps09" / f"{name}.ipynb"
    assert convert([str(ROOT / "solutions" / f"{name}.ipynb"), str(source), "--config", str(course)]) == 0
    made = _run(nbgrader, course, "generate_assignment", "ps09")
    assert made.returncode == 0, made.stderr[-3000:]
    release = course / "release" / "ps09" / f"{name}.ipynb"
    solved = _solved_release(release, source)
    lying = _solved_release(release, source)
    answer = next(c for c in lying.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "answer-to_device")
    answer.source = LIAR_09
    for student, nb in (("solved", solved), ("lies", lying)):
        path = course / "submitted" / student / "ps09" / f"{name}.ipynb"
        path.parent.mkdir(parents=True)
        nbformat.write(nb, path)
    graded = _run(nbgrader, course, "autograde", "ps09")
    assert graded.returncode == 0, (graded.stderr + graded.stdout)[-3000:]

    def verdict(student: str) -> str:
        nb = nbformat.read(course / "autograded" / student / "ps09" / f"{name}.ipynb", as_version=4)
        cell = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "check-09_1")
        return " ".join(o.get("text", "") or o.get("evalue", "") for o in cell.get("outputs", []))

    assert verdict("solved").startswith("PASS"), verdict("solved")
    assert "never calls .to(..., non_blocking=True)" in verdict("lies"), verdict("lies")
    exported = _run(nbgrader, course, "export")
    assert exported.returncode == 0, exported.stderr[-3000:]
    with open(course / "grades.csv", encoding="utf-8", newline="") as handle:
        scores = {r["student_id"]: (float(r["score"]), float(r["max_score"])) for r in csv.DictReader(handle)}
    assert scores["solved"][0] == scores["solved"][1] == scores["lies"][0] + 1, scores
