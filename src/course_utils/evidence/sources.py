"""What a GPU-only cell shows on a GPU, in plain words, and the PyTorch source that backs it.

Lesson: every notebook's GPU-only cells. ``CLAIMS[key]`` is, for cell ``key``, one or two plain
sentences (``says``: what a GPU shows there and why) and the passages of PyTorch's source that
back them (``quotes``): a whole docstring sentence, whole statements of code, or a whole message
with each value filled in at run time written as ``{what}``. ``recorded`` shows the sentences
first, then a GPU recording where one exists, else the quotes folded away.

Each quote names its file in the PyTorch repository and the releases that hold it verbatim
(``since``, ``until``), read in the release wheels 2.7.1, 2.8.0, 2.9.1, 2.10.0, 2.11.0, 2.12.0,
2.13.0 and 2.14.1; ``tests/test_evidence.py`` checks, on whatever torch is installed, that every
quote whose label covers it is there and that each is whole, not a fragment, with the authors'
verifier ``course_authoring.quotes`` (which reads Python in the installed ``.py`` file, C++ messages
in the compiled libraries): this module is the data a lesson shows, and ships to learners.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass

# The releases the quotes were read in (the course's test matrix runs 2.7.1, 2.13.0 and 2.14.1).
RELEASES = ("2.7.1", "2.8.0", "2.9.1", "2.10.0", "2.11.0", "2.12.0", "2.13.0", "2.14.1")
PLACEHOLDER = re.compile(r"\{[^{}]*\}")  # a value the message fills in at run time ({device}), or {}


def _release(version: str):
    from torch.torch_version import TorchVersion

    return TorchVersion(version.split("+")[0])


@dataclass(frozen=True)
class SourceQuote:
    """A passage of PyTorch's source, verbatim: ``kind`` says how to find it in an installed torch."""

    file: str  # path in the pytorch/pytorch repository
    # Verbatim. A C++ message is its literal pieces with each run-time value written {what}, and
    # {} where two literals meet with nothing between them.
    text: str
    # "python": the installed .py file | "literal": compiled libraries | "cuda-literal": CUDA builds only |
    # "nccl-literal": the NCCL library a CUDA build of torch installs beside it (site-packages/nvidia) |
    # "mps-literal": the macOS arm64 wheel's libraries only (libtorch_cpu.dylib: the MPS backend is built only there)
    kind: str = "python"
    note: str = ""  # one sentence: how the passage decides this cell's output
    since: str = RELEASES[0]  # the oldest checked release that holds it verbatim
    until: str | None = None  # the newest one, where a later release words it differently
    # A library around PyTorch instead (lesson 10's accelerate): "accelerate 1.16.0", the release it was read in;
    # ``file`` is then its path under that library's package (accelerate/big_modeling.py), not in pytorch/pytorch.
    library: str | None = None

    @property
    def shown(self) -> str:
        """The quote as a reader sees it: Python with its first line's indentation, a C++ message in quotes."""
        if self.kind != "python":
            return f'"{self.text.replace("{}", "")}"'
        first, _, rest = self.text.partition("\n")
        return first + ("\n" + textwrap.dedent(rest) if rest else "")

    @property
    def releases(self) -> str:
        """``PyTorch 2.9.1 and later`` / ``PyTorch 2.7.1 to 2.12.0``: where it was read verbatim (a library's quote: its release)."""
        if self.library is not None:
            return self.library
        if self.until is None:
            return f"PyTorch {self.since} and later" if self.since != RELEASES[0] else f"every PyTorch from {self.since}"
        return f"PyTorch {self.since} to {self.until}" if self.since != self.until else f"PyTorch {self.since}"

    @property
    def label(self) -> str:
        what = "source" if self.kind == "python" else "C++ message, {…} filled in at run time" if "{" in self.text else "C++ message"
        return f"{self.file} ({what}; {self.releases})"

    def covers(self, version: str) -> bool:
        """Whether this quote's label claims the release ``version`` holds it."""
        v = _release(version)
        return v >= self.since and (self.until is None or v <= self.until)

    @property
    def pieces(self) -> list[str]:
        """For a C++ message: its literal pieces between the {placeholders}, each looked for verbatim."""
        return [p for p in PLACEHOLDER.split(self.text) if len(p.strip()) >= 4]


# The accelerate release lesson 10's quotes were read in (the `hf` extra's floor; tests/test_evidence.py reads them
# again in the installed accelerate).
ACCELERATE = "accelerate 1.16.0"

# ----------------------------------------------------------------- passages several cells rely on

SAME_DEVICE = SourceQuote(
    "aten/src/ATen/TensorIterator.cpp",
    "Expected all tensors to be on the same device, but found at least two devices, {common device} and {other device}!",
    "literal",
    "an elementwise operation (+, *, torch.where, ...) checks that its operands share a device; a 0-dim CPU tensor is let through",
)
ARGUMENT_DEVICE = SourceQuote(
    "aten/src/ATen/core/op_registration/adaption.cpp",
    "Expected all tensors to be on the same device, but got {argument} is on {device}, different from other tensors on "
    "{device} (when checking argument in method {kernel})",
    "literal",
    "the device check of an operator's generated wrapper: it names the argument on the other device and the kernel, "
    "for example mat1 and wrapper_CUDA_addmm for nn.Linear",
    since="2.8.0",
)
ARGUMENT_DEVICE_OLD = SourceQuote(
    "aten/src/ATen/core/op_registration/adaption.cpp",
    "Expected all tensors to be on the same device, but found at least two devices, {device} and {device}! "
    "(when checking argument for argument {argument} in method {kernel})",
    "literal",
    "the same check in PyTorch 2.7, before pytorch#155085 reworded it",
    until="2.7.1",
)
TO_NUMPY = SourceQuote(
    "torch/csrc/utils/tensor_numpy.cpp",
    "can't convert {device} device type tensor to numpy. Use Tensor.cpu() to {}copy the tensor to host memory first.",
    "literal",
    "the tensor's device is filled in as its str(): cuda:0 for a tensor on the first GPU, meta for a meta tensor",
)
CURRENT_DEVICE_DEFAULT = SourceQuote(
    "torch/_tensor_docs.py",
    "The destination GPU device.\n        Defaults to the current CUDA device.",
    note="Tensor.cuda() without an index copies to the current CUDA device, which torch.cuda.device(i) changes",
)
FACTORY_DEVICE = SourceQuote(
    "torch/_torch_docs.py",
    "Default: if ``None``, uses the current device for the default tensor type\n        (see :func:`torch.set_default_device`). "
    ":attr:`device` will be the CPU\n        for CPU tensor types and the current CUDA device for CUDA tensor types.",
    note="the device= argument of torch.ones, torch.zeros, ...: plain 'cuda' means the current CUDA device",
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
    note="torch.cuda.device makes its device current on entry and puts the previous one back on exit",
)
DEVICE_OF = SourceQuote(
    "torch/cuda/__init__.py",
    "Context-manager that changes the current device to that of given object.\n\n    You can use both tensors and "
    "storages as arguments. If a given object is\n    not allocated on a GPU, this is a no-op.",
)
IN_PLACE = SourceQuote(
    "torch/nn/modules/module.py", "This method modifies the module in-place.", note="the docstring of Module.cuda, .cpu and .to"
)
SET_DATA = SourceQuote(
    "torch/nn/modules/module.py",
    "# If the new tensor has compatible tensor type as the existing tensor,\n"
    "                # the current behavior is to change the tensor in-place using `.data =`,\n"
    "                # and the future behavior is to overwrite the existing tensor.",
    note="Module._apply, behind .cuda() and .to(): each Parameter object stays, only its data moves, so an "
    "optimizer built before the move still holds the model's parameters",
)
STATE_CAST = SourceQuote(
    "torch/optim/optimizer.py",
    "# Floating-point types are a bit special here. They are the only ones\n        # that are assumed to always match the type of params.",
    note="Optimizer.load_state_dict casts floating-point state to its parameter's dtype and device; nothing "
    "else moves optimizer state, not model.cuda()",
)
SYNCHRONIZE = SourceQuote("torch/cuda/__init__.py", "Wait for all kernels in all streams on a CUDA device to complete.")
SYNC_DEBUG = SourceQuote(
    "torch/cuda/__init__.py",
    'debug_mode(str or int): if "default" or 0, don\'t error or warn on synchronizing operations,\n'
    '            if "warn" or 1, warn on synchronizing operations, if "error" or 2, error out synchronizing operations.',
    note="the docstring of torch.cuda.set_sync_debug_mode",
)
MAX_ALLOCATED = SourceQuote("torch/cuda/memory.py", "Return the maximum GPU memory occupied by tensors in bytes for a given device.")
DESERIALIZE = SourceQuote(
    "torch/serialization.py",
    "CPU and are then moved to the device they were saved from.",
    note="the docstring of torch.load: without map_location, every tensor goes back to the device it was saved from",
)
ASYNC_SUFFIX = SourceQuote(
    "c10/cuda/CUDAMiscFunctions.cpp",
    "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be "
    "incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1",
    "cuda-literal",
    "c10/cuda/CUDAException.cpp appends this to a CUDA error unless CUDA_LAUNCH_BLOCKING=1 is set: to every CUDA "
    "error in PyTorch 2.7.1 to 2.12.0 (get_cuda_check_suffix), and from 2.13.0 only to the errors of kernels that "
    "ran asynchronously, a failed device-side assert among them (get_cuda_async_error_suffix)",
)


@dataclass(frozen=True)
class GpuClaim:
    """What a GPU shows in one cell, in plain words, and the source passages that back it."""

    says: str  # one or two sentences a learner without a GPU reads first
    quotes: tuple[SourceQuote, ...]


C = GpuClaim
CLAIMS: dict[str, GpuClaim] = {
    # 01 device query
    "01-gpu-properties": C(
        "On a GPU this cell prints one line per visible GPU: its index and name, its compute capability (sm_80 for "
        "an A100), its number of multiprocessors, and its free and total memory, all read from the CUDA driver.",
        (
            SourceQuote(
                "torch/cuda/__init__.py",
                "Get the properties of a device.",
                note="get_device_properties returns name, major, minor, multi_processor_count and total_memory",
            ),
            SourceQuote("torch/cuda/memory.py", "Return the global free and total GPU memory for a given device using cudaMemGetInfo."),
        ),
    ),
    "01-visible-devices-after-init": C(
        "On two GPUs the count stays at 2 after the cell sets CUDA_VISIBLE_DEVICES=0: CUDA read the variable when it "
        "initialised, and PyTorch keeps the count it got then. Set the variable before the process starts.",
        (
            SourceQuote(
                "torch/cuda/__init__.py",
                "# NB: Do not cache the device count prior to CUDA initialization, because\n"
                "    # the number of devices can change due to changes to CUDA_VISIBLE_DEVICES\n"
                "    # setting prior to CUDA initialization.",
                note="and after initialisation the count is cached",
            ),
        ),
    ),
    # 02 tensor placement
    "02-tensor-on-gpu": C(
        'On a GPU, torch.ones(2, 3, device="cuda") makes the tensor on the current CUDA device, cuda:0 until '
        "something changes it, so the cell prints cuda:0 and 0. Without CUDA the same call raises, as shown above.",
        (FACTORY_DEVICE,),
    ),
    "02-cuda-in-device-scope": C(
        'On two GPUs, inside `with torch.cuda.device(1)` both .cuda() and .to("cuda") land on cuda:1 while '
        ".cuda(0) lands on cuda:0, and after the block .cuda() lands on cuda:0 again: a device without an index "
        "means the current one, which the block sets on entry and restores on exit.",
        (CURRENT_DEVICE_DEFAULT, DEVICE_SCOPE),
    ),
    "02-round-trip": C(
        "On an accelerator, t.to(device) copies the tensor into the accelerator's memory and .cpu() copies it back, "
        "so the cell prints the device (cuda:0 on an NVIDIA GPU, mps:0 on a Mac) and cpu, `back is t` False (a new "
        "tensor) and `same values` True.",
        (CUDA_COPY, CPU_COPY),
    ),
    "02-cross-device-error": C(
        "On an accelerator, adding a tensor on it to a CPU tensor raises a RuntimeError that names both devices "
        "(cuda:0 or mps:0, and cpu) in the message below. The fix is the same as with meta: move one operand.",
        (SAME_DEVICE,),
    ),
    "02-numpy": C(
        "On an accelerator, .numpy() on a tensor there raises the same TypeError as the meta tensor above, with its "
        "device (cuda:0, mps:0) in place of meta: NumPy can only read host memory, so call .cpu() first.",
        (TO_NUMPY,),
    ),
    "02-default-vs-current": C(
        'On two GPUs, after torch.set_default_device("cuda:1") a new tensor lands on cuda:1 while '
        "torch.cuda.current_device() stays 0, so .cuda() still copies to cuda:0: the default device and the "
        "current CUDA device are two separate settings.",
        (
            SourceQuote(
                "torch/__init__.py",
                "Sets the default ``torch.Tensor`` to be allocated on ``device``.  This\n"
                "    does not affect factory function calls which are called with an explicit\n    ``device`` argument.",
                note="it decides where factory functions allocate, not which CUDA device is current",
            ),
            CURRENT_DEVICE_DEFAULT,
        ),
    ),
    # 03 model placement
    "03-module-cuda": C(
        "On an accelerator, net.to(device) and net.cpu() both return net itself, with its weight moved to the "
        "accelerator (cuda:0, mps:0) and then back to the CPU: a module moves in place, so `model = model.to(device)` "
        "is only a habit.",
        (IN_PLACE,),
    ),
    "03-plain-attribute": C(
        "On an accelerator, the buggy model's plain tensor attributes stay on the CPU after .to(device), so its "
        "forward pass raises the cross-device RuntimeError below, naming the accelerator and cpu. Registered as "
        "buffers they would move.",
        (SAME_DEVICE,),
    ),
    "03-model-input": C(
        "On an accelerator, a model there given a CPU input raises a RuntimeError: on CUDA it names the argument on "
        "the other device (mat1, the input of nn.Linear's matrix product) and the kernel that checked it, on MPS "
        '"Tensor for argument input is on cpu but expected on mps". Send the input to the model\'s device.',
        (ARGUMENT_DEVICE, ARGUMENT_DEVICE_OLD),
    ),
    "03-optimizer-before-cuda": C(
        "On an accelerator, an optimizer built before net.to(device) still holds the model's own weight (True), now "
        "on the accelerator: .to() moves each parameter's data and keeps the Parameter object. A move to meta makes "
        "new ones.",
        (SET_DATA,),
    ),
    "03-adam-state": C(
        "On an accelerator, Adam's averages from a step taken on the CPU stay on the CPU after net.to(device), and "
        "the next step raises the cross-device RuntimeError: moving a model does not move its optimizer's state.",
        (STATE_CAST, SAME_DEVICE),
    ),
    "03-load-gpu-checkpoint": C(
        "On a GPU, torch.load without map_location puts each tensor back on the device it was saved from, so the "
        "weight loads onto cuda:0. Without CUDA the same call raises, as shown above; map_location fixes both.",
        (DESERIALIZE,),
    ),
    "03-load-cuda1-checkpoint": C(
        "On two GPUs, a checkpoint saved from cuda:1 loads back onto cuda:1. On a machine with one GPU the same "
        "load raises the RuntimeError below, with device 1 and a count of 1.",
        (
            SourceQuote(
                "torch/serialization.py",
                'f"Attempting to deserialize object on {backend_name.upper()} device "\n'
                '                f"{device_index} but torch.{backend_name}.device_count() is {device_count}. "\n'
                '                "Please use torch.load with map_location to map your storages "\n'
                '                "to an existing device."',
            ),
            DESERIALIZE,
        ),
    ),
    # 04 current device
    "04-each-gpu": C(
        'On a GPU, with cuda:i made current, every answer in the row names cuda:i: .cuda(), device="cuda" and '
        "the current stream, and memory_allocated() and mem_get_info() report that GPU's memory.",
        (
            SourceQuote(
                "torch/cuda/memory.py",
                "Returns\n            statistic for the current device, given by "
                ":func:`~torch.cuda.current_device`,\n            if :attr:`device` is ``None`` (default).",
                note="the memory statistics' docstrings",
            ),
            CURRENT_DEVICE_DEFAULT,
            DEVICE_SCOPE,
        ),
    ),
    "04-device-of-cuda": C(
        "On a GPU, inside `with torch.cuda.device_of(g)` (g on cuda:0) the current device is 0, the CPU tensor x "
        'stays on the CPU and a new tensor made with device="cuda" lands on cuda:0: the block moves no data.',
        (DEVICE_OF,),
    ),
    "04-set-device": C(
        "On two GPUs the cell shows (0, 1): a set_device(1) inside `with torch.cuda.device(0)` is undone when the "
        "block exits, but one inside `with torch.cuda.device(-1)` stays, since device(-1) selects and restores nothing.",
        (
            DEVICE_SCOPE,
            SourceQuote(
                "torch/cuda/__init__.py",
                "device (torch.device or int): device index to select. It's a no-op if\n"
                "            this argument is a negative integer or ``None``.",
            ),
        ),
    ),
    "04-torch-device-scope": C(
        'On two GPUs, inside `with torch.device("cuda:1")` torch.ones(1) lands on cuda:1 while '
        "torch.cuda.current_device() stays 0, so .cuda() still copies to cuda:0: the block sets the default "
        "device, not the current CUDA device.",
        (
            SourceQuote(
                "torch/__init__.py",
                "To only temporarily change the default device instead of setting it\n    globally, use ``with torch.device(device):`` instead.",
            ),
            CURRENT_DEVICE_DEFAULT,
        ),
    ),
    "04-nested-trace": C(
        "On two GPUs each block puts back, on exit, the current device it found on entry, so the current-device "
        'column unwinds in reverse; device_of of a CPU tensor changes nothing, and torch.device("cuda:0") '
        "changes only the default-device column. The trace below is the half this machine can run.",
        (DEVICE_SCOPE, DEVICE_OF),
    ),
    # 05 error clinic
    "05-elementwise": C(
        "On an accelerator, the same mistake raises a RuntimeError whose message names both devices (cuda:0 or mps:0, "
        "and cpu) in the format below, where meta's own check words it differently.",
        (SAME_DEVICE,),
    ),
    "05-conv-cross-device": C(
        "On an accelerator, a convolution with its weights there and a CPU input raises, and so does the reverse: on "
        'CUDA "Input type (torch.FloatTensor) and weight type (torch.cuda.FloatTensor) should be the same" and its '
        "swap, on MPS the types MPSFloatType and torch.FloatTensor, or MPS's fallback message. The message names "
        "tensor types, not devices.",
        (
            SourceQuote(
                "aten/src/ATen/native/Convolution.cpp",
                "Input type ({input type}) and weight type ({weight type}) "
                "should be the same{; a build with MKLDNN, which the macOS arm64 wheel is not, goes on: or input "
                "should be a MKLDNN tensor and weight is a dense tensor}",
                "literal",
                "check_input_same_type_as_parameters; a CPU input takes this branch, a CUDA input cuDNN's, whose "
                "message ends at 'should be the same'",
            ),
        ),
    ),
    "05-async-assert": C(
        "On a GPU, a failed device-side assert is reported by a later CUDA call, not by the line with the bug; with "
        "CUDA_LAUNCH_BLOCKING=1 it is reported at the bug. The error reads 'CUDA error: device-side assert "
        "triggered' followed by the hint below.",
        (ASYNC_SUFFIX,),
    ),
    "05-linear": C(
        "On an accelerator, nn.Linear there given a CPU input raises a RuntimeError: on CUDA naming mat1, cpu, cuda:0 "
        'and the kernel wrapper_CUDA_addmm (2.8 and later; 2.7 words it the older way below), on MPS "Tensor for '
        'argument input is on cpu but expected on mps".',
        (ARGUMENT_DEVICE, ARGUMENT_DEVICE_OLD),
    ),
    "05-cat": C(
        "On a GPU, torch.cat of a CUDA tensor and a CPU tensor raises the same kind of RuntimeError, naming the "
        "argument on the other device and the CUDA kernel of cat.",
        (ARGUMENT_DEVICE,),
    ),
    "05-indexing": C(
        "On an accelerator, a tensor there indexed by a CPU index works, but a CPU tensor indexed by an index on the "
        "accelerator raises: the index may live on the CPU or with the tensor it indexes, nowhere else.",
        (
            SourceQuote(
                "aten/src/ATen/native/TensorAdvancedIndexing.cpp",
                "indices should be either on {cpu} or on the same device as the indexed tensor ({device})",
                "literal",
            ),
        ),
    ),
    "05-optimizer-state": C(
        "On an accelerator, an Adam step taken on the CPU leaves its state on the CPU after net.to(device), so the "
        "next step raises the cross-device RuntimeError; opt.load_state_dict(opt.state_dict()) moves the averages to "
        "the accelerator and leaves each step counter on the CPU.",
        (
            STATE_CAST,
            SourceQuote(
                "torch/optim/adam.py",
                "# Deliberately host `step` on CPU if both capturable and fused are off.",
                note="so the counters stay on the CPU and the update still lets them through",
            ),
        ),
    ),
    "05-invalid-ordinal": C(
        "On a GPU, an index past the last visible GPU raises a RuntimeError (torch.AcceleratorError from 2.8.0): "
        "'CUDA error: invalid device ordinal', from 2.9.1 with the line below. The asynchronous-error hint follows up "
        "to 2.12.0; 2.13.0 suggests CUDA_LOG_FILE=stderr instead, and 2.14.1 adds nothing.",
        (
            SourceQuote(
                "c10/cuda/CUDAMiscFunctions.cpp",
                "GPU device may be out of range, do you have enough GPUs?",
                "cuda-literal",
                "get_cuda_error_help, for cudaErrorInvalidDevice",
                since="2.9.1",
            ),
            ASYNC_SUFFIX,
        ),
    ),
    "05-numpy": C(
        "On an accelerator, .numpy() on a tensor there raises TypeError with its device (cuda:0, mps:0) in the "
        "message below, exactly where meta stands in it on this machine: call .cpu() first.",
        (TO_NUMPY,),
    ),
    # 06 transfers and timing
    "06-sync-timing": C(
        "On an accelerator, the time without torch.accelerator.synchronize() is only the launch of the matrix "
        "product, far less than the time with it: a call queues its kernel and returns before the device has run it "
        "(CUDA and MPS alike).",
        (SYNCHRONIZE,),
    ),
    "06-h2d-non-blocking": C(
        "On a GPU this prints True: a non_blocking copy from pinned memory and the sum after it run in order on "
        "the same CUDA stream, so the sum reads the copied data.",
        (
            SourceQuote(
                "torch/_tensor_docs.py",
                "non_blocking (bool, optional): If ``True`` and the source is in "
                "pinned memory,\n        the copy will be asynchronous with respect to the host.",
                since="2.9.1",
            ),
        ),
    ),  # 2.7.1 and 2.8.0: "non_blocking (bool):"
    "06-events": C(
        "On a GPU, two CUDA events time the matrix product on the GPU itself: elapsed_time reports milliseconds "
        "between them, without the host's launch overhead.",
        (
            SourceQuote(
                "torch/cuda/streams.py",
                "Time reported in milliseconds after the event was recorded and\n        before the end_event was recorded.",
            ),
        ),
    ),
    "06-hidden-syncs": C(
        "On a GPU, launching (a @ b).sum() takes far less time than the .item() that follows, which waits for "
        'the GPU; with set_sync_debug_mode("warn"), .item() warns that it is a synchronizing CUDA operation.',
        (SYNC_DEBUG,),
    ),
    "06-d2h-non-blocking": C(
        'On a GPU, t.to("cpu", non_blocking=True) returns a tensor in pinned memory (True) before the copy has '
        "finished, and reading it is safe once an event recorded after the copy has completed (True).",
        (
            SourceQuote(
                "torch/_tensor_docs.py",
                "non_blocking (bool, optional): if ``True`` and this copy is between "
                "CPU and GPU,\n        the copy may occur asynchronously with respect to the host.",
                since="2.9.1",
            ),
        ),
    ),
    # 07 claims checked
    "07-device-of-switch": C(
        "On two GPUs, device_of(t1), with t1 on cuda:1, makes cuda:1 current inside the block and puts the "
        "previous device back on exit: for a CUDA tensor the claim holds.",
        (DEVICE_OF, DEVICE_SCOPE),
    ),
    "07-op-inside-device-of": C(
        "On two GPUs, t0 * 2 inside device_of(t1) still runs on cuda:0, where its operand lives; only a tensor "
        'created with plain device="cuda" lands on cuda:1.',
        (DEVICE_OF, FACTORY_DEVICE),
    ),
    "07-mixing-gpus": C(
        "On two GPUs, t0 + t1 raises the cross-device RuntimeError, naming cuda:0 and cuda:1, even inside "
        "device_of(t1): the block moves no data.",
        (SAME_DEVICE,),
    ),
    "07-two-gpu-transfer": C(
        "On two GPUs, tensor1.to(torch.cuda.device_of(tensor2)) raises TypeError, since .to() takes a device, a "
        "dtype or a tensor, not a context manager; tensor1.to(tensor2.device) moves it to cuda:1.",
        (
            SourceQuote(
                "torch/_tensor_docs.py",
                "Performs Tensor dtype and/or device conversion. A :class:`torch.dtype` "
                "and :class:`torch.device` are\ninferred from the arguments of ``self.to(*args, **kwargs)``.",
            ),
        ),
    ),
    "07-cuda0-cuda1": C(
        "On two GPUs, torch.randn(4, 3).cuda(0) lands on cuda:0 and nn.Linear(4, 3).cuda(1) has its parameters on "
        "cuda:1: an index names the device, for tensors and modules alike.",
        (CURRENT_DEVICE_DEFAULT, IN_PLACE),
    ),
    "07-cuda-vs-cuda0": C(
        "On two GPUs, inside `with torch.cuda.device(1)` x.cuda() lands on cuda:1 but x.cuda(0) on cuda:0: .cuda() "
        "without an index means the current device, not cuda:0.",
        (CURRENT_DEVICE_DEFAULT, DEVICE_SCOPE),
    ),
    "07-cuda0-device": C(
        "On a GPU, x.cuda(0).device is device(type='cuda', index=0); below is this machine's x.device instead.", (CURRENT_DEVICE_DEFAULT,)
    ),
    "07-square": C(
        "On an accelerator, y = x ** 2 with x there is there too, and printing it ends with its device "
        "(device='cuda:0', device='mps:0'): a tensor not on the CPU prints its device, and set_default_device does "
        "not change this.",
        (SourceQuote("torch/_tensor_str.py", 'suffixes.append("device=\'" + str(self.device) + "\'")'),),
    ),
    "07-add-cpu": C(
        "On an accelerator, y + x.cpu() raises the cross-device RuntimeError, naming the accelerator (cuda:0, mps:0) and cpu.", (SAME_DEVICE,)
    ),
    "07-net-cuda": C(
        "On a GPU, after net.cuda() the first parameter is on cuda:0, and net is still the same object: a module moves in place.",
        (IN_PLACE, SET_DATA),
    ),
    "07-model-input": C(
        "On an accelerator, the model there given a CPU input raises a RuntimeError (on CUDA naming mat1, cpu and "
        "cuda:0; on MPS the argument input and mps); given its input on the accelerator it returns an output there.",
        (ARGUMENT_DEVICE, ARGUMENT_DEVICE_OLD),
    ),
    # 08 one process per device
    "08-every-rank-cuda0": C(
        "On two GPUs with NCCL, the buggy script puts both processes on cuda:0 and the fixed one puts each on the "
        "GPU its LOCAL_RANK names; this cell's run with two pretended GPUs makes the same choices.",
        (
            SourceQuote(
                "torch/nn/parallel/distributed.py",
                "To use ``DistributedDataParallel`` on a host with N GPUs, "
                "you should spawn\n    up ``N`` processes, ensuring that each process exclusively works on a "
                "single\n    GPU from 0 to N-1.",
            ),
        ),
    ),
    "08-nccl-error": C(
        "On two GPUs, NCCL refuses two processes on one GPU: the collective fails with NCCL's own message, "
        "worded by the NCCL library installed with torch: 'Duplicate GPU detected : rank 0 and rank 1 both on "
        "CUDA device ...' (the NCCL of torch 2.7.1 to 2.13.0), 'Multiple Ranks are using the same GPU/Partition' "
        "(2.14.1's).",
        (
            SourceQuote(
                "NCCL's libnccl.so.2 (NCCL 2.26.2 with torch 2.7.1, 2.27.3 with 2.8.0, 2.29.7 with 2.13.0)",
                "Duplicate GPU detected : rank {rank} and rank {rank} both on CUDA device {bus id}",
                "nccl-literal",
                "NCCL's format string; the number at the end is the GPU's PCI bus id",
                until="2.13.0",
            ),
            SourceQuote(
                "NCCL's libnccl.so.2 (nvidia-nccl-cu13 2.30.7, installed with torch 2.14.1)",
                "Multiple Ranks are using the same GPU/Partition. Set NCCL_MULTI_RANK_GPU_ENABLE=1 to enable this configuration.",
                "nccl-literal",
                "NCCL's message in the release torch 2.14.1 installs",
                since="2.14.1",
            ),
        ),
    ),
    "08-ddp-device-ids": C(
        "On two GPUs, DDP accepts a model on cuda:1 with device_ids=[0] and moves each forward input to cuda:0, so "
        "rank 1's nn.Linear raises the cross-device RuntimeError of notebook 05 in the dispatcher's wording, naming "
        "the argument mat1 and the kernel wrapper_CUDA_addmm.",
        (ARGUMENT_DEVICE, ARGUMENT_DEVICE_OLD),
    ),
    # 09 data loading and device memory
    "09-label-on-cpu": C(
        "On an accelerator, cross_entropy with the logits there and the labels on the CPU raises a RuntimeError (on "
        "CUDA naming the argument on the other device, the target, and both devices); move the labels with "
        "y.to(device) too.",
        (ARGUMENT_DEVICE,),
    ),
    "09-pinned-batch": C(
        "On a GPU, a DataLoader with pin_memory=True hands out batches in pinned (page-locked) memory: "
        "xb.is_pinned() is True and nothing is warned.",
        (
            SourceQuote(
                "torch/utils/data/dataloader.py",
                "pin_memory (bool, optional): If ``True``, the data loader will copy "
                "Tensors\n            into device/CUDA pinned memory before returning them.",
            ),
        ),
    ),
    "09-item-sync": C(
        'On a GPU, with set_sync_debug_mode("warn") each loss.item() in the loop warns that it is a synchronizing '
        "CUDA operation, once per step: the CPU waits for the GPU before it can read the number.",
        (SYNC_DEBUG,),
    ),
    "09-forked-cuda": C(
        "On a GPU, once the notebook has used CUDA, a Dataset that makes CUDA tensors fails in a forked worker, "
        "and the DataLoader raises in the notebook; with the spawn start method the batches arrive on cuda:0.",
        (
            SourceQuote(
                "torch/cuda/__init__.py",
                '"Cannot re-initialize CUDA in forked subprocess. To use CUDA with "\n'
                "                \"multiprocessing, you must use the 'spawn' start method\"",
                note="raised in the worker by torch.cuda._lazy_init when the parent had initialised CUDA before the fork",
            ),
        ),
    ),
    "09-step-memory": C(
        "On a GPU, the cell prints step_memory's count for the same step, then what the caching allocator "
        "counts: memory_allocated(), the tensors still alive after it, and max_memory_allocated(), its peak.",
        (SourceQuote("torch/cuda/memory.py", "Return the current GPU memory occupied by tensors in bytes for a given device."), MAX_ALLOCATED),
    ),
    "09-allocated-reserved": C(
        "On a GPU, after `del big` memory_allocated() drops by 256 MiB while memory_reserved() stays, and "
        "empty_cache() then hands the cached block back: the allocator keeps freed memory for reuse.",
        (
            SourceQuote("torch/cuda/memory.py", "Return the current GPU memory managed by the caching allocator in bytes for a given device."),
            SourceQuote(
                "torch/cuda/memory.py",
                "Release all unoccupied cached memory currently held by the caching\n"
                "    allocator so that those can be used in other GPU application and visible in\n    `nvidia-smi`.",
            ),
        ),
    ),
    "09-out-of-memory": C(
        "On a GPU, asking for a petabyte raises torch.OutOfMemoryError (torch.cuda.OutOfMemoryError): the message "
        "says how much was asked for, the GPU's capacity and what is free, and always includes the "
        "expandable_segments hint below, worded for when reserved but unallocated memory is large.",
        (
            SourceQuote(
                "c10/cuda/CUDACachingAllocator.cpp",
                "CUDA out of memory. Tried to allocate {size}. GPU {index} has a total capacity of {total} of which {free} is free.",
                "cuda-literal",
            ),
            SourceQuote(
                "c10/cuda/CUDACachingAllocator.cpp",
                "If reserved but unallocated memory is large try setting{} "
                "{PYTORCH_CUDA_ALLOC_CONF; 2.10.0: PYTORCH_ALLOC_CONF}=expandable_segments:True to avoid fragmentation.",
                "cuda-literal",
                "part of every CUDA out-of-memory message, only its condition in words; the braces mark the "
                "one release, 2.10.0, that names the variable PYTORCH_ALLOC_CONF",
            ),
        ),
    ),
    "09-memory-summary": C(
        "On a GPU, the cell prints the peak bytes of one training step and the first lines of memory_summary(), "
        "a table of the caching allocator's counters.",
        (
            MAX_ALLOCATED,
            SourceQuote(
                "torch/cuda/memory.py", "Return a human-readable printout of the current memory allocator statistics for a given device."
            ),
        ),
    ),
    # 10 models bigger than a device
    "10-two-gpu-split": C(
        "On two GPUs the split model trains: the output is on cuda:1, each gradient and Adam average sits on its "
        "parameter's GPU while Adam's step counters stay on the CPU, Forgetful raises the cross-device "
        "RuntimeError, and dispatch puts each layer on its GPU.",
        (
            SourceQuote(
                "torch/optim/adam.py",
                'state["exp_avg"] = torch.zeros_like(\n                        p, memory_format=torch.preserve_format\n                    )',
                note="Adam's averages are made like their parameter, on its device",
            ),
            SourceQuote("torch/optim/adam.py", "# Deliberately host `step` on CPU if both capturable and fused are off."),
            ARGUMENT_DEVICE,
        ),
    ),
    # 11 the device in the rest of your code: quotes read in 2.13.0 and found verbatim in 2.7.1 and 2.14.1 too
    "10-accelerate-gpu-offload": C(
        "On a GPU, GPU 0 is dispatch_model's main device, so the layers mapped to 'cpu' are offloaded too (their "
        "parameters show meta and are copied in for each forward) and .to() refuses with the same RuntimeError. The "
        "output comes back on the device the input came from: the model's top hook moves it there.",
        (
            SourceQuote(
                "accelerate/big_modeling.py",
                'offloaded_devices = ["disk"] if main_device == "cpu" or main_device == "mps" else ["cpu", "disk"]',
                note="dispatch_model: with a GPU as main device, the 'cpu' layers are offloaded as the 'disk' ones are",
                library=ACCELERATE,
            ),
            SourceQuote(
                "accelerate/big_modeling.py",
                'raise RuntimeError("You can\'t move a model that has some modules offloaded to cpu or disk.")',
                note="the wrapper dispatch_model puts on model.to raises when any parameter is on meta",
                library=ACCELERATE,
            ),
            SourceQuote(
                "accelerate/hooks.py",
                "Whether or not the output should be placed on the same device as the input was.",
                note='io_same_device, which attach_align_device_hook_on_blocks sets for the model\'s top module (name "")',
                library=ACCELERATE,
            ),
        ),
    ),
    "11-autocast-gpu": C(
        "On an accelerator, autocast runs the matrix product in its lower precision (float16 by default on CUDA) "
        "while the addition stays float32.",
        (
            SourceQuote(
                "torch/amp/autocast_mode.py",
                "It uses the default value\n            (``torch.float16`` for CUDA and ``torch.bfloat16`` for "
                "CPU), given by\n            :func:`~torch.get_autocast_dtype`, if :attr:`dtype` is ``None``.",
                note="autocast's dtype when none is given, per device type",
            ),
        ),
    ),
    "11-amp-cuda": C(
        "On a GPU a float16 training step runs with torch.amp.GradScaler('cuda'): the loss is scaled before "
        "backward and the scale is printed, with whether the GPU supports bfloat16 (which needs no scaler).",
        (
            SourceQuote(
                "torch/cuda/amp/grad_scaler.py",
                '``torch.cuda.amp.GradScaler(args...)`` is deprecated. Please use ``torch.amp.GradScaler("cuda", args...)`` instead.',
                note="the old name forwards to torch.amp.GradScaler('cuda')",
            ),
        ),
    ),
    "11-cuda-generator": C(
        "On a GPU one seed gives different numbers on the CPU and on CUDA, and a shuffling DataLoader under "
        "torch.set_default_device('cuda') raises \"Expected a 'cuda' device type for generator but found 'cpu'\".",
        (
            SourceQuote(
                "aten/src/ATen/core/Generator.h",
                "Expected a '{device}' device type for generator but found '{device}'",
                "literal",
                note="check_generator: a random op on one device refuses a generator of another",
            ),
            SourceQuote(
                "torch/utils/data/sampler.py",
                "seed = int(torch.empty((), dtype=torch.int64).random_().item())\n"
                "            generator = torch.Generator()\n            generator.manual_seed(seed)",
                note="RandomSampler's own generator, made on the CPU whatever the default device",
            ),
        ),
    ),
    # 12 which GPU, which build: quotes read in torch/cuda/__init__.py of 2.7.1 (cu126), 2.13.0 (cpu) and 2.14.1 (cu130)
    "12-read-gpu": C(
        "On a GPU the cell prints the GPU's name and capability, the wheel's architecture list, and the entry "
        "whose code runs on it (None would mean every kernel fails with 'no kernel image is available').",
        (
            SourceQuote(
                "torch/cuda/__init__.py",
                "Return list CUDA architectures this library was compiled for.",
                note="get_arch_list: the sm_XY entries the wheel has code for",
            ),
            SourceQuote(
                "torch/cuda/__init__.py", "Get the cuda capability of a device.", note="get_device_capability: the GPU's (major, minor)"
            ),
            SourceQuote(
                "torch/cuda/__init__.py",
                "# NVIDIA GPU compute architectures are backward compatible within major version",
                note="_check_cubins: the rule the wheel's start-up check applies",
            ),
        ),
    ),
}
del C

QUOTES: dict[str, tuple[SourceQuote, ...]] = {key: claim.quotes for key, claim in CLAIMS.items()}


# --------------------------------------------------------------------------- Apple's GPU (MPS)
#
# What the course says about MPS, each fact read in the macOS arm64 wheels of RELEASES (the Python sources and
# the strings of torch/lib/*.dylib) and labelled with the releases that hold it. `scripts/verify-mac-facts`
# downloads those wheels again and checks every label (tests/test_mac_facts.py, run against each unpacked
# wheel); on Linux the same test checks the Python quotes, which every wheel ships (torch/mps, torch/backends/mps).


@dataclass(frozen=True)
class MacFact:
    """One thing the course says about Apple's GPU (MPS), in plain words, and the source passages behind it."""

    says: str
    quotes: tuple[SourceQuote, ...]


# The macOS version whose MPS each release needs, from the message below (torch 2.7.1 and 2.8.0: 13.0).
MPS_NEEDS_MACOS = (("2.7.1", (13, 0)), ("2.9.1", (14, 0)))
# The platform tag of each release's macOS arm64 wheel: from 2.12.0 pip installs it only on macOS 14 or later,
# and on an older macOS it picks 2.11.0 instead. Checked by scripts/verify-mac-facts from the files pip downloads.
MAC_WHEEL_TAGS = {
    "2.7.1": "macosx_11_0_arm64",
    "2.8.0": "macosx_11_0_arm64",
    "2.9.1": "macosx_11_0_arm64",
    "2.10.0": "macosx_11_0_arm64",
    "2.11.0": "macosx_11_0_arm64",
    "2.12.0": "macosx_14_0_arm64",
    "2.13.0": "macosx_14_0_arm64",
    "2.14.1": "macosx_14_0_arm64",
}
# The newest torch with an Intel (x86_64) macOS wheel on PyPI: no release the course is tested on has one.
INTEL_MAC_NEWEST = "2.2.2"

_MPS_MACOS_13 = SourceQuote(
    "aten/src/ATen/mps/EmptyTensor.cpp",
    "The MPS backend is supported on MacOS 13.0+.{}Current OS version can be queried using `sw_vers`",
    "mps-literal",
    "empty_mps: creating any tensor on mps on an older macOS",
    until="2.8.0",
)
_MPS_MACOS_14 = SourceQuote(
    "aten/src/ATen/mps/EmptyTensor.cpp",
    "The MPS backend is supported on MacOS 14.0+. {}Current OS version can be queried using `sw_vers`",
    "mps-literal",
    "the same check, raised to macOS 14",
    since="2.9.1",
    until="2.11.0",
)
_MPS_MACOS_14_LOWER = SourceQuote(
    "aten/src/ATen/mps/EmptyTensor.cpp",
    "The MPS backend is supported on macOS 14.0+. {}Current OS version can be queried using `sw_vers`",
    "mps-literal",
    "the same check, with macOS spelled as Apple does",
    since="2.12.0",
)

# One row per Mac fact; docs/mac.md lists them, written by course_authoring.mac_page (make pairs).
MAC_FACTS: dict[str, MacFact] = {
    "mps-built-available": MacFact(
        "torch.backends.mps.is_built() says whether this torch contains the MPS backend (every macOS arm64 wheel does, "
        "a Linux or Windows wheel does not); torch.backends.mps.is_available() says whether this Mac can use it now.",
        (
            SourceQuote(
                "torch/backends/mps/__init__.py",
                "Return whether PyTorch is built with MPS support.\n\n    Note that "
                "this doesn't necessarily mean MPS is available; just that\n    if this PyTorch binary were run a "
                "machine with working MPS drivers\n    and devices, we would be able to use it.",
                until="2.13.0",
            ),
            SourceQuote(
                "torch/backends/mps/__init__.py",
                "Return whether PyTorch is built with MPS support.\n\n    Note that "
                "this doesn't necessarily mean MPS is available; just that\n    if this PyTorch binary were run on a "
                "machine with working MPS drivers\n    and devices, we would be able to use it.",
                since="2.14.1",
            ),
            SourceQuote("torch/backends/mps/__init__.py", "Return a bool indicating if MPS is currently available."),
        ),
    ),
    "mps-macos-version": MacFact(
        "MPS needs macOS 13 in torch 2.7.1 and 2.8.0 and macOS 14 from 2.9.1: on an older macOS is_available() is "
        "False and creating a tensor on mps raises this message; from 2.12.0 pip installs torch on a Mac only on "
        "macOS 14 or later.",
        (_MPS_MACOS_13, _MPS_MACOS_14, _MPS_MACOS_14_LOWER),
    ),
    "mps-virtual-machine": MacFact(
        'PyTorch uses a Metal GPU only if it supports Metal 2.0 and warns "Skipping device ... that does not support '
        "Metal 2.0\" for any other: a macOS virtual machine's GPU can be skipped this way, and MPS is then unavailable.",
        (
            SourceQuote(
                "aten/src/ATen/mps/MPSDevice.mm",
                "Skipping device {name} that does not support Metal 2.0",
                "mps-literal",
                "MPSDevice's constructor, which picks the GPU",
            ),
        ),
    ),
    "mps-unified-memory": MacFact(
        "From torch 2.13.0 the MPS allocator refuses a GPU without unified memory (Apple silicon has it).",
        (
            SourceQuote(
                "aten/src/ATen/mps/MPSAllocator.mm",
                "MPS backend is only supported on devices with unified memory{}",
                "mps-literal",
                since="2.13.0",
            ),
        ),
    ),
    "mps-cross-device": MacFact(
        'On MPS the cross-device error has its own wordings: an nn.Linear names its argument ("Tensor for argument '
        'input is on cpu but expected on mps"), other MPS kernels say "Placeholder storage has not been allocated on '
        'MPS device!", and elementwise operations give the same "Expected all tensors to be on the same device" as '
        "on CUDA.",
        (
            SourceQuote(
                "aten/src/ATen/native/mps/operations/Linear.mm", "Tensor for argument input is on {device} but expected on mps", "mps-literal"
            ),
            SourceQuote(
                "aten/src/ATen/native/mps/OperationUtils.mm", "Placeholder storage has not been allocated on MPS device!", "mps-literal"
            ),
            SAME_DEVICE,
        ),
    ),
    "mps-convolution": MacFact(
        "A convolution on MPS words the cross-device error its own ways: an input on mps with weights on the CPU "
        "fails the type check (an MPS tensor's type prints as MPSFloatType, since PyTorch renames only CPU and CUDA "
        "types), and a CPU input with weights on mps stops in MPS's fallback for slow_conv2d_forward.",
        (
            SourceQuote(
                "aten/src/ATen/native/Convolution.cpp",
                "Input type ({input type}) and weight type ({weight type}) should be the same",
                "mps-literal",
                "_convolution's ConvBackend::Mps case, taken for an input on mps",
            ),
            SourceQuote(
                "aten/src/ATen/mps/MPSFallback.mm",
                "slow_conv2d_forward_mps{}: input(device='{device}') and weight(device={device}')  must be on the same device",
                "mps-literal",
                "the fallback a CPU input with weights on mps reaches",
            ),
        ),
    ),
    "mps-cat": MacFact(
        "torch.cat of tensors on mps and on the CPU says so in torch 2.7.1 to 2.9.1; from 2.10.0 MPS's cat is a "
        "Metal kernel whose library holds no device message, so the course shows CUDA's cat error only.",
        (
            SourceQuote(
                "aten/src/ATen/native/mps/operations/Shape.mm",
                "torch.cat(): all input tensors must be on the same device. Received {device} and {device}",
                "mps-literal",
                "cat_out_mps's device check",
                until="2.9.1",
            ),
        ),
    ),
    "mps-optimizer-per-tensor": MacFact(
        "Optimizers have no multi-tensor (foreach) path on MPS, so state left on the CPU after model.to('mps') "
        "fails in the per-tensor update, with one of MPS's cross-device wordings.",
        (
            SourceQuote(
                "torch/utils/_foreach_utils.py",
                'return ["cuda", "xpu", torch._C._get_privateuse1_backend_name()]',
                note="_get_foreach_kernels_supported_devices: no mps",
                until="2.8.0",
            ),
            SourceQuote(
                "torch/utils/_foreach_utils.py",
                'return ["cuda", "xpu", "mtia", torch._C._get_privateuse1_backend_name()]',
                note="the same list with mtia added, still no mps",
                since="2.9.1",
            ),
        ),
    ),
    "mps-float64": MacFact(
        "MPS has no float64: moving a float64 tensor to mps, or creating an mps tensor as float64, raises an error "
        "that says so; use float32 there.",
        (
            SourceQuote(
                "aten/src/ATen/native/mps/OperationUtils.mm",
                "Cannot convert a float64 Tensor to MPS as the MPS framework doesn't support float64. Please use float32 instead.",
                "mps-literal",
            ),
            SourceQuote(
                "aten/src/ATen/mps/EmptyTensor.cpp",
                "Cannot convert a MPS Tensor to float64 dtype as the MPS framework doesn't support float64. Please use float32 instead.",
                "mps-literal",
            ),
        ),
    ),
    "mps-fallback": MacFact(
        "An operator MPS does not implement raises NotImplementedError naming PYTORCH_ENABLE_MPS_FALLBACK=1; with that "
        "variable set before torch starts, the operator runs on the CPU instead, with a warning.",
        (
            SourceQuote(
                "aten/src/ATen/mps/MPSFallback.mm",
                "The operator '{op}' is not currently implemented {}for the MPS "
                "device. If you want this op to be considered for addition {}please comment on {issue} and mention "
                "use-case, that resulted in missing op{}. As a temporary fix, you can set the environment variable "
                "`PYTORCH_ENABLE_MPS_FALLBACK=1` {}to use the CPU as a fallback for this op. WARNING: this will be "
                "slower than running natively {}on MPS.",
                "mps-literal",
            ),
            SourceQuote(
                "aten/src/ATen/mps/MPSFallback.mm",
                "The operator '{op}' is not currently supported {}on the MPS "
                "backend and will fall back to run on the CPU.{} This may have performance implications.",
                "mps-literal",
            ),
        ),
    ),
    "mps-pin-memory": MacFact(
        "With pin_memory=True the DataLoader pins batches for whichever accelerator torch.accelerator reports (CUDA, "
        "XPU and others), and turns pinning off, with a warning, only when that accelerator is MPS.",
        (
            SourceQuote(
                "torch/utils/data/dataloader.py",
                "self._pin_memory = loader.pin_memory and torch.accelerator.is_available()",
                note="_BaseDataLoaderIter: any accelerator, not only CUDA",
            ),
            SourceQuote(
                "torch/utils/data/dataloader.py",
                "# Currently, pin_memory would raise error on the MPS backend "
                "(see\n        # https://github.com/pytorch/pytorch/issues/86060), so forcibly\n        # disable "
                "pin_memory on MPS. Remove this restriction once pinned\n        # memory allocation for MPS is fixed.",
            ),
            SourceQuote(
                "torch/utils/data/dataloader.py",
                '"\'pin_memory\' argument is set as true but not supported on MPS now, "\n    "then device pinned memory won\'t be used."',
                until="2.8.0",
            ),
            SourceQuote(
                "torch/utils/data/dataloader.py",
                '"\'pin_memory\' argument is set as true but not supported on MPS now, "\n    "device pinned memory won\'t be used."',
                since="2.9.1",
            ),
        ),
    ),
    "mps-memory": MacFact(
        "torch.mps has its own memory functions, not torch.cuda's: current_allocated_memory() (bytes in tensors), "
        "driver_allocated_memory() (all Metal holds for the process), recommended_max_memory() and empty_cache(); "
        "torch.mps has no max_memory_allocated() or memory_summary(). torch.accelerator.max_memory_allocated() exists "
        "from torch 2.9.1, but MPS's allocator backs it only in newer macOS wheels (2.14.1's, not 2.10.0's).",
        (
            SourceQuote("torch/mps/__init__.py", "Returns the current GPU memory occupied by tensors in bytes."),
            SourceQuote("torch/mps/__init__.py", "Returns total GPU memory allocated by Metal driver for the process in bytes."),
            SourceQuote("torch/mps/__init__.py", "Returns recommended max Working set size for GPU memory in bytes."),
            SourceQuote(
                "torch/mps/__init__.py",
                "Releases all unoccupied cached memory currently held by the caching\n    "
                "allocator so that those can be used in other GPU applications.",
            ),
            SourceQuote(
                "torch/accelerator/memory.py",
                "Return the current :ref:`accelerator<accelerators>` maximum device "
                "memory occupied by tensors\n    in bytes for a given device index.",
                since="2.9.1",
                note="torch.accelerator's memory functions, absent from 2.8.0",
            ),
        ),
    ),
    "mps-synchronize": MacFact(
        "MPS runs asynchronously like CUDA: to time work on the GPU, call torch.mps.synchronize() (or "
        "torch.accelerator.synchronize()) before reading the clock.",
        (SourceQuote("torch/mps/__init__.py", "Waits for all kernels in all streams on a MPS device to complete."),),
    ),
    "mps-out-of-memory": MacFact(
        'Running out of memory on MPS raises "MPS backend out of memory" with the sizes, and names '
        "PYTORCH_MPS_HIGH_WATERMARK_RATIO, the limit's setting.",
        (
            SourceQuote(
                "aten/src/ATen/mps/MPSAllocator.mm",
                "MPS backend out of memory (MPS allocated: {size}, other "
                "allocations: {size}, max allowed: {size}). Tried to allocate {size} on {which} pool. Use "
                "PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.0 to disable upper limit for memory allocations (may cause "
                "system failure).",
                "mps-literal",
            ),
        ),
    ),
}


def mps_needs_macos(version: str) -> tuple[int, int]:
    """The macOS version MPS needs in torch ``version`` (13.0 up to 2.8.0, 14.0 from 2.9.1), per MAC_FACTS."""
    need = MPS_NEEDS_MACOS[0][1]
    for since, macos in MPS_NEEDS_MACOS:
        if _release(version) >= since:
            need = macos
    return need


def wheel_floor(tag: str) -> tuple[int, int]:
    """The oldest macOS a wheel's platform tag installs on: ``macosx_14_0_arm64`` is (14, 0)."""
    match = re.fullmatch(r"macosx_(\d+)_(\d+)_arm64", tag)
    if match is None:
        raise ValueError(f"a macOS arm64 wheel tag looks like 'macosx_14_0_arm64'; MAC_WHEEL_TAGS holds {tag!r}.")
    return int(match.group(1)), int(match.group(2))


def newest_mps_release(macos: tuple[int, int], installable: bool = False) -> str | None:
    """The newest tested release pip installs on ``macos`` (MAC_WHEEL_TAGS) and, unless ``installable``, whose MPS
    works there too (MPS_NEEDS_MACOS); None when there is none."""
    found = [v for v, tag in MAC_WHEEL_TAGS.items() if wheel_floor(tag) <= macos and (installable or mps_needs_macos(v) <= macos)]
    return max(found, key=_release) if found else None


MAC_QUOTES: tuple[SourceQuote, ...] = tuple(q for fact in MAC_FACTS.values() for q in fact.quotes)
