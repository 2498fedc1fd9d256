"""What PyTorch's source says a GPU-only cell shows, for cells no GPU run has recorded yet.

Lesson: every notebook's GPU-only cells. ``QUOTES[key]`` quotes the PyTorch source behind cell
``key``: the docstring, the code line or the error's string literal that decides what a GPU
prints there. Each quote names its file in the PyTorch repository and the version it was checked
against, and ``tests/test_evidence.py`` checks every quote against the installed torch: Python
quotes in the installed ``.py`` file, C++ string literals in the compiled libraries (where the
compiler keeps them verbatim). A quote that PyTorch no longer contains fails the suite.

Once a GPU run records a key, ``recorded`` shows the recording instead; the quote stays as the
fallback for machines whose evidence folder lacks it.
"""

from __future__ import annotations

import mmap
import re
from dataclasses import dataclass
from pathlib import Path

CHECKED = "2.13.0"  # the torch release every quote below was read from and checked against


@dataclass(frozen=True)
class SourceQuote:
    """A passage of PyTorch's source, verbatim: ``kind`` says how to find it in an installed torch."""

    file: str  # path in the pytorch/pytorch repository
    text: str  # verbatim; for "literal", the C++ string literal's characters
    kind: str = "python"  # "python": the installed .py file | "literal": compiled libraries | "cuda-literal": CUDA builds only
    note: str = ""  # one sentence: how the quote decides this cell's output
    version: str = CHECKED
    # The oldest release the course tests that has this text; older ones word it differently (the
    # device-check message was reworded in 2.8, pytorch#155085). Shown in the label.
    since: str = "2.7.1"

    @property
    def shown(self) -> str:
        """The quote as a reader sees it: a C++ literal in its double quotes, so its spaces show."""
        return self.text if self.kind == "python" else f'"{self.text}"'

    @property
    def label(self) -> str:
        what = "source" if self.kind == "python" else "C++ string literal"
        older = f"; PyTorch {self.since} and later, older releases word it differently" if self.since != "2.7.1" else ""
        return f"PyTorch {self.version}, {self.file} ({what}{older})"


def installed_text_contains(quote: SourceQuote, torch_dir: Path | None = None) -> bool:
    """Whether the installed torch still contains ``quote`` (whitespace-insensitive for Python)."""
    if torch_dir is None:
        import torch

        torch_dir = Path(torch.__file__).resolve().parent
    if quote.kind == "python":
        path = torch_dir.parent / quote.file
        if not path.is_file():
            return False
        squash = lambda s: re.sub(r"\s+", " ", s).strip()  # noqa: E731 - docstrings re-wrap between releases
        return squash(quote.text) in squash(path.read_text(encoding="utf-8"))
    if quote.kind in ("literal", "cuda-literal"):
        needle = quote.text.encode()
        for lib in sorted((torch_dir / "lib").glob("*.so*")):
            with open(lib, "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as mm:
                if mm.find(needle) != -1:
                    return True
        return False
    raise ValueError(f"SourceQuote.kind must be 'python' or 'literal', found {quote.kind!r}.")



# ----------------------------------------------------------------- quotes shared by several cells

SAME_DEVICE = SourceQuote(
    "aten/src/ATen/TensorIterator.cpp",
    "Expected all tensors to be on the same device, but found at least two devices, ",
    "literal",
    "elementwise operations check their operands here; the message goes on with the common device, "
    "'and', the other device, and '!': on a GPU, cuda:0 and cpu",
)
ARGUMENT_DEVICE = SourceQuote(
    "aten/src/ATen/core/op_registration/adaption.cpp",
    ", different from other tensors on ",
    "literal",
    "common_device_check_failure: 'Expected all tensors to be on the same device, but got <argument> is on "
    "<device>, different from other tensors on <device> (when checking argument in method <kernel>)'; "
    "on a GPU the kernel is the CUDA one (wrapper_CUDA_addmm for nn.Linear)",
    since="2.8.0",
)
WHEN_CHECKING = SourceQuote("aten/src/ATen/core/op_registration/adaption.cpp", " (when checking argument in method ", "literal",
                            since="2.8.0")
TO_NUMPY = SourceQuote(
    "torch/csrc/utils/tensor_numpy.cpp",
    " device type tensor to numpy. Use Tensor.cpu() to ",
    "literal",
    "the message starts \"can't convert %s\" with the device type filled in: cuda:0 on a GPU",
)
TENSOR_CUDA = SourceQuote(
    "torch/_tensor_docs.py",
    "device (:class:`torch.device`, optional): The destination GPU device.\n        Defaults to the current CUDA device.",
    since="2.13.0",  # 2.7.1 has the same sentence without "optional"; 2.8-2.12 not checked
)
CUDA_COPY = SourceQuote(
    "torch/_tensor_docs.py",
    "Returns a copy of this object in CUDA memory.\n\nIf this object is already in CUDA memory and on the correct device,\n"
    "then no copy is performed and the original object is returned.",
)
CPU_COPY = SourceQuote(
    "torch/_tensor_docs.py",
    "Returns a copy of this object in CPU memory.\n\nIf this object is already in CPU memory,\n"
    "then no copy is performed and the original object is returned.",
)
DEVICE_SCOPE = SourceQuote(
    "torch/cuda/__init__.py",
    "def __enter__(self):\n        self.prev_idx = torch.cuda._exchange_device(self.idx)\n\n"
    "    def __exit__(self, type: Any, value: Any, traceback: Any):\n"
    "        self.idx = torch.cuda._maybe_exchange_device(self.prev_idx)",
    note="torch.cuda.device swaps the current device in on entry and the previous one back on exit",
)
DEVICE_OF = SourceQuote(
    "torch/cuda/__init__.py",
    "Context-manager that changes the current device to that of given object.\n\n    You can use both tensors and "
    "storages as arguments. If a given object is\n    not allocated on a GPU, this is a no-op.",
)
MODULE_SET_DATA = SourceQuote(
    "torch/nn/modules/module.py",
    "elif p_should_use_set_data:\n                param.data = param_applied\n                out_param = param",
    note="Module._apply (behind .cuda() and .to()) replaces each parameter's data in place: "
    "the Parameter object, and so the optimizer's reference to it, stays the same",
)
STATE_CAST = SourceQuote(
    "torch/optim/optimizer.py",
    "return value.to(dtype=param.dtype, device=param.device)",
    note="only load_state_dict moves optimizer state to its parameter's device; model.cuda() does not touch it",
)
DESERIALIZE = SourceQuote(
    "torch/serialization.py",
    "device = _validate_device(location, backend_name)\n        return obj.to(device=device)",
    note="without map_location, each storage goes back to the device tag it was saved with",
)
TENSOR_STR_DEVICE = SourceQuote(
    "torch/_tensor_str.py",
    "suffixes.append(\"device='\" + str(self.device) + \"'\")",
    note="a tensor off the default device (or off the current CUDA device) prints its device",
)
SYNCHRONIZE = SourceQuote("torch/cuda/__init__.py", "Wait for all kernels in all streams on a CUDA device to complete.")
CUDA_ERROR = SourceQuote(
    "c10/cuda/CUDAException.cpp",
    "CUDA kernel errors might be asynchronously reported at some other API call",
    "cuda-literal",
    "C10_CUDA_CHECK reports 'CUDA error: ' and the CUDA runtime's own text (cudaErrorInvalidDevice reads "
    "'invalid device ordinal'), then this line",
    version="2.14.1 (CUDA build)",
)
DDP_DEVICE_IDS = SourceQuote(
    "torch/nn/parallel/distributed.py",
    "1) For single-device modules, ``device_ids`` can\n                   contain exactly one device id, which "
    "represents the only\n                   CUDA device where the input module corresponding to this process resides.",
)

QUOTES: dict[str, tuple[SourceQuote, ...]] = {
    # 01 device query
    "01-gpu-properties": (
        SourceQuote("torch/cuda/__init__.py", "if device < 0 or device >= device_count():\n"
                    "        raise AssertionError(\"Invalid device id\")\n    return _get_device_properties(device)",
                    note="one properties record per visible index: name, major.minor, multi_processor_count"),
        SourceQuote("torch/cuda/memory.py", "Return the global free and total GPU memory for a given device using cudaMemGetInfo."),
    ),
    "01-visible-devices-after-init": (
        SourceQuote("torch/cuda/__init__.py", "# NB: Do not cache the device count prior to CUDA initialization, because\n"
                    "    # the number of devices can change due to changes to CUDA_VISIBLE_DEVICES\n"
                    "    # setting prior to CUDA initialization.\n    if _initialized:\n        _cached_device_count = r",
                    note="after initialisation the count is cached, so a later CUDA_VISIBLE_DEVICES changes nothing"),
    ),
    # 02 tensor placement
    "02-tensor-on-gpu": (SourceQuote("torch/cuda/__init__.py", "Return the index of a currently selected device."),
                         TENSOR_CUDA),
    "02-cuda-in-device-scope": (TENSOR_CUDA, DEVICE_SCOPE),
    "02-round-trip": (CUDA_COPY, CPU_COPY),
    "02-cross-device-error": (SAME_DEVICE,),
    "02-numpy": (TO_NUMPY,),
    "02-default-vs-current": (
        SourceQuote("torch/__init__.py", "Sets the default ``torch.Tensor`` to be allocated on ``device``.  This\n"
                    "    does not affect factory function calls which are called with an explicit\n    ``device`` argument.",
                    note="it sets where factories allocate, not the current CUDA device that .cuda() uses"),
        TENSOR_CUDA,
    ),
    # 03 model placement
    "03-module-cuda": (SourceQuote("torch/nn/modules/module.py", "This method modifies the module in-place."), MODULE_SET_DATA),
    "03-plain-attribute": (SAME_DEVICE,),
    "03-model-input": (ARGUMENT_DEVICE, WHEN_CHECKING),
    "03-optimizer-before-cuda": (MODULE_SET_DATA,),
    "03-adam-state": (STATE_CAST, SAME_DEVICE),
    "03-load-gpu-checkpoint": (DESERIALIZE,),
    "03-load-cuda1-checkpoint": (DESERIALIZE,),
    # 04 current device
    "04-each-gpu": (
        SourceQuote("torch/cuda/memory.py", "Returns\n            statistic for the current device, given by "
                    ":func:`~torch.cuda.current_device`,\n            if :attr:`device` is ``None`` (default)"),
        TENSOR_CUDA, DEVICE_SCOPE,
    ),
    "04-device-of-cuda": (DEVICE_OF, SourceQuote("torch/cuda/__init__.py", "idx = obj.get_device() if obj.is_cuda else -1")),
    "04-set-device": (
        DEVICE_SCOPE,
        SourceQuote("torch/cuda/__init__.py", "device (torch.device or int): device index to select. It's a no-op if\n"
                    "            this argument is a negative integer or ``None``.",
                    note="torch.cuda.device(-1) neither selects nor restores, so a set_device inside it stays"),
    ),
    "04-torch-device-scope": (
        SourceQuote("torch/__init__.py", "To only temporarily change the default device instead of setting it\n"
                    "    globally, use ``with torch.device(device):`` instead.",
                    note="with torch.device(...) sets the default device for factories; the current CUDA device stays"),
        TENSOR_CUDA,
    ),
    "04-nested-trace": (DEVICE_SCOPE, DEVICE_OF),
    # 05 error clinic
    "05-elementwise": (SAME_DEVICE,),
    "05-linear": (ARGUMENT_DEVICE, WHEN_CHECKING),
    "05-cat": (ARGUMENT_DEVICE, WHEN_CHECKING),
    "05-indexing": (SourceQuote("aten/src/ATen/native/IndexingUtils.h", "indices should be either on ", "literal",
                                "the message goes on: 'cpu or on the same device as the indexed tensor (<device>)'"),),
    "05-optimizer-state": (STATE_CAST, SAME_DEVICE),
    "05-invalid-ordinal": (CUDA_ERROR,),
    "05-numpy": (TO_NUMPY,),
    "05-conv-cross-device": (
        SourceQuote("aten/src/ATen/native/Convolution.cpp",
                    ") should be the same or input should be a MKLDNN tensor and weight is a dense tensor", "literal",
                    "check_input_same_type_as_parameters prints 'Input type (' + input.toString() + ') and weight type (' "
                    "+ weight.toString() + ...; toString() names a CUDA float32 tensor torch.cuda.FloatTensor. A CPU input "
                    "takes the MKLDNN backend, whose message ends like this; a CUDA input takes cuDNN's, which stops at "
                    "'should be the same'"),
        SourceQuote("aten/src/ATen/native/Convolution.cpp", ") and weight type (", "literal"),
    ),
    "05-async-assert": (
        CUDA_ERROR,
        SourceQuote("c10/cuda/CUDAMiscFunctions.cpp", "For debugging consider passing CUDA_LAUNCH_BLOCKING=1",
                    "cuda-literal",
                    "get_cuda_check_suffix adds this to every CUDA error unless CUDA_LAUNCH_BLOCKING is set; a failed "
                    "kernel assert reads 'device-side assert triggered' (cudaErrorAssert) and is reported by a later call",
                    version="2.14.1 (CUDA build)"),
    ),
    # 06 transfers and timing
    "06-sync-timing": (SYNCHRONIZE,),
    "06-events": (SourceQuote("torch/cuda/streams.py", "Time reported in milliseconds after the event was recorded and\n"
                              "        before the end_event was recorded."),),
    "06-hidden-syncs": (SourceQuote("torch/cuda/__init__.py", "if \"warn\" or 1, warn on synchronizing operations"),),
    "06-h2d-non-blocking": (SourceQuote("torch/_tensor_docs.py", "non_blocking (bool, optional): If ``True`` and the source is in "
                                        "pinned memory,\n        the copy will be asynchronous with respect to the host.",
                                        since="2.13.0"),  # 2.7.1: "non_blocking (bool):", 2.8-2.12 not checked
                            SYNCHRONIZE),
    "06-d2h-non-blocking": (SourceQuote("torch/_tensor_docs.py", "non_blocking (bool, optional): if ``True`` and this copy is "
                                        "between CPU and GPU,", since="2.13.0"),),
    # 07 claims checked
    "07-device-of-switch": (DEVICE_OF, DEVICE_SCOPE),
    "07-op-inside-device-of": (DEVICE_OF, SAME_DEVICE),
    "07-mixing-gpus": (SAME_DEVICE,),
    "07-two-gpu-transfer": (SourceQuote("torch/csrc/utils/python_arg_parser.cpp", " received an invalid combination of arguments - ",
                                        "literal", "Tensor.to accepts a device, dtype or tensor, not a device_of context manager"),),
    "07-cuda0-cuda1": (TENSOR_CUDA, SourceQuote("torch/nn/modules/module.py", "This method modifies the module in-place.")),
    "07-cuda-vs-cuda0": (TENSOR_CUDA, DEVICE_SCOPE),
    "07-cuda0-device": (TENSOR_CUDA,),
    "07-square": (TENSOR_STR_DEVICE,),
    "07-add-cpu": (SAME_DEVICE,),
    "07-net-cuda": (MODULE_SET_DATA,),
    "07-model-input": (ARGUMENT_DEVICE, WHEN_CHECKING),
    # 08 one process per device
    "08-every-rank-cuda0": (DDP_DEVICE_IDS,),
    "08-nccl-error": (DDP_DEVICE_IDS,),
    "08-ddp-device-ids": (DDP_DEVICE_IDS, SAME_DEVICE),
    # 09 data loading and device memory
    "09-label-on-cpu": (ARGUMENT_DEVICE, WHEN_CHECKING),
    "09-pinned-batch": (
        SourceQuote("torch/utils/data/dataloader.py", "pin_memory (bool, optional): If ``True``, the data loader will copy "
                    "Tensors\n            into device/CUDA pinned memory before returning them.",
                    note="with CUDA the batch arrives pinned (is_pinned() is True) and nothing is warned"),
    ),
    "09-item-sync": (SourceQuote("torch/cuda/__init__.py", "if \"warn\" or 1, warn on synchronizing operations"),),
    "09-forked-cuda": (
        SourceQuote("torch/cuda/__init__.py", "\"Cannot re-initialize CUDA in forked subprocess. To use CUDA with \"",
                    note="raised in the worker by _lazy_init when the parent had initialised CUDA before the fork; "
                    "the DataLoader re-raises it in the notebook as 'Caught RuntimeError in DataLoader worker process 0'"),
        SourceQuote("torch/cuda/__init__.py", "\"multiprocessing, you must use the 'spawn' start method\""),
    ),
    "09-step-memory": (
        SourceQuote("torch/cuda/memory.py", "Return the current GPU memory occupied by tensors in bytes for a given device."),
        SourceQuote("torch/cuda/memory.py", "Return the maximum GPU memory occupied by tensors in bytes for a given device."),
    ),
    "09-allocated-reserved": (
        SourceQuote("torch/cuda/memory.py", "Return the current GPU memory managed by the caching allocator in bytes "
                    "for a given device."),
        SourceQuote("torch/cuda/memory.py", "Release all unoccupied cached memory currently held by the caching\n"
                    "    allocator so that those can be used in other GPU application and visible in\n    `nvidia-smi`."),
    ),
    "09-out-of-memory": (
        SourceQuote("c10/cuda/CUDACachingAllocator.cpp", "CUDA out of memory. Tried to allocate ", "cuda-literal",
                    "raised as torch.OutOfMemoryError (torch.cuda.OutOfMemoryError); the message goes on with the GPU's "
                    "capacity, what is free, what PyTorch has allocated and reserved, and a hint"),
        SourceQuote("c10/cuda/CUDACachingAllocator.cpp", "expandable_segments:True", "cuda-literal",
                    "the hint the message gives when much memory is reserved but unallocated (fragmentation)"),
    ),
    "09-memory-summary": (
        SourceQuote("torch/cuda/memory.py", "Return the maximum GPU memory occupied by tensors in bytes for a given device."),
    ),
    # 10 models bigger than a device
    "10-two-gpu-split": (
        SourceQuote("torch/optim/adam.py", 'state["exp_avg"] = torch.zeros_like(\n'
                    "                        p, memory_format=torch.preserve_format\n                    )",
                    note="Adam's moments are made like their parameter: on cuda:0 for stage1, on cuda:1 for stage2"),
        SourceQuote("torch/optim/adam.py", "# Deliberately host `step` on CPU if both capturable and fused are off.",
                    note="so every parameter's 'step' is a CPU tensor, on both GPUs' stages"),
        ARGUMENT_DEVICE, WHEN_CHECKING,
    ),
}
