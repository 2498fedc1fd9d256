"""Copy/compute overlap: a host-to-device copy on a side CUDA stream while a matmul runs on the default one.

Lesson: notebook 06 (transfers and timing). Work on one CUDA stream runs in order; work on two
streams may run at the same time, and a GPU has copy engines separate from its compute units.
So a copy from **pinned** memory on a side stream can hide behind a kernel on the default
stream: the two together take less than their sum. Correctness needs two things:

- ``side.wait_stream(main)`` before the copy, and ``main.wait_stream(side)`` before the default
  stream uses the copied data (streams do not wait for each other on their own);
- ``tensor.record_stream(main)`` for a tensor *allocated* on the side stream and used on the
  default one, so PyTorch's caching allocator does not hand its memory to someone else while
  the default stream may still read it.

CUDA only; elsewhere ``measure_overlap`` returns a ``Skipped`` with the reason.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass

import torch

from course_utils.devices import check_device
from course_utils.display import markup, table, tag
from course_utils.transfer.measure import MIB
from course_utils.transfer.results import Skipped, fmt_bytes, fmt_seconds
from course_utils.transfer.spread import noise_note, with_spread
from course_utils.transfer.timing import Instruments, synchronizer, time_blocks


def to_device_on_side_stream(host: torch.Tensor, device: torch.device, side: torch.cuda.Stream) -> torch.Tensor:
    """Copy ``host`` (pinned) to ``device`` on stream ``side``; the result is safe to use on the current stream.

    The copy may overlap whatever the current stream is running: this call returns at once.
    """
    main = torch.cuda.current_stream(device)
    side.wait_stream(main)  # the copy starts only after work already queued on the current stream
    with torch.cuda.stream(side):
        out = host.to(device, non_blocking=True)  # allocated from the side stream's memory pool
    main.wait_stream(side)  # the current stream's later work waits for the copy
    out.record_stream(main)  # ... and the allocator knows the current stream uses `out` too
    return out


@dataclass(frozen=True, repr=False)
class Overlap:
    """Copy alone, matmul alone, both on one stream, both on two streams: seconds per sample."""

    device: str
    nbytes: int
    matmul_n: int
    copy_seconds: tuple[float, ...]
    compute_seconds: tuple[float, ...]
    serial_seconds: tuple[float, ...]  # copy then matmul, one stream
    overlapped_seconds: tuple[float, ...]  # copy on a side stream, matmul on the default stream
    correct: bool  # the data copied on the side stream arrived intact

    @property
    def copy(self) -> float:
        return statistics.median(self.copy_seconds)

    @property
    def compute(self) -> float:
        return statistics.median(self.compute_seconds)

    @property
    def overlapped(self) -> float:
        return statistics.median(self.overlapped_seconds)

    @property
    def hidden_fraction(self) -> float:
        """How much of the shorter of the two was hidden: 0 (none) to 1 (all)."""
        saved = self.copy + self.compute - self.overlapped
        return max(0.0, min(1.0, saved / min(self.copy, self.compute)))

    def rows(self) -> list[tuple[str, str]]:
        return [
            (f"copy {fmt_bytes(self.nbytes)} h2d from pinned memory, alone", with_spread(self.copy_seconds)),
            (f"matmul {self.matmul_n}×{self.matmul_n}, alone", with_spread(self.compute_seconds)),
            ("sum of the parts (medians)", fmt_seconds(self.copy + self.compute)),
            ("copy then matmul on one stream", with_spread(self.serial_seconds)),
            ("copy on a side stream while the matmul runs", with_spread(self.overlapped_seconds)),
        ]

    def verdict(self) -> str:
        data = "the copied data arrived intact" if self.correct else "THE COPIED DATA WAS WRONG: a synchronization is missing"
        noise = noise_note(
            {
                "the copy": self.copy_seconds,
                "the matmul": self.compute_seconds,
                "one stream": self.serial_seconds,
                "two streams": self.overlapped_seconds,
            }
        )
        return f"Overlap hid {self.hidden_fraction:.0%} of the shorter operation; {data}." + ("" if noise is None else " " + noise)

    def __str__(self) -> str:
        return "\n".join([f"Copy/compute overlap on {self.device}:"] + [f"  {k}: {v}" for k, v in self.rows()] + [self.verdict()])

    def __repr__(self) -> str:
        return str(self)

    def _repr_html_(self) -> str:
        return markup(tag("p", tag("b", f"Copy/compute overlap on {self.device}")), table(self.rows()), tag("p", self.verdict()))


def measure_overlap(
    device: str | torch.device | None = None, *, nbytes: int = 64 * MIB, matmul_n: int = 4096, repeats: int = 5
) -> Overlap | Skipped:
    """Measure how much of a pinned host-to-device copy hides behind a matmul. CUDA only."""
    dev = check_device(device)
    if dev.type != "cuda":
        return Skipped(
            "copy/compute overlap on a side stream",
            f"it needs CUDA streams and copy engines, and this runs on {dev}. On a GPU the copy on a side stream "
            "hides behind the matmul, so both together take about as long as the longer one.",
        )
    sync = synchronizer(dev)
    with torch.cuda.device(dev):
        main = torch.cuda.current_stream(dev)
        side = torch.cuda.Stream(dev)
        host = torch.ones(nbytes, dtype=torch.uint8).pin_memory()
        dst = torch.empty(nbytes, dtype=torch.uint8, device=dev)
        a, b = torch.randn(matmul_n, matmul_n, device=dev), torch.randn(matmul_n, matmul_n, device=dev)
        c = torch.empty(matmul_n, matmul_n, device=dev)

        def copy():
            dst.copy_(host, non_blocking=True)

        def compute():
            torch.mm(a, b, out=c)

        def serial():
            copy()
            compute()

        def overlapped():
            side.wait_stream(main)
            with torch.cuda.stream(side):
                copy()
            compute()
            main.wait_stream(side)

        kwargs = dict(repeats=repeats, instruments=Instruments(synchronize=sync))
        copy_s = time_blocks(copy, **kwargs)
        compute_s = time_blocks(compute, **kwargs)
        serial_s = time_blocks(serial, **kwargs)
        overlapped_s = time_blocks(overlapped, **kwargs)
        # Correctness: a fresh tensor made on the side stream, then used on the default stream.
        sync()
        fresh = to_device_on_side_stream(host, dev, side)
        compute()
        correct = int(fresh.sum(dtype=torch.int64).item()) == nbytes  # .item() waits for the default stream
    return Overlap(str(dev), nbytes, matmul_n, copy_s, compute_s, serial_s, overlapped_s, correct)
