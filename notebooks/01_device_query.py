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
# You will be able to:
# - ask PyTorch whether there is a GPU, how many, which one is current and what it is;
# - decide the device once with `torch.accelerator`, on any backend, and carry it;
# - read the error PyTorch raises for a GPU that is not there;
# - choose which GPUs a process sees with `CUDA_VISIBLE_DEVICES`.
#
# <!-- readme (make pairs writes README's rows from these lines)
# learn: is there an accelerator, how many, which is current, what it is: `torch.cuda.*`, `torch.accelerator.*`,
# `nvidia-smi`, `CUDA_VISIBLE_DEVICES`
# covers: is there an accelerator, how many, which is current, what it is: `torch.cuda.*`, `torch.accelerator.*`,
# `nvidia-smi`, `CUDA_VISIBLE_DEVICES`; `preflight()` and `device_report()`
# -->
#
# <!-- lesson-needs:start, written by make pairs -->
# | Part | Runs for real with | GPU-only cells |
# |---|---|---|
# | 1 | 1 GPU | 1 (1 GPU) |
# | 2 | a CPU | none |
# | 3 | a CPU | none |
# | 4 | 2 GPUs | in Deeper: 1 (2 GPUs) |
#
# Without a GPU, each GPU-only cell prints SKIPPED, says what a GPU shows, then a real GPU's output from a public report, not run here (2 of 2 cells), then the folded PyTorch source.
# <!-- lesson-needs:end -->
#
# Every other cell asks this machine, so it runs for real with or without a GPU. **Deeper**
# sections are optional.

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
from course_utils.checks import check
# Short tracebacks: frames inside torch's own code are hidden from errors; %tb shows the full one.
# %load_ext course_utils.tracebacks

torch.__version__

# %% [markdown]
# ## 1. `torch.cuda`, one call at a time
#
# Is there a GPU, and how many? These two calls are always safe: without a GPU they answer
# `False` and `0` instead of raising.

# %%
torch.cuda.is_available(), torch.cuda.device_count()

# %% [markdown]
# `torch.version.cuda` is the CUDA version torch was **built** with (`None` for a CPU build). It
# says nothing about the hardware: a CUDA build on a laptop without a GPU still reports it.

# %%
print("torch.version.cuda =", repr(torch.version.cuda))  # print: a bare None would show nothing

# %% [markdown]
# Almost everything else in `torch.cuda` needs a GPU. Here we ask for the properties of GPU
# number `device_count()`, one past the last. It raises on every machine: read the last line
# of the traceback.

# %% tags=["raises-exception"]
torch.cuda.get_device_properties(torch.cuda.device_count())

# %% [markdown]
# Without CUDA it says so (*Torch not compiled with CUDA enabled*, or a message about the
# driver); with GPUs it says *Invalid device id*. So ask `is_available()` first.
#
# `torch.cuda.current_device()` is the **index** of the current GPU, an integer, and raises
# without CUDA. `raises(...)`, a course helper, runs a failing call and returns its message:

# %%
if torch.cuda.is_available():
    current = torch.cuda.current_device()
else:
    current = raises(torch.cuda.current_device, (AssertionError, RuntimeError))
current

# %% [markdown]
# On a GPU, `get_device_properties(i)` describes GPU `i`: name, compute capability
# (`major`, `minor`), memory and multiprocessor count.

# %%
if gpu := needs_cuda(1, what="the per-GPU property listing", key="01-gpu-properties"):
    for i in range(torch.cuda.device_count()):
        props = torch.cuda.get_device_properties(i)
        free, total = torch.cuda.mem_get_info(i)
        print(f"cuda:{i} {torch.cuda.get_device_name(i)}: sm_{props.major}{props.minor}, "
              f"{props.multi_processor_count} SMs, {free / 2**30:.1f} of {total / 2**30:.1f} GiB free")
else:
    display(gpu)

# %% [markdown] tags=["deeper"]
# ### Deeper: free memory, and which error a missing GPU gives

# %% [markdown] tags=["deeper"]
# `mem_get_info(i)` returns `(free, total)` in bytes, as the driver sees it: other processes'
# memory counts as used. `get_device_properties` checks the index itself: past the last GPU it
# raises `AssertionError: Invalid device id`. Creating a tensor there instead,
# `torch.ones(1, device="cuda:1")` on one GPU, is the driver's *CUDA error: invalid device
# ordinal* (notebook 05, part 3; from PyTorch 2.9 the message adds *GPU device may be out of
# range, do you have enough GPUs?*). `current_device()` never returns the string `"cpu"`, whatever
# some tutorials print: on a CPU build it raises *Torch not compiled with CUDA enabled*, on a
# CUDA build without a driver a message about the driver.

# %% tags=["deeper"]
if torch.cuda.is_available():
    missing = torch.cuda.device_count()
    print(raises(lambda: torch.cuda.get_device_properties(missing), AssertionError, match="Invalid device id"))
else:
    print(raises(lambda: torch.cuda.get_device_properties(0), (AssertionError, RuntimeError)))

# %% [markdown] tags=["deeper"]
# ### Deeper: which CUDA each release is built with, and a CUDA build without a driver

# %% [markdown] tags=["deeper"]
# Which version `torch.version.cuda` reports depends on the release (read from the default Linux
# wheels' `torch/version.py`; 2.7.1 and 2.14.1 are also run by the course's test matrix); other
# CUDA builds come from download.pytorch.org:
#
# | PyTorch (default Linux wheel from PyPI) | 2.7.1 | 2.8.0 to 2.10.0 | 2.11.0 to 2.14.1 |
# |---|---|---|---|
# | `torch.version.cuda` | `'12.6'` | `'12.8'` | `'13.0'` |
#
# This PyTorch, and whether it has cuDNN:

# %% tags=["deeper"]
torch.__version__, torch.version.cuda, torch.backends.cudnn.is_available()

# %% [markdown] tags=["deeper"]
# On Linux, a plain `pip install torch` downloads the CUDA build (several GB of CUDA libraries)
# even on a laptop with no NVIDIA GPU. There it works as a CPU machine, with three symptoms:
# `torch.cuda.is_available()` is `False`; every CUDA call raises *Found no NVIDIA driver on your
# system*; and `torch.accelerator.current_accelerator()` still returns `device(type='cuda')`,
# the accelerator the build is *for*, unless you pass `check_available=True`. Nothing to fix for
# this course; to save the space, install the CPU wheel (`pip install torch --index-url
# https://download.pytorch.org/whl/cpu`). `preflight()` (part 3) says which build you have.

# %% tags=["deeper"]
no_driver = torch.version.cuda is not None and not torch.cuda.is_available() and not shutil.which("nvidia-smi")
built_for = torch.accelerator.current_accelerator()                     # what the build is for
usable = torch.accelerator.current_accelerator(check_available=True)    # what works here
if no_driver:
    assert built_for == torch.device("cuda") and usable is None, (built_for, usable)
    print(raises(lambda: torch.ones(1, device="cuda"), RuntimeError, match="Found no NVIDIA driver"))
no_driver, built_for, usable

# %% [markdown]
# ## 2. `torch.accelerator`: the same questions for any backend
#
# `torch.accelerator` asks without naming CUDA, so the same code runs on NVIDIA, AMD, Apple and
# Intel GPUs. `current_accelerator(check_available=True)` returns the accelerator that works
# here, as a `torch.device`, or `None`.

# %%
torch.accelerator.is_available(), torch.accelerator.current_accelerator(check_available=True)

# %% [markdown]
# Without `check_available=True`, `current_accelerator()` names the accelerator the build is
# **for**: a CUDA build says `cuda` even on a laptop without a GPU; a CPU build has none, `None`.

# %%
print(torch.accelerator.current_accelerator())  # print: a bare None would show nothing

# %% tags=["try-it"]
# Try it: complete `usable_device()` so it returns the accelerator that works here, or
# torch.device("cpu") when there is none. The check runs it on a GPU server, a Mac and three laptops.
def usable_device():
    # YOUR CODE HERE
    raise NotImplementedError()

check("01.a")

# %% [markdown] tags=["deeper"]
# ### Deeper: `device_count`, `current_device_index` and version differences

# %% [markdown] tags=["deeper"]
# `torch.accelerator` arrived in PyTorch 2.6. `torch.accelerator.device_count()` returns 0 where
# there is no accelerator, except in one case: on PyTorch 2.7, a CUDA build without a driver
# raises the driver error instead; 2.14 returns 0 there too (the releases in between are not
# tested). This PyTorch:

# %% tags=["deeper"]
cuda_build_without_driver = torch.version.cuda is not None and not torch.cuda.is_available()
if TorchVersion(torch.__version__) < "2.8" and cuda_build_without_driver and not shutil.which("nvidia-smi"):
    count = raises(torch.accelerator.device_count, RuntimeError, match="Found no NVIDIA driver")
else:
    count = torch.accelerator.device_count()
count

# %% [markdown] tags=["deeper"]
# `torch.accelerator.current_device_index()` is the agnostic `current_device()`. Where there is no
# accelerator it does not return a CPU index: it raises, just like `torch.cuda.current_device()`.
# (Its old name, `current_device_idx`, is a deprecated alias since PyTorch 2.6, which already has
# `current_device_index`; calling it warns with a `FutureWarning`.) `current_accelerator(check_available=True)`
# does its check at run time (2.13's `torch/accelerator/__init__.py`).

# %% tags=["deeper"]
if torch.accelerator.is_available():
    print(torch.accelerator.current_device_index())
else:
    print(raises(torch.accelerator.current_device_index, (RuntimeError, AssertionError)))

# %% [markdown]
# ## 3. Decide the device once, then carry it
#
# Your `usable_device()` is the course's idiom: decide the device **once**, then pass that
# `torch.device` everywhere (`device=device`, `.to(device)`, `map_location=device`), as nanoGPT
# does. By hand:

# %%
device = torch.accelerator.current_accelerator() if torch.accelerator.is_available() else torch.device("cpu")
device, torch.ones(3, device=device).device

# %% [markdown]
# `current_accelerator()` gives no index (`cuda`, `mps`): on CUDA, the current device (lesson 04).
# The course's `pick_device()` makes the same choice, pins the index and says why: a silent
# fallback to the CPU never surprises you. Lessons start with it.

# %%
device = pick_device()
device

# %% [markdown]
# `device_report()` lists every accelerator with the properties of part 1. `preflight()` says
# what this machine can run of the course, and what to do about the rest.

# %%
device_report()

# %%
preflight()

# %% [markdown]
# ## 4. `nvidia-smi` and `CUDA_VISIBLE_DEVICES`
#
# `nvidia-smi` comes with the NVIDIA driver, not with PyTorch, and sees every GPU and every
# process using them.

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
# `CUDA_VISIBLE_DEVICES` decides which GPUs a process sees. CUDA hides the GPUs not listed and
# **renumbers** the rest from 0, in the listed order: with `CUDA_VISIBLE_DEVICES=2,0`, `cuda:0`
# is physical GPU 2. Set it in a *new* process's environment. Three children:

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
# Without a GPU every child sees 0. On a machine with GPUs, the child without the variable sees
# them all, the empty mask hides every one, and `"0"` leaves exactly one.

# %% tags=["try-it"]
# Try it: make `mask`, the CUDA_VISIBLE_DEVICES value that lets a child see only physical GPUs 3
# and 1, with GPU 3 as its cuda:0.
mask = ...
check("01.b")

# %% [markdown] tags=["deeper"]
# ### Deeper: why not change `os.environ` in a running notebook

# %% [markdown] tags=["deeper"]
# The CUDA driver reads `CUDA_VISIBLE_DEVICES` **once, when CUDA initialises** in a process.
# `CUDA_VISIBLE_DEVICES=""` hides every GPU. Changing `os.environ["CUDA_VISIBLE_DEVICES"]` inside
# a running notebook is a trap: once CUDA has initialised (any `.cuda()`,
# `torch.cuda.current_device()`, ...) the driver has already read it and the change does nothing.
# Before that point it may take effect, because PyTorch initialises CUDA lazily, which makes the
# bug depend on which cell ran first. Set it before the process starts (or before starting
# Jupyter).

# %% tags=["deeper"]
if gpu := needs_cuda(2, what="the in-process CUDA_VISIBLE_DEVICES demonstration", key="01-visible-devices-after-init"):
    torch.cuda.init()
    before = torch.cuda.device_count()
    os.environ["CUDA_VISIBLE_DEVICES"] = "0"
    print(f"after setting CUDA_VISIBLE_DEVICES=0 in-process: still {torch.cuda.device_count()} of {before} GPUs")
    del os.environ["CUDA_VISIBLE_DEVICES"]
else:
    display(gpu)

# %% [markdown]
# ## Summary
#
# - `torch.cuda.is_available()` and `device_count()` are always safe; most other `torch.cuda`
#   calls raise without CUDA, so ask first.
# - `current_device()` returns an integer index; there is no current device on the CPU.
# - `torch.accelerator` asks the same questions for any backend; pass `check_available=True`
#   to learn what works here.
# - Decide the device once and carry it; `pick_device()` does so and says why.
# - `nvidia-smi` sees every GPU; torch sees only what `CUDA_VISIBLE_DEVICES` lists, renumbered
#   from 0, read once when CUDA starts.
#
# <!-- next-links:start, written by make pairs -->
# **Exercises:** [01_device_query_exercises.ipynb](01_device_query_exercises.ipynb).
# **Next:** lesson 02, [02_tensor_placement.ipynb](02_tensor_placement.ipynb): Tensor placement: where a tensor lives, and how it moves.
# <!-- next-links:end -->
