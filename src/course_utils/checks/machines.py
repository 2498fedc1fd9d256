"""Simulated machines: run a learner's answer as on a GPU server, a Mac or a laptop, on any machine.

Lesson: the checks of notebooks 01, 09 and 12, whose answers depend on what torch.cuda,
torch.backends.mps (torch.xpu) and torch.accelerator answer (12's also on the wheel: ``SimulatedBuild``), and
the tests of ``preflight`` (``facts()``);
notebook 04's simulated cells (``course_utils.simulation``), which also need the current CUDA device to move.
``simulated(SimulatedMachine(...))`` makes them answer as that machine would, for the length of a block,
and puts everything back (``unittest.mock.patch.multiple``). When grading, the learner's kernel simulates the
grader's ``course_grader.boundary.AskedMachine`` instead: the same fields, each asked of the grader when one of
torch's functions first needs it.
"""

from __future__ import annotations

import contextlib
import contextvars
import types
from dataclasses import dataclass
from unittest.mock import patch

import torch
from torch.overrides import TorchFunctionMode, _get_current_function_mode_stack


@dataclass(frozen=True)
class SimulatedBuild:
    """The wheel a simulated machine runs and its GPU's architecture (lesson: notebook 12).

    Set on a ``SimulatedMachine`` as ``build=``: inside ``simulated(...)`` torch.version.cuda and .hip,
    torch.cuda.get_arch_list(), get_device_capability() and get_device_name() answer from it. A machine
    without one leaves those functions to the installed torch."""

    cuda: str | None = "12.8"  # torch.version.cuda; None on a ROCm wheel
    hip: str | None = None  # torch.version.hip: a ROCm wheel, whose AMD GPUs answer to torch.cuda
    arch_list: tuple[str, ...] = ("sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120")
    gpu_name: str = "NVIDIA H100 80GB HBM3"
    capability: tuple[int, int] = (9, 0)
    xpu: str | None = None  # torch.version.xpu: an Intel XPU wheel


@dataclass(frozen=True)
class SimulatedMachine:
    """A machine as torch's availability functions describe it (lesson: notebook 01)."""

    name: str
    cuda: int  # CUDA devices; 0: none
    mps: bool
    current: int = 0  # the current CUDA device
    no_cuda: str = "cpu-build"  # without CUDA: "cpu-build" (AssertionError) or "no-driver" (RuntimeError)
    xpu: bool = False  # an Intel GPU through torch.xpu
    build: SimulatedBuild | None = None  # the wheel and GPU architecture (notebook 12); None: the installed torch's

    def facts(self, **changes):
        """This machine as ``machine.MachineFacts``, for ``preflight`` and the report (a Mac: macOS 15, arm64).

        ``changes`` override any field: ``mac.facts(mps_available=False, macos_version="13.6")``."""
        from dataclasses import replace

        from course_utils.machine import AcceleratorInfo, MachineFacts

        gpus = tuple(AcceleratorInfo(i, "cuda", "NVIDIA H100 80GB HBM3", (9, 0)) for i in range(self.cuda))
        mps = (AcceleratorInfo(0, "mps", "Apple M2 (Metal)"),) if self.mps else ()
        xpu = (AcceleratorInfo(0, "xpu", "Intel Arc (XPU)"),) if self.xpu and not self.cuda else ()
        mac = {"system": "Darwin", "machine": "arm64", "macos_version": "15.1", "mps_built": True} if self.mps else {}
        facts = MachineFacts(
            torch_version="2.13.0" if self.mps else ("2.13.0+cu128" if self.cuda or self.no_cuda == "no-driver" else "2.13.0+cpu"),
            cuda_build="12.8" if self.cuda or self.no_cuda == "no-driver" else None,
            cuda_available=self.cuda > 0,
            accelerators=gpus + mps + xpu,
            current_cuda_index=self.current if self.cuda else None,
            mps_available=self.mps,
            nvidia_driver_present=self.cuda > 0,
            **mac,
        )
        return replace(facts, **changes)


def _cuda_unavailable(machine: SimulatedMachine) -> BaseException:
    # The errors torch.cuda.current_device() raises there (torch/cuda/__init__.py, _lazy_init):
    # a CPU-only build asserts; a CUDA build without a driver fails in torch._C._cuda_init.
    if machine.no_cuda == "no-driver":
        return RuntimeError(
            "Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and "
            "installed a driver from http://www.nvidia.com/Download/index.aspx"
        )
    return AssertionError("Torch not compiled with CUDA enabled")


class _CurrentDevice:
    """The current CUDA device of one ``simulated`` block: it starts at ``machine.current`` (read when first
    needed) and ends with the block."""

    def __init__(self, machine: SimulatedMachine):
        self.machine = machine
        self._index: int | None = None

    @property
    def index(self) -> int:
        if self._index is None:
            self._index = self.machine.current
        return self._index

    @index.setter
    def index(self, value: int) -> None:
        self._index = value

    def _check(self, index: int) -> None:
        if index >= self.machine.cuda:
            raise RuntimeError(
                f"simulated machine {self.machine.name!r}: there is no cuda:{index}, it has "
                f"{self.machine.cuda} GPU(s); a real one raises a CUDA error (invalid device ordinal)"
            )

    def exchange(self, index: int) -> int:
        """torch.cuda._exchange_device and _maybe_exchange_device (torch/csrc/cuda/Module.cpp): a negative
        index is a no-op that returns -1; otherwise make ``index`` current and return the one it replaced.
        (``maybe`` differs only in when the driver makes a context: the index a program reads is the same.)"""
        if index < 0:
            return -1
        self._check(index)
        previous, self.index = self.index, index
        return previous

    def set_device(self, device) -> None:
        """torch.cuda.set_device, line for line: no-op for a negative index, else torch._C._cuda_setDevice."""
        from torch.cuda._utils import _get_device_index

        index = _get_device_index(device)
        if index >= 0:
            self._check(index)
            self.index = index


# The machine a checker's ``with simulated(...)`` block is simulating in this thread, so that the grader's
# judge (course_grader.boundary) can re-enter the same one in the kernel around the learner's call.
_ACTIVE: contextvars.ContextVar[SimulatedMachine | None] = contextvars.ContextVar("simulated_machine", default=None)


def active_machine() -> SimulatedMachine | None:
    """The machine the innermost ``simulated(...)`` block of this thread simulates, or None outside one."""
    return _ACTIVE.get()


@contextlib.contextmanager
def unannounced():
    """For the length of a block, ``active_machine()`` names no machine (a kernel starts with none announced)."""
    token = _ACTIVE.set(None)
    try:
        yield
    finally:
        _ACTIVE.reset(token)


class NoSimulatedGPUs(TorchFunctionMode):
    """Around the learner's call in exercises 04.1 to 04.3: a simulated machine with GPUs refuses to start.

    Their answers are the scoping rules themselves; running the program on the simulated GPUs would
    hand them over. A mode (it passes every call through) so that the grader's judge
    (course_grader.boundary) re-enters it in the kernel, around the answer, as it does other course modes."""

    def __init__(self, exercise: str):
        super().__init__()
        self.exercise = exercise

    def __torch_function__(self, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))


@contextlib.contextmanager
def simulated(machine: SimulatedMachine, announce: bool = True):
    """Make torch's availability functions answer as ``machine`` would, for the length of a block.

    The answer is then run as on that machine, whatever this one is; everything is put back on
    the way out (``unittest.mock.patch.multiple``, whatever happened inside). ``announce=False`` (the
    grader's kernel): ``active_machine()`` does not name it, so code in the block learns the machine only
    from torch's functions. Entering reads none of the machine's fields: each function reads what it needs
    when it is called, so ``machine`` may be any object with a ``SimulatedMachine``'s fields (the grader's
    ``AskedMachine`` asks the judge for each one then)."""
    refused = [m for m in _get_current_function_mode_stack() if isinstance(m, NoSimulatedGPUs)]
    if refused and machine.cuda:
        raise RuntimeError(
            f"the simulated GPUs are switched off while exercise {refused[0].exercise} is checked: "
            "its answer is the rules themselves. Work them out from the lesson (parts 2 to 5)."
        )
    state = _CurrentDevice(machine)

    def cuda_available() -> bool:
        return machine.cuda > 0

    def cuda_count() -> int:
        return machine.cuda

    def current_device() -> int:
        if machine.cuda == 0:
            raise _cuda_unavailable(machine)
        return state.index

    def mps_available() -> bool:
        return machine.mps

    def xpu_available() -> bool:
        return machine.xpu

    # The current device moves as torch/cuda/__init__.py moves it: torch.cuda.device and device_of call these
    # two on entry and exit, set_device calls torch._C._cuda_setDevice. On a machine without CUDA, torch's own.
    moves = {
        name: _on_gpus(machine, getattr(torch.cuda, name), own)
        for name, own in (("_exchange_device", state.exchange), ("_maybe_exchange_device", state.exchange), ("set_device", state.set_device))
    }
    with contextlib.ExitStack() as stack:
        if announce:
            token = _ACTIVE.set(machine)
            stack.callback(_ACTIVE.reset, token)
        stack.enter_context(
            patch.multiple(torch.cuda, is_available=cuda_available, device_count=cuda_count, current_device=current_device, **moves)
        )
        stack.enter_context(_built_as(machine, state))
        stack.enter_context(patch.multiple(torch.backends.mps, is_available=mps_available, is_built=_mps_built(machine)))
        if hasattr(torch, "xpu"):
            stack.enter_context(patch.multiple(torch.xpu, is_available=xpu_available))
        accelerator = getattr(torch, "accelerator", None)
        if accelerator is not None and hasattr(accelerator, "current_accelerator"):
            stack.enter_context(patch.multiple(accelerator, **_accelerator_answers(machine)))
        yield machine


def _mps_built(machine):
    """``torch.backends.mps.is_built`` as on ``machine``: a Mac's torch is built with MPS (an answer that asks
    is_built() before is_available() is right there); elsewhere this torch's own answer."""
    own = torch.backends.mps.is_built
    return lambda: bool(machine.mps) or own()


def _on_gpus(machine, torchs, simulated_one):
    """``simulated_one`` where ``machine`` has CUDA devices, torch's own function ``torchs`` where it has none."""

    def move(*args, **kwargs):
        return (simulated_one if machine.cuda else torchs)(*args, **kwargs)

    return move


class _Version(types.ModuleType):
    """``torch.version`` inside a ``simulated`` block: ``cuda``, ``hip`` and ``xpu`` from the machine's build,
    read when asked (the installed torch's where the machine has no build); anything else from torch's own."""

    def __init__(self, machine, own):
        super().__init__(own.__name__, own.__doc__)
        self._machine, self._own = machine, own

    def _from_build(self, field: str):
        build = self._machine.build
        return getattr(self._own, field, None) if build is None else getattr(build, field)

    cuda = property(lambda self: self._from_build("cuda"))
    hip = property(lambda self: self._from_build("hip"))
    xpu = property(lambda self: self._from_build("xpu"))

    def __getattr__(self, name: str):
        return getattr(self._own, name)


@contextlib.contextmanager
def _built_as(machine: SimulatedMachine, state: _CurrentDevice):
    """torch.version and torch.cuda's build and device questions answered from ``machine.build`` (notebook 12),
    or by the installed torch where the machine has none; the build is read when one of them is asked."""
    own = {name: getattr(torch.cuda, name) for name in ("get_arch_list", "get_device_capability", "get_device_name", "get_device_properties")}

    def index(device) -> int:
        from torch.cuda._utils import _get_device_index

        i = _get_device_index(device, optional=True)
        i = state.index if i < 0 else i
        if machine.cuda == 0:
            raise _cuda_unavailable(machine)
        state._check(i)
        return i

    def arch_list() -> list[str]:
        build = machine.build
        return own["get_arch_list"]() if build is None else list(build.arch_list)

    def capability(device=None) -> tuple[int, int]:
        if machine.build is None:
            return own["get_device_capability"](device)
        index(device)
        return machine.build.capability

    def name(device=None) -> str:
        if machine.build is None:
            return own["get_device_name"](device)
        index(device)
        return machine.build.gpu_name

    def properties(device=None):
        """The GPU's name and capability, as get_device_properties(i).name, .major and .minor give them."""
        if machine.build is None:
            return own["get_device_properties"](device)
        index(device)
        major, minor = machine.build.capability
        return types.SimpleNamespace(name=machine.build.gpu_name, major=major, minor=minor)

    with (
        patch.object(torch, "version", _Version(machine, torch.version)),
        patch.multiple(
            torch.cuda, get_arch_list=arch_list, get_device_capability=capability, get_device_name=name, get_device_properties=properties
        ),
    ):
        yield


def _accelerator_answers(machine: SimulatedMachine) -> dict:
    """What ``torch.accelerator``'s ``is_available``, ``current_accelerator`` and ``device_count`` answer on ``machine``."""

    def is_available() -> bool:
        return machine.cuda > 0 or machine.mps or machine.xpu

    def current_accelerator(check_available: bool = False):
        kind = "cuda" if machine.cuda else "mps" if machine.mps else "xpu" if machine.xpu else None
        usable = torch.device(kind) if kind else None
        if usable is None and not check_available and machine.no_cuda == "no-driver":
            # A CUDA build names the accelerator it is built for even where none works
            # (torch/accelerator/__init__.py: check_available=False skips the run-time check).
            return torch.device("cuda")
        return usable

    def device_count() -> int:
        return machine.cuda or int(machine.mps or machine.xpu)

    return {"is_available": is_available, "current_accelerator": current_accelerator, "device_count": device_count}
