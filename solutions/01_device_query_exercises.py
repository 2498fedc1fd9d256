# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Exercises 01 · Device query
#
# Each exercise asks for one function. Write it where it says `# YOUR CODE HERE`, run the
# cell, then run the check cell below it: it prints a **PASS**, or a **FAIL** with a hint.
# Every exercise can be solved on a machine without a GPU. Notebook: `notebooks/01_device_query.ipynb`.

# %% [markdown] tags=["course-header"]
# **Run it on a free GPU:** [Open in Colab](https://colab.research.google.com/github/pytorch-devices-course/pytorch-devices-course/blob/main/solutions/01_device_query_exercises.ipynb) (one GPU: Runtime > Change runtime type > T4 GPU)
# · [Open in Kaggle](https://kaggle.com/kernels/welcome?src=https://github.com/pytorch-devices-course/pytorch-devices-course/blob/main/solutions/01_device_query_exercises.ipynb) (two GPUs: Settings > Accelerator > GPU T4 x2).
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

from course_utils import check

# %% [markdown]
# ## Exercise 01.1 · Pick the best device
#
# Write `best_device()` returning a `torch.device`: CUDA when available, else Apple's MPS when
# available, else the CPU. Ask inside the function: the check runs it as on a GPU server, a Mac and
# a laptop by making `torch.cuda.is_available()` and `torch.backends.mps.is_available()` answer as
# they would there, so an answer that only fits this machine fails.

# %%
def best_device() -> torch.device:
    ### BEGIN SOLUTION
    if torch.cuda.is_available():
        return torch.device("cuda")
    if torch.backends.mps.is_available():
        return torch.device("mps")
    return torch.device("cpu")
    ### END SOLUTION

# %%
check("01.1")

# %% [markdown]
# ## Exercise 01.2 · Read `CUDA_VISIBLE_DEVICES`
#
# Write `visible_gpus(mask, physical)`: given the value of `CUDA_VISIBLE_DEVICES` (integers
# only) and the number of physical GPUs, return the list of physical GPU indices that torch will
# call `cuda:0`, `cuda:1`, ... in that order. The rules, as `torch.cuda._parse_visible_devices`
# implements them: read the entries left to right and stop at the first one that is not a number
# or is negative; if an index repeats among those read, no GPU is visible at all; otherwise keep the
# indices up to (not including) the first one past the last physical GPU. So with 4 GPUs, `'1,7,2'`
# shows `[1]`, but `'1,7,1'` shows none: the repeat is found while reading, before any GPU is counted.

# %%
def visible_gpus(mask: str, physical: int) -> list[int]:
    ### BEGIN SOLUTION
    listed: list[int] = []
    for entry in mask.split(","):
        entry = entry.strip()
        if not entry.isdigit():
            break
        index = int(entry)
        if index in listed:
            return []
        listed.append(index)
    for position, index in enumerate(listed):
        if index >= physical:
            return listed[:position]
    return listed
    ### END SOLUTION

# %%
check("01.2")

# %% [markdown]
# ## Exercise 01.3 · Describe a GPU from its properties
#
# `torch.cuda.get_device_properties(i)` returns an object with `name`, `major`, `minor`,
# `total_memory` (bytes) and `multi_processor_count`. Write `describe_gpu(props)` returning a
# string like `"NVIDIA H200: compute capability 9.0, 140.4 GiB, 132 SMs"` (GiB = 1024³ bytes,
# one decimal). The check calls it with made-up properties, so no GPU is needed.

# %%
def describe_gpu(props) -> str:
    ### BEGIN SOLUTION
    gib = props.total_memory / 1024**3
    return (f"{props.name}: compute capability {props.major}.{props.minor}, "
            f"{gib:.1f} GiB, {props.multi_processor_count} SMs")
    ### END SOLUTION

# %%
check("01.3")

# %% [markdown]
# ## Exercise 01.4 · The current device index, without crashing
#
# Write `current_cuda_index()` returning the index of the current CUDA device, or `None` on a
# machine without CUDA. It must not raise on a laptop with no GPU. The check also runs it as on a
# 4-GPU server, a CPU-only build of torch and a CUDA build without a driver, by making
# `torch.cuda.is_available()`, `torch.cuda.device_count()` and `torch.cuda.current_device()`
# answer (or raise) as they would there.

# %%
def current_cuda_index() -> int | None:
    ### BEGIN SOLUTION
    if not torch.cuda.is_available():
        return None
    return torch.cuda.current_device()
    ### END SOLUTION

# %%
check("01.4")
