"""The try-its of notebook 05 (the error clinic): a right answer and plausible wrong ones, on a CPU.
Lesson: notebook 05."""

import io

import torch
from try_it_support import Case

# ----------------------------------------------------------------------------- exercises: more plausible wrong answers
# (the first ones live in tests/test_checks_wrong_answers.py)


def _moved(value, device):
    """``value`` with every tensor in it moved to ``device``: the walk a right 05.2 answer does, shared by the wrong
    answers below that differ from it only in which device they choose."""
    if isinstance(value, torch.Tensor):
        return value.to(device)
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return type(value)(*(_moved(v, device) for v in value))
    if isinstance(value, (list, tuple)):
        return type(value)(_moved(v, device) for v in value)
    if isinstance(value, dict):
        return {k: _moved(v, device) for k, v in value.items()}
    return value


def to_device_buffers_first(model, *inputs):
    """Takes the device from the buffers first: a model with parameters on meta and a CPU buffer sends x to the CPU."""
    tensors = list(model.buffers()) + list(model.parameters())
    if not tensors:
        return inputs
    device = tensors[0].device

    return tuple(_moved(x, device) for x in inputs)


def to_device_assigning_in_place(model, *inputs):
    """Assigns the moved tensors back into the caller's lists and dicts, which 02.2 taught to leave alone."""
    tensors = list(model.parameters()) + list(model.buffers())
    if not tensors:
        return inputs
    device = tensors[0].device

    def move(value):
        if isinstance(value, torch.Tensor):
            return value.to(device)
        if isinstance(value, list):
            value[:] = [move(v) for v in value]
            return value
        if isinstance(value, dict):
            for key in value:
                value[key] = move(value[key])
            return value
        if isinstance(value, tuple) and hasattr(value, "_fields"):
            return type(value)(*(move(v) for v in value))
        if isinstance(value, tuple):
            return tuple(move(v) for v in value)
        return value

    return tuple(move(x) for x in inputs)


def load_flat_state_dict(data, device):
    """Loads on the CPU, then moves the top-level tensors: a training checkpoint's nested ones stay on the CPU."""
    state = torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)
    return {k: v.to(device) if isinstance(v, torch.Tensor) else v for k, v in state.items()}


def load_mapping_the_devices_seen(data, device):
    """Maps the devices the practice check's messages name, and no other: a checkpoint from cuda:3 stays there."""
    seen = ("cpu", "cuda:0", "cuda:1", "mps")
    return torch.load(io.BytesIO(data), map_location={where: str(device) for where in seen}, weights_only=True)


def to_device_cpu_without_tensors(model, *inputs):
    """Falls back to the CPU for a model with no parameters or buffers, instead of handing the inputs back."""
    tensors = [*model.parameters(), *model.buffers()]
    device = tensors[0].device if tensors else torch.device("cpu")

    return tuple(_moved(x, device) for x in inputs)


def fix_any_old_type_error_is_a_move(message):
    """Takes every 2019 "Expected object of type ... but found type ..." for a device mix-up: it reported dtype
    mismatches too (two CUDA types, or two CPU types)."""
    text = message.lower()
    if "same index must be on the same device" in text:
        return "optimizer-after-move"
    if "indices should be either on" in text:
        return "index-to-table-device"
    if "deserialize object on" in text:
        return "map-location"
    if "to numpy" in text:
        return "cpu-before-numpy"
    if "invalid device ordinal" in text:
        return "existing-device-index"
    if "not compiled with cuda" in text or "nvidia driver" in text:
        return "cpu-or-cuda-build"
    if "on the same device" in text or "not on the expected device" in text or "expected object of type" in text:
        return "move-to-one-device"
    return "not-a-device-error"


def load_as_float(data, device):
    """Loads onto the device, then makes every tensor float32 "to match the model": an integer step count is not."""
    state = torch.load(io.BytesIO(data), map_location=device)
    return {key: value.float() if isinstance(value, torch.Tensor) else value for key, value in state.items()}


# (exercise id, wrong answer, a phrase its feedback must hold): tests/test_checks_wrong_answers.py runs them
WRONG = [
    ("05.1", fix_any_old_type_error_is_a_move, "Compare the two types it names"),
    ("05.2", to_device_cpu_without_tensors, "do not fall back to the CPU"),
    ("05.2", to_device_buffers_first, "parameters on meta and a buffer on the CPU"),
    ("05.2", to_device_assigning_in_place, "changed a list"),
    ("05.4", load_as_float, "never its dtype"),
    ("05.4", load_flat_state_dict, "not on the device asked for"),
    ("05.4", load_mapping_the_devices_seen, "deserialize"),
]

CHECKPOINT = """
import io
from course_utils.checkpoints import retag_checkpoint
saved, tagged = io.BytesIO(), io.BytesIO()
torch.save({"weight": torch.tensor([[1.0, 2.0, 3.0]]), "bias": torch.tensor([0.5])}, saved)
retag_checkpoint(saved, tagged, {"cpu": "cuda:0"})
checkpoint = tagged.getvalue()
"""

TRY_ITS = [
    # 05.a: call the model on x moved to the model's device
    Case("05.a", "def call_model(model, x):\n    return model(x.to(next(model.parameters()).device))", "pass"),
    Case("05.a", "def call_model(model, x):\n    return model(x.to(next(iter(model.state_dict().values())).device))", "pass"),
    Case("05.a", "def call_model(model, x):\n    return model(x.to('meta'))", "fail", "expected device"),
    Case("05.a", "def call_model(model, x):\n    return model.to(x.device)(x)", "fail", "tried to move the model"),
    Case("05.a", "def call_model(model, x):\n    return model(x.to(model.weight.device))", "fail", "Sequential"),
    Case("05.a", "def call_model(model, x):\n    return model(x.to('cpu'))", "fail", "with the model on meta and x on meta"),
    Case("05.a", "def call_model(model, x):\n    return x.to(next(model.parameters()).device)", "fail", "shape"),
    # 05.b: load the GPU checkpoint onto the CPU
    Case("05.b", "state = torch.load(io.BytesIO(checkpoint), map_location='cpu')", "pass", setup=CHECKPOINT),
    Case("05.b", "state = torch.load(io.BytesIO(checkpoint), map_location={'cuda:0': 'cpu'})", "pass", setup=CHECKPOINT),
    Case("05.b", "state = torch.load(io.BytesIO(checkpoint), map_location='meta')", "fail", "on the CPU", setup=CHECKPOINT),
    Case("05.b", "state = torch.load(io.BytesIO(checkpoint), map_location='cpu')['weight']", "fail", "dict", setup=CHECKPOINT),
    Case("05.b", "state = {'weight': torch.zeros(1, 3), 'bias': torch.zeros(1)}", "fail", "saved", setup=CHECKPOINT),
    # the values compare equal across dtypes, so a cast checkpoint passed
    Case(
        "05.b",
        "state = {k: v.half() for k, v in torch.load(io.BytesIO(checkpoint), map_location='cpu').items()}",
        "fail",
        "saved it as torch.float32",
        setup=CHECKPOINT,
    ),
]
