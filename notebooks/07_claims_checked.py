# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 07 · Claims checked: what two tutorials say, and what PyTorch does
#
# You will be able to:
#
# - test a tutorial's claim about devices by running it;
# - tell `device_of`, `torch.device` and `tensor.device` apart;
# - read the real errors of mixed devices.
#
# <!-- lesson-needs:start, written by make pairs -->
# | Part | Runs for real with | GPU-only cells |
# |---|---|---|
# | A | 2 GPUs | 5 (2 GPUs) |
# | B | 2 GPUs | 5 (1 GPU), 1 (2 GPUs) |
#
# Without a GPU, each GPU-only cell prints SKIPPED, says in words what a GPU shows, then folds away the PyTorch source behind it: none is recorded on a GPU yet.
# <!-- lesson-needs:end -->
#
# Each claim gets a verdict and a cell that proves it. `meta` stands in for a GPU where it raises as CUDA does.

# %% [markdown] tags=["course-header"]
# **Run it on a free GPU:** [Open in Colab](https://colab.research.google.com/github/pytorch-devices-course/pytorch-devices-course/blob/main/notebooks/07_claims_checked.ipynb) (one GPU: Runtime > Change runtime type > T4 GPU)
# · [Open in Kaggle](https://kaggle.com/kernels/welcome?src=https://github.com/pytorch-devices-course/pytorch-devices-course/blob/main/notebooks/07_claims_checked.ipynb) (two GPUs: Settings > Accelerator > GPU T4 x2).
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

# %% [markdown] tags=["deeper"]
# ### Deeper: where the claims come from
#
# This course was written after reading two tutorials found online (both in Japanese): the article
# 「CUDAプログラミングをレベルアップ！PyTorchのtorch.cuda.device_ofで効率的なデバイス切り替え」, on
# `torch.cuda.device_of` and its alternatives, and 「pytorch学習ノート(18):Use-GPu」, a Japanese
# translation of the "Use GPU" chapter of the d2l textbook (Dive into Deep Learning).
# Both are typical of what you will meet. This notebook takes **every claim and code example** in
# them, translated to English, runs it, and says what PyTorch really does, the correction where one
# is needed, and where the course teaches it.
#
# | Part | Needs |
# |---|---|
# | A. A tutorial on `torch.cuda.device_of` (claims A1 to A16) | CPU only; 1 or 2 GPUs for the CUDA halves |
# | B. A textbook chapter, "Use GPU" (claims B1 to B12) | CPU only; 1 or 2 GPUs for the CUDA halves |
# | Summary table | CPU only |
#
# Each claim is quoted, then proved or disproved by a cell that runs here. Where the proof needs
# a GPU, the cell runs it on a GPU and, on a machine without one, says what it skipped and what
# a GPU shows. Where a second device is enough, `meta` (tensors with a shape but no data) stands
# in for a GPU, and only where it raises exactly as CUDA does (notebook 05, part 11, lists where
# it does not).

# %%
import torch
from torch import nn

from course_utils.checks import check
from course_utils.claims import raises
from course_utils.devices import needs_cuda
from course_utils.evidence import recorded
from course_utils.errors import explain_device_error
from course_utils.scopes import run_scopes, trace_current_device

GPUS = torch.cuda.device_count() if torch.cuda.is_available() else 0
torch.__version__, GPUS

# %% [markdown]
# ## A. A tutorial on `torch.cuda.device_of`
#
# ### A1 · “`device_of(t)` tells a tensor's device.”
# **False**: it is a context manager. Ask the tensor: `t.device`.

# %% [markdown] tags=["deeper"]
# #### Deeper: A1 in full, "`device_of` tells which CUDA device a tensor is on; `device = torch.cuda.device_of(tensor)` gets it"
#
# **False.** `torch.cuda.device_of(obj)` returns a *context manager* object of type
# `torch.cuda.device_of`. It stores an index (`-1` for a CPU tensor) for its `with` block; it is
# not a device, and printing it shows an object address. To ask where a tensor is, read
# `tensor.device` (or `tensor.get_device()`, `-1` on the CPU). Taught in notebooks 02 and 04.

# %%
tensor = torch.randn(4, 3)
device = torch.cuda.device_of(tensor)
type(device), str(device)[:35], tensor.device, tensor.get_device()

# %% [markdown] tags=["deeper"]
# The tutorial prints `cuda:0` for this example. The tensor is made by `torch.randn(4, 3)`, on the
# CPU; nothing in the example puts it on a GPU, and `device_of` prints an object address.

# %%
f"Tensor が割り当てられている CUDA デバイス: {device}"

# %% [markdown]
# ### A2 · “`device_of` switches the current CUDA device.”
# **Only for CUDA objects, inside the block**; a no-op for CPU ones.

# %% [markdown] tags=["deeper"]
# #### Deeper: A2 in full, "`device_of` changes the current CUDA device to the object's device"
#
# **Only for objects on CUDA, and only inside the `with` block.** For a CPU tensor it is a no-op:
# its constructor is `idx = obj.get_device() if obj.is_cuda else -1`, and index `-1` switches
# nothing. Taught in notebook 04.

# %%
torch.cuda.device_of(tensor).idx  # the CUDA index it would switch to: -1 (none) for a CPU tensor

# %% [markdown] tags=["deeper"]
# The course's tracer shows the current CUDA device before, inside and after the block:

# %%
with trace_current_device() as t:
    with t.scope("device_of(cpu tensor)", torch.cuda.device_of(tensor)):
        pass
t

# %% [markdown] tags=["deeper"]
# On a GPU, for a CUDA tensor, it does switch, and restores on exit:

# %%
if needs_cuda(2, what="device_of switching to cuda:1", key="07-device-of-switch"):
    t1 = torch.randn(4, 3, device="cuda:1")
    shown = run_scopes([("device_of(t1)", torch.cuda.device_of(t1))]).cuda_devices
else:
    print(needs_cuda(2, what="device_of switching to cuda:1"))
    shown = recorded("07-device-of-switch")
shown

# %% [markdown]
# ### A3 · “The block runs on the object's device.”
# **Misleading**: an operation runs where its operands are.

# %% [markdown] tags=["deeper"]
# #### Deeper: A3 in full, "The code in the block runs on the device the object is on"
#
# **Misleading.** An operation runs on the device of its operands, whatever the current device.
# The current device only decides where *new* tensors without an explicit index go (`.cuda()`,
# `device="cuda"`) and which stream is used. Taught in notebook 04.

# %%
with torch.cuda.device_of(tensor):
    result = (tensor * 2).device
result

# %%
if needs_cuda(2, what="an operation inside device_of of another GPU", key="07-op-inside-device-of"):
    t0, t1 = torch.ones(2, device="cuda:0"), torch.ones(2, device="cuda:1")
    with torch.cuda.device_of(t1):
        shown = ((t0 * 2).device, torch.ones(1, device="cuda").device)
else:
    print(needs_cuda(2, what="an operation inside device_of of another GPU"))
    shown = recorded("07-op-inside-device-of")
shown

# %% [markdown]
# ### A4 · “`device_of` moves data for you.”
# **False**: it moves nothing; mixing devices still raises:

# %% [markdown] tags=["deeper"]
# #### Deeper: A4 in full, "`device_of` removes the need to write data transfers between devices, and moves data efficiently between GPUs"
#
# **False.** `device_of` moves no data, ever. Every tensor stays where it is, and mixing devices
# in one operation raises as it does outside the block. Moving data is `.to(device)`. Taught in
# notebooks 02 and 05.

# %% tags=["raises-exception"]
m = torch.ones(3, device="meta")
m + torch.ones(3)  # meta stands in for a GPU

# %% [markdown]
# That is the real traceback. From here on, `raises(...)` (from `course_utils.claims`) runs such a line and returns its message; it fails if PyTorch ever stops raising.

# %%
m = torch.ones(3, device="meta")
with torch.cuda.device_of(m):
    print(m.device, tensor.device)
    print(raises(lambda: m + torch.ones(3), RuntimeError, match="not on the expected device"))

# %%
if needs_cuda(2, what="mixing GPUs inside device_of", key="07-mixing-gpus"):
    with torch.cuda.device_of(t1):
        shown = raises(lambda: t0 + t1, RuntimeError, match="Expected all tensors to be on the same device")
else:
    print(needs_cuda(2, what="mixing GPUs inside device_of"))
    shown = recorded("07-mixing-gpus")
shown

# %% [markdown]
# **Try it:** make `where`, the device `m` lives on, the PyTorch way.

# %% tags=["try-it"]
# Try it: one line of PyTorch.
where = ...
check("07.a")

# %% [markdown]
# ### A5 · “Transfers are not necessarily automatic.”
# **Never automatic**, scalars aside.

# %% [markdown] tags=["deeper"]
# #### Deeper: A5 in full, "With several GPUs, data transfer between devices is not necessarily automatic"
#
# **Understated: it is never automatic.** No PyTorch operation copies an operand to another
# device for you (the one exception, a 0-dim CPU tensor or a Python number used as a scalar, is not
# a transfer). Taught in notebook 05, parts 2 and 6.

# %%
print(m + torch.tensor(2.0))  # a 0-dim CPU tensor joins as a scalar
raises(lambda: m + torch.tensor([2.0]), RuntimeError, match="not on the expected device")

# %% [markdown]
# ### A6 · “Error if the object is not on CUDA.”
# **False**: a no-op.

# %% [markdown] tags=["deeper"]
# #### Deeper: A6 in full, "If the object is not on a CUDA device, an error occurs"
#
# **False.** For a CPU tensor (or storage) `device_of` is documented as a no-op, and it is one,
# even on a machine without CUDA (this one, if it has no GPU). Taught in notebook 04.

# %%
with torch.cuda.device_of(tensor.untyped_storage()):
    inside = "no error"
inside, "this is a no-op" in torch.cuda.device_of.__doc__

# %% [markdown]
# ### A7 · “The previous device comes back after the block.”
# **True** (the tutorial's printout is not).

# %% [markdown] tags=["deeper"]
# #### Deeper: A7 in full, "The current CUDA device goes back to the original one on leaving the block"
#
# **True.** `__exit__` restores the device that was current when the block was entered. The
# tutorial's printout of that example is not: it shows `cuda:0` inside and `cpu` after.
# `torch.cuda.current_device()` returns an integer (`0`, never `"cuda:0"`), never `cpu`, and on a
# machine without CUDA it raises instead. Taught in notebooks 01 and 04.

# %%
if torch.cuda.is_available():
    with torch.cuda.device_of(tensor):
        inside = torch.cuda.current_device()
    shown = (inside, torch.cuda.current_device(), type(inside).__name__)
else:
    shown = raises(torch.cuda.current_device, (AssertionError, RuntimeError))
shown

# %% [markdown]
# ### A8 · “`t1.to(device_of(t2))` moves `t1`.”
# **False**: a `TypeError`. Write `t1.to(t2.device)`.

# %% [markdown] tags=["deeper"]
# #### Deeper: A8 in full, "`tensor1.to(torch.cuda.device_of(tensor2))` moves tensor1 to tensor2's GPU"
#
# **False.** `.to()` takes a device, a dtype or a tensor; a `device_of` object is none of them,
# so `.to()` raises a `TypeError` listing what it accepts, on any machine. The tutorial's printout
# (`cuda:1` for `device_of(tensor1)`) is an object address in reality. The right line is
# `tensor1.to(tensor2.device)`. Taught in notebook 02.

# %% tags=["raises-exception"]
torch.randn(4, 3).to(torch.cuda.device_of(torch.randn(4, 3, device="meta")))

# %%
tensor1, tensor2 = torch.randn(4, 3), torch.randn(4, 3, device="meta")
print(raises(lambda: tensor1.to(torch.cuda.device_of(tensor2)), TypeError, match="invalid combination of arguments"))
tensor1.to(tensor2.device).device

# %%
if needs_cuda(2, what="the tutorial's two-GPU transfer", key="07-two-gpu-transfer"):
    tensor1, tensor2 = torch.randn(4, 3).cuda(0), torch.randn(4, 3).cuda(1)
    print(raises(lambda: tensor1.to(torch.cuda.device_of(tensor2)), TypeError))
    shown = tensor1.to(tensor2.device).device
else:
    print(needs_cuda(2, what="the tutorial's two-GPU transfer"))
    shown = recorded("07-two-gpu-transfer")
shown

# %% [markdown]
# ### A9 · “`device_of(module)` works.”
# **False**: `AttributeError`; pass a parameter.

# %% [markdown] tags=["deeper"]
# #### Deeper: A9 in full, "`device_of` works with `Module` objects too: `torch.cuda.device_of(module)` gives cuda:0"
#
# **False.** The constructor reads `obj.is_cuda`, which a module does not have, so it raises
# `AttributeError` (on a GPU machine too: the line runs before any CUDA call). For a model, pass
# one of its tensors: `torch.cuda.device_of(next(module.parameters()))`. Taught in notebooks 03
# and 04.

# %%
class MyModule(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(4, 3)

module = MyModule()
raises(lambda: torch.cuda.device_of(module), AttributeError, match="has no attribute 'is_cuda'")

# %% [markdown]
# ### A10 · `device_count`, `set_device`, `current_device`, `is_available`
# **True**; `set_device` is discouraged.

# %% [markdown] tags=["deeper"]
# #### Deeper: A10 in full, The related functions: "`device_count()` counts the CUDA devices, `set_device(d)` sets the current device, `current_device()` returns it, `is_available()` says whether CUDA can be used"
#
# **True**, with two footnotes: `set_device` is documented as discouraged (prefer the scoped
# `torch.cuda.device` or `CUDA_VISIBLE_DEVICES`), and only `is_available()` and
# `device_count()` are safe to call on a machine without CUDA. Taught in notebooks 01 and 04.

# %%
torch.cuda.is_available(), torch.cuda.device_count(), "discouraged" in torch.cuda.set_device.__doc__

# %% [markdown]
# ### A11 · “`tensor.is_cuda` checks for CUDA.”
# **True**.

# %% [markdown] tags=["deeper"]
# #### Deeper: A11 in full, "`tensor.is_cuda` is a simple way to check whether a tensor is on a CUDA device"
#
# **True.** The tutorial's example runs as written. (`is_cuda` is `False` for `meta` and `mps`
# tensors too: to know *where* a tensor is, read `tensor.device`.) Taught in notebook 02.

# %%
if tensor.is_cuda:
    print(f"Tensor が割り当てられている CUDA デバイス: {tensor.device}")
else:
    print("Tensor は CPU に割り当てられています。")
tensor.is_cuda, m.is_cuda, m.device

# %% [markdown]
# ### A12 · “`current_device()` in a `with`.”
# **False**: it returns an int.

# %% [markdown] tags=["deeper"]
# #### Deeper: A12 in full, "`torch.cuda.current_device()` can be used in a `with` statement"
#
# **False.** It returns an `int`, which is not a context manager. The tutorial's own example puts
# `device_of` in the `with` and calls `current_device()` inside, which is fine. Taught in
# notebook 04.

# %%
def use_in_with(obj):
    with obj:
        pass

index = torch.cuda.current_device() if torch.cuda.is_available() else 0  # what a GPU machine returns
raises(lambda: use_in_with(index), (TypeError, AttributeError), match="context manager|__enter__")

# %% [markdown]
# ### A13 · “`.cuda()`, then `module.device`.”
# **Half true**: a module has no `.device`.

# %% [markdown] tags=["deeper"]
# #### Deeper: A13 in full, "`.cuda()` puts a tensor or a module on a CUDA device explicitly; then `module.device` tells where it is"
#
# **Half true.** `tensor.cuda(0)` and `module.cuda(1)` do move them (for a module, in place).
# But a module has no `.device` attribute: its parameters each have one. Ask a parameter, or use
# `module_device` from `course_utils.placement`. Taught in notebook 03.

# %%
linear = nn.Linear(4, 3)
print(raises(lambda: linear.device, AttributeError, match="has no attribute 'device'"))
next(linear.parameters()).device

# %%
if needs_cuda(2, what="the tutorial's .cuda(0) / .cuda(1) example", key="07-cuda0-cuda1"):
    moved_tensor, moved_module = torch.randn(4, 3).cuda(0), nn.Linear(4, 3).cuda(1)
    shown = (moved_tensor.device, next(moved_module.parameters()).device)
else:
    print(needs_cuda(2, what="the tutorial's .cuda(0) / .cuda(1) example"))
    shown = recorded("07-cuda0-cuda1")
shown

# %% [markdown]
# ### A14 · “`with torch.device(...)` runs the block there.”
# **Misleading**: it sets the default device for new tensors only.

# %% [markdown] tags=["deeper"]
# #### Deeper: A14 in full, "`with torch.device('cuda:0'):` runs the block on cuda:0; `with torch.device('cpu'):` runs it on the CPU"
#
# **Misleading.** A `torch.device` used as a context manager sets the **default device** for
# factory functions (`torch.ones`, `torch.randn`, new modules' parameters). It does not move
# anything, does not decide where operations run, and does not change the current CUDA device:
# `torch.cuda.current_device()` inside `with torch.device("cpu"):` still returns the current CUDA
# index on a GPU machine (and raises on a machine without CUDA), never `cpu`. Taught in
# notebooks 02 and 04.

# %%
with torch.device("meta"):
    made = torch.randn(4, 3)  # a new tensor: on the default device, meta
    doubled = tensor * 2  # an operation: where its operand is
made.device, doubled.device

# %% [markdown] tags=["deeper"]
# The course's scope runner shows the default device inside `with torch.device("cuda:0")`
# (naming a device needs no GPU):

# %%
run_scopes([("torch.device('cuda:0')", torch.device("cuda:0"))]).default_devices

# %%
if torch.cuda.is_available():
    with torch.device("cpu"):
        shown = (torch.cuda.current_device(), torch.ones(1).device)
else:
    with torch.device("cpu"):
        shown = raises(torch.cuda.current_device, (AssertionError, RuntimeError))
shown

# %% [markdown]
# ### A15 · “`torch.device` names the CPU too.” **True.**

# %% [markdown] tags=["deeper"]
# #### Deeper: A15 in full, "`torch.device` can name the CPU as well as CUDA devices"
#
# **True.** Taught in notebook 02.

# %%
torch.device("cpu"), torch.device("cuda", 1), torch.device("cuda:0").index

# %% [markdown]
# ### A16 · “`device_of` makes code readable.”
# **Opinion**: choose a device once and pass it.

# %% [markdown] tags=["deeper"]
# #### Deeper: A16 in full, "Understanding `device_of` makes code shorter and more readable"
#
# **Opinion, and the wrong tool for the job it is sold for.** For placing data, the readable
# idiom is to choose a device once and pass it: `x.to(device)`, `model.to(device)`,
# `torch.ones(3, device=device)`. `device_of` is for running code that allocates without an index
# (`.cuda()`, custom CUDA extensions) next to a given tensor. Taught in notebooks 02 and 04.

# %%
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.ones(3, device=device).device, nn.Linear(4, 3).to(device).weight.device

# %% [markdown]
# ## B. The textbook chapter "Use GPU"
#
# ### B1 · “`nvidia-smi` shows the GPU.” **True**, with an NVIDIA driver.

# %% [markdown] tags=["deeper"]
# ### Deeper: the chapter's editions
#
# The English original compared here is the "GPUs" section of d2l.ai, file
# `chapter_builders-guide/use-gpu.md` in github.com/d2l-ai/d2l-en (commit `23d7a5a`, March 2024).
# The translation follows an older edition (its outputs are dated March 2019), and it differs from
# today's English chapter: each claim below says whether the English chapter makes it. Where it
# does not, the claim is the translation's (or its edition's) own, and it is checked all the same.
#
#

# %% [markdown] tags=["deeper"]
# #### Deeper: B1 in full, "`nvidia-smi` shows the graphics card"
#
# **True, where an NVIDIA driver is installed** (`nvidia-smi` comes with the driver, not with
# PyTorch). Notebook 01 runs it from Python and says what happens without one.
#
# **In the English d2l chapter?** Yes: "the `nvidia-smi` command can be used to view the graphics
# card information". The 2019 printout (GeForce GTX 1050, driver 390.48) is the translation's own.

# %%
import shutil

shutil.which("nvidia-smi") or "nvidia-smi is not installed here: no NVIDIA driver"

# %% [markdown]
# ### B2 · “Data starts on the CPU.” **True.**

# %% [markdown] tags=["deeper"]
# #### Deeper: B2 in full, "By default, PyTorch creates data in (host) memory and computes on the CPU"
#
# **True.** The default device is the CPU unless you change it (`torch.set_default_device`, or a
# `with torch.device(...)` block). Taught in notebook 02.
#
# **In the English d2l chapter?** Yes: "By default, tensors are created in the main memory and
# then the CPU is used for calculations."

# %%
torch.get_default_device(), torch.tensor([1, 2, 3]).device

# %% [markdown]
# ### B3 · Device queries. **True**; the answers depend on the machine.

# %% [markdown] tags=["deeper"]
# #### Deeper: B3 in full, "`torch.cuda.is_available()` → True; `torch.cuda.device_count()` → 1; `torch.cuda.current_device()` → 0 (indices start at 0); `torch.cuda.get_device_name(0)` → 'GeForce GTX 1050'"
#
# **True on the author's machine**, and each answer depends on yours: here is what this machine
# says. `current_device()` and `get_device_name()` need CUDA. Taught in notebook 01.
#
# **In the English d2l chapter?** Only `torch.cuda.device_count()` (inside its `num_gpus()`).
# `is_available()`, `current_device()` and `get_device_name()` are not in it.

# %%
if torch.cuda.is_available():
    shown = (True, GPUS, torch.cuda.current_device(), torch.cuda.get_device_name(0))
else:
    shown = (torch.cuda.is_available(), torch.cuda.device_count(), "current_device() and get_device_name() need CUDA")
shown

# %% [markdown]
# ### B4 · “No device in the printout means CPU.” **True.**

# %% [markdown] tags=["deeper"]
# #### Deeper: B4 in full, "A tensor printed without any device marking is in (host) memory"
#
# **True** (with the default device left on the CPU): `repr` adds `device=...` for any other
# device.
#
# **In the English d2l chapter?** No. It says "by default, tensors are created on the CPU" and
# reads `x.device`; it says nothing about what a printout without a device means.

# %%
torch.tensor([1, 2, 3]), torch.tensor([1, 2, 3], device="meta")

# %% [markdown]
# ### B5 · “`.cuda()` copies; `.cuda()` equals `.cuda(0)`.”
# Copies, yes; equal **only while device 0 is current**.

# %% [markdown] tags=["deeper"]
# #### Deeper: B5 in full, "`.cuda()` converts (copies) a CPU tensor to the GPU; `.cuda(i)` is the i-th GPU; `.cuda(0)` and `.cuda()` are equivalent"
#
# **Copies: true** (the original stays on the CPU; `x = x.cuda(0)` rebinds the name). **Equivalent:
# only while the current device is 0.** `.cuda()` uses the *current* device, which
# `torch.cuda.device(i)` or `set_device(i)` change. Taught in notebooks 02 and 04.
#
# **In the English d2l chapter?** In another form. It copies with `Z = X.cuda(1)`, shows that
# `Z.cuda(1) is Z` (no copy when already there), and names GPUs `torch.device(f'cuda:{i}')`, adding
# "`gpu:0` and `gpu` are equivalent", about device *names*, not about `.cuda()` and `.cuda(0)`.

# %%
x = torch.tensor([1, 2, 3])
x_meta = x.to("meta")  # .cuda() on a GPU; meta here
x.device, x_meta.device

# %%
if needs_cuda(2, what=".cuda() versus .cuda(0) with another current device", key="07-cuda-vs-cuda0"):
    with torch.cuda.device(1):
        shown = (x.cuda().device, x.cuda(0).device)
else:
    print(needs_cuda(2, what=".cuda() versus .cuda(0) with another current device"))
    shown = recorded("07-cuda-vs-cuda0")
shown

# %% [markdown]
# ### B6 · “`x.device` shows where a tensor is.” **True.**

# %% [markdown] tags=["deeper"]
# #### Deeper: B6 in full, "`x.device` shows where a tensor is: `device(type='cuda', index=0)`"
#
# **True.** Taught in notebook 02.
#
# **In the English d2l chapter?** Yes, for a CPU tensor (`x = torch.tensor([1, 2, 3]); x.device`).

# %%
if needs_cuda(1, what="x.cuda(0).device", key="07-cuda0-device"):
    shown = x.cuda(0).device
else:
    print(needs_cuda(1, what="x.cuda(0).device"))
    shown = x.device
    display(recorded("07-cuda0-device"))
shown

# %% [markdown]
# ### B7 · “`device=` at creation, or `.to(device)`.” **True.**

# %% [markdown] tags=["deeper"]
# #### Deeper: B7 in full, "You can choose the device at creation, `torch.tensor([1, 2, 3], device=device)`, or move with `.to(device)`"
#
# **True**, and the chapter's `device = torch.device('cuda' if torch.cuda.is_available() else
# 'cpu')` is the device-agnostic idiom the course uses. Taught in notebook 02.
#
# **In the English d2l chapter?** Creation with `device=` yes (`torch.ones(2, 3, device=try_gpu())`),
# through its `try_gpu()` helper rather than this one-liner. `.to(device)` appears only for the
# model (`net.to(device=try_gpu())`); tensors are moved with `.cuda(1)`.

# %%
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.tensor([1, 2, 3], device=device).device, torch.tensor([1, 2, 3]).to(device).device

# %% [markdown]
# ### B8 · “Results stay on the GPU.” **True.**

# %% [markdown] tags=["deeper"]
# #### Deeper: B8 in full, "The result of computing on GPU data is stored on the GPU"
#
# **True**: results live where their operands live. Taught in notebook 02.
#
# **In the English d2l chapter?** Yes: `Z + Y` on the second GPU, and "when the input is a tensor
# on the GPU, the model will calculate the result on the same GPU".

# %%
y_meta = x_meta ** 2
y_meta.device

# %%
if needs_cuda(1, what="y = x ** 2 on the GPU", key="07-square"):
    x_gpu = x.cuda()
    y_gpu = x_gpu ** 2
    shown = y_gpu
else:
    print(needs_cuda(1, what="y = x ** 2 on the GPU"))
    shown = recorded("07-square")
shown

# %% [markdown]
# ### B9 · “Mixing devices raises.”
# **True**; today's message differs.

# %% [markdown] tags=["deeper"]
# #### Deeper: B9 in full, "Data in different places cannot be computed together directly: not CPU with GPU, not one GPU with another. `z = y + x.cpu()` raises `RuntimeError: Expected object of type torch.cuda.LongTensor but found type torch.LongTensor for argument #3 'other'`"
#
# **True, but that message is from 2019** (PyTorch 0.4/1.0, when a tensor's type named its
# device). Today the same line raises *Expected all tensors to be on the same device, but found
# at least two devices, cuda:0 and cpu!* Here, with `meta` for the GPU, in meta's wording:
#
# **In the English d2l chapter?** The rule yes ("whenever we want to operate on multiple terms,
# they need to be on the same device"; "*Do not* simply add `X` and `Y`, since this will result in
# an exception"). The `z = y + x.cpu()` example and its 2019 message are not: the English chapter
# prints no error message.

# %%
raises(lambda: y_meta + x, RuntimeError, match="not on the expected device")

# %%
if needs_cuda(1, what="z = y + x.cpu() on the GPU", key="07-add-cpu"):
    shown = raises(lambda: y_gpu + x_gpu.cpu(), RuntimeError, match="Expected all tensors to be on the same device")
else:
    print(needs_cuda(1, what="z = y + x.cpu() on the GPU"))
    shown = recorded("07-add-cpu")
shown

# %% [markdown] tags=["deeper"]
# Both wordings describe the same mistake; `explain_device_error` reads either. Taught in
# notebook 05.

# %%
old = "Expected object of type torch.cuda.LongTensor but found type torch.LongTensor for argument #3 'other'"
explain_device_error(old)

# %% [markdown]
# ### B10 · “`model.cuda()` moves a model.” **True**, and in place.

# %% [markdown] tags=["deeper"]
# #### Deeper: B10 in full, "A model moves to the GPU with `.cuda()` too; the device of its parameters shows where it is"
#
# **True.** Unlike `tensor.cuda()`, `module.cuda()` moves the module **in place** (and returns
# it). Taught in notebook 03.
#
# **In the English d2l chapter?** In substance: it moves the model with `net.to(device=try_gpu())`,
# not `.cuda()`, and reads `net[0].weight.data.device`. The in-place behaviour is not mentioned.

# %%
net = nn.Linear(3, 1)
print(list(net.parameters())[0].device)
returned = net.to("meta")  # net.cuda() on a GPU
returned is net, list(net.parameters())[0].device

# %%
if needs_cuda(1, what="net.cuda()", key="07-net-cuda"):
    gpu_net = nn.Linear(3, 1)
    gpu_net.cuda()
    shown = list(gpu_net.parameters())[0].device
else:
    print(needs_cuda(1, what="net.cuda()"))
    shown = recorded("07-net-cuda")
shown

# %% [markdown]
# ### B11 · “No need for model and input on one device.”
# **False**: they must be. The real error:

# %% [markdown] tags=["deeper"]
# #### Deeper: B11 in full, "Likewise, there is no need to make sure the model's input tensor and the model are on the same device. Otherwise, an error occurs."
#
# **False as translated; the sentence contradicts itself** ("otherwise" has nothing to refer to
# after "no need"). What PyTorch enforces is the opposite: you **must** make sure the input is on
# the same device as the model, otherwise an error occurs.
# The chapter's own example (`x = torch.rand(2, 3).cuda(); net(x)`) works *because* both are on
# the GPU. With the model on one device and the input on another, it raises. Taught in
# notebooks 03 and 05.
#
# **In the English d2l chapter?** Not this sentence, and not its opposite word for word either:
# the English chapter never says "no need". It says "as long as all data and parameters are on the
# same device, we can learn models efficiently" and that the framework "requires all input data for
# calculation to be on the same device". So the translation's "no need" contradicts the English
# chapter; its "otherwise, an error occurs" is what PyTorch does.

# %% tags=["raises-exception"]
nn.Linear(3, 1, device="meta")(torch.rand(2, 3))

# %%
net = nn.Linear(3, 1, device="meta")
print(raises(lambda: net(torch.rand(2, 3)), RuntimeError, match="not on the expected device"))
net(torch.rand(2, 3).to("meta")).shape

# %%
if needs_cuda(1, what="the model on the GPU, the input on the CPU", key="07-model-input"):
    gpu_net = nn.Linear(3, 1).cuda()
    print(raises(lambda: gpu_net(torch.rand(2, 3)), RuntimeError, match="Expected all tensors to be on the same device"))
    shown = gpu_net(torch.rand(2, 3).cuda())
else:
    print(needs_cuda(1, what="the model on the GPU, the input on the CPU"))
    shown = recorded("07-model-input")
shown


# %% [markdown]
# **Try it:** write `to_model(net, batch)`: `batch` moved to the device of `net`'s parameters.

# %% tags=["try-it"]
# Try it: replace the raise with your line.
def to_model(net, batch):
    raise NotImplementedError()

check("07.b")

# %% [markdown]
# ### B12 · “All inputs in one memory.” **True**, scalars aside.

# %% [markdown] tags=["deeper"]
# #### Deeper: B12 in full, "PyTorch requires all the input data of a computation to be in (host) memory or in the memory of the same GPU"
#
# **True**, with the one exception of scalars: a Python number, or a 0-dim CPU tensor, may join
# an operation on a GPU. Taught in notebook 05.
#
# **In the English d2l chapter?** Yes, in its summary: "The deep learning framework requires all
# input data for calculation to be on the same device, be it CPU or the same GPU." The scalar
# exception is not in it.

# %%
print(x_meta * 2, x_meta * torch.tensor(2))
raises(lambda: x_meta * torch.tensor([2]), RuntimeError, match="not on the expected device")

# %% [markdown]
# ## Summary
#
# - `device_of` is a scope for CUDA objects; it moves nothing. Ask `t.device`.
# - `with torch.device(...)` sets the default device, not the current one.
# - Every operand on one device (scalars aside); a model's input follows its parameters.
#
# **Next:** `08_one_process_per_device.ipynb`.

# %% [markdown] tags=["deeper"]
# ### Deeper: every claim in one table
#
# | Claim | Verdict | Taught in |
# |---|---|---|
# | A1 `device_of(t)` returns / tells the device | false: a context manager; use `t.device` | 02, 04 |
# | A2 `device_of` switches the current device | only for CUDA objects, inside the block | 04 |
# | A3 the block runs on the object's device | misleading: ops run where their operands are | 04 |
# | A4 `device_of` moves data, saves transfers | false: it moves nothing | 02, 05 |
# | A5 transfers are "not necessarily" automatic | never automatic (scalars aside) | 05 |
# | A6 error if the object is not on CUDA | false: a no-op | 04 |
# | A7 the previous device is restored on exit | true; the printed `cpu` is false | 01, 04 |
# | A8 `t1.to(device_of(t2))` | `TypeError`; use `t1.to(t2.device)` | 02 |
# | A9 `device_of(module)` | `AttributeError`; pass a parameter | 03, 04 |
# | A10 `device_count`, `set_device`, `current_device`, `is_available` | true; `set_device` is discouraged | 01, 04 |
# | A11 `tensor.is_cuda` | true | 02 |
# | A12 `current_device()` in a `with` | false: it returns an int | 04 |
# | A13 `.cuda(i)`, then `module.device` | moves, but a module has no `.device` | 03 |
# | A14 `with torch.device(...)` runs the block there | misleading: sets the default device only | 02, 04 |
# | A15 `torch.device` names the CPU too | true | 02 |
# | A16 `device_of` makes code readable | choose a device once and pass it instead | 02, 04 |
# | B1 `nvidia-smi` | true, with an NVIDIA driver | 01 |
# | B2 data on the CPU by default | true | 02 |
# | B3 device queries | true; the answers depend on the machine | 01 |
# | B4 no device in the printout means CPU | true | 02 |
# | B5 `.cuda()` copies; `.cuda()` ≡ `.cuda(0)` | copies, yes; equivalent only while device 0 is current | 02, 04 |
# | B6 `x.device` | true | 02 |
# | B7 `device=` and `.to(device)` | true | 02 |
# | B8 results stay on the GPU | true | 02 |
# | B9 mixing devices raises | true; today's message differs from the quoted one | 05 |
# | B10 `model.cuda()` | true, and in place | 03 |
# | B11 "no need" for input and model on one device | **false**: they must be on one device | 03, 05 |
# | B12 all inputs in one memory | true, scalars aside | 05 |
#
# Not in the English d2l chapter (commit `23d7a5a`): B3's `is_available`, `current_device` and
# `get_device_name`; B4; B5's `.cuda()` ≡ `.cuda(0)` (the English equivalence is between the names
# `gpu:0` and `gpu`); B9's example and message; B10's `.cuda()` (English: `.to(device=...)`); and
# B11's "no need", which contradicts the English "requires all input data ... on the same device".
