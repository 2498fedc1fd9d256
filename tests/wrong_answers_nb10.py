"""Plausible wrong answers to the exercises of notebook 10, listed in ``test_checks_wrong_answers.WRONG``.

Kept in their own module so the lessons' wrong answers can grow side by side without editing
the same lines. Lesson: notebook 10 (models bigger than a device)."""

import torch
from try_it_support import Case

# ----------------------------------------------------------------------------- 10.1


def materialize_with_to(model, device):
    """Treats meta like any device: Module.to has nothing to copy and raises."""
    return model.to(device)


def materialize_empty_only(model, device):
    """Allocates, never initialises: the parameters hold whatever was in memory."""
    return model.to_empty(device=device)


def materialize_children_only(model, device):
    """Resets the top-level layers only: nested ones (a block's LayerNorm) keep garbage."""
    model.to_empty(device=device)
    for module in model.children():
        if hasattr(module, "reset_parameters"):
            module.reset_parameters()
    return model


# ----------------------------------------------------------------------------- 10.2


def _fill(model, budgets, size_of, fits):
    devices, slot, used, plan = list(budgets), 0, 0, {}
    for name, layer in model.named_children():
        size = size_of(layer)
        while slot < len(devices) and not fits(used + size, budgets[devices[slot]]):
            slot, used = slot + 1, 0
        if slot == len(devices):
            raise ValueError(f"layer {name} does not fit")
        plan[name] = torch.device(devices[slot])
        used += size
    return plan


def _bytes(layer):
    return sum(t.numel() * t.element_size() for t in [*layer.parameters(), *layer.buffers()])


def plan_counts_numbers(model, budgets):
    """Compares parameter counts with byte budgets."""
    return _fill(model, budgets, lambda layer: sum(p.numel() for p in layer.parameters()), lambda n, b: n <= b)


def plan_parameters_only(model, budgets):
    """Forgets buffers (BatchNorm's running statistics take memory too)."""
    return _fill(model, budgets, lambda layer: sum(p.numel() * p.element_size() for p in layer.parameters()), lambda n, b: n <= b)


def plan_strictly_less(model, budgets):
    """A layer that exactly fills the device is sent on."""
    return _fill(model, budgets, _bytes, lambda n, b: n < b)


def plan_first_fit(model, budgets):
    """Puts each layer on the first device with room, so a small layer goes back to an earlier device."""
    left, plan = dict(budgets), {}
    for name, layer in model.named_children():
        size = _bytes(layer)
        device = next((d for d in left if size <= left[d]), None)
        if device is None:
            raise ValueError(f"layer {name} does not fit")
        left[device] -= size
        plan[name] = torch.device(device)
    return plan


def plan_names_as_strings(model, budgets):
    """Right plan, but the devices are strings."""
    return {name: str(device) for name, device in _fill(model, budgets, _bytes, lambda n, b: n <= b).items()}


# ----------------------------------------------------------------------------- 10.3


def state_on_parameter_device(model, optimizer):
    """Assumes all state sits with its parameter: Adam's step is a CPU tensor."""
    return {name: {key: p.device for key in optimizer.state.get(p, {})} for name, p in model.named_parameters()}


def state_by_position(model, optimizer):
    """Numbers the parameters instead of naming them."""
    return {str(i): {key: value.device for key, value in optimizer.state.get(p, {}).items()} for i, p in enumerate(model.parameters())}


def state_skips_empty(model, optimizer):
    """Leaves out parameters without state (before the first step, frozen ones)."""
    return {
        name: {key: value.device for key, value in optimizer.state[p].items()}
        for name, p in model.named_parameters()
        if p in optimizer.state and optimizer.state[p]
    }


# ----------------------------------------------------------------------------- 10.4


def _sizes(model, buffers=True):
    return [
        sum(t.numel() * t.element_size() for t in [*layer.parameters(), *(layer.buffers() if buffers else ())])
        for _, layer in model.named_children()
    ]


def budget_without_reserve(model, on_cpu):
    """Adds up the layers that stay: accelerate's room for the largest disk layer sends the last of them to disk."""
    return sum(_sizes(model)[:on_cpu])


def budget_largest_of_all(model, on_cpu):
    """Keeps room for the largest layer of the model, which may be one that stays on the CPU."""
    sizes = _sizes(model)
    return sum(sizes[:on_cpu]) + max(sizes)


def budget_next_layer(model, on_cpu):
    """Keeps room for the next layer only, not the largest of those going to disk."""
    sizes = _sizes(model)
    return sum(sizes[:on_cpu]) + (sizes[on_cpu] if on_cpu < len(sizes) else 0)


def budget_without_buffers(model, on_cpu):
    """Counts parameters only: BatchNorm's running statistics are buffers and take memory too."""
    sizes = _sizes(model, buffers=False)
    return sum(sizes[:on_cpu]) + max(sizes[on_cpu:], default=0)


def budget_as_a_string(model, on_cpu):
    """Returns what max_memory also accepts, a string with a unit, where the question asks for bytes."""
    sizes = _sizes(model)
    return f"{(sum(sizes[:on_cpu]) + max(sizes[on_cpu:], default=0)) // 1000}KB"


def _saved_bytes(layer):
    return sum(t.numel() * t.element_size() for t in layer.state_dict().values())


def plan_sizes_from_state_dict(model, budgets):
    """Sizes each layer from its state_dict(): a non-persistent buffer takes memory but is not saved."""
    return _fill(model, budgets, _saved_bytes, lambda n, b: n <= b)


def budget_sizes_from_state_dict(model, on_cpu):
    """Sizes each layer from its state_dict(), so a non-persistent buffer is left out."""
    sizes = [_saved_bytes(layer) for _, layer in model.named_children()]
    return sum(sizes[:on_cpu]) + max(sizes[on_cpu:], default=0)


def materialize_skips_the_top_module(model, device):
    """Resets every submodule but the model itself: a model that is a layer (nn.Linear) keeps garbage."""
    model.to_empty(device=device)
    for module in list(model.modules())[1:]:
        if hasattr(module, "reset_parameters"):
            module.reset_parameters()
    return model


def state_of_the_optimizer_s_parameters(model, optimizer):
    """Walks the optimizer's parameters, not the model's: a parameter it does not hold is left out."""
    names = {p: name for name, p in model.named_parameters()}
    return {
        names[p]: {key: value.device for key, value in optimizer.state.get(p, {}).items()}
        for group in optimizer.param_groups
        for p in group["params"]
    }


def state_from_state_dict_by_position(model, optimizer):
    """Pairs optimizer.state_dict()'s numbered entries with the model's parameters in order: another order when
    the optimizer lists its parameters otherwise, or holds only some."""
    numbered = optimizer.state_dict()["state"]
    return {
        name: {key: value.device for key, value in numbered.get(i, {}).items() if isinstance(value, torch.Tensor)}
        for i, (name, _) in enumerate(model.named_parameters())
    }


# (exercise id, wrong answer, a phrase its feedback must hold): tests/test_checks_wrong_answers.py runs them
def plan_stops_at_a_small_device(model, budgets):
    """Gives up when a layer is too big for the next device, though a later one has room. It passed: no public
    case skipped a device."""
    devices, slot, used, plan = list(budgets), 0, 0, {}
    for name, layer in model.named_children():
        size = _bytes(layer)
        if used + size > budgets[devices[slot]]:
            slot, used = slot + 1, 0
            if slot == len(devices) or size > budgets[devices[slot]]:
                raise ValueError(f"layer {name} does not fit")
        plan[name] = torch.device(devices[slot])
        used += size
    return plan


def plan_one_element_size(model, budgets):
    """Counts every tensor in the element size of the model's first parameter: an int64 buffer is then 4 bytes.
    It passed: no public exact fit hung on BatchNorm's num_batches_tracked."""
    size = next(model.parameters()).element_size()
    return _fill(model, budgets, lambda layer: size * sum(t.numel() for t in [*layer.parameters(), *layer.buffers()]), lambda n, b: n <= b)


def plan_own_tensors_only(model, budgets):
    """Sizes each top-level layer by the tensors it holds itself (recurse=False): a nested block weighs nothing.
    It passed: every public model's layers were leaves."""
    return _fill(
        model,
        budgets,
        lambda layer: sum(t.numel() * t.element_size() for t in [*layer.parameters(False), *layer.buffers(False)]),
        lambda n, b: n <= b,
    )


def plan_skips_layers_without_parameters(model, budgets):
    """Leaves a ReLU out of the map: accelerate's device_map needs every top-level layer. It passed: no public model had one."""
    plan = _fill(model, budgets, _bytes, lambda n, b: n <= b)
    return {name: device for name, device in plan.items() if _bytes(dict(model.named_children())[name])}


def budget_no_room_for_one_layer(model, on_cpu):
    """Keeps room only when two layers or more go to disk. It passed: no public row left a single layer for the disk."""
    sizes = [_bytes(layer) for _, layer in model.named_children()]
    rest = sizes[on_cpu:]
    return sum(sizes[:on_cpu]) + (max(rest) if len(rest) > 1 else 0)


def materialize_modules_with_parameters_only(model, device):
    """Resets only the modules that hold parameters: a BatchNorm1d(affine=False) keeps uninitialised running
    statistics. It passed: every public model's BatchNorm had its affine parameters."""
    model.to_empty(device=device)
    for module in model.modules():
        if hasattr(module, "reset_parameters") and list(module.parameters(recurse=False)):
            module.reset_parameters()
    return model


WRONG = [
    ("10.1", materialize_modules_with_parameters_only, "every module that has one"),
    ("10.2", plan_stops_at_a_small_device, "may still fit on one after it"),
    ("10.2", plan_one_element_size, "num_batches_tracked"),
    ("10.2", plan_own_tensors_only, "nested"),
    ("10.2", plan_skips_layers_without_parameters, "one entry per top-level layer"),
    ("10.4", budget_no_room_for_one_layer, "single layer goes to disk"),
    ("10.1", materialize_skips_the_top_module, "a bare nn.Linear"),
    ("10.2", plan_sizes_from_state_dict, "non-persistent buffer"),
    ("10.4", budget_sizes_from_state_dict, "non-persistent buffer"),
    ("10.3", state_of_the_optimizer_s_parameters, "every parameter's name"),
    ("10.3", state_from_state_dict_by_position, "stage two only"),
    ("10.1", materialize_with_to, "to_empty"),
    ("10.1", materialize_empty_only, "uninitialised"),
    ("10.1", materialize_children_only, "nested"),
    ("10.2", plan_counts_numbers, "counts numbers, not bytes"),
    ("10.2", plan_parameters_only, "forgets buffers"),
    ("10.2", plan_strictly_less, "<=, not <"),
    ("10.2", plan_first_fit, "back on an earlier device"),
    ("10.2", plan_names_as_strings, "torch.device"),
    ("10.3", state_on_parameter_device, "'step'"),
    ("10.3", state_by_position, "parameter's name"),
    ("10.3", state_skips_empty, "without state"),
    ("10.4", budget_without_reserve, "forgets the room accelerate keeps"),
    ("10.4", budget_largest_of_all, "largest layer of the whole model"),
    ("10.4", budget_next_layer, "the next layer"),
    ("10.4", budget_without_buffers, "forgets buffers"),
    ("10.4", budget_as_a_string, "an int"),
]


# ----------------------------------------------------------------------------- try-its

RESTORE = "def restore(model, state):\n    {body}\n"

TRY_ITS = [
    Case("10.a", "layer = nn.Linear(4096, 4096, device='meta', dtype=torch.bfloat16)", "pass"),
    Case("10.a", "with torch.device('meta'):\n    layer = nn.Linear(4096, 4096, dtype=torch.bfloat16)", "pass"),
    Case("10.a", "layer = nn.Linear(4096, 4096, dtype=torch.bfloat16)", "fail", "allocated"),
    Case("10.a", "layer = nn.Linear(4096, 4096, device='meta')", "fail", "bfloat16"),
    # built in real memory, then moved: on meta in the end, so it passed
    Case("10.a", "layer = nn.Linear(4096, 4096).to('meta', torch.bfloat16)", "fail", "made in real memory first"),
    Case("10.a", "layer = nn.Linear(4096, 4096, dtype=torch.bfloat16).to('meta')", "fail", "made in real memory first"),
    Case("10.a", "layer = nn.Linear(4096, 4096).to_empty(device='meta').bfloat16()", "fail", "made in real memory first"),
    # made on meta, then cast there: no real memory, right
    Case("10.a", "layer = nn.Linear(4096, 4096, device='meta').to(torch.bfloat16)", "pass"),
    Case("10.a", "layer = torch.nn.utils.skip_init(nn.Linear, 4096, 4096, device='meta', dtype=torch.bfloat16)", "pass"),
    Case("10.a", "layer = nn.Linear(4096, 4096, device='meta', dtype=torch.bfloat16).weight", "fail", "nn.Linear"),
    Case("10.b", RESTORE.format(body="model.load_state_dict(state, assign=True)\n    return model"), "pass"),
    Case("10.b", RESTORE.format(body="model.load_state_dict(state)\n    return model"), "fail", "no memory to copy into"),
    Case("10.b", RESTORE.format(body="return model.load_state_dict(state, assign=True)"), "fail", "return model"),
    Case("10.b", RESTORE.format(body="model.to_empty(device='cpu')\n    model.load_state_dict(state)\n    return model"), "fail", "float64"),
]
