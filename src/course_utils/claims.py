"""Prove "this raises" in a notebook: run the code, show the real message, fail if it stops raising.

Lesson: every notebook that shows an error. ``raises(lambda: a + b, RuntimeError, match="...")``
returns the error PyTorch really raised, as a ``CaughtError`` the cell can end on. If the code
does not raise, or raises something else, ``raises`` itself raises ``ClaimFailed``, so nbval
fails the notebook: the course never shows an error that the running PyTorch no longer raises.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from course_utils.display import PROBLEM, card, pre, truncate


class ClaimFailed(AssertionError):
    """The course claimed an error that did not happen (or a different one did)."""


@dataclass(frozen=True)
class CaughtError:
    """An exception raised on purpose, kept as data: its type name and message."""

    type_name: str
    message: str

    @property
    def first_line(self) -> str:
        return self.message.strip().splitlines()[0] if self.message.strip() else ""

    def __str__(self) -> str:
        return f"{self.type_name}: {self.message}"

    def __repr__(self) -> str:
        return f"raised {self}"

    def _repr_html_(self) -> str:
        return card(PROBLEM, f"raised {self.type_name}", pre(self.message))


def raises(
    action: Callable[[], Any],
    expected: type[BaseException] | tuple[type[BaseException], ...] = Exception,
    match: str | None = None,
) -> CaughtError:
    """Run ``action``; return the exception it raises, or raise ``ClaimFailed`` if it does not.

    ``match`` is a regular expression searched for in the message: pass the stable part of the
    message (PyTorch rewords its errors between releases) so the notebook says what to look for.
    """
    if not callable(action):
        raise TypeError(
            f"raises() expects a function to call, got {type(action).__name__}. "
            "Wrap the code in a lambda: raises(lambda: a + b, RuntimeError)."
        )
    try:
        result = action()
    except expected as exc:
        caught = CaughtError(type(exc).__name__, str(exc))
    except Exception as exc:
        raise ClaimFailed(
            f"expected {_names(expected)}, but the code raised {type(exc).__name__}: {exc}"
        ) from exc
    else:
        raise ClaimFailed(
            f"expected {_names(expected)}, but the code ran without error and returned {_short(result)}"
        )
    if match is not None and not re.search(match, caught.message):
        raise ClaimFailed(
            f"{caught.type_name} was raised, but its message does not match {match!r}: {caught.message}"
        )
    return caught


def _names(expected) -> str:
    if isinstance(expected, tuple):
        return " or ".join(e.__name__ for e in expected)
    return expected.__name__


def _short(value: Any) -> str:
    return truncate(repr(value), 200)
