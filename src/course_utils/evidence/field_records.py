"""What real GPUs printed in the course's GPU-only cells, as others published it: field records.

Lesson: every notebook's GPU-only cells, until ``scripts/gpu-verify`` records the course's own run.
``RECORDS`` holds one row per public report: a verbatim excerpt of what a real GPU printed for
cell ``key``'s point, cut only to the relevant lines (a cut is marked ``[…]``), with where it was
published (``url``), the date of the post that holds it, and the torch version and the GPU or
platform as the report states them. Nothing here was run by this course, and ``recorded(key)``
says so in the label; a course recording of the same key replaces the field record.

``POINTS[key]`` is what a report's excerpt must contain to show cell ``key``'s point (the words of
the message, the device names, the numbers that make the point). ``tests/test_field_records.py``
holds every record to it, to the release range of the cell's source quotes (a record from another
release says how that release differed, in ``differs``) and to its provenance fields. (The recorder
matches no pattern: it stores a cell's own output only when nbval passed the cell.) ``NO_RECORD``
names every GPU-only cell without a record, and why.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

CUT = "[…]"  # marks lines (or the rest of a line) left out of an excerpt
FLOOR = "2.7.1"  # the oldest torch the course supports (sources.RELEASES[0])


@dataclass(frozen=True)
class FieldRecord:
    """One public report of what a real GPU printed in the situation of cell ``key``."""

    key: str
    excerpt: str  # verbatim from the report; only cut, each cut marked [...] as CUT
    url: str  # where it was published
    date: str  # YYYY-MM-DD: the date of the post that holds the excerpt
    torch: str  # the torch version, as the report states it
    gpu: str  # the GPU or platform, as the report states it
    shows: str  # one sentence: what of the cell's point the excerpt shows, and what it does not
    differs: str = ""  # how that torch release differed from the cell's quoted releases (needed outside them)
    link: str = ""  # for a timing: the PCIe (or other) link, as the report states it

    @property
    def release(self) -> str:
        """``2.1.0`` for ``2.1.0+cu121``: the release, without its local build tag."""
        return self.torch.split("+")[0].strip()

    @property
    def before_floor(self) -> bool:
        """Whether the report's torch is older than the oldest release the course supports."""
        from torch.torch_version import TorchVersion

        return TorchVersion(self.release) < FLOOR

    @property
    def label(self) -> str:
        """``printed on a Tesla T4 with torch 2.3.0, as reported in <url> (date); not run by this course``."""
        link = f" over {self.link}" if self.link else ""
        return (f"printed on {self.gpu}{link} with torch {self.torch}, as reported in {self.url} ({self.date}); "
                "not run by this course")

    @property
    def caveat(self) -> str:
        """What a reader must know before comparing: an older torch than the course's, and how it differed."""
        older = f"torch {self.torch} is older than the course's floor, {FLOOR}. " if self.before_floor else ""
        return (older + self.differs).strip()


# One report backs three cells: an elementwise sum of a CPU tensor and a GPU tensor, with its message.
_PATCHMATCH_URL = "https://github.com/FangjinhuaWang/PatchmatchNet/issues/35"
_PATCHMATCH_EXCERPT = (
    "CUDA 11.1 and pytorch 1.8.1 are installed on my computer, when I run train.sh, the training process did not "
    "start , and the error message is \"RuntimeError: Expected all tensors to be on the same device, but found at "
    "least two devices, cuda:0 and cpu!\" \n"
    "**The solution is as follows：**\n"
    "add .cpu() after \"loss = loss + F.smooth_l1_loss(depth1, depth2, reduction=\"mean\")\" in "
    "\"PatchmatchNet/models/net.py\" as \"loss = loss + F.smooth_l1_loss(depth1, depth2, reduction=\"mean\").cpu()\"")
_PATCHMATCH_GPU = "a CUDA GPU (the report names no model or platform; CUDA 11.1)"
_PATCHMATCH_DIFFERS = ("torch 1.8.1 words the message as the cell's quote from aten/src/ATen/TensorIterator.cpp (read in "
                       "2.7.1 and later) does, which the test checks.")

# One report backs both .numpy() cells: NumPy converting a tensor on the GPU, through Tensor.__array__.
_NUMPY_URL = "https://github.com/JCBrouwer/OptimalTextures/issues/2"
_NUMPY_EXCERPT = (
    "Out of the box (using conda python 3.8.5 and pytorch 1.8.1) was getting this error:\n"
    "```\n"
    "TypeError: can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory "
    "first.\n"
    "```\n"
    "With this trace:\n"
    f"{CUT}\n"
    "  File \".../torch/tensor.py\", line 621, in __array__\n"
    "    return self.numpy()")
_NUMPY_GPU = "a CUDA GPU (the report names no model or platform; conda Python 3.8.5)"
_NUMPY_DIFFERS = ("torch 1.8.1 words the message as the cell's quote from torch/csrc/utils/tensor_numpy.cpp (read in "
                  "2.7.1 and later) does, which the test checks; there NumPy's asarray reached .numpy() through "
                  "Tensor.__array__ (torch/tensor.py in that release's trace; torch/_tensor.py in 2.13.0, where "
                  "__array__ still returns self.numpy()).")

R = FieldRecord
RECORDS: tuple[FieldRecord, ...] = (
    R("01-visible-devices-after-init",
      'os.environ["CUDA_VISIBLE_DEVICES"] = "0,1"\n'
      "print(torch._C._cuda_getDeviceCount())\n"
      "# result: 2\n"
      'os.environ["CUDA_VISIBLE_DEVICES"] = "0"\n'
      "print(torch._C._cuda_getDeviceCount())\n"
      "# result: 2",
      "https://github.com/pytorch/pytorch/issues/159641", "2025-08-01", "2.6.0+cu126",
      "a machine with two visible GPUs (models not named; Ubuntu 22.04.5 LTS, a CUDA 12.6 build)",
      "After the first count, setting CUDA_VISIBLE_DEVICES=0 in the process leaves the count at 2 (the report "
      "calls the C function behind torch.cuda.device_count, and writes the results as comments).",
      "The cell's quote, the comment on caching the count only after CUDA initialised, is read in 2.7.1 and "
      "later; the report shows the count CUDA itself fixes at its first call."),
    R("04-device-of-cuda",
      ">>> with torch.cuda.device(torch.device('cuda', 0)):\n"
      "...     a = torch.zeros(10, 1)\n"
      "...     b = torch.zeros(10, 1, device=torch.cuda.current_device())\n"
      "...     torch.cuda.current_device()\n"
      "...     a.device\n"
      "...     b.device\n"
      "... \n"
      "0\n"
      "device(type='cpu')\n"
      "device(type='cuda', index=0)",
      "https://github.com/pytorch/pytorch/issues/18399", "2019-03-24", "1.0.1.post2",
      "2x Tesla V100-SXM2-16GB, Ubuntu 16.04.5 LTS",
      "Inside a CUDA device block the current device is 0, a tensor made without device= stays on the CPU and "
      "one made on the current device lands on cuda:0: the block moves and makes nothing on the GPU by itself.",
      "The report's block is torch.cuda.device, not torch.cuda.device_of; device_of is a subclass of it "
      "(torch/cuda/__init__.py, `class device_of(device)`), which only picks the index from a tensor."),
    R("05-indexing",
      "mask = torch.full((3,), True, dtype=bool, device='cuda')\n"
      "array = torch.tensor([1, 2, 3], dtype=torch.float32, device='cpu')\n"
      "array = array[mask]\n"
      "print(array)\n"
      f"{CUT}\n"
      "RuntimeError: indices should be either on cpu or on the same device as the indexed tensor (cpu)",
      "https://github.com/pytorch/pytorch/issues/90194", "2022-12-05", "1.13.0",
      "a CUDA GPU (the report names no model or platform)",
      "A CPU tensor indexed by a mask on the GPU raises, and the message names the indexed tensor's device, cpu.",
      "The report says the same code ran in 1.12.1 and fails from 1.13.0, where this check came in; the message "
      "is the cell's quote word for word, which the test checks."),
    R("06-hidden-syncs",
      "torch.cuda.set_sync_debug_mode(1)\n"
      f"{CUT}\n"
      "x_tensor = torch.tensor(3.14, device=dev)  # sync\n"
      f"{CUT}\n"
      "UserWarning: called a synchronizing CUDA operation (Triggered internally at ../c10/cuda/CUDAFunctions.cpp:147.)",
      "https://github.com/pytorch/pytorch/issues/120996", "2024-03-01", "2.1.0+cu121",
      "a CUDA GPU (not named in the excerpt; Ubuntu 22.04.3 LTS, a CUDA 12.1 build)",
      "The warning set_sync_debug_mode(1), that is \"warn\", prints for a synchronizing call, in its words; the "
      "call here is torch.tensor(3.14, device=dev), not .item().",
      "The line number in the warning (CUDAFunctions.cpp:147) is that release's source line."),
    R("07-square",
      "my_tensor_gpu = torch.arange(3*3*3).view(3,3,3).to('cuda')\n"
      "\n"
      "# normal indexing\n"
      "print(my_tensor_gpu[:,[2],2])\n"
      "\n"
      "# yields \n"
      "# tensor([[ 8],\n"
      "#         [17],\n"
      "#         [26]], device='cuda:0')",
      "https://github.com/pytorch/pytorch/issues/44311", "2020-09-08", "1.5.0",
      "a CUDA GPU on Windows (the model is not named)",
      "A tensor on the GPU prints its device at the end, device='cuda:0' (here the result of indexing, not of "
      "x ** 2; the report writes the printed lines as comments).",
      "torch 1.5.0 prints a tensor on the GPU with the same device='cuda:0' suffix that the cell's quote "
      "(torch/_tensor_str.py, read in 2.7.1 and later) appends; the test checks the suffix."),
    R("08-nccl-error",
      "Environment: Pytorch 2.1.0 +Cuda 12.1\n"
      "Issue: Nccl error occures when training on mutiple GPUs in a single node\n"
      "\"Duplicate GPU detected : rank 1 and rank 0 both on CUDA device a4000\" from NCCL INFO.",
      "https://github.com/facebookresearch/fairchem/issues/597", "2023-11-14", "2.1.0",
      "several GPUs in one node (the model is not named; CUDA 12.1)",
      "NCCL's refusal of two ranks on one GPU, with the GPU's PCI bus id (a4000) at the end.",
      "Its NCCL words the refusal in the form of the quote from torch 2.7.1's NCCL, which the test checks; "
      "torch 2.14.1's NCCL words it differently."),
    R("09-out-of-memory",
      "RuntimeError: CUDA out of memory. Tried to allocate 26.00 MiB (GPU 0; 1024.00 MiB total capacity; 435.61 MiB "
      "already allocated; 24.17 MiB free; 26.39 MiB cached)\n"
      f"{CUT}\n"
      "the Pytorch version is 1.2.0+cu92",
      "https://github.com/pytorch/examples/issues/621", "2019-08-27", "1.2.0+cu92",
      "a GPU of 1024 MiB total capacity (the model is not named)",
      "The out-of-memory error says how much was asked for, the GPU's total capacity and what was free (the "
      "version line is the reporter's reply of 2019-08-28 in the same thread).",
      "torch 1.2.0 words the message in its older form, '(GPU 0; ... total capacity; ... already allocated; ... "
      "free; ... cached)', and raises a plain RuntimeError; the cell's quotes, read in 2.7.1 and later, hold the "
      "form 'GPU 0 has a total capacity of ... of which ... is free' and the expandable_segments hint."),
    R("09-forked-cuda",
      "Getting RuntimeError: Cannot re-initialize CUDA in forked subprocess. To use CUDA with multiprocessing, you "
      "must use the 'spawn' start method. working with colab. Here pytorch version is 1.7.0",
      "https://github.com/princevandev/TextSnake.pytorch/issues/54", "2020-12-24", "1.7.0",
      "Google Colab (a GPU runtime; the GPU is not named)",
      "The error a forked worker raises when CUDA was initialised before the fork, in its words; the report does "
      "not say what in the worker touched CUDA.",
      "The message is the same sentence as the cell's quote from torch/cuda/__init__.py, which the test checks."),
    R("02-cross-device-error", _PATCHMATCH_EXCERPT, _PATCHMATCH_URL, "2021-05-25", "1.8.1", _PATCHMATCH_GPU,
      "Adding a tensor on the GPU to one on the CPU raises, and the message names both devices, cuda:0 and cpu "
      "(the report's sum is a loss; the same report backs cells 05-elementwise and 07-add-cpu).",
      _PATCHMATCH_DIFFERS),
    R("05-elementwise", _PATCHMATCH_EXCERPT, _PATCHMATCH_URL, "2021-05-25", "1.8.1", _PATCHMATCH_GPU,
      "An elementwise sum of a CPU tensor and a GPU tensor raises, in the format of the cell's quote, naming cuda:0 "
      "and cpu (the same report backs cells 02-cross-device-error and 07-add-cpu).",
      _PATCHMATCH_DIFFERS),
    R("07-add-cpu", _PATCHMATCH_EXCERPT, _PATCHMATCH_URL, "2021-05-25", "1.8.1", _PATCHMATCH_GPU,
      "A sum with one operand on the CPU and one on the GPU raises, naming cuda:0 and cpu, and moving the GPU operand "
      "with .cpu() was the reporter's fix (the sum is loss + F.smooth_l1_loss(...), not y + x.cpu()).",
      _PATCHMATCH_DIFFERS),
    R("05-invalid-ordinal",
      "And keep running into this error:\n"
      "RuntimeError: CUDA error: invalid device ordinal\n"
      "\n"
      "Cuda is available, and the device ID is correct.\n"
      "Pytorch 1.13\n"
      "cuda 11.6\n"
      f"{CUT}\n"
      "my mistake, didn't pass the correct device in the model parameters",
      "https://github.com/divelab/DIG/issues/224", "2023-09-27", "1.13",
      "a CUDA GPU (the report names no model; CUDA 11.6)",
      "A device index the machine does not have raises 'CUDA error: invalid device ordinal' (the last line is the "
      "reporter's comment of the same day: the wrong device had been passed); the report shows no traceback.",
      "The report quotes only the error's first line; the cell's quote adds 'GPU device may be out of range, do you "
      "have enough GPUs?' from 2.9.1 on, and from 2.8.0 the error is a torch.AcceleratorError, a RuntimeError "
      "subclass (the cell's sentence)."),
    R("05-conv-cross-device",
      "I ran your notebook and ran into an error \n"
      "\n"
      "RuntimeError: Input type (torch.cuda.FloatTensor) and weight type (torch.FloatTensor) should be the same\n"
      "\n"
      "I thought the error was becuse I was on pytorcg 0.3.1, I have now upgraded to pytorch version 0.4.0.\n"
      "The error still occured.",
      "https://github.com/KeremTurgutlu/deeplearning/issues/2", "2018-05-04", "0.4.0",
      "a CUDA GPU (the report names no model or platform)",
      "A convolution with its input on the GPU and its weights on the CPU raises, and the message names tensor "
      "types (torch.cuda.FloatTensor, torch.FloatTensor), not devices; this is the swap of the cell's first case.",
      "The reporter saw it in 0.3.1 and again in 0.4.0; the sentence is that of the cell's quote from "
      "aten/src/ATen/native/Convolution.cpp (read in 2.7.1 and later), which the test checks, and the report "
      "carries no more of the message than that sentence."),
    R("02-numpy", _NUMPY_EXCERPT, _NUMPY_URL, "2021-04-16", "1.8.1", _NUMPY_GPU,
      "Converting a tensor on the GPU to NumPy raises TypeError naming its device, cuda:0, and says to call .cpu() "
      "first (the conversion is NumPy's, through Tensor.__array__, which calls .numpy(); the same report backs cell "
      "05-numpy).",
      _NUMPY_DIFFERS),
    R("05-numpy", _NUMPY_EXCERPT, _NUMPY_URL, "2021-04-16", "1.8.1", _NUMPY_GPU,
      "A tensor on the GPU refuses the conversion to NumPy with TypeError, cuda:0 where the cell shows meta in the "
      "same message (the call is NumPy's asarray, which reaches .numpy(); the same report backs cell 02-numpy).",
      _NUMPY_DIFFERS),
    R("03-load-cuda1-checkpoint",
      "```python\n"
      "import torch\n"
      "torch.cuda.set_device(1)\n"
      "model = torch.nn.Linear(10, 10)\n"
      "model.cuda()\n"
      "torch.save(model.state_dict(), \"a.pth\")\n"
      "\n"
      "torch.cuda.set_device(2)\n"
      "print(torch.load(\"a.pth\")[\"weight\"].device)\n"
      f"{CUT}\n"
      "```\n"
      "\n"
      "```\n"
      "cuda:1\n"
      f"{CUT}\n"
      "```\n"
      "(pytorch=1.4.0)",
      "https://github.com/pytorch/pytorch/issues/35289", "2020-03-24", "1.4.0",
      "a machine with at least three GPUs (the models are not named)",
      "A state dict saved from cuda:1 and loaded without map_location comes back on cuda:1, even with cuda:2 the "
      "current device; the report does not show the one-GPU machine's RuntimeError.",
      "The cell's quotes, torch.load's docstring and message in torch/serialization.py, are read in 2.7.1 and "
      "later; the report shows the same rule at work in 1.4.0 (its other two lines, cut here, are about "
      "map_location, whose 1.4.0 behaviour the thread reports fixed after that release)."),
)
del R

# What a report's excerpt must contain to show cell ``key``'s point (tests/test_field_records.py).
# The cross-device message of TensorIterator, naming an accelerator and the CPU (either order).
_CROSS_DEVICE = re.compile(r"Expected all tensors to be on the same device, but found at least two devices, "
                           r"(?:(?:cuda|mps):\d+ and cpu|cpu and (?:cuda|mps):\d+)!")
# The .numpy() refusal of TO_NUMPY, naming an accelerator.
_TO_NUMPY = re.compile(r"can't convert (?:cuda|mps):\d+ device type tensor to numpy\. Use Tensor\.cpu\(\) to copy the "
                       r"tensor to host memory first\.")
POINTS: dict[str, re.Pattern[str]] = {
    "01-visible-devices-after-init": re.compile(r'CUDA_VISIBLE_DEVICES"?\]? ?= ?"0"[\s\S]*\b2\b'),
    "02-cross-device-error": _CROSS_DEVICE,
    "05-elementwise": _CROSS_DEVICE,
    "07-add-cpu": _CROSS_DEVICE,
    "05-conv-cross-device": re.compile(r"Input type \((?:torch\.cuda\.FloatTensor\) and weight type \(torch\.FloatTensor"
                                       r"|torch\.FloatTensor\) and weight type \(torch\.cuda\.FloatTensor)\) "
                                       r"should be the same"),
    "05-invalid-ordinal": re.compile(r"CUDA error: invalid device ordinal"),
    "04-device-of-cuda": re.compile(r"device\(type='cpu'\)[\s\S]*device\(type='cuda', index=0\)"),
    "05-indexing": re.compile(r"indices should be either on cpu or on the same device as the indexed tensor \(cpu\)"),
    "06-hidden-syncs": re.compile(r"called a synchronizing CUDA operation"),
    "07-square": re.compile(r"device='cuda:\d+'\)"),
    "08-nccl-error": re.compile(r"Duplicate GPU detected : rank \d+ and rank \d+ both on CUDA device [0-9a-f]+"
                                r"|Multiple Ranks are using the same GPU"),
    "09-out-of-memory": re.compile(r"CUDA out of memory\. Tried to allocate [\d.]+ [KMG]iB[\s\S]*total capacity"),
    "09-forked-cuda": re.compile(r"Cannot re-initialize CUDA in forked subprocess\. To use CUDA with multiprocessing, "
                                 r"you must use the 'spawn' start method"),
    "02-numpy": _TO_NUMPY,
    "05-numpy": _TO_NUMPY,
    # The checkpoint saved from cuda:1 comes back on cuda:1, or (one GPU) the load names device 1 and a count of 1.
    "03-load-cuda1-checkpoint": re.compile(r"torch\.load\([^)]*\)(?:\[\"weight\"\])?\.device\)[\s\S]*^(?:as saved: )?cuda:1$"
                                           r"|Attempting to deserialize object on CUDA device 1 but "
                                           r"torch\.cuda\.device_count\(\) is 1\.", re.M),
}

# Why a GPU-only cell has no field record yet (searched: GitHub issue threads, stored web pages and public
# repositories' files, three times on 2026-12-03).
_NO_VERSION = ("Public reports of this message abound, but none found states the torch version beside it, and a "
               "record without its torch version is worse than none.")
_TWO_GPUS = ("No public report found that shows this cell's point: the behaviour of the current or default device "
             "across two GPUs is rarely printed in public.")
_NOT_CITABLE = ("Outputs of this call exist in public repositories' files, but the search tools found none whose "
                "repository, torch version and date could all be named.")
_NOT_FOUND = "Not found in this session's searches; no public report seen shows this cell's point with its torch version."
_NOT_SEARCHED = "Lesson 11 came after these searches, and no public report has been looked for for this cell yet."
_NOT_SEARCHED_12 = "Lesson 12 came after these searches, and no public report has been looked for for this cell yet."
NO_RECORD: dict[str, str] = {
    "01-gpu-properties": _NOT_CITABLE,
    "02-cuda-in-device-scope": _TWO_GPUS,
    "02-default-vs-current": _TWO_GPUS,
    "02-round-trip": _NOT_FOUND,
    "02-tensor-on-gpu": _NOT_CITABLE,
    "03-adam-state": _NOT_FOUND,
    "03-load-gpu-checkpoint": ("The one report found of torch.load without map_location, pytorch/pytorch#35289 (torch 1.4.0), "
                               "loads a cuda:1 checkpoint (cell 03-load-cuda1-checkpoint's record); none found of a cuda:0 "
                               "checkpoint coming back on cuda:0 beside its torch version."),
    "03-model-input": _NO_VERSION,
    "03-module-cuda": _NOT_FOUND,
    "03-optimizer-before-cuda": _NOT_FOUND,
    "03-plain-attribute": ("Near misses only: pytorch/pytorch#43815 (torch 1.5.1) prints a tensor held in a plain dict "
                           "staying on cpu while the registered buffer moves to cuda:0, but no forward error; "
                           "gdalsanto/flamo#30 shows the forward error of plain tensor attributes left on the CPU, "
                           "without a torch version."),
    "04-each-gpu": _TWO_GPUS,
    "04-nested-trace": _TWO_GPUS,
    "04-set-device": _TWO_GPUS,
    "04-torch-device-scope": _TWO_GPUS,
    "05-async-assert": ("Reports of the error surfacing at a later call (WangYueFt/dcp#30, at loss.item()) name no torch "
                        "version; those that name one (pytorch/pytorch#55027, torch 1.8.1) show only the failed-assert "
                        "lines in their searchable text."),
    "05-cat": _NO_VERSION,
    "05-linear": _NO_VERSION,
    "05-optimizer-state": _NOT_FOUND,
    "06-d2h-non-blocking": ("The one public output of this call found, pytorch/pytorch#39694 (2020-06-09, naming no "
                            "release), prints is_pinned() False, the opposite of the cell's point for the releases "
                            "it quotes; none found of the current behaviour beside a torch version."),
    "06-events": _NOT_FOUND,
    "06-h2d-non-blocking": _NOT_FOUND,
    "06-sync-timing": ("The measurements found name no torch version: TristanBilot/mlx-benchmark#21 (2024-02-25, an "
                       "RTX 4090: MatMul 0.03 ms without torch.cuda.synchronize(), 1.36 ms with) and the Colab Tesla "
                       "T4 run of mryab/efficient-dl-systems' week01_intro/seminar.ipynb (2026-01-19)."),
    "07-cuda-vs-cuda0": _TWO_GPUS,
    "07-cuda0-cuda1": _TWO_GPUS,
    "07-cuda0-device": _NOT_CITABLE,
    "07-device-of-switch": _TWO_GPUS,
    "07-mixing-gpus": _NO_VERSION,
    "07-model-input": _NO_VERSION,
    "07-net-cuda": _NOT_FOUND,
    "07-op-inside-device-of": _TWO_GPUS,
    "07-two-gpu-transfer": _TWO_GPUS,
    "08-ddp-device-ids": _NOT_FOUND,
    "08-every-rank-cuda0": _NOT_FOUND,
    "09-allocated-reserved": ("mryab/efficient-dl-systems' week01_intro/seminar.ipynb (a Colab Tesla T4 run, committed "
                              "2026-01-19) prints memory_allocated() 0 and memory_reserved() 33554432 after its tensor "
                              "is freed, then 0 after empty_cache(), but names no torch version."),
    "09-item-sync": _NOT_FOUND,
    "09-label-on-cpu": _NO_VERSION,
    "09-memory-summary": ("The memory_summary() tables found in public (pytorch/pytorch#91854) were printed by an "
                          "unreleased branch, with no torch version to name."),
    "09-pinned-batch": _NOT_FOUND,
    "09-step-memory": _NOT_FOUND,
    "10-two-gpu-split": _NOT_FOUND,
    # lesson 11 came after the searches above; one search (GitHub issues, 2026-12-03) for its generator message
    "11-amp-cuda": _NOT_SEARCHED,
    "11-autocast-gpu": _NOT_SEARCHED,
    "11-cuda-generator": ("The reports of \"Expected a 'cuda' device type for generator but found 'cpu'\" found with a "
                          "torch version (dbolya/yolact#727, 1.10.0+cu102) came from set_default_tensor_type on releases "
                          "far older than the floor, not from set_default_device."),
    "12-read-gpu": _NOT_SEARCHED_12,
}


def field_records(key: str) -> tuple[FieldRecord, ...]:
    """Every field record of cell ``key``, newest report first."""
    return tuple(sorted((r for r in RECORDS if r.key == key), key=lambda r: r.date, reverse=True))


def field_record(key: str) -> FieldRecord | None:
    """The field record ``recorded(key)`` shows: the newest report for cell ``key``, or None."""
    found = field_records(key)
    return found[0] if found else None


def shows_point(key: str, text: str) -> bool:
    """Whether ``text`` (a field record's excerpt, or a recording) shows cell ``key``'s point, per ``POINTS``."""
    if key not in POINTS:
        raise ValueError(f"No pattern for cell {key!r} in POINTS (course_utils/evidence/field_records.py): add what "
                         "its GPU output must contain before adding a field record for it.")
    return POINTS[key].search(text) is not None


FIELD_START = "<!-- field-records:start, generated from evidence.field_records by field_records_markdown() -->"
FIELD_END = "<!-- field-records:end -->"


def field_records_markdown() -> str:
    """docs/gpu-verification.md's list: each GPU-only cell's field record, or why it has none."""
    out = [FIELD_START, "", "| Cell | Field record | Torch, GPU or platform |", "|---|---|---|"]
    for r in sorted(RECORDS, key=lambda r: r.key):
        out.append(f"| `{r.key}` | [{r.url.removeprefix('https://')}]({r.url}), {r.date} | {r.torch}; {r.gpu} |")
    out += ["", "Cells without a field record, and why:", ""]
    out += [f"- `{key}`: {why}" for key, why in sorted(NO_RECORD.items())]
    out.append(FIELD_END)
    return "\n".join(out)
