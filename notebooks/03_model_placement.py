# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 03 · Model placement: where a model's tensors live, and what moves with it
#
# A model is a tree of modules holding tensors: parameters, buffers, and sometimes plain tensor
# attributes that should have been buffers. In this notebook you will learn **what
# `model.to(device)` moves and what it leaves behind, how to find where a model lives, why the
# input must follow the model, what happens to an optimizer and its state when the model moves,
# and how to load a checkpoint saved on a GPU onto a machine without one (and back).**
#
# | Part | Needs |
# |---|---|
# | 1. `Module.to` moves in place | CPU only; 1 GPU for `.cuda()` |
# | 2. What moves: parameters and buffers, not plain attributes | CPU only; 1 GPU for the CUDA error text |
# | 3. Where does a model live? | CPU only |
# | 4. The input goes where the model is | CPU only; 1 GPU for the CUDA error text |
# | 5. Optimizers and their state | CPU only; 1 GPU for the real CUDA case |
# | 6. Checkpoints across machines: `map_location` | CPU only; 1 GPU to load onto it; 2 GPUs to load a `cuda:1` file as saved |
#
# Every cell runs to the end on a laptop with no GPU. There the second device is `meta` (tensors
# with a shape and dtype but no data) or a second dtype: what "moves" and what is "left behind"
# is the same for a dtype change, a move to `meta` and a move to a GPU. GPU-only cells say what
# they skipped and what a GPU shows.

# %% [markdown] tags=["course-header"]
# **Run it on a free GPU:** [Open in Colab](https://colab.research.google.com/github/pytorch-devices-course/pytorch-devices-course/blob/main/notebooks/03_model_placement.ipynb) (one GPU: Runtime > Change runtime type > T4 GPU)
# · [Open in Kaggle](https://kaggle.com/kernels/welcome?src=https://github.com/pytorch-devices-course/pytorch-devices-course/blob/main/notebooks/03_model_placement.ipynb) (two GPUs: Settings > Accelerator > GPU T4 x2).
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
import shutil
import tempfile
from pathlib import Path

import torch
from torch import nn

from course_utils.claims import raises
from course_utils.devices import needs_cuda
from course_utils.evidence import recorded
from course_utils.placement import checkpoint_locations, module_device, placement_report, retag_checkpoint

torch.__version__

# %% [markdown]
# ## 1. `Module.to` moves in place and returns the module
#
# `model.to(...)` changes the module itself and returns **the same module**, so `model.to(device)`
# on its own line works (and `model = model.to(device)` is harmless).

# %%
model = nn.Linear(3, 2)
returned = model.to(torch.float64)
returned is model, model.weight.dtype

# %% [markdown]
# `Tensor.to` is the opposite: it returns a new tensor and leaves the original as it was
# (notebook 02). The same line that works for a model does nothing for a tensor.

# %%
t = torch.ones(2)
t64 = t.to(torch.float64)
t64 is t, t.dtype

# %% [markdown]
# A move to another device behaves the same way: here to `meta`.

# %%
model = nn.Linear(3, 2)
model.to("meta") is model, model.weight.device

# %% [markdown]
# `model.cuda()` and `model.cpu()` are `model.to(...)` for those devices; `.cuda()` without an
# index means the current CUDA device.

# %%
if needs_cuda(1, what="Module.cuda() in place", key="03-module-cuda"):
    net = nn.Linear(3, 2)
    print("net.cuda() is net:", net.cuda() is net, "| weight on", net.weight.device)
    print("net.cpu() is net:", net.cpu() is net, "| weight on", net.weight.device)
else:
    print(needs_cuda(1, what="Module.cuda() in place"))
    print(recorded("03-module-cuda"))

# %% [markdown]
# ## 2. What moves: parameters and buffers, not plain tensor attributes
#
# `model.to(...)` moves what the module has **registered**: parameters (`nn.Parameter`, learned)
# and buffers (`register_buffer`, not learned: running statistics, masks, constants). A tensor
# stored as a plain attribute, `self.mean = torch.tensor(...)`, is invisible to it. This is the
# classic bug: the model works on the CPU and fails on the GPU.

# %%
class Standardize(nn.Module):
    """Standardize the input with fixed statistics, then a linear layer. Buggy: see __init__."""

    def __init__(self, mean, std):
        super().__init__()
        self.linear = nn.Linear(3, 3)
        self.mean = torch.tensor(mean)  # plain tensor attributes: .to() will not move them
        self.std = torch.tensor(std)

    def forward(self, x):
        return self.linear((x - self.mean) / self.std)

# %% [markdown]
# Move it and look: `placement_report` lists every tensor of a module, its kind and its device,
# and flags mixed placement and plain tensor attributes. The parameters went to `meta`;
# `mean` and `std` stayed on the CPU.

# %%
buggy = Standardize([0.5, 1.0, 2.0], [1.0, 2.0, 4.0]).to("meta")
placement_report(buggy)

# %% [markdown]
# The forward pass then mixes devices, and fails at `x - self.mean`.

# %%
raises(lambda: buggy(torch.ones(2, 3, device="meta")), RuntimeError, match="device")

# %% [markdown]
# On a GPU, the same model after `.cuda()` fails with *Expected all tensors to be on the same
# device, but found at least two devices, cuda:0 and cpu!*

# %%
if needs_cuda(1, what="the plain-attribute bug on a GPU", key="03-plain-attribute"):
    on_gpu = Standardize([0.5, 1.0, 2.0], [1.0, 2.0, 4.0]).cuda()
    print(raises(lambda: on_gpu(torch.ones(2, 3, device="cuda")), RuntimeError,
                 match="Expected all tensors to be on the same device"))
else:
    print(needs_cuda(1, what="the plain-attribute bug on a GPU"))
    print(recorded("03-plain-attribute"))

# %% [markdown]
# A dtype change leaves them behind too, but silently: `mean` stays float32 in a float64 model,
# and type promotion hides it. And `state_dict()`, what a checkpoint saves, does not have them.

# %%
as_double = Standardize([0.5, 1.0, 2.0], [1.0, 2.0, 4.0]).to(torch.float64)
as_double.linear.weight.dtype, as_double.mean.dtype, list(as_double.state_dict())

# %% [markdown]
# The fix is `register_buffer(name, tensor)`: the tensor becomes part of the module's state, moves
# with `.to()`, and is saved in `state_dict()`. With `persistent=False` it still moves but is
# not saved: right for something derived, which the constructor can recompute.

# %%
class StandardizeFixed(nn.Module):
    def __init__(self, mean, std):
        super().__init__()
        self.linear = nn.Linear(3, 3)
        self.register_buffer("mean", torch.tensor(mean))
        self.register_buffer("std", torch.tensor(std), persistent=False)

    def forward(self, x):
        return self.linear((x - self.mean) / self.std)

fixed = StandardizeFixed([0.5, 1.0, 2.0], [1.0, 2.0, 4.0]).to("meta")
placement_report(fixed)

# %% [markdown]
# Now the forward pass runs on `meta` (computing shapes only), and `state_dict()` holds `mean` but
# not the non-persistent `std`.

# %%
fixed(torch.ones(2, 3, device="meta")).shape, list(fixed.state_dict())

# %% [markdown]
# `register_buffer` refuses a name that is already a plain attribute: to convert one on an
# existing module, `del` it first (exercise 03.1 does this for a whole model).

# %%
half_fixed = Standardize([0.5, 1.0, 2.0], [1.0, 2.0, 4.0])
raises(lambda: half_fixed.register_buffer("mean", half_fixed.mean), KeyError, match="already exists")

# %% [markdown]
# ## 3. Where does a model live?
#
# A tensor has `.device`; an `nn.Module` does not, because its tensors may live on several devices.

# %%
raises(lambda: nn.Linear(3, 2).device, AttributeError, match="has no attribute 'device'")

# %% [markdown]
# The common idiom `next(model.parameters()).device` answers for the first parameter only. It
# raises `StopIteration` for a module without parameters, and it reports one device for a model
# spread over two.

# %%
split = nn.Sequential(nn.Linear(3, 3), nn.Linear(3, 3).to("meta"))
raises(lambda: next(nn.ReLU().parameters()), StopIteration), next(split.parameters()).device

# %% [markdown]
# `module_device(model)` looks at every parameter and buffer: it returns the one device, or says
# which tensors are where.

# %%
module_device(nn.Linear(3, 2)), module_device(fixed), raises(lambda: module_device(split), ValueError)

# %% [markdown]
# A module with no parameters or buffers (`nn.ReLU`) has no device: it runs wherever its input
# is. `module_device` says so rather than guess, unless you give it a default.

# %%
raises(lambda: module_device(nn.ReLU()), ValueError), module_device(nn.ReLU(), default="cpu")

# %% [markdown]
# `placement_report` shows the whole picture: the split model is mixed. (Libraries built on
# PyTorch often add a `.device` property to their models; it usually reports one tensor's device,
# like the idiom above.)

# %%
placement_report(split)

# %% [markdown]
# ## 4. The input goes where the model is
#
# A model's forward pass combines its parameters with the input, so both must be on the same
# device. PyTorch never moves the input for you. Here a model on `meta` meets a CPU input.

# %%
meta_model = nn.Linear(3, 2).to("meta")
raises(lambda: meta_model(torch.ones(1, 3)), RuntimeError, match="not on the expected device")

# %% [markdown]
# On a GPU, the model on `cuda:0` and the input on the CPU give the most common device error of
# all, for `nn.Linear` worded *Expected all tensors to be on the same device, but got mat1 is on
# cpu, different from other tensors on cuda:0 (when checking argument in method wrapper_CUDA_addmm)*
# (older releases: *... but found at least two devices, cuda:0 and cpu!*).

# %%
if needs_cuda(1, what="the model-on-GPU, input-on-CPU error", key="03-model-input"):
    gpu_model = nn.Linear(3, 2).cuda()
    print(raises(lambda: gpu_model(torch.ones(1, 3)), RuntimeError,
                 match="Expected all tensors to be on the same device"))
else:
    print(needs_cuda(1, what="the model-on-GPU, input-on-CPU error"))
    print(recorded("03-model-input"))

# %% [markdown]
# The fix: send the input to the model's device. The output lives there too.

# %%
x = torch.ones(1, 3)
meta_model(x.to(module_device(meta_model))).device

# %% [markdown]
# ## 5. Optimizers and their state
#
# An optimizer keeps references to the parameter objects it was given, and state for each
# parameter (Adam's running averages, SGD's momentum). When a module moves to another kind of
# dense tensor (CPU, CUDA, MPS and XPU tensors are of one kind; a dtype change stays within it),
# PyTorch keeps each `Parameter` object and swaps its data. So an optimizer built before the move
# still holds the model's parameters: here across a dtype change, and on a GPU across `.cuda()`.

# %%
model = nn.Linear(3, 2)
before = list(model.parameters())
opt = torch.optim.SGD(model.parameters(), lr=0.1)
model.to(torch.float64)
[p is q for p, q in zip(before, model.parameters())], opt.param_groups[0]["params"][0] is model.weight

# %% [markdown]
# A meta tensor is of another kind, so moving to `meta` creates **new** `Parameter` objects, and
# the optimizer is left holding the old CPU ones: its steps would update tensors the model no
# longer uses. Building the optimizer **after** moving the model is right in every case.

# %%
model = nn.Linear(3, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
model.to("meta")
opt.param_groups[0]["params"][0] is model.weight, opt.param_groups[0]["params"][0].device

# %%
if needs_cuda(1, what="the optimizer built before model.cuda()", key="03-optimizer-before-cuda"):
    net = nn.Linear(3, 2)
    sgd = torch.optim.SGD(net.parameters(), lr=0.1)
    net.cuda()
    print("the optimizer holds the model's weight:", sgd.param_groups[0]["params"][0] is net.weight,
          "| on", sgd.param_groups[0]["params"][0].device)
else:
    print(needs_cuda(1, what="the optimizer built before model.cuda()"))
    print(recorded("03-optimizer-before-cuda"))

# %% [markdown]
# Adam creates its state **lazily, at the first `step()`**, next to each parameter (`zeros_like`),
# so state that does not exist yet cannot be left behind. `step` itself is a float32 counter kept
# on the CPU on purpose (unless the optimizer is `capturable` or `fused`).

# %%
model = nn.Linear(3, 2)
opt = torch.optim.Adam(model.parameters())
model.to(torch.float64)  # before the first step
model(torch.randn(4, 3, dtype=torch.float64)).sum().backward()
opt.step()
{name: (s.device, s.dtype) for name, s in opt.state[model.weight].items()}

# %% [markdown]
# State created **before** the move stays where it was made. Here the model becomes float64 after
# one step; Adam's averages stay float32, and the next step fails.

# %%
def adam_after_one_step():
    """A small model and an Adam optimizer that has taken one step (so its state exists)."""
    model = nn.Linear(3, 2)
    opt = torch.optim.Adam(model.parameters())
    model(torch.randn(4, 3)).sum().backward()
    opt.step()
    opt.zero_grad()
    return model, opt

model, opt = adam_after_one_step()
model.to(torch.float64)
model(torch.randn(4, 3, dtype=torch.float64)).sum().backward()
opt.state[model.weight]["exp_avg"].dtype, raises(opt.step, RuntimeError, match="dtype")

# %% [markdown]
# On a GPU the same order (step on the CPU, then `model.cuda()`) leaves the averages on the CPU,
# and the next step raises the cross-device error of notebook 05, *Expected all tensors to be on
# the same device ...*, from inside Adam's update. (Adam's multi-tensor path checks devices first,
# but lets float32 CPU tensors through, since its `step` counters live there: notebook 05, part 7.)

# %%
if needs_cuda(1, what="Adam state left on the CPU", key="03-adam-state"):
    net, adam = adam_after_one_step()
    net.cuda()
    net(torch.randn(4, 3, device="cuda")).sum().backward()
    print("exp_avg on", adam.state[net.weight]["exp_avg"].device)
    print(raises(adam.step, RuntimeError, match="Expected all tensors to be on the same device"))
else:
    print(needs_cuda(1, what="Adam state left on the CPU"))
    print(recorded("03-adam-state"))

# %% [markdown]
# The fix, when you must move after stepping (resuming training, say): reload the optimizer's own
# state. `Optimizer.load_state_dict` moves every state tensor to its parameter's device and casts
# floating ones to its dtype (leaving `step` as it was), the same way whether the state comes from
# a file or from `state_dict()` a moment ago.

# %%
model, opt = adam_after_one_step()
model.to(torch.float64)
opt.load_state_dict(opt.state_dict())
model(torch.randn(4, 3, dtype=torch.float64)).sum().backward()
opt.step()
{name: (s.device, s.dtype) for name, s in opt.state[model.weight].items()}

# %% [markdown]
# ## 6. Checkpoints across machines
#
# `torch.save` writes each tensor's bytes (copied to the host) and, next to them, the device the
# tensor was on: a tag such as `"cpu"` or `"cuda:0"`. `torch.load` passes every tag to
# `map_location`; a **callable** `map_location` receives each storage (already read into CPU
# memory) with its tag, and returns the storage to use.

# %%
workdir = Path(tempfile.mkdtemp(prefix="course-03-"))
net = nn.Linear(3, 2)
torch.save(net.state_dict(), workdir / "cpu.pt")

tags = []
def record(storage, location):
    tags.append(location)
    return storage  # keep it in CPU memory, where torch.load read it

state = torch.load(workdir / "cpu.pt", map_location=record, weights_only=True)
tags, {name: tensor.device for name, tensor in state.items()}

# %% [markdown]
# A checkpoint saved on a GPU holds the same bytes with the tag `"cuda:0"`. On a GPU machine the
# next cell saves one for real. A machine without a GPU cannot, so there `retag_checkpoint`
# rewrites the tags of our file, and nothing else: the result holds the same tensors under the
# tags a GPU machine writes, and those tags are all `torch.load` reads to decide where each tensor
# goes. `checkpoint_locations` reads the tags back.

# %%
if torch.cuda.is_available():
    torch.save(nn.Linear(3, 2).cuda().state_dict(), workdir / "gpu.pt")
else:
    retag_checkpoint(workdir / "cpu.pt", workdir / "gpu.pt", {"cpu": "cuda:0"})
checkpoint_locations(workdir / "gpu.pt")

# %% [markdown]
# Without `map_location`, `torch.load` puts each tensor back on the device it was saved from. On a
# GPU machine that works. On a machine without CUDA it raises, and the message says what to do.

# %%
if needs_cuda(1, what="loading a GPU checkpoint as saved", key="03-load-gpu-checkpoint"):
    print(torch.load(workdir / "gpu.pt", weights_only=True)["weight"].device)
else:
    print(needs_cuda(1, what="loading a GPU checkpoint as saved"))
    print(raises(lambda: torch.load(workdir / "gpu.pt", weights_only=True), RuntimeError,
                 match="Attempting to deserialize object on a CUDA device"))
    print(recorded("03-load-gpu-checkpoint"))

# %% [markdown]
# `map_location` takes four forms: a device string, a `torch.device`, a dict from saved tag to new
# tag, or a callable. Each of these loads the GPU checkpoint onto the CPU, on any machine.

# %%
ways = {
    "a string": "cpu",
    "a torch.device": torch.device("cpu"),
    "a dict": {"cuda:0": "cpu"},
    "a callable": lambda storage, location: storage,
}
{how: torch.load(workdir / "gpu.pt", map_location=where, weights_only=True)["weight"].device
 for how, where in ways.items()}

# %% [markdown]
# A checkpoint saved on `cuda:1` of a two-GPU machine fails on a machine with one GPU, too: on
# one GPU the message reads *Attempting to deserialize object on CUDA device 1 but
# torch.cuda.device_count() is 1*. The dict form remaps just that tag to a device this machine has.

# %%
retag_checkpoint(workdir / "cpu.pt", workdir / "gpu1.pt", {"cpu": "cuda:1"})
here = "cuda:0" if torch.cuda.is_available() else "cpu"
if needs_cuda(2, what="loading a cuda:1 checkpoint as saved", key="03-load-cuda1-checkpoint"):
    print("as saved:", torch.load(workdir / "gpu1.pt", weights_only=True)["weight"].device)
else:
    print(needs_cuda(2, what="loading a cuda:1 checkpoint as saved"))
    print(raises(lambda: torch.load(workdir / "gpu1.pt", weights_only=True), RuntimeError,
                 match="Attempting to deserialize object on"))
    print(recorded("03-load-cuda1-checkpoint"))
torch.load(workdir / "gpu1.pt", map_location={"cuda:1": here}, weights_only=True)["weight"].device

# %% [markdown]
# And back: a checkpoint saved on the CPU loads onto a GPU with `map_location="cuda"` (here,
# without a GPU, `"meta"` shows the same real move). Since PyTorch 2.6 `torch.load` defaults to
# `weights_only=True`, which loads tensors, dicts, lists and numbers but no arbitrary Python
# objects; passing it explicitly says so.

# %%
onto = "cuda" if torch.cuda.is_available() else "meta"
torch.load(workdir / "cpu.pt", map_location=onto, weights_only=True)["weight"].device

# %% [markdown]
# Often you load into a model that is already where it should be. `load_state_dict` **copies** the
# checkpoint's values into the model's existing tensors, wherever they are and in their dtype:
# here a float64 model stays float64 (on a GPU, a model on `cuda:0` stays there).

# %%
target = nn.Linear(3, 2).to(torch.float64)
target.load_state_dict(state)
target.weight.dtype, target.weight.device, torch.equal(target.weight.float(), state["weight"])

# %% [markdown]
# With `assign=True` the model takes the checkpoint's tensors instead of copying into its own, so
# the device follows the checkpoint. Together with building the model on `meta` (no memory spent
# on weights about to be replaced), that is how large models are loaded.

# %%
with torch.device("meta"):
    skeleton = nn.Linear(3, 2)
skeleton.load_state_dict(state, assign=True)
skeleton.weight.device, torch.equal(skeleton.weight, state["weight"])

# %%
shutil.rmtree(workdir)  # the checkpoints of this part
workdir.exists()

# %% [markdown]
# ## Summary
#
# - `Module.to`/`.cuda()`/`.cpu()` move the module in place and return it; `Tensor.to` returns a
#   new tensor.
# - `.to()` moves parameters and registered buffers; a plain tensor attribute stays behind (and is
#   not saved). Use `register_buffer` (`persistent=False` for what need not be saved).
# - A module has no `.device`: `module_device(model)` checks every parameter and buffer;
#   `placement_report(model)` shows each tensor and flags mixed placement.
# - Move the input to the model's device; nothing moves it for you.
# - Build the optimizer after moving the model. Adam's state appears at the first step, next to
#   each parameter; state made before a move stays behind until `optimizer.load_state_dict`
#   moves and casts it.
# - A checkpoint remembers each tensor's device; `map_location` (string, device, dict or
#   callable) decides where it goes. `load_state_dict` copies into the model where it is;
#   `assign=True` takes the checkpoint's tensors.
#
# **Exercises:** `exercises/03_model_placement_exercises.ipynb` (fix the tensor attributes of a
# model, where a model lives, load a checkpoint onto any device, move optimizer state to its
# parameters). **Next:** `04`, the current CUDA device and how it is scoped.
