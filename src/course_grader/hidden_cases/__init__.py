"""The grading run's own cases: drawn from each exercise's rules, with a seed only the judge's process holds.

Lesson: none; this is the instructors' tool (issue 38, item 1). A notebook's practice check runs the
public tables of ``course_utils/checks/nbNN.py``; anyone can read them, and a reply recorded from the
public solutions answers them. ``course-grade`` judges each exercise of each submission with cases
drawn afresh (``Draw``: ``random.Random`` seeded from ``os.urandom``, never sent to a kernel nor
written anywhere), in the shape of the public table, expected values included, so that a replayed
reply or a looked-up row answers another question.

This package computes expected values, which for some exercises is the exercise's answer: it is
**never staged** where a grading kernel can import it (``course_grader.sandbox.UNSTAGED``), and it is
imported by the judge only. A set adopts the mechanism with a module here holding one function per
exercise (``RULES``: exercise id -> ``rule(rng) -> cases``), and ``cases("NN.M", PUBLIC)`` in its checker.
"""

from __future__ import annotations

import importlib
import os
import pkgutil
import random
import re
from collections.abc import Callable
from typing import Any

Rule = Callable[[random.Random], Any]


def _rules(table: str = "RULES") -> dict[str, Rule]:
    """Every ``nbNN`` module of this package's ``table``, found by name (a new lesson's module is not listed
    anywhere); the manifest check has compared this folder's files with the release before the judge loads it."""
    found: dict[str, Rule] = {}
    for module in sorted(m.name for m in pkgutil.iter_modules(__path__) if re.fullmatch(r"nb\d\d", m.name)):
        found.update(getattr(importlib.import_module(f"{__name__}.{module}"), table, {}))
    return found


# exercise id -> the rule that draws its cases; every module of this package adds its own
RULES: dict[str, Rule] = _rules()

# exercise id -> the rule that draws the part of its public table a grading run checks again after the drawn
# cases (course_grader.boundary); an exercise not named here runs its whole public table again
PUBLIC_SAMPLES: dict[str, Rule] = _rules("PUBLIC_SAMPLES")


class Draw:
    """The cases of one judging: ``draw(key)`` gives exercise ``key``'s drawn cases (None: it has no rule).

    Each key draws from its own ``random.Random`` seeded from this draw's secret seed and the key, once;
    ``Draw()`` takes its seed from ``os.urandom``, so every judging of every run differs."""

    def __init__(self, seed: bytes | None = None):
        self._seed = os.urandom(32) if seed is None else seed
        self._drawn: dict[str, Any] = {}

    def __repr__(self) -> str:  # the seed stays out of every message and log
        return f"<Draw of {len(self._drawn)} exercises>"

    def __call__(self, key: str):
        rule = RULES.get(key)
        if rule is None:
            return None
        if key not in self._drawn:
            self._drawn[key] = rule(random.Random(self._seed + key.encode()))
        return self._drawn[key]

    def public(self, key: str):
        """The draw a grading run checks the public table with, after the drawn cases: for an exercise of
        ``PUBLIC_SAMPLES``, a drawn part of its public table; for the rest, None (the whole table)."""
        sample = PUBLIC_SAMPLES.get(key)
        return None if sample is None else sample(random.Random(self._seed + b"public " + key.encode()))
