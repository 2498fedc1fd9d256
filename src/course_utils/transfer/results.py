"""Measured copies as data: raw samples kept, statistics computed, JSON in and out.

Lesson: notebook 06 (transfers and timing). Like ``torch.utils.benchmark.Measurement``, a
``Transfer`` keeps every sample (seconds per copy, one per timed block) and computes the median,
the interquartile range and GB/s as properties, so nothing is lost by summarising.

A result with ``stand_in=True`` was measured on a machine with no accelerator: a CPU-to-CPU copy
of host memory, run so the plots and widgets have real numbers to show. It says so in every
form it takes (text, HTML, JSON, plot titles) and is never a PCIe figure.
"""

from __future__ import annotations

import platform
import statistics
from dataclasses import dataclass, field
from typing import Any

import torch

from course_utils.display import CAUTION, Html, card, markup, require_int, table, tag
from course_utils.transfer.ceilings import PcieLink
from course_utils.transfer.spread import Spread
from course_utils.transfer.spread import fmt_time as fmt_seconds

DIRECTIONS = ("h2d", "d2h", "d2d", "h2h")
DIRECTION_WORDS = {
    "h2d": "host → device",
    "d2h": "device → host",
    "d2d": "device → device",
    "h2h": "host → host",
}
STAND_IN = "host-memory stand-in (no accelerator)"
STAND_IN_NOTE = (
    "host-memory stand-in (no accelerator): a CPU-to-CPU copy of host memory, measured so the "
    "plots and widgets have numbers to show. It is not a PCIe transfer and says nothing about one."
)
SCHEMA = "course-utils/transfer/1"


def fmt_bytes(nbytes: int) -> str:
    """4096 -> '4 KiB', 3 * 2**20 -> '3 MiB', 1500 -> '1500 B'."""
    for unit, size in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if nbytes >= size and nbytes % size == 0:
            return f"{nbytes // size} {unit}"
        if nbytes >= size:
            return f"{nbytes / size:.1f} {unit}"
    return f"{nbytes} B"


@dataclass(frozen=True)
class Transfer:
    """One copy, measured: what was copied, how, where, and every timed sample.

    ``seconds`` holds one sample per timed block: the block's time divided by
    ``copies_per_block``. ``pinned`` is whether the *host* side was pinned (page-locked);
    ``None`` for device-to-device copies. ``stand_in`` marks a host-memory copy measured
    because the machine has no accelerator.
    """

    direction: str
    nbytes: int
    pinned: bool | None
    non_blocking: bool
    device: str
    seconds: tuple[float, ...]
    stand_in: bool = False
    copies_per_block: int = 1

    def __post_init__(self):
        if self.direction not in DIRECTIONS:
            raise ValueError(f"direction must be one of {DIRECTIONS}, got {self.direction!r}.")
        require_int("nbytes", self.nbytes, expected="must be a positive integer", hint="For example 4 * 2**20 for 4 MiB.")
        if not self.seconds or any(not (s > 0) for s in self.seconds):
            raise ValueError(f"seconds must be a non-empty tuple of positive times, got {self.seconds!r}.")
        object.__setattr__(self, "seconds", tuple(float(s) for s in self.seconds))
        if self.stand_in and self.direction != "h2h":
            raise ValueError(f"a stand-in is a host-to-host copy; direction must be 'h2h', got {self.direction!r}.")

    # ---------------------------------------------------------------- statistics

    @property
    def median(self) -> float:
        """Median seconds per copy."""
        return statistics.median(self.seconds)

    @property
    def iqr(self) -> float:
        """Interquartile range of the samples, in seconds (0 with a single sample)."""
        return self.spread.iqr

    @property
    def spread(self) -> Spread:
        """Median, quartiles and torch.utils.benchmark's verdict on them (``spread.warning``)."""
        return Spread.of(self.seconds)

    @property
    def gbps(self) -> float:
        """Bandwidth at the median time, in GB/s (10^9 bytes per second)."""
        return self.nbytes / self.median / 1e9

    @property
    def gbps_best(self) -> float:
        """Bandwidth of the fastest sample, in GB/s. Other processes can only slow a copy down,
        never speed it up, so on a busy machine this is the robust estimate of what the copy path
        can do; the median says what a typical copy got."""
        return self.nbytes / min(self.seconds) / 1e9

    @property
    def gbps_range(self) -> tuple[float, float]:
        """Bandwidth at the third and first quartile of the times: the spread, in GB/s."""
        spread = self.spread
        return self.nbytes / spread.q3 / 1e9, self.nbytes / spread.q1 / 1e9

    # ---------------------------------------------------------------- words

    @property
    def memory(self) -> str:
        """'pinned', 'pageable', or '-' (no host side)."""
        return "-" if self.pinned is None else ("pinned" if self.pinned else "pageable")

    @property
    def mode(self) -> str:
        return "non_blocking" if self.non_blocking else "blocking"

    @property
    def label(self) -> str:
        """The variant, e.g. 'h2d pinned non_blocking', 'h2h stand-in (CPU copy)'."""
        if self.stand_in:
            return f"h2h stand-in (CPU copy) {self.mode}"
        if self.pinned is None:
            return f"{self.direction} {self.mode}"
        return f"{self.direction} {self.memory} {self.mode}"

    @property
    def variant(self) -> tuple[str, bool | None, bool]:
        """What distinguishes one line of a sweep from another: (direction, pinned, non_blocking)."""
        return (self.direction, self.pinned, self.non_blocking)

    def row(self) -> dict[str, str]:
        """One table row, as strings."""
        return {
            "copy": DIRECTION_WORDS[self.direction] + (" (stand-in)" if self.stand_in else ""),
            "size": fmt_bytes(self.nbytes),
            "host memory": self.memory,
            "mode": self.mode,
            "median": fmt_seconds(self.median),
            "IQR": f"{fmt_seconds(self.iqr)} ({self.spread.relative:.0%})",
            "GB/s": f"{self.gbps:.2f}",
            "samples": f"{len(self.seconds)}×{self.copies_per_block}",
        }

    def __str__(self) -> str:
        memory = "" if self.pinned is None else f"{self.memory}, "
        what = f"{DIRECTION_WORDS[self.direction]}, {fmt_bytes(self.nbytes)}, {memory}{self.mode}, on {self.device}"
        text = (
            f"{what}: {self.gbps:.2f} GB/s (median {fmt_seconds(self.median)} per copy, IQR {fmt_seconds(self.iqr)} = "
            f"{self.spread.relative:.0%} of the median, "
            f"{len(self.seconds)} blocks of {self.copies_per_block})"
        )
        if self.stand_in:
            text = f"[{STAND_IN}: CPU-to-CPU copy, not a PCIe figure] " + text
        warning = self.spread.warning
        return text if warning is None else f"{text}\n  WARNING: {warning}"

    def __repr__(self) -> str:
        return (
            f"Transfer(direction={self.direction!r}, nbytes={self.nbytes}, pinned={self.pinned}, "
            f"non_blocking={self.non_blocking}, device={self.device!r}, stand_in={self.stand_in}, "
            f"gbps={self.gbps:.3g}, samples={len(self.seconds)})"
        )

    def _repr_html_(self) -> str:
        banner = _stand_in_banner() if self.stand_in else ""
        warning = self.spread.warning
        note = "" if warning is None else card(CAUTION, "Spread: ", warning)
        return markup(banner, _html_table([self.row()]), note)

    # ---------------------------------------------------------------- JSON

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready data: the raw fields, plus the statistics for readers without this package."""
        data = {
            "direction": self.direction,
            "nbytes": self.nbytes,
            "pinned": self.pinned,
            "non_blocking": self.non_blocking,
            "device": self.device,
            "seconds": list(self.seconds),
            "stand_in": self.stand_in,
            "copies_per_block": self.copies_per_block,
            "median_s": self.median,
            "iqr_s": self.iqr,
            "gbps": self.gbps,
        }
        if self.stand_in:
            data["note"] = STAND_IN_NOTE
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Transfer:
        """The ``Transfer`` that ``to_dict`` wrote (derived fields are recomputed, not trusted)."""
        required = ("direction", "nbytes", "pinned", "non_blocking", "device", "seconds")
        missing = [k for k in required if k not in data]
        if missing:
            raise ValueError(f"Transfer.from_dict: missing {missing}; expected the keys Transfer.to_dict() writes.")
        return cls(
            direction=data["direction"],
            nbytes=int(data["nbytes"]),
            pinned=data["pinned"],
            non_blocking=bool(data["non_blocking"]),
            device=str(data["device"]),
            seconds=tuple(float(s) for s in data["seconds"]),
            stand_in=bool(data.get("stand_in", False)),
            copies_per_block=int(data.get("copies_per_block", 1)),
        )


@dataclass(frozen=True)
class MeasuringMachine:
    """Where numbers were measured: enough for an instructor to compare a class's results."""

    device: str
    device_name: str
    torch_version: str
    cuda_build: str | None
    stand_in: bool
    link: PcieLink | None = None
    python_version: str = field(default_factory=platform.python_version)
    system: str = field(default_factory=platform.system)

    def to_dict(self) -> dict[str, Any]:
        return {
            "device": self.device,
            "device_name": self.device_name,
            "torch_version": self.torch_version,
            "cuda_build": self.cuda_build,
            "stand_in": self.stand_in,
            "link": None if self.link is None else self.link.to_dict(),
            "python_version": self.python_version,
            "system": self.system,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MeasuringMachine:
        link = data.get("link")
        return cls(
            device=data["device"],
            device_name=data["device_name"],
            torch_version=data["torch_version"],
            cuda_build=data.get("cuda_build"),
            stand_in=bool(data["stand_in"]),
            link=None if link is None else PcieLink.from_dict(link),
            python_version=data.get("python_version", ""),
            system=data.get("system", ""),
        )

    def __str__(self) -> str:
        text = f"{self.device} ({self.device_name}), torch {self.torch_version}"
        if self.stand_in:
            text += f" — {STAND_IN}"
        if self.link is not None:
            text += f"; {self.link}"
        return text


def machine_info(device: str | torch.device, link: PcieLink | None = None) -> MeasuringMachine:
    """Describe ``device`` and this machine. ``link`` is ``ceilings.link_info()``'s answer, if asked."""
    dev = torch.device(device)
    if dev.type == "cuda":
        index = dev.index if dev.index is not None else torch.cuda.current_device()
        name = torch.cuda.get_device_name(index)
    elif dev.type == "cpu":
        name = platform.processor() or platform.machine() or "CPU"
    else:
        name = dev.type
    return MeasuringMachine(
        device=str(dev),
        device_name=name,
        torch_version=torch.__version__,
        cuda_build=torch.version.cuda,
        stand_in=dev.type == "cpu",
        link=link,
    )


@dataclass(frozen=True, repr=False)
class Sweep:
    """Many measured copies (sizes × variants) and the machine they ran on."""

    results: tuple[Transfer, ...]
    machine: MeasuringMachine
    skipped: tuple[str, ...] = ()
    budget_s: float | None = None
    elapsed_s: float | None = None

    @property
    def stand_in(self) -> bool:
        return any(r.stand_in for r in self.results) or self.machine.stand_in

    @property
    def noisy(self) -> list[Transfer]:
        """The results whose spread leaves the median no meaning (IQR 25% of the median or more)."""
        return [r for r in self.results if not r.spread.meaningful]

    @property
    def noise_warning(self) -> str | None:
        """One line when some results are noise, by torch.utils.benchmark's 25% rule; else None."""
        if not self.noisy:
            return None
        return (
            f"{len(self.noisy)} of {len(self.results)} timings have an IQR of 25% of the median or more "
            "(torch.utils.benchmark: 'significant environmental influence'): their medians say more "
            "about other work on this machine than about the copy."
        )

    @property
    def title(self) -> str:
        return "Copy bandwidth on " + (f"{STAND_IN}" if self.stand_in else f"{self.machine.device} ({self.machine.device_name})")

    def __str__(self) -> str:
        lines = [self.title]
        if self.stand_in:
            lines.append("NOTE: " + STAND_IN_NOTE)
        rows = [r.row() for r in self.results]
        if rows:
            widths = {k: max(len(k), *(len(row[k]) for row in rows)) for k in rows[0]}
            lines.append("  ".join(k.ljust(w) for k, w in widths.items()))
            for row in rows:
                lines.append("  ".join(row[k].ljust(w) for k, w in widths.items()))
        lines += [f"skipped: {s}" for s in self.skipped]
        if self.noise_warning:
            lines.append("WARNING: " + self.noise_warning)
        if self.elapsed_s is not None:
            lines.append(f"measured in {self.elapsed_s:.1f} s (budget {self.budget_s} s)")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return str(self)

    def _repr_html_(self) -> str:
        banner = _stand_in_banner() if self.stand_in else ""
        skipped = tag("ul", *(tag("li", f"skipped: {s}") for s in self.skipped)) if self.skipped else ""
        noise = card(CAUTION, "Spread: ", self.noise_warning) if self.noise_warning else ""
        return markup(tag("p", tag("b", self.title)), banner, _html_table([r.row() for r in self.results]), skipped, noise)

    def to_dict(self) -> dict[str, Any]:
        data = {
            "schema": SCHEMA,
            "stand_in": self.stand_in,
            "machine": self.machine.to_dict(),
            "results": [r.to_dict() for r in self.results],
            "skipped": list(self.skipped),
            "budget_s": self.budget_s,
            "elapsed_s": self.elapsed_s,
        }
        if self.stand_in:
            data["note"] = STAND_IN_NOTE
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Sweep:
        if data.get("schema") != SCHEMA:
            raise ValueError(f"Sweep.from_dict expects schema {SCHEMA!r}, found {data.get('schema')!r}.")
        return cls(
            results=tuple(Transfer.from_dict(r) for r in data["results"]),
            machine=MeasuringMachine.from_dict(data["machine"]),
            skipped=tuple(data.get("skipped", ())),
            budget_s=data.get("budget_s"),
            elapsed_s=data.get("elapsed_s"),
        )


@dataclass(frozen=True, repr=False)
class Skipped:
    """A measurement that could not run on this machine, and why."""

    what: str
    reason: str

    def __bool__(self) -> bool:
        return False

    def __str__(self) -> str:
        return f"SKIPPED {self.what}: {self.reason}"

    def __repr__(self) -> str:
        return str(self)

    def _repr_html_(self) -> str:
        return tag("p", tag("b", "SKIPPED"), f" {self.what}: {self.reason}", colour=CAUTION)


def _stand_in_banner() -> Html:
    return card(CAUTION, STAND_IN, ": ", STAND_IN_NOTE.split(": ", 1)[1])


def _html_table(rows: list[dict[str, str]]) -> Html:
    if not rows:
        return tag("p", "(no results)")
    return table([list(r.values()) for r in rows], head=list(rows[0]))
