"""plots: draw what they are given, return the Axes, label stand-ins, touch no global setting."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from course_utils.transfer import STAND_IN, Transfer, Variants, sweep  # noqa: E402
from course_utils.transfer.ceilings import PcieLink, pcie_ceiling  # noqa: E402
from course_utils.transfer.plots import NOISE_LABEL, NOT_PCIE_NOTE, blocking_verdict, plot_bandwidth, plot_variants  # noqa: E402
from course_utils.transfer.results import MeasuringMachine, Sweep  # noqa: E402

SIZES = (4096, 65536, 2**20)


def gpu_results():
    """Hand-made results, as a GPU would give them (plots only draw; no GPU needed)."""
    out = []
    for size in SIZES:
        for direction in ("h2d", "d2h"):
            for pinned in (False, True):
                for nb in (False, True):
                    speed = (20e9 if pinned else 10e9) * size / (size + 65536)
                    secs = tuple(size / speed * f for f in (0.95, 1.0, 1.1))
                    out.append(Transfer(direction, size, pinned, nb, "cuda:0", secs))
        out.append(Transfer("d2d", size, None, False, "cuda:0", (size / 1e12, size / 9e11)))
    return out


def stand_in_results():
    return [Transfer("h2h", s, False, nb, "cpu", (s / 5e9, s / 4e9), stand_in=True) for s in SIZES for nb in (False, True)]


@pytest.fixture
def ax():
    fig = Figure()
    return fig.add_subplot()


def legend_texts(ax):
    return [t.get_text() for t in ax.get_legend().get_texts()]


def test_bandwidth_plot_draws_one_line_per_variant_and_the_ceilings(ax):
    results = gpu_results()
    assert plot_bandwidth(results, ax) is ax
    labels = legend_texts(ax)
    assert sum("ceiling" in t for t in labels) == 3
    assert len([t for t in labels if "ceiling" not in t]) == 9  # 8 host variants + d2d
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    assert STAND_IN not in ax.get_title() and "cuda:0" in ax.get_title()
    h2d_pinned = [line for line in ax.get_lines() if line.get_label() == "h2d pinned blocking"][0]
    assert list(h2d_pinned.get_xdata()) == list(SIZES)
    expected = [t.gbps_best for t in results if t.label == "h2d pinned blocking"]
    assert list(h2d_pinned.get_ydata()) == pytest.approx(expected)


def test_bandwidth_line_is_the_fastest_sample_and_the_band_shows_the_noise(ax):
    """A busy machine: most samples of the big copy slowed to a third, the fastest untouched.

    The line must stay at the copy path's speed (the median would show 1/3 of it) and the
    shaded band must reach down to the slowed samples, so the noise is shown, not hidden.
    """
    fast = 2**20 / 10e9
    quiet = Transfer("h2d", 2**20, True, False, "cuda:0", (fast, fast * 1.05, fast * 1.1))
    busy = Transfer("h2d", 2**22, True, False, "cuda:0", (4 * fast, 4 * fast * 1.02) + (12 * fast,) * 5)
    assert busy.gbps == pytest.approx(busy.gbps_best / 3) and busy.gbps_best == pytest.approx(10.0)
    plot_bandwidth([quiet, busy], ax, ceilings=())
    line = [ln for ln in ax.get_lines() if ln.get_label() == "h2d pinned blocking"][0]
    assert list(line.get_ydata()) == pytest.approx([10.0, 10.0])
    (band,) = ax.collections
    ys = band.get_paths()[0].vertices[:, 1]
    assert min(ys) == pytest.approx(min(busy.gbps_range)) and min(ys) <= busy.gbps < 10.0


def test_legend_sits_outside_the_axes_off_the_data():
    from matplotlib.figure import Figure

    for draw in (plot_bandwidth, plot_variants):
        fig = Figure(figsize=(11, 5), layout="constrained")
        ax = fig.add_subplot()
        draw(gpu_results(), ax)
        fig.canvas.draw()
        legend_box, axes_box = ax.get_legend().get_window_extent(), ax.get_window_extent()
        assert legend_box.x0 >= axes_box.x1, f"{draw.__name__}: legend overlaps the axes"


def test_notebook_plot_cells_print_no_axes_repr():
    """A cell that ends on a plot call shows '<Axes: ...>' above the figure unless it ends with ';'."""
    import ast
    from pathlib import Path

    source = (Path(__file__).parent.parent / "notebooks" / "06_transfers_and_timing.py").read_text()
    plot_cells = 0
    for cell in source.split("# %%"):
        code = "\n".join(line for line in cell.splitlines()[1:] if not line.startswith("#")).strip()
        if not code:
            continue
        try:
            last = ast.parse(code).body[-1]
        except SyntaxError:
            continue
        if isinstance(last, ast.Expr) and isinstance(last.value, ast.Call) and getattr(last.value.func, "id", "").startswith("plot_"):
            plot_cells += 1
            assert code.rstrip().endswith(";"), f"plot cell prints the Axes repr: {code.splitlines()[-1]!r}"
    assert plot_cells >= 2  # plot_bandwidth and plot_variants: the test must see the cells it guards


def test_bandwidth_plot_of_a_stand_in_says_so(ax):
    plot_bandwidth(stand_in_results(), ax)
    assert STAND_IN in ax.get_title() and "not a PCIe measurement" in ax.get_title()
    assert all("reference only" in t for t in legend_texts(ax) if "ceiling" in t)


def test_the_machines_link_is_marked(ax):
    link = PcieLink(gen_current=1, width_current=8, gen_max=4)
    result = Sweep(tuple(gpu_results()), MeasuringMachine("cuda:0", "GPU", "2.x", "12.6", False, link))
    plot_bandwidth(result, ax, ceilings=[pcie_ceiling(5)])
    labels = legend_texts(ax)
    assert any("Gen4 x8" in t and "this machine's link" in t for t in labels)
    assert any("Gen5 x16" in t for t in labels)


def test_highlight_and_bad_input(ax):
    latest = gpu_results()[0]
    plot_bandwidth([latest], ax, highlight=latest, ceilings=())
    assert any(t.startswith("latest:") for t in legend_texts(ax))
    with pytest.raises(TypeError, match="expected a Sweep or Transfer"):
        plot_bandwidth([1, 2], ax)


def test_variant_bars(ax):
    assert plot_variants(gpu_results(), ax) is ax
    labels = [t.get_text() for t in ax.get_xticklabels()]
    assert labels == ["h2d\npageable", "h2d\npinned", "d2h\npageable", "d2h\npinned", "d2d\ndevice"]
    assert len(ax.patches) == 9  # 4 groups × 2 bars + d2d blocking only
    assert "1 MiB" in ax.get_title()
    with pytest.raises(ValueError, match="at least one result"):
        plot_variants([], ax)


def test_variant_bars_of_a_stand_in_mark_what_needs_an_accelerator(ax):
    plot_variants(stand_in_results(), ax)
    assert STAND_IN in ax.get_title()
    assert any("needs an" in t.get_text() for t in ax.texts)
    assert all("stand-in" in t.get_text() for t in ax.get_xticklabels())


def test_a_real_cpu_sweep_plots_and_no_global_setting_changes():
    before = dict(matplotlib.rcParams)
    result = sweep("cpu", variants=Variants(sizes=(4096, 65536)), budget_s=0.1)
    a = plot_bandwidth(result)  # no ax: a new pyplot figure
    b = plot_variants(result)
    try:
        assert a.figure is not b.figure and STAND_IN in a.get_title()
    finally:
        plt.close(a.figure)
        plt.close(b.figure)
    assert dict(matplotlib.rcParams) == before


def texts(ax):
    return [t.get_text() for t in ax.texts]


def stand_in(gbps, nb=False, spread=(1.0, 1.02, 1.04)):
    size = 2**20
    return Transfer("h2h", size, False, nb, "cpu", tuple(size / (gbps * 1e9) * f for f in spread), stand_in=True)


def test_a_stand_in_above_a_pcie_line_says_it_is_not_a_pcie_figure(ax):
    plot_bandwidth([stand_in(100), stand_in(90, nb=True)], ax)
    assert NOT_PCIE_NOTE in texts(ax)
    below = Figure().add_subplot()
    plot_bandwidth([stand_in(10), stand_in(9, nb=True)], below)
    assert NOT_PCIE_NOTE not in texts(below)  # under every line: nothing to explain
    gpu = Figure().add_subplot()
    plot_bandwidth([Transfer("h2d", 2**20, True, False, "cuda:0", (1e-5, 1.1e-5))], gpu)
    assert NOT_PCIE_NOTE not in texts(gpu)


def test_points_whose_spread_is_noise_are_marked(ax):
    noisy = stand_in(10, spread=(1.0, 1.0, 4.0, 5.0, 9.0))  # IQR far past 25% of the median
    plot_bandwidth([stand_in(20), noisy], ax)
    marked = [line for line in ax.get_lines() if line.get_label() == NOISE_LABEL]
    assert len(marked) == 1 and list(marked[0].get_ydata()) == pytest.approx([noisy.gbps_best])
    quiet = Figure().add_subplot()
    plot_bandwidth(gpu_results(), quiet)
    assert NOISE_LABEL not in legend_texts(quiet)


def test_the_variants_plot_says_what_a_blocking_non_blocking_gap_means(ax):
    assert "within the spread" in blocking_verdict(stand_in(20), stand_in(20.2, nb=True))
    assert "within 10%" in blocking_verdict(stand_in(20), stand_in(21, nb=True))  # whiskers apart, 5% gap
    far = blocking_verdict(stand_in(20), stand_in(29, nb=True))  # the 23.5 vs 29 GB/s, whiskers apart
    assert "beyond the spread" in far and "ignore non_blocking" in far
    assert "noise" in blocking_verdict(stand_in(20), stand_in(29, nb=True, spread=(1.0, 1.0, 4.0, 5.0, 9.0)))
    gpu = [Transfer("h2d", 2**20, True, nb, "cuda:0", (t, t * 1.01, t * 1.02)) for nb, t in ((False, 1e-4), (True, 5e-5))]
    assert blocking_verdict(*gpu).startswith("non_blocking 100% faster")
    plot_variants([stand_in(20), stand_in(21, nb=True)], ax)
    assert any("no difference measured" in t for t in texts(ax))
