"""Find the GPU cells in a notebook's source, and any GPU result typed by hand.

Lesson: none; the authoring rule behind ``Requirement`` and ``recorded``. A GPU cell names its
needs and its evidence key once, and shows the requirement, which shows the recording:

- CUDA only: ``if gpu := needs_cuda(N, what=..., key="K"):`` ... ``else: display(gpu)``;
- any accelerator: ``gpu = needs_accelerator(device, what=..., key="K")`` (the lesson's device), the cell on ``gpu.device``,
  then ``display(gpu)``.

``hand_typed_results`` lists the string constants in such an ``else`` branch (and anywhere in the
cell's code) that read like a GPU's output: "On a GPU ...", "On two GPUs ...", a ``cuda:0`` or
``device(type='cuda'``. The tests run it over every notebook; ``lesson_map`` counts the cells.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

# What a typed GPU result looks like: the old "On a GPU: ..." strings and CUDA device reprs.
ON_A_GPU = re.compile(r"\bOn (a|one|two|2|several|multiple) (one-|two-)?GPUs?\b|\bOn a one-GPU\b|\bWith two or more GPUs\b", re.IGNORECASE)
GPU_RESULT = re.compile(ON_A_GPU.pattern + r"|\bcuda:\d|device\(type='cuda'|wrapper_CUDA_|\bon cuda\b", re.IGNORECASE)
NEEDS = {"needs_cuda": "cuda", "needs_accelerator": "accelerator"}


@dataclass(frozen=True)
class NeedsCall:
    """One GPU cell's ``needs_cuda(...)`` or ``needs_accelerator(...)``: what it needs and its key."""

    count: int  # CUDA GPUs; 1 for needs_accelerator (one accelerator of any kind)
    key: str | None
    gated: bool  # the test of an ``if``: the cell has a GPU branch and an else branch
    shows: bool  # the cell displays the requirement (in the else branch of an ``if``): SKIPPED and the recording
    needs: str = "cuda"  # "cuda" | "accelerator"
    what: str = "this cell"


def _needs_call(node: ast.AST | None) -> ast.Call | None:
    if isinstance(node, ast.NamedExpr):
        node = node.value
    if isinstance(node, ast.Call):
        name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", None)
        if name in NEEDS:
            return node
    return None


def _displays(nodes: list[ast.stmt], name: str | None, tree: ast.Module) -> bool:
    """Whether ``nodes`` show the requirement ``name`` as a rich display (its HTML folds the source):
    ``display(name)``, or ``shown = name`` with ``shown`` the cell's last line."""
    if name is None:
        return False
    last = tree.body[-1] if tree.body else None
    last_name = last.value.id if isinstance(last, ast.Expr) and isinstance(last.value, ast.Name) else None
    for node in ast.walk(ast.Module(body=nodes, type_ignores=[])):
        if (
            isinstance(node, ast.Call)
            and getattr(node.func, "id", None) == "display"
            and node.args
            and isinstance(node.args[0], ast.Name)
            and node.args[0].id == name
        ):
            return True
        if (
            isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Name)
            and node.value.id == name
            and len(node.targets) == 1
            and getattr(node.targets[0], "id", None) == last_name
        ):
            return True
    return False


def _name(call: ast.Call) -> str:
    return call.func.attr if isinstance(call.func, ast.Attribute) else call.func.id


def _info(call: ast.Call, gated: bool, shows: bool) -> NeedsCall:
    needs = NEEDS[_name(call)]
    # needs_cuda's first argument is its GPU count; needs_accelerator's is the lesson's device (one accelerator).
    count = call.args[0].value if needs == "cuda" and call.args and isinstance(call.args[0], ast.Constant) else 1
    words = {kw.arg: kw.value.value for kw in call.keywords if isinstance(kw.value, ast.Constant)}
    key = words.get("key")
    return NeedsCall(count, None if key is None else str(key), gated, shows, needs, str(words.get("what", "this cell")))


def _parse(source: str) -> ast.Module | None:
    # Notebook cells may hold IPython syntax (%magics, !shell); those lines cannot hold a GPU branch.
    lines = ["pass" if line.lstrip().startswith(("%", "!")) else line for line in source.splitlines()]
    try:
        return ast.parse("\n".join(lines))
    except SyntaxError:
        return None


def gpu_cells_in_source(source: str) -> list[NeedsCall]:
    """Every GPU cell's requirement in ``source``, in order: each ``if [name :=] needs_cuda(...)`` and
    each ``name = needs_...(...)``, with whether the cell displays ``name`` where it should."""
    tree = _parse(source)
    if tree is None:
        return []
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and (call := _needs_call(node.test)) is not None:
            name = node.test.target.id if isinstance(node.test, ast.NamedExpr) else None
            found.append((node.lineno, _info(call, True, _displays(node.orelse, name, tree))))
        elif (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and (call := _needs_call(node.value)) is not None
            and NEEDS[_name(call)] == "accelerator"
        ):
            found.append((node.lineno, _info(call, False, _displays(tree.body, node.targets[0].id, tree))))
    return [info for _, info in sorted(found, key=lambda pair: pair[0])]


def hand_typed_results(source: str) -> list[str]:
    """String constants that look like a GPU result typed by hand, rather than shown by ``recorded``.

    Two places are searched: every ``else`` branch of an ``if needs_cuda(...)`` (any GPU-looking
    text there, the requirement's own ``what=`` aside), and the whole cell for the old
    "On a GPU ..." / "On two GPUs ..." phrasing. The GPU branch itself may name ``cuda:1``: it is
    code that runs, not a claimed result.
    """
    tree = _parse(source)
    if tree is None:
        return []
    described = set()  # needs_cuda(..., what="... on a GPU") describes the cell; it shows no result
    for node in ast.walk(tree):
        if _needs_call(node) is not None:
            described.update(id(n) for n in ast.walk(node))
    suspects: dict[int, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in described and ON_A_GPU.search(node.value):
            suspects[id(node)] = node.value
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and _needs_call(node.test) is not None:
            for sub in ast.walk(ast.Module(body=node.orelse, type_ignores=[])):
                if isinstance(sub, ast.Constant) and isinstance(sub.value, str) and id(sub) not in described and GPU_RESULT.search(sub.value):
                    suspects[id(sub)] = sub.value
    return list(suspects.values())
