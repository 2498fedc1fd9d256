"""Forged passes: a notebook that changes a check's cases, its reference, torch, or builtins is caught.

Each test does what a notebook cell could do (``importlib.import_module`` reaches every checks
module), then checks a wrong or lazy answer: the result must be "tampered" (naming what changed)
or "fail", never "pass". ``monkeypatch`` puts everything back afterwards.
"""

import builtins
import importlib
import sys
import types

import pytest
import torch
from torch import nn

from course_utils.checks import _core, _guard, check
from course_utils.checks._core import Exercise, same, text

nb01 = importlib.import_module("course_utils.checks.nb01")
nb03 = importlib.import_module("course_utils.checks.nb03")
nb05 = importlib.import_module("course_utils.checks.nb05")


def tampered(result, *names):
    assert result.status == "tampered", result
    assert not result.passed
    for name in names:
        assert name in result.message, (name, result.message)
    return result


def test_nothing_is_flagged_when_nothing_changed():
    assert _guard.changes() == []


# ------------------------------------------------------------- the checker's own data


@pytest.mark.parametrize("module, name, id, answer", [
    (nb01, "VISIBLE_CASES", "01.2", lambda mask, physical: []),
    (nb01, "FAKE_GPUS", "01.3", lambda props: ""),
    (nb05, "MESSAGES", "05.1", lambda message: "not-a-device-error"),
    (nb05, "INDEX_CASES", "05.3", lambda table, index: "cpu"),
    (nb05, "FIXES", "05.1", lambda message: "anything"),
])
def test_emptied_cases_are_tampering(monkeypatch, module, name, id, answer):
    monkeypatch.setattr(module, name, ())
    tampered(check(id, answer), f"{module.__name__}.{name} was replaced")


def test_cases_changed_in_place_are_tampering():
    cases = nb01.VISIBLE_CASES[0][2]  # the list of the first mask's GPUs
    cases.append(99)
    try:
        tampered(check("01.2", lambda mask, physical: [0, 99]), "nb01.VISIBLE_CASES was changed in place")
    finally:
        cases.remove(99)


def test_a_replaced_judging_helper_is_tampering(monkeypatch):
    monkeypatch.setattr(nb01, "_seen_by_torch", lambda mask, physical: [3, 1])
    tampered(check("01.b", "2,0"), "_seen_by_torch")


def test_a_judging_helper_with_swapped_code_is_tampering(monkeypatch):
    monkeypatch.setattr(nb01._seen_by_torch, "__code__", (lambda mask, physical: [3, 1]).__code__)
    tampered(check("01.b", "2,0"), "_seen_by_torch")


def test_a_helper_added_to_a_checks_module_is_tampering(monkeypatch):
    monkeypatch.setattr(nb01, "_sneaky", 1, raising=False)
    tampered(check("01.3", lambda props: ""), "nb01._sneaky was added")


def test_a_replaced_checker_in_the_registry_is_tampering(monkeypatch):
    monkeypatch.setitem(_core._REGISTRY, "01.1", Exercise("01.1", "Pick", "best_device", lambda answer: "ok"))
    tampered(check("01.1", lambda: torch.device("cpu")), "checker of 01.1 was replaced")


def test_a_course_checker_swapped_in_from_another_exercise_is_tampering(monkeypatch):
    other = _core._REGISTRY["01.3"].checker
    monkeypatch.setitem(_core._REGISTRY, "01.1", Exercise("01.1", "Pick", "best_device", other))
    tampered(check("01.1", lambda: torch.device("cpu")), "checker of 01.1 was replaced")


def test_a_checks_module_replaced_in_sys_modules_is_tampering(monkeypatch):
    monkeypatch.setitem(sys.modules, "course_utils.checks.nb01", types.ModuleType("course_utils.checks.nb01"))
    tampered(check("01.1", lambda: torch.device("cpu")), "replaced in sys.modules")


def test_a_course_helper_the_checks_use_is_covered(monkeypatch):
    placement = importlib.import_module("course_utils.placement")
    monkeypatch.setattr(placement, "placement_report", lambda model: None)
    tampered(check("03.2", lambda model: None), "course_utils.placement.placement_report")


# ------------------------------------------------------------- the library the checks trust


def lazy_load(path, device, make_model):
    return make_model().to(device)  # never loads the checkpoint


def test_torch_equal_always_true_is_tampering(monkeypatch):
    monkeypatch.setattr(torch, "equal", lambda *a, **k: True)
    tampered(check("03.3", lazy_load), "torch.equal was replaced")


def test_a_patched_tensor_method_is_tampering(monkeypatch):
    monkeypatch.setattr(torch.Tensor, "to", lambda self, *a, **k: self, raising=False)
    tampered(check("02.2", lambda batch, device: dict(batch)), "torch.Tensor.to was added")


def test_a_replaced_torch_device_is_tampering(monkeypatch):
    class Anything:
        def __init__(self, *args, **kwargs):
            pass

        def __eq__(self, other):
            return True

    monkeypatch.setattr(torch, "device", Anything)
    tampered(check("08.1", lambda rank, count: Anything()), "torch.device was replaced")


def test_patched_availability_is_tampering(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    tampered(check("01.1", lambda: torch.device("cpu")), "torch.cuda.is_available was replaced")


def test_patched_numpy_and_math_are_tampering(monkeypatch):
    import math

    monkeypatch.setattr(math, "isclose", lambda *a, **k: True)
    tampered(check("06.3", lambda nbytes, seconds: 0.0), "math.isclose was replaced")


def test_patched_builtins_are_tampering():
    original = builtins.isinstance
    builtins.isinstance = lambda obj, cls: True
    try:
        result = check("01.1", lambda: "cuda")
    finally:
        builtins.isinstance = original
    tampered(result, "builtins.isinstance was replaced")


def test_an_answer_that_patches_torch_while_it_runs_is_caught(monkeypatch):
    monkeypatch.setattr(torch, "equal", torch.equal)  # put back afterwards

    def sneaky(path, device, make_model):
        torch.equal = lambda *a, **k: True
        return make_model().to(device)

    tampered(check("03.3", sneaky), "torch.equal was replaced")


def test_an_answer_that_replaces_a_simulated_function_is_caught(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", torch.cuda.is_available)

    def sneaky():
        torch.cuda.is_available = lambda: True
        return torch.device("cuda")

    tampered(check("01.1", sneaky), "torch.cuda.is_available was replaced")
    assert torch.cuda.is_available is not None


def test_the_simulation_leaves_torch_as_it_was():
    before = (torch.cuda.is_available, torch.cuda.current_device, torch.backends.mps.is_available)
    check("01.4", lambda: None)
    check("01.1", lambda: torch.device("cpu"))
    assert (torch.cuda.is_available, torch.cuda.current_device, torch.backends.mps.is_available) == before
    assert _guard.changes() == []


# ------------------------------------------------------------- answers that lie about themselves


class AlwaysEqual:
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    __hash__ = object.__hash__


class LyingStr(str):
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    def __str__(self):
        return self

    __hash__ = str.__hash__


class LyingInt(int):
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    __hash__ = int.__hash__


@pytest.mark.parametrize("id, answer", [
    ("01.2", lambda mask, physical: AlwaysEqual()),
    ("01.3", lambda props: AlwaysEqual()),
    ("01.3", lambda props: LyingStr("x")),
    ("01.4", lambda: AlwaysEqual()),
    ("04.1", lambda: [LyingInt(0)] * 8),
    ("04.2", lambda start, program: [LyingInt(0)] * len(program)),
    ("04.3", lambda spec, current: LyingStr("cuda:0")),
    ("05.1", lambda message: LyingStr("move-to-one-device")),
    ("05.3", lambda table, index: LyingStr("cpu")),
    ("06.3", lambda nbytes, seconds: LyingInt(1)),
    ("08.3", lambda device: AlwaysEqual()),
    ("08.4", lambda devices: AlwaysEqual()),
])
def test_a_value_that_claims_to_equal_anything_fails(id, answer):
    result = check(id, answer)
    assert result.status == "fail", result


class AgreeableTensor(torch.Tensor):
    """A tensor subclass whose torch.equal is always True."""

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        if func is torch.equal:
            return True
        return super().__torch_function__(func, types, args, kwargs or {})


def test_a_tensor_subclass_that_agrees_with_everything_fails():
    def like(reference, values):
        return torch.zeros(len(values) if isinstance(values, list) else 1, dtype=reference.dtype,
                           device=reference.device).as_subclass(AgreeableTensor)

    assert check("02.1", like).status == "fail"


def test_a_look_alike_model_fails():
    class Fake(nn.Sequential):
        def state_dict(self, *args, **kwargs):
            return {}

    def load_onto(path, device, make_model):
        return Fake(*make_model().to(device))

    assert check("03.3", load_onto).status == "fail"


def test_same_compares_exact_types():
    assert same([1, 2], [1, 2]) and same({"cuda:0": [0, 1]}, {"cuda:0": [0, 1]}) and same(None, None)
    assert not same(True, 1) and not same(1, 1.0) and not same((1,), [1]) and not same(LyingStr("a"), "b")
    assert same(torch.device("cuda", 1), torch.device("cuda:1"))
    assert type(text(LyingStr("x"))) is str


@pytest.mark.slow  # a child Python that imports torch
def test_a_helper_changed_before_the_first_check_is_caught():
    """In a fresh kernel: importing any part of course_utils records the checks first."""
    import subprocess

    code = ("import course_utils.placement as p\n"
            "p.placement_report = lambda model: None\n"
            "from course_utils import check\n"
            "print(check('03.2', lambda model: None).status)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.stdout.strip().splitlines()[-1] == "tampered", done.stdout + done.stderr
