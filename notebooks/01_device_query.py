# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 01 · Device query: what does this machine have?
#
# Before moving a tensor anywhere, ask what is there. In this notebook you will learn to ask
# PyTorch, and the driver, four questions: **is there an accelerator, how many, which one is
# current, and what is it?**
#
# | Part | Needs |
# |---|---|
# | 1. The machine at a glance | CPU only |
# | 2. `torch.cuda` one call at a time | CPU only (each call says what a GPU would show) |
# | 3. `torch.accelerator`, the device-agnostic API | CPU only |
# | 4. `nvidia-smi` from a notebook | an NVIDIA driver (skipped, with a reason, without one) |
# | 5. `CUDA_VISIBLE_DEVICES` | CPU only to run; a GPU to see the renumbering |
#
# Every cell runs to the end on a laptop with no GPU. Cells that need a GPU say what they
# skipped and why.

# %% [markdown] tags=["course-header"]
# **Run it on a free GPU:** [Open in Colab](https://colab.research.google.com/github/pytorch-devices-course/pytorch-devices-course/blob/main/notebooks/01_device_query.ipynb) (one GPU: Runtime > Change runtime type > T4 GPU)
# · [Open in Kaggle](https://kaggle.com/kernels/welcome?src=https://github.com/pytorch-devices-course/pytorch-devices-course/blob/main/notebooks/01_device_query.ipynb) (two GPUs: Settings > Accelerator > GPU T4 x2).
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
import os
import shutil
import subprocess
import sys

import torch
from torch.torch_version import TorchVersion

from course_utils import device_report, needs_cuda, pick_device, preflight, raises
from course_utils.evidence import recorded

torch.__version__

# %% [markdown]
# ## 1. The machine at a glance
#
# `preflight()` says in plain words what this machine can run of the course, and what to do
# about anything missing (a CPU-only build of torch on a GPU machine, Colab without a GPU
# runtime, a driver problem).

# %%
preflight()

# %% [markdown]
# `device_report()` lists every visible accelerator: its index, name, compute capability,
# total and free memory and multiprocessor count, then the CPU.

# %%
report = device_report()
report

# %% [markdown]
# And the one-line choice most scripts need: CUDA if present, then Apple's MPS, then the CPU.
# It says which one it chose and why, so a silent fallback to the CPU never surprises you.

# %%
device = pick_device()
device

# %% [markdown]
# ## 2. `torch.cuda`, one call at a time
#
# `torch.cuda.is_available()` is always safe to call: it returns `False` on a machine without
# an NVIDIA driver, and on a CPU-only build of torch, instead of raising.

# %%
torch.cuda.is_available(), torch.cuda.device_count()

# %% [markdown]
# `torch.version.cuda` is the CUDA version torch was **built** with (`None` for a CPU build).
# It says nothing about whether a GPU is present: a CUDA build on a laptop without a GPU still
# reports its CUDA version while `is_available()` is `False`. Which version depends on the release
# (read from the default Linux wheels' `torch/version.py`; 2.7.1 and 2.14.1 are also run by the
# course's test matrix); other CUDA builds come from download.pytorch.org:
#
# | PyTorch (default Linux wheel from PyPI) | 2.7.1 | 2.8.0 to 2.9.1 | 2.11.0 to 2.14.1 |
# |---|---|---|---|
# | `torch.version.cuda` | `'12.6'` | `'12.8'` | `'13.0'` |
#
# This PyTorch:

# %%
torch.__version__, torch.version.cuda, torch.backends.cudnn.is_available()

# %% [markdown]
# ### A CUDA build without a driver
#
# On Linux, a plain `pip install torch` downloads the CUDA build (several GB of CUDA libraries)
# even on a laptop with no NVIDIA GPU. There it works as a CPU machine, with three symptoms:
# `torch.cuda.is_available()` is `False`; every CUDA call raises *Found no NVIDIA driver on your
# system*; and `torch.accelerator.current_accelerator()` still returns `device(type='cuda')`,
# the accelerator the build is *for*, unless you pass `check_available=True`. Nothing to fix for
# this course; to save the space, install the CPU wheel (`pip install torch --index-url
# https://download.pytorch.org/whl/cpu`). `preflight()` above says which build you have.

# %%
no_driver = torch.version.cuda is not None and not torch.cuda.is_available() and not shutil.which("nvidia-smi")
built_for = torch.accelerator.current_accelerator()                     # what the build is for
usable = torch.accelerator.current_accelerator(check_available=True)    # what works here
if no_driver:
    assert built_for == torch.device("cuda") and usable is None, (built_for, usable)
    print(raises(lambda: torch.ones(1, device="cuda"), RuntimeError, match="Found no NVIDIA driver"))
no_driver, built_for, usable

# %% [markdown]
# Everything else in `torch.cuda` needs CUDA. `current_device()` returns an **integer** index
# (never the string `"cpu"`, whatever some tutorials print). Without CUDA it raises: on a CPU
# build with *Torch not compiled with CUDA enabled*; on a CUDA build without a driver, with a
# message about the driver. So ask `is_available()` first.

# %%
if torch.cuda.is_available():
    current = torch.cuda.current_device()
    print(f"current device: {current} (type {type(current).__name__})")
else:
    print(raises(torch.cuda.current_device, (AssertionError, RuntimeError)))

# %% [markdown]
# Name, properties and memory of each GPU. `get_device_properties(i)` returns an object with
# `name`, `major`/`minor` (the compute capability), `total_memory` in bytes and
# `multi_processor_count`. `mem_get_info(i)` returns `(free, total)` in bytes, as the driver
# sees it: other processes' memory counts as used.

# %%
if needs_cuda(1, what="the per-GPU property listing", key="01-gpu-properties"):
    for i in range(torch.cuda.device_count()):
        props = torch.cuda.get_device_properties(i)
        free, total = torch.cuda.mem_get_info(i)
        print(f"cuda:{i} {torch.cuda.get_device_name(i)}: sm_{props.major}{props.minor}, "
              f"{props.multi_processor_count} SMs, {free / 2**30:.1f} of {total / 2**30:.1f} GiB free")
else:
    print(needs_cuda(1, what="the per-GPU property listing"))
    print(recorded("01-gpu-properties"))

# %% [markdown]
# Asking for a GPU that is not there is an error too. `get_device_properties` checks the index
# itself: past the last GPU it raises `AssertionError: Invalid device id`. (Creating a tensor there,
# `torch.ones(1, device="cuda:1")` on one GPU, is the driver's *CUDA error: invalid device
# ordinal* instead: notebook 05, part 9.)

# %%
if torch.cuda.is_available():
    missing = torch.cuda.device_count()
    print(raises(lambda: torch.cuda.get_device_properties(missing), AssertionError, match="Invalid device id"))
else:
    print(raises(lambda: torch.cuda.get_device_properties(0), (AssertionError, RuntimeError)))

# %% [markdown]
# ## 3. `torch.accelerator`: one API for CUDA, MPS, XPU and more
#
# Since PyTorch 2.6, `torch.accelerator` asks the same questions without naming the backend.
# `current_accelerator()` returns the accelerator the build was **compiled** for, a `torch.device`
# such as `device(type='cuda')`, or `None` for a build without one. Like `torch.version.cuda`, it
# says nothing about the hardware: a CUDA build on a machine without a GPU still returns
# `device(type='cuda')`. `current_accelerator(check_available=True)` also checks at run time and
# returns `None` there (2.13's `torch/accelerator/__init__.py`). Code written this way runs
# unchanged on NVIDIA, AMD, Apple and Intel GPUs.

# %%
acc = torch.accelerator.current_accelerator() if torch.accelerator.is_available() else None
torch.accelerator.is_available(), acc

# %% [markdown]
# `torch.accelerator.device_count()` returns 0 where there is no accelerator, except in one case:
# on PyTorch 2.7, a CUDA build without a driver raises the driver error instead; 2.14 returns 0
# there too (the releases in between are not tested). This PyTorch:

# %%
no_driver_on_27 = TorchVersion(torch.__version__) < "2.8" and no_driver
if no_driver_on_27:
    count = raises(torch.accelerator.device_count, RuntimeError, match="Found no NVIDIA driver")
else:
    count = torch.accelerator.device_count()
count

# %% [markdown]
# The device-agnostic idiom: use the accelerator when there is one, else the CPU.

# %%
agnostic = acc if acc is not None else torch.device("cpu")
torch.ones(3, device=agnostic).device

# %% [markdown]
# `torch.accelerator.current_device_index()` is the agnostic `current_device()`. Where there is no
# accelerator it does not return a CPU index: it raises, just like `torch.cuda.current_device()`.
# (It was called `current_device_idx` before PyTorch 2.7.)

# %%
if torch.accelerator.is_available():
    print(torch.accelerator.current_device_index())
else:
    print(raises(torch.accelerator.current_device_index, (RuntimeError, AssertionError)))

# %% [markdown]
# ## 4. `nvidia-smi` from a notebook
#
# `nvidia-smi` comes with the NVIDIA driver, not with PyTorch. It sees every GPU of the machine
# (ignoring `CUDA_VISIBLE_DEVICES`) and every process using them. From a notebook, run it as a
# subprocess and handle the machine where it does not exist.

# %%
def run_nvidia_smi(*args: str) -> str:
    """Run nvidia-smi and return its output, or say why it could not run."""
    try:
        done = subprocess.run(["nvidia-smi", *args], capture_output=True, text=True, timeout=30)
    except FileNotFoundError:
        return "nvidia-smi not found: no NVIDIA driver on this machine (or it is not on PATH)."
    except subprocess.TimeoutExpired:
        return "nvidia-smi did not answer within 30 s: the driver may be hung."
    return done.stdout if done.returncode == 0 else f"nvidia-smi failed ({done.returncode}): {done.stderr.strip()}"

print(run_nvidia_smi("--query-gpu=index,name,memory.used,memory.total,pcie.link.gen.current", "--format=csv"))

# %% [markdown]
# ## 5. `CUDA_VISIBLE_DEVICES`: which GPUs this process may see
#
# The CUDA driver reads `CUDA_VISIBLE_DEVICES` **once, when CUDA initialises** in a process.
# It hides the GPUs not listed and **renumbers** the rest from 0 in the listed order: with
# `CUDA_VISIBLE_DEVICES=2,0`, `cuda:0` is physical GPU 2 and `cuda:1` is physical GPU 0.
# `CUDA_VISIBLE_DEVICES=""` hides them all.
#
# The reliable way to set it is in the environment of a *new* process (or before starting
# Jupyter). Here we start child Pythons with different values and ask each how many GPUs it sees.

# %%
def start_child(mask: str | None) -> subprocess.Popen:
    """A new Python that prints how many GPUs it sees, with CUDA_VISIBLE_DEVICES=mask (None: unset)."""
    env = dict(os.environ)
    env.pop("CUDA_VISIBLE_DEVICES", None)
    if mask is not None:
        env["CUDA_VISIBLE_DEVICES"] = mask
    code = "import torch; print(torch.cuda.device_count())"
    return subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE, text=True)

children = {mask: start_child(mask) for mask in (None, "", "0")}  # all three start at once
{mask: int(child.communicate(timeout=120)[0]) for mask, child in children.items()}

# %% [markdown]
# On a CPU-only machine every child sees 0 GPUs: there is nothing to hide. On a machine with
# four GPUs the same cell shows `{None: 4, '': 0, '0': 1}`.
#
# Changing `os.environ["CUDA_VISIBLE_DEVICES"]` inside a running notebook is a trap: once CUDA
# has initialised (any `.cuda()`, `torch.cuda.current_device()`, ...) the driver has already read
# it and the change does nothing. Before that point it may take effect, because PyTorch
# initialises CUDA lazily, which makes the bug depend on which cell ran first. Set it before
# the process starts.

# %%
if needs_cuda(2, what="the in-process CUDA_VISIBLE_DEVICES demonstration", key="01-visible-devices-after-init"):
    torch.cuda.init()
    before = torch.cuda.device_count()
    os.environ["CUDA_VISIBLE_DEVICES"] = "0"
    print(f"after setting CUDA_VISIBLE_DEVICES=0 in-process: still {torch.cuda.device_count()} of {before} GPUs")
    del os.environ["CUDA_VISIBLE_DEVICES"]
else:
    print(needs_cuda(2, what="the in-process CUDA_VISIBLE_DEVICES demonstration"))
    print(recorded("01-visible-devices-after-init"))

# %% [markdown]
# ## Summary
#
# - `torch.cuda.is_available()` and `device_count()` are always safe; almost everything else in
#   `torch.cuda` raises without CUDA, so ask first.
# - `current_device()` returns an integer index; there is no "current device" on the CPU.
# - `torch.accelerator` asks the same questions for any backend; prefer it in new code.
# - `nvidia-smi` sees every GPU and process; torch sees only what `CUDA_VISIBLE_DEVICES` allows,
#   renumbered from 0, read once when CUDA initialises.
#
# **Exercises:** `exercises/01_device_query_exercises.ipynb` (pick the best device, read
# `CUDA_VISIBLE_DEVICES`, describe a GPU, the current device index without crashing).
# **Next:** `02_tensor_placement.ipynb`, where tensors live.
