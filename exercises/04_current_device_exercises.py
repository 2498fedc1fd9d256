# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Exercises 04 · The current CUDA device and its scopes
#
# Each exercise asks for one function. Write it where it says `# YOUR CODE HERE`, run the
# cell, then run the check cell below it: it prints a **PASS**, or a **FAIL** with a hint.
# Every exercise can be solved, and is checked, on a machine without a GPU: the checks compare
# your answer with the rules in PyTorch's source (`torch/cuda/__init__.py`), and with real GPUs
# where the machine has them. Notebook: `notebooks/04_current_device.ipynb`.

# %% [markdown] tags=["course-header"]
# **Run it on a free GPU:** [Open in Colab](https://colab.research.google.com/github/pytorch-devices-course/pytorch-devices-course/blob/main/exercises/04_current_device_exercises.ipynb) (one GPU: Runtime > Change runtime type > T4 GPU)
# · [Open in Kaggle](https://kaggle.com/kernels/welcome?src=https://github.com/pytorch-devices-course/pytorch-devices-course/blob/main/exercises/04_current_device_exercises.ipynb) (two GPUs: Settings > Accelerator > GPU T4 x2).
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
import contextlib

import torch

from course_utils import check

# %% [markdown]
# ## Exercise 04.1 · Predict the current device
#
# On a machine with two GPUs, the current device is 0 when this code starts. `t0` lives on
# `cuda:0` and `cpu_tensor` on the CPU.
#
# ```python
# with torch.cuda.device(1):
#     a = torch.cuda.current_device()
#     with torch.cuda.device_of(cpu_tensor):
#         b = torch.cuda.current_device()
#     with torch.cuda.device_of(t0):
#         c = torch.cuda.current_device()
# d = torch.cuda.current_device()
# with torch.cuda.device(0):
#     torch.cuda.set_device(1)
#     e = torch.cuda.current_device()
# f = torch.cuda.current_device()
# with torch.cuda.device(-1):
#     torch.cuda.set_device(1)
# g = torch.cuda.current_device()
# with torch.device("cuda:0"):
#     h = torch.cuda.current_device()
# ```
#
# Write `predictions()` returning the list `[a, b, c, d, e, f, g, h]` of the integers this prints.
# Predict first; `notebooks/04_current_device.ipynb` has every rule you need.

# %%
def predictions() -> list[int]:
    # YOUR CODE HERE
    raise NotImplementedError()

# %%
check("04.1")

# %% [markdown]
# ## Exercise 04.2 · Simulate the scoping rules
#
# Write `simulate(start, program)`: the current device is `start`; `program` is a list of steps,
# and you return the current device after each step. The steps are tuples:
#
# | step | means |
# |---|---|
# | `("device", i)` | enter `with torch.cuda.device(i):` (`i` an int or `None`) |
# | `("device_of", where)` | enter `with torch.cuda.device_of(t):`, `t` on `where` (`"cpu"` or a GPU index) |
# | `("torch.device", name)` | enter `with torch.device(name):` |
# | `("set_device", i)` | `torch.cuda.set_device(i)` |
# | `("exit",)` | leave the innermost open block |
# | `("read",)` | read the current device (changes nothing) |
#
# The rules are the source of `torch.cuda.device`: entering swaps in the index and remembers the
# device current at that moment; exiting puts that one back; a negative index is a no-op both
# ways; `None` means the current device.

# %%
def simulate(start: int, program: list[tuple]) -> list[int]:
    # YOUR CODE HERE
    raise NotImplementedError()

# %%
check("04.2")

# %% [markdown]
# ## Exercise 04.3 · Where does the tensor land?
#
# Write `landing_device(spec, current)` returning the device (a string such as `"cuda:2"`,
# `"cpu"`, `"meta"`) a tensor lands on when `cuda:current` is the current device and you call
# `x.cuda()` (`spec` is `None`), `x.cuda(i)` (`spec` is an int) or `x.to(spec)` (`spec` is a
# string or a `torch.device`). A device of another type than CUDA is asked with its index
# (`"mps:0"`, `torch.device("xpu", 1)`): the current CUDA device plays no part for it.

# %%
def landing_device(spec, current: int) -> str:
    # YOUR CODE HERE
    raise NotImplementedError()

# %%
check("04.3")

# %% [markdown]
# ## Exercise 04.4 · A device-agnostic scope
#
# Write `device_scope(device)`: for a CUDA device with an index (`"cuda:1"`,
# `torch.device("cuda", 2)`) return `torch.cuda.device(index)`; for anything else (`"cpu"`,
# `"meta"`, `"mps"`, `"cuda"` without an index, which already means the current device) return a
# context manager that does nothing, so the same code runs on a laptop and on a GPU server.

# %%
def device_scope(device):
    # YOUR CODE HERE
    raise NotImplementedError()

# %%
check("04.4")
