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
# **Run it on a free GPU:** [Open in Colab](https://colab.research.google.com/github/pytorch-devices-course/pytorch-devices-course/blob/main/solutions/09_data_loading_and_memory_exercises.ipynb) (one GPU: Runtime > Change runtime type > T4 GPU)
# · [Open in Kaggle](https://kaggle.com/kernels/welcome?src=https://github.com/pytorch-devices-course/pytorch-devices-course/blob/main/solutions/09_data_loading_and_memory_exercises.ipynb) (two GPUs: Settings > Accelerator > GPU T4 x2).
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
    ### BEGIN SOLUTION
    if isinstance(batch, torch.Tensor):
        return batch.to(device, non_blocking=True)
    if isinstance(batch, dict):
        return {key: to_device(value, device) for key, value in batch.items()}
    if isinstance(batch, tuple) and hasattr(batch, "_fields"):  # a namedtuple takes its fields one by one
        return type(batch)(*(to_device(value, device) for value in batch))
    if isinstance(batch, (list, tuple)):
        return type(batch)(to_device(value, device) for value in batch)
    return batch
    ### END SOLUTION

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
    ### BEGIN SOLUTION
    params = list(model.parameters())
    tensors = params + [p.grad for p in params if p.grad is not None]
    tensors += [v for state in optimizer.state.values() for v in state.values() if isinstance(v, torch.Tensor)]
    return sum(t.numel() * t.element_size() for t in tensors)
    ### END SOLUTION

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
    ### BEGIN SOLUTION
    options = {"pin_memory": torch.cuda.is_available()}
    if touches_cuda:
        options["multiprocessing_context"] = "spawn"
    return options
    ### END SOLUTION

# %%
check("09.3")
