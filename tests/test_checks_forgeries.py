"""Forged values: an answer whose return value claims to equal anything fails, in-process and when graded.

The checks compare exact types (``same``, ``text``, ``number``), so a ``str`` subclass, an object
with a lying ``__eq__`` or a tensor subclass is a plain fail. The tripwire that once noticed a
notebook patching the checks' cases, torch or builtins is gone: grading runs the checkers in the
grader's own process (``boundary.py``), where such patches never happen; the attacks on
grading are tested against a real kernel in ``tests/test_grading_attacks.py``. Through the
boundary, such values do not even come back: only exact plain types, tensors and the course's own
objects cross it (``test_a_lying_value_cannot_cross_the_boundary``).
"""

import pytest
import torch
from torch import nn

from course_grader import boundary
from course_utils.checks import check
from course_utils.checks._core import same, text


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


@pytest.mark.parametrize(
    "id, answer",
    [
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
    ],
)
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
        return torch.zeros(len(values) if isinstance(values, list) else 1, dtype=reference.dtype, device=reference.device).as_subclass(
            AgreeableTensor
        )

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


@pytest.mark.parametrize("value", [AlwaysEqual(), LyingStr("cuda:0"), LyingInt(0), [LyingInt(0)], torch.zeros(2).as_subclass(AgreeableTensor)])
def test_a_lying_value_cannot_cross_the_boundary(value):
    """Through the boundary a forged value is not rebuilt: it fails to send, or arrives as a plain value."""

    def answer(*args):
        return value

    result = boundary.grade("04.3", boundary.local_channel({"landing_device": answer}))
    assert result.status == "fail", result
