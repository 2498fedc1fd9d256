"""The try-it cells of lesson 02 (tensor placement): each check passes a right answer and fails
plausible wrong ones, naming the mistake, on a CPU-only machine too (meta is the second device).
Lesson: notebooks/02_tensor_placement."""

import torch
from try_it_support import Case

TRY_ITS = [
    Case("02.a", "def ones_beside(x):\n    return torch.ones(3, device=x.device)", "pass"),
    # every x was float32, so answers that copy the dtype of x passed
    Case("02.a", "def ones_beside(x):\n    return x.new_ones(3)", "fail", "took the dtype of x"),
    Case("02.a", "def ones_beside(x):\n    return torch.ones(3, device=x.device, dtype=x.dtype)", "fail", "took the dtype of x"),
    Case("02.a", "def ones_beside(x):\n    return torch.ones(3).to(x)", "fail", "took the dtype of x"),
    Case("02.a", "def ones_beside(x):\n    return x.new_ones(3, dtype=torch.float32)", "pass"),
    Case("02.a", "def ones_beside(x):\n    return torch.ones(3)", "fail", "lands on the default device, the CPU"),
    Case("02.a", "def ones_beside(x):\n    return torch.ones(3, device='meta')", "fail", "right for one x only"),
    Case("02.a", "def ones_beside(x):\n    return torch.ones_like(x)", "fail", "copies the shape of x"),
    Case("02.a", "def ones_beside(x):\n    return torch.ones(3, dtype=torch.float16, device=x.device)", "fail", "float32"),
    Case("02.a", "def ones_beside(x):\n    return torch.zeros(3, device=x.device)", "fail", "three ones"),
    Case("02.a", "def ones_beside(x):\n    return [1.0, 1.0, 1.0]", "fail", "a list"),
    Case("02.b", "def match(x, weight):\n    return x.to(weight)", "pass"),
    Case("02.b", "def match(x, weight):\n    return x.to(weight.device, weight.dtype)", "pass"),
    Case("02.b", "def match(x, weight):\n    return x.to(weight.device)", "fail", "keeps the dtype of x"),
    Case("02.b", "def match(x, weight):\n    return x.to(weight.dtype)", "fail", "the device must follow"),
    Case("02.b", "def match(x, weight):\n    return x.to('meta', torch.float16)", "fail", "weight's device"),
    Case("02.b", "def match(x, weight):\n    return torch.zeros_like(x, device=weight.device, dtype=weight.dtype)", "fail", "not x's values"),
    Case("02.b", "def match(x, weight):\n    return weight", "fail", "shape of x"),
    # two conversions, each a copy: the task asks for one call, and they passed
    Case("02.b", "def match(x, weight):\n    return x.to(weight.device).to(weight.dtype)", "fail", "in 2 steps"),
    Case("02.b", "def match(x, weight):\n    return x.type(weight.dtype).to(weight.device)", "fail", "in 2 steps"),
    Case("02.b", "def match(x, weight):\n    return x.to(device=weight.device, dtype=weight.dtype)", "pass"),
]


# ----------------------------------------------------------------------------- exercises (listed in WRONG)


def like_converted_after(reference, values):
    """Makes the tensor in the default dtype, then converts: float64 values lose the digits float32 drops."""
    return torch.tensor(values).to(reference)


def build_restores_none(device, make):
    """Sets the default and clears it afterwards: a default the caller had set is gone."""
    torch.set_default_device(device)
    try:
        return make()
    finally:
        torch.set_default_device(None)


def build_restores_cpu(device, make):
    """Puts the CPU back, not what it found."""
    torch.set_default_device(device)
    try:
        return make()
    finally:
        torch.set_default_device("cpu")


def move_returns_input_when_nothing_moves(batch, device):
    """A shortcut: when every tensor is already on the device it hands back the caller's own dict, not a new one."""
    if all(not isinstance(v, torch.Tensor) or v.device == torch.device(device) for v in batch.values()):
        return batch
    return {k: v.to(device) if isinstance(v, torch.Tensor) else v for k, v in batch.items()}


WRONG = [
    ("02.1", like_converted_after, "last digits"),
    ("02.2", move_returns_input_when_nothing_moves, "new dict every time"),
    ("02.3", build_restores_none, "set to meta before the call"),
    ("02.3", build_restores_cpu, "Put back the default you found"),
]
