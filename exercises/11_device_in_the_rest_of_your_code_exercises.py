# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Exercises 11 · The device in the rest of your code
#
# Each exercise asks for one function. Write it where it says `# YOUR CODE HERE`, run the
# cell, then run the check cell below it: it prints a **PASS**, or a **FAIL** with a hint.
# The checks need no GPU: autocast's settings are a rule on device names, a default device
# left on is played by `meta`, and the autocast forward runs on the CPU (and on your
# accelerator, where you have one). Notebook: `notebooks/11_device_in_the_rest_of_your_code.ipynb`.

# %% [markdown] tags=["course-header"]
# **Run it on a free GPU:** [Open in Colab](https://colab.research.google.com/github/pytorch-devices-course/pytorch-devices-course/blob/main/exercises/11_device_in_the_rest_of_your_code_exercises.ipynb) (one GPU: Runtime > Change runtime type > T4 GPU)
# · [Open in Kaggle](https://kaggle.com/kernels/welcome?src=https://github.com/pytorch-devices-course/pytorch-devices-course/blob/main/exercises/11_device_in_the_rest_of_your_code_exercises.ipynb) (two GPUs: Settings > Accelerator > GPU T4 x2).
# Without a GPU the notebook still runs to the end.

# %% tags=["course-header"]
# On Colab, Kaggle or any Jupyter without the course: install its helpers (`course_utils`).
# Where they are installed already (`make lab`) this does nothing. The torch you have is kept.
import importlib.metadata, importlib.util, os, subprocess, sys
if importlib.util.find_spec("course_utils") is None:
    keep_torch = [f"torch=={importlib.metadata.version('torch')}"] if importlib.util.find_spec("torch") else []
    source = os.environ.get("COURSE_UTILS_SOURCE", "course-utils @ git+https://github.com/pytorch-devices-course/pytorch-devices-course")
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", source, *keep_torch], check=True)
    importlib.invalidate_caches()
    print("installed course_utils from", source)

# %%
import torch
from torch import nn

from course_utils import check

# %% [markdown]
# ## Exercise 11.1 · autocast settings for a device
#
# Write `autocast_settings(device, bf16_supported)`: `device` is a name (`"cuda:1"`) or a
# `torch.device`; `bf16_supported` says whether that GPU has bfloat16. Return
# `{"device_type": ..., "dtype": ..., "scaler": ...}`: the type autocast takes, bfloat16 on the
# CPU and on a GPU that has it (float16 otherwise), and whether a GradScaler is needed (for
# float16 only).

# %%
def autocast_settings(device, bf16_supported: bool) -> dict:
    # YOUR CODE HERE
    raise NotImplementedError()

# %%
check("11.1")

# %% [markdown]
# ## Exercise 11.2 · A shuffle that survives a default device
#
# Write `order_under(default_device, n, seed)`, playing a notebook that left
# `torch.set_default_device(default_device)` on: set it, shuffle `range(n)` with a DataLoader
# (batch size 1) whose order is fixed by `seed`, and return the order as a list of ints. The
# order must be the same whatever the default device, and the default device must be back to
# none when you return.

# %%
def order_under(default_device, n: int, seed: int) -> list:
    torch.set_default_device(default_device)
    try:
        # YOUR CODE HERE
        raise NotImplementedError()
    finally:
        torch.set_default_device(None)

# %%
check("11.2")

# %% [markdown]
# ## Exercise 11.3 · A forward pass under autocast
#
# Write `autocast_forward(model, x)`: run `model(x)` under bfloat16 autocast for the device `x`
# is on, and return the output as float32.

# %%
def autocast_forward(model: nn.Module, x: torch.Tensor) -> torch.Tensor:
    # YOUR CODE HERE
    raise NotImplementedError()

# %%
check("11.3")
