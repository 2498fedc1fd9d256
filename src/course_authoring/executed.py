"""One execution per notebook: the executed copies that `make test` leaves for `make site`.

Lesson: none; this serves the course's website (``course_authoring.site``, docs/authoring.md "The
website"). ``make test`` runs every lesson under nbval, which already holds each cell's outputs
(``IPyNbCell.test_outputs``); the root conftest.py hands each finished notebook to
:func:`record_nbval_cell`, which writes it, outputs included, to
``build/executed/<dir>/<name>.ipynb`` with the *key* it was executed under. ``make site`` takes
an executed copy whose key matches (:func:`lookup`) and executes only the notebooks without one
(:func:`execute`, nbclient, then saved the same way, so a second build executes nothing).

The key is the SHA-256 of the notebook's bytes, of the course package's sources (this module
and ``site.py`` left out) and of torch's version: editing a lesson, or a helper it calls, or
running it under another torch makes its copy stale.
"""

from __future__ import annotations

import copy
import hashlib
import importlib.metadata
import json
from dataclasses import dataclass
from pathlib import Path

import nbformat

import course_utils

EXECUTED_DIR = Path("build") / "executed"
META_KEY = "course_executed"
CELL_TIMEOUT = 300  # seconds, as nbval's --nbval-cell-timeout in pyproject.toml


@dataclass(frozen=True)
class Executed:
    """An executed copy of one notebook and how it was made."""

    path: Path  # build/executed/notebooks/01_device_query.ipynb
    source: str  # notebooks/01_device_query.ipynb, relative to the repository
    key: str
    executed_by: str  # "nbval" (make test) or "nbclient" (make site)


def package_digest() -> str:
    """SHA-256 over the learner's package's Python sources (what notebooks run), in a fixed order.

    The website's own tools live in ``course_authoring``, outside it: editing them keeps every execution valid."""
    package = Path(course_utils.__file__).parent
    digest = hashlib.sha256()
    for path in sorted(package.rglob("*.py")):
        digest.update(path.relative_to(package).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def torch_version() -> str:
    """The installed torch's version, read from its metadata (no import): part of the key."""
    try:
        return importlib.metadata.version("torch")
    except importlib.metadata.PackageNotFoundError:
        return "none"


def notebook_key(notebook: Path, package: str | None = None) -> str:
    """The key an execution of ``notebook`` is valid for: its bytes, the package's sources, torch's version.

    The version keeps `make test-matrix` (other torch versions, other venvs) from passing its
    outputs off as those of the environment that builds the site."""
    package = package_digest() if package is None else package
    return hashlib.sha256(Path(notebook).read_bytes() + b"\0" + package.encode() + b"\0" + torch_version().encode()).hexdigest()


def copy_path(root: Path, relative: str) -> Path:
    """Where the executed copy of ``relative`` (e.g. notebooks/01_device_query.ipynb) lives."""
    return Path(root) / EXECUTED_DIR / relative


def lookup(root: Path, relative: str, key: str) -> Executed | None:
    """The executed copy of ``relative`` made under ``key``, or None when missing or stale."""
    path = copy_path(root, relative)
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))["metadata"][META_KEY]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if meta.get("key") != key or meta.get("source") != relative:
        return None
    return Executed(path, relative, key, meta.get("executed_by", "?"))


def save(root: Path, relative: str, nb, key: str, executed_by: str) -> Executed:
    """Write ``nb`` (executed) as the copy of ``relative``, stamped with ``key``."""
    nb = copy.deepcopy(nb)
    nb.metadata[META_KEY] = {"source": relative, "key": key, "executed_by": executed_by}
    path = copy_path(root, relative)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".partial")
    nbformat.write(nb, str(partial))
    partial.replace(path)  # never a half-written copy under the real name
    return Executed(path, relative, key, executed_by)


def execute(root: Path, relative: str, key: str | None = None) -> Executed:
    """Execute ``root/relative`` with nbclient, in its own folder, and save the executed copy.

    Deliberate errors (cells tagged ``raises-exception``) are allowed, as nbclient does by
    default; any other error stops the build with nbclient's CellExecutionError."""
    from nbclient import NotebookClient

    source = Path(root) / relative
    key = notebook_key(source) if key is None else key
    nb = nbformat.read(str(source), as_version=4)
    NotebookClient(nb, timeout=CELL_TIMEOUT, kernel_name="python3", resources={"metadata": {"path": str(source.parent)}}).execute()
    return save(root, relative, nb, key, "nbclient")


# --- the nbval side: called by the root conftest.py for each nbval cell -----------------------


def _relative_to_root(path: Path, root: Path) -> str | None:
    try:
        return Path(path).resolve().relative_to(Path(root).resolve()).as_posix()
    except ValueError:
        return None


def executed_from_nbval(nb, outputs: dict[int, list]) -> object | None:
    """``nb`` with each code cell's outputs as nbval collected them; None if a cell did not run.

    ``outputs`` maps nbval's cell number (the code cells counted from 0) to its outputs."""
    nb = copy.deepcopy(nb)
    code = [cell for cell in nb.cells if cell.cell_type == "code"]
    if set(outputs) != set(range(len(code))):
        return None
    for number, cell in enumerate(code):
        cell.outputs = [nbformat.from_dict(dict(out)) for out in outputs[number]]
        for out in cell.outputs:
            if out.output_type == "execute_result":
                out.setdefault("execution_count", number + 1)
                out.setdefault("metadata", {})
            elif out.output_type == "display_data":
                out.setdefault("metadata", {})
        cell.execution_count = number + 1
    return nb


def record_nbval_cell(item, nextitem, root: Path, collected: dict) -> Executed | None:
    """Keep an nbval cell's outputs in ``collected``; after its notebook's last cell, save the copy.

    ``collected`` is one dict per notebook (the root conftest.py keeps it in the notebook item's
    pytest stash). Cells that did not run to their end (a timeout, a dead kernel:
    ``test_outputs`` is None) and errors in cells not tagged ``raises-exception`` leave no copy,
    so `make site` executes that notebook itself rather than publish a broken run."""
    notebook_file = item.parent
    outputs = getattr(item, "test_outputs", None)
    unexpected_error = (
        outputs is not None and not item.options.get("check_exception") and any(out.get("output_type") == "error" for out in outputs)
    )
    if outputs is None or unexpected_error:
        collected["broken"] = True
    else:
        collected[item.cell_num] = outputs
    if nextitem is not None and nextitem.parent is notebook_file:
        return None  # more cells of this notebook to come
    relative = _relative_to_root(Path(str(notebook_file.fspath)), root)
    if relative is None or collected.get("broken"):
        return None
    nb = executed_from_nbval(notebook_file.nb, {k: v for k, v in collected.items() if isinstance(k, int)})
    if nb is None:
        return None
    return save(root, relative, nb, notebook_key(Path(root) / relative), "nbval")
