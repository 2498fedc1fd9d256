"""Whether a timing's spread leaves its median any meaning, by torch.utils.benchmark's own rule.

Lesson: notebook 06 (transfers and timing). Every timing the lesson shows reports its spread,
the interquartile range (IQR) of its samples, and says when that spread makes the median
meaningless instead of printing a number that the next run contradicts.

The rule and its thresholds are ``torch.utils.benchmark``'s, read in torch 2.13.0's
``torch/utils/benchmark/utils/common.py``: ``Measurement`` warns when ``iqr / median`` is not
below ``_IQR_WARN_THRESHOLD = 0.1`` ("This could indicate system fluctuation") and, more
strongly, when it is not below ``_IQR_GROSS_WARN_THRESHOLD = 0.25`` ("This suggests significant
environmental influence"). Its quartiles are ``torch.quantile``'s linear interpolation, which is
``statistics.quantiles(method="inclusive")``, used here.

Two timings of the same thing *agree* when their medians differ by at most ``AGREE_TOLERANCE``
(10%, the share of the median torch lets the IQR take before it warns) of the smaller one. They
are not compared when either spread is past the gross threshold; and a gap past the tolerance
but inside a spread past 10% is "within the noise": that machine cannot test the tolerance.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable
from dataclasses import dataclass

IQR_WARN = 0.1  # torch.utils.benchmark.utils.common._IQR_WARN_THRESHOLD
IQR_GROSS_WARN = 0.25  # torch.utils.benchmark.utils.common._IQR_GROSS_WARN_THRESHOLD
AGREE_TOLERANCE = 0.10

STEADY, FLUCTUATING, MEANINGLESS = "steady", "fluctuating", "meaningless"


def fmt_time(seconds: float) -> str:
    """0.000627 -> '627.0 µs', 0.0021 -> '2.10 ms', 1.5 -> '1.50 s'."""
    if seconds >= 1:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds * 1e6:.1f} µs"


@dataclass(frozen=True)
class Spread:
    """The median and quartiles of timed samples, and what torch.utils.benchmark would say of them."""

    median: float
    q1: float
    q3: float
    samples: int

    @classmethod
    def of(cls, seconds: Iterable[float]) -> Spread:
        """The spread of ``seconds`` (one sample per timed block); at least one positive sample."""
        values = tuple(float(s) for s in seconds)
        if not values or any(not (s > 0) for s in values):
            raise ValueError(
                f"seconds must be one or more positive times, got {values!r}; time a block with time.perf_counter() before and after it."
            )
        if len(values) < 2:
            return cls(values[0], values[0], values[0], 1)
        q1, median, q3 = statistics.quantiles(values, n=4, method="inclusive")
        return cls(median, q1, q3, len(values))

    @property
    def iqr(self) -> float:
        return self.q3 - self.q1

    @property
    def relative(self) -> float:
        """The IQR as a share of the median (torch.utils.benchmark's ``iqr / median``)."""
        return self.iqr / self.median

    @property
    def level(self) -> str:
        """'steady' (IQR under 10% of the median), 'fluctuating' (under 25%) or 'meaningless'."""
        if self.samples < 2 or self.relative >= IQR_GROSS_WARN:
            return MEANINGLESS
        return FLUCTUATING if self.relative >= IQR_WARN else STEADY

    @property
    def meaningful(self) -> bool:
        return self.level != MEANINGLESS

    @property
    def warning(self) -> str | None:
        """None when steady; otherwise what torch.utils.benchmark would warn, and why it matters."""
        if self.samples < 2:
            return "one sample has no spread: time several blocks before quoting a number."
        share = f"the IQR is {self.relative:.0%} of the median"
        if self.level == MEANINGLESS:
            return (
                f"{share}, past the 25% at which torch.utils.benchmark says 'This suggests significant "
                "environmental influence': other work on this machine slowed many samples, so the median "
                "is not a property of what was timed. Time it again when the machine is quiet."
            )
        if self.level == FLUCTUATING:
            return (
                f"{share}, past the 10% at which torch.utils.benchmark says 'This could indicate system "
                "fluctuation': quote the median with its spread."
            )
        return None

    def summary(self) -> str:
        """'median 627.0 µs, IQR 12.0 µs (2% of the median), 30 samples'."""
        if self.samples < 2:
            return f"{fmt_time(self.median)}, 1 sample"
        return f"median {fmt_time(self.median)}, IQR {fmt_time(self.iqr)} ({self.relative:.0%} of the median), {self.samples} samples"

    def __str__(self) -> str:
        return self.summary() + ("" if self.warning is None else f"\n  WARNING: {self.warning}")


@dataclass(frozen=True, repr=False)
class Agreement:
    """Two timings of the same work, compared: do their medians agree within ``tolerance``?"""

    first: Spread
    second: Spread
    names: tuple[str, str] = ("first", "second")
    tolerance: float = AGREE_TOLERANCE

    @property
    def difference(self) -> float:
        """How far apart the medians are, as a share of the smaller one."""
        low, high = sorted((self.first.median, self.second.median))
        return (high - low) / low

    @property
    def comparable(self) -> bool:
        """Both spreads short of torch.utils.benchmark's gross threshold (otherwise: noise against noise)."""
        return self.first.meaningful and self.second.meaningful

    @property
    def agree(self) -> bool:
        return self.comparable and self.difference <= self.tolerance

    @property
    def within_noise(self) -> bool:
        """Apart by more than the tolerance, but by no more than a spread past torch's 10% warning.

        Such a machine fluctuates by more than the tolerance itself, so it cannot test it.
        """
        spreads = (self.first, self.second)
        widest = max(s.relative for s in spreads)
        return self.comparable and not self.agree and any(s.level == FLUCTUATING for s in spreads) and self.difference <= widest

    @property
    def verdict(self) -> str:
        """'AGREE', 'DISAGREE', 'WITHIN THE NOISE' or 'NOT COMPARABLE'."""
        if not self.comparable:
            return "NOT COMPARABLE"
        if self.agree:
            return "AGREE"
        return "WITHIN THE NOISE" if self.within_noise else "DISAGREE"

    def __bool__(self) -> bool:
        return self.agree

    def __str__(self) -> str:
        # The verdict, then its reason, then the numbers: where the spread decides (NOT COMPARABLE,
        # WITHIN THE NOISE) it comes first, so a small gap read first cannot seem to contradict it.
        a, b = self.names
        medians = f"{a} and {b}: medians {fmt_time(self.first.median)} and {fmt_time(self.second.median)}"
        gap = f"{medians}, {self.difference:.0%} apart (tolerance {self.tolerance:.0%})"
        shares = ", ".join(f"{name} {s.relative:.0%}" for name, s in zip(self.names, (self.first, self.second)))
        if self.verdict == "NOT COMPARABLE":
            noisy = [f"{name} {s.relative:.0%}" for name, s in zip(self.names, (self.first, self.second)) if not s.meaningful]
            return (
                f"NOT COMPARABLE: the spread is too wide. IQR as a share of the median: {', '.join(noisy)}, past "
                "the 25% at which torch.utils.benchmark warns of environmental influence: on a machine this busy "
                "a median is not a property of what was timed, so how close two are says nothing "
                f"({medians}, {self.difference:.0%} apart). Run both again when the machine is quiet."
            )
        if self.verdict == "AGREE":
            return f"AGREE: {gap}."
        if self.verdict == "WITHIN THE NOISE":
            return (
                f"WITHIN THE NOISE: IQR as a share of the median: {shares}, past the 10% at which "
                f"torch.utils.benchmark warns of system fluctuation, and wider than the {self.difference:.0%} "
                f"between the medians ({medians}): this machine is not quiet enough to test a "
                f"{self.tolerance:.0%} agreement. Run both again when it is."
            )
        return (
            f"DISAGREE: {gap}, more than their spreads ({shares}) explain. Something differs between "
            "the two methods (threads, buffers, warm-up), or the machine changed between them."
        )

    def __repr__(self) -> str:
        return str(self)


def with_spread(seconds: Iterable[float]) -> str:
    """'1.20 ms (IQR 4%)': a median with its spread, for one cell of a table."""
    spread = Spread.of(seconds)
    if spread.samples < 2:
        return f"{fmt_time(spread.median)} (1 sample)"
    return f"{fmt_time(spread.median)} (IQR {spread.relative:.0%})"


def noise_note(timings: dict[str, Iterable[float]]) -> str | None:
    """One sentence naming the timings whose spread leaves their median no meaning; None if none does."""
    spreads = {name: Spread.of(seconds) for name, seconds in timings.items()}
    noisy = [name for name, s in spreads.items() if s.samples > 1 and not s.meaningful]  # 1 sample: "(1 sample)"
    if not noisy:
        return None
    return (
        f"Too noisy to compare: {', '.join(noisy)} (IQR 25% of the median or more, where "
        "torch.utils.benchmark warns of 'significant environmental influence'). Measure again on a quiet machine."
    )


def compare(first, second, *, names: tuple[str, str] = ("first", "second"), tolerance: float = AGREE_TOLERANCE) -> Agreement:
    """Compare two timings: ``Spread``s, anything with a ``.spread`` (a ``Transfer``), or samples."""
    if not (0 < tolerance < 1):
        raise ValueError(f"tolerance is a share of the median between 0 and 1, got {tolerance!r}; for example {AGREE_TOLERANCE}.")
    return Agreement(_spread(first), _spread(second), tuple(names), tolerance)


def _spread(timing) -> Spread:
    if isinstance(timing, Spread):
        return timing
    if hasattr(timing, "spread"):
        return timing.spread
    return Spread.of(timing)
