"""What one submission can cost the others (issues 38 and 39): judge time, reply and report sizes.

A submission whose answers sleep uses up its own judge time (``Limits.judge_timeout``) and is
flagged; a solved neighbour grading beside it, in another job, keeps full marks at its normal speed,
because each job has a judge process of its own. A huge reply is left out with its size named, and
a check's message quoting a huge answer is cut with a note, so the reports stay small.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest
from grading_fixtures import ANSWERS, cells, exercise_notebook, notebook, write

from course_grader import BatchSettings, Limits, grade_batch
from course_grader.boundary import REPLY_CAP, BadReply, load_reply, oversized_reply
from course_grader.report import FEEDBACK_LIMIT, feedback_text, write_reports
from course_grader.results import MESSAGE_LIMIT, cut_with_note

SLEEPS = "    import time\n    time.sleep(3600)"


def _grade(root: Path, jobs: int, limits: Limits, sandbox: str = "off"):
    exercise = exercise_notebook(root / "exercises")
    scratch = Path(tempfile.mkdtemp(prefix="cg-", dir="/tmp"))  # short socket paths under bubblewrap
    saved, tempfile.tempdir = tempfile.tempdir, str(scratch)
    try:
        return grade_batch(exercise, root / "submitted", BatchSettings(jobs=jobs, limits=limits, sandbox=sandbox))
    finally:
        tempfile.tempdir = saved
        shutil.rmtree(scratch, ignore_errors=True)


# --------------------------------------------------------------------------- fast: the pieces


def test_a_long_text_is_cut_with_a_note_saying_how_much():
    assert cut_with_note("short", 10) == "short"
    cut = cut_with_note("x" * 1000, 100)
    assert cut.startswith("x" * 100) and "[cut by the grader: 900 more characters of 1,000]" in cut
    assert len(cut) < 200


def test_an_oversized_reply_is_the_learners_failure_with_its_size():
    with pytest.raises(BadReply, match=r"about 9000000 bytes, more than the 4 MiB"):
        load_reply(oversized_reply(9_000_000))
    assert REPLY_CAP <= 4 * 2**20, "a few MB at most (issue 39, item 4)"


def test_the_feedback_file_is_bounded():
    from course_grader.results import ExerciseGrade, Submission, SubmissionGrade

    sub = Submission("ann", "ann.ipynb", "ann", None)
    grades = tuple(ExerciseGrade(f"g.{k}", "t", "fail", f"{k} " + "m" * MESSAGE_LIMIT) for k in range(200))
    text = feedback_text(SubmissionGrade(sub, grades), "exercise_g.ipynb")
    assert len(text) < FEEDBACK_LIMIT + 200 and "[cut by the grader:" in text


def test_the_cli_takes_a_judge_timeout_and_refuses_a_bad_one(tmp_path, capsys):
    from course_grader import main

    with pytest.raises(SystemExit) as exit_:
        main(["01", str(tmp_path), "--out", str(tmp_path.parent / "out-j"), "--judge-timeout", "0"])
    assert exit_.value.code == 2 and "--judge-timeout must be positive" in capsys.readouterr().err.replace("--cell-timeout, --timeout and ", "")


# --------------------------------------------------------------------------- slow: whole batches


@pytest.mark.slow
def test_a_submission_that_sleeps_costs_only_itself(tmp_path):
    """Issue 38 item 5, issue 39 item 4: the hog is flagged and charged; its neighbour is not slowed.

    With one judge for the whole grader the solved copy waited for the hog's checks (15 s, then the 5 s of judge
    time left, here), and took longer than half the hog's time; with a judge per job it takes its usual few
    seconds."""
    (tmp_path / "submitted").mkdir()
    write(tmp_path / "submitted" / "hog.ipynb", notebook(cells(SLEEPS, SLEEPS)))
    write(tmp_path / "submitted" / "solved.ipynb", notebook(cells(ANSWERS["double"], ANSWERS["greet"])))
    result = _grade(tmp_path, 2, Limits(cell_timeout=15, total_timeout=300, judge_timeout=20))
    rows = {row.submission.learner: row for row in result.rows}
    hog, solved = rows["hog"], rows["solved"]
    assert [g.status for g in hog.grades] == ["timeout", "timeout"], hog
    assert any(f.startswith("slow answers: used up its judge time") for f in hog.flags), hog.flags
    assert "judge time of 20 s" in " ".join(g.message for g in hog.grades), hog
    assert solved.passed_count == 2 and not solved.flags and not solved.notes, solved
    assert solved.seconds < hog.seconds / 2, (solved.seconds, hog.seconds)
    assert "20 s of judge time" in str(result) and "one process per job" in str(result)


@pytest.mark.slow
def test_a_huge_reply_and_a_huge_message_keep_the_reports_small(tmp_path):
    """Issue 39 item 4: a reply over the cap is left out, naming its size; one under it that the check
    quotes is cut with a note; every report file stays far below the reply's size."""
    (tmp_path / "submitted").mkdir()
    huge = "    return 'y' * 3_000_000"  # under the reply cap: the check's message quotes it
    over = "    return 'z' * 6_000_000"  # over the reply cap: left out unread
    write(tmp_path / "submitted" / "big.ipynb", notebook(cells(huge, over)))
    write(tmp_path / "submitted" / "solved.ipynb", notebook(cells(ANSWERS["double"], ANSWERS["greet"])))
    result = _grade(tmp_path, 1, Limits(cell_timeout=60, total_timeout=300))
    rows = {row.submission.learner: row for row in result.rows}
    double, greet = rows["big"].grades
    assert double.status == "fail" and "[cut by the grader:" in double.message, double.message[-200:]
    assert len(double.message) < MESSAGE_LIMIT + 200
    assert greet.status == "fail" and "more than the 4 MiB the grader reads" in greet.message, greet.message
    assert rows["solved"].passed_count == 2
    written = write_reports(result, tmp_path / "out")
    assert max(path.stat().st_size for path in written) < 200_000, {p.name: p.stat().st_size for p in written}


def test_a_judge_process_judges_and_passes_on_a_lost_kernel():
    """The judge process answers as the grader's own judge does, and a kernel lost mid-check reaches the runner."""
    import multiprocessing

    from course_grader.boundary import ChannelLost, local_channel
    from course_grader.judges import JudgeProcess
    from course_grader.runner import judge_in_this_process

    namespace: dict = {}
    exec("def double(x):\n    return 2 * x\n", namespace)
    judge = JudgeProcess(multiprocessing.get_context("fork"))
    try:
        assert judge("g.1", local_channel(namespace)) == judge_in_this_process("g.1", local_channel(namespace))
        assert judge("g.1", local_channel(namespace))["status"] == "pass"

        def lost(request: bytes) -> bytes:
            raise ChannelLost("timeout", "it ran past the limit")

        with pytest.raises(ChannelLost, match="it ran past the limit"):
            judge("g.1", lost)
        assert judge("g.1", local_channel(namespace))["status"] == "pass", "in step after a lost check"

        def broken(request: bytes) -> bytes:
            raise RuntimeError("relay broke")

        with pytest.raises(RuntimeError, match="relay broke"):
            judge("g.1", broken)
        assert judge("g.1", local_channel(namespace))["status"] == "pass", "in step after a broken relay"
    finally:
        judge.close()
    assert not judge.process.is_alive()
