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
)
del R

# What a report's excerpt must contain to show cell ``key``'s point (tests/test_field_records.py).
# The cross-device message of TensorIterator, naming an accelerator and the CPU (either order).
_CROSS_DEVICE = re.compile(r"Expected all tensors to be on the same device, but found at least two devices, "
                           r"(?:(?:cuda|mps):\d+ and cpu|cpu and (?:cuda|mps):\d+)!")
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
}

# Why a GPU-only cell has no field record yet (searched: GitHub issue threads and stored web pages, twice on 2026-12-03).
_NO_VERSION = ("Public reports of this message abound, but none found states the torch version beside it, and a "
               "record without its torch version is worse than none.")
_TWO_GPUS = ("No public report found that shows this cell's point: the behaviour of the current or default device "
             "across two GPUs is rarely printed in public.")
_NOT_CITABLE = ("Outputs of this call exist in public repositories' files, but the search tools found none whose "
                "repository, torch version and date could all be named.")
_NOT_FOUND = "Not found in this session's searches; no public report seen shows this cell's point with its torch version."
_NOT_SEARCHED = "Lesson 11 came after these searches, and no public report has been looked for for this cell yet."
NO_RECORD: dict[str, str] = {
    "01-gpu-properties": _NOT_CITABLE,
    "02-cuda-in-device-scope": _TWO_GPUS,
    "02-default-vs-current": _TWO_GPUS,
    "02-numpy": _NO_VERSION,
    "02-round-trip": _NOT_FOUND,
    "02-tensor-on-gpu": _NOT_CITABLE,
    "03-adam-state": _NOT_FOUND,
    "03-load-cuda1-checkpoint": _NO_VERSION,
    "03-load-gpu-checkpoint": _NOT_FOUND,
    "03-model-input": _NO_VERSION,
    "03-module-cuda": _NOT_FOUND,
    "03-optimizer-before-cuda": _NOT_FOUND,
    "03-plain-attribute": _NO_VERSION,
    "04-each-gpu": _TWO_GPUS,
    "04-nested-trace": _TWO_GPUS,
    "04-set-device": _TWO_GPUS,
    "04-torch-device-scope": _TWO_GPUS,
    "05-async-assert": _NO_VERSION,
    "05-cat": _NO_VERSION,
    "05-linear": _NO_VERSION,
    "05-numpy": _NO_VERSION,
    "05-optimizer-state": _NOT_FOUND,
    "06-d2h-non-blocking": _NOT_FOUND,
    "06-events": _NOT_FOUND,
    "06-h2d-non-blocking": _NOT_FOUND,
    "06-sync-timing": _NOT_FOUND,
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
    "09-allocated-reserved": _NOT_FOUND,
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
