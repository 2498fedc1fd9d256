"""Run a lesson's own program on a simulated machine with GPUs, and show the result labelled as a simulation.

Lesson: notebook 04 (the current CUDA device). Its programs need two GPUs; on a laptop the real
run shows SKIPPED or "no CUDA". ``on_simulated_gpus(program)`` runs the same function again on the
simulated machine the exercises' checks use (``checks.machines.simulated``), where torch.cuda's
current device moves as torch/cuda/__init__.py moves it, and new CUDA tensors land where
torch/utils/_device.py and ``_get_device_index`` put them. It returns a frozen ``SimulatedRun``
whose every view says SIMULATED and names those source files: never a GPU run.

What is simulated: ``torch.cuda.current_device``, ``set_device``, ``device``, ``device_of``,
``device_count``, ``is_available``; where a factory (``torch.ones(2, device="cuda")``, one inside a
``with torch.device(...)`` block), ``.cuda()``, ``.to()`` and ``.cpu()`` put a tensor (its data
stays in host memory; only its device is simulated). What is not: streams, memory statistics,
moving a module's parameters, operations that mix devices (they stop with an error that says so).
Nothing of the real machine changes, and nothing simulated outlives the call.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch
from torch.overrides import TorchFunctionMode, _get_current_function_mode_stack
from torch.utils._device import DeviceContext, _device_constructors
from torch.utils._pytree import tree_flatten

from course_utils.checks.machines import SimulatedMachine, simulated
from course_utils.display import CAUTION, LINE_BREAK, card, markup, pre, tag

# The files of the installed torch that the simulation follows (tests/test_simulation.py reads each).
SOURCES = ("torch/cuda/__init__.py", "torch/cuda/_utils.py", "torch/utils/_device.py")


@dataclass(frozen=True)
class SimulatedRun:
    """What a program returned on a simulated machine with ``gpus`` GPUs: a simulation, not a run."""

    program: str  # the call, as written: "switch_for_a_block(1)"
    value: Any  # what it returned (plain data: numbers, strings, a ScopeTrace; never a simulated tensor)
    gpus: int
    start: int  # the current CUDA device when it started
    here: str  # what this machine really has, for the line beside the simulation

    @property
    def title(self) -> str:
        return f"SIMULATED (built from PyTorch's source: {', '.join(SOURCES)})"

    @property
    def label(self) -> str:
        return f"{self.title}, not a run: {self.program} on {self.gpus} simulated GPUs, cuda:{self.start} current at the start"

    def __str__(self) -> str:
        return f"{self.label}\n{self.value!r}\n(this machine: {self.here})"

    def __repr__(self) -> str:
        return str(self)

    def _repr_html_(self) -> str:
        shown = getattr(self.value, "_repr_html_", None)
        body = markup(shown()) if shown is not None else pre(repr(self.value))
        return card(
            CAUTION,
            self.title,
            ", not a run: ",
            tag("code", self.program),
            f" on {self.gpus} simulated GPUs, cuda:{self.start} current at the start",
            LINE_BREAK,
            body,
            tag("i", f"this machine: {self.here}"),
        )


def on_simulated_gpus(program: Callable[..., Any], *args: Any, gpus: int = 2, start: int = 0) -> SimulatedRun:
    """Run ``program(*args)`` on a simulated machine with ``gpus`` GPUs and ``cuda:start`` current (notebook 04).

    The program is the lesson's own function, the one its real cell runs where there are GPUs. It
    should return plain data (``str(t.device)``, not ``t``): a simulated tensor means nothing
    outside the simulation, so returning one is refused.
    """
    if not callable(program):
        raise TypeError(
            f"on_simulated_gpus expects a function to run, got {type(program).__name__}: {program!r}. "
            "Pass the function itself: on_simulated_gpus(set_device_in_scopes), without ()."
        )
    if not isinstance(gpus, int) or isinstance(gpus, bool) or gpus < 1:
        raise ValueError(f"gpus should be a whole number of GPUs, 1 or more, got {gpus!r}. Try gpus=2.")
    if not isinstance(start, int) or isinstance(start, bool) or not 0 <= start < gpus:
        raise ValueError(f"start should be the index of one of the {gpus} simulated GPUs (0 to {gpus - 1}), got {start!r}.")
    here = f"CUDA with {torch.cuda.device_count()} GPU(s)" if torch.cuda.is_available() else "no CUDA, so the real run above could not show this"
    machine = SimulatedMachine(f"{gpus} simulated GPUs", cuda=gpus, mps=False, current=start)
    with simulated(machine), _SimulatedPlacement():
        value = program(*args)
    shown = ", ".join(getattr(a, "__name__", None) or repr(a) for a in args)
    call = f"{getattr(program, '__name__', 'program')}({shown})"
    leaked = [leaf for leaf in tree_flatten(value)[0] if isinstance(leaf, _SimulatedCudaTensor)]
    if leaked:
        raise ValueError(
            f"{call} returned a tensor on simulated {leaked[0].device}: outside the simulation it means nothing. Return str(t.device) instead."
        )
    return SimulatedRun(call, value, gpus, start, here)


# --------------------------------------------------------------------------- tensors on simulated GPUs


class _SimulatedCudaTensor(torch.Tensor):
    """A host-memory tensor that says it is on ``cuda:<index>``; one subclass per index (``_on``)."""

    index = 0

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        # == and not `is`: each read of a property's __get__ makes a new method-wrapper object
        if func == torch.Tensor.device.__get__:
            return torch.device("cuda", cls.index)
        if func == torch.Tensor.is_cuda.__get__:
            return True
        if func is torch.Tensor.get_device:
            return cls.index
        _refuse_mixed_devices(func, args, kwargs or {})
        return super().__torch_function__(func, types, args, kwargs)


@functools.cache
def _on(index: int) -> type[_SimulatedCudaTensor]:
    return type(f"OnSimulatedCuda{index}", (_SimulatedCudaTensor,), {"index": index})


def _device_of(t: torch.Tensor) -> str:
    return f"cuda:{type(t).index}" if isinstance(t, _SimulatedCudaTensor) else str(torch.Tensor.device.__get__(t))


def _refuse_mixed_devices(func, args, kwargs) -> None:
    # A CPU tensor with no dimensions may join a GPU one (PyTorch copies it); any other mix raises there.
    tensors = [t for t in tree_flatten((args, kwargs))[0] if isinstance(t, torch.Tensor)]
    devices = sorted({_device_of(t) for t in tensors if isinstance(t, _SimulatedCudaTensor) or t.dim() > 0})
    if len(devices) > 1:
        raise RuntimeError(
            f"simulated machine: {getattr(func, '__name__', func)} mixes tensors on {' and '.join(devices)}. "
            "Real PyTorch raises a RuntimeError for that (lesson 05); the simulation does not run it."
        )


def _plain(t: torch.Tensor) -> torch.Tensor:
    with torch._C.DisableTorchFunctionSubclass():
        return torch.Tensor.clone(t)  # a copy into host memory, as from a GPU


def _cuda_index(device: torch.device) -> int:
    # torch.cuda._get_device_index(device, optional=True): a CUDA device without an index is the current one
    index = torch.cuda._get_device_index(device, optional=True)
    count = torch.cuda.device_count()
    if not 0 <= index < count:
        raise RuntimeError(
            f"simulated machine: there is no cuda:{index}, it has {count} GPU(s); a real one raises a CUDA error (invalid device ordinal)"
        )
    return index


def _moved(t: torch.Tensor, device: torch.device) -> torch.Tensor:
    if device.type != "cuda" and not isinstance(t, _SimulatedCudaTensor):
        return torch.Tensor.to(t, device)  # a real move (to meta, or the CPU): this mode is off inside its handler
    if isinstance(t, torch.nn.Parameter):
        raise RuntimeError(
            "simulated machine: moving a module's parameters is not simulated (the module would keep "
            "them in host memory and say so); the lesson's programs move tensors only."
        )
    if device.type != "cuda":
        return _plain(t).to(device)
    index = _cuda_index(device)
    if isinstance(t, _SimulatedCudaTensor) and type(t).index == index:
        return t
    return _plain(t).as_subclass(_on(index))


def _default_device() -> torch.device | None:
    # The innermost `with torch.device(...)` or set_default_device (torch/utils/_device.py, DeviceContext)
    contexts = [m for m in _get_current_function_mode_stack() if isinstance(m, DeviceContext)]
    return contexts[-1].device if contexts else None


class _SimulatedPlacement(TorchFunctionMode):
    """Puts new and moved tensors on the simulated GPUs where PyTorch would put them on real ones."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = dict(kwargs or {})
        if func in _device_constructors():
            asked = kwargs.get("device") if kwargs.get("device") is not None else _default_device()
            if asked is not None and torch.device(asked).type == "cuda":
                index = _cuda_index(torch.device(asked))
                return func(*args, **{**kwargs, "device": "cpu"}).as_subclass(_on(index))
            return func(*args, **kwargs)
        if func is torch.Tensor.cuda:
            asked = args[1] if len(args) > 1 else kwargs.get("device")
            return _moved(args[0], torch.device("cuda", _cuda_index(torch.device("cuda") if asked is None else _as_cuda(asked))))
        if func is torch.Tensor.cpu:
            return _moved(args[0], torch.device("cpu"))
        if func is torch.Tensor.to:
            return _to(args[0], args[1:], kwargs, func)
        return func(*args, **kwargs)


def _as_cuda(asked) -> torch.device:
    return torch.device("cuda", asked) if isinstance(asked, int) else torch.device(asked)


def _to(t: torch.Tensor, args: tuple, kwargs: dict, func) -> torch.Tensor:
    if args and isinstance(args[0], torch.Tensor):  # t.to(other): other's device and dtype
        device, dtype = args[0].device, args[0].dtype
    else:
        device, dtype, _, _ = torch._C._nn._parse_to(*args, **kwargs)
    if device is None:  # a dtype change only: the tensor stays where it is
        return func(t, *args, **kwargs)
    moved = _moved(t, device)
    return moved.to(dtype) if dtype is not None else moved  # this mode is off inside its own handler: no loop
