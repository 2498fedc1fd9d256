"""One process per device: the small helpers around the device choice a torchrun script makes.

Lesson: notebook 08 (one process per device). The choice itself is not here: the lesson's scripts
(``course_utils/scripts``) make it by hand, in the lines a real training script uses
(``torch.device(kind, local_rank)`` when there are devices, else the CPU; ``device_ids=[device.index]``
for DDP on a GPU, ``None`` on the CPU), and the exercises ask the learner to write it: the package
holds no answer to them (``tests/test_case_tables.py`` tries every public function). What is here:
``backend_for(device)`` names the collective backend (``nccl`` for CUDA, ``gloo`` for the CPU);
``local_accelerator()`` asks this machine which accelerator, if any, can run one process per
device, device-agnostically (``torch.accelerator`` where it exists); ``use_device(device)`` makes
it the process's current device; ``checksum`` and ``source_quote`` help a notebook show what happened.

Launching ``torchrun`` from a notebook, safely, is ``course_utils.launch``.

On a CPU-only machine everything here works (gloo, CPU tensors); on a machine with as many GPUs
as processes the same scripts use NCCL with one GPU per process.
"""

from __future__ import annotations

from typing import Any

import torch

from course_utils.devices import usable_accelerator

# --------------------------------------------------------------------------- around the device choice


def _default_backend_map() -> dict[str, str]:
    try:
        import torch.distributed as dist

        return dict(dist.Backend.default_device_backend_map)
    except (ImportError, AttributeError):  # torch without distributed support, or an older layout
        return {"cpu": "gloo", "cuda": "nccl"}


def _backend_capability() -> dict[str, list[str]]:
    try:
        import torch.distributed as dist

        return {k: list(v) for k, v in dist.Backend.backend_capability.items()}
    except (ImportError, AttributeError):
        return {"gloo": ["cpu", "cuda"], "nccl": ["cuda"]}


def backend_for(device: torch.device | str) -> str:
    """The collective backend PyTorch uses by default for tensors on ``device``.

    ``nccl`` for CUDA, ``gloo`` for the CPU (``xccl`` for Intel XPUs), read from
    ``torch.distributed.Backend.default_device_backend_map``.
    """
    kind = torch.device(device).type
    backend = _default_backend_map().get(kind)
    if backend is None:
        known = ", ".join(sorted(_default_backend_map()))
        raise ValueError(
            f"No default collective backend for {kind!r} tensors (PyTorch knows: {known}). "
            "Put the tensors that take part in collectives on this process's device, or on the CPU with gloo."
        )
    return backend


def local_accelerator() -> tuple[str, int]:
    """``(kind, count)`` of the accelerator this machine can run one process per device on.

    ``("cuda", 2)`` on two NVIDIA (or ROCm) GPUs; ``("cpu", 0)`` without an accelerator, or with
    one whose default backend cannot reduce its tensors (Apple's MPS: gloo serves only CPU and
    CUDA tensors, so those processes use the CPU). Asks ``devices.usable_accelerator()``, then
    ``torch.accelerator.device_count()``.
    """
    accelerator = usable_accelerator()
    if accelerator is None:
        return ("cpu", 0)
    kind, count = accelerator.type, torch.accelerator.device_count()
    backend = _default_backend_map().get(kind)
    if kind == "cpu" or backend is None or kind not in _backend_capability().get(backend, []):
        return ("cpu", 0)
    return (kind, count)


def use_device(device: torch.device | str) -> torch.device:
    """Make ``device`` this process's current device (``torch.cuda.set_device`` for CUDA).

    Do it once, right after choosing the device and before ``init_process_group``: from then on
    ``torch.device("cuda")``, ``.cuda()`` and NCCL's own buffers mean this process's GPU, not
    ``cuda:0``. On the CPU there is no current device, so nothing changes.
    """
    device = torch.device(device)
    if device.type == "cuda":
        torch.cuda.set_device(device)
    elif device.type != "cpu":
        torch.accelerator.set_device_index(device.index)
    return device


def checksum(module: torch.nn.Module) -> str:
    """A short fingerprint of a module's parameters, equal on ranks whose parameters are equal."""
    with torch.no_grad():
        total = sum(float(p.detach().double().sum().cpu()) for p in module.parameters())
    return f"{total:.12g}"


def source_quote(obj: Any, phrase: str, lines: int = 3) -> str:
    """``lines`` lines of ``obj``'s source (docstring included) from the first that holds ``phrase``.

    Lets a notebook quote what the installed PyTorch says, rather than a copy that may drift.
    Returns a note, not an error, when this version does not contain the phrase.
    """
    import inspect

    try:
        source = inspect.getsource(obj).splitlines()
    except (OSError, TypeError) as exc:
        return f"(the source of {getattr(obj, '__qualname__', obj)!s} is not available here: {exc})"
    for i, line in enumerate(source):
        if phrase in line:
            return "\n".join(part.strip() for part in source[i : i + lines])
    return f"(this PyTorch's {getattr(obj, '__qualname__', obj)!s} does not contain {phrase!r})"
