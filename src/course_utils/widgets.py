"""Interactive widgets for the course: wiring only; the logic lives in plain functions elsewhere.

Lesson: notebook 06 (transfers and timing). ``TransferExplorer`` connects ipywidgets controls
to ``course_utils.transfer.explore`` (what to measure, and what was measured),
``course_utils.transfer.measure`` (measuring) and ``course_utils.transfer.plots`` (drawing).

Behaviour: **every control re-measures as soon as it changes** (the size slider on release),
so moving the size control updates the plot by itself; **Run** measures the current settings
again (fresh samples, to see the noise). Each measurement takes about 0.3 s of copying. The
plot keeps the latest result of every size and variant measured so far, so moving the slider
traces the bandwidth curve, and circles the latest one.

For browser tests: the controls are described ``size``, ``direction``, ``pinned``,
``non_blocking``, ``Run`` and ``progress``; the root box has the CSS class ``transfer-explorer``,
the plot area ``transfer-explorer-plot`` (an image, ``transfer-explorer-image``, and a status
line, ``transfer-explorer-status``).
"""

from __future__ import annotations

import io

import ipywidgets as widgets
import torch

from course_utils.devices import check_device
from course_utils.display import PROBLEM, escape, markup, tag
from course_utils.transfer.explore import (
    EXPLORER_DIRECTIONS,
    Measure,
    Request,
    default_measure,
    describe,
    plan_request,
    size_options,
)
from course_utils.transfer.measure import can_pin
from course_utils.transfer.plots import plot_bandwidth
from course_utils.transfer.results import STAND_IN, Transfer


def render_png(results: list[Transfer], latest: Transfer | None = None) -> bytes:
    """The explorer's plot as PNG bytes, drawn on a pyplot-free figure (nothing global touched)."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(9.5, 4), layout="constrained")  # wide: the legend sits right of the axes
    plot_bandwidth(results, fig.add_subplot(), highlight=latest)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=90)
    return buffer.getvalue()


class TransferExplorer:
    """Pick a size, a direction, pinned and non_blocking; see the measured bandwidth on a plot.

    ``measure(plan, progress)`` returns a ``Transfer``; tests pass a fake. ``device`` defaults
    to the current accelerator, else the CPU (then every copy is a host-memory stand-in, and the
    status line and plot title say so).
    """

    def __init__(
        self, device: str | torch.device | None = None, *, measure: Measure | None = None, initial_size: int | None = None, run_now: bool = True
    ):
        self.device = check_device(None) if device is None else torch.device(device)
        self.measure = default_measure if measure is None else measure
        self.results: dict[tuple, Transfer] = {}  # latest result per (variant, size)
        self.latest: Transfer | None = None
        self.measurements = 0
        self.error: Exception | None = None

        options = size_options(self.device)
        sizes = [n for _, n in options]
        start = initial_size if initial_size in sizes else sizes[len(sizes) // 2]
        self.size = widgets.SelectionSlider(options=options, value=start, description="size", continuous_update=False)
        self.direction = widgets.ToggleButtons(options=list(EXPLORER_DIRECTIONS), value="h2d", description="direction")
        pinnable = can_pin(self.device)
        self.pinned = widgets.Checkbox(
            value=False, description="pinned", disabled=not pinnable, tooltip="" if pinnable else "pinned memory needs a CUDA device"
        )
        self.non_blocking = widgets.Checkbox(value=False, description="non_blocking")
        self.run_button = widgets.Button(description="Run", button_style="primary", tooltip="measure the current settings again")
        self.progress = widgets.IntProgress(value=0, min=0, max=1, description="progress")
        self.image = widgets.Image(format="png", layout=widgets.Layout(max_width="760px"))
        self.image.add_class("transfer-explorer-image")
        self.status = widgets.HTML()
        self.status.add_class("transfer-explorer-status")
        self.plot = widgets.VBox([self.image, self.status])
        self.plot.add_class("transfer-explorer-plot")
        banner = [] if self.device.type != "cpu" else [widgets.HTML(markup(tag("b", STAND_IN), ": every copy here is CPU-to-CPU, not PCIe."))]
        self.root = widgets.VBox(
            banner
            + [
                self.size,
                self.direction,
                widgets.HBox([self.pinned, self.non_blocking]),
                widgets.HBox([self.run_button, self.progress]),
                self.plot,
            ]
        )
        self.root.add_class("transfer-explorer")

        for control in (self.size, self.direction, self.pinned, self.non_blocking):
            control.observe(self._on_change, names="value")
        self.run_button.on_click(self._on_run)
        if run_now:
            self.update()

    def request(self) -> Request:
        """What the controls ask for now."""
        return Request(int(self.size.value), self.direction.value, bool(self.pinned.value), bool(self.non_blocking.value))

    def update(self) -> Transfer | None:
        """Measure what the controls say, then redraw; on failure show the error instead of raising."""
        plan = plan_request(self.request(), self.device)
        self.progress.value, self.progress.bar_style = 0, "info"
        self.status.value = "measuring…"

        def progress(done: int, total: int) -> None:
            self.progress.max = max(total, 1)
            self.progress.value = min(done, total)

        try:
            result = self.measure(plan, progress)
        except Exception as exc:  # shown in the widget: a callback's traceback would vanish in the browser
            self.error = exc
            self.progress.bar_style = "danger"
            self.status.value = tag("span", f"measurement failed: {type(exc).__name__}: {exc}", colour=PROBLEM)
            return None
        self.error = None
        self.latest = result
        self.measurements += 1
        self.results[(result.variant, result.nbytes)] = result
        self.image.value = render_png(list(self.results.values()), result)
        self.status.value = escape(describe(result, plan))
        self.progress.value, self.progress.bar_style = self.progress.max, "success"
        return result

    def _on_change(self, change) -> None:
        self.update()

    def _on_run(self, button) -> None:
        self.update()

    def _repr_mimebundle_(self, **kwargs):
        return self.root._repr_mimebundle_(**kwargs)
