"""mismatches: finding tensors on the wrong device before the forward pass, and what mixing devices returns."""

import pytest
import torch
from torch import nn

from course_utils.mismatches import find_device_mismatches, try_mixed

# --------------------------------------------------------------------------- find_device_mismatches


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 2)
        self.register_buffer("mu", torch.zeros(3))
        self.scale = torch.ones(2)  # a plain attribute: .to() leaves it behind

    def forward(self, x):
        return self.fc(x - self.mu) * self.scale


def test_mismatches_after_moving_the_model():
    net = Net().to("meta")
    report = find_device_mismatches(net, torch.ones(1, 3), {"mask": torch.ones(2, device="meta"), "y": [torch.tensor(1.0)]})
    assert report.expected == "meta" and "most parameters (2 of 2)" in report.basis
    assert report.names == ("scale", "input[0]", "input[1]['y'][0]")
    assert [m.kind for m in report.mismatches] == ["attribute", "input", "input"]
    assert report.checked == 7 and not report.ok
    assert "register_buffer('scale'" in report.mismatches[0].fix
    assert report.mismatches[1].fix == "input[0].to('meta')"
    assert report.mismatches[2].is_cpu_scalar and not report.mismatches[1].is_cpu_scalar
    assert "0-dim CPU" in str(report) and "<table>" in report._repr_html_()
    # and the forward pass indeed fails, as the report predicted
    with pytest.raises(RuntimeError, match="not on the expected device"):
        net(torch.ones(1, 3))


def test_everything_in_place_is_ok():
    report = find_device_mismatches(Net(), torch.ones(1, 3), (torch.ones(1),))
    assert report.ok and report.expected == "cpu" and report.checked == 6
    assert "all 6 tensors are on cpu" in str(report)


def test_expected_can_be_given():
    report = find_device_mismatches(Net(), torch.ones(1, 3), expected="meta")
    assert report.basis == "given" and report.checked == 5 and len(report.mismatches) == 5
    assert set(report.names) == {"fc.weight", "fc.bias", "mu", "scale", "input[0]"}
    assert {m.fix for m in report.mismatches if m.kind == "parameter"} == {"model.to('meta')"}
    assert find_device_mismatches(Net(), expected=torch.device("cpu")).ok


def test_majority_and_ties_are_said():
    mixed = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 2))
    mixed[1].to("meta")
    report = find_device_mismatches(mixed)
    assert "split evenly" in report.basis and report.expected == "cpu"
    mixed[0].bias.data = torch.ones(2, device="cpu")  # still cpu: 2 vs 2
    three = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 2), nn.Linear(2, 2))
    three[0].to("meta")
    assert find_device_mismatches(three).expected == "cpu"
    buffers_only = nn.BatchNorm1d(2, affine=False).to("meta")
    assert find_device_mismatches(buffers_only).basis.startswith("most buffers")


def test_mismatch_bad_input():
    with pytest.raises(TypeError, match="Pass the model first"):
        find_device_mismatches(torch.ones(1), Net())
    with pytest.raises(ValueError, match="no parameters or buffers"):
        find_device_mismatches(nn.ReLU(), torch.ones(1))
    assert not find_device_mismatches(nn.ReLU(), torch.ones(1), expected="meta").ok
    with pytest.raises(ValueError, match="not a device"):
        find_device_mismatches(Net(), expected="gpu")
    with pytest.raises(TypeError, match="device name or torch.device"):
        find_device_mismatches(Net(), expected=0)


def test_self_referencing_inputs_do_not_recurse_forever():
    loop = [torch.ones(1)]
    loop.append(loop)
    report = find_device_mismatches(Net(), loop, expected="meta")
    assert "input[0][0]" in report.names


# --------------------------------------------------------------------------- try_mixed


def test_try_mixed_reports_each_outcome_honestly():
    # Built from behaviour that does not depend on the PyTorch version: meta + cpu raises; the other
    # outcomes are produced directly, as an operation returning them would.
    c, m = torch.ones(3, 3), torch.ones(3, 3, device="meta")
    raised = try_mixed("m + c", lambda: m + c, c + c)
    assert raised.raised and raised.device is None and "RuntimeError" in raised.detail
    meta = try_mixed("a meta result", lambda: torch.empty(3, 3, device="meta"), c + c)
    assert meta.outcome == "meta result" and meta.device == "meta" and not meta.raised
    garbage = try_mixed("unchanged in place", lambda: c.clone(), c + c)
    assert garbage.outcome == "wrong values" and garbage.device == "cpu" and "garbage" in garbage.detail
    assert try_mixed("wrong shape", lambda: torch.full((3,), 2.0), c + c).outcome == "wrong values"
    assert try_mixed("c + c", lambda: c + c, c * 2).outcome == "right values"
    assert try_mixed("no reference", lambda: c + c).outcome == "wrong values"
    assert try_mixed("not a tensor", lambda: 3, c).outcome == "wrong values"
    assert "RAISED" in str(raised) and "<code>" in meta._repr_html_()
    with pytest.raises(TypeError, match="function to call"):
        try_mixed("x", m + 1)
