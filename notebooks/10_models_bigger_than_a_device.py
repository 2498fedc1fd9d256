# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 10 · Models bigger than one device
#
# You will be able to:
# - build a model on `meta` without using memory, then make it real with `to_empty` or a checkpoint;
# - load a checkpoint into it with `load_state_dict(..., assign=True)`, and say what that changes;
# - split a model across two devices, moving the activations between them;
# - say where a split model's gradients and optimizer state live, and what a `device_map` does.
#
# <!-- readme (make pairs writes README's rows from these lines)
# learn: building a model on `meta` (no memory), `to_empty`, `load_state_dict(..., assign=True)` and `mmap=True`;
# splitting a model over two devices by hand; where a split model's optimizer state lives; what a `device_map`
# does, and Hugging Face's with accelerate (`infer_auto_device_map`, `max_memory`, offload to the CPU and disk,
# `hf_device_map`, why `.to()` is refused)
# covers: a model on `meta` (no memory), `to_empty`, `load_state_dict(..., assign=True)` and `mmap=True`; a model
# split over two devices by hand, where its gradients and optimizer state live; what a `device_map` does; Deeper:
# accelerate's own (`init_empty_weights`, `infer_auto_device_map` with `max_memory`, `dispatch_model` offloading
# to the CPU and disk, `hf_device_map`, *You can't move a model that has some modules offloaded to cpu or disk*)
# -->
#
# <!-- lesson-needs:start, written by make pairs -->
# | Part | Runs for real with | GPU-only cells |
# |---|---|---|
# | 1 | a CPU | none |
# | 2 | a CPU | none |
# | 3 | a CPU | none |
# | 4 | 2 GPUs | 1 (2 GPUs) |
# | 5 | a CPU | none |
# | 6 | a CPU | none |
# | Summary | 1 GPU | in Deeper: 1 (1 GPU) |
#
# Without a GPU, each GPU-only cell prints SKIPPED, says what a GPU shows, then folds away the PyTorch source behind it.
# <!-- lesson-needs:end -->

# %% [markdown] tags=["course-header"]
# **Run it on a free GPU:** [Open in Colab](https://colab.research.google.com/github/pytorch-devices-course/pytorch-devices-course/blob/main/notebooks/10_models_bigger_than_a_device.ipynb) (one GPU: Runtime > Change runtime type > T4 GPU)
# · [Open in Kaggle](https://kaggle.com/kernels/welcome?src=https://github.com/pytorch-devices-course/pytorch-devices-course/blob/main/notebooks/10_models_bigger_than_a_device.ipynb) (two GPUs: Settings > Accelerator > GPU T4 x2).
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

from course_utils.bigmodels import dispatch, module_bytes, still_on_meta
from course_utils.checks import check
from course_utils.claims import raises
from course_utils.devices import pick_device
from course_utils.errors import explain_device_error
from course_utils.gates import needs_cuda, needs_package
# Short tracebacks: frames inside torch's own code are hidden from errors; %tb shows the full one.
# %load_ext course_utils.tracebacks

device = pick_device()  # lesson 01's idiom: where the model will become real
torch.__version__

# %% [markdown]
# ## 1. A model with no memory
#
# A tensor on `meta` has a shape and a dtype but no storage. A model built there allocates
# nothing, however big.

# %%
with torch.device("meta"):
    big = nn.Linear(50_000, 50_000)
big.weight.device, big.weight.shape, f"{big.weight.nbytes / 2**30:.1f} GiB on paper"

# %% [markdown]
# For one layer, `device=` on the constructor does the same.

# %%
nn.Linear(3, 2, device="meta").weight

# %% tags=["try-it"]
# Try it: make `layer`, an nn.Linear(4096, 4096) with bfloat16 parameters that allocates no memory.
layer = ...
check("10.a")

# %% [markdown]
# A meta tensor has no values, so anything that needs a number raises.

# %% tags=["raises-exception"]
big.weight.sum().item()

# %% [markdown]
# ## 2. Making it real: `to_empty`, then initialise
#
# `.to("cpu")` refuses: there is nothing to copy.

# %% tags=["raises-exception"]
with torch.device("meta"):
    net = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
net.to("cpu")

# %% [markdown]
# `to_empty(device=device)` allocates on the device without copying. The values are whatever was
# in that memory: different on every run.

# %%
net.to_empty(device=device)
net[0].bias

# %% [markdown]
# So initialise next: every layer's `reset_parameters()` gives it its constructor's values.

# %%
for module in net.modules():
    if hasattr(module, "reset_parameters"):
        module.reset_parameters()
net[0].bias, still_on_meta(net)

# %% [markdown]
# ## 3. Loading a checkpoint into a meta model
#
# Usually the values come from a checkpoint. `load_state_dict` copies into the model's tensors,
# and a meta tensor has no memory to copy into: PyTorch warns that this is a no-op, and the
# model stays on meta.

# %%
trained = nn.Linear(3, 2)
checkpoint = trained.state_dict()
with torch.device("meta"):
    model = nn.Linear(3, 2)
model.load_state_dict(checkpoint)
model.weight.device

# %% [markdown]
# With `assign=True` the model takes the checkpoint's tensors themselves: no copy, and their
# device and dtype come with them.

# %%
model.load_state_dict(checkpoint, assign=True)
model.weight.device, model.weight.data_ptr() == checkpoint["weight"].data_ptr()

# %% [markdown]
# The parameters are new objects, so an optimizer built before the load still holds the old
# meta ones. Build the optimizer after loading.

# %%
with torch.device("meta"):
    fresh = nn.Linear(3, 2)
too_early = torch.optim.SGD(fresh.parameters(), lr=0.1)
fresh.load_state_dict(checkpoint, assign=True)
too_early.param_groups[0]["params"][0].device, torch.optim.SGD(fresh.parameters(), lr=0.1).param_groups[0]["params"][0].device

# %% tags=["try-it"]
# Try it: complete `restore` so the meta `model` takes the checkpoint `state` as it is (dtype and device too).
def restore(model, state):
    raise NotImplementedError()  # replace this line with yours, and return the model

check("10.b")

# %% [markdown]
# ## 4. Splitting a model across two devices
#
# A model too big for one device can keep its first layers on one and the rest on another.
# Its forward then moves the activations itself.

# %%
class TwoStage(nn.Module):
    def __init__(self, dev1, dev2):
        super().__init__()
        self.dev1, self.dev2 = torch.device(dev1), torch.device(dev2)
        self.stage1 = nn.Sequential(nn.Linear(8, 16), nn.ReLU()).to(self.dev1)
        self.stage2 = nn.Linear(16, 2).to(self.dev2)

    def forward(self, x):
        h = self.stage1(x.to(self.dev1))
        return self.stage2(h.to(self.dev2))  # the activation moves to the second device

# %% [markdown]
# Here the second device is `meta`: it computes shapes, not values. On `cpu` + `cpu` the same
# code computes values.

# %%
split = TwoStage("cpu", "meta")
print(split(torch.randn(5, 8)))
print(TwoStage("cpu", "cpu")(torch.randn(5, 8)))

# %% [markdown]
# Forget the move and the second stage gets an input on the wrong device. `meta` words the error
# differently from CUDA (CUDA's wording is quoted after this cell), and a few mixed `cpu`/`meta`
# operations, a matmul among them, give wrong values where CUDA raises (lesson 05, Deeper).

# %% tags=["raises-exception"]
class Forgetful(TwoStage):
    def forward(self, x):
        return self.stage2(self.stage1(x.to(self.dev1)))

Forgetful("cpu", "meta")(torch.randn(5, 8))

# %% [markdown]
# On two GPUs it runs for real, backward pass included; the error reads *Expected all tensors
# to be on the same device*.

# %%
if gpu := needs_cuda(2, what="the two-GPU split model", key="10-two-gpu-split"):
    gpus = TwoStage("cuda:0", "cuda:1")
    adam = torch.optim.Adam(gpus.parameters())
    out = gpus(torch.randn(5, 8))
    out.sum().backward()
    adam.step()
    print("output on", out.device)
    for name, p in gpus.named_parameters():
        print(f"{name}: grad on {p.grad.device}, Adam state", {k: str(v.device) for k, v in adam.state[p].items()})
    print(raises(lambda: Forgetful("cuda:0", "cuda:1")(torch.randn(5, 8)), RuntimeError,
                 match="Expected all tensors to be on the same device"))
    mapped_chain = nn.Sequential(nn.Linear(8, 8), nn.Linear(8, 2))
    print(dispatch(mapped_chain, {"0": "cuda:0", "1": "cuda:1"}))
    print("dispatched output on", mapped_chain(torch.randn(5, 8)).device)
else:
    display(gpu)

# %% [markdown]
# ## 5. Gradients and optimizer state stay with their parameter
#
# Each gradient lives on its parameter's device, and the optimizer creates its state next to
# it, except Adam's `step` counter, a CPU tensor. A backward pass cannot send values out of
# `meta`, so here the gradients are set by hand, each on its parameter's device.

# %%
adam = torch.optim.Adam(split.parameters())
for p in split.parameters():
    p.grad = torch.ones_like(p)
adam.step()
{name: {k: v.device.type for k, v in adam.state[p].items()} for name, p in split.named_parameters()}

# %% [markdown]
# ## 6. A device map
#
# `device_map="auto"` (accelerate, transformers) does the split for you: a dict from layer name
# to device, filled in order up to each device's memory budget, and a hook on each layer that
# moves its inputs there. A forward pre-hook runs before a layer's `forward` and may replace
# its inputs.

# %%
chain = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 2))
chain[2].to("meta")
hook = chain[2].register_forward_pre_hook(lambda module, args: tuple(a.to("meta") for a in args))
print(chain(torch.randn(5, 8)))
hook.remove()

# %% [markdown]
# The map itself is a plain dict, written here by hand: six 4-MiB layers, two on a first device
# with 10 MiB free, four on the next. Exercise 10.2 writes the planner that fills it from budgets.

# %%
layers = nn.Sequential(*(nn.Linear(1024, 1024) for _ in range(6)))  # 4 MiB each
device_map = {"0": "cpu", "1": "cpu", "2": "meta", "3": "meta", "4": "meta", "5": "meta"}
device_map

# %% [markdown]
# `dispatch(model, device_map)` places each layer and adds the hook. Here: `cpu` and `meta`.

# %%
placed = dispatch(layers, device_map)
print(placed)
print("output:", layers(torch.randn(2, 1024)).shape)
placed.remove()

# %% [markdown]
# ## Summary
#
# - `meta` models cost no memory; `to_empty` allocates (uninitialised), `reset_parameters` or a checkpoint fills it.
# - `load_state_dict(..., assign=True)` keeps the checkpoint's tensors; without it a meta model stays meta. Build the optimizer afterwards.
# - A split model moves its activations; gradients and optimizer state stay with each parameter.
# - A device map is a dict plus hooks that move inputs. Hugging Face's `device_map` is accelerate's: the last Deeper part runs it.
#
# <!-- next-links:start, written by make pairs -->
# **Exercises:** [10_models_bigger_than_a_device_exercises.ipynb](10_models_bigger_than_a_device_exercises.ipynb).
# **Next:** lesson 11, [11_device_in_the_rest_of_your_code.ipynb](11_device_in_the_rest_of_your_code.ipynb): The device in the rest of your code.
# <!-- next-links:end -->

# %% [markdown] tags=["deeper"]
# ### Deeper: what `to_empty` and `assign=True` do inside

# %% [markdown] tags=["deeper"]
# `to_empty` applies `torch.empty_like(t, device=device)` to every parameter and buffer: new,
# uninitialised storage of the same shape and dtype. Its source, from the installed PyTorch:

# %% tags=["deeper"]
import inspect

print(inspect.getsource(nn.Module.to_empty).split('"""')[-1].strip())

# %% [markdown] tags=["deeper"]
# `load_state_dict` without `assign` copies with `param.copy_(input_param)` inside
# `Module._load_from_state_dict`; into a meta parameter that copy does nothing, hence the warning
# of part 3 (the same text in the sources of PyTorch 2.7.1 and 2.13). With `assign=True` it sets the checkpoint's
# tensor on the module, wrapped in a new `nn.Parameter` that keeps the module's `requires_grad`:
# a frozen layer stays frozen.

# %% tags=["deeper"]
with torch.device("meta"):
    frozen = nn.Linear(3, 2)
frozen.weight.requires_grad_(False)
frozen.load_state_dict(checkpoint, assign=True)
frozen.weight.requires_grad, frozen.bias.requires_grad, type(frozen.weight).__name__

# %% [markdown] tags=["deeper"]
# The dtype comes with the tensor too: a float64 checkpoint makes a float64 model.

# %% tags=["deeper"]
with torch.device("meta"):
    model64 = nn.Linear(3, 2)
model64.load_state_dict({k: v.double() for k, v in checkpoint.items()}, assign=True)
model64.weight.dtype

# %% [markdown] tags=["deeper"]
# ### Deeper: a checkpoint bigger than memory

# %% [markdown] tags=["deeper"]
# For a checkpoint bigger than memory, `torch.load(..., mmap=True)` maps the file instead of
# reading it. With `assign=True`, the parameters are that mapped file, read from disk as they
# are used.

# %% tags=["deeper"]
folder = Path(tempfile.mkdtemp(prefix="course-10-"))
torch.save(trained.state_dict(), folder / "model.pt")
mapped = torch.load(folder / "model.pt", mmap=True, weights_only=True)
with torch.device("meta"):
    from_disk = nn.Linear(3, 2)
from_disk.load_state_dict(mapped, assign=True)
print(torch.equal(from_disk.weight, trained.weight))
del from_disk, mapped  # Windows keeps a mapped file open while a tensor uses it
shutil.rmtree(folder, ignore_errors=True)

# %% [markdown] tags=["deeper"]
# ### Deeper: non-persistent buffers are not in the checkpoint

# %% [markdown] tags=["deeper"]
# A buffer registered with `persistent=False` (a table computed in `__init__`, such as rotary
# position frequencies) is not saved. Load a meta model with `assign=True` and it stays on
# meta; use `to_empty` and it holds garbage. Recompute such buffers yourself after loading.

# %% tags=["deeper"]
class WithTable(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)
        self.register_buffer("table", torch.arange(4.0), persistent=False)

with torch.device("meta"):
    lazy = WithTable()
lazy.load_state_dict(WithTable().state_dict(), assign=True)
still_on_meta(lazy)

# %% [markdown] tags=["deeper"]
# ### Deeper: why the backward pass stops at `meta`

# %% [markdown] tags=["deeper"]
# The forward copied an activation from `cpu` to `meta`; the backward pass must copy its
# gradient back, out of `meta`, which holds no data. That is why part 5 set gradients by hand.

# %% tags=["deeper"]
raises(lambda: split(torch.randn(5, 8)).sum().backward(), NotImplementedError, match="Cannot copy out of meta tensor")

# %% [markdown] tags=["deeper"]
# ### Deeper: Adam keeps `step` on the CPU on purpose

# %% [markdown] tags=["deeper"]
# Unless `capturable=True` or `fused=True`, Adam creates `step` as a CPU tensor. The reason is
# in the comment of the installed `torch/optim/adam.py`, on the line after "Deliberately":
# kernel launches are costly on CUDA and XLA, so the counter is updated on the host rather
# than by a kernel (the same two lines in PyTorch 2.7.1, 2.13.0 and 2.14.1):

# %% tags=["deeper"]
lines = [line.strip() for line in inspect.getsource(torch.optim.Adam._init_group).splitlines()]
start = next(i for i, line in enumerate(lines) if "Deliberately" in line)
lines[start:start + 2]

# %% [markdown] tags=["deeper"]
# ### Deeper: what accelerate does differently

# %% [markdown] tags=["deeper"]
# accelerate's `dispatch_model` attaches an `AlignDevicesHook` to each module of the map ("A
# generic `ModelHook` that ensures inputs and model weights are on the same device for the
# forward pass of the associated module, potentially offloading the weights after the forward
# pass", `accelerate/hooks.py`). It does not use `register_forward_pre_hook`: it replaces the
# module's `forward` with a wrapper and keeps the original as `_old_forward`. With offloading,
# a layer's weights stay on the CPU or on disk and are moved in just before its forward. The
# course's `dispatch` keeps only the idea, with PyTorch's own hook API.

# %% [markdown] tags=["deeper"]
# ### Deeper: Hugging Face's `device_map`, with accelerate's own functions

# %% [markdown] tags=["deeper"]
# `from_pretrained(..., device_map="auto")` in transformers calls accelerate: `init_empty_weights`
# builds the model without memory (on meta, as in part 1), `infer_auto_device_map` fills the map from
# `max_memory`, and `dispatch_model` places each layer and hooks it. Here are the same three calls on a
# small model built here, nothing downloaded. accelerate is optional (`make lab` installs it, or
# `pip install "course-utils[hf]"`): without it each cell says what it skipped.

# %% tags=["deeper"]
def six_layers():
    return nn.Sequential(*(nn.Linear(256, 256) for _ in range(6)))  # 263,168 bytes a layer in float32

if hf := needs_package("accelerate", extra="hf", what="accelerate's device map"):
    from accelerate import dispatch_model, infer_auto_device_map, init_empty_weights

    with init_empty_weights():
        empty = six_layers()
    print(empty[0].weight.device, module_bytes(empty[0]), "bytes a layer")
display(hf)

# %% [markdown] tags=["deeper"]
# `max_memory` is a budget per device, in bytes or as `"600KB"`: integers are GPUs (`0` is `cuda:0`),
# then `"cpu"`, then `"disk"`. The map comes from shapes alone, so no GPU is needed to plan for one:
# without one, accelerate warns that device 0 is not there, and plans anyway. 600 KB holds two layers,
# yet GPU 0 gets one: accelerate keeps room on GPU 0, and on the CPU, for the largest layer still to
# come, which the hooks bring in from the CPU or disk (its docstring: "there is always room left on
# GPU 0 to put back the layer offloaded on CPU that has the largest size").

# %% tags=["deeper"]
if hf:
    print(dict(infer_auto_device_map(empty, max_memory={0: "600KB", "cpu": "800KB", "disk": "10MB"})))

# %% [markdown] tags=["deeper"]
# So a budget of exactly three layers for the CPU keeps two there, and the rest go to disk: `"disk"`
# is always the last device, named in `max_memory` or not. Exercise 10.4 computes the budget that
# keeps the layers you want off the disk.

# %% tags=["deeper"]
if hf:
    print(dict(infer_auto_device_map(empty, max_memory={"cpu": 3 * module_bytes(empty[0])})))

# %% [markdown] tags=["deeper"]
# `dispatch_model` takes such a map. It writes the disk layers to `offload_dir` (one file per tensor),
# leaves their parameters on meta, loads them at each forward, and records the map as the model's
# `hf_device_map`. The output is the same as before.

# %% tags=["deeper"]
if hf:
    offloaded = six_layers()
    x = torch.randn(2, 256)
    before = offloaded(x)
    offload = Path(tempfile.mkdtemp(prefix="course-10-offload-"))
    three_and_three = {"0": "cpu", "1": "cpu", "2": "cpu", "3": "disk", "4": "disk", "5": "disk"}
    dispatch_model(offloaded, three_and_three, offload_dir=offload)
    print("hf_device_map:", offloaded.hf_device_map)
    print("layer 3's weight on", offloaded[3].weight.device, "| in", offload.name, ":", sorted(p.name for p in offload.iterdir())[:3], "...")
    print("same output:", torch.equal(offloaded(x), before))

# %% [markdown] tags=["deeper"]
# Now the mistake from the forums: `model.to(...)` on a dispatched model. accelerate replaces the
# model's `.to` with a wrapper that warns ("You shouldn't move a model that is dispatched using
# accelerate hooks.") and refuses when any layer is offloaded: here the disk layers; with a GPU, the CPU
# layers too, whose weights the hooks copy to the GPU at each forward. The explainer knows the message.

# %% tags=["deeper"]
if hf:
    refusal = raises(lambda: offloaded.to("cpu"), RuntimeError, match="offloaded to cpu or disk")
    print(refusal)
    display(explain_device_error(refusal.message))

# %% [markdown] tags=["deeper"]
# The fix is to leave the model alone. Its hooks move each layer's inputs to where that layer runs;
# give it inputs on its first layer's device (`hf_device_map`'s first entry; a transformers model also
# has `model.device`). Here the CPU.

# %% tags=["deeper"]
if hf:
    first = next(iter(offloaded.hf_device_map.values()))
    print(offloaded(x.to(first)).device)
    shutil.rmtree(offload, ignore_errors=True)

# %% [markdown] tags=["deeper"]
# With a GPU, GPU 0 runs every layer, and the layers mapped to `"cpu"` are offloaded as the disk ones
# were here: their weights wait in CPU memory and are copied in for each forward.

# %% tags=["deeper"]
if gpu := needs_cuda(1, what="accelerate's CPU offload with a GPU", key="10-accelerate-gpu-offload"):
    if hf:
        on_gpu = six_layers()
        dispatch_model(on_gpu, {"0": 0, "1": 0, "2": "cpu", "3": "cpu", "4": "cpu", "5": "cpu"})
        print("hf_device_map:", on_gpu.hf_device_map)
        print("layer 0 on", on_gpu[0].weight.device, "| layer 2 on", on_gpu[2].weight.device)
        print("output on", on_gpu(torch.randn(2, 256)).device, "| from a GPU input:", on_gpu(torch.randn(2, 256, device="cuda")).device)
        print(raises(lambda: on_gpu.to("cuda"), RuntimeError, match="offloaded to cpu or disk"))
    else:
        display(hf)
else:
    display(gpu)
