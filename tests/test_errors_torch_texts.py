"""errors: the rules for a forked worker, a device-side assert, out of memory and the convolution
message, tested against the texts of the supported PyTorch releases (issue 17, point 4).

TEXTS holds each piece of PyTorch's (or the CUDA runtime's) wording verbatim, with the file of the
wheel it was read from (relative to site-packages) and the releases whose file held it. They were
read from the 2.7.1 and 2.14.1 CUDA wheels and the 2.13.0 CPU wheel (and torch/cuda/__init__.py of the 2.8.0,
2.9.1, 2.10.0, 2.11.0 and 2.12.0 CUDA wheels, 2026-12-05: lesson 12's start-up warnings): Python sources as text,
compiled libraries as bytes (the literal between two NUL bytes). A C++ message is assembled from
its pieces at run time, so MESSAGES joins the pieces the way the source does and fills the values
(sizes, type names) in. ``test_text_is_in_the_installed_torch`` finds each piece again in the torch
under test, so the version matrix re-verifies them on every release it runs.
"""

from __future__ import annotations

import ast
import mmap
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import torch
from torch.torch_version import TorchVersion

from course_utils.errors import explain_device_error

SITE = Path(torch.__file__).resolve().parents[1]
CU12_CUDART = "nvidia/cuda_runtime/lib/libcudart.so.12"  # the CUDA runtime wheel torch 2.7.1 (cu126) pulls in
CU13_CUDART = "nvidia/cu13/lib/libcudart.so.13"  # and torch 2.14.1's


@dataclass(frozen=True)
class Text:
    """One verbatim piece of a message, where it was read and in which releases."""

    key: str
    text: str
    file: str  # relative to site-packages
    read_in: tuple[str, ...]  # the releases whose file held it (of those read: see the module's docstring)


TEXTS = [
    # torch/cuda/__init__.py, _lazy_init: two adjacent literals of one message
    Text(
        "fork-1",
        "Cannot re-initialize CUDA in forked subprocess. To use CUDA with ",
        "torch/cuda/__init__.py",
        ("2.7.1", "2.8.0", "2.9.1", "2.10.0", "2.11.0", "2.12.0", "2.13.0", "2.14.1"),
    ),
    Text(
        "fork-2",
        "multiprocessing, you must use the 'spawn' start method",
        "torch/cuda/__init__.py",
        ("2.7.1", "2.8.0", "2.9.1", "2.10.0", "2.11.0", "2.12.0", "2.13.0", "2.14.1"),
    ),
    # cudaGetErrorString(cudaErrorAssert), in the CUDA runtime each CUDA wheel installs
    Text("assert-cu12", "device-side assert triggered", CU12_CUDART, ("2.7.1",)),
    Text("assert-cu13", "device-side assert triggered", CU13_CUDART, ("2.14.1",)),
    # lesson 12: a wheel without the GPU's architecture (the CUDA runtime's words; torch/cuda/__init__.py's warnings)
    Text("no-kernel-cu12", "no kernel image is available for execution on the device", CU12_CUDART, ("2.7.1",)),
    Text("no-kernel-cu13", "no kernel image is available for execution on the device", CU13_CUDART, ("2.14.1",)),
    Text("cc-listed", "which is of compute capability (CC) ", "torch/cuda/__init__.py", ("2.11.0", "2.12.0", "2.13.0", "2.14.1")),
    # 2.8.0 to 2.10.0: _check_capability compared the GPU with the lowest and highest entries of the build's list
    Text(
        "cc-range",
        "Minimum and Maximum cuda capability supported by this version of PyTorch is",
        "torch/cuda/__init__.py",
        ("2.8.0", "2.9.1", "2.10.0"),
    ),
    Text("cc-builds", "Please install PyTorch with a following CUDA", "torch/cuda/__init__.py", ("2.8.0", "2.9.1", "2.10.0")),
    Text("cc-too-old", "PyTorch no longer supports this GPU because it is too old.", "torch/cuda/__init__.py", ("2.7.1",)),
    Text(
        "sm-incompatible",
        " is not compatible with the current PyTorch installation.",
        "torch/cuda/__init__.py",
        ("2.7.1", "2.8.0", "2.9.1", "2.10.0", "2.11.0", "2.12.0", "2.13.0", "2.14.1"),
    ),
    Text(
        "rocm-visible",
        "HIP_VISIBLE_DEVICES contains more devices than ROCR_VISIBLE_DEVICES",
        "torch/cuda/__init__.py",
        ("2.7.1", "2.8.0", "2.9.1", "2.10.0", "2.11.0", "2.12.0", "2.13.0", "2.14.1"),
    ),
    # c10/cuda/CUDAMiscFunctions.cpp's suffix (unless CUDA_LAUNCH_BLOCKING=1): on every CUDA error in 2.7.1-2.12.0,
    # only on asynchronous kernel errors (700, 710, 715, 716, 719) from 2.13 (get_cuda_async_error_suffix)
    Text(
        "async-tail",
        "\nCUDA kernel errors might be asynchronously reported at some other API call, so the "
        "stacktrace below might be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1",
        "torch/lib/libc10_cuda.so",
        ("2.7.1", "2.14.1"),
    ),
    Text("cuda-error", "CUDA error: ", "torch/lib/libc10_cuda.so", ("2.7.1",)),  # 2.14.1 holds no such literal
    # c10/cuda/CUDACachingAllocator.cpp's out-of-memory message, piece by piece
    Text("oom-1", "CUDA out of memory. Tried to allocate ", "torch/lib/libc10_cuda.so", ("2.7.1", "2.14.1")),
    Text("oom-2", " has a total capacity of ", "torch/lib/libc10_cuda.so", ("2.7.1", "2.14.1")),
    Text("oom-3", " is free. ", "torch/lib/libc10_cuda.so", ("2.7.1", "2.14.1")),
    Text("oom-4", " memory in use. ", "torch/lib/libc10_cuda.so", ("2.7.1", "2.14.1")),
    Text("oom-5", "Of the allocated memory ", "torch/lib/libc10_cuda.so", ("2.7.1", "2.14.1")),
    Text("oom-6", "CUDA out of memory. Tried to allocate more than 1EB memory.", "torch/lib/libc10_cuda.so", ("2.7.1", "2.14.1")),
    # c10/core/impl/alloc_cpu.cpp (posix_memalign failed); also raised live below
    Text("cpu-oom", "DefaultCPUAllocator: can't allocate memory: you tried to allocate ", "torch/lib/libc10.so", ("2.7.1", "2.13.0", "2.14.1")),
    # aten/src/ATen/native/Convolution.cpp, check_input_same_type_as_parameters
    Text("conv-1", "Input type (", "torch/lib/libtorch_cpu.so", ("2.7.1", "2.14.1")),
    Text("conv-2", ") and weight type (", "torch/lib/libtorch_cpu.so", ("2.7.1", "2.14.1")),
    Text("conv-3", ") and bias type (", "torch/lib/libtorch_cpu.so", ("2.7.1", "2.14.1")),
    Text(
        "conv-mkldnn",
        ") should be the same or input should be a MKLDNN tensor and weight is a dense tensor",
        "torch/lib/libtorch_cpu.so",
        ("2.7.1", "2.14.1"),
    ),
    Text(
        "conv-mkldnn-bias",
        ") should be the same or input should be a MKLDNN tensor and bias is a dense tensor",
        "torch/lib/libtorch_cpu.so",
        ("2.7.1", "2.14.1"),
    ),
]
T = {t.key: t.text for t in TEXTS}
assert len(T) == len(TEXTS), "duplicate keys in TEXTS"


def _holds(path: Path, text: str) -> bool:
    with open(path, "rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as data:
        return data.find(text.encode()) >= 0


@pytest.mark.parametrize("text", TEXTS, ids=lambda t: t.key)
def test_text_is_in_the_installed_torch(text):
    path = SITE / text.file
    if not path.exists():
        pytest.skip(f"this torch {torch.__version__} has no {text.file} (read in {', '.join(text.read_in)})")
    here = TorchVersion(torch.__version__.split("+")[0])
    low, high = min(text.read_in, key=TorchVersion), max(text.read_in, key=TorchVersion)
    if not low <= here <= high:
        pytest.skip(f"read in {', '.join(text.read_in)}; torch {torch.__version__} is outside that range")
    assert _holds(path, text.text), f"{text.text!r} is no longer in {text.file} of torch {torch.__version__}"


# What the learner sees: the pieces joined the way the source joins them, values filled in.
DSA = "\nCompile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n"  # c10's text without DSA, as quoted in test_errors
MESSAGES = [
    (T["fork-1"] + T["fork-2"], "forked-subprocess", ("cuda",)),
    (T["cuda-error"] + T["assert-cu12"] + T["async-tail"] + DSA, "device-side-assert", ("cuda",)),
    (T["cuda-error"] + "an illegal memory access was encountered" + T["async-tail"] + DSA, "cuda-error-reported-late", ("cuda",)),
    (
        T["oom-1"] + "20.00 MiB. GPU 0" + T["oom-2"] + "15.77 GiB of which 3.12 MiB" + T["oom-3"] + "Process 4242 has "
        "15.76 GiB" + T["oom-4"] + T["oom-5"] + "15.2 GiB is allocated by PyTorch",
        "out-of-memory",
        ("cuda:0",),
    ),
    (T["oom-6"], "out-of-memory", ("cuda",)),
    (T["cpu-oom"] + "4398046511104 bytes. Error code 12 (Cannot allocate memory)", "out-of-memory", ("cpu",)),
    # Windows builds word it "not enough memory" (alloc_cpu.cpp's other branch): as users paste it, not
    # in the Linux wheels read here
    (
        "[enforce fail at alloc_cpu.cpp:117] data. DefaultCPUAllocator: not enough memory: you tried to allocate 911360 bytes.",
        "out-of-memory",
        ("cpu",),
    ),
]
CONV = [  # (input type, weight type, tail): both orders, half precision, with and without the MKLDNN tail
    ("torch.FloatTensor", "torch.cuda.FloatTensor", T["conv-mkldnn"]),
    ("torch.cuda.FloatTensor", "torch.FloatTensor", T["conv-mkldnn"]),
    ("torch.cuda.HalfTensor", "torch.HalfTensor", T["conv-mkldnn"]),
    ("torch.FloatTensor", "torch.cuda.HalfTensor", ") should be the same"),
]


@pytest.mark.parametrize("message, kind, devices", MESSAGES, ids=[m[1] + f"-{i}" for i, m in enumerate(MESSAGES)])
def test_assembled_messages_are_explained(message, kind, devices):
    e = explain_device_error(message)
    assert e.is_device_error and (e.kind, e.devices) == (kind, devices), e
    assert e.cause and e.fix


@pytest.mark.parametrize("given, weight, tail", CONV, ids=[f"{a}-{b}" for a, b, _ in CONV])
def test_convolution_message_keeps_the_work_on_the_gpu(given, weight, tail):
    e = explain_device_error(T["conv-1"] + given + T["conv-2"] + weight + tail)
    data, weights = ("cuda" if ".cuda." in given else "cpu"), ("cuda" if ".cuda." in weight else "cpu")
    assert (e.kind, e.devices, e.argument) == ("mixed-devices", (data, weights), "input")
    assert f"the module's weights are on {weights} and its input on {data}" in e.cause
    if weights == "cpu":  # a model left on the CPU goes to its input's GPU, never the input to the CPU (issue 35)
        assert e.fix.startswith(f"Move the model to the input's device: model.to('{data}')")
    else:
        assert e.fix.startswith(f"Move the input to the model: x = x.to('{weights}'")
    if "Half" in weight and "Half" not in given:
        assert "dtypes differ" in e.cause and "dtype=torch.half" in e.fix


def test_a_bias_of_another_dtype_alone_is_not_a_device_error():
    # this torch's own wording for a dtype-only mismatch (live on the CPU), and the type-name form
    exc = _raises(lambda: torch.nn.functional.conv2d(torch.ones(1, 1, 3, 3), torch.ones(1, 1, 2, 2), torch.ones(1, dtype=torch.float64)))
    assert "should be the same" in str(exc)
    assert not explain_device_error(exc).is_device_error
    assert not explain_device_error(
        T["conv-1"] + "torch.cuda.HalfTensor" + T["conv-3"] + "torch.cuda.FloatTensor" + T["conv-mkldnn-bias"]
    ).is_device_error


def _raises(action):
    try:
        action()
    except Exception as exc:  # the test wants the real exception
        return exc
    raise AssertionError("expected the action to raise")


def test_forked_message_of_the_installed_torch():
    # the message exactly as this torch's _lazy_init raises it, read from its source
    source = Path(torch.cuda.__file__).read_text(encoding="utf-8")
    texts = [
        n.value
        for n in ast.walk(ast.parse(source))
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and "re-initialize CUDA" in n.value
    ]
    assert texts, "torch.cuda no longer raises 'Cannot re-initialize CUDA in forked subprocess'"
    for text in texts:
        e = explain_device_error(RuntimeError(text))
        assert e.kind == "forked-subprocess" and e.devices == ("cuda",)
        assert "multiprocessing_context='spawn'" in e.fix and "Keep CUDA out of the workers" in e.fix


def test_device_side_assert_says_where_to_look_and_what_to_restart():
    e = explain_device_error(MESSAGES[1][0])
    assert "CUDA_LAUNCH_BLOCKING=1" in e.fix and "Restart the kernel" in e.fix and "on the CPU" in e.fix
    assert "reported at a later call" in e.cause and "out of range" in e.cause
    # the tail alone names CUDA_LAUNCH_BLOCKING too, but the device-side assert is the more specific rule
    assert explain_device_error(MESSAGES[2][0]).kind == "cuda-error-reported-late"
    assert explain_device_error("CUDA error: invalid device ordinal" + T["async-tail"] + DSA).kind == "invalid-device-ordinal"


def test_the_cpu_side_of_a_device_side_assert_raises_at_once():
    # what the CUDA kernel only asserts: on the CPU the same out-of-range label is a clear error, here
    exc = _raises(lambda: torch.nn.functional.cross_entropy(torch.zeros(2, 3), torch.tensor([0, 7])))
    assert "out of bounds" in str(exc)


def test_out_of_memory_fixes_name_the_real_tools():
    e = explain_device_error(MESSAGES[3][0])
    assert "20.00 MiB" in e.cause
    for tool in ("smaller batch", "del t", "empty_cache()", "max_memory_allocated()", "memory_summary()", "torch.no_grad()"):
        assert tool in e.fix


@pytest.mark.slow  # a child Python that imports torch
def test_cpu_out_of_memory_is_raised_live_and_explained():
    # 4 TiB: posix_memalign refuses at once on a machine with less (nothing is allocated or touched).
    # Run in a child so a machine that overcommits without limit cannot take this test's memory.
    code = "import torch\ntry:\n    torch.empty(2**40)\nexcept RuntimeError as e:\n    print(e)\nelse:\n    print('ALLOCATED')\n"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600).stdout.strip()
    if out == "ALLOCATED":
        pytest.skip("this machine's kernel granted 4 TiB of address space (overcommit), so no CPU OOM to read")
    assert "DefaultCPUAllocator" in out, out
    e = explain_device_error(out)
    assert (e.kind, e.devices) == ("out-of-memory", ("cpu",)) and "4096.0 GiB" in e.cause
