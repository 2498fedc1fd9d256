"""Models bigger than one device: their size, a device map for their layers, hooks that move activations.

Lesson: notebook 10 (models bigger than a device). Each helper does one job, and each does what the
lesson first does by hand. The planner that fills a device map from memory budgets (what
``device_map="auto"`` does in accelerate and transformers) is not here: exercise 10.2 asks the learner
to write it, and its reference lives in ``tests/answer_references.py``.

- ``module_bytes(module)``: the bytes a module's parameters and buffers take. It reads shapes
  and dtypes only, so it works on a model built on ``meta``, which has no storage at all.
- ``dispatch(model, device_map)``: moves each named layer to its device and registers a forward
  pre-hook on it that moves the layer's inputs there, the job accelerate's hooks do. Undo with
  ``.remove()`` on the result.
- ``still_on_meta(module)``: the names of the parameters and buffers that have no data yet.

Nothing here names a device: on a CPU-only machine the lesson runs them with ``cpu`` and
``meta``; on one GPU with ``cuda:0`` and ``cpu``; on two with ``cuda:0`` and ``cuda:1``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import torch
from torch import nn
from torch.utils._pytree import tree_map_only

from course_utils.placement import as_device, require_module

if TYPE_CHECKING:
    # Not imported at run time: the checks record this module's names, and RemovableHandle's class
    # counter (next_id) changes with every hook anyone registers, which would read as tampering.
    from torch.utils.hooks import RemovableHandle


def module_bytes(module: nn.Module) -> int:
    """Bytes of ``module``'s parameters and buffers (all of them: a buffer takes memory whether saved or not).

    Works on ``meta`` (numel times element size, no storage needed). A tensor shared by two
    submodules (tied weights) counts once, as ``module.parameters()`` yields it once. Lesson: notebook 10."""
    require_module(module, "module_bytes")
    return sum(t.numel() * t.element_size() for t in [*module.parameters(), *module.buffers()])


@dataclass(frozen=True)
class Dispatched:
    """The result of ``dispatch``: which layer went where, and the hooks that move its inputs.

    End a cell on it to see the map; call ``.remove()`` to take the hooks off again (the layers
    stay where they are)."""

    device_map: tuple[tuple[str, str], ...]  # (layer name, device), in the map's order
    handles: tuple[RemovableHandle, ...]

    def remove(self) -> None:
        for handle in self.handles:
            handle.remove()

    def __str__(self) -> str:
        width = max(len(name) for name, _ in self.device_map)
        lines = [f"{len(self.device_map)} layers, each with a hook that moves its inputs to its device:"]
        lines += [f"  {name:<{width}}  -> {device}" for name, device in self.device_map]
        return "\n".join(lines)

    def __repr__(self) -> str:
        return str(self)


def dispatch(model: nn.Module, device_map: Mapping[str, Any]) -> Dispatched:
    """Move each layer named in ``device_map`` to its device, with a hook that moves its inputs there.

    ``device_map`` is ``{layer name: device}``, written by hand or by a planner (exercise 10.2), as
    ``model.hf_device_map`` shows it in transformers. Each hook is a forward pre-hook: it runs just
    before the layer's ``forward`` and returns the positional and keyword arguments with every
    tensor moved to the layer's device, which is the ``x.to(dev)`` a hand-split forward writes.
    A layer built on ``meta`` stays on ``meta`` only if mapped there: moving it elsewhere needs
    ``to_empty`` and real values first (``Module.to`` raises). Lesson: notebook 10."""
    require_module(model, "dispatch")
    if not isinstance(device_map, Mapping) or not device_map:
        raise TypeError(f"dispatch expects a device map {{layer name: device}}, like {{'0': 'cuda:0', '1': 'cuda:1'}}; got {device_map!r}.")
    modules = dict(model.named_modules())
    unknown = [name for name in device_map if name not in modules]
    if unknown:
        known = ", ".join(repr(n) for n in list(modules)[1:9])
        raise ValueError(
            f"dispatch: the model has no layer named {unknown[0]!r}. Its layers are named {known}, ... (model.named_modules() lists them all)."
        )
    placed, handles = [], []
    for name, device in device_map.items():
        device = as_device(device, f"dispatch(device_map[{name!r}])")
        layer = modules[name]
        layer.to(device)

        def move_inputs(module, args, kwargs, device=device):  # every tensor, in tuples, lists and dicts too
            return tree_map_only(torch.Tensor, lambda t: t.to(device), (args, kwargs))

        handles.append(layer.register_forward_pre_hook(move_inputs, with_kwargs=True))
        placed.append((name, str(device)))
    return Dispatched(tuple(placed), tuple(handles))


def still_on_meta(module: nn.Module) -> tuple[str, ...]:
    """Names of ``module``'s parameters and buffers that are still on ``meta`` (no data yet). Lesson: notebook 10."""
    require_module(module, "still_on_meta")
    tensors = [*module.named_parameters(), *module.named_buffers()]
    return tuple(name for name, t in tensors if t.is_meta)
