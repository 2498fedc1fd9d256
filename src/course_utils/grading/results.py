"""What grading found: one row per submission, one grade per exercise, and the batch summary.

Lesson: none; this is the instructors' tool (``course-grade``). These are plain frozen records;
``report`` turns them into files and ``batch`` makes them.
"""

from __future__ import annotations

import html
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from course_utils.checks._core import STATUSES as CHECK_STATUSES

# The check's own statuses, then the grader's, for what no check can say:
# "timeout": the check (or the notebook before it) ran past a time limit;
# "crashed": the kernel died before or while checking;
# "invalid": the file is not a readable notebook, or no notebook was found;
# "tampered": the grader's own check was interfered with, so no result can be trusted (a check
# also says "tampered" itself when the notebook changed the cases or library functions it trusts).
GRADER_STATUSES = ("timeout", "crashed", "invalid", "tampered")
STATUSES = CHECK_STATUSES + tuple(s for s in GRADER_STATUSES if s not in CHECK_STATUSES)


@dataclass(frozen=True)
class ExerciseGrade:
    """The grade of one exercise in one submission: its status, and what to tell the learner."""

    exercise: str
    title: str
    status: str
    message: str
    hint: str = ""

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(f"status {self.status!r} is not one of {', '.join(STATUSES)}")

    @property
    def passed(self) -> bool:
        return self.status == "pass"

    def __str__(self) -> str:
        return f"[{self.exercise}] {self.status}: {self.message}"


@dataclass(frozen=True)
class Submission:
    """One learner's submission: the file found for them (or None) and safe names for reports."""

    learner: str  # printable name: undecodable bytes are shown as \xNN escapes
    file: str  # the path as found, relative to the submissions folder, printable
    slug: str  # a file-system-safe name, unique within the batch, for the feedback file
    path: Path | None  # the file to grade, or None when none was found
    problem: str = ""  # why there is nothing to run, when path is None


@dataclass(frozen=True)
class SubmissionGrade:
    """Everything graded for one submission: one grade per exercise, plus what happened running it."""

    submission: Submission
    grades: tuple[ExerciseGrade, ...]
    notes: tuple[str, ...] = ()  # what went wrong while running: errors, timeouts, crashes, caps
    flags: tuple[str, ...] = ()  # what looks like tampering or escaping; for the instructor to read
    seconds: float = 0.0

    @property
    def passed(self) -> int:
        return sum(g.passed for g in self.grades)

    @property
    def total(self) -> int:
        return len(self.grades)

    @property
    def reason(self) -> str:
        """One line for the table: the flags first, then the notes."""
        return "; ".join((*(f"FLAG: {f}" for f in self.flags), *self.notes))

    def __str__(self) -> str:
        head = f"{self.submission.learner}: {self.passed}/{self.total} passed"
        return "\n".join([head, *(f"  {g}" for g in self.grades), *(f"  note: {n}" for n in self.notes),
                          *(f"  FLAG: {f}" for f in self.flags)])

    def _repr_html_(self) -> str:
        rows = "".join(f"<tr><td>{html.escape(g.exercise)}</td><td>{html.escape(g.status)}</td>"
                       f"<td>{html.escape(g.message)}</td></tr>" for g in self.grades)
        return (f"<b>{html.escape(self.submission.learner)}</b>: {self.passed}/{self.total} passed"
                f"<table>{rows}</table>")


@dataclass(frozen=True)
class BatchResult:
    """A graded batch: the exercise ids in order, one row per submission, and what the grader saw."""

    exercise_notebook: str
    exercise_ids: tuple[str, ...]
    rows: tuple[SubmissionGrade, ...]
    jobs: int
    seconds: float
    changed_files: tuple[str, ...] = ()  # instructor files that changed while grading (should be none)
    strays: tuple[str, ...] = field(default=())  # files that appeared outside any scratch folder
    isolation: str = ""  # how the kernels were isolated, in words (bubblewrap, or none and why)

    def counts(self) -> dict[str, Counter]:
        """How many submissions got each status, per exercise id."""
        per: dict[str, Counter] = {i: Counter() for i in self.exercise_ids}
        for row in self.rows:
            for g in row.grades:
                per.setdefault(g.exercise, Counter())[g.status] += 1
        return per

    def __str__(self) -> str:
        from course_utils.grading.report import summary_text

        return summary_text(self)

    def _repr_html_(self) -> str:
        return f"<pre>{html.escape(str(self))}</pre>"
