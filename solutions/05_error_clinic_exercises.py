# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Exercises 05 · The cross-device error clinic
#
# Each exercise asks for one function. Write it where it says `# YOUR CODE HERE`, run the
# cell, then run the check cell below it: it prints a **PASS**, or a **FAIL** with a hint.
# Every exercise can be solved on a machine without a GPU: the checks use `meta` as the second
# device and checkpoints tagged as saved on a GPU, and add CUDA cases where there is a GPU.
# Notebook: `notebooks/05_error_clinic.ipynb`.

# %% [markdown] tags=["course-header"]
# **Run it on a free GPU:** [Open in Colab](https://colab.research.google.com/github/pytorch-devices-course/pytorch-devices-course/blob/main/solutions/05_error_clinic_exercises.ipynb) (one GPU: Runtime > Change runtime type > T4 GPU)
# · [Open in Kaggle](https://kaggle.com/kernels/welcome?src=https://github.com/pytorch-devices-course/pytorch-devices-course/blob/main/solutions/05_error_clinic_exercises.ipynb) (two GPUs: Settings > Accelerator > GPU T4 x2).
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
import io

import torch
from torch import nn

from course_utils import check

# %% [markdown]
# ## Exercise 05.1 · Name the fix from the message
#
# Write `fix_for(message)`: given only the text of an error, return the name of the fix it needs,
# one of:
#
# | name | the fix |
# |---|---|
# | `"move-to-one-device"` | put every operand of the operation on one device |
# | `"index-to-table-device"` | move the index to the indexed tensor's device |
# | `"map-location"` | `torch.load(..., map_location=...)` |
# | `"cpu-before-numpy"` | `t.detach().cpu().numpy()` |
# | `"existing-device-index"` | use a device index that exists on this machine |
# | `"cpu-or-cuda-build"` | no usable CUDA here: run on the CPU, or install a CUDA build/driver |
# | `"optimizer-after-move"` | move the model before creating the optimizer (or reload its state) |
# | `"not-a-device-error"` | moving tensors will not help |
#
# The check uses real messages, both of PyTorch's wordings of the same-device error, `meta`'s
# wording and a 2019 one (that old wording, `Expected object of type ... but found type ...`,
# reported a dtype mismatch as well as a device one). Use the text only (string methods or `re`).

# %%
def fix_for(message: str) -> str:
    ### BEGIN SOLUTION
    text = message.lower()
    if "same index must be on the same device" in text:
        return "optimizer-after-move"
    if "indices should be either on" in text:
        return "index-to-table-device"
    if "deserialize object on" in text:
        return "map-location"
    if "to numpy" in text:
        return "cpu-before-numpy"
    if "invalid device ordinal" in text:
        return "existing-device-index"
    if "not compiled with cuda" in text or "nvidia driver" in text:
        return "cpu-or-cuda-build"
    if "on the same device" in text or "not on the expected device" in text:
        return "move-to-one-device"
    if "expected object of type" in text and text.count("torch.cuda.") == 1:  # PyTorch 0.4: one CUDA type, one CPU
        return "move-to-one-device"
    return "not-a-device-error"
    ### END SOLUTION

# %%
check("05.1")

# %% [markdown]
# ## Exercise 05.2 · Move every input to the model's device
#
# Write `to_model_device(model, *inputs)` returning a tuple of the inputs with every tensor moved
# to the model's device (that of its parameters, or of its buffers if it has none). Inputs may be
# tensors, or lists, tuples (namedtuples too) and dicts of them, nested; keep their structure in
# new lists and dicts (leave the ones you were given as they are, as in 02.2), and return
# anything that is not a tensor as it is. A model with no parameters or buffers has no device:
# return the inputs unchanged.

# %%
def to_model_device(model: nn.Module, *inputs):
    ### BEGIN SOLUTION
    tensors = list(model.parameters()) + list(model.buffers())
    if not tensors:
        return inputs
    device = tensors[0].device

    def move(value):
        if isinstance(value, torch.Tensor):
            return value.to(device)
        if isinstance(value, tuple) and hasattr(value, "_fields"):  # a namedtuple takes its fields one by one
            return type(value)(*(move(v) for v in value))
        if isinstance(value, (list, tuple)):
            return type(value)(move(v) for v in value)
        if isinstance(value, dict):
            return {k: move(v) for k, v in value.items()}
        return value

    return tuple(move(x) for x in inputs)
    ### END SOLUTION

# %%
check("05.2")

# %% [markdown]
# ## Exercise 05.3 · The safe device for an index
#
# `table[index]` allows the index on the CPU or on the table's own device, and raises otherwise.
# Write `index_device(table_device, index_device)` returning (as a string such as `"cuda:0"`) the
# device the index should be on: where it already is when that is allowed, else the table's
# device. Arguments are device strings or `torch.device`s, always with an index for CUDA.

# %%
def index_device(table_device, index_device) -> str:
    ### BEGIN SOLUTION
    table, index = torch.device(table_device), torch.device(index_device)
    if index.type == "cpu" or index == table:
        return str(index)
    return str(table)
    ### END SOLUTION

# %%
check("05.3")

# %% [markdown]
# ## Exercise 05.4 · Load any checkpoint anywhere
#
# Write `load_anywhere(data, device)`: `data` is the bytes of a `torch.save` file, saved on any
# device (the CPU, `cuda:1`, `mps`, ...); return what it holds with every tensor on `device`,
# on this machine, GPU or not: on that very device, index and all (`cuda:1` is not `cuda:0`).

# %%
def load_anywhere(data: bytes, device):
    ### BEGIN SOLUTION
    return torch.load(io.BytesIO(data), map_location=device)
    ### END SOLUTION

# %%
check("05.4")
