"""What a check trusts, recorded before any answer runs, and compared each time a check runs.

Lesson: every exercise notebook (through ``check``). A checker compares the learner's answer
with its own cases (``VISIBLE_CASES``, ``MESSAGES``, ...) using library functions it trusts
(``torch.equal``, ``Tensor.to``, ``isinstance``, ...). Code in the notebook can reach all of
them: ``importlib.import_module("course_utils.checks.nb01").VISIBLE_CASES = ()`` or
``torch.equal = lambda *a, **k: True`` would turn every answer into a pass. So:

- ``seal(module)`` runs as the last line of every ``checks/nbNN.py``, while its data is still
  as the file wrote it, and records every name of that module (and of the course modules it
  uses) with a fingerprint of its value: identity, a function's code and defaults, the text of
  its data.
- The trusted library (the parts of ``torch``, ``numpy``, ``builtins``, ``math`` ... the checks
  call) is recorded when this module is imported, which a notebook does in its first cell and
  the grader before any learner code.
- ``changes()`` lists every difference, by name ("torch.equal was replaced"). ``check()``
  refuses to grade when there is one, and says what changed.

This is a tripwire, not a sandbox: it notices rebinding and mutation of what the checks read,
which is what a learner can do from a notebook cell without meaning to attack the kernel.
"""

from __future__ import annotations

import builtins
import contextlib
import importlib
import operator
import os
import sys
import types
from dataclasses import dataclass, field

import torch

# The batch grader's cell (grading/plan.py, _CELL_TEMPLATE) fingerprints these names of this module,
# private ones included; see USED_BY_THE_GRADER in _core.py.
USED_BY_THE_GRADER = ("verify", "changes", "_Record", "_fingerprint", "seal", "patched")

# The builtins this module calls, bound here at import: a notebook that replaces
# builtins.isinstance cannot change how the comparison itself runs (globals win over builtins).
isinstance, callable, getattr, id, len, repr, sorted, tuple, type, vars = (  # noqa: A001
    builtins.isinstance, builtins.callable, builtins.getattr, builtins.id, builtins.len, builtins.repr,
    builtins.sorted, builtins.tuple, builtins.type, builtins.vars)

# The builtins the checks call. IPython adds and removes its own (exit, get_ipython) around each
# cell, so the whole builtins namespace is not a stable thing to compare.
_BUILTINS = (
    "isinstance", "issubclass", "type", "len", "list", "dict", "tuple", "set", "frozenset", "str", "repr", "int",
    "float", "bool", "sorted", "any", "all", "zip", "range", "enumerate", "min", "max", "sum", "abs", "round",
    "getattr", "setattr", "hasattr", "callable", "iter", "next", "id", "vars", "map", "filter", "object", "super",
    "format", "hash", "Exception", "BaseException", "ValueError", "TypeError", "RuntimeError", "LookupError",
    "NotImplementedError", "AssertionError", "AttributeError", "KeyError", "IndexError", "__import__",
)

# Library modules whose functions and classes the checks call: every callable in them is recorded.
_LIBRARY_MODULES = ("torch", "torch.nn", "torch.nn.functional", "torch.cuda", "torch.backends.mps",
                    "torch.accelerator", "torch.serialization", "torch.optim", "numpy", "math", "statistics",
                    "io", "tempfile", "random", "contextlib", "copy", "types")

# Classes whose methods the checks rely on (a class attribute added or replaced shows here).
_LIBRARY_CLASSES = (torch.Tensor, torch.nn.Parameter, torch.nn.Module, torch.nn.Linear, torch.nn.Sequential,
                    torch.nn.BatchNorm1d, torch.nn.ReLU, torch.nn.modules.batchnorm._BatchNorm,
                    torch.nn.modules.batchnorm._NormBase, torch.optim.Optimizer, torch.optim.Adam,
                    torch.optim.AdamW, torch.optim.SGD, torch.cuda.device, torch.cuda.device_of)

_DATA_TYPES = (tuple, list, dict, set, frozenset, str, bytes, int, float, bool, type(None), types.SimpleNamespace)


def _code_key(fn) -> tuple:
    """What a function does: its code object and defaults (rebinding ``__code__`` shows here)."""
    return (id(fn.__code__), fn.__defaults__, tuple(sorted((fn.__kwdefaults__ or {}).items())))


# The cheap form of ``_code_key``, run after every call of the answer: which code and defaults objects.
_CODE_PARTS = operator.attrgetter("__code__", "__defaults__", "__kwdefaults__")


def _fingerprint(value, deep: bool):
    """A comparable record of ``value``: identity always; for course data, its full text too."""
    if isinstance(value, types.FunctionType):
        return ("function", id(value), _code_key(value))
    if deep and isinstance(value, _DATA_TYPES):
        try:
            return ("data", id(value), repr(value))
        except Exception:  # a repr that fails is still compared by identity
            return ("data", id(value), None)
    if deep and isinstance(value, type):
        return ("class", id(value), _class_record(value))
    return ("object", id(value))


# Names Python itself adds to a class after the fact: copyreg caches ``__slotnames__`` on a class the
# first time one of its instances is copied or pickled (torch's TorchVersion, for one).
_CLASS_CACHES = ("__dict__", "__weakref__", "__doc__", "__slotnames__")


def _class_record(cls: type) -> tuple:
    return tuple(sorted((k, id(v), _code_key(v) if isinstance(v, types.FunctionType) else None)
                        for k, v in vars(cls).items() if k not in _CLASS_CACHES))


@dataclass(frozen=True)
class _Record:
    """The fingerprints of one module's or class's names, taken when it was known to be untouched."""

    label: str
    owner: object  # the module or class; its namespace is read again at check time
    values: tuple  # ((name, fingerprint), ...)
    deep: bool
    strict: bool  # a name added later also counts as a change
    known: frozenset  # every name present when the record was taken
    names: tuple = ()  # the recorded names, and their objects' ids, for the fast path
    ids: list = field(default_factory=list)
    code_keys: tuple = ()  # (name, _code_key) of the recorded functions
    fn_names: tuple = ()  # the functions' names, and their (code, defaults, kwdefaults), for the fast path
    code_parts: list = field(default_factory=list)

    def differences(self, quick: bool = False) -> list[str]:
        """What changed; ``quick`` compares identities only (a rebinding, not a change in place)."""
        namespace = vars(self.owner)
        if quick and self._same_identities(namespace):
            return []
        found = []
        for name, fingerprint in self.values:
            if name not in namespace:
                found.append(f"{self.label}.{name} was deleted")
                continue
            value = namespace[name]
            if _STAND_INS and _STAND_INS.get((id(self.owner), name)) is value and _checks_code(value):
                continue
            if _fingerprint(value, self.deep) != fingerprint and not _torch_rewrap(value, fingerprint):
                mutated = fingerprint[0] == "data" and id(namespace[name]) == fingerprint[1]
                found.append(f"{self.label}.{name} was {'changed in place' if mutated else 'replaced'}")
        if self.strict:
            found += [f"{self.label}.{n} was added" for n in namespace if n not in self.known and not _skipped(n)]
        if quick:  # only rebinding counts here; a change in place is for the full comparison
            found = [f for f in found if not f.endswith("changed in place")]
        return found

    def _same_identities(self, namespace) -> bool:
        """The fast path after each call of the answer: every name still bound to the same object
        (and every function to the same code), and no name added where that matters."""
        if list(map(id, map(namespace.get, self.names))) != self.ids:  # map(): in C, as it runs after every call
            return False
        if list(map(_CODE_PARTS, map(namespace.get, self.fn_names))) != self.code_parts:
            return False
        return not self.strict or all(n in self.known or _skipped(n) for n in namespace)


_TORCH_DIR = os.path.dirname(torch.__file__) + os.sep


def _torch_rewrap(value, fingerprint) -> bool:
    """Torch's own wrapper around the recorded function: importing ``torch._dynamo`` rebinds
    ``torch.manual_seed`` to ``torch._disable_dynamo(torch.manual_seed)``, which is harmless."""
    code = getattr(value, "__code__", None)
    wrapped = getattr(value, "__wrapped__", None)
    return (code is not None and code.co_filename.startswith(_TORCH_DIR) and wrapped is not None
            and _fingerprint(wrapped, False) == fingerprint)


_CHECKS_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


def _checks_code(value) -> bool:
    """A stand-in written in course_utils/checks (a simulated machine's function), not in a notebook."""
    code = getattr(value, "__code__", None)
    return code is not None and os.path.abspath(code.co_filename).startswith(_CHECKS_DIR)


def _skipped(name: str) -> bool:
    # dunders (a module's __builtins__, a class's __dict__); the registry, which grows as
    # modules register (the grader fingerprints each checker in it); call()'s call counter
    return (name.startswith("__") and name.endswith("__")) or name in ("_REGISTRY", "_CALLS")


def _record(label: str, owner, deep: bool, strict: bool, only=None) -> _Record:
    namespace = vars(owner)
    names = [n for n in (only or list(namespace)) if n in namespace and not _skipped(n)]
    if not deep:  # library modules: their callables and classes; their data may change legitimately
        names = [n for n in names if callable(namespace[n])]
    values = tuple((n, _fingerprint(namespace[n], deep)) for n in names)
    return _Record(label, owner, values, deep, strict, frozenset(namespace), tuple(names),
                   [f[1] for _, f in values], tuple((n, f[2]) for n, f in values if f[0] == "function"),
                   tuple(n for n, f in values if f[0] == "function"),
                   [_CODE_PARTS(namespace[n]) for n, f in values if f[0] == "function"])


def _library_records() -> list[_Record]:
    records = [_record("builtins", builtins, deep=False, strict=False, only=_BUILTINS)]
    for name in _LIBRARY_MODULES:
        try:
            module = importlib.import_module(name)
        except ImportError:  # torch.accelerator is new in torch 2.6
            continue
        records.append(_record(name, module, deep=False, strict=False))
    for cls in _LIBRARY_CLASSES:
        records.append(_record(f"{cls.__module__}.{cls.__qualname__}", cls, deep=False, strict=True))
    return records


# Taken at import, before any answer runs (the first cell of a notebook imports course_utils).
_LIBRARY = tuple(_library_records())
_SEALED: dict[str, _Record] = {}  # module name -> its record
_SEALED_CLASSES: dict[str, _Record] = {}


def _course_module(name: str) -> bool:
    return name.startswith("course_utils.") and not name.startswith("course_utils.grading") and name != __name__


def seal(module_name: str) -> None:
    """Record a checks module (call it as the module's last line) and the course modules it uses."""
    for name, module in list(sys.modules.items()):
        if module is None or not _course_module(name) or name in _SEALED:
            continue
        _SEALED[name] = _record(name, module, deep=True, strict=name.startswith("course_utils.checks."))
        for value in list(vars(module).values()):
            if isinstance(value, type) and getattr(value, "__module__", "") == name:
                label = f"{name}.{value.__qualname__}"
                _SEALED_CLASSES.setdefault(label, _record(label, value, deep=False, strict=True))
    if module_name not in _SEALED:
        raise ValueError(f"seal({module_name!r}): no such course module is loaded; call seal(__name__) as the "
                         "last line of a course_utils.checks module.")


def changes(quick: bool = False) -> list[str]:
    """Every difference from what was recorded, as "torch.equal was replaced" sentences.

    ``quick`` (after each call of the answer) looks for rebound names and replaced code only;
    the full comparison, data included, runs before and after each check."""
    found = _SELF.differences(quick)
    for record in _LIBRARY:
        found += record.differences(quick)
    for name, record in _SEALED.items():
        if sys.modules.get(name) is not record.owner:
            found.append(f"the module {name} was replaced in sys.modules")
        found += record.differences(quick)
    for record in _SEALED_CLASSES.values():
        found += record.differences(quick)
    return found


# Stand-ins a check put in place itself (a simulated machine), by (id of owner, name): while a
# check simulates a GPU server, torch.cuda.is_available is the check's own fake, not a change.
_STAND_INS: dict[tuple[int, str], object] = {}


@contextlib.contextmanager
def patched(owner, **fakes):
    """Replace attributes of ``owner`` for the length of a block (a simulated machine), then put the
    originals back. If the answer replaced one of the fakes meanwhile, that is reported as a change."""
    originals = {name: getattr(owner, name) for name in fakes}
    for name, fake in fakes.items():
        setattr(owner, name, fake)
        _STAND_INS[(id(owner), name)] = fake
    try:
        yield
    finally:
        swapped = [name for name, fake in fakes.items() if getattr(owner, name) is not fake]
        for name, original in originals.items():
            setattr(owner, name, original)
            _STAND_INS.pop((id(owner), name), None)
        if swapped:
            label = getattr(owner, "__name__", type(owner).__name__)
            raise Tampered([f"{label}.{name} was replaced while the check ran" for name in swapped])


class Tampered(Exception):
    """Something a check trusts was changed; ``check()`` turns this into a "tampered" result."""

    def __init__(self, what: list[str]):
        super().__init__("; ".join(what))
        self.what = list(what)


def verify(quick: bool = False) -> None:
    """Raise ``Tampered`` naming every change since the records were taken."""
    found = changes(quick)
    if found:
        raise Tampered(found)


# This module's own functions, so that replacing changes() or verify() shows too.
_SELF = _record(__name__, sys.modules[__name__], deep=False, strict=False)
