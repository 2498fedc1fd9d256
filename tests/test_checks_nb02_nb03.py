"""The checks of notebooks 02 and 03: right answers pass, typical wrong answers fail with a reason,
and a check never leaves the default device changed."""

import pytest
import torch
from torch import nn

from course_utils.checks import check
from course_utils.scopes import default_device


def status(id, answer):
    result = check(id, answer)
    assert result.status in ("pass", "fail", "not-attempted"), result  # never "error": that is a course bug
    return result


def stub(*args, **kwargs):
    raise NotImplementedError()


@pytest.mark.parametrize("id", ["02.1", "02.2", "02.3", "02.4", "03.1", "03.2", "03.3", "03.4"])
def test_an_untouched_stub_is_not_attempted(id):
    assert status(id, stub).status == "not-attempted"


# --------------------------------------------------------------------------- 02


def test_02_1_like():
    assert status("02.1", lambda ref, values: torch.tensor(values, device=ref.device, dtype=ref.dtype)).passed
    hard_coded = status("02.1", lambda ref, values: torch.tensor(values, dtype=ref.dtype))
    assert not hard_coded.passed and "meta" in hard_coded.message
    assert not status("02.1", lambda ref, values: torch.tensor(values, device=ref.device)).passed


def test_02_2_move_batch():
    def right(batch, device):
        return {k: v.to(device) if isinstance(v, torch.Tensor) else v for k, v in batch.items()}

    def copies(batch, device):
        return {k: v.to(device, copy=True) if isinstance(v, torch.Tensor) else v for k, v in batch.items()}

    def in_place(batch, device):
        for k, v in batch.items():
            if isinstance(v, torch.Tensor):
                batch[k] = v.to(device)
        return batch

    assert status("02.2", right).passed
    assert "needless copy" in status("02.2", copies).message
    assert "changed the dict" in status("02.2", in_place).message


def test_02_3_build_on_and_the_default_device_is_restored():
    def right(device, make):
        with torch.device(device):
            return make()

    def leaky(device, make):
        torch.set_default_device(device)
        result = make()
        torch.set_default_device(None)
        return result

    def too_late(device, make):
        result = make()
        return result.to(device) if hasattr(result, "to") else result

    assert status("02.3", right).passed
    leak = status("02.3", leaky)
    assert not leak.passed and "make() raised" in leak.message
    assert default_device() == torch.device("cpu")
    assert "too late" in status("02.3", too_late).hint


def test_02_4_numpy_copy():
    assert status("02.4", lambda t: t.detach().cpu().numpy().copy()).passed
    assert status("02.4", lambda t: t.numpy(force=True).copy()).passed
    shares = status("02.4", lambda t: t.detach().cpu().numpy())
    assert not shares.passed and "share memory" in shares.message
    assert not status("02.4", lambda t: t.numpy()).passed  # a tensor that requires grad refuses
    assert not status("02.4", lambda t: t.tolist()).passed


# --------------------------------------------------------------------------- 03


def test_03_1_register_tensor_attributes():
    def right(model):
        for module in model.modules():
            for name, value in list(vars(module).items()):
                if isinstance(value, torch.Tensor):
                    delattr(module, name)
                    module.register_buffer(name, value)
        return model

    def top_level_only(model):
        for name, value in list(vars(model).items()):
            if isinstance(value, torch.Tensor):
                delattr(model, name)
                model.register_buffer(name, value)
        return model

    def as_parameters(model):
        for module in model.modules():
            for name, value in list(vars(module).items()):
                if isinstance(value, torch.Tensor) and value.is_floating_point():
                    delattr(module, name)
                    module.register_parameter(name, nn.Parameter(value, requires_grad=False))
        return model

    assert status("03.1", right).passed
    assert "scale.factor" in status("03.1", top_level_only).message
    assert not status("03.1", as_parameters).passed


def test_03_2_where_is():
    def right(model):
        devices = {t.device for t in model.parameters()} | {t.device for t in model.buffers()}
        if len(devices) > 1:
            raise ValueError(str(devices))
        return devices.pop() if devices else None

    def first_parameter(model):
        return next(model.parameters()).device

    def parameters_only(model):
        devices = {t.device for t in model.parameters()}
        if len(devices) > 1:
            raise ValueError(str(devices))
        return devices.pop() if devices else None

    assert status("03.2", right).passed
    assert not status("03.2", first_parameter).passed
    assert "buffer" in status("03.2", parameters_only).message


def test_03_3_load_onto():
    def right(path, device, make_model):
        model = make_model().to(device)
        model.load_state_dict(torch.load(path, map_location=device, weights_only=True))
        return model

    def through_the_cpu(path, device, make_model):  # loads on the CPU, then moves: right on every device
        model = make_model()
        model.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
        return model.to(device)

    def loads_before_moving(path, device, make_model):
        """Right on a GPU, but on meta it copies out of tensors that have no data: the exercise says so."""
        model = make_model()
        model.load_state_dict(torch.load(path, map_location=device, weights_only=True))
        return model.to(device)

    def via_dict(path, device, make_model):
        state = torch.load(path, map_location=lambda storage, location: storage, weights_only=True)
        model = make_model().to(device)
        model.load_state_dict(state)
        return model

    def no_map_location(path, device, make_model):
        model = make_model()
        model.load_state_dict(torch.load(path, weights_only=True))
        return model.to(device)

    def forgets_to_load(path, device, make_model):
        return make_model().to(device)

    assert status("03.3", right).passed
    assert status("03.3", via_dict).passed
    assert status("03.3", through_the_cpu).passed
    assert "never moves the model" in status("03.3", loads_before_moving).hint
    assert not status("03.3", forgets_to_load).passed
    if torch.cuda.device_count() < 2:  # some file is tagged with a device this machine lacks
        assert "Attempting to deserialize" in status("03.3", no_map_location).message


def test_03_4_match_state_to_params():
    def right(opt):
        for param, state in opt.state.items():
            for key, value in state.items():
                if key != "step" and isinstance(value, torch.Tensor):
                    dtype = param.dtype if value.is_floating_point() else value.dtype
                    state[key] = value.to(param.device, dtype)

    def reload(opt):
        opt.load_state_dict(opt.state_dict())

    def casts_step_too(opt):
        for param, state in opt.state.items():
            for key, value in state.items():
                state[key] = value.to(param.device, param.dtype)

    assert status("03.4", right).passed
    assert status("03.4", reload).passed
    assert not status("03.4", lambda opt: None).passed
    assert "'step'" in status("03.4", casts_step_too).message
