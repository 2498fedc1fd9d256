# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Exercises 09 · Data loading and device memory
#
# Each exercise asks for one function. Write it where it says `# YOUR CODE HERE`, run the
# cell, then run the check cell below it: it prints a **PASS**, or a **FAIL** with a hint.
# Every exercise can be solved on a machine without a GPU: the checks move batches to `meta`,
# run real training steps on the CPU and simulate GPU servers and Macs.
# Notebook: `notebooks/09_data_loading_and_memory.ipynb`.

# %% [markdown] tags=["course-header"]
# **Run it on a free GPU:** [Open in Colab](https://colab.research.google.com/github/pytorch-devices-course/pytorch-devices-course/blob/main/exercises/09_data_loading_and_memory_exercises.ipynb) (one GPU: Runtime > Change runtime type > T4 GPU)
# · [Open in Kaggle](https://kaggle.com/kernels/welcome?src=https://github.com/pytorch-devices-course/pytorch-devices-course/blob/main/exercises/09_data_loading_and_memory_exercises.ipynb) (two GPUs: Settings > Accelerator > GPU T4 x2).
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
# ## Exercise 09.1 · Move a nested batch to the device
#
# Write `to_device(batch, device)`: return a copy of `batch` in which every tensor, however
# deeply nested in dicts, lists and tuples, is moved with `.to(device, non_blocking=True)`.
# Containers keep their type (a tuple stays a tuple, a namedtuple the same namedtuple), other
# values (ints, strings) come back as they are, and the `batch` you were given stays unchanged. Example:
# `to_device({"x": torch.ones(2), "ids": [4, 5]}, torch.device("meta"))`.

# %%
def to_device(batch, device):
    # YOUR CODE HERE
    raise NotImplementedError()

# %%
check("09.1")

# %% [markdown]
# ## Exercise 09.2 · Bytes held between training steps
#
# Write `held_bytes(model, optimizer)`: after a training step, return the bytes (an `int`) that
# stay in memory until the next one: every parameter of `model`, every gradient that exists
# (`p.grad` is `None` for a frozen or unused parameter), and every tensor in the optimizer's
# state (`optimizer.state[p]` is a dict). A tensor's bytes: `t.numel() * t.element_size()`.
# Buffers (such as BatchNorm's running statistics) stay in memory too, but are not asked for
# here: the check's models have none, so counting `model.buffers()` or not makes no difference.

# %%
def held_bytes(model, optimizer):
    # YOUR CODE HERE
    raise NotImplementedError()

# %%
check("09.2")

# %% [markdown]
# ## Exercise 09.3 · Choose a DataLoader's settings
#
# Write `loader_options(touches_cuda)`: return the DataLoader keyword arguments, as a dict, for
# the machine the code runs on. `pin_memory` is `True` exactly when CUDA is available (on a
# Mac's MPS the DataLoader cannot pin); `multiprocessing_context` is `"spawn"` when the
# Dataset's `__getitem__` touches CUDA (`touches_cuda=True`), and otherwise left out, or `None`
# (the DataLoader's default, which passes too).

# %%
def loader_options(touches_cuda):
    # YOUR CODE HERE
    raise NotImplementedError()

# %%
check("09.3")
