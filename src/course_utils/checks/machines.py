"""Simulated machines: run a learner's answer as on a GPU server, a Mac or a laptop, on any machine.

Lesson: the checks of notebooks 01 and 09, whose answers depend on what torch.cuda,
torch.backends.mps and torch.accelerator answer. ``simulated(SimulatedMachine(...))`` makes them
answer as that machine would, for the length of a block, and puts everything back (``_guard.patched``).
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

import torch

from course_utils.checks._guard import patched


@dataclass(frozen=True)
class SimulatedMachine:
    """A machine as torch's availability functions describe it (lesson: notebook 01)."""

    name: str
    cuda: int  # CUDA devices; 0: none
    mps: bool
    current: int = 0  # the current CUDA device
    no_cuda: str = "cpu-build"  # without CUDA: "cpu-build" (AssertionError) or "no-driver" (RuntimeError)


def _cuda_unavailable(machine: SimulatedMachine) -> BaseException:
    # The errors torch.cuda.current_device() raises there (torch/cuda/__init__.py, _lazy_init):
    # a CPU-only build asserts; a CUDA build without a driver fails in torch._C._cuda_init.
    if machine.no_cuda == "no-driver":
        return RuntimeError("Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and "
                            "installed a driver from http://www.nvidia.com/Download/index.aspx")
    return AssertionError("Torch not compiled with CUDA enabled")


@contextlib.contextmanager
def simulated(machine: SimulatedMachine):
    """Make torch's availability functions answer as ``machine`` would, for the length of a block.

    The answer is then run as on that machine, whatever this one is; everything is put back on
    the way out (``_guard.patched``)."""

    def cuda_available() -> bool:
        return machine.cuda > 0

    def cuda_count() -> int:
        return machine.cuda

    def current_device() -> int:
        if machine.cuda == 0:
            raise _cuda_unavailable(machine)
        return machine.current

    def mps_available() -> bool:
        return machine.mps

    def accelerator_available() -> bool:
        return machine.cuda > 0 or machine.mps

    def current_accelerator(check_available: bool = False):
        usable = torch.device("cuda" if machine.cuda else "mps") if machine.cuda or machine.mps else None
        if usable is None and not check_available and machine.no_cuda == "no-driver":
            # A CUDA build names the accelerator it is built for even where none works
            # (torch/accelerator/__init__.py: check_available=False skips the run-time check).
            return torch.device("cuda")
        return usable

    def accelerator_count() -> int:
        return machine.cuda or int(machine.mps)

    with contextlib.ExitStack() as stack:
        stack.enter_context(patched(torch.cuda, is_available=cuda_available, device_count=cuda_count,
                                    current_device=current_device))
        stack.enter_context(patched(torch.backends.mps, is_available=mps_available))
        accelerator = getattr(torch, "accelerator", None)
        if accelerator is not None and hasattr(accelerator, "current_accelerator"):
            stack.enter_context(patched(accelerator, is_available=accelerator_available,
                                        current_accelerator=current_accelerator, device_count=accelerator_count))
        yield machine
