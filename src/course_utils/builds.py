"""Which GPU, which build: what a wheel was built for, whether it has kernels for a GPU, and CUDA's numbering.

Lesson: notebook 12 (which GPU, which build). ``read_build()`` reads the installed torch (its CUDA or ROCm
version, cuDNN, the architectures it was compiled for); ``kernels_for`` says which entry of an arch list runs
on a GPU of a given capability; ``torch_build_warnings`` runs PyTorch's own start-up checks
(``torch/cuda/__init__.py``: ``_check_capability`` and ``_check_cubins``) as if a GPU were present and
returns the warnings they give; ``visible_indices`` runs PyTorch's own reading of ``CUDA_VISIBLE_DEVICES``
(``_parse_visible_devices``) on a string; ``cuda_devices`` numbers a ``Server``'s GPUs as a CUDA program
sees them under ``CUDA_DEVICE_ORDER`` and ``CUDA_VISIBLE_DEVICES``. Everything runs on a CPU-only machine:
the GPUs are data, the code that reads them is the installed PyTorch's.
"""

from __future__ import annotations

import contextlib
import os
import re
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from unittest.mock import patch

import torch

_ARCH = re.compile(r"(?P<kind>sm|compute)_(?P<major>\d+)(?P<minor>\d)(?P<suffix>[af]?)")
ORDERS = ("FASTEST_FIRST", "PCI_BUS_ID")  # CUDA_DEVICE_ORDER's values; FASTEST_FIRST is CUDA's default


@dataclass(frozen=True)
class Build:
    """What the installed torch was built for, as torch itself reports it (notebook 12, part 1)."""

    torch: str  # torch.__version__: "2.13.0+cpu", "2.7.1+cu126", "2.5.1+rocm6.2"
    cuda: str | None  # torch.version.cuda: the CUDA toolkit it was built with; None on CPU and ROCm wheels
    hip: str | None  # torch.version.hip: set on ROCm wheels, whose AMD GPUs answer to torch.cuda
    xpu: str | None  # torch.version.xpu where the release has it: set on Intel XPU wheels
    cudnn: int | None  # torch.backends.cudnn.version(): None where the wheel has no cuDNN
    arch_list: tuple[str, ...]  # torch.cuda.get_arch_list(): the GPU architectures with compiled kernels

    @property
    def platform(self) -> str:
        """ "ROCm 6.2", "CUDA 12.6", "XPU", or "CPU only": the GPUs this wheel can drive at all."""
        if self.hip:
            return f"ROCm {self.hip.split('-')[0]}"
        if self.cuda:
            return f"CUDA {self.cuda}"
        return "XPU" if self.xpu else "CPU only"


def read_build() -> Build:
    """The installed torch's build: no GPU is needed, none is touched (on torch 2.7.1 the arch list is empty
    until CUDA is available; from 2.13.0 a CUDA wheel lists it without a GPU)."""
    cudnn = torch.backends.cudnn.version() if torch.backends.cudnn.is_available() else None
    return Build(
        torch.__version__, torch.version.cuda, torch.version.hip, getattr(torch.version, "xpu", None), cudnn, tuple(torch.cuda.get_arch_list())
    )


def _parse_arch(arch: str) -> re.Match:
    match = _ARCH.fullmatch(arch)
    if match is None:
        raise ValueError(
            f"{arch!r} is not an NVIDIA architecture as torch.cuda.get_arch_list() writes them "
            "('sm_86', 'sm_90a', 'compute_90'); a ROCm build lists gfx targets ('gfx90a'), which "
            "match the GPU's gcnArchName by name."
        )
    return match


def kernels_for(arch_list: Sequence[str], capability: tuple[int, int]) -> str | None:
    """The entry of ``arch_list`` whose kernels run best on a GPU of ``capability`` (major, minor), or None.

    NVIDIA's rule: code built for sm_XY runs on capability X.Z for Z >= Y (same major only; the nearest minor is
    chosen); an "a" or "f" entry (sm_90a) runs on exactly that capability; PTX (compute_XY) is compiled by the
    driver for any capability from X.Y up. Jetson's integrated GPUs (5.3, 6.2, 7.2, 8.7) are exceptions this
    leaves out."""
    major, minor = capability
    binary, ptx = [], []
    for arch in arch_list:
        m = _parse_arch(arch)
        built = (int(m["major"]), int(m["minor"]))
        if m["kind"] == "compute":
            if built <= capability:
                ptx.append((built, arch))
        elif built == capability or (not m["suffix"] and built[0] == major and built[1] <= minor):
            binary.append((built, not m["suffix"], arch))  # the exact one first, then the nearest older minor
    if binary:
        return max(binary)[2]
    return max(ptx)[1] if ptx else None


@contextlib.contextmanager
def _as_if_gpu(name: str, capability: tuple[int, int], arch_list: Sequence[str], cuda: str):
    """torch.cuda answers as a CUDA ``cuda`` wheel built for ``arch_list`` on one GPU ``name`` would."""
    # the version a CUDA wheel of this release carries, so that the advice in the warnings reads as there
    tagged = f"{torch.__version__.split('+')[0]}+cu{cuda.replace('.', '')}"
    with (
        patch.object(torch.version, "cuda", cuda),
        patch.object(torch.version, "hip", None),
        patch.object(torch, "__version__", tagged),
        patch.multiple(
            torch.cuda,
            get_arch_list=lambda: list(arch_list),
            device_count=lambda: 1,
            get_device_capability=lambda device=None: capability,
            get_device_name=lambda device=None: name,
        ),
    ):
        yield


def torch_build_warnings(name: str, capability: tuple[int, int], arch_list: Sequence[str], cuda: str = "12.6") -> tuple[str, ...]:
    """The warnings the installed PyTorch's own start-up checks give for one GPU ``name`` of ``capability`` on a
    wheel built for ``arch_list``: ``torch.cuda._check_capability`` and ``_check_cubins`` are run as they are,
    with torch.cuda answering for that GPU. A check that needs a CUDA wheel's library (2.7.1 reads the compiled
    CUDA version) is left out on a wheel without it; an empty tuple: no warning, the wheel has kernels."""
    seen: list[str] = []
    for check in ("_check_capability", "_check_cubins"):
        fn = getattr(torch.cuda, check, None)
        if fn is None:
            continue
        with warnings.catch_warnings(record=True) as caught, _as_if_gpu(name, capability, arch_list, cuda):
            warnings.simplefilter("always")
            try:
                fn()
            except AttributeError as exc:  # torch._C._cuda_getCompiledVersion: only in CUDA wheels
                if "_cuda_" not in str(exc):
                    raise
        seen += [str(w.message).strip() for w in caught]
    return tuple(seen)


def visible_indices(cuda_visible_devices: str | None, hip: bool = False, **rocm: str) -> list:
    """What PyTorch reads from ``CUDA_VISIBLE_DEVICES`` (``torch.cuda._parse_visible_devices``, run as it is).

    ``None``: the variable unset. Ordinals come back as ints, UUIDs (GPU-..., MIG-...) as strings. ``hip=True``
    reads as a ROCm build does, where ``HIP_VISIBLE_DEVICES`` and ``ROCR_VISIBLE_DEVICES`` (``rocm``) count too.
    The environment is put back afterwards."""
    names = {"CUDA_VISIBLE_DEVICES": cuda_visible_devices, **rocm}
    unknown = set(rocm) - {"HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES"}
    if unknown:
        raise ValueError(f"visible_indices takes HIP_VISIBLE_DEVICES and ROCR_VISIBLE_DEVICES; got {sorted(unknown)}.")
    saved = {k: os.environ.get(k) for k in ("CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES")}
    try:
        for key in saved:
            os.environ.pop(key, None)
            if names.get(key) is not None:
                os.environ[key] = names[key]
        with patch.object(torch.version, "hip", "6.2" if hip else None):
            return list(torch.cuda._parse_visible_devices())
    finally:
        for key, value in saved.items():
            os.environ.pop(key, None)
            if value is not None:
                os.environ[key] = value


@dataclass(frozen=True)
class Gpu:
    """One physical GPU as nvidia-smi describes it."""

    name: str
    pci_bus_id: str  # "00000000:3B:00.0": nvidia-smi numbers GPUs in this order
    uuid: str  # "GPU-5f1c..."
    capability: tuple[int, int]


@dataclass(frozen=True)
class Server:
    """A machine's GPUs: ``gpus`` in PCI bus order (nvidia-smi's 0, 1, ...), and the order CUDA's default
    (FASTEST_FIRST) enumerates them, as nvidia-smi indices. NVIDIA's FASTEST_FIRST heuristic is not published,
    so a server states it rather than the course guessing it."""

    name: str
    gpus: tuple[Gpu, ...]
    fastest_first: tuple[int, ...]

    def __post_init__(self):
        if sorted(self.fastest_first) != list(range(len(self.gpus))):
            raise ValueError(
                f"Server {self.name!r}: fastest_first must order all of nvidia-smi's indices 0..{len(self.gpus) - 1}; got {self.fastest_first}."
            )

    def nvidia_smi(self) -> list[tuple[int, str, str]]:
        """nvidia-smi's table: (index, name, bus id)."""
        return [(i, g.name, g.pci_bus_id) for i, g in enumerate(self.gpus)]


def cuda_devices(server: Server, env: Mapping[str, str]) -> tuple[Gpu, ...]:
    """The GPUs a CUDA program on ``server`` sees as cuda:0, cuda:1, ... with ``env``'s CUDA_DEVICE_ORDER and
    CUDA_VISIBLE_DEVICES: CUDA first enumerates (by speed, or by PCI bus id), then keeps the listed ones, in the
    listed order, read as PyTorch reads them (``visible_indices``; a UUID or a unique prefix of one picks that GPU)."""
    order = env.get("CUDA_DEVICE_ORDER", "FASTEST_FIRST")
    if order not in ORDERS:
        raise ValueError(f"CUDA_DEVICE_ORDER is FASTEST_FIRST (the default) or PCI_BUS_ID; got {order!r}.")
    enumerated = server.gpus if order == "PCI_BUS_ID" else tuple(server.gpus[i] for i in server.fastest_first)
    visible = visible_indices(env.get("CUDA_VISIBLE_DEVICES"))
    if visible and isinstance(visible[0], str):
        if visible[0].startswith("MIG-"):
            raise ValueError(
                f"server {server.name!r} has no MIG instances; a MIG-... name picks one slice of a GPU "
                "split with MIG (nvidia-smi -L lists them)."
            )
        visible = torch.cuda._transform_uuid_to_ordinals(visible, [g.uuid for g in enumerated])
    kept = []
    for index in visible:
        if index >= len(enumerated):  # CUDA stops at the first ordinal past its GPUs
            break
        kept.append(enumerated[index])
    return tuple(kept)


# The lesson's workstation (notebook 12, part 3): nvidia-smi numbers by bus id, CUDA's default puts the 4090 first.
WORKSTATION = Server(
    "a lab workstation",
    (
        Gpu("NVIDIA RTX A4000", "00000000:01:00.0", "GPU-3f0c9a52-7d1e-4b8a-9c2f-1e5d7a0b6c11", (8, 6)),
        Gpu("NVIDIA GeForce RTX 4090", "00000000:21:00.0", "GPU-8d2e41b7-0a9c-4f6e-b3d1-7c4a2e9f5b22", (8, 9)),
        Gpu("NVIDIA RTX A4000", "00000000:41:00.0", "GPU-c71a0e3d-5b2f-4e8c-a6d9-3f0b8e1c4d33", (8, 6)),
    ),
    fastest_first=(1, 0, 2),
)
