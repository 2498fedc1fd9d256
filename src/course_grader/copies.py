"""Flag answers that are copies of the published solution: flagged for a look, never failed (issue 38, item 6).

Lesson: none; this is the instructors' tool (``course-grade``). The course's ``solutions/`` are
public, so a learner can hand one in. Like the similarity reports of other graders, this only
points: the grade stays what the check gave. Each exercise's function in the submission is
compared with the same function in ``solutions/<exercise notebook>`` after both are normalised:
comments, blank lines, layout, docstrings and annotations go (the syntax tree), and every name the
function binds (its arguments, its locals, loop and ``with`` targets) is numbered in order of
first use, so renaming variables does not hide a copy; names it reads from outside (``torch``) and
attributes stay. Functions shorter than ``MIN_NODES`` syntax nodes are not compared: a three-line
answer that everyone writes alike says nothing.
"""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass, replace
from pathlib import Path

from course_grader.results import SubmissionGrade
from course_grader.spec import ExerciseSpec
from course_grader.submissions import LearnerCell

MIN_NODES = 45  # the published functions run from 13 to 184 nodes normalised; the short ones are idioms everyone writes


@dataclass(frozen=True)
class Published:
    """The published solution's functions, normalised, for the exercises long enough to compare."""

    source: str  # where they were read (the solutions notebook), or why there are none
    functions: tuple[tuple[str, str, str], ...] = ()  # (exercise id, function name, normalised dump)

    def __str__(self) -> str:
        if not self.functions:
            return f"copies of the published solution: not looked for ({self.source})"
        return (
            f"copies of the published solution: looked for in {', '.join(e for e, _, _ in self.functions)} "
            f"(from {self.source}; answers of {MIN_NODES}+ syntax nodes, comments, layout and names ignored)"
        )


class _Renamer(ast.NodeTransformer):
    """Numbers the names a function binds, in order of first appearance."""

    def __init__(self, bound: set[str]):
        self.bound, self.names = bound, {}

    def _name(self, name: str) -> str:
        return self.names.setdefault(name, f"v{len(self.names)}") if name in self.bound else name

    def visit_Name(self, node: ast.Name) -> ast.Name:
        node.id = self._name(node.id)
        return node

    def visit_arg(self, node: ast.arg) -> ast.arg:
        node.arg, node.annotation = self._name(node.arg), None
        return node

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> ast.ExceptHandler:
        if node.name:
            node.name = self._name(node.name)
        return self.generic_visit(node)


def _strip(node: ast.AST) -> None:
    """Docstrings and annotations out, in place: they say nothing about the code."""
    for item in ast.walk(node):
        body = getattr(item, "body", None)
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and body:
            first = body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
                item.body = body[1:] or [ast.Pass()]
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
            item.returns = None


def normalised(function: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[str, int]:
    """A function's code with comments, layout, docstrings and its own names' spelling left out; its size."""
    tree = ast.parse(ast.unparse(function)).body[0]  # a copy, so the caller's tree stays as it was
    _strip(tree)
    bound = {a.arg for a in ast.walk(tree) if isinstance(a, ast.arg)}
    bound |= {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del))}
    bound |= {h.name for h in ast.walk(tree) if isinstance(h, ast.ExceptHandler) and h.name}
    tree = _Renamer(bound).visit(tree)
    tree.name = "f"
    return ast.dump(tree, annotate_fields=False, include_attributes=False), sum(1 for _ in ast.walk(tree))


def _functions(sources: list[str]) -> dict[str, ast.FunctionDef | ast.AsyncFunctionDef]:
    """The top-level functions the sources define, by name; a later definition wins, as in the kernel."""
    found = {}
    for source in sources:
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue  # IPython magics, a learner's broken cell, or one nested past the parser's depth: nothing to compare
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found[node.name] = node
    return found


def published_solution(spec: ExerciseSpec, solutions: Path | None = None) -> Published:
    """The published solution of ``spec``'s exercises: ``solutions/`` beside its ``exercises/`` folder."""
    path = Path(solutions) if solutions is not None else spec.path.resolve().parent.parent / "solutions" / spec.path.name
    try:
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        sources = ["".join(c["source"]) if isinstance(c["source"], list) else str(c["source"]) for c in cells if c.get("cell_type") == "code"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        return Published(f"no solutions notebook readable at {path}: {type(exc).__name__}")
    defined = _functions(sources)
    kept = []
    for slot in spec.exercises:
        if slot.function in defined:
            code, size = normalised(defined[slot.function])
            if size >= MIN_NODES:
                kept.append((slot.id, slot.function, code))
    return Published(str(path), tuple(kept))


def copied(published: Published, cells: list[LearnerCell]) -> list[str]:
    """The exercises whose answer in ``cells`` is the published solution's, normalised."""
    mine = _functions([c.source for c in cells])
    return [ex for ex, name, code in published.functions if name in mine and _normalised_code(mine[name]) == code]


def _normalised_code(function: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
    """``normalised(function)``'s code, or None for a function too deep to rebuild (then it is no copy)."""
    try:
        return normalised(function)[0]
    except (RecursionError, MemoryError, ValueError, SyntaxError):
        return None


def flag_copies(row: SubmissionGrade, published: Published, cells: list[LearnerCell]) -> SubmissionGrade:
    """``row``, flagged when answers match the published solution; the grades are left as they are."""
    same = copied(published, cells)
    if not same:
        return row
    return replace(
        row,
        flags=row.flags
        + (
            f"copy of the published solution? {', '.join(same)} match {Path(published.source).name} once comments, "
            "layout and names are set aside (flagged for a look, not failed)",
        ),
    )
