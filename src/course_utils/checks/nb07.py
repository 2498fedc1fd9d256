"""Try-it checks of notebook 07, claims checked: ask a tensor where it is, and move input to a model.

Both run on any machine: ``meta`` stands in for a second device, and ``07.b`` also runs the
learner's function where both sides are on the CPU, so values can be compared there.
"""

from __future__ import annotations

import torch
from torch import nn

from course_utils.checks._core import LearnerRaised, Wrong, call, tensor_answer, try_it


@try_it(
    "07.a",
    "Where a tensor lives",
    name="where",
    hint="Every tensor carries its device as an attribute.",
    writes="your line of Python",
)
def _where(value) -> str:
    if isinstance(value, torch.cuda.device_of):
        raise Wrong(
            "`where` is a torch.cuda.device_of object: a context manager, not a device (claim A1).", "Read the tensor's own attribute: m.device."
        )
    if isinstance(value, bool):
        raise Wrong(f"`where` is {value}, a bool: is_cuda says whether, not where.", "m.device says where.")
    if isinstance(value, int):
        raise Wrong(f"`where` is {value}, an int: get_device() gives -1 off CUDA and says nothing of meta.", "m.device says where.")
    if not isinstance(value, torch.device):
        raise Wrong(f"`where` is a {type(value).__name__}; expected a torch.device.", "m.device")
    if value != torch.device("meta"):
        raise Wrong(f"`where` is {value}, but `m` lives on meta.", "Ask `m` itself: m.device.")
    return "Right: m.device is meta. device_of(m) would be a context manager, not an answer."


def _model(device: str, kind: str = "linear") -> nn.Module:
    # float32, while the batch is float64: .to(device) keeps its dtype. A Sequential has no .weight of its own
    if kind == "sequential":
        return nn.Sequential(nn.Linear(3, 2, device=device), nn.ReLU())
    return nn.Linear(3, 2, device=device)


@try_it(
    "07.b",
    "Input on the model's device",
    name="to_model",
    kind="function",
    hint="A model has no .device of its own; its parameters do.",
)
def _to_model(fn) -> str:
    batch = torch.arange(12, dtype=torch.float64).reshape(4, 3)
    for kind, device in (("linear", "meta"), ("linear", "cpu"), ("sequential", "meta"), ("sequential", "cpu")):
        try:
            got = tensor_answer(call(fn, _model(device, kind), batch.clone()), "to_model(net, batch)")
        except LearnerRaised as raised:
            if kind == "sequential" and isinstance(raised.exc, AttributeError):
                raise Wrong(
                    f"With an nn.Sequential on {device}, your code raised {type(raised.exc).__name__}: {raised.exc}. "
                    "`.weight` and `.bias` belong to a layer; a model made of layers has none of its own.",
                    "Ask for the device of one of the model's parameters, whatever the model is made of.",
                ) from None
            raise
        if got.device != torch.device(device):
            raise Wrong(
                f"With the model ({kind}) on {device}, to_model returned a tensor on {got.device}.",
                "A device typed into the function fits one model only: ask the model where it lives, through what it holds.",
            )
        if got.shape != batch.shape or got.dtype != batch.dtype:
            raise Wrong(
                f"to_model returned shape {tuple(got.shape)}, {got.dtype}; expected the batch itself "
                f"({tuple(batch.shape)}, {batch.dtype}), moved.",
                "batch.to(device)",
            )
        if device == "cpu" and not torch.equal(got, batch):
            raise Wrong(
                "With the model on the CPU, to_model returned other values than the batch.",
                "Move the batch with .to(...); do not make a new tensor.",
            )
    return "Right: the batch follows the model, wherever the model is."
