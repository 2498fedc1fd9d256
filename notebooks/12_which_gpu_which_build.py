# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 12 · Which GPU, which build
#
# You will be able to:
# - read what your torch was built for: CUDA or ROCm, cuDNN, the GPU architectures it has code for;
# - say why a GPU that `is_available()` still fails with *no kernel image*, and which wheel fixes it;
# - pick one GPU by nvidia-smi's number, by UUID, or on AMD, without surprises;
# - tell CUDA, ROCm, XPU and MPS apart from inside Python.
#
# <!-- readme (make pairs writes README's rows from these lines)
# learn: what a wheel was built for (`torch.version.cuda`/`.hip`, cuDNN, `get_arch_list()`) against the GPU's
# capability; *no kernel image is available* and the `sm_XX` warning, and which wheel fixes them; nvidia-smi's
# numbering versus CUDA's (`CUDA_DEVICE_ORDER`), UUIDs and MIG; ROCm's `"cuda"` device, XPU, `torch.accelerator`
# covers: `torch.version.cuda`, `torch.version.hip`, `torch.backends.cudnn.version()`,
# `torch.cuda.get_arch_list()` against `get_device_capability()` (same major, newer minor; PTX) and the driver;
# *no kernel image is available for execution on the device* and PyTorch's start-up warnings, read from each
# release, and the wheel that fixes them; `CUDA_VISIBLE_DEVICES` by index, UUID and MIG name as PyTorch parses it,
# `CUDA_DEVICE_ORDER=PCI_BUS_ID`; `HIP_VISIBLE_DEVICES` and `ROCR_VISIBLE_DEVICES`; ROCm's `"cuda"` device,
# `torch.xpu`, `torch.accelerator`; MPS's `PYTORCH_ENABLE_MPS_FALLBACK` and `PYTORCH_MPS_HIGH_WATERMARK_RATIO`
# -->
#
# <!-- lesson-needs:start, written by make pairs -->
# | Part | Runs for real with | GPU-only cells |
# |---|---|---|
# | 1 | a CPU | none |
# | 2 | 1 GPU | 1 (1 GPU) |
# | 3 | a CPU | none |
# | 4 | a CPU | none |
#
# Without a GPU, each GPU-only cell prints SKIPPED, says what a GPU shows, then folds away the PyTorch source behind it.
# <!-- lesson-needs:end -->

# %% [markdown] tags=["course-header"]
# **Run it on a free GPU:** [Open in Colab](https://colab.research.google.com/github/pytorch-devices-course/pytorch-devices-course/blob/main/notebooks/12_which_gpu_which_build.ipynb) (one GPU: Runtime > Change runtime type > T4 GPU)
# · [Open in Kaggle](https://kaggle.com/kernels/welcome?src=https://github.com/pytorch-devices-course/pytorch-devices-course/blob/main/notebooks/12_which_gpu_which_build.ipynb) (two GPUs: Settings > Accelerator > GPU T4 x2).
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
import os

import torch

from course_utils.builds import WORKSTATION, cuda_devices, kernels_for, read_build, torch_build_warnings, visible_indices
from course_utils.checks import check
from course_utils.claims import raises
from course_utils.devices import pick_device
from course_utils.errors import explain_device_error
from course_utils.gates import needs_cuda

device = pick_device()  # lesson 01's idiom: decided once, carried everywhere below
torch.__version__

# %% [markdown]
# ## 1. What this torch was built for
#
# A wheel is built for one GPU platform. `torch.version.cuda` is the CUDA it was compiled with
# (`None` on CPU and AMD wheels), `torch.version.hip` is set on AMD's ROCm wheels, and cuDNN
# comes with CUDA wheels. None of this needs a GPU to read:

# %%
torch.version.cuda, torch.version.hip, torch.backends.cudnn.version()

# %% [markdown]
# The architectures it has compiled GPU code for, `sm_XY` for capability X.Y, are in
# `torch.cuda.get_arch_list()`. On a CPU wheel the list is empty; on a CUDA wheel of 2.14.1 it
# reads `sm_75 ... sm_120` even without a GPU (2.7.1 answers `[]` until a GPU is there).
# `read_build()` gathers all of it:

# %%
build = read_build()
build.platform, build.arch_list

# %% [markdown]
# The driver is the other half: a wheel built with CUDA 13.0 needs a driver for CUDA 13 (nvidia-smi's
# "CUDA Version" is the newest its driver supports). Too old a driver makes `is_available()` False,
# with a warning that says so (*The NVIDIA driver on your system is too old*).

# %% [markdown]
# ## 2. A wheel's architectures and your GPU
#
# `is_available()` only says the driver found a GPU. Whether *this wheel* has code for it is
# another question: NVIDIA code built for `sm_80` runs on 8.0 and 8.6 (same major, same or newer
# minor) but not on 9.0, and nothing built for 9.0 runs on an older GPU.

# %%
cu126 = ["sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90"]  # torch 2.7.1+cu126's list
{"H100 (9.0)": kernels_for(cu126, (9, 0)), "RTX 4090 (8.9)": kernels_for(cu126, (8, 9)),
 "RTX 5090 (12.0)": kernels_for(cu126, (12, 0))}

# %% [markdown]
# An RTX 5090 with a CUDA 12.6 wheel: `is_available()` is True, and every kernel then fails with
# *CUDA error: no kernel image is available for execution on the device*. PyTorch warns first,
# when CUDA starts. Here its own start-up checks run on this machine, with `torch.cuda` answering
# for that GPU; the warning's first line:

# %%
warned = torch_build_warnings("NVIDIA GeForce RTX 5090", (12, 0), cu126)
[w.splitlines()[0] for w in warned]

# %% [markdown]
# The fix is another wheel, never your code: one whose list holds your GPU. From 2.8.0 the first
# warning names the CUDA builds of your release that fit, and from 2.13.0 with their
# `pip install ... --index-url` (printed in the Deeper part below). An old GPU needs an older
# release. The explainer knows them:

# %%
explain_device_error(warned[-1])

# %% tags=["try-it"]
# Try it: complete `has_kernels(arch_list, capability)`: True when some entry of the list runs on a GPU of capability (major, minor).
def has_kernels(arch_list, capability):
    raise NotImplementedError()  # replace this line with yours

check("12.a")

# %% [markdown]
# On a CUDA GPU, the cell reads the GPU's capability and name against the wheel's list.

# %%
if gpu := needs_cuda(1, what="the GPU's capability against the wheel's architectures", key="12-read-gpu"):
    cap = torch.cuda.get_device_capability(0)
    print(torch.cuda.get_device_name(0), cap, "| wheel:", torch.cuda.get_arch_list(),
          "| runs:", kernels_for(torch.cuda.get_arch_list(), cap))
else:
    display(gpu)

# %% [markdown]
# ## 3. Which GPU is cuda:0?
#
# nvidia-smi numbers GPUs by PCI bus id. CUDA, by default (`CUDA_DEVICE_ORDER=FASTEST_FIRST`),
# numbers them fastest first, and `CUDA_VISIBLE_DEVICES` indices use *CUDA's* numbering. On a
# machine with mixed GPUs the two disagree (one with two A6000s and two RTX 3090s, where PyTorch's
# cuda:0 was nvidia-smi's GPU 1: <https://mjunya.com/posts/2021-12-13-multi-gpu-order>). Here:

# %%
WORKSTATION.nvidia_smi(), [g.name for g in cuda_devices(WORKSTATION, {})]

# %% [markdown]
# So `CUDA_VISIBLE_DEVICES=1`, meant as nvidia-smi's RTX 4090, gives an A4000. Two fixes:
# `CUDA_DEVICE_ORDER=PCI_BUS_ID` (CUDA counts as nvidia-smi does), or name the GPU by UUID.

# %%
[g.name for g in cuda_devices(WORKSTATION, {"CUDA_VISIBLE_DEVICES": "1"})]

# %% tags=["try-it"]
# Try it: make `env`, the environment variables (a dict of str) that give a program on WORKSTATION only nvidia-smi's GPU 1, as cuda:0.
env = ...
check("12.b")

# %% [markdown]
# PyTorch reads the variable itself, to count GPUs before CUDA starts. Its reader, run here on
# strings: indices, a UUID or a unique prefix of one (`GPU-8d2e`), a MIG instance (`MIG-...`, one
# slice of a GPU split by MIG); a repeat hides everything.

# %%
{mask: visible_indices(mask) for mask in ["1,0", "GPU-8d2e", "MIG-5c1a9e2f", "0,0"]}

# %% [markdown]
# ## 4. AMD, Intel and torch.accelerator
#
# On a ROCm wheel, AMD GPUs answer to `torch.cuda`: the device string is `"cuda"`,
# `torch.cuda.is_available()` is True, `torch.version.cuda` is None and `torch.version.hip` is
# set. Intel GPUs are `"xpu"` (`torch.xpu`); Macs are `"mps"`. `torch.accelerator` names the
# wheel's accelerator (a CUDA wheel says `cuda` even with no GPU); `is_available()` says if it works:

# %%
torch.accelerator.current_accelerator(), torch.accelerator.is_available(), torch.xpu.is_available()

# %% [markdown]
# ## Summary
#
# - `torch.version.cuda` / `.hip` and `get_arch_list()` say what the wheel was built for; no GPU needed.
# - `is_available()` is not enough: the GPU's `sm_XY` must be covered by the wheel's list, or it is *no kernel image*.
# - nvidia-smi counts by PCI bus, CUDA fastest first: set `CUDA_DEVICE_ORDER=PCI_BUS_ID`, or use UUIDs.
# - AMD GPUs are `"cuda"` devices (check `torch.version.hip`); Intel's are `"xpu"`.
#
# <!-- next-links:start, written by make pairs -->
# **Exercises:** [12_which_gpu_which_build_exercises.ipynb](12_which_gpu_which_build_exercises.ipynb).
# **Next:** this is the last lesson. Back to [the course README](../README.md), where every lesson is listed with what it covers.
# <!-- next-links:end -->

# %% [markdown] tags=["deeper"]
# ### Deeper: PyTorch's two start-up checks

# %% [markdown] tags=["deeper"]
# When CUDA starts, `torch/cuda/__init__.py` runs `_check_capability` and `_check_cubins`. The
# second gives the `sm_XX ... is not compatible` warning in every release read here. The first
# changed: 2.7.1's warned only for a GPU too old; 2.8.0 to 2.10.0 compared the GPU's capability
# with the lowest and highest entries of the list, so they also warned for a GPU of the newest
# entry's major version and a newer minor, which runs that code (a 12.1 GPU on a build up to
# `sm_120`: a false alarm, and the explainer says so); from 2.11.0 it lists what each compiled
# architecture runs on and which CUDA builds of this release would fit. Both, in full:

# %% tags=["deeper"]
print("\n\n".join(warned))

# %% [markdown] tags=["deeper"]
# A `compute_XY` entry is PTX: the driver compiles it for any newer GPU, so a wheel with PTX runs
# on a GPU newer than its list (slowly at first). PyTorch's release wheels ship `sm_` entries only.

# %% tags=["deeper"]
kernels_for(["sm_90", "compute_90"], (12, 0)), torch.cuda.get_gencode_flags()

# %% [markdown] tags=["deeper"]
# ### Deeper: ROCm's two variables

# %% [markdown] tags=["deeper"]
# ROCm has two: `ROCR_VISIBLE_DEVICES` filters first, then `HIP_VISIBLE_DEVICES` picks among
# what is left (`CUDA_VISIBLE_DEVICES` works too). PyTorch's reader, as a ROCm wheel runs it:

# %% tags=["deeper"]
visible_indices(None, hip=True, ROCR_VISIBLE_DEVICES="0,1,2"), visible_indices(None, hip=True, ROCR_VISIBLE_DEVICES="2,3", HIP_VISIBLE_DEVICES="1")

# %% tags=["deeper"]
too_many = raises(lambda: visible_indices(None, hip=True, ROCR_VISIBLE_DEVICES="0", HIP_VISIBLE_DEVICES="0,1"),
                  RuntimeError, match="HIP_VISIBLE_DEVICES contains more devices")
explain_device_error(too_many.message)

# %% [markdown] tags=["deeper"]
# ### Deeper: Apple's GPU, an operator it lacks, and its memory limit

# %% [markdown] tags=["deeper"]
# An operator MPS does not have raises a NotImplementedError naming `PYTORCH_ENABLE_MPS_FALLBACK=1`;
# set before torch starts, it runs such operators on the CPU. MPS stops at a share of the Mac's
# memory: `PYTORCH_MPS_HIGH_WATERMARK_RATIO` sets it. Read in PyTorch's macOS wheels:

# %% tags=["deeper"]
from course_utils.evidence.sources import MAC_FACTS

print(MAC_FACTS["mps-fallback"].says, MAC_FACTS["mps-out-of-memory"].says, sep="\n\n")
{name: os.environ.get(name) for name in ("PYTORCH_ENABLE_MPS_FALLBACK", "PYTORCH_MPS_HIGH_WATERMARK_RATIO")}
