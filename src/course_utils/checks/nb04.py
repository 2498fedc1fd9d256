"""Checks for the exercises and try-it cells of notebook 04, the current CUDA device and its scopes.

The scoping rules are checked against tables of programs and what ``torch.cuda.device``'s source
makes of them (``LISTING_ANSWERS``, ``LANDING_CASES``, and 04.2's programs in ``nb04_programs.json``,
read by ``simulate_cases()``), so every check runs on a CPU-only machine. The tests hold the tables to a reference model
(``tests/answer_references.py``), and that model to real GPUs where two are present. The lesson's
simulated GPUs (``course_utils.simulation``) would run a program and so answer 04.1 to 04.3: those
checks call the answer under ``NoSimulatedGPUs``, which switches them off. These tables are the
practice checks' (``cases``); a grading run draws its own programs, landings and scopes.

A *program* is a list of steps, each a tuple:

- ``("device", i)``: enter ``with torch.cuda.device(i):`` (``i`` an int, or ``None``)
- ``("device_of", where)``: enter ``with torch.cuda.device_of(t):`` for a tensor on ``where``
  (``"cpu"`` or a GPU index)
- ``("torch.device", name)``: enter ``with torch.device(name):`` (``"cuda:1"``, ``"cpu"``, ``"meta"``)
- ``("set_device", i)``: call ``torch.cuda.set_device(i)``
- ``("exit",)``: leave the innermost open block
- ``("read",)``: read ``torch.cuda.current_device()`` (changes nothing)
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

import torch
from torch import nn
from torch.overrides import TorchFunctionMode

from course_utils.checks._core import LearnerRaised, Wrong, call, cases, exercise, same, text, try_it
from course_utils.checks.machines import NoSimulatedGPUs
from course_utils.scopes import default_device, read_devices, restore_default_device

STEP_KINDS = ("device", "device_of", "torch.device", "set_device", "exit", "read")

# 04.2's 308 programs with what torch.cuda's rules give, one a line: data, written by
# tests/answer_references.py from the reference model and checked against it by tests/test_case_tables.py
PROGRAMS_FILE = Path(__file__).with_name("nb04_programs.json")


@functools.cache
def simulate_cases() -> tuple[tuple[int, tuple[tuple, ...], tuple[int, ...]], ...]:
    """04.2's practice programs as ``(start, steps, current device after each step)``, read once."""
    rows = json.loads(PROGRAMS_FILE.read_text(encoding="utf-8"))
    return tuple((start, tuple(tuple(step) for step in steps), tuple(after)) for start, steps, after in rows)


# --------------------------------------------------------------------------- 04.1

# The listing of exercise 04.1, as a program; the reads are a, b, ..., h in order.
LISTING = [
    ("device", 1),
    ("read",),  # a
    ("device_of", "cpu"),
    ("read",),
    ("exit",),  # b
    ("device_of", 0),
    ("read",),
    ("exit",),  # c
    ("exit",),
    ("read",),  # d
    ("device", 0),
    ("set_device", 1),
    ("read",),  # e
    ("exit",),
    ("read",),  # f
    ("device", -1),
    ("set_device", 1),
    ("exit",),
    ("read",),  # g
    ("torch.device", "cuda:0"),
    ("read",),
    ("exit",),  # h
]
READS = "abcdefgh"
LISTING_ANSWERS = (1, 1, 0, 0, 1, 0, 1, 1)  # what torch.cuda prints for a to h


# The rule each read turns on, said without the value it gives (issue 33.3: a hint names the rule, the
# learner works out the number; tests/test_checks_wrong_answers.py holds these to no digit but -1).
_WHY = {
    "a": "inside `with torch.cuda.device(i):` the device i is current.",
    "b": "device_of(t) switches to t's device, and the index of a CPU object is -1, which switches nothing.",
    "c": "device_of(t) switches to the GPU that t lives on.",
    "d": "each block restores, on exit, the device that was current when it was entered.",
    "e": "set_device makes its device current at once, inside a block or not.",
    "f": "a block's exit puts back what was current when it was entered: a set_device made inside it is undone.",
    "g": "device(-1) switches nothing, and restores nothing on exit: a set_device inside it stays.",
    "h": "with torch.device('cuda:N') changes the default device for new tensors, not the current CUDA device.",
}


@exercise(
    "04.1",
    "Predict the current device",
    "predictions",
    hint=(
        "A block restores, on exit, what was current when it was entered; device_of(CPU tensor) and "
        "device(-1) do nothing; torch.device(...) only sets the default device."
    ),
)
def _predictions(predictions) -> str:
    with NoSimulatedGPUs("04.1"):
        got = call(predictions)
    expected = list(LISTING_ANSWERS)
    if not isinstance(got, (list, tuple)) or len(got) != len(expected):
        raise Wrong(f"predictions() should return a list of {len(expected)} integers (a to h), got {got!r}.")
    for letter, mine, right in zip(READS, got, expected):
        if not same(mine, right):
            raise Wrong(f"{letter} = {mine!r} is not what PyTorch prints.", f"For {letter}: {_WHY[letter]}")
    return f"All eight right: {', '.join(f'{k}={v}' for k, v in zip(READS, expected))}."


# --------------------------------------------------------------------------- 04.2


@exercise(
    "04.2",
    "Simulate the scoping rules",
    "simulate",
    hint=(
        "Each block entered must remember what its exit restores, and blocks nest: keep a stack of those. A "
        "block that changes nothing still pushes an entry, one that restores nothing: for -1, for a CPU "
        "device_of, for a torch.device block."
    ),
)
def _simulate(simulate) -> str:
    programs = cases("04.2", simulate_cases())
    for start, steps, after in programs:
        program, expected = list(steps), list(after)
        with NoSimulatedGPUs("04.2"):
            got = call(simulate, start, [tuple(s) for s in program])
        shown = f"simulate({start}, {program}) returned {got!r}"
        if not isinstance(got, (list, tuple)) or len(got) != len(expected):
            raise Wrong(f"{shown}; expected a list of {len(expected)} ints, the current device after each step.")
        if not same(list(got), expected):
            step = next(i for i, (g, e) in enumerate(zip(got, expected)) if not same(g, e))
            raise Wrong(f"{shown}: after step {step + 1}, {program[step]}, torch.cuda's rules do not give {got[step]!r}.")
    return f"Your simulation agrees with torch.cuda's rules on {len(programs)} programs."


# --------------------------------------------------------------------------- 04.3


# (the argument of x.cuda() or x.to(), the current CUDA device, where the tensor lands)
LANDING_CASES = (
    (None, 0, "cuda:0"),
    (None, 2, "cuda:2"),
    (1, 0, "cuda:1"),
    (0, 3, "cuda:0"),
    ("cuda", 1, "cuda:1"),
    ("cuda", 3, "cuda:3"),
    ("cuda:0", 2, "cuda:0"),
    ("cuda:2", 0, "cuda:2"),
    (torch.device("cuda"), 2, "cuda:2"),
    (torch.device("cuda", 1), 3, "cuda:1"),
    ("cpu", 1, "cpu"),
    (torch.device("cpu"), 0, "cpu"),
    ("meta", 2, "meta"),
)
# indexed devices of other types, in every run (practice or graded): the current CUDA device plays no part, and
# their index is not a CUDA index
OTHER_LANDINGS = (("mps:0", 1, "mps:0"), (torch.device("xpu", 1), 0, "xpu:1"))


@exercise(
    "04.3",
    "Where does the tensor land?",
    "landing_device",
    hint=(
        "A CUDA device without an index means the current device at the moment the tensor is made; an "
        "explicit index wins; other device types ignore the current CUDA device."
    ),
)
def _landing_device(landing_device) -> str:
    landings = (*cases("04.3", LANDING_CASES), *OTHER_LANDINGS)
    for spec, current, expected in landings:
        with NoSimulatedGPUs("04.3"):
            got = call(landing_device, spec, current)
        if text(got) != expected:
            shown = "x.cuda()" if spec is None else (f"x.cuda({spec})" if isinstance(spec, int) else f"x.to({spec!r})")
            raise Wrong(f"With cuda:{current} current, you said {shown} lands on {got!r}; it does not.")
    return f"Right for all {len(landings)} cases: 'cuda' means the current device, an index wins."


# --------------------------------------------------------------------------- 04.4

NO_SWITCH = ("cpu", torch.device("cpu"), "meta", torch.device("meta"), "mps", "cuda", torch.device("cuda"))
SWITCH = (("cuda:0", 0), ("cuda:1", 1), (torch.device("cuda", 2), 2), ("cuda:3", 3))
# devices of other types with an index, in every run: an index alone does not make a CUDA device
OTHER_INDEXED = ("mps:0", torch.device("xpu", 1))


@exercise(
    "04.4",
    "A device-agnostic scope",
    "device_scope",
    hint=(
        "Parse the argument with torch.device first. Only a CUDA device with an index has a current-device "
        "scope (torch.cuda.device); anything else gets a block that does nothing (see contextlib)."
    ),
)
def _device_scope(device_scope) -> str:
    no_switch, switch = cases("04.4", (NO_SWITCH, SWITCH))
    for device in (*no_switch, *OTHER_INDEXED):
        scope = call(device_scope, device)
        if isinstance(scope, torch.cuda.device) or not (hasattr(scope, "__enter__") and hasattr(scope, "__exit__")):
            raise Wrong(
                f"device_scope({device!r}) returned {scope!r}; it should be a context manager that switches nothing "
                "(on a machine without CUDA, torch.cuda.device would fail to enter).",
            )
        before = read_devices()
        try:
            with scope:
                inside = read_devices()
        except Exception as exc:
            raise Wrong(f"Entering device_scope({device!r}) raised {type(exc).__name__}: {exc}") from None
        if inside != before or read_devices() != before:
            raise Wrong(f"device_scope({device!r}) changed the current or default device; it should change nothing.")
    for device, index in switch:
        scope = call(device_scope, device)
        if not isinstance(scope, torch.cuda.device) or scope.idx != index:
            raise Wrong(f"device_scope({device!r}) returned {scope!r}; expected torch.cuda.device({index}).")
        if torch.cuda.is_available() and index < torch.cuda.device_count():
            with scope:
                if torch.cuda.current_device() != index:
                    raise Wrong(f"Inside device_scope({device!r}) the current device is not {index}.")
    return "Switches for an indexed CUDA device, does nothing (and never fails) for everything else."


# --------------------------------------------------------------------------- try-its 04.a, 04.b


def _try_it_devices() -> list:
    """The devices a try-it answer must follow: the CPU and meta everywhere, the GPUs where present."""
    devices = [torch.device("cpu"), torch.device("meta")]
    if torch.cuda.is_available():
        devices += [torch.device("cuda", i) for i in {0, torch.cuda.device_count() - 1}]
    return devices


def _default_kept(before: torch.device, where: str) -> None:
    """Wrong if the answer left the default device changed; put it back first, so the notebook goes on.

    Put back either way: an answer that set the device and set it back leaves a device mode of its own on
    torch's stack, where a check's next mode (``_Allocations``) would be entered above it and see it popped."""
    now = default_device()
    restore_default_device(before)
    if now != before:
        raise Wrong(
            f"After {where} the default device is {now}, no longer {before}: new tensors everywhere in the "
            "notebook would go there (the check has put it back).",
            "torch.set_default_device changes it for good; `with torch.device(...):` changes it for a block.",
        )


def _set_default_kept(fn, arg, where: str) -> None:
    """Wrong if ``fn(arg)``, called with meta as the default device, leaves another one (04.a, 04.b).

    An answer that sets the default device and then sets it to the CPU (or to None) passes while the
    default is the CPU; it is the device that was set before that it must put back."""
    before = default_device()
    restore_default_device("meta")
    try:
        call(fn, arg)
        now = default_device()
    finally:
        restore_default_device(before)
    if now != torch.device("meta"):
        raise Wrong(
            f"With meta set as the default device before the call, {where} left the default device {now}: "
            "it put back a device of its own choosing, not the one that was set.",
            "Put back what was set before the call, whatever it was; a `with` block does that by itself.",
        )


class _PlacedByBlocks:
    """The functions that a `with torch.device(...)` block placed during a call (04.a): ``names``.

    Records what torch's DeviceContext, the mode behind the with-block, handles. ``works`` says whether the
    recording saw a block of its own on entry: where it did not (a torch that places tensors another way),
    nothing is concluded from ``names``."""

    def __enter__(self):
        from unittest.mock import patch

        from torch.utils._device import DeviceContext

        own = DeviceContext.__torch_function__
        self.names: list[str] = []

        def recording(mode, func, types, args=(), kwargs=None):
            self.names.append(getattr(func, "__name__", ""))
            return own(mode, func, types, args, kwargs)

        self._patch = patch.object(DeviceContext, "__torch_function__", recording)
        self._patch.__enter__()
        with torch.device("meta"):
            torch.zeros(1)
        self.works, self.names = self.names == ["zeros"], []
        return self

    def __exit__(self, *exc):
        return self._patch.__exit__(*exc)


def _zeros_by_block(zeros_where, x: torch.Tensor, where: str) -> None:
    """Wrong if ``zeros_where(x)`` made its zeros without a with-block placing torch.zeros (04.a)."""
    with _PlacedByBlocks() as placed:
        call(zeros_where, x)
    if placed.works and "zeros" not in placed.names:
        raise Wrong(
            f"{where} put its zeros on x's device, but not through a with-block around torch.zeros(2): it named "
            "the device itself (device=, .to(...), new_zeros or zeros_like), so the default device, what this "
            "try-it is about, played no part.",
            "Write torch.zeros(2) without device= and let a `with torch.device(...)` block decide where it lands.",
        )


@try_it(
    "04.a",
    "New tensors follow a default device",
    name="zeros_where",
    kind="function",
    hint="A `with torch.device(...)` block makes new tensors land on that device; take the device from x.",
)
def _zeros_where(zeros_where) -> str:
    devices = _try_it_devices()
    for device in devices:
        x = torch.ones(3, device=device)
        where = f"zeros_where(<x on {device}>)"
        before = default_device()
        try:
            got = call(zeros_where, x)
        except LearnerRaised as raised:
            _default_kept(before, where)
            raise Wrong(
                f"{where} raised {type(raised.exc).__name__}: {raised.exc}", "Take the device from x (x.device) rather than naming one."
            ) from None
        _default_kept(before, where)
        if not isinstance(got, torch.Tensor) or tuple(got.shape) != (2,):
            raise Wrong(f"{where} returned {got!r}; expected torch.zeros(2), a tensor of shape (2,).")
        if got.device != x.device:
            raise Wrong(
                f"{where} returned a tensor on {got.device}; expected x's device, {x.device}.",
                "torch.cuda.device and torch.cuda.device_of switch only the current CUDA device; new tensors "
                "follow the default device, which a torch.device with-block sets.",
            )
        if device.type != "meta" and torch.count_nonzero(got).item() != 0:
            raise Wrong(f"{where} returned {got.tolist()}; expected zeros.")
    _zeros_by_block(zeros_where, torch.ones(3, device="meta"), "zeros_where(<x on meta>)")  # meta: never the default
    _set_default_kept(zeros_where, torch.ones(3), "zeros_where(<x on cpu>)")
    return f"torch.zeros(2) landed on x's device for x on {', '.join(str(d) for d in devices)}."


class _Allocations(TorchFunctionMode):
    """Records the device of every tensor a factory function makes while it is active (04.b)."""

    FACTORIES = ("empty", "zeros", "ones", "full", "rand", "randn", "tensor", "empty_strided", "arange")

    def __init__(self):
        super().__init__()
        self.devices: list[str] = []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        if getattr(func, "__name__", "") in self.FACTORIES and isinstance(out, torch.Tensor):
            self.devices.append(str(out.device))
        return out


@try_it(
    "04.b",
    "Build a layer directly on its device",
    name="build_on",
    kind="function",
    hint=("Build the layer on the device directly: inside a torch.device with-block, as in 04.a, or with nn.Linear's own device argument."),
)
def _build_on(build_on) -> str:
    devices = _try_it_devices()
    for device in devices:
        for asked in (str(device), device):
            where = f"build_on({asked!r})"
            before = default_device()
            try:
                got = call(build_on, asked)
            except LearnerRaised as raised:
                _default_kept(before, where)
                raise Wrong(
                    f"{where} raised {type(raised.exc).__name__}: {raised.exc}", "Use the device you are given, whichever it is."
                ) from None
            _default_kept(before, where)
            if type(got) is not nn.Linear or (got.in_features, got.out_features) != (8, 8):
                raise Wrong(f"{where} returned {got!r}; expected nn.Linear(8, 8).")
            on = sorted({str(p.device) for p in got.parameters()})
            if on != [str(device)]:
                raise Wrong(
                    f"{where} returned a layer on {', '.join(on)}; expected it on {device}.",
                    "Create the layer where it belongs from the start: a torch.device with-block sets where new tensors go.",
                )
            allocations = _Allocations()
            with allocations:  # the answer left no mode behind (checked above), so this one pops cleanly
                call(build_on, asked)
            elsewhere = sorted(set(allocations.devices) - {str(device)})
            if elsewhere:
                raise Wrong(
                    f"{where} made the layer's tensors on {', '.join(elsewhere)} first, then copied them to "
                    f"{device}: twice the memory, and for a large model on a GPU, time spent copying.",
                    "Do not move the layer after building it: build it on the device (a torch.device with-block, or "
                    "nn.Linear's device argument).",
                )
    _set_default_kept(build_on, "cpu", "build_on('cpu')")
    return f"Built directly on {', '.join(str(d) for d in devices)}, default device left as it was."
