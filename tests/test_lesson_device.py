"""A lesson decides its device once (issue 32, item 5): lesson 01's idiom in its first code cell, then carried.

Every lesson after 01 sets ``device = pick_device()`` in its first code cell (the imports), no later
cell binds ``device`` again or calls a chooser (``pick_device``, ``usable_accelerator``), and each GPU
cell's ``needs_accelerator`` takes that ``device`` instead of asking the machine. Lesson 01 is where
the idiom is taught (by hand, then ``pick_device()``, in part 3), so it binds ``device`` twice there.
Lesson: every lesson notebook.
"""

import ast
import json
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
LESSONS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
LATER = [p for p in LESSONS if p.name[:2] != "01"]
CHOOSERS = ("pick_device", "usable_accelerator")


def code_cells(path: pathlib.Path) -> list[ast.Module]:
    """The lesson's own code cells as Python, in order: the install header (``course-header``) left out,
    IPython's %magic and !shell lines read as blank lines."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    trees = []
    for cell in cells:
        if cell["cell_type"] != "code" or "course-header" in cell.get("metadata", {}).get("tags", []):
            continue
        lines = ["" if line.lstrip().startswith(("%", "!")) else line for line in "".join(cell["source"]).splitlines()]
        trees.append(ast.parse("\n".join(lines)))
    return trees


def _top_level(tree: ast.AST):
    """Every node of a cell outside the functions, lambdas and classes it defines: what runs in the notebook's namespace."""
    for child in ast.iter_child_nodes(tree):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        yield child
        yield from _top_level(child)


def _called(node: ast.AST) -> str | None:
    if not isinstance(node, ast.Call):
        return None
    return node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", None)


def device_problems(trees: list[ast.Module]) -> list[str]:
    """What keeps a lesson from deciding its device once, one line each ("cell N: ..."); empty when it does."""
    if not trees:
        return ["the lesson has no code cell"]
    problems = []
    first = trees[0]
    if not any(
        isinstance(n, ast.Assign) and [getattr(t, "id", None) for t in n.targets] == ["device"] and _called(n.value) == "pick_device"
        for n in first.body
    ):
        problems.append("cell 1 (the imports): it should set `device = pick_device()`, lesson 01's idiom")
    for number, tree in enumerate(trees, start=1):
        for node in _top_level(tree):
            if number > 1 and isinstance(node, ast.Name) and node.id == "device" and isinstance(node.ctx, ast.Store):
                problems.append(f"cell {number}, line {node.lineno}: binds `device` again; use another name")
            if number > 1 and _called(node) in CHOOSERS:
                problems.append(f"cell {number}, line {node.lineno}: calls {_called(node)}() again; carry `device`")
        for node in ast.walk(tree):
            if _called(node) == "needs_accelerator" and not (node.args and getattr(node.args[0], "id", None) == "device"):
                problems.append(
                    f"cell {number}, line {node.lineno}: needs_accelerator(...) should take the lesson's "
                    "device first: needs_accelerator(device, what=..., key=...)"
                )
    return problems


@pytest.mark.parametrize("path", LATER, ids=lambda p: p.name[:2])
def test_a_lesson_decides_its_device_once_and_its_gates_take_it(path):
    problems = device_problems(code_cells(path))
    assert not problems, (
        f"{path.name} should decide its device once (CONTRIBUTING.md, 'A lesson decides its device "
        "once'); fix the .py side and run `make pairs`:\n" + "\n".join(problems)
    )


def test_lesson_01_teaches_the_idiom_and_its_gpu_cells_take_counts():
    """01 binds ``device`` by hand, then with ``pick_device()``: the lesson of the idiom. Its gates are CUDA counts."""
    trees = code_cells(next(p for p in LESSONS if p.name.startswith("01_")))
    calls = [_called(n) for t in trees for n in ast.walk(t)]
    assert calls.count("pick_device") == 1 and "needs_accelerator" not in calls and "needs_cuda" in calls


def _lesson(*cells: str) -> list[ast.Module]:
    return [ast.parse(c) for c in cells]


FIRST = "import torch\nfrom course_utils.devices import pick_device\n\ndevice = pick_device()\ntorch.__version__\n"


@pytest.mark.parametrize(
    "cells, wrong",
    [
        ((FIRST, 'gpu = needs_accelerator(device, what="x", key="02-x")\ndisplay(gpu)\n'), []),
        ((FIRST, "def f(device):\n    device = device or 'cpu'\n    return device\n"), []),  # a function's own name
        ((FIRST, "with_dev = lambda device: device\n"), []),
        (
            ("import torch\n", "device = pick_device()\n"),
            ["cell 1 (the imports)", "cell 2, line 1: binds `device` again", "cell 2, line 1: calls pick_device() again"],
        ),
        ((FIRST, 'gpu = needs_accelerator(what="x", key="02-x")\n'), ["cell 2, line 1: needs_accelerator(...) should take"]),
        ((FIRST, "if True:\n    d = usable_accelerator()\n"), ["cell 2, line 2: calls usable_accelerator() again"]),
        ((FIRST, "for device in ('cpu', 'meta'):\n    pass\n"), ["cell 2, line 1: binds `device` again"]),
        ((FIRST.replace("device = pick_device()", "device = torch.device('cpu')"),), ["cell 1 (the imports)"]),
        ((), ["the lesson has no code cell"]),
    ],
)
def test_the_rule_finds_each_way_of_choosing_again(cells, wrong):
    problems = device_problems(_lesson(*cells))
    assert len(problems) == len(wrong) and all(p.startswith(w) for w, p in zip(wrong, problems)), problems
