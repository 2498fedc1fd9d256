# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Exercises 12 · Which GPU, which build
#
# Each exercise asks for one function. Write it where it says `# YOUR CODE HERE`, run the
# cell, then run the check cell below it: it prints a **PASS**, or a **FAIL** with a hint.
# The checks need no GPU: nvidia-smi's tables are data, and your functions that read torch run
# on simulated machines (GPU servers with wheels too old or too new for their GPU, an AMD
# server, an Intel laptop, a Mac) whose torch answers as theirs would.
# Notebook: `notebooks/12_which_gpu_which_build.ipynb`.

# %% [markdown] tags=["course-header"]
# **Run it on a free GPU:** [Open in Colab](https://colab.research.google.com/github/pytorch-devices-course/pytorch-devices-course/blob/main/exercises/12_which_gpu_which_build_exercises.ipynb) (one GPU: Runtime > Change runtime type > T4 GPU)
# · [Open in Kaggle](https://kaggle.com/kernels/welcome?src=https://github.com/pytorch-devices-course/pytorch-devices-course/blob/main/exercises/12_which_gpu_which_build_exercises.ipynb) (two GPUs: Settings > Accelerator > GPU T4 x2).
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
# ## Exercise 12.1 · The GPU nvidia-smi names, as cuda:0
#
# `rows` is nvidia-smi's table (`nvidia-smi --query-gpu=index,name,pci.bus_id,uuid`): a list of
# dicts with the keys `"index"`, `"name"`, `"pci.bus_id"` and `"uuid"`. Write
# `cuda_env(rows, bus_id)`: the environment variables (a dict of str) under which a CUDA program
# sees only the GPU at PCI bus id `bus_id`, as `cuda:0`, on any machine.

# %%
def cuda_env(rows: list, bus_id: str) -> dict:
    # YOUR CODE HERE
    raise NotImplementedError()

# %%
check("12.1")

# %% [markdown]
# ## Exercise 12.2 · Can this torch run kernels on cuda:0?
#
# Write `gpu_has_kernels()`: True when this machine has a CUDA GPU *and* the installed wheel has
# code that runs on `cuda:0` (read torch each time the function runs), else False. It must not
# raise on a machine without a GPU.

# %%
def gpu_has_kernels() -> bool:
    # YOUR CODE HERE
    raise NotImplementedError()

# %%
check("12.2")

# %% [markdown]
# ## Exercise 12.3 · Which accelerator, which device string
#
# Write `which_platform()`: a pair `(platform, device_type)`. `platform` is `"cuda"` (NVIDIA),
# `"rocm"` (AMD), `"xpu"` (Intel), `"mps"` (Apple) or `"cpu"`: the GPU this process can use now.
# `device_type` is what you would pass to `torch.device(...)` for it.

# %%
def which_platform() -> tuple:
    # YOUR CODE HERE
    raise NotImplementedError()

# %%
check("12.3")
