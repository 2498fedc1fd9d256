"""course_utils.bigmodels: sizes from shapes, hooks that move inputs (the planner of a device map is
exercise 10.2: its reference and table are in tests/test_case_tables.py). Lesson: notebook 10."""

import pytest
import torch
from torch import nn

from course_utils.bigmodels import Dispatched, dispatch, module_bytes, still_on_meta
from course_utils.checks import check


def test_module_bytes_counts_parameters_and_buffers_from_shapes_on_meta():
    assert module_bytes(nn.Linear(10, 10, device="meta")) == (100 + 10) * 4
    assert module_bytes(nn.Linear(10, 10, device="meta", dtype=torch.float16)) == (100 + 10) * 2
    # BatchNorm1d(4): weight, bias, running_mean, running_var (float32) and num_batches_tracked (int64)
    assert module_bytes(nn.BatchNorm1d(4, device="meta")) == 4 * 4 * 4 + 8


def test_module_bytes_counts_tied_weights_once():
    model = nn.Sequential(nn.Embedding(5, 3), nn.Linear(3, 5, bias=False))
    model[1].weight = model[0].weight
    assert module_bytes(model) == 5 * 3 * 4


def test_dispatch_moves_layers_and_their_inputs_then_remove_takes_the_hooks_off():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    expected_shape = model(torch.randn(3, 4)).shape
    placed = dispatch(model, {"0": "cpu", "2": "meta"})
    assert isinstance(placed, Dispatched) and placed.device_map == (("0", "cpu"), ("2", "meta"))
    assert model[2].weight.is_meta and not model[0].weight.is_meta
    out = model(torch.randn(3, 4))
    assert out.is_meta and out.shape == expected_shape  # the hook moved the activation to meta
    assert "2  -> meta" in str(placed)
    placed.remove()
    with pytest.raises(RuntimeError):
        model(torch.randn(3, 4))  # without the hook the CPU activation meets meta weights


def test_dispatch_moves_tensors_in_keyword_and_nested_arguments():
    class Pair(nn.Module):
        def forward(self, xs, scale=None):
            return xs[0].device, xs[1]["b"].device, scale.device

    model = nn.Sequential()
    model.add_module("pair", Pair())
    dispatch(model, {"pair": "meta"})
    got = model.pair((torch.ones(1), {"b": torch.ones(1)}), scale=torch.ones(1))
    assert got == (torch.device("meta"),) * 3


def test_dispatch_names_an_unknown_layer():
    with pytest.raises(ValueError, match="no layer named 'decoder'.*'0'"):
        dispatch(nn.Sequential(nn.Linear(2, 2)), {"decoder": "cpu"})


def test_still_on_meta_lists_parameters_and_buffers_without_data():
    with torch.device("meta"):
        model = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2))
    assert "1.running_mean" in still_on_meta(model) and "0.weight" in still_on_meta(model)
    model.to_empty(device="cpu")
    assert still_on_meta(model) == ()


class AlwaysEqual(dict):
    def __eq__(self, other):
        return True

    __hash__ = None


class AlwaysEqualInt(int):
    def __eq__(self, other):
        return True

    __hash__ = int.__hash__


@pytest.mark.parametrize(
    "id, answer",
    [
        ("10.2", lambda model, budgets: AlwaysEqual()),
        ("10.3", lambda model, optimizer: AlwaysEqual()),
        ("10.4", lambda model, on_cpu: AlwaysEqualInt(0)),
    ],
)
def test_a_dict_that_claims_to_equal_anything_fails(id, answer):
    result = check(id, answer)
    assert result.status == "fail", result
