# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Exercises 10 · Models bigger than one device
#
# Each exercise asks for one function. Write it where it says `# YOUR CODE HERE`, run the
# cell, then run the check cell below it: it prints a **PASS**, or a **FAIL** with a hint.
# The checks build their models on `meta` (no memory) and split them over `cpu` and `meta`,
# and a device map is a plan with device names, so every exercise runs on a machine without a
# GPU. Notebook: `notebooks/10_models_bigger_than_a_device.ipynb`.

# %% [markdown] tags=["course-header"]
# **Run it on a free GPU:** [Open in Colab](https://colab.research.google.com/github/pytorch-devices-course/pytorch-devices-course/blob/main/exercises/10_models_bigger_than_a_device_exercises.ipynb) (one GPU: Runtime > Change runtime type > T4 GPU)
# · [Open in Kaggle](https://kaggle.com/kernels/welcome?src=https://github.com/pytorch-devices-course/pytorch-devices-course/blob/main/exercises/10_models_bigger_than_a_device_exercises.ipynb) (two GPUs: Settings > Accelerator > GPU T4 x2).
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
# ## Exercise 10.1 · Make a meta model real
#
# Write `materialize(model, device)`: `model` was built on `meta`. Give it memory on `device`
# and the values its constructor would have given it (every layer's, nested ones too), and
# return the same model.

# %%
def materialize(model: nn.Module, device) -> nn.Module:
    # YOUR CODE HERE
    raise NotImplementedError()

# %%
check("10.1")

# %% [markdown]
# ## Exercise 10.2 · A device map from memory budgets
#
# Write `plan_device_map(model, budgets)`. `budgets` maps device names, in the order to fill
# them, to bytes: `{"cuda:0": 20 * 2**30, "cuda:1": 20 * 2**30, "cpu": 64 * 2**30}`. Return
# `{layer name: torch.device}` for the model's top-level layers (`model.named_children()`), in
# order: a layer goes on the current device if its parameters and buffers fit in what is left
# there (exactly full is fine), else on the next device where it fits (a device too small for it is
# skipped), never back on an earlier one. When the devices run out, raise `ValueError`. The models are on `meta`: count bytes from shapes and
# dtypes.

# %%
def plan_device_map(model: nn.Module, budgets: dict) -> dict:
    # YOUR CODE HERE
    raise NotImplementedError()

# %%
check("10.2")

# %% [markdown]
# ## Exercise 10.3 · Where does each parameter's optimizer state live?
#
# Write `optimizer_state_devices(model, optimizer)` returning, for every parameter name of
# `model`, a dict `{state key: torch.device}` of the optimizer's state tensors for that
# parameter (`{}` when it has none yet). The check's models are split over `cpu` and `meta`.

# %%
def optimizer_state_devices(model: nn.Module, optimizer: torch.optim.Optimizer) -> dict:
    # YOUR CODE HERE
    raise NotImplementedError()

# %%
check("10.3")

# %% [markdown]
# ## Exercise 10.4 · A CPU budget that keeps layers off the disk
#
# accelerate's `infer_auto_device_map(model, max_memory={"cpu": budget})` fills the CPU in order,
# then sends the rest to `"disk"`, and keeps room on the CPU for the largest layer going to disk
# (lesson 10, the last Deeper part). Write `cpu_budget(model, on_cpu)`: the smallest budget, an `int`
# of bytes, that keeps the first `on_cpu` top-level layers on the CPU. Count each layer's parameters
# and buffers in bytes; the models are on `meta`. No accelerate is needed to answer.

# %%
def cpu_budget(model: nn.Module, on_cpu: int) -> int:
    # YOUR CODE HERE
    raise NotImplementedError()

# %%
check("10.4")
