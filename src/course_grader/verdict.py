"""Turn what ran into grades: the judge's own verdicts, and what went wrong running the notebook.

Lesson: none; this is the instructors' tool (``course-grade``). An exercise's grade comes from
one place: the verdict the grader's own process reached, running the course's checker against
answers the kernel sent back as data (``course_grader.boundary``). Nothing the kernel displays is read
as a result; a PASS the learner's cells displayed (or stored in the file) is only compared with
the verdict, to flag a faked one.
"""

from __future__ import annotations

from course_grader.plan import Plan, Step
from course_grader.results import MESSAGE_LIMIT, ExerciseGrade, Submission, SubmissionGrade, cut_with_note
from course_grader.runner import StepRun
from course_grader.spec import ExerciseSpec
from course_grader.submissions import LearnerCell
from course_utils.check_cells import CHECK_MIME
from course_utils.display import truncate

MAX_NOTES = 20
NOTE_LIMIT = 300

_LOST_HINT = {
    "timeout": "Look for a loop that never ends, or work far bigger than the exercise needs.",
    "crashed": "Look for os._exit, sys.exit in a thread, ctypes, or memory use far beyond the exercise.",
}


def _cut(text: str, limit: int = NOTE_LIMIT) -> str:
    return truncate(" ".join(str(text).split()), limit)


def _grade_check(step: Step, run: StepRun, title: str) -> ExerciseGrade:
    ex = step.exercise
    if run.status in ("timeout", "died") or (run.status == "not-run" and run.cause in ("timeout", "crashed")):
        status = "timeout" if run.status == "timeout" or run.cause == "timeout" else "crashed"
        where = "while the check ran your code" if run.status != "not-run" else "before this check could run"
        return ExerciseGrade(ex, title, status, f"Not graded: {run.detail} {where}.", _LOST_HINT[status])
    if run.status == "not-run" or run.result is None:
        return ExerciseGrade(ex, title, "error", f"Not graded: {run.detail or 'the check did not run'}.", "")
    result = run.result
    # the exercise notebook's heading names the exercise in every row; the check's own title only fills a gap
    # a message quoting a huge answer stays readable, and the reports stay small (issue 39)
    return ExerciseGrade(
        ex,
        title or str(result.get("title") or "")[:NOTE_LIMIT],
        str(result["status"]),
        cut_with_note(result.get("message", ""), MESSAGE_LIMIT),
        cut_with_note(result.get("hint", ""), MESSAGE_LIMIT),
    )


def _claimed_passes(outputs) -> set[str]:
    claimed = set()
    for out in outputs:
        data = out.get("data") if isinstance(out, dict) else None
        item = data.get(CHECK_MIME) if isinstance(data, dict) else None
        if isinstance(item, dict) and item.get("status") == "pass":
            claimed.add(str(item.get("exercise")))
    return claimed


def _judge_faults(steps, runs: list[StepRun]) -> list[str]:
    """Flags for checks the judge could not judge: a grader bug, named with the end of the traceback the judge's
    process captured (``runner.judge_failure``), or a judge process lost without one."""
    flags = []
    for step, run in zip(steps, runs):
        result = run.result if step.kind == "check" and isinstance(run.result, dict) else {}
        if result.get("bug"):
            lines = [ln.strip() for ln in str(result["bug"]).splitlines() if ln.strip()]
            frame = next((ln for ln in reversed(lines) if ln.startswith("File ")), "no frame")
            flags.append(f"grader bug judging {step.exercise}: {lines[-1] if lines else '?'} (judge-side traceback, innermost frame: {frame})")
        elif result.get("lost"):
            flags.append(
                f"not trustworthy: the judge process was lost while judging {step.exercise} "
                f"({result['lost']}); without the sandbox a kernel can end it: regrade this submission"
            )
    return flags


def judge(
    submission: Submission, spec: ExerciseSpec, plan: Plan, runs: list[StepRun], events: list[str], cells: list[LearnerCell]
) -> SubmissionGrade:
    """The grades and notes of one submission, from the plan it ran and what happened to each step.

    Its ``seconds`` are 0: the caller, who timed the run, sets them."""
    notes, flags = list(plan.notes), list(plan.flags)
    titles = {e.id: e.title for e in spec.exercises}
    steps = plan.steps
    grades = {}
    for step, run in zip(steps, runs):
        if step.kind == "check":
            grades[step.exercise] = _grade_check(step, run, titles.get(step.exercise, ""))
    notes += events
    flags += _judge_faults(steps, runs)
    slow = [step.exercise for step, run in zip(steps, runs) if step.kind == "check" and run.slow]
    if slow:  # charged to this submission alone: the instructor sees why its checks were cut short
        flags.append(
            f"slow answers: used up its judge time, so {', '.join(slow)} "
            f"{'was' if len(slow) == 1 else 'were'} not fully graded (see --judge-timeout)"
        )
    for step, run in zip(steps, runs):
        if step.kind in ("learner", "setup") and run.status == "error":
            notes.append(f"{step.label} raised {_cut(run.error, 200)}")
        if run.capped:
            notes.append(f"{step.label} printed more than the grader keeps; its output was cut")
    ran = _claimed_passes(o for s, r in zip(steps, runs) if s.kind == "learner" for o in r.outputs)
    stored = _claimed_passes(o for c in cells for o in c.stored_outputs)
    for ex_id, grade in grades.items():
        for claimed, where in ((ran, "when run by the grader"), (stored, "in its saved outputs")):
            if ex_id in claimed and not grade.passed:
                flags.append(f"the notebook shows PASS for {ex_id} {where}, but the grader's check gives {grade.status}")
    if len(notes) > MAX_NOTES:
        notes = notes[:MAX_NOTES] + [f"... and {len(notes) - MAX_NOTES} more"]
    ordered = tuple(grades[i] for i in spec.ids)
    return SubmissionGrade(submission, ordered, tuple(_cut(n) for n in notes), tuple(_cut(f) for f in flags))


def unrunnable(submission: Submission, spec: ExerciseSpec, status: str, why: str, hint: str = "", seconds: float = 0.0) -> SubmissionGrade:
    """The row of a submission that could not be run at all: every exercise gets ``status``."""
    grades = tuple(ExerciseGrade(e.id, e.title, status, f"Not graded: {why}.", hint) for e in spec.exercises)
    return SubmissionGrade(submission, grades, (_cut(why),), (), seconds)
