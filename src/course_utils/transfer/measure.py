"""Measure copies between host and device the honest way, one at a time or as a sweep over sizes.

Lesson: notebook 06 (transfers and timing). The method: allocate the source and the
destination once, warm up, then time ``dst.copy_(src, non_blocking=...)`` in blocks bracketed
by ``synchronize()``, and keep every sample (``timing.time_blocks``). Allocation is never
timed: it is a different cost from the copy.

- One GPU or several: ``device`` picks which (default: ``devices.check_device(None)``, the usable
  accelerator), checked once.
  Pinned host memory is used on CUDA devices only.
- No accelerator: every copy becomes a **host-memory stand-in**, a CPU-to-CPU copy, recorded
  as ``direction="h2h", stand_in=True`` so that nothing downstream mistakes it for PCIe.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable
from dataclasses import dataclass, replace

import torch

from course_utils.devices import check_device
from course_utils.display import require_int
from course_utils.transfer.ceilings import link_info
from course_utils.transfer.results import DIRECTIONS, Sweep, Transfer, machine_info
from course_utils.transfer.timing import Instruments, Synchronize, Timing, estimate_call, plan_blocks, synchronizer, time_blocks

KIB, MIB = 2**10, 2**20
# 4 KiB to 256 MiB in powers of 4: from "all latency" to "all bandwidth".
SIZES = tuple(4 * KIB * 4**k for k in range(9))
QUICK_SIZES = tuple(s for s in SIZES if s <= 16 * MIB)


def can_pin(device: str | torch.device) -> bool:
    """Whether this course pins host memory for copies to ``device``: CUDA devices only."""
    return torch.device(device).type == "cuda" and torch.cuda.is_available()


@contextlib.contextmanager
def torch_threads(n: int | None):
    """Run with ``n`` intra-op threads, restoring the previous number afterwards (``None``: leave it)."""
    before = torch.get_num_threads()
    if n is not None:
        torch.set_num_threads(n)
    try:
        yield
    finally:
        if n is not None:
            torch.set_num_threads(before)


def _check_request(direction: str, nbytes: int, pinned, non_blocking) -> None:
    if direction not in DIRECTIONS:
        raise ValueError(f"direction must be one of {DIRECTIONS}, got {direction!r}.")
    require_int("nbytes", nbytes, expected="must be a positive integer number of bytes", hint="For example 4 * 2**20 for 4 MiB.")
    if pinned not in (True, False, None):
        raise TypeError(f"pinned must be True, False or None, got {pinned!r}.")
    if not isinstance(non_blocking, bool):
        raise TypeError(f"non_blocking must be True or False, got {non_blocking!r}.")


@dataclass(frozen=True)
class _Copy:
    """One copy as it will be measured: the fields a ``Transfer`` records besides its timings."""

    direction: str
    nbytes: int
    pinned: bool | None
    non_blocking: bool
    device: torch.device

    @property
    def stand_in(self) -> bool:
        return self.device.type == "cpu"


def _fit_copy(dev: torch.device, direction: str, nbytes: int, pinned, non_blocking: bool) -> _Copy:
    """The copy asked for, on ``dev`` as it is: the h2h stand-in without an accelerator, ``pinned=None`` for d2d."""
    stand_in = dev.type == "cpu"
    if stand_in:
        direction = "h2h"
    if direction == "d2d":
        if pinned:
            raise ValueError("pinned=True makes no sense for a d2d copy: it has no host side. Pass pinned=None.")
        pinned = None
    elif pinned and not can_pin(dev):
        raise ValueError(
            f"pinned=True needs a CUDA device; the copy runs on {dev}, where this course does not pin memory"
            + (" (no accelerator: the copy is a host-memory stand-in)." if stand_in else ".")
            + " Pass pinned=False."
        )
    else:
        pinned = bool(pinned)
    return _Copy(direction, nbytes, pinned, non_blocking, dev)


def make_buffers(direction: str, nbytes: int, device: torch.device, pinned: bool) -> tuple[torch.Tensor, torch.Tensor]:
    """``(dst, src)`` for one copy, allocated and written once (so no page fault is timed later)."""
    host = torch.device("cpu")

    def host_buffer(fill: int) -> torch.Tensor:
        t = torch.empty(nbytes, dtype=torch.uint8, device=host, pin_memory=pinned)
        return t.fill_(fill)

    def device_buffer(fill: int) -> torch.Tensor:
        return torch.full((nbytes,), fill, dtype=torch.uint8, device=device)

    if direction == "h2h" or device.type == "cpu":
        return host_buffer(0), host_buffer(1)
    if direction == "h2d":
        return device_buffer(0), host_buffer(1)
    if direction == "d2h":
        return host_buffer(0), device_buffer(1)
    return device_buffer(0), device_buffer(1)  # d2d


def measure_copy(
    direction: str = "h2d",
    nbytes: int = 16 * MIB,
    *,
    device: str | torch.device | None = None,
    pinned: bool | None = False,
    non_blocking: bool = False,
    timing: Timing = Timing(),  # noqa: B008 (frozen dataclass: one shared default is safe)
) -> Transfer:
    """Time ``dst.copy_(src, non_blocking=non_blocking)`` for one direction and size, in fresh buffers.

    ``direction``: "h2d", "d2h", "d2d" or "h2h". ``pinned``: pin the host side (CUDA only).
    ``timing``: the blocks, the budget they are planned from, threads, and the clock and
    synchronize (for tests). On the CPU the copy is a host-memory stand-in (see the module
    docstring). To time buffers you already have, use ``time_copy(dst, src)``.
    """
    _check_request(direction, nbytes, pinned, non_blocking)
    copy = _fit_copy(check_device(device), direction, nbytes, pinned, non_blocking)
    return _measure(copy, make_buffers(copy.direction, nbytes, copy.device, bool(copy.pinned)), timing)


def time_copy(dst: torch.Tensor, src: torch.Tensor, *, non_blocking: bool = False, timing: Timing = Timing()) -> Transfer:  # noqa: B008 (frozen dataclass: one shared default is safe)
    """Time ``dst.copy_(src, non_blocking=non_blocking)`` into buffers already allocated, as ``measure_copy`` does.

    The direction, device and pinning are read from the tensors: both on the CPU is the h2h stand-in,
    a CPU side is the host side (``pinned`` is whether it is pinned), two accelerator tensors are d2d.
    """
    if not (isinstance(dst, torch.Tensor) and isinstance(src, torch.Tensor)):
        raise TypeError(f"time_copy needs two tensors, dst and src; got {type(dst).__name__} and {type(src).__name__}.")
    if dst.nbytes != src.nbytes:
        raise ValueError(
            f"dst holds {dst.nbytes} bytes and src {src.nbytes}; pass buffers of the same size "
            "(e.g. dst = torch.empty_like(src, device=device))."
        )
    if not isinstance(non_blocking, bool):
        raise TypeError(f"non_blocking must be True or False, got {non_blocking!r}.")
    host_dst, host_src = dst.device.type == "cpu", src.device.type == "cpu"
    direction = {(True, True): "h2h", (False, True): "h2d", (True, False): "d2h", (False, False): "d2d"}[(host_dst, host_src)]
    dev = src.device if host_dst else dst.device
    host = dst if host_dst else src
    pinned = None if direction == "d2d" else (direction != "h2h" and host.is_pinned())
    return _measure(_Copy(direction, src.nbytes, pinned, non_blocking, dev), (dst, src), timing)


def _measure(copy: _Copy, buffers: tuple[torch.Tensor, torch.Tensor], timing: Timing) -> Transfer:
    # One copy, checked, into its buffers; sweep calls this once per variant on a device checked once.
    dst, src = buffers
    sync = synchronizer(copy.device) if timing.instruments.synchronize is None else timing.instruments.synchronize
    # the stand-in defaults to 1 thread (like torch.utils.benchmark.Timer): a multi-threaded host copy
    # on a busy machine waits for descheduled threads and measures the scheduler
    threads = 1 if (copy.stand_in and timing.num_threads is None) else timing.num_threads
    with torch_threads(threads):
        seconds, number = _time_copy(functools.partial(dst.copy_, src, non_blocking=copy.non_blocking), timing, sync)
    return Transfer(copy.direction, copy.nbytes, copy.pinned, copy.non_blocking, str(copy.device), seconds, copy.stand_in, number)


def _time_copy(one_copy: Callable[[], object], timing: Timing, sync: Synchronize) -> tuple[tuple[float, ...], int]:
    # ``one_copy`` is a partial, not a Python closure: one less Python frame per copy, which matters for 4 KiB.
    repeats, number, warmup = timing.repeats, timing.number, timing.warmup
    instruments = replace(timing.instruments, synchronize=sync)
    if repeats is None or number is None:
        for _ in range(warmup):
            one_copy()
        estimate = estimate_call(one_copy, clock=instruments.clock, synchronize=sync)
        planned_number, planned_repeats = plan_blocks(estimate, timing.budget_s)
        number = planned_number if number is None else number
        repeats = planned_repeats if repeats is None else repeats
        warmup = 0  # already warm
    return time_blocks(one_copy, repeats=repeats, number=number, warmup=warmup, instruments=instruments), number


@dataclass(frozen=True)
class Variants:
    """What a ``sweep`` measures; ``None`` picks what this device can do.

    ``sizes``: bytes (default: 4 KiB to 256 MiB in powers of 4, or to 16 MiB with ``quick``);
    ``directions``: h2d, d2h and d2d on an accelerator, the h2h stand-in without one; ``pinned``:
    pageable and pinned host memory on CUDA; ``non_blocking``: both.
    """

    sizes: tuple[int, ...] | None = None
    directions: tuple[str, ...] | None = None
    pinned: tuple[bool, ...] | None = None
    non_blocking: tuple[bool, ...] = (False, True)


def _plan_sweep(dev: torch.device, variants: Variants, quick: bool) -> tuple[list[_Copy], list[str]]:
    """Every copy a sweep measures on ``dev``, smallest first, and what was left out and why."""
    stand_in = dev.type == "cpu"
    sizes = tuple(QUICK_SIZES if quick else SIZES) if variants.sizes is None else tuple(variants.sizes)
    if not sizes:
        raise ValueError("sizes is empty; pass at least one size in bytes, e.g. sizes=(4096, 2**20).")
    for size in sizes:
        _check_request("h2d", size, False, False)
    skipped: list[str] = []
    directions = variants.directions
    if directions is None:
        directions = ("h2h",) if stand_in else ("h2d", "d2h", "d2d")
    elif stand_in and any(d != "h2h" for d in directions):
        skipped.append(f"{', '.join(d for d in directions if d != 'h2h')}: no accelerator, so every copy is the host-memory stand-in (h2h)")
        directions = ("h2h",)
    pinned = variants.pinned
    if pinned is None:
        pinned = (False, True) if can_pin(dev) else (False,)
        if not can_pin(dev):
            skipped.append(f"pinned host memory: this course pins memory for CUDA devices only, and the copies run on {dev}")
    elif True in pinned and not can_pin(dev):
        raise ValueError(f"pinned=(..., True, ...) needs a CUDA device; the copies run on {dev}. Pass pinned=(False,).")
    copies = [
        _Copy(direction, size, pin, nb, dev)
        for size in sorted(sizes)
        for direction in directions
        for pin in ((None,) if direction == "d2d" else pinned)
        for nb in variants.non_blocking
    ]
    return copies, skipped


def sweep(
    device: str | torch.device | None = None,
    *,
    quick: bool = False,
    budget_s: float = 4.5,
    variants: Variants = Variants(),  # noqa: B008 (frozen dataclass: one shared default is safe)
    instruments: Instruments = Instruments(),  # noqa: B008 (frozen dataclass: one shared default is safe)
) -> Sweep:
    """Measure every variant at every size within about ``budget_s`` seconds (allocation included).

    ``variants`` (``Variants``) says what to measure; by default sizes 4 KiB to 256 MiB in powers of 4
    (``quick``: up to 16 MiB), every direction, pinning and non_blocking this device has. Each variant
    gets an equal share of the budget left, so big copies get few repeats and small ones many (at
    least 3 each, which may overrun a tiny budget). ``instruments``: the clock and synchronize (for
    tests), and ``progress(done, total)``, called after each measurement.
    """
    if not (budget_s > 0):
        raise ValueError(f"budget_s must be a positive number of seconds, got {budget_s!r}.")
    dev = check_device(device)  # once: every measurement below uses this device as it is
    copies, skipped = _plan_sweep(dev, variants, quick)
    clock = instruments.clock
    each = Timing(instruments=Instruments(clock, synchronizer(dev) if instruments.synchronize is None else instruments.synchronize))
    started = clock()
    spent = 0.0
    results = []
    buffers: dict = {}
    for i, copy in enumerate(copies):
        before = clock()  # allocation counts against the budget too: the sweep must end on time
        key = (copy.nbytes, copy.direction, copy.pinned)
        if key not in buffers:
            buffers.clear()  # free the previous buffers before allocating the next
            buffers[key] = make_buffers(copy.direction, copy.nbytes, dev, bool(copy.pinned))
        share = max((budget_s - spent - (clock() - before)) / (len(copies) - i), 1e-6)
        results.append(_measure(copy, buffers[key], replace(each, budget_s=share)))
        spent += clock() - before
        if instruments.progress is not None:
            instruments.progress(i + 1, len(copies))
    buffers.clear()
    link = link_info(dev.index or 0) if dev.type == "cuda" else None
    return Sweep(tuple(results), machine_info(dev, link), tuple(skipped), budget_s, clock() - started)
