# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 09 · Data loading and device memory
#
# You will be able to:
#
# - move every batch to the model's device in the training loop, and say what `pin_memory=True` does;
# - keep CUDA out of DataLoader workers, or start them with `spawn`;
# - say what holds device memory in a training step, and what fixes an out-of-memory error.
#
# <!-- readme (make pairs writes README's rows from these lines)
# learn: the batch on its way to the device (`non_blocking`, `pin_memory`, the label left on the CPU, `.item()` in
# the loop); DataLoader workers, fork vs spawn and *Cannot re-initialize CUDA in forked subprocess*; what a
# training step holds, `memory_allocated` vs `memory_reserved`, `empty_cache`, `OutOfMemoryError`
# covers: the batch on its way to the device (`.to(device)` in the loop, `pin_memory`, `non_blocking`, the label
# left on the CPU, `.item()` per step); DataLoader workers, fork versus spawn, *Cannot re-initialize CUDA in
# forked subprocess*; what a training step holds (`step_memory`), `memory_allocated` versus `memory_reserved`,
# `empty_cache`, `OutOfMemoryError`
# -->
#
# <!-- lesson-needs:start, written by make pairs -->
# | Part | Runs for real with | GPU-only cells |
# |---|---|---|
# | 1 | 1 GPU | 1 (1 accelerator); in Deeper: 2 (1 GPU) |
# | 2 | 1 GPU | 1 (1 GPU) |
# | 3 | 1 GPU | 3 (1 GPU); in Deeper: 1 (1 GPU) |
#
# 1 cell runs on any accelerator, else meta. Without a GPU, each GPU-only cell prints SKIPPED, says what a GPU shows, then a real GPU's output from a public report, not run here (3 of 7 cells), then the folded PyTorch source.
# <!-- lesson-needs:end -->

# %% [markdown] tags=["course-header"]
# **Run it on a free GPU:** [Open in Colab](https://colab.research.google.com/github/pytorch-devices-course/pytorch-devices-course/blob/main/notebooks/09_data_loading_and_memory.ipynb) (one GPU: Runtime > Change runtime type > T4 GPU)
# · [Open in Kaggle](https://kaggle.com/kernels/welcome?src=https://github.com/pytorch-devices-course/pytorch-devices-course/blob/main/notebooks/09_data_loading_and_memory.ipynb) (two GPUs: Settings > Accelerator > GPU T4 x2).
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
import multiprocessing
import os
import warnings

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from course_utils import check, raises
from course_utils.devices import pick_device
from course_utils.gates import needs_accelerator, needs_cuda
# Short tracebacks: frames inside torch's own code are hidden from errors; %tb shows the full one.
# %load_ext course_utils.tracebacks

device = pick_device()  # lesson 01's idiom: decided once, carried everywhere below

# %% [markdown]
# ## 1. The batch on its way to the device
#
# A DataLoader makes batches on the CPU. The training loop moves each one to the model's
# device, inputs and labels alike:

# %%
ds = TensorDataset(torch.randn(64, 8), torch.randint(0, 3, (64,)))
loader = DataLoader(ds, batch_size=16, shuffle=True)
model = nn.Linear(8, 3).to(device)
for x, y in loader:
    x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
    loss = nn.functional.cross_entropy(model(x), y)
x.device, y.device, loss.device

# %% [markdown]
# Forget the labels and the loss mixes two devices. Here `meta` (shapes, no data) stands in for
# the GPU, so this runs on every machine:

# %% tags=["raises-exception"]
xb, yb = next(iter(loader))  # straight from the loader: on the CPU
logits = nn.Linear(8, 3, device="meta")(xb.to("meta"))
nn.functional.cross_entropy(logits, yb)

# %% [markdown]
# `meta` catches the mix as CUDA does, but in its own words, and it computes no values. On a GPU
# the message names both devices:

# %%
if gpu := needs_accelerator(device, what="the label left on the CPU", key="09-label-on-cpu"):
    gpu_logits = nn.Linear(8, 3).to(gpu.device)(xb.to(gpu.device))
    print(raises(lambda: nn.functional.cross_entropy(gpu_logits, yb), RuntimeError, match="device"))
else:
    display(gpu)

# %% tags=["try-it"]
# Try it: finish `follow`: return `labels` on the device of `logits`, whatever device that is.
def follow(labels, logits):
    raise NotImplementedError  # your line here

check("09.a")

# %% [markdown]
# `pin_memory=True` copies each batch into page-locked (pinned) host memory: from there the
# copy to the GPU is direct, and `non_blocking=True` overlaps it with computation. The price:
# one more host copy per batch, and RAM that cannot be swapped out. Without an accelerator
# PyTorch warns and does not pin:

# %%
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    xb, yb = next(iter(DataLoader(ds, batch_size=16, pin_memory=True)))
xb.is_pinned(), [str(w.message) for w in caught]

# %% [markdown]
# Printing `loss` or calling `loss.item()` copies a number from the GPU, so the CPU waits
# until the GPU has finished all queued work: one stall per step. Log every N steps instead.

# %% [markdown] tags=["deeper"]
# ### Deeper: on a GPU, a pinned batch and one stall per step

# %% [markdown] tags=["deeper"]
# With an accelerator the same loader pins without a warning, for whichever accelerator
# `torch.accelerator` reports (CUDA, XPU and others): pinned memory is not only CUDA's. The one
# exception is MPS, where the loader turns pinning off and warns (the fact `mps-pin-memory`,
# docs/mac.md). The line that decides it (shown in "Inside the DataLoader" below) asks
# `torch.accelerator.is_available()`, not `torch.cuda`. On a GPU:

# %% tags=["deeper"]
if gpu := needs_cuda(1, what="a pinned batch", key="09-pinned-batch"):
    print("pinned:", xb.is_pinned(), "warnings:", [str(w.message) for w in caught])
else:
    display(gpu)

# %% [markdown] tags=["deeper"]
# `torch.cuda.set_sync_debug_mode("warn")` warns at every operation that waits for the GPU:
# in this loop, one `.item()` per step.

# %% tags=["deeper"]
if gpu := needs_cuda(1, what="a hidden synchronisation per step", key="09-item-sync"):
    torch.cuda.set_sync_debug_mode("warn")  # warn on every operation that waits for the GPU
    try:
        with warnings.catch_warnings(record=True) as synced:
            warnings.simplefilter("always")
            for x, y in loader:
                loss = nn.functional.cross_entropy(model(x.to(device)), y.to(device))
                running = loss.item()
    finally:
        torch.cuda.set_sync_debug_mode(0)
    first = str(synced[0].message).splitlines()[0] if synced else "none"
    print(len(loader), "steps,", len(synced), "synchronising calls; the first:", first)
else:
    display(gpu)

# %% [markdown]
# ## 2. Workers and CUDA
#
# With `num_workers=2` two worker processes make the samples. `WhereAmI` is a Dataset whose
# samples report the process that made them:

# %%
from course_utils.loading import WhereAmI

batches = list(DataLoader(WhereAmI(8), batch_size=2, num_workers=2))
os.getpid(), [b["pid"].tolist() for b in batches], [b["worker"].tolist() for b in batches]

# %% [markdown]
# Two new processes, numbered 0 and 1 by `get_worker_info()`. `fork` copies the notebook's
# process; `spawn` starts a fresh Python that imports the Dataset (so it must live in a module).

# %%
multiprocessing.get_start_method()

# %% [markdown]
# CUDA does not survive a fork. Once the notebook has used CUDA, a Dataset that makes CUDA
# tensors fails in every forked worker; with `spawn` it works:

# %%
from course_utils.loading import TouchesDevice

if gpu := needs_cuda(1, what="a Dataset that touches CUDA in a worker", key="09-forked-cuda"):
    torch.ones(1, device="cuda")  # the notebook uses CUDA first, as a training loop does
    forked = DataLoader(TouchesDevice("cuda"), batch_size=2, num_workers=1, multiprocessing_context="fork")
    print(raises(lambda: next(iter(forked)), RuntimeError, match="Cannot re-initialize CUDA in forked subprocess"))
    spawned = DataLoader(TouchesDevice("cuda"), batch_size=2, num_workers=1, multiprocessing_context="spawn")
    print("spawn:", [batch.device for batch in spawned])
else:
    display(gpu)

# %% [markdown]
# The better fix needs no GPU: keep CUDA out of `__getitem__`, return CPU tensors, and move
# the batch in the loop as in part 1 (pinning works then too). A spawned worker really is a
# fresh process; try one.

# %% tags=["try-it"]
# Try it: make `spawn_loader`, a DataLoader over WhereAmI(4) with batch size 2 and two workers started with spawn.
spawn_loader = ...
check("09.b")

# %% [markdown] tags=["deeper"]
# ### Deeper: which process made each sample

# %% [markdown] tags=["deeper"]
# `trace_workers` runs one pass and says which process made each sample:

# %% tags=["deeper"]
from course_utils.loading import trace_workers

trace_workers(DataLoader(WhereAmI(4), batch_size=2, num_workers=1, multiprocessing_context="spawn"))

# %% [markdown]
# ## 3. Where device memory goes
#
# Every tensor's bytes sit in its storage: elements times bytes per element.

# %%
model = nn.Sequential(nn.Linear(512, 1024), nn.ReLU(), nn.Linear(1024, 10))
w = model[0].weight
w.numel() * w.element_size(), w.untyped_storage().nbytes()

# %% [markdown] tags=["deeper"]
# ### Deeper: try it, the bytes of all parameters

# %% [markdown] tags=["deeper"]
# Exercise 09.2 counts every byte held between training steps (parameters, gradients, optimizer
# state); here, the parameters alone.

# %% tags=["try-it", "deeper"]
# Try it: make `param_bytes`, the bytes that all of `model`'s parameters hold together.
param_bytes = ...
check("09.c")

# %% [markdown]
# ### A training step adds three things
#
# The forward pass saves activations for the backward pass; `saved_tensors_hooks` sees each one:

# %%
x, y = torch.randn(64, 512), torch.randint(0, 10, (64,))
saved = []
with torch.autograd.graph.saved_tensors_hooks(lambda t: saved.append(t) or t, lambda t: t):
    loss = nn.functional.cross_entropy(model(x), y)
[tuple(t.shape) for t in saved]

# %% [markdown]
# `backward()` gives every parameter a gradient of its size, and Adam's first `step()` adds
# two more tensors of that size per parameter, plus a step count:

# %%
opt = torch.optim.Adam(model.parameters())
loss.backward()
opt.step()
w.grad.shape, {k: tuple(v.shape) for k, v in opt.state[w].items()}

# %% [markdown]
# `step_memory` counts each part in bytes, each storage once (a saved weight is the parameter
# itself). On a GPU, `torch.cuda.memory_allocated()` counts these same tensors:

# %%
from course_utils.memory import step_memory

step_memory(model, opt, x, y)

# %%
if gpu := needs_cuda(1, what="memory_allocated for the same step", key="09-step-memory"):
    base = torch.cuda.memory_allocated()
    gpu_model = nn.Sequential(nn.Linear(512, 1024), nn.ReLU(), nn.Linear(1024, 10)).cuda()
    gpu_opt = torch.optim.Adam(gpu_model.parameters())
    torch.cuda.reset_peak_memory_stats()
    print(step_memory(gpu_model, gpu_opt, x.cuda(), y.cuda()))
    print("memory_allocated:", torch.cuda.memory_allocated() - base,
          " max_memory_allocated:", torch.cuda.max_memory_allocated() - base)
    del gpu_model, gpu_opt
else:
    display(gpu)

# %% [markdown]
# PyTorch's caching allocator keeps freed GPU blocks for reuse: `memory_allocated()` counts
# live tensors, `memory_reserved()` what the allocator holds. `empty_cache()` hands unused
# cached blocks back to the driver; it frees no live tensor.

# %%
if gpu := needs_cuda(1, what="allocated and reserved memory", key="09-allocated-reserved"):
    def mib(n):
        return f"{n / 2**20:.0f} MiB"
    big = torch.empty(256 * 2**20, dtype=torch.uint8, device="cuda")
    print("with big:        ", mib(torch.cuda.memory_allocated()), mib(torch.cuda.memory_reserved()))
    del big
    print("after del:       ", mib(torch.cuda.memory_allocated()), mib(torch.cuda.memory_reserved()))
    torch.cuda.empty_cache()
    print("after empty_cache:", mib(torch.cuda.memory_allocated()), mib(torch.cuda.memory_reserved()))
else:
    display(gpu)

# %% [markdown]
# These counters are CUDA's. On a Mac, `torch.mps.current_allocated_memory()` counts live tensors
# and `torch.mps.driver_allocated_memory()` all that Metal holds; `torch.mps` has no
# `max_memory_allocated()`. `torch.accelerator.max_memory_allocated()` exists from PyTorch 2.9.1
# (not in 2.8.0), and MPS's allocator backs it only in newer macOS wheels (2.14.1's, not
# 2.10.0's): the fact `mps-memory`, docs/mac.md. What this PyTorch has:

# %%
mps_has = [(name, hasattr(torch.mps, name)) for name in ("current_allocated_memory", "driver_allocated_memory",
                                                         "max_memory_allocated")]
mps_has, torch.__version__, hasattr(torch.accelerator, "max_memory_allocated")

# %% [markdown]
# When an allocation does not fit, CUDA raises `torch.cuda.OutOfMemoryError`. Every build has
# the class, and it is a `RuntimeError`:

# %%
torch.cuda.OutOfMemoryError, issubclass(torch.cuda.OutOfMemoryError, RuntimeError)

# %% [markdown]
# The CPU's allocator fails with a plain `RuntimeError`:

# %% tags=["raises-exception"]
torch.empty(2**62, dtype=torch.uint8)  # 4 EiB: refused at once, nothing is touched

# %%
if gpu := needs_cuda(1, what="a CUDA out-of-memory error", key="09-out-of-memory"):
    caught = raises(lambda: torch.empty(2**50, dtype=torch.uint8, device="cuda"), torch.cuda.OutOfMemoryError)
    print(caught)
else:
    display(gpu)

# %% [markdown]
# Real fixes free what the step holds: a smaller batch (fewer activations); `torch.no_grad()`
# for evaluation; `optimizer.zero_grad(set_to_none=True)`; keeping `loss.item()`, not `loss`.
# `empty_cache()` is not a fix. Under `no_grad` nothing is saved:

# %%
saved = []
with torch.no_grad(), torch.autograd.graph.saved_tensors_hooks(lambda t: saved.append(t) or t, lambda t: t):
    model(x)
len(saved)

# %% [markdown] tags=["deeper"]
# ### Deeper: inside the DataLoader

# %% [markdown] tags=["deeper"]
# With `pin_memory=True` and an accelerator, what pins a batch depends on the workers
# (`torch/utils/data/dataloader.py`, the same in PyTorch 2.7.1, 2.13.0 and 2.14.1). With
# `num_workers > 0` the iterator (`_MultiProcessingDataLoaderIter`) starts a *pin-memory
# thread* in the main process (`_pin_memory_loop` in `torch/utils/data/_utils/pin_memory.py`):
# it takes each batch from the workers' queue and pins it there. With `num_workers=0`
# (`_SingleProcessDataLoaderIter`) there is no thread: `_next_data` pins each batch inline, in
# the loop's own thread. Either way `pin_memory()` reaches every tensor in the batch, recursing
# through dicts, lists and tuples as `to_device` does in this lesson's exercises. Whether
# batches are pinned at all is decided when the iterator is created, by this line:

# %% tags=["deeper"]
import inspect

from torch.utils.data import dataloader

[line.strip() for line in inspect.getsource(dataloader._BaseDataLoaderIter.__init__).splitlines()
 if "self._pin_memory =" in line]

# %% [markdown] tags=["deeper"]
# The start method: with `multiprocessing_context=None` the loader uses Python's default, which
# is `fork` on Linux up to Python 3.13, `forkserver` on Linux from Python 3.14, and `spawn` on
# macOS and Windows. Spawned workers import the Dataset's module and unpickle the Dataset, so a
# class defined in a notebook cell (module `__main__`, which a fresh interpreter cannot import)
# fails there: the worker prints `AttributeError: Can't get attribute 'WhereAmI' on <module
# '__main__' (built-in)>` to its own stderr (which the notebook may not show), and the notebook
# raises `RuntimeError: DataLoader worker (pid(s) N) exited unexpectedly` (run with PyTorch
# 2.13.0 in a Jupyter kernel). That is why `WhereAmI` lives in `course_utils.loading`.
# A forked child that touches CUDA fails because the CUDA driver's state cannot be copied into
# it: when CUDA initialises, PyTorch's C++ side registers a fork handler that marks any later
# child as a *bad fork*, and `torch.cuda._lazy_init` raises the message quoted above there.
# Even `torch.cuda.is_available()` initialises the driver on a CUDA build. Its docstring does
# not say so; from PyTorch 2.8 it only notes that it "will NOT poison fork" when
# `PYTORCH_NVML_BASED_CUDA_CHECK=1` is set (2.7.1's docstring is one line). A comment in its
# source does: the default check "uses the CUDA Runtime API `cudaGetDeviceCount` which in turn
# initializes the CUDA Driver API via `cuInit`" (2.7.1 to 2.14.1). Both, from your PyTorch,
# below. A CPU build returns `False` before reaching that line, and a CPU parent never
# initialised CUDA, so its children are not bad forks:

# %% tags=["deeper"]
source = inspect.getsource(torch.cuda.is_available).splitlines()
comment = next(i for i, line in enumerate(source) if "in turn initializes" in line)
print(torch.cuda.is_available.__doc__)
print("\n".join(line.strip() for line in source[comment:comment + 2]))
torch.cuda._is_in_bad_fork(), torch.cuda.is_initialized()

# %% [markdown] tags=["deeper"]
# ### Deeper: the caching allocator and the peak

# %% [markdown] tags=["deeper"]
# `cudaMalloc` and `cudaFree` synchronise the device and are slow, so PyTorch's CUDA caching
# allocator (`c10/cuda/CUDACachingAllocator.cpp`) keeps freed blocks in pools per stream and
# hands them out again. That is why `memory_reserved()` stays up after `del`, why
# `nvidia-smi` shows more than `memory_allocated()`, and why the ordinary CUDA out-of-memory
# message (*CUDA out of memory. Tried to allocate ...*, the one this lesson's cell gets) reports the
# memory "reserved by PyTorch but unallocated" and suggests
# `PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True` (`PYTORCH_ALLOC_CONF` in PyTorch 2.10.0, the
# one release that names it so). That message always prints the suggestion; only its wording is
# conditional: "If reserved but unallocated memory is large try setting ... to avoid
# fragmentation" (`libc10_cuda.so` of PyTorch 2.7.1 to 2.14.1). Two other CUDA out-of-memory errors
# carry no suggestion: a request for more than an exabyte (*CUDA out of memory. Tried to allocate
# more than 1EB memory.*) and, from PyTorch 2.13.0, an allocation over the limit
# `torch.cuda.set_per_process_memory_fraction` set. For the peak of a step, call
# `torch.cuda.reset_peak_memory_stats()` before it and `torch.cuda.max_memory_allocated()` after;
# `torch.cuda.memory_summary()` tabulates the same counters by pool, and
# `torch.cuda.memory._record_memory_history()` with `torch.cuda.memory._dump_snapshot()` records
# every allocation for the visualiser at pytorch.org/memory_viz.

# %% tags=["deeper"]
if gpu := needs_cuda(1, what="the peak of one step and memory_summary", key="09-memory-summary"):
    torch.cuda.reset_peak_memory_stats()
    gpu_model = nn.Sequential(nn.Linear(512, 1024), nn.ReLU(), nn.Linear(1024, 10)).cuda()
    nn.functional.cross_entropy(gpu_model(x.cuda()), y.cuda()).backward()
    print("peak:", torch.cuda.max_memory_allocated(), "bytes")
    print("\n".join(torch.cuda.memory_summary().splitlines()[:12]))
    del gpu_model
else:
    display(gpu)

# %% [markdown] tags=["deeper"]
# On a CPU-only build the counters exist and answer 0 (there is no CUDA allocator to ask), which
# is why this lesson counts tensors instead. The bytes counted are a lower bound for a real
# step: kernels allocate temporary workspaces (cuBLAS, cuDNN), and the allocator rounds every
# block up (to 512 bytes at least).

# %% tags=["deeper"]
torch.cuda.memory_allocated() if not torch.cuda.is_available() else "a GPU is here: see the cells above"

# %% [markdown]
# ## Summary
#
# - Move inputs **and** labels to the model's device in the loop; `pin_memory=True` pays only
#   with an accelerator, and `.item()` in every step waits for the GPU.
# - Workers are separate processes: keep CUDA out of `__getitem__`, or use `spawn`.
# - A step holds parameters, activations, gradients and optimizer state; `memory_reserved()`
#   adds the allocator's cache. Fix an out-of-memory error by holding less, not with `empty_cache()`.
#
# <!-- next-links:start, written by make pairs -->
# **Exercises:** [09_data_loading_and_memory_exercises.ipynb](09_data_loading_and_memory_exercises.ipynb).
# **Next:** lesson 10, [10_models_bigger_than_a_device.ipynb](10_models_bigger_than_a_device.ipynb): Models bigger than one device.
# <!-- next-links:end -->
