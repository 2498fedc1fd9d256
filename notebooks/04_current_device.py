# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 04 · The current CUDA device, and the blocks that change it
#
# Every process with CUDA has a **current CUDA device**: the GPU that `.cuda()`, `device="cuda"`
# and a dozen other calls use when you do not name one. In this notebook you will learn what
# depends on it, which context managers change it and restore it (`torch.cuda.device`,
# `torch.cuda.device_of`, `torch.accelerator.device_index`), which one changes it for good
# (`torch.cuda.set_device`), and why `with torch.device("cuda:1"):` is a different thing
# altogether.
#
# | Part | Needs |
# |---|---|
# | 1. What the current device decides | CPU only to run; 1 GPU to see it |
# | 2. `torch.cuda.device(i)`: a scoped switch | CPU only (2 GPUs to see a switch) |
# | 3. `torch.cuda.device_of(obj)`: the switch, read from a tensor | CPU only (2 GPUs to see a switch) |
# | 4. `torch.cuda.set_device`: the unscoped switch | 2 GPUs to see it |
# | 5. `torch.accelerator.device_index` (PyTorch 2.8+) | CPU only |
# | 6. `torch.device(...)` as a context manager: the *default* device | CPU only |
# | 7. All of it nested, on two GPUs | 2 GPUs (otherwise: what it shows) |
#
# Every cell runs on a laptop without a GPU. `trace_current_device()` and `run_scopes()` from
# `course_utils.scopes` record, at each step, the current CUDA device ("n/a (no CUDA)" without
# CUDA) and the *default* device used by factory functions.

# %% [markdown] tags=["course-header"]
# **Run it on a free GPU:** [Open in Colab](https://colab.research.google.com/github/pytorch-devices-course/pytorch-devices-course/blob/main/notebooks/04_current_device.ipynb) (one GPU: Runtime > Change runtime type > T4 GPU)
# · [Open in Kaggle](https://kaggle.com/kernels/welcome?src=https://github.com/pytorch-devices-course/pytorch-devices-course/blob/main/notebooks/04_current_device.ipynb) (two GPUs: Settings > Accelerator > GPU T4 x2).
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
import inspect

import torch
from torch import nn

from course_utils.claims import raises
from course_utils.devices import needs_cuda
from course_utils.evidence import recorded
from course_utils.scopes import run_scopes, trace_current_device

torch.__version__, torch.cuda.is_available(), torch.cuda.device_count()

# %% [markdown]
# ## 1. What the current device decides
#
# `torch.cuda.current_device()` returns an integer index. These all use that device when you do
# not name one: `.cuda()`, `device="cuda"`, `torch.cuda.current_stream()`, the memory
# statistics (`memory_allocated()`, `max_memory_allocated()`, ...), `mem_get_info()` and
# `synchronize()`. The cell asks each of them, once per GPU, with that GPU made current.

# %%
def what_the_current_device_decides() -> dict[str, str]:
    return {
        ".cuda()": str(torch.ones(1).cuda().device),
        'device="cuda"': str(torch.ones(1, device="cuda").device),
        "current_stream()": str(torch.cuda.current_stream().device),
        "memory_allocated()": f"{torch.cuda.memory_allocated()} bytes",
        "mem_get_info() free": f"{torch.cuda.mem_get_info()[0] / 2**30:.1f} GiB",
    }

if needs_cuda(1, what="asking each GPU in turn", key="04-each-gpu"):
    result = {}
    for i in range(torch.cuda.device_count()):
        with torch.cuda.device(i):
            result[f"cuda:{i} current"] = what_the_current_device_decides()
else:
    print(needs_cuda(1, what="asking each GPU in turn"))
    result = recorded("04-each-gpu")
result

# %% [markdown]
# Without CUDA, each of these raises: on a CPU-only build of PyTorch with *Torch not compiled with
# CUDA enabled*, on a CUDA build without a driver with a message about the NVIDIA driver.
# The memory statistics are the exception: before CUDA has been initialised they return 0
# instead of raising, on any machine.

# %%
if not torch.cuda.is_available():
    print(raises(lambda: torch.ones(1).cuda(), (AssertionError, RuntimeError), match="CUDA|NVIDIA"))
    print(raises(lambda: torch.ones(1, device="cuda"), (AssertionError, RuntimeError), match="CUDA|NVIDIA"))
    print(raises(torch.cuda.current_stream, (AssertionError, RuntimeError), match="CUDA|NVIDIA"))
torch.cuda.memory_allocated(), torch.cuda.max_memory_allocated()

# %% [markdown]
# ## 2. `torch.cuda.device(i)`: a scoped switch
#
# Read the source rather than trusting a summary (this prints the code of the PyTorch you have).
# `__enter__` swaps in the new index and remembers the previous one; `__exit__` puts the previous
# one back. `_get_device_index` turns `"cuda:1"`, `torch.device("cuda", 1)` or `1` into `1`.

# %%
print(inspect.getsource(torch.cuda.device))

# %% [markdown]
# The docstring says it: a negative index (or `None`) is a no-op. The swap function returns `-1`
# without touching CUDA for a negative index, so `device(-1)` runs even on a machine without
# CUDA. Here it is, traced: the current device does not change, and nothing raises.

# %%
run_scopes([("device(-1)", torch.cuda.device(-1))])

# %% [markdown]
# `device(None)` is documented as a no-op too. With CUDA it is (it resolves `None` to the current
# device and swaps it for itself). On a CPU-only *build*, entering it raises a `TypeError`: the
# fallback code compares `None < 0`. `run_scopes` records what this machine does instead of
# crashing. For device-agnostic code that must switch only on CUDA, use
# `contextlib.nullcontext()` off CUDA (exercise 04.4).

# %%
run_scopes([("device(None)", lambda: torch.cuda.device(None))])

# %% [markdown]
# A real index needs CUDA: on this machine the next trace records the error; on a GPU it shows
# the switch and the restore.

# %%
run_scopes([("device(0)", lambda: torch.cuda.device(0))])

# %% [markdown]
# ## 3. `torch.cuda.device_of(obj)`: the same switch, read from a tensor
#
# `device_of` is a subclass of `device`. Its whole constructor is one line: the index of `obj` if
# `obj.is_cuda`, else `-1`. So it is a **context manager, not a device**, it changes only the
# current CUDA device, and for anything not on CUDA it is a no-op.

# %%
print(inspect.getsource(torch.cuda.device_of))

# %% [markdown]
# What `device_of(x)` returns: an object of type `torch.cuda.device_of`, whose `idx` is `-1` for a
# CPU tensor. Printing it shows an object address, never `cuda:0`.

# %%
x = torch.randn(4, 3)
d = torch.cuda.device_of(x)
type(d), d.idx, repr(d)[:40]

# %% [markdown]
# On a CPU tensor it is a no-op, not an error: the block runs, nothing is switched, and it works
# on a machine without CUDA at all. It works with a storage too (`x.untyped_storage()`).

# %%
with trace_current_device() as t:
    with t.scope("device_of(x)", torch.cuda.device_of(x)):
        t.mark(f"x is still on {x.device}")
    with t.scope("device_of(storage)", torch.cuda.device_of(x.untyped_storage())):
        pass
t

# %% [markdown]
# It moves no data: inside the block `x` is where it was, and only tensors *created* without an
# index land on the current device. With a GPU, inside `device_of(g)` (g on `cuda:0`) a CPU tensor
# stays on the CPU.

# %%
if needs_cuda(1, what="device_of on a CUDA tensor", key="04-device-of-cuda"):
    g = torch.ones(2, device="cuda:0")
    with torch.cuda.device_of(g):
        inside = (torch.cuda.current_device(), str(x.device), str(torch.ones(1, device="cuda").device))
else:
    print(needs_cuda(1, what="device_of on a CUDA tensor"))
    inside = recorded("04-device-of-cuda")
inside

# %% [markdown]
# It does not accept a module. `nn.Module` has no `is_cuda` (nor a `.device`), so the one line of
# the constructor fails:

# %%
raises(lambda: torch.cuda.device_of(nn.Linear(4, 3)), AttributeError, match="has no attribute 'is_cuda'")

# %% [markdown]
# For a model, ask one of its tensors: `torch.cuda.device_of(next(model.parameters()))`.

# %%
model = nn.Linear(4, 3)
with torch.cuda.device_of(next(model.parameters())):
    inside_model_scope = next(model.parameters()).device
inside_model_scope

# %% [markdown]
# ## 4. `torch.cuda.set_device(i)`: the unscoped switch
#
# `set_device` changes the current device for the rest of the thread, with no block and nothing
# to restore it. Its docstring says its use is discouraged in favour of `torch.cuda.device` (and,
# for choosing a GPU per process, of `CUDA_VISIBLE_DEVICES`). A negative index is a no-op.

# %%
print(inspect.getdoc(torch.cuda.set_device))
torch.cuda.set_device(-1)  # a no-op, even without CUDA
"set_device(-1) ran"

# %% [markdown]
# It also interacts with scopes in a way few expect: a `with torch.cuda.device(i)` block restores,
# on exit, the device that was current when it was *entered*, so a `set_device` inside the block
# is undone. Inside `device(-1)` (a no-op scope) nothing is restored, so the `set_device` stays.

# %%
if needs_cuda(2, what="set_device inside a scope", key="04-set-device"):
    torch.cuda.set_device(0)
    with torch.cuda.device(0):
        torch.cuda.set_device(1)
    after_device_0 = torch.cuda.current_device()
    with torch.cuda.device(-1):
        torch.cuda.set_device(1)
    after_device_minus_1 = torch.cuda.current_device()
    torch.cuda.set_device(0)  # leave the notebook as it was
    shown = (after_device_0, after_device_minus_1)
else:
    print(needs_cuda(2, what="set_device inside a scope"))
    shown = recorded("04-set-device")
shown

# %% [markdown]
# ## 5. `torch.accelerator.device_index`: the same scope, for any accelerator
#
# PyTorch 2.8 added `torch.accelerator.device_index(i)`, the backend-agnostic `torch.cuda.device`
# (CUDA, ROCm, XPU, MPS, ...). `None` is a real no-op here, on every machine; an index on a machine
# without an accelerator raises, even `-1`. *Which* error depends on the build: a CPU build has no
# accelerator and says so; a CUDA build without an NVIDIA driver (what a plain `pip install torch`
# gives on Linux) still has CUDA as its accelerator, tries to start it, and fails with the
# driver's message.

# %%
if hasattr(torch.accelerator, "device_index"):
    trace = run_scopes([("accelerator.device_index(None)", torch.accelerator.device_index(None))])
else:
    trace = f"torch {torch.__version__} has no torch.accelerator.device_index (added in 2.8)"
trace

# %%
built_for = torch.accelerator.current_accelerator()  # the build's accelerator, usable or not
if not hasattr(torch.accelerator, "device_index"):
    print(f"torch {torch.__version__} has no torch.accelerator.device_index (added in 2.8)")
elif torch.accelerator.is_available():
    with torch.accelerator.device_index(0):
        print("inside device_index(0): current index", torch.accelerator.current_device_index())
else:
    # CPU build: "Cannot access accelerator device when none is available."
    # CUDA build without a driver: "Found no NVIDIA driver on your system. ..."
    expected = "accelerator" if built_for is None else "NVIDIA driver"
    print(f"this build's accelerator: {built_for}")
    print(raises(lambda: torch.accelerator.device_index(0).__enter__(), RuntimeError, match=expected))
    print(raises(lambda: torch.accelerator.device_index(-1).__enter__(), RuntimeError, match=expected))

# %% [markdown]
# ## 6. `with torch.device(...)`: the default device, a different thing
#
# A `torch.device` is also a context manager, but it sets the **default device**: where factory
# functions (`torch.ones`, `torch.randn`, `nn.Linear(...)`'s parameters) put new tensors when you
# pass no `device=`. It does not touch the current CUDA device. On this machine `meta` shows it.

# %%
with torch.device("meta"):
    inside = (torch.ones(2).device, nn.Linear(2, 2).weight.device, torch.get_default_device())
inside, torch.get_default_device()

# %% [markdown]
# Entering `torch.device("cuda:0")` works even without CUDA, because it only records a default;
# the trace shows the default device changing while the current CUDA device does not. (Creating a
# tensor inside would then need CUDA.)

# %%
run_scopes([("torch.device('cuda:0')", torch.device("cuda:0")), ("device_of(x)", torch.cuda.device_of(x))])

# %% [markdown]
# With two GPUs the difference is plain: inside `with torch.device("cuda:1")` the current CUDA
# device is still 0, and `.cuda()` (which follows the current device) still goes to `cuda:0`,
# while `torch.ones(1)` (which follows the default device) goes to `cuda:1`.

# %%
if needs_cuda(2, what="torch.device('cuda:1') versus the current device", key="04-torch-device-scope"):
    with torch.device("cuda:1"):
        seen = (torch.cuda.current_device(), str(torch.ones(1).device), str(torch.empty(1, device="cpu").cuda().device))
else:
    print(needs_cuda(2, what="torch.device('cuda:1') versus the current device"))
    seen = recorded("04-torch-device-scope")
seen

# %% [markdown]
# ## 7. All of it nested, on two GPUs
#
# `run_scopes` enters each scope inside the previous one, then leaves them innermost first,
# recording both devices after every step. On two GPUs the current-device column reads
# 0 → 1 → 1 → 0 → 1 → 1, then on the way out 1 → 0 → 1 → 1 → 0: each exit restores what was
# current when its block was entered, `device_of(cpu tensor)` changes nothing, and
# `torch.device('cuda:0')` changes only the default-device column.

# %%
if needs_cuda(2, what="the nested-scope trace", key="04-nested-trace"):
    t1 = torch.ones(1, device="cuda:1")
    torch.cuda.set_device(0)
    trace = run_scopes([
        ("device(1)", torch.cuda.device(1)),
        ("device_of(cpu tensor)", torch.cuda.device_of(x)),
        ("device(0)", torch.cuda.device(0)),
        ("device_of(t1)", torch.cuda.device_of(t1)),
        ("torch.device('cuda:0')", torch.device("cuda:0")),
    ])
else:
    print(needs_cuda(2, what="the nested-scope trace"))
    trace = run_scopes([("device_of(cpu tensor)", torch.cuda.device_of(x)), ("torch.device('meta')", torch.device("meta"))])
    print(recorded("04-nested-trace"))
trace

# %% [markdown]
# ## Summary
#
# - The current CUDA device decides where `.cuda()`, `device="cuda"`, the current stream, memory
#   statistics and `mem_get_info()` go when no index is given.
# - `torch.cuda.device(i)` switches it for a block and restores on exit; `-1` is a no-op
#   everywhere, `None` is a no-op with CUDA (and a `TypeError` on a CPU-only build).
# - `torch.cuda.device_of(obj)` is the same context manager, with the index read from a tensor or
#   storage: not a device, a no-op for CPU objects, it moves no data, and it rejects modules.
# - `torch.cuda.set_device` is global and unscoped; an enclosing scope's exit undoes it.
# - `torch.accelerator.device_index` (2.8+) is the backend-agnostic scope.
# - `with torch.device(...)` sets the default device for factory functions; it never changes
#   `torch.cuda.current_device()`.
#
# **Exercises:** `exercises/04_current_device_exercises.ipynb` (predict the current device in
# nested scopes, simulate the rules, where a tensor lands, a device-agnostic scope).
# **Next:** `05_error_clinic.ipynb`, what the cross-device errors say and how to fix them.
