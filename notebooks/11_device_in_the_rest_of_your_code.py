# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 11 · The device in the rest of your code
#
# You will be able to:
# - give `torch.autocast` a device *type* taken from your tensor, and say what runs in lower precision;
# - use `torch.amp` instead of the deprecated `torch.cuda.amp`;
# - say which device a random generator belongs to, and shuffle a DataLoader under a default device;
# - say why `torch.compile` compiles again when a device changes, and read its mixed-device error.
#
# <!-- readme (make pairs writes README's rows from these lines)
# learn: `torch.autocast` takes a device type (`x.device.type`), what autocast lowers on the CPU and a GPU,
# `torch.amp` instead of `torch.cuda.amp`; a random generator's device and a DataLoader's shuffle under a default
# device; `torch.compile` recompiling for another device and failing on mixed devices
# covers: `torch.autocast(device_type=x.device.type)` and why not `"cuda:0"` or a `torch.device`; which operations
# autocast runs in bfloat16 on the CPU; `torch.amp.GradScaler("cuda")` and the deprecated `torch.cuda.amp`; a
# generator's device, `manual_seed` and per-device streams; a DataLoader's shuffle under `set_default_device`
# (*Expected a 'cuda' device type for generator*); `torch.compile` guards on devices (recompiles, mixed-device
# trace errors, `eager` and `inductor`)
# -->
#
# <!-- lesson-needs:start, written by make pairs -->
# | Part | Runs for real with | GPU-only cells |
# |---|---|---|
# | 1 | 1 GPU | 1 (1 accelerator) and 1 (1 GPU) |
# | 2 | 1 GPU | 1 (1 GPU) |
# | 3 | a CPU | none |
#
# 1 cell runs on any accelerator, else meta. Without a GPU, each GPU-only cell prints SKIPPED, says what a GPU shows, then folds away the PyTorch source behind it.
# <!-- lesson-needs:end -->

# %% [markdown] tags=["course-header"]
# **Run it on a free GPU:** [Open in Colab](https://colab.research.google.com/github/pytorch-devices-course/pytorch-devices-course/blob/main/notebooks/11_device_in_the_rest_of_your_code.ipynb) (one GPU: Runtime > Change runtime type > T4 GPU)
# · [Open in Kaggle](https://kaggle.com/kernels/welcome?src=https://github.com/pytorch-devices-course/pytorch-devices-course/blob/main/notebooks/11_device_in_the_rest_of_your_code.ipynb) (two GPUs: Settings > Accelerator > GPU T4 x2).
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
import warnings

import torch
from torch import nn
from torch.utils.data import DataLoader

from course_utils.checks import check
from course_utils.claims import raises
from course_utils.devices import pick_device
from course_utils.errors import explain_device_error
from course_utils.gates import needs_accelerator, needs_cuda
# Short tracebacks: frames inside torch's own code are hidden from errors; %tb shows the full one.
# %load_ext course_utils.tracebacks

device = pick_device()  # lesson 01's idiom: decided once, carried everywhere below
torch.__version__

# %% [markdown]
# ## 1. autocast wants a device type
#
# `torch.autocast` runs some operations in a lower precision. Its first argument is a device
# *type*: `"cuda"`, `"cpu"`, `"mps"`. Passing the device itself is the usual mistake.

# %%
x = torch.randn(4, 4, device=device)
raises(lambda: torch.autocast(x.device), ValueError, match="device_type")

# %% [markdown]
# A name that is not a type at all fails too. `x.device.type` is always right.

# %%
print(raises(lambda: torch.autocast("gpu"), RuntimeError))
x.device, x.device.type

# %% [markdown]
# A device's name, `"cuda:0"`, is worse: PyTorch 2.7.1, 2.13.0 and 2.14.1 take it without a word
# (older releases refused it), but autocast runs its checks for CUDA only when the type is exactly `"cuda"`.

# %%
amp = torch.autocast("cuda:0")
amp.device, amp.device == "cuda"

# %% [markdown]
# On the CPU, autocast uses bfloat16. Only some operations switch: matrix products and
# linear layers do; softmax, additions and losses stay float32.

# %%
w = torch.randn(4, 4)
with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
    seen = {"x @ w": (x.cpu() @ w).dtype, "linear": nn.Linear(4, 4)(x.cpu()).dtype,
            "softmax": torch.softmax(x.cpu(), -1).dtype, "x + w": (x.cpu() + w).dtype}
seen

# %% tags=["try-it"]
# Try it: complete `autocast_for(device)` so it returns the torch.autocast context for `device` (a torch.device).
def autocast_for(device):
    raise NotImplementedError()  # replace this line with yours

check("11.a")

# %% [markdown]
# The old `torch.cuda.amp` names still work but are deprecated; the installed PyTorch says
# what replaces them.

# %%
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    torch.cuda.amp.GradScaler()
[str(w.message) for w in caught if w.category is FutureWarning]

# %% [markdown]
# On a GPU, autocast's default is float16 (CUDA) with a `torch.amp.GradScaler("cuda")` to keep
# small gradients from vanishing; bfloat16 needs no scaler, where the GPU has it.

# %%
if gpu := needs_accelerator(device, what="autocast on the machine's accelerator", key="11-autocast-gpu"):
    a = torch.randn(8, 8, device=gpu.device)
    with torch.autocast(device_type=gpu.device.type):
        print("a @ a:", (a @ a).dtype, "| a + a:", (a + a).dtype)
    display(gpu)
else:
    display(gpu)

# %%
if gpu := needs_cuda(1, what="a float16 training step with GradScaler", key="11-amp-cuda"):
    model = nn.Linear(8, 2).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cuda")
    with torch.autocast(device_type="cuda", dtype=torch.float16):
        loss = model(torch.randn(4, 8, device="cuda")).float().pow(2).mean()
    scaler.scale(loss).backward()
    scaler.step(opt)
    scaler.update()
    print("scale:", scaler.get_scale(), "| bfloat16 supported:", torch.cuda.is_bf16_supported())
else:
    display(gpu)

# %% [markdown]
# ## 2. A random generator has a device
#
# A generator makes numbers for one device. `torch.manual_seed` seeds the CPU's and every
# GPU's default generator at once.

# %%
g = torch.Generator(device="cpu").manual_seed(0)
g.device, torch.rand(2, generator=g)

# %% [markdown]
# A shuffling DataLoader draws twice: a seed for its workers, then the order (`torch.randperm`).
# If a notebook left `torch.set_default_device` on, both tensors are made on that device, and a
# CPU generator does not move them. Here the default is `meta`, which holds no values, so
# reading the seed fails:

# %% tags=["raises-exception"]
torch.set_default_device("meta")  # what an earlier cell left on
try:
    list(DataLoader(range(5), shuffle=True, generator=torch.Generator(device="cpu")))
finally:
    torch.set_default_device(None)

# %% [markdown]
# With `"cuda"` as the default, the same line raises *Expected a 'cuda' device type for
# generator but found 'cpu'*: the seed is drawn on CUDA with the CPU generator. The fix: don't
# leave a default device on, or iterate inside `with torch.device("cpu"):`.

# %%
torch.set_default_device("meta")
try:
    with torch.device("cpu"):
        order = [int(i) for i in DataLoader(range(5), shuffle=True, generator=torch.Generator().manual_seed(0))]
finally:
    torch.set_default_device(None)
order

# %% tags=["try-it"]
# Try it: make `loader`, a DataLoader over `range(10)` that shuffles in an order fixed by seed 11, with a CPU generator.
loader = ...
check("11.b")

# %% [markdown]
# On a GPU, one seed gives different numbers on the CPU and on CUDA: each device has its own
# generator and algorithm.

# %%
if gpu := needs_cuda(1, what="one seed, two streams; a shuffle under a CUDA default device", key="11-cuda-generator"):
    torch.manual_seed(0)
    on_cpu = torch.rand(3)
    torch.manual_seed(0)
    print("cpu:", on_cpu, "| cuda:", torch.rand(3, device="cuda").cpu())
    torch.set_default_device("cuda")
    try:
        print(raises(lambda: list(DataLoader(range(5), shuffle=True)), RuntimeError, match="device type for generator"))
    finally:
        torch.set_default_device(None)
else:
    display(gpu)

# %% [markdown]
# ## 3. torch.compile traces the device
#
# `torch.compile` records which device each input is on and guards on it: a call on another
# device compiles again. The `eager` backend traces without a compiler.

# %%
import torch._dynamo
from torch._dynamo.utils import counters

torch._dynamo.reset()
counters.clear()
scale = torch.compile(lambda t: t * 2 + 1, backend="eager")
scale(torch.ones(3)), scale(torch.ones(3)), scale(torch.ones(3, device="meta"))
counters["stats"]["unique_graphs"]  # 2: one for cpu, one for meta

# %% [markdown]
# Mixed devices fail while tracing, before anything runs, with the tracer's message:

# %%
add = torch.compile(lambda a, b: a + b, backend="eager")
mixed = raises(lambda: add(torch.ones(3), torch.ones(3, device="meta")), Exception, match="device")
print(mixed.message.splitlines()[:3])
explain_device_error(mixed.message)

# %% [markdown]
# ## Summary
#
# - `torch.autocast(device_type=x.device.type)`: a type, never a device. Use `torch.amp`, not `torch.cuda.amp`.
# - Autocast lowers matrix products and linear layers; softmax, sums and losses stay float32.
# - A generator belongs to a device; a DataLoader's shuffle draws on the default device, so don't leave one on.
# - `torch.compile` guards on devices: another device recompiles; mixed devices fail at trace time.
#
# <!-- next-links:start, written by make pairs -->
# **Exercises:** [11_device_in_the_rest_of_your_code_exercises.ipynb](11_device_in_the_rest_of_your_code_exercises.ipynb).
# **Next:** lesson 12, [12_which_gpu_which_build.ipynb](12_which_gpu_which_build.ipynb): Which GPU, which build.
# <!-- next-links:end -->

# %% [markdown] tags=["deeper"]
# ### Deeper: which operations autocast lowers

# %% [markdown] tags=["deeper"]
# Each backend keeps a list of operations that run in the lower precision (matrix products,
# convolutions) and a list that run in float32; the rest mostly keep the dtype they are
# given. Hand the CPU's bfloat16 to a few: `mse_loss` and `prod` are on its float32 list,
# `layer_norm` and `log_softmax` are not (read from the installed PyTorch):

# %% tags=["deeper"]
q = torch.randn(2, 3, 8)
with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
    lowered = {"bmm": torch.bmm(q, q.transpose(1, 2)).dtype, "conv1d": nn.Conv1d(3, 3, 3)(q).dtype}
    b = q.bfloat16()
    given_bf16 = {"mse_loss": nn.functional.mse_loss(b, b).dtype, "prod": b.prod().dtype,
                  "layer_norm": nn.functional.layer_norm(b, (8,)).dtype, "log_softmax": torch.log_softmax(b, -1).dtype}
lowered, given_bf16

# %% [markdown] tags=["deeper"]
# ### Deeper: reading a recompile

# %% [markdown] tags=["deeper"]
# `torch._logging.set_logs(recompiles=True)` prints why a function compiled again: the guard
# that failed names the tensor and its dispatch keys (`CPU` against `Meta`).

# %% tags=["deeper"]
torch._dynamo.reset()
torch._logging.set_logs(recompiles=True)
try:
    shift = torch.compile(lambda t: t - 1, backend="eager")
    shift(torch.ones(2)), shift(torch.ones(2, device="meta"))
finally:
    torch._logging.set_logs()

# %% [markdown] tags=["deeper"]
# ### Deeper: inductor, the compiler that makes code

# %% [markdown] tags=["deeper"]
# The default backend, `inductor`, writes C++ for the CPU (it needs a C++ compiler) and Triton
# for GPUs. The first call takes seconds; later calls reuse the code. Which backend ran:

# %% tags=["deeper"]
import shutil

if shutil.which("g++") or shutil.which("c++"):
    torch._dynamo.reset()
    compiled = torch.compile(lambda t: t * 2 + 1)  # backend="inductor", the default
    print("inductor on the CPU:", compiled(torch.ones(3)))
else:
    print("No C++ compiler on this machine: inductor cannot build CPU code; backend='eager' still traces.")
