"""Which device to use: decide it once, carry it everywhere after.

Lesson: notebook 01 (device query) teaches the idiom by hand, with PyTorch's own API:

    device = torch.accelerator.current_accelerator() if torch.accelerator.is_available() else torch.device("cpu")

then ``device = pick_device()``, the same choice said in words; every later lesson's first code cell
makes it, and its cells carry ``device`` (``.to(device)``, ``map_location=device``, the gates of its
GPU cells: ``needs_accelerator(device, ...)``). Each name here has one job:

- ``usable_accelerator()``: the accelerator torch can use here (CUDA with its index, MPS, XPU), or None.
- ``pick_device()``: a notebook's device, decided once and said in words (``choose_device``: the words).
- ``check_device(device)``: a device a caller named, checked against this machine before any work.
- ``as_device`` and ``same_place``: reading a device a caller passed in.

"The accelerator" is never torch's *default device* (where factories create tensors, notebooks 02 and
04): that one is ``scopes.default_device()``. What the machine has lives in ``machine``, the report
in ``machine_report``, what of the course it can run in ``readiness``, and the GPU cells' gates
(``needs_cuda``, ``needs_accelerator``) in ``gates``: import those from their modules (or from
``course_utils``).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from course_utils.machine import MachineFacts, collect_facts


def as_device(value, where: str) -> torch.device:
    """``value`` as a ``torch.device``, or a clear error naming ``where`` it came from."""
    if isinstance(value, torch.device):
        return value
    if isinstance(value, str):
        try:
            return torch.device(value)
        except RuntimeError as exc:
            raise ValueError(f"{where}: {value!r} is not a device name ({exc}). Try 'cpu', 'cuda:0' or 'meta'.") from None
    raise TypeError(f"{where} expects a device name or torch.device, got a {type(value).__name__}: {value!r}.")


def same_place(have: torch.device, want: torch.device) -> bool:
    """Whether ``have`` satisfies ``want``: a device without an index matches any of its type."""
    if have.type != want.type:
        return False
    return want.index is None or have.index == want.index


def usable_accelerator() -> torch.device | None:
    """The accelerator torch can use on this machine, or None: notebook 01's idiom, as a function.

    ``torch.accelerator.current_accelerator(check_available=True)`` (CUDA, MPS, XPU, ...; None on
    a CPU-only build and on a CUDA build without a driver). Its device has no index; a CUDA device
    gets the current one here, so a later change of the current device changes nothing. Silent,
    and it reads no ``MachineFacts``: helpers (the transfer lab, torchrun scripts) call it.
    """
    accelerator = torch.accelerator.current_accelerator(check_available=True)
    if accelerator is None:
        return None
    if accelerator.type == "cuda":
        return torch.device("cuda", torch.cuda.current_device())
    return accelerator


@dataclass(frozen=True)
class DeviceChoice:
    """The device to use and, in words, why that one."""

    device: str
    reason: str

    def __str__(self) -> str:
        return f"Using {self.device}: {self.reason}"


def choose_device(facts: MachineFacts | None = None, prefer: str | None = None) -> DeviceChoice:
    """The words behind ``pick_device``: CUDA if present (the current device), else an Intel XPU, else Apple MPS,
    else the CPU.

    Pure over ``facts``, so tests describe machines they do not have. ``prefer`` names a device to
    use when this machine has it ("cpu" always works); when it does not, the choice falls back and
    the reason says so, instead of failing later.
    """
    f = facts if facts is not None else collect_facts()
    fallback_note = ""
    if prefer is not None:
        preferred = _preferred(_wanted(prefer), prefer, f)
        if isinstance(preferred, DeviceChoice):
            return preferred
        fallback_note = preferred
    if f.gpus:
        index = f.current_cuda_index or 0
        name = f.gpus[index].name if index < len(f.gpus) else "GPU"
        return DeviceChoice(f"cuda:{index}", fallback_note + f"CUDA is available ({name}, the current device)")
    if f.xpus:
        index = f.current_xpu_index or 0
        return DeviceChoice(f"xpu:{index}", fallback_note + f"no CUDA, but an Intel GPU is available through XPU ({f.xpus[0].name})")
    if f.mps_available:
        return DeviceChoice("mps", fallback_note + "no CUDA, but Apple's MPS backend is available")
    return DeviceChoice("cpu", fallback_note + "no CUDA, XPU or MPS device is available, so the CPU (every cell still runs)")


def _wanted(prefer: str) -> torch.device:
    try:
        return torch.device(prefer)
    except (RuntimeError, TypeError) as exc:
        raise ValueError(
            f"prefer={prefer!r} is not a device ({exc}). Try 'cpu', 'cuda', 'cuda:0', 'xpu' or 'mps' "
            "(NVIDIA GPUs are 'cuda', never 'gpu'), or leave prefer out to choose automatically."
        ) from None


def _preferred(wanted: torch.device, prefer: str, f: MachineFacts) -> DeviceChoice | str:
    """The device ``prefer`` names if this machine has it, else the note that says why the choice falls back."""
    if wanted.type == "cpu":
        return DeviceChoice("cpu", "asked for the CPU")
    if wanted.type == "mps":
        return (
            DeviceChoice("mps", "asked for mps, and it is available")
            if f.mps_available
            else (f"asked for {prefer}, but this machine does not have it; ")
        )
    current = {"cuda": f.current_cuda_index, "xpu": f.current_xpu_index}.get(wanted.type)
    devices = {"cuda": f.gpus, "xpu": f.xpus}.get(wanted.type, ())
    if not devices:
        return f"asked for {prefer}, but this machine does not have it; "
    index = current if wanted.index is None else wanted.index
    if index is not None and index < len(devices):
        return DeviceChoice(f"{wanted.type}:{index}", f"asked for {prefer}, and it is visible")
    return f"asked for {prefer}, but only {len(devices)} {wanted.type.upper()} device(s) are visible; "


def pick_device(prefer: str | None = None, *, announce: bool = True) -> torch.device:
    """A notebook's device, decided once at its top: CUDA, then XPU, then MPS, then the CPU, saying which and why.

    Lesson: notebook 01 (the course's convenience for the idiom it teaches by hand). A lesson that
    uses it calls it once, in its first code cells, and carries ``device`` from then on.
    """
    choice = choose_device(prefer=prefer)
    if announce:
        print(choice)
    return torch.device(choice.device)


def check_device(device: str | torch.device | None) -> torch.device:
    """``device`` checked against this machine; None: the usable accelerator, else the CPU.

    Lesson: notebook 06 (the transfer lab checks its device once, then passes it on). The caller
    always says which device it means, ``None`` included: with no argument this would be exercise
    01.1's answer, which the package must not hold (tests/test_case_tables.py). A CUDA device
    gets its index (the current device's when none is given); one this machine cannot use is a
    ValueError that says what it has, before any work starts.
    """
    if device is None:
        return usable_accelerator() or torch.device("cpu")
    dev = as_device(device, "device")
    if dev.type == "cuda":
        if not torch.cuda.is_available():
            raise ValueError(
                f"device={str(dev)!r}, but CUDA is not available here (torch {torch.__version__}). "
                "Pass device=None to use what this machine has (the host-memory stand-in on a CPU-only machine)."
            )
        index = torch.cuda.current_device() if dev.index is None else dev.index
        if index >= torch.cuda.device_count():
            raise ValueError(f"device={str(dev)!r}, but only {torch.cuda.device_count()} CUDA device(s) are visible.")
        dev = torch.device("cuda", index)
    elif dev.type == "mps" and not torch.backends.mps.is_available():
        raise ValueError(f"device={str(dev)!r}, but Apple's MPS is not available on this machine.")
    return dev
