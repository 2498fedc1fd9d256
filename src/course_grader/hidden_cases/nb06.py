"""Drawn cases of exercise set 06 (transfers and timing): work to time, copies to make safe, copies to measure,
PCIe links. Each rule returns rows in the shape of the public table of ``course_utils.checks.nb06``; the
checker computes each row's expected value from the row itself (a median, a bandwidth, ``Ceiling``)."""

from __future__ import annotations

import random


def _ms(rng: random.Random, low: float, high: float) -> float:
    """A duration in seconds between ``low`` and ``high``, to the microsecond."""
    return round(rng.uniform(low, high), 6)


def time_per_call(rng: random.Random) -> list[tuple[list[float], float, int]]:
    """4 to 6 (work per call, earlier work still queued, repeats), as ``TIMING_CASES``: one with earlier work
    and a single repeat (a clock started before the queue drained counts it), one with a slow outlier among
    three or more repeats (the mean and the median differ), the rest drawn."""
    base = _ms(rng, 2e-4, 4e-3)
    outlier = [base] * rng.randint(3, 6)
    outlier[rng.randrange(len(outlier))] = round(base * rng.uniform(5, 12), 6)
    rows = [([_ms(rng, 1e-4, 5e-3)], _ms(rng, 1e-2, 4e-2), 1), (outlier, 0.0, len(outlier))]
    for _ in range(rng.randint(2, 4)):
        durations = [_ms(rng, 1e-4, 1e-2) for _ in range(rng.randint(1, 5))]
        backlog = 0.0 if rng.random() < 0.4 else _ms(rng, 1e-3, 3e-2)
        rows.append((durations, backlog, rng.randint(1, 7)))
    rng.shuffle(rows)
    return rows


def _values(rng: random.Random) -> tuple[float, ...]:
    return tuple(round(rng.uniform(-9, 9), 2) for _ in range(rng.randint(2, 5)))


def copy_all_to_host(rng: random.Random) -> list[tuple[tuple[float, ...], ...]]:
    """3 or 4 calls of 1 to 6 copies each, as ``COPY_CASES``: the values of each source tensor, drawn."""
    return [tuple(_values(rng) for _ in range(count)) for count in [1, *(rng.randint(2, 6) for _ in range(rng.randint(2, 3)))]]


_SIZES = (4096, 65536, 2**20, 8 * 2**20, 64 * 2**20, 256 * 2**20, 10**6, 10**8)


def gbps(rng: random.Random) -> list[tuple[int, tuple[float, ...]]]:
    """4 to 6 (bytes copied, seconds of each sample), as ``GBPS_CASES``: sizes from 4 KiB to 1 GiB, each
    time near what a 1 to 50 GB/s link gives, one sample in some cases (the first among them) a slow outlier."""
    rows = []
    for k in range(rng.randint(4, 6)):
        nbytes = rng.choice(_SIZES) * rng.randint(1, 4)
        typical = nbytes / (rng.uniform(1, 50) * 1e9)
        seconds = [typical * rng.uniform(0.9, 1.1) for _ in range(rng.randint(3 if k == 0 else 1, 6))]
        if len(seconds) > 2 and (k == 0 or rng.random() < 0.6):  # the first has an outlier: a mean is not the rate
            seconds[rng.randrange(len(seconds))] = typical * rng.uniform(3, 20)
        rows.append((nbytes, tuple(float(f"{s:.4g}") for s in seconds)))
    return rows


_LANES = (1, 2, 4, 8, 16, 32)


def pcie_ceiling_gbps(rng: random.Random) -> list[tuple[int, int]]:
    """10 to 14 (generation, lanes) links of the 30 there are, in a drawn order, at least one of Gen1/Gen2
    (8b/10b) and three of Gen3 to Gen5 (128b/130b)."""
    links = [(gen, lanes) for gen in range(1, 6) for lanes in _LANES]
    while True:
        drawn = rng.sample(links, rng.randint(10, 14))
        if sum(g <= 2 for g, _ in drawn) >= 1 and sum(g >= 3 for g, _ in drawn) >= 3:
            return drawn


RULES = {"06.1": time_per_call, "06.2": copy_all_to_host, "06.3": gbps, "06.4": pcie_ceiling_gbps}
