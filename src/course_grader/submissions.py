"""Find the learners' submissions in a folder, name them safely, and read their code cells.

Lesson: none; this is the instructors' tool (``course-grade``). A submission is either a file
directly in the folder (``alice.ipynb``) or a folder per learner (``alice/...``, as nbgrader's
``submitted/`` holds them) with one notebook inside. Anything that is not a readable notebook
still gets a row, with the reason.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from course_grader.results import Submission

MAX_BYTES = 50 * 1024 * 1024  # a notebook bigger than this is refused, not read into memory
SKIP = (".ipynb_checkpoints", "__pycache__")


@dataclass(frozen=True)
class LearnerCell:
    """One code cell of a submission: its number among the code cells (1-based) and its source."""

    number: int
    source: str
    stored_outputs: tuple[dict, ...] = ()


class InvalidSubmission(ValueError):
    """The file is not a notebook the grader can run; the message says why, for the learner."""


def printable(name: str) -> str:
    """A file name as text anyone can read: undecodable bytes become \\xNN, control characters too."""
    text = os.fsencode(name).decode("utf-8", "backslashreplace")
    return "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in text)


def slug(name: str) -> str:
    """A short ASCII file name for ``name``: letters, digits, '.', '-', '_' only.

    At most 48 characters (57 with a clash's hash): the kernel's Unix sockets live under it in
    the sandbox, and a socket's path holds at most 107 bytes.
    """
    text = unicodedata.normalize("NFKD", printable(name)).encode("ascii", "ignore").decode()
    text = re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("._-")[:48]
    return text or "submission"


def _unique_slugs(names: list[str]) -> list[str]:
    """One slug per name, no two alike even where the file system ignores case: a clash gets a hash of the name.

    A learner can name a file after the slug a clash would give another (``a_b-7dbde935`` beside ``a b`` and
    ``a_b``): such a hashed slug takes the next 8 hex digits of the hash until it is free, so no two learners
    share a scratch folder or a feedback file."""
    slugs = [slug(n) for n in names]
    counts: dict[str, int] = {}
    for s in slugs:
        counts[s.lower()] = counts.get(s.lower(), 0) + 1
    taken = {s.lower() for s in slugs if counts[s.lower()] == 1}
    unique = []
    for s, n in zip(slugs, names):
        if counts[s.lower()] > 1:
            digest = hashlib.sha1(os.fsencode(n)).hexdigest()
            tries = [f"{s}-{digest[k : k + 8]}" for k in range(0, 33, 8)]  # 57 characters at most, each
            tries += [f"{s}-{k:08d}" for k in range(len(names) + 1)]  # every part of the digest taken: a counter
            s = next(t for t in tries if t.lower() not in taken)
        taken.add(s.lower())
        unique.append(s)
    return unique


def _visible(entry: os.DirEntry) -> bool:
    return not entry.name.startswith(".") and entry.name not in SKIP


def _notebooks_in(folder: Path, depth: int = 3, links: list[str] | None = None) -> list[Path]:
    """The notebooks in a learner's folder and its subfolders; symbolic links are not followed, but named in
    ``links`` (a link can point at another learner's notebook, the solutions, or any file the grader can read)."""
    found: list[Path] = []
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return found
    for entry in entries:
        if not _visible(entry):
            continue
        if entry.is_symlink():
            if links is not None:
                links.append(entry.name)
        elif entry.is_dir(follow_symlinks=False) and depth > 0:
            found += _notebooks_in(Path(entry.path), depth - 1, links)
        elif entry.is_file(follow_symlinks=False) and entry.name.endswith(".ipynb"):
            found.append(Path(entry.path))
    return found


LINK_PROBLEM = "is a symbolic link, which the grader does not follow: hand in the notebook file itself"


def find_submissions(folder: Path, exercise_name: str) -> list[Submission]:
    """Every submission in ``folder``, sorted by name: its files, and its folders (one per learner)."""
    folder = Path(folder)
    if not folder.is_dir():
        raise ValueError(
            f"The submissions folder {folder} does not exist or is not a folder. Give the folder that holds the learners' notebooks."
        )
    entries = sorted((e for e in os.scandir(folder) if _visible(e)), key=lambda e: os.fsencode(e.name))
    learners = [e.name[: -len(".ipynb")] if e.is_file() and e.name.endswith(".ipynb") else e.name for e in entries]
    found = []
    for entry, learner, safe in zip(entries, learners, _unique_slugs(learners)):
        path, problem, links = Path(entry.path), "", []
        if entry.is_symlink():  # to another learner's notebook, the solutions, a file outside: never followed
            path, problem = None, f"{printable(entry.name)} {LINK_PROBLEM}"
        elif entry.is_dir(follow_symlinks=False):
            notebooks = _notebooks_in(path, links=links)
            named = [p for p in notebooks if p.name == exercise_name]
            if len(named) == 1 or len(notebooks) == 1:
                path = (named or notebooks)[0]
            else:
                problem = (
                    f"no notebook in {printable(entry.name)}/"
                    if not notebooks
                    else f"{len(notebooks)} notebooks in {printable(entry.name)}/ and not exactly one named "
                    f"{exercise_name}: " + ", ".join(printable(p.name) for p in notebooks)
                ) + (f" ({', '.join(printable(n) for n in links[:5])} {LINK_PROBLEM})" if links else "")
                path = None
        elif not entry.is_file(follow_symlinks=False):
            path, problem = None, f"{printable(entry.name)} is neither a file nor a folder"
        shown = printable(os.path.relpath(path, folder)) if path else printable(entry.name)
        found.append(Submission(printable(learner), shown, safe, path, problem))
    return found


def _source(cell: dict) -> str:
    source = cell.get("source", "")
    if isinstance(source, list) and all(isinstance(s, str) for s in source):
        return "".join(source)
    if isinstance(source, str):
        return source
    raise InvalidSubmission(f"a cell's source is a {type(source).__name__}, not text")


def _cells_from_json(text: str) -> list[dict]:
    try:
        nb = json.loads(text)
    except ValueError as exc:
        raise InvalidSubmission(f"not valid notebook JSON ({exc}); was the file saved completely?") from exc
    except (RecursionError, MemoryError) as exc:  # JSON nested beyond the parser's depth: built to crash the grader
        raise InvalidSubmission(f"not a notebook: its JSON is nested too deeply to read ({type(exc).__name__})") from None
    if not isinstance(nb, dict):
        raise InvalidSubmission(f"the JSON holds a {type(nb).__name__}, not a notebook")
    if "worksheets" in nb:  # nbformat 3: let nbformat convert it
        import nbformat

        try:
            nb = nbformat.convert(nbformat.from_dict(nb), 4)
        except Exception as exc:
            raise InvalidSubmission(f"an old-format notebook that cannot be converted ({exc})") from exc
    cells = nb.get("cells")
    if not isinstance(cells, list) or not all(isinstance(c, dict) for c in cells):
        raise InvalidSubmission("the JSON has no list of cells; it is not a Jupyter notebook")
    return cells


def _read_no_link(path: Path) -> bytes:
    """The file's bytes, refusing a symbolic link in its last part (``O_NOFOLLOW``) where the OS has it."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    with os.fdopen(fd, "rb") as handle:
        return handle.read(MAX_BYTES + 1)


def read_code_cells(path: Path) -> list[LearnerCell]:
    """The code cells of a submission, in order; InvalidSubmission when it is not a notebook.

    Accepts ``.ipynb`` and Jupytext ``.py`` (percent format). Stored outputs are kept only so the
    grader can compare what the file claims with what it finds; they are never trusted.
    """
    path = Path(path)
    name = printable(path.name)
    if path.suffix not in (".ipynb", ".py", ".json"):
        kind = f"a {printable(path.suffix)} file" if path.suffix else "a file without extension"
        raise InvalidSubmission(f"{name} is not a notebook: expected a .ipynb file, found {kind}")
    try:
        size = path.stat().st_size
        if size > MAX_BYTES:
            raise InvalidSubmission(f"{name} is {size / 2**20:.0f} MiB, over the {MAX_BYTES // 2**20} MiB limit; clear its outputs and resubmit")
        raw = _read_no_link(path)
        if len(raw) > MAX_BYTES:
            raise InvalidSubmission(f"{name} is over the {MAX_BYTES // 2**20} MiB limit; clear its outputs and resubmit")
    except OSError as exc:
        raise InvalidSubmission(f"{name} cannot be read ({exc.strerror or exc})") from exc
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InvalidSubmission(f"{name} is not UTF-8 text (byte {exc.start}); it is not a notebook") from exc
    if path.suffix == ".py":
        import jupytext

        try:
            cells = jupytext.reads(text, fmt="py:percent")["cells"]
        except Exception as exc:
            raise InvalidSubmission(f"{name} cannot be read as a Jupytext notebook ({exc})") from exc
    else:
        cells = _cells_from_json(text)
    code, number = [], 0
    for cell in cells:
        if cell.get("cell_type") == "code":
            number += 1
            outputs = cell.get("outputs")
            stored = tuple(o for o in outputs if isinstance(o, dict)) if isinstance(outputs, list) else ()
            code.append(LearnerCell(number, _source(cell), stored))
    return code
