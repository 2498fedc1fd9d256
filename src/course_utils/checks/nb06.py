"""Checks for the exercises and the try-its (06.a, 06.b) of notebook 06, transfers and timing.

The timing and copy exercises are checked on ``FakeAsyncDevice``, the course's simulated
stream on a simulated clock: a missing ``synchronize()`` gives a measurably wrong answer there,
on any machine, so the checks mean the same on a laptop and on a GPU server.
"""

from __future__ import annotations

import math
import statistics
import time

import torch

from course_utils.checks._core import Wrong, accelerator_targets, call, cases, exercise, number, tensor_answer, try_it
from course_utils.transfer.ceilings import Ceiling
from course_utils.transfer.fake import FakeAsyncDevice
from course_utils.transfer.timing import no_sync

LAUNCH_S = 5e-6


def _number(value) -> float | None:
    """``number(value)``, and a NumPy float or int scalar (what ``np.median`` returns) as its plain value: a right
    number is right whichever library computed it. Only NumPy's own scalar types, not a subclass of them."""
    import numpy as np

    if type(value) in (np.float64, np.float32, np.float16, np.int64, np.int32):
        return number(value.item())
    return number(value)


def _sequence_op(device: FakeAsyncDevice, durations: list[float]):
    """An op whose n-th call launches ``durations[n % len]`` seconds of work."""
    calls = {"n": 0}

    def op():
        device.launch(durations[calls["n"] % len(durations)])
        calls["n"] += 1

    return op


# (work per call, work already queued before timing starts, repeats)
TIMING_CASES = (
    ([2e-3], 0.0, 5),
    ([3e-4], 2e-2, 1),
    ([1e-3, 1e-3, 9e-3, 1e-3, 1e-3], 0.0, 5),
    ([4.5e-3, 5e-3, 5.5e-3], 1e-2, 3),
)
# asked in every run (practice or graded): an even number of repeats, whose median lies halfway between the two
# middle times (an answer that takes sorted(times)[len(times) // 2] or median_low takes one of them), of work that
# is not a whole number of microseconds (an answer that rounds the seconds to 6 decimals moves it)
# and five repeats whose middle three do not average to their median (an answer that drops the fastest and the
# slowest repeat and averages the rest passes every other case)
TIMING_ALWAYS = (([1.2345e-4, 2.5e-4, 3.75e-4, 9.8765e-3], 0.0, 4), ([1e-3, 1e-3, 2e-3, 5e-3, 9e-3], 0.0, 5))


@exercise(
    "06.1",
    "Time asynchronous work honestly",
    "time_per_call",
    hint=(
        "A device runs its work asynchronously: wait for it (synchronize) before you start the clock and "
        "again before you read it, in every repeat. Report a typical repeat, one that a slow outlier cannot "
        "move."
    ),
)
def _time_per_call(time_per_call) -> str:
    for durations, backlog, repeats in (*cases("06.1", TIMING_CASES), *TIMING_ALWAYS):
        device = FakeAsyncDevice(launch_s=LAUNCH_S)
        if backlog:
            device.launch(backlog)  # someone else's work, still running when the timing starts
        answer = call(time_per_call, _sequence_op(device, durations), device.clock, device.synchronize, repeats)
        expected = statistics.median([durations[i % len(durations)] for i in range(repeats)])
        got = _number(answer)
        if got is None:
            raise Wrong(f"time_per_call returned {answer!r}; expected a number of seconds (an int or a float).")
        if math.isclose(got, expected, rel_tol=1e-6):
            continue
        case = f"work of {[f'{d * 1e3:g} ms' for d in durations]}, {repeats} repeat(s)"
        if backlog:
            case += f", with {backlog * 1e3:g} ms of earlier work still queued"
        found = f"For {case}: you measured {got * 1e3:.4g} ms per call; the device spent {expected * 1e3:.4g} ms."
        if device.syncs == 0:
            raise Wrong(found, "You never called synchronize(): the clock stopped when the work was queued, not done.")
        if math.isclose(got, LAUNCH_S, rel_tol=1e-3) or got < expected / 2:
            raise Wrong(found, "Call synchronize() after op() and before reading the clock the second time.")
        if backlog and got > expected + backlog / 2 and repeats == 1:
            raise Wrong(found, "Call synchronize() before starting the clock too: earlier queued work was counted.")
        mean = sum(durations[i % len(durations)] for i in range(repeats)) / repeats
        if math.isclose(got, mean, rel_tol=1e-6):
            raise Wrong(found, "That is the mean; one slow repeat pulls it up. Return the median.")
        ordered = sorted(durations[i % len(durations)] for i in range(repeats))
        if repeats > 2 and math.isclose(got, statistics.fmean(ordered[1:-1]), rel_tol=1e-6):
            raise Wrong(found, "That is the mean of the repeats left once the fastest and the slowest are dropped; return the median.")
        if repeats % 2 == 0 and any(math.isclose(got, t, rel_tol=1e-6) for t in ordered[repeats // 2 - 1 : repeats // 2 + 1]):
            raise Wrong(found, "That is one of the two middle repeats; with an even number of repeats the median lies halfway between them.")
        raise Wrong(found, "Use the clock and synchronize you are given (not time.perf_counter), and the median.")
    return "Honest on every case: synchronized on both sides of the clock, and the median of the repeats."


# The values of each source tensor of one call: one row per call (1, 3 and 4 copies)
COPY_CASES = (
    ((-0.27, -4.29),),
    ((-6.38, 1.56), (-3.25, -8.61, -0.2, -5.43), (7.39, 0.71, -7.3, 1.14, 3.59)),
    ((2.93, 1.98, -7.41, -1.36), (-2.48, -1.62), (-0.99, -7.31, -5.45, 2.43), (-7.24, -8.18, 7.25, 5.9)),
)
_EARLIER_WORK_S = 3e-3  # the GPU is still busy with earlier work when the copies are asked for
_COPY_BANDWIDTH = 1e3  # bytes per second: slow copies (ms each), surely unfinished when the call returns


def _fake_case(values: tuple[tuple[float, ...], ...]):
    device = FakeAsyncDevice(bandwidth=_COPY_BANDWIDTH)
    device.launch(_EARLIER_WORK_S)
    sources = [device.tensor(v) for v in values]
    buffers = [device.host_buffer(len(s), pinned=True) for s in sources]
    return device, sources, buffers


def _copied_as_asked(device: FakeAsyncDevice, sources: list, buffers: list) -> None:
    """What a right call must leave, re-derived here from the case: the judge does not take the device's
    counters alone (they are the answer's after-state, which a kernel can rewrite)."""
    count = len(sources)
    blocking = [b for b in buffers if b.copies != [True]]
    if blocking:
        raise Wrong(
            f"Each buffer should receive exactly one non-blocking copy_; one received copies with non_blocking={blocking[0].copies}.",
            "Ask copy_ for a non_blocking copy: a blocking copy waits for the GPU each time.",
        )
    if device.implicit_syncs:
        raise Wrong(
            "Your code read device data (.item()/.tolist() on a device tensor), which waits for the GPU like a synchronize.",
            "Copy into the buffers and synchronize once; do not read the sources.",
        )
    copied = _EARLIER_WORK_S + sum(s.nbytes for s in sources) / _COPY_BANDWIDTH  # the copies, back to back
    if device.launches != 1 + count or device.log.count("launch") != 1 + count or not math.isclose(device.busy_until, copied, rel_tol=1e-9):
        copies = f"{count} cop{'y' if count == 1 else 'ies'}"
        raise Wrong(
            f"The simulated device does not show {copies} queued after the earlier work: the buffers were filled some other way.",
            "Fill each buffer with buffer.copy_(source, non_blocking=True), then synchronize() once.",
        )


@exercise(
    "06.2",
    "Make device-to-host copies safe",
    "copy_all_to_host",
    hint=(
        "A non_blocking copy may still be running when the call returns. Start every copy first, wait once, and only then hand the buffers back."
    ),
)
def _copy_all_to_host(copy_all_to_host) -> str:
    for values in cases("06.2", COPY_CASES):
        count = len(values)
        device, sources, buffers = _fake_case(values)
        got = call(copy_all_to_host, sources, buffers, device.synchronize)
        if not isinstance(got, (list, tuple)) or len(got) != count:
            raise Wrong(f"copy_all_to_host returned {got!r}; expected the list of {count} host buffers.")
        _copied_as_asked(device, sources, buffers)
        if any(g is not b for g, b in zip(got, buffers)):
            raise Wrong(
                "copy_all_to_host returned something other than the buffers it was given.",
                "Copy into the buffers you are given and return those same buffers, in order.",
            )
        values_got = [b.tolist() for b in got]  # a plain host read: it does not wait
        if values_got != [list(v) for v in values]:
            raise Wrong(
                f"Reading the returned buffers gave {values_got}; the devices' data was {[list(v) for v in values]}. "
                "The copies had not finished when you returned.",
                "Call synchronize() after the last copy_ and before returning.",
            )
        if device.syncs != 1:
            raise Wrong(
                f"With {count} copies you called synchronize() {device.syncs} times; once is enough.",
                "Issue all the copies first, then synchronize once: the copies queue up back to back.",
            )
    real = [torch.arange(4.0), torch.ones(2)]
    out = call(copy_all_to_host, real, [torch.zeros(4), torch.zeros(2)], no_sync)
    if out is None or len(out) != 2 or not all(isinstance(o, torch.Tensor) and torch.equal(o, r) for o, r in zip(out, real)):
        raise Wrong(
            "With real CPU tensors the buffers did not end up equal to the sources.",
            "Copy into the buffers you were given (copy_, non_blocking) and return those same buffers.",
        )
    return "Every copy was non_blocking, one synchronize() made them all safe, and the data was right."


GBPS_CASES = (
    (2**20, (1e-4,)),
    (64 * 2**20, (2.1e-3, 2.0e-3, 2.2e-3)),
    (4096, (3e-6, 2e-6, 2.5e-6, 40e-6)),
    (256 * 2**20, (0.02, 0.011, 0.0105, 0.0102, 0.0101)),
)


@exercise(
    "06.3",
    "Bandwidth from bytes and seconds",
    "gbps",
    hint=("Use decimal gigabytes (10**9 bytes, as PCIe and GPU specs do) and a typical time that one slow sample cannot move."),
)
def _gbps(gbps) -> str:
    for nbytes, seconds in cases("06.3", GBPS_CASES):
        answer = call(gbps, nbytes, seconds)
        expected = nbytes / statistics.median(seconds) / 1e9
        got = _number(answer)
        if got is not None and math.isclose(got, expected, rel_tol=1e-9):
            continue
        found = f"gbps({nbytes}, {seconds}) returned {answer!r}, which is not that copy's bandwidth in GB/s."
        if got is not None:
            if math.isclose(got, expected * 1e9 / 2**30, rel_tol=1e-9):
                raise Wrong(found, "You divided by 2**30 (GiB). Bandwidths are quoted in GB: divide by 1e9.")
            if math.isclose(got, nbytes / (sum(seconds) / len(seconds)) / 1e9, rel_tol=1e-9):
                raise Wrong(found, "That uses the mean time; use statistics.median(seconds).")
            if math.isclose(got, nbytes / min(seconds) / 1e9, rel_tol=1e-9):
                raise Wrong(found, "That uses the fastest sample; use the median.")
        raise Wrong(found)
    return "Right for every case: bytes over the median time, in decimal GB/s."


# (PCIe generation, lanes): every generation at x16, x8, x4 and x1
PCIE_CASES = (
    (1, 16),
    (1, 8),
    (1, 4),
    (1, 1),
    (2, 16),
    (2, 8),
    (2, 4),
    (2, 1),
    (3, 16),
    (3, 8),
    (3, 4),
    (3, 1),
    (4, 16),
    (4, 8),
    (4, 4),
    (4, 1),
    (5, 16),
    (5, 8),
    (5, 4),
    (5, 1),
)


@exercise(
    "06.4",
    "The PCIe ceiling of a link",
    "pcie_ceiling_gbps",
    hint=(
        "GB/s = transfers per second per lane × lanes × the share of bits that is data (the line encoding) ÷ "
        "8. Per lane Gen1 signals 2.5, Gen2 5 and Gen3 8 GT/s, then each generation doubles (Gen4 16, Gen5 32); "
        "Gen1 and Gen2 use 8b/10b encoding, Gen3 to Gen5 128b/130b."
    ),
)
def _pcie_ceiling_gbps(pcie_ceiling_gbps) -> str:
    links = cases("06.4", PCIE_CASES)
    for gen, lanes in links:
        answer = call(pcie_ceiling_gbps, gen, lanes)
        expected = Ceiling(gen, lanes).gbps
        got = _number(answer)
        if got is not None and math.isclose(got, expected, rel_tol=1e-9):
            continue
        found = f"pcie_ceiling_gbps({gen}, {lanes}) returned {answer!r}, which is not that link's ceiling in GB/s."
        rate = Ceiling(gen, lanes).gts
        if got is not None:
            if math.isclose(got, rate * lanes / 8, rel_tol=1e-9):
                raise Wrong(found, "You left out the line encoding: 128b/130b from Gen3, 8b/10b before.")
            if math.isclose(got, rate * lanes, rel_tol=1e-9) or math.isclose(got, expected * 8, rel_tol=1e-9):
                raise Wrong(found, "GT/s count bits; divide by 8 for bytes.")
            if gen <= 2 and math.isclose(got, rate * lanes * 128 / 130 / 8, rel_tol=1e-9):
                raise Wrong(found, "Gen1 and Gen2 use 8b/10b encoding, not 128b/130b.")
            halved_from_gen3 = 8 / 2 ** (3 - gen)  # Gen2 4 GT/s, Gen1 2: the doubling run backwards
            if gen <= 2 and math.isclose(got, halved_from_gen3 * lanes * 8 / 10 / 8, rel_tol=1e-9):
                raise Wrong(
                    found,
                    "The doubling starts at Gen3: Gen2 signals 5 GT/s and Gen1 2.5, not half of the generation after (Gen2 to Gen3 is 1.6×).",
                )
        raise Wrong(found)
    which = "Gen1 to Gen5 at x1 to x16" if links is PCIE_CASES else f"{len(links)} links of Gen1 to Gen5"
    return f"Right for {which}: Gen5 x16 is 63.0 GB/s per direction, as an H100/H200 SXM gets."


# --------------------------------------------------------------------------- try-its of the lesson

# (earlier work still queued when the timing starts, work of the op)
ONCE_CASES = ((0.0, 2e-3), (3e-2, 1e-3), (5e-3, 4e-4))


@try_it(
    "06.a",
    "Time one call honestly",
    "time_once",
    kind="function",
    hint="The device works asynchronously: wait for it before you start the clock and again before you read it.",
)
def _time_once(time_once) -> str:
    for backlog, work in ONCE_CASES:
        device = FakeAsyncDevice(launch_s=LAUNCH_S)
        if backlog:
            device.launch(backlog)  # someone else's work, still running when the timing starts
        got = number(call(time_once, device.kernel(work), device.clock, device.synchronize))
        if got is None:
            raise Wrong("time_once should return a number of seconds (an int or a float).")
        if math.isclose(got, work, rel_tol=1e-6):
            continue
        found = f"For a {work * 1e3:g} ms kernel you measured {got * 1e3:.4g} ms"
        found += f" (with {backlog * 1e3:g} ms of earlier work still queued)." if backlog else "."
        if "clock" not in device.log:
            raise Wrong(found, "Use the clock you are given (not time.perf_counter): it is the device's clock here.")
        if device.syncs == 0:
            raise Wrong(found, "You never called synchronize(): the clock stopped when the work was queued, not done.")
        if got < work / 2:
            raise Wrong(found, "Call synchronize() after op() and before reading the clock the second time.")
        if backlog and got > work + backlog / 2:
            raise Wrong(found, "Call synchronize() before starting the clock too: the earlier work was counted.")
        raise Wrong(found, "Use the clock you are given (not time.perf_counter), around one call of op().")
    # and with the real clock: on a GPU you would pass torch.cuda.synchronize
    sync = torch.cuda.synchronize if torch.cuda.is_available() else (lambda: None)
    a = torch.randn(256, 256, generator=torch.Generator().manual_seed(6))
    real = number(call(time_once, lambda: a @ a, time.perf_counter, sync))
    if real is None or not real > 0:
        raise Wrong(f"With time.perf_counter and a real matmul, time_once returned {real!r}; expected seconds > 0.")
    return "Synchronized on both sides of the clock: the device's time, not the launch's or the queue's."


@try_it(
    "06.b",
    "Copy into a preallocated buffer",
    "copy_into",
    kind="function",
    hint=("A tensor method copies into an existing tensor in place, converting dtype and device; then return the destination."),
)
def _copy_into(copy_into) -> str:
    generator = torch.Generator().manual_seed(6)
    # dst holds old values (a buffer reused from the last copy), so adding src into it is not copying
    cases = [
        (torch.full((5,), 7.0), torch.randn(5, generator=generator)),
        (torch.full((2, 3), -3.0, dtype=torch.float64), torch.randn(2, 3, generator=generator)),
        (torch.zeros(4, device="meta"), torch.randn(4, generator=generator)),
    ]
    for device in accelerator_targets():
        cases.append((torch.full((3,), 7.0, device=device), torch.randn(3, generator=generator)))
    for dst, src in cases:
        where, before, kept, old = dst.data_ptr(), src.clone(), dst, dst.clone()
        got = call(copy_into, dst, src)
        if got is not kept:
            same_values = isinstance(got, torch.Tensor) and got.shape == src.shape
            raise Wrong(
                "copy_into should return `dst` itself, the buffer allocated before timing"
                + (", not a new tensor." if same_values else f"; it returned {type(got).__name__}."),
                "A new tensor (src.clone(), src.to(...)) allocates memory each time, which the timing "
                "would count: write into dst with dst.copy_(src).",
            )
        tensor_answer(got, "copy_into(dst, src)")
        if dst.data_ptr() != where:
            raise Wrong(
                "dst now points at other memory: it was replaced, not filled.", "Use dst.copy_(src), which writes into dst's own memory."
            )
        if not torch.equal(src, before):
            raise Wrong("src changed: copy from src into dst, not the other way round.")
        if dst.device.type != "meta" and not torch.equal(dst.cpu(), src.to(dst.dtype)):
            if torch.allclose(dst.cpu(), (old.cpu() + src).to(dst.dtype)):
                raise Wrong(
                    "dst holds its old values plus src's: your code added src into the buffer instead of copying it.",
                    "A reused buffer still holds the last copy: overwrite it, do not add to it.",
                )
            raise Wrong(
                f"dst holds {dst.cpu().tolist()}, not src's values {src.tolist()}.", "Copy the values with dst.copy_(src) before returning dst."
            )
    return "Copied in place into the existing buffer, across dtypes and devices: nothing allocated per copy."
