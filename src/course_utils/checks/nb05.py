"""Checks for the exercises and the try-its (05.a, 05.b) of notebook 05, the cross-device error clinic.

Every check runs on a CPU-only machine (``meta`` is the second device; GPU checkpoints are
written with ``retag_checkpoint``) and adds CUDA cases where a GPU is present.
"""

from __future__ import annotations

import collections
import io

import torch
from torch import nn

from course_utils.checkpoints import retag_checkpoint
from course_utils.checks._core import (
    LearnerRaised,
    Wrong,
    accelerator_targets,
    call,
    cases,
    exercise,
    learner_line,
    tensor_answer,
    text,
    try_it,
)

# --------------------------------------------------------------------------- 05.1

FIXES = (
    "move-to-one-device",
    "index-to-table-device",
    "map-location",
    "cpu-before-numpy",
    "existing-device-index",
    "cpu-or-cuda-build",
    "optimizer-after-move",
    "not-a-device-error",
)

# Real messages (PyTorch's sources, several versions) and the fix each one needs.
MESSAGES: tuple[tuple[str, str], ...] = (
    ("Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!", "move-to-one-device"),
    (
        "Expected all tensors to be on the same device, but got mat1 is on cpu, different from other tensors on cuda:0 "
        "(when checking argument in method wrapper_CUDA_addmm)",
        "move-to-one-device",
    ),
    (
        "Expected all tensors to be on the same device, but found at least two devices, cpu and cuda:0! "
        "(when checking argument for argument index in method wrapper_CUDA__index_select)",
        "move-to-one-device",
    ),
    ("Expected all tensors to be on the same device, but found at least two devices, cuda:1 and cuda:0!", "move-to-one-device"),
    ("Tensor on device cpu is not on the expected device meta!", "move-to-one-device"),
    ("Expected object of type torch.cuda.LongTensor but found type torch.LongTensor for argument #3 'other'", "move-to-one-device"),
    ("indices should be either on cpu or on the same device as the indexed tensor (cpu)", "index-to-table-device"),
    (
        "Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is False. If you are running "
        "on a CPU-only machine, please use torch.load with map_location=torch.device('cpu') to map your storages to the "
        "CPU.",
        "map-location",
    ),
    (
        "Attempting to deserialize object on CUDA device 1 but torch.cuda.device_count() is 1. Please use torch.load "
        "with map_location to map your storages to an existing device.",
        "map-location",
    ),
    ("can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory first.", "cpu-before-numpy"),
    (
        "CUDA error: invalid device ordinal\nCUDA kernel errors might be asynchronously reported at some other API call, "
        "so the stacktrace below might be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1.",
        "existing-device-index",
    ),
    ("Torch not compiled with CUDA enabled", "cpu-or-cuda-build"),
    (
        "Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed a driver from "
        "http://www.nvidia.com/Download/index.aspx",
        "cpu-or-cuda-build",
    ),
    (
        "Tensors of the same index must be on the same device and the same dtype except `step` tensors that can be CPU "
        "and float32/64 notwithstanding",
        "optimizer-after-move",
    ),
    ("mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)", "not-a-device-error"),
    ("expected scalar type Float but found Double", "not-a-device-error"),
    ("a Tensor with 2 elements cannot be converted to Scalar", "not-a-device-error"),
    ("Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: [3, 32]", "not-a-device-error"),
)

# asked in every run (practice or graded): the 2019 wording reporting a dtype mismatch, between two CUDA tensors and
# between two CPU tensors (an answer that takes every "Expected object of type", or every message naming CUDA, for a
# device mix-up calls them move-to-one-device)
MESSAGES_ALWAYS: tuple[tuple[str, str], ...] = (
    ("Expected object of type torch.cuda.FloatTensor but found type torch.cuda.LongTensor for argument #2 'mat2'", "not-a-device-error"),
    ("Expected object of type torch.FloatTensor but found type torch.DoubleTensor for argument #2 'other'", "not-a-device-error"),
)


@exercise(
    "05.1",
    "Name the fix from the message",
    "fix_for",
    hint=(
        "Each kind of message has a phrase that stays the same across PyTorch versions ('same device', "
        "'indices should be', 'deserialize', 'to numpy', 'invalid device ordinal', 'NVIDIA driver', ...). "
        "Compare in lower case, and test the most specific phrases first."
    ),
)
def _fix_for(fix_for) -> str:
    messages = (*cases("05.1", MESSAGES), *MESSAGES_ALWAYS)
    for message, expected in messages:
        got = call(fix_for, message)
        if type(got) is not str or got not in FIXES:
            raise Wrong(f"fix_for(...) returned {got!r}, which is not one of {', '.join(FIXES)}.")
        if got != expected:
            found = f"For the message {message.splitlines()[0]!r} you chose {got!r}, which is not its fix."
            if got == "move-to-one-device" and "same device" not in message and "expected device" not in message:
                raise Wrong(
                    found,
                    "Words such as 'CUDA' or 'Expected object of type' turn up in errors of other kinds too: does this "
                    "message say that two tensors are on different devices? Compare the two types it names.",
                )
            raise Wrong(found)
    return f"The right fix for all {len(messages)} messages, old wordings and new."


# --------------------------------------------------------------------------- 05.2


def _model_on(device: str) -> nn.Module:
    return nn.Sequential(nn.Linear(3, 3), nn.BatchNorm1d(3)).to(device)


def _same_structure(got, original, device: torch.device, path: str) -> None:
    if isinstance(original, torch.Tensor):
        if type(got) is not torch.Tensor:  # a subclass could answer torch.equal as it likes
            raise Wrong(f"{path} should still be a plain torch.Tensor, got a {type(got).__name__}.")
        if got.device != device:
            raise Wrong(f"{path} is on {got.device}; it should be on the model's device, {device}.")
        if got.shape != original.shape or got.dtype != original.dtype:
            raise Wrong(f"{path} changed shape or dtype ({tuple(got.shape)}, {got.dtype}); only its device should change.")
        if device.type != "meta" and not torch.equal(got.cpu(), original.cpu()):
            raise Wrong(f"{path} has different values after the move.")
        return
    if isinstance(original, (list, tuple, dict)):
        if type(got) is not type(original) or len(got) != len(original):
            raise Wrong(
                f"{path} was a {type(original).__name__} of {len(original)}; you returned {got!r}.",
                "Rebuild lists as lists, tuples as tuples (a namedtuple as its own class, which takes its "
                "fields as separate arguments) and dicts as dicts, recursively.",
            )
        items = original.items() if isinstance(original, dict) else enumerate(original)
        for key, value in items:
            if isinstance(original, dict) and key not in got:
                raise Wrong(f"{path} lost the key {key!r}.")
            _same_structure(got[key], value, device, f"{path}[{key!r}]")
        return
    if got is not original:
        raise Wrong(f"{path} ({original!r}) is not a tensor and should be returned as it is, got {got!r}.")


# A namedtuple is a tuple the inputs may hold; at module level, so the grader's kernel finds it by name.
Pair = collections.namedtuple("Pair", ["first", "second"])


def _contents(value) -> list[tuple[list | dict, list]]:
    """Every list and dict nested in ``value``, each with what it held: its items, or its (key, value) pairs."""
    if isinstance(value, dict):
        found, children = [(value, list(value.items()))], list(value.values())
    elif isinstance(value, list):
        found, children = [(value, list(value))], value
    elif isinstance(value, tuple):
        found, children = [], value
    else:
        return []
    for child in children:
        found += _contents(child)
    return found


def _left_alone(held: list[tuple[list | dict, list]]) -> None:
    """Wrong unless every list and dict the answer was given still holds what it held (the very objects)."""
    for container, was in held:
        now = list(container.items()) if isinstance(container, dict) else list(container)
        pairs = zip(now, was)
        if len(now) != len(was) or any(a[0] != b[0] or a[1] is not b[1] if isinstance(container, dict) else a is not b for a, b in pairs):
            raise Wrong(
                f"to_model_device changed a {type(container).__name__} among the inputs it was given; return new "
                "lists and dicts and leave the caller's as they were.",
                "As in 02.2: the caller may still use its batch; build the moved structure anew instead of assigning into it.",
            )


def _resent(value):
    """A copy of nested inputs: tensors and containers new, every other value the same object."""
    if isinstance(value, torch.Tensor):
        return value.clone()
    if isinstance(value, tuple) and hasattr(type(value), "_fields"):
        return type(value)(*(_resent(v) for v in value))
    if isinstance(value, (list, tuple)):
        return type(value)(_resent(v) for v in value)
    if isinstance(value, dict):
        return {key: _resent(v) for key, v in value.items()}
    return value


def _inputs() -> tuple:
    """The practice check's inputs, made afresh for each check (an answer may change what it is given)."""
    return (
        torch.ones(2, 3),
        (torch.zeros(1, 3), 7),
        [torch.arange(3), "label", None],
        {"mask": torch.ones(2, dtype=torch.bool), "meta": {"ids": [torch.tensor([1, 2])], "lr": 0.1}},
        Pair(torch.full((2,), 3.0), "second"),
    )


def _inputs_always() -> tuple:
    """Inputs asked in every run, beside the drawn or public ones: a batch dict and a list holding tensors, where an
    answer that assigns the moved tensors back into the caller's containers shows (a draw may hold neither)."""
    return ({"input_ids": torch.tensor([[3, 1, 4]]), "labels": [torch.tensor([1.0])]},)


@exercise(
    "05.2",
    "Move every input to the model's device",
    "to_model_device",
    hint=(
        "Find the device from the model's parameters, else its buffers; then walk the inputs recursively: "
        "tensors get .to(device), lists, tuples and dicts are rebuilt, anything else is returned as it is."
    ),
)
def _to_model_device(to_model_device) -> str:
    expected = (*cases("05.2", _inputs)(), *_inputs_always())
    devices = ["meta", "cpu"] + accelerator_targets()
    for device in devices:
        model = _model_on(device)
        # a copy goes to the answer: what its call leaves in the inputs it was given is not evidence of what they held
        given = _resent(expected)
        held = _contents(given)
        got = call(to_model_device, model, *given)
        _left_alone(held)
        if not isinstance(got, tuple) or len(got) != len(expected):
            raise Wrong(f"to_model_device(model, *inputs) should return a tuple of {len(expected)} inputs, got {got!r}.")
        _same_structure(got, expected, torch.device(device), "inputs")
    buffers_only = nn.BatchNorm1d(3, affine=False).to("meta")
    got = call(to_model_device, buffers_only, torch.ones(2, 3))
    _same_structure(got, (torch.ones(2, 3),), torch.device("meta"), "inputs (model with buffers only)")
    # parameters on meta, a buffer left on the CPU: the parameters name the device, the buffers only without them
    mixed = nn.Linear(3, 3).to("meta")
    mixed.register_buffer("scale", torch.ones(3))
    got = call(to_model_device, mixed, torch.ones(2, 3))
    _same_structure(got, (torch.ones(2, 3),), torch.device("meta"), "inputs (model with parameters on meta and a buffer on the CPU)")
    # a CPU input and one on meta: an answer that falls back to the CPU for a model without a device moves the second
    x, y = torch.ones(2), torch.ones(2, device="meta")
    try:
        got = call(to_model_device, nn.ReLU(), x, y)
    except LearnerRaised:
        got = None
    if not (isinstance(got, tuple) and len(got) == 2 and got[0] is x and got[1] is y):
        raise Wrong(
            "A model with no parameters or buffers has no device; given a CPU tensor and a meta tensor, "
            f"to_model_device(nn.ReLU(), x, y) should return them unchanged, got {got!r}.",
            "A model without tensors names no device: do not fall back to the CPU (or any device), hand the inputs back as they came.",
        )
    return "Every tensor follows the model (" + ", ".join(devices) + "), structure kept."


# --------------------------------------------------------------------------- 05.3


# (the table's device, the index's device, where the index must be for table[index])
INDEX_CASES = (
    ("cuda:0", "cpu", "cpu"),
    ("cpu", "cuda:0", "cpu"),
    ("cuda:0", "cuda:1", "cuda:0"),
    ("cuda:1", "cuda:1", "cuda:1"),
    ("cpu", "cpu", "cpu"),
    ("meta", "cpu", "cpu"),
    ("cpu", "meta", "cpu"),
    ("cuda:1", "meta", "cuda:1"),
    (torch.device("cuda", 2), torch.device("cuda", 0), "cuda:2"),
    (torch.device("cpu"), torch.device("cuda", 3), "cpu"),
    ("mps:0", "cpu", "cpu"),
    ("cuda:0", "mps:0", "cuda:0"),
)


@exercise(
    "05.3",
    "The safe device for an index",
    "index_device",
    hint=("An index may stay where it is if it is on the CPU or on the table's own device; otherwise it must move to the table's device."),
)
def _index_device(index_device) -> str:
    pairs = cases("05.3", INDEX_CASES)
    for table, index, expected in pairs:
        got = call(index_device, table, index)
        if text(got) != expected:
            raise Wrong(f"index_device({table!r}, {index!r}) returned {got!r}, which is not where the index should be.")
    return f"Right for all {len(pairs)} pairs: indices may live on the CPU or on the table's device."


# --------------------------------------------------------------------------- 05.4


# the devices the practice check's checkpoints are saved on, and the state they hold (made afresh each time)
SAVED_ON = ("cpu", "cuda:0", "cuda:1", "mps")


def _saved_state() -> dict[str, torch.Tensor]:
    generator = torch.Generator().manual_seed(5)
    return {"weight": torch.randn(2, 3, generator=generator), "bias": torch.randn(2, generator=generator), "steps": torch.tensor(12)}


def _checkpoint(saved_on: str, state: dict[str, torch.Tensor]) -> bytes:
    buffer = io.BytesIO()
    torch.save(state, buffer)
    if saved_on == "cpu":
        return buffer.getvalue()
    tagged = io.BytesIO()
    retag_checkpoint(buffer, tagged, {"cpu": saved_on})
    return tagged.getvalue()


@exercise(
    "05.4",
    "Load any checkpoint anywhere",
    "load_anywhere",
    hint=(
        "The checkpoint arrives as bytes, not as a file name, and the file names the device it was saved on: "
        "torch.load can be told where to read from, and where every tensor should land."
    ),
)
def _load_anywhere(load_anywhere) -> str:
    targets = ["cpu", "meta"] + accelerator_targets() + _last_gpu()
    saved_ons, state = cases("05.4", (SAVED_ON, _saved_state))
    for saved_on in saved_ons:
        original = state()
        data = _checkpoint(saved_on, original)
        for device in targets:
            got = call(load_anywhere, data, device)
            if not isinstance(got, dict) or set(got) != set(original):
                raise Wrong(
                    f"A checkpoint saved on {saved_on}, loaded onto {device}: expected a dict with keys {sorted(original)}, got {got!r}."
                )
            for key, value in original.items():
                loaded = got[key]
                if type(loaded) is not torch.Tensor or loaded.device != torch.device(device):
                    where = loaded.device if isinstance(loaded, torch.Tensor) else type(loaded).__name__
                    raise Wrong(
                        f"Saved on {saved_on}, loaded onto {device}: {key!r} is on {where}, not on the device asked for."
                        + _why(where, saved_on, device)
                    )
                if loaded.dtype != value.dtype:
                    raise Wrong(
                        f"Saved on {saved_on}, loaded onto {device}: {key!r} came back as {loaded.dtype}, not in the dtype it was saved in.",
                        "Loading onto a device changes where each tensor lives, never its dtype: leave the dtypes as the file has them.",
                    )
                if device != "meta" and not torch.equal(loaded.cpu(), value):
                    raise Wrong(f"Saved on {saved_on}, loaded onto {device}: {key!r} has different values.")
    # a training checkpoint, in every run: tensors nested in dicts and lists beside plain values, saved on another GPU
    nested = {
        "model": state(),
        "optimizer": {"state": {0: {"exp_avg": torch.ones(3)}}, "lr": 0.1},
        "history": [torch.tensor([0.5, 0.25])],
        "epoch": 3,
    }
    data = _checkpoint(NESTED_ON, nested)
    for device in targets:
        where = f"A training checkpoint saved on {NESTED_ON} (a dict of dicts and lists), loaded onto {device}"
        got = call(load_anywhere, data, device)
        _nested_follows(where, got, nested, torch.device(device), "checkpoint")
    named = ["the CPU" if d == "cpu" else d for d in saved_ons]
    return (
        f"Checkpoints saved on {', '.join(named[:-1])} and {named[-1]}, and a nested one saved on {NESTED_ON}, "
        "load onto " + ", ".join(targets) + "."
    )


NESTED_ON = "cuda:3"


def _last_gpu() -> list[str]:
    """``["cuda:N-1"]`` on a machine with two CUDA GPUs or more, else ``[]``: a target with an index other than 0.

    An answer that maps by device type only (``map_location="cuda"``, ``storage.cuda()``) lands on
    the current device, cuda:0, which is right for cuda:0 and wrong for any other index. No CPU-only
    device keeps an index (``meta:1`` and ``cpu:0`` tensors report ``meta`` and ``cpu``), so only such
    a machine can tell the two apart."""
    # beside accelerator_targets()'s cuda:0, where that is the learner's accelerator (a Mac's MPS has one device)
    count = torch.cuda.device_count() if accelerator_targets() == ["cuda:0"] else 0
    return [f"cuda:{count - 1}"] if count >= 2 else []


def _why(where, saved_on: str, device: str) -> str:
    """What a 05.4 tensor's place says about the mistake: left where the file says, or on the right kind of device only."""
    if str(where) == saved_on:
        return " torch.load left it where the file says it was saved."
    if isinstance(where, torch.device) and where.type == torch.device(device).type:
        return " It is the right kind of device with another index: the index asked for counts too."
    return ""


def _nested_follows(where: str, got, original, device: torch.device, path: str) -> None:
    """Wrong unless ``got`` holds ``original``'s structure, plain values as they were, every tensor on ``device``."""
    if isinstance(original, torch.Tensor):
        if type(got) is not torch.Tensor or got.device != device:
            found = got.device if isinstance(got, torch.Tensor) else type(got).__name__
            raise Wrong(
                f"{where}: {path} is on {found}, not on the device asked for.",
                "Every tensor in the file, however deeply nested, has to land on the device.",
            )
        if got.dtype != original.dtype:
            raise Wrong(
                f"{where}: {path} came back as {got.dtype}, not in the dtype it was saved in.",
                "Loading onto a device changes where each tensor lives, never its dtype: leave the dtypes as the file has them.",
            )
        if device.type != "meta" and not torch.equal(got.cpu(), original):
            raise Wrong(f"{where}: {path} has different values.")
        return
    if isinstance(original, (dict, list)):
        if type(got) is not type(original) or len(got) != len(original):
            raise Wrong(f"{where}: {path} came back as {got!r}; the file holds a {type(original).__name__} of {len(original)} there.")
        keys = original.keys() if isinstance(original, dict) else range(len(original))
        for key in keys:
            if isinstance(original, dict) and key not in got:
                raise Wrong(f"{where}: {path} lost the key {key!r}.")
            _nested_follows(where, got[key], original[key], device, f"{path}[{key!r}]")
        return
    if type(got) is not type(original) or got != original:
        raise Wrong(f"{where}: {path} was {original!r} and came back as {got!r}.")


# --------------------------------------------------------------------------- try-its of the lesson


class _StaysPut:
    """A module that refuses to move once built: the try-it asks for the input to move, not the model.

    Moving a ``meta`` model to the CPU would raise PyTorch's NotImplementedError ("Cannot copy out of
    meta tensor"), which the check would take for an untouched stub; this says what happened instead."""

    def to(self, *args, **kwargs):
        device = torch._C._nn._parse_to(*args, **kwargs)[0]
        if device is not None and torch.device(device).type != next(self.parameters()).device.type:
            home = next(self.parameters()).device
            raise _ModelMoved(home, torch.device(device))
        return super().to(*args, **kwargs)

    def cpu(self):
        return self.to("cpu")

    def cuda(self, device=None):
        return self.to("cuda" if device is None else torch.device("cuda", device) if isinstance(device, int) else device)


class _ModelMoved(RuntimeError):
    """Raised by the check's model, not by the learner's code: the answer tried to move the model."""

    def __init__(self, home: torch.device, to: torch.device):
        super().__init__(f"the model was asked to move from {home} to {to}")
        self.home, self.to = home, to


class Linear(_StaysPut, nn.Linear):
    pass


class Sequential(_StaysPut, nn.Sequential):
    pass


def _model(kind: str, device: str) -> nn.Module:
    """The same small model every time (its own generator: the learner's random state stays as it was)."""
    model = Linear(3, 2) if kind == "linear" else Sequential(nn.Linear(3, 2), nn.ReLU())
    generator = torch.Generator().manual_seed(5)
    with torch.no_grad():
        for parameter in model.parameters():
            parameter.copy_(torch.randn(parameter.shape, generator=generator))
    return nn.Module.to(model, device)


@try_it(
    "05.a",
    "Call the model on its own device",
    "call_model",
    kind="function",
    hint="A module has no `.device`; its parameters do.",
)
def _call_model(call_model) -> str:
    devices = ["meta", "cpu"] + accelerator_targets()
    x_cpu = torch.arange(6.0).reshape(2, 3)
    for kind in ("linear", "sequential"):
        for model_device in devices:
            for x_device in devices:
                if x_device == "meta" and model_device != "meta":
                    continue  # a meta tensor has no data to move: nobody can fix that case
                model = _model(kind, model_device)
                x = x_cpu.to(x_device)
                case = f"With the model on {model_device} and x on {x_device}"
                try:
                    got = tensor_answer(call(call_model, model, x), "call_model(model, x)")
                except LearnerRaised as raised:
                    if isinstance(raised.exc, _ModelMoved):
                        raise Wrong(
                            f"{case}, your function tried to move the model to {raised.exc.to} (the check's "
                            "model refuses to move). Leave the model where it is and move the input.",
                            "Moving a model is slow and changes it for every later call: move `x` instead.",
                        ) from None
                    raise Wrong(
                        f"{case}, your code raised {type(raised.exc).__name__}: {raised.exc}{learner_line(raised.exc)}",
                        "A device name typed into the function fits some cases only: the model itself knows where it is, through what it holds.",
                    ) from None
                moved = {str(p.device) for p in model.parameters()} - {str(torch.device(model_device))}
                if moved:
                    raise Wrong(
                        f"{case}, your function moved the model to {', '.join(sorted(moved))}. Leave the model where it is and move the input.",
                        "Moving a model is slow and changes it for every later call: move `x` instead.",
                    )
                if got.device != torch.device(model_device):
                    raise Wrong(
                        f"{case}, the output is on {got.device}; it should be on the model's device, {model_device}.",
                        "Do not type a device name: ask the model where it lives, through what it holds.",
                    )
                if tuple(got.shape) != (2, 2):
                    raise Wrong(
                        f"call_model returned a tensor of shape {tuple(got.shape)}; the model's output has "
                        "shape (2, 2). Return `model(...)` of the moved input."
                    )
                if model_device != "meta":
                    expected = _model(kind, "cpu")(x_cpu)
                    if not torch.allclose(got.detach().cpu(), expected.detach()):
                        raise Wrong(
                            f"With the model on {model_device} and x on {x_device}, the output has the wrong "
                            "values. Call the model on `x` itself, only moved."
                        )
    return "The input follows the model, wherever each one lives (" + ", ".join(devices) + ")."


# The checkpoint the lesson writes: an nn.Linear(3, 1)'s state, saved on a GPU.
LESSON_STATE = {"weight": ((1.0, 2.0, 3.0),), "bias": (0.5,)}


@try_it(
    "05.b",
    "Load a GPU checkpoint onto the CPU",
    "state",
    hint="torch.load has an argument that says where every tensor should land, whatever device the file names.",
)
def _state(state) -> str:
    if type(state) is not dict:
        raise Wrong(
            f"`state` should be the whole state dict that torch.load returns (a dict), but it is a {type(state).__name__}.",
            "Keep the result of torch.load(...) as it is, without indexing it."
            if isinstance(state, torch.Tensor)
            else "Bind to `state` what torch.load(...) returns when it reads the lesson's `checkpoint` bytes.",
        )
    if set(state) != set(LESSON_STATE):
        raise Wrong(f"`state` has the keys {sorted(map(str, state))}; the checkpoint holds {sorted(LESSON_STATE)}.")
    for key, values in LESSON_STATE.items():
        tensor = tensor_answer(state[key], f"state[{key!r}]")
        if tensor.device != torch.device("cpu"):
            raise Wrong(
                f"state[{key!r}] is on {tensor.device}; it should be on the CPU.",
                "The place torch.load puts every tensor is yours to choose; this one was chosen wrong."
                if tensor.device.type == "meta"
                else "torch.load puts each tensor where the file says unless told otherwise: one of its "
                "arguments says where every tensor should land.",
            )
        if tensor.dtype != torch.float32:
            raise Wrong(
                f"state[{key!r}] is {tensor.dtype}; the checkpoint saved it as torch.float32.",
                "Keep the tensors as torch.load gives them: only where they land should change.",
            )
        if not torch.equal(tensor, torch.tensor(values)):
            raise Wrong(
                f"state[{key!r}] holds {tensor.tolist()}, not the saved {list(values)}.",
                "Load the bytes in `checkpoint` from the lesson, unchanged.",
            )
    return "Every tensor of the GPU checkpoint is on the CPU, with its saved values."
