"""Plausible wrong answers to the exercises of notebook 11, listed in ``test_checks_wrong_answers.WRONG``.

Each is a mistake learners make in public threads: autocast given "cuda:0", float16 on the CPU, a
shuffle drawn on a default device left on, autocast left out or its output left in bfloat16.
Lesson: notebook 11 (the device in the rest of your code)."""

import torch
from torch.utils.data import DataLoader
from try_it_support import Case

# ----------------------------------------------------------------------------- 11.1


def settings_device_string(device, bf16_supported):
    """Gives autocast the device ('cuda:0'), not its type."""
    dtype = torch.bfloat16 if str(device).startswith("cpu") or bf16_supported else torch.float16
    return {"device_type": str(device), "dtype": dtype, "scaler": dtype is torch.float16}


def settings_float16_everywhere(device, bf16_supported):
    """The CUDA habit: float16 and a scaler on every device, the CPU included."""
    return {"device_type": torch.device(device).type, "dtype": torch.float16, "scaler": True}


def settings_flag_on_cpu(device, bf16_supported):
    """Lets the GPU's bfloat16 flag decide the CPU's dtype too."""
    dtype = torch.bfloat16 if bf16_supported else torch.float16
    return {"device_type": torch.device(device).type, "dtype": dtype, "scaler": dtype is torch.float16}


def settings_scaler_always(device, bf16_supported):
    """Adds a GradScaler for bfloat16 too."""
    kind = torch.device(device).type
    dtype = torch.bfloat16 if kind == "cpu" or bf16_supported else torch.float16
    return {"device_type": kind, "dtype": dtype, "scaler": True}


# ----------------------------------------------------------------------------- 11.2


def order_cpu_generator_only(default_device, n, seed):
    """The fix suggested in many threads: a CPU generator, but the draw still runs on the default device."""
    torch.set_default_device(default_device)
    try:
        return [int(i) for i in DataLoader(range(n), shuffle=True, generator=torch.Generator(device="cpu").manual_seed(seed))]
    finally:
        torch.set_default_device(None)


def order_generator_on_default(default_device, n, seed):
    """The other suggested fix: a generator on the default device (meta has none; CUDA's gives another order)."""
    torch.set_default_device(default_device)
    try:
        generator = torch.Generator(device=default_device).manual_seed(seed)
        return [int(i) for i in DataLoader(range(n), shuffle=True, generator=generator)]
    finally:
        torch.set_default_device(None)


def order_global_seed(default_device, n, seed):
    """Seeds the global generator and lets the DataLoader make its own: another order than the seeded CPU one."""
    torch.set_default_device(default_device)
    try:
        with torch.device("cpu"):
            torch.manual_seed(seed)
            return [int(i) for i in DataLoader(range(n), shuffle=True)]
    finally:
        torch.set_default_device(None)


# ----------------------------------------------------------------------------- 11.3


def forward_without_autocast(model, x):
    """Forgets autocast: float32 throughout."""
    return model(x)


def forward_left_in_bfloat16(model, x):
    """Returns autocast's output as it is, in bfloat16."""
    with torch.autocast(device_type=x.device.type, dtype=torch.bfloat16):
        return model(x)


def forward_float16_on_cpu(model, x):
    """The CUDA habit: float16 autocast, on the CPU."""
    with torch.autocast(device_type=x.device.type, dtype=torch.float16):
        out = model(x)
    return out.float()


def forward_autocast_default_dtype(model, x):
    """Leaves autocast's dtype to its default: bfloat16 on the CPU, but float16 on a CUDA GPU."""
    with torch.autocast(device_type=x.device.type):
        out = model(x)
    return out.float()


def forward_model_converted(model, x):
    """Converts the model (in place) and the input to bfloat16 instead of using autocast."""
    return model.to(torch.bfloat16)(x.to(torch.bfloat16)).float()


# (exercise id, wrong answer, a phrase its feedback must hold): tests/test_checks_wrong_answers.py runs them
def order_randperm_without_loader(default_device, n, seed):
    """torch.randperm with a seeded CPU generator, not a DataLoader: another order (the loader draws a seed first).
    It failed already, told it was not reproducible: it is, but it is not the DataLoader's order."""
    torch.set_default_device(default_device)
    try:
        return torch.randperm(n, generator=torch.Generator(device="cpu").manual_seed(seed), device="cpu").tolist()
    finally:
        torch.set_default_device(None)


WRONG = [
    ("11.2", order_randperm_without_loader, "not the DataLoader's"),
    ("11.3", forward_autocast_default_dtype, "autocast's default dtype"),
    ("11.3", forward_model_converted, "converted the model"),
    ("11.1", settings_device_string, "not a device type"),
    ("11.1", settings_float16_everywhere, "has bfloat16"),
    ("11.1", settings_flag_on_cpu, "on the cpu autocast"),
    ("11.1", settings_scaler_always, "not for bfloat16"),
    ("11.2", order_cpu_generator_only, "device type for generator"),
    ("11.2", order_generator_on_default, "generator on the default device"),
    ("11.2", order_global_seed, "not reproducible"),
    ("11.3", forward_without_autocast, "float32 throughout"),
    ("11.3", forward_left_in_bfloat16, "returned bfloat16"),
    ("11.3", forward_float16_on_cpu, "bfloat16 autocast"),
]


# ----------------------------------------------------------------------------- try-its

AUTOCAST_FOR = "def autocast_for(device):\n    return {body}\n"
LOADER = "from torch.utils.data import DataLoader\nloader = {body}\n"

TRY_ITS = [
    Case("11.a", AUTOCAST_FOR.format(body="torch.autocast(device_type=device.type)"), "pass"),
    Case("11.a", AUTOCAST_FOR.format(body="torch.autocast(device.type, dtype=torch.bfloat16)"), "pass"),
    Case("11.a", AUTOCAST_FOR.format(body="torch.autocast(device_type=str(device))"), "fail", "not a device type"),
    Case("11.a", AUTOCAST_FOR.format(body="torch.autocast(device)"), "fail", "passed the torch.device itself"),
    Case("11.a", AUTOCAST_FOR.format(body="device.type"), "fail", "torch.autocast context"),
    # autocast switched on for CUDA only: the check looked at the device type alone, and it passed
    Case("11.a", AUTOCAST_FOR.format(body="torch.autocast(device.type, enabled=device.type == 'cuda')"), "fail", "switched off"),
    Case("11.b", LOADER.format(body="DataLoader(range(10), shuffle=True, generator=torch.Generator(device='cpu').manual_seed(11))"), "pass"),
    Case("11.b", LOADER.format(body="DataLoader(range(10), shuffle=True)"), "fail", "no generator"),
    Case("11.b", LOADER.format(body="DataLoader(range(10), generator=torch.Generator().manual_seed(11))"), "fail", "does not shuffle"),
    Case("11.b", LOADER.format(body="DataLoader(range(10), shuffle=True, generator=torch.Generator())"), "fail", "expected 11"),
    # torch.manual_seed returns the global generator: CPU, seeded 11, and it passed
    Case("11.b", LOADER.format(body="DataLoader(range(10), shuffle=True, generator=torch.manual_seed(11))"), "fail", "global one"),
    Case(
        "11.b",
        LOADER.format(
            body="DataLoader(range(10), sampler=torch.utils.data.RandomSampler(range(10)), generator=torch.Generator().manual_seed(11))"
        ),
        "fail",
        "does not draw from the loader's generator",
    ),
]
