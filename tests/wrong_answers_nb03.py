"""The try-it cells of notebook 03 (model placement): one right answer and plausible wrong ones each.

Lesson: notebooks/03_model_placement. Every wrong answer here runs on a CPU-only machine; the
check names the mistake (a plain attribute, a parameter, the model moved instead of its input, a
device typed by name).
"""

import torch
from torch import nn
from try_it_support import Case

# ----------------------------------------------------------------------------- exercises: more plausible wrong answers
# (the first ones live in tests/test_checks_wrong_answers.py)


def register_model_and_children(model):
    """Looks at the model and its children, not at every submodule: a grandchild's attribute stays plain."""
    for module in [model, *model.children()]:
        for name, value in list(vars(module).items()):
            if isinstance(value, torch.Tensor) and not isinstance(value, nn.Parameter):
                delattr(module, name)
                module.register_buffer(name, value)
    return model


def where_from_state_dict(model):
    """Reads the devices from state_dict(), which leaves out non-persistent buffers."""
    devices = {t.device for t in model.state_dict().values()}
    if not devices:
        return None
    if len(devices) > 1:
        raise ValueError(f"the model is spread over {sorted(str(d) for d in devices)}")
    return devices.pop()


def where_parameters_then_buffers(model):
    """Looks at the buffers only when there are no parameters: a CPU model with a buffer on meta is 'cpu'."""
    devices = {p.device for p in model.parameters()} or {b.device for b in model.buffers()}
    if not devices:
        return None
    if len(devices) > 1:
        raise ValueError(f"the model is spread over {sorted(str(d) for d in devices)}")
    return devices.pop()


def where_unnamed_error(model):
    """Raises ValueError for a spread model, but without naming the devices the exercise asks for."""
    devices = {t.device for t in [*model.parameters(), *model.buffers()]}
    if not devices:
        return None
    if len(devices) > 1:
        raise ValueError("the model is spread over several devices")
    return devices.pop()


def where_two_levels(model):
    """Looks at the model's own tensors and its children's, not deeper."""
    tensors = [*model.parameters(recurse=False), *model.buffers(recurse=False)]
    for child in model.children():
        tensors += [*child.parameters(recurse=False), *child.buffers(recurse=False)]
    devices = {t.device for t in tensors}
    if not devices:
        return None
    if len(devices) > 1:
        raise ValueError(f"the model is spread over {sorted(str(d) for d in devices)}")
    return devices.pop()


def state_known_keys(optimizer):
    """Moves the state keys seen in Adam and SGD by name: Adam(amsgrad=True)'s max_exp_avg_sq stays behind."""
    for param, state in optimizer.state.items():
        for key in ("exp_avg", "exp_avg_sq", "momentum_buffer"):
            if state.get(key) is not None:
                state[key] = state[key].to(device=param.device, dtype=param.dtype)


def state_to_first_parameter(optimizer):
    """Moves every state tensor to where the first parameter is, as if a model had one device."""
    first = optimizer.param_groups[0]["params"][0]
    for state in optimizer.state.values():
        for key, value in state.items():
            if key != "step" and isinstance(value, torch.Tensor):
                dtype = first.dtype if value.is_floating_point() else value.dtype
                state[key] = value.to(device=first.device, dtype=dtype)


def state_skips_zero_dim(optimizer):
    """Skips every 0-dim state tensor, not just 'step': the 0-dim state of a 0-dim parameter stays behind."""
    for param, state in optimizer.state.items():
        for key, value in state.items():
            if not isinstance(value, torch.Tensor) or value.dim() == 0:
                continue
            dtype = param.dtype if value.is_floating_point() else value.dtype
            state[key] = value.to(device=param.device, dtype=dtype)


# (exercise id, wrong answer, a phrase its feedback must hold): tests/test_checks_wrong_answers.py runs them
def register_every_tensor_found(model):
    """Finds tensors with dir() and getattr, which also returns buffers: re-registering a non-persistent buffer
    makes it persistent."""
    for module in model.modules():
        for name in dir(module):
            value = getattr(module, name, None)
            if isinstance(value, torch.Tensor) and not isinstance(value, nn.Parameter):
                if name in vars(module):
                    delattr(module, name)
                module.register_buffer(name, value)
    return model


def state_first_group_only(optimizer):
    """Walks optimizer.param_groups[0] only: the state of a second parameter group stays behind."""
    for param in optimizer.param_groups[0]["params"]:
        state = optimizer.state.get(param, {})
        for key, value in state.items():
            if key != "step" and isinstance(value, torch.Tensor):
                dtype = param.dtype if value.is_floating_point() else value.dtype
                state[key] = value.to(device=param.device, dtype=dtype)


WRONG = [
    ("03.1", register_model_and_children, "scale.shift.shift"),
    ("03.1", register_every_tensor_found, "non-persistent buffer"),
    ("03.2", where_from_state_dict, "non-persistent"),
    ("03.2", where_parameters_then_buffers, "a buffer on meta"),
    ("03.2", where_unnamed_error, "does not name the devices"),
    ("03.2", where_two_levels, "two levels down"),
    ("03.4", state_known_keys, "max_exp_avg_sq"),
    ("03.4", state_to_first_parameter, "split"),
    ("03.4", state_skips_zero_dim, "0-dim"),
    ("03.4", state_first_group_only, "second parameter group"),
]

LAYER = "layer = nn.Linear(3, 3)"

TRY_ITS = [
    # 03.a: a buffer moves with its module
    Case("03.a", 'layer.register_buffer("scale", torch.ones(3))\nmoved = layer.to("meta")', "pass", setup=LAYER),
    Case("03.a", 'layer.scale = torch.ones(3)\nmoved = layer.to("meta")', "fail", "plain tensor attribute", LAYER),
    Case("03.a", 'layer.scale = nn.Parameter(torch.ones(3))\nmoved = layer.to("meta")', "fail", "nn.Parameter", LAYER),
    Case("03.a", 'moved = layer.to("meta")', "fail", "no buffer named `scale`", LAYER),
    Case("03.a", 'layer.register_buffer("scale", torch.ones(3))\nmoved = layer', "fail", "not all on meta", LAYER),
    Case("03.a", 'moved = layer.to("meta")\nlayer.register_buffer("scale", torch.ones(3))', "fail", "not all on meta", LAYER),
    Case("03.a", 'layer.register_buffer("scale", torch.ones(3, dtype=torch.int64))\nmoved = layer.to("meta")', "fail", "float32", LAYER),
    Case("03.a", 'layer.register_buffer("scale", torch.ones(3))\nmoved = layer.to("meta").weight', "fail", "is a Parameter", LAYER),
    # 03.b: the input goes where the model is
    Case("03.b", "def run(model, x):\n    return model(x.to(next(model.parameters()).device))", "pass"),
    Case("03.b", "def run(model, x):\n    return model(x)", "fail", "raised RuntimeError"),
    Case("03.b", "def run(model, x):\n    return model.to(x.device)(x)", "fail", "it is the input that should travel"),
    Case("03.b", 'def run(model, x):\n    return model(x.to("meta"))', "fail", "raised"),
    Case("03.b", "def run(model, x):\n    return model(x.to(model.weight.device))", "fail", "any model"),
    Case("03.b", "def run(model, x):\n    return x.to(next(model.parameters()).device)", "fail", "shape"),
    # it failed, but was told it moved the model: the output it copied back is what raised
    Case("03.b", "def run(model, x):\n    return model(x.to(next(model.parameters()).device)).cpu()", "fail", "holds no data to copy"),
]
