"""The error wordings of issue 28, each as a learner meets it, with where its text was read.

A ``Wording`` is one message as PyTorch (or a library around it) prints it: the verbatim literals
of its source (``pieces``), joined the way the source joins them with example values filled in
(``message``). ``read`` names the release files the pieces were read from, ``versions`` the
releases (or library version) the wording belongs to as far as those files show.

How each was read (none is typed from memory):
- PyTorch 2.x: the release wheels, ``strings`` of their compiled libraries and their Python
  sources: the macOS arm64 wheels of torch 2.4.0 and of every tested release, 2.7.1 to 2.14.1
  (``torch/lib/libtorch_cpu.dylib``: Apple's MPS backend exists only there; ``scripts/verify-mac-facts``
  reads the MPS wordings again); torch 2.14.1 Linux CUDA wheel (``libc10_cuda.so``,
  ``libtorch_cuda.so``, ``libtorch_cpu.so``); the 2.13.0 CPU wheel this project installs.
- The CUDA runtime's and NCCL's own texts: the wheels nvidia-cuda-runtime-cu12 12.6.77 (the runtime
  of the cu126 builds, torch 2.7.1's default), nvidia-nccl-cu12 2.21.5 and nvidia-nccl-cu13 2.30.7.
- PyTorch 0.4-1.x: pytorch/pytorch's source history (the stored repository's files named in
  ``read``); the exact release of each of those files is not pinned here, so ``versions`` gives the
  era the file belongs to.
- Libraries: their PyPI wheels, lightning 2.6.6, ultralytics 8.4.190, diffusers 0.42.1.

``installed`` names the file of the installed torch (relative to site-packages) that must hold
every piece, where the CPU wheel has it: ``test_pieces_are_in_the_installed_torch`` reads it again
on each torch the test matrix runs.
"""

from __future__ import annotations

from dataclasses import dataclass

ASYNC_TAIL = (
    "\nCUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below "
    "might be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1"
)
MACOS = "torch 2.4.0 and 2.7.1 to 2.14.1 macOS arm64 wheels, torch/lib/libtorch_cpu.dylib"
MACOS_RELEASES = "2.4.0, 2.7.1 to 2.14.1"


@dataclass(frozen=True)
class Wording:
    """One message family's wording, where it was read, and what the explainer must say about it."""

    key: str
    family: str  # the row of docs/error-messages.md
    message: str
    pieces: tuple[str, ...]  # verbatim literals of the source, each in ``message``
    read: str  # the files the pieces were read from
    versions: str  # the releases the wording belongs to
    kind: str  # the explanation's kind
    devices: tuple[str, ...]  # the devices the explanation names, in order
    installed: str | None = None  # a file of the installed torch that holds every piece, if the CPU wheel has it
    installed_since: str = "2.7.1"  # the oldest tested release whose ``installed`` file holds the pieces


WORDINGS = [
    # --- Apple's GPU (MPS), PyTorch 2.4 and later
    Wording(
        "mps-linear-input",
        "MPS: an argument on the CPU",
        "Tensor for argument input is on cpu but expected on mps",
        ("Tensor for argument input is on ", " but expected on mps"),
        MACOS + " (aten/src/ATen/native/mps/operations/Linear.mm)",
        MACOS_RELEASES,
        "mixed-devices",
        ("mps", "cpu"),
    ),
    Wording(
        "mps-linear-weight",
        "MPS: an argument on the CPU",
        "Tensor for argument weight is on cpu but expected on mps",
        ("Tensor for argument weight is on ", " but expected on mps"),
        MACOS + " (Linear.mm)",
        MACOS_RELEASES,
        "mixed-devices",
        ("mps", "cpu"),
    ),
    Wording(
        "mps-convolution",
        "MPS: a convolution's input and weight",
        "slow_conv2d_forward_mps: input(device='cpu') and weight(device=mps:0')  must be on the same device",
        ("slow_conv2d_forward_mps", ": input(device='", "') and weight(device=", "')  must be on the same device"),
        MACOS + " (aten/src/ATen/mps/MPSFallback.mm)",
        MACOS_RELEASES,
        "mixed-devices",
        ("cpu", "mps:0"),
    ),
    Wording(
        "mps-placeholder",
        "MPS, older",
        "Placeholder storage has not been allocated on MPS device!",
        ("Placeholder storage has not been allocated on MPS device!",),
        MACOS + " (aten/src/ATen/native/mps/OperationUtils.mm)",
        MACOS_RELEASES,
        "mixed-devices",
        ("mps", "cpu"),
    ),
    Wording(
        "mps-conv-type",
        "MPS: a convolution",
        "Input type (MPSFloatType) and weight type (torch.FloatTensor) should be the same",
        ("Input type (", ") and weight type (", ") should be the same"),
        MACOS + " (aten/src/ATen/native/Convolution.cpp, the ConvBackend::Mps case; an MPS tensor's toString() "
        "is MPSFloatType, which torch/csrc/Exceptions.cpp does not rename: libtorch_python.dylib lists only "
        "CPU and CUDA type names)",
        MACOS_RELEASES,
        "mixed-devices",
        ("mps", "cpu"),
    ),
    Wording(
        "mps-elementwise",
        "Same device (elementwise)",
        "Expected all tensors to be on the same device, but found at least two devices, mps:0 and cpu!",
        ("Expected all tensors to be on the same device, but found at least two devices, ",),
        MACOS + " (aten/src/ATen/TensorIterator.cpp)",
        MACOS_RELEASES,
        "mixed-devices",
        ("mps:0", "cpu"),
    ),
    Wording(
        "mps-cat",
        "MPS: torch.cat, 2.7.1 to 2.9.1",
        "torch.cat(): all input tensors must be on the same device. Received cpu and mps:0",
        ("torch.cat(): all input tensors must be on the same device. Received ", " and "),
        "torch 2.7.1, 2.8.0 and 2.9.1 macOS arm64 wheels, torch/lib/libtorch_cpu.dylib "
        "(aten/src/ATen/native/mps/operations/Shape.mm; 2.10.0 and later no longer hold it)",
        "2.7.1 to 2.9.1",
        "mixed-devices",
        ("cpu", "mps:0"),
    ),
    Wording(
        "mps-float64-to",
        "MPS: no float64",
        "Cannot convert a float64 Tensor to MPS as the MPS framework doesn't support float64. Please use float32 instead.",
        ("Cannot convert a float64 Tensor to MPS as the MPS framework doesn't support float64. Please use float32 instead.",),
        MACOS,
        MACOS_RELEASES,
        "mps-float64",
        ("mps",),
    ),
    Wording(
        "mps-float64-dtype",
        "MPS: no float64",
        "Cannot convert a MPS Tensor to float64 dtype as the MPS framework doesn't support float64. Please use float32 instead.",
        ("Cannot convert a MPS Tensor to float64 dtype as the MPS framework doesn't support float64. Please use float32 instead.",),
        MACOS,
        MACOS_RELEASES,
        "mps-float64",
        ("mps",),
    ),
    Wording(
        "mps-float64-op",
        "MPS: no float64",
        "float64 is not supported on MPS",
        ("float64 is not supported on MPS",),
        MACOS,
        MACOS_RELEASES,
        "mps-float64",
        ("mps",),
    ),
    # --- is there a GPU at all?
    Wording(
        "no-cuda-gpus",
        "No GPU visible",
        "No CUDA GPUs are available",
        ("No CUDA GPUs are available",),
        "torch 2.14.1 CUDA wheel, torch/lib/libc10_cuda.so (c10/cuda/CUDAFunctions.cpp, device_count_ensure_non_zero)",
        "2.14.1",
        "no-gpu-visible",
        ("cuda",),
    ),
    Wording(
        "no-cuda-device",
        "No GPU visible",
        "CUDA error: no CUDA-capable device is detected" + ASYNC_TAIL,
        ("no CUDA-capable device is detected",),
        "nvidia-cuda-runtime-cu12 12.6.77, libcudart.so.12 (cudaGetErrorString); 'CUDA error: ' and the tail from c10/cuda",
        "CUDA 12 runtimes (torch 2.7.1 cu126)",
        "no-gpu-visible",
        ("cuda",),
    ),
    Wording(
        "no-kernel-image",
        "GPU architecture not in this build",
        "CUDA error: no kernel image is available for execution on the device" + ASYNC_TAIL,
        ("no kernel image is available for execution on the device",),
        "nvidia-cuda-runtime-cu12 12.6.77, libcudart.so.12; the tail as 2.7.1-2.12.0 add it to every CUDA error",
        "CUDA 12 runtimes (torch 2.7.1 cu126)",
        "gpu-architecture",
        ("cuda",),
    ),
    Wording(
        "incompatible-gpu",
        "GPU architecture not in this build",
        "\nNVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current PyTorch "
        "installation.\nThe current PyTorch install supports CUDA capabilities sm_50 sm_60 sm_70 sm_75 sm_80 "
        "sm_86 sm_90.\nIf you want to use the NVIDIA GeForce RTX 5090 GPU with PyTorch, please check the "
        "instructions at https://pytorch.org/get-started/locally/\n",
        (
            " with CUDA capability sm_",
            " is not compatible with the current PyTorch installation.\nThe current PyTorch install supports CUDA capabilities ",
        ),
        "torch/cuda/__init__.py of the 2.13.0 CPU and 2.14.1 CUDA wheels (_check_capability, a UserWarning)",
        "2.13.0, 2.14.1",
        "gpu-architecture",
        ("cuda",),
        installed="torch/cuda/__init__.py",
    ),
    Wording(
        "lightning-accelerator",
        "Library: no GPU for the requested device",
        "`CUDAAccelerator` can not run on your system since the accelerator is not available. The following "
        "accelerator(s) is available and can be passed into `accelerator` argument of `Trainer`: ['cpu'].",
        (
            " can not run on your system",
            " since the accelerator is not available. The following accelerator(s)",
            " is available and can be passed into `accelerator` argument of",
        ),
        "lightning 2.6.6, lightning/pytorch/trainer/connectors/accelerator_connector.py",
        "lightning 2.6.6",
        "no-gpu-visible",
        ("cuda",),
    ),
    Wording(
        "lightning-none",
        "Library: no GPU for the requested device",
        "GPUs requested but none are available.",
        ("GPUs requested but none are available.",),
        "lightning 2.6.6, lightning/fabric/utilities/device_parser.py",
        "lightning 2.6.6",
        "no-gpu-visible",
        ("cuda",),
    ),
    Wording(
        "lightning-ids",
        "Library: no GPU for the requested device",
        "You requested gpu: [0, 1]\n But your machine only has: [0]",
        ("You requested gpu: ", "\n But your machine only has: "),
        "lightning 2.6.6, lightning/fabric/utilities/device_parser.py",
        "lightning 2.6.6",
        "invalid-device-ordinal",
        ("cuda",),
    ),
    Wording(
        "ultralytics-no-cuda",
        "Library: no GPU for the requested device",
        "Invalid CUDA 'device=0' requested. Use 'device=cpu' or pass valid CUDA device(s) if available, i.e. "
        "'device=0' or 'device=0,1,2,3' for Multi-GPU.\n\ntorch.cuda.is_available(): False\n"
        "torch.cuda.device_count(): 0\nos.environ['CUDA_VISIBLE_DEVICES']: None\nSee "
        "https://pytorch.org/get-started/locally/ for up-to-date torch install instructions if no CUDA devices "
        "are seen by torch.\n",
        (
            "Invalid CUDA 'device=",
            "' requested.",
            " Use 'device=cpu' or pass valid CUDA device(s) if available,",
            "\ntorch.cuda.is_available(): ",
        ),
        "ultralytics 8.4.190, ultralytics/utils/torch_utils.py (select_device)",
        "ultralytics 8.4.190",
        "no-gpu-visible",
        ("cuda",),
    ),
    Wording(
        "ultralytics-count",
        "Library: no GPU for the requested device",
        "Invalid CUDA 'device=cuda:1' requested. Only 1 device(s) available.",
        ("' requested. Only ", " device(s) available."),
        "ultralytics 8.4.190, ultralytics/utils/torch_utils.py (select_device)",
        "ultralytics 8.4.190",
        "invalid-device-ordinal",
        ("cuda",),
    ),
    Wording(
        "ultralytics-backend",
        "Library: no GPU for the requested device",
        "Invalid MPS 'device=mps' requested. Backend is not available.",
        ("' requested. Backend is not available.",),
        "ultralytics 8.4.190, ultralytics/utils/torch_utils.py (select_device)",
        "ultralytics 8.4.190",
        "no-gpu-visible",
        ("mps",),
    ),
    # --- PyTorch 0.4-1.x wordings
    Wording(
        "old-backend",
        "Old: backend",
        "Expected object of backend CPU but got backend CUDA for argument #2 'mat2'",
        ("Expected object of backend ", " but got backend ", " for argument #"),
        "pytorch/pytorch aten/src/ATen/Utils.h (checked_tensor_unwrap)",
        "1.0-1.4 era",
        "mixed-devices",
        ("cpu", "cuda"),
    ),
    Wording(
        "old-backend-sequence",
        "Old: backend",
        "Expected object of backend CUDA but got backend CPU for sequence element 1 in sequence argument at position #1 'tensors'",
        ("Expected object of backend ", " but got backend ", " for sequence element ", " in sequence argument at position #"),
        "pytorch/pytorch aten/src/ATen/Utils.h (checked_tensor_list_unwrap)",
        "1.0-1.4 era",
        "mixed-devices",
        ("cuda", "cpu"),
    ),
    Wording(
        "old-expected-device-dtype",
        "Old: expected device ... but got device ...",
        "expected device cuda:0 and dtype Float but got device cpu and dtype Float",
        ("expected device ", " and dtype ", " but got device "),
        "pytorch/pytorch aten/src/ATen/native/TensorIterator.cpp (compute_types)",
        "1.1-1.3 era",
        "mixed-devices",
        ("cuda:0", "cpu"),
    ),
    Wording(
        "old-expected-device",
        "Old: expected device ... but got device ...",
        "expected device cuda:0 but got device cpu",
        ("expected device ", " but got device "),
        "pytorch/pytorch aten/src/ATen/native/TensorIterator.cpp (compute_types, later)",
        "1.4-1.5 era",
        "mixed-devices",
        ("cuda:0", "cpu"),
    ),
    Wording(
        "index-put-value",
        "Old: expected device ... but got device ...",
        "expected device cuda:0 but got device cpu for value tensor",
        ("expected device ", " but got device ", " for value tensor"),
        "libtorch_cpu.so of the 2.13.0 CPU wheel (index_put_ with accumulate=True on CUDA)",
        "1.x to 2.13.0",
        "mixed-devices",
        ("cuda:0", "cpu"),
        installed="torch/lib/libtorch_cpu.so",
    ),
    Wording(
        "old-cat",
        "Old: all input tensors must be on the same device",
        "All input tensors must be on the same device. Received cuda:0 and cpu",
        ("All input tensors must be on the same device. Received ", " and "),
        "pytorch/pytorch aten/src/ATen/native/cuda/Shape.cu (cat)",
        "1.5-1.x era",
        "mixed-devices",
        ("cuda:0", "cpu"),
    ),
    Wording(
        "old-cat-named",
        "Old: all input tensors must be on the same device",
        "torch.cat(): all input tensors must be on the same device. Received cpu and cuda:0",
        ("torch.cat(): all input tensors must be on the same device. Received ", " and "),
        "pytorch/pytorch aten/src/ATen/native/cuda/Shape.cu (cat, later)",
        "1.x era",
        "mixed-devices",
        ("cpu", "cuda:0"),
    ),
    Wording(
        "old-different-gpus",
        "Old: arguments are located on different GPUs",
        "arguments are located on different GPUs at /pytorch/aten/src/THC/generic/THCTensorMathBlas.cu:255",
        ("arguments are located on different GPUs",),
        "pytorch/pytorch aten/src/THC/THCGeneral.h.in (THCAssertSameGPU)",
        "0.4-1.x (THC)",
        "mixed-devices",
        ("cuda",),
    ),
    # --- library wrappers around a device error
    Wording(
        "replica",
        "Wrapper: DataParallel replica",
        "Caught RuntimeError in replica 1 on device 1.\nOriginal Traceback (most recent call last):\n"
        '  File "/usr/lib/python3/site-packages/torch/nn/modules/linear.py", line 125, in forward\n'
        "    return F.linear(input, self.weight, self.bias)\n"
        "RuntimeError: Expected all tensors to be on the same device, but got mat1 is on cuda:0, different from "
        "other tensors on cuda:1 (when checking argument in method wrapper_CUDA_addmm)\n",
        (
            "Caught ",
            "in replica ",
            " on device ",
            ".\nOriginal ",
            "Expected all tensors to be on the same device, but got ",
            ", different from other tensors on ",
            " (when checking argument in method ",
        ),
        "torch 2.14.1: torch/_utils.py (ExceptionWrapper), torch/nn/parallel/parallel_apply.py, libtorch_cpu.so",
        "2.14.1",
        "mixed-devices",
        ("cuda:0", "cuda:1"),
    ),
    Wording(
        "replica-first-line",
        "Wrapper: DataParallel replica",
        "Caught RuntimeError in replica 0 on device 0.",
        ("Caught ", "in replica ", " on device "),
        "torch 2.14.1: torch/_utils.py (ExceptionWrapper), torch/nn/parallel/parallel_apply.py",
        "2.14.1",
        "wrapped-error",
        ("cuda:0",),
    ),
    Wording(
        "generator-diffusers",
        "Wrapper: a generator of another device (Diffusers)",
        "Cannot generate a cpu tensor from a generator of type cuda.",
        ("Cannot generate a ", " tensor from a generator of type "),
        "diffusers 0.42.1, diffusers/utils/torch_utils.py (randn_tensor)",
        "diffusers 0.42.1",
        "generator-device",
        ("cpu", "cuda"),
    ),
    # W3 (issue 34): the C++ message says 'CUDAFloatType', but torch/csrc/Exceptions.cpp's processErrorMsg renames
    # CPU and CUDA type names before Python sees them, so a learner reads 'torch.cuda.FloatTensor'
    Wording(
        "pin-cuda",
        "Wrapper: pinning a tensor already on the GPU",
        "cannot pin 'torch.cuda.FloatTensor' only dense CPU tensors can be pinned",
        ("cannot pin '", "' only dense CPU tensors can be pinned"),
        "libtorch_cpu.so of the 2.7.1, 2.13.0 and 2.14.1 wheels (aten/src/ATen/native/Memory.cpp)",
        "2.7.1 to 2.14.1",
        "pin-needs-cpu",
        ("cuda",),
        installed="torch/lib/libtorch_cpu.so",
    ),
    Wording(
        "pin-cuda-renamed",
        "Wrapper: pinning a tensor already on the GPU",
        "cannot pin 'torch.cuda.FloatTensor' only dense CPU tensors can be pinned",
        ("torch.cuda.FloatTensor",),
        "libtorch_python.so of the 2.7.1, 2.13.0 and 2.14.1 wheels (processErrorMsg's table, which maps "
        "CUDAFloatType to torch.cuda.FloatTensor)",
        "2.7.1 to 2.14.1",
        "pin-needs-cpu",
        ("cuda",),
        installed="torch/lib/libtorch_python.so",
    ),
    Wording(
        "pin-thread",
        "Wrapper: pinning a tensor already on the GPU",
        "Caught RuntimeError in pin memory thread for device 0.\nOriginal Traceback (most recent call last):\n"
        '  File "/usr/lib/python3/site-packages/torch/utils/data/_utils/pin_memory.py", line 37, in do_one_step\n'
        "    data = pin_memory(data, device)\nRuntimeError: cannot pin 'torch.cuda.FloatTensor' only dense CPU tensors "
        "can be pinned\n",
        ("Caught ", "in pin memory thread for device ", "cannot pin '", "' only dense CPU tensors can be pinned"),
        "torch 2.14.1: torch/utils/data/_utils/pin_memory.py, torch/_utils.py, libtorch_cpu.so",
        "2.14.1",
        "pin-needs-cpu",
        ("cuda",),
    ),
    Wording(
        "nccl-duplicate",
        "Wrapper: NCCL duplicate GPU",
        "NCCL error in: /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, invalid usage (run with "
        "NCCL_DEBUG=WARN for details), NCCL version 2.21.5\nncclInvalidUsage: This usually reflects invalid usage "
        "of NCCL library.\nLast error:\nDuplicate GPU detected : rank 1 and rank 0 both on CUDA device 1000",
        (
            "NCCL error in: ",
            "invalid usage (run with NCCL_DEBUG=WARN for details)",
            "ncclInvalidUsage: This usually reflects invalid usage of NCCL library.",
            "Last error:\n",
            "Duplicate GPU detected : rank ",
            " and rank ",
            " both on CUDA device ",
        ),
        "torch 2.14.1 libtorch_cuda.so (ProcessGroupNCCL); nvidia-nccl-cu12 2.21.5 libnccl.so.2 (init.cc)",
        "NCCL 2.21.5 (and earlier 2.x)",
        "duplicate-gpu",
        ("cuda",),
    ),
    Wording(
        "nccl-multi-rank",
        "Wrapper: NCCL duplicate GPU",
        "Multiple Ranks are using the same GPU/Partition. Set NCCL_MULTI_RANK_GPU_ENABLE=1 to enable this configuration.",
        ("Multiple Ranks are using the same GPU/Partition. Set NCCL_MULTI_RANK_GPU_ENABLE=1 to enable this configuration.",),
        "nvidia-nccl-cu13 2.30.7, libnccl.so.2",
        "NCCL 2.30.7",
        "duplicate-gpu",
        ("cuda",),
    ),
    # --- optimizer state on the wrong device
    Wording(
        "fused-adamw",
        "Optimizer state on another device",
        "Expected all tensors to be on the same device, but got state_steps is on cpu, different from other "
        "tensors on cuda:0 (when checking argument in method wrapper_CUDA___fused_adamw_)",
        (
            "Expected all tensors to be on the same device, but got ",
            ", different from other tensors on ",
            " (when checking argument in method ",
            "wrapper_CUDA___fused_adamw_",
        ),
        "torch 2.14.1 CUDA wheel: libtorch_cpu.so (the check), libtorch_cuda.so (the kernel's name); _fused_adamw_'s schema names state_steps",
        "2.8.0 and later (the dispatcher's wording since 2.8)",
        "optimizer-state",
        ("cpu", "cuda:0"),
    ),
    Wording(
        "fused-adam-old",
        "Optimizer state on another device",
        "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu! (when "
        "checking argument for argument state_steps in method wrapper_CUDA___fused_adam_)",
        ("Expected all tensors to be on the same device, but found at least two devices, ", "wrapper_CUDA___fused_adam_"),
        "torch 2.14.1 libtorch_cpu.so / libtorch_cuda.so; the 'for argument' tail as 2.7.1 words it",
        "2.7.1 and earlier 2.x",
        "optimizer-state",
        ("cpu", "cuda:0"),
    ),
    # --- a message cut short: only its first part pasted
    Wording(
        "index-cut",
        "Cut short: an embedding lookup",
        "Expected all tensors to be on the same device, but got index is on cpu, different from other tensors on",
        ("Expected all tensors to be on the same device, but got ", ", different from other tensors on"),
        "torch 2.14.1 libtorch_cpu.so (the 2.8+ wording), cut before the second device",
        "2.8.0 and later",
        "mixed-devices",
        ("cpu",),
        installed="torch/lib/libtorch_cpu.so",
        installed_since="2.8.0",
    ),
    Wording(
        "index-cut-traceback",
        "Cut short: an embedding lookup",
        '  File "/usr/lib/python3/site-packages/torch/nn/functional.py", line 2551, in embedding\n'
        "    return torch.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)\n"
        "RuntimeError: Expected all tensors to be on the same device, but found at least two devices,",
        ("Expected all tensors to be on the same device, but found at least two devices,",),
        "torch 2.14.1 libtorch_cpu.so (the 2.7 wording), cut before the devices, under its traceback",
        "2.7.1 and earlier 2.x",
        "mixed-devices",
        (),
        installed="torch/lib/libtorch_cpu.so",
    ),
]

# Errors that mention cuda (or a device) and are about shapes, dtypes or autograd: never device errors.
LOOK_ALIKES = [
    # "\"", NAME, "\" not implemented for '", type, "'": the dispatch macro's text; the names are CUDA kernels
    # in the 2.14.1 CUDA wheel's libtorch_cuda.so
    ("\"addmm_cuda\" not implemented for 'Long'", "libtorch_cpu.so (2.13.0), libtorch_cuda.so (2.14.1)"),
    ("\"nll_loss_forward_reduce_cuda_kernel_2d_index\" not implemented for 'Int'", "libtorch_cpu.so (2.13.0), libtorch_cuda.so (2.14.1)"),
    # autograd's version counter check, on a CUDA tensor
    (
        "one of the variables needed for gradient computation has been modified by an inplace operation: "
        "[torch.cuda.FloatTensor [64, 10]], which is output 0 of AsStridedBackward0, is at version 2; expected version "
        "1 instead. Hint: enable anomaly detection to find the operation that failed to compute its gradient, with "
        "torch.autograd.set_detect_anomaly(True).",
        "libtorch_cpu.so (2.13.0)",
    ),
    # PyTorch 1.x THC's shape check, its CUDA source file in the message
    (
        "size mismatch, m1: [64 x 100], m2: [200 x 10] at /pytorch/aten/src/THC/generic/THCTensorMathBlas.cu:290",
        "pytorch/pytorch aten/src/THC (1.x)",
    ),
    # the old TensorIterator wording when only the dtypes differ
    (
        "expected device cuda:0 and dtype Float but got device cuda:0 and dtype Double",
        "pytorch/pytorch aten/src/ATen/native/TensorIterator.cpp (1.x)",
    ),
    ("Expected object of backend CPU but got backend SparseCPU for argument #1 'self'", "pytorch/pytorch aten/src/ATen/Utils.h"),
    # MPS's dtype limit for nn.Linear: about dtypes, on the right device
    ("MPS device does not support linear for non-float inputs", MACOS + " (Linear.mm)"),
    # pinning a sparse CPU tensor: a layout, not a device
    ("cannot pin 'SparseCPUFloatType' only dense CPU tensors can be pinned", "libtorch_cpu.so (2.13.0)"),
    # a DataLoader worker's error that is not about devices
    (
        "Caught ValueError in DataLoader worker process 0.\nOriginal Traceback (most recent call last):\n"
        '  File "train.py", line 12, in __getitem__\nValueError: too many values to unpack (expected 2)\n',
        "torch/_utils.py, torch/utils/data/_utils/worker.py (2.14.1)",
    ),
]
