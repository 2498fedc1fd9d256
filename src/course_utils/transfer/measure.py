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
import time

import torch

from course_utils.devices import check_device
from course_utils.display import require_int
from course_utils.transfer.ceilings import link_info
from course_utils.transfer.results import DIRECTIONS, Sweep, Transfer, machine_info
from course_utils.transfer.timing import Clock, Progress, Synchronize, estimate_call, plan_blocks, synchronizer, time_blocks

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
    budget_s: float = 0.5,
    repeats: int | None = None,
    number: int | None = None,
    warmup: int = 1,
    clock: Clock = time.perf_counter,
    synchronize: Synchronize | None = None,
    progress: Progress | None = None,
    buffers: tuple[torch.Tensor, torch.Tensor] | None = None,
    num_threads: int | None = None,
) -> Transfer:
    """Time ``dst.copy_(src, non_blocking=non_blocking)`` for one direction and size.

    ``direction``: "h2d", "d2h", "d2d" or "h2h". ``pinned``: pin the host side (CUDA only).
    ``repeats``/``number`` (timed blocks, copies per block) are planned from ``budget_s`` when
    not given. On the CPU the copy is a host-memory stand-in (see the module docstring).
    ``clock`` and ``synchronize`` are for tests; ``buffers=(dst, src)`` reuses allocated buffers.
    ``num_threads``: torch's intra-op threads while timing; the stand-in defaults to 1 (like
    ``torch.utils.benchmark.Timer``), because a multi-threaded host copy on a busy machine waits
    for descheduled threads and measures the scheduler. Host-device copies do not use them.
    """
    _check_request(direction, nbytes, pinned, non_blocking)
    return _measure(check_device(device), direction, nbytes, pinned, non_blocking, budget_s, repeats, number, warmup,
                    clock, synchronize, progress, buffers, num_threads)


def _measure(dev, direction, nbytes, pinned, non_blocking, budget_s, repeats, number, warmup, clock, synchronize,
             progress, buffers, num_threads) -> Transfer:
    # measure_copy after its checks, on a device already checked once (sweep checks it once for all sizes).
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
    sync = synchronizer(dev) if synchronize is None else synchronize
    dst, src = buffers if buffers is not None else make_buffers(direction, nbytes, dev, bool(pinned))
    if dst.nbytes != nbytes or src.nbytes != nbytes:
        raise ValueError(f"buffers hold {dst.nbytes} and {src.nbytes} bytes, but nbytes={nbytes}; pass buffers of that size.")
    with torch_threads(1 if (stand_in and num_threads is None) else num_threads):
        seconds, number = _time_copy(dst, src, non_blocking, budget_s, repeats, number, warmup, clock, sync, progress)
    return Transfer(direction, nbytes, pinned, non_blocking, str(dev), seconds, stand_in, number)


def _time_copy(dst, src, non_blocking, budget_s, repeats, number, warmup, clock, sync, progress):
    # A partial, not a Python closure: one less Python frame per copy, which matters for 4 KiB.
    one_copy = functools.partial(dst.copy_, src, non_blocking=non_blocking)

    if repeats is None or number is None:
        for _ in range(warmup):
            one_copy()
        estimate = estimate_call(one_copy, clock=clock, synchronize=sync)
        planned_number, planned_repeats = plan_blocks(estimate, budget_s)
        number = planned_number if number is None else number
        repeats = planned_repeats if repeats is None else repeats
        warmup = 0  # already warm
    seconds = time_blocks(one_copy, repeats=repeats, number=number, warmup=warmup, clock=clock,
                          synchronize=sync, progress=progress)
    return seconds, number


def sweep(
    device: str | torch.device | None = None,
    *,
    sizes: tuple[int, ...] | None = None,
    directions: tuple[str, ...] | None = None,
    pinned: tuple[bool, ...] | None = None,
    non_blocking: tuple[bool, ...] = (False, True),
    budget_s: float = 4.5,
    quick: bool = False,
    ask_link: bool = True,
    clock: Clock = time.perf_counter,
    synchronize: Synchronize | None = None,
    progress: Progress | None = None,
) -> Sweep:
    """Measure every variant at every size within about ``budget_s`` seconds (allocation included).

    Defaults: sizes 4 KiB to 256 MiB in powers of 4 (``quick``: up to 16 MiB); directions
    h2d, d2h and d2d on an accelerator, the h2h stand-in without one; pageable and pinned host
    memory on CUDA; blocking and non_blocking. Each variant gets an equal share of the budget
    left, so big copies get few repeats and small ones many (at least 3 each, which may overrun
    a tiny budget). ``progress(done, total)`` is called after each measurement.
    """
    if not (budget_s > 0):
        raise ValueError(f"budget_s must be a positive number of seconds, got {budget_s!r}.")
    dev = check_device(device)  # once: every measurement below uses this device as it is
    stand_in = dev.type == "cpu"
    sizes = tuple(QUICK_SIZES if quick else SIZES) if sizes is None else tuple(sizes)
    if not sizes:
        raise ValueError("sizes is empty; pass at least one size in bytes, e.g. sizes=(4096, 2**20).")
    for size in sizes:
        _check_request("h2d", size, False, False)
    skipped: list[str] = []
    if directions is None:
        directions = ("h2h",) if stand_in else ("h2d", "d2h", "d2d")
    elif stand_in and any(d != "h2h" for d in directions):
        skipped.append(f"{', '.join(d for d in directions if d != 'h2h')}: no accelerator, so every copy is "
                       "the host-memory stand-in (h2h)")
        directions = ("h2h",)
    if pinned is None:
        pinned = (False, True) if can_pin(dev) else (False,)
        if not can_pin(dev):
            skipped.append(f"pinned host memory: this course pins memory for CUDA devices only, and the copies run on {dev}")
    elif True in pinned and not can_pin(dev):
        raise ValueError(f"pinned=(..., True, ...) needs a CUDA device; the copies run on {dev}. Pass pinned=(False,).")

    configs = []
    for size in sorted(sizes):
        for direction in directions:
            for pin in ((None,) if direction == "d2d" else pinned):
                for nb in non_blocking:
                    configs.append((size, direction, pin, nb))
    sync = synchronizer(dev) if synchronize is None else synchronize
    started = clock()
    spent = 0.0
    results = []
    buffers: dict = {}
    for i, (size, direction, pin, nb) in enumerate(configs):
        before = clock()  # allocation counts against the budget too: the sweep must end on time
        key = (size, direction, pin)
        if key not in buffers:
            buffers.clear()  # free the previous buffers before allocating the next
            buffers[key] = make_buffers(direction, size, dev, bool(pin))
        share = max((budget_s - spent - (clock() - before)) / (len(configs) - i), 1e-6)
        results.append(
            _measure(dev, direction, size, pin, nb, share, None, None, 1, clock, sync, None, buffers[key], None)
        )
        spent += clock() - before
        if progress is not None:
            progress(i + 1, len(configs))
    buffers.clear()
    link = link_info(dev.index or 0) if (ask_link and dev.type == "cuda") else None
    return Sweep(tuple(results), machine_info(dev, link), tuple(skipped), budget_s, clock() - started)
