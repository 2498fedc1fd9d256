# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 03 · Model placement: what `model.to(device)` moves
#
# You will be able to:
# - say which of a model's tensors `.to()` moves;
# - find where a model lives, and send its input there;
# - keep an optimizer working when its model moves;
# - load a GPU checkpoint anywhere with `map_location`.
#
# <!-- readme (make pairs writes README's rows from these lines)
# learn: `Module.to` moves parameters and buffers, not plain attributes; input follows the model; optimizer state;
# checkpoints with `map_location`
# covers: `Module.to` works in place; parameters and buffers move, plain tensor attributes do not
# (`register_buffer`); a module has no `.device` (`module_device`, `placement_report`); input follows the model;
# optimizers and their state across moves; checkpoints across machines with `map_location`
# -->
#
# <!-- lesson-needs:start, written by make pairs -->
# | Part | Runs for real with | GPU-only cells |
# |---|---|---|
# | 1 | 1 accelerator | in Deeper: 1 (1 accelerator) |
# | 2 | 1 accelerator | in Deeper: 1 (1 accelerator) |
# | 3 | 1 accelerator | 1 (1 accelerator) |
# | 4 | 1 accelerator | in Deeper: 2 (1 accelerator) |
# | 5 | 2 GPUs | in Deeper: 1 (1 GPU) and 1 (2 GPUs) |
#
# 5 cells run on any accelerator, else meta. Without a GPU, each GPU-only cell prints SKIPPED, says what a GPU shows, then a real GPU's output from a public report, not run here (1 of 2 cells), then the folded PyTorch source.
# <!-- lesson-needs:end -->
#
# Without a GPU the second device is `meta` (shapes, no data). "Deeper" sections are optional.

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
import tempfile
from pathlib import Path

import torch
from torch import nn

from course_utils.checks import check
from course_utils.claims import raises
from course_utils.checkpoints import checkpoint_locations, retag_checkpoint
from course_utils.devices import pick_device
from course_utils.gates import needs_accelerator, needs_cuda
from course_utils.placement import module_device, placement_report
# Short tracebacks: frames inside torch's own code are hidden from errors; %tb shows the full one.
# %load_ext course_utils.tracebacks

device = pick_device()  # lesson 01's idiom: decided once, carried everywhere below
torch.__version__

# %% [markdown]
# ## 1. `model.to` moves the model itself
#
# `Module.to` changes the module in place and returns it. `Tensor.to` returns a new tensor and
# leaves the original where it was. Here `meta` (shapes, no data) stands in for a GPU; where it
# behaves differently, the lesson says so.

# %%
model, t = nn.Linear(3, 2), torch.ones(2)
(model.to("meta") is model, model.weight.device), (t.to("meta") is t, t.device)

# %% [markdown] tags=["deeper"]
# ### Deeper: `.cuda()`, `.cpu()` and dtype moves

# %% [markdown] tags=["deeper"]
# `model.cuda()` and `model.cpu()` are `model.to(...)` for those devices (`.cuda()` without an
# index means the current CUDA device, notebook 04), so `model.to(device)` on its own line works and
# `model = model.to(device)` is harmless. A dtype change is a move in the same sense: the module
# changes in place.

# %% tags=["deeper"]
gpu = needs_accelerator(device, what="Module.to(device) in place", key="03-module-cuda")
net = nn.Linear(3, 2)
print(f"net.to({str(gpu.device)!r}) is net:", net.to(gpu.device) is net, "| weight on", net.weight.device)
if gpu:  # meta holds no values to copy back
    print("net.cpu() is net:", net.cpu() is net, "| weight on", net.weight.device)
display(gpu)

# %% tags=["deeper"]
as_double = nn.Linear(3, 2)
as_double.to(torch.float64) is as_double, as_double.weight.dtype

# %% [markdown]
# ## 2. Parameters and buffers move; plain tensor attributes do not
#
# `.to()` moves what the module registered: parameters and buffers. A plain tensor attribute
# (`self.mean = torch.tensor(...)`) stays behind: the model works on the CPU, fails on the GPU.

# %%
class Standardize(nn.Module):
    """Standardize with fixed statistics, then a linear layer. Buggy: see __init__."""

    def __init__(self, mean, std):
        super().__init__()
        self.linear = nn.Linear(3, 3)
        self.mean = torch.tensor(mean)  # plain tensor attributes: .to() will not move them
        self.std = torch.tensor(std)

    def forward(self, x):
        return self.linear((x - self.mean) / self.std)

buggy = Standardize([0.5, 1.0, 2.0], [1.0, 2.0, 4.0]).to("meta")
buggy.linear.weight.device, buggy.mean.device

# %% [markdown]
# The forward pass mixes devices and raises. Read the last line: it names both devices (a GPU
# words it differently: Deeper below).

# %% tags=["raises-exception"]
buggy(torch.ones(2, 3, device="meta"))

# %% [markdown]
# The fix is `register_buffer`: the tensor becomes module state, moves with `.to()`, and is
# saved by `state_dict()`.

# %%
class StandardizeFixed(nn.Module):
    def __init__(self, mean, std):
        super().__init__()
        self.linear = nn.Linear(3, 3)
        self.register_buffer("mean", torch.tensor(mean))
        self.register_buffer("std", torch.tensor(std))

    def forward(self, x):
        return self.linear((x - self.mean) / self.std)

fixed = StandardizeFixed([0.5, 1.0, 2.0], [1.0, 2.0, 4.0]).to("meta")
fixed.mean.device, fixed(torch.ones(2, 3, device="meta")).shape, list(fixed.state_dict())

# %% tags=["try-it"]
# Try it: give `layer` a buffer named `scale` holding torch.ones(3), so that it moves with the
# layer; then move `layer` to "meta" and bind what `.to` returns to `moved`. (Two lines.)
layer = nn.Linear(3, 3)
moved = ...
check("03.a")

# %% [markdown]
# `placement_report(model)` does that inspection for every tensor, and flags plain attributes.

# %%
placement_report(buggy)

# %% [markdown] tags=["deeper"]
# ### Deeper: the GPU message, silent dtype bugs, `persistent=False`

# %% [markdown] tags=["deeper"]
# On an accelerator, the buggy model after `.to(device)` fails with *Expected all tensors to be on
# the same device, but found at least two devices, cuda:0 and cpu!* (`mps:0` on a Mac).

# %% tags=["deeper"]
if gpu := needs_accelerator(device, what="the plain-attribute bug on an accelerator", key="03-plain-attribute"):
    on_gpu = Standardize([0.5, 1.0, 2.0], [1.0, 2.0, 4.0]).to(gpu.device)
    print(raises(lambda: on_gpu(torch.ones(2, 3, device=gpu.device)), RuntimeError,
                 match="Expected all tensors to be on the same device"))
else:
    display(gpu)

# %% [markdown] tags=["deeper"]
# A dtype change leaves plain attributes behind too, but silently: `mean` stays float32 in a
# float64 model, and type promotion hides it. And `state_dict()`, what a checkpoint saves, does
# not have them.

# %% tags=["deeper"]
double_buggy = Standardize([0.5, 1.0, 2.0], [1.0, 2.0, 4.0]).to(torch.float64)
double_buggy.linear.weight.dtype, double_buggy.mean.dtype, list(double_buggy.state_dict())

# %% [markdown] tags=["deeper"]
# With `register_buffer(name, tensor, persistent=False)` the buffer still moves but is not saved:
# right for something derived, which the constructor can recompute.

# %% tags=["deeper"]
derived = nn.Module()
derived.register_buffer("table", torch.arange(3.0), persistent=False)
derived.to("meta").table.device, list(derived.state_dict())

# %% [markdown] tags=["deeper"]
# `register_buffer` refuses a name that is already a plain attribute: to convert one on an
# existing module, `del` it first (exercise 03.1 does this for a whole model).

# %% tags=["deeper"]
half_fixed = Standardize([0.5, 1.0, 2.0], [1.0, 2.0, 4.0])
raises(lambda: half_fixed.register_buffer("mean", half_fixed.mean), KeyError, match="already exists")

# %% [markdown]
# ## 3. A model has no `.device`; its input goes to it
#
# A model's tensors could be on several devices, so `nn.Module` has no `.device`: ask a parameter
# instead. PyTorch never moves the input for you: send it to the model's device, and the output
# is there too.

# %%
meta_model = nn.Linear(3, 2).to("meta")
x = torch.ones(1, 3)
where = next(meta_model.parameters()).device
hasattr(meta_model, "device"), where, meta_model(x.to(where)).device

# %% [markdown]
# Forgetting it is the most common device error. On `meta`:

# %% tags=["raises-exception"]
meta_model(x)

# %% [markdown]
# On CUDA, for `nn.Linear`: *Expected all tensors to be on the same device, but got mat1 is on
# cpu ...*; on MPS: *Tensor for argument input is on cpu but expected on mps*.

# %%
if gpu := needs_accelerator(device, what="the model-on-accelerator, input-on-CPU error", key="03-model-input"):
    model_on_device = nn.Linear(3, 2).to(gpu.device)
    print(raises(lambda: model_on_device(torch.ones(1, 3)), RuntimeError,
                 match="Expected all tensors to be on the same device|Tensor for argument input is on cpu but expected on mps"))
else:
    display(gpu)

# %% tags=["try-it"]
# Try it: finish `run` so that it works for any model, wherever it lives: send `x` to the
# device of the model's parameters, and return the model's output for it.
def run(model, x):
    # YOUR CODE HERE
    raise NotImplementedError()

check("03.b")

# %% [markdown] tags=["deeper"]
# ### Deeper: `module_device`, and why `next(model.parameters()).device` is only an idiom

# %% [markdown] tags=["deeper"]
# The course's `module_device(model)` checks every parameter and buffer, and refuses to guess for a
# split model.

# %% tags=["deeper"]
split = nn.Sequential(nn.Linear(3, 3), nn.Linear(3, 3).to("meta"))
module_device(meta_model), raises(lambda: module_device(split), ValueError)

# %% [markdown] tags=["deeper"]
# The idiom answers for the first parameter only: it raises `StopIteration` for a module without
# parameters, and reports one device for a model spread over two.

# %% tags=["deeper"]
raises(lambda: next(nn.ReLU().parameters()), StopIteration), next(split.parameters()).device

# %% [markdown] tags=["deeper"]
# A module with no parameters or buffers (`nn.ReLU`) has no device: it runs wherever its input
# is. `module_device` says so rather than guess, unless you give it a default.

# %% tags=["deeper"]
raises(lambda: module_device(nn.ReLU()), ValueError), module_device(nn.ReLU(), default="cpu")

# %% [markdown] tags=["deeper"]
# `placement_report` shows the whole picture: the split model is mixed. (Libraries built on
# PyTorch often add a `.device` property to their models; it usually reports one tensor's device,
# like the idiom above.) Older releases word the GPU error above *... but found at least two
# devices, cuda:0 and cpu!*; the ending *(when checking argument in method wrapper_CUDA_addmm)*
# names the operation that checked.

# %% tags=["deeper"]
placement_report(split)

# %% [markdown]
# ## 4. Build the optimizer after moving the model
#
# An optimizer holds the `Parameter` objects it was given. Moving a model between the CPU and a
# GPU, or to another dtype, keeps those objects and swaps their data, so an optimizer built
# before the move still updates the model. Here a dtype change; a Deeper cell shows `.cuda()`.
# **Caveat, `meta` only:** a move to `meta` makes new `Parameter` objects (Deeper below).

# %%
model = nn.Linear(3, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
weight_before = model.weight
model.to(torch.float64)
weight_before is model.weight, opt.param_groups[0]["params"][0] is model.weight

# %% [markdown]
# What stays behind is the optimizer's **state**. Adam makes its running averages at the first
# `step()`, next to each parameter; move the model after that (here to float64) and the next step
# fails:

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
# Adam's update `exp_avg.lerp_(grad, ...)` raised: the gradient (`end`) is float64 (`double`) now,
# the average made before the move still float32 (`float`). After `model.cuda()` the average stays
# on the CPU instead, and Adam's update raises *Expected all tensors to be on the same device*.
# So build the optimizer after moving the model; `load_state_dict` moves and casts existing state
# to each parameter's device and dtype:

# %%
model, opt = adam_after_one_step()
model.to(torch.float64)
opt.load_state_dict(opt.state_dict())
model(torch.randn(4, 3, dtype=torch.float64)).sum().backward()
opt.step()
opt.state[model.weight]["exp_avg"].dtype

# %% [markdown] tags=["deeper"]
# ### Deeper: which moves keep the `Parameter` objects, and Adam's state on a GPU

# %% [markdown] tags=["deeper"]
# When a module moves to another kind of dense tensor (CPU, CUDA, MPS and XPU tensors are of one
# kind; a dtype change stays within it), `Module._apply` keeps each `Parameter` object and swaps
# its data (`param.data = ...`; `torch.__future__.set_overwrite_module_params_on_conversion(True)`
# opts out, in 2.13's `Module._apply`). So an optimizer built before the move still holds the model's
# parameters: across a dtype change, and across `.to(device)` to an accelerator. A meta tensor is of
# another kind, so a move to `meta` makes **new** objects: there an optimizer built before the move
# holds tensors the model no longer uses, a trap you meet only on `meta`.

# %% tags=["deeper"]
to_meta = nn.Linear(3, 2)
sgd = torch.optim.SGD(to_meta.parameters(), lr=0.1)
to_meta.to("meta")
sgd.param_groups[0]["params"][0] is to_meta.weight, sgd.param_groups[0]["params"][0].device

# %% tags=["deeper"]
if gpu := needs_accelerator(device, what="the optimizer built before model.to(device)", key="03-optimizer-before-cuda"):
    net = nn.Linear(3, 2)
    sgd = torch.optim.SGD(net.parameters(), lr=0.1)
    net.to(gpu.device)  # CUDA, MPS, XPU: dense tensors like the CPU's, so the Parameter objects stay
    print("the optimizer holds the model's weight:", sgd.param_groups[0]["params"][0] is net.weight,
          "| on", sgd.param_groups[0]["params"][0].device)
else:
    display(gpu)  # on meta the answer is False: the cell above

# %% [markdown] tags=["deeper"]
# Adam creates its state **lazily, at the first `step()`**, next to each parameter (`zeros_like`),
# so state that does not exist yet cannot be left behind. `step` itself is a float32 counter kept
# on the CPU on purpose (unless the optimizer is `capturable` or `fused`).

# %% tags=["deeper"]
lazy = nn.Linear(3, 2)
adam = torch.optim.Adam(lazy.parameters())
lazy.to(torch.float64)  # before the first step
lazy(torch.randn(4, 3, dtype=torch.float64)).sum().backward()
adam.step()
{name: (s.device, s.dtype) for name, s in adam.state[lazy.weight].items()}

# %% [markdown] tags=["deeper"]
# On an accelerator the same order (step on the CPU, then `model.to(device)`) leaves the averages
# on the CPU, and the next step raises the cross-device error of notebook 05, *Expected all
# tensors to be on the same device ...*, from inside Adam's update (MPS may word it *Placeholder
# storage has not been allocated on MPS device!*). (Adam's multi-tensor path checks devices first,
# but lets float32 CPU tensors through, since its `step` counters live there: notebook 05, Deeper
# section "optimizer state left on the old device".)
# `Optimizer.load_state_dict` leaves `step` as it was, and works the same whether the state comes
# from a file or from `state_dict()` a moment ago.

# %% tags=["deeper"]
if gpu := needs_accelerator(device, what="Adam state left on the CPU", key="03-adam-state"):
    net, adam = adam_after_one_step()
    net.to(gpu.device)
    net(torch.randn(4, 3, device=gpu.device)).sum().backward()
    print("exp_avg on", adam.state[net.weight]["exp_avg"].device)
    print(raises(adam.step, RuntimeError,
                 match="Expected all tensors to be on the same device|Placeholder storage has not been allocated on MPS"))
else:
    display(gpu)

# %% [markdown]
# ## 5. Checkpoints remember devices: `map_location`
#
# `torch.save` stores each tensor with its device; `torch.load` puts it back there, so a file from
# a GPU this machine lacks fails. `retag_checkpoint` rewrites a file's device tags to show this
# anywhere: as if saved one GPU past this machine's last.

# %%
scratch = tempfile.TemporaryDirectory(prefix="course-03-")  # removed at the end of this section, or when the kernel exits
workdir = Path(scratch.name)
net = nn.Linear(3, 2)
torch.save(net.state_dict(), workdir / "cpu.pt")
missing_gpu = f"cuda:{torch.cuda.device_count()}"  # cuda:0 without a GPU, cuda:1 with one ...
retag_checkpoint(workdir / "cpu.pt", workdir / "elsewhere.pt", {"cpu": missing_gpu})
checkpoint_locations(workdir / "elsewhere.pt")

# %% tags=["raises-exception"]
torch.load(workdir / "elsewhere.pt", weights_only=True)

# %% [markdown]
# `map_location` says where the tensors go instead: a device (string or `torch.device`), a dict
# from saved tag to new tag, or a function.

# %%
state = torch.load(workdir / "elsewhere.pt", map_location="cpu", weights_only=True)
remapped = torch.load(workdir / "elsewhere.pt", map_location={missing_gpu: "cpu"}, weights_only=True)
state["weight"].device, remapped["weight"].device, torch.equal(state["weight"], net.weight)

# %% [markdown]
# `load_state_dict` copies the values into the model's own tensors, wherever they are: load
# into a model already on its device.

# %%
target = nn.Linear(3, 2).to(torch.float64)
target.load_state_dict(state)
target.weight.dtype, torch.equal(target.weight.float(), state["weight"])

# %% [markdown] tags=["deeper"]
# ### Deeper: device tags, every `map_location` form, `cuda:1` files, `assign=True`

# %% [markdown] tags=["deeper"]
# `torch.save` writes each tensor's bytes (copied to the host) and, next to them, a tag such as
# `"cpu"` or `"cuda:0"`. `torch.load` passes every tag to `map_location`; a **callable**
# `map_location` receives each storage (already read into CPU memory) with its tag, and returns the
# storage to use.

# %% tags=["deeper"]
tags = []
def record(storage, location):
    tags.append(location)
    return storage  # keep it in CPU memory, where torch.load read it

loaded = torch.load(workdir / "cpu.pt", map_location=record, weights_only=True)
tags, {name: tensor.device for name, tensor in loaded.items()}

# %% [markdown] tags=["deeper"]
# A checkpoint saved on a GPU holds the same bytes with the tag `"cuda:0"`. On a GPU machine the
# next cell saves one for real. A machine without a GPU cannot, so there `retag_checkpoint`
# rewrites the tags of our file, and nothing else: the result holds the same tensors under the
# tags a GPU machine writes, and those tags are all `torch.load` reads to decide where each tensor
# goes. `checkpoint_locations` reads the tags back.

# %% tags=["deeper"]
if torch.cuda.is_available():
    torch.save(nn.Linear(3, 2).cuda().state_dict(), workdir / "gpu.pt")
else:
    retag_checkpoint(workdir / "cpu.pt", workdir / "gpu.pt", {"cpu": "cuda:0"})
checkpoint_locations(workdir / "gpu.pt")

# %% [markdown] tags=["deeper"]
# Without `map_location`, on a GPU machine that file loads onto `cuda:0`. On a machine without
# CUDA it raises, and the message says what to do.

# %% tags=["deeper"]
if gpu := needs_cuda(1, what="loading a GPU checkpoint as saved", key="03-load-gpu-checkpoint"):
    print(torch.load(workdir / "gpu.pt", weights_only=True)["weight"].device)
else:
    display(gpu)
    print(raises(lambda: torch.load(workdir / "gpu.pt", weights_only=True), RuntimeError,
                 match="Attempting to deserialize object on a CUDA device"))

# %% [markdown] tags=["deeper"]
# The four forms of `map_location`, each loading the GPU checkpoint onto the CPU, on any machine.

# %% tags=["deeper"]
ways = {
    "a string": "cpu",
    "a torch.device": torch.device("cpu"),
    "a dict": {"cuda:0": "cpu"},
    "a callable": lambda storage, location: storage,
}
{how: torch.load(workdir / "gpu.pt", map_location=where, weights_only=True)["weight"].device
 for how, where in ways.items()}

# %% [markdown] tags=["deeper"]
# A checkpoint saved on `cuda:1` of a two-GPU machine fails on a machine with one GPU, too: there
# the message reads *Attempting to deserialize object on CUDA device 1 but
# torch.cuda.device_count() is 1*. The dict form remaps just that tag to a device this machine has.

# %% tags=["deeper"]
retag_checkpoint(workdir / "cpu.pt", workdir / "gpu1.pt", {"cpu": "cuda:1"})
if gpu := needs_cuda(2, what="loading a cuda:1 checkpoint as saved", key="03-load-cuda1-checkpoint"):
    print("as saved:", torch.load(workdir / "gpu1.pt", weights_only=True)["weight"].device)
else:
    display(gpu)
    print(raises(lambda: torch.load(workdir / "gpu1.pt", weights_only=True), RuntimeError,
                 match="Attempting to deserialize object on"))
torch.load(workdir / "gpu1.pt", map_location={"cuda:1": str(device)}, weights_only=True)["weight"].device

# %% [markdown] tags=["deeper"]
# And back: a checkpoint saved on the CPU loads onto an accelerator with `map_location=device`
# (`"cuda"`, `"mps"`; without one, `"meta"` shows the same real move). Since PyTorch 2.6 `torch.load` defaults to
# `weights_only=True`, which loads tensors, dicts, lists and numbers but no arbitrary Python
# objects; passing it explicitly says so.

# %% tags=["deeper"]
onto = torch.device("meta") if device.type == "cpu" else device  # the lesson's device; meta stands in for the CPU's
torch.load(workdir / "cpu.pt", map_location=onto, weights_only=True)["weight"].device

# %% [markdown] tags=["deeper"]
# `load_state_dict` copies in the model's dtype too (on a GPU, a model on `cuda:0` stays there).
# With `assign=True` the model takes the checkpoint's tensors instead of copying into its own, so
# the device follows the checkpoint. Together with building the model on `meta` (no memory spent
# on weights about to be replaced), that is how large models are loaded.

# %% tags=["deeper"]
with torch.device("meta"):
    skeleton = nn.Linear(3, 2)
skeleton.load_state_dict(state, assign=True)
skeleton.weight.device, torch.equal(skeleton.weight, state["weight"])

# %% tags=["deeper"]
scratch.cleanup()  # the section's checkpoint files: removed now, not left for a kernel that may be killed

# %% [markdown]
# ## Summary
#
# - `model.to(...)` moves the model in place; `Tensor.to` returns a new tensor.
# - Parameters and buffers move; a plain tensor attribute stays behind. Use `register_buffer`.
# - A model has no `.device`: ask a parameter, and move the input there.
# - Build the optimizer after moving the model; `opt.load_state_dict(opt.state_dict())` moves
#   stale state.
# - `map_location` decides where a checkpoint's tensors go; `load_state_dict` copies into the
#   model where it is.
#
# <!-- next-links:start, written by make pairs -->
# **Exercises:** [03_model_placement_exercises.ipynb](03_model_placement_exercises.ipynb).
# **Next:** lesson 04, [04_current_device.ipynb](04_current_device.ipynb): The current CUDA device, and the blocks that change it.
# <!-- next-links:end -->
