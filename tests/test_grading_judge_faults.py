"""A "grader bug" row needs evidence from the judge's side (issue 39, item 4).

A kernel chooses every byte of its replies: a learner can replace ``course_grader.boundary.serve``
in their kernel. Whatever such a reply makes the judge's decoder raise is the learner's failure
(``BadReply``), never a row that blames the grader; an error message that reads like the
grader's is still the learner's. A row says "bug in the grader" only when the judge raised in its
own process, and then it carries the traceback captured there. A judge process that ended without
one (a kernel running as the same user can kill it) leaves the exercise ungraded and flagged.
"""

from __future__ import annotations

import pytest
from grading_fixtures import ANSWERS, cells, exercise_notebook, notebook, write

from course_grader import BatchSettings, Limits, grade_batch
from course_grader.boundary import BadReply, JudgeBroke, JudgeLost, decode_reply, encode_request
from course_grader.runner import judge_failure

# The kernel's serve replaced: every reply says "defined and callable" and holds a tag without its fields.
FORGE = """import course_grader.boundary as _boundary

def _forged(request, namespace):
    return _boundary.reply_bytes({"probe": {"defined": True, "callable": True}, "result": {"@": "ref"}})

_boundary.serve = _forged"""

# An answer whose error reads like the grader's own failure.
MIMIC = "    raise RuntimeError(\"The grader could not judge this exercise (KeyError: 'k'). This is a bug in the grader; please report it.\")"


def _forged_reply() -> bytes:
    from course_grader.boundary import reply_bytes

    return reply_bytes({"probe": {"defined": True, "callable": True}, "result": {"@": "ref"}})


def test_a_reply_that_breaks_the_decoder_is_a_bad_reply():
    """The forged reply made ``_Decoder`` raise KeyError, which the runner reported as the grader's bug."""
    _, tracked = encode_request("probe", "double")
    with pytest.raises(BadReply, match=r"malformed \(KeyError"):
        decode_reply(_forged_reply(), tracked)


def test_only_a_judge_side_exception_is_a_grader_bug():
    broke = judge_failure(JudgeBroke("KeyError: 'x'", "Traceback (most recent call last):\n  File \"j.py\", line 1, in f\nKeyError: 'x'\n"))
    assert broke["status"] == "error" and "bug in the grader" in broke["hint"] and 'File "j.py"' in broke["bug"]
    try:
        raise ValueError("in the grader's own thread")
    except ValueError as exc:
        here = judge_failure(exc)
    assert "test_only_a_judge_side_exception_is_a_grader_bug" in here["bug"]  # the traceback, captured here
    lost = judge_failure(JudgeLost("the judge process was lost (exit code -9)"))
    assert "bug" not in lost and "grader" not in lost["hint"] and "exit code -9" in lost["lost"]
    assert lost["message"].startswith("Not graded")


@pytest.fixture(scope="module")
def exercise(tmp_path_factory):
    return exercise_notebook(tmp_path_factory.mktemp("faults") / "exercises")


def _grade(exercise, folder):
    return {
        r.submission.learner: r
        for r in grade_batch(exercise, folder, BatchSettings(jobs=2, limits=Limits(cell_timeout=20, total_timeout=120), sandbox="auto")).rows
    }


@pytest.mark.slow
def test_a_forged_reply_is_the_learners_fail_never_the_graders_bug(exercise, tmp_path):
    folder = tmp_path / "submitted"
    folder.mkdir()
    write(folder / "forger.ipynb", notebook(cells(ANSWERS["double"], ANSWERS["greet"], extra={1: FORGE})))
    write(folder / "mimic.ipynb", notebook(cells(MIMIC, ANSWERS["greet"])))
    rows = _grade(exercise, folder)
    forger, mimic = rows["forger"], rows["mimic"]
    assert [g.status for g in forger.grades] == ["fail", "fail"]
    assert all("could not read your notebook's answer: the reply is malformed (KeyError" in g.message for g in forger.grades)
    assert mimic.grades[0].status == "fail" and mimic.grades[0].message.startswith("Your code raised RuntimeError")
    assert mimic.grades[1].status == "pass"
    for row in (forger, mimic):
        assert not any("grader bug" in f for f in row.flags) and "bug in the grader" not in row.grades[1].hint


@pytest.mark.slow
def test_a_judge_that_breaks_in_its_own_process_is_a_grader_bug_with_its_traceback(exercise, tmp_path, monkeypatch):
    """The judge processes are forked from this one: a judge made to raise here raises there, with its traceback."""
    import course_grader.boundary as boundary

    def broken_judge(ex, channel, *draw):
        raise LookupError("a table of the judge's lacks this case")

    monkeypatch.setattr(boundary, "_judge", broken_judge)
    folder = tmp_path / "submitted"
    folder.mkdir()
    write(folder / "ada.ipynb", notebook(cells(ANSWERS["double"], ANSWERS["greet"])))
    row = _grade(exercise, folder)["ada"]
    assert [g.status for g in row.grades] == ["error", "error"]
    assert "bug in the grader" in row.grades[0].hint and "LookupError" in row.grades[0].message
    bugs = [f for f in row.flags if f.startswith("grader bug judging")]
    assert len(bugs) == 2 and all("LookupError: a table of the judge's lacks this case" in f for f in bugs)
    assert all("innermost frame: File" in f and "broken_judge" in f for f in bugs), bugs


# Without the sandbox a kernel runs as the grader's user and sees its processes: this answer kills its
# siblings that run the grader's own command line (the judge processes, forked from the grader), then answers.
KILL_THE_JUDGE = """    import os, signal
    me, parent = os.getpid(), os.getppid()
    mine = open(f"/proc/{parent}/cmdline", "rb").read()
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            ppid = int(open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[1])
            same = open(f"/proc/{pid}/cmdline", "rb").read() == mine
        except (OSError, ValueError, IndexError):
            continue
        if ppid == parent and same and int(pid) != me:
            os.kill(int(pid), signal.SIGKILL)
    return 2 * x"""


@pytest.mark.slow
def test_a_kernel_that_kills_its_judge_gets_an_ungraded_flagged_row_not_a_grader_bug(exercise, tmp_path):
    folder = tmp_path / "submitted"
    folder.mkdir()
    write(folder / "killer.ipynb", notebook(cells(KILL_THE_JUDGE, ANSWERS["greet"])))
    rows = {
        r.submission.learner: r
        for r in grade_batch(exercise, folder, BatchSettings(jobs=1, limits=Limits(cell_timeout=20, total_timeout=120), sandbox="off")).rows
    }
    row = rows["killer"]
    first = row.grades[0]
    assert first.status == "error" and first.message.startswith("Not graded: the grader's judge process ended"), first
    assert "bug in the grader" not in first.hint and not any("grader bug" in f for f in row.flags), row.flags
    assert any(f.startswith("not trustworthy: the judge process was lost while judging g.1") for f in row.flags)
    assert row.grades[1].status == "pass"  # judged in the grader once its judge process was gone
