"""The try-it cells of notebook 04 (the current device): one right answer and plausible wrong ones each.

Lesson: notebooks/04_current_device. Every wrong answer here runs on a CPU-only machine: a block
that switches only the current CUDA device, a device typed by name, a default device left changed,
a layer built on the CPU and then copied.
"""

import contextlib

import torch
from try_it_support import Case

# ----------------------------------------------------------------------------- exercises: more plausible wrong answers
# (the first ones live in tests/test_checks_wrong_answers.py)


def landing_cpu_and_meta_only(spec, current):
    """Knows the CPU and meta; any other device type is taken for CUDA: x.to('mps:0') 'lands' on a GPU."""
    if spec is None or isinstance(spec, int):
        return f"cuda:{current if spec is None else spec}"
    device = torch.device(spec)
    if device.type in ("cpu", "meta"):
        return str(device)
    return f"cuda:{current if device.index is None else device.index}"


def scope_any_index(device):
    """Switches for any device with an index, whatever its type: 'mps:0' becomes torch.cuda.device(0)."""
    device = torch.device(device)
    return torch.cuda.device(device.index) if device.index is not None else contextlib.nullcontext()


def scope_not_cpu_or_meta(device):
    """Leaves out the CPU and meta only: an indexed mps or xpu device gets a CUDA scope."""
    device = torch.device(device)
    if device.type in ("cpu", "meta") or device.index is None:
        return contextlib.nullcontext()
    return torch.cuda.device(device.index)


# (exercise id, wrong answer, a phrase its feedback must hold): tests/test_checks_wrong_answers.py runs them
WRONG = [
    ("04.3", landing_cpu_and_meta_only, "x.to('mps:0')"),
    ("04.4", scope_any_index, "device_scope('mps:0')"),
    ("04.4", scope_not_cpu_or_meta, "switches nothing"),
]

TRY_ITS = [
    # 04.a: new tensors follow the default device
    Case("04.a", "def zeros_where(x):\n    with torch.device(x.device):\n        return torch.zeros(2)", "pass"),
    Case(
        "04.a",
        "def zeros_where(x):\n    with torch.cuda.device_of(x):\n        return torch.zeros(2)",
        "fail",
        "switch only the current CUDA device",
    ),
    Case("04.a", 'def zeros_where(x):\n    with torch.device("meta"):\n        return torch.zeros(2)', "fail", "expected x's device, cpu"),
    Case("04.a", "def zeros_where(x):\n    torch.set_default_device(x.device)\n    return torch.zeros(2)", "fail", "has put it back"),
    Case("04.a", "def zeros_where(x):\n    return torch.zeros(2)", "fail", "expected x's device, meta"),
    Case("04.a", "def zeros_where(x):\n    with torch.device(x.device):\n        return torch.ones(2)", "fail", "expected zeros"),
    # the right device, but not by the default device the try-it is about: they passed
    Case("04.a", "def zeros_where(x):\n    return torch.zeros(2, device=x.device)", "fail", "named the device itself"),
    Case("04.a", "def zeros_where(x):\n    return torch.zeros(2).to(x.device)", "fail", "named the device itself"),
    Case("04.a", "def zeros_where(x):\n    return x.new_zeros(2)", "fail", "named the device itself"),
    Case("04.a", "def zeros_where(x):\n    with torch.device(x.device):\n        z = torch.zeros(2)\n    return z", "pass"),
    Case("04.a", "def zeros_where(x):\n    with x.device:\n        return torch.zeros(2)", "pass"),
    # set, then set back to the CPU: right while the default was the CPU, and it passed
    Case(
        "04.a",
        "def zeros_where(x):\n    torch.set_default_device(x.device)\n    z = torch.zeros(2)\n    torch.set_default_device('cpu')\n    return z",
        "fail",
        "a device of its own choosing",
    ),
    Case(
        "04.a",
        "def zeros_where(x):\n    torch.set_default_device(x.device)\n    z = torch.zeros(2)\n    torch.set_default_device(None)\n    return z",
        "fail",
        "a device of its own choosing",
    ),
    # 04.b: build a layer directly on its device
    Case("04.b", "def build_on(device):\n    with torch.device(device):\n        return nn.Linear(8, 8)", "pass"),
    Case("04.b", "def build_on(device):\n    return nn.Linear(8, 8, device=device)", "pass"),
    Case(
        "04.b",
        "def build_on(device):\n    torch.set_default_device(device)\n    m = nn.Linear(8, 8)\n"
        "    torch.set_default_device('cpu')\n    return m",
        "fail",
        "a device of its own choosing",
    ),
    # sets it and puts back what was there: right; it was refused ("made on cpu first") by the check's own mode
    Case(
        "04.b",
        "def build_on(device):\n    prev = torch.get_default_device()\n    torch.set_default_device(device)\n"
        "    m = nn.Linear(8, 8)\n    torch.set_default_device(prev)\n    return m",
        "pass",
    ),
    Case("04.b", "def build_on(device):\n    return nn.Linear(8, 8).to(device)", "fail", "then copied"),
    Case("04.b", "def build_on(device):\n    return nn.Linear(8, 8)", "fail", "expected it on meta"),
    Case("04.b", "def build_on(device):\n    torch.set_default_device(device)\n    return nn.Linear(8, 8)", "fail", "has put it back"),
    Case("04.b", 'def build_on(device):\n    with torch.device("meta"):\n        return nn.Linear(8, 8)', "fail", "expected it on cpu"),
]
