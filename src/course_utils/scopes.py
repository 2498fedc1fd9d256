"""Which CUDA device is *current*, step by step: trace it through nested ``with`` blocks.

Lesson: notebook 04 (the current device and its scopes). Two devices matter there, and they are
easy to confuse:

- the **current CUDA device** (``torch.cuda.current_device()``): where ``.cuda()``,
  ``device="cuda"`` (no index), the current stream, memory statistics and ``mem_get_info()``
  go. ``torch.cuda.device(i)``, ``torch.cuda.device_of(obj)`` and ``torch.cuda.set_device(i)``
  change it;
- the **default device**: where factory functions such as ``torch.ones(3)`` put a tensor when
  no ``device=`` is given. ``with torch.device("meta"):`` and ``torch.set_default_device`` change
  it, and it does not touch the current CUDA device. ``default_device()`` reads it on every
  supported PyTorch (``torch.get_default_device()`` only does so from 2.10).

``trace_current_device()`` records both at each step you mark; ``run_scopes(...)`` enters a list
of context managers one inside the other and records both after every entry and every exit.
Both work on every machine: without CUDA the current CUDA device reads "n/a (no CUDA)", and a
scope that cannot be entered there (``torch.cuda.device(1)`` on a laptop) is recorded with the
error it raised instead of crashing the cell. Nothing here changes a device; it only reads.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import torch
from torch.torch_version import TorchVersion

from course_utils.display import LINE_BREAK, PROBLEM, Html, markup, table, tag

NO_CUDA = "n/a (no CUDA)"


@dataclass(frozen=True)
class ScopeStep:
    """The devices at one step: the current CUDA device (``None`` without CUDA) and the default device."""

    step: str
    cuda_device: int | None
    default_device: str  # str(default_device()): "cpu", "meta", "cuda:0"
    depth: int = 0  # how many traced scopes were open at this step
    error: str | None = None  # set when this step is a scope that could not be entered

    @property
    def cuda_label(self) -> str:
        """``cuda:1``, or ``n/a (no CUDA)`` on a machine without CUDA."""
        return NO_CUDA if self.cuda_device is None else f"cuda:{self.cuda_device}"


@dataclass(frozen=True)
class ScopeTrace:
    """Every recorded step, in order; end a notebook cell on it to see the table."""

    steps: tuple[ScopeStep, ...]
    cuda_available: bool

    @property
    def cuda_devices(self) -> tuple[int | None, ...]:
        """The current CUDA device at each step (``None`` everywhere without CUDA)."""
        return tuple(s.cuda_device for s in self.steps)

    @property
    def default_devices(self) -> tuple[str, ...]:
        """The default device for factory functions at each step."""
        return tuple(s.default_device for s in self.steps)

    @property
    def errors(self) -> tuple[ScopeStep, ...]:
        """The steps whose scope could not be entered on this machine."""
        return tuple(s for s in self.steps if s.error)

    def __getitem__(self, label: str) -> ScopeStep:
        """The first step with this label: ``trace["inside device(1)"]``."""
        for s in self.steps:
            if s.step == label:
                return s
        known = ", ".join(repr(s.step) for s in self.steps) or "none"
        raise KeyError(f"no step labelled {label!r}; the steps are: {known}")

    def __len__(self) -> int:
        return len(self.steps)

    def __str__(self) -> str:
        width = max([len("  " * s.depth + s.step) for s in self.steps] + [4])
        lines = [f"{'step':<{width}}  {'current CUDA device':<19}  default device"]
        for s in self.steps:
            label = "  " * s.depth + s.step
            lines.append(f"{label:<{width}}  {s.cuda_label:<19}  {s.default_device}")
            if s.error:
                lines.append(f"{'':<{width}}  ! could not enter: {s.error}")
        if not self.cuda_available:
            lines.append("(no CUDA here: the current CUDA device does not exist; the default device still does)")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return str(self)

    def _repr_html_(self) -> str:
        rows = []
        for s in self.steps:
            indent = Html("&nbsp;" * 4 * s.depth)  # the nesting of the with-blocks, as in the code
            error = markup(LINE_BREAK, tag("span", f"could not enter: {s.error}", colour=PROBLEM)) if s.error else ""
            rows.append((markup(indent, tag("code", s.step), error), s.cuda_label, s.default_device))
        note = (
            ""
            if self.cuda_available
            else tag("p", tag("i", "No CUDA here: the current CUDA device does not exist; the default device still does."))
        )
        # left-aligned, so the indented steps line up as the code does
        steps = table(rows, head=("step", "current CUDA device", "default device"), cell_style="text-align:left")
        return markup(steps, note)


def default_device() -> torch.device:
    """Where a factory function with no ``device=`` creates a tensor right now (notebooks 02 and 04).

    From PyTorch 2.10 this is ``torch.get_default_device()``. That function was fixed in two
    releases: before 2.8 it ignored ``with torch.device(...)`` blocks in a thread that never called
    ``set_default_device`` (pytorch/pytorch#131328, fixed by #148621), and before 2.10 it raised
    ``AttributeError`` after ``torch.set_default_device(None)`` (it tested ``hasattr`` where 2.10
    reads ``getattr(..., "device_context", None)``). On those releases this does the lookup 2.10
    does: the innermost device mode, else what ``set_default_device`` set, else the CPU. Nothing is
    created, so it works inside ``with torch.device("cuda:0")`` on a machine without CUDA.
    """
    if _GET_DEFAULT_DEVICE_IS_RIGHT:
        return torch.get_default_device()
    from torch.overrides import _get_current_function_mode_stack  # private, but 2.7 to 2.9 are frozen
    from torch.utils._device import DeviceContext

    modes = [m for m in _get_current_function_mode_stack() if isinstance(m, DeviceContext)]
    context = getattr(torch._GLOBAL_DEVICE_CONTEXT, "device_context", None)
    device = modes[-1].device if modes else context.device if context is not None else torch.device("cpu")
    # as 2.10 does: a device without an index is resolved by the device type's current index
    return device if device.index is not None or device.type == "cpu" else torch.empty(0).device


# Read in the wheels: 2.7.1 asks only the global context; 2.8.0 and 2.9.1 also ask the device
# modes but test hasattr, so a context reset to None raises; 2.10.0 reads getattr(..., None).
_GET_DEFAULT_DEVICE_IS_RIGHT = TorchVersion(torch.__version__) >= "2.10"


def restore_default_device(device: torch.device | str | None) -> None:
    """Put the default device back to ``device`` (None or the CPU: none set), as a check does after an answer.

    ``torch.set_default_device(None)`` leaves ``device_context = None`` behind, and on 2.7 to 2.9
    ``torch.get_default_device()`` then raises AttributeError (see ``default_device``): the learner's
    next cell that asks would fail because a check ran. That ``None`` means what no context means to
    every release, so it is removed.
    """
    cpu = device is None or torch.device(device) == torch.device("cpu")
    torch.set_default_device(None if cpu else device)
    if getattr(torch._GLOBAL_DEVICE_CONTEXT, "device_context", "absent") is None:
        del torch._GLOBAL_DEVICE_CONTEXT.device_context


def read_devices() -> tuple[int | None, str]:
    """The current CUDA device index (``None`` without CUDA) and the default device, read now."""
    cuda = torch.cuda.current_device() if torch.cuda.is_available() else None
    return cuda, str(default_device())


class DeviceTracer:
    """Records the devices each time you call ``mark``; made by ``trace_current_device()``."""

    def __init__(self) -> None:
        self._steps: list[ScopeStep] = []
        self._depth = 0
        self._cuda_available = torch.cuda.is_available()

    def mark(self, label: str) -> ScopeStep:
        """Record the current CUDA device and the default device now, under ``label``."""
        if not isinstance(label, str) or not label:
            raise TypeError(f"mark() expects a non-empty string label, got {label!r}. Try t.mark('inside device(1)').")
        cuda, default = read_devices()
        step = ScopeStep(label, cuda, default, self._depth)
        self._steps.append(step)
        return step

    @contextlib.contextmanager
    def scope(self, label: str, manager: Any) -> Iterator[ScopeStep]:
        """Enter ``manager`` (a context manager, or a function returning one), marking inside and after.

        ``with t.scope("device(1)", torch.cuda.device(1)):`` records "inside device(1)" on entry and
        "after device(1)" once the block has exited, indented by nesting depth.
        """
        manager = _as_manager(manager, label)
        with manager:
            self._depth += 1
            try:
                yield self.mark(f"inside {label}")
            finally:
                self._depth -= 1
        self.mark(f"after {label}")

    @property
    def trace(self) -> ScopeTrace:
        """What was recorded so far, as a frozen ``ScopeTrace``."""
        return ScopeTrace(tuple(self._steps), self._cuda_available)

    def __str__(self) -> str:
        return str(self.trace)

    def __repr__(self) -> str:
        return str(self.trace)

    def _repr_html_(self) -> str:
        return self.trace._repr_html_()


@contextlib.contextmanager
def trace_current_device(start: str | None = "start") -> Iterator[DeviceTracer]:
    """Trace the current CUDA device and the default device through the block.

    ``with trace_current_device() as t: ...; t.mark("here")`` then end the cell on ``t``.
    Marks ``start`` on entry unless it is ``None``. Works on CPU-only machines (the CUDA
    column then reads "n/a (no CUDA)"); it reads devices and never changes them.
    """
    tracer = DeviceTracer()
    if start is not None:
        tracer.mark(start)
    yield tracer


def run_scopes(scopes: Sequence[tuple[str, Any]], *, body: Callable[[], Any] | None = None) -> ScopeTrace:
    """Enter each scope inside the previous one, then leave them all, recording the devices at each step.

    ``scopes`` is a list of ``(label, manager)`` pairs, outermost first. ``manager`` is a context
    manager or a function that returns one (write ``lambda: torch.cuda.device("cuda")`` when the
    manager must be built at that point of the nesting). ``body``, if given, runs innermost.

    A scope that raises while being entered (``torch.cuda.device(1)`` without CUDA) is recorded
    with its error, the scopes inside it are skipped, and the ones already entered are left in
    order, so the trace always shows what was restored.
    """
    pairs = _checked_scopes(scopes)
    tracer = DeviceTracer()
    tracer.mark("before")
    entered: list[tuple[str, Any]] = []
    failure: BaseException | None = None
    try:
        for label, manager in pairs:
            cm = _enter(label, manager, tracer)
            if cm is None:
                break
            entered.append((label, cm))
            tracer._depth += 1
            tracer.mark(f"inside {label}")
        else:
            if body is not None:
                body()
                tracer.mark("after body")
    except BaseException as exc:
        failure = exc
        raise
    finally:
        # Leave the scopes one at a time, innermost first, recording after each exit.
        while entered:
            label, cm = entered.pop()
            cm.__exit__(type(failure) if failure else None, failure, failure.__traceback__ if failure else None)
            tracer._depth -= 1
            if failure is None:
                tracer.mark(f"after {label}")
    return tracer.trace


def _checked_scopes(scopes: Sequence[tuple[str, Any]]) -> list[tuple[str, Any]]:
    """``scopes`` as a list of ``(label, manager)`` pairs; a TypeError that shows the form where it is not one."""
    if isinstance(scopes, (str, bytes)) or not isinstance(scopes, Sequence):
        raise TypeError(
            f"run_scopes expects a list of (label, context manager) pairs, got {type(scopes).__name__}. "
            "Try run_scopes([('device(1)', torch.cuda.device(1)), ('device_of(x)', torch.cuda.device_of(x))])."
        )
    pairs = []
    for i, item in enumerate(scopes):
        if not (isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], str)):
            raise TypeError(
                f"run_scopes: item {i} should be a (label, context manager) pair, got {item!r}. "
                "Label each scope: ('device(1)', torch.cuda.device(1))."
            )
        if not (callable(item[1]) or (hasattr(item[1], "__enter__") and hasattr(item[1], "__exit__"))):
            raise TypeError(
                f"run_scopes: scope {item[0]!r} should be a context manager, or a function returning one, "
                f"got {type(item[1]).__name__}: {item[1]!r}."
            )
        pairs.append(item)
    return pairs


def _enter(label: str, manager: Any, tracer: DeviceTracer) -> Any:
    """Enter one scope and return its context manager; None, with the error recorded in ``tracer``, if entering raised."""
    try:
        cm = manager if _is_manager(manager) else manager()
        if not _is_manager(cm):
            raise _NotAManager(f"scope {label!r}: the function returned {type(cm).__name__}, which is not a context manager.")
        cm.__enter__()
    except _NotAManager as exc:
        raise TypeError(str(exc)) from None
    except Exception as exc:  # recorded, not raised: the trace shows what this machine did
        cuda, default = read_devices()
        tracer._steps.append(ScopeStep(f"enter {label}", cuda, default, tracer._depth, error=f"{type(exc).__name__}: {exc}"))
        return None
    return cm


class _NotAManager(Exception):
    pass


def _is_manager(value: Any) -> bool:
    return hasattr(value, "__enter__") and hasattr(value, "__exit__")


def _as_manager(manager: Any, label: str) -> Any:
    if hasattr(manager, "__enter__") and hasattr(manager, "__exit__"):
        return manager
    if callable(manager):
        built = manager()
        if hasattr(built, "__enter__") and hasattr(built, "__exit__"):
            return built
        raise TypeError(f"scope {label!r}: the function returned {type(built).__name__}, which is not a context manager.")
    raise TypeError(
        f"scope {label!r}: expected a context manager such as torch.cuda.device(1), or a function returning one, "
        f"got {type(manager).__name__}: {manager!r}."
    )
