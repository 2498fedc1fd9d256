# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Exercises 06 · Transfers and timing
#
# Each exercise asks for one function. Write it where it says `# YOUR CODE HERE`, run the
# cell, then run the check cell below it: it prints a **PASS**, or a **FAIL** with a hint.
# Every exercise can be solved on a machine without a GPU: exercises 06.1 and 06.2 are checked
# on `FakeAsyncDevice`, the course's simulated GPU stream, where a missing `synchronize()` gives
# a measurably wrong answer. Notebook: `notebooks/06_transfers_and_timing.ipynb`.

# %% [markdown] tags=["course-header"]
# **Run it on a free GPU:** [Open in Colab](https://colab.research.google.com/github/pytorch-devices-course/pytorch-devices-course/blob/main/solutions/06_transfers_and_timing_exercises.ipynb) (one GPU: Runtime > Change runtime type > T4 GPU)
# · [Open in Kaggle](https://kaggle.com/kernels/welcome?src=https://github.com/pytorch-devices-course/pytorch-devices-course/blob/main/solutions/06_transfers_and_timing_exercises.ipynb) (two GPUs: Settings > Accelerator > GPU T4 x2).
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
import statistics

import torch

from course_utils import check

# %% [markdown]
# ## Exercise 06.1 · Time asynchronous work honestly
#
# This timing function is wrong on a GPU:
#
# ```python
# def time_per_call(op, clock, synchronize, repeats=5):
#     times = []
#     for _ in range(repeats):
#         start = clock()
#         op()
#         times.append(clock() - start)
#     return sum(times) / len(times)
# ```
#
# Fix it: return the **median** seconds per call of `op`, using the `clock` and `synchronize`
# functions you are given (on a GPU they would be `time.perf_counter` and
# `torch.cuda.synchronize`), so that neither earlier queued work nor unfinished work of `op`
# distorts the result. (To try it by hand: `fake = FakeAsyncDevice()` from
# `course_utils.transfer`, then `time_per_call(fake.kernel(2e-3), fake.clock, fake.synchronize)`
# should give 0.002.)

# %%
def time_per_call(op, clock, synchronize, repeats: int = 5) -> float:
    ### BEGIN SOLUTION
    times = []
    for _ in range(repeats):
        synchronize()
        start = clock()
        op()
        synchronize()
        times.append(clock() - start)
    return statistics.median(times)
    ### END SOLUTION

# %%
check("06.1")

# %% [markdown]
# ## Exercise 06.2 · Make device-to-host copies safe
#
# Write `copy_all_to_host(sources, buffers, synchronize)`: copy each device tensor
# `sources[i]` into the pinned host tensor `buffers[i]` with `non_blocking=True`, and return the
# list of buffers **only when it is safe to read them**. Synchronize once, not once per copy:
# the copies queue up back to back and one wait covers them all.

# %%
def copy_all_to_host(sources, buffers, synchronize):
    ### BEGIN SOLUTION
    for src, buf in zip(sources, buffers):
        buf.copy_(src, non_blocking=True)
    synchronize()
    return list(buffers)
    ### END SOLUTION

# %%
check("06.2")

# %% [markdown]
# ## Exercise 06.3 · Bandwidth from bytes and seconds
#
# Write `gbps(nbytes, seconds)`: the bandwidth in GB/s (10⁹ bytes per second, the unit of PCIe
# and GPU data sheets) of copying `nbytes`, given `seconds`, a sequence of timed samples of one
# copy each. Use the median sample.

# %%
def gbps(nbytes: int, seconds) -> float:
    ### BEGIN SOLUTION
    return nbytes / statistics.median(seconds) / 1e9
    ### END SOLUTION

# %%
check("06.3")

# %% [markdown]
# ## Exercise 06.4 · The PCIe ceiling of a link
#
# Write `pcie_ceiling_gbps(gen, lanes)`: the theoretical one-direction bandwidth, in GB/s, of a
# PCIe link of generation `gen` (1 to 5) and width `lanes`. Per lane, Gen1 signals 2.5 GT/s,
# Gen2 5, Gen3 8, Gen4 16 and Gen5 32 GT/s (one bit per transfer); Gen1 and Gen2 use 8b/10b
# encoding (8 payload bits per 10 sent), Gen3 to Gen5 use 128b/130b.

# %%
def pcie_ceiling_gbps(gen: int, lanes: int = 16) -> float:
    ### BEGIN SOLUTION
    rate = {1: 2.5, 2: 5.0, 3: 8.0, 4: 16.0, 5: 32.0}[gen]
    encoding = 8 / 10 if gen <= 2 else 128 / 130
    return rate * lanes * encoding / 8
    ### END SOLUTION

# %%
check("06.4")
