"""The grader's reading of a notebook's file (``course_grader.source_rules``, issue 38 item 2): what counts.

A call the exercise teaches counts where the answer can reach it, not in dead code (after a ``return``, under
``if False:``, in a function nothing names); the course's own tool for an exercise's job does not count as doing
it, under any name it is imported by, while a learner's own variable of the same name is theirs. Every solution
keeps every rule, so no right answer is failed by them.
"""

from __future__ import annotations

import importlib
import pkgutil
import textwrap
from pathlib import Path

import pytest
from hidden_case_support import solution_namespace
from test_hidden_cases import LIAR_09, _channel_with_source

import course_utils
from course_grader.boundary import grade
from course_grader.source_rules import CALLS, HELPERS, broken_rule
from course_utils.checks import all_exercises, get_exercise

ROOT = Path(__file__).resolve().parents[1]


def _breaks(exercise_id: str, source: str) -> bool:
    return broken_rule(exercise_id, get_exercise(exercise_id).function, textwrap.dedent(source)) is not None


MOVE = "def to_device(batch, device):\n"
# (source, does it keep 09.1's rule?)
READINGS_09_1 = {
    "a keyword": (MOVE + "    return batch.to(device, non_blocking=True)", True),
    "positional, after a dtype": (MOVE + "    return batch.to(device, None, True)", True),
    "positional": (MOVE + "    return batch.to(device, True)", True),
    "behind a real condition": (
        MOVE + "    if isinstance(batch, dict):\n        return {k: v.to(device, non_blocking=True) "
        "for k, v in batch.items()}\n    return batch",
        True,
    ),
    "in a helper the answer calls": (
        "def _move(t, d):\n    return t.to(d, non_blocking=True)\n\n" + MOVE + "    return _move(batch, device)",
        True,
    ),
    "in a helper it passes to map": (
        "def _move(t):\n    return t.to('cpu', non_blocking=True)\n\n" + MOVE + "    return list(map(_move, batch))",
        True,
    ),
    "in a nested function it calls": (MOVE + "    def move(x):\n        return x.to(device, non_blocking=True)\n    return move(batch)", True),
    "in a method of a class it uses": (
        "class Mover:\n    def __call__(self, t, d):\n        return t.to(d, non_blocking=True)\n\n"
        + MOVE
        + "    return Mover()(batch, device)",
        True,
    ),
    "with a magic in the notebook": ("%time x = 1\n" + MOVE + "    return batch.to(device, non_blocking=True)", True),
    "blocking": (MOVE + "    return batch.to(device)", False),
    "non_blocking=False": (MOVE + "    return batch.to(device, non_blocking=False)", False),
    "another method": (MOVE + "    return batch.cuda(non_blocking=True)", False),
    "in a comment": (MOVE + "    # batch.to(device, non_blocking=True)\n    return batch.to(device)", False),
    "after the return": (MOVE + "    return batch.to(device)\n    batch.to(device, non_blocking=True)", False),
    "after a raise in a branch": (
        MOVE + "    if device:\n        raise ValueError\n        batch.to(device, non_blocking=True)\n    return batch.to(device)",
        False,
    ),
    "under if False": (MOVE + "    if False:\n        batch.to(device, non_blocking=True)\n    return batch.to(device)", False),
    "under if 0 == 1": (MOVE + "    if 0 == 1:\n        batch.to(device, non_blocking=True)\n    return batch.to(device)", False),
    "in the else of if True": (
        MOVE + "    if True:\n        return batch.to(device)\n    else:\n        return batch.to(device, non_blocking=True)",
        False,
    ),
    "under while False": (MOVE + "    while False:\n        batch.to(device, non_blocking=True)\n    return batch.to(device)", False),
    "in a dead ternary": (MOVE + "    return batch.to(device, non_blocking=True) if False else batch.to(device)", False),
    "after False and": (MOVE + "    False and batch.to(device, non_blocking=True)\n    return batch.to(device)", False),
    "in a nested function never named": (
        MOVE + "    def unused(x):\n        return x.to(device, non_blocking=True)\n    return batch.to(device)",
        False,
    ),
    "in another top-level function": (
        "def decoy(t):\n    return t.to('cpu', non_blocking=True)\n\n" + MOVE + "    return batch.to(device)",
        False,
    ),
    "at top level": ("import torch\ntorch.zeros(1).to('cpu', non_blocking=True)\n\n" + MOVE + "    return batch.to(device)", False),
    "in a def the name was later rebound from": (
        MOVE + "    return batch.to(device, non_blocking=True)\n\n"
        "def blocking(batch, device):\n    return batch.to(device)\n\n"
        "to_device = blocking",
        False,
    ),
    "in a def under if False at top level": (
        "if False:\n" + textwrap.indent(MOVE + "    return batch.to(device, non_blocking=True)", "    ") + "\n\n" + MOVE + "    return batch",
        False,
    ),
    "redefined by exec": (MOVE + "    return batch.to(device, non_blocking=True)\n\nexec('def to_device(b, d): return b')", False),
    "swapped __code__": (
        MOVE + "    return batch.to(device, non_blocking=True)\n\ndef other(b, d):\n    return b\n\nto_device.__code__ = other.__code__",
        False,
    ),
    "no to_device at all": ("x = 1", False),
    "not Python": (MOVE + "    return batch.to(device, non_blocking=True", False),
}


@pytest.mark.parametrize("what", sorted(READINGS_09_1))
def test_what_counts_as_asking_for_a_non_blocking_copy(what):
    source, keeps = READINGS_09_1[what]
    assert _breaks("09.1", source) is not keeps, source


def test_06_2_reads_copy_the_same_way():
    right = (
        "def copy_all_to_host(sources, buffers, synchronize):\n    for s, b in zip(sources, buffers):\n"
        "        b.copy_(s, non_blocking=True)\n    synchronize()\n    return buffers"
    )
    assert not _breaks("06.2", right)
    assert _breaks("06.2", right.replace("non_blocking=True", "non_blocking=False"))
    assert _breaks("06.2", right.replace("        b.copy_", "        continue\n        b.copy_"))
    assert not _breaks("06.2", right.replace("copy_(s, non_blocking=True)", "copy_(s, True)"))


def _helper_homes() -> dict[str, str]:
    """Every public name of course_utils' modules, and the module that defines it."""
    homes = {}
    for info in pkgutil.walk_packages(course_utils.__path__, "course_utils."):
        if ".checks" in info.name or info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if getattr(value, "__module__", None) == info.name:
                homes.setdefault(name, info.name)
    return homes


HOMES = _helper_homes()
HELPER_CASES = sorted((id, name) for id, names in HELPERS.items() for name in names)


def test_the_rules_name_real_exercises_and_real_course_tools():
    assert set(HELPERS) | set(CALLS) <= set(all_exercises())
    missing = [name for _, name in HELPER_CASES if name not in HOMES]
    assert not missing, f"HELPERS names what course_utils does not define: {missing}"


@pytest.mark.parametrize("exercise_id, helper", HELPER_CASES)
def test_an_answer_that_calls_the_courses_tool_fails_under_any_name(exercise_id, helper):
    function, home = get_exercise(exercise_id).function, HOMES[helper]
    by_name = f"from {home} import {helper}\n\ndef {function}(*args, **kwargs):\n    return {helper}(*args, **kwargs)"
    by_alias = f"from {home} import {helper} as tool\n\ndef {function}(*args):\n    return tool(*args)"
    by_module = f"import {home} as m\n\ndef {function}(*args):\n    return m.{helper}(*args)"
    via_helper = f"import {home}\n\ndef _inner(a):\n    return {home}.{helper}(*a)\n\ndef {function}(*args):\n    return _inner(args)"
    for source in (by_name, by_alias, by_module, via_helper):
        broken = broken_rule(exercise_id, function, source)
        assert broken is not None and f"`{helper}`" in broken.message, source
    # the learner's own variable, or a use in code the answer never reaches, is not the course's tool
    own = f"def {function}(*args):\n    {helper} = len(args)\n    return {helper}"
    unreached = f"from {home} import {helper}\n\ndef shown():\n    return {helper}\n\ndef {function}(*args):\n    return args"
    for source in (own, unreached):
        assert broken_rule(exercise_id, function, source) is None, source


SOLUTION_FILES = sorted((ROOT / "solutions").glob("[0-9][0-9]_*_exercises.py"))


@pytest.mark.parametrize("path", SOLUTION_FILES, ids=lambda p: p.name[:2])
def test_every_solution_keeps_every_rule(path):
    source = path.read_text(encoding="utf-8")
    ids = [id for id in all_exercises() if id.startswith(path.name[:2]) and id[3:].isdigit()]
    assert ids
    for id in ids:
        assert broken_rule(id, get_exercise(id).function, source) is None, id


def test_without_the_file_nothing_is_read():
    assert broken_rule("09.1", "to_device", None) is None
    assert broken_rule("02.1", "like", "this is not python (") is None  # no rule for 02.1


def test_the_judge_fails_a_passing_answer_that_breaks_a_rule():
    solution = (ROOT / "solutions" / "09_data_loading_and_memory_exercises.py").read_text(encoding="utf-8")
    right = {"to_device": solution_namespace("09")["to_device"]}
    assert grade("09.1", _channel_with_source(right, solution)).status == "pass"
    dead = solution.replace("non_blocking=True", "non_blocking=False") + "\n\ndef _decoy(t):\n    return t.to('cpu', non_blocking=True)\n"
    graded = grade("09.1", _channel_with_source(right, dead))
    assert graded.status == "fail" and "can reach it" in graded.message
    namespace: dict = {}
    exec(LIAR_09, namespace)
    assert grade("09.1", _channel_with_source(namespace, LIAR_09)).status == "fail"


def test_the_judge_fails_the_courses_own_tool_for_06_4():
    namespace: dict = {}
    source = (
        "from course_utils.transfer.ceilings import pcie_ceiling\n\ndef pcie_ceiling_gbps(gen, lanes=16):\n"
        "    return pcie_ceiling(gen, lanes).gbps\n"
    )
    exec(source, namespace)
    # the practice check (no file) passes it: it computes the right numbers
    assert grade("06.4", _channel_with_source(namespace, None)).status == "pass"
    graded = grade("06.4", _channel_with_source(namespace, source))
    assert graded.status == "fail" and "`pcie_ceiling`" in graded.message, graded


# 09.2 by the course's own storage_bytes: right numbers, so only the rule stops it (tests/test_grading_hidden_cases.py
# grades it in a real kernel)
HELPER_09_2 = """import torch
from course_utils.memory import storage_bytes

def held_bytes(model, optimizer):
    params = list(model.parameters())
    state = [v for s in optimizer.state.values() for v in s.values() if torch.is_tensor(v)]
    return storage_bytes(params + [p.grad for p in params if p.grad is not None] + state)
"""


def test_the_courses_storage_bytes_answers_09_2_and_the_file_says_so():
    namespace: dict = {}
    exec(HELPER_09_2, namespace)
    assert grade("09.2", _channel_with_source(namespace, None)).status == "pass"
    graded = grade("09.2", _channel_with_source(namespace, HELPER_09_2))
    assert graded.status == "fail" and "`storage_bytes`" in graded.message, graded


# 06.1 by reading the durations out of the op's closure: right numbers on drawn cases, timed nothing
PEEK_06_1 = """import statistics

def time_per_call(op, clock, synchronize, repeats=5):
    cells = dict(zip(op.__code__.co_freevars, (c.cell_contents for c in op.__closure__)))
    durations = cells["durations"]
    return statistics.median(durations[i % len(durations)] for i in range(repeats))
"""


def test_an_answer_that_reads_the_work_instead_of_timing_it_fails_06_1():
    namespace: dict = {}
    exec(PEEK_06_1, namespace)
    assert grade("06.1", _channel_with_source(namespace, None)).status == "pass"  # the gap the file closes
    graded = grade("06.1", _channel_with_source(namespace, PEEK_06_1))
    assert graded.status == "fail" and "looks inside" in graded.message, graded


@pytest.mark.parametrize(
    "peek",
    [
        "return op.__closure__[0].cell_contents",
        "return clock.__self__.now",
        "return getattr(op, '__clo' + 'sure__')",
        "import inspect\n    return inspect.getclosurevars(op)",
        "return vars(synchronize)",
        "return _peek(op)",
    ],
)
def test_what_counts_as_looking_inside_06_1s_callables(peek):
    helpers = "from inspect import getclosurevars as _g\n\ndef _peek(f):\n    return _g(f)\n\n"
    source = helpers + f"def time_per_call(op, clock, synchronize, repeats=5):\n    {peek}\n"
    assert _breaks("06.1", source), source
    honest = (
        "import statistics\n\ndef time_per_call(op, clock, synchronize, repeats=5):\n    times = []\n"
        "    for _ in range(repeats):\n        synchronize()\n        start = clock()\n        op()\n"
        "        synchronize()\n        times.append(clock() - start)\n    return statistics.median(times)\n"
    )
    assert not _breaks("06.1", helpers + honest)


@pytest.mark.parametrize(
    "what, source",
    [
        ("a cell with a syntax error hides the peek", PEEK_06_1 + "\nthis cell does not parse (\n"),
        ("the answer defined by exec", "exec(" + repr(PEEK_06_1) + ")\n"),
        ("the answer nowhere in the file", "import statistics\n"),
        ("code nested deeper than the parser goes", PEEK_06_1 + "\nx = " + "-" * 200000 + "1\n"),
        ("code nested deeper than the reader goes", PEEK_06_1.replace("return statistics", "return " + "not " * 5000 + "statistics")),
    ],
)
def test_what_the_grader_cannot_read_it_does_not_vouch_for(what, source):
    """Every exercise with a rule fails, with a message that says how to mend it, where the file cannot be read,
    runs code from strings, or does not define the answer: otherwise such a file would escape HELPERS and
    NO_PEEKING. No exception reaches the judge, however the file is built."""
    broken = broken_rule("06.1", "time_per_call", source)
    assert broken is not None and broken.hint, what
