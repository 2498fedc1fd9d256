"""widgets: the TransferExplorer driven from Python, as a learner's clicks would drive it, with a fake measure."""

import matplotlib

matplotlib.use("Agg")

import pytest  # noqa: E402
import torch  # noqa: E402

from course_utils.transfer import STAND_IN, Transfer  # noqa: E402
from course_utils.widgets import TransferExplorer  # noqa: E402


class FakeMeasure:
    """Returns a Transfer built from the plan, a little faster each call, and records every plan."""

    def __init__(self, fail=False):
        self.plans = []
        self.fail = fail

    def __call__(self, plan, progress):
        self.plans.append(plan)
        if self.fail:
            raise RuntimeError("CUDA error: out of memory")
        for done in range(1, 4):
            progress(done, 3)
        seconds = plan.request.nbytes / (1e9 * len(self.plans))
        return Transfer(
            plan.direction,
            plan.request.nbytes,
            plan.pinned,
            plan.request.non_blocking,
            plan.device,
            (seconds, seconds * 1.1),
            stand_in=plan.stand_in,
        )


def test_it_measures_once_when_shown_and_has_stable_names_for_browser_tests():
    fake = FakeMeasure()
    e = TransferExplorer("cpu", measure=fake)
    assert len(fake.plans) == 1 and e.measurements == 1 and bytes(e.image.value).startswith(b"\x89PNG")
    assert [
        e.size.description,
        e.direction.description,
        e.pinned.description,
        e.non_blocking.description,
        e.run_button.description,
        e.progress.description,
    ] == ["size", "direction", "pinned", "non_blocking", "Run", "progress"]
    assert "transfer-explorer" in e.root._dom_classes
    assert "transfer-explorer-plot" in e.plot._dom_classes
    assert e.image in e.plot.children and e.status in e.plot.children
    assert "application/vnd.jupyter.widget-view+json" in e._repr_mimebundle_()


def test_moving_the_size_control_remeasures_and_redraws():
    fake = FakeMeasure()
    e = TransferExplorer("cpu", measure=fake)
    first_png = e.image.value
    e.size.value = 4096
    assert fake.plans[-1].request.nbytes == 4096 and e.measurements == 2
    assert e.image.value != first_png and "4 KiB" in e.status.value
    assert e.progress.value == e.progress.max == 3 and e.progress.bar_style == "success"
    assert len(e.results) == 2  # one point per size so far: the curve grows


def test_toggles_remeasure_and_run_repeats_the_same_settings():
    fake = FakeMeasure()
    e = TransferExplorer("cuda:0", measure=fake)  # a fake measure needs no GPU to drive a GPU explorer
    e.direction.value = "d2h"
    e.non_blocking.value = True
    assert fake.plans[-1].direction == "d2h" and fake.plans[-1].request.non_blocking
    e.run_button.click()
    assert len(fake.plans) == 4 and fake.plans[-1] == fake.plans[-2]
    assert len(e.results) == 3  # the rerun replaced the d2h non_blocking point instead of adding one
    assert STAND_IN not in e.status.value


def test_on_the_cpu_everything_is_a_labelled_stand_in_and_pinned_is_off():
    fake = FakeMeasure()
    e = TransferExplorer("cpu", measure=fake)
    assert e.pinned.disabled  # the CPU: nothing to pin for
    assert fake.plans[-1].direction == "h2h" and fake.plans[-1].stand_in
    assert STAND_IN in e.status.value and STAND_IN in e.root.children[0].value
    e.direction.value = "d2d"
    assert fake.plans[-1].direction == "h2h" and "asked for d2d" in e.status.value


def test_a_failing_measurement_is_shown_not_raised():
    fake = FakeMeasure(fail=True)
    e = TransferExplorer("cpu", measure=fake)
    assert e.measurements == 0 and isinstance(e.error, RuntimeError)
    assert "measurement failed" in e.status.value and "out of memory" in e.status.value
    assert e.progress.bar_style == "danger"
    fake.fail = False
    e.run_button.click()
    assert e.error is None and e.measurements == 1


def test_initial_size_and_no_measurement_until_asked():
    fake = FakeMeasure()
    e = TransferExplorer("cpu", measure=fake, initial_size=65536, run_now=False)
    assert fake.plans == [] and e.size.value == 65536 and e.image.value == b""
    assert e.update().nbytes == 65536


@pytest.mark.slow
def test_the_real_measure_on_this_machine():
    e = TransferExplorer(initial_size=65536)
    assert e.latest is not None and e.latest.nbytes == 65536 and e.latest.gbps > 0
    if not torch.cuda.is_available():
        assert e.latest.stand_in and STAND_IN in e.status.value
