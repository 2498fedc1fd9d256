"""The explainer knows every error lesson 11 shows (issue 36, item 5), raised live by the installed torch.

Each action below is what the lesson, its exercises or their checks make a learner meet. The wordings
that differ between releases, or that only a GPU raises, are kept as text with the release they were
read in (run on 2.7.1, 2.13.0 and 2.14.1 CPU-only: torch.compile's mixed-device error changed wording).
Lesson: notebook 11 (the device in the rest of your code).
"""

from __future__ import annotations

import warnings

import pytest
import torch
from torch.utils.data import DataLoader

from course_utils.errors import explain_device_error


def caught(action):
    try:
        action()
    except BaseException as exc:  # the test wants the real exception object
        return exc
    raise AssertionError("expected the action to raise")


def _shuffle_under_meta():
    """Part 2: a shuffling DataLoader with a CPU generator while a default device is left on meta."""
    torch.set_default_device("meta")
    try:
        list(DataLoader(range(5), shuffle=True, generator=torch.Generator(device="cpu")))
    finally:
        torch.set_default_device(None)


def _compile_mixed():
    """Part 3: a compiled addition of a CPU tensor and a meta tensor (the eager backend, no compiler needed)."""
    add = torch.compile(lambda a, b: a + b, backend="eager")
    add(torch.ones(3), torch.ones(3, device="meta"))


LIVE = [
    # (what raises, the family's kind, the devices it names)
    ("part 1: autocast given x.device", lambda: torch.autocast(torch.device("cpu")), "autocast-device-type", ()),
    ("part 1: autocast given 'gpu'", lambda: torch.autocast("gpu"), "bad-device-string", ()),
    ("explainer: autocast for a type without it", lambda: torch.autocast("meta", dtype=torch.bfloat16), "autocast-device-type", ()),
    ("part 2: a shuffle under a default device left on meta", _shuffle_under_meta, "meta-has-no-data", ("meta",)),
    ("exercise 11.2: a generator made on the default device meta", lambda: torch.Generator(device="meta"), "generator-device", ("meta",)),
    ("part 3: torch.compile given two devices", _compile_mixed, "mixed-devices", ("cpu", "meta")),
]


@pytest.mark.parametrize("action, kind, devices", [case[1:] for case in LIVE], ids=[case[0] for case in LIVE])
def test_each_error_lesson_11_raises_is_explained(action, kind, devices):
    exc = caught(action)
    e = explain_device_error(exc)
    assert e.is_device_error and (e.kind, e.devices) == (kind, devices), f"{type(exc).__name__}: {exc}\n{e}"
    assert e.cause and e.fix


# The wordings as each release printed them (raised by the actions above on a CPU-only machine), and those only a
# GPU raises, filled in from the release's source.
WORDINGS = [
    (
        "Expected `device_type` of type `str`, got: `<class 'torch.device'>`",
        "autocast-device-type",
        (),
        "2.7.1, 2.13.0, 2.14.1: torch/amp/autocast_mode.py, raised live",
    ),
    ("Tensor.item() cannot be called on meta tensors", "meta-has-no-data", ("meta",), "2.7.1, 2.13.0, 2.14.1, raised live"),
    ("META device type not an accelerator.", "generator-device", ("meta",), "2.7.1, 2.13.0, 2.14.1, raised live"),
    (
        "Dynamo failed to run FX node with fake tensors: call_function <built-in function add>(*(FakeTensor(..., "
        "size=(3,)), FakeTensor(..., device='meta', size=(3,))), **{}): got RuntimeError('Unhandled FakeTensor Device "
        "Propagation for aten.add.Tensor, found two different devices cpu, meta')",
        "mixed-devices",
        ("cpu", "meta"),
        "2.7.1, torch._dynamo.exc.TorchRuntimeError raised live",
    ),
    (
        "Tensor device mismatch\n  Explanation: Expected all tensors to be on the same device, but found at least two "
        "devices, cpu and meta!\n  Hint: Move inputs, parameters, and buffers to the same device.",
        "mixed-devices",
        ("cpu", "meta"),
        "2.13.0, torch._dynamo.exc.TorchRuntimeError raised live",
    ),
    (
        "User provided device_type of 'cuda', but CUDA is not available. Disabling",
        "amp-disabled",
        ("cuda",),
        "2.7.1: torch.autocast('cuda') without CUDA, raised live",
    ),
    (
        "CUDA is not available or torch_xla is imported. Disabling autocast.",
        "amp-disabled",
        ("cuda",),
        "2.13.0, 2.14.1: torch.autocast('cuda') without CUDA, raised live",
    ),
    (
        "`torch.cuda.amp.GradScaler(args...)` is deprecated. Please use `torch.amp.GradScaler('cuda', args...)` instead.",
        "amp-deprecated",
        ("cuda",),
        "2.7.1, 2.13.0, 2.14.1: part 1's cell, raised live",
    ),
    # GPU-only (part 2's CUDA cell): check_generator in libtorch_cpu.so, the sampler's randperm on CUDA with its CPU
    # generator; part 1's bfloat16 remark: torch/amp/autocast_mode.py
    (
        "Expected a 'cuda' device type for generator but found 'cpu'",
        "generator-device",
        ("cuda", "cpu"),
        "libtorch_cpu.so of 2.7.1, 2.13.0, 2.14.1 (check_generator)",
    ),
    (
        "Current CUDA Device does not support bfloat16. Please switch dtype to float16.",
        "dtype-unsupported-on-device",
        ("cuda",),
        "torch/amp/autocast_mode.py of 2.13.0, 2.14.1",
    ),
]


@pytest.mark.parametrize("message, kind, devices, source", WORDINGS, ids=[w[0][:40] for w in WORDINGS])
def test_each_release_wording_is_explained(message, kind, devices, source):
    e = explain_device_error(message)
    assert e.is_device_error and (e.kind, e.devices) == (kind, devices), f"{source}: {e}"


def test_a_generator_on_meta_is_told_to_stay_on_the_cpu():
    e = explain_device_error(caught(lambda: torch.Generator(device="meta")))
    assert "torch.Generator(device='cpu')" in e.fix and "set_default_device" in e.cause


def test_a_shuffle_under_meta_points_at_the_default_device():
    e = explain_device_error(caught(_shuffle_under_meta))
    assert "torch.get_default_device()" in e.cause and "torch.set_default_device(None)" in e.fix


def _warnings_of(action) -> list[str]:
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        action()
    return [str(w.message) for w in seen]


@pytest.mark.skipif(torch.cuda.is_available(), reason="the warnings of AMP for 'cuda' where CUDA is not available")
@pytest.mark.parametrize(
    "action",
    [
        lambda: torch.cuda.amp.GradScaler(),
        lambda: torch.cuda.amp.autocast(),
        lambda: torch.autocast("cuda"),
        lambda: torch.amp.GradScaler("cuda"),
    ],
    ids=["cuda.amp.GradScaler", "cuda.amp.autocast", "autocast-cuda", "amp.GradScaler-cuda"],
)
def test_the_amp_warnings_part_1_shows_are_explained(action):
    """Part 1 shows torch.cuda.amp's FutureWarning; off CUDA autocast and GradScaler also warn that they switched off."""
    seen = _warnings_of(action)
    assert seen, "expected a warning"
    for message in seen:
        e = explain_device_error(message)
        assert e.kind in ("amp-deprecated", "amp-disabled") and e.devices == ("cuda",), f"{message}\n{e}"
    if any("deprecated" in m for m in seen):
        assert "x.device.type" in explain_device_error(next(m for m in seen if "deprecated" in m)).fix
