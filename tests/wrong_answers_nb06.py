"""The try-its of notebook 06 (transfers and timing): a right answer and plausible wrong ones, on a CPU.
Lesson: notebook 06."""

import statistics

from try_it_support import Case

TRY_ITS = [
    # 06.a: time one call, synchronized on both sides
    Case(
        "06.a",
        "def time_once(op, clock, synchronize):\n    synchronize()\n    start = clock()\n    op()\n"
        "    synchronize()\n    return clock() - start",
        "pass",
    ),
    Case(
        "06.a",
        "def time_once(op, clock, synchronize):\n    start = clock()\n    op()\n    return clock() - start",
        "fail",
        "never called synchronize",
    ),
    Case(
        "06.a",
        "def time_once(op, clock, synchronize):\n    start = clock()\n    op()\n    synchronize()\n    return clock() - start",
        "fail",
        "before starting the clock",
    ),
    Case(
        "06.a",
        "def time_once(op, clock, synchronize):\n    synchronize()\n    start = clock()\n    op()\n"
        "    end = clock()\n    synchronize()\n    return end - start",
        "fail",
        "after op()",
    ),
    Case(
        "06.a",
        "import time\ndef time_once(op, clock, synchronize):\n    synchronize()\n"
        "    start = time.perf_counter()\n    op()\n    synchronize()\n    return time.perf_counter() - start",
        "fail",
        "clock you are given",
    ),
    # 06.b: copy into the preallocated buffer
    Case("06.b", "def copy_into(dst, src):\n    return dst.copy_(src)", "pass"),
    Case("06.b", "def copy_into(dst, src):\n    dst[:] = src\n    return dst", "pass"),
    Case("06.b", "def copy_into(dst, src):\n    return src.clone()", "fail", "itself"),
    Case("06.b", "def copy_into(dst, src):\n    dst = src.to(dst.device)\n    return dst", "fail", "itself"),
    Case("06.b", "def copy_into(dst, src):\n    return dst", "fail", "src's values"),
    Case("06.b", "def copy_into(dst, src):\n    dst.data = src.clone()\n    return dst", "fail", "replaced"),
    Case("06.b", "def copy_into(dst, src):\n    src.copy_(dst)\n    return dst", "fail", "src changed"),
    # a buffer that held zeros made adding look like copying
    Case("06.b", "def copy_into(dst, src):\n    dst += src\n    return dst", "fail", "added src into the buffer"),
    Case("06.b", "def copy_into(dst, src):\n    dst.add_(src)\n    return dst", "fail", "added src into the buffer"),
]


# ----------------------------------------------------------------------------- exercises (listed in WRONG)


def _synchronized_times(op, clock, synchronize, repeats):
    times = []
    for _ in range(repeats):
        synchronize()
        start = clock()
        op()
        synchronize()
        times.append(clock() - start)
    return times


def time_middle_element(op, clock, synchronize, repeats=5):
    """The middle of the sorted times: right for an odd number of repeats, the upper middle one for an even."""
    times = sorted(_synchronized_times(op, clock, synchronize, repeats))
    return times[len(times) // 2]


def time_median_low(op, clock, synchronize, repeats=5):
    """statistics.median_low: the lower of the two middle times when the repeats are even."""
    return statistics.median_low(_synchronized_times(op, clock, synchronize, repeats))


def time_rounded_to_microseconds(op, clock, synchronize, repeats=5):
    """Rounds the seconds for a tidy print: a kernel of a fraction of a microsecond more is misreported."""
    return round(statistics.median(_synchronized_times(op, clock, synchronize, repeats)), 6)


def time_trimmed_mean(op, clock, synchronize, repeats):
    """Drops the fastest and the slowest repeat and averages the rest: equal to the median on 3 or 4 repeats only."""
    times = _synchronized_times(op, clock, synchronize, repeats)
    middle = sorted(times)[1:-1] if repeats > 2 else times
    return sum(middle) / len(middle)


WRONG = [
    ("06.1", time_middle_element, "halfway"),
    ("06.1", time_trimmed_mean, "fastest and the slowest are dropped"),
    ("06.1", time_median_low, "halfway"),
    ("06.1", time_rounded_to_microseconds, "you measured 0.313 ms"),
]
