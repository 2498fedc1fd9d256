"""What pinning host memory costs, and when it pays for itself.

Lesson: notebook 06 (transfers and timing). A copy from *pageable* host memory to a GPU goes
through a pinned staging buffer inside the driver (an extra host copy, in chunks); a copy from
*pinned* (page-locked) memory is a direct DMA, faster and able to run asynchronously. But
``pin_memory()`` is itself a copy into freshly page-locked memory, so:

- for a **one-off** copy of pageable data, ``pin_memory()`` + pinned copy usually costs *more*
  than the plain pageable copy;
- for **repeated** copies from a buffer you pin once and reuse (a DataLoader with
  ``pin_memory=True``, a staging buffer), pinning pays after a few copies.

PyTorch caches pinned blocks (its caching host allocator), so the first ``pin_memory()`` of a
size in a process pays for page-locking new memory and later ones of that size usually do not;
``PinningCost`` keeps the first call apart from the rest. CUDA only: without an accelerator
there is nothing to pin for (``torch.ones(3).pin_memory()`` raises), and ``measure_pinning``
returns a ``Skipped``.
"""

from __future__ import annotations

import math
import statistics
import time
from dataclasses import dataclass

import torch

from course_utils.devices import check_device
from course_utils.display import markup, table, tag
from course_utils.transfer.measure import MIB, can_pin
from course_utils.transfer.results import Skipped, fmt_bytes, fmt_seconds
from course_utils.transfer.spread import noise_note, with_spread
from course_utils.transfer.timing import Instruments, synchronizer, time_blocks


@dataclass(frozen=True, repr=False)
class PinningCost:
    """The time to pin ``nbytes`` of pageable memory, next to pageable and pinned host-to-device copies."""

    nbytes: int
    device: str
    pin_first_s: float  # the first pin_memory() of this size measured here (may page-lock new memory)
    pin_seconds: tuple[float, ...]  # later pin_memory() calls (usually served from PyTorch's cache)
    pageable_seconds: tuple[float, ...]  # h2d copy from pageable memory
    pinned_seconds: tuple[float, ...]  # h2d copy from pinned memory

    @property
    def pageable(self) -> float:
        return statistics.median(self.pageable_seconds)

    @property
    def pinned(self) -> float:
        return statistics.median(self.pinned_seconds)

    @property
    def one_off_pinned(self) -> float:
        """A one-off copy of pageable data through pinning: pin it (first time), then copy."""
        return self.pin_first_s + self.pinned

    @property
    def one_off_pays(self) -> bool:
        return self.one_off_pinned < self.pageable

    @property
    def breakeven_copies(self) -> float:
        """Copies from one reused pinned buffer after which pinning it once has paid (inf: never)."""
        saved = self.pageable - self.pinned
        return math.inf if saved <= 0 else max(1.0, math.ceil(self.pin_first_s / saved))

    def verdict(self) -> str:
        one_off = (
            f"One-off copy: pin + pinned copy takes {fmt_seconds(self.one_off_pinned)}, the pageable copy "
            f"{fmt_seconds(self.pageable)}: pinning {'pays' if self.one_off_pays else 'does not pay'}."
        )
        if math.isinf(self.breakeven_copies):
            repeated = "Repeated copies: pinned copies were not faster here, so pinning never pays on this machine."
        else:
            repeated = (
                f"Repeated copies from one pinned buffer: each saves {fmt_seconds(self.pageable - self.pinned)}, "
                f"so pinning once pays after {int(self.breakeven_copies)} cop{'y' if self.breakeven_copies == 1 else 'ies'}."
            )
        noise = noise_note(self._sampled())
        return one_off + " " + repeated + ("" if noise is None else " " + noise)

    def _sampled(self) -> dict[str, tuple[float, ...]]:
        return {"later pin_memory() calls": self.pin_seconds, "the pageable copy": self.pageable_seconds, "the pinned copy": self.pinned_seconds}

    def rows(self) -> list[tuple[str, str]]:
        return [
            ("pin_memory(), first call", f"{fmt_seconds(self.pin_first_s)} (1 sample)"),
            ("pin_memory(), later calls (median)", with_spread(self.pin_seconds)),
            ("h2d copy from pageable memory (median)", with_spread(self.pageable_seconds)),
            ("h2d copy from pinned memory (median)", with_spread(self.pinned_seconds)),
        ]

    def __str__(self) -> str:
        lines = [f"Pinning {fmt_bytes(self.nbytes)} for {self.device}:"]
        lines += [f"  {k}: {v}" for k, v in self.rows()]
        return "\n".join(lines + [self.verdict()])

    def __repr__(self) -> str:
        return str(self)

    def _repr_html_(self) -> str:
        return markup(tag("p", tag("b", f"Pinning {fmt_bytes(self.nbytes)} for {self.device}")), table(self.rows()), tag("p", self.verdict()))


def measure_pinning(nbytes: int = 64 * MIB, *, device: str | torch.device | None = None, repeats: int = 5) -> PinningCost | Skipped:
    """Time ``pin_memory()`` and pageable vs pinned host-to-device copies of ``nbytes``.

    Returns ``Skipped`` (falsy, with the reason) where there is nothing to pin for.
    """
    dev = check_device(device)
    if not can_pin(dev):
        return Skipped(
            "the cost of pin_memory()",
            f"pinned memory is for copies to a CUDA GPU, and this runs on {dev}. Here torch.ones(3).pin_memory() "
            "raises; on a GPU this measures pin_memory() against pageable and pinned copies.",
        )
    sync = synchronizer(dev)
    pageable = torch.ones(nbytes, dtype=torch.uint8)
    dst = torch.empty(nbytes, dtype=torch.uint8, device=dev)
    start = time.perf_counter()
    pinned = pageable.pin_memory()
    pin_first_s = time.perf_counter() - start
    pin_seconds = time_blocks(pageable.pin_memory, repeats=repeats, warmup=0)
    pageable_seconds = time_blocks(lambda: dst.copy_(pageable), repeats=repeats, instruments=Instruments(synchronize=sync))
    pinned_seconds = time_blocks(lambda: dst.copy_(pinned), repeats=repeats, instruments=Instruments(synchronize=sync))
    return PinningCost(nbytes, str(dev), pin_first_s, pin_seconds, pageable_seconds, pinned_seconds)
