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
# You will be able to:
# - say what the *current* CUDA device decides, and switch it for a block with `torch.cuda.device`;
# - tell it apart from the *default* device that `with torch.device(...)` sets;
# - predict what `torch.cuda.set_device` does inside a block.
#
# <!-- readme (make pairs writes README's rows from these lines)
# learn: the current CUDA device and what it decides; `torch.cuda.device`, `set_device`, and `with
# torch.device(...)` (the default device, not the current one)
# covers: the current CUDA device and what it decides; `torch.cuda.device` and `device_of` scopes (a no-op for CPU
# objects, not for modules), `set_device`, `torch.accelerator.device_index`, and `with torch.device(...)` (the
# default device, not the current one)
# -->
#
# <!-- lesson-needs:start, written by make pairs -->
# | Part | Runs for real with | GPU-only cells |
# |---|---|---|
# | 1 | 1 GPU | 1 (1 GPU) |
# | 2 | a CPU | none |
# | 3 | 1 GPU | 1 (1 GPU) |
# | 4 | 2 GPUs | 1 (2 GPUs) |
# | 5 | 2 GPUs | 1 (2 GPUs); in Deeper: 1 (2 GPUs) |
#
# Without a GPU, each GPU-only cell prints SKIPPED, says what a GPU shows, then a real GPU's output from a public report, not run here (1 of 5 cells), then the folded PyTorch source.
# <!-- lesson-needs:end -->
#
# "Deeper" sections are optional.

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
import inspect

import torch
from torch import nn

from course_utils.checks import check
from course_utils.claims import raises
from course_utils.devices import pick_device
from course_utils.gates import needs_cuda
from course_utils.scopes import run_scopes, trace_current_device
from course_utils.simulation import on_simulated_gpus
# Short tracebacks: frames inside torch's own code are hidden from errors; %tb shows the full one.
# %load_ext course_utils.tracebacks

device = pick_device()  # lesson 01's idiom; this lesson's GPU cells are CUDA's own, gated by a GPU count
torch.__version__, torch.cuda.device_count()

# %% [markdown]
# ## 1. The current device: what plain `"cuda"` means
#
# A process with CUDA has one current CUDA device, an index (`torch.cuda.current_device()`).
# `.cuda()`, `device="cuda"`, the current stream and the memory statistics use it when you name no
# index. The cell asks each, making each GPU current in turn.

# %%
def where_new_cuda_tensors_go() -> dict[str, str]:
    return {".cuda()": str(torch.ones(1).cuda().device), 'device="cuda"': str(torch.ones(1, device="cuda").device)}

def what_the_current_device_decides() -> dict[str, str]:
    return {**where_new_cuda_tensors_go(),
            "current_stream()": str(torch.cuda.current_stream().device),
            "memory_allocated()": f"{torch.cuda.memory_allocated()} bytes",
            "mem_get_info() free": f"{torch.cuda.mem_get_info()[0] / 2**30:.1f} GiB"}

def ask_each_gpu(question) -> dict[str, dict[str, str]]:
    answers = {}
    for i in range(torch.cuda.device_count()):
        with torch.cuda.device(i):
            answers[f"cuda:{i} current"] = question()
    return answers

if gpu := needs_cuda(1, what="asking each GPU in turn", key="04-each-gpu"):
    result = ask_each_gpu(what_the_current_device_decides)
else:
    result = gpu
result

# %% [markdown]
# Without GPUs, watch the same loop on the exercise checks' two simulated GPUs, built from
# PyTorch's source: never a run, and no streams or memory.

# %%
on_simulated_gpus(ask_each_gpu, where_new_cuda_tensors_go)

# %% [markdown]
# Without CUDA there is no current device, and each of these raises.

# %%
if not torch.cuda.is_available():
    print(raises(lambda: torch.ones(1).cuda(), (AssertionError, RuntimeError), match="CUDA|NVIDIA"))
    print(raises(torch.cuda.current_device, (AssertionError, RuntimeError), match="CUDA|NVIDIA"))
torch.cuda.device_count()

# %% [markdown] tags=["deeper"]
# ### Deeper: which message, and the memory statistics

# %% [markdown] tags=["deeper"]
# On a CPU-only build of PyTorch the message is *Torch not compiled with CUDA enabled*; on a CUDA
# build without a driver it is about the NVIDIA driver. The memory statistics are the exception:
# before CUDA has been initialised they return 0 instead of raising, on any machine.

# %% tags=["deeper"]
if not torch.cuda.is_available():
    print(raises(lambda: torch.ones(1, device="cuda"), (AssertionError, RuntimeError), match="CUDA|NVIDIA"))
    print(raises(torch.cuda.current_stream, (AssertionError, RuntimeError), match="CUDA|NVIDIA"))
torch.cuda.memory_allocated(), torch.cuda.max_memory_allocated()

# %% [markdown]
# ## 2. `with torch.cuda.device(i)`: switch for a block
#
# Inside the block GPU `i` is current; on exit the previous one comes back. A negative index is a
# no-op, so this cell runs on any machine and switches where there are two GPUs.

# %%
def switch_for_a_block(index: int) -> tuple:
    current = torch.cuda.current_device if torch.cuda.is_available() else (lambda: "no CUDA")
    with torch.cuda.device(index):
        inside = current()
    return index, inside, current()

display(switch_for_a_block(1 if torch.cuda.device_count() >= 2 else -1))  # -1: a scope that switches nothing
on_simulated_gpus(switch_for_a_block, 1)

# %% [markdown] tags=["deeper"]
# ### Deeper: the source of `torch.cuda.device`, and `None`

# %% [markdown] tags=["deeper"]
# Read the source rather than trusting a summary (this prints the code of the PyTorch you have).
# `__enter__` swaps in the new index and remembers the previous one; `__exit__` puts the previous
# one back. `_get_device_index` turns `"cuda:1"`, `torch.device("cuda", 1)` or `1` into `1`.

# %% tags=["deeper"]
print(inspect.getsource(torch.cuda.device))

# %% [markdown] tags=["deeper"]
# The swap function returns `-1` without touching CUDA for a negative index, hence the no-op
# above. `device(None)` is documented as a no-op too. With CUDA it is (it resolves `None` to the
# current device and swaps it for itself). On a CPU-only *build*, entering it raises a
# `TypeError`: the fallback code compares `None < 0`. `run_scopes` (part 5) records what this
# machine does instead of crashing. For device-agnostic code that must switch only on CUDA, use
# `contextlib.nullcontext()` off CUDA (exercise 04.4).

# %% tags=["deeper"]
run_scopes([("device(-1)", torch.cuda.device(-1)), ("device(None)", lambda: torch.cuda.device(None))])

# %% [markdown] tags=["deeper"]
# A real index needs CUDA: on this machine the next trace records the error; on a GPU it shows
# the switch and the restore.

# %% tags=["deeper"]
run_scopes([("device(0)", lambda: torch.cuda.device(0))])

# %% [markdown]
# ## 3. `torch.cuda.device_of(t)`: switch to a tensor's GPU
#
# The same switch, with the index read from a tensor; for a CPU tensor it is a no-op. It moves
# no data and takes tensors, not modules:

# %%
x = torch.randn(4, 3)
with torch.cuda.device_of(x):
    inside = x.device
inside

# %% tags=["raises-exception"]
torch.cuda.device_of(nn.Linear(4, 3))

# %% [markdown]
# For a model, pass one of its tensors: `torch.cuda.device_of(next(model.parameters()))`.

# %%
model = nn.Linear(4, 3)
with torch.cuda.device_of(next(model.parameters())):
    inside_model_scope = next(model.parameters()).device
inside_model_scope

# %% [markdown]
# With `g` on `cuda:0` the block makes 0 current; `x` stays on the CPU.

# %%
def inside_device_of_a_gpu_tensor() -> tuple:
    g = torch.ones(2, device="cuda:0")
    with torch.cuda.device_of(g):
        return torch.cuda.current_device(), str(x.device), str(torch.ones(1, device="cuda").device)

if gpu := needs_cuda(1, what="device_of on a CUDA tensor", key="04-device-of-cuda"):
    display(inside_device_of_a_gpu_tensor())
else:
    display(gpu)
on_simulated_gpus(inside_device_of_a_gpu_tensor, start=1)

# %% [markdown] tags=["deeper"]
# ### Deeper: what `device_of` is

# %% [markdown] tags=["deeper"]
# `device_of` is a subclass of `device`. Its whole constructor is one line: the index of `obj` if
# `obj.is_cuda`, else `-1`. So it is a **context manager, not a device**; `nn.Module` has no
# `is_cuda` (nor a `.device`), hence the error above.

# %% tags=["deeper"]
print(inspect.getsource(torch.cuda.device_of))

# %% [markdown] tags=["deeper"]
# What `device_of(x)` returns: an object whose `idx` is `-1` for a CPU tensor. Printing it shows
# an object address, never `cuda:0`. It works with a storage too (`x.untyped_storage()`).

# %% tags=["deeper"]
d = torch.cuda.device_of(x)
with trace_current_device() as t:
    with t.scope("device_of(storage)", torch.cuda.device_of(x.untyped_storage())):
        pass
type(d), d.idx, repr(d)[:40], t

# %% [markdown]
# ## 4. `torch.cuda.set_device(i)`: switch for good, almost
#
# `set_device` has no block and nothing restores it, so its docs prefer `torch.cuda.device`. But an
# enclosing `with torch.cuda.device(i)` restores, on exit, what was current at entry: it undoes a
# `set_device` made inside. Inside `device(-1)`, which restores nothing, it stays.

# %%
def set_device_inside_blocks() -> tuple[int, int]:
    torch.cuda.set_device(0)
    with torch.cuda.device(0):
        torch.cuda.set_device(1)
    after_device_0 = torch.cuda.current_device()
    with torch.cuda.device(-1):
        torch.cuda.set_device(1)
    after_device_minus_1 = torch.cuda.current_device()
    torch.cuda.set_device(0)  # leave the notebook as it was
    return after_device_0, after_device_minus_1

if gpu := needs_cuda(2, what="set_device inside a scope", key="04-set-device"):
    display(set_device_inside_blocks())
else:
    display(gpu)
on_simulated_gpus(set_device_inside_blocks)

# %% [markdown] tags=["deeper"]
# ### Deeper: the docstring, and `torch.accelerator.device_index`

# %% [markdown] tags=["deeper"]
# The docstring says its use is discouraged in favour of `torch.cuda.device` (and, for choosing a
# GPU per process, of `CUDA_VISIBLE_DEVICES`, notebook 08). A negative index is a no-op.

# %% tags=["deeper"]
print(inspect.getdoc(torch.cuda.set_device))
torch.cuda.set_device(-1)  # a no-op, even without CUDA
"set_device(-1) ran"

# %% [markdown] tags=["deeper"]
# PyTorch 2.8 added `torch.accelerator.device_index(i)`, the backend-agnostic `torch.cuda.device`
# (CUDA, ROCm, XPU, MPS, ...). `None` is a real no-op here, on every machine; an index on a machine
# without an accelerator raises, even `-1`. *Which* error depends on the build: a CPU build has no
# accelerator and says so; a CUDA build without an NVIDIA driver (what a plain `pip install torch`
# gives on Linux) still has CUDA as its accelerator, tries to start it, and fails with the
# driver's message.

# %% tags=["deeper"]
if hasattr(torch.accelerator, "device_index"):
    trace = run_scopes([("accelerator.device_index(None)", torch.accelerator.device_index(None))])
else:
    trace = f"torch {torch.__version__} has no torch.accelerator.device_index (added in 2.8)"
trace

# %% tags=["deeper"]
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
# ## 5. `with torch.device(...)`: the default device, a different thing
#
# A `torch.device` is a context manager too, but it sets the *default device*: where factory
# functions (`torch.ones`, a new layer's parameters) put tensors when you pass no `device=`.

# %%
with torch.device("meta"):
    inside = (torch.ones(2).device, nn.Linear(2, 2).weight.device)
inside, torch.ones(2).device

# %% tags=["try-it"]
# Try it: finish `zeros_where` so that `torch.zeros(2)`, written without `device=`, lands on x's
# device (cpu, meta or a GPU): wrap it in a `with` block.
def zeros_where(x):
    # YOUR CODE HERE
    raise NotImplementedError()

check("04.a")

# %% [markdown]
# Inside `with torch.device("cuda:1")`, `torch.ones(1)` goes to `cuda:1`, but `.cuda()` follows the
# current device, still 0.

# %%
def default_versus_current() -> tuple[int, str, str]:
    with torch.device("cuda:1"):
        return torch.cuda.current_device(), str(torch.ones(1).device), str(torch.empty(1, device="cpu").cuda().device)

if gpu := needs_cuda(2, what="torch.device('cuda:1') versus the current device", key="04-torch-device-scope"):
    display(default_versus_current())
else:
    display(gpu)
on_simulated_gpus(default_versus_current)

# %% [markdown]
# `run_scopes` enters blocks one inside the other and records both devices at every step.
# Entering `torch.device("cuda:0")` works even without CUDA: it only records a default.

# %%
run_scopes([("torch.device('cuda:0')", torch.device("cuda:0")), ("device_of(x)", torch.cuda.device_of(x))])

# %% tags=["try-it"]
# Try it: finish `build_on` so that it returns nn.Linear(8, 8) with its parameters made directly
# on `device` (never on the CPU first), leaving the default device as it was.
def build_on(device):
    # YOUR CODE HERE
    raise NotImplementedError()

check("04.b")

# %% [markdown] tags=["deeper"]
# ### Deeper: reading the default device

# %% [markdown] tags=["deeper"]
# `torch.get_default_device()` answers where factories put tensors now, but it sees
# `with torch.device(...)` blocks only from PyTorch 2.8 (pytorch/pytorch#131328, fixed by #148621);
# 2.7 answers with what `set_default_device` set, here `cpu`. `course_utils.scopes.default_device()`
# does 2.8's lookup on older releases, and `run_scopes` uses it.

# %% tags=["deeper"]
from torch.torch_version import TorchVersion

with torch.device("meta"):
    read_inside = torch.get_default_device()
torch.__version__, read_inside, "sees the block" if TorchVersion(torch.__version__) >= "2.8" else "2.7: ignores it"

# %% [markdown] tags=["deeper"]
# ### Deeper: all of it nested, on two GPUs

# %% [markdown] tags=["deeper"]
# A prediction to check on two GPUs, from the rules above: the current-device column of this
# trace should read 0 → 1 → 1 → 0 → 1 → 1, then on the way out 1 → 0 → 1 → 1 → 0, because each
# exit restores what was current when its block was entered, `device_of(cpu tensor)` changes
# nothing, and `torch.device('cuda:0')` changes only the default-device column. Without two GPUs
# the cell runs the half it can (the CPU tensor's `device_of` and `torch.device('meta')`).

# %% tags=["deeper"]
def nested_trace():
    t1 = torch.ones(1, device="cuda:1")
    torch.cuda.set_device(0)
    return run_scopes([
        ("device(1)", torch.cuda.device(1)),
        ("device_of(cpu tensor)", torch.cuda.device_of(x)),
        ("device(0)", torch.cuda.device(0)),
        ("device_of(t1)", torch.cuda.device_of(t1)),
        ("torch.device('cuda:0')", torch.device("cuda:0")),
    ])

if gpu := needs_cuda(2, what="the nested-scope trace", key="04-nested-trace"):
    trace = nested_trace()
else:
    display(gpu)
    trace = run_scopes([("device_of(cpu tensor)", torch.cuda.device_of(x)), ("torch.device('meta')", torch.device("meta"))])
trace

# %% [markdown] tags=["deeper"]
# The whole trace, on the simulated two GPUs: check the prediction against it.

# %% tags=["deeper"]
on_simulated_gpus(nested_trace)

# %% [markdown]
# ## Summary
#
# - The current CUDA device decides where `.cuda()`, `device="cuda"` and the memory statistics go.
# - `with torch.cuda.device(i)` switches it for a block; `torch.cuda.device_of(t)` reads `i` from a
#   tensor (a no-op for CPU tensors).
# - `torch.cuda.set_device` has no block, but an enclosing block's exit undoes it.
# - `with torch.device(...)` sets the default device for new tensors, never the current CUDA device.
#
# <!-- next-links:start, written by make pairs -->
# **Exercises:** [04_current_device_exercises.ipynb](04_current_device_exercises.ipynb).
# **Next:** lesson 05, [05_error_clinic.ipynb](05_error_clinic.ipynb): The cross-device error clinic.
# <!-- next-links:end -->
