"""What a field record must show, and why a GPU-only cell has none: the rules ``tests/test_field_records.py`` holds
the records of ``course_utils.evidence.field_records`` to, and the list docs/gpu-verification.md shows.

Lesson: none; this is the authors' side of the field records (issue 37). A learner's install shows the records
(``course_utils.evidence``); what an excerpt must contain to count as one (``POINTS``, ``TIMING_POINTS``), why a
cell has none (``NO_RECORD``) and the page's list (``field_records_markdown``) are for whoever adds a record.
"""

from __future__ import annotations

import re

from course_utils.evidence.field_records import RECORDS, STANDINS, TIMINGS

# What a report's excerpt must contain to show cell ``key``'s point (tests/test_field_records.py).
# The cross-device message of TensorIterator, naming an accelerator and the CPU (either order).
_CROSS_DEVICE = re.compile(
    r"Expected all tensors to be on the same device, but found at least two devices, "
    r"(?:(?:cuda|mps):\d+ and cpu|cpu and (?:cuda|mps):\d+)!"
)
# The .numpy() refusal of TO_NUMPY, naming an accelerator.
_TO_NUMPY = re.compile(
    r"can't convert (?:cuda|mps):\d+ device type tensor to numpy\. Use Tensor\.cpu\(\) to copy the "
    r"tensor to host memory first\."
)
# The dispatcher's device check of a linear layer's addmm, naming mat1, both devices and the CUDA kernel (either
# wording: 2.7.1's "found at least two devices", or "but got mat1 is on" from 2.8.0; older releases name
# the kernel wrapper_addmm).
_ADDMM_MAT1 = re.compile(
    r"found at least two devices, (?:cuda:\d+ and cpu|cpu and cuda:\d+)! \(when checking argument for "
    r"argument mat1 in method wrapper_(?:CUDA_)?addmm\)"
    r"|but got mat1 is on (?:cpu|cuda:\d+), different from other tensors on (?:cuda:\d+|cpu) \(when "
    r"checking argument in method wrapper_CUDA_addmm\)"
)
# A module moved with .to(...) or .cuda(), the result not assigned, then a parameter of it on the first GPU.
_MOVED_IN_PLACE = re.compile(r"^\w+\.(?:to\(\w+\)|cuda\(\))[^\n=]*$[\s\S]*(?:device: cuda:0$|device\(type='cuda', index=0\))", re.M)
POINTS: dict[str, re.Pattern[str]] = {
    "01-gpu-properties": re.compile(
        r"_CudaDeviceProperties\(name='[^']+', major=\d+, minor=\d+, total_memory=\d+MB, "
        r"multi_processor_count=\d+"
    ),
    "05-linear": _ADDMM_MAT1,
    "03-model-input": _ADDMM_MAT1,
    # a .cuda(1) call, then a tensor printed on cuda:1
    "07-cuda0-cuda1": re.compile(r"\.cuda\(1\)[\s\S]*device='cuda:1'\)"),
    # .to(another tensor's .device), then tensors printed on both GPUs
    "07-two-gpu-transfer": re.compile(r"\.to\(\w+(?:\[\w+\])*\.device\)[\s\S]*device='cuda:0'[\s\S]*device='cuda:1'"),
    # a timed loop without synchronize and one with it: two timings and the synchronize call
    "06-sync-timing": re.compile(r"\d+(?:\.\d+)? ?(?:ms|sec|s)\b[\s\S]*synchronize\([\s\S]*\d+(?:\.\d+)? ?(?:ms|sec|s)\b"),
    # the allocator's peak counter, then a size it printed
    "09-step-memory": re.compile(r"max_memory_allocated\([^)]*\)[\s\S]*\d+(?:\.\d+)? ?(?:[KMG]i?B|bytes)\b"),
    # a device-to-host non_blocking copy, a failed read, then a synchronize
    "06-d2h-non-blocking": re.compile(r"to\(['\"]cpu['\"], non_blocking=True\)[\s\S]*synchroniz[\s\S]*\bfail"),
    "07-model-input": _ADDMM_MAT1,
    "03-module-cuda": _MOVED_IN_PLACE,
    "07-net-cuda": _MOVED_IN_PLACE,
    "07-cuda0-device": re.compile(r"device\(type='cuda', index=0\)"),
    # a GPU tensor, then a .cpu() copy of it
    "02-round-trip": re.compile(r"device='cuda:\d+'\)[\s\S]*\.cpu\(\)"),
    # a tensor made for the device 'cuda' lands on cuda:0
    "02-tensor-on-gpu": re.compile(r"device='cuda:0'\)|on device: cuda:0$", re.M),
    "01-visible-devices-after-init": re.compile(r'CUDA_VISIBLE_DEVICES"?\]? ?= ?"0"[\s\S]*\b2\b'),
    "02-cross-device-error": _CROSS_DEVICE,
    "05-elementwise": _CROSS_DEVICE,
    "07-add-cpu": _CROSS_DEVICE,
    "05-conv-cross-device": re.compile(
        r"Input type \((?:torch\.cuda\.FloatTensor\) and weight type \(torch\.FloatTensor"
        r"|torch\.FloatTensor\) and weight type \(torch\.cuda\.FloatTensor)\) "
        r"should be the same"
    ),
    "05-invalid-ordinal": re.compile(r"CUDA error: invalid device ordinal"),
    "04-device-of-cuda": re.compile(r"device\(type='cpu'\)[\s\S]*device\(type='cuda', index=0\)"),
    "05-indexing": re.compile(r"indices should be either on cpu or on the same device as the indexed tensor \(cpu\)"),
    "06-hidden-syncs": re.compile(r"called a synchronizing CUDA operation"),
    "07-square": re.compile(r"device='cuda:\d+'\)"),
    "08-nccl-error": re.compile(
        r"Duplicate GPU detected : rank \d+ and rank \d+ both on CUDA device [0-9a-f]+"
        r"|Multiple Ranks are using the same GPU"
    ),
    "09-out-of-memory": re.compile(r"CUDA out of memory\. Tried to allocate [\d.]+ [KMG]iB[\s\S]*total capacity"),
    "09-forked-cuda": re.compile(
        r"Cannot re-initialize CUDA in forked subprocess\. To use CUDA with multiprocessing, "
        r"you must use the 'spawn' start method"
    ),
    "02-numpy": _TO_NUMPY,
    "05-numpy": _TO_NUMPY,
    # The checkpoint saved from cuda:1 comes back on cuda:1, or (one GPU) the load names device 1 and a count of 1.
    "03-load-cuda1-checkpoint": re.compile(
        r"torch\.load\([^)]*\)(?:\[\"weight\"\])?\.device\)[\s\S]*^(?:as saved: )?cuda:1$"
        r"|Attempting to deserialize object on CUDA device 1 but "
        r"torch\.cuda\.device_count\(\) is 1\.",
        re.M,
    ),
}

# Why a GPU-only cell has no field record yet (searched: GitHub issue threads, stored web pages and public
# repositories' files, four times on 2026-12-03; the fourth also read the executed notebooks of
# mrdbourke/pytorch-deep-learning, d2l-ai/d2l-pytorch-colab, rasbt/LLMs-from-scratch, mryab/efficient-dl-systems,
# ultralytics/yolov5 and stas00/ml-engineering, and PyTorch's tutorials as their docs build rendered them).
_NO_VERSION = (
    "Public reports of this message abound, but none found states the torch version beside it, and a "
    "record without its torch version is worse than none."
)
_TWO_GPUS = (
    "No public report found that shows this cell's point: the behaviour of the current or default device "
    "across two GPUs is rarely printed in public (Dive into Deep Learning's two-GPU notebooks, which back "
    "07-cuda0-cuda1, name each device by its index)."
)
_NOT_FOUND = "Not found in this session's searches; no public report seen shows this cell's point with its torch version."
_NOT_SEARCHED_12 = "Lesson 12 came after these searches, and no public report has been looked for for this cell yet."
NO_RECORD: dict[str, str] = {
    "02-cuda-in-device-scope": _TWO_GPUS,
    "02-default-vs-current": _TWO_GPUS,
    "03-adam-state": (
        "Reports of a resumed optimizer's step failing across devices abound (microsoft/Cream#2 in "
        "SGD's momentum update, no torch version; huggingface/transformers#24708 in fused AdamW, torch "
        "2.0.1, whose searchable text ends before the message); none found of Adam's averages from a "
        "CPU step with its torch version."
    ),
    "03-load-gpu-checkpoint": (
        "The one report found of torch.load without map_location, pytorch/pytorch#35289 (torch 1.4.0), "
        "loads a cuda:1 checkpoint (cell 03-load-cuda1-checkpoint's record); none found of a cuda:0 "
        "checkpoint coming back on cuda:0 beside its torch version."
    ),
    "03-optimizer-before-cuda": _NOT_FOUND,
    "03-plain-attribute": (
        "Near misses only: pytorch/pytorch#43815 (torch 1.5.1) prints a tensor held in a plain dict "
        "staying on cpu while the registered buffer moves to cuda:0, but no forward error; "
        "gdalsanto/flamo#30 shows the forward error of plain tensor attributes left on the CPU, "
        "without a torch version."
    ),
    "04-each-gpu": _TWO_GPUS,
    "04-nested-trace": _TWO_GPUS,
    "04-set-device": _TWO_GPUS,
    "04-torch-device-scope": (
        "Only the one-GPU half is published: mrdbourke/pytorch-deep-learning's "
        "extras/pytorch_2_intro.ipynb (torch 2.0.0+cu118, a TITAN RTX) prints cuda:0 inside "
        "`with torch.device(device)`, which cannot show that the current device stays 0."
    ),
    "05-async-assert": (
        "Reports of the error surfacing at a later call (WangYueFt/dcp#30, at loss.item()) name no torch "
        "version; those that name one (pytorch/pytorch#55027, torch 1.8.1) show only the failed-assert "
        "lines in their searchable text, and Comfy-Org/ComfyUI#13142 (a torch.AcceleratorError, so "
        "2.8.0 or later) shows the message and its hint without naming the release."
    ),
    "05-cat": (
        "kijai/ComfyUI-GIMM-VFI#19 and Comfy-Org/ComfyUI#7746 show cat's message (tensors, wrapper_CUDA_cat), "
        "but the searchable text of neither names its torch version."
    ),
    "05-optimizer-state": _NOT_FOUND,
    "06-events": (
        "The published timings found that use CUDA events (stas00/ml-engineering's pin-memory benchmark, an "
        "A100 80GB-PCIe) name no torch version."
    ),
    "06-h2d-non-blocking": (
        "The one published run found, PyTorch's pin_memory/non_blocking tutorial (2.12.0+cu130 "
        "build), checks a non_blocking host-to-device copy from pageable memory and from pinned "
        "memory it then overwrites; neither is the cell's pinned copy read by a kernel on the same "
        "stream (its timings are shown beside lesson 06's stand-in instead)."
    ),
    "07-cuda-vs-cuda0": _TWO_GPUS,
    "07-device-of-switch": _TWO_GPUS,
    "07-mixing-gpus": (
        "Reports of the message naming two GPUs (WeihaoTan/TWOSOME#5: cuda:0 and cuda:1; "
        "lllyasviel/ControlNet-v1-1-nightly#30: cuda:1 and cuda:0) name no torch version; Dive into Deep "
        "Learning's two-GPU notebook adds only tensors on the same GPU."
    ),
    "07-op-inside-device-of": _TWO_GPUS,
    "08-ddp-device-ids": _NOT_FOUND,
    "08-every-rank-cuda0": _NOT_FOUND,
    "09-allocated-reserved": (
        "mryab/efficient-dl-systems' week01_intro/seminar.ipynb (a Colab Tesla T4 run, committed "
        "2026-01-19) prints memory_allocated() 0 and memory_reserved() 33554432 after its tensor "
        "is freed, then 0 after empty_cache(), but names no torch version anywhere in the notebook."
    ),
    "09-item-sync": (
        "The synchronizing-operation warnings found in public come from other calls (torch.tensor(...) on a "
        "device in pytorch/pytorch#120996, cell 06-hidden-syncs' record; .to() in huggingface/open-r1#254) "
        "or from an unreleased branch (pytorch/pytorch#62092); none from .item() with a torch version."
    ),
    "09-label-on-cpu": (
        "The reports of cross_entropy's target left on the CPU (wrapper_nll_loss_forward; "
        "HoyTta0/KnowledgeDistillation#10, asahi417/lmppl#14) name no torch version."
    ),
    "09-memory-summary": (
        "The memory_summary() tables found in public were printed by an unreleased branch "
        "(pytorch/pytorch#91854) or sit in threads whose searchable text names no torch version beside "
        "them (pytorch/pytorch#35901, mlcommons/algorithmic-efficiency#425, facebookresearch/fairseq#2442)."
    ),
    "09-pinned-batch": (
        "Published runs of DataLoader(pin_memory=True) time it (stas00/ml-engineering, an A100 "
        "80GB-PCIe) but print neither is_pinned() nor a torch version."
    ),
    "10-accelerate-gpu-offload": (
        "Added with accelerate's part of lesson 10 after these searches; no public report "
        "has been looked for yet of a dispatched model's offloaded layers coming back on the "
        "GPU for the forward pass, with its accelerate and torch versions."
    ),
    "10-two-gpu-split": _NOT_FOUND,
    "11-amp-cuda": (
        "Public reports of GradScaler show its deprecation warning (Linesight-RL/linesight#51, "
        "pomonam/kronfluence#35), not a scale printed after a float16 step beside a torch version."
    ),
    "11-autocast-gpu": (
        "Near misses only: pytorch/pytorch#52501 (torch 1.7.1) prints a sum's dtype under autocast, "
        "not a matrix product's; a PyTorch forum post (an L4, torch 2.6.0+cu124) says the product's "
        "dtype was fp16 in words, without the printed output."
    ),
    "11-cuda-generator": (
        "The reports of \"Expected a 'cuda' device type for generator but found 'cpu'\" found with a "
        "torch version came from releases far older than the floor and not from set_default_device "
        "(dbolya/yolact#727, 1.10.0+cu102, set_default_tensor_type; "
        "hcnoh/knowledge-tracing-collection-pytorch#1, 1.10.0+cu113, random_split); the one from "
        "set_default_device (a comment in pytorch/pytorch#61457) names no torch version."
    ),
    "12-read-gpu": _NOT_SEARCHED_12,
}


TIMING_POINTS: dict[str, re.Pattern[str]] = {
    # both kinds of host memory copied to the GPU, each timed
    "06-copy-variants": re.compile(r"pageable[^\n]*\d+\.\d+ ?ms[\s\S]*pinned[^\n]*\d+\.\d+ ?ms"),
}


def shows_point(key: str, text: str) -> bool:
    """Whether ``text`` (a field record's excerpt, or a recording) shows cell ``key``'s point, per ``POINTS``."""
    if key not in POINTS:
        raise ValueError(
            f"No pattern for cell {key!r} in POINTS (course_authoring/field_record_rules.py): add what "
            "its GPU output must contain before adding a field record for it."
        )
    return POINTS[key].search(text) is not None


FIELD_START = "<!-- field-records:start, generated from course_authoring.field_record_rules by field_records_markdown() -->"
FIELD_END = "<!-- field-records:end -->"


def field_records_markdown() -> str:
    """docs/gpu-verification.md's list: each GPU-only cell's field record, or why it has none."""
    out = [FIELD_START, "", "| Cell | Field record | Torch, GPU or platform |", "|---|---|---|"]
    for r in sorted(RECORDS, key=lambda r: r.key):
        out.append(f"| `{r.key}` | [{r.url.removeprefix('https://')}]({r.url}), {r.date} | {r.torch}; {r.gpu} |")
    out += ["", "Published measurements shown beside a lesson's stand-in (never mixed into its figures):", ""]
    out += [
        f"- `{t.key}` ({STANDINS[t.key]}): [{t.url.removeprefix('https://')}]({t.url}), {t.date}; torch {t.torch}; "
        f"{t.gpu}" + (f"; {t.link}" if t.link else "")
        for t in sorted(TIMINGS, key=lambda t: t.key)
    ]
    out += ["", "Cells without a field record, and why:", ""]
    out += [f"- `{key}`: {why}" for key, why in sorted(NO_RECORD.items())]
    out.append(FIELD_END)
    return "\n".join(out)
