"""The header of every lesson and exercise notebook: Colab/Kaggle links and the install cell.

Lesson: none; this is the course's authoring tool, run by ``make pairs``. The repository's
address lives in one place, ``[project.urls] Repository`` in ``pyproject.toml``. From it this
module writes, right after each notebook's title cell (which stays first), two cells tagged
``course-header``:

- a markdown cell with "Open in Colab" and "Open in Kaggle" links for that very notebook, and
- a code cell that installs the course package (``course-utils``, from the repository) only when
  ``import course_utils`` would fail, as on a fresh Colab or Kaggle session, and does nothing
  else: it pins the torch already installed so pip keeps it.

It also writes the same links into README.md, between two marker comments, and what each
lesson needs, computed from its GPU cells (``needs_cuda``, ``needs_accelerator``; see
``course_authoring.lesson_map``): the generated module ``course_utils/lesson_needs.py`` that
``preflight()`` reads, the table in each lesson's first cell, and the last column of README's
two lesson tables.
``python -m course_authoring.header --write`` rewrites them (idempotent: old header cells are
removed and fresh ones inserted, so a notebook that lost them in a merge gets them back);
without ``--write`` it only reports files whose header or README table is missing or stale.
A fork changes the address in ``pyproject.toml`` and runs ``make pairs``.
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from course_authoring import lesson_links, lesson_map
from course_authoring.lesson_map import MakePairsError

try:
    import tomllib
except ImportError:  # Python 3.10: the same parser, as pip vendors it
    from pip._vendor import tomli as tomllib

TAG = "course-header"
BRANCH = "main"
# The environment variable that overrides where the install cell installs from (a test installs
# from the local checkout; an instructor can point it at a fork or a wheel).
SOURCE_VARIABLE = "COURSE_UTILS_SOURCE"
HEADED_DIRS = ("notebooks", "solutions")  # exercises/ is generated from solutions/ with its own links
README_START = "<!-- course-links:start (written by `make pairs` from pyproject.toml; do not edit) -->"
README_END = "<!-- course-links:end -->"
NEEDS_MODULE = "src/course_utils/lesson_needs.py"  # generated; preflight() reads it, notebooks/ need not exist
_CELL_START = re.compile(r"^# %%")
_GITHUB = re.compile(r"^https://github\.com/([A-Za-z0-9][A-Za-z0-9-]*)/([A-Za-z0-9._-]+?)/?$")


class HeaderError(MakePairsError):
    """The repository address or a notebook cannot be given a header."""


@dataclass(frozen=True)
class Repository:
    """The course's GitHub repository, as ``[project.urls] Repository`` names it."""

    owner: str
    name: str

    @property
    def url(self) -> str:
        return f"https://github.com/{self.owner}/{self.name}"

    def blob(self, path: str) -> str:
        return f"{self.url}/blob/{BRANCH}/{path}"

    def colab(self, path: str) -> str:
        return f"https://colab.research.google.com/github/{self.owner}/{self.name}/blob/{BRANCH}/{path}"

    def kaggle(self, path: str) -> str:
        return f"https://kaggle.com/kernels/welcome?src={self.blob(path)}"

    @property
    def pip_source(self) -> str:
        return f"course-utils @ git+{self.url}"


def repository(root: Path) -> Repository:
    """Read the repository's address from ``root/pyproject.toml``."""
    pyproject = root / "pyproject.toml"
    try:
        urls = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]["urls"]
        url = urls["Repository"]
    except (OSError, KeyError) as exc:
        raise HeaderError(
            f"{pyproject} has no [project.urls] Repository ({exc!r}); add one, e.g. "
            'Repository = "https://github.com/OWNER/NAME", then run `make pairs`.'
        ) from None
    match = _GITHUB.match(str(url))
    if not match:
        raise HeaderError(
            f"[project.urls] Repository = {url!r} in {pyproject} is not a GitHub address of the form "
            "https://github.com/OWNER/NAME (Colab and Kaggle open notebooks from GitHub); fix it and run `make pairs`."
        )
    owner, name = match.groups()
    return Repository(owner, name.removesuffix(".git"))


def header_text(repo: Repository, path: str) -> str:
    """The two header cells, in py:percent, for the notebook at ``path`` (relative to the repository)."""
    return f'''# %% [markdown] tags=["{TAG}"]
# **Run it on a free GPU:** [Open in Colab]({repo.colab(path)}) (one GPU: Runtime > Change runtime type > T4 GPU)
# · [Open in Kaggle]({repo.kaggle(path)}) (two GPUs: Settings > Accelerator > GPU T4 x2).
# Without a GPU the notebook still runs to the end.

# %% tags=["{TAG}"]
# On Colab, Kaggle or any Jupyter without the course: install its helpers (`course_utils`).
# Where they are installed already (`make lab`) this does nothing. The torch you have is kept.
import importlib.metadata, importlib.util, os, subprocess, sys
if importlib.util.find_spec("course_utils") is None:
    keep_torch = [f"torch=={{importlib.metadata.version('torch')}}"] if importlib.util.find_spec("torch") else []
    source = os.environ.get("{SOURCE_VARIABLE}", "{repo.pip_source}")
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", source, *keep_torch], check=True)
    importlib.invalidate_caches()
    print("installed course_utils from", source)
'''


def split_cells(text: str) -> tuple[str, list[str]]:
    """A py:percent text as (the preamble before the first cell, each cell's text)."""
    lines = text.splitlines(keepends=True)
    starts = [i for i, line in enumerate(lines) if _CELL_START.match(line)]
    if not starts:
        return text, []
    bounds = starts + [len(lines)]
    return "".join(lines[: starts[0]]), ["".join(lines[a:b]) for a, b in zip(bounds, bounds[1:])]


def _is_header(cell: str) -> bool:
    first = cell.split("\n", 1)[0]
    return f'"{TAG}"' in first and "tags=" in first


def with_header(text: str, repo: Repository, path: str) -> str:
    """``text`` (py:percent) with fresh header cells right after its first cell, old ones removed."""
    preamble, cells = split_cells(text)
    cells = [c for c in cells if not _is_header(c)]
    if not cells or not cells[0].startswith("# %% [markdown]"):
        raise HeaderError(
            f"{path}: the first cell should be the markdown title cell (`# %% [markdown]`, then `# # Title`); "
            "the header goes after it. Put the title first, then run `make pairs`."
        )
    title = cells[0] if cells[0].endswith("\n\n") else cells[0].rstrip("\n") + "\n\n"
    return (preamble + title + header_text(repo, path) + "\n" + "".join(cells[1:])).rstrip("\n") + "\n"


def retarget(text: str, old_path: str, new_path: str) -> str:
    """``text`` with its header cells' links and names moved from ``old_path`` to ``new_path``.

    ``make exercises`` writes ``exercises/NAME`` from ``solutions/NAME``: the exercise's links must
    open the exercise, not the answers. Cells other than the header are left byte for byte.
    """
    preamble, cells = split_cells(text)
    return preamble + "".join(c.replace(old_path, new_path) if _is_header(c) else c for c in cells)


def readme_table(repo: Repository, root: Path) -> str:
    """The README's table of links: one row per lesson, with its exercises where there are some."""
    rows = ["| # | Lesson | Exercises |", "|---|---|---|"]
    for lesson in sorted((root / "notebooks").glob("[0-9][0-9]_*.py")):
        notebook = f"notebooks/{lesson.stem}.ipynb"
        cells = [f"[Colab]({repo.colab(notebook)}) · [Kaggle]({repo.kaggle(notebook)})"]
        exercises = sorted((root / "solutions").glob(f"{lesson.stem[:2]}_*_exercises.py"))
        for ex in exercises:
            path = f"exercises/{ex.stem}.ipynb"
            cells.append(f"[Colab]({repo.colab(path)}) · [Kaggle]({repo.kaggle(path)})")
        if not exercises:
            cells.append("none")
        rows.append(f"| {lesson.stem[:2]} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


def readme_with_table(readme: str, table: str) -> str:
    """README text with the link table between the markers replaced by ``table``."""
    start, end = readme.find(README_START), readme.find(README_END)
    if start < 0 or end < start:
        raise HeaderError(
            f"README.md should hold the Colab/Kaggle table between the lines {README_START!r} and "
            f"{README_END!r}; put those two lines back (anywhere), then run `make pairs`."
        )
    return readme[: start + len(README_START)] + "\n" + table + "\n" + readme[end:]


def headed_sources(root: Path) -> list[Path]:
    """The ``.py`` sides that carry a header: every lesson and every solution notebook."""
    return [p for d in HEADED_DIRS for p in sorted((root / d).glob("[0-9][0-9]_*.py"))]


def _recorded_keys(root: Path) -> frozenset[str]:
    """The evidence keys some GPU run has recorded in ``root``'s recordings (what a lesson intro may promise)."""
    from course_utils.evidence.records import IN_CHECKOUT, load

    return frozenset(k for f in load(root / IN_CHECKOUT) for k in f.cells)


def expected(root: Path) -> dict[Path, str]:
    """Every file this tool writes, with the text it should have."""
    repo = repository(root)
    lessons = {Path(lesson.notebook).stem: lesson for lesson in lesson_map.scan_course(root)}
    recorded = _recorded_keys(root)
    from course_utils.evidence.field_records import RECORDS

    field = frozenset(r.key for r in RECORDS)
    own = lesson_links.read_lessons(root)  # what each lesson says of itself: README's rows, the closing links
    position = {lesson.stem: k for k, lesson in enumerate(own)}
    texts = {}
    for py in headed_sources(root):
        text = py.read_text(encoding="utf-8")
        where = f"{py.parent.name}/{py.stem}.ipynb"
        if py.parent.name == "notebooks" and py.stem in lessons:
            text = lesson_map.with_intro_block(text, lesson_map.intro_block(lessons[py.stem], recorded, field), where)
            text = lesson_links.with_closing_links(text, lesson_links.closing_links(own, position[py.stem]), where)
        texts[py] = with_header(text, repo, where)
    readme = root / "README.md"
    text = readme_with_table(readme.read_text(encoding="utf-8"), readme_table(repo, root))
    text = lesson_links.readme_with_rows(text, own)
    texts[readme] = lesson_map.readme_with_needs(text, tuple(lessons.values()))
    texts[root / NEEDS_MODULE] = lesson_map.module_text(tuple(lessons.values()))
    return texts


def _current(path: Path) -> str | None:
    return path.read_text(encoding="utf-8") if path.is_file() else None


def stale(root: Path) -> list[str]:
    """Every file whose header, link table or lesson needs are missing or differ from what ``--write`` writes."""
    return [
        f"{path.relative_to(root)}: Colab/Kaggle header or what-each-lesson-needs missing or stale; run `make pairs`"
        for path, text in expected(root).items()
        if _current(path) != text
    ]


def write(root: Path) -> list[Path]:
    """Write every header, the README tables and the lesson-needs module; return the files that changed."""
    changed = []
    for path, text in expected(root).items():
        if _current(path) != text:
            path.write_text(text, encoding="utf-8")
            changed.append(path)
    return changed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="(re)write the headers and README's table")
    parser.add_argument("--root", type=Path, default=Path("."))
    args = parser.parse_args(argv)
    try:
        if args.write:
            for path in write(args.root):
                print(f"wrote header of {path}")
            return 0
        problems = stale(args.root)
    except MakePairsError as exc:  # a header's, or the needs tables' (lesson_map)
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print("\n".join(problems) if problems else "every header and README's link table are up to date")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
