"""Short tracebacks in a notebook: the frames inside torch folded into one line.

Lesson: every lesson with a deliberate error (a cell tagged ``raises-exception``) loads it in its
imports cell. A mistake such as ``m + c`` with ``m`` on ``meta`` raises deep inside torch's own
Python code (``torch/_prims_common``, ``torch/_decomp``, ``torch/_dynamo``): the traceback runs to
100 lines and more before the message. The learner's lines and the message are what teach.

- ``%load_ext course_utils.tracebacks`` shows each error's traceback without the frames that live
  in torch's package folder, folded into one line ("... 14 frames inside torch hidden: run %tb
  for the full traceback"), keeping the learner's frames, chained exceptions and the
  ``ExceptionType: message`` line. ``%tb`` still shows the whole original traceback.
  ``%unload_ext course_utils.tracebacks`` restores IPython's own handling.
- ``shorten(tb)`` is the filter itself: a traceback without torch's frames, and how many it hid.

IPython has one custom exception handler per shell (``set_custom_exc``), and
``course_utils.errors`` wants it too (to explain device errors under the traceback). So the handler
lives here, once: it shows the traceback (short when this extension is loaded) and then calls
whatever other extensions added with ``add_after_traceback``; either extension can be loaded or
unloaded first. Nothing here imports torch, and nothing changes where a tensor lives.
"""

from __future__ import annotations

import builtins
import importlib.util
import os
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from types import TracebackType

# --------------------------------------------------------------------------- the filter

_GROUPS = tuple(t for t in (getattr(builtins, "BaseExceptionGroup", None),) if t)  # Python 3.11+


def torch_folder() -> str | None:
    """The folder of the installed torch package (with a trailing separator), or None without torch."""
    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.origin:
        return None
    return os.path.join(os.path.dirname(os.path.abspath(spec.origin)), "")


def inside_torch(filename: str, folder: str | None = None) -> bool:
    """True for a source file in torch's own package folder (``.../site-packages/torch/...``)."""
    folder = torch_folder() if folder is None else folder
    return bool(folder) and os.path.abspath(filename).startswith(folder)


def shorten(tb: TracebackType | None, hide: Callable[[str], bool] | None = None) -> tuple[TracebackType | None, int]:
    """The traceback ``tb`` without the frames ``hide`` picks (default: those inside torch), and how many it hid.

    The original traceback is left as it is; the kept frames are chained anew with
    ``types.TracebackType``, in the same order, each with its own line.
    """
    if hide is None:
        folder = torch_folder()
        hide = lambda filename: inside_torch(filename, folder)  # noqa: E731 - one folder lookup per traceback
    kept, hidden = [], 0
    while tb is not None:
        if hide(tb.tb_frame.f_code.co_filename):
            hidden += 1
        else:
            kept.append(tb)
        tb = tb.tb_next
    short = None
    for entry in reversed(kept):
        short = TracebackType(short, entry.tb_frame, entry.tb_lasti, entry.tb_lineno)
    return short, hidden


def hidden_note(count: int) -> str:
    """The line that stands for the hidden frames."""
    frames = "frame" if count == 1 else "frames"
    return f"... {count} {frames} inside torch hidden: run %tb for the full traceback"


def _chain(value: BaseException | None) -> list[BaseException]:
    """The exception and those it was raised from or during (``__cause__``, ``__context__``), once each."""
    seen: list[BaseException] = []
    while value is not None and all(value is not s for s in seen):
        seen.append(value)
        value = value.__cause__ if value.__cause__ is not None else (None if value.__suppress_context__ else value.__context__)
    return seen


_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _with_notes(stb: list[str], chain: list[tuple[BaseException, int]]) -> list[str]:
    """IPython's traceback parts with each exception's note just above its "ExceptionType: message" line.

    ``chain`` lists (exception, frames hidden) in the order IPython prints them, first cause first.
    A note whose line is not found goes above the last part, which is the final message.
    """
    cursor, missed = 1, 0  # part 0 is the rule above the traceback
    for exc, hidden in chain:
        names = (type(exc).__name__, f"{type(exc).__module__}.{type(exc).__qualname__}")
        at = next(
            (
                i
                for i in range(cursor, len(stb))
                if _ANSI.sub("", stb[i]).lstrip().startswith(names) and "Traceback (most recent call last)" not in stb[i]
            ),
            None,
        )
        if at is None:
            missed += hidden
            continue
        if hidden:
            stb.insert(at, hidden_note(hidden))
            at += 1
        cursor = at + 1
    if missed:
        stb.insert(max(len(stb) - 1, 0), hidden_note(missed))
    return stb


# --------------------------------------------------------------------------- showing it in IPython

_STATE = "_course_utils_exception_display"


@dataclass
class _Display:
    """What this shell's exception handler does; kept on the shell while any course extension needs it."""

    saved: tuple  # (custom_exceptions, CustomTB) from before the first course extension loaded
    short: bool = False  # %load_ext course_utils.tracebacks is in effect
    after: dict[str, Callable] = field(default_factory=dict)  # name -> callback(shell, etype, value, tb)


def _short_traceback_shown(shell, etype, value, tb, tb_offset) -> bool:
    """Show the traceback of ``value`` without torch's frames; False when there is nothing to hide.

    IPython's own ways of showing an error (syntax errors, usage errors, exception groups,
    exceptions with their own ``_render_traceback_``) are left to ``shell.showtraceback``.
    """
    from IPython.core.error import UsageError  # here: the filter above needs no IPython

    chain = _chain(value)
    if issubclass(etype, (SyntaxError, UsageError)) or hasattr(value, "_render_traceback_") or any(isinstance(e, _GROUPS) for e in chain):
        return False
    folder = torch_folder()
    shortened = {id(e): shorten(tb if e is value else e.__traceback__, lambda f: inside_torch(f, folder)) for e in chain}
    hidden = sum(n for _, n in shortened.values())
    if hidden == 0:
        return False
    originals = [(e, e.__traceback__) for e in chain]
    try:  # IPython formats chained exceptions from their __traceback__: lend it the short ones
        for e in chain:
            e.__traceback__ = shortened[id(e)][0]
        stb = shell.InteractiveTB.structured_traceback(etype, value, shortened[id(value)][0], tb_offset=tb_offset)
    finally:
        for e, original in originals:
            e.__traceback__ = original
    stb = _with_notes(list(stb), [(e, shortened[id(e)][1]) for e in reversed(chain)])
    # what %tb, %debug and pdb read: the whole original traceback, as IPython would have stored it
    sys.last_type, sys.last_value, sys.last_traceback = etype, value, tb
    if sys.version_info >= (3, 12):
        sys.last_exc = value
    shell._showtraceback(etype, value, stb)  # the hook ipykernel overrides to send the error to the notebook
    if shell.call_pdb:
        shell.debugger(force=True)
    return True


def _handle(shell, etype, value, tb, tb_offset=None):
    """The shell's custom exception handler: the traceback (short while this extension is loaded), then what extensions add."""
    state = getattr(shell, _STATE, None)
    if not (state is not None and state.short and _short_traceback_shown(shell, etype, value, tb, tb_offset)):
        shell.showtraceback((etype, value, tb), tb_offset=tb_offset)
    for callback in list(state.after.values()) if state is not None else []:
        callback(shell, etype, value, tb)
    return None


def _state(shell) -> _Display:
    """This shell's display state, installing the course's handler the first time."""
    state = getattr(shell, _STATE, None)
    if state is None:
        state = _Display(saved=(shell.custom_exceptions, shell.CustomTB))
        setattr(shell, _STATE, state)
        shell.set_custom_exc((Exception,), _handle)
    return state


def _release(shell) -> None:
    """Give the shell its own handler back once no course extension needs ours."""
    state = getattr(shell, _STATE, None)
    if state is not None and not state.short and not state.after:
        shell.custom_exceptions, shell.CustomTB = state.saved
        delattr(shell, _STATE)


def add_after_traceback(shell, name: str, callback: Callable) -> None:
    """Call ``callback(shell, etype, value, tb)`` after each error's traceback (``course_utils.errors`` does)."""
    _state(shell).after[name] = callback


def remove_after_traceback(shell, name: str) -> None:
    """Stop calling what ``add_after_traceback`` added under ``name``; harmless if nothing was."""
    state = getattr(shell, _STATE, None)
    if state is not None:
        state.after.pop(name, None)
        _release(shell)


def load_ipython_extension(ipython) -> None:
    """``%load_ext course_utils.tracebacks``: fold the frames inside torch into one line."""
    _state(ipython).short = True


def unload_ipython_extension(ipython) -> None:
    """``%unload_ext course_utils.tracebacks``: show full tracebacks again."""
    state = getattr(ipython, _STATE, None)
    if state is not None:
        state.short = False
        _release(ipython)
