# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 02 · Tensor placement: where a tensor lives, and how it moves
#
# You will be able to:
# - create a tensor on a chosen device, move it, and ask where it is;
# - predict where a result lives, and read the error for mixed devices;
# - bring values back to the host, and set a default device safely.
#
# <!-- readme (make pairs writes README's rows from these lines)
# learn: where a new tensor lives; `.to`, `.cuda()`, `.cpu()`; results live with their operands; `with
# torch.device` and `set_default_device`
# covers: where a new tensor lives; `.to`/`.cuda()`/`.cpu()` (same object when nothing changes, `copy=True`);
# `.device`, `.is_cuda`, `.get_device()`; results live with their operands; `.numpy()`, `.item()`, printing; `with
# torch.device` and `set_default_device`: what they change and what they do not; dtype and device in one `.to`
# -->
#
# <!-- lesson-needs:start, written by make pairs -->
# | Part | Runs for real with | GPU-only cells |
# |---|---|---|
# | 1 | 1 GPU | 1 (1 GPU) |
# | 2 | 2 GPUs | in Deeper: 1 (1 accelerator) and 1 (2 GPUs) |
# | 3 | a CPU | none |
# | 4 | 1 accelerator | 1 (1 accelerator) |
# | 5 | 1 accelerator | 1 (1 accelerator) |
# | 6 | 2 GPUs | in Deeper: 1 (2 GPUs) |
# | 7 | a CPU | none |
#
# 3 cells run on any accelerator, else meta. Without a GPU, each GPU-only cell prints SKIPPED, says what a GPU shows, then a real GPU's output from a public report, not run here (1 of 3 cells), then the folded PyTorch source.
# <!-- lesson-needs:end -->
#
# Without a GPU the second device is `meta`, which every PyTorch has: a tensor with a shape and
# a dtype but no data. **Deeper** sections are optional.

# %% [markdown] tags=["course-header"]
# **Run it on a free GPU:** [Open in Colab](https://colab.research.google.com/github/pytorch-devices-course/pytorch-devices-course/blob/main/notebooks/02_tensor_placement.ipynb) (one GPU: Runtime > Change runtime type > T4 GPU)
# · [Open in Kaggle](https://kaggle.com/kernels/welcome?src=https://github.com/pytorch-devices-course/pytorch-devices-course/blob/main/notebooks/02_tensor_placement.ipynb) (two GPUs: Settings > Accelerator > GPU T4 x2).
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
import threading

import numpy as np
import torch
from torch.torch_version import TorchVersion

from course_utils.checks import check
from course_utils.claims import raises
from course_utils.devices import pick_device
from course_utils.gates import needs_accelerator, needs_cuda
# Short tracebacks: frames inside torch's own code are hidden from errors; %tb shows the full one.
# %load_ext course_utils.tracebacks

device = pick_device()  # lesson 01's idiom: decided once, carried everywhere below
torch.__version__

# %% [markdown]
# ## 1. Where a new tensor lives
#
# A tensor made without `device=` lands on the **default device**, the CPU unless you change it
# (part 6).

# %%
t = torch.arange(4.0)
t.device, torch.get_default_device()

# %% [markdown]
# Every factory function (`zeros`, `ones`, `arange`, ...) takes `device=`. A `meta` tensor
# stores no data: it prints `...`, but has a real shape, dtype and device.

# %%
m = torch.ones(2, 3, device="meta")
m, m.shape, m.dtype

# %% [markdown]
# On a GPU it is the same call with `device="cuda"`, which without an index means the *current*
# CUDA device, `cuda:0` unless something changed it (notebook 04). Without CUDA that raises.

# %%
if gpu := needs_cuda(1, what="creating a tensor on the GPU", key="02-tensor-on-gpu"):
    g = torch.ones(2, 3, device="cuda")
    print(g.device, "- 'cuda' without an index means the current device:", torch.cuda.current_device())
else:
    display(gpu)
    print(raises(lambda: torch.ones(2, 3, device="cuda"), (AssertionError, RuntimeError)))

# %% [markdown]
# To create a tensor beside another one, take the device from it: `device=x.device`.

# %% tags=["try-it"]
# Try it: complete `ones_beside(x)` so it returns three ones (float32) on the same device as x,
# whatever that is. The check calls it with x on the CPU and on meta.
def ones_beside(x):
    # YOUR CODE HERE
    raise NotImplementedError()

check("02.a")

# %% [markdown] tags=["deeper"]
# ### Deeper: naming devices

# %% [markdown] tags=["deeper"]
# `device=` takes a string, a `torch.device` or, for CUDA, an integer index. Building a
# `torch.device` checks only the spelling: it needs no GPU. An index of `None` means "the current
# device of that type", decided when a tensor is made.

# %% tags=["deeper"]
torch.device("cuda:1"), torch.device("cuda", 1) == torch.device("cuda:1"), torch.device("cuda").index

# %% [markdown]
# ## 2. Moving a tensor
#
# `tensor.to(device)` returns a tensor on `device`. When nothing needs to change, it returns **the
# same object**, not a copy; `copy=True` forces one.

# %%
same = t.to("cpu")
forced = t.to("cpu", copy=True)
same is t, t.cpu() is t, forced is t, forced.data_ptr() == t.data_ptr()

# %% [markdown]
# A real move makes a **new** tensor and leaves the original where it was: assign the result
# (`t = t.to(device)`).

# %%
moved = t.to("meta")
moved is t, t.device, moved.device

# %% [markdown] tags=["deeper"]
# ### Deeper: `.to(tensor)`, `.cuda()` and the current device

# %% [markdown] tags=["deeper"]
# `a.to(b)` moves `a` to the device of `b` **and** casts it to the dtype of `b`: handy to match
# an input to a model's weights in one call.

# %% tags=["deeper"]
target = torch.zeros(1, dtype=torch.float16, device="meta")
t.to(target).device, t.to(target).dtype

# %% [markdown] tags=["deeper"]
# On a GPU, `x.cuda()` and `x.to("cuda")` move to the **current** CUDA device, which is `cuda:0`
# only until something changes it (`torch.cuda.set_device`, or a `with torch.cuda.device(1):`
# block). `x.cuda(1)` and `x.to("cuda:1")` name the device and ignore the current one. Notebook 04
# is about the current device.

# %% tags=["deeper"]
if gpu := needs_cuda(2, what="the .cuda() versus .cuda(1) demonstration", key="02-cuda-in-device-scope"):
    x = torch.ones(2)
    with torch.cuda.device(1):  # the current device is cuda:1 inside this block only
        inside = (x.cuda().device, x.to("cuda").device, x.cuda(0).device)
    print("inside `with torch.cuda.device(1)`: .cuda() ->", inside[0], " .to('cuda') ->", inside[1],
          " .cuda(0) ->", inside[2])
    print("after the block: .cuda() ->", x.cuda().device)
else:
    display(gpu)

# %% [markdown] tags=["deeper"]
# On any accelerator (CUDA, MPS, XPU) the round trip is a real copy each way; meta has no data to copy back.

# %% tags=["deeper"]
if gpu := needs_accelerator(device, what="the CPU -> accelerator -> CPU round trip", key="02-round-trip"):
    there = t.to(gpu.device)
    back = there.cpu()
    print(there.device, back.device, "back is t:", back is t, "same values:", torch.equal(back, t))
else:
    display(gpu)
    print(t.to(gpu.device).device, raises(t.to(gpu.device).cpu, NotImplementedError, match="Cannot copy out of meta"))

# %% [markdown]
# ## 3. Asking where a tensor is
#
# `.device` has a `.type` ("cpu", "cuda", "meta", "mps") and an `.index` (`None` here: neither
# device is numbered); `.is_cuda` is a shortcut. `.get_device()` gives the index as an integer,
# -1 where there is none.

# %%
[(x.device, x.device.type, x.device.index, x.is_cuda, x.is_meta, x.get_device()) for x in (t, m)]

# %% [markdown] tags=["deeper"]
# ### Deeper: `.get_device()` and comparing devices

# %% [markdown] tags=["deeper"]
# `.get_device()` returns the device's index for every device (`device().index`, in
# `c10/core/TensorImpl.h`), with **-1** where there is none: -1 for the CPU and for `meta`, 0 for
# `cuda:0`, and 0 as well for an MPS or XPU tensor. So -1 means "no index", not "not on CUDA": ask
# `.device.type` for that. Compare devices by type when any GPU will do: a tensor's device always
# carries its index (`cuda:0`), so it is not equal to `torch.device("cuda")`, whose index is `None`.

# %% tags=["deeper"]
torch.device("cuda:0") == torch.device("cuda"), torch.device("cuda:0").type == "cuda"

# %% [markdown]
# ## 4. Results live where their operands live
#
# An operation runs on the device of its operands, and its result lives there too.

# %%
a = torch.ones(3, device="meta")
b = torch.ones(3, device="meta")
(a + b).device, (a @ b).device, torch.cat([a, b]).device, a.sum().device

# %% [markdown]
# Operands on two devices are an error, not a silent copy. Here a meta tensor meets a CPU tensor.
# (`meta` words the message differently from CUDA, and a few mixes, such as `cpu_tensor @
# meta_tensor`, return wrong values instead of raising: notebook 05, part 1.)

# %% tags=["raises-exception"]
a + torch.ones(3)

# %% [markdown]
# On an accelerator the same mistake says *Expected all tensors to be on the same device* (notebook 05).

# %%
if gpu := needs_accelerator(device, what="the cross-device error on an accelerator", key="02-cross-device-error"):
    print(raises(lambda: torch.ones(3, device=gpu.device) + torch.ones(3), RuntimeError,
                 match="Expected all tensors to be on the same device"))
else:
    display(gpu)

# %% [markdown] tags=["deeper"]
# ### Deeper: the zero-dimensional exception

# %% [markdown] tags=["deeper"]
# One exception: a **zero-dimensional** CPU tensor (a scalar such as `torch.tensor(2.0)`) may join
# an operation on another device, like a Python number. The result lives with the other operand.
# It holds on a GPU too.

# %% tags=["deeper"]
scale = torch.tensor(2.0)
scale.device, scale.dim(), (a * scale).device

# %% [markdown]
# ## 5. Coming back to the host
#
# `.numpy()` works only for a CPU tensor, and then it **shares memory**: writing to the array
# changes the tensor.

# %%
shared = torch.zeros(3)
arr = shared.numpy()
arr[0] = 7.0
shared, np.shares_memory(arr, shared.numpy())

# %% [markdown]
# A tensor on another device has no host memory to share, so `.numpy()` refuses:

# %% tags=["raises-exception"]
m.numpy()

# %% [markdown]
# On an accelerator the message names it (`cuda:0`, `mps:0`); the fix is the same, `.cpu()` first.

# %%
gpu = needs_accelerator(device, what="the .numpy() error for a tensor on a device", key="02-numpy")
print(raises(lambda: torch.ones(2, device=gpu.device).numpy(), TypeError, match="device type tensor to numpy"))
display(gpu)

# %% [markdown] tags=["deeper"]
# ### Deeper: `.cpu().numpy()`, `.item()` and printing

# %% [markdown] tags=["deeper"]
# The fix is `.cpu().numpy()` (add `.detach()` for a tensor that requires grad, or use
# `.numpy(force=True)`, which does both). Mind the difference it hides: from a GPU, `.cpu()` makes
# a copy; on the CPU, `.cpu()` returns the same tensor, so the array still shares its memory.

# %% tags=["deeper"]
arr2 = shared.cpu().numpy()
np.shares_memory(arr2, arr), shared.cpu() is shared

# %% [markdown] tags=["deeper"]
# `.item()` turns a one-element tensor into a Python number, so its value must come to the host:
# from a GPU tensor it copies one number back and waits for the GPU to finish the work that
# produces it. A meta tensor has no value to bring back.

# %% tags=["deeper"]
torch.tensor([3.5]).item(), raises(lambda: torch.ones(1, device="meta").item(), RuntimeError, match="meta")

# %% [markdown] tags=["deeper"]
# Printing a tensor is a copy to the host too: to show a CUDA tensor's values, PyTorch copies them
# to the CPU first (and waits for the GPU). A meta tensor has none, so it prints `...`.

# %% tags=["deeper"]
print(torch.arange(3.0))
print(torch.arange(3.0, device="meta"))

# %% [markdown]
# ## 6. Changing the default device
#
# `with torch.device(d):` makes factory functions without `device=` create on `d`, inside the
# block only. An explicit `device=`, `torch.from_numpy` and operations on existing tensors do not
# follow it, and nothing is left set after the block.

# %%
with torch.device("meta"):
    made = torch.zeros(2)                        # a factory function: follows the block
    listed = torch.tensor([1.0, 2.0])            # torch.tensor is a factory function too
    explicit = torch.zeros(2, device="cpu")      # an explicit device= wins
    wrapped = torch.from_numpy(np.ones(2))       # wraps host memory: always on the CPU
    derived = t + 1                              # an operation: follows t, on the CPU
after = torch.zeros(2)                           # after the block: the CPU again
{name: x.device for name, x in
 dict(made=made, listed=listed, explicit=explicit, wrapped=wrapped, derived=derived, after=after).items()}

# %% [markdown]
# `torch.set_default_device(d)` does the same for every later cell, so undo it in `finally`
# (`None` restores the start-up default).

# %%
torch.set_default_device("meta")
try:
    inside = (torch.zeros(2).device, torch.get_default_device(), t.device)
finally:
    torch.set_default_device(None)
inside, torch.zeros(1).device

# %% [markdown] tags=["deeper"]
# ### Deeper: versions, threads, and the current CUDA device

# %% [markdown] tags=["deeper"]
# `torch.get_default_device()` itself was fixed in two releases. Before PyTorch 2.8 it ignored
# `with torch.device(...)` in a thread that had never called `set_default_device`
# (pytorch/pytorch#131328, fixed by #148621), and before 2.10 it raised `AttributeError` once
# `set_default_device(None)` had run, as the cell above does. On any version, `torch.zeros(1).device`
# answers truthfully, and so does `course_utils.scopes.default_device()`. This PyTorch:

# %% tags=["deeper"]
if TorchVersion(torch.__version__) >= "2.10":
    after_reset = torch.get_default_device()
    assert after_reset == torch.device("cpu"), f"2.10+ should say cpu here, said {after_reset}"
else:
    after_reset = raises(torch.get_default_device, AttributeError, match="device")
torch.__version__, after_reset

# %% [markdown] tags=["deeper"]
# Both settings belong to the thread that made them: another thread still creates on the CPU.

# %% tags=["deeper"]
seen_by_thread = []
with torch.device("meta"):
    worker = threading.Thread(target=lambda: seen_by_thread.append(torch.zeros(1).device))
    worker.start()
    worker.join()
    here = torch.zeros(1).device
here, seen_by_thread[0]

# %% [markdown] tags=["deeper"]
# The default device is not the **current CUDA device**. `torch.set_default_device("cuda:1")`
# makes new tensors land on `cuda:1`, but `torch.cuda.current_device()` stays where it was, and so
# does everything that reads it (`.cuda()`, `torch.cuda.memory_allocated()`, new streams).
# With `"cuda"` (no index), the docs say tensors go to whatever the current device is when each
# tensor is made.

# %% tags=["deeper"]
if gpu := needs_cuda(2, what="default device versus current CUDA device", key="02-default-vs-current"):
    torch.set_default_device("cuda:1")
    try:
        print("new tensor:", torch.zeros(1).device, "| current CUDA device:", torch.cuda.current_device(),
              "| .cuda():", torch.ones(1, device="cpu").cuda().device)
    finally:
        torch.set_default_device(None)
else:
    display(gpu)

# %% [markdown]
# ## 7. dtype and device in one `.to`
#
# `.to` takes a device, a dtype, or both, and does it in one copy. Apple's GPU (MPS) has no
# float64: convert such tensors to float32 before moving them there.

# %%
both = t.to("meta", torch.float16)
named = t.to(device="meta", dtype=torch.float64)
(both.device, both.dtype), (named.device, named.dtype), t.to(torch.float32) is t

# %% tags=["try-it"]
# Try it: complete `match(x, weight)` so it returns x on the weight's device and in its dtype,
# in one call. The check uses weights on the CPU and on meta, in several dtypes.
def match(x, weight):
    # YOUR CODE HERE
    raise NotImplementedError()

check("02.b")

# %% [markdown] tags=["deeper"]
# ### Deeper: float64 on a Mac

# %% [markdown] tags=["deeper"]
# Apple's GPU (MPS) has no float64 arithmetic: moving a float64 tensor to `mps` raises, and the
# same tensor converted to float32 first moves. Without MPS the cell shows that fact as read in
# PyTorch's macOS wheels (`MAC_FACTS["mps-float64"]`, listed in docs/mac.md).

# %% tags=["deeper"]
from course_utils.evidence.sources import MAC_FACTS

if device.type == "mps":
    print(raises(lambda: t.double().to("mps"), (TypeError, RuntimeError), match="float64"))
    shown = t.double().float().to("mps").dtype
else:
    shown = MAC_FACTS["mps-float64"].says
shown

# %% [markdown]
# ## Summary
#
# - A new tensor lives on the default device (the CPU) unless you pass `device=`.
# - `.to(device)` returns the same object when nothing changes, else a **new** tensor: assign it.
# - Results live where their operands live; mixing devices raises.
# - `.numpy()` needs a CPU tensor and then shares its memory.
# - `with torch.device(d)` changes where factory functions create; undo `set_default_device`.
#
# <!-- next-links:start, written by make pairs -->
# **Exercises:** [02_tensor_placement_exercises.ipynb](02_tensor_placement_exercises.ipynb).
# **Next:** lesson 03, [03_model_placement.ipynb](03_model_placement.ipynb): Model placement: what `model.to(device)` moves.
# <!-- next-links:end -->
