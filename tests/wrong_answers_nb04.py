"""The try-it cells of notebook 04 (the current device): one right answer and plausible wrong ones each.

Lesson: notebooks/04_current_device. Every wrong answer here runs on a CPU-only machine: a block
that switches only the current CUDA device, a device typed by name, a default device left changed,
a layer built on the CPU and then copied.
"""

from try_it_support import Case

TRY_ITS = [
    # 04.a: new tensors follow the default device
    Case("04.a", "def zeros_where(x):\n    with torch.device(x.device):\n        return torch.zeros(2)", "pass"),
    Case("04.a", "def zeros_where(x):\n    with torch.cuda.device_of(x):\n        return torch.zeros(2)", "fail",
         "switch only the current CUDA device"),
    Case("04.a", 'def zeros_where(x):\n    with torch.device("meta"):\n        return torch.zeros(2)', "fail",
         "expected x's device, cpu"),
    Case("04.a", "def zeros_where(x):\n    torch.set_default_device(x.device)\n    return torch.zeros(2)", "fail",
         "has put it back"),
    Case("04.a", "def zeros_where(x):\n    return torch.zeros(2)", "fail", "expected x's device, meta"),
    Case("04.a", "def zeros_where(x):\n    with torch.device(x.device):\n        return torch.ones(2)", "fail",
         "expected zeros"),
    # 04.b: build a layer directly on its device
    Case("04.b", "def build_on(device):\n    with torch.device(device):\n        return nn.Linear(8, 8)", "pass"),
    Case("04.b", "def build_on(device):\n    return nn.Linear(8, 8, device=device)", "pass"),
    Case("04.b", "def build_on(device):\n    return nn.Linear(8, 8).to(device)", "fail", "then copied"),
    Case("04.b", "def build_on(device):\n    return nn.Linear(8, 8)", "fail", "expected it on meta"),
    Case("04.b", "def build_on(device):\n    torch.set_default_device(device)\n    return nn.Linear(8, 8)", "fail",
         "has put it back"),
    Case("04.b", 'def build_on(device):\n    with torch.device("meta"):\n        return nn.Linear(8, 8)', "fail",
         "expected it on cpu"),
]

