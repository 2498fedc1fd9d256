"""Turn what ran into grades: read only the grader's own results, and say what went wrong.

Lesson: none; this is the instructors' tool (``course-grade``). An exercise's grade comes from
one place: the display output, under the grader's MIME type and carrying that cell's nonce, of
the check cell the grader itself added. Its fingerprints of the check machinery must match
the ones taken before any learner code ran. Everything the learner's cells displayed (and
every output stored in the file) is only compared with it, to flag a faked PASS.
"""

from __future__ import annotations

from course_utils.check_cells import CHECK_MIME, CHECK_STATUSES
from course_utils.display import truncate
from course_utils.grading.plan import GRADE_MIME, Plan, Step
from course_utils.grading.results import ExerciseGrade, Submission, SubmissionGrade
from course_utils.grading.runner import StepRun
from course_utils.grading.spec import ExerciseSpec
from course_utils.grading.submissions import LearnerCell

MAX_NOTES = 20
NOTE_LIMIT = 300

_TAMPER_HINT = "Hand in the notebook without code that changes course_utils or the kernel's display."
_LOST_HINT = {
    "timeout": "Look for a loop that never ends, or work far bigger than the exercise needs.",
    "crashed": "Look for os._exit, sys.exit in a thread, ctypes, or memory use far beyond the exercise.",
}


def _payloads(run: StepRun) -> list[dict]:
    return [o["data"][GRADE_MIME] for o in run.outputs
            if o.get("output_type") in ("display_data", "execute_result") and isinstance(o.get("data"), dict)
            and isinstance(o["data"].get(GRADE_MIME), dict)]


def _cut(text: str, limit: int = NOTE_LIMIT) -> str:
    return truncate(" ".join(str(text).split()), limit)


def _grade_check(step: Step, run: StepRun, baseline: dict | None, title: str, flags: list[str]) -> ExerciseGrade:
    ex = step.exercise
    if run.status in ("timeout", "died") or (run.status == "not-run" and run.cause in ("timeout", "crashed")):
        status = "timeout" if run.status == "timeout" or run.cause == "timeout" else "crashed"
        where = "while the check ran your code" if run.status != "not-run" else "before this check could run"
        return ExerciseGrade(ex, title, status, f"Not graded: {run.detail} {where}.", _LOST_HINT[status])
    if run.status == "not-run":
        return ExerciseGrade(ex, title, "error", f"Not graded: {run.detail}.", "")
    payloads = _payloads(run)
    mine = [p for p in payloads if p.get("nonce") == step.nonce and p.get("kind") == "check" and p.get("exercise") == ex]
    if len(mine) != len(payloads):
        flags.append(f"the grader's check of {ex} received a result it did not produce (forged output)")
    if len(mine) != 1 or len(payloads) != 1:
        why = "it received results it did not produce" if payloads else f"it displayed nothing ({_cut(run.error) or 'no error'})"
        return ExerciseGrade(ex, title, "tampered", f"The grader's check of {ex} cannot be trusted: {why}.", _TAMPER_HINT)
    result = mine[0]
    if "grader_error" in result:
        return ExerciseGrade(ex, title, "error", f"The grader could not run this check: {_cut(result['grader_error'])}.",
                             "This is a problem with the course's setup, not with your answer; tell your instructor.")
    if baseline is not None:
        if result.get("core") != baseline.get("core") or result.get("core_after") != baseline.get("core"):
            flags.append(f"the check machinery (course_utils.checks or IPython.display) was modified before or while checking {ex}")
            return ExerciseGrade(ex, title, "tampered", "Code in this notebook modified the course's check "
                                 "machinery, so this result cannot be trusted.", _TAMPER_HINT)
        known = (baseline.get("checkers") or {}).get(ex)
        if known is not None and (result.get("checker") != known or result.get("checker_after") != known):
            flags.append(f"the checker of {ex} was replaced by code in the notebook")
            return ExerciseGrade(ex, title, "tampered", f"Code in this notebook replaced the checker of {ex}.",
                                 _TAMPER_HINT)
    if result.get("status") not in CHECK_STATUSES or result.get("genuine") is False:
        flags.append(f"the check of {ex} returned something that is not a genuine CheckResult")
        return ExerciseGrade(ex, title, "tampered", "The check returned something that is not a genuine result.",
                             _TAMPER_HINT)
    if result["status"] == "tampered":  # the check itself saw its cases or trusted library changed
        flags.append(f"the check of {ex} found code in the notebook changed what it relies on: "
                     f"{_cut(result.get('message', ''), 200)}")
    # the exercise notebook's heading names the exercise in every row; the check's own title only fills a gap
    return ExerciseGrade(ex, title or str(result.get("title") or ""), result["status"], str(result.get("message", "")),
                         str(result.get("hint", "")))


def _claimed_passes(outputs) -> set[str]:
    claimed = set()
    for out in outputs:
        data = out.get("data") if isinstance(out, dict) else None
        item = data.get(CHECK_MIME) if isinstance(data, dict) else None
        if isinstance(item, dict) and item.get("status") == "pass":
            claimed.add(str(item.get("exercise")))
    return claimed


def judge(submission: Submission, spec: ExerciseSpec, plan: Plan, runs: list[StepRun], events: list[str],
          cells: list[LearnerCell], seconds: float) -> SubmissionGrade:
    """The grades and notes of one submission, from the plan it ran and what happened to each step."""
    notes, flags = list(plan.notes), list(plan.flags)
    titles = {e.id: e.title for e in spec.exercises}
    steps = plan.steps
    baseline_runs = [r for s, r in zip(steps, runs) if s.kind == "preamble"]
    baselines = [p for p in _payloads(baseline_runs[0]) if p.get("nonce") == steps[0].nonce] if baseline_runs else []
    baseline = baselines[0] if len(baselines) == 1 else None
    if baseline is not None and "grader_error" in baseline:
        notes.append(f"the kernel could not load the checks: {_cut(baseline['grader_error'])}")
        baseline = None
    grades = {}
    for step, run in zip(steps, runs):
        if step.kind == "check":
            grades[step.exercise] = _grade_check(step, run, baseline, titles.get(step.exercise, ""), flags)
    notes += events
    for step, run in zip(steps, runs):
        if step.kind in ("learner", "setup") and run.status == "error":
            notes.append(f"{step.label} raised {_cut(run.error, 200)}")
        if run.capped:
            notes.append(f"{step.label} printed more than the grader keeps; its output was cut")
        if step.kind == "learner" and any(isinstance(o.get("data"), dict) and GRADE_MIME in o["data"] for o in run.outputs):
            flags.append(f"{step.label} displayed the grader's own MIME type")
    ran = _claimed_passes(o for s, r in zip(steps, runs) if s.kind == "learner" for o in r.outputs)
    stored = _claimed_passes(o for c in cells for o in c.stored_outputs)
    for ex_id, grade in grades.items():
        for claimed, where in ((ran, "when run by the grader"), (stored, "in its saved outputs")):
            if ex_id in claimed and not grade.passed:
                flags.append(f"the notebook shows PASS for {ex_id} {where}, but the grader's check gives {grade.status}")
    if len(notes) > MAX_NOTES:
        notes = notes[:MAX_NOTES] + [f"... and {len(notes) - MAX_NOTES} more"]
    ordered = tuple(grades[i] for i in spec.ids)
    return SubmissionGrade(submission, ordered, tuple(_cut(n) for n in notes), tuple(_cut(f) for f in flags), seconds)


def unrunnable(submission: Submission, spec: ExerciseSpec, status: str, why: str, hint: str = "",
               seconds: float = 0.0) -> SubmissionGrade:
    """The row of a submission that could not be run at all: every exercise gets ``status``."""
    grades = tuple(ExerciseGrade(e.id, e.title, status, f"Not graded: {why}.", hint) for e in spec.exercises)
    return SubmissionGrade(submission, grades, (_cut(why),), (), seconds)
