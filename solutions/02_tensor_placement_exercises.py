# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Exercises 02 · Tensor placement
#
# Each exercise asks for one function. Write it where it says `# YOUR CODE HERE`, run the
# cell, then run the check cell below it: it prints a **PASS**, or a **FAIL** with a hint.
# Every exercise can be solved on a machine without a GPU: the checks use the `meta` device as the
# second device, and add CUDA cases when a GPU is present. Notebook: `notebooks/02_tensor_placement.ipynb`.

# %% [markdown] tags=["course-header"]
# **Run it on a free GPU:** [Open in Colab](https://colab.research.google.com/github/pytorch-devices-course/pytorch-devices-course/blob/main/solutions/02_tensor_placement_exercises.ipynb) (one GPU: Runtime > Change runtime type > T4 GPU)
# · [Open in Kaggle](https://kaggle.com/kernels/welcome?src=https://github.com/pytorch-devices-course/pytorch-devices-course/blob/main/solutions/02_tensor_placement_exercises.ipynb) (two GPUs: Settings > Accelerator > GPU T4 x2).
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
import numpy as np
import torch

from course_utils import check

# %% [markdown]
# ## Exercise 02.1 · A new tensor like another
#
# Write `like(reference, values)`: a new tensor holding `values` (a number or a nested list) on
# the same device **and** with the same dtype as the tensor `reference`.

# %%
def like(reference: torch.Tensor, values) -> torch.Tensor:
    ### BEGIN SOLUTION
    return torch.tensor(values, device=reference.device, dtype=reference.dtype)
    ### END SOLUTION

# %%
check("02.1")

# %% [markdown]
# ## Exercise 02.2 · Move a batch, copying only what must move
#
# Write `move_batch(batch, device)`: given a dict whose values are tensors and other things,
# return a **new** dict in which every tensor is on `device` (dtype unchanged) and everything else
# is as it was. A tensor already on `device` must come back as the same object, not a copy, and
# the dict you were given must not change.

# %%
def move_batch(batch: dict, device) -> dict:
    ### BEGIN SOLUTION
    return {key: value.to(device) if isinstance(value, torch.Tensor) else value for key, value in batch.items()}
    ### END SOLUTION

# %%
check("02.2")

# %% [markdown]
# ## Exercise 02.3 · Build under a device, leaving nothing set
#
# Write `build_on(device, make)`: call `make()` (a function you cannot change, which creates
# tensors or a model without passing `device=`) so that everything it creates lands on `device`,
# and return its result. Afterwards the default device must be what it was, **even if `make()`
# raises** (let that error through).

# %%
def build_on(device, make):
    ### BEGIN SOLUTION
    with torch.device(device):
        return make()
    ### END SOLUTION

# %%
check("02.3")

# %% [markdown]
# ## Exercise 02.4 · A NumPy copy from any device
#
# Write `numpy_copy(t)`: a NumPy array with the values of `t`, for a tensor on any device (with
# data) and for a tensor that requires grad. The array must never share memory with `t`: writing
# to it must not change the tensor, on the CPU too.

# %%
def numpy_copy(t: torch.Tensor) -> np.ndarray:
    ### BEGIN SOLUTION
    return t.detach().cpu().numpy().copy()
    ### END SOLUTION

# %%
check("02.4")
