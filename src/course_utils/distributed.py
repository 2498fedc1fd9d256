"""One process per device: the small helpers a torchrun script uses to choose its device.

Lesson: notebook 08 (one process per device). Pure functions, testable with made-up machines:
``local_rank_from(env)`` reads ``LOCAL_RANK``; ``device_for_rank(local_rank, count)`` gives
``cuda:LOCAL_RANK`` (or the CPU when there is no GPU); ``backend_for(device)`` names the
collective backend (``nccl`` for CUDA, ``gloo`` for the CPU); ``ddp_device_ids(device)`` is
what ``DistributedDataParallel(device_ids=...)`` wants (``[i]`` for ``cuda:i``, ``None`` for
the CPU). ``local_accelerator()`` asks this machine which accelerator, if any, can run one
process per device, device-agnostically (``torch.accelerator`` where it exists);
``use_device(device)`` makes it the process's current device; ``shared_devices`` finds ranks that
chose the same GPU; ``checksum`` and ``source_quote`` help a notebook show what happened.

Launching ``torchrun`` from a notebook, safely, is ``course_utils.launch``.

On a CPU-only machine everything here works (gloo, CPU tensors); on a machine with as many GPUs
as processes the same scripts use NCCL with one GPU per process.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

import torch

from course_utils.devices import usable_accelerator
from course_utils.display import require_int

# --------------------------------------------------------------------------- choosing the device


def local_rank_from(env: Mapping[str, str] | None = None) -> int:
    """``LOCAL_RANK`` from an environment (``os.environ`` by default), as an int.

    torchrun sets it to 0, 1, ... for the processes of one machine. When it is absent the
    script was started as plain ``python script.py``: one process, local rank 0.
    """
    env = os.environ if env is None else env
    raw = env.get("LOCAL_RANK")
    if raw is None:
        return 0
    try:
        value = int(str(raw).strip())
    except ValueError:
        raise ValueError(
            f"LOCAL_RANK should be a whole number such as '0' or '1', but it is {raw!r}. "
            "torchrun sets it for you: launch with `python -m torch.distributed.run ...` and do not set it by hand."
        ) from None
    if value < 0:
        raise ValueError(f"LOCAL_RANK should be 0 or more, but it is {value}. Let torchrun set it.")
    return value


def device_for_rank(local_rank: int, count: int, kind: str = "cuda") -> torch.device:
    """The device of the process with this ``local_rank`` on a machine with ``count`` devices.

    ``count == 0`` (no GPU): the CPU, for every process. Otherwise ``kind:local_rank``: one
    device per process. More processes than devices is a mistake (two processes would share
    one GPU), so it raises ``ValueError`` instead of wrapping round.
    """
    require_int("local_rank", local_rank, minimum=0, expected="should be an int, 0 or more", hint="Read it with local_rank_from().")
    require_int("count", count, minimum=0, expected="should be the number of devices (an int, 0 or more)",
                hint="kind, count = local_accelerator() gives both.")
    if count == 0 or kind == "cpu":
        return torch.device("cpu")
    if local_rank >= count:
        raise ValueError(
            f"local rank {local_rank} has no {kind} device of its own: this machine has {count} "
            f"({kind}:0 to {kind}:{count - 1}). Start at most {count} processes per machine "
            f"(`--nproc-per-node {count}`), one per device."
        )
    return torch.device(kind, local_rank)


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


def ddp_device_ids(device: torch.device | str) -> list[int] | None:
    """What ``DistributedDataParallel(module, device_ids=...)`` wants for a module on ``device``.

    ``[i]`` for a module on ``cuda:i`` (one device per process); ``None`` for a CPU module, as
    DDP's documentation requires ("For multi-device modules and CPU modules, device_ids must be
    None").
    """
    device = torch.device(device)
    if device.type == "cpu":
        return None
    if device.index is None:
        raise ValueError(
            f"{device} has no index, so it does not say which GPU: pass the process's own device, e.g. "
            f"torch.device('{device.type}', local_rank)."
        )
    return [device.index]


def shared_devices(assignments: Mapping[int, Any]) -> dict[str, list[int]]:
    """The accelerators that more than one rank chose, with those ranks: ``{"cuda:0": [0, 1]}``.

    ``assignments`` maps a rank to its device (a ``torch.device`` or a string). CPU processes may
    share the CPU, so ``cpu`` is never reported. NCCL refuses the rest ("Duplicate GPU detected").
    """
    by_device: dict[str, list[int]] = {}
    for rank, device in assignments.items():
        device = torch.device(device)
        if device.type in ("cpu", "meta"):
            continue
        if device.index is None:
            device = torch.device(device.type, 0)  # torch.device("cuda") means the current device: cuda:0 unless set
        by_device.setdefault(str(device), []).append(rank)
    return {d: sorted(ranks) for d, ranks in sorted(by_device.items()) if len(ranks) > 1}


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
