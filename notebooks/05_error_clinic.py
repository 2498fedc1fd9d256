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
# "Expected all tensors to be on the same device" is the most common device error in PyTorch,
# and it has cousins: checkpoints that will not load, `.numpy()` that refuses, indices on the
# wrong side, optimizers that break after `model.to("cuda")`. In this notebook you meet each
# error with its **real message**, learn why it happens and apply the fix. You will also learn
# to find every misplaced tensor *before* the forward pass fails, and to have the notebook
# explain a device error under its traceback.
#
# | Part | Needs |
# |---|---|
# | 1. A second device on any machine: `meta` | CPU only |
# | 2. Elementwise operations | CPU only (1 GPU for the CUDA message) |
# | 3. `matmul` and `nn.Linear` | CPU only (1 GPU for the CUDA message) |
# | 4. `torch.cat` | CPU only (1 GPU for the CUDA message) |
# | 5. Indexing: which side may the index live on? | CPU only (1 GPU to see both sides) |
# | 6. The exceptions: 0-dim CPU tensors and Python numbers | CPU only |
# | 7. Optimizer state left on the old device | CPU only (1 GPU for the real move) |
# | 8. A GPU checkpoint on a machine without one | CPU only |
# | 9. `cuda:1` hard-coded; *Torch not compiled with CUDA enabled* | CPU only (1 GPU for *invalid device ordinal*) |
# | 10. `.numpy()` on a GPU tensor | CPU only (1 GPU for the CUDA message) |
# | 11. Where `meta` does **not** behave like CUDA | CPU only |
# | 12. Find the culprits first; explain errors as they happen | CPU only |
#
# Every "this raises" below is run with `raises(...)`, which shows the message the PyTorch on your
# machine prints, and fails the notebook if it ever stops raising.

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
from torch import nn

from course_utils.claims import raises
from course_utils.devices import needs_cuda
from course_utils.evidence import recorded
from course_utils.errors import explain_device_error
from course_utils.mismatches import find_device_mismatches, try_mixed
from course_utils.placement import checkpoint_locations, retag_checkpoint

torch.__version__, torch.cuda.device_count() if torch.cuda.is_available() else 0

# %% [markdown]
# ## 1. A second device on any machine: `meta`
#
# A **meta** tensor has a shape, a dtype and a device, but no data. PyTorch checks devices on it
# like on any other device, so mixing `meta` with the CPU reproduces most cross-device errors on a
# laptop. Part 11 lists where the stand-in is *not* faithful.

# %%
m = torch.ones(3, device="meta")
c = torch.ones(3)
m, c.device

# %% [markdown]
# ## 2. Elementwise operations
#
# An operation runs on **one** device, and PyTorch never copies an operand to another device for
# you. Adding a `meta` tensor to a CPU tensor raises, in the wording of PyTorch's meta checks:

# %%
raises(lambda: m + c, RuntimeError, match="is not on the expected device")

# %% [markdown]
# On CUDA, elementwise operations go through `TensorIterator`, whose check
# (`aten/src/ATen/TensorIterator.cpp`) prints the first non-CPU device and the odd one:
# *Expected all tensors to be on the same device, but found at least two devices, cuda:0 and
# cpu!* The wording has been the same from PyTorch 1.x to 2.13.

# %%
if needs_cuda(1, what="the CUDA elementwise message", key="05-elementwise"):
    g = torch.ones(3, device="cuda")
    shown = raises(lambda: g + c, RuntimeError, match="Expected all tensors to be on the same device")
else:
    print(needs_cuda(1, what="the CUDA elementwise message"))
    shown = recorded("05-elementwise")
shown

# %% [markdown]
# The fix: move one operand so both are on one device, usually the one where the work should
# happen. `.to(other.device)` says it without naming a device.

# %%
m + c.to(m.device)

# %% [markdown]
# `explain_device_error` reads a message (or the exception) and says which devices are involved,
# why, and what to change. It knows both of PyTorch's wordings and the meta one.

# %%
explain_device_error(raises(lambda: m + c, RuntimeError).message)

# %% [markdown]
# ## 3. `matmul` and `nn.Linear`
#
# A model whose parameters are on one device cannot take an input from another. Here the model
# is on `meta` and the input on the CPU:

# %%
model = nn.Linear(3, 1, device="meta")
x = torch.rand(2, 3)
raises(lambda: model(x), RuntimeError, match="is not on the expected device")

# %% [markdown]
# On CUDA, `nn.Linear` runs `addmm`, whose device check is generated by the dispatcher
# (`aten/src/ATen/core/op_registration/adaption.cpp`). Its wording changed in 2025: pytorch/pytorch
# pull request 150750 ("Make device check error message more descriptive", April 2025) lost its
# message change in a revert and rebase, and 155085 ("Make device check throw specific error",
# June 2025) brought it back, as 155085's own description says. The release wheels show the
# result: 2.7.1 prints the old wording, 2.8.0 and later (2.13 among them) the new one. Which one
# you see depends on your version.
#
# - new: *Expected all tensors to be on the same device, but got mat1 is on cpu, different from
#   other tensors on cuda:0 (when checking argument in method wrapper_CUDA_addmm)*
# - old: *Expected all tensors to be on the same device, but found at least two devices, cuda:0
#   and cpu! (when checking argument for argument mat1 in method wrapper_CUDA_addmm)*
#
# Both name the argument: in `addmm`, `mat1` is your input batch and `mat2` the weight.

# %%
if needs_cuda(1, what="the CUDA nn.Linear message", key="05-linear"):
    gpu_model = nn.Linear(3, 1).cuda()
    shown = raises(lambda: gpu_model(x), RuntimeError, match="Expected all tensors to be on the same device")
else:
    print(needs_cuda(1, what="the CUDA nn.Linear message"))
    shown = recorded("05-linear")
shown

# %%
new = ("Expected all tensors to be on the same device, but got mat1 is on cpu, different from other tensors on "
       "cuda:0 (when checking argument in method wrapper_CUDA_addmm)")
explain_device_error(new)

# %% [markdown]
# The fix: move the input to the model's device. A module has no `.device`; ask a parameter.

# %%
model(x.to(next(model.parameters()).device))

# %% [markdown]
# ## 4. `torch.cat`
#
# Concatenation needs every piece on one device, too. On CUDA the message names the argument
# `tensors` in method `wrapper_CUDA_cat`.

# %%
raises(lambda: torch.cat([c, m]), RuntimeError, match="is not on the expected device")

# %%
if needs_cuda(1, what="the CUDA cat message", key="05-cat"):
    shown = raises(lambda: torch.cat([torch.ones(3, device="cuda"), c]), RuntimeError,
                   match="Expected all tensors to be on the same device")
else:
    print(needs_cuda(1, what="the CUDA cat message"))
    shown = recorded("05-cat")
shown

# %% [markdown]
# The fix: `torch.cat([t.to(device) for t in pieces])` with one `device` chosen for all.

# %%
torch.cat([t.to("meta") for t in (c, m)])

# %% [markdown]
# ## 5. Indexing: which side may the index live on?
#
# Indexing is asymmetric. The check (`check_indices_on_cpu_or_selfdevice` in
# `TensorAdvancedIndexing.cpp`) allows indices **on the CPU or on the indexed tensor's device**:
#
# - a CUDA tensor indexed by a CPU index: allowed (PyTorch copies the index over);
# - a CPU tensor indexed by a CUDA index: raises *indices should be either on cpu or on the same
#   device as the indexed tensor (cpu)*.
#
# `meta` follows the allowed side (a meta tensor takes a CPU index):

# %%
idx = torch.tensor([0, 2])
m[idx]

# %% [markdown]
# The forbidden side is a CUDA-only error: with a `meta` index into a CPU tensor PyTorch does not
# raise (see part 11). On a GPU the real thing:

# %%
if needs_cuda(1, what="indexing across devices", key="05-indexing"):
    table = torch.arange(5.0)
    allowed = table.cuda()[idx]  # CUDA tensor, CPU index: fine
    shown = raises(lambda: table[idx.cuda()], (RuntimeError, IndexError), match="indices should be either on")
else:
    print(needs_cuda(1, what="indexing across devices"))
    shown = recorded("05-indexing")
shown

# %% [markdown]
# The fix: put the index on the indexed tensor's device, `table[idx.to(table.device)]`. (A CPU
# index into a CUDA tensor works, but costs a host-to-device copy each time; keep hot indices on
# the GPU.)

# %% [markdown]
# ## 6. The exceptions: 0-dim CPU tensors and Python numbers
#
# Two things may join an operation on another device: a **Python number**, and a **0-dim CPU
# tensor** (shape `()`), which `TensorIterator` treats as a scalar (`allow_cpu_scalars`). A
# 1-element tensor of shape `(1,)` is *not* a scalar, and a 0-dim tensor on another device is
# not a CPU scalar:

# %%
print(m + 2)
print(m + torch.tensor(2.0))          # shape (): allowed
print(raises(lambda: m + torch.tensor([2.0]), RuntimeError, match="not on the expected device"))  # shape (1,)
raises(lambda: c + torch.tensor(2.0, device="meta"), RuntimeError, match="not on the expected device")

# %% [markdown]
# The same holds on CUDA: `g + torch.tensor(2.0)` works, `g + torch.tensor([2.0])` raises. Handy
# for a learning-rate tensor or a loss scale kept on the CPU; a trap when a "scalar" has shape
# `(1,)`.

# %% [markdown]
# ## 7. Optimizer state left on the old device
#
# Optimizers create their state (Adam's `exp_avg`, SGD's `momentum_buffer`) lazily, on the
# device of each parameter, at the first `step()`. `model.to("cuda")` moves the parameters (the
# same `Parameter` objects, so the optimizer still holds them) but not that state. The next step
# mixes devices. On CUDA, optimizers use their multi-tensor (`foreach`) path, which first groups
# each parameter with its state, checking devices: *Tensors of the same index must be on the same
# device and the same dtype except `step` tensors that can be CPU and float32/64...* You meet
# that message when the state sits on **another accelerator** (a model moved from `cuda:0` to
# `cuda:1`, say). The check lets float32 **CPU** tensors through (Adam's `step` counters live
# there), so state left on the CPU fails later, in the update: see the GPU cell below.
#
# On this machine, leave Adam's state on `meta` while the parameters stay on the CPU, and ask for
# the same `foreach` path: it is the same check, with the same message.

# %%
def adam_with_state_left_behind(foreach):
    net = nn.Linear(3, 2)
    opt = torch.optim.Adam(net.parameters(), foreach=foreach)
    net(torch.ones(1, 3)).sum().backward()
    opt.step()  # the state is created now, next to the parameters
    for state in opt.state.values():  # as if the parameters had moved without it
        state["exp_avg"], state["exp_avg_sq"] = state["exp_avg"].to("meta"), state["exp_avg_sq"].to("meta")
    return opt

raises(adam_with_state_left_behind(foreach=True).step, RuntimeError, match="Tensors of the same index must be on the same device")

# %% [markdown]
# With `foreach=False` (the default on the CPU) the per-tensor path fails instead, in meta's
# wording:

# %%
raises(adam_with_state_left_behind(foreach=False).step, RuntimeError, match="not on the expected device|same device")

# %% [markdown]
# The fix: move the model **before** creating the optimizer. If the state already exists (or you
# resume from a checkpoint), `optimizer.load_state_dict(...)` casts every state tensor to its
# parameter's device (Adam's `step` counter stays on the CPU by design). Here the optimizer's
# parameters live on `meta` and the loaded state comes from the CPU:

# %%
cpu_net, meta_net = nn.Linear(3, 2), nn.Linear(3, 2, device="meta")
cpu_opt = torch.optim.Adam(cpu_net.parameters())
cpu_net(torch.ones(1, 3)).sum().backward()
cpu_opt.step()
meta_opt = torch.optim.Adam(meta_net.parameters())
meta_opt.load_state_dict(cpu_opt.state_dict())
{name: str(value.device) for name, value in next(iter(meta_opt.state.values())).items()}

# %% [markdown]
# On a GPU, the real sequence: step on the CPU, `model.to("cuda")`, step again. The state is on
# the CPU, so the grouping check lets it through, and the update itself raises the ordinary
# cross-device error, *Expected all tensors to be on the same device ...*

# %%
if needs_cuda(1, what="the optimizer-state error", key="05-optimizer-state"):
    net = nn.Linear(3, 2)
    opt = torch.optim.Adam(net.parameters())
    net(torch.ones(1, 3)).sum().backward()
    opt.step()
    net.to("cuda")
    net(torch.ones(1, 3, device="cuda")).sum().backward()
    print(raises(opt.step, RuntimeError, match="Expected all tensors to be on the same device"))
    opt.load_state_dict(opt.state_dict())  # the fix: state follows the parameters
    opt.step()
    shown = {k: str(v.device) for k, v in next(iter(opt.state.values())).items()}
else:
    print(needs_cuda(1, what="the optimizer-state error"))
    shown = recorded("05-optimizer-state")
shown

# %% [markdown]
# ## 8. A GPU checkpoint on a machine without one
#
# `torch.save` records, next to each tensor's bytes, the device it came from (`"cuda:0"`), and
# `torch.load` puts it back there. `retag_checkpoint` (from `course_utils.placement`) writes the
# file a GPU machine would have written for the same tensors: only those device tags differ.

# %%
saved, from_gpu = io.BytesIO(), io.BytesIO()
torch.save(nn.Linear(3, 1).state_dict(), saved)
retag_checkpoint(saved, from_gpu, {"cpu": "cuda:0"})
checkpoint_locations(from_gpu)

# %% [markdown]
# Loading it without a GPU raises (on a machine *with* one, it loads onto `cuda:0`):

# %%
if not torch.cuda.is_available():
    shown = raises(lambda: torch.load(io.BytesIO(from_gpu.getvalue())), RuntimeError,
                   match="Attempting to deserialize object on a CUDA device")
else:
    shown = {k: str(v.device) for k, v in torch.load(io.BytesIO(from_gpu.getvalue())).items()}
shown

# %% [markdown]
# The fix is `map_location`: a device, a string, a dict from saved to wanted location, or a
# function. It works on every machine, whatever the file says.

# %%
state = torch.load(io.BytesIO(from_gpu.getvalue()), map_location="cpu")
{k: str(v.device) for k, v in state.items()}

# %% [markdown]
# ## 9. `cuda:1` hard-coded, and *Torch not compiled with CUDA enabled*
#
# A device index past the last visible GPU fails when CUDA first touches it: *CUDA error: invalid
# device ordinal* (raised as `torch.AcceleratorError`, a `RuntimeError`, since PyTorch 2.8).
# With one GPU that is `cuda:1`; `CUDA_VISIBLE_DEVICES` renumbers GPUs from 0, so an index that
# worked on the machine that wrote the code may not exist on yours.

# %%
if needs_cuda(1, what="an invalid device ordinal", key="05-invalid-ordinal"):
    missing = torch.cuda.device_count()
    shown = raises(lambda: torch.ones(1, device=f"cuda:{missing}"), RuntimeError, match="invalid device ordinal")
else:
    print(needs_cuda(1, what="an invalid device ordinal"))
    shown = recorded("05-invalid-ordinal")
shown

# %% [markdown]
# On a CPU-only **build** of PyTorch, any CUDA request fails earlier, in `torch.cuda._lazy_init`,
# with *Torch not compiled with CUDA enabled* (an `AssertionError`). On a CUDA build without a
# driver the message speaks of the NVIDIA driver instead.

# %%
if torch.version.cuda is None and torch.version.hip is None:
    shown = raises(lambda: torch.ones(1, device="cuda:1"), AssertionError, match="Torch not compiled with CUDA enabled")
elif not torch.cuda.is_available():
    shown = raises(lambda: torch.ones(1, device="cuda:1"), (RuntimeError, AssertionError))
else:
    shown = f"This PyTorch is built with CUDA {torch.version.cuda}, and CUDA is available."
shown

# %% [markdown]
# The fix for both: never hard-code an index. Choose a device once, from what the machine has,
# and pass it around.

# %%
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.ones(1, device=device).device

# %% [markdown]
# ## 10. `.numpy()` on a GPU tensor
#
# A NumPy array lives in host memory and `.numpy()` shares it without copying, so it only works on
# CPU tensors. The check (`torch/csrc/utils/tensor_numpy.cpp`) names the device, so `meta` shows
# the exact message a GPU tensor gets, with `cuda:0` in place of `meta`:

# %%
raises(lambda: m.numpy(), TypeError, match="can't convert meta device type tensor to numpy")

# %%
if needs_cuda(1, what="the CUDA .numpy() message", key="05-numpy"):
    shown = raises(lambda: torch.ones(2, device="cuda").numpy(), TypeError, match="can't convert cuda")
else:
    print(needs_cuda(1, what="the CUDA .numpy() message"))
    shown = recorded("05-numpy")
shown

# %% [markdown]
# The fix: copy to the host first, and detach if it requires grad: `t.detach().cpu().numpy()`.

# %%
c.detach().cpu().numpy()

# %% [markdown]
# ## 11. Where `meta` does **not** behave like CUDA
#
# `meta` is a stand-in, not a twin. Each row below mixes `meta` with the CPU in an operation that
# **raises on CUDA**, and `try_mixed` reports what actually came back, compared with the right
# answer computed on the CPU. Some raise as CUDA would. Others return a meta tensor (no values,
# no error). And some return a **CPU tensor of uninitialised memory**, or leave an in-place target
# unchanged: garbage that looks like a result. Never read values from a mixed `meta` operation.

# %%
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

# %% [markdown]
# Read the output row by row. On PyTorch 2.13 only the first three raise: `meta @ cpu` returns a
# meta tensor; `cpu @ meta`, `mm`, `F.linear` and indexing with a meta index return CPU tensors
# full of whatever was in memory; `add_` silently does nothing. (Other versions may differ; the
# output above is what yours does.) On CUDA every one of these rows raises. So a demo on `meta`
# proves an error only when it raises; when it does not, it proves nothing.

# %%
sum(row.raised for row in rows), len(rows)

# %% [markdown]
# ## 12. Find the culprits first; explain errors as they happen
#
# `find_device_mismatches(model, *inputs)` lists every parameter, buffer, plain tensor
# attribute and input (inside tuples, lists and dicts too) that is not on the model's device,
# before anything runs. The classic culprit is a tensor stored as a plain attribute: `model.to()`
# moves parameters and registered buffers, not attributes.

# %%
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

# %% [markdown]
# Fixing what it lists makes the forward pass run:

# %%
net.scale = net.scale.to("meta")
out = net(torch.ones(1, 3, device="meta"), {"bias": torch.zeros(2, device="meta")})
find_device_mismatches(net, torch.ones(1, 3, device="meta")).ok, out.device

# %% [markdown]
# Finally, `%load_ext course_utils.errors` makes the notebook explain device errors as they
# happen: the usual traceback, then the explanation under it. Other errors are shown unchanged.
# The next cell raises on purpose; `%xmode Minimal` keeps its traceback to the message itself.

# %%
# %load_ext course_utils.errors
# %xmode Minimal

# %% tags=["raises-exception"]
nn.Linear(3, 1, device="meta")(torch.rand(2, 3))

# %%
# %unload_ext course_utils.errors
# %xmode Context

# %% [markdown]
# ## Summary
#
# | Error (first words) | Why | Fix |
# |---|---|---|
# | *Expected all tensors to be on the same device* | operands on two devices | move them to one: `.to(other.device)` |
# | *indices should be either on cpu or on the same device* | CUDA index into a CPU tensor | `idx.to(table.device)` |
# | *Tensors of the same index must be on the same device* | optimizer state left on another accelerator (left on the CPU, it gives the first row's error) | move the model first; `load_state_dict` |
# | *Attempting to deserialize object on a CUDA device* | GPU checkpoint, no GPU | `torch.load(..., map_location="cpu")` |
# | *CUDA error: invalid device ordinal* | hard-coded `cuda:1` | choose the device from what exists |
# | *Torch not compiled with CUDA enabled* | CPU-only build of PyTorch | device-agnostic code, or a CUDA build |
# | *can't convert cuda:0 device type tensor to numpy* | NumPy needs host memory | `t.detach().cpu().numpy()` |
#
# A Python number or a 0-dim CPU tensor may join any operation. `meta` reproduces most of these
# errors on a laptop, but where it does not raise, its results are not results.
#
# **Exercises:** `exercises/05_error_clinic_exercises.ipynb` (name the fix from the message, move
# every input to the model's device, the safe device for an index, load any checkpoint anywhere).
# **Next:** `06_transfers_and_timing.ipynb`.
