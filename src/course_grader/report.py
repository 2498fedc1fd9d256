"""Write what a batch found: the grades table, one feedback file per learner, and a summary.

Lesson: none; this is the instructors' tool (``course-grade``). Files written in the output
folder:

- ``grades.csv``: one row per submission, one column per exercise (its status), then
  ``passed``, ``total``, ``seconds`` (time to grade it), ``feedback`` (the learner's feedback
  file) and ``reason`` (what went wrong while running it, and FLAGs for the instructor);
- ``details.csv``: one row per submission and exercise, with the check's message and hint;
- ``feedback/<learner>.md``: for the learner, per exercise the result, message and hint;
- ``summary.txt``: counts per exercise and status, flagged submissions, and whether the
  instructor's files stayed unchanged.

An output folder holds one batch's report: an earlier report there is replaced whole (stale
feedback files included), and a folder holding anything else is refused before grading.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

# summary_text lives with BatchResult (it is its __str__); imported here for write_reports and cli.
from course_grader.results import BatchResult, SubmissionGrade, cut_with_note, no_controls, summary_text

CELL_LIMIT = 2000
FEEDBACK_LIMIT = 1024 * 1024  # characters of one feedback file; a longer one is cut, with a note


def _safe(text: object) -> str:
    """A CSV cell that spreadsheets will not run as a formula, and of bounded length."""
    text = no_controls(str(text)[:CELL_LIMIT])  # no escape sequence reaches a terminal that shows the file
    # leading blanks too: an import that trims spaces (LibreOffice's option) would meet the formula itself
    return "'" + text if text.lstrip(" \t\n")[:1] in ("=", "+", "-", "@", "\t", "\r") else text


REPORT_FILES = ("grades.csv", "details.csv", "summary.txt", "shard.json")  # shard.json: a --shard run's (shards)
_CODE_SPAN = re.compile(r"(`+)(.+?)(?<!`)\1(?!`)", re.S)
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]<>|#~])")


def _is_ours(path: Path) -> bool:
    """Whether ``path`` in an output folder belongs to a course-grade report."""
    if path.name == "feedback" and path.is_dir() and not path.is_symlink():
        return all(p.is_file() and p.suffix == ".md" for p in path.iterdir())
    return path.name in REPORT_FILES and path.is_file()


def prepare_out(out: Path) -> str:
    """Check the output folder before grading: "" when new or empty, a note when an earlier report
    will be replaced, ValueError when it holds anything else (the grader deletes nothing it did not write)."""
    out = Path(out)
    if not out.exists():
        return ""
    if not out.is_dir():
        raise ValueError(f"--out {out} is a file, not a folder; give a new or empty folder")
    entries = sorted(out.iterdir())
    foreign = [p.name for p in entries if not _is_ours(p)]
    if foreign:
        raise ValueError(
            f"--out {out} holds files that are not a course-grade report ({', '.join(foreign[:5])}"
            f"{' ...' if len(foreign) > 5 else ''}); give a new or empty folder, or an earlier "
            "report's folder, which is then replaced"
        )
    if not entries:
        return ""
    old = len(list((out / "feedback").glob("*.md"))) if (out / "feedback").is_dir() else 0
    return (
        f"replacing the earlier report in {out} ({', '.join(p.name for p in entries if p.is_file())}"
        + (f", {old} feedback file(s)" if old else "")
        + ")"
    )


def _clear(out: Path) -> None:
    """Remove an earlier report from ``out``, so no stale feedback file stays beside the new grades."""
    for name in REPORT_FILES:
        (out / name).unlink(missing_ok=True)
    if (out / "feedback").is_dir():
        for path in (out / "feedback").glob("*.md"):
            path.unlink()


def markdown(text: str) -> str:
    """Plain text (a check's message or hint) as Markdown that shows it as written.

    Balanced backtick spans (`like this`) become code; every other character Markdown would
    read as formatting (``**`` in ``1024**3``, ``_`` in ``__init__``, ``|``, a stray backtick)
    is escaped, and line breaks are kept.
    """
    parts, last = [], 0
    text = no_controls(text)
    for match in _CODE_SPAN.finditer(text):
        parts.append(_MARKDOWN_SPECIAL.sub(r"\\\1", text[last : match.start()]))
        parts.append(match.group(0).replace("|", "\\|"))  # a | ends a table cell even inside code
        last = match.end()
    parts.append(_MARKDOWN_SPECIAL.sub(r"\\\1", text[last:]))
    return "  \n".join("".join(parts).splitlines())


def feedback_name(row: SubmissionGrade) -> str:
    return f"feedback/{row.submission.slug}.md"


def feedback_text(row: SubmissionGrade, notebook: str) -> str:
    """The learner's feedback: a table of results, then per exercise the message and the hint.

    When every exercise has the same message (a file that could not be run at all), it is said
    once, not once per exercise and again under "While running your notebook".
    """
    lines = [
        f"# Feedback on {markdown(notebook)}",
        "",
        f"Submission: {markdown(row.submission.learner)} ({markdown(row.submission.file)})",
        "",
        f"**{row.passed_count} of {row.total} exercises pass.**",
        "",
        "| Exercise | Result |",
        "|---|---|",
    ]
    lines += [f"| {g.exercise} {markdown(g.title)} | {g.status.upper() if g.passed else g.status} |" for g in row.grades]
    said = set()
    same = len(row.grades) > 1 and len({(g.status, g.message, g.hint) for g in row.grades}) == 1
    for g in row.grades[:1] if same else row.grades:
        head = "All exercises" if same else f"{g.exercise} · {markdown(g.title or 'exercise')}"
        lines += ["", f"## {head}: {g.status}", "", markdown(g.message)]
        said.add(" ".join(g.message.split()))
        if g.hint and not g.passed:
            lines += ["", f"**Hint:** {markdown(g.hint)}"]
    notes = [n for n in row.notes if not any(n.rstrip(".") in m for m in said)]
    if notes:
        lines += ["", "## While running your notebook", ""] + [f"- {markdown(n)}" for n in notes]
    return cut_with_note("\n".join(lines), FEEDBACK_LIMIT) + "\n"


def write_reports(result: BatchResult, out: Path) -> list[Path]:
    """Write grades.csv, details.csv, summary.txt and feedback/*.md into ``out``; return the paths."""
    out = Path(out)
    (out / "feedback").mkdir(parents=True, exist_ok=True)
    _clear(out)
    notebook = Path(result.exercise_notebook).name
    written = []
    grades = out / "grades.csv"
    with open(grades, "w", newline="", encoding="utf-8") as handle:
        table = csv.writer(handle)
        table.writerow(["learner", "file", *result.exercise_ids, "passed", "total", "seconds", "feedback", "reason"])
        for row in result.rows:
            by_id = {g.exercise: g.status for g in row.grades}
            table.writerow(
                [
                    _safe(row.submission.learner),
                    _safe(row.submission.file),
                    *(by_id.get(i, "") for i in result.exercise_ids),
                    row.passed_count,
                    row.total,
                    f"{row.seconds:.1f}",
                    feedback_name(row),
                    _safe(row.reason),
                ]
            )
    written.append(grades)
    details = out / "details.csv"
    with open(details, "w", newline="", encoding="utf-8") as handle:
        table = csv.writer(handle)
        table.writerow(["learner", "exercise", "title", "status", "message", "hint"])
        for row in result.rows:
            for g in row.grades:
                table.writerow([_safe(row.submission.learner), g.exercise, _safe(g.title), g.status, _safe(g.message), _safe(g.hint)])
    written.append(details)
    for row in result.rows:
        path = out / feedback_name(row)
        path.write_text(feedback_text(row, notebook), encoding="utf-8")
        written.append(path)
    summary = out / "summary.txt"
    summary.write_text(summary_text(result), encoding="utf-8")
    written.append(summary)
    return written
