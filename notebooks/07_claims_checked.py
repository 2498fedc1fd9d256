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
# <!-- readme (make pairs writes README's rows from these lines)
# learn: every claim of two popular online tutorials, run: true, false or misleading
# covers: every claim of two popular online tutorials, run: true, false or misleading, and where the course
# teaches it
# -->
#
# <!-- lesson-needs:start, written by make pairs -->
# | Part | Runs for real with | GPU-only cells |
# |---|---|---|
# | A | 2 GPUs | in Deeper: 5 (2 GPUs) |
# | B | 2 GPUs | in Deeper: 3 (1 accelerator) and 2 (1 GPU) and 1 (2 GPUs) |
#
# 3 cells run on any accelerator, else meta. Without a GPU, each GPU-only cell prints SKIPPED, says what a GPU shows, then a real GPU's output from a public report, not run here (4 of 8 cells), then the folded PyTorch source.
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

# %%
import torch
from torch import nn

from course_utils.checks import check
from course_utils.claims import raises
from course_utils.devices import pick_device
from course_utils.errors import explain_device_error
from course_utils.gates import needs_accelerator, needs_cuda
from course_utils.scopes import run_scopes, trace_current_device
# Short tracebacks: frames inside torch's own code are hidden from errors; %tb shows the full one.
# %load_ext course_utils.tracebacks

device = pick_device()  # lesson 01's idiom: decided once, carried everywhere below
GPUS = torch.cuda.device_count() if torch.cuda.is_available() else 0
torch.__version__, GPUS

# %% [markdown]
# ## A. The `device_of` article: 16 claims
#
# **Source:** a Japanese web article, 「CUDAプログラミングをレベルアップ！PyTorchのtorch.cuda.device_ofで効率的なデバイス切り替え」
# ("Level up your CUDA programming! Efficient device switching with PyTorch's torch.cuda.device_of"),
# on `torch.cuda.device_of` and its alternatives. The table gives each claim in English, runs a
# proof of the verdict here and shows what it printed. A proof is built from `raises(...)` and
# `holds(...)` (from `course_utils.claims`): if PyTorch ever behaves otherwise, the cell fails.
#
# **`meta` stands in for a GPU** in some proofs: tensors with a shape and no data, on any machine.
# It is not a GPU. Its mixed-device message is worded differently (CUDA says *Expected all
# tensors to be on the same device, but found at least two devices, cuda:0 and cpu!*); some mixed
# operations such as `cpu_tensor @ meta_tensor` return garbage values instead of raising, so a
# proof trusts `meta` only where it raises; and moving a model to `meta` makes new `Parameter`
# objects, where a move to CUDA keeps them (notebook 03). Notebook 05 runs these differences in
# its Deeper section "where `meta` does not behave like CUDA". The GPU runs are in each claim's
# Deeper block, under the table.
#
# The next cell's code, the check behind each row, opens folded: its output, the table, is what
# to read; click the cell's `⋯` (or the bar on its left) to read the checks.

# %% tags=["hide-input"]
import inspect, shutil
from functools import partial

from course_utils.claims import ClaimTable, claim, holds

tensor, m = torch.randn(4, 3), torch.ones(3, device="meta")  # the article's CPU tensor; m on meta, for a GPU
module = nn.Linear(4, 3)
MIXED = "not on the expected device"  # the stable part of meta's message when devices are mixed
article = partial(claim, source="device_of article")


def in_block(manager, action):
    """What ``action()`` returns inside ``with manager:``."""
    with manager:
        return action()


def restored_after_block():
    """A7: the current CUDA device before, inside and after ``device_of``; without CUDA, torch's own ``__exit__``."""
    if not torch.cuda.is_available():
        exits = inspect.getsource(torch.cuda.device.__exit__)
        return holds("prev_idx" in exits, "no CUDA here; torch's source: __exit__ switches back to prev_idx")
    before = torch.cuda.current_device()
    inside = in_block(torch.cuda.device_of(torch.ones(1, device=f"cuda:{GPUS - 1}")), torch.cuda.current_device)
    return holds(torch.cuda.current_device() == before, f"current_device(): {before}, {inside} inside, {before} after")


index = torch.cuda.current_device() if torch.cuda.is_available() else 0  # an int, as on a GPU machine
part_a = ClaimTable((
    article("A1", "device_of(t) tells which CUDA device t is on", "false", taught="02, 04",
            proof=lambda: holds(not isinstance(torch.cuda.device_of(tensor), torch.device),
                                f"a context manager, not a device; t.device is {tensor.device}")),
    article("A2", "device_of(obj) switches the current CUDA device to obj's", "misleading", taught="04",
            proof=lambda: holds(torch.cuda.device_of(tensor).idx == -1,
                                "only for a CUDA obj, inside the with: for a CPU tensor its index is -1, no switch")),
    article("A3", "the code in the block runs on obj's device", "misleading", taught="04",
            proof=lambda: holds(in_block(torch.cuda.device_of(tensor), lambda: (m * 2).device) == m.device,
                                "an op runs where its operands are: m * 2 stays on meta")),
    article("A4", "device_of moves data between devices for you", "false", taught="02, 05",
            proof=lambda: in_block(torch.cuda.device_of(m), lambda: raises(lambda: m + torch.ones(3), RuntimeError, match=MIXED))),
    article("A5", "transfers between GPUs are not necessarily automatic", "misleading", taught="05",
            proof=lambda: (raises(lambda: m + torch.tensor([2.0]), RuntimeError, match=MIXED),
                           holds((m + torch.tensor(2.0)).is_meta, "only a 0-dim CPU tensor joins, as a scalar"))),
    article("A6", "device_of(obj) raises if obj is not on CUDA", "false", taught="04",
            proof=lambda: holds(in_block(torch.cuda.device_of(tensor.untyped_storage()), lambda: "no-op" in torch.cuda.device_of.__doc__),
                                "a CPU storage: no error; the docstring says 'this is a no-op'")),
    article("A7", "the previous current device comes back after the block", "true", taught="01, 04",
            proof=restored_after_block),
    article("A8", "t1.to(device_of(t2)) moves t1 to t2's device", "false", taught="02",
            proof=lambda: raises(lambda: tensor.to(torch.cuda.device_of(m)), TypeError, match="invalid combination of arguments")),
    article("A9", "device_of(module) works on a module too", "false", taught="03, 04",
            proof=lambda: raises(lambda: torch.cuda.device_of(module), AttributeError, match="has no attribute 'is_cuda'")),
    article("A10", "device_count, set_device, current_device, is_available do as named", "true", taught="01, 04",
            proof=lambda: holds("discouraged" in torch.cuda.set_device.__doc__,
                                f"device_count() {GPUS}; set_device's docstring: 'discouraged'")),
    article("A11", "tensor.is_cuda tells whether a tensor is on CUDA", "true", taught="02",
            proof=lambda: holds(not tensor.is_cuda and not m.is_cuda, "False on the CPU and on meta: whether, not where")),
    article("A12", "current_device() can be used in a with statement", "false", taught="04",
            proof=lambda: raises(lambda: in_block(index, lambda: None), TypeError, match="context manager")),
    article("A13", "after module.cuda(1), module.device says where it is", "false", taught="03",
            proof=lambda: raises(lambda: module.device, AttributeError, match="has no attribute 'device'")),
    article("A14", "with torch.device('cuda:0'): runs the block on cuda:0", "misleading", taught="02, 04",
            proof=lambda: holds(in_block(torch.device("meta"), lambda: (torch.randn(2).is_meta, (tensor * 2).device.type)) == (True, "cpu"),
                                "sets the default device: a new tensor is on meta, tensor * 2 stays on cpu")),
    article("A15", "torch.device names the CPU as well as GPUs", "true", taught="02",
            proof=lambda: holds(torch.device("cpu").type == "cpu", repr((torch.device("cpu"), torch.device("cuda", 1))))),
    article("A16", "device_of makes code shorter and more readable", "misleading", taught="02, 04",
            proof=lambda: holds(module.to(device).weight.device.type == torch.ones(3, device=device).device.type,
                                f"choose a device once and pass it: model and data both on {device}")),
))
part_a

# %% [markdown]
# The proofs run on the CPU and `meta`; where a claim is about switching between two GPUs (A2, A3,
# A7), the two-GPU run is in its Deeper block.
#
# **Try it:** make `where`, the device `m` lives on, the PyTorch way.

# %% tags=["try-it"]
# Try it: one line of PyTorch.
where = ...
check("07.a")

# %% [markdown] tags=["deeper"]
# ### Deeper: A1, `device_of(t)` tells which CUDA device a tensor is on

# %% [markdown] tags=["deeper"]
# The article: 「Tensor または Storage オブジェクトがどの CUDA デバイスに割り当てられているかを判断します。」
# ("It determines which CUDA device a Tensor or Storage object is allocated on."), with the example
# `device = torch.cuda.device_of(tensor)`.
#
# **False.** `torch.cuda.device_of(obj)` returns a *context manager* object of type
# `torch.cuda.device_of`. It stores an index (`-1` for a CPU tensor) for its `with` block; it is
# not a device, and printing it shows an object address. To ask where a tensor is, read
# `tensor.device` (or `tensor.get_device()`, `-1` on the CPU). Taught in notebooks 02 and 04.

# %% tags=["deeper"]
article_device = torch.cuda.device_of(tensor)  # the article's `device = ...`; our `device` stays the lesson's
type(article_device), str(article_device)[:35], tensor.device, tensor.get_device()

# %% [markdown] tags=["deeper"]
# The article prints 「Tensor が割り当てられている CUDA デバイス: cuda:0」 ("CUDA device the Tensor
# is allocated on: cuda:0") for this example. The tensor is made by `torch.randn(4, 3)`, on the
# CPU; nothing in the example puts it on a GPU, and `device_of` prints an object address:

# %% tags=["deeper"]
f"Tensor が割り当てられている CUDA デバイス: {article_device}"  # "CUDA device the Tensor is allocated on: ..."

# %% [markdown] tags=["deeper"]
# ### Deeper: A2, `device_of` switches the current CUDA device

# %% [markdown] tags=["deeper"]
# The article: 「現在の CUDA デバイスをそのオブジェクトが割り当てられているデバイスに変更します。」
# ("It changes the current CUDA device to the device the object is allocated on.")
#
# **Misleading: only for objects on CUDA, and only inside the `with` block.** For a CPU tensor it
# is a no-op: its constructor is `idx = obj.get_device() if obj.is_cuda else -1`, and index `-1`
# switches nothing. Taught in notebook 04.

# %% tags=["deeper"]
torch.cuda.device_of(tensor).idx  # the CUDA index it would switch to: -1 (none) for a CPU tensor

# %% [markdown] tags=["deeper"]
# The course's tracer shows the current CUDA device before, inside and after the block:

# %% tags=["deeper"]
with trace_current_device() as t:
    with t.scope("device_of(cpu tensor)", torch.cuda.device_of(tensor)):
        pass
t

# %% [markdown] tags=["deeper"]
# On a GPU, for a CUDA tensor, it does switch, and restores on exit:

# %% tags=["deeper"]
if gpu := needs_cuda(2, what="device_of switching to cuda:1", key="07-device-of-switch"):
    t1 = torch.randn(4, 3, device="cuda:1")
    shown = run_scopes([("device_of(t1)", torch.cuda.device_of(t1))]).cuda_devices
else:
    shown = gpu
shown

# %% [markdown] tags=["deeper"]
# ### Deeper: A3, the code in the block runs on the object's device

# %% [markdown] tags=["deeper"]
# The article: 「このブロック内のコードは、obj が割り当てられている CUDA デバイスで実行されます。」
# ("The code in this block runs on the CUDA device obj is allocated on.")
#
# **Misleading.** An operation runs on the device of its operands, whatever the current device.
# The current device only decides where *new* tensors without an explicit index go (`.cuda()`,
# `device="cuda"`) and which stream is used. Taught in notebook 04.

# %% tags=["deeper"]
with torch.cuda.device_of(tensor):
    result = (tensor * 2).device
result

# %% tags=["deeper"]
if gpu := needs_cuda(2, what="an operation inside device_of of another GPU", key="07-op-inside-device-of"):
    t0, t1 = torch.ones(2, device="cuda:0"), torch.ones(2, device="cuda:1")
    with torch.cuda.device_of(t1):
        shown = ((t0 * 2).device, torch.ones(1, device="cuda").device)
else:
    shown = gpu
shown

# %% [markdown] tags=["deeper"]
# ### Deeper: A4, `device_of` moves data for you

# %% [markdown] tags=["deeper"]
# The article: 「デバイス間でのデータ転送を明示的に記述する必要をなくします。」 ("It removes the need to
# write data transfers between devices explicitly.") and 「複数の CUDA デバイス間でデータを効率的に移動することができます。」
# ("It can move data efficiently between several CUDA devices.")
#
# **False.** `device_of` moves no data, ever. Every tensor stays where it is, and mixing devices
# in one operation raises as it does outside the block. Moving data is `.to(device)`. Taught in
# notebooks 02 and 05.
#
# Here is the error `meta` gives for a mixed addition (the frames inside torch folded; `%tb` shows
# the whole traceback). It is `meta`'s check, not
# CUDA's: on a GPU the same line (a CUDA tensor plus `torch.ones(3)`) raises *Expected all tensors
# to be on the same device, but found at least two devices, cuda:0 and cpu!*

# %% tags=["raises-exception", "deeper"]
m = torch.ones(3, device="meta")
m + torch.ones(3)  # meta stands in for a GPU

# %% [markdown] tags=["deeper"]
# Inside `device_of(m)` nothing changes (for a `meta` tensor it is a no-op), and on two GPUs
# neither:

# %% tags=["deeper"]
with torch.cuda.device_of(m):
    print(m.device, tensor.device)
    print(raises(lambda: m + torch.ones(3), RuntimeError, match="not on the expected device"))

# %% tags=["deeper"]
if gpu := needs_cuda(2, what="mixing GPUs inside device_of", key="07-mixing-gpus"):
    with torch.cuda.device_of(t1):
        shown = raises(lambda: t0 + t1, RuntimeError, match="Expected all tensors to be on the same device")
else:
    shown = gpu
shown

# %% [markdown] tags=["deeper"]
# ### Deeper: A5, transfers are not necessarily automatic

# %% [markdown] tags=["deeper"]
# The article: 「複数の CUDA デバイスを使用する場合は、デバイス間でのデータ転送が自動的に行われるとは限らないことに注意する必要があります。」
# ("When you use several CUDA devices, note that data transfer between devices is not
# necessarily automatic.")
#
# **Misleading, because understated: it is never automatic.** No PyTorch operation copies an
# operand to another device for you (the one exception, a 0-dim CPU tensor or a Python number
# used as a scalar, is not a transfer). Taught in notebook 05, part 1.

# %% tags=["deeper"]
print(m + torch.tensor(2.0))  # a 0-dim CPU tensor joins as a scalar
raises(lambda: m + torch.tensor([2.0]), RuntimeError, match="not on the expected device")

# %% [markdown] tags=["deeper"]
# ### Deeper: A6, an error if the object is not on CUDA

# %% [markdown] tags=["deeper"]
# The article: 「オブジェクトが CUDA デバイスに割り当てられていない場合は、エラーが発生します。」
# ("If the object is not allocated on a CUDA device, an error occurs.")
#
# **False.** For a CPU tensor (or storage) `device_of` is documented as a no-op, and it is one,
# even on a machine without CUDA (this one, if it has no GPU). Taught in notebook 04.

# %% tags=["deeper"]
with torch.cuda.device_of(tensor.untyped_storage()):
    inside = "no error"
inside, "this is a no-op" in torch.cuda.device_of.__doc__

# %% [markdown] tags=["deeper"]
# ### Deeper: A7, the previous device comes back after the block

# %% [markdown] tags=["deeper"]
# The article: 「これは、ブロック内のコードが終了すると、現在の CUDA デバイスが元のデバイスに戻されることを意味します。」
# ("This means that when the code in the block ends, the current CUDA device is set back to the
# original device.")
#
# **True.** `__exit__` restores the device that was current when the block was entered. The
# article's printout of that example is not: it shows `cuda:0` inside and 「元の CUDA デバイス: cpu」
# ("original CUDA device: cpu") after. `torch.cuda.current_device()` returns an integer (`0`, never
# `"cuda:0"`), never `cpu`, and on a machine without CUDA it raises instead. Taught in notebooks 01
# and 04.

# %% tags=["deeper"]
if torch.cuda.is_available():
    with torch.cuda.device_of(tensor):
        inside = torch.cuda.current_device()
    shown = (inside, torch.cuda.current_device(), type(inside).__name__)
else:
    shown = raises(torch.cuda.current_device, (AssertionError, RuntimeError))
shown

# %% [markdown] tags=["deeper"]
# ### Deeper: A8, `tensor1.to(torch.cuda.device_of(tensor2))`

# %% [markdown] tags=["deeper"]
# The article's comment: 「tensor1 を tensor2 が割り当てられている CUDA デバイスに転送します」 ("transfer
# tensor1 to the CUDA device tensor2 is allocated on").
#
# **False.** `.to()` takes a device, a dtype or a tensor; a `device_of` object is none of them,
# so `.to()` raises a `TypeError` listing what it accepts, on any machine. The article's printout
# (`cuda:1` for `device_of(tensor1)`) is an object address in reality. The right line is
# `tensor1.to(tensor2.device)`. Taught in notebook 02.

# %% tags=["deeper"]
tensor1, tensor2 = torch.randn(4, 3), torch.randn(4, 3, device="meta")
print(raises(lambda: tensor1.to(torch.cuda.device_of(tensor2)), TypeError, match="invalid combination of arguments"))
tensor1.to(tensor2.device).device

# %% tags=["deeper"]
if gpu := needs_cuda(2, what="the tutorial's two-GPU transfer", key="07-two-gpu-transfer"):
    tensor1, tensor2 = torch.randn(4, 3).cuda(0), torch.randn(4, 3).cuda(1)
    print(raises(lambda: tensor1.to(torch.cuda.device_of(tensor2)), TypeError))
    shown = tensor1.to(tensor2.device).device
else:
    shown = gpu
shown

# %% [markdown] tags=["deeper"]
# ### Deeper: A9, `device_of(module)`

# %% [markdown] tags=["deeper"]
# The article: 「torch.cuda.device_of は、Tensor と Storage オブジェクト以外にも、Module オブジェクトにも使用できます。」
# ("torch.cuda.device_of can be used on Module objects as well as on Tensor and Storage objects.")
#
# **False.** The constructor reads `obj.is_cuda`, which a module does not have, so it raises
# `AttributeError` (on a GPU machine too: the line runs before any CUDA call). For a model, pass
# one of its tensors: `torch.cuda.device_of(next(module.parameters()))`. Taught in notebooks 03
# and 04.

# %% tags=["deeper"]
class MyModule(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(4, 3)

module = MyModule()
raises(lambda: torch.cuda.device_of(module), AttributeError, match="has no attribute 'is_cuda'")

# %% [markdown] tags=["deeper"]
# ### Deeper: A10, `device_count`, `set_device`, `current_device`, `is_available`

# %% [markdown] tags=["deeper"]
# The article lists them: 「利用可能な CUDA デバイスの数を取得します。」 ("gets the number of available
# CUDA devices"), 「現在の CUDA デバイスを設定します。」 ("sets the current CUDA device"), 「現在の CUDA
# デバイスを取得します。」 ("gets the current CUDA device"), 「CUDA が使用可能かどうかを確認します。」
# ("checks whether CUDA can be used").
#
# **True**, with two footnotes: `set_device` is documented as discouraged (prefer the scoped
# `torch.cuda.device` or `CUDA_VISIBLE_DEVICES`), and only `is_available()` and
# `device_count()` are safe to call on a machine without CUDA. Taught in notebooks 01 and 04.

# %% tags=["deeper"]
torch.cuda.is_available(), torch.cuda.device_count(), "discouraged" in torch.cuda.set_device.__doc__

# %% [markdown] tags=["deeper"]
# ### Deeper: A11, `tensor.is_cuda`

# %% [markdown] tags=["deeper"]
# The article: 「Tensor が CUDA デバイスに割り当てられているかどうかを確認する簡単な方法です。」 ("It is a
# simple way to check whether a Tensor is allocated on a CUDA device.")
#
# **True.** The article's example runs as written; its two messages read "CUDA device the Tensor
# is allocated on: ..." and "The Tensor is allocated on the CPU." (`is_cuda` is `False` for
# `meta` and `mps` tensors too: to know *where* a tensor is, read `tensor.device`.) Taught in
# notebook 02.

# %% tags=["deeper"]
if tensor.is_cuda:
    print(f"Tensor が割り当てられている CUDA デバイス: {tensor.device}")  # "CUDA device the Tensor is allocated on"
else:
    print("Tensor は CPU に割り当てられています。")  # "The Tensor is allocated on the CPU."
tensor.is_cuda, m.is_cuda, m.device

# %% [markdown] tags=["deeper"]
# ### Deeper: A12, `current_device()` in a `with`

# %% [markdown] tags=["deeper"]
# The article, on `torch.cuda.current_device()`: 「以下の例のように、with ステートメントで使用できます。」
# ("It can be used in a with statement, as in the example below.")
#
# **False.** It returns an `int`, which is not a context manager. The article's own example puts
# `device_of` in the `with` and calls `current_device()` inside, which is fine. Taught in
# notebook 04.

# %% tags=["deeper"]
def use_in_with(obj):
    with obj:
        pass

index = torch.cuda.current_device() if torch.cuda.is_available() else 0  # what a GPU machine returns
raises(lambda: use_in_with(index), (TypeError, AttributeError), match="context manager|__enter__")

# %% [markdown] tags=["deeper"]
# ### Deeper: A13, `.cuda()`, then `module.device`

# %% [markdown] tags=["deeper"]
# The article: 「Tensor や Module オブジェクトを CUDA デバイスに明示的に割り当てることができます。」 ("You
# can explicitly allocate Tensor and Module objects on a CUDA device."), then it prints
# `module.device`.
#
# **False as a whole; its first half is true.** `tensor.cuda(0)` and `module.cuda(1)` do move
# them (for a module, in place). But a module has no `.device` attribute: its parameters each
# have one. Ask a parameter, or use `module_device` from `course_utils.placement`. Taught in
# notebook 03.

# %% tags=["deeper"]
linear = nn.Linear(4, 3)
print(raises(lambda: linear.device, AttributeError, match="has no attribute 'device'"))
next(linear.parameters()).device

# %% tags=["deeper"]
if gpu := needs_cuda(2, what="the tutorial's .cuda(0) / .cuda(1) example", key="07-cuda0-cuda1"):
    moved_tensor, moved_module = torch.randn(4, 3).cuda(0), nn.Linear(4, 3).cuda(1)
    shown = (moved_tensor.device, next(moved_module.parameters()).device)
else:
    shown = gpu
shown

# %% [markdown] tags=["deeper"]
# ### Deeper: A14, `with torch.device(...)` runs the block there

# %% [markdown] tags=["deeper"]
# The article, on `with torch.device("cuda:0"):` 「このブロック内のコードは、cuda:0 デバイスで実行されます。」
# ("The code in this block runs on the cuda:0 device.")
#
# **Misleading.** A `torch.device` used as a context manager sets the **default device** for
# factory functions (`torch.ones`, `torch.randn`, new modules' parameters). It does not move
# anything, does not decide where operations run, and does not change the current CUDA device:
# `torch.cuda.current_device()` inside `with torch.device("cpu"):` still returns the current CUDA
# index on a GPU machine (and raises on a machine without CUDA), never `cpu`. Taught in
# notebooks 02 and 04.

# %% tags=["deeper"]
with torch.device("meta"):
    made = torch.randn(4, 3)  # a new tensor: on the default device, meta
    doubled = tensor * 2  # an operation: where its operand is
made.device, doubled.device

# %% [markdown] tags=["deeper"]
# The course's scope runner shows the default device inside `with torch.device("cuda:0")`
# (naming a device needs no GPU):

# %% tags=["deeper"]
run_scopes([("torch.device('cuda:0')", torch.device("cuda:0"))]).default_devices

# %% tags=["deeper"]
if torch.cuda.is_available():
    with torch.device("cpu"):
        shown = (torch.cuda.current_device(), torch.ones(1).device)
else:
    with torch.device("cpu"):
        shown = raises(torch.cuda.current_device, (AssertionError, RuntimeError))
shown

# %% [markdown] tags=["deeper"]
# ### Deeper: A15 and A16, `torch.device`, and readable code

# %% [markdown] tags=["deeper"]
# The article: 「CUDA デバイスだけでなく、CPU デバイスも指定するために使用できます。」 ("It can be used to
# specify not only CUDA devices but also the CPU device."): **true**, taught in notebook 02. And
# 「コードをより簡潔で読みやすくすることができます。」 ("It can make code more concise and readable."),
# about `device_of`: **misleading**, an opinion, and the wrong tool for the job it is sold for. For
# placing data, the readable idiom is to choose a device once and pass it: `x.to(device)`,
# `model.to(device)`, `torch.ones(3, device=device)`. `device_of` is for running code that
# allocates without an index (`.cuda()`, custom CUDA extensions) next to a given tensor. Taught in
# notebooks 02 and 04.

# %% tags=["deeper"]
torch.device("cpu"), torch.device("cuda", 1), torch.ones(3, device=device).device, nn.Linear(4, 3).to(device).weight.device

# %% [markdown]
# ## B. The "Use GPU" chapter, in its Japanese translation: 12 claims
#
# **Source:** 「pytorch学習ノート(18):Use-GPu」 ("PyTorch study notes (18): Use GPU"), a Japanese
# translation of section 4.6, 「GPU计算」 ("GPU computing"), of *Dive-into-DL-PyTorch* (2019,
# github.com/ShusenTang/Dive-into-DL-PyTorch), a community port to PyTorch of the Chinese edition
# of the d2l textbook (*Dive into Deep Learning*). The English d2l.ai has the chapter as "GPUs"
# (`chapter_builders-guide/use-gpu.md` in github.com/d2l-ai/d2l-en, read at commit `23d7a5a`,
# March 2024); the Source column says where the English chapter says the same ("English d2l
# too"), says it in another form, or not at all ("translation only").
#
# B9's quoted message, *Expected object of type torch.cuda.LongTensor but found type
# torch.LongTensor for argument #3 'other'*, is from the PyTorch 0.4 era. Today CUDA says *Expected all
# tensors to be on the same device, but found at least two devices, cuda:0 and cpu!*; the table
# shows `meta`'s wording (`meta` stands in for the GPU here as in part A, with the same limits).
# As in part A, the table's code opens folded.

# %% tags=["hide-input"]
x = torch.tensor([1, 2, 3])
x_meta = x.to("meta")  # x.cuda() on a GPU; meta here
net = nn.Linear(3, 1)
BOTH, ONLY = "translation · English d2l too", "translation only"
OTHER_FORM = "translation · English d2l in another form"
COUNT_ONLY, RULE_ONLY = "translation (English d2l: device_count only)", "translation (English d2l: the rule, no message)"
part_b = ClaimTable((
    claim("B1", "nvidia-smi shows the graphics card", "true", source=BOTH, taught="01",
          proof=lambda: holds(True, shutil.which("nvidia-smi") or "no nvidia-smi here: it comes with the NVIDIA driver, not PyTorch")),
    claim("B2", "by default data is made in host memory and computed on the CPU", "true", source=BOTH, taught="02",
          proof=lambda: holds(x.device.type == "cpu", f"default device {torch.get_default_device()}; x is on {x.device}")),
    claim("B3", "is_available() True, device_count() 1, current_device() 0, get_device_name(0)", "true", source=COUNT_ONLY, taught="01",
          proof=lambda: holds(torch.cuda.device_count() == GPUS,
                              f"answers depend on the machine; here is_available() {torch.cuda.is_available()}, device_count() {GPUS}")),
    claim("B4", "a printed tensor with no device shown is in host memory", "true", source=ONLY, taught="02",
          proof=lambda: holds("device=" not in repr(x) and "device='meta'" in repr(x_meta), f"{x!r}; {x_meta!r}")),
    claim("B5", ".cuda() copies to the GPU; .cuda() and .cuda(0) are equivalent", "misleading", source=OTHER_FORM, taught="02, 04",
          proof=lambda: holds("Defaults to the current CUDA device" in torch.Tensor.cuda.__doc__,
                              "a copy, yes; .cuda() defaults to the current device (its docstring): .cuda(0) only while 0 is current")),
    claim("B6", "x.device shows where a tensor is", "true", source=BOTH, taught="02",
          proof=lambda: holds(x_meta.device.type == "meta", f"x.device {x.device}, x_meta.device {x_meta.device}")),
    claim("B7", "choose the device at creation (device=) or move with .to(device)", "true", source=OTHER_FORM, taught="02",
          proof=lambda: holds(torch.tensor([1, 2, 3], device="meta").is_meta and x.to("meta").is_meta, "both give a tensor on meta")),
    claim("B8", "the result of computing on GPU data stays on the GPU", "true", source=BOTH, taught="02",
          proof=lambda: holds((x_meta ** 2).is_meta, "x_meta ** 2 is on meta: results live with their operands")),
    claim("B9", "data on different devices cannot be computed together", "true", source=RULE_ONLY, taught="05",
          proof=lambda: raises(lambda: x_meta ** 2 + x, RuntimeError, match=MIXED)),
    claim("B10", "a model moves to the GPU with .cuda(); its parameters show where", "true", source=OTHER_FORM, taught="03",
          proof=lambda: holds(net.to("meta") is net and net.weight.is_meta, "net.to('meta') returns net itself, moved; its weight on meta")),
    claim("B11", "no need to put the model's input and the model on one device", "false", source=ONLY, taught="03, 05",
          proof=lambda: raises(lambda: nn.Linear(3, 1, device="meta")(torch.rand(2, 3)), RuntimeError, match=MIXED)),
    claim("B12", "all inputs of a computation in host memory or in one GPU's memory", "true", source=BOTH, taught="05",
          proof=lambda: (raises(lambda: x_meta * torch.tensor([2]), RuntimeError, match=MIXED),
                         holds((x_meta * torch.tensor(2)).is_meta, "scalars aside: a 0-dim CPU tensor joins"))),
))
part_b

# %% [markdown]
# B11 is the one sentence of the translation that says the opposite of the
# truth: 「モデル入力のTensorとモデルが同じデバイスにあることを保証する必要はありません」 ("there is no need
# to make sure the model's input Tensor and the model are on the same device"), followed by
# 「そうしないと、エラーが発生します」 ("otherwise, an error occurs"). Its Chinese original says
# 「需要保证」 ("need to make sure"), and the English d2l says "The deep learning framework
# requires all input data for calculation to be on the same device". PyTorch agrees: B11's
# proof raised.
#
# **Try it:** write `to_model(net, batch)`: `batch` moved to the device of `net`'s parameters.

# %% tags=["try-it"]
# Try it: replace the raise with your line.
def to_model(net, batch):
    raise NotImplementedError()

check("07.b")

# %% [markdown] tags=["deeper"]
# ### Deeper: the chapter's editions

# %% [markdown] tags=["deeper"]
# The Japanese translation follows its Chinese original (ShusenTang/Dive-into-DL-PyTorch,
# `docs/chapter04_DL_computation/4.6_use-gpu.md`) closely: the same 2019 `nvidia-smi` printout (a
# GeForce GTX 1050), the same code and outputs, the same closing summary. The Chinese original
# rewrites for PyTorch the chapter of the Chinese d2l book, then written for MXNet, and says so:
# 「本节与原书此节有一些不同」 ("this section differs somewhat from this section of the original
# book"). Today's English chapter differs from both. Not in the English chapter: B3's `is_available`, `current_device` and
# `get_device_name`; B4; B5's `.cuda()` ≡ `.cuda(0)` (the English equivalence is between the
# device names `gpu:0` and `gpu`); B9's example and message; B10's `.cuda()` (English:
# `net.to(device=try_gpu())`); and B11's "no need", which contradicts the English "requires all
# input data for calculation to be on the same device". Each block below quotes the translation,
# with an English gloss, and the English chapter where it has the claim.

# %% [markdown] tags=["deeper"]
# ### Deeper: B1, `nvidia-smi` shows the graphics card

# %% [markdown] tags=["deeper"]
# The translation: 「準備が完了すると、nvidia-smiコマンドでグラフィックス情報を表示できます.」 ("Once
# ready, the nvidia-smi command shows the graphics information.")
#
# **True, where an NVIDIA driver is installed** (`nvidia-smi` comes with the driver, not with
# PyTorch). Notebook 01 runs it from Python and says what happens without one.
#
# **In the English d2l chapter?** Yes: "the `nvidia-smi` command can be used to view the graphics
# card information". The 2019 printout (GeForce GTX 1050, driver 390.48) is the translation's own.

# %% tags=["deeper"]
import shutil

shutil.which("nvidia-smi") or "nvidia-smi is not installed here: no NVIDIA driver"

# %% [markdown] tags=["deeper"]
# ### Deeper: B2, data starts on the CPU

# %% [markdown] tags=["deeper"]
# The translation: 「デフォルトでは、PyTorchはメモリにデータを作成し、CPUで計算します.」 ("By default,
# PyTorch creates data in memory and computes on the CPU.")
#
# **True.** The default device is the CPU unless you change it (`torch.set_default_device`, or a
# `with torch.device(...)` block). Taught in notebook 02.
#
# **In the English d2l chapter?** Yes: "By default, tensors are created in the main memory and
# then the CPU is used for calculations."

# %% tags=["deeper"]
torch.get_default_device(), torch.tensor([1, 2, 3]).device

# %% [markdown] tags=["deeper"]
# ### Deeper: B3, device queries

# %% [markdown] tags=["deeper"]
# The translation: `torch.cuda.is_available()` → `True`; `torch.cuda.device_count()` → `1`;
# `torch.cuda.current_device()` → `0`, with 「インデックス番号は0から始まります」 ("indices start at
# 0"); `torch.cuda.get_device_name(0)` → `'GeForce GTX 1050'`.
#
# **True on the author's machine**, and each answer depends on yours: here is what this machine
# says. `current_device()` and `get_device_name()` need CUDA. Taught in notebook 01.
#
# **In the English d2l chapter?** Only `torch.cuda.device_count()` (inside its `num_gpus()`).
# `is_available()`, `current_device()` and `get_device_name()` are not in it.

# %% tags=["deeper"]
if torch.cuda.is_available():
    shown = (True, GPUS, torch.cuda.current_device(), torch.cuda.get_device_name(0))
else:
    shown = (torch.cuda.is_available(), torch.cuda.device_count(), "current_device() and get_device_name() need CUDA")
shown

# %% [markdown] tags=["deeper"]
# ### Deeper: B4, no device in the printout means CPU

# %% [markdown] tags=["deeper"]
# The translation: 「デフォルトでは、Tensorがメモリに存在します.そのため、これまでTensorを印刷するたびにGPU関連の標識が見えませんでした.」
# ("By default, a Tensor lives in (host) memory. That is why no GPU marking appeared whenever we
# printed a Tensor so far.")
#
# **True**, whatever the default device: `repr` adds `device=...` for every tensor not on the
# CPU. `torch/_tensor_str.py` compares the tensor's device with the default *tensor type*'s (the
# CPU's, unless the deprecated `torch.set_default_tensor_type` chose a CUDA type), which
# `set_default_device` does not change: inside `with torch.device("meta")` a new tensor lands on
# `meta` and prints its device, and a CPU tensor still prints none (the same in PyTorch 2.8.0 and
# 2.13.0's `_tensor_str.py`).
#
# **In the English d2l chapter?** No. It says "by default, tensors are created on the CPU" and
# reads `x.device`; it says nothing about what a printout without a device means.

# %% tags=["deeper"]
torch.tensor([1, 2, 3]), torch.tensor([1, 2, 3], device="meta")

# %% tags=["deeper"]
with torch.device("meta"):  # meta is the default device inside this block
    printed = repr(torch.ones(3)), repr(torch.ones(3, device="cpu"))
assert "device='meta'" in printed[0] and "device=" not in printed[1], printed
printed

# %% [markdown] tags=["deeper"]
# ### Deeper: B5, `.cuda()` copies; `.cuda()` equals `.cuda(0)`

# %% [markdown] tags=["deeper"]
# The translation: 「.cuda()を使用して、CPU上のTensorをGPUに変換(コピー)することができる.」 ("With
# .cuda(), a Tensor on the CPU can be converted (copied) to the GPU.") and 「cuda(0)およびcuda()は等価である」
# ("cuda(0) and cuda() are equivalent").
#
# **Copies: true** (the original stays on the CPU; `x = x.cuda(0)` rebinds the name). **Equivalent:
# only while the current device is 0.** `.cuda()` uses the *current* device, which
# `torch.cuda.device(i)` or `set_device(i)` change. Taught in notebooks 02 and 04.
#
# **In the English d2l chapter?** In another form. It copies with `Z = X.cuda(1)`, shows that
# `Z.cuda(1) is Z` (no copy when already there), and names GPUs `torch.device(f'cuda:{i}')`, adding
# "`gpu:0` and `gpu` are equivalent", about device *names*, not about `.cuda()` and `.cuda(0)`.

# %% tags=["deeper"]
x = torch.tensor([1, 2, 3])
x_meta = x.to("meta")  # .cuda() on a GPU; meta here
x.device, x_meta.device

# %% tags=["deeper"]
if gpu := needs_cuda(2, what=".cuda() versus .cuda(0) with another current device", key="07-cuda-vs-cuda0"):
    with torch.cuda.device(1):
        shown = (x.cuda().device, x.cuda(0).device)
else:
    shown = gpu
shown

# %% [markdown] tags=["deeper"]
# ### Deeper: B6, `x.device` shows where a tensor is

# %% [markdown] tags=["deeper"]
# The translation: 「Tensorのdevice属性によって、Tensorが存在するデバイスを表示することができる.」 ("A
# Tensor's device attribute shows the device it is on.")
#
# **True.** Taught in notebook 02.
#
# **In the English d2l chapter?** Yes, for a CPU tensor (`x = torch.tensor([1, 2, 3]); x.device`).

# %% tags=["deeper"]
if gpu := needs_cuda(1, what="x.cuda(0).device", key="07-cuda0-device"):
    shown = x.cuda(0).device
else:
    display(gpu)
    shown = x.device
shown

# %% [markdown] tags=["deeper"]
# ### Deeper: B7, `device=` at creation, or `.to(device)`

# %% [markdown] tags=["deeper"]
# The translation: 「作成時にデバイスを直接指定できます.」 ("You can specify the device directly at
# creation."), then `.to(device)` as the alternative.
#
# **True**, and the chapter's `device = torch.device('cuda' if torch.cuda.is_available() else
# 'cpu')` is the idiom the course uses, decide once and carry, for CUDA only: the course asks
# `torch.accelerator` instead, so a Mac's or an Intel GPU counts too (notebook 01). Taught in notebook 02.
#
# **In the English d2l chapter?** Creation with `device=` yes (`torch.ones(2, 3, device=try_gpu())`),
# through its `try_gpu()` helper rather than this one-liner. `.to(device)` moves the model
# (`net.to(device=try_gpu())`, and `model.to(self.gpus[0])` in the trainer's `prepare_model`) and
# the data: the trainer's `prepare_batch` moves each batch with `d2l.to(a, self.gpus[0])`, d2l's
# name for `Tensor.to`. The chapter's single tensors are moved with `.cuda(1)`.

# %% tags=["deeper"]
torch.tensor([1, 2, 3], device=device).device, torch.tensor([1, 2, 3]).to(device).device

# %% [markdown] tags=["deeper"]
# ### Deeper: B8, results stay on the GPU

# %% [markdown] tags=["deeper"]
# The translation: 「GPU上のデータを演算すると、結果はGPU上に格納される.」 ("When you compute on data
# on the GPU, the result is stored on the GPU.")
#
# **True**: results live where their operands live. Taught in notebook 02.
#
# **In the English d2l chapter?** Yes: `Y + Z` on the second GPU, and "when the input is a tensor
# on the GPU, the model will calculate the result on the same GPU".

# %% tags=["deeper"]
y_meta = x_meta ** 2
y_meta.device

# %% tags=["deeper"]
if gpu := needs_accelerator(device, what="y = x ** 2 on an accelerator", key="07-square"):
    x_gpu = x.to(gpu.device)
    y_gpu = x_gpu ** 2
    shown = y_gpu
else:
    shown = gpu
shown

# %% [markdown] tags=["deeper"]
# ### Deeper: B9, mixing devices raises

# %% [markdown] tags=["deeper"]
# The translation: 「なお、異なる位置に格納されたデータは、直接計算することはできない.」 ("Note that
# data stored in different places cannot be computed together directly."), then `z = y + x.cpu()`
# raises *RuntimeError: Expected object of type torch.cuda.LongTensor but found type
# torch.LongTensor for argument #3 'other'*.
#
# **True, but that message is an old PyTorch's** (the 0.4 era, when a tensor's type named its
# device). Today the same line raises *Expected all tensors to be on the same device, but found
# at least two devices, cuda:0 and cpu!* Here, with `meta` for the GPU, in meta's wording.
#
# **In the English d2l chapter?** The rule yes ("whenever we want to operate on multiple terms,
# they need to be on the same device"; "*Do not* simply add `X` and `Y`, since this will result in
# an exception"). The `z = y + x.cpu()` example and its 2019 message are not: the English chapter
# prints no error message.

# %% tags=["deeper"]
raises(lambda: y_meta + x, RuntimeError, match="not on the expected device")

# %% tags=["deeper"]
if gpu := needs_accelerator(device, what="z = y + x.cpu() on an accelerator", key="07-add-cpu"):
    shown = raises(lambda: y_gpu + x_gpu.cpu(), RuntimeError, match="Expected all tensors to be on the same device")
else:
    shown = gpu
shown

# %% [markdown] tags=["deeper"]
# Both wordings describe the same mistake; `explain_device_error` reads either. Taught in
# notebook 05.

# %% tags=["deeper"]
old = "Expected object of type torch.cuda.LongTensor but found type torch.LongTensor for argument #3 'other'"
explain_device_error(old)

# %% [markdown] tags=["deeper"]
# ### Deeper: B10, `model.cuda()` moves a model

# %% [markdown] tags=["deeper"]
# The translation: 「Tensorと同様に、PyTorchモデルは.cudaを介してGPUに変換することもできる.」 ("Like a
# Tensor, a PyTorch model can be converted to the GPU with .cuda.")
#
# **True.** Unlike `tensor.cuda()`, `module.cuda()` moves the module **in place** (and returns
# it). Taught in notebook 03.
#
# **In the English d2l chapter?** In substance: it moves the model with `net.to(device=try_gpu())`,
# not `.cuda()`, and reads `net[0].weight.data.device`. The in-place behaviour is not mentioned.

# %% tags=["deeper"]
net = nn.Linear(3, 1)
print(list(net.parameters())[0].device)
returned = net.to("meta")  # net.cuda() on a GPU
returned is net, list(net.parameters())[0].device

# %% tags=["deeper"]
if gpu := needs_cuda(1, what="net.cuda()", key="07-net-cuda"):
    gpu_net = nn.Linear(3, 1)
    gpu_net.cuda()
    shown = list(gpu_net.parameters())[0].device
else:
    shown = gpu
shown

# %% [markdown] tags=["deeper"]
# ### Deeper: B11, "no need" for the model and its input on one device

# %% [markdown] tags=["deeper"]
# The translation: 「同様に、モデル入力のTensorとモデルが同じデバイスにあることを保証する必要はありません.そうしないと、エラーが発生します.」
# ("Likewise, there is no need to make sure the model's input Tensor and the model are on the
# same device. Otherwise, an error occurs.")
#
# **False as translated; the sentence contradicts itself** ("otherwise" has nothing to refer to
# after "no need"). Its Chinese original, 「同样的，我么需要保证模型输入的Tensor和模型都在同一设备上，否则会报错。」
# ("Likewise, we need to make sure the model's input Tensor and the model are on the same device,
# otherwise an error is raised."), says what PyTorch enforces. The chapter's own example
# (`x = torch.rand(2, 3).cuda(); net(x)`) works *because* both are on the GPU. With the model on
# one device and the input on another, it raises. Taught in notebooks 03 and 05.
#
# **In the English d2l chapter?** Not this sentence: the English chapter never says "no need". It
# says "as long as all data and parameters are on the same device, we can learn models
# efficiently" and that the framework "requires all input data for calculation to be on the same
# device".

# %% tags=["deeper"]
net = nn.Linear(3, 1, device="meta")
print(raises(lambda: net(torch.rand(2, 3)), RuntimeError, match="not on the expected device"))
net(torch.rand(2, 3).to("meta")).shape

# %% tags=["deeper"]
if gpu := needs_accelerator(device, what="the model on an accelerator, the input on the CPU", key="07-model-input"):
    net_on_device = nn.Linear(3, 1).to(gpu.device)
    print(raises(lambda: net_on_device(torch.rand(2, 3)), RuntimeError, match="Expected all tensors to be on the same device|Tensor for argument input is on cpu but expected on mps"))
    shown = net_on_device(torch.rand(2, 3).to(gpu.device))
else:
    shown = gpu
shown

# %% [markdown] tags=["deeper"]
# ### Deeper: B12, all inputs in one memory

# %% [markdown] tags=["deeper"]
# The translation's summary: 「PyTorchは、計算されたすべての入力データがメモリまたは同じグラフィックスカードのディスプレイメモリに存在することを要求します.」
# ("PyTorch requires all input data of a computation to be in (host) memory or in the memory of
# the same graphics card.")
#
# **True**, with the one exception of scalars: a Python number, or a 0-dim CPU tensor, may join
# an operation on a GPU. Taught in notebook 05.
#
# **In the English d2l chapter?** Yes, in its summary: "The deep learning framework requires all
# input data for calculation to be on the same device, be it CPU or the same GPU." The scalar
# exception is not in it.

# %% tags=["deeper"]
print(x_meta * 2, x_meta * torch.tensor(2))
raises(lambda: x_meta * torch.tensor([2]), RuntimeError, match="not on the expected device")

# %% [markdown]
# ## Summary
#
# - `device_of` is a scope for CUDA objects; it moves nothing. Ask `t.device`.
# - `with torch.device(...)` sets the default device, not the current one.
# - Every operand on one device (scalars aside); a model's input follows its parameters.
# - Run a tutorial's claim before trusting it, and check who wrote it: a translation can say the
#   opposite of its original.
#
# <!-- next-links:start, written by make pairs -->
# **Exercises:** lesson 07 has no exercises notebook; its try-it cells are its practice.
# **Next:** lesson 08, [08_one_process_per_device.ipynb](08_one_process_per_device.ipynb): One process per device: torchrun, `LOCAL_RANK`, `set_device` and DDP.
# <!-- next-links:end -->
