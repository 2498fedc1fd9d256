"""Prove "this raises" in a notebook: run the code, show the real message, fail if it stops raising.

Lesson: every notebook that shows an error. ``raises(lambda: a + b, RuntimeError, match="...")``
returns the error PyTorch really raised, as a ``CaughtError`` the cell can end on. If the code
does not raise, or raises something else, ``raises`` itself raises ``ClaimFailed``, so nbval
fails the notebook: the course never shows an error that the running PyTorch no longer raises.

Lesson 07 also gives a tutorial's claims their verdicts in one table: ``claim(...)`` runs a proof
(built from ``raises`` and ``holds``, which fail when PyTorch stops behaving as the verdict says)
and keeps what it showed; ``ClaimTable`` shows the rows, one line per claim.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from course_utils.display import CAUTION, OK, PROBLEM, card, markup, pre, table, tag, truncate


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
            f"raises() expects a function to call, got {type(action).__name__}. Wrap the code in a lambda: raises(lambda: a + b, RuntimeError)."
        )
    try:
        result = action()
    except expected as exc:
        caught = CaughtError(type(exc).__name__, str(exc))
    except Exception as exc:
        raise ClaimFailed(f"expected {_names(expected)}, but the code raised {type(exc).__name__}: {exc}") from exc
    else:
        raise ClaimFailed(f"expected {_names(expected)}, but the code ran without error and returned {_short(result)}")
    if match is not None and not re.search(match, caught.message):
        raise ClaimFailed(f"{caught.type_name} was raised, but its message does not match {match!r}: {caught.message}")
    return caught


def _names(expected) -> str:
    if isinstance(expected, tuple):
        return " or ".join(e.__name__ for e in expected)
    return expected.__name__


def _short(value: Any) -> str:
    return truncate(repr(value), 200)


# A claim's verdict, and the tone it is shown in: true (green), false (red), misleading (amber).
VERDICT_TONES = {"true": OK, "false": PROBLEM, "misleading": CAUTION}
SHOWN_LIMIT = 150  # characters of a proof's output kept in a table row: one line, the stable part first


def holds(condition: object, shown: str) -> str:
    """``shown`` if ``condition`` is true; else ``ClaimFailed``: a fact a verdict rests on stopped being true.

    The "it works" counterpart of ``raises``: ``holds(x.device.type == "cpu", "x is on the CPU")``.
    """
    if not condition:
        raise ClaimFailed(f"the course says {shown!r}, but running it here says otherwise")
    return shown


@dataclass(frozen=True)
class Verdict:
    """One claim of a source article, judged by running it (lesson 07).

    ``says`` is the claim in English, ``source`` where it was written, ``shown`` what the proof
    printed when it ran here, ``taught`` the lessons that teach the right way.
    """

    label: str
    says: str
    verdict: str
    shown: str
    source: str
    taught: str

    def line(self) -> str:
        return f"{self.label:4s}{self.verdict:11s}{self.says} -> {self.shown} [{self.source}; taught in {self.taught}]"


def claim(label: str, says: str, verdict: str, proof: Callable[[], object], *, source: str, taught: str) -> Verdict:
    """Run ``proof`` and keep what it showed as the evidence for ``verdict`` on the claim ``says``.

    ``proof`` proves the verdict with ``raises`` or ``holds`` (or fails the notebook itself): a
    "false" claim's proof shows the claim failing, a "true" one's shows it working. Its result (a
    ``CaughtError``, a short text, or a tuple of them) becomes the row's "what ran here", cut to one
    line.
    """
    if verdict not in VERDICT_TONES:
        raise ValueError(f"claim({label!r}): verdict {verdict!r} should be one of {', '.join(VERDICT_TONES)}.")
    if not callable(proof):
        raise TypeError(
            f"claim({label!r}) expects the proof as a function to call, got {type(proof).__name__}. "
            "Wrap it in a lambda: claim(..., lambda: raises(...), ...)."
        )
    try:
        shown = proof()
    except ClaimFailed as exc:
        raise ClaimFailed(f"{label} ({says}): the verdict {verdict!r} no longer holds: {exc}") from exc
    parts = shown if isinstance(shown, tuple) else (shown,)
    text = "; ".join(f"raised {p.type_name}: {p.first_line}" if isinstance(p, CaughtError) else str(p) for p in parts)
    return Verdict(label, says, verdict, truncate(" ".join(text.split()), SHOWN_LIMIT), source, taught)


@dataclass(frozen=True)
class ClaimTable:
    """A part's claims with their verdicts: a table in the notebook, one line per claim as text."""

    rows: tuple[Verdict, ...]

    def count(self, verdict: str) -> int:
        return sum(row.verdict == verdict for row in self.rows)

    def summary(self) -> str:
        counts = ", ".join(f"{self.count(v)} {v}" for v in VERDICT_TONES if self.count(v))
        return f"{len(self.rows)} claims, each proved by running it here: {counts}."

    def __repr__(self) -> str:
        return "\n".join([*(row.line() for row in self.rows), self.summary()])

    def _repr_html_(self) -> str:
        head = ("Claim", "Says (in English)", "Verdict", "What ran here", "Source", "Taught in")
        rows = [
            (r.label, r.says, tag("b", r.verdict, colour=VERDICT_TONES[r.verdict]), tag("code", r.shown), r.source, r.taught) for r in self.rows
        ]
        return markup(table(rows, head, cell_style="text-align:left;vertical-align:top"), tag("p", self.summary()))
