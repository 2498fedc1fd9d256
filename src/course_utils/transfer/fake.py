"""A simulated asynchronous device on a simulated clock: what a GPU stream does to timing, on any machine.

Lesson: notebook 06 (transfers and timing) and its exercises. ``FakeAsyncDevice`` models one
CUDA stream the way the CUDA programming guide describes it:

- a launch (``kernel(seconds)()``) queues work and returns after ``launch_s`` of host time; the
  work runs later, after everything queued before it;
- ``synchronize()`` waits until the queue is empty; ``.item()``/``.tolist()`` of a device
  tensor wait too (hidden synchronizations), and so does a blocking copy;
- a ``non_blocking=True`` copy into a pinned host buffer returns at once, and the data lands in
  the buffer only when the copy is done: reading it earlier shows the old values.

Everything runs on a simulated clock (``clock()``), so results are exact and instant, and the
same on a laptop and on a GPU server. It is a teaching model, clearly labelled as such: the
course shows the real thing on a GPU next to it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field


class FakeAsyncDevice:
    """One simulated stream with a simulated host clock (seconds)."""

    def __init__(self, launch_s: float = 5e-6, bandwidth: float = 25e9):
        if not (launch_s >= 0 and bandwidth > 0):
            raise ValueError(f"launch_s must be >= 0 and bandwidth > 0, got {launch_s!r} and {bandwidth!r}.")
        self.launch_s = launch_s
        self.bandwidth = bandwidth  # bytes per second of a simulated copy
        self.now = 0.0  # host time
        self.busy_until = 0.0  # when the queue drains
        self.syncs = 0  # explicit synchronize() calls
        self.implicit_syncs = 0  # waits hidden in .item(), .tolist(), blocking copies
        self.launches = 0
        self.log: list[str] = []  # what happened, in order: "launch", "sync", "clock", ...
        self._pending: list[tuple[float, Callable[[], None]]] = []

    # ------------------------------------------------------------------ the host side

    def clock(self) -> float:
        """The simulated host time, like ``time.perf_counter()``."""
        self._settle()
        self.log.append("clock")
        return self.now

    def synchronize(self) -> None:
        """Wait until every queued operation has finished, like ``torch.cuda.synchronize()``."""
        self.syncs += 1
        self.log.append("sync")
        self._wait()

    @property
    def pending(self) -> bool:
        """Whether queued work has not finished yet at the current host time."""
        return self.busy_until > self.now

    # ------------------------------------------------------------------ the device side

    def launch(self, seconds: float, on_done: Callable[[], None] | None = None) -> None:
        """Queue ``seconds`` of device work; return after ``launch_s`` of host time."""
        start = max(self.now, self.busy_until)
        self.busy_until = start + seconds
        if on_done is not None:
            self._pending.append((self.busy_until, on_done))
        self.launches += 1
        self.log.append("launch")
        self.now += self.launch_s
        self._settle()

    def kernel(self, seconds: float) -> Callable[[], None]:
        """A function that launches ``seconds`` of work each time it is called (an op to time)."""
        if not (seconds > 0):
            raise ValueError(f"a kernel must take a positive time, got {seconds!r}.")
        return lambda: self.launch(seconds)

    def tensor(self, values) -> FakeDeviceTensor:
        """A tensor "on" this device holding ``values``."""
        return FakeDeviceTensor(self, tuple(float(v) for v in values))

    def host_buffer(self, size: int, pinned: bool = True) -> FakeHostBuffer:
        """A host buffer of ``size`` zeros to copy device data into."""
        return FakeHostBuffer(self, [0.0] * size, pinned)

    # ------------------------------------------------------------------ internals

    def _wait(self) -> None:
        self.now = max(self.now, self.busy_until)
        self._settle()

    def _settle(self) -> None:
        done = [p for p in self._pending if p[0] <= self.now]
        self._pending = [p for p in self._pending if p[0] > self.now]
        for _, action in sorted(done, key=lambda p: p[0]):
            action()

    def __repr__(self) -> str:
        return (
            f"FakeAsyncDevice(now={self.now * 1e3:.3f} ms, queue drains at {self.busy_until * 1e3:.3f} ms, "
            f"launches={self.launches}, syncs={self.syncs}, implicit_syncs={self.implicit_syncs})"
        )


@dataclass
class FakeDeviceTensor:
    """Values living on a ``FakeAsyncDevice``. Reading them on the host waits for the device."""

    device: FakeAsyncDevice
    values: tuple[float, ...]

    @property
    def nbytes(self) -> int:
        return 4 * len(self.values)  # float32

    def __len__(self) -> int:
        return len(self.values)

    def tolist(self) -> list[float]:
        """Like ``tensor.tolist()`` on a GPU: a hidden synchronization, then the values."""
        self.device.implicit_syncs += 1
        self.device.log.append("implicit sync")
        self.device._wait()
        return list(self.values)

    def item(self) -> float:
        """Like ``tensor.item()`` on a GPU: a hidden synchronization, then the one value."""
        if len(self.values) != 1:
            raise RuntimeError(f"a Tensor with {len(self.values)} elements cannot be converted to Scalar")
        return self.tolist()[0]


@dataclass
class FakeHostBuffer:
    """Host memory (pinned or not) that device data is copied into. Reading it never waits."""

    device: FakeAsyncDevice
    values: list[float]
    pinned: bool = True
    copies: list[bool] = field(default_factory=list)  # the non_blocking flag of each copy_ into it

    def copy_(self, src: FakeDeviceTensor, non_blocking: bool = False) -> FakeHostBuffer:
        """Like ``host.copy_(gpu_tensor, non_blocking=...)``: queue the copy on the stream.

        Blocking, or into pageable memory: returns when the data is here (CUDA's rule).
        ``non_blocking=True`` into pinned memory: returns at once; the data lands later.
        """
        if not isinstance(src, FakeDeviceTensor):
            raise TypeError(f"copy_ expects a FakeDeviceTensor as the source, got {type(src).__name__}.")
        if len(src) != len(self.values):
            raise RuntimeError(f"size mismatch: copying {len(src)} values into a buffer of {len(self.values)}")
        data = list(src.values)
        self.copies.append(bool(non_blocking))

        def land():
            self.values[:] = data

        self.device.launch(src.nbytes / self.device.bandwidth, on_done=land)
        if not (non_blocking and self.pinned):
            self.device.implicit_syncs += 1
            self.device.log.append("implicit sync")
            self.device._wait()
        return self

    def tolist(self) -> list[float]:
        """The values in host memory right now: no waiting, so possibly stale."""
        self.device._settle()
        return list(self.values)

    def __getitem__(self, index):
        return self.tolist()[index]

    def __len__(self) -> int:
        return len(self.values)
