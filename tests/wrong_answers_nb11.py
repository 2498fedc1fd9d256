"""Plausible wrong answers to the exercises of notebook 11, listed in ``test_checks_wrong_answers.WRONG``.

Each is a mistake learners make in public threads: autocast given "cuda:0", float16 on the CPU, a
shuffle drawn on a default device left on, autocast left out or its output left in bfloat16.
Lesson: notebook 11 (the device in the rest of your code)."""

import torch
from torch.utils.data import DataLoader

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
