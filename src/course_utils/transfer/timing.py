"""Honest timing of work that may run asynchronously: synchronize, read the clock, work, synchronize, read the clock.

Lesson: notebook 06 (transfers and timing). A CUDA call returns when the work is *queued*,
not when it is done; reading the clock right after it measures the launch, not the work. So
every timed block here is bracketed by ``synchronize()``: before (so earlier queued work does
not leak in) and after (so this block's work is finished when the clock is read). On the CPU
``synchronize`` is a no-op, because CPU work is done when the call returns.

The clock and the synchronize function are parameters, so tests (and the course's simulated
device, ``course_utils.transfer.fake``) can inject their own.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

import torch

from course_utils.display import require_int

Clock = Callable[[], float]
Synchronize = Callable[[], None]
Progress = Callable[[int, int], None]


def no_sync() -> None:
    """Nothing to wait for: CPU work is finished when the call returns."""


def synchronizer(device: str | torch.device) -> Synchronize:
    """The function that waits for all work queued on ``device``; a no-op for the CPU.

    CPU: ``no_sync``. CUDA: ``torch.cuda.synchronize(device)`` (waits for every stream of that
    GPU). MPS and XPU: their own ``synchronize``. Never touches CUDA on a machine without it.
    """
    dev = torch.device(device)
    if dev.type == "cpu":
        return no_sync
    if dev.type == "cuda":
        return lambda: torch.cuda.synchronize(dev)
    if dev.type == "mps":
        return torch.mps.synchronize
    if dev.type == "xpu":
        return lambda: torch.xpu.synchronize(dev)
    return lambda: torch.accelerator.synchronize(dev)  # any other accelerator; every supported torch has it


@dataclass(frozen=True)
class Instruments:
    """What a measurement reads the time with, waits with, and reports to; tests inject their own.

    ``synchronize=None``: the device's own (``synchronizer(device)``; ``no_sync`` where no device is
    named, as in ``time_blocks``). ``progress(done, total)``, when given, is called after each step.
    """

    clock: Clock = time.perf_counter
    synchronize: Synchronize | None = None
    progress: Progress | None = None


@dataclass(frozen=True)
class Timing:
    """How to time one measurement: the blocks (or the budget to plan them from), threads, instruments.

    ``repeats``/``number`` (timed blocks, calls per block) are planned from ``budget_s`` when not
    given; ``warmup`` untimed calls come first. ``num_threads``: torch's intra-op threads while timing
    (``None``: the measurement's default).
    """

    budget_s: float = 0.5
    repeats: int | None = None
    number: int | None = None
    warmup: int = 1
    num_threads: int | None = None
    instruments: Instruments = Instruments()


def time_blocks(
    fn: Callable[[], object],
    *,
    repeats: int,
    number: int = 1,
    warmup: int = 1,
    instruments: Instruments = Instruments(),  # noqa: B008 (frozen dataclass: one shared default is safe)
) -> tuple[float, ...]:
    """Seconds per call of ``fn``, one sample per timed block of ``number`` calls.

    Runs ``fn`` ``warmup`` times untimed (first calls pay one-off costs: page faults, caches,
    lazy initialisation), then ``repeats`` blocks, each bracketed by ``synchronize()``
    (``instruments.synchronize``, or ``no_sync`` when it is None).
    """
    clock, progress = instruments.clock, instruments.progress
    synchronize = no_sync if instruments.synchronize is None else instruments.synchronize
    for name, value in (("repeats", repeats), ("number", number)):
        require_int(name, value, expected="must be an integer, 1 or more", hint="plan_blocks() picks both for a time budget.")
    require_int("warmup", warmup, minimum=0, expected="must be an integer, 0 or more", hint="The default, 1, pays the one-off costs.")
    for _ in range(warmup):
        fn()
    samples = []
    for i in range(repeats):
        synchronize()  # nothing queued before this block may be counted in it
        start = clock()
        for _ in range(number):
            fn()
        synchronize()  # the block's work is finished before the clock is read
        samples.append((clock() - start) / number)
        if progress is not None:
            progress(i + 1, repeats)
    return tuple(samples)


def estimate_call(fn: Callable[[], object], *, clock: Clock = time.perf_counter, synchronize: Synchronize = no_sync) -> float:
    """The time of one synchronized call of ``fn`` (call after a warm-up), to plan the blocks."""
    synchronize()
    start = clock()
    fn()
    synchronize()
    return clock() - start


def plan_blocks(estimate_s: float, budget_s: float) -> tuple[int, int]:
    """``(number, repeats)``: calls per block and blocks, for a call that takes ``estimate_s``.

    A block holds enough calls to last 1 ms (so the clock's resolution and the synchronize calls
    are negligible), at most 10,000; then as many blocks as ``budget_s`` allows, at least 3 (a
    median and a spread need several) and at most 30.
    Big copies therefore get one copy per block and few blocks; small ones many of each.
    """
    if not (budget_s > 0):
        raise ValueError(f"budget_s must be a positive number of seconds, got {budget_s!r}.")
    estimate_s = max(float(estimate_s), 1e-9)
    number = max(1, min(10_000, math.ceil(1e-3 / estimate_s - 1e-9)))  # 1e-9: float noise
    repeats = max(3, min(30, math.floor(budget_s / (number * estimate_s))))
    return number, repeats
