"""The non_blocking device-to-host pitfall: reading host memory before the copy into it has finished.

Lesson: notebook 06 (transfers and timing). ``cpu_dst.copy_(gpu_src, non_blocking=True)`` into
*pinned* memory (and ``gpu_tensor.to("cpu", non_blocking=True)``, which allocates pinned memory
for its result) only *queues* the copy and returns. The host can then read ``cpu_dst`` while
the GPU has not written it yet, and see the old values: no error, just wrong numbers. The fix is
to synchronize (the stream, an event recorded after the copy, or the device) before reading.

``detect_stale_read`` runs a copy, reads the destination at once, synchronizes, reads again, and
reports the difference. ``stale_read_demo`` runs it on a real GPU, or on the course's simulated
device (``fake.FakeAsyncDevice``) where there is none, and says which.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import torch

from course_utils.devices import check_device
from course_utils.display import CAUTION, PROBLEM, markup, table, tag
from course_utils.transfer.fake import FakeAsyncDevice
from course_utils.transfer.measure import MIB


@dataclass(frozen=True, repr=False)
class StaleRead:
    """Values read from a copy's destination before and after synchronizing, and what they should be."""

    expected: tuple[float, ...]
    before_sync: tuple[float, ...]
    after_sync: tuple[float, ...]
    where: str
    simulated: bool = False

    @property
    def stale_before(self) -> int:
        """How many values read before synchronizing were not the copied ones."""
        return sum(1 for got, want in zip(self.before_sync, self.expected) if got != want)

    @property
    def correct_after(self) -> bool:
        return tuple(self.after_sync) == tuple(self.expected)

    @property
    def detected(self) -> bool:
        """True when the read before synchronizing saw stale data."""
        return self.stale_before > 0

    def verdict(self) -> str:
        n = len(self.expected)
        if self.detected:
            first = f"Read before synchronizing: {self.stale_before} of {n} values were stale (old data, no error raised)."
        else:
            first = f"Read before synchronizing: all {n} values happened to be right this time; the copy won the race by luck, not by design."
        second = (
            "After synchronizing: all correct."
            if self.correct_after
            else "After synchronizing the values are STILL wrong: the copy itself is broken."
        )
        return f"{first} {second}"

    def __str__(self) -> str:
        label = f"{self.where} (simulated: no accelerator here)" if self.simulated else self.where
        return (
            f"non_blocking device-to-host copy on {label}\n  expected:      {list(self.expected)}\n"
            f"  before sync:   {list(self.before_sync)}\n  after sync:    {list(self.after_sync)}\n{self.verdict()}"
        )

    def __repr__(self) -> str:
        return str(self)

    def _repr_html_(self) -> str:
        simulated = markup(" ", tag("i", "(simulated: no accelerator here)")) if self.simulated else ""
        # red when stale values were caught; amber when this run happened to read the right ones
        tone = PROBLEM if self.detected else CAUTION
        rows = [
            ("expected", tag("code", str(list(self.expected)))),
            ("read before synchronizing", tag("code", str(list(self.before_sync)), colour=tone)),
            ("read after synchronizing", tag("code", str(list(self.after_sync)))),
        ]
        return markup(tag("p", tag("b", f"non_blocking device-to-host copy on {self.where}", simulated)), table(rows), tag("p", self.verdict()))


def detect_stale_read(
    copy: Callable[[], object],
    read: Callable[[], Sequence[float]],
    synchronize: Callable[[], None],
    expected: Sequence[float],
    *,
    where: str = "this device",
    simulated: bool = False,
) -> StaleRead:
    """Run ``copy()``, ``read()`` at once, ``synchronize()``, ``read()`` again; compare both reads to ``expected``."""
    for name, fn in (("copy", copy), ("read", read), ("synchronize", synchronize)):
        if not callable(fn):
            raise TypeError(f"{name} must be a function to call, got {type(fn).__name__}.")
    copy()
    before = tuple(float(v) for v in read())
    synchronize()
    after = tuple(float(v) for v in read())
    return StaleRead(tuple(float(v) for v in expected), before, after, where, simulated)


def stale_read_demo(device: str | torch.device | None = None, *, nbytes: int = 256 * MIB, samples: int = 8, value: float = 7.0) -> StaleRead:
    """Show the pitfall: on a CUDA GPU for real, elsewhere on the simulated device (labelled so)."""
    dev = check_device(device)
    expected = [value] * samples
    if dev.type != "cuda":
        fake = FakeAsyncDevice()
        fake.kernel(5e-3)()  # work already queued, like the fill below on a GPU
        src = fake.tensor(expected)
        dst = fake.host_buffer(samples, pinned=True)
        return detect_stale_read(
            lambda: dst.copy_(src, non_blocking=True), dst.tolist, fake.synchronize, expected, where="a FakeAsyncDevice", simulated=True
        )
    n = max(samples, nbytes // 4)
    index = torch.linspace(0, n - 1, samples).long()
    with torch.cuda.device(dev):
        dst = torch.zeros(n, pin_memory=True)  # allocate (and page-lock) before queueing GPU work
        src = torch.full((n,), value, device=dev)  # a queued fill kernel
        if hasattr(torch.cuda, "_sleep"):
            torch.cuda._sleep(50_000_000)  # keep the stream busy (~25 ms) so the copy surely starts late
        return detect_stale_read(
            lambda: dst.copy_(src, non_blocking=True),
            lambda: dst[index].tolist(),  # a host read of host memory: it does not wait for the GPU
            lambda: torch.cuda.synchronize(dev),
            expected,
            where=f"{dev} ({torch.cuda.get_device_name(dev)})",
        )
