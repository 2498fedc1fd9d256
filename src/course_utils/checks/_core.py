"""The check machinery: a registry of exercises, a runner that never crashes, a result type.

Hints come in steps. A wrong answer gets a message that names the mistake and a *hint*, a nudge
that hands over neither the answer's code nor the value the check expected. The exercise's
*answer* is shown only when the learner asks for it, ``check("03.3", show_answer=True)``: every
FAIL offers it, and from the ``OFFER_AFTER``-th wrong answer to the same exercise in this kernel
the offer says how many tries that was; it never shows the answer by itself (three *different*
mistakes are not a request for it). ``ATTEMPTS`` counts those wrong answers: the one piece of
state the checks keep between calls (a restart forgets it; ``ATTEMPTS.reset()`` too).
Warnings that the answer raises while it is checked are caught and summarised in one line, except
those of a case the check runs on ``meta`` only because this machine may have no second device
(``meta_case``): they are the check's doing, not the learner's.
"""

from __future__ import annotations

import contextvars
import importlib
import linecache
import pkgutil
import re
import sys
import traceback
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, replace
from typing import Any

from course_utils.check_cells import CHECK_MIME, CHECK_STATUSES, TRY_IT_ID
from course_utils.display import OK, PROBLEM, TO_DO, Html, card, escape, markup, tag, truncate

_CODE = re.compile(r"`([^`]+)`")


def _plain(text: str) -> str:
    """Text shown as plain text: `code` loses its backticks (they mean something only in Markdown)."""
    return _CODE.sub(r"\1", text)


def _html(text: str) -> Html:
    """Text shown as HTML: escaped, and `code` set in <code>."""
    return Html(_CODE.sub(r"<code>\1</code>", escape(text)))


@dataclass(frozen=True)
class Look:
    """How a result of one status shows: its word in plain text, its symbol and tone in HTML."""

    word: str
    symbol: str
    tone: str
    dashed: bool = False  # a dashed bar: nothing judged yet, the learner's turn


# One row per status (check_cells.CHECK_STATUSES). "not-attempted" is what an untouched cell shows on a
# first Run All: the learner's turn, not a mistake, so it neither says FAIL nor shows red (issue 33.2);
# it still never counts as a pass (``passed`` is true for "pass" only).
LOOKS = {
    "pass": Look("PASS", "✔", OK),
    "fail": Look("FAIL", "✘", PROBLEM),
    "not-attempted": Look("TO DO", "✎", TO_DO, dashed=True),
    "missing": Look("FAIL", "✘", PROBLEM),
    "error": Look("FAIL", "✘", PROBLEM),
}


@dataclass(frozen=True)
class CheckResult:
    """The outcome of one check: what was expected, what was found, and how to look."""

    exercise: str
    title: str
    status: str
    message: str
    hint: str = ""  # a nudge: what to look at, never the whole answer
    note: str = ""  # one line about warnings the answer raised while it was checked
    ask: str = ""  # on a fail: how to see the answer (check(..., show_answer=True)), until it is shown
    answer: str = ""  # the course's answer: only when asked for (show_answer=True)

    @property
    def passed(self) -> bool:
        return self.status == "pass"

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "passed": self.passed}

    @property
    def look(self) -> Look:
        """How this result shows (``LOOKS``); an unknown status shows as a failure, never as a pass."""
        return LOOKS.get(self.status, LOOKS["fail"])

    def __str__(self) -> str:
        text = f"{self.look.word} [{self.exercise}] {_plain(self.title)}: {_plain(self.message)}"
        if self.note:
            text += f"\n  note: {_plain(self.note)}"
        if self.hint and not self.passed:
            text += f"\n  hint: {_plain(self.hint)}"
        if self.ask and not self.answer:
            text += f"\n  stuck? {_plain(self.ask)}"
        if self.answer:
            text += "\n  answer:\n" + "\n".join("    " + line for line in self.answer.splitlines())
        return text

    def __repr__(self) -> str:
        return str(self)

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict[str, Any]:
        look = self.look
        hint = tag("div", tag("i", "Hint:"), " ", _html(self.hint), style="margin-top:.3em") if self.hint and not self.passed else ""
        note = tag("div", tag("i", "Note:"), " ", _html(self.note), style="margin-top:.3em") if self.note else ""
        ask = tag("div", tag("i", "Stuck?"), " ", _html(self.ask), style="margin-top:.3em") if self.ask and not self.answer else ""
        answer = (
            tag("div", tag("i", "Answer:"), tag("pre", self.answer, style="margin:.2em 0 0 0"), style="margin-top:.3em") if self.answer else ""
        )
        title = markup(tag("span", f"{look.symbol} {look.word}", colour=look.tone), f" [{self.exercise}] ", _html(self.title))
        html_text = card(
            look.tone,
            title,
            tag("div", _html(self.message)),
            note,
            hint,
            ask,
            answer,
            dashed=look.dashed,
            css_class=f"course-check course-check-{self.status}",
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


class LearnerRaised(Exception):
    """The learner's code raised ``exc`` inside ``call``: a checker catches this to judge the error itself."""

    def __init__(self, exc: BaseException):
        super().__init__(text_of(exc))  # a learner's exception whose __str__ raises still gets here
        self.exc = exc


def call(fn: Callable, *args, **kwargs):
    """Call the learner's code from a checker, keeping its exceptions apart from the checker's.

    When grading, ``fn`` is a ``course_grader.boundary.RemoteAnswer``: the call runs in the learner's
    kernel and raises, here, what the learner's code raised there."""
    _CALLS[0] += 1
    try:
        return fn(*args, **kwargs)
    except (LearnerRaised, _NotAttempted):
        raise
    except NotImplementedError as exc:
        if _is_the_stub(fn, exc):
            raise _NotAttempted() from exc
        raise LearnerRaised(exc) from exc  # PyTorch's own (an op a meta tensor lacks): a real error
    except Exception as exc:
        raise LearnerRaised(exc) from exc


# The grader's draw of cases (course_grader.hidden_cases), set only in the judge's process while it grades.
_DRAW: contextvars.ContextVar[Callable[[str], Any] | None] = contextvars.ContextVar("drawn_cases", default=None)


def cases(key: str, public):
    """The cases a checker runs under ``key`` ("01.2"): ``public`` (the table in this module), unless a grading
    run has drawn its own.

    Lesson: every exercise a grading run draws cases for (issue 38). In a notebook the practice
    check runs the public table. ``course-grade`` judges with cases it draws per run from a seed
    only its own process holds (``course_grader.hidden_cases``, never staged where a kernel can
    import it), in the same shape, expected values included; a reply recorded from the public
    solutions, or a row looked up in this package, then answers another question."""
    draw = _DRAW.get()
    drawn = draw(key) if draw is not None else None
    return public if drawn is None else drawn


@contextmanager
def drawing_cases(draw: Callable[[str], Any]) -> Iterator[None]:
    """For the length of a block, ``cases(key, public)`` returns ``draw(key)`` where that is not None (the grader's)."""
    token = _DRAW.set(draw)
    try:
        yield
    finally:
        _DRAW.reset(token)


@contextmanager
def meta_case() -> Iterator[None]:
    """Around a check's call of the answer on ``meta``: the warnings it raises are not shown.

    A right answer warns there only because ``meta`` holds no data (load_state_dict into a meta
    model warns once per tensor that copying is a no-op); on a GPU it would not. The same answer
    runs on the CPU too, so a warning its code raises anyway is still summarised from that case."""
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")  # recorded here, and dropped with this block
        yield


def learner_accelerator() -> str | None:
    """The learner's own accelerator, for a check to run the answer there too: None without one.

    Lesson: every check that tries an answer on devices. Checks try the CPU and ``meta`` everywhere and add
    this device, so "it passes on my Mac" means it ran on the Mac's GPU: ``cuda:0`` with CUDA, ``mps:0`` on
    Apple silicon, ``xpu:0`` with an Intel GPU (an index, so it equals the device a tensor reports)."""
    import torch  # here, not at the top: importing the checks (a notebook's first cell, a grader's setup cell)
    # stays quick, and torch loads with the first check that needs it

    if torch.cuda.is_available():
        return "cuda:0"
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and mps.is_available():
        return "mps:0"
    xpu = getattr(torch, "xpu", None)
    if xpu is not None and xpu.is_available():
        return "xpu:0"
    return None


def accelerator_targets() -> list[str]:
    """``[learner_accelerator()]``, or ``[]`` without one: what a check adds to its CPU and ``meta`` cases."""
    device = learner_accelerator()
    return [device] if device else []


def _is_the_stub(fn: Callable, exc: NotImplementedError) -> bool:
    """The untouched stub: a bare ``raise NotImplementedError()``, with no message.

    A NotImplementedError that PyTorch raises (copying a ``meta`` tensor's data, an operator
    missing for a backend) always says what is missing: that is the learner's code failing, not
    an exercise left undone."""
    return not exc.args


_CALLS = [0]  # calls of the answer in the running check; check() sets it back to 0


_PLAIN = (str, int, float, bool, type(None), bytes)


def same(got, expected) -> bool:
    """``got == expected`` that an answer cannot fake: the types must match exactly, all the way down.

    A plain ``got != expected`` asks ``got`` first, so an answer could return an object (or a str
    subclass) whose ``__eq__`` says yes to everything. Here only exact built-in types (and
    ``torch.device``, which cannot be subclassed) are compared, with their own ``__eq__``."""
    if type(got) is not type(expected):
        return False
    if isinstance(expected, _PLAIN):
        return type(expected).__eq__(expected, got) is True
    if isinstance(expected, (list, tuple)):
        return len(got) == len(expected) and all(
            same(g, e) for g, e in zip(list.__iter__(got) if type(got) is list else tuple.__iter__(got), expected)
        )
    if isinstance(expected, dict):
        if len(got) != len(expected) or not all(type(k) in _PLAIN for k in dict.keys(got)):
            return False
        return all(k in expected and same(dict.__getitem__(got, k), expected[k]) for k in dict.keys(got))
    if type(expected).__module__ == "torch" and type(expected).__name__ == "device":
        return expected == got
    raise TypeError(f"same() compares plain data and torch.device, not {type(expected).__name__}")


def text(value) -> str:
    """``str(value)`` as an exact ``str``: a str subclass returned by ``__str__`` cannot lie in comparisons."""
    result = str(value)
    return str.__str__(result) if type(result) is not str else result


def number(value) -> float | None:
    """An answer's number as a plain float, or None when it is not an exact int or float (or is a bool)."""
    return float.__float__(float(value)) if type(value) in (int, float) else None


@dataclass(frozen=True)
class Exercise:
    """One exercise: its id ("01.2"), a title, the function the learner writes, its checker.

    A lesson's "try it" cell is an exercise too, with a letter for its number ("01.a"). Its
    ``kind`` is "value" when the learner writes a line that binds a name (``ones = ...``) and the
    checker receives that value, or "function" when the learner writes a small function.
    ``hint`` is the nudge a wrong answer gets when its checker gives none; ``answer`` is the
    course's answer, shown in steps (see the module's docstring); ``writes`` says what kind of
    thing a value try-it's learner writes ("a line of PyTorch", "a shell command as a string")."""

    id: str
    title: str
    function: str
    checker: Callable[[Callable], str]
    hint: str = ""
    kind: str = "function"
    writes: str = "your line of PyTorch"

    @property
    def answer(self) -> str:
        """The course's answer, read from the checkout's ``solutions/`` ("" without one: see ``checks.answers``)."""
        from course_utils.checks.answers import course_answer

        return course_answer(self.id, self.function)


_REGISTRY: dict[str, Exercise] = {}


def exercise(id: str, title: str, function: str, hint: str = ""):
    """Register a checker. It receives the learner's function and returns a success message,
    or raises ``Wrong(message, hint)``. It calls the learner's code through ``call``.
    ``hint`` nudges without giving the answer away; the answer itself is the solutions notebook's
    (``checks.answers``), never in the package."""

    def register(checker: Callable[[Callable], str]) -> Callable[[Callable], str]:
        if id in _REGISTRY and _REGISTRY[id].checker.__qualname__ != checker.__qualname__:
            raise ValueError(f"exercise id {id!r} is registered twice")
        _REGISTRY[id] = Exercise(id, title, function, checker, hint)
        return checker

    return register


def try_it(id: str, title: str, name: str, hint: str = "", kind: str = "value", writes: str = "your line of PyTorch"):
    """Register the checker of a lesson's try-it cell ("01.a").

    With ``kind="value"`` (the default) the learner's cell binds ``name`` (``ones = ...``); the
    checker receives the value and returns a success message or raises ``Wrong``. A value that is
    still ``...`` (the cell as shipped) is "not-attempted", and its hint asks for ``writes``
    (a shell command or an environment string is not a "line of PyTorch"). With
    ``kind="function"`` it works like ``exercise``: the learner defines a function ``name`` and the
    checker calls it through ``call``. ``hint`` as for ``exercise``; the answer is in
    ``solutions/try_its/`` (``checks.answers``)."""
    if not TRY_IT_ID.match(id):
        raise ValueError(f"try-it id {id!r} should be a lesson number, a dot and a letter, like '01.a'")
    if kind not in ("value", "function"):
        raise ValueError(f"try-it kind {kind!r} should be 'value' or 'function'")

    def register(checker: Callable[[Any], str]) -> Callable[[Any], str]:
        if id in _REGISTRY and _REGISTRY[id].checker.__qualname__ != checker.__qualname__:
            raise ValueError(f"try-it id {id!r} is registered twice")
        _REGISTRY[id] = Exercise(id, title, name, checker, hint, kind, writes)
        return checker

    return register


def _load_all() -> None:
    package = importlib.import_module("course_utils.checks")
    for info in pkgutil.iter_modules(package.__path__):
        if info.name.startswith("nb"):
            importlib.import_module(f"course_utils.checks.{info.name}")


def all_exercises() -> dict[str, Exercise]:
    """Every registered exercise of the exercise notebooks, by id (not the lessons' try-its)."""
    _load_all()
    return dict(sorted((i, e) for i, e in _REGISTRY.items() if not TRY_IT_ID.match(i)))


def all_try_its() -> dict[str, Exercise]:
    """Every registered try-it of the lessons ("01.a"), by id."""
    _load_all()
    return dict(sorted((i, e) for i, e in _REGISTRY.items() if TRY_IT_ID.match(i)))


def _load_lesson(id: str) -> None:
    """Load the checks of exercise ``id``'s lesson ("03.2" and "03.a" are in ``checks/nb03.py``), once."""
    lesson = id.partition(".")[0]
    name = f"course_utils.checks.nb{lesson}"
    if re.fullmatch(r"\d\d", lesson) and name not in sys.modules:
        try:
            importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:
                raise


def get_exercise(id: str) -> Exercise:
    _load_lesson(id)
    if id not in _REGISTRY:
        _load_all()  # to list every known id in the message
    if id not in _REGISTRY:
        known = ", ".join(sorted(_REGISTRY)) or "none"
        raise ValueError(f"No exercise {id!r}. Known exercises: {known}. Check the id in the check cell.")
    return _REGISTRY[id]


UNSET = object()

OFFER_AFTER = 3  # from this wrong answer to one exercise, in one kernel, the offer of the answer counts the tries


class Attempts:
    """Wrong answers per exercise in this kernel: what makes a check's offer of the answer plainer.

    The one piece of state the checks keep between calls, in one object, ``ATTEMPTS``. Only a
    "fail" counts (not an untouched stub, a missing function or a course bug). A restarted kernel
    starts from nothing; ``ATTEMPTS.reset()`` forgets every exercise, ``reset("03.3")`` one.
    """

    def __init__(self, offer_after: int = OFFER_AFTER):
        self.offer_after = offer_after
        self._wrong: dict[str, int] = {}

    def wrong(self, id: str) -> int:
        """How many wrong answers exercise ``id`` has had in this kernel."""
        return self._wrong.get(id, 0)

    def record_wrong(self, id: str) -> int:
        """Count one more wrong answer to ``id``; the new count."""
        self._wrong[id] = self._wrong.get(id, 0) + 1
        return self._wrong[id]

    def reset(self, id: str | None = None) -> None:
        if id is None:
            self._wrong.clear()
        else:
            self._wrong.pop(id, None)

    def __repr__(self) -> str:
        return f"Attempts(offer_after={self.offer_after}, wrong={self._wrong})"


ATTEMPTS = Attempts()

_WARNING_LINE = 160  # characters of a warning's message kept in the one-line note


def _warnings_note(caught: list[warnings.WarningMessage]) -> str:
    """The warnings an answer raised while it was checked, in one line: how many, and the first."""
    if not caught:
        return ""
    first = caught[0]
    text = truncate(" ".join(str(first.message).split()), _WARNING_LINE)
    kinds = len({(w.category, str(w.message)) for w in caught})
    count = f"{len(caught)} warnings ({kinds} different)" if len(caught) > 1 else "a warning"
    return f"your code raised {count} while it was checked; the first: {first.category.__name__}: {text}"


def check(id: str, answer: Callable | None = None, *, show_answer: bool = False) -> CheckResult:
    """Check the answer to exercise ``id``; ``show_answer=True`` also shows the course's answer.

    With no ``answer``, look up the function the exercise asks for in the caller's namespace
    (the notebook), so that an undefined or misspelt function gives a "missing" result, and a
    definition that did not even compile gives its SyntaxError. A wrong answer's result carries
    a nudge (``hint``) and says how to ask for the answer (``ask``); the answer itself comes only with
    ``show_answer=True`` (``ATTEMPTS`` counts wrong answers, for the wording of the offer).
    Warnings raised while the answer runs are caught and summarised in ``note``.
    """
    namespace = sys._getframe(1).f_globals
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")  # every warning is recorded here, none printed above the result
        result = _judge(id, answer, namespace)
    return _in_steps(result, caught, show_answer)


def _in_steps(result: CheckResult, caught: list[warnings.WarningMessage], show_answer: bool) -> CheckResult:
    """The result with its warnings note, and the answer shown (when asked for) or offered (on a fail)."""
    ex = _REGISTRY.get(result.exercise)
    wrong = ATTEMPTS.record_wrong(result.exercise) if result.status == "fail" else 0
    note, ask, shown = _warnings_note(caught), "", ""
    wanted = show_answer
    answer = ex.answer if ex is not None and (wanted or result.status == "fail") else ""  # read from solutions/
    if answer and wanted:
        shown = answer
    elif answer and result.status == "fail":
        run = f'run `check("{ex.id}", show_answer=True)` in a new cell to see an answer'
        ask = (
            f"That was wrong answer {wrong} to {ex.id}: {run}, then compare it with yours."
            if wrong >= ATTEMPTS.offer_after
            else f"{run[0].upper()}{run[1:]}."
        )
    elif ex is not None and (wanted or result.status == "fail") and _answer_elsewhere(ex.id):
        ask = _answer_elsewhere(ex.id)
    elif show_answer:
        ask = f"exercise {result.exercise} has no written answer; the hint above is all the course says."
    return replace(result, note=note, ask=ask, answer=shown)


def _answer_elsewhere(id: str) -> str:
    """Where to read the course's answer to ``id`` when no checkout of the course is at hand ("" if none)."""
    from course_utils.checks.answers import where_it_lives

    where = where_it_lives(id)
    return (
        (
            f"the course's answer to {id} is in {where} in the course repository; this notebook runs outside a "
            "checkout of it, so the check cannot show it here."
        )
        if where
        else ""
    )


def _judge(id: str, answer: Callable | None, namespace: dict) -> CheckResult:
    """The verdict on exercise ``id``'s answer, before hints are stepped (see ``check``)."""
    ex = get_exercise(id)
    if ex.kind == "value":
        return check_value(ex, namespace.get(ex.function, UNSET) if answer is None else answer)
    if answer is None:
        answer = namespace.get(ex.function)
        if answer is None:
            return missing(ex, syntax_error_defining(ex.function))
    if not callable(answer):
        return CheckResult(
            id,
            ex.title,
            "fail",
            f"`{ex.function}` should be a function, but it is a {type(answer).__name__}.",
            f"Define it with `def {ex.function}(...):`.",
        )
    return run_checker(ex, answer)


def run_checker(ex: Exercise, answer: Callable) -> CheckResult:
    """Run ``ex``'s checker on ``answer`` and turn how it ended into a result.

    ``answer`` is the learner's function, or, when grading, a stand-in that runs it in the
    learner's kernel (``course_grader.boundary.RemoteAnswer``): the checker cannot tell them apart."""
    id = ex.id
    try:
        _CALLS[0] = 0
        message = ex.checker(answer)
    except Wrong as wrong:
        return CheckResult(id, ex.title, "fail", wrong.message, wrong.hint or ex.hint)
    except _NotAttempted:
        return not_attempted(ex)
    except LearnerRaised as raised:
        exc = raised.exc
        where = getattr(exc, "_course_where", None) or learner_line(exc)
        return CheckResult(
            id,
            ex.title,
            "fail",
            f"Your code raised {type(exc).__name__}: {text_of(exc)}{where}",
            ex.hint or "Read the error message: it names what was expected and what was found.",
        )
    except Exception as exc:  # the answer's value broke the checker, or the checker broke: never a pass
        return broken(ex, exc)
    return CheckResult(id, ex.title, "pass", message or "Correct.")


def not_attempted(ex: Exercise) -> CheckResult:
    """The result for an answer that is still the stub."""
    return CheckResult(
        ex.id,
        ex.title,
        "not-attempted",
        "Not attempted yet: the function still raises NotImplementedError.",
        "Replace `raise NotImplementedError()` with your code and run this cell again."
        if TRY_IT_ID.match(ex.id)
        else "Replace `raise NotImplementedError()` under `# YOUR CODE HERE` with your code, run that cell, then this one.",
    )


def missing(ex: Exercise, syntax_error: str | None = None) -> CheckResult:
    """The result when the notebook defines no function of the exercise's name."""
    if syntax_error:
        return CheckResult(
            ex.id, ex.title, "fail", syntax_error, f"Fix that line, run the cell that defines `{ex.function}` again, then this one."
        )
    return CheckResult(
        ex.id,
        ex.title,
        "missing",
        f"No function named `{ex.function}` is defined.",
        f"Run the exercise cell above this one (it defines `{ex.function}`), and keep that name.",
    )


def tensor_answer(value, name: str):
    """The learner's value, if it is a real tensor (``torch.Tensor`` or ``nn.Parameter``); else ``Wrong``.

    Value checkers call this first, so an answer of the wrong type gets a clear fail, not a
    checker crash on ``value.device``."""
    import torch

    if type(value) not in (torch.Tensor, torch.nn.Parameter):
        raise Wrong(
            f"`{name}` should be a tensor, but it is a {type(value).__name__}.",
            f"Make `{name}` with a PyTorch call such as `torch.ones(...)` or `x.to(...)`.",
        )
    return value


def check_value(ex: Exercise, value) -> CheckResult:
    """A try-it that binds a name: the checker receives the value the learner's line made."""
    if value is UNSET:
        return CheckResult(
            ex.id,
            ex.title,
            "missing",
            f"Nothing is called `{ex.function}` yet.",
            f"Write your line in the cell above so that it sets `{ex.function} = ...`, and run it.",
        )
    if value is Ellipsis:
        return CheckResult(
            ex.id,
            ex.title,
            "not-attempted",
            f"Your turn: `{ex.function}` is still the placeholder `...`",
            f"Replace the `...` after `{ex.function} =` with {ex.writes} and run the cell.",
        )
    try:
        _CALLS[0] = 0
        message = ex.checker(value)
    except Wrong as wrong:
        return CheckResult(ex.id, ex.title, "fail", wrong.message, wrong.hint or ex.hint)
    except Exception as exc:  # the value broke the checker, or the checker broke: never a pass
        return broken(ex, exc)
    return CheckResult(ex.id, ex.title, "pass", message or "Correct.")


def text_of(exc: BaseException) -> str:
    """``str(exc)``, or a sentence saying it could not be read (an exception's ``__str__`` may raise too)."""
    try:
        return str(exc)
    except Exception as inner:  # noqa: BLE001 - any failure of a learner's __str__ is reported, not raised
        return f"(its message could not be read: {type(inner).__name__})"


def _library_file(name: str) -> bool:
    return "/site-packages/" in name or "/lib/python" in name


def _course_file(name: str) -> bool:
    return "/course_utils/" in name or "/course_grader/" in name


def broken(ex: Exercise, exc: Exception) -> CheckResult:
    """The result when a checker raised something other than ``Wrong``.

    The innermost frame outside PyTorch and the standard library says whose code broke: the
    learner's (an answer whose ``__eq__``, ``__len__`` or ``__str__`` raised when the checker used
    its value) is a "fail" that names the line; the course's own (its package, or the checker's own
    file) is an "error", a course bug that is never counted as a pass."""
    checker_file = getattr(getattr(ex.checker, "__code__", None), "co_filename", None)
    for frame in reversed(traceback.extract_tb(exc.__traceback__)):
        name = frame.filename.replace("\\", "/")
        if _library_file(name):
            continue
        if _course_file(name) or frame.filename == checker_file:
            break
        code = (frame.line or "").strip()
        where = f" (in `{frame.name}`, at: `{code}`)" if code else f" (in `{frame.name}`)"
        return CheckResult(
            ex.id,
            ex.title,
            "fail",
            f"Your answer raised {type(exc).__name__}: {text_of(exc)} when the check used it{where}.",
            (
                f"Make `{ex.function}` a plain value of the kind asked for."
                if ex.kind == "value"
                else "Return a plain value of the kind the exercise asks for."
            )
            + (f" {ex.hint}" if ex.hint else ""),
        )
    return CheckResult(
        ex.id,
        ex.title,
        "error",
        f"The checker failed ({type(exc).__name__}: {text_of(exc)}). This is a course bug.",
        "Please report it with this message; your answer may well be right.",
    )


def syntax_error_defining(function: str) -> str | None:
    """The SyntaxError that kept the cell defining ``function`` from running, said with its line.

    IPython keeps the last error of the session in ``sys.last_value`` and the cell's source in
    ``linecache``; the error counts only if that source is the cell that defines ``function``.
    """
    error = getattr(sys, "last_value", None)
    if not isinstance(error, SyntaxError):
        return None
    source = "".join(linecache.getlines(error.filename or "")) if error.filename else ""
    if not re.search(rf"^\s*def\s+{re.escape(function)}\s*\(", source, re.MULTILINE):
        return None
    kind = type(error).__name__
    line = (error.text or "").strip()
    where = f" on line {error.lineno} of that cell" if error.lineno else ""
    shown = f": `{line}`" if line else ""
    return f"`{function}` is not defined because its cell did not run: {kind} ({error.msg}){where}{shown}."


def learner_line(exc: BaseException) -> str:
    """Where in the learner's code the exception came from, as ' (line N of your cell)'."""
    frames = traceback.extract_tb(exc.__traceback__)
    for frame in reversed(frames):
        name = frame.filename.replace("\\", "/")
        if _course_file(name) or _library_file(name):
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
                if fields["status"] in CHECK_STATUSES:
                    results.append(CheckResult(**{k: str(v) for k, v in fields.items()}))
    return results
