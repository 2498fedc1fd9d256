"""placement: which tensors a module holds, of what kind, on which device; the one device of a module."""

import pytest
import torch
from torch import nn

from course_utils.placement import PlacementReport, TensorPlace, module_device, placement_report


class WithAttribute(nn.Module):
    """The classic bug: a tensor kept as a plain attribute, plus a persistent and a non-persistent buffer."""

    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(4, 2)
        self.scale = torch.full((2,), 0.5)
        self.register_buffer("offset", torch.zeros(2))
        self.register_buffer("mask", torch.ones(2, dtype=torch.bool), persistent=False)

    def forward(self, x):
        return self.linear(x) * self.scale + self.offset


class Nested(nn.Module):
    def __init__(self):
        super().__init__()
        self.block = nn.Sequential(nn.Linear(3, 3), WithAttribute())
        self.head = nn.BatchNorm1d(2)
        self.anchors = [torch.zeros(1), "not a tensor", torch.ones(1)]
        self.table = {"lut": torch.arange(3)}


def by_name(report):
    return {e.name: e for e in report.entries}


def test_kinds_devices_shapes_and_dtypes_of_each_tensor():
    entries = by_name(placement_report(WithAttribute()))
    assert set(entries) == {"linear.weight", "linear.bias", "scale", "offset", "mask"}
    assert entries["linear.weight"] == TensorPlace("linear.weight", "parameter", "cpu", (2, 4), "float32")
    assert entries["scale"].kind == "attribute"
    assert entries["offset"].kind == "buffer" and entries["offset"].persistent
    assert entries["mask"].kind == "buffer" and not entries["mask"].persistent and entries["mask"].dtype == "bool"


def test_kinds_and_persistence_agree_with_state_dict():
    model = Nested()
    saved = {e.name for e in placement_report(model).entries if e.kind == "parameter" or (e.kind == "buffer" and e.persistent)}
    assert saved == set(model.state_dict())


def test_attribute_left_behind_by_to_meta_makes_placement_mixed():
    model = WithAttribute().to("meta")
    report = placement_report(model)
    assert report.devices == ("cpu", "meta")
    assert report.is_mixed
    assert report.by_device["cpu"] == ("scale",)
    assert [e.name for e in report.strays("meta")] == ["scale"]
    assert [e.name for e in report.attributes] == ["scale"]
    assert "MIXED" in str(report) and "register_buffer" in str(report)
    assert "MIXED" in report._repr_html_() and "does not move" in report._repr_html_()


def test_attribute_left_behind_by_a_dtype_change():
    model = WithAttribute().to(torch.float64)
    entries = by_name(placement_report(model))
    assert entries["linear.weight"].dtype == "float64"
    assert entries["offset"].dtype == "float64"
    assert entries["mask"].dtype == "bool"  # .to(dtype) casts floating point tensors only
    assert entries["scale"].dtype == "float32"


def test_all_on_one_device_is_not_mixed():
    report = placement_report(nn.Linear(2, 2))
    assert report.devices == ("cpu",)
    assert not report.is_mixed
    assert report.strays("cpu") == ()
    assert "all on cpu" in str(report)


def test_nested_submodules_get_dotted_names_and_container_attributes_are_found():
    model = Nested().to("meta")
    entries = by_name(placement_report(model))
    assert entries["block.1.scale"].kind == "attribute"
    assert entries["block.1.linear.weight"].device == "meta"
    assert entries["head.num_batches_tracked"].kind == "buffer"
    assert entries["anchors[0]"].device == "cpu" and entries["anchors[2]"].kind == "attribute"
    assert "anchors[1]" not in entries
    assert entries["table['lut']"].dtype == "int64"
    assert set(placement_report(model).by_device["cpu"]) == {"block.1.scale", "anchors[0]", "anchors[2]", "table['lut']"}


def test_shared_parameter_is_listed_once():
    a = nn.Linear(2, 2)
    model = nn.Sequential(a, a)
    names = [e.name for e in placement_report(model).entries]
    assert names == ["0.weight", "0.bias"]


def test_module_without_tensors():
    report = placement_report(nn.ReLU())
    assert report.entries == () and report.devices == () and not report.is_mixed
    assert "no tensors" in str(report)


def test_strays_with_an_index_free_name_matches_any_index():
    report = PlacementReport(
        (
            TensorPlace("a", "parameter", "cuda:0", (1,), "float32"),
            TensorPlace("b", "parameter", "cuda:1", (1,), "float32"),
            TensorPlace("c", "buffer", "cpu", (1,), "float32"),
        )
    )
    assert [e.name for e in report.strays("cuda")] == ["c"]
    assert [e.name for e in report.strays("cuda:1")] == ["a", "c"]
    assert [e.name for e in report.strays(torch.device("cpu"))] == ["a", "b"]
    assert report.devices == ("cpu", "cuda:0", "cuda:1")
    with pytest.raises(ValueError, match="not a device name"):
        report.strays("gpu0")
    with pytest.raises(TypeError, match="device name or torch.device"):
        report.strays(0.5)


def test_module_device_one_device():
    assert module_device(nn.Linear(2, 2)) == torch.device("cpu")
    assert module_device(nn.Linear(2, 2).to("meta")) == torch.device("meta")


def test_module_device_ignores_attributes_but_counts_buffers():
    model = WithAttribute().to("meta")  # scale stays on the CPU; parameters and buffers are on meta
    assert module_device(model) == torch.device("meta")
    only_buffer = nn.Module()
    only_buffer.register_buffer("b", torch.zeros(1, device="meta"))
    assert module_device(only_buffer) == torch.device("meta")


def test_module_device_mixed_names_the_devices():
    model = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 2).to("meta"))
    with pytest.raises(ValueError, match=r"2 devices .*cpu: 0.weight, 0.bias.*meta: 1.weight"):
        module_device(model)


def test_module_device_without_parameters_or_buffers():
    with pytest.raises(ValueError, match="no parameters or buffers"):
        module_device(nn.ReLU())
    assert module_device(nn.ReLU(), default="cpu") == torch.device("cpu")
    assert module_device(nn.ReLU(), default=torch.device("meta")) == torch.device("meta")


@pytest.mark.parametrize("bad", [torch.ones(2), {"w": torch.ones(2)}, "model", None])
def test_bad_input_is_a_type_error_saying_what_to_do(bad):
    for fn in (placement_report, module_device):
        with pytest.raises(TypeError, match=r"expects a torch.nn.Module, but got a \w+\. \w+"):
            fn(bad)


def test_tensor_input_points_at_device_attribute():
    with pytest.raises(TypeError, match=r"tensor.device"):
        placement_report(torch.ones(1))


@pytest.mark.cuda
def test_cuda_attribute_left_behind():
    model = WithAttribute().cuda()
    report = placement_report(model)
    assert report.devices == ("cpu", f"cuda:{torch.cuda.current_device()}")
    assert [e.name for e in report.strays("cuda")] == ["scale"]
    assert module_device(model) == torch.device("cuda", torch.cuda.current_device())


# --------------------------------------------------------------------------- checkpoints

import io  # noqa: E402

from course_utils.checkpoints import checkpoint_locations, retag_checkpoint  # noqa: E402


def saved(obj) -> io.BytesIO:
    buf = io.BytesIO()
    torch.save(obj, buf)
    buf.seek(0)
    return buf


def test_checkpoint_locations_counts_storages_by_tag():
    state = {"a": torch.ones(2), "b": torch.arange(3), "meta": torch.ones(2, device="meta")}
    # a meta tensor has no data, so torch.save writes it without a storage (and without a tag)
    assert checkpoint_locations(saved(state)) == {"cpu": 2}
    view = torch.arange(4.0)
    assert checkpoint_locations(saved({"a": view, "b": view[1:]})) == {"cpu": 1}


def test_retagged_checkpoint_is_what_torch_load_sees_as_saved_on_a_gpu(tmp_path):
    state = {"weight": torch.randn(2, 3), "steps": torch.tensor(7), "cpu": "cpu", "note": ["cpu", 1]}
    src, dst = tmp_path / "cpu.pt", tmp_path / "gpu.pt"
    torch.save(state, src)
    assert retag_checkpoint(src, dst, {"cpu": "cuda:1"}) == {"cuda:1": 2}
    # A dict remap genuinely restores it here; strings equal to the old tag are untouched.
    back = torch.load(dst, map_location={"cuda:1": "cpu"}, weights_only=True)
    assert torch.equal(back["weight"], state["weight"]) and back["steps"].item() == 7
    assert back["cpu"] == "cpu" and back["note"] == ["cpu", 1]
    on_meta = torch.load(dst, map_location={"cuda:1": "meta"}, weights_only=True)
    assert on_meta["weight"].device.type == "meta"


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the CPU-only error")
def test_retagged_checkpoint_raises_the_real_cpu_only_error():
    buf = io.BytesIO()
    retag_checkpoint(saved({"w": torch.ones(1)}), buf, {"cpu": "cuda:0"})
    with pytest.raises(RuntimeError, match="Attempting to deserialize object on a CUDA device"):
        torch.load(buf, weights_only=True)


@pytest.mark.cuda
def test_retagged_checkpoint_loads_onto_the_gpu():
    buf = io.BytesIO()
    retag_checkpoint(saved({"w": torch.ones(1)}), buf, {"cpu": "cuda:0"})
    assert torch.load(buf, weights_only=True)["w"].device == torch.device("cuda:0")


def test_shared_storages_and_views_survive_retagging():
    base = torch.arange(6.0)
    state = {"base": base, "view": base[2:4], "other": torch.zeros(2)}
    buf = io.BytesIO()
    assert retag_checkpoint(saved(state), buf, {"cpu": "cuda:0"}) == {"cuda:0": 2}
    back = torch.load(buf, map_location="cpu", weights_only=True)
    assert torch.equal(back["view"], torch.tensor([2.0, 3.0]))
    assert back["view"].untyped_storage().data_ptr() == back["base"].untyped_storage().data_ptr()


def test_retag_bad_input():
    with pytest.raises(ValueError, match="no storage in this checkpoint is tagged cuda:0.*cpu"):
        retag_checkpoint(saved({"w": torch.ones(1)}), io.BytesIO(), {"cuda:0": "cpu"})
    with pytest.raises(ValueError, match="not a zip"):
        retag_checkpoint(b"not a checkpoint", io.BytesIO(), {"cpu": "cuda:0"})
    with pytest.raises(TypeError, match="dict of str to str"):
        retag_checkpoint(saved({"w": torch.ones(1)}), io.BytesIO(), {"cpu": 0})
    with pytest.raises(ValueError, match="not a device name"):
        retag_checkpoint(saved({"w": torch.ones(1)}), io.BytesIO(), {"cpu": "gpu:0"})
    with pytest.raises(TypeError, match="path, bytes or io.BytesIO"):
        retag_checkpoint(12, io.BytesIO(), {"cpu": "cuda:0"})


def test_retag_a_large_model_and_an_optimizer_state():
    model = nn.Sequential(*[nn.Linear(2, 2) for _ in range(150)])  # 300 storages: memo indices past 255
    opt = torch.optim.Adam(model.parameters())
    model(torch.ones(1, 2)).sum().backward()
    opt.step()
    state = {"model": model.state_dict(), "optimizer": opt.state_dict(), "epoch": 3}
    buf = io.BytesIO()
    tags = retag_checkpoint(saved(state), buf, {"cpu": "cuda:0"})
    assert tags == {"cuda:0": 300 + 3 * 300}  # weights, then Adam's step, exp_avg, exp_avg_sq per parameter
    back = torch.load(buf, map_location=lambda storage, location: storage, weights_only=True)
    assert back["epoch"] == 3
    for key, value in state["model"].items():
        assert torch.equal(back["model"][key], value)
    fresh = torch.optim.Adam(model.parameters())
    fresh.load_state_dict(back["optimizer"])
    assert torch.equal(fresh.state[model[0].weight]["exp_avg"], opt.state[model[0].weight]["exp_avg"])
