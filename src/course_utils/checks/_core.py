"""The check machinery: a registry of exercises, a runner that never crashes, a result type."""

from __future__ import annotations

import html
import importlib
import pkgutil
import sys
import traceback
from dataclasses import asdict, dataclass
from typing import Any, Callable

CHECK_MIME = "application/vnd.course-utils.check+json"

# "pass": right answer. "fail": wrong answer. "not-attempted": the stub still raises
# NotImplementedError. "missing": no function of the expected name was defined.
# "error": the checker itself broke, which is a course bug and never counts as a pass.
STATUSES = ("pass", "fail", "not-attempted", "missing", "error")


@dataclass(frozen=True)
class CheckResult:
    """The outcome of one check: what was expected, what was found, and how to look."""

    exercise: str
    title: str
    status: str
    message: str
    hint: str = ""

    @property
    def passed(self) -> bool:
        return self.status == "pass"

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "passed": self.passed}

    def __str__(self) -> str:
        mark = "PASS" if self.passed else "FAIL"
        text = f"{mark} [{self.exercise}] {self.title}: {self.message}"
        if self.hint and not self.passed:
            text += f"\n  hint: {self.hint}"
        return text

    def __repr__(self) -> str:
        return str(self)

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict[str, Any]:
        colour = "#1a7f37" if self.passed else "#cf222e"
        mark = "✔ PASS" if self.passed else "✘ FAIL"
        hint = (
            f"<div style='margin-top:.3em'><i>Hint:</i> {html.escape(self.hint)}</div>"
            if self.hint and not self.passed
            else ""
        )
        html_text = (
            f"<div style='border-left:4px solid {colour};padding:.3em .6em'>"
            f"<b style='color:{colour}'>{mark}</b> <b>[{html.escape(self.exercise)}] "
            f"{html.escape(self.title)}</b><div>{html.escape(self.message)}</div>{hint}</div>"
        )
        return {"text/plain": str(self), "text/html": html_text, CHECK_MIME: self.to_dict()}


class Wrong(Exception):
    """Raised by a checker when the learner's answer is wrong; becomes a "fail" result."""

    def __init__(self, message: str, hint: str = ""):
        super().__init__(message)
        self.message = message
        self.hint = hint


class _NotAttempted(Exception):
    pass


class _LearnerRaised(Exception):
    def __init__(self, exc: BaseException):
        super().__init__(str(exc))
        self.exc = exc


def call(fn: Callable, *args, **kwargs):
    """Call the learner's code from a checker, keeping its exceptions apart from the checker's."""
    try:
        return fn(*args, **kwargs)
    except NotImplementedError as exc:
        raise _NotAttempted() from exc
    except Exception as exc:
        raise _LearnerRaised(exc) from exc


@dataclass(frozen=True)
class Exercise:
    """One exercise: its id ("01.2"), a title, the function the learner writes, its checker."""

    id: str
    title: str
    function: str
    checker: Callable[[Callable], str]
    hint: str = ""


_REGISTRY: dict[str, Exercise] = {}


def exercise(id: str, title: str, function: str, hint: str = ""):
    """Register a checker. It receives the learner's function and returns a success message,
    or raises ``Wrong(message, hint)``. It calls the learner's code through ``call``."""

    def register(checker: Callable[[Callable], str]) -> Callable[[Callable], str]:
        if id in _REGISTRY and _REGISTRY[id].checker.__qualname__ != checker.__qualname__:
            raise ValueError(f"exercise id {id!r} is registered twice")
        _REGISTRY[id] = Exercise(id, title, function, checker, hint)
        return checker

    return register


def _load_all() -> None:
    package = importlib.import_module("course_utils.checks")
    for info in pkgutil.iter_modules(package.__path__):
        if info.name.startswith("nb"):
            importlib.import_module(f"course_utils.checks.{info.name}")


def all_exercises() -> dict[str, Exercise]:
    """Every registered exercise, by id."""
    _load_all()
    return dict(sorted(_REGISTRY.items()))


def get_exercise(id: str) -> Exercise:
    exercises = all_exercises()
    if id not in exercises:
        known = ", ".join(exercises) or "none"
        raise ValueError(f"No exercise {id!r}. Known exercises: {known}. Check the id in the check cell.")
    return exercises[id]


def check(id: str, answer: Callable | None = None) -> CheckResult:
    """Check the answer to exercise ``id``.

    With no ``answer``, look up the function the exercise asks for in the caller's namespace
    (the notebook), so that an undefined or misspelt function gives a "missing" result.
    """
    ex = get_exercise(id)
    if answer is None:
        namespace = sys._getframe(1).f_globals
        answer = namespace.get(ex.function)
        if answer is None:
            return CheckResult(
                id,
                ex.title,
                "missing",
                f"No function named `{ex.function}` is defined.",
                f"Run the exercise cell above this one (it defines `{ex.function}`), and keep that name.",
            )
    if not callable(answer):
        return CheckResult(
            id, ex.title, "fail", f"`{ex.function}` should be a function, but it is a {type(answer).__name__}.",
            f"Define it with `def {ex.function}(...):`.",
        )
    try:
        message = ex.checker(answer)
    except Wrong as wrong:
        return CheckResult(id, ex.title, "fail", wrong.message, wrong.hint or ex.hint)
    except _NotAttempted:
        return CheckResult(
            id, ex.title, "not-attempted", "Not attempted yet: the function still raises NotImplementedError.",
            "Replace `raise NotImplementedError()` under `# YOUR CODE HERE` with your code, run that cell, then this one.",
        )
    except _LearnerRaised as raised:
        exc = raised.exc
        where = _learner_line(exc)
        return CheckResult(
            id, ex.title, "fail", f"Your code raised {type(exc).__name__}: {exc}{where}",
            ex.hint or "Read the error message: it names what was expected and what was found.",
        )
    except Exception as exc:  # the checker itself broke: report it, never count it as a pass
        return CheckResult(
            id, ex.title, "error", f"The checker failed ({type(exc).__name__}: {exc}). This is a course bug.",
            "Please report it with this message; your answer may well be right.",
        )
    return CheckResult(id, ex.title, "pass", message or "Correct.")


def _learner_line(exc: BaseException) -> str:
    """Where in the learner's code the exception came from, as ' (line N of your cell)'."""
    frames = traceback.extract_tb(exc.__traceback__)
    for frame in reversed(frames):
        name = frame.filename.replace("\\", "/")
        if "/course_utils/" in name or "/site-packages/" in name or "/lib/python" in name:
            continue
        code = (frame.line or "").strip()
        return f" (in `{frame.name}`, at: `{code}`)" if code else f" (in `{frame.name}`)"
    return ""


def results_in(nb) -> list[CheckResult]:
    """The check results an executed notebook displayed, read from their structured outputs."""
    results = []
    for cell in nb.get("cells", []):
        for output in cell.get("outputs", []) if cell.get("cell_type") == "code" else []:
            data = output.get("data", {}).get(CHECK_MIME)
            if isinstance(data, dict):
                fields = {k: data.get(k, "") for k in ("exercise", "title", "status", "message", "hint")}
                if fields["status"] in STATUSES:
                    results.append(CheckResult(**{k: str(v) for k, v in fields.items()}))
    return results
