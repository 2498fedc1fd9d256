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
# You will be able to:
#
# - start one process per device with `torchrun`, on one machine or two;
# - pick each process's device from `LOCAL_RANK`, not `RANK`, and use DDP;
# - recognise three classic mistakes by their errors.
#
# <!-- readme (make pairs writes README's rows from these lines)
# learn: one process per GPU: `torchrun`, `RANK` and `LOCAL_RANK` (two "machines" on localhost), `set_device`, DDP
# `device_ids`, the real errors
# covers: one process per GPU: `torchrun`, `LOCAL_RANK`, `torch.cuda.set_device`, DDP `device_ids`; the real
# errors of every rank on `cuda:0`, a tensor on a device the backend does not serve, mismatched `device_ids`
# -->
#
# <!-- lesson-needs:start, written by make pairs -->
# | Part | Runs for real with | GPU-only cells |
# |---|---|---|
# | 1 | a CPU | none |
# | 2 | a CPU | none |
# | 3 | a CPU | none |
# | 4 | a CPU | none |
# | 5 | a CPU | none |
# | 6 | 2 GPUs | 2 (2 GPUs); in Deeper: 1 (2 GPUs) |
# | 7 | a CPU | none |
#
# Without a GPU, each GPU-only cell prints SKIPPED, says what a GPU shows, then a real GPU's output from a public report, not run here (1 of 3 cells), then the folded PyTorch source.
# <!-- lesson-needs:end -->

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

from course_utils.checks import check
from course_utils.devices import pick_device
from course_utils.distributed import local_accelerator, source_quote
from course_utils.gates import needs_cuda
from course_utils.launch import find_script
from course_utils.launch import launch, launch_machines
from course_utils.processes import process_alive
# Short tracebacks: frames inside torch's own code are hidden from errors; %tb shows the full one.
# %load_ext course_utils.tracebacks

device = pick_device()  # lesson 01's idiom, for this notebook's process; each torchrun process picks its own
torch.__version__, dist.is_available()

# %% [markdown]
# ## 1. Two processes with `torchrun`
#
# `torchrun` starts N copies of your script and tells each who it is through environment
# variables: `RANK`, `LOCAL_RANK`, `WORLD_SIZE`. In a terminal:
#
# ```bash
# torchrun --standalone --nproc-per-node 2 scripts/ddp_basics.py --cpu
# ```
#
# `launch` runs it from the notebook, with a timeout, and shows each process's output.
# The scripts sit in `scripts/` beside this notebook in your workspace (on Colab or Kaggle:
# `print(find_script("scripts/ddp_basics.py").read_text())` from `course_utils.launch`).

# %%
on_gpus = needs_cuda(2, what="the NCCL run with one GPU per process")
mode = [] if on_gpus else ["--cpu"]
basics = launch("scripts/ddp_basics.py", *mode, nproc=2, timeout=300)
basics.expect_ok()

# %% [markdown] tags=["deeper"]
# ### Deeper: the exact command, and why the scripts end with `os._exit`

# %% [markdown] tags=["deeper"]
# `launch` uses the kernel's own interpreter (so the same PyTorch), no restarts, and each rank's
# output in its own file. `expect_ok()` raises if any process did not exit with 0, even one that
# printed everything and then died at exit. The scripts end in `barrier()`,
# `destroy_process_group()`, then `os._exit(0)`: with gloo, destroying the group does not stop
# its threads, and a thread still running while Python shuts down can abort the process after
# its work is done; `leave()` in `scripts/ddp_basics.py` says why.

# %% tags=["deeper"]
print(" ".join(basics.command))

# %% [markdown]
# ## 2. Each process picks its device from `LOCAL_RANK`
#
# Each process reads `LOCAL_RANK` and takes `cuda:LOCAL_RANK` (the CPU without GPUs), with the
# backend that serves it: `nccl` for CUDA, `gloo` for CPU.

# %%
basics.values("local_rank"), basics.values("device"), basics.values("backend")

# %% [markdown] tags=["deeper"]
# ### Deeper: the lines that choose, and `local_accelerator`

# %% [markdown] tags=["deeper"]
# `scripts/ddp_basics.py` chooses by hand, as a real training script does: the lines below, read
# from the script itself. More processes than GPUs would put two processes on one GPU, so it
# stops instead of wrapping round. `local_accelerator()` uses `torch.accelerator` where it exists,
# so the same script runs on NVIDIA, AMD and Intel GPUs, and falls back to the CPU (also for
# Apple's MPS: gloo cannot reduce MPS tensors). Exercise 08.1 asks you to write the choice.

# %% tags=["deeper"]
script = find_script("scripts/ddp_basics.py").read_text().splitlines()
start = next(i for i, line in enumerate(script) if "local_accelerator()" in line)
print("\n".join(script[start : start + 5]))
local_accelerator()

# %% [markdown]
# ## 3. Two machines: `RANK` counts on, `LOCAL_RANK` starts again
#
# One `torchrun` runs on each machine, all meeting at machine 0's address. Here two play two
# machines:
#
# ```bash
# torchrun --nnodes 2 --node-rank 0 --nproc-per-node 2 --master-addr 127.0.0.1 --master-port 29500 scripts/two_machines.py
# ```
#
# The all-reduce of every `RANK` (0+1+2+3 = 6) proves one group of four.

# %%
machines = launch_machines("scripts/two_machines.py", machines=2, nproc=2, timeout=300).expect_ok()
machines.table("rank", "local_rank", "world_size", "all_reduce")

# %% [markdown]
# **Try it:** write the second machine's command, as one string.

# %% tags=["try-it"]
# Try it: the torchrun command of machine 1, e.g. "torchrun --nnodes ..."
second = ...
check("08.b")

# %% [markdown]
# Choosing the device from `RANK` is a bug: each machine has only `cuda:0` and `cuda:1`, so ranks
# 2 and 3 would ask for GPUs that do not exist there. `LOCAL_RANK` is right on every machine.

# %%
machines.table("rank", "from_rank", "from_rank_exists", "from_local_rank")

# %% [markdown]
# **Try it:** write `device_from_env(env)`, the GPU for the process whose torchrun variables are
# `env` (a dict of strings, like `os.environ`), on these two-GPU machines.

# %% tags=["try-it"]
# Try it: replace the raise with your line, returning this process's GPU as a torch.device.
def device_from_env(env):
    raise NotImplementedError()

check("08.a")

# %% [markdown] tags=["deeper"]
# ### Deeper: which rendezvous

# %% [markdown] tags=["deeper"]
# `--master-addr`/`--master-port` with `--node-rank` is torchrun's *static* rendezvous (its
# default `--rdzv-backend`), in every torchrun from 2.7.1 to 2.14.1: machine 0 hosts the store,
# and node ranks are exactly the ones given, so machine 1 always holds RANKs 2 and 3. The
# dynamic form (`--rdzv-backend c10d --rdzv-endpoint HOST:PORT --rdzv-id JOB`) assigns node
# ranks by arrival instead. `launch_machines` picks a free port, starts one `launch` per machine
# (each in its own session, killed at its timeout), and waits for both. Machine 1's torchrun may
# log *Error waiting on exit barrier* when machine 0 closes the store first; it still exits 0.

# %% tags=["deeper"]
for node, run in enumerate(machines.machines):
    print(node, " ".join(run.command[3:13]))

# %% [markdown]
# ## 4. `torch.cuda.set_device` belongs here
#
# Call `torch.cuda.set_device(local_rank)` first thing: then `"cuda"`, `.cuda()` and NCCL's
# buffers mean this process's GPU, not `cuda:0`. On the CPU the script prints `none`.

# %%
basics.values("current_cuda_device")

# %% [markdown] tags=["deeper"]
# ### Deeper: what PyTorch's own documentation says

# %% [markdown] tags=["deeper"]
# `all_gather_object`'s documentation, and `barrier()` (which NCCL runs as a tiny all-reduce on
# the current device), printed from the PyTorch you have:

# %% tags=["deeper"]
print(source_quote(dist.all_gather_object, "it is the user's responsibility", lines=3))
print(source_quote(dist.barrier, "If user did not set any", lines=3))

# %% [markdown]
# ## 5. DDP: the right `device_ids`, replicas in sync
#
# `DistributedDataParallel(model, device_ids=[i])` for a model on `cuda:i`, `device_ids=None` for
# a CPU model. Ranks start with different weights; DDP copies rank 0's, and after one step on
# different data the replicas are still equal.

# %%
basics.values("device_ids"), basics.values("before_ddp"), basics.expect_same("after_ddp"), basics.expect_same("after_step")

# %% [markdown] tags=["deeper"]
# ### Deeper: DDP's docstring, and the script's `device_ids`

# %% tags=["deeper"]
print(source_quote(DDP, "For multi-device modules and CPU modules", lines=2))
print(next(line.strip() for line in script if "DDP(model" in line))

# %% [markdown]
# ## 6. Three mistakes, with their real errors
#
# Collectives need a process group first. In this notebook's own process there is none:

# %% tags=["raises-exception"]
dist.all_reduce(torch.ones(1))

# %% [markdown]
# ### Every process on `cuda:0`
#
# A single-GPU line (`"cuda:0"`, or `"cuda"` without `set_device`) left in a torchrun script. Without two GPUs it prints each rank's choice.

# %%
if gpu := needs_cuda(2, what="the real every-process-on-cuda:0 run with NCCL", key="08-every-rank-cuda0"):
    everyone_on_0 = launch("scripts/every_rank_on_cuda0.py", nproc=2, timeout=120)
else:
    display(gpu)
    everyone_on_0 = launch("scripts/every_rank_on_cuda0.py", "--pretend-gpus", "2", nproc=2, timeout=300)
everyone_on_0.values("buggy"), everyone_on_0.values("fixed")

# %% [markdown]
# On GPUs NCCL refuses two processes on one GPU, in words that depend on the NCCL library your
# torch installed: *Duplicate GPU detected : rank 0 and rank 1 both on CUDA device ...* (torch
# 2.7.1's NCCL), *Multiple Ranks are using the same GPU/Partition* (torch 2.14.1's).

# %%
if gpu := needs_cuda(2, what="the NCCL error of the every-process-on-cuda:0 run", key="08-nccl-error"):
    print(everyone_on_0.errors or "NCCL did not refuse here: see the output above (a hang shows as a timeout).")
else:
    display(gpu)

# %% [markdown] tags=["deeper"]
# ### Deeper: the NCCL message, where it comes from

# %% [markdown] tags=["deeper"]
# PyTorch raises `torch.distributed.DistBackendError` (a `RuntimeError`); users report it (NCCL
# 2.17 to 2.26) as, for example:
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
# `Duplicate GPU detected : rank %d and rank %d both on CUDA device %lx`, read in the
# `libnccl.so.2` of NCCL 2.26.2 (the wheel torch 2.7.1 installs); the rest of the block is one
# user's report. NCCL 2.30.7 (torch 2.14.1's) has no such string: it says *Multiple Ranks are
# using the same GPU/Partition. Set NCCL_MULTI_RANK_GPU_ENABLE=1 to enable this configuration.*
# The NCCL releases between them (torch 2.8 to 2.13) were not read here. Where nothing checks (a model left on `cuda:0` while NCCL
# uses the right GPUs, say), the symptoms are quieter: `nvidia-smi` lists every process on GPU 0,
# each with its own CUDA context, while the other GPUs sit idle; or, as `barrier()`'s comment
# warns, a hang.

# %% [markdown]
# ### A tensor on a device the backend does not serve
#
# A CPU tensor handed to an NCCL group (here gloo registered for CUDA only, `"cuda:gloo"`). A
# rank's real traceback:

# %%
collective = launch("scripts/wrong_device_collective.py", nproc=2, timeout=300)
collective.expect_failure("RuntimeError", match="No backend type associated with device type cpu")
print(collective.rank(min(collective.errors)).stderr.strip()[-1500:])

# %% [markdown]
# The fix: `t.to(device)` first, with `device` chosen from `LOCAL_RANK`.
#
# ### `device_ids` that do not match the model
#
# `device_ids=[local_rank]` kept for a CPU model. DDP refuses at construction; torchrun then stops the other ranks.

# %%
wrong_ids = launch("scripts/ddp_wrong_device_ids.py", nproc=2, timeout=300)
wrong_ids.expect_failure("ValueError", match="device_ids and output_device arguments only work with")

# %% [markdown] tags=["deeper"]
# ### Deeper: the backend table, meta tensors, and the GPU variant of `device_ids`

# %% [markdown] tags=["deeper"]
# A process group maps each device type to a backend; this PyTorch's table is below. (Older
# PyTorch handed every tensor straight to its NCCL backend, whose own check said *Tensors must be
# CUDA and dense*; that check is still there, raising a `ValueError` in recent versions.)

# %% tags=["deeper"]
{name: devices for name, devices in dist.Backend.backend_capability.items() if name in ("gloo", "nccl")}

# %% [markdown] tags=["deeper"]
# Before failing, each rank also all-reduced a **meta** tensor, and that returned at once without
# error: a meta tensor has no data, so nothing was sent. No error is not proof of communication.
# That is PyTorch 2.13 and 2.14; PyTorch 2.7 raises `NotImplementedError` instead (*c10d::allreduce_:
# attempted to run this operator with Meta tensors*), since c10d's collectives had no meta kernels
# registered then (pytorch/pytorch#162119 registers them at import). This PyTorch:

# %% tags=["deeper"]
meta_all_reduce = collective.values("meta_all_reduce")
if TorchVersion(torch.__version__) < "2.8":
    assert set(meta_all_reduce.values()) == {"NotImplementedError"}, meta_all_reduce
elif TorchVersion(torch.__version__) >= "2.13":
    assert set(meta_all_reduce.values()) == {"returned_without_error"}, meta_all_reduce
torch.__version__, meta_all_reduce

# %% [markdown] tags=["deeper"]
# On GPUs the `device_ids` mismatch is quieter: a model on `cuda:1` with `device_ids=[0]` is
# accepted, and DDP moves every forward input to `device_ids[0]` (this PyTorch's `_pre_forward`
# below), so rank 1's forward pass gets inputs on `cuda:0` and weights on `cuda:1`, and fails with
# the cross-device error of notebook 05.

# %% tags=["deeper"]
print(source_quote(DDP._pre_forward, "if self.device_ids:", lines=6))

# %% tags=["deeper"]
if gpu := needs_cuda(2, what="the GPU variant of the device_ids mismatch", key="08-ddp-device-ids"):
    gpu_ids = launch("scripts/ddp_wrong_device_ids.py", "--gpu", nproc=2, timeout=120)
    print(gpu_ids)
    print(gpu_ids.expect_failure("RuntimeError", match="Expected all tensors to be on the same device"))
else:
    display(gpu)

# %% [markdown]
# ## 7. A run that hangs: timeouts and cleanup
#
# A collective waits for every rank. In `scripts/hang_one_rank.py` rank 1 never joins rank 0's
# `all_reduce`. `launch(..., timeout=)` kills every process of the run at the timeout.

# %%
hung = launch("scripts/hang_one_rank.py", nproc=2, timeout=10)
worker_pids = [int(pid) for pid in hung.values("pid").values()]
{"timed out": hung.timed_out, "still alive": [pid for pid in worker_pids if process_alive(pid)],
 "left over": list(hung.leftover_pids)}

# %% [markdown] tags=["deeper"]
# ### Deeper: a timeout in your own scripts

# %% [markdown] tags=["deeper"]
# gloo's default timeout is 30 minutes. `dist.init_process_group(...,
# timeout=datetime.timedelta(minutes=5))` turns such a hang into a `RuntimeError` on the waiting
# rank (with gloo: *Timed out waiting 300000ms for recv operation to complete*). torchrun starts
# its workers in sessions of their own, so `launch` finds them by a tag in their environment.

# %% [markdown]
# ## Summary
#
# - `torchrun` sets `RANK` (across machines) and `LOCAL_RANK` (per machine).
# - Device from `LOCAL_RANK`, `set_device` first; DDP `device_ids=[local_rank]`, `None` on CPU.
# - Mistakes: every process on `cuda:0`; a tensor the backend does not serve; wrong `device_ids`.
# - Launch with a timeout; leave no process behind.
#
# <!-- next-links:start, written by make pairs -->
# **Exercises:** [08_one_process_per_device_exercises.ipynb](08_one_process_per_device_exercises.ipynb).
# **Next:** lesson 09, [09_data_loading_and_memory.ipynb](09_data_loading_and_memory.ipynb): Data loading and device memory.
# <!-- next-links:end -->
