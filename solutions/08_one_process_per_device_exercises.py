# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Exercises 08 · One process per device
#
# Each exercise asks for one function. Write it where it says `# YOUR CODE HERE`, run the
# cell, then run the check cell below it: it prints a **PASS**, or a **FAIL** with a hint.
# The checks call your functions with made-up machines (GPU counts and environments passed in
# as data), so every exercise can be solved, and means the same, on a machine without a GPU.
# Notebook: `notebooks/08_one_process_per_device.ipynb`.

# %% [markdown] tags=["course-header"]
# **Run it on a free GPU:** [Open in Colab](https://colab.research.google.com/github/pytorch-devices-course/pytorch-devices-course/blob/main/solutions/08_one_process_per_device_exercises.ipynb) (one GPU: Runtime > Change runtime type > T4 GPU)
# · [Open in Kaggle](https://kaggle.com/kernels/welcome?src=https://github.com/pytorch-devices-course/pytorch-devices-course/blob/main/solutions/08_one_process_per_device_exercises.ipynb) (two GPUs: Settings > Accelerator > GPU T4 x2).
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
# ## Exercise 08.1 · Choose the device from `LOCAL_RANK`
#
# Write `device_for_rank(local_rank, gpu_count)` returning the `torch.device` of the process
# with this `LOCAL_RANK` on a machine with `gpu_count` GPUs: the CPU when there is no GPU,
# else `cuda:<local_rank>`. When `local_rank >= gpu_count > 0` that process has no GPU of its
# own: raise `ValueError`.

# %%
def device_for_rank(local_rank: int, gpu_count: int) -> torch.device:
    ### BEGIN SOLUTION
    if gpu_count == 0:
        return torch.device("cpu")
    if local_rank >= gpu_count:
        raise ValueError(f"local rank {local_rank} has no GPU of its own: this machine has {gpu_count}")
    return torch.device("cuda", local_rank)
    ### END SOLUTION

# %%
check("08.1")

# %% [markdown]
# ## Exercise 08.2 · Fix: every process lands on `cuda:0`
#
# This function was copied from a single-GPU script into a torchrun script:
#
# ```python
# def pick_device(env, gpu_count):
#     return torch.device("cuda:0") if gpu_count else torch.device("cpu")   # BUG under torchrun
# ```
#
# Every process runs it, so every process picks GPU 0. Write the fixed `pick_device(env, gpu_count)`:
# `env` is the process's environment (a dict of strings, like `os.environ`) and `gpu_count` the
# number of GPUs on its machine. Use `LOCAL_RANK` (absent when the script runs as plain
# `python train.py`: then it is the only process, local rank 0). The check tries launches on
# one and on two machines.

# %%
def pick_device(env: dict, gpu_count: int) -> torch.device:
    ### BEGIN SOLUTION
    local_rank = int(env.get("LOCAL_RANK", "0"))
    if gpu_count == 0:
        return torch.device("cpu")
    return torch.device("cuda", local_rank)
    ### END SOLUTION

# %%
check("08.2")

# %% [markdown]
# ## Exercise 08.3 · `device_ids` for `DistributedDataParallel`
#
# Write `ddp_device_ids(device)` returning what `DistributedDataParallel(model, device_ids=...)`
# needs for a model that lives on `device` (a `torch.device` or a string such as `"cuda:1"`;
# a GPU device always has its index): `None` for a CPU model, `[i]` for a model on `cuda:i`.

# %%
def ddp_device_ids(device) -> list[int] | None:
    ### BEGIN SOLUTION
    device = torch.device(device)
    if device.type == "cpu":
        return None
    return [device.index]
    ### END SOLUTION

# %%
check("08.3")

# %% [markdown]
# ## Exercise 08.4 · Find the GPUs that several ranks share
#
# NCCL refuses two ranks on one GPU ("Duplicate GPU detected"). Spot it first: write
# `shared_gpus(devices)` where `devices` maps each rank to the device string it chose
# (`{0: "cuda:0", 1: "cuda:0"}`), returning `{device: sorted ranks}` for every GPU chosen by two
# ranks or more (`{"cuda:0": [0, 1]}`), and `{}` when each GPU has one rank. Ranks on `"cpu"` may
# share it: leave them out. `"cuda"` without an index is the current device: `cuda:0` in a
# process that never called `torch.cuda.set_device`.

# %%
def shared_gpus(devices: dict[int, str]) -> dict[str, list[int]]:
    ### BEGIN SOLUTION
    by_gpu: dict[str, list[int]] = {}
    for rank, name in devices.items():
        device = torch.device(name)
        if device.type == "cpu":
            continue
        key = f"{device.type}:{0 if device.index is None else device.index}"
        by_gpu.setdefault(key, []).append(rank)
    return {gpu: sorted(ranks) for gpu, ranks in by_gpu.items() if len(ranks) > 1}
    ### END SOLUTION

# %%
check("08.4")
