"""course-grade: every submission gets a row with a clear reason, however broken; the grade comes
from the grader's own checks; the instructor's files never change; kernels and their children die.

The batch tests build their submissions in code (tests/grading_fixtures.py) and grade them once,
with two jobs and a short per-cell timeout, against a tiny exercise whose two checks are
registered in its own setup cell: the hostile batch without a sandbox (what macOS, Windows and a
Linux without bwrap get), a smaller one under bubblewrap (skipped, with the reason, where bwrap
cannot start). One test grades the real exercises/01 through the command line.
"""

from __future__ import annotations

import csv
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat
import pytest
from grading_fixtures import (
    build_sandbox_submissions,
    build_submissions,
    cells,
    exercise_notebook,
    machine_sandbox,
    notebook,
    sandbox_mark,
    solved,
    tree_digest,
    write,
)
from notebook_runner import ROOT

from course_grader import BatchSettings, Limits, grade_batch, main, write_reports
from course_grader.bubblewrap import SandboxUnavailable, probe
from course_grader.cli import ProgressBar
from course_grader.plan import binds, build_plan
from course_grader.report import _safe, feedback_text, markdown, prepare_out
from course_grader.results import ExerciseGrade, Submission, SubmissionGrade
from course_grader.runner import _CappedClient
from course_grader.spec import find_exercise_notebook, read_spec
from course_grader.submissions import (
    InvalidSubmission,
    find_submissions,
    printable,
    read_code_cells,
    slug,
)
from course_utils.check_cells import check_cell_id

EXERCISE_01 = ROOT / "exercises" / "01_device_query_exercises.ipynb"
SOLUTION_01 = ROOT / "solutions" / "01_device_query_exercises.ipynb"
ODD = os.fsdecode(b"odd \xff bytes")


# ----------------------------------------------------------------- fast: no kernel


def test_spec_of_the_real_exercise_notebook():
    spec = read_spec(EXERCISE_01)
    assert spec.ids == ("01.1", "01.2", "01.3", "01.4")
    assert [e.function for e in spec.exercises] == ["best_device", "visible_gpus", "describe_gpu", "current_cuda_index"]
    assert spec.exercises[0].title == "Pick the best device"
    assert any("import torch" in s for s in spec.setup_sources)
    assert spec.kernel_name == "python3"


def test_no_code_of_the_grader_runs_in_the_kernel_but_the_channel():
    """Check steps carry no source: the grader judges in its own process (boundary.py). In the kernel runs
    only what answers its requests: the channel the grader opens."""
    from course_grader.boundary import channel_cell

    spec = read_spec(EXERCISE_01)
    steps = build_plan(spec, []).steps
    assert [s.source for s in steps if s.kind == "check"] == ["", "", "", ""]
    assert "check(" not in channel_cell("id") and "open_channel" in channel_cell("id")


def test_exercise_is_found_by_path_number_or_name():
    folder = ROOT / "exercises"
    assert find_exercise_notebook(str(EXERCISE_01), (folder,)) == EXERCISE_01
    assert find_exercise_notebook("01", (folder,)) == EXERCISE_01
    assert find_exercise_notebook("1", (folder,)) == EXERCISE_01
    assert find_exercise_notebook("01_device_query_exercises", (folder,)) == EXERCISE_01
    with pytest.raises(ValueError, match="Cannot find the exercise notebook '99'.*01_device_query_exercises.ipynb"):
        find_exercise_notebook("99", (folder,))


def test_a_notebook_without_check_cells_is_refused(tmp_path):
    path = write(tmp_path / "plain.ipynb", notebook(["x = 1"]))
    with pytest.raises(ValueError, match="has no check cells"):
        read_spec(path)


def test_the_solutions_notebook_is_refused_as_the_exercise():
    # its answers would otherwise count as setup cells and be run for every learner
    with pytest.raises(ValueError, match="holds solutions.*give the exercise notebook the learners got"):
        read_spec(SOLUTION_01)


@pytest.mark.parametrize(
    "source, expected",
    [
        ('check("01.2")', "01.2"),
        ("check('01.2');", "01.2"),
        ('  check("01.2")  # mine\n', "01.2"),
        ('# note\ncheck("g.1")', "g.1"),
        ('print(check("01.2"))', None),
        ('check("01.2")\nx = 1', None),
        ("", None),
    ],
)
def test_check_cells_are_recognised_by_their_whole_source(source, expected):
    assert check_cell_id(source) == expected


@pytest.mark.parametrize(
    "source, expected",
    [
        ("def double(x):\n    return 2 * x", True),
        ("double = lambda x: 2 * x", True),
        ("from mine import double", True),
        ("%time x = 1\ndef double(x): pass", True),
        ("def doubled(x): pass", False),
        ("print(double)", False),
        ("def double(:\n", True),
    ],
)
def test_binds_finds_the_cell_that_defines_the_function(source, expected):
    assert binds(source, "double") is expected


def test_the_plan_puts_each_check_after_the_last_definition(tmp_path):
    spec = read_spec(exercise_notebook(tmp_path))
    setup, double, check1, greet, check2 = solved()
    cells = read_code_cells(write(tmp_path / "s.ipynb", notebook([setup, check2, greet, double, check1, double])))
    kinds = [(s.kind, s.exercise) for s in build_plan(spec, cells).steps]
    assert kinds == [("preamble", ""), ("learner", ""), ("learner", ""), ("check", "g.2"), ("learner", ""), ("learner", ""), ("check", "g.1")]


def test_names_are_printable_and_slugs_are_safe():
    assert printable(ODD) == "odd \\xff bytes"
    assert printable("tab\there") == "tab\\there"
    assert slug("spaces and ünïcode") == "spaces_and_unicode"
    assert slug(ODD) == "odd_xff_bytes"
    assert slug("../../etc/passwd") == "etc_passwd"
    assert slug("...") == "submission"


@pytest.mark.parametrize(
    "content, match",
    [
        (b"[1, 2]", "holds a list, not a notebook"),
        (b'{"metadata": {}}', "no list of cells"),
        (b"\xff\xfe", "not UTF-8 text"),
        (b'{"cells": [{"cell_type": "code", "source": 3}]}', "source is a int"),
    ],
)
def test_unreadable_notebooks_say_why(tmp_path, content, match):
    path = tmp_path / "bad.ipynb"
    path.write_bytes(content)
    with pytest.raises(InvalidSubmission, match=match):
        read_code_cells(path)


def test_jupytext_py_submissions_are_read_like_notebooks(tmp_path):
    import jupytext

    path = tmp_path / "erin.py"
    path.write_text(jupytext.writes(notebook(solved()), fmt="py:percent"), encoding="utf-8")
    assert [c.source for c in read_code_cells(path)] == solved()


def test_folders_per_learner(tmp_path):
    nb = notebook(solved())
    (tmp_path / "subs" / "ann").mkdir(parents=True)
    write(tmp_path / "subs" / "ann" / "x.ipynb", nb)
    (tmp_path / "subs" / "bob" / ".ipynb_checkpoints").mkdir(parents=True)
    write(tmp_path / "subs" / "bob" / ".ipynb_checkpoints" / "ex.ipynb", nb)
    (tmp_path / "subs" / "cy").mkdir()
    write(tmp_path / "subs" / "cy" / "a.ipynb", nb)
    write(tmp_path / "subs" / "cy" / "b.ipynb", nb)
    found = {s.learner: s for s in find_submissions(tmp_path / "subs", "ex.ipynb")}
    assert found["ann"].path.name == "x.ipynb" and found["ann"].file == "ann/x.ipynb"
    assert found["bob"].path is None and "no notebook in bob/" in found["bob"].problem
    assert found["cy"].path is None and "2 notebooks in cy/" in found["cy"].problem


def test_csv_cells_cannot_be_formulas():
    assert _safe("=cmd()") == "'=cmd()" and _safe("+1") == "'+1" and _safe("alice") == "alice"
    assert _safe(" =1+1") == "' =1+1" and _safe("\t @x") == "'\t @x" and _safe("a =1") == "a =1"


def test_output_is_capped_per_cell_and_errors_are_cut_not_dropped():
    client = _CappedClient(nbformat.v4.new_notebook(), cap=100)
    stream = {"msg_type": "stream", "content": {"name": "stdout", "text": "x" * 1000}}
    kept = client._within_cap(stream, "stream", 0)
    assert kept["content"]["text"].startswith("x" * 100) and "cut by the grader" in kept["content"]["text"]
    assert client._within_cap(stream, "stream", 0) is None and 0 in client.capped
    error = {"msg_type": "error", "content": {"ename": "E", "evalue": "v" * 10**6, "traceback": ["t"] * 1000}}
    cut = client._within_cap(error, "error", 0)["content"]
    assert len(cut["evalue"]) < 2100 and len(cut["traceback"]) == 30


def test_progress_bar_writes_one_line_per_submission_off_a_terminal(tmp_path):
    import io

    from course_grader.results import Submission, SubmissionGrade

    stream = io.StringIO()
    ProgressBar(stream)(3, 10, SubmissionGrade(Submission("ann", "ann.ipynb", "ann", None), ()))
    assert stream.getvalue() == "[3/10] ann: 0/0 passed\n"


@pytest.mark.parametrize(
    "argv, match",
    [
        (["99", "."], "Cannot find the exercise notebook"),
        ([str(EXERCISE_01), "no-such-folder"], "is not a folder"),
        ([str(EXERCISE_01), ".", "--jobs", "0"], "--jobs must be at least 1"),
    ],
)
def test_cli_usage_errors_exit_2(argv, match, capsys):
    with pytest.raises(SystemExit) as stopped:
        main(argv)
    assert stopped.value.code == 2 and re.search(match, capsys.readouterr().err)


def test_cli_refuses_to_write_into_the_submissions(tmp_path, capsys):
    with pytest.raises(SystemExit) as stopped:
        main([str(EXERCISE_01), str(tmp_path), "--out", str(tmp_path / "grades")])
    assert stopped.value.code == 2 and "inside the submissions folder" in capsys.readouterr().err


def test_nbgrader_copy_marks_answer_and_test_cells():
    from course_grader.nbgrader import mark_for_nbgrader

    original = nbformat.read(SOLUTION_01, as_version=4)
    marked = mark_for_nbgrader(original, points=2)
    meta = [c.metadata["nbgrader"] for c in marked.cells if "nbgrader" in c.metadata]
    answers = [m for m in meta if m["solution"]]
    tests = [m for m in meta if m["grade"]]
    assert [m["grade_id"] for m in tests] == ["check-01_1", "check-01_2", "check-01_3", "check-01_4"]
    assert [m["grade_id"] for m in answers] == ["answer-best_device", "answer-visible_gpus", "answer-describe_gpu", "answer-current_cuda_index"]
    for m in meta:  # nbgrader's cell schema, version 3: required keys, grade_id pattern, points only when graded
        assert {"schema_version", "grade", "locked", "solution"} <= set(m) and m["schema_version"] == 3
        assert re.fullmatch(r"[a-zA-Z0-9_\-]*", m["grade_id"])
        assert ("points" in m) == m["grade"] and m["locked"] == m["grade"]
    assert all(m["points"] == 2 for m in tests)
    assert "nbgrader" not in original.cells[3].metadata, "the solutions notebook itself must not change"
    nbformat.validate(marked)
    # the grader still reads the nbgrader form: its test cells are check cells
    tests_src = [c.source for c in marked.cells if c.metadata.get("nbgrader", {}).get("grade")]
    assert [check_cell_id(src) for src in tests_src] == ["01.1", "01.2", "01.3", "01.4"]


# ----------------------------------------------------------------- slow: one batch of bad submissions

EXPECTED = {  # learner: (g.1, g.2, text the reason must contain)
    "solution": ("pass", "pass", ""),
    "untouched": ("not-attempted", "not-attempted", ""),
    "corrupt": ("invalid", "invalid", "not valid notebook JSON"),
    "notes.txt": ("invalid", "invalid", "expected a .ipynb file, found a .txt file"),
    "binary": ("invalid", "invalid", "not UTF-8 text"),
    "deleted": ("pass", "pass", "the grader added setup cell"),
    "reordered": ("pass", "pass", ""),
    "loops": ("timeout", "pass", "code cell 5 (`while True:`): it ran past the limit of 6 s per cell"),
    "raises": ("fail", "pass", "code cell 2 (`1 / 0`) raised ZeroDivisionError"),
    "exits": ("pass", "pass", "the kernel exited with code 1"),
    "segfault": ("pass", "crashed", "killed by SIGSEGV"),
    "huge_output": ("pass", "pass", "its output was cut"),
    "escape": ("pass", "pass", "FLAG: wrote outside its working folder: ../../escape.txt, ../escape_one_up.txt"),
    "fake": ("not-attempted", "not-attempted", "FLAG: the notebook shows PASS for g.1 when run by the grader"),
    # replacing check() in the kernel changes nothing: the grader judges in its own process
    "monkeypatch": ("not-attempted", "not-attempted", ""),
    # g.2's requests go unanswered: a fail at once (test_an_unanswered_request_fails_at_once)
    "closes_channel": ("pass", "fail", ""),
    "prints_in_answer": ("pass", "pass", ""),
    "patch_during_check": ("pass", "not-attempted", ""),
    # it writes its child's pid by absolute path, outside its folder: named, though it is the test's own file
    "child": ("pass", "pass", "FLAG: wrote or tried to write outside its scratch folder, by absolute path: "),
    "spaces and ünïcode": ("invalid", "invalid", "not valid notebook JSON"),
    "=formula": ("invalid", "invalid", "not valid notebook JSON"),
    ODD: ("pass", "pass", ""),
    "carol": ("pass", "pass", ""),
    "dave": ("invalid", "invalid", "no notebook in dave/"),
}


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    root = tmp_path_factory.mktemp("grading")
    made = build_submissions(root / "submitted", root / "child.pid")
    exercise = exercise_notebook(root / "exercises")
    before = tree_digest(root / "submitted", exercise)
    seen = []
    # The batch's scratch folders (course-grade-*) go under this fixture's own folder, so that the
    # leak test below looks at this batch only, not at another test run grading on the same machine.
    scratch = root / "scratch"
    scratch.mkdir()
    saved_tempdir, tempfile.tempdir = tempfile.tempdir, str(scratch)
    try:
        result = grade_batch(
            exercise,
            root / "submitted",
            BatchSettings(jobs=2, limits=Limits(cell_timeout=6, total_timeout=120), sandbox="off"),
            progress=lambda done, total, row: seen.append((done, total)),
        )
    finally:
        tempfile.tempdir = saved_tempdir
    written = write_reports(result, root / "out")
    rows = {r.submission.learner: r for r in result.rows}
    return dict(root=root, made=made, result=result, rows=rows, before=before, exercise=exercise, written=written, seen=seen, scratch=scratch)


@pytest.mark.slow
def test_every_submission_gets_exactly_one_row(graded):
    assert sorted(graded["rows"]) == sorted(printable(n) for n in graded["made"])
    assert set(graded["made"]) == set(EXPECTED), "the fixture and the expectations drifted apart"
    assert graded["seen"][-1] == (len(EXPECTED), len(EXPECTED))


@pytest.mark.slow
@pytest.mark.parametrize("learner", sorted(EXPECTED, key=printable), ids=printable)
def test_each_submission_gets_its_grade_and_reason(graded, learner):
    row = graded["rows"][printable(learner)]
    g1, g2, reason = EXPECTED[learner]
    assert [g.status for g in row.grades] == [g1, g2], str(row)
    assert reason in row.reason, row.reason
    if not reason:
        assert not row.flags, row.flags


@pytest.mark.slow
def test_an_unanswered_request_fails_at_once(graded):
    """A kernel that handles a request without replying (its channel closed) fails that check with the reason,
    as soon as it is idle: not a wait until the cell timeout, whose status would be "timeout"."""
    g2 = graded["rows"]["closes_channel"].grades[1]
    assert g2.status == "fail" and "sent no reply to the grader's request" in g2.message, g2


@pytest.mark.slow
def test_the_instructors_files_never_change(graded):
    assert tree_digest(graded["root"] / "submitted", graded["exercise"]) == graded["before"]
    assert graded["result"].changed_files == ()
    for folder in (graded["root"], graded["root"] / "submitted", graded["root"] / "exercises"):
        assert not (folder / "escape.txt").exists()


@pytest.mark.slow
def test_each_exercise_has_one_title_in_every_row(graded):
    # g.2 has no heading in the exercise notebook: the check's title fills the gap, for every row alike
    titles = {(g.exercise, g.title) for r in graded["result"].rows for g in r.grades}
    assert titles == {("g.1", "Double a number"), ("g.2", "Greet someone")}, titles


@pytest.mark.slow
def test_a_faked_result_never_counts(graded):
    fake = graded["rows"]["fake"]
    assert fake.passed_count == 0
    assert any("shows PASS for g.2 in its saved outputs" in f for f in fake.flags)


@pytest.mark.slow
def test_child_processes_die_with_the_kernel(graded):
    pid = int((graded["root"] / "child.pid").read_text())
    assert _gone(pid), f"the learner's child process {pid} (sleep 300) is still alive"


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/cwd").exists(), reason="needs /proc to list processes")
def test_no_kernel_outlives_the_batch(graded):
    assert list(graded["scratch"].glob("course-grade-*")) == [], "the batch left its scratch folder behind"
    left = []
    for proc in Path("/proc").iterdir():
        try:
            cwd = os.readlink(proc / "cwd")
            if proc.name.isdigit() and cwd.startswith(str(graded["scratch"])) and "/course-grade-" in cwd:
                left.append(proc.name)
        except OSError:
            pass
    assert not left, f"processes still running in this batch's scratch folder: {left}"


@pytest.mark.slow
def test_reports_are_written_with_safe_names(graded):
    out = graded["root"] / "out"
    with open(out / "grades.csv", encoding="utf-8", newline="") as handle:
        table = list(csv.DictReader(handle))
    assert [r["learner"] for r in table] == [_safe(r.submission.learner) for r in graded["result"].rows]
    assert "'=formula" in [r["learner"] for r in table]
    assert set(table[0]) == {"learner", "file", "g.1", "g.2", "passed", "total", "seconds", "feedback", "reason"}
    for line in table:
        assert re.fullmatch(r"feedback/[A-Za-z0-9._-]+\.md", line["feedback"]), line["feedback"]
        assert (out / line["feedback"]).is_file()
    assert len({line["feedback"] for line in table}) == len(table)
    odd = next(line for line in table if line["learner"].startswith("odd"))
    assert odd["learner"] == "odd \\xff bytes" and odd["passed"] == "2"
    huge = (out / "feedback" / "huge_output.md").read_text(encoding="utf-8")
    assert len(huge) < 10_000 and "its output was cut" in huge
    raises = (out / "feedback" / "raises.md").read_text(encoding="utf-8")
    assert "Your code raised ZeroDivisionError" in raises and "**Hint:** Multiply by two." in raises
    summary = (out / "summary.txt").read_text(encoding="utf-8")
    counts = graded["result"].counts()
    assert counts["g.1"]["pass"] == sum(1 for e in EXPECTED.values() if e[0] == "pass")
    assert "unchanged (before and after)" in summary and "flagged for a look" in summary
    details = list(csv.DictReader(open(out / "details.csv", encoding="utf-8", newline="")))
    assert len(details) == 2 * len(table)


# ----------------------------------------------------------------- slow: the same dangers under bubblewrap

SANDBOX = machine_sandbox()
needs_sandbox = sandbox_mark()
SANDBOX_EXPECTED = {  # learner: (g.1, g.2, text the reason must contain)
    "alice": ("pass", "pass", ""),
    "untouched": ("not-attempted", "not-attempted", ""),
    "mallory": (
        "pass",
        "pass",
        "FLAG: tried to write outside its scratch folder (the sandbox kept every file there unchanged): {victim}, {exercise}",
    ),
    "detached": ("pass", "pass", "FLAG: code cell 2 starts processes meant to outlive the kernel"),
    "network": ("pass", "pass", ""),
    "segfault": ("pass", "crashed", "killed by SIGSEGV"),
    "relative": ("pass", "pass", "FLAG: wrote outside its working folder: ../../escape.txt"),
}


@pytest.fixture(scope="module")
def sandboxed():
    import tempfile

    from grading_fixtures import SLEEPER

    # outside /tmp, like an instructor's files: the sandbox does not show them (issue 38: an allow-list)
    (ROOT / "build").mkdir(exist_ok=True)
    root = Path(tempfile.mkdtemp(prefix="test-sandbox-", dir=ROOT / "build"))
    try:
        exercise = exercise_notebook(root / "exercises")
        made = build_sandbox_submissions(root / "submitted", exercise)
        before = tree_digest(root / "submitted", exercise)
        result = grade_batch(
            exercise, root / "submitted", BatchSettings(jobs=2, limits=Limits(cell_timeout=20, total_timeout=120), sandbox="require")
        )
        after = tree_digest(root / "submitted", exercise)
        sleepers = []
        for proc in Path("/proc").iterdir():
            try:
                if proc.name.isdigit() and SLEEPER in (proc / "cmdline").read_text():
                    sleepers.append(proc.name)
            except OSError:
                pass
        yield dict(
            root=root,
            made=made,
            result=result,
            rows={r.submission.learner: r for r in result.rows},
            exercise=exercise,
            before=before,
            after=after,
            sleepers=sleepers,
        )
    finally:
        shutil.rmtree(root, ignore_errors=True)


@pytest.mark.slow
@needs_sandbox
@pytest.mark.parametrize("learner", sorted(SANDBOX_EXPECTED))
def test_each_sandboxed_submission_gets_its_grade_and_reason(sandboxed, learner):
    assert set(sandboxed["made"]) == set(SANDBOX_EXPECTED), "the fixture and the expectations drifted apart"
    row = sandboxed["rows"][learner]
    g1, g2, reason = SANDBOX_EXPECTED[learner]
    reason = reason.format(victim=sandboxed["root"] / "submitted" / "alice.ipynb", exercise=sandboxed["exercise"])
    assert [g.status for g in row.grades] == [g1, g2], str(row)
    assert reason in row.reason, row.reason
    if not reason:
        assert not row.flags and not row.notes, row.reason


@pytest.mark.slow
@needs_sandbox
def test_the_sandbox_keeps_every_file_outside_the_scratch_folder_unchanged(sandboxed):
    # mallory appended to alice's submission and to the exercise notebook, from Python and from a shell
    assert sandboxed["after"] == sandboxed["before"]
    assert sandboxed["result"].changed_files == ()
    assert sandboxed["result"].strays == (), "../../../ landed in the sandbox's private tmpfs, not the batch folder"
    assert "sandbox: bubblewrap" in sandboxed["result"].isolation and "sandbox: bubblewrap" in str(sandboxed["result"])


@pytest.mark.slow
@needs_sandbox
def test_a_detached_child_dies_with_the_sandbox(sandboxed):
    # start_new_session leaves the kernel's process group; the PID namespace still takes it down
    assert sandboxed["sleepers"] == [], f"a learner's detached child survived the batch: {sandboxed['sleepers']}"


def test_without_bwrap_auto_says_why_and_require_refuses(tmp_path):
    missing = probe("auto", bwrap=str(tmp_path / "no-bwrap"))
    assert not missing.sandboxed and "bwrap is not installed" in missing.reason
    assert "sandbox: NONE (bwrap is not installed" in str(missing)
    with pytest.raises(SandboxUnavailable, match="--sandbox=require, but no sandbox is available: bwrap is not"):
        probe("require", bwrap=str(tmp_path / "no-bwrap"))
    broken = probe("auto", bwrap=shutil.which("false") or "/bin/false")  # installed, but cannot start anything
    assert not broken.sandboxed and "failed to start a kernel here" in broken.reason
    assert "turned off" in probe("off").reason
    with pytest.raises(ValueError, match="must be one of auto, require, off"):
        probe("on")


def test_cli_says_at_the_start_when_there_is_no_sandbox(tmp_path, capsys):
    submitted = tmp_path / "submitted"
    submitted.mkdir()
    (submitted / "zed.ipynb").write_text("{not json", encoding="utf-8")  # graded without a kernel
    assert main([str(EXERCISE_01), str(submitted), "--out", str(tmp_path / "out"), "--sandbox", "off", "--quiet"]) == 0
    err = capsys.readouterr().err
    assert err.startswith("course-grade: sandbox: NONE (turned off with --sandbox=off)"), err
    assert "sandbox: NONE" in (tmp_path / "out" / "summary.txt").read_text(encoding="utf-8")


def test_cli_sandbox_require_without_bwrap_is_a_usage_error(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COURSE_BWRAP", str(tmp_path / "no-bwrap"))
    with pytest.raises(SystemExit) as stopped:
        main([str(EXERCISE_01), str(tmp_path), "--out", str(tmp_path.parent / "out-x"), "--sandbox", "require"])
    assert stopped.value.code == 2 and "no sandbox is available" in capsys.readouterr().err


# ----------------------------------------------------------------- the reports: one batch per folder, readable Markdown


def _row(learner: str, *grades: ExerciseGrade, notes=()) -> SubmissionGrade:
    return SubmissionGrade(Submission(learner, f"{learner}.ipynb", learner, None), grades, tuple(notes))


def test_an_earlier_report_is_replaced_whole_and_a_foreign_folder_refused(tmp_path):
    from course_grader.results import BatchResult

    out = tmp_path / "out"
    first = BatchResult(
        "ex.ipynb",
        ("g.1",),
        (_row("ann", ExerciseGrade("g.1", "T", "pass", "ok")), _row("bob", ExerciseGrade("g.1", "T", "fail", "no"))),
        1,
        1.0,
    )
    write_reports(first, out)
    assert "replacing the earlier report" in prepare_out(out) and "2 feedback file(s)" in prepare_out(out)
    second = BatchResult("ex.ipynb", ("g.1",), (_row("cy", ExerciseGrade("g.1", "T", "pass", "ok")),), 1, 1.0)
    write_reports(second, out)
    assert sorted(p.name for p in (out / "feedback").iterdir()) == ["cy.md"], "a stale feedback file was left"
    assert prepare_out(tmp_path / "new") == ""
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "thesis.tex").write_text("x")
    with pytest.raises(ValueError, match=r"holds files that are not a course-grade report \(thesis.tex\)"):
        prepare_out(tmp_path / "mine")
    assert (tmp_path / "mine" / "thesis.tex").exists()


def test_cli_refuses_a_foreign_out_folder_before_grading(tmp_path, capsys):
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "notes.txt").write_text("mine")
    (tmp_path / "submitted").mkdir()
    with pytest.raises(SystemExit) as stopped:
        main([str(EXERCISE_01), str(tmp_path / "submitted"), "--out", str(tmp_path / "out")])
    assert stopped.value.code == 2 and "not a course-grade report (notes.txt)" in capsys.readouterr().err


def test_a_file_that_cannot_run_says_why_once():
    why = "not valid notebook JSON (Expecting value: line 1 column 2 (char 1)); was the file saved completely?"
    grades = [ExerciseGrade(f"01.{k}", "T", "invalid", f"Not graded: {why}.", "Hand in the notebook file.") for k in range(1, 5)]
    text = feedback_text(_row("zed", *grades, notes=(why,)), "01.ipynb")
    assert text.count("saved completely") == 1, text
    assert text.count("Hand in the notebook file") == 1 and "## All exercises: invalid" in text


def test_feedback_markdown_shows_code_as_code_and_text_as_written():
    mistune = pytest.importorskip("mistune")
    hint = "Use `with torch.device(device): return make()`; props.total_memory is 1024**3 per GiB, see __init__ | `a"
    html = mistune.html(markdown(hint))
    assert "<code>with torch.device(device): return make()</code>" in html
    assert "1024**3" in html and "__init__" in html and "<strong>" not in html and "<em>" not in html
    assert "`a" in html, "a stray backtick is shown as written"
    assert mistune.html(markdown("one\ntwo")).count("<br") == 1


# ----------------------------------------------------------------- slow: the real exercise, through the CLI


@pytest.mark.slow
def test_cli_grades_the_real_exercise_01(tmp_path, capsys):
    submitted = tmp_path / "submitted"
    submitted.mkdir()
    shutil.copy(SOLUTION_01, submitted / "ada.ipynb")
    shutil.copy(EXERCISE_01, submitted / "bea.ipynb")
    nb = nbformat.read(EXERCISE_01, as_version=4)
    nb.cells.insert(
        2,
        nbformat.v4.new_code_cell(
            "import course_utils.checks._core as core\ncore._REGISTRY['01.3'] = core.Exercise('01.3', 'x', 'describe_gpu', lambda f: 'Correct.')"
        ),
    )
    nbformat.write(nb, submitted / "cid.ipynb")
    forged = nbformat.read(EXERCISE_01, as_version=4)  # lazy answers, and the checks' cases emptied
    forged.cells.append(
        nbformat.v4.new_code_cell(
            "import importlib\n"
            "nb01 = importlib.import_module('course_utils.checks.nb01')\n"
            "nb01.VISIBLE_CASES = ()\nnb01.FAKE_GPUS = ()\n"
            "def visible_gpus(mask, physical):\n    return []\n"
            "def describe_gpu(props):\n    return ''\n"
        )
    )
    nbformat.write(forged, submitted / "dan.ipynb")
    broken = nbformat.read(EXERCISE_01, as_version=4)  # the answer to 01.3 does not compile
    answer = next(c for c in broken.cells if c.cell_type == "code" and "def describe_gpu" in c.source)
    answer.source = "def describe_gpu(props):\n    return f'{props.name'\n"
    nbformat.write(broken, submitted / "eve.ipynb")
    before = tree_digest(submitted, EXERCISE_01)
    out = tmp_path / "grades"
    code = main(["01", str(submitted), "--out", str(out), "--jobs", "2", "--cell-timeout", "60"])
    assert code == 0
    printed = capsys.readouterr()
    assert "passed every exercise: 1 of 5" in printed.out and "[5/5]" in printed.err
    table = {r["learner"]: r for r in csv.DictReader(open(out / "grades.csv", encoding="utf-8", newline=""))}
    ids = ["01.1", "01.2", "01.3", "01.4"]
    assert [table["ada"][i] for i in ids] == ["pass"] * 4 and table["ada"]["passed"] == "4"
    assert [table["bea"][i] for i in ids] == ["not-attempted"] * 4
    # replacing a checker or emptying the cases in the kernel changes nothing: the judge is the grader's process
    assert [table["cid"][i] for i in ids] == ["not-attempted"] * 4
    assert [table["dan"][i] for i in ids] == ["not-attempted", "fail", "fail", "not-attempted"]
    assert table["eve"]["01.3"] == "fail"
    assert "SyntaxError" in (out / "feedback" / "eve.md").read_text(encoding="utf-8")
    assert tree_digest(submitted, EXERCISE_01) == before
    assert sorted(p.name for p in (out / "feedback").iterdir()) == ["ada.md", "bea.md", "cid.md", "dan.md", "eve.md"]


def _gone(pid: int) -> bool:
    for _ in range(50):  # a killed orphan is reaped by init shortly after
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.1)
    return False


def test_sigterm_is_handled_as_ctrl_c():
    from course_grader.cli import _interrupt

    with pytest.raises(KeyboardInterrupt):
        _interrupt(signal.SIGTERM, None)


def test_while_a_batch_runs_ctrl_c_only_sets_a_flag_and_the_handlers_come_back():
    """A KeyboardInterrupt raised inside the executor's locks could leave one held and hang the clean-up."""
    import threading

    from course_grader import batch

    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signal handlers can only be set from the main thread, and this test runs in another")
    before = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    seen = []
    previous = batch._on_interrupt(lambda: seen.append("stop"))
    try:
        signal.raise_signal(signal.SIGINT)  # no KeyboardInterrupt here: the batch's loop raises it between waits
        signal.raise_signal(signal.SIGTERM)
    finally:
        batch._restore(previous)
    assert seen == ["stop", "stop"]
    assert (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)) == before


@pytest.mark.slow  # a grader process and a learner's kernel, about 10 s each
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_ctrl_c_kills_every_kernel_and_writes_no_report(tmp_path, signum):
    marker = tmp_path / "kernel.pid"
    exercise = exercise_notebook(tmp_path / "exercises")
    (tmp_path / "submitted").mkdir()
    write(
        tmp_path / "submitted" / "loop.ipynb",
        notebook(cells(extra={2: f"import os\nopen({str(marker)!r}, 'w').write(str(os.getpid()))\nwhile True:\n    pass"})),
    )
    command = "import sys; from course_grader import main; sys.exit(main())"
    grader = subprocess.Popen(
        [
            sys.executable,
            "-c",
            command,
            str(exercise),
            str(tmp_path / "submitted"),
            "--out",
            str(tmp_path / "out"),
            "--cell-timeout",
            "300",
            "--quiet",
            "--sandbox",
            "off",
        ],  # the marker is written by absolute path, outside it
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        for _ in range(1200):
            if marker.exists() and marker.read_text():
                break
            assert grader.poll() is None, grader.communicate()
            time.sleep(0.1)
        kernel = int(marker.read_text())
        grader.send_signal(signum)
        _, err = grader.communicate(timeout=60)
    finally:
        if grader.poll() is None:
            grader.kill()
    assert grader.returncode == 130 and "every kernel was stopped" in err
    assert _gone(kernel), f"the learner's kernel {kernel} survived the interrupted batch"
    assert not (tmp_path / "out" / "grades.csv").exists()


@pytest.mark.slow
def test_nbgrader_test_cells_fail_on_the_stub_with_the_checks_message(tmp_path):
    from nbclient import NotebookClient

    from course_authoring.exercises import clear_solutions
    from course_grader.nbgrader import mark_for_nbgrader

    nb = mark_for_nbgrader(nbformat.read(SOLUTION_01, as_version=4))
    for cell in nb.cells:  # what nbgrader generate_assignment hands out
        cell.source = clear_solutions(cell.source)
    NotebookClient(nb, timeout=120, kernel_name="python3", allow_errors=True).execute()
    errors = [o for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade") for o in c.outputs if o.output_type == "error"]
    assert len(errors) == 4 and all(e.ename == "AssertionError" and "Not attempted yet" in e.evalue for e in errors)
