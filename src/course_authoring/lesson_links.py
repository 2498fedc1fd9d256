"""What a lesson's own notebook decides for the files around it: README's two rows, and its closing links.

Lesson: none; ``make pairs`` (issue 32, item 6: a lesson is six hand-written files, the rest generated).
Each lesson's first cell holds a block, an HTML comment that Jupyter and the website do not show::

    # <!-- readme (make pairs writes README's rows from these lines)
    # learn: where a new tensor lives; `.to`, `.cuda()`, `.cpu()`; ...
    # covers: where a new tensor lives; `.to`/`.cuda()`/`.cpu()` (same object when nothing changes, ...
    # -->

``learn`` is its row's third column in README's table under "The lessons", ``covers`` the same column under
"What each lesson covers" (``lesson_map`` computes the last column of both). The lesson's closing links sit
between ``# <!-- next-links:start, written by make pairs -->`` and ``# <!-- next-links:end -->``: its
exercises notebook (or that it has none) and the next lesson by its title (or that this is the last), so a new
lesson is linked from the one before without editing it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from course_authoring.lesson_map import COVERS_TABLE, LESSONS_TABLE, MakePairsError

README_BLOCK = re.compile(r"^# <!-- readme\b.*\n(?P<body>(?:#.*\n)*?)# -->\n", re.M)
LINKS_START = "<!-- next-links:start, written by make pairs -->"
LINKS_END = "<!-- next-links:end -->"
TITLE = re.compile(r"^# # (?P<number>\d\d) · (?P<title>.+)$", re.M)
FIELDS = ("learn", "covers")


@dataclass(frozen=True)
class LessonText:
    """What one lesson's notebook says of itself: its number, file stem, title and README lines."""

    number: str
    stem: str
    title: str
    learn: str
    covers: str
    has_exercises: bool


def read_lesson(py: Path, root: Path) -> LessonText:
    """``notebooks/NN_name.py``'s title and readme block; a MakePairsError that says what to add."""
    text = py.read_text(encoding="utf-8")
    where = f"notebooks/{py.name}"
    title = TITLE.search(text)
    if title is None or title["number"] != py.name[:2]:
        raise MakePairsError(f"{where}: the first cell should start with its title, `# # {py.name[:2]} · Title`.")
    block = README_BLOCK.search(text)
    if block is None:
        raise MakePairsError(
            f"{where}: the first cell should hold a readme block (lines `# <!-- readme`, "
            "`# learn: ...`, `# covers: ...`, `# -->`): README's rows are written from it."
        )
    fields: dict[str, list[str]] = {}
    key = None
    for line in block["body"].splitlines():
        line = line.removeprefix("#").strip()
        found = re.match(r"(\w+):\s*(.*)$", line)
        if found and found[1] in FIELDS:
            key = found[1]
            fields[key] = [found[2]]
        elif key and line:
            fields[key].append(line)  # a long line folded onto the next
    missing = [f for f in FIELDS if not fields.get(f)]
    if missing:
        raise MakePairsError(f"{where}: its readme block lacks {', '.join(f'`{m}:`' for m in missing)}.")
    exercises = (root / "solutions" / f"{py.stem}_exercises.py").exists()
    return LessonText(py.name[:2], py.stem, title["title"].strip(), *(" ".join(fields[f]) for f in FIELDS), exercises)


def read_lessons(root: Path) -> list[LessonText]:
    return [read_lesson(py, root) for py in sorted((root / "notebooks").glob("[0-9][0-9]_*.py"))]


def closing_links(lessons: list[LessonText], k: int) -> str:
    """The closing links of lesson ``k`` (its exercises, then the next lesson), as the .py's comment lines."""
    lesson = lessons[k]
    if lesson.has_exercises:
        name = f"{lesson.stem}_exercises.ipynb"
        exercises = f"**Exercises:** [{name}]({name})."
    else:
        exercises = f"**Exercises:** lesson {lesson.number} has no exercises notebook; its try-it cells are its practice."
    if k + 1 < len(lessons):
        nxt = lessons[k + 1]
        stop = "" if nxt.title[-1] in ".?!" else "."
        following = f"**Next:** lesson {nxt.number}, [{nxt.stem}.ipynb]({nxt.stem}.ipynb): {nxt.title}{stop}"
    else:
        following = (
            "**Next:** this is the last lesson. Back to [the course README](../README.md), where every lesson is listed with what it covers."
        )
    return "\n".join(f"# {line}" for line in (LINKS_START, exercises, following, LINKS_END))


def with_closing_links(text: str, links: str, where: str) -> str:
    """``text`` with its closing links replaced by ``links``; a MakePairsError when the markers are missing."""
    start, end = text.find(f"# {LINKS_START}"), text.find(f"# {LINKS_END}")
    if start < 0 or end < start:
        raise MakePairsError(
            f"{where}: its last summary cell should hold the lines `# {LINKS_START}` and "
            f"`# {LINKS_END}` (the links to its exercises and the next lesson go between them); "
            "put them back, then run `make pairs`."
        )
    return text[:start] + links + text[end + len(f"# {LINKS_END}") :]


def readme_with_rows(readme: str, lessons: list[LessonText]) -> str:
    """README with the rows of its two lesson tables written from the lessons (the last column left for
    ``lesson_map.readme_with_needs``, which computes it)."""
    lines = readme.split("\n")
    for head, row in (
        (LESSONS_TABLE, lambda n: f"| {n.number} | `{n.stem}.ipynb` | {n.learn} | |"),
        (COVERS_TABLE, lambda n: f"| {n.number} | `notebooks/{n.stem}.ipynb` | {n.covers} | |"),
    ):
        if head not in lines:
            raise MakePairsError(f"README.md should hold a table headed {head!r}; put it back, then run `make pairs`.")
        first = lines.index(head) + 2
        last = first
        while last < len(lines) and lines[last].startswith("| "):
            last += 1
        lines[first:last] = [row(n) for n in lessons]
    return "\n".join(lines)
