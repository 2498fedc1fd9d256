# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 08 · One process per device: torchrun, `LOCAL_RANK`, `set_device` and DDP
#
# When one device is not enough, PyTorch's answer is not one process juggling several GPUs: it is
# **one process per GPU**, started by `torchrun`, each process choosing its own device. Device
# handling moves into `torch.distributed`, and this is where `torch.cuda.set_device` is the right
# tool. You will learn:
#
# - what `torchrun` gives each process (`RANK`, `LOCAL_RANK`, `WORLD_SIZE`, ...);
# - how each process picks its device from `LOCAL_RANK`, and why it calls `torch.cuda.set_device`;
# - how to wrap the model in `DistributedDataParallel` with the right `device_ids`, and how to see
#   that the replicas stay in sync;
# - three mistakes and their real symptoms: every process on `cuda:0`, a tensor on a device the
#   backend does not serve, `device_ids` that do not match the model;
# - how to launch multi-process runs from a notebook without leaving processes behind.
#
# Everything here is a real `torchrun` launch of two processes: on the CPU with the gloo backend
# where there are not two GPUs, on two GPUs with NCCL where there are.
#
# | Part | Needs |
# |---|---|
# | 1. Two processes with `torchrun` | CPU only (gloo); NCCL with 2+ GPUs |
# | 2. Each process picks its device from `LOCAL_RANK` | CPU only |
# | 3. DDP: the right `device_ids`, replicas in sync | CPU only (gloo); NCCL with 2+ GPUs |
# | 4. Mistake: every process on `cuda:0` | CPU shows the choices; 2 GPUs to see NCCL refuse |
# | 5. Mistake: a tensor on a device the backend does not serve | CPU only |
# | 6. Mistake: `device_ids` that do not match the model | CPU only; 2 GPUs for the GPU variant |
# | 7. A run that hangs: timeouts and cleanup | CPU only |
#
# The scripts it launches are in `notebooks/scripts/`: open them side by side with this notebook.

# %% [markdown] tags=["course-header"]
# **Run it on a free GPU:** [Open in Colab](https://colab.research.google.com/github/pytorch-devices-course/pytorch-devices-course/blob/main/notebooks/08_one_process_per_device.ipynb) (one GPU: Runtime > Change runtime type > T4 GPU)
# · [Open in Kaggle](https://kaggle.com/kernels/welcome?src=https://github.com/pytorch-devices-course/pytorch-devices-course/blob/main/notebooks/08_one_process_per_device.ipynb) (two GPUs: Settings > Accelerator > GPU T4 x2).
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
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.torch_version import TorchVersion

from course_utils import needs_cuda, raises
from course_utils.evidence import recorded
from course_utils.distributed import (
    ddp_device_ids,
    device_for_rank,
    local_accelerator,
    shared_devices,
    source_quote,
)
from course_utils.launch import launch, process_alive

torch.__version__, dist.is_available()

# %% [markdown]
# ## 1. Two processes with `torchrun`
#
# `torchrun` (also `python -m torch.distributed.run`) starts N copies of your script and tells
# each who it is through environment variables: `RANK` (0 to `WORLD_SIZE`-1 across all machines),
# `LOCAL_RANK` (0 to N-1 on this machine), `WORLD_SIZE`, `LOCAL_WORLD_SIZE`, and `MASTER_ADDR`/
# `MASTER_PORT` where they meet. `--standalone` makes them meet on this machine, on a free port.
#
# `launch` runs it from the notebook with this kernel's Python, waits, and shows what each rank
# printed. Where there are two GPUs the script uses one per process with NCCL; otherwise `--cpu`
# keeps both processes on the CPU with gloo. This recipe is the right one, so it must succeed:
# `expect_ok()` raises (and stops the notebook) if any process did not exit with 0, even one that
# printed everything and then died at exit.

# %%
on_gpus = needs_cuda(2, what="the NCCL run with one GPU per process")
mode = [] if on_gpus else ["--cpu"]
print(on_gpus)

# %%
basics = launch("scripts/ddp_basics.py", *mode, nproc=2, timeout=120)
basics.expect_ok()

# %% [markdown]
# This is the command it ran: the kernel's own interpreter (so the same PyTorch), two processes,
# no restarts, each rank's output captured in its own file.

# %%
print(" ".join(basics.command))

# %% [markdown]
# The script ends in three steps: `barrier()` (nobody leaves while a peer is still in a
# collective), `destroy_process_group()`, then `os._exit(0)`. The last one is there because, with
# gloo, destroying the group does not stop its threads, and a thread still running while Python
# shuts down can abort the process after its work is done; `leave()` in the script says why.

# %% [markdown]
# ## 2. Each process picks its device from `LOCAL_RANK`
#
# Every process runs the same script, so the device cannot be written into it: each process reads
# its `LOCAL_RANK` and takes `cuda:LOCAL_RANK`. `LOCAL_RANK`, not `RANK`: with two machines of four
# GPUs each, `RANK` runs from 4 to 7 on the second machine, but its GPUs are still `cuda:0` to
# `cuda:3`. Without a GPU every process uses the CPU. Here, for machines with 0, 2 and 4 GPUs:

# %%
{gpus: [str(device_for_rank(local_rank, gpus)) for local_rank in range(max(gpus, 2))] for gpus in (0, 2, 4)}

# %% [markdown]
# More processes than GPUs means two processes on one GPU. `device_for_rank` refuses instead of
# wrapping round.

# %%
raises(lambda: device_for_rank(2, 2), ValueError, match="has no cuda device of its own")

# %% [markdown]
# The script asks `local_accelerator()` which accelerator this machine can run one process per
# device on. It uses `torch.accelerator` where it exists, so the same script runs on NVIDIA, AMD
# and Intel GPUs, and falls back to the CPU (also for Apple's MPS: gloo cannot reduce MPS tensors).

# %%
local_accelerator()

# %% [markdown]
# What each rank chose, and the backend that goes with it: `nccl` for CUDA tensors, `gloo` for CPU
# tensors.

# %%
basics.values("device"), basics.values("backend")

# %% [markdown]
# ### Why `torch.cuda.set_device` belongs here
#
# Earlier notebooks passed devices explicitly and avoided changing the *current* device. In a
# one-process-per-GPU script the current device is exactly what you want to set, once, first
# thing: `torch.cuda.set_device(local_rank)`. From then on `torch.device("cuda")`, `.cuda()`,
# `torch.cuda.current_device()` and the buffers NCCL allocates for itself all mean this process's
# GPU. Without it they mean `cuda:0` in every process. `all_gather_object`'s documentation says so
# (printed from the PyTorch you have):

# %%
print(source_quote(dist.all_gather_object, "it is the user's responsibility", lines=3))

# %% [markdown]
# And `barrier()`, which NCCL runs as a tiny all-reduce on some GPU, picks that GPU from the
# current device. Recent versions say what goes wrong when nobody set it:

# %%
print(source_quote(dist.barrier, "If user did not set any", lines=3))

# %% [markdown]
# On two GPUs, the first part printed `current_cuda_device=0` for rank 0 and `1` for rank 1:
# each process set its own. On the CPU there is no current device, so the script skips
# `set_device` and prints `none`.

# %%
basics.values("current_cuda_device")

# %% [markdown]
# ## 3. DDP: the right `device_ids`, replicas in sync
#
# `DistributedDataParallel(model, device_ids=...)` wants the model's device: `[i]` for a model on
# `cuda:i` (one device per process), and `None` for a CPU model. DDP's docstring says it (this
# PyTorch's copy):

# %%
print(source_quote(DDP, "For multi-device modules and CPU modules", lines=2))

# %%
[ddp_device_ids(device) for device in ("cpu", "cuda:0", "cuda:1")]

# %% [markdown]
# The script seeds each rank differently, so the two models start with **different** weights
# (`before_ddp`). Wrapping them in DDP broadcasts rank 0's parameters to every rank (`after_ddp`).

# %%
basics.values("before_ddp"), basics.expect_same("after_ddp")

# %% [markdown]
# Each rank then trains one step on its **own** data (so the losses differ), but `backward()`
# averages the gradients across ranks: every replica takes the same step and the parameters stay
# equal. `expect_same` checks that every rank printed the same checksum (and fails this notebook
# if not).

# %%
basics.values("loss"), basics.expect_same("after_step")

# %% [markdown]
# ## 4. Mistake: every process on `cuda:0`
#
# The most common multi-GPU bug is a single-GPU line left in a torchrun script:
# `device = torch.device("cuda:0")`, or `torch.device("cuda")` / `.cuda()` without
# `set_device`. Every process runs it, so every process lands on GPU 0.
# `scripts/every_rank_on_cuda0.py` has that `buggy_device` and the `fixed_device` next to it.
# With two GPUs it runs the buggy one for real with NCCL; without them it prints what each rank
# would choose on a two-GPU machine, touching no GPU.

# %%
if needs_cuda(2, what="the real every-process-on-cuda:0 run with NCCL", key="08-every-rank-cuda0"):
    everyone_on_0 = launch("scripts/every_rank_on_cuda0.py", nproc=2, timeout=60)
else:
    print(needs_cuda(2, what="the real every-process-on-cuda:0 run with NCCL"))
    everyone_on_0 = launch("scripts/every_rank_on_cuda0.py", "--pretend-gpus", "2", nproc=2, timeout=120)
    print(recorded("08-every-rank-cuda0"))
everyone_on_0

# %% [markdown]
# Read the choices back: with the bug both ranks chose `cuda:0`; with `LOCAL_RANK` each has its
# own GPU. `shared_devices` lists the GPUs that several ranks chose.

# %%
shared_devices(everyone_on_0.values("buggy")), shared_devices(everyone_on_0.values("fixed"))

# %% [markdown]
# What it looks like on GPUs. When NCCL sets up a communicator (PyTorch does that at the first
# collective) it checks that each rank has a GPU of its own, and refuses otherwise. PyTorch raises
# `torch.distributed.DistBackendError` (a `RuntimeError`); users report it (NCCL 2.17 to 2.26) as,
# for example:
#
# ```text
# torch.distributed.DistBackendError: NCCL error in: .../ProcessGroupNCCL.cpp:1691, invalid usage
# (run with NCCL_DEBUG=WARN for details), NCCL version 2.19.3
# ncclInvalidUsage: This usually reflects invalid usage of NCCL library.
# Last error:
# Duplicate GPU detected : rank 0 and rank 1 both on CUDA device 2000
# ```
#
# (the last number is the GPU's PCI bus id). That last line is NCCL's own format string,
# `Duplicate GPU detected : rank %d and rank %d both on CUDA device %lx`, read from the
# `libnccl.so.2` of NCCL 2.26.2 (the wheel torch 2.7.1 installs) and of 2.30.7 (torch 2.14.1's).
# The NCCL that torch 2.13 installs (2.29.x) lies between them and was not read here; the rest
# of the block is one user's report. On two GPUs the cell above ran this for real and
# shows what your versions print. Where nothing checks (a model left on `cuda:0` while NCCL uses
# the right GPUs, say), the symptoms are quieter: `nvidia-smi` lists every process on GPU 0, each
# with its own CUDA context, while the other GPUs sit idle; or, as `barrier()`'s comment above
# warns, a hang.

# %%
if needs_cuda(2, what="the NCCL error of the every-process-on-cuda:0 run", key="08-nccl-error"):
    print(everyone_on_0.errors or "NCCL did not refuse here: see the output above (a hang shows as a timeout).")
else:
    print(needs_cuda(2, what="the NCCL error of the every-process-on-cuda:0 run"))
    print(recorded("08-nccl-error"))

# %% [markdown]
# ## 5. Mistake: a tensor on a device the backend does not serve
#
# A process group maps each device type to a backend. `backend="nccl"` registers NCCL for CUDA
# tensors only; gloo serves CPU (and CUDA) tensors. This PyTorch's table:

# %%
{name: devices for name, devices in dist.Backend.backend_capability.items() if name in ("gloo", "nccl")}

# %% [markdown]
# So a CPU tensor passed to a collective of an NCCL group finds no backend. On two GPUs,
# `scripts/wrong_device_collective.py` does exactly that. Without GPUs it registers gloo for CUDA
# tensors only (`backend="cuda:gloo"`, the same shape as `"nccl"`), and hands it the same CPU
# tensor: the same lookup fails, with the same message.

# %%
collective = launch("scripts/wrong_device_collective.py", nproc=2, timeout=120)
collective

# %%
collective.expect_failure("RuntimeError", match="No backend type associated with device type cpu")

# %% [markdown]
# The fix is to put the tensor on this process's device first: `t.to(device)`, with `device` the
# one chosen from `LOCAL_RANK`. (Older PyTorch handed every tensor straight to its NCCL backend,
# whose own check said `Tensors must be CUDA and dense`; that check is still there, raising a
# `ValueError` in recent versions, for any tensor that reaches it.)
#
# Before failing, each rank also all-reduced a **meta** tensor, and that returned at once without
# error: a meta tensor has no data, so nothing was sent. No error is not proof of communication.
# That is PyTorch 2.13 and 2.14; PyTorch 2.7 raises `NotImplementedError` instead (*c10d::allreduce_:
# attempted to run this operator with Meta tensors*), since c10d's collectives had no meta kernels
# registered then (pytorch/pytorch#162119 registers them at import). This PyTorch:

# %%
meta_all_reduce = collective.values("meta_all_reduce")
if TorchVersion(torch.__version__) < "2.8":
    assert set(meta_all_reduce.values()) == {"NotImplementedError"}, meta_all_reduce
elif TorchVersion(torch.__version__) >= "2.13":
    assert set(meta_all_reduce.values()) == {"returned_without_error"}, meta_all_reduce
torch.__version__, meta_all_reduce

# %% [markdown]
# ## 6. Mistake: `device_ids` that do not match the model
#
# A GPU recipe copied to a CPU run keeps `device_ids=[local_rank]` while the model is on the CPU.
# DDP refuses at construction with a `ValueError` that names both. Every rank makes the same
# mistake, but the output may show only one of them failing: torchrun stops the other ranks as
# soon as the first one dies.

# %%
wrong_ids = launch("scripts/ddp_wrong_device_ids.py", nproc=2, timeout=120)
wrong_ids

# %%
wrong_ids.expect_failure("ValueError", match="device_ids and output_device arguments only work with")

# %% [markdown]
# On GPUs the mismatch is quieter: a model on `cuda:1` with `device_ids=[0]` is accepted, and DDP
# moves every forward input to `device_ids[0]`. This PyTorch's `_pre_forward` shows the move:

# %%
print(source_quote(DDP._pre_forward, "if self.device_ids:", lines=6))

# %% [markdown]
# So rank 1's forward pass gets inputs on `cuda:0` and weights on `cuda:1`, and fails with the
# cross-device error of notebook 05 (*Expected all tensors to be on the same device ...*).

# %%
if needs_cuda(2, what="the GPU variant of the device_ids mismatch", key="08-ddp-device-ids"):
    gpu_ids = launch("scripts/ddp_wrong_device_ids.py", "--gpu", nproc=2, timeout=120)
    print(gpu_ids)
    print(gpu_ids.expect_failure("RuntimeError", match="Expected all tensors to be on the same device"))
else:
    print(needs_cuda(2, what="the GPU variant of the device_ids mismatch"))
    print(recorded("08-ddp-device-ids"))

# %% [markdown]
# ## 7. A run that hangs: timeouts and cleanup
#
# A collective waits for every rank. In `scripts/hang_one_rank.py` rank 0 calls `all_reduce` and
# rank 1 never does: rank 0 waits for the process group's timeout (30 minutes by default for
# gloo). `launch(..., timeout=)` is the notebook's safety net: at the timeout it kills every
# process of the run, including the workers, which torchrun starts in sessions of their own.

# %%
hung = launch("scripts/hang_one_rank.py", nproc=2, timeout=10)
hung

# %% [markdown]
# Both workers printed their process ids first thing. None of them is alive now, and the launcher
# found no process of the run left over.

# %%
worker_pids = [int(pid) for pid in hung.values("pid").values()]
{"timed out": hung.timed_out, "worker pids": worker_pids,
 "still alive": [pid for pid in worker_pids if process_alive(pid)], "left over": list(hung.leftover_pids)}

# %% [markdown]
# In your own training scripts, `dist.init_process_group(..., timeout=datetime.timedelta(minutes=5))`
# turns such a hang into a `RuntimeError` on the waiting rank once that time has passed (with gloo:
# *Timed out waiting 300000ms for recv operation to complete*).
#
# ## Summary
#
# - One process per device: `torchrun` starts them and sets `RANK`, `LOCAL_RANK`, `WORLD_SIZE`.
# - Each process takes `cuda:LOCAL_RANK` (the CPU without GPUs), calls
#   `torch.cuda.set_device(local_rank)` first thing, and picks the backend for its device:
#   NCCL for CUDA tensors, gloo for CPU tensors.
# - `DistributedDataParallel(model, device_ids=[local_rank])` on a GPU, `device_ids=None` on the
#   CPU. DDP starts every replica from rank 0's weights and keeps them equal.
# - The symptoms: every process on `cuda:0` (NCCL: *Duplicate GPU detected*, or a hang); a tensor
#   on a device the backend does not serve (*No backend type associated with device type cpu*);
#   `device_ids` that do not match the model (DDP's `ValueError`, or on GPUs a cross-device error
#   in forward).
# - From a notebook, launch with a timeout, and make sure every process is gone afterwards.
#
# **Exercises:** `exercises/08_one_process_per_device_exercises.ipynb` (the device from
# `LOCAL_RANK`, fix every-process-on-`cuda:0`, `device_ids` for DDP, find the GPUs ranks share).
