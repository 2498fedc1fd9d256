"""Plots of measured copies: bandwidth against size, and the variants side by side.

Lesson: notebook 06 (transfers and timing). Matplotlib only. Each function draws what it is
given onto ``ax`` (a new figure from pyplot when ``ax`` is None) and returns the Axes; none
changes ``rcParams`` or any other global setting. When the data is a host-memory stand-in
(no accelerator), the title says so and the PCIe lines are marked as reference only; where the
stand-in rises above a PCIe line, a note inside the axes says it is not a PCIe figure.

Every point carries its spread (a band or whiskers spanning the IQR). A timing whose IQR is 25%
of its median or more, the level at which ``torch.utils.benchmark`` warns of "significant
environmental influence" (``course_utils.transfer.spread``), is marked as noise on the plot.
"""

from __future__ import annotations

from collections.abc import Iterable

from matplotlib.ticker import LogFormatter, NullLocator, ScalarFormatter

from course_utils.transfer.ceilings import Ceiling, PcieLink, reference_ceilings
from course_utils.transfer.results import STAND_IN, Sweep, Transfer, fmt_bytes
from course_utils.transfer.spread import AGREE_TOLERANCE

NOISE_LABEL = "IQR ≥ 25% of the median: noise"  # torch.utils.benchmark's gross-warning threshold
NOT_PCIE_NOTE = "above a PCIe line: a CPU-to-CPU copy\nof host memory, not a PCIe figure"

CEILING_STYLES = ("dotted", "dashdot", "dashed", (0, (5, 1)), (0, (1, 1)))


def _axes(ax):
    if ax is None:
        import matplotlib.pyplot as plt

        # Constrained layout makes room for a legend placed outside the axes, off the data.
        _, ax = plt.subplots(figsize=(10, 4.5), layout="constrained")
    return ax


def _unpack(results: Sweep | Iterable[Transfer]) -> tuple[list[Transfer], PcieLink | None]:
    if isinstance(results, Sweep):
        return list(results.results), results.machine.link
    if isinstance(results, Transfer):
        return [results], None
    items = list(results)
    bad = [type(r).__name__ for r in items if not isinstance(r, Transfer)]
    if bad:
        raise TypeError(
            f"expected a Sweep or Transfer results, found {', '.join(sorted(set(bad)))}; pass what measure_copy() or sweep() returned."
        )
    return items, None


def _size_axis(ax, sizes: list[int]) -> None:
    ax.set_xscale("log", base=2)
    ticks = sorted(set(sizes))
    if len(ticks) > 9:
        ticks = ticks[:: max(1, len(ticks) // 9)]
    ax.set_xticks(ticks)
    ax.set_xticklabels([fmt_bytes(s) for s in ticks], rotation=30, ha="right")
    ax.xaxis.set_minor_locator(NullLocator())  # keep the log y axis's minor labels
    ax.set_xlabel("bytes per copy")


def plot_bandwidth(
    results: Sweep | Iterable[Transfer],
    ax=None,
    *,
    ceilings: Iterable[Ceiling] | None = None,
    highlight: Transfer | None = None,
):
    """GB/s against copy size (log-log), one line per variant, the IQR shaded, PCIe ceilings as lines.

    Each line joins the *fastest* sample at each size (``Transfer.gbps_best``): on a busy machine
    other work only ever slows a copy, so the best sample is the robust estimate of the copy path,
    while the median can fall by half. The shaded band is the middle half of the samples (IQR),
    so the noise stays visible. The legend sits outside the axes, right of the data.

    ``ceilings`` defaults to PCIe Gen3, Gen4 and Gen5 x16; a sweep's machine link adds this
    machine's own ceiling. ``highlight`` circles one result.
    """
    items, link = _unpack(results)
    ax = _axes(ax)
    _draw_variants(ax, items)
    if highlight is not None:
        ax.plot(
            [highlight.nbytes],
            [highlight.gbps_best],
            marker="o",
            markersize=14,
            markerfacecolor="none",
            markeredgecolor="black",
            linestyle="none",
            label=f"latest: {highlight.gbps_best:.2f} GB/s (best)",
        )
    ceilings = list(reference_ceilings() if ceilings is None else ceilings)
    if link is not None and link.ceiling_max is not None and link.ceiling_max not in ceilings:
        ceilings.append(link.ceiling_max)
    _draw_ceilings(ax, ceilings, link, items)
    ax.set_yscale("log")
    # Plain numbers (20, 30, 60) rather than 2 x 10^1: bandwidths span only a decade or two.
    ax.yaxis.set_major_formatter(ScalarFormatter())
    ax.yaxis.set_minor_formatter(LogFormatter(labelOnlyBase=False, minor_thresholds=(2, 0.5)))
    ax.set_ylabel("GB/s (10⁹ bytes/s): line = fastest sample,\nband = middle half of samples")
    if items:
        _size_axis(ax, [r.nbytes for r in items])
    ax.set_title(_title("Copy bandwidth against size", items))
    ax.grid(True, which="major", alpha=0.3)
    _legend_outside(ax)
    return ax


def _draw_variants(ax, items: list[Transfer]) -> None:
    """One line per variant through its fastest samples, the IQR band around it, a cross on each noisy point."""
    groups: dict = {}
    for r in items:
        groups.setdefault(r.label, []).append(r)
    noise_labelled = False
    for label, rs in groups.items():
        rs.sort(key=lambda r: r.nbytes)
        xs = [r.nbytes for r in rs]
        (line,) = ax.plot(xs, [r.gbps_best for r in rs], marker="o", markersize=4, label=label)
        if len(rs) > 1:
            lows, highs = zip(*(r.gbps_range for r in rs))
            ax.fill_between(xs, lows, highs, color=line.get_color(), alpha=0.2, linewidth=0)
        noisy = [r for r in rs if not r.spread.meaningful]
        if noisy:
            ax.plot(
                [r.nbytes for r in noisy],
                [r.gbps_best for r in noisy],
                marker="x",
                markersize=10,
                color=line.get_color(),
                linestyle="none",
                label=None if noise_labelled else NOISE_LABEL,
            )
            noise_labelled = True


def _draw_ceilings(ax, ceilings: list[Ceiling], link: PcieLink | None, items: list[Transfer]) -> None:
    """The PCIe ceilings as horizontal lines (this machine's link in black); for the stand-in, a note that they do not apply."""
    stand_in = any(r.stand_in for r in items)
    suffix = " (reference only: not what was measured)" if stand_in else ""
    for i, c in enumerate(ceilings):
        mine = link is not None and link.ceiling_max == c
        ax.axhline(
            c.gbps,
            color="black" if mine else "grey",
            linewidth=1.2 if mine else 0.8,
            linestyle=CEILING_STYLES[i % len(CEILING_STYLES)],
            label=f"{c.label} ceiling {c.gbps:.1f} GB/s" + (" (this machine's link)" if mine else "") + suffix,
        )
    if stand_in and ceilings and items:
        peak = max(items, key=lambda r: r.gbps_best)
        if max(max(r.gbps_best, r.gbps_range[1]) for r in items) > min(c.gbps for c in ceilings):
            ax.annotate(
                NOT_PCIE_NOTE,
                xy=(peak.nbytes, peak.gbps_best),
                xytext=(0.03, 0.06),
                textcoords="axes fraction",
                fontsize="small",
                va="bottom",
                bbox=dict(facecolor="white", edgecolor="grey", alpha=0.9),
                arrowprops=dict(arrowstyle="->", color="grey"),
            )


def plot_variants(results: Sweep | Iterable[Transfer], ax=None):
    """Grouped bars at the largest size measured: pageable/pinned host memory × blocking/non_blocking, per direction.

    The whiskers span the IQR. A variant that was not measured (pinned memory without an
    accelerator) is marked as such.
    """
    items, _ = _unpack(results)
    if not items:
        raise ValueError("plot_variants needs at least one result; pass what sweep() returned.")
    size = max(r.nbytes for r in items)
    at_size = [r for r in items if r.nbytes == size]
    ax = _axes(ax)
    stand_in = any(r.stand_in for r in at_size)
    groups: list[tuple[str, str, bool | None]] = []  # (label, direction, pinned)
    for direction in dict.fromkeys(r.direction for r in at_size):
        pins = [None] if direction == "d2d" else [False, True]
        for pin in pins:
            name = {None: "device", False: "pageable", True: "pinned"}[pin]
            groups.append((f"{direction}\n{name}" if not stand_in else f"h2h stand-in\n{name}", direction, pin))
    width = 0.38
    tops = []
    for j, nb in enumerate((False, True)):
        xs, heights, errs = [], [], [[], []]
        for i, (_, direction, pin) in enumerate(groups):
            match = [r for r in at_size if r.direction == direction and r.pinned == pin and r.non_blocking == nb]
            x = i + (j - 0.5) * width
            if match:
                r = match[0]
                low, high = r.gbps_range
                xs.append(x)
                heights.append(r.gbps)
                errs[0].append(max(0.0, r.gbps - low))
                errs[1].append(max(0.0, high - r.gbps))
                tops.append(max(high, r.gbps))
            elif j == 0:
                why = "needs an\naccelerator" if (pin and stand_in) else "not\nmeasured"
                ax.text(i, 0.5, why, ha="center", va="center", color="grey", transform=ax.get_xaxis_transform())
        if xs:
            ax.bar(xs, heights, width, yerr=errs, capsize=3, label="non_blocking=True" if nb else "blocking (non_blocking=False)")
    if tops:
        for i, (_, direction, pin) in enumerate(groups):
            pair = [
                next((r for r in at_size if r.direction == direction and r.pinned == pin and r.non_blocking == nb), None) for nb in (False, True)
            ]
            if None not in pair:
                ax.text(i, max(tops) * 1.04, blocking_verdict(*pair), ha="center", va="bottom", fontsize="small")
        ax.set_ylim(0, max(tops) * 1.3)
    ax.set_xlim(-0.6, len(groups) - 0.4)
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels([g[0] for g in groups])
    ax.set_ylabel("GB/s (median; whiskers: IQR)")
    ax.set_title(_title(f"{fmt_bytes(size)} copies: pageable vs pinned, blocking vs non_blocking", at_size))
    _legend_outside(ax)
    return ax


def blocking_verdict(blocking: Transfer, non_blocking: Transfer) -> str:
    """What the gap between a blocking and a non_blocking bar means, in a few words for the plot.

    A gap counts only when both spreads leave their medians a meaning, the middle halves of the
    samples (the IQR whiskers) do not overlap, and the medians are further apart than the tolerance
    within which two timings of one copy agree (``spread.AGREE_TOLERANCE``, 10%). A CPU-to-CPU copy ignores ``non_blocking`` (the CPU
    copy kernel takes the flag and drops it), so on the stand-in any gap is the machine, not the flag.
    """
    pair = (blocking, non_blocking)
    if not all(r.spread.meaningful for r in pair):
        return "IQR ≥ 25% of the median:\nnoise, no verdict"
    (low_b, high_b), (low_n, high_n) = blocking.gbps_range, non_blocking.gbps_range
    gap = abs(non_blocking.gbps - blocking.gbps) / min(blocking.gbps, non_blocking.gbps)
    if low_b <= high_n and low_n <= high_b:
        return f"{gap:.0%} apart, within the spread:\nno difference measured"
    if gap <= AGREE_TOLERANCE:
        return f"{gap:.0%} apart, within {AGREE_TOLERANCE:.0%}:\nno difference measured"
    if any(r.stand_in for r in pair):
        return f"{gap:.0%} apart, beyond the spread:\nthe machine changed (CPU copies\nignore non_blocking)"
    faster = "non_blocking" if non_blocking.gbps > blocking.gbps else "blocking"
    return f"{faster} {gap:.0%} faster,\nbeyond the spread"


def _legend_outside(ax) -> None:
    # Right of the axes, so no line, band or bar is hidden behind it ("best" placement still
    # covers data once nine variants and four ceilings share one plot).
    ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0)


def _title(base: str, items: list[Transfer]) -> str:
    if any(r.stand_in for r in items):
        return f"{base}\n{STAND_IN} — not a PCIe measurement"
    devices = sorted({r.device for r in items})
    return f"{base} on {', '.join(devices)}" if devices else base
