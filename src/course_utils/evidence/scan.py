"""Find the GPU-only cells in a notebook's source, and any GPU result typed by hand.

Lesson: none; the authoring rule behind ``recorded``. A GPU-only cell is
``if needs_cuda(N, ..., key="K"):``; its ``else`` branch may show a GPU result only through
``recorded("K")``. ``hand_typed_results`` lists the string constants in such an ``else`` branch
(and anywhere in the cell's code) that read like a GPU's output: "On a GPU ...", "On two GPUs ...",
a ``cuda:0`` or ``device(type='cuda'``. The tests run it over every notebook.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

# What a typed GPU result looks like: the old "On a GPU: ..." strings and CUDA device reprs.
ON_A_GPU = re.compile(r"\bOn (a|one|two|2|several|multiple) (one-|two-)?GPUs?\b|\bOn a one-GPU\b|\bWith two or more GPUs\b",
                      re.IGNORECASE)
GPU_RESULT = re.compile(ON_A_GPU.pattern + r"|\bcuda:\d|device\(type='cuda'|wrapper_CUDA_|\bon cuda\b", re.IGNORECASE)


@dataclass(frozen=True)
class NeedsCudaCall:
    """One ``needs_cuda(...)`` call in a cell: how many GPUs, and its evidence key if it has one."""

    count: int
    key: str | None
    gated: bool  # it is the test of an ``if``: the cell has a GPU branch and an else branch
    else_calls_recorded: bool  # that else branch calls recorded("<key>")


def _needs_cuda_call(node: ast.AST) -> ast.Call | None:
    if isinstance(node, ast.Call):
        name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", None)
        if name == "needs_cuda":
            return node
    return None


def _call_info(call: ast.Call) -> tuple[int, str | None]:
    count = call.args[0].value if call.args and isinstance(call.args[0], ast.Constant) else 1
    key = next((kw.value.value for kw in call.keywords if kw.arg == "key" and isinstance(kw.value, ast.Constant)), None)
    return count, key


def _recorded_keys(nodes: list[ast.stmt]) -> set[str]:
    keys = set()
    for node in ast.walk(ast.Module(body=nodes, type_ignores=[])):
        if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) == "recorded":
            if node.args and isinstance(node.args[0], ast.Constant):
                keys.add(node.args[0].value)
    return keys


def _parse(source: str) -> ast.Module | None:
    # Notebook cells may hold IPython syntax (%magics, !shell); those lines cannot hold a GPU branch.
    lines = ["pass" if line.lstrip().startswith(("%", "!")) else line for line in source.splitlines()]
    try:
        return ast.parse("\n".join(lines))
    except SyntaxError:
        return None


def gpu_cells_in_source(source: str) -> list[NeedsCudaCall]:
    """Every ``if needs_cuda(...)`` in ``source`` (the ``needs_cuda`` calls in its else branches not counted)."""
    tree = _parse(source)
    if tree is None:
        return []
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and (call := _needs_cuda_call(node.test)) is not None:
            count, key = _call_info(call)
            found.append(NeedsCudaCall(count, key, True, key is not None and key in _recorded_keys(node.orelse)))
    return found


def hand_typed_results(source: str) -> list[str]:
    """String constants that look like a GPU result typed by hand, rather than shown by ``recorded``.

    Two places are searched: every ``else`` branch of an ``if needs_cuda(...)`` (any GPU-looking
    text there, ``needs_cuda``'s own ``what=`` aside), and the whole cell for the old
    "On a GPU ..." / "On two GPUs ..." phrasing. The GPU branch itself may name ``cuda:1``: it is
    code that runs, not a claimed result.
    """
    tree = _parse(source)
    if tree is None:
        return []
    described = set()  # needs_cuda(..., what="... on a GPU") describes the cell; it shows no result
    for node in ast.walk(tree):
        if _needs_cuda_call(node) is not None:
            described.update(id(n) for n in ast.walk(node))
    suspects: dict[int, str] = {}
    for node in ast.walk(tree):
        if (isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in described
                and ON_A_GPU.search(node.value)):
            suspects[id(node)] = node.value
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and _needs_cuda_call(node.test) is not None:
            for sub in ast.walk(ast.Module(body=node.orelse, type_ignores=[])):
                if (isinstance(sub, ast.Constant) and isinstance(sub.value, str) and id(sub) not in described
                        and GPU_RESULT.search(sub.value)):
                    suspects[id(sub)] = sub.value
    return list(suspects.values())
