"""The shape of a lesson: a short core path, optional material tagged ``deeper``.

The core path is every markdown cell not tagged ``deeper``; the course holds the eight
original lessons' core to 5,000 words together (about 20 minutes each) and each later lesson
to 700. Run ``python tests/test_lesson_shape.py`` for the table of words per lesson.
Lesson: every lesson notebook.
"""

import ast
import builtins
import json
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
LESSONS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
FIRST_EIGHT_CORE_WORDS = 5000
LATER_LESSON_CORE_WORDS = 700


def prose_words(path: pathlib.Path) -> dict[str, int]:
    """Words of markdown prose in a notebook: {"core": n, "deeper": m}.

    The Colab/Kaggle header (cells tagged ``course-header``, written by ``make pairs``) is the
    same in every notebook and not lesson prose, so it counts for neither.
    """
    words = {"core": 0, "deeper": 0}
    for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
        tags = cell.get("metadata", {}).get("tags", [])
        if cell["cell_type"] == "markdown" and "course-header" not in tags:
            part = "deeper" if "deeper" in tags else "core"
            words[part] += len("".join(cell["source"]).split())
    return words


def test_the_first_eight_lessons_core_fits_an_evening():
    core = {p.name: prose_words(p)["core"] for p in LESSONS if p.name[:2] <= "08"}
    assert sum(core.values()) <= FIRST_EIGHT_CORE_WORDS, core


@pytest.mark.parametrize("path", [p for p in LESSONS if p.name[:2] > "08"], ids=lambda p: p.name[:2])
def test_a_later_lesson_core_stays_short(path):
    assert prose_words(path)["core"] <= LATER_LESSON_CORE_WORDS


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.name[:2])
def test_every_lesson_marks_its_optional_material(path):
    """A lesson keeps its depth for the curious, tagged so tools and learners can tell it apart."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    assert any("deeper" in c.get("metadata", {}).get("tags", []) for c in cells), path.name


def bound_names(tree: ast.AST) -> set[str]:
    """Every name a cell binds: assignments, loop and with targets, imports, defs and classes."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
    return names


def python_of(source: str) -> ast.AST:
    """A code cell as Python: IPython's %magic and !shell lines become blank lines."""
    lines = ["" if line.lstrip().startswith(("%", "!")) else line for line in source.splitlines()]
    return ast.parse("\n".join(lines))


def core_names_only_deeper_cells_define(path: pathlib.Path) -> list[tuple[int, str]]:
    """(cell number, name) for each core code cell that reads a name which, at that point, only a
    ``deeper`` cell has defined: the NameError a learner who skips the optional material would meet.

    Static, so it misses what is not a name (a default device or a seed a deeper cell set);
    that is the reason to keep state-changing cells in the core.
    """
    core, deeper, found = set(dir(builtins)), set(), []
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    for number, cell in enumerate(cells, start=1):
        if cell["cell_type"] != "code":
            continue
        tree = python_of("".join(cell["source"]))
        if "deeper" in cell.get("metadata", {}).get("tags", []):
            deeper |= bound_names(tree)
            continue
        own = bound_names(tree)
        read = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
        found += [(number, name) for name in sorted(read - own - core) if name in deeper]
        core |= own
    return found


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.name[:2])
def test_the_core_path_runs_without_the_deeper_cells(path):
    """Deeper cells are optional: skipping them must not leave a core cell with an undefined name."""
    missing = core_names_only_deeper_cells_define(path)
    assert not missing, (f"{path.name}: these core cells read names only a deeper cell defines, so a "
                         f"learner who skips the deeper material gets a NameError (cell, name): {missing}. "
                         "Define the name in a core cell, or tag the reading cell deeper too.")


if __name__ == "__main__":
    total = {"core": 0, "deeper": 0}
    for path in LESSONS:
        words = prose_words(path)
        total = {k: total[k] + words[k] for k in total}
        print(f"{path.name:40s} core {words['core']:5d}  deeper {words['deeper']:5d}")
    print(f"{'total':40s} core {total['core']:5d}  deeper {total['deeper']:5d}")
