"""What the grader reads in a notebook's file, beside what its kernel replies (issue 38, item 2).

Lesson: none; grading only. A kernel's reply is data it could have rewritten: a log of its own ``.to``
calls, a simulated device's counters. The notebook's code, as the grader read it from the file, is
evidence the kernel cannot touch. Three tables say what that code must and must not hold:

- ``CALLS``: an exercise that teaches a call's argument (``non_blocking=True``) needs that call in the
  code the answer can run: its own ``def`` and the functions it names, with the dead branches
  (``if False:``, the lines after a ``return``) left out, so a call parked where it never runs does not count;
- ``HELPERS``: an exercise asks for code the course's own tools already hold (``time_blocks`` times
  asynchronous work; ``Ceiling`` knows PCIe's ceilings). The lesson shows the tool after the learner
  has done the job by hand, and an answer that calls it has not done the exercise;
- ``NO_PEEKING``: an exercise hands the answer callables to run, not to open (06.1's op, clock and
  synchronize), and an answer that looks inside them reads what it should measure.

``broken_rule(exercise_id, function, source)`` applies them; ``course_grader.boundary.grade`` calls it
after a checker's pass. Practice checks in the learner's own notebook do not: they have no file to read.
What this cannot see is written in ``docs/grading.md``: a condition false only at run time, a name
built from strings at run time.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass


@dataclass(frozen=True)
class CallRule:
    """The answer's reachable code must hold ``x.<method>(...)`` passing ``True`` as ``keyword`` or at one
    of the positional ``positions`` (``t.to(device, dtype, True)``: positions 1 and 2)."""

    method: str
    keyword: str
    positions: tuple[int, ...]
    message: str
    hint: str


@dataclass(frozen=True)
class PeekRule:
    """The answer's reachable code must not look inside ``given``: what it should do instead, and how."""

    given: str
    instead: str
    hint: str


@dataclass(frozen=True)
class RuleBroken:
    """Why an answer fails a source rule: the message and hint of a failed check."""

    message: str
    hint: str


CALLS: dict[str, CallRule] = {
    "06.2": CallRule(
        "copy_",
        "non_blocking",
        (1,),
        "Your notebook's code never calls .copy_(..., non_blocking=True) where copy_all_to_host can reach it: the grader reads it in your file.",
        "Ask copy_ for a non_blocking copy: a blocking copy waits for the GPU each time.",
    ),
    "09.1": CallRule(
        "to",
        "non_blocking",
        (1, 2),
        "Your notebook's code never calls .to(..., non_blocking=True) where to_device can reach it: the grader reads it in your file.",
        "With pinned batches, a non-blocking copy overlaps with the GPU's work; .to has an argument for it.",
    ),
}

# The course's own tools that do an exercise's job, by the names course_utils gives them
# (tests/test_source_rules.py checks that each exists and that no solution calls one).
HELPERS: dict[str, tuple[str, ...]] = {
    "01.1": ("pick_device", "choose_device", "usable_accelerator"),
    "01.2": ("visible_indices",),
    "03.2": ("module_device",),  # not placement_report: the exercises notebook hands it to the learner for 03.1
    "04.2": ("run_scopes", "trace_current_device", "DeviceTracer"),
    "05.1": ("explain_device_error",),
    "06.1": ("time_blocks", "estimate_call", "plan_blocks"),
    "06.4": ("Ceiling", "pcie_ceiling", "reference_ceilings", "ceiling_table", "CeilingTable"),
    "09.2": ("step_memory", "StepMemory", "storage_bytes"),
    "12.1": ("cuda_devices", "visible_indices"),
    "12.2": ("kernels_for", "torch_build_warnings"),
    "12.3": ("usable_accelerator", "read_build"),
}

# Exercises whose answer is handed callables to run, not to open: 06.1's op, clock and synchronize are the
# simulated device's (op's work sits in its closure), so an answer that looks inside them reads the durations it
# should time. Its reachable code may not use these attributes, nor these names (called or imported).
NO_PEEKING: dict[str, PeekRule] = {
    "06.1": PeekRule(
        "the work, clock and synchronize it is given",
        "time the work with the clock, not read it",
        "Call op(), synchronize() and clock() only; the device's numbers come from the clock.",
    ),
}
PEEKING_ATTRIBUTES = frozenset(
    {
        "__closure__",
        "cell_contents",
        "__self__",
        "__func__",
        "__dict__",
        "__wrapped__",
        "__globals__",
        "__code__",
        "__defaults__",
        "__kwdefaults__",
        "__getattribute__",
        "__reduce__",
        "__reduce_ex__",
        "__getstate__",
        "f_locals",
        "f_globals",
        "f_back",
        "gi_frame",
        "tb_frame",
    }
)
PEEKING_NAMES = frozenset(
    {
        "vars",
        "getattr",
        "dir",
        "locals",
        "globals",
        "attrgetter",
        "methodcaller",
        "inspect",
        "gc",
        "dis",
        "ctypes",
        "pickle",
        "cloudpickle",
        "copyreg",
        "marshal",
    }
)

# Code the grader cannot read: where a rule applies, the function the kernel holds must be the one in the file.
# Names (``exec(...)``), attributes (``f.__code__``) and strings (``vars(builtins)["exec"]``) anywhere in the notebook;
# ``compile`` only as a name, since ``torch.compile`` and ``re.compile`` are attributes of the same name.
OPAQUE = frozenset({"exec", "eval", "__code__", "__builtins__", "__import__", "FunctionType", "run_cell"})
OPAQUE_NAMES = OPAQUE | {"compile"}

_MAGIC_LINE = re.compile(r"^(\s*)[%!].*$", re.M)


def broken_rule(exercise_id: str, function: str, source: str | None) -> RuleBroken | None:
    """The first rule of ``exercise_id`` that ``source`` (the notebook's code cells before the check, as the
    grader read them from the file) breaks for the answer ``function``; None when it keeps them all, or when
    there is no file to read (``source`` None: a channel that does not hand it)."""
    call, helpers, given = CALLS.get(exercise_id), HELPERS.get(exercise_id, ()), NO_PEEKING.get(exercise_id)
    if source is None or (call is None and not helpers and given is None):
        return None
    # what the grader cannot read, it cannot vouch for: an unreadable file, code run from strings (exec, a swapped
    # __code__), or an answer not defined in the file fails every exercise that has a rule, saying how to mend it
    tree = _parse(source)
    try:
        code = None if tree is None else Reachable(tree, function)
    except (RecursionError, MemoryError):
        code = None
    if code is None:
        return RuleBroken(
            f"The grader could not read your notebook's code as Python, so it cannot see how {function} "
            "works: a cell with a syntax error, or code nested too deeply.",
            "Fix or delete the cell that does not run, and hand in cells of plain Python (magics aside).",
        )
    if helpers:
        aliases = _aliases(tree, helpers)
        used = (code.names() & (set(helpers) | set(aliases))) - _own_names(tree)
        if used:
            name = aliases.get(min(used), min(used))  # the tool's own name, whatever the notebook calls it
            return RuleBroken(
                f"Your {function} uses the course's own `{name}`, which does this exercise's job: the exercise asks you to write it.",
                f"Write the steps yourself with PyTorch's API, as the lesson does before it shows `{name}`.",
            )
    if given is not None:
        peeks = sorted(code.peeks() | (code.names() & _imported_from(tree, PEEKING_NAMES)))
        if peeks:
            return RuleBroken(f"Your {function} looks inside {given.given} ({peeks[0]}): the exercise asks you to {given.instead}.", given.hint)
    opaque = sorted(_opaque(tree))
    if opaque:
        return RuleBroken(
            f"Your notebook runs code the grader cannot read ({opaque[0]}), so it cannot see the {function} your kernel holds.",
            "Hand in your answer as plain code cells.",
        )
    if not code.found:
        return RuleBroken(
            f"The grader cannot find `{function}` in your notebook's code: it reads the answer there.",
            f"Define it in a code cell with `def {function}(...):` before the check.",
        )
    if call is not None and not code.asks(call):
        return RuleBroken(call.message, call.hint)
    return None


def _parse(source: str) -> ast.Module | None:
    """``source`` as Python: IPython's magics turned into calls (as the kernel runs them), else blanked."""
    try:
        from IPython.core.inputtransformer2 import TransformerManager

        transformed = TransformerManager().transform_cell(source)
    except Exception:
        transformed = source
    for text in (transformed, _MAGIC_LINE.sub(r"\1pass", source)):
        try:
            return ast.parse(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):  # the last two: a file built to be deep
            continue
    return None


def _constant(node: ast.AST) -> tuple[bool, object]:
    """(True, value) when ``node`` is a constant the grader can evaluate (``False``, ``0``, ``not True``,
    ``1 == 2``, ``False and x``); (False, None) otherwise."""
    if isinstance(node, ast.Constant):
        return True, node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        known, value = _constant(node.operand)
        return (True, not value) if known else (False, None)
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        (ok_left, left), (ok_right, right) = _constant(node.left), _constant(node.comparators[0])
        comparisons = {
            ast.Eq: lambda a, b: a == b,
            ast.NotEq: lambda a, b: a != b,
            ast.Is: lambda a, b: a is b,
            ast.IsNot: lambda a, b: a is not b,
        }
        compare = comparisons.get(type(node.ops[0]))
        if ok_left and ok_right and compare is not None:
            return True, compare(left, right)
    if isinstance(node, ast.BoolOp):
        values = [_constant(v) for v in node.values]
        stop = _short_circuits(node.op)
        for known, value in values:
            if known and stop(value):
                return True, value
        if all(known for known, _ in values):
            return True, values[-1][1]
    return False, None


def _short_circuits(op: ast.boolop):
    """What value of an operand ends ``and`` (a false one) or ``or`` (a true one)."""
    return (lambda v: not v) if isinstance(op, ast.And) else bool


class Reachable:
    """The code that can run when the notebook's ``function`` is called: the body of its last binding at top
    level, and of every function and class that code names, transitively, without the branches a constant
    condition closes and the lines after a ``return``, ``raise``, ``break`` or ``continue``."""

    def __init__(self, tree: ast.Module, function: str) -> None:
        self.definitions: dict[str, ast.AST] = {}  # top-level function and class definitions, the last of each name
        self.expressions: list[ast.AST] = []  # every expression that can run
        self._seen: set[int] = set()
        binding = None
        for statement in self._live_block(tree.body, collect=False):
            if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                self.definitions[statement.name] = statement
                if statement.name == function:
                    binding = statement
            elif _binds(statement, function):
                binding = statement
                self.definitions.pop(function, None)  # the name no longer means that def
        self.found = binding is not None
        if isinstance(binding, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            self._enter(binding, {})
        elif binding is not None:  # to_device = partial(...), or an import: what it names can run
            self._statement(binding, {})

    def names(self) -> set[str]:
        """Every name and attribute the reachable code reads, and every name it imports."""
        found = set()
        for node in self._nodes():
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                found.add(node.id)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
                found.add(node.attr)
            elif isinstance(node, ast.alias):
                found.update({node.name.rsplit(".", 1)[-1], node.asname or ""})
        return found - {""}

    def peeks(self) -> set[str]:
        """The introspection the reachable code uses (``PEEKING_ATTRIBUTES``, ``PEEKING_NAMES``)."""
        found = set()
        for node in self._nodes():
            if isinstance(node, ast.Attribute) and node.attr in PEEKING_ATTRIBUTES:
                found.add(node.attr)
            elif isinstance(node, ast.Name) and node.id in PEEKING_NAMES:
                found.add(node.id)
            elif isinstance(node, ast.alias) and node.name.split(".")[0] in PEEKING_NAMES | PEEKING_ATTRIBUTES:
                found.add(node.name)
            elif isinstance(node, ast.Constant) and node.value in PEEKING_ATTRIBUTES:
                found.add(node.value)
        return found

    def asks(self, rule: CallRule) -> bool:
        """Whether the reachable code holds ``x.<rule.method>(...)`` with ``True`` where the rule says."""
        for node in self._nodes():
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == rule.method:
                if any(k.arg == rule.keyword and _is_true(k.value) for k in node.keywords):
                    return True
                if any(_is_true(node.args[i]) for i in rule.positions if i < len(node.args)):
                    return True
        return False

    def _nodes(self):
        for expression in self.expressions:
            yield from _walk_live(expression)

    def _enter(self, definition: ast.AST, scope: dict[str, ast.AST]) -> None:
        """Make ``definition``'s body reachable (once), with its decorators and defaults."""
        if id(definition) in self._seen:
            return
        self._seen.add(id(definition))
        inner = dict(scope)
        if isinstance(definition, ast.ClassDef):
            self.expressions.extend([*definition.bases, *definition.decorator_list])
        else:
            self.expressions.extend(
                [*definition.decorator_list, *definition.args.defaults, *(d for d in definition.args.kw_defaults if d is not None)]
            )
        for statement in self._live_block(definition.body, collect=True, scope=inner):
            if isinstance(definition, ast.ClassDef) and isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self._enter(statement, inner)  # a class's methods run when the class is used
        self._follow(inner)

    def _follow(self, scope: dict[str, ast.AST]) -> None:
        """Enter every function or class the reachable code names, until no new one turns up."""
        grown = True
        while grown:
            grown = False
            named = {n.id for e in list(self.expressions) for n in _walk_live(e) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
            for name in named:
                definition = scope.get(name) or self.definitions.get(name)
                if definition is not None and id(definition) not in self._seen:
                    self._enter(definition, scope)
                    grown = True

    def _statement(self, statement: ast.stmt, scope: dict[str, ast.AST]) -> None:
        """Make one top-level statement reachable (a rebinding of the answer's name), and what it names."""
        for _ in self._live_block([statement], collect=True, scope=scope):
            pass
        self._follow(scope)

    def _live_block(self, body: list[ast.stmt], collect: bool, scope: dict | None = None):
        """Yield the statements of ``body`` that can run, descending into compound ones; with ``collect``,
        record their expressions and the nested definitions (in ``scope``) as reachable material."""
        for statement in body:
            yield statement
            if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                if collect and scope is not None:
                    scope[statement.name] = statement  # reachable only if named
                continue
            for block in self._live_parts(statement, collect):
                yield from self._live_block(block, collect, scope)
            if isinstance(statement, (ast.Return, ast.Raise, ast.Break, ast.Continue)):
                return

    def _live_parts(self, statement: ast.stmt, collect: bool) -> list[list[ast.stmt]]:
        """The sub-blocks of ``statement`` that can run; records its own expressions when ``collect``."""
        own = [v for _, v in ast.iter_fields(statement) if isinstance(v, ast.expr)]
        own += [
            v
            for _, values in ast.iter_fields(statement)
            if isinstance(values, list)
            for v in values
            if isinstance(v, (ast.expr, ast.withitem, ast.alias, ast.keyword))
        ]
        if collect:
            self.expressions.extend(own)
        if isinstance(statement, (ast.If, ast.While)):
            known, value = _constant(statement.test)
            if known:
                return [statement.body] if value else [statement.orelse]
            return [statement.body, statement.orelse]
        if isinstance(statement, (ast.For, ast.AsyncFor, ast.With, ast.AsyncWith)):
            return [statement.body, getattr(statement, "orelse", [])]
        if isinstance(statement, ast.Try) or type(statement).__name__ == "TryStar":
            if collect:
                self.expressions.extend(h.type for h in statement.handlers if h.type is not None)
            return [statement.body, *(h.body for h in statement.handlers), statement.orelse, statement.finalbody]
        if isinstance(statement, ast.Match):
            return [case.body for case in statement.cases]
        return []


def _walk_live(node: ast.AST):
    """``ast.walk`` without the branches of ``a if <constant> else b`` and ``<constant> and/or x`` that never run."""
    stack = [node]
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, ast.IfExp):
            known, value = _constant(node.test)
            if known:
                stack.append(node.body if value else node.orelse)
                continue
        if isinstance(node, ast.BoolOp):
            stop = _short_circuits(node.op)
            for value in node.values:
                stack.append(value)
                known, constant = _constant(value)
                if known and stop(constant):
                    break
            continue
        stack.extend(ast.iter_child_nodes(node))


def _binds(statement: ast.stmt, name: str) -> bool:
    """Whether a top-level ``statement`` (not a def) rebinds ``name``: an assignment or an import."""
    if isinstance(statement, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
        return any(isinstance(n, ast.Name) and n.id == name for t in targets for n in ast.walk(t))
    if isinstance(statement, (ast.Import, ast.ImportFrom)):
        return any((a.asname or a.name.split(".")[0]) == name for a in statement.names)
    return False


def _aliases(tree: ast.Module, helpers: tuple[str, ...]) -> dict[str, str]:
    """The names a notebook gives the helpers when it imports them (``from ... import time_blocks as tb``: tb)."""
    return {
        a.asname: a.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) for a in node.names if a.name in helpers and a.asname
    }


def _imported_from(tree: ast.Module, modules: frozenset[str]) -> set[str]:
    """The names a notebook imports from ``modules`` (``from inspect import getclosurevars as g``: g)."""
    return {
        a.asname or a.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] in modules
        for a in node.names
    }


def _own_names(tree: ast.Module) -> set[str]:
    """The names the notebook binds itself (definitions, assignments, parameters, attributes it sets), not by
    importing: a learner's own ``storage_bytes = 0`` is not the course's tool of that name."""
    own = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            own.add(node.name)
        elif isinstance(node, ast.arg):
            own.add(node.arg)
        elif isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            own.add(node.id)
        elif isinstance(node, ast.Attribute) and not isinstance(node.ctx, ast.Load):
            own.add(node.attr)
    return own


def _opaque(tree: ast.Module) -> set[str]:
    """What, anywhere in the notebook, runs code the grader cannot read (``OPAQUE``)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in OPAQUE_NAMES:
            found.add(node.id)
        elif isinstance(node, ast.Attribute) and node.attr in OPAQUE:
            found.add(node.attr)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in OPAQUE_NAMES:
            found.add(node.value)
    return found


def _is_true(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value is True
