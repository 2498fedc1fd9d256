"""What holds memory in a training step, counted in bytes on any device, CPU included.

Lesson: notebook 09 (data loading and device memory). On a GPU, ``torch.cuda.memory_allocated()``
reports the bytes that live tensors occupy (rounded up to the caching allocator's blocks). The
same tensors exist on a CPU, so their bytes can be counted there: parameters, their gradients,
the optimizer's state, and the activations autograd saves for the backward pass
(``torch.autograd.graph.saved_tensors_hooks`` sees each one as it is saved).

- ``storage_bytes(tensors)``: the bytes a set of tensors hold, each storage counted once.
- ``saved_for_backward(fn)``: run ``fn`` and list the tensors autograd saved meanwhile.
- ``step_memory(model, optimizer, x, y)``: one real training step, counted part by part.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

import torch
from torch import nn

from course_utils.display import pre


def _storage_key(t: torch.Tensor) -> tuple:
    # Views share their base's storage; count it once. A meta storage has no address (data_ptr 0),
    # so there each tensor is its own key.
    ptr = t.untyped_storage().data_ptr()
    return (str(t.device), ptr) if ptr else ("object", id(t))


def storage_bytes(tensors: Iterable[torch.Tensor]) -> int:
    """Bytes held by ``tensors``: each distinct storage once (``t.untyped_storage().nbytes()``)."""
    seen: dict[tuple, int] = {}
    for t in tensors:
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"storage_bytes expects tensors; got a {type(t).__name__}. Pass e.g. model.parameters() or a list of tensors.")
        seen.setdefault(_storage_key(t), t.untyped_storage().nbytes())
    return sum(seen.values())


@dataclass(frozen=True)
class SavedTensor:
    """One tensor autograd saved for the backward pass."""

    shape: tuple[int, ...]
    dtype: str
    nbytes: int  # bytes of its storage
    is_parameter: bool  # a parameter saved by reference (already counted with the parameters)


@dataclass(frozen=True)
class SavedForBackward:
    """Every distinct storage autograd saved while ``fn`` ran, and the result of ``fn``."""

    tensors: tuple[SavedTensor, ...]

    @property
    def activation_bytes(self) -> int:
        """Bytes saved that are not parameters: what the graph adds until backward frees it."""
        return sum(t.nbytes for t in self.tensors if not t.is_parameter)

    def __str__(self) -> str:
        lines = [f"{len(self.tensors)} distinct tensors saved for backward; {self.activation_bytes:,} bytes besides the parameters"]
        for t in self.tensors:
            note = "  (a parameter, not extra)" if t.is_parameter else ""
            lines.append(f"  {str(list(t.shape)):>12s} {t.dtype:>14s} {t.nbytes:>10,} bytes{note}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return str(self)

    def _repr_html_(self) -> str:
        return pre(str(self))


def saved_for_backward(fn: Callable[[], torch.Tensor], parameters: Iterable[torch.Tensor] = ()) -> tuple[torch.Tensor, SavedForBackward]:
    """Run ``fn()`` (a forward pass) and return its result and the tensors autograd saved meanwhile.

    ``parameters`` (e.g. ``model.parameters()``) marks saved tensors that share a parameter's
    storage: autograd keeps a reference to the weight, not a copy."""
    if not callable(fn):
        raise TypeError(
            f"saved_for_backward expects a function to run, got a {type(fn).__name__}. "
            "Wrap the forward pass: saved_for_backward(lambda: loss_fn(model(x), y))."
        )
    param_keys = {_storage_key(p) for p in parameters}
    saved: dict[tuple, SavedTensor] = {}

    def pack(t: torch.Tensor) -> torch.Tensor:
        key = _storage_key(t)
        saved.setdefault(key, SavedTensor(tuple(t.shape), str(t.dtype).replace("torch.", ""), t.untyped_storage().nbytes(), key in param_keys))
        return t  # keep the tensor itself: this only looks, it changes nothing

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        out = fn()
    return out, SavedForBackward(tuple(saved.values()))


@dataclass(frozen=True)
class StepMemory:
    """Bytes held at the peak of one training step, part by part (what ``memory_allocated`` would count)."""

    parameters: int
    activations: int  # saved for backward, freed by it
    gradients: int
    optimizer_state: int

    @property
    def after_step(self) -> int:
        """What stays between steps: parameters, gradients (unless set to None) and optimizer state."""
        return self.parameters + self.gradients + self.optimizer_state

    def __str__(self) -> str:
        rows = [
            ("parameters", self.parameters),
            ("activations saved for backward", self.activations),
            ("gradients", self.gradients),
            ("optimizer state", self.optimizer_state),
            ("held between steps", self.after_step),
        ]
        return "\n".join(f"{name:>32s}: {n:>12,} bytes" for name, n in rows)

    def __repr__(self) -> str:
        return str(self)

    def _repr_html_(self) -> str:
        return pre(str(self))


def step_memory(
    model: nn.Module, optimizer: torch.optim.Optimizer, x: torch.Tensor, y: torch.Tensor, loss_fn: Callable = nn.functional.cross_entropy
) -> StepMemory:
    """Run one real training step (the model's parameters change) and count each part's bytes.

    Works on any device, the CPU included: it counts tensors, it does not ask an allocator."""
    if not isinstance(model, nn.Module) or not isinstance(optimizer, torch.optim.Optimizer):
        raise TypeError(
            "step_memory(model, optimizer, x, y) expects an nn.Module and a torch.optim optimizer; "
            f"got {type(model).__name__} and {type(optimizer).__name__}."
        )
    params = list(model.parameters())
    optimizer.zero_grad(set_to_none=True)
    loss, saved = saved_for_backward(lambda: loss_fn(model(x), y), params)
    loss.backward()
    gradients = storage_bytes(p.grad for p in params if p.grad is not None)
    optimizer.step()
    state = [v for s in optimizer.state.values() for v in s.values() if isinstance(v, torch.Tensor)]
    return StepMemory(storage_bytes(params), saved.activation_bytes, gradients, storage_bytes(state))
