"""Jupytext pairs: every notebook is NAME.py (py:percent, the side authors edit) plus NAME.ipynb.

Lesson: none; this is the course's authoring tool. ``python -m course_authoring.pairing --write``
(``make pairs``) rebuilds every ``.ipynb`` from its ``.py``, with no outputs and stable cell ids.
``python -m course_authoring.pairing`` (no flag) only compares, and exits 1 listing every drift.

Comparing cell content is the only honest check: file times lie after a clone, and
``jupytext --sync`` silently keeps whichever side is newer.

Deeper material opens folded. A block of optional material starts with a markdown cell whose
first line is a heading ``## Deeper: ...`` (or ``###``, ``####``) and runs to the next heading
of the same or a higher level. When every cell of the block is tagged ``deeper``, the ``.ipynb``
side marks its heading collapsed the way JupyterLab 4 itself saves a folded heading (the cell
metadata ``jp-MarkdownHeadingCollapsed``), so Lab opens the notebook with the block hidden under
its heading and a "N cells hidden" button. A block that holds a core (untagged) cell is left
unfolded, so folding never hides core material; ``tests/test_lesson_shape.py`` names such cells.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import jupytext
import nbformat

PAIRED_DIRS = ("notebooks", "solutions", "exercises")
KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
# The cell metadata JupyterLab 4 writes for a folded markdown heading (@jupyterlab/cells,
# MARKDOWN_HEADING_COLLAPSED in widget.ts; jlab_core's static JS reads the same key): on opening
# a notebook, Lab hides the cells under such a heading until the next heading of its level or higher.
HEADING_COLLAPSED = "jp-MarkdownHeadingCollapsed"
DEEPER_HEADING = re.compile(r"^(#{2,4}) Deeper\b")
_HEADING = re.compile(r"^(#{1,6}) ", re.MULTILINE)


@dataclass(frozen=True)
class Drift:
    """One way a pair disagrees."""

    path: Path
    problem: str

    def __str__(self) -> str:
        return f"{self.path}: {self.problem}"


def _source(cell) -> str:
    return cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])


def _tags(cell) -> list[str]:
    return cell.get("metadata", {}).get("tags", [])


def heading_level(cell) -> int | None:
    """The level of a markdown cell's highest heading (as JupyterLab reads it), None without one."""
    if cell["cell_type"] != "markdown":
        return None
    levels = [len(m.group(1)) for m in _HEADING.finditer(_source(cell))]
    return min(levels) if levels else None


@dataclass(frozen=True)
class DeeperBlock:
    """A ``## Deeper: ...`` heading and the cells under it, as JupyterLab folds them.

    ``heading``: the heading cell's index; ``cells``: the indices under it, up to the next
    heading of the same or a higher level; ``core``: those of them not tagged ``deeper``."""

    heading: int
    level: int
    cells: tuple[int, ...]
    core: tuple[int, ...]

    @property
    def foldable(self) -> bool:
        """Folding hides only optional material: every cell under the heading is tagged deeper."""
        return not self.core


def deeper_blocks(cells) -> list[DeeperBlock]:
    """Every Deeper block of a notebook's cells (nbformat cells or plain dicts), in order."""
    blocks = []
    for i, cell in enumerate(cells):
        first = (_source(cell).lstrip("\n").splitlines() or [""])[0] if cell["cell_type"] == "markdown" else ""
        match = DEEPER_HEADING.match(first)
        if not match:
            continue
        level, under = len(match.group(1)), []
        for j in range(i + 1, len(cells)):
            below = heading_level(cells[j])
            if below is not None and below <= level:
                break
            under.append(j)
        core = tuple(j for j in under if "deeper" not in _tags(cells[j]))
        blocks.append(DeeperBlock(i, level, tuple(under), core))
    return blocks


def fold_deeper(nb) -> None:
    """Mark the heading of every foldable Deeper block collapsed, the way JupyterLab saves it."""
    for cell in nb.cells:
        cell.metadata.pop(HEADING_COLLAPSED, None)
    for block in deeper_blocks(nb.cells):
        if block.foldable:
            nb.cells[block.heading].metadata[HEADING_COLLAPSED] = True


# A code cell tagged ``hide-input`` opens with its source folded (JupyterLab's own
# ``jupyter.source_hidden``; MyST-NB folds the same tag on the website): its output is the lesson,
# its code the proof behind it, a click away (lesson 07's claim tables).
HIDE_INPUT = "hide-input"


def hide_inputs(nb) -> None:
    """Fold the source of every cell tagged ``hide-input``, the way JupyterLab saves a folded input."""
    for cell in nb.cells:
        if HIDE_INPUT in _tags(cell):
            cell.metadata["jupyter"] = {"source_hidden": True}
        else:
            cell.metadata.pop("jupyter", None)


def cell_signature(cell) -> tuple[str, str, tuple[str, ...], bool, bool]:
    """What must match across a pair: type, source, tags, whether it opens folded, whether its source does."""
    metadata = cell.get("metadata", {})
    folded = bool(metadata.get(HEADING_COLLAPSED, False))
    source_hidden = bool(metadata.get("jupyter", {}).get("source_hidden", False))
    return (cell.cell_type, _source(cell).strip("\n"), tuple(_tags(cell)), folded, source_hidden)


def notebook_from_py(py_path: Path) -> nbformat.NotebookNode:
    """Read a py:percent file as a clean notebook: no outputs, stable ids, the course's kernel."""
    return notebook_from_text(py_path.read_text(encoding="utf-8"))


def notebook_from_text(py_text: str) -> nbformat.NotebookNode:
    """The notebook a py:percent text describes, cleaned as ``notebook_from_py`` says."""
    nb = jupytext.reads(py_text, fmt="py:percent")
    nb.metadata["kernelspec"] = dict(KERNELSPEC)
    nb.metadata.setdefault("language_info", {"name": "python"})
    nb.metadata.pop("jupytext", None)
    nb.nbformat, nb.nbformat_minor = 4, 5
    for i, cell in enumerate(nb.cells):
        cell["id"] = f"cell-{i:03d}"
        cell.metadata = {k: v for k, v in cell.metadata.items() if k == "tags"}
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
    fold_deeper(nb)
    hide_inputs(nb)
    return nb


def write_pair(py_path: Path) -> Path:
    """Write ``NAME.ipynb`` from ``NAME.py``; return the notebook's path."""
    nb = notebook_from_py(py_path)
    ipynb_path = py_path.with_suffix(".ipynb")
    text = nbformat.writes(nb) + "\n"
    if not ipynb_path.exists() or ipynb_path.read_text(encoding="utf-8") != text:
        ipynb_path.write_text(text, encoding="utf-8")
    keep_py_newer(py_path, ipynb_path)
    return ipynb_path


def keep_py_newer(py_path: Path, ipynb_path: Path) -> None:
    """Touch the .py side when the .ipynb side is as new or newer.

    Jupytext in JupyterLab refuses to open a pair whose .ipynb is newer than its .py ("is more
    recent than"); the .py is the source, so keep it the newer file, as `jupytext --sync` does.
    """
    if ipynb_path.stat().st_mtime >= py_path.stat().st_mtime:
        os.utime(py_path)


def compare_pair(ipynb_path: Path) -> list[Drift]:
    """Every way ``NAME.ipynb`` and ``NAME.py`` disagree (an empty list when they agree)."""
    py_path = ipynb_path.with_suffix(".py")
    if not py_path.exists():
        return [Drift(ipynb_path, f"has no py:percent twin {py_path.name}; run `make pairs` after creating it")]
    try:
        nb = nbformat.read(ipynb_path, as_version=4)
    except Exception as exc:
        return [Drift(ipynb_path, f"is not a readable notebook ({exc})")]
    drifts: list[Drift] = []
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "code" and (cell.get("outputs") or cell.get("execution_count")):
            drifts.append(Drift(ipynb_path, f"cell {i} has stored outputs; run `make pairs` (notebooks keep none)"))
    ours = [cell_signature(c) for c in nb.cells]
    theirs = [cell_signature(c) for c in notebook_from_py(py_path).cells]
    if len(ours) != len(theirs):
        drifts.append(Drift(ipynb_path, f"has {len(ours)} cells, {py_path.name} has {len(theirs)}"))
    for i, (a, b) in enumerate(zip(ours, theirs)):
        if a != b:
            what = (
                "type"
                if a[0] != b[0]
                else "tags"
                if a[2] != b[2]
                else "source"
                if a[1] != b[1]
                else f"folding ({HEADING_COLLAPSED})"
                if a[3] != b[3]
                else "folded source (jupyter.source_hidden)"
            )
            first_line = (b[1].splitlines() or [""])[0][:60]
            drifts.append(Drift(ipynb_path, f"cell {i} {what} differs from {py_path.name} (py cell starts {first_line!r})"))
            break  # one mismatch shifts every later cell; the first says where to look
    return drifts


def paired_files(root: Path) -> tuple[list[Path], list[Path]]:
    """All ``.ipynb`` and ``.py`` notebook files under the paired folders."""
    ipynbs, pys = [], []
    for d in PAIRED_DIRS:
        folder = root / d
        if folder.is_dir():
            ipynbs += sorted(p for p in folder.glob("*.ipynb"))
            pys += sorted(p for p in folder.glob("*.py"))
    return ipynbs, pys


def twin_names(root: Path) -> list[str]:
    """The file names of the ``.py`` sides of every pair: what JupyterLab hides (jupyter_server_config.py).

    A ``.py`` file without an ``.ipynb`` beside it (notebook 08's scripts) is not a twin and stays.
    """
    _, pys = paired_files(root)
    return sorted({p.name for p in pys if p.with_suffix(".ipynb").exists()})


def check_tree(root: Path) -> list[Drift]:
    """Every drift in the tree, including ``.py`` files whose ``.ipynb`` is missing."""
    ipynbs, pys = paired_files(root)
    drifts = [d for p in ipynbs for d in compare_pair(p)]
    drifts += [Drift(p, f"has no {p.with_suffix('.ipynb').name}; run `make pairs`") for p in pys if not p.with_suffix(".ipynb").exists()]
    return drifts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="rebuild each .ipynb from its .py")
    parser.add_argument("--root", type=Path, default=Path("."))
    parser.add_argument(
        "--dirs", nargs="*", default=["notebooks", "solutions"], help="folders to rebuild with --write (exercises/ comes from `make exercises`)"
    )
    args = parser.parse_args(argv)
    if args.write:
        for d in args.dirs:
            for py in sorted((args.root / d).glob("*.py")):
                print(f"wrote {write_pair(py)}")
        return 0
    drifts = check_tree(args.root)
    for d in drifts:
        print(d)
    print("all pairs agree" if not drifts else f"{len(drifts)} pair problem(s)")
    return 1 if drifts else 0


if __name__ == "__main__":
    sys.exit(main())
