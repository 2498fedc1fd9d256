# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 06 · Transfers and timing: how long does moving data take?
#
# You will be able to:
#
# - time GPU work honestly, with `torch.cuda.synchronize()`;
# - time a copy: preallocated buffer, warm-up, repeats, median;
# - say when pinned memory and `non_blocking=True` help, and when they return stale data.
#
# <!-- readme (make pairs writes README's rows from these lines)
# learn: why timing without synchronizing lies; honest copy timing; pinned memory; `non_blocking`; overlap
# covers: why timing without synchronizing lies; hidden syncs (`.item()`, `print`); honest copy timing; pageable
# vs pinned; `non_blocking` safety; side-stream overlap; PCIe ceilings; an interactive transfer explorer
# -->
#
# <!-- lesson-needs:start, written by make pairs -->
# | Part | Runs for real with | GPU-only cells |
# |---|---|---|
# | 1 | 1 accelerator | 1 (1 accelerator) |
# | 2 | a CPU | none |
# | 3 | a CPU | none |
# | 4 | 1 GPU | 1 (1 GPU) |
# | Deeper | 1 GPU | in Deeper: 3 (1 GPU) |
#
# 1 cell runs on any accelerator, else meta. Without a GPU, each GPU-only cell prints SKIPPED, says what a GPU shows, then a real GPU's output from a public report, not run here (2 of 4 cells), then the folded PyTorch source.
# <!-- lesson-needs:end -->
#
# Without a GPU, copies are timed host-to-host: a **stand-in**, labelled so, never a PCIe figure.

# %% [markdown] tags=["course-header"]
# **Run it on a free GPU:** [Open in Colab](https://colab.research.google.com/github/pytorch-devices-course/pytorch-devices-course/blob/main/notebooks/06_transfers_and_timing.ipynb) (one GPU: Runtime > Change runtime type > T4 GPU)
# · [Open in Kaggle](https://kaggle.com/kernels/welcome?src=https://github.com/pytorch-devices-course/pytorch-devices-course/blob/main/notebooks/06_transfers_and_timing.ipynb) (two GPUs: Settings > Accelerator > GPU T4 x2).
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
import time
import warnings

import torch

from course_utils.checks import check
from course_utils.claims import raises
from course_utils.devices import pick_device
from course_utils.gates import needs_accelerator, needs_cuda

device = pick_device()  # lesson 01's idiom: decided once, carried everywhere below

# %% [markdown]
# ## 1. Timing without synchronizing lies
#
# On the CPU an operation has finished when the call returns, so the clock is right. Every
# timing here gives its median and spread (IQR, the middle half of the samples), with
# `torch.utils.benchmark`'s warnings when the IQR reaches 10% and 25% of the median.

# %%
from course_utils.transfer import Spread

x = torch.randn(512, 512)
seconds = []
for _ in range(10):
    start = time.perf_counter(); y = x @ x; seconds.append(time.perf_counter() - start)
print("CPU matmul:", Spread.of(seconds))

# %% [markdown]
# An accelerator call (CUDA, MPS, XPU) only **queues** the kernel and returns. Time it without
# waiting and you measure the launch; `torch.accelerator.synchronize()` waits for the queue.

# %%
if gpu := needs_accelerator(device, what="the real wrong-vs-right timing", key="06-sync-timing"):
    a = torch.randn(4096, 4096, device=gpu.device)
    b = torch.randn_like(a)
    torch.mm(a, b); torch.accelerator.synchronize()
    naive, honest = [], []
    for _ in range(10):
        start = time.perf_counter(); c = torch.mm(a, b); naive.append(time.perf_counter() - start)
        torch.accelerator.synchronize()
        start = time.perf_counter(); c = torch.mm(a, b); torch.accelerator.synchronize(); honest.append(time.perf_counter() - start)
    print("without synchronize:", Spread.of(naive))
    print("with synchronize:   ", Spread.of(honest))
else:
    display(gpu)

# %% [markdown]
# `FakeAsyncDevice` simulates such a queue on any machine: a 2 ms kernel, launched in 5 µs.

# %%
from course_utils.transfer import FakeAsyncDevice

sim = FakeAsyncDevice(launch_s=5e-6)
matmul = sim.kernel(2e-3)
start = sim.clock(); matmul(); naive = sim.clock() - start
sim.synchronize()
start = sim.clock(); matmul(); sim.synchronize(); honest = sim.clock() - start
f"without synchronize: {naive * 1e3:.3f} ms   with synchronize: {honest * 1e3:.3f} ms (a simulated clock: no spread)"

# %% [markdown]
# **Try it.** Finish `time_once`: return how long one `op()` takes on the device. Earlier work
# may still be queued. On a GPU you would pass `time.perf_counter` and `torch.cuda.synchronize`.

# %% tags=["try-it"]
def time_once(op, clock, synchronize):
    raise NotImplementedError  # replace this with your lines

check("06.a")

# %% [markdown]
# Calls that bring a value to the host wait for the GPU behind your back: `.item()`,
# `.tolist()`, `.cpu()`, `print(t)`. Timing code that ends on `loss.item()` is right by
# accident. `torch.cuda.set_sync_debug_mode("warn")` points such calls out (see Deeper).

# %% [markdown]
# ## 2. Timing a copy honestly
#
# Allocate the destination once. Warm up: the first copy pays one-off costs (on the CPU, a page
# fault per fresh page of `dst`). Use one thread, as `torch.utils.benchmark.Timer` does: a host
# copy split over threads waits for the slowest. Repeat; report median and spread:

# %%
from course_utils.transfer import torch_threads

src = torch.randn(4 * 2**20)  # 16 MiB of float32
dst = torch.empty_like(src, device=device)  # allocated once, not yet touched
sync = torch.accelerator.synchronize if device.type != "cpu" else (lambda: None)  # CPU copies never queue
with torch_threads(1):  # restores the thread count afterwards
    start = time.perf_counter(); dst.copy_(src); sync(); first = time.perf_counter() - start  # warm-up
    seconds = []
    for _ in range(30):
        sync(); start = time.perf_counter()
        dst.copy_(src); sync()
        seconds.append(time.perf_counter() - start)
loop = Spread.of(seconds)
what = "stand-in: host to host" if device.type == "cpu" else f"host (pageable) to {device}"
print(f"warm-up copy: {first * 1e3:.2f} ms, not counted")
print(f"{src.nbytes / loop.median / 1e9:.1f} GB/s ({what}); {loop}")

# %% [markdown]
# `time_copy` does the same, every sample kept. Two honest timings of the same copy agree:
# medians within 10%. On a busy machine they need not, and `compare` says so:

# %%
from course_utils.transfer import compare, time_copy

one = time_copy(dst, src)
print(one)
compare(loop, one, names=("the loop above", "time_copy"))

# %% [markdown]
# **Try it.** Finish `copy_into`: copy `src` into the existing tensor `dst` and return `dst`.

# %% tags=["try-it"]
def copy_into(dst, src):
    raise NotImplementedError  # replace this with your line

check("06.b")

# %% [markdown]
# ## 3. Bandwidth against size
#
# Small copies pay a fixed latency; big ones approach the link's bandwidth. The line joins
# the fastest sample per size, the band spans the middle half, a cross marks noise (IQR ≥ 25%
# of the median). A host-memory stand-in may rise above the PCIe lines: not a PCIe figure.

# %%
from course_utils.transfer.plots import plot_bandwidth, plot_variants
from course_utils.transfer import sweep

result = sweep(device, quick=True, budget_s=2.0)
plot_bandwidth(result);

# %% [markdown]
# ## 4. Pinned memory and `non_blocking`
#
# A GPU copies directly only from **pinned** (page-locked) host memory: `t.pin_memory()`. Without
# an accelerator, PyTorch refuses:

# %%
built_for = torch.accelerator.current_accelerator()  # the build's accelerator, usable or not
if torch.accelerator.is_available():
    pinned = torch.ones(3).pin_memory()
    print(pinned.is_pinned())
elif built_for is None:
    print(raises(lambda: torch.ones(3).pin_memory(), RuntimeError, match="Cannot access accelerator device"))
else:
    print(f"a {built_for.type} build with no usable {built_for.type} device:")
    print(raises(lambda: torch.ones(3).pin_memory(), RuntimeError, match="NVIDIA driver"))

# %% [markdown]
# Every variant at the largest size: median bars, IQR whiskers, and above each pair what the
# blocking/`non_blocking` gap means. On a GPU, pinned stands taller. On the CPU, `non_blocking`
# changes nothing: any gap is noise.

# %%
plot_variants(result);

# %%
from course_utils import published

published("06-copy-variants")  # a real GPU's published figures, with its GPU and torch: beside these, never mixed in

# %% [markdown]
# Host to device, `non_blocking=True` from pinned memory, then a kernel on the same stream: safe.

# %%
if gpu := needs_cuda(1, what="host-to-device non_blocking, then a kernel on the same stream", key="06-h2d-non-blocking"):
    host = torch.arange(2**24).pin_memory()  # int64: the sums below are exact on both sides
    on_gpu = host.to(device, non_blocking=True)
    total = on_gpu.sum()
    print(total.item() == host.sum().item())
else:
    display(gpu)

# %% [markdown]
# Device to host, `non_blocking=True`: the host may read **before** the copy lands, and sees old
# values without any error. Synchronize first:

# %%
from course_utils.transfer import stale_read_demo

stale_read_demo(device)

# %% [markdown]
# An interactive explorer: pick a size, a direction, pinned and `non_blocking`, and see the
# bandwidth; **Run** measures again, to show the noise.

# %%
from course_utils.widgets import TransferExplorer

explorer = TransferExplorer(device)
explorer

# %% [markdown]
# ## Summary
#
# - GPU calls return when work is queued: synchronize before reading the clock.
# - Time copies into preallocated buffers, after a warm-up, on one thread; report the median
#   with its spread, and distrust a median whose IQR is 25% of it or more.
# - Pinned memory pays for buffers reused many times.
# - Device-to-host `non_blocking`: synchronize before reading.
# - PCIe Gen3/4/5 x16 carry at best 15.75, 31.5 and 63.0 GB/s per direction (Deeper derives
#   them, with side streams that hide a copy behind compute).
#
# <!-- next-links:start, written by make pairs -->
# **Exercises:** [06_transfers_and_timing_exercises.ipynb](06_transfers_and_timing_exercises.ipynb).
# **Next:** lesson 07, [07_claims_checked.ipynb](07_claims_checked.ipynb): Claims checked: what two tutorials say, and what PyTorch does.
# <!-- next-links:end -->

# %% [markdown] tags=["deeper"]
# ## Deeper: events, hidden syncs, the helpers inside, streams and PCIe

# %% [markdown] tags=["deeper"]
# Optional. The measurements behind the core, and the rules in full.
#
# ### Deeper: CUDA events
#
# CUDA events time the GPU side directly: record one before and one after the work on the
# stream, wait for the second, and ask for the time between them (`elapsed_time` is in
# milliseconds). The host's launch overhead is not included.

# %% tags=["deeper"]
if gpu := needs_cuda(1, what="timing with CUDA events", key="06-events"):
    begin, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    milliseconds = []
    for _ in range(10):
        begin.record(); c = torch.mm(a, b); end.record()
        end.synchronize()
        milliseconds.append(begin.elapsed_time(end))
    print("CUDA events:", Spread.of([ms / 1e3 for ms in milliseconds]))
else:
    display(gpu)

# %% [markdown] tags=["deeper"]
# ### Deeper: hidden synchronizations

# %% [markdown] tags=["deeper"]
# Some calls must wait for the GPU because they bring a value to the host: `.item()`,
# `.tolist()`, `.cpu()`, `print(t)` of a CUDA tensor, `if t.any():`, `torch.nonzero`. Timing code
# that ends with `loss.item()` is accidentally right; code that drops it becomes wrong. On the
# simulated device:

# %% tags=["deeper"]
sim = FakeAsyncDevice()
loss = sim.tensor([0.25])
start = sim.clock()
sim.kernel(5e-3)()
launched = sim.clock() - start
value = loss.item()
f"launch returned after {launched * 1e3:.3f} ms; .item() after {(sim.clock() - start) * 1e3:.3f} ms"

# %% [markdown] tags=["deeper"]
# On a GPU, `torch.cuda.set_sync_debug_mode("warn")` makes PyTorch warn at synchronizing
# operations it knows of ("called a synchronizing CUDA operation"), a good way to find hidden
# ones in a training loop; its docstring warns that not all synchronizing operations trigger it.
# The cell restores the mode afterwards.

# %% tags=["deeper"]
if gpu := needs_cuda(1, what="hidden synchronizations on a GPU", key="06-hidden-syncs"):
    start = time.perf_counter(); total = (a @ b).sum(); launched = time.perf_counter() - start
    torch.cuda.set_sync_debug_mode("warn")
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            total.item()
    finally:
        torch.cuda.set_sync_debug_mode(0)
    waited = time.perf_counter() - start
    print(f"launch: {launched * 1e3:.3f} ms, after .item(): {waited * 1e3:.3f} ms")
    print("warnings:", [str(w.message).splitlines()[0] for w in caught])
else:
    display(gpu)

# %% [markdown] tags=["deeper"]
# ### Deeper: what `measure_copy` does

# %% [markdown] tags=["deeper"]
# `measure_copy` times `dst.copy_(src, non_blocking=...)` the way `torch.utils.benchmark`
# does: buffers allocated once, a warm-up, one thread for host copies, then blocks of copies
# bracketed by synchronize, every sample kept, median and interquartile range reported, and
# `torch.utils.benchmark`'s warnings when the IQR reaches 10% and 25% of the median (its
# `_IQR_WARN_THRESHOLD` and `_IQR_GROSS_WARN_THRESHOLD` in `torch/utils/benchmark/utils/common.py`). The result is data: every sample
# (seconds per copy, one per timed block), with the statistics computed from them. It survives a
# trip through JSON unchanged.

# %% tags=["deeper"]
from course_utils.transfer import Transfer

one.seconds[:4], one.median, one.iqr, one.gbps, Transfer.from_dict(one.to_dict()) == one

# %% [markdown] tags=["deeper"]
# Seen through a clock and a synchronize that log their calls: a synchronize before every clock
# read. Off CUDA the real synchronize is a no-op, so the same code runs everywhere without
# breaking on the CPU.

# %% tags=["deeper"]
from course_utils.transfer import Instruments, Timing, measure_copy

log = []
logged = Instruments(clock=lambda: log.append("clock") or time.perf_counter(), synchronize=lambda: log.append("sync"))
measure_copy("h2d", 4096, device=device, timing=Timing(repeats=2, number=1, instruments=logged))
log

# %% [markdown] tags=["deeper"]
# ### Deeper: the two regimes, and the stand-in's curve

# %% [markdown] tags=["deeper"]
# A sweep over sizes from 4 KiB up shows two regimes on a GPU: small copies cost a fixed
# latency (launch, driver, PCIe round trip), so their GB/s is low; big copies approach the
# link's bandwidth. The `quick` sweep stops at 16 MiB and spends about 2 seconds; the full one
# (`sweep(device)`, or `python -m course_utils.transfer` in a terminal) goes to 256 MiB. The plot
# draws PCIe Gen3, Gen4 and Gen5 x16 ceilings as horizontal lines; on a stand-in the title says
# so and the PCIe lines are marked as reference only.
#
# The host-memory stand-in has no link to approach. Its curve rises the same way, then
# *falls* once the source and destination no longer fit in the CPU's caches and every byte
# goes to and from main memory (a 16 MiB copy reads 16 MiB and writes 16 MiB: 32 MiB, a whole
# L3 cache on many CPUs). Run the sweep twice: a fall that comes back at the same size, with a
# narrow band, is the memory hierarchy, not noise. The small copies, served
# from the CPU's caches, can rise above the PCIe lines: a host copy never crosses PCIe, and the
# plot says so in its axes.
#
# Why the fastest sample: on a busy machine other processes can only slow a copy down, never
# speed it up. The median of a big copy can fall well below what the copy path does (its band
# then reaches far below the line), while the fastest sample stays put. The band keeps that
# noise visible instead of hiding it. (The trailing `;` of a plot cell keeps Jupyter from
# printing the Axes object above the figure.)

# %% tags=["deeper"]
result

# %% [markdown] tags=["deeper"]
# ### Deeper: pageable and pinned memory

# %% [markdown] tags=["deeper"]
# Ordinary host memory is *pageable*: the OS may move it. A GPU's DMA engine can only read
# memory that stays put, so a copy from pageable memory goes through a pinned staging buffer
# inside the driver, in chunks. *Pinned* memory, from `t.pin_memory()` or
# `torch.empty(..., pin_memory=True)`, is copied directly: faster, and able to run
# asynchronously. Pinned memory exists for an accelerator; without one, PyTorch refuses. A CPU
# build says it has no accelerator; a CUDA build without an NVIDIA driver (a plain `pip install
# torch` on Linux) asks CUDA to pin the memory and fails with the driver's message. In the
# variants plot, on the CPU, pinned says it needs an accelerator, and blocking and non_blocking
# time the same copy: PyTorch's CPU copy kernel takes the flag and ignores it. A gap between the
# two bars is then the machine changing between two timings; the label above the bars says
# whether it lies within their spread (or within 10%, the tolerance of `compare`). The kernel's
# declaration, from the C++ headers your PyTorch installed (`aten/src/ATen/native/cpu/CopyKernel.h`
# in PyTorch's source):

# %% tags=["deeper"]
from pathlib import Path

header = Path(torch.__file__).parent / "include" / "ATen" / "native" / "cpu" / "CopyKernel.h"
([line.strip() for line in header.read_text().splitlines() if "void copy_kernel(" in line]
 if header.exists() else "this PyTorch install has no C++ headers")

# %% [markdown] tags=["deeper"]
# But `pin_memory()` is itself a copy, into freshly page-locked memory. For a **one-off** copy
# of pageable data, pinning first usually costs more than it saves; for **repeated** copies from
# a buffer pinned once (a `DataLoader(pin_memory=True)`, a reused staging buffer) it pays after
# a few copies. `measure_pinning` measures both cases on a GPU:

# %% tags=["deeper"]
from course_utils.transfer import measure_pinning

measure_pinning(64 * 2**20, device=device)

# %% [markdown] tags=["deeper"]
# ### Deeper: the `non_blocking` rules in full

# %% [markdown] tags=["deeper"]
# **Rule 1: host to device, `non_blocking=True` from pinned memory, then use the result on the
# same stream: safe.** The copy returns at once, and kernels queued after it on the same
# stream run after it, so they see the data. (Do not *overwrite the pinned source* until the
# copy has run, though: the GPU reads it later.) From pageable memory, `non_blocking=True` does
# not make one copy asynchronous for the host: the driver stages the data through its pinned
# buffer first, and the host waits for that staging. It can still pay over many copies followed
# by one synchronize (PyTorch's pin-memory tutorial, `intermediate_source/pinmem_nonblock.py`,
# measures such a gain), because the host no longer waits for each copy to finish on the GPU.
#
# **Rule 2: device to host, `non_blocking=True`: synchronize before reading.** The copy into
# pinned host memory is only queued; the host can read the destination before the GPU wrote
# it. `stale_read_demo` fills a tensor on the device, copies it to zeroed pinned memory with
# `non_blocking=True`, reads at once, synchronizes and reads again. On a GPU it runs for real;
# without one it runs on the simulated device and says so.
#
# **Rule 3: `t.to("cpu", non_blocking=True)` is the same hazard.** PyTorch gives its result
# pinned memory so that the copy can be asynchronous. Wait for it before reading, with
# `torch.cuda.synchronize()` or, cheaper, an event recorded right after the copy. Without
# `non_blocking`, a device-to-host copy waits for the GPU before returning, which is always safe
# and often fast enough. Exercise 06.2 practises the safe pattern: many non_blocking copies,
# one synchronize.

# %% tags=["deeper"]
if gpu := needs_cuda(1, what="the device-to-host .to(non_blocking=True) rule", key="06-d2h-non-blocking"):
    on_host = on_gpu.to("cpu", non_blocking=True)
    copied = torch.cuda.Event()
    copied.record()
    print("result pinned:", on_host.is_pinned())
    copied.synchronize()
    print("safe to read after the event:", on_host[-1].item() == host[-1].item())
else:
    display(gpu)

# %% [markdown] tags=["deeper"]
# ### Deeper: copy/compute overlap on a side stream

# %% [markdown] tags=["deeper"]
# Work on one stream runs in order; work on two streams may overlap, and GPUs have copy engines
# separate from their compute units. A copy from pinned memory on a side stream can therefore
# hide behind a matmul on the default stream. Streams do not wait for each other on their own:
# `wait_stream` orders them, and `record_stream` tells PyTorch's caching allocator that a tensor
# made on the side stream is used on another one, so its memory is not reused too early.
# The course's helper for that pattern, then `measure_overlap`: the copy alone, the matmul
# alone, both on one stream, and the copy on a side stream during the matmul; then a check that
# data copied this way arrives intact.

# %% tags=["deeper"]
import inspect

from course_utils.transfer import measure_overlap, to_device_on_side_stream

print(inspect.getsource(to_device_on_side_stream))

# %% tags=["deeper"]
measure_overlap(device)

# %% [markdown] tags=["deeper"]
# ### Deeper: the explorer, in detail

# %% [markdown] tags=["deeper"]
# Every change re-measures at once (the size slider when you release it); **Run** measures the
# same settings again, to show the noise. The plot keeps one point per size and variant, so
# moving the slider traces the curve, with the latest point circled. Without an accelerator
# every copy is the host-memory stand-in and the explorer says so.
#
# ### Deeper: reference ceilings, what PCIe can do
#
# A PCIe link's best one-direction payload bandwidth is GT/s per lane × lanes × encoding ÷ 8.
# Gen3, Gen4 and Gen5 use 128b/130b encoding (128 payload bits per 130 sent): 15.75, 31.5 and
# 63.0 GB/s per direction for x16.

# %% tags=["deeper"]
from course_utils.transfer import ceiling_table, link_info

ceiling_table()

# %% [markdown] tags=["deeper"]
# Real copies reach less (packet headers, flow control); around 80-90% of the ceiling from
# pinned memory is a good result. H100 and H200 SXM GPUs connect to the host over PCIe Gen5
# x16 (63 GB/s per direction). Your GPU's link, as the driver reports it
# (`nvidia-smi --query-gpu=pcie.link.gen.current,pcie.link.width.current,pcie.link.gen.max`);
# the current generation may read lower while the GPU idles, because the link trains down to
# save power. Then the best pinned host-to-device copy of the sweep, against that ceiling:

# %% tags=["deeper"]
link = link_info(device.index or 0) if device.type == "cuda" else None
link if link is not None else "no PCIe link reported: no NVIDIA GPU (or no nvidia-smi) on this machine"

# %% tags=["deeper"]
best = max((r for r in result.results if r.direction == "h2d" and r.pinned), key=lambda r: r.gbps, default=None)
if best is not None and link is not None and link.ceiling_max is not None:
    print(f"{best.gbps:.1f} GB/s = {best.gbps / link.ceiling_max.gbps:.0%} of {link.ceiling_max}")
elif result.stand_in:
    print("The sweep measured a host-memory stand-in: comparing it with PCIe would mean nothing.")
else:
    print(f"best pinned h2d: {best.gbps:.1f} GB/s" if best else "no pinned h2d copy was measured")

# %% [markdown] tags=["deeper"]
# To collect a class's numbers: `python -m course_utils.transfer --out my-results`.
