# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 05 · The cross-device error clinic
#
# You will be able to:
#
# - read the real traceback of each family of device errors, and fix it;
# - reproduce most of them on a laptop, with `meta`;
# - spot a GPU error reported at the wrong line.
#
# <!-- readme (make pairs writes README's rows from these lines)
# learn: every cross-device error with its real traceback, why, and the fix; the convolution *Input type ... and
# weight type ...* message; GPU errors reported at the wrong line (`CUDA_LAUNCH_BLOCKING=1`); `%load_ext
# course_utils.errors`
# covers: every cross-device error with its real message (old and new CUDA wordings), why, and the fix; where
# `meta` does not behave like CUDA; `find_device_mismatches`; `%load_ext course_utils.errors`
# -->
#
# <!-- lesson-needs:start, written by make pairs -->
# | Part | Runs for real with | GPU-only cells |
# |---|---|---|
# | 1 | 1 accelerator | 1 (1 accelerator) |
# | 2 | a CPU | none |
# | 3 | a CPU | none |
# | 4 | 1 accelerator | 1 (1 accelerator) |
# | 5 | 1 GPU | 1 (1 GPU) |
# | 6 | 1 GPU | in Deeper: 4 (1 accelerator) and 2 (1 GPU) |
#
# 6 cells run on any accelerator, else meta. Without a GPU, each GPU-only cell prints SKIPPED, says what a GPU shows, then a real GPU's output from a public report, not run here (1 of 3 cells), then the folded PyTorch source.
# <!-- lesson-needs:end -->
#
# Cells that fail on purpose show PyTorch's real error, with the frames inside torch folded into
# one line (`%tb` in a new cell prints the whole traceback); *Run All* continues.

# %% [markdown] tags=["course-header"]
# **Run it on a free GPU:** [Open in Colab](https://colab.research.google.com/github/pytorch-devices-course/pytorch-devices-course/blob/main/notebooks/05_error_clinic.ipynb) (one GPU: Runtime > Change runtime type > T4 GPU)
# · [Open in Kaggle](https://kaggle.com/kernels/welcome?src=https://github.com/pytorch-devices-course/pytorch-devices-course/blob/main/notebooks/05_error_clinic.ipynb) (two GPUs: Settings > Accelerator > GPU T4 x2).
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
import io

import torch
import torch.nn.functional as F
from torch import nn

from course_utils.checks import check
from course_utils.claims import ClaimFailed, raises
from course_utils.checkpoints import retag_checkpoint
from course_utils.devices import pick_device
from course_utils.gates import needs_accelerator, needs_cuda
# Short tracebacks: frames inside torch's own code are hidden from errors; %tb shows the full one.
# %load_ext course_utils.tracebacks

device = pick_device()  # lesson 01's idiom: decided once, carried everywhere below
torch.__version__

# %% [markdown]
# ## 1. Mixing devices
#
# A `meta` tensor has a shape and a device, but no data. PyTorch checks its device as a GPU's,
# so `meta` and the CPU make two devices on any machine. But `meta` is a stand-in: its messages
# are worded differently from CUDA's, and a few mixed operations return **wrong values** instead
# of raising (`cpu_tensor @ meta_tensor`; a Deeper section lists them).
#
# An operation runs on one device and never copies an operand over. Read the traceback from its
# last line, the message. PyTorch's own frames (here, `meta`'s check) are folded into one line;
# `%tb` shows them all:

# %% tags=["raises-exception"]
m = torch.ones(3, device="meta")
c = torch.ones(3)
m + c

# %% [markdown]
# On an accelerator the same mistake reads *Expected all tensors to be on the same device*:

# %%
if gpu := needs_accelerator(device, what="the elementwise cross-device message", key="05-elementwise"):
    g = torch.ones(3, device=gpu.device)
    shown = raises(lambda: g + c, RuntimeError, match="Expected all tensors to be on the same device")
else:
    shown = gpu
shown

# %% [markdown]
# The fix: move one operand to the other's device, without naming it.

# %%
m + c.to(m.device)

# %% [markdown]
# **Try it.** Finish `call_model`: run `model` on `x` moved to the model's device (a module has
# no `.device`; its parameters do).

# %% tags=["try-it"]
def call_model(model, x):
    raise NotImplementedError  # replace this with your line: return model(...)

check("05.a")

# %% [markdown]
# ## 2. A CPU-only operation on another device
#
# `.numpy()` shares host memory, so it works only on CPU tensors. The message names the device:
# `meta` here, `cuda:0` on a GPU.

# %% tags=["raises-exception"]
m.numpy()

# %% [markdown]
# The fix: copy to the host first, `x.cpu().numpy()` (notebook 02, part 5), with `detach()` before
# it if `x` requires grad.

# %% [markdown]
# ## 3. A device this machine does not have
#
# `torch.save` records each tensor's device; `torch.load` puts it back there. Here is a file
# saved on a GPU this machine lacks (`retag_checkpoint` changes only the device tags):

# %%
missing = f"cuda:{torch.cuda.device_count()}"  # one past the last GPU here
saved, from_gpu = io.BytesIO(), io.BytesIO()
torch.save({"weight": torch.tensor([[1.0, 2.0, 3.0]]), "bias": torch.tensor([0.5])}, saved)  # a Linear(3, 1)
retag_checkpoint(saved, from_gpu, {"cpu": missing})
checkpoint = from_gpu.getvalue()
missing

# %% tags=["raises-exception"]
torch.load(io.BytesIO(checkpoint))

# %% [markdown]
# A hard-coded device index fails too: *CUDA error: invalid device ordinal* with fewer GPUs,
# *Torch not compiled with CUDA enabled* for `"cuda:…"` on a CPU-only build (a bare index
# differs: see below), *Found no NVIDIA driver* on a CUDA build without one:

# %% tags=["raises-exception"]
torch.ones(1, device=missing)

# %% [markdown]
# **Try it.** Load `checkpoint` (the bytes above) so that every tensor lands on the CPU.

# %% tags=["try-it"]
state = ...  # your line: torch.load(io.BytesIO(checkpoint), ...)
check("05.b")

# %% [markdown]
# The habit that avoids both is lesson 01's idiom: decide the device once, from what exists, and
# carry it (`map_location=device`, `.to(device)`): `device = pick_device()`.

# %% [markdown]
# ## 4. The convolution message
#
# *Input type (torch.FloatTensor) and weight type (torch.cuda.FloatTensor) should be the same*:
# a convolution compares tensor **types**, device and dtype together. A CPU shows the same check
# failing over a dtype instead (a stand-in):

# %% tags=["raises-exception"]
images = torch.rand(2, 3, 8, 8)
F.conv2d(images, torch.rand(4, 3, 3, 3, dtype=torch.float64))

# %% [markdown]
# On an accelerator, both ways round (Apple's MPS names its type `MPSFloatType`):

# %%
if gpu := needs_accelerator(device, what="the convolution's cross-device message", key="05-conv-cross-device"):
    conv_on_device = nn.Conv2d(3, 4, 3).to(gpu.device)
    print(raises(lambda: conv_on_device(images), RuntimeError,  # MPS: "slow_conv2d_forward_mps: ... must be on the same device"
                 match=r"Input type \(torch\.FloatTensor\) and weight type \(\S+\) should be the same|must be on the same device"))
    shown = raises(lambda: nn.Conv2d(3, 4, 3)(images.to(gpu.device)), RuntimeError,
                   match=r"Input type \(\S+\) and weight type \(torch\.FloatTensor\) should be the same")
else:
    shown = gpu
shown

# %% [markdown]
# The fix: move the input to the model's device.

# %% [markdown]
# ## 5. Errors reported at the wrong line
#
# A label out of range is a bug. On the CPU it raises at once, naming it:

# %% tags=["raises-exception"]
scores = torch.randn(4, 3)  # 3 classes: labels 0, 1, 2
F.cross_entropy(scores, torch.tensor([0, 2, 1, 3]))

# %% [markdown]
# A GPU runs kernels **asynchronously**, so the same bug (*device-side assert triggered*)
# surfaces at a later line, and every later CUDA call fails until you restart the kernel.
# `CUDA_LAUNCH_BLOCKING=1` makes each call wait, so the error returns to its own line.
#
# `run_buggy_steps` runs five lines, the bug third, in a separate process. On the CPU:

# %%
from course_utils.async_errors import run_buggy_steps

run_buggy_steps("cpu")

# %% [markdown]
# On a GPU, without and with `CUDA_LAUNCH_BLOCKING=1`:

# %%
if gpu := needs_cuda(1, what="a device-side assert, without and with CUDA_LAUNCH_BLOCKING=1", key="05-async-assert"):
    late, shown = run_buggy_steps("cuda"), run_buggy_steps("cuda", launch_blocking=True)
    if late.raised_at_the_bug or not shown.raised_at_the_bug:
        raise ClaimFailed(f"expected a late error without CUDA_LAUNCH_BLOCKING and one at the bug with it:\n{late}\n{shown}")
    print(late)
else:
    shown = gpu
shown

# %% [markdown]
# An error at an innocent line? Rerun with `CUDA_LAUNCH_BLOCKING=1`, or on the CPU.

# %% [markdown]
# ## 6. Let the notebook explain
#
# `explain_device_error` does this reading for you: devices, cause, fix.

# %%
from course_utils.errors import explain_device_error

explain_device_error(raises(lambda: m + c, RuntimeError).message)

# %% [markdown]
# `%load_ext course_utils.errors` adds the explanation under every device error's traceback:

# %%
# %load_ext course_utils.errors

# %% tags=["raises-exception"]
nn.Linear(3, 1, device="meta")(torch.rand(2, 3))

# %%
# %unload_ext course_utils.errors

# %% [markdown] tags=["deeper"]
# ### Deeper: more errors, and where PyTorch raises them

# %% [markdown] tags=["deeper"]
# Optional. Each part below adds an error family or the PyTorch source behind one above. First,
# `explain_device_error` also says when an error is **not** about devices:

# %% tags=["deeper"]
dtype_error = raises(lambda: F.conv2d(images, torch.rand(4, 3, 3, 3, dtype=torch.float64)), RuntimeError,
                     match=r"Input type \(torch\.FloatTensor\) and weight type \(torch\.DoubleTensor\) should be the same")
explain_device_error(dtype_error.message)

# %% tags=["deeper"]
from course_utils.errors import explain_device_error
from course_utils.mismatches import find_device_mismatches, try_mixed
from course_utils.checkpoints import checkpoint_locations

checkpoint_locations(io.BytesIO(checkpoint))

# %% [markdown] tags=["deeper"]
# ### Deeper: the CUDA and MPS wordings, and `nn.Linear`

# %% [markdown] tags=["deeper"]
# On CUDA, elementwise operations go through `TensorIterator`, whose check
# (`aten/src/ATen/TensorIterator.cpp`) prints the first non-CPU device and the odd one:
# *Expected all tensors to be on the same device, but found at least two devices, cuda:0 and
# cpu!* The wording has been the same from PyTorch 1.x to 2.14.1.
#
# `nn.Linear` runs `addmm`, whose device check is generated by the dispatcher
# (`aten/src/ATen/core/op_registration/adaption.cpp`). Its wording changed in 2025: pytorch/pytorch
# pull request 150750 ("Make device check error message more descriptive", April 2025) lost its
# message change in a revert and rebase, and 155085 ("Make device check throw specific error",
# June 2025) brought it back, as 155085's own description says. The release wheels show the
# result: 2.7.1 prints the old wording, 2.8.0 and later (2.13 among them) the new one.
#
# - new: *Expected all tensors to be on the same device, but got mat1 is on cpu, different from
#   other tensors on cuda:0 (when checking argument in method wrapper_CUDA_addmm)*
# - old: *Expected all tensors to be on the same device, but found at least two devices, cuda:0
#   and cpu! (when checking argument for argument mat1 in method wrapper_CUDA_addmm)*
# - MPS (Apple's GPU, every release): *Tensor for argument input is on cpu but expected on mps*,
#   from its own `nn.Linear` kernel; other MPS kernels say *Placeholder storage has not been
#   allocated on MPS device!*, and elementwise operations give the `TensorIterator` wording above
#   (the fact `mps-cross-device`, read in the macOS wheels of 2.7.1 to 2.14.1: docs/mac.md).
#
# The two dispatcher wordings and MPS's `nn.Linear` message name the argument (the `TensorIterator`
# and *Placeholder storage* wordings do not): in `addmm`, `mat1` is your input batch and `mat2` the
# weight. Here the model is on `meta` and the input on the CPU:

# %% tags=["deeper"]
model = nn.Linear(3, 1, device="meta")
x = torch.rand(2, 3)
raises(lambda: model(x), RuntimeError, match="is not on the expected device")

# %% tags=["deeper"]
if gpu := needs_accelerator(device, what="the nn.Linear message on an accelerator", key="05-linear"):
    model_on_device = nn.Linear(3, 1).to(gpu.device)
    shown = raises(lambda: model_on_device(x), RuntimeError,
                   match="Expected all tensors to be on the same device|Tensor for argument input is on cpu but expected on mps")
else:
    shown = gpu
shown

# %% tags=["deeper"]
new = ("Expected all tensors to be on the same device, but got mat1 is on cpu, different from other tensors on "
       "cuda:0 (when checking argument in method wrapper_CUDA_addmm)")
explain_device_error(new)

# %% [markdown] tags=["deeper"]
# ### Deeper: `torch.cat`

# %% [markdown] tags=["deeper"]
# Concatenation needs every piece on one device, too. On CUDA the message names the argument
# `tensors` in method `wrapper_CUDA_cat`. MPS up to 2.9.1 says *torch.cat(): all input tensors
# must be on the same device. Received ...*; MPS's cat kernel of 2.10 and later has no such
# message in its library, so the GPU cell after `meta`'s checks CUDA's wording only (without CUDA it
# prints SKIPPED and says what CUDA shows). The fix: `torch.cat([t.to(device) for t in pieces])`.

# %% tags=["deeper"]
raises(lambda: torch.cat([c, m]), RuntimeError, match="is not on the expected device")

# %% tags=["deeper"]
if gpu := needs_cuda(1, what="the CUDA cat message", key="05-cat"):
    shown = raises(lambda: torch.cat([torch.ones(3, device="cuda"), c]), RuntimeError,
                   match="Expected all tensors to be on the same device")
else:
    shown = gpu
shown

# %% [markdown] tags=["deeper"]
# ### Deeper: indexing, which side may the index live on?

# %% [markdown] tags=["deeper"]
# Indexing is asymmetric. The check (`check_indices_on_cpu_or_selfdevice` in
# `TensorAdvancedIndexing.cpp`, shared by CUDA and MPS) allows indices **on the CPU or on the
# indexed tensor's device**: a GPU tensor indexed by a CPU index is allowed (PyTorch copies the
# index over; keep hot indices on the GPU), a CPU tensor indexed by a GPU index raises *indices
# should be either on cpu or on the same device as the indexed tensor (cpu)*. `meta` follows the
# allowed side; the forbidden side needs an accelerator (a `meta` index into a CPU tensor does not
# raise: the row `cpu_table[meta_index]` in *Deeper: where `meta` does not behave like CUDA*).
# The fix: `table[idx.to(table.device)]`.

# %% tags=["deeper"]
idx = torch.tensor([0, 2])
m[idx]

# %% tags=["deeper"]
if gpu := needs_accelerator(device, what="indexing across devices", key="05-indexing"):
    table = torch.arange(5.0)
    allowed = table.to(gpu.device)[idx]  # a tensor on the accelerator, a CPU index: fine
    shown = raises(lambda: table[idx.to(gpu.device)], (RuntimeError, IndexError), match="indices should be either on")
else:
    shown = gpu
shown

# %% [markdown] tags=["deeper"]
# ### Deeper: the exceptions, 0-dim CPU tensors and Python numbers

# %% [markdown] tags=["deeper"]
# Two things may join an operation on another device: a **Python number**, and a **0-dim CPU
# tensor** (shape `()`), which `TensorIterator` treats as a scalar (`allow_cpu_scalars`). A
# 1-element tensor of shape `(1,)` is *not* a scalar, and a 0-dim tensor on another device is
# not a CPU scalar. The same holds on CUDA: handy for a learning rate kept on the CPU, a trap
# when a "scalar" has shape `(1,)`.

# %% tags=["deeper"]
print(m + 2)
print(m + torch.tensor(2.0))          # shape (): allowed
print(raises(lambda: m + torch.tensor([2.0]), RuntimeError, match="not on the expected device"))  # shape (1,)
raises(lambda: c + torch.tensor(2.0, device="meta"), RuntimeError, match="not on the expected device")

# %% [markdown] tags=["deeper"]
# ### Deeper: optimizer state left on the old device

# %% [markdown] tags=["deeper"]
# Optimizers create their state (Adam's `exp_avg`, SGD's `momentum_buffer`) lazily, on the
# device of each parameter, at the first `step()`. `model.to("cuda")` moves the parameters (the
# same `Parameter` objects, so the optimizer still holds them) but not that state. On CUDA,
# optimizers use their multi-tensor (`foreach`) path, which first groups each parameter with its
# state, checking devices: *Tensors of the same index must be on the same device and the same
# dtype except `step` tensors that can be CPU and float32/64...* You meet that message when the
# state sits on **another accelerator** (a model moved from `cuda:0` to `cuda:1`). The check lets
# float32 **CPU** tensors through (Adam's `step` counters live there), so state left on the CPU
# fails later, in the update (the accelerator cell at the end of this part runs it; without one it
# says in words what happens). Here Adam's state is left on `meta` while
# the parameters stay on the CPU, on the same `foreach` path, then on the per-tensor path:

# %% tags=["deeper"]
def adam_with_state_left_behind(foreach):
    net = nn.Linear(3, 2)
    opt = torch.optim.Adam(net.parameters(), foreach=foreach)
    net(torch.ones(1, 3)).sum().backward()
    opt.step()  # the state is created now, next to the parameters
    for slot in opt.state.values():  # as if the parameters had moved without it
        slot["exp_avg"], slot["exp_avg_sq"] = slot["exp_avg"].to("meta"), slot["exp_avg_sq"].to("meta")
    return opt

print(raises(adam_with_state_left_behind(foreach=True).step, RuntimeError,
             match="Tensors of the same index must be on the same device"))
raises(adam_with_state_left_behind(foreach=False).step, RuntimeError, match="not on the expected device|same device")

# %% [markdown] tags=["deeper"]
# The fix: move the model **before** creating the optimizer. If the state already exists (or you
# resume from a checkpoint), `optimizer.load_state_dict(...)` casts every state tensor to its
# parameter's device (Adam's `step` counter stays on the CPU by design). Here the optimizer's
# parameters live on `meta` and the loaded state comes from the CPU:

# %% tags=["deeper"]
cpu_net, meta_net = nn.Linear(3, 2), nn.Linear(3, 2, device="meta")
cpu_opt = torch.optim.Adam(cpu_net.parameters())
cpu_net(torch.ones(1, 3)).sum().backward()
cpu_opt.step()
meta_opt = torch.optim.Adam(meta_net.parameters())
meta_opt.load_state_dict(cpu_opt.state_dict())
{name: str(value.device) for name, value in next(iter(meta_opt.state.values())).items()}

# %% [markdown] tags=["deeper"]
# On an accelerator, the real sequence: step on the CPU, `model.to(device)`, step again. On CUDA
# the state is on the CPU, so the grouping check lets it through, and the update itself raises the
# ordinary cross-device error. MPS has no `foreach` path (`_get_foreach_kernels_supported_devices`
# in `torch/utils/_foreach_utils.py` lists no `mps`), so there the per-tensor update raises it.

# %% tags=["deeper"]
if gpu := needs_accelerator(device, what="the optimizer-state error", key="05-optimizer-state"):
    net = nn.Linear(3, 2)
    opt = torch.optim.Adam(net.parameters())
    net(torch.ones(1, 3)).sum().backward()
    opt.step()
    net.to(gpu.device)
    net(torch.ones(1, 3, device=gpu.device)).sum().backward()
    print(raises(opt.step, RuntimeError,
                 match="Expected all tensors to be on the same device|Placeholder storage has not been allocated on MPS"))
    opt.load_state_dict(opt.state_dict())  # the fix: state follows the parameters
    opt.step()
    shown = {k: str(v.device) for k, v in next(iter(opt.state.values())).items()}
else:
    shown = gpu
shown

# %% [markdown] tags=["deeper"]
# ### Deeper: which message a missing device gives

# %% [markdown] tags=["deeper"]
# Loading a GPU checkpoint raises *Attempting to deserialize object on a CUDA device but
# torch.cuda.is_available() is False* without a GPU, and *... on CUDA device 1 but
# torch.cuda.device_count() is 1* with one GPU. `map_location` (a device, a string, a dict from
# saved to wanted location, or a function) works on every machine. A device index past the last
# visible GPU fails when CUDA first touches it: *CUDA error: invalid device ordinal* (raised as
# `torch.AcceleratorError`, a `RuntimeError`, from PyTorch 2.8.0; from 2.9.1 followed by *GPU device
# may be out of range, do you have enough GPUs?*); `CUDA_VISIBLE_DEVICES`
# renumbers GPUs from 0, so an index that worked on the machine that wrote the code may not exist
# on yours.
#
# Without a GPU, what fails depends on the build, and on a CPU-only **build** on how you ask
# (read on the 2.13.0 CPU wheel; the cell below runs each request on yours):
#
# - a device named by a string, `"cuda"` or `"cuda:1"` (`device="cuda:1"`, `.to("cuda")`, `.cuda()`
#   without an index): `torch.cuda._lazy_init` raises *Torch not compiled with CUDA enabled*, an
#   `AssertionError`;
# - a bare integer index (`.cuda(1)`, `.to(1)`, `device=1`) and `pin_memory()`: an integer means
#   "this index of the machine's accelerator", and a CPU-only build has none, so a `RuntimeError`
#   *Cannot access accelerator device when none is available.*;
# - `torch.cuda.set_device(0)`: an `AttributeError` (*module 'torch._C' has no attribute
#   '_cuda_setDevice'*), and entering `torch.cuda.device(1)`: a `RuntimeError` *PyTorch was
#   compiled without CUDA support*.
#
# On a CUDA build without a driver (a plain `pip install torch` on Linux), every one of these
# reaches CUDA and raises the same `RuntimeError`: *Found no NVIDIA driver on your system* (read
# on the 2.8.0 CUDA wheel).

# %% tags=["deeper"]
if gpu := needs_cuda(1, what="an invalid device ordinal", key="05-invalid-ordinal"):
    shown = raises(lambda: torch.ones(1, device=f"cuda:{torch.cuda.device_count()}"), RuntimeError,
                   match="invalid device ordinal")
else:
    shown = gpu
shown

# %% tags=["deeper"]
host = torch.ones(1)
NO_CUDA, NO_ACCELERATOR = (AssertionError, "Torch not compiled with CUDA"), (RuntimeError, "none is available")
requests = {  # what each request raises on a CPU-only build
    'torch.ones(1, device="cuda:1")': (lambda: torch.ones(1, device="cuda:1"), *NO_CUDA),
    'host.to("cuda")': (lambda: host.to("cuda"), *NO_CUDA),
    "host.cuda()": (lambda: host.cuda(), *NO_CUDA),
    "host.cuda(1)": (lambda: host.cuda(1), *NO_ACCELERATOR),
    "host.to(1)": (lambda: host.to(1), *NO_ACCELERATOR),
    "torch.ones(1, device=1)": (lambda: torch.ones(1, device=1), *NO_ACCELERATOR),
    "host.pin_memory()": (lambda: host.pin_memory(), *NO_ACCELERATOR),
    "torch.cuda.set_device(0)": (lambda: torch.cuda.set_device(0), AttributeError, "_cuda_setDevice"),
    "torch.cuda.device(1).__enter__()": (lambda: torch.cuda.device(1).__enter__(), RuntimeError, "compiled without CUDA"),
}

# %% tags=["deeper"]
cpu_only_build = torch.version.cuda is None and torch.version.hip is None
if cpu_only_build and torch.accelerator.current_accelerator() is None:
    shown = {name: raises(ask, error, match=match) for name, (ask, error, match) in requests.items()}
elif torch.version.cuda is not None and not torch.cuda.is_available():  # a CUDA build, no usable GPU
    shown = {name: raises(ask, RuntimeError) for name, (ask, _, _) in requests.items()}  # the driver's message
else:
    shown = f"This PyTorch has a usable accelerator ({torch.accelerator.current_accelerator()}): nothing to show."
shown

# %% [markdown] tags=["deeper"]
# ### Deeper: `.numpy()` on a GPU tensor

# %% [markdown] tags=["deeper"]
# The check (`torch/csrc/utils/tensor_numpy.cpp`) names the device, so `meta` shows the exact
# message a GPU tensor gets, with its device (`cuda:0`) in place of `meta`.

# %% tags=["deeper"]
gpu = needs_accelerator(device, what="the .numpy() message for a tensor on a device", key="05-numpy")
print(raises(lambda: torch.ones(2, device=gpu.device).numpy(), TypeError, match="device type tensor to numpy"))
display(gpu)

# %% [markdown] tags=["deeper"]
# ### Deeper: where the convolution message comes from

# %% [markdown] tags=["deeper"]
# `check_input_same_type_as_parameters` in `aten/src/ATen/native/Convolution.cpp` compares
# `input.options().type_equal(weight.options())` and prints each tensor's `toString()`, the
# legacy type name that holds device and dtype together (`torch.cuda.FloatTensor` is a float32
# CUDA tensor). The backend is chosen from the **input**: a CPU float input takes the oneDNN
# (MKLDNN) path, whose message goes on *... or input should be a MKLDNN tensor and weight is a
# dense tensor*; a CUDA input takes cuDNN's, which ends at *should be the same*. With a bias,
# `conv2d` first compares the input's and the bias's dtypes, in the short form *Input type (float)
# and bias type (double)*. And `meta` is no help here: a convolution of a CPU input with `meta`
# weights returns a CPU tensor of uninitialised memory, without an error (the cell below shows it;
# the next part lists more such operations).
#
# On MPS, an input on `mps` takes the MPS backend, which makes the same type check; an MPS
# tensor's type prints as `MPSFloatType`, since PyTorch renames only CPU and CUDA types to their
# `torch.` names. A CPU input with weights on `mps` stops in MPS's fallback instead:
# *slow_conv2d_forward_mps: input(device='cpu') and weight(device=mps:0')  must be on the same
# device*.

# %% tags=["deeper"]
print(raises(lambda: nn.Conv2d(3, 4, 3).double()(images), RuntimeError, match="bias type"))
try_mixed("conv2d: cpu input, meta weight", lambda: nn.Conv2d(3, 4, 3, device="meta")(images))

# %% [markdown] tags=["deeper"]
# ### Deeper: where `meta` does **not** behave like CUDA

# %% [markdown] tags=["deeper"]
# `meta` is a stand-in, not a twin. Each row below mixes `meta` with the CPU in an operation that
# **raises on CUDA**, and `try_mixed` reports what actually came back, compared with the right
# answer computed on the CPU. Some raise as CUDA would. Others return a meta tensor (no values,
# no error). And some return a **CPU tensor of uninitialised memory**, or leave an in-place target
# unchanged: garbage that looks like a result. On PyTorch 2.13 only the first three raise (other
# versions may differ; the output is what yours does). So a demo on `meta` proves an error only
# when it raises.

# %% tags=["deeper"]
A, Am = torch.ones(3, 3), torch.ones(3, 3, device="meta")
table, picks = torch.arange(100.0) + 0.5, torch.arange(0, 100, 2)
meta_idx = picks.to("meta")
rows = [
    try_mixed("meta + cpu", lambda: Am + A, A + A),
    try_mixed("torch.cat([cpu, meta])", lambda: torch.cat([A, Am]), torch.cat([A, A])),
    try_mixed("nn.Linear on meta, cpu input", lambda: nn.Linear(3, 3, device="meta")(A)),
    try_mixed("meta @ cpu", lambda: Am @ A, A @ A),
    try_mixed("cpu @ meta", lambda: A @ Am, A @ A),
    try_mixed("torch.mm(cpu, meta)", lambda: torch.mm(A, Am), A @ A),
    try_mixed("F.linear(cpu input, meta weight)", lambda: nn.functional.linear(A, Am), A @ A.T),
    try_mixed("cpu_table[meta_index]", lambda: table[meta_idx], table[picks]),
    try_mixed("cpu.add_(meta) in place", lambda: A.clone().add_(Am), A + A),
]
for row in rows:
    print(row)
sum(row.raised for row in rows), len(rows)

# %% [markdown] tags=["deeper"]
# ### Deeper: why the GPU reports the error late

# %% [markdown] tags=["deeper"]
# A CUDA kernel that fails a `CUDA_KERNEL_ASSERT` (the bounds checks of `nll_loss`, behind
# `cross_entropy`, and of indexing) stops, and the CUDA runtime marks the context as failed. The
# host learns of it at its next CUDA call that returns a status, and `C10_CUDA_CHECK` turns that
# status into *CUDA error: device-side assert triggered*, plus a suffix from
# `c10/cuda/CUDAMiscFunctions.cpp`: *CUDA kernel errors might be asynchronously reported at some
# other API call, so the stacktrace below might be incorrect. For debugging consider passing
# CUDA_LAUNCH_BLOCKING=1*. In PyTorch 2.7.1 to 2.12.0 `get_cuda_check_suffix` adds it to every CUDA
# error; from 2.13.0 `get_cuda_async_error_suffix` adds it only to the asynchronous kernel errors
# (codes 700, 710, 715, 716 and 719; a device-side assert is 710). The other CUDA errors are not
# left bare in 2.13.0: it ends them with *For more detailed error information, run with
# CUDA_LOG_FILE=stderr* instead, a line 2.14.1 no longer prints. With `CUDA_LAUNCH_BLOCKING=1`
# the suffix is empty and every launch waits. The error is *sticky*: the process cannot use that GPU
# again, which is why `run_buggy_steps` runs in a child process. The variable is read once, when
# CUDA starts, so set it before the first CUDA call (or for the whole `python` command). The
# other bug the issue trackers see most, an index out of range:

# %% tags=["deeper"]
print(run_buggy_steps("cpu", bug="index"))
raises(lambda: torch.arange(4.0)[torch.tensor([0, 5])], IndexError, match="out of bounds")

# %% [markdown] tags=["deeper"]
# ### Deeper: find the culprits before the error

# %% [markdown] tags=["deeper"]
# `find_device_mismatches(model, *inputs)` lists every parameter, buffer, plain tensor attribute
# and input (inside tuples, lists and dicts too) that is not on the model's device, before
# anything runs. The classic culprit is a tensor stored as a plain attribute: `model.to()` moves
# parameters and registered buffers, not attributes.

# %% tags=["deeper"]
class Scaler(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 2)
        self.register_buffer("mean", torch.zeros(3))
        self.scale = torch.ones(2)  # plain attribute: left behind by .to()

    def forward(self, x, extra):
        return self.fc(x - self.mean) * self.scale + extra["bias"]

net = Scaler().to("meta")
find_device_mismatches(net, torch.ones(1, 3), {"bias": torch.zeros(2)})

# %% tags=["deeper"]
net.scale = net.scale.to("meta")
out = net(torch.ones(1, 3, device="meta"), {"bias": torch.zeros(2, device="meta")})
find_device_mismatches(net, torch.ones(1, 3, device="meta")).ok, out.device

# %% [markdown]
# ## Summary
#
# | Error | Fix |
# |---|---|
# | *same device* / *expected device* | `.to(other.device)` |
# | *to numpy* | `.detach().cpu().numpy()` |
# | *deserialize*, *invalid device ordinal* | `map_location`; choose the device once |
# | *Input type ... weight type* | input and model on one device |
# | *device-side assert* | `CUDA_LAUNCH_BLOCKING=1`, or the CPU |
#
# <!-- next-links:start, written by make pairs -->
# **Exercises:** [05_error_clinic_exercises.ipynb](05_error_clinic_exercises.ipynb).
# **Next:** lesson 06, [06_transfers_and_timing.ipynb](06_transfers_and_timing.ipynb): Transfers and timing: how long does moving data take?
# <!-- next-links:end -->
