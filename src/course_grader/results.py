"""What grading found: one row per submission, one grade per exercise, and the batch summary.

Lesson: none; this is the instructors' tool (``course-grade``). These are plain frozen records;
``report`` turns them into files and ``batch`` makes them; ``summary_text`` (the batch as text) is here
because it is ``BatchResult.__str__``, so this module imports nothing of ``report``.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path

from course_utils.check_cells import CHECK_STATUSES
from course_utils.display import markup, pre, table, tag

MESSAGE_LIMIT = 20_000  # characters of one check's message (and of its hint) kept in the reports


# Characters a terminal or an editor acts on instead of showing: C0 and C1 controls (ESC starts the escape sequences
# that clear a screen or retitle a window), DEL, and Unicode's direction overrides. A learner chooses much of what the
# reports quote (file names, paths written to, exception messages), so every report shows these as escapes.
_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_CONTROLS_AND_BREAKS = re.compile(_CONTROLS.pattern[:-1] + "\t\n]")


def no_controls(text: object, *, one_line: bool = False) -> str:
    """``text`` with every control character shown as its escape (``\\x1b``); tabs and line breaks kept, unless
    ``one_line``."""
    pattern = _CONTROLS_AND_BREAKS if one_line else _CONTROLS
    return pattern.sub(lambda m: ascii(m.group())[1:-1], str(text))


def cut_with_note(text: str, limit: int) -> str:
    """``text``, or its first ``limit`` characters and a note saying how much the grader cut."""
    text = str(text)
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n[cut by the grader: {len(text) - limit:,} more characters of {len(text):,}]"


# The check's own statuses, then the grader's, for what no check can say:
# "timeout": the check (or the notebook before it) ran past a time limit;
# "crashed": the kernel died before or while checking;
# "invalid": the file is not a readable notebook, or no notebook was found;
GRADER_ONLY_STATUSES = ("timeout", "crashed", "invalid")
GRADE_STATUSES = CHECK_STATUSES + tuple(s for s in GRADER_ONLY_STATUSES if s not in CHECK_STATUSES)


@dataclass(frozen=True)
class ExerciseGrade:
    """The grade of one exercise in one submission: its status, and what to tell the learner."""

    exercise: str
    title: str
    status: str
    message: str
    hint: str = ""

    def __post_init__(self) -> None:
        if self.status not in GRADE_STATUSES:
            raise ValueError(f"status {self.status!r} is not one of {', '.join(GRADE_STATUSES)}")

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
    def passed_count(self) -> int:
        """How many exercises passed (``ExerciseGrade.passed`` is one exercise's bool)."""
        return sum(g.passed for g in self.grades)

    @property
    def total(self) -> int:
        return len(self.grades)

    @property
    def reason(self) -> str:
        """One line for the table: the flags first, then the notes."""
        return "; ".join((*(f"FLAG: {f}" for f in self.flags), *self.notes))

    def __str__(self) -> str:
        head = f"{self.submission.learner}: {self.passed_count}/{self.total} passed"
        return "\n".join([head, *(f"  {g}" for g in self.grades), *(f"  note: {n}" for n in self.notes), *(f"  FLAG: {f}" for f in self.flags)])

    def _repr_html_(self) -> str:
        return markup(
            tag("b", self.submission.learner),
            f": {self.passed_count}/{self.total} passed",
            table((g.exercise, g.status, g.message) for g in self.grades),
        )


@dataclass(frozen=True)
class Shard:
    """Which part of a submissions folder a batch graded (``course-grade --shard K/N``; ``shards``).

    ``of``: the (learner, file) of every submission in the folder, in the folder's order, so that the
    merge can see that the shards saw the same folder and together graded all of it."""

    index: int
    count: int
    of: tuple[tuple[str, str], ...] = ()

    def __str__(self) -> str:
        return f"shard {self.index}/{self.count}"


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
    limits: str = ""  # the time limits each submission had, in words
    copies: str = ""  # where copies of the published solution were looked for, in words
    verified: str = ""  # what the course's code was compared with before the first kernel (course_grader.manifest)
    shard: Shard | None = None  # the part of the folder this batch graded (--shard K/N); None: all of it
    merged_from: int = 0  # how many shards ``course-grade merge`` joined into this result; 0: one batch
    ended: tuple[str, ...] = ()  # processes a learner's code left running past its kernel, which the grader ended

    def counts(self) -> dict[str, Counter]:
        """How many submissions got each status, per exercise id."""
        per: dict[str, Counter] = {i: Counter() for i in self.exercise_ids}
        for row in self.rows:
            for g in row.grades:
                per.setdefault(g.exercise, Counter())[g.status] += 1
        return per

    def __str__(self) -> str:
        return summary_text(self)

    def _repr_html_(self) -> str:
        return pre(str(self))


def one_title_each(headings: dict[str, str], rows: list[SubmissionGrade]) -> tuple[SubmissionGrade, ...]:
    """Name each exercise the same way in every row: the exercise notebook's heading (``headings``, by id), or,
    where it has none, the title the first row that ran the check got from it (a row that never ran has none).

    ``batch`` calls it on a batch's rows, ``shards`` on the rows it merged, with the headings a shard recorded."""
    titles = dict(headings)
    for row in rows:
        for g in row.grades:
            titles[g.exercise] = titles.get(g.exercise) or g.title
    return tuple(replace(r, grades=tuple(replace(g, title=titles.get(g.exercise, g.title)) for g in r.grades)) for r in rows)


def _shard_lines(result: BatchResult) -> list[str]:
    """What part of the folder the result covers, when it is a shard or a merge of shards."""
    if result.shard is not None:
        return [
            f"{result.shard}: {len(result.rows)} of the folder's {len(result.shard.of)} submission(s), chosen "
            "by a hash of each learner's name; `course-grade merge` joins the shards into one report"
        ]
    if result.merged_from:
        return [f"merged from {result.merged_from} shard(s) by `course-grade merge`: the jobs and seconds above are the shards' together"]
    return []


def summary_text(result: BatchResult) -> str:
    """Counts per exercise and status, who passed everything, what to look at."""
    counts = result.counts()
    used = [s for s in GRADE_STATUSES if s in ("pass", "fail") or any(c[s] for c in counts.values())]
    width = max([8, *(len(i) for i in counts)])
    head = f"{'exercise':<{width}}  " + "  ".join(f"{s:>{max(len(s), 4)}}" for s in used)
    table = [head] + [f"{i:<{width}}  " + "  ".join(f"{c[s]:>{max(len(s), 4)}}" for s in used) for i, c in counts.items()]
    everything = Counter(g.status for r in result.rows for g in r.grades)
    rows = result.rows
    lines = [
        f"course-grade: {Path(result.exercise_notebook).name}, {len(rows)} submission(s), {result.jobs} job(s), {result.seconds:.1f} s",
        *([result.isolation] if result.isolation else []),
        *([result.limits] if result.limits else []),
        *([result.copies] if result.copies else []),
        *([result.verified] if result.verified else []),
        *_shard_lines(result),
        "",
        *table,
        "",
        "all statuses: " + (", ".join(f"{s} {everything[s]}" for s in GRADE_STATUSES if everything[s]) or "none"),
        f"passed every exercise: {sum(r.passed_count == r.total and r.total > 0 for r in rows)} of {len(rows)}",
    ]
    flagged = [r for r in rows if r.flags]
    copies = sum(any(f.startswith("copy of the published solution") for f in r.flags) for r in rows)
    if copies:
        lines.append(f"copies of the published solution (flagged, not failed): {copies} of {len(rows)}")
    if flagged:
        lines += ["", "flagged for a look (see the reason column of grades.csv):"]
        lines += [f"  {no_controls(r.submission.learner, one_line=True)}: {no_controls(f, one_line=True)}" for r in flagged for f in r.flags]
    if result.ended:
        lines += ["", "processes that learners' code left running after its kernel ended (no sandbox), ended by the grader:"]
        lines += [f"  {no_controls(e, one_line=True)}" for e in result.ended[:50]]
    if result.changed_files:
        lines += ["", "WARNING: the exercise notebook, the submissions, the course checkout or the Python environment changed while grading:"]
        lines += [f"  {no_controls(c, one_line=True)}" for c in result.changed_files[:50]]
    else:
        lines += ["", "the exercise notebook, the submissions, the course checkout and the Python environment are unchanged (before and after)"]
    return "\n".join(lines) + "\n"
