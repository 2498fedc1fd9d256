"""errors: the table of families (issue 35): new families with their real wordings, never "not a device error"
for a message that names a device, advice in the order of what is likely, look-alikes kept out, and
docs/error-messages.md generated from the table.

Every wording below says where it was read, next to it: a file of the installed torch (the 2.13.0
CPU wheel, raised live where the CPU can raise it), a library's source at a named commit, or the
public report (its URL) where a learner pasted it. Wordings marked "constructed" are filled in from
a format string read in the source named; they test that a rule generalises beyond one text.
"""

from __future__ import annotations

import ast
import io
from pathlib import Path

import pytest
import torch
from errors_texts import LOOK_ALIKES, WORDINGS
from torch import nn

from course_authoring import error_docs
from course_utils import error_families
from course_utils.errors import explain_device_error

ROOT = Path(__file__).resolve().parents[1]
SITE = Path(torch.__file__).resolve().parents[1]


def caught(action):
    try:
        action()
    except BaseException as exc:  # the test wants the real exception object
        return exc
    raise AssertionError("expected the action to raise")


# --------------------------------------------------------------------------- the new families, as learners paste them

ACCELERATE = "huggingface/accelerate src/accelerate/big_modeling.py at 16cb6eb (1.15.0.dev0)"
BNB = "bitsandbytes-foundation/bitsandbytes bitsandbytes/cextension.py at 95f9af3 (0.50.2.dev0)"

# https://github.com/pytorch/pytorch/issues/92375: an operation failing inside TorchScript (the message as pasted)
TORCHSCRIPT_92375 = (
    "The following operation failed in the TorchScript interpreter.\n"
    "Traceback of TorchScript (most recent call last):\n"
    '  File "/xxxx/python37/lib/python3.7/site-packages/torchvision/models/detection/roi_heads.py", line 466, in '
    "_onnx_paste_masks_in_image_loop\n"
    "    res_append = torch.zeros(0, im_h, im_w)\n"
    "    for i in range(masks.size(0)):\n"
    "        mask_res = _onnx_paste_mask_in_image(masks[i][0], boxes[i], im_h, im_w)\n"
    "                   ~~~~~~~~~~~~~~~~~~~~~~~~~ <--- HERE\n"
    "        mask_res = mask_res.unsqueeze(0)\n"
    "        res_append = torch.cat((res_append, mask_res))\n"
    '  File "/xxx/site-packages/torchvision/models/detection/roi_heads.py", line 430, in _onnx_paste_mask_in_image\n'
    "    zero = torch.zeros(1, dtype=torch.int64)\n"
    "\n"
    "    w = box[2] - box[0] + one\n"
    "        ~~~~~~~~~~~~~~~~~~~~~ <--- HERE\n"
    "    h = box[3] - box[1] + one\n"
    "    w = torch.max(torch.cat((w, one)))\n"
    "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!"
)

# (message, kind, devices, source)
NEW = [
    # --- Apple's MPS beyond placement
    (
        "The operator 'aten::_slow_conv2d_forward' is not currently implemented for the MPS device. If you want this op "
        "to be added in priority during the prototype phase of this feature, please comment on "
        "https://github.com/pytorch/pytorch/issues/77764. As a temporary fix, you can set the environment variable "
        "`PYTORCH_ENABLE_MPS_FALLBACK=1` to use the CPU as a fallback for this op. WARNING: this will be slower than "
        "running natively on MPS.",
        "op-not-on-device",
        ("mps",),
        "https://github.com/pytorch/pytorch/issues/86195",
    ),
    (
        "NotImplementedError: The operator 'aten::_index_put_impl_' is not current implemented for the MPS device. If you "
        "want this op to be added in priority during the prototype phase of this feature, please comment on "
        "https://github.com/pytorch/pytorch/issues/77764. As a temporary fix, you can set the environment variable "
        "`PYTORCH_ENABLE_MPS_FALLBACK=1` to use the CPU as a fallback for this op. WARNING: this will be slower than "
        "running natively on MPS.",
        "op-not-on-device",
        ("mps",),
        "https://github.com/invoke-ai/InvokeAI/pull/232",
    ),
    (
        "MPS backend out of memory (MPS allocated: 7.43 GB, other allocations: 24.46 GB, max allowed: 32.00 GB). Tried to "
        "allocate 129.21 MB on private pool. Use PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.0 to disable upper limit for memory "
        "allocations (may cause system failure).",
        "out-of-memory",
        ("mps",),
        "https://github.com/pytorch/pytorch/issues/96814",
    ),
    (
        "Expected a 'mps:0' generator device but found 'cpu'",
        "generator-device",
        ("mps:0", "cpu"),
        "https://github.com/pytorch/pytorch/issues/110820 (title); the piece \"' generator device but found '\" is in libtorch_cpu.so of 2.13.0",
    ),
    (
        "Trying to convert Float8_e4m3fn to the MPS backend but it does not have support for that dtype.",
        "dtype-unsupported-on-device",
        ("mps",),
        "https://github.com/pytorch/pytorch/issues/148420",
    ),
    # --- AMD's ROCm (HIP)
    (
        "torch.OutOfMemoryError: HIP out of memory. Tried to allocate 1.88 GiB. GPU 0 has a total capacity of 23.98 GiB of "
        "which 1.70 GiB is free. Of the allocated memory 21.65 GiB is allocated by PyTorch, and 279.78 MiB is reserved by "
        "PyTorch but unallocated. If reserved but unallocated memory is large try setting "
        "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory "
        "Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)",
        "out-of-memory",
        ("cuda:0",),
        "https://github.com/Tongyi-MAI/Z-Image/issues/103",
    ),
    (
        "HIP out of memory. Tried to allocate 432.00 MiB. GPU 0 has a total capacity of 15.92 GiB of which 7.12 GiB is "
        "free. Of the allocated memory 8.08 GiB is allocated by PyTorch, and 321.96 MiB is reserved by PyTorch but "
        "unallocated. If reserved but unallocated memory is large try setting PYTORCH_HIP_ALLOC_CONF=expandable_segments:"
        "True to avoid fragmentation.  See documentation for Memory Management  "
        "(https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)",
        "out-of-memory",
        ("cuda:0",),
        "https://github.com/Comfy-Org/ComfyUI/issues/9529",
    ),
    ("HIP error: invalid device function", "gpu-architecture", ("cuda",), "https://github.com/pytorch/pytorch/issues/164346 (title)"),
    (
        "HIP error: Invalid device function\nHIP kernel errors might be asynchronously reported at some other API call, so "
        "the stacktrace below might be incorrect.\nFor debugging consider passing AMD_SERIALIZE_KERNEL=3\nComplie with "
        "'TORCH_USE_HIP_DSA' to enable device-side assertions.",
        "gpu-architecture",
        ("cuda",),
        "https://github.com/ROCm/legacy-rocm-build/issues/5264",
    ),
    # --- Intel's XPU, and device APIs newer than the installed torch
    ("No XPU devices are available", "no-gpu-visible", ("xpu",), "https://github.com/intel/torch-xpu-ops/issues/4787"),
    ("module 'torch' has no attribute 'accelerator'", "old-torch", (), "https://github.com/pytorch/tutorials/issues/3263 (torch 2.5.1)"),
    # --- torch.compile and autocast
    (
        "Unhandled FakeTensor Device Propagation for aten.mm.default, found two different devices cuda:0, cpu",
        "mixed-devices",
        ("cuda:0", "cpu"),
        "https://github.com/pytorch/pytorch/issues/119665",
    ),
    (
        "Unhandled FakeTensor Device Propagation for aten.copy_.default, found two different devices cpu, cuda:0",
        "mixed-devices",
        ("cpu", "cuda:0"),
        "https://github.com/pytorch/pytorch/pull/106172",
    ),
    (
        "RuntimeError: Unhandled FakeTensor Device Propagation for torchvision.deform_conv2d.default, found two different devices cuda:0, cpu",
        "mixed-devices",
        ("cuda:0", "cpu"),
        "https://github.com/pytorch/TensorRT/issues/3556",
    ),
    (
        "Found NVIDIA GeForce GTX 1080 which is too old to be supported by the triton GPU compiler, which is used as the "
        "backend. Triton only supports devices of CUDA Capability >= 7.0, but your device is of CUDA capability 6.1",
        "compile-gpu-too-old",
        ("cuda",),
        "https://github.com/karpathy/nanoGPT/issues/157; torch/_inductor/exc.py (2.13.0)",
    ),
    (
        "User specified an unsupported autocast device_type 'cuda:0'",
        "autocast-device-type",
        ("cuda:0",),
        "https://github.com/XPixelGroup/DiffBIR/issues/26",
    ),
    (
        "User specified an unsupported autocast device_type '0'",
        "autocast-device-type",
        (),
        "https://github.com/speechbrain/speechbrain/issues/2881",
    ),
    (
        "Current CUDA Device does not support bfloat16. Please switch dtype to float16.",
        "dtype-unsupported-on-device",
        ("cuda",),
        "https://github.com/karpathy/nanoGPT/pull/277; torch/amp/autocast_mode.py (2.13.0)",
    ),
    # --- libraries around PyTorch
    (
        "`.to` is not supported for `4-bit` or `8-bit` bitsandbytes models. Please use the model as it is, since the model "
        "has already been set to the correct devices and casted to the correct `dtype`.",
        "library-placement",
        (),
        "https://github.com/huggingface/transformers/issues/38717",
    ),
    (
        ".to is not supported for 4-bit or 8-bit models. Please use the model as it is, since the model has already been "
        "set to the correct devices and casted to the correct dtype",
        "library-placement",
        (),
        "https://github.com/huggingface/transformers/issues/29303 (title; transformers 4.31.0)",
    ),
    ("You can't move a model that has some modules offloaded to cpu or disk.", "library-placement", ("cpu",), ACCELERATE),
    (
        "The current `device_map` had weights offloaded to the disk. Please provide an `offload_folder` for them. "
        "Alternatively, make sure you have `safetensors` installed if the model you are using offers the weights in this "
        "format.",
        "offload-folder",
        (),
        "https://github.com/haotian-liu/LLaVA/issues/1553",
    ),
    (
        "We need an `offload_dir` to dispatch this model according to this `device_map`, the following submodules need to "
        "be offloaded: model.layers.30, lm_head.",
        "offload-folder",
        (),
        "constructed: " + ACCELERATE + " (its f-string)",
    ),
    (
        "Some modules are dispatched on the CPU or the disk. Make sure you have enough GPU RAM to fit the quantized model. "
        "If you want to dispatch the model on the CPU or the disk while keeping these modules in 32-bit, you need to set "
        "`llm_int8_enable_fp32_cpu_offload=True` and pass a custom `device_map` to `from_pretrained`. Check "
        "https://huggingface.co/docs/transformers/main/en/main_classes/quantization#offload-between-cpu-and-gpu for more "
        "details.",
        "offload-quantized",
        ("cpu",),
        "https://github.com/unslothai/unsloth/issues/1629",
    ),
    (
        "The installed version of bitsandbytes was compiled without GPU support. 8-bit optimizers, 8-bit multiplication, "
        "and GPU quantization are unavailable.",
        "library-no-gpu",
        ("cuda",),
        "https://github.com/bitsandbytes-foundation/bitsandbytes/issues/719",
    ),
    (
        "Method 'cadam32bit_grad_fp32' not available in CPU-only version of bitsandbytes.\nReinstall with GPU support or "
        "use CUDA-enabled hardware.",
        "library-no-gpu",
        ("cuda",),
        "constructed: " + BNB + " (its f-string)",
    ),
    (
        "RuntimeError: Failed to infer device type",
        "no-gpu-visible",
        (),
        "https://github.com/vllm-project/vllm/issues/12847 (vllm/config.py, per https://github.com/ai-dynamo/dynamo/issues/391)",
    ),
    # --- distributed training
    (
        "ValueError: DistributedDataParallel device_ids and output_device arguments only work with single-device/multiple-"
        "device GPU modules or CPU modules, but got device_ids [0], output_device 0, and module parameters "
        "{device(type='cpu')}.",
        "ddp-device",
        ("cpu",),
        "https://github.com/pytorch/pytorch/issues/100243",
    ),
    (
        "[rank7]: ValueError: DistributedDataParallel device_ids and output_device arguments only work with "
        "single-device/multiple-device GPU modules or CPU modules, but got device_ids [7], output_device None, and module "
        "parameters {device(type='cpu')}.",
        "ddp-device",
        ("cpu",),
        "https://github.com/ultralytics/ultralytics/pull/15701 (DDP on a CPU-only Mac)",
    ),
    (
        "ValueError: DistributedDataParallel device_ids and output_device arguments only work with single-device/multiple-"
        "device GPU modules or CPU modules, but got device_ids [1], output_device 1, and module parameters "
        "{device(type='cuda', index=0), \ndevice(type='cuda', index=1)}.",
        "ddp-device",
        ("cuda:0", "cuda:1"),
        "https://github.com/chenyiwan/chatglm-6b-fine-tuning/issues/11 (a model split over two GPUs)",
    ),
    (
        "DistributedDataParallel device_ids and output_device arguments only work with single-device CUDA modules, but got device_ids 1",
        "ddp-device",
        ("cuda",),
        "https://github.com/pytorch/pytorch/issues/46821 (the 1.x wording)",
    ),
    (
        "RuntimeError: ProcessGroupNCCL is only supported with GPUs, no GPUs found!",
        "nccl-without-gpu",
        ("cuda",),
        "https://github.com/meta-llama/codellama/issues/125",
    ),
    # --- cuBLAS and cuDNN
    (
        "RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasSgemm( handle, opa, opb, m, n, k, "
        "&alpha, a, lda, b, ldb, &beta, c, ldc)`",
        "cuda-library-failure",
        ("cuda",),
        "https://github.com/seeyourmind/TKGElib/issues/9",
    ),
    (
        "CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasGemmEx( handle, opa, opb, m, n, k, &falpha, a, "
        "CUDA_R_16F, lda, b, CUDA_R_16F, ldb, &fbeta, c, CUDA_R_16F, ldc, CUDA_R_32F, CUBLAS_GEMM_DFALT_TENSOR_OP)`",
        "cuda-library-failure",
        ("cuda",),
        "https://github.com/SevaSk/ecoute/issues/121",
    ),
    ("cuDNN error: CUDNN_STATUS_EXECUTION_FAILED", "cuda-library-failure", ("cuda",), "https://github.com/pytorch/examples/issues/729"),
    # --- any other CUDA error, as 2.13+ prints those that are not asynchronous (no tail), and as 0.x printed them
    ("RuntimeError: CUDA error: unspecified launch failure", "cuda-error", ("cuda",), "https://github.com/CSUBioGroup/PGMG/issues/3"),
    (
        "RuntimeError: cuda runtime error (4) : unspecified launch failure at /home/ubuntu/pytorch/torch/lib/THC/THCTensorCopy.cu:85",
        "cuda-error",
        ("cuda",),
        "https://github.com/pytorch/pytorch/issues/2567",
    ),
    # --- the driver older than the build's CUDA (c10/cuda/CUDAFunctions.cpp), as pasted
    (
        "RuntimeError: The NVIDIA driver on your system is too old (found version 11040). Please update your GPU driver "
        "by downloading and installing a new version from the URL: http://www.nvidia.com/Download/index.aspx "
        "Alternatively, go to: https://pytorch.org to install a PyTorch version that has been compiled with your version "
        "of the CUDA driver.",
        "driver-too-old",
        ("cuda",),
        "https://github.com/lllyasviel/Fooocus/issues/1313",
    ),
    # --- W2 (issue 34): the release wordings of a bad index, read in the 2.13.0 CPU wheel (also raised live below)
    ("Device index must not be negative", "malformed-device-index", (), "libtorch_python.so of 2.13.0"),
    ("Invalid device string: 'cuda:-2'", "malformed-device-index", ("cuda",), "libc10.so of 2.13.0"),
    # --- the generalisation probe: real wordings the table had not seen, each missed or misread before its row
    (
        "RuntimeError: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling "
        "NumCudaDevices() that might have already set an error? Error 804: forward compatibility was attempted on non "
        "supported HW",
        "no-gpu-visible",
        ("cuda",),
        "https://github.com/chenfei-wu/TaskMatrix/issues/379",
    ),
    (
        "RuntimeError: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling "
        "NumCudaDevices() that might have already set an error? Error 802: system not yet initialized",
        "no-gpu-visible",
        ("cuda",),
        "https://github.com/haotian-liu/LLaVA/issues/683",
    ),
    (
        "UserWarning: CUDA initialization: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions "
        "before calling NumCudaDevices() that might have already set an error? Error 804: forward compatibility was "
        "attempted on non supported HW (Triggered internally at ../c10/cuda/CUDAFunctions.cpp:109.)",
        "no-gpu-visible",
        ("cuda",),
        "https://github.com/PKU-YuanGroup/Video-LLaVA/issues/22",
    ),
    (
        "CUDA call failed lazily at initialization with error: device >= 0 && device < num_gpus INTERNAL ASSERT FAILED at "
        '"../aten/src/ATen/cuda/CUDAContext.cpp":50, please report a bug to PyTorch. device=, num_gpus=',
        "invalid-device-ordinal",
        ("cuda",),
        "https://github.com/xorbitsai/inference/issues/1439",
    ),
    (
        "RuntimeError: CUDA error: all CUDA-capable devices are busy or unavailable",
        "gpu-busy-or-unavailable",
        ("cuda",),
        "https://github.com/facebookresearch/detectron2/issues/2580",
    ),
    (
        "RuntimeError: cuda runtime error (46) : all CUDA-capable devices are busy or unavailable at "
        "/opt/conda/conda-bld/pytorch_1502004572321/work/torch/lib/THC/generic/THCStorage.cu:66",
        "gpu-busy-or-unavailable",
        ("cuda",),
        "https://github.com/pytorch/pytorch/issues/2704 (the 0.x wording)",
    ),
    (
        "RuntimeError: CUDA error: CUDA-capable device(s) is/are busy or unavailable\nCUDA kernel errors might be "
        "asynchronously reported at some other API call, so the stacktrace below might be incorrect.\nFor debugging "
        "consider passing CUDA_LAUNCH_BLOCKING=1\nCompile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.",
        "gpu-busy-or-unavailable",
        ("cuda",),
        "https://github.com/cositools/cosipy/issues/631",
    ),
    (
        "RuntimeError: Torch is not able to use GPU; add --skip-torch-cuda-test to COMMANDLINE_ARGS variable to disable this check",
        "no-gpu-visible",
        ("cuda",),
        "https://github.com/AUTOMATIC1111/stable-diffusion-webui/issues/14617",
    ),
    (
        "AssertionError: Torch is not able to use GPU; add --skip-torch-cuda-test to COMMANDLINE_ARGS variable to disable this check",
        "no-gpu-visible",
        ("cuda",),
        "https://github.com/yftzeng/stable-diffusion-webui-docker/issues/5",
    ),
    (
        "ValueError: You can't train a model that has been loaded in 8-bit precision on a different device than the one "
        "you're training on. Make sure you loaded the model on the correct device using for example "
        "`device_map={'':torch.cuda.current_device() or device_map={'':torch.xpu.current_device()}`",
        "library-placement",
        (),
        "https://github.com/yangjianxin1/Firefly/issues/256",
    ),
    (
        "ValueError: You can't train a model that has been loaded in 8-bit precision on multiple devices.",
        "library-placement",
        (),
        "https://github.com/huggingface/peft/issues/414",
    ),
    (
        "RuntimeError: Need to provide pin_memory allocator to use pin memory.",
        "no-accelerator",
        (),
        "https://github.com/pytorch/pytorch/issues/159740",
    ),
    (
        "ValueError: Expected a torch.device with a specified index or an integer, but got:cuda",
        "malformed-device-index",
        ("cuda",),
        "https://github.com/vllm-project/vllm/issues/14500 (vllm 0.7.4.dev on ROCm)",
    ),
    (
        "RuntimeError:module must have its parameters and buffers on device cuda:0(device_ids[0])but found one of them on device :cuda:1",
        "mixed-devices",
        ("cuda:0", "cuda:1"),
        "https://github.com/open-mmlab/mmdetection/issues/2632 (the spaces lost as pasted)",
    ),
    (
        "RuntimeError: Failed running call_function <built-in function add>(*(FakeTensor(..., device='foo:0', size=(4, "
        "4)), FakeTensor(..., device='foo:0', size=(4, 4))), **{}):\ntensor device should be privateuse1",
        "unrecognised-device-message",
        ("privateuse1",),
        "https://github.com/pytorch/pytorch/issues/101326",
    ),
    (
        "UserWarning: In CPU autocast, but the target dtype is not supported. Disabling autocast.\nCPU Autocast only "
        "supports dtype of torch.bfloat16 currently.",
        "dtype-unsupported-on-device",
        ("cpu",),
        "https://github.com/modelscope/FunASR/issues/264",
    ),
    (
        "RuntimeError: Currently, AutocastCPU only support Bfloat16 as the autocast_cpu_dtype",
        "dtype-unsupported-on-device",
        ("cpu",),
        "https://github.com/lllyasviel/Fooocus/issues/759",
    ),
    (
        "RuntimeError: \n        CUDA Setup failed despite GPU being available. Please run the following command to get "
        "more information:\n\n        python -m bitsandbytes\n\n        Inspect the output of the command and see if you "
        "can locate CUDA libraries. You might need to add them\n        to your LD_LIBRARY_PATH. If you suspect a bug, "
        "please take the information from python -m bitsandbytes\n        and open an issue at: "
        "https://github.com/TimDettmers/bitsandbytes/issues",
        "library-no-gpu",
        ("cuda",),
        "https://github.com/bitsandbytes-foundation/bitsandbytes/issues/828",
    ),
    # --- the probe's real wordings the table already read right, kept so that the new rows cannot take them
    (
        "[rank5]: RuntimeError: CUDA error: invalid device ordinal\n[rank5]: CUDA kernel errors might be asynchronously "
        "reported at some other API call, so the stacktrace below might be incorrect.\n[rank5]: For debugging consider "
        "passing CUDA_LAUNCH_BLOCKING=1.\n[rank5]: Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.",
        "invalid-device-ordinal",
        (),
        "https://github.com/NovaSearch-Team/RAG-Retrieval/issues/27",
    ),
    (
        "RuntimeError: No backend type associated with device type cpu",
        "collective-device",
        ("cpu",),
        "https://github.com/THUDM/SwissArmyTransformer/issues/173",
    ),
    (
        "RuntimeError: No backend type associated with device type npu",
        "collective-device",
        ("npu",),
        "https://github.com/ray-project/ray/issues/50516",
    ),
    (
        "RuntimeError: Tensors must be CUDA and dense",
        "collective-device",
        ("cuda",),
        "https://github.com/pytorch/examples/issues/1030 (torch 1.8.2 and 1.12.0)",
    ),
    (
        "RuntimeError: cuda runtime error (35) : CUDA driver version is insufficient for CUDA runtime version at "
        "/opt/conda/conda-bld/pytorch_1524586445097/work/aten/src/THC/THCGeneral.cpp:70",
        "driver-too-old",
        ("cuda",),
        "https://github.com/BobLiu20/YOLOv3_PyTorch/issues/12",
    ),
    (
        "RuntimeError: CUDA error: CUDA driver version is insufficient for CUDA runtime version",
        "driver-too-old",
        ("cuda",),
        "https://github.com/nagadomi/nunif/issues/702",
    ),
    (
        "RuntimeError: Expected a 'cpu' device type for generator but found 'cuda'",
        "generator-device",
        ("cpu", "cuda"),
        "https://github.com/zhang-can/CoLA/issues/10",
    ),
    (
        "NotImplementedError: Could not run 'torchvision::nms' with arguments from the 'CUDA' backend. This could be "
        "because the operator doesn't exist for this backend, or was omitted during the selective/custom build process (if "
        "using custom build). 'torchvision::nms' is only available for these backends: [CPU, Meta, QuantizedCPU, "
        "BackendSelect, Python].",
        "op-not-on-device",
        ("cuda",),
        "https://github.com/nicofdga/DZ-FaceDetailer/issues/21 (the backend list shortened)",
    ),
    # --- the second probe (real wordings it had not seen): misread before, or called 'not a device error'
    (
        "RuntimeError: Input, output and indices must be on the current device",
        "mixed-devices",
        ("cuda",),
        "https://github.com/huggingface/transformers/issues/9229 (input_ids.to(device) not assigned)",
    ),
    (
        "RuntimeError: Expected object of type Variable[torch.FloatTensor] but found type Variable[torch.cuda.FloatTensor] "
        "for argument #1 'mat2'",
        "mixed-devices",
        ("cpu", "cuda"),
        "https://github.com/pytorch/pytorch/issues/9869 (0.4)",
    ),
    (
        "RuntimeError: cuDNN error: CUDNN_STATUS_NOT_SUPPORTED. This error may appear if you passed in a non-contiguous input.",
        "cuda-library-failure",
        ("cuda",),
        "https://github.com/pppLang/SKNet/issues/14",
    ),
    (
        "RuntimeError: \"addmm_impl_cpu_\" not implemented for 'Half'",
        "dtype-unsupported-on-device",
        ("cpu",),
        "https://github.com/huggingface/transformers/issues/27769",
    ),
    (
        "\"slow_conv2d_cpu\" not implemented for 'Half'",
        "dtype-unsupported-on-device",
        ("cpu",),
        "https://github.com/zai-org/VisualGLM-6B/issues/30",
    ),
    (
        "RuntimeError: Could not run 'aten::empty_strided' with arguments from the 'QuantizedCUDA' backend.",
        "op-not-on-device",
        ("cuda",),
        "https://github.com/pytorch/serve/issues/984",
    ),
    (
        "RuntimeError: PyTorch is not linked with support for xpu devices",
        "backend-not-in-build",
        ("xpu",),
        "https://github.com/intel/intel-extension-for-pytorch/issues/392",
    ),
    (
        "RuntimeError: Expected a 'cuda:0' generator device but found 'cuda'",
        "generator-device",
        ("cuda:0", "cuda"),
        "https://github.com/pytorch/pytorch/issues/58545 (torch 1.8.0)",
    ),
    (
        "RuntimeError: CUDA error: initialization error",
        "forked-subprocess",
        ("cuda",),
        "https://github.com/pytorch/pytorch/issues/21092 (torch 1.1.0, a CUDA default tensor type with DataLoader workers)",
    ),
    (
        "THCudaCheck FAIL file=/pytorch/aten/src/THC/THCGeneral.cpp line=50 error=3 : initialization error",
        "forked-subprocess",
        ("cuda",),
        "https://github.com/pytorch/pytorch/issues/33754 (pin_memory in a worker)",
    ),
    (
        "RuntimeError: CUDA error (3): initialization error",
        "forked-subprocess",
        ("cuda",),
        "https://github.com/filipradenovic/cnnimageretrieval-pytorch/issues/21 (title; DataLoader workers)",
    ),
    (
        "RuntimeError: CUDNN_STATUS_NOT_SUPPORTED. This error may appear if you passed in a non-contiguous input.",
        "cuda-library-failure",
        ("cuda",),
        "https://github.com/pytorch/pytorch/issues/8934 (title; pytorch 0.4)",
    ),
    (
        "UserWarning: Constant folding in symbolic shape inference fails: Expected all tensors to be on the same device, "
        "but found at least two devices, cpu and cuda:0! (when checking argument for argument index in method "
        "wrapper_CUDA__index_select) (Triggered internally at ../torch/csrc/jit/passes/onnx/shape_type_inference.cpp:439.)",
        "mixed-devices",
        ("cpu", "cuda:0"),
        "https://github.com/pytorch/pytorch/issues/102947 (torch 2.0.0+cu118)",
    ),
    (
        "libc++abi: terminating with uncaught exception of type c10::TypeError: Trying to convert ComplexFloat to the MPS "
        "backend but it does not have support for that dtype.",
        "dtype-unsupported-on-device",
        ("mps",),
        "https://github.com/pytorch/pytorch/issues/95976",
    ),
    # --- the second probe: unrecognised before (the generic fallback), each now a row of its own
    (
        "hipErrorNoBinaryForGpu: Unable to find code object for all current devices!",
        "gpu-architecture",
        ("cuda",),
        "https://github.com/l1na-forever/stable-diffusion-rocm-docker/issues/1 (torch 1.12.1+rocm5.1.1)",
    ),
    (
        "MPS does not support cumsum op with int64 input",
        "dtype-unsupported-on-device",
        ("mps",),
        "https://github.com/pytorch/pytorch/issues/141786",
    ),
    (
        "skipping cudagraphs due to skipping cudagraphs due to cpu device (arg3_1)",
        "compile-cudagraphs-skipped",
        ("cpu",),
        "https://github.com/inclusionAI/dInfer/issues/38",
    ),
    (
        "WARNING torchinductor.compile_fx: skipping cudagraphs due to multple devices",
        "compile-cudagraphs-skipped",
        ("cuda",),
        "https://github.com/pytorch/torchdynamo/issues/748",
    ),
    (
        "RuntimeError: NCCL error in: /pytorch/torch/lib/c10d/ProcessGroupNCCL.cpp:825, invalid usage, NCCL version "
        "2.7.8\nncclInvalidUsage: This usually reflects invalid usage of NCCL library (such as too many async ops, too "
        "many collectives at once, mixing streams in a group, etc).",
        "nccl-invalid-usage",
        ("cuda",),
        "https://github.com/facebookresearch/swav/issues/61",
    ),
    (
        "UserWarning: You are calling .generate() with the `input_ids` being on a device type different than your "
        "model's device. `input_ids` is on cuda, whereas the model is on cpu. You may experience unexpected behaviors or "
        "slower generation. Please make sure that you have put `input_ids` to the correct device by calling for example "
        "input_ids = input_ids.to('cpu') before running `.generate()`.",
        "mixed-devices",
        ("cuda", "cpu"),
        "https://github.com/smthemex/ComfyUI_YuE/issues/30",
    ),
    (
        "RuntimeError: FSDP needs a non-CPU accelerator device, but no accelerator device is detected.",
        "no-accelerator",
        (),
        "https://github.com/Lightning-AI/pytorch-lightning/issues/21778",
    ),
    (
        "RuntimeError: An FSDP-managed module with parameter CPU offloading enabled has parameters on cuda:0. Make sure to "
        "not move the module from CPU when offloading parameters.",
        "ddp-device",
        ("cuda:0", "cpu"),
        "https://github.com/NVIDIA-NeMo/Speech/issues/9531",
    ),
    (
        "inconsistent compute device and'device_id ' on rank 3: cuda:0 vs cuda:3",
        "ddp-device",
        ("cuda:0", "cuda:3"),
        "https://github.com/h2oai/h2ogpt/issues/671 (as pasted)",
    ),
    (
        "RuntimeError: randperm is only implemented for CPU",
        "op-not-on-device",
        ("cuda",),
        "https://github.com/pytorch/pytorch/issues/6874 (0.5.0a0)",
    ),
    (
        "MisconfigurationException: No supported gpu backend found!",
        "no-gpu-visible",
        ("cuda",),
        "https://github.com/Lightning-AI/pytorch-lightning/issues/15254 (lightning 1.7.7)",
    ),
    (
        "pytorch_lightning.utilities.exceptions.MisconfigurationException: MPSAccelerator can not run on your system since "
        "the accelerator is not available. The following accelerator(s) is available and can be passed into `accelerator` "
        "argument of `Trainer`: ['cpu'].",
        "no-gpu-visible",
        ("mps",),
        "https://github.com/Lightning-AI/pytorch-lightning/issues/14634",
    ),
    (
        "UserWarning: The operator 'aten::bitwise_and.Tensor_out' is not currently supported on the MPS backend and will "
        "fall back to run on the CPU. This may have performance implications. (Triggered internally at  "
        "/Users/runner/work/_temp/anaconda/conda-bld/pytorch_1659484780698/work/aten/src/ATen/mps/MPSFallback.mm:11.)",
        "op-fallback",
        ("mps", "cpu"),
        "https://github.com/pytorch/pytorch/issues/83015 (torch 1.12.1)",
    ),
    # --- the second probe: one allocation larger than the whole GPU, read as an ordinary OOM before
    (
        "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 55.57 GiB. GPU 0 has a total capacty of 12.00 "
        "GiB of which 9.02 GiB is free. Of the allocated memory 984.52 MiB is allocated by PyTorch, and 463.48 MiB is "
        "reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting max_split_size_mb to "
        "avoid fragmentation.  See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF",
        "out-of-memory",
        ("cuda:0",),
        "https://github.com/wxian3/NeuroLens/issues/2",
    ),
    (
        "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 10.73 GiB (GPU 0; 8.00 GiB total capacity; "
        "17.20 GiB already allocated; 0 bytes free; 19.15 GiB reserved in total by PyTorch) If reserved memory is >> "
        "allocated memory try setting max_split_size_mb to avoid fragmentation.  See documentation for Memory Management "
        "and PYTORCH_CUDA_ALLOC_CONF",
        "out-of-memory",
        ("cuda:0",),
        "https://github.com/YingqianWang/iPASSR/issues/9",
    ),
    # --- the second probe's real wordings the table already read right, kept so that the new rows cannot take them
    (
        "RuntimeError: Expected all tensors to be on the same device, but got tensors is on cuda:0, different from other "
        "tensors on cpu (when checking argument in method wrapper_CUDA_cat)",
        "mixed-devices",
        ("cuda:0", "cpu"),
        "https://github.com/TransformerLensOrg/TransformerLens/pull/1509",
    ),
    (
        "RuntimeError: Expected object of type torch.FloatTensor but found type torch.cuda.FloatTensor for argument #2 'source'",
        "mixed-devices",
        ("cpu", "cuda"),
        "https://github.com/phybrain/efficientdensenet_crnn/issues/2",
    ),
    (
        "RuntimeError: CUDA error: CUBLAS_STATUS_NOT_INITIALIZED when calling `cublasCreate(handle)`",
        "cuda-library-failure",
        ("cuda",),
        "https://github.com/OpenBMB/VisCPM/issues/3 (torch 1.13.1)",
    ),
    (
        "Could not run '_C::ggml_dequantize' with arguments from the 'CUDA' backend. This could be because the operator "
        "doesn't exist for this backend, or was omitted during the selective/custom build process (if using custom "
        "build).",
        "op-not-on-device",
        ("cuda",),
        "https://github.com/davidbrowne17/csm-streaming/issues/31",
    ),
    (
        "TypeError: Cannot convert a MPS Tensor to float64 dtype as the MPS framework doesn't support float64. Please use float32 instead.",
        "mps-float64",
        ("mps",),
        "https://github.com/thu-ml/tianshou/pull/1237 (torch 2.1.1, 2.5.1)",
    ),
    (
        "NotImplementedError: Cannot copy out of meta tensor; no data! Please use torch.nn.Module.to_empty() instead of "
        "torch.nn.Module.to() when moving module from meta to a different device.",
        "meta-has-no-data",
        ("meta",),
        "https://github.com/1038lab/ComfyUI-QwenVL/issues/53",
    ),
    (
        "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 32.00 MiB. GPU 0 has a total capacty of 4.00 "
        "GiB of which 41.56 MiB is free. Including non-PyTorch memory, this process has 3.44 GiB memory in use.",
        "out-of-memory",
        ("cuda:0",),
        "https://github.com/Synthintel0/MyGirlGPT/issues/11 (shortened)",
    ),
    (
        "RuntimeError: Attempting to deserialize object on CUDA device 2 but torch.cuda.device_count() is 1. Please use "
        "torch.load with map_location to map your storages to an existing device.",
        "checkpoint-device-unavailable",
        ("cuda:2",),
        "https://github.com/computationalmedia/semstyle/issues/3",
    ),
    (
        "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cpu and cuda:0! "
        "(when checking argument for argument weight in method wrapper___slow_conv2d_forward)",
        "mixed-devices",
        ("cpu", "cuda:0"),
        "https://github.com/pytorch/pytorch/issues/84847 (torch 1.11.0+cu102, in torch.onnx.export)",
    ),
    # --- third probe (Q&A pages and library issues): distributed, CUDA graphs, safetensors, extension builds
    (
        "[rank0]:[W1028 04:48:19.843866299 ProcessGroupNCCL.cpp:4115] [PG ID 0 PG GUID 0 Rank 0]  using GPU 0 to perform "
        "barrier as devices used by this process are currently unknown. This can potentially cause a hang if this rank to "
        "GPU mapping is incorrect.Specify device_ids in barrier() to force use of a particular device,or call "
        "init_process_group() with a device_id.",
        "barrier-device-guess",
        ("cuda:0",),
        "https://github.com/bmaltais/kohya_ss/issues/2933",
    ),
    (
        "[W404 00:15:21.693690333 ProcessGroupNCCL.cpp:4561] [PG ID 0 PG GUID 0 Rank 0]  using GPU 0 to perform barrier "
        "as devices used by this process are currently unknown. This can potentially cause a hang if this rank to GPU "
        "mapping is incorrect. Specify device_ids in barrier() to force use of a particular device, or call "
        "init_process_group() with a device_id.",
        "barrier-device-guess",
        ("cuda:0",),
        "https://github.com/deepspeedai/DeepSpeed/pull/7266",
    ),
    (
        "RuntimeError: CUDA error: operation not permitted when stream is capturing",
        "cuda-graph-capture",
        ("cuda",),
        "https://github.com/NVlabs/cuHPX/issues/11",
    ),
    (
        "Exception: Capture cuda graph failed: CUDA error: capturing stream has unjoined work",
        "cuda-graph-capture",
        ("cuda",),
        "https://github.com/deepseek-ai/DeepEP/issues/62",
    ),
    (
        "Error[1]: [executionContext.cpp::handleTrainStationRunnerPhase1::146] Error Code 1: Cuda Runtime (operation not "
        "permitted when stream is capturing)",
        "cuda-graph-capture",
        ("cuda",),
        "https://github.com/NVIDIA/TensorRT/issues/3011",
    ),
    (
        "CUDA failure 900: operation not permitted when stream is capturing ;\n  expr=cudaGraphLaunch(graph_exec, stream_);",
        "cuda-graph-capture",
        ("cuda",),
        "https://github.com/microsoft/onnxruntime/pull/32081",
    ),
    (
        "CUDA error: misaligned address\nCUDA kernel errors might be asynchronously reported at some other API call, so "
        "the stacktrace below might be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1.\nCompile with "
        "`TORCH_USE_CUDA_DSA` to enable device-side assertions.",
        "misaligned-address",
        ("cuda",),
        "https://github.com/deepspeedai/DeepSpeedExamples/issues/530",
    ),
    (
        "CUDA Error: misaligned address (716) /code/gemv/include/attention/prefill.cuh: line 1918 at function "
        "cudaLaunchKernel((void*)kernel, nblks, nthrs, args, smem_size, stream)",
        "misaligned-address",
        ("cuda",),
        "https://github.com/efeslab/Nanoflow/issues/23",
    ),
    (
        "/opt/conda/lib/python3.10/site-packages/torch/cuda/__init__.py:546: UserWarning: Can't initialize NVML\n  "
        'warnings.warn("Can\'t initialize NVML")',
        "nvml-init",
        ("cuda",),
        "https://github.com/pytorch/pytorch/issues/109098 (torch 2.0.1+cu117)",
    ),
    (
        "root@gpu-worker-35:/# nvidia-smi Failed to initialize NVML: Unknown Error",
        "nvml-init",
        ("cuda",),
        "https://github.com/pytorch/pytorch/issues/109098 (a comment)",
    ),
    (
        "torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised:\nAssertionError: Device mps not supported",
        "compile-device-unsupported",
        ("mps",),
        "https://github.com/MIC-DKFZ/nnUNet/issues/2244",
    ),
    (
        "RuntimeError: Check failed: xtensor: Input tensor is not an XLA tensor: CPUFloatType",
        "mixed-devices",
        ("xla", "cpu"),
        "https://github.com/tenstorrent/tt-xla/issues/3335",
    ),
    (
        "c:\\programdata\\anaconda\\lib\\site-packages\\torch\\cuda\\amp\\autocast_mode.py:120: UserWarning: "
        "torch.cuda.amp.autocast only affects CUDA ops, but CUDA is not av",
        "amp-disabled",
        ("cuda",),
        "https://github.com/lucidrains/deep-daze/issues/173 (1.x wording; the report's excerpt ends there)",
    ),
    ("Exception: device cpu is invalid", "safetensors-device", ("cpu",), "https://github.com/AUTOMATIC1111/stable-diffusion-webui/issues/6890"),
    (
        "safetensors_rust.SafetensorError: device mps:0 is invalid",
        "safetensors-device",
        ("mps:0",),
        "https://github.com/safetensors/safetensors/issues/674 (safetensors 0.6.2, torch 2.7.0)",
    ),
    (
        "safetensors_rust.SafetensorError: device cuda:0 is invalid",
        "safetensors-device",
        ("cuda:0",),
        "https://github.com/Wan-Video/Wan2.2/issues/117",
    ),
    (
        "OSError: CUDA_HOME environment variable is not set. Please set it to your CUDA install root.",
        "cuda-home-unset",
        ("cuda",),
        "https://github.com/facebookresearch/votenet/issues/2",
    ),
    (
        "cannot convert CUDA tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory first",
        "numpy-needs-cpu",
        ("cuda",),
        "https://github.com/meteorshowers/X-StereoLab/issues/28 (torch 0.x/1.x wording)",
    ),
    (
        "RuntimeError: Invalid device string: '0'",
        "malformed-device-index",
        (),
        "https://github.com/safetensors/safetensors/issues/625 (safetensors 0.6.0rc0, torch 2.6.0+cu124)",
    ),
    # --- third probe, batch 3: judged right before (regression) or given the rows above
    (
        "AssertionError: Unknown c10d backend type CUDA:NCCL",
        "distributed-backend-name",
        ("cuda",),
        "https://github.com/pytorch/pytorch/issues/159200",
    ),
    (
        "RuntimeError: cuDNN error: CUDNN_STATUS_INTERNAL_ERROR",
        "cuda-library-failure",
        ("cuda",),
        "https://github.com/pytorch/pytorch/issues/16831",
    ),
    (
        "RuntimeError: CUDNN_STATUS_INTERNAL_ERROR",
        "cuda-library-failure",
        ("cuda",),
        "https://github.com/pytorch/pytorch/issues/1504 (0.x wording)",
    ),
    (
        "RuntimeError: CuDNN error: CUDNN_STATUS_INTERNAL_ERROR",
        "cuda-library-failure",
        ("cuda",),
        "https://github.com/hugochan/BAMnet/issues/3 (torch 0.4.1)",
    ),
    (
        "RuntimeError: Tensor on device cuda:0 is not on the expected device meta!",
        "mixed-devices",
        ("cuda:0", "meta"),
        "https://github.com/meta-pytorch/opacus/issues/737",
    ),
    (
        "RuntimeError: Invalid device string: 'cuda:cuda:0'",
        "malformed-device-index",
        ("cuda",),
        "https://github.com/samsledje/ConPLex/issues/34",
    ),
    ("Error CUDA error: invalid device ordinal", "invalid-device-ordinal", (), "https://github.com/dg1kjd/dualmind-plus-one/issues/3"),
    (
        "RuntimeError: Expected object of device type cuda but got device type cpu for argument #3 'index' in call to _th_index_select",
        "mixed-devices",
        ("cuda", "cpu"),
        "https://github.com/SamLynnEvans/Transformer/issues/24",
    ),
    (
        "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, xpu:0 and cpu!",
        "mixed-devices",
        ("xpu:0", "cpu"),
        "https://github.com/intel/intel-xpu-backend-for-triton/pull/7053",
    ),
    (
        "RuntimeError: Input and hidden tensors are not at the same device, found input tensor at cuda:1 and hidden tensor at cuda:0",
        "mixed-devices",
        ("cuda:1", "cuda:0"),
        "https://github.com/pytorch/pytorch/issues/46580",
    ),
    (
        "The following operation failed in the TorchScript interpreter.\nTraceback of TorchScript (most recent call "
        "last):\n/work/asr_language_model/decoder/src/debug.py(5): forward\nRuntimeError: Expected all tensors to be on "
        "the same device, but found at least two devices, cuda:0 and cpu!",
        "mixed-devices",
        ("cuda:0", "cpu"),
        "https://github.com/pytorch/pytorch/issues/43767 (a traced randn_like; shortened)",
    ),
    (
        "C:\\Users\\balha\\AppData\\Roaming\\Python\\Python39\\site-packages\\torch\\cuda\\amp\\grad_scaler.py:116: "
        "UserWarning: torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.",
        "amp-disabled",
        ("cuda",),
        "https://github.com/lucidrains/deep-daze/issues/138",
    ),
    (
        "RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasGemmEx( handle, opa, opb, m, n, k, "
        "&falpha, a, CUDA_R_16F, lda, b, CUDA_R_16F, ldb, &fbeta, c, CUDA_R_16F, ldc, CUDA_R_32F, "
        "CUBLAS_GEMM_DFALT_TENSOR_OP)`",
        "cuda-library-failure",
        ("cuda",),
        "https://github.com/isl-org/DPT/issues/4 (CUDA 10.2)",
    ),
    (
        "RuntimeError: cannot pin 'torch.cuda.LongTensor' only dense CPU tensors can be pinned",
        "pin-needs-cpu",
        ("cuda",),
        "https://github.com/DavidWBressler/GCNN/issues/2",
    ),
    # --- third probe, batch 4: audio, torchvision, and cross-device wordings judged right before
    (
        "RuntimeError: stft input and window must be on the same device but got self on cpu and window on cuda",
        "mixed-devices",
        ("cpu", "cuda"),
        "https://github.com/2noise/ChatTTS/issues/741 (torchaudio MelSpectrogram)",
    ),
    (
        "RuntimeError: stft input and window must be on the same device but got self on cuda:1 and window on cuda:0",
        "mixed-devices",
        ("cuda:1", "cuda:0"),
        "https://github.com/moiseshorta/MelSpecVAE/issues/5",
    ),
    (
        "RuntimeError: rois.device().is_cpu() ASSERT FAILED at /vision/torchvision/csrc/cpu/ROIAlign_cpu.cpp:386",
        "mixed-devices",
        ("cpu",),
        "https://github.com/pytorch/pytorch/issues/40756",
    ),
    (
        "Expected object of backend CUDA but got backend CPU for argument #2 'other'",
        "mixed-devices",
        ("cuda", "cpu"),
        "https://github.com/pytorch/audio/issues/310 (torchaudio 0.3 kaldi fbank)",
    ),
    (
        "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:2 and cuda:0!",
        "mixed-devices",
        ("cuda:2", "cuda:0"),
        "https://github.com/fcjian/TOOD/issues/8",
    ),
    (
        "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cpu and cuda:0! "
        "(when checking argument for argument tensors in method wrapper___cat)",
        "mixed-devices",
        ("cpu", "cuda:0"),
        "https://github.com/phil-bergmann/tracking_wo_bnw/issues/172",
    ),
    (
        "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cpu and cuda:0! "
        "(when checking argument for argument mat1 in method wrapper_addmm)",
        "mixed-devices",
        ("cpu", "cuda:0"),
        "https://github.com/Mikubill/sd-webui-controlnet/issues/498",
    ),
    # --- third probe, batch 5: building CUDA extensions, a device index
    (
        "RuntimeError: The detected CUDA version (11.8) mismatches the version that was used to compile PyTorch (12.4). "
        "Please make sure to use the same CUDA versions.",
        "cuda-toolkit-mismatch",
        ("cuda",),
        "https://github.com/icip-cas/AutoAlign/issues/25",
    ),
    (
        "RuntimeError:\nThe detected CUDA version (12.1) mismatches the version that was used to compile PyTorch (11.3)."
        "\nPlease make sure to use the same CUDA versions.",
        "cuda-toolkit-mismatch",
        ("cuda",),
        "https://github.com/boschresearch/DroidCalib/issues/5",
    ),
    (
        "No CUDA runtime is found, using CUDA_HOME='/usr/local/cuda'",
        "cuda-runtime-not-found",
        ("cuda",),
        "https://github.com/open-mmlab/mmdetection/issues/6404",
    ),
    (
        "No CUDA runtime is found, using CUDA_HOME='C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v11.8'",
        "cuda-runtime-not-found",
        ("cuda",),
        "https://github.com/graphdeco-inria/gaussian-splatting/issues/748",
    ),
    (
        "RuntimeError: The device index is out of range. It must be in [0, 1), but got -1.",
        "invalid-device-ordinal",
        (),
        "https://github.com/pytorch/pytorch/issues/181140 (torch 2.11.0+xpu, from_dlpack(device='xpu'))",
    ),
    (
        "RuntimeError: Mesh should not be bigger than default world size, but found 9 ranks!",
        "device-mesh-size",
        (),
        "https://github.com/pytorch/pytorch/issues/111452 (torch 1.13.1+cu116)",
    ),
    # --- fourth probe: a device type torch has no module for, DLPack's pinned memory, CUDA headers, TorchScript
    (
        "AttributeError: 'NoneType' object has no attribute 'current_device'",
        "device-mesh-type",
        (),
        "https://github.com/pytorch/pytorch/issues/124327 (init_device_mesh('cuda:0', ...) then FSDP2)",
    ),
    (
        "KeyError: <DLDeviceType.kDLCPUPinned: 3>",
        "dlpack-device",
        ("cpu",),
        "https://github.com/jax-ml/jax/issues/22346 (jax 0.4.28, jax.dlpack.from_dlpack of a pinned torch tensor)",
    ),
    (
        "/home/rebot/anaconda3/envs/cwt_DeepLearning/lib/python3.7/site-packages/torch/include/c10/cuda/CUDAStream.h:6:10: "
        "fatal error: cuda_runtime_api.h: 没有那个文件或目录",
        "cuda-headers-missing",
        ("cuda",),
        "https://github.com/Yuliang-Liu/Box_Discretization_Network/issues/41",
    ),
    (
        "/shared/shelley/khashab2/nexus/env3.6/lib/python3.6/site-packages/torch/lib/include/ATen/cuda/CUDAStream.h:6:30: "
        "fatal error: cuda_runtime_api.h: No such file or directory",
        "cuda-headers-missing",
        ("cuda",),
        "https://github.com/ctongfei/nexus/issues/27",
    ),
    (
        "c:\\anaconda2\\envs\\python3\\lib\\site-packages\\torch\\lib\\include\\thc\\THCGeneral.h(12): fatal error C1083: "
        "can not open or include such file: \u201ccuda.h\u201d: No such file or directory",
        "cuda-headers-missing",
        ("cuda",),
        "https://github.com/pytorch/pytorch/issues/8329 (Windows, torch 0.4.0)",
    ),
    (
        TORCHSCRIPT_92375,
        "mixed-devices",
        ("cuda:0", "cpu"),
        "https://github.com/pytorch/pytorch/issues/92375 (torch 1.12)",
    ),
    # --- fourth probe, further real wordings: vLLM, Lightning, torch_xla and TPUs, bitsandbytes, DeepSpeed, torch.compile
    (
        "RuntimeError: No supported device detected.",
        "no-gpu-visible",
        ("cuda",),
        "https://github.com/OpenRLHF/OpenRLHF/issues/233 (vllm 0.3.2 in a Ray actor, tensor_parallel_size > 1)",
    ),
    (
        "Exception in worker VllmWorkerProcess while processing method init_device: CUDA error: invalid device ordinal",
        "invalid-device-ordinal",
        (),
        "https://github.com/vllm-project/vllm/issues/8984 (title)",
    ),
    (
        "pytorch_lightning.utilities.exceptions.MisconfigurationException: TPUAccelerator can not run on your system since "
        "the accelerator is not available. The following accelerator(s) is available and can be passed into `accelerator` "
        "argument of `Trainer`: ['cpu'].",
        "no-accelerator",
        ("xla",),
        "https://github.com/jbohnslav/deepethogram/issues/119 (a machine with an NVIDIA GPU)",
    ),
    (
        "MisconfigurationException: GPUAccelerator can not run on your system since the accelerator is not available. The "
        "following accelerator(s) is available and can be passed into `accelerator` argument of `Trainer`: ['cpu'].",
        "no-gpu-visible",
        ("cuda",),
        "https://github.com/open-edge-platform/anomalib/issues/510",
    ),
    (
        "pytorch_lightning.utilities.exceptions.MisconfigurationException: You requested GPUs: [1]\n But your machine only has: []",
        "invalid-device-ordinal",
        ("cuda",),
        "https://github.com/AntixK/PyTorch-VAE/issues/81 (Lightning 1.x)",
    ),
    (
        "Input tensor is not an XLA tensor: torch.FloatTensor",
        "mixed-devices",
        ("xla", "cpu"),
        "https://github.com/pytorch/xla/issues/8532",
    ),
    (
        "RuntimeError: Bad StatusOr access: UNKNOWN: TPU initialization failed: Invalid "
        "--2a886c8_slice_builder_worker_addresses specified. Expected 4 worker addresses, got 1.",
        "tpu-init",
        ("xla",),
        "https://github.com/Lightning-AI/pytorch-lightning/issues/20244 (Kaggle TPU, torch-xla 2.4.0)",
    ),
    (
        "Failed to get global TPU topology.",
        "tpu-init",
        ("xla",),
        "https://github.com/vllm-project/vllm/issues/16243 (title)",
    ),
    (
        "Calling `to()` is not supported for `4-bit` quantized models with the installed version of bitsandbytes. The "
        "current device is `cuda:0`. If you intended to move the model, please install bitsandbytes",
        "library-placement",
        ("cuda:0",),
        "https://github.com/huggingface/transformers/issues/35442 (title, cut there)",
    ),
    (
        "ValueError: Expected a cuda device, but got: cpu",
        "not-a-cuda-device",
        ("cpu",),
        "https://github.com/hiyouga/LlamaFactory/issues/1797 (4-bit inference)",
    ),
    (
        "deepspeed.ops.op_builder.builder.MissingCUDAException: CUDA_HOME does not exist, unable to compile CUDA op(s)",
        "cuda-home-unset",
        ("cuda",),
        "https://github.com/whittle-org/whittle/issues/153",
    ),
    (
        "AssertionError: CUDA_HOME does not exist, unable to compile CUDA op(s)",
        "cuda-home-unset",
        ("cuda",),
        "https://github.com/deepspeedai/DeepSpeed/issues/1279 (DeepSpeedCPUAdam on a CPU-only workstation)",
    ),
    (
        "RuntimeError: Unhandled FakeTensor Device Propagation for aten.where.self, found two different devices cuda:0, cpu",
        "mixed-devices",
        ("cuda:0", "cpu"),
        "https://github.com/pytorch/TensorRT/issues/3280",
    ),
    (
        "RuntimeError: Unhandled FakeTensor Device Propagation for aten.mul.Tensor, found two different devices cuda:0, cuda:7",
        "mixed-devices",
        ("cuda:0", "cuda:7"),
        "https://github.com/pytorch/pytorch/issues/97749 (a minifier repro made on cuda:7)",
    ),
    (
        "/opt/conda/lib/python3.9/site-packages/torch/cuda/graphs.py:82: UserWarning: The CUDA Graph is empty. This "
        "ususally means that the graph was attempted to be captured on wrong device or stream. (Triggered internally at "
        "/fsx/pytorch-nightly/pytorch-2.0/pytorch/aten/src/ATen/cuda/CUDAGraph.cpp:191.)",
        "cuda-graph-empty",
        ("cuda",),
        "https://github.com/pytorch/pytorch/issues/93378 (a 2.0 nightly, fairseq under DDP with torch.compile)",
    ),
    (
        "RuntimeError: FlashAttention only supports Ampere GPUs or newer.",
        "gpu-architecture",
        ("cuda",),
        "https://github.com/Dao-AILab/flash-attention/issues/762 (Quadro RTX 5000)",
    ),
    (
        "RuntimeError: Error in model execution (input dumped to /tmp/err_execute_model_input_20250111-130939.pkl): "
        "FlashAttention only supports Ampere GPUs or newer.",
        "gpu-architecture",
        ("cuda",),
        "https://github.com/vllm-project/vllm/issues/8189",
    ),
    (
        "RuntimeError: 0 active drivers ([]). There should only be one.",
        "no-gpu-visible",
        ("cuda",),
        "https://github.com/deepseek-ai/DeepSeek-R1/issues/493 (DeepSeek-V3's Triton kernels without a GPU)",
    ),
    (
        "[Usage]: Triton is installed but 0 active driver(s) found (expected 1). Disabling Triton to prevent runtime errors.",
        "no-gpu-visible",
        ("cuda",),
        "https://github.com/SystemPanic/vllm-windows/issues/60 (title)",
    ),
    (
        "C:\\Users\\ramalhais\\AppData\\Local\\Programs\\Python\\Python312\\Lib\\site-packages\\torch\\cuda\\__init__.py:1113: "
        "UserWarning: cudaGetDeviceCount() returned cudaErrorNotSupported, likely using older driver or on CPU machine "
        "(Triggered internally at C:\\actions-runner\\_work\\pytorch\\pytorch\\pytorch\\c10\\cuda\\CUDAFunctions.cpp:88.)",
        "driver-too-old",
        ("cuda",),
        "https://github.com/SystemPanic/vllm-windows/issues/60 (the terminal's line breaks joined)",
    ),
    (
        "C:\\Jenkins\\Miniconda3\\envs\\py311\\Lib\\site-packages\\torch\\cuda\\__init__.py:182: UserWarning: "
        "cudaGetDeviceCount() returned cudaErrorNotSupported, likely running on CPU machine (Triggered internally at "
        "C:\\actions-runner\\_work\\pytorch\\pytorch\\pytorch\\c10\\cuda\\CUDAFunctions.cpp:86.)",
        "driver-too-old",
        ("cuda",),
        "https://github.com/pytorch/pytorch/pull/162412 (a CUDA 13 build on a CPU machine)",
    ),
    (
        "ValueError: You can't train a model that has been loaded with `device_map='auto'` in any distributed mode. Please "
        "rerun your script specifying `--num_processes=1` or by launching with `python {{myscript.py}}`.",
        "device-map-distributed",
        ("cuda",),
        "https://github.com/FreedomIntelligence/HuatuoGPT-II/issues/32 (still raised with --num_processes 1)",
    ),
    (
        "RuntimeError: Blockwise quantization only supports 16/32-bit floats, but got torch.uint8",
        "library-placement",
        (),
        "https://github.com/bitsandbytes-foundation/bitsandbytes/issues/1664 (bitsandbytes 0.46.0, Params4bit.to)",
    ),
    (
        "RuntimeError: Unhandled FakeTensor Device Propagation for aten.embedding.default, found two different devices cpu, cuda:0",
        "mixed-devices",
        ("cpu", "cuda:0"),
        "https://github.com/pytorch/pytorch/issues/153056 (torch.export of a module moved inside forward)",
    ),
    (
        "torch.AcceleratorError: HIP error: invalid device function\nSearch for `hipErrorInvalidDeviceFunction' in "
        "https://docs.nvidia.com/cuda/cuda-runtime-api/group__HIPRT__TYPES.html for more information.\nHIP kernel errors "
        "might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\nFor "
        "debugging consider passing AMD_SERIALIZE_KERNEL=3\nCompile with `TORCH_USE_HIP_DSA` to enable device-side "
        "assertions.",
        "gpu-architecture",
        ("cuda",),
        "https://github.com/pytorch/pytorch/issues/164346 (a ROCm 7.0 nightly)",
    ),
    (
        "hipErrorNoBinaryForGpu: Coudn't find binary for current devices!",
        "gpu-architecture",
        ("cuda",),
        "https://github.com/pytorch/pytorch/issues/53738 (torch 1.8.0+rocm4.0.1 on an RX 470, gfx803)",
    ),
    (
        "[rank4]: RuntimeError: CUDA error: invalid device ordinal",
        "invalid-device-ordinal",
        (),
        "https://github.com/XLabs-AI/x-flux/issues/44 (accelerate with DeepSpeed, more ranks than GPUs)",
    ),
    # --- fifth probe: Inductor before MPS support, 'mps' in an old torch, ROCm without a GPU
    (
        "BackendCompilerFailed: debug_wrapper raised AssertionError: Torch not compiled with CUDA enabled",
        "compile-device-unsupported",
        (),
        "https://github.com/pytorch/pytorch/issues/96976 (torch 2.0.0 on macOS, torch.set_default_device('mps'))",
    ),
    (
        "RuntimeError: Expected one of cpu, cuda, xpu, mkldnn, opengl, opencl, ideep, hip, ve, ort, mlc, xla, lazy, vulkan, "
        "meta, hpu device type at start of device string: mps",
        "old-torch",
        ("mps",),
        "https://github.com/Sanster/IOPaint/issues/230 (torch 1.10.1+cu113 on Linux)",
    ),
    (
        "HIP error: hipErrorNoDevice",
        "no-gpu-visible",
        ("cuda",),
        "https://github.com/ROCm/legacy-rocm-build/issues/1666 (title, cut before the container's name; torch 1.9.0, ROCm 4.2)",
    ),
    (
        "RuntimeError: HIP error: no kernel image is available for execution on the device",
        "gpu-architecture",
        ("cuda",),
        "https://github.com/ROCm/legacy-rocm-build/issues/4728 (title)",
    ),
    # --- fifth probe: sparse and quantized tensors on the GPU, tracing and exporting, Torch-TensorRT, diffusers
    (
        "RuntimeError: Could not run 'aten::sum.dim_IntList' with arguments from the 'SparseCUDA' backend. "
        "'aten::sum.dim_IntList' is only available for these backends: [CPU, CUDA, BackendSelect, Named, AutogradOther, "
        "AutogradCPU, AutogradCUDA, AutogradXLA, AutogradPrivateUse1, AutogradPrivateUse2, AutogradPrivateUse3, Tracer, "
        "Autocast, Batched, VmapMode].",
        "op-not-on-device",
        ("cuda",),
        "https://github.com/TianxiangZhao/GraphSmote/issues/2 (torch 1.7.0)",
    ),
    (
        "RuntimeError: Could not run 'aten::nonzero' with arguments from the 'SparseCUDA' backend. 'aten::nonzero' is only "
        "available for these backends: [CPU, CUDA, Autograd, Profiler, Tracer].",
        "op-not-on-device",
        ("cuda",),
        "https://github.com/bindog/pytorch-model-parallel/issues/3 (torch 1.6)",
    ),
    (
        "RuntimeError: Could not run 'aten::gt.Scalar' with arguments from the 'SparseCUDATensorId' backend. "
        "'aten::gt.Scalar' is only available for these backends: [CPUTensorId, CUDATensorId, QuantizedCPUTensorId, "
        "VariableTensorId].",
        "op-not-on-device",
        ("cuda",),
        "https://github.com/diegoantognini/pyGAT/issues/38 (torch 1.5; the pasted line's closing quote left out)",
    ),
    (
        "RuntimeError: Could not run 'quantized::conv2d_prepack' with arguments from the 'UNKNOWN_TENSOR_TYPE_ID' backend. "
        "'quantized::conv2d_prepack' is only available for these backends: [QuantizedCPU].",
        "op-not-on-device",
        ("cuda",),
        "https://github.com/pytorch/pytorch/issues/42288 (torch 1.6.0, a quantized MobileNetV2 with --use_gpu)",
    ),
    (
        "torch._subclasses.fake_tensor.MetadataMismatchError: Devices cpu and cuda:0 are not equal! (_scaled_dot_product_flash_attention)",
        "mixed-devices",
        ("cpu", "cuda:0"),
        "https://github.com/pytorch/TensorRT/issues/3408 (title)",
    ),
    (
        "RuntimeError: [Error thrown at core/runtime/execute_engine.cpp:132] Expected inputs[i].is_cuda() to be true but "
        "got false Expected input tensors to have device cuda, found device cpu",
        "mixed-devices",
        ("cuda", "cpu"),
        "https://github.com/pytorch/TensorRT/issues/2744 (title)",
    ),
    (
        "ONNX: export failure: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and "
        "cpu! (when checking argument for argument index in method wrapper__index_select)",
        "mixed-devices",
        ("cuda:0", "cpu"),
        "https://github.com/WongKinYiu/yolov7/issues/1005 (title; YOLOv7's export.py prefixes 'ONNX: export failure')",
    ),
    (
        "RuntimeError: Input type (torch.cuda.FloatTensor) and weight type (torch.FloatTensor) should be the sam",
        "mixed-devices",
        ("cuda", "cpu"),
        "https://github.com/pytorch/audio/issues/1619 (torchaudio 0.9 Resample not moved to the GPU; the paste cut the last letter)",
    ),
    (
        "RuntimeError: `enable_model_cpu_offload` requires accelerator, but not found",
        "no-accelerator",
        (),
        "https://github.com/VectorSpaceLab/OmniGen2/issues/41 (torch 2.6.0 on Windows, accelerate 1.8.1 installed)",
    ),
    (
        "Compilation failed: Dynamo failed to run FX node with fake tensors: call_function <built-in function iadd>"
        "(*(FakeTensor(..., size=(2,)), FakeTensor(..., device='meta', size=(2,))), **{}): got "
        "RuntimeError('Unhandled FakeTensor Device Propagation for aten.add_.Tensor, found two different devices cpu, "
        "meta')",
        "mixed-devices",
        ("cpu", "meta"),
        "https://github.com/pytorch/pytorch/issues/166626 (torch 2.7.1; 'Compilation failed: ' is the reporter's print)",
    ),
    (
        "TypeError: Trying to convert ComplexDouble to the MPS backend but it does not have support for that dtype.",
        "dtype-unsupported-on-device",
        ("mps",),
        "https://github.com/orchidas/DiffGFDN/issues/3",
    ),
    (
        "libc++abi: terminating due to uncaught exception of type c10::TypeError: Trying to convert ComplexFloat to the "
        "MPS backend but it does not have support for that dtype.",
        "dtype-unsupported-on-device",
        ("mps",),
        "https://github.com/pytorch/pytorch/issues/78044 (torch.randn(..., device='mps', dtype=torch.cfloat))",
    ),
    (
        "RuntimeError: CUDA error: invalid configuration argument",
        "cuda-error",
        ("cuda",),
        "https://github.com/pytorch/pytorch/issues/63069 (backward of a sparse CUDA parameter)",
    ),
    (
        "Expected all tensors to be on the same device, but got boundaries is on cpu, different from other tensors on "
        "cuda:0 (when checking argument in method wrapper_CUDA_Tensor_bucketize)",
        "mixed-devices",
        ("cpu", "cuda:0"),
        "https://github.com/docling-project/docling-serve/pull/316",
    ),
    (
        "RuntimeError: module must have its parameters and buffers on device cuda:0 (device_ids[0]) but found one of them on device: cuda:1",
        "mixed-devices",
        ("cuda:0", "cuda:1"),
        "https://github.com/replicate/cog/issues/971 (torch.cuda.set_device('cuda:1') did not help)",
    ),
    # --- fifth probe: DDP given several GPUs, .to() given a list of devices
    (
        "device_ids can only be None or contain a single element",
        "ddp-device",
        ("cuda",),
        "https://github.com/pytorch/examples/issues/936 (DDP(model, device_ids) in the DDP example's README)",
    ),
    (
        "to() received an invalid combination of arguments - got (list), but expected one of:\n"
        " * (torch.device device = None, torch.dtype dtype = None, bool non_blocking = False, bool copy = False, *, "
        "torch.memory_format memory_format = None)\n"
        " * (torch.dtype dtype, bool non_blocking = False, bool copy = False, *, torch.memory_format memory_format = None)\n"
        " * (Tensor tensor, bool non_blocking = False, bool copy = False, *, torch.memory_format memory_format = None)",
        "bad-device-string",
        (),
        "https://github.com/huggingface/sentence-transformers/issues/3511 (encode(device=['cpu', 'cpu']), 4.1.0)",
    ),
    # --- fifth probe, PyTorch forums: a cut list of backends, THC's two GPUs of 0.2
    (
        "'aten::_slow_conv2d_forward' is only available for these backends: SparseCPU \u2026 \u2026",
        "op-not-on-device",
        (),
        "https://discuss.pytorch.org/t/automatic-fallback-to-cpu/152189 (MPS, 1.12 nightly; the poster cut the message at both ends)",
    ),
    (
        "RuntimeError: tensors are on different GPUs",
        "mixed-devices",
        ("cuda",),
        "https://discuss.pytorch.org/t/about-cvpr-best-paper-whats-matters-need-attention-when-dealing-with-nn-"
        "dataparallel/5155 (the memory-efficient DenseNet under nn.DataParallel, torch 0.2)",
    ),
    (
        "RuntimeError: PyTorch is not linked with support for mps devices",
        "backend-not-in-build",
        ("mps",),
        "https://github.com/jankais3r/LLaMA_MPS/issues/6 (torch 1.13.1+cu117 on Linux; fifth probe, read right before)",
    ),
    # --- sixth probe: the messages learners hit most, in their wordings across releases (GitHub issues)
    (
        "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cpu "
        "and cuda:0! (when checking argument for argument mat2 in method wrapper_CUDA_mm)",
        "mixed-devices",
        ("cpu", "cuda:0"),
        "https://github.com/rotem-shalev/Ham2Pose/pull/6",
    ),
    (
        "RuntimeError: Input and hidden tensors are not at the same device, found input tensor at cuda:0 and hidden tensor at CPU",
        "mixed-devices",
        ("cuda:0", "cpu"),
        "https://github.com/talipucar/CPC/issues/1 (the description's quote of the message, 'CPU' as written "
        "there; the traceback below it is cut)",
    ),
    (
        "RuntimeError: Tensor for 'out' is on CPU, Tensor for argument #1 'self' is on CPU, but expected "
        "them to be on GPU (while checking arguments for addmm)",
        "mixed-devices",
        ("cuda", "cpu"),
        "https://github.com/something678/TodKat/issues/4",
    ),
    (
        "RuntimeError: Tensor for argument #3 'mat2' is on CPU, but expected it to be on GPU (while checking arguments for addmm)",
        "mixed-devices",
        ("cuda", "cpu"),
        "https://github.com/iPERDance/iPERCore/issues/70",
    ),
    (
        "RuntimeError: Expected object of device type cuda but got device type cpu for argument #2 'mat1' in call to _th_addmm",
        "mixed-devices",
        ("cuda", "cpu"),
        "https://github.com/diegoalejogm/gans/issues/12",
    ),
    (
        "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:1 "
        "and cuda:0! (when checking argument for argument target in method wrapper_CUDA_nll_loss_forward)",
        "mixed-devices",
        ("cuda:1", "cuda:0"),
        "https://github.com/shuxueslpi/chatGLM-6B-QLoRA/issues/38",
    ),
    (
        "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 "
        "and cpu! (when checking arugment for argument target in method wrapper_nll_loss_forward)",
        "mixed-devices",
        ("cuda:0", "cpu"),
        "https://github.com/JieyuZ2/wrench/issues/4 (1.9's wording, its typo 'arugment' included)",
    ),
    (
        "Expected all tensors to be on the same device, but found at least two devices, cuda:1 and cuda:0! "
        "(when checking argument for argument tensors in method wrapper_CUDA_cat)",
        "mixed-devices",
        ("cuda:1", "cuda:0"),
        "https://github.com/BorealisAI/scaleformer/issues/5",
    ),
    ("RuntimeError: Expected `value` to be on same device as `a`", "mixed-devices", (), "https://github.com/pytorch/pytorch/issues/124693"),
    (
        "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu! "
        "(when checking argument for argument mat2 in method wrapper_CUDA_bmm)",
        "mixed-devices",
        ("cuda:0", "cpu"),
        "https://github.com/kijai/ComfyUI-BrushNet-Wrapper/issues/11",
    ),
    (
        "RuntimeError: Expected condition, x and y to be on the same device, but condition is on cuda:0 and "
        "x and y are on cuda:0 and CPU respectively",
        "mixed-devices",
        ("cuda:0", "cpu"),
        "https://github.com/akarasman/yolo-heatmaps/issues/13",
    ),
    (
        "Input and parameter tensors are not at the same device, found input tensor at cuda:0 and parameter tensor at cpu",
        "mixed-devices",
        ("cuda:0", "cpu"),
        "https://github.com/jianchang512/clone-voice/issues/91",
    ),
    (
        "RuntimeError:  :expected tensor for argument #1 'input' to have the same device as tensor for argument #2 'weight",
        "mixed-devices",
        ("cuda",),
        "https://github.com/nshaud/DeepHyperX/issues/54 (the body; the paste cut the closing quote) (the "
        "body; 'RuntimeError:  :' as pasted, the paste cut after 'weight)",
    ),
    (
        "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:1 "
        "and cuda:0! (when checking argument for argument weight in method wrapper__cudnn_convolution)",
        "mixed-devices",
        ("cuda:1", "cuda:0"),
        "https://github.com/zhiheLu/CWT-for-FSS/issues/12",
    ),
    (
        "RuntimeError： Trying to deserialize object on CUDA device 1 but torch.cuda.device_count（） is 1",
        "checkpoint-device-unavailable",
        ("cuda:1",),
        "https://github.com/Saoge123/PocketFlow/issues/3 (title and body as the reporter wrote it: 'Trying' "
        "for 'Attempting', full-width colon and parentheses)",
    ),
    (
        "Attempting to deserialize object on CUDA device 3 but torch.cuda.device_count() is 1. Please use "
        "torch.load with map_location to map your storages to an existing device",
        "checkpoint-device-unavailable",
        ("cuda:3",),
        "https://github.com/bcmi/Object-Shadow-Generation-Dataset-DESOBAv2/issues/18",
    ),
    (
        "RuntimeError: Expected tensor for argument #1 'input' to have the same device as tensor for "
        "argument #2 'weight'; but device 1 does not equal 0 (while checking arguments for cudnn_convolution)",
        "mixed-devices",
        ("cuda:0", "cuda:1"),
        "https://github.com/Cadene/pretrained-models.pytorch/issues/196",
    ),
    (
        "RuntimeError: Expected tensor for argument #1 'input' to have the same device as tensor for "
        "argument #2 'weight'; but device 0 does not equal 3 (while checking arguments for cudnn_convolution)",
        "mixed-devices",
        ("cuda:3", "cuda:0"),
        "https://github.com/eriklindernoren/PyTorch-YOLOv3/issues/568",
    ),
    (
        "RuntimeError:Expected tensor for argument #1 'input' to have the same device as tensor for argument "
        "#2 'weight' ; but device 1 does not equal 0 (while checking arguments for cudnn_convolution)",
        "mixed-devices",
        ("cuda:0", "cuda:1"),
        "https://github.com/xiadingZ/video-caption.pytorch/issues/43 (the space before ';' and after 'RuntimeError:' as pasted)",
    ),
    (
        "TypeError: can't convert cuda device type tensor to numpy",
        "numpy-needs-cpu",
        ("cuda",),
        "https://github.com/chflame163/ComfyUI_FaceSimilarity/issues/10 (title)",
    ),
    (
        "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.39 GiB (GPU 0; 6.00 GiB total "
        "capacity; 4.04 GiB already allocated; 478.00 MiB free; 4.15 GiB reserved in total by PyTorch) If "
        "reserved memory is >> allocated memory try setting max_split_size_mb to avoid fragmentation.  See "
        "documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF",
        "out-of-memory",
        ("cuda:0",),
        "https://github.com/CompVis/taming-transformers/issues/194",
    ),
    (
        "CUDA out of memory. Tried to allocate 2.93 GiB (GPU 0; 23.80 GiB total capacity; 12.04 GiB already "
        "allocated; 2.82 GiB free; 19.69 GiB reserved in total by Pytorch) If reserved memory is >> "
        "allocated memory try setting max_split_size_mb to avoid fragmentation. See documentation for Memory "
        "Management and PYTORCH_CUDA_ALLOC_CONF",
        "out-of-memory",
        ("cuda:0",),
        "https://github.com/mlverse/torch/issues/1222 (R torch 0.13.0, libtorch; 'Pytorch' as pasted) (R "
        "torch 0.13.0 on libtorch; 'Pytorch' as pasted)",
    ),
    (
        "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.70 GiB. GPU 0 has a total "
        "capacty of 6.00 GiB of which 0 bytes is free. Of the allocated memory 2.93 GiB is allocated by "
        "PyTorch, and 2.30 GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is "
        "large try setting max_split_size_mb to avoid fragmentation.  See documentation for Memory "
        "Management and PYTORCH_CUDA_ALLOC_CONF",
        "out-of-memory",
        ("cuda:0",),
        "https://github.com/carolchenyx/MGFN./issues/35",
    ),
    (
        "RuntimeError: CUDA out of memory. Tried to allocate 130674.91 GiB (GPU 0; 79.15 GiB total capacity; "
        "27.53 GiB already allocated; 37.61 GiB free; 28.21 GiB reserved in total by PyTorch) If reserved "
        "memory is >> allocated memory try setting max_split_size_mb to avoid fragmentation.  See "
        "documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF",
        "out-of-memory",
        ("cuda:0",),
        "https://github.com/Kunhao-Liu/StyleGaussian/issues/11",
    ),
    (
        "RuntimeError: CuDNN error: CUDNN_STATUS_MAPPING_ERROR",
        "cuda-library-failure",
        ("cuda",),
        "https://github.com/gpgpu-sim/pytorch-gpgpu-sim/issues/11",
    ),
    ("RuntimeError: CUDNN_STATUS_MAPPING_ERROR", "cuda-library-failure", ("cuda",), "https://github.com/daitao/SAN/issues/43"),
    (
        "RuntimeError: cuDNN error: CUDNN_STATUS_MAPPING_ERROR",
        "cuda-library-failure",
        ("cuda",),
        "https://github.com/pytorch/pytorch/issues/27588",
    ),
    (
        "[rank7]: torch.distributed.DistBackendError: NCCL error in: "
        "../torch/csrc/distributed/c10d/NCCLUtils.hpp:275, unhandled cuda error (run with NCCL_DEBUG=INFO "
        "for details), NCCL version 2.20.5\n[rank7]: ncclUnhandledCudaError: Call to CUDA function "
        "failed.\n[rank7]: Last error:\n[rank7]: Cuda failure 1 'invalid argument'",
        "nccl-unhandled-cuda",
        ("cuda",),
        "https://github.com/NVIDIA/nccl/issues/1410 (four of the rank's lines, as pasted)",
    ),
    (
        "RuntimeError: NCCL error in: /pytorch/torch/lib/c10d/ProcessGroupNCCL.cpp:32, unhandled cuda error, NCCL version 2.4.8",
        "nccl-unhandled-cuda",
        ("cuda",),
        "https://github.com/fanq15/FewX/issues/74",
    ),
    (
        "terminate called after throwing an instance of 'std::runtime_error'\n  what():  NCCL Error 1: unhandled cuda error",
        "nccl-unhandled-cuda",
        ("cuda",),
        "https://github.com/linjieli222/VQA_ReGAT/issues/41 (the paste's two lines, 'Aborted (core dumped)' left out)",
    ),
    (
        "UserWarning: CUDA initialization: CUDA unknown error - this may be due to an incorrectly set up "
        "environment, e.g. changing env variable CUDA_VISIBLE_DEVICES after program start. Setting the "
        "available devices to be zero. (Triggered internally at "
        "/opt/conda/conda-bld/pytorch_1670525539683/work/c10/cuda/CUDAFunctions.cpp:109.) return "
        "torch._C._cuda_getDeviceCount() > 0",
        "no-gpu-visible",
        ("cuda",),
        "https://github.com/interaction-lab/BlossomNav/issues/4 (the warning and the line after it joined on one line, as pasted)",
    ),
    (
        "RuntimeError: CUDA unknown error - this may be due to an incorrectly set up environment, e.g. "
        "changing env variable CUDA_VISIBLE_DEVICES after program start. Setting the available devices to be "
        "zero.",
        "no-gpu-visible",
        ("cuda",),
        "https://github.com/replicate/cog-svd/issues/11",
    ),
    (
        "RuntimeError: Expected all tensors to be on the same device, but found at least two devices (when "
        "checking argument for argument index in method wrapper_CUDA__index_select)",
        "mixed-devices",
        (),
        "https://github.com/yaojin17/Unlearning_LLM/issues/7 (as the reporter pasted it, the two device names left out)",
    ),
    (
        "[BUG] RuntimeErrorExpected all tensors to be on the same device, but found at least two devices, cuda:2 and cuda:1!",
        "mixed-devices",
        ("cuda:2", "cuda:1"),
        "https://github.com/QwenLM/Qwen/issues/920 (title; 'RuntimeError' and the message run together)",
    ),
    (
        "RuntimeError: The NVIDIA driver on your system is too old (found version 10010). Please update you",
        "driver-too-old",
        ("cuda",),
        "https://github.com/RangiLyu/nanodet/issues/216 (title, cut)",
    ),
    (
        "AssertionError: The NVIDIA driver on your system is too old (found version 10000).",
        "driver-too-old",
        ("cuda",),
        "https://github.com/hhaAndroid/mmdetection-mini/issues/30 (title)",
    ),
    (
        "UserWarning: CUDA initialization: The NVIDIA driver on your system is too old (found version "
        "11000). Please update your GPU driver by downloading and installing a new version from the URL: "
        "http://www.nvidia.com/Download/index.aspx Alternatively, go to: https://pytorch.org to install a "
        "PyTorch version that has been compiled with your version of the CUDA driver. (Triggered internally "
        "at /opt/pytorch/pytorch/c10/cuda/CUDAFunctions.cpp:108.)",
        "driver-too-old",
        ("cuda",),
        "https://github.com/IEIT-Yuan/Yuan-2.0/issues/65",
    ),
    (
        "RuntimeError: Cannot re-initialize CUDA in forked subprocess. To use CUDA with multiprocessing, you "
        "must use the \\'spawn\\' start method",
        "forked-subprocess",
        ("cuda",),
        "https://github.com/IDEA-Research/GroundingDINO/issues/276 (the quotes escaped as pasted)",
    ),
    # --- sixth probe, second round: 1.0-1.6 wordings, wrappers around the message (ComfyUI, TorchSharp)
    (
        "!!! Exception during processing !!! Expected all tensors to be on the same device, but got index is "
        "on cuda:0, different from other tensors on cpu (when checking argument in method "
        "wrapper_CUDA__index_select)",
        "mixed-devices",
        ("cuda:0", "cpu"),
        "https://github.com/gitmylo/ComfyUI-audio-nodes/issues/2 (ComfyUI's '!!! Exception during processing !!!' prefix)",
    ),
    (
        "System.Runtime.InteropServices.ExternalException : 'Expected all tensors to be on the same device, "
        "but found at least two devices, cpu and cuda:0! (when checking argument for argument index in "
        "method wrapper__index_select)\nException raised from common_device_check_failure at "
        "C:\\actions-runner\\_work\\pytorch\\pytorch\\builder\\windows\\pytorch\\aten\\src\\ATen\\core\\adaption.cpp:10 "
        "(most recent call first):",
        "mixed-devices",
        ("cpu", "cuda:0"),
        "https://github.com/dotnet/TorchSharp/issues/639 (TorchSharp; the first two lines, the C++ frames left out)",
    ),
    (
        "RuntimeError: Expected object of backend CUDA but got backend CPU for argument #2 'weight'",
        "mixed-devices",
        ("cuda", "cpu"),
        "https://github.com/hkzhang-git/HiNAS/issues/3",
    ),
    (
        "RuntimeError: Expected object of backend CPU but got backend CUDA for argument #2 'weight'",
        "mixed-devices",
        ("cpu", "cuda"),
        "https://github.com/ondyari/FaceForensics/issues/25",
    ),
    (
        "RuntimeError: Expected object of backend CUDA but got backend CPU for argument #2 'mat2'",
        "mixed-devices",
        ("cuda", "cpu"),
        "https://github.com/Xiangyu-CAS/AICity2020-VOC-ReID/issues/1",
    ),
    (
        "RuntimeError: Expected object of backend CUDA but got backend CPU for argument #3 'index'",
        "mixed-devices",
        ("cuda", "cpu"),
        "https://github.com/akanimax/T2F/issues/13",
    ),
    (
        "RuntimeError: expected device cpu but got device cuda:0",
        "mixed-devices",
        ("cpu", "cuda:0"),
        "https://github.com/dawnranger/pytorch-AGNN/issues/5",
    ),
    (
        "RuntimeError: expected device cpu and dtype Float but got device cuda:0 and dtype Float",
        "mixed-devices",
        ("cpu", "cuda:0"),
        "https://github.com/qfgaohao/pytorch-ssd/issues/78",
    ),
    (
        "RuntimeError: CUDA error: no kernel image is available for execution on the device\nCUDA kernel "
        "errors might be asynchronously reported at some other API call,so the stacktrace below might be "
        "incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1.",
        "gpu-architecture",
        ("cuda",),
        "https://github.com/sconlyshootery/FeatDepth/issues/68",
    ),
    (
        "UserWarning: \nNVIDIA GeForce RTX 5060 Ti with CUDA capability sm_120 is not compatible with the "
        "current PyTorch installation.\nThe current PyTorch install supports CUDA capabilities sm_50 sm_60 "
        "sm_61 sm_70 sm_75 sm_80 sm_86 sm_90.\nIf you want to use the NVIDIA GeForce RTX 5060 Ti GPU with "
        "PyTorch, please check the instructions at https://pytorch.org/get-started/locally/",
        "gpu-architecture",
        ("cuda",),
        "https://github.com/ostris/ai-toolkit/issues/530",
    ),
    # --- a checkpoint from a GPU where the count is 0 (torch/serialization.py's validate_cuda_device, 2.13.0)
    (
        "Attempting to deserialize object on CUDA device 0 but torch.cuda.device_count() is 0. Please use torch.load with "
        "map_location to map your storages to an existing device.",
        "checkpoint-device-unavailable",
        ("cuda:0",),
        "constructed: torch/serialization.py of 2.13.0 (its f-string)",
    ),
]


@pytest.mark.parametrize("message, kind, devices, source", NEW, ids=[f"{i:02d}-{n[1]}" for i, n in enumerate(NEW)])
def test_new_families_are_explained(message, kind, devices, source):
    e = explain_device_error(message)
    assert e.is_device_error, f"not recognised ({source}): {e}"
    assert (e.kind, e.devices) == (kind, devices), f"{source}: {e}"
    assert e.cause and e.fix and "Not a device error" not in str(e)


def _raised_here():
    """Errors this torch raises for the families above, exactly as a learner meets them (read in the CPU wheel 2.13.0)."""
    # Pinning needs an accelerator's allocator: a CPU-only build says so (2.13's wording of the probe's pin family), while a
    # CUDA build without a driver (the matrix's 2.8.0 ... 2.14.1 here) stops earlier, at 'Found no NVIDIA driver'.
    cpu_only_build = torch.version.cuda is None and torch.version.hip is None and not torch.accelerator.is_available()
    pinning = [(lambda: torch.empty(2, pin_memory=True), "no-accelerator", ())] if cpu_only_build else []
    return pinning + [
        (lambda: torch.device("cuda", -2), "malformed-device-index", ()),
        (lambda: torch.device("cuda:-2"), "malformed-device-index", ("cuda",)),
        (lambda: torch.device("cuda:x"), "malformed-device-index", ("cuda",)),
        (lambda: torch.autocast(device_type="0"), "malformed-device-index", ()),
        (lambda: torch.autocast(torch.device("cpu")), "autocast-device-type", ()),  # lesson 11: x.device, not x.device.type
        (lambda: torch.xpu._lazy_init(), "backend-not-in-build", ("xpu",)),  # AssertionError, torch/xpu/__init__.py
        (lambda: torch.Generator(device="mps"), "backend-not-in-build", ("mps",)),
        (lambda: torch.ones(2).to(torch.float8_e4m3fn).to("mps"), "backend-not-in-build", ("mps",)),
        (lambda: torch.ones(1, device="mps"), "op-not-on-device", ("mps",)),  # the dispatcher: no MPS kernel here
        (lambda: torch.ones(1, device="hip"), "op-not-on-device", ("hip",)),
        (lambda: torch._utils._get_device_index(torch.device("cuda")), "malformed-device-index", ("cuda",)),
    ]


@pytest.mark.parametrize(
    "message, hint",
    [
        # the same argument name is another tensor in another operation (real wordings of the probe)
        (
            "RuntimeError: Expected object of device type cuda but got device type cpu for argument #1 'self' in call to _th_index_select",
            "the embedding table",
        ),  # https://github.com/Nmegha2601/activitygraph_transformer/issues/9
        (
            "RuntimeError: Expected object of device type cuda but got device type cpu for argument #1 'self' in call to _thnn_conv2d_forward",
            "the convolution's input",
        ),  # https://github.com/HRNet/HigherHRNet-Human-Pose-Estimation/issues/75
        (
            "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu! (when checking "
            "argument for argument weight in method wrapper_CUDA__native_layer_norm)",
            "normalization layer's weight",
        ),
        # https://github.com/sipie800/ComfyUI-PuLID-Flux-Enhanced/issues/70
        (
            "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cuda:1! "
            "(when checking argument for argument index in method wrapper_CUDA_scatter__value)",
            "scatter/gather",
        ),
        # https://github.com/zhongyy/Face-Transformer/issues/37
    ],
)
def test_an_argument_is_named_for_the_operation_it_belongs_to(message, hint):
    e = explain_device_error(message)
    assert e.kind == "mixed-devices" and hint in e.cause, e
    assert "class weights" not in e.cause and "token ids" not in e.cause and "the bias" not in e.cause, e


def test_probe_rows_say_the_specific_cause():
    count = explain_device_error(
        "Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before "
        "calling NumCudaDevices() that might have already set an error? Error 802: system not "
        "yet initialized"
    )
    assert "(error 802: system not yet initialized)" in count.cause and "fabricmanager" in count.fix
    busy = explain_device_error("CUDA error: all CUDA-capable devices are busy or unavailable")
    assert "exclusive" in busy.cause and "nvidia-smi" in busy.fix and "index out of range" not in busy.cause
    bnb = explain_device_error("You can't train a model that has been loaded in 8-bit precision on multiple devices.")
    assert "process_index" in bnb.fix and "(multiple devices)" in bnb.cause
    npu = explain_device_error("RuntimeError: No backend type associated with device type npu")
    # https://github.com/ray-project/ray/issues/50516: an Ascend NPU's collective, not a CUDA one
    assert "tensor on npu" in npu.cause and "'npu:hccl'" in npu.fix
    meta = explain_device_error("RuntimeError: Tensor on device meta is not on the expected device cuda:0!")
    # https://github.com/zai-org/ChatGLM2-6B/issues/254: a model loaded with device_map, one weight left on meta
    assert meta.devices == ("meta", "cuda:0") and "never loaded" in meta.cause and "p.is_meta" in meta.fix
    with pytest.warns(UserWarning, match="target dtype is not supported") as warned:  # raised live by 2.13.0
        with torch.autocast("cpu", dtype=torch.float32):
            pass
    autocast = explain_device_error(str(warned[0].message))
    assert (autocast.kind, autocast.devices) == ("dtype-unsupported-on-device", ("cpu",)) and "enabled=False" in autocast.fix


def _new(start: str) -> str:
    """The one wording in NEW that starts with ``start``."""
    (message,) = [m for m, *_ in NEW if m.startswith(start)]
    return message


def test_second_probe_misread_rows_say_the_specific_cause():
    current = explain_device_error(_new("RuntimeError: Input, output and indices"))
    assert "without assigning" in current.cause and "input_ids = input_ids.to(model.device)" in current.fix
    variable = explain_device_error(_new("RuntimeError: Expected object of type Variable["))
    assert variable.argument == "mat2" and "0.4 and 1.0" in variable.cause
    cudnn = explain_device_error(_new("RuntimeError: cuDNN error: CUDNN_STATUS_NOT_SUPPORTED"))
    assert "x.contiguous()" in cudnn.fix and "batch" in cudnn.cause and "index out of range" not in cudnn.cause
    half = explain_device_error(_new('RuntimeError: "addmm_impl_cpu_"'))
    assert "model.float()" in half.fix and "torch.cuda.is_available()" in half.fix and "float16" in half.cause
    quantized = explain_device_error(_new("RuntimeError: Could not run 'aten::empty_strided'"))
    assert "on the CPU" in quantized.fix and "quantized" in quantized.cause
    xpu = explain_device_error(_new("RuntimeError: PyTorch is not linked with support for xpu"))
    assert "import intel_extension_for_pytorch" in xpu.fix and "download.pytorch.org/whl/xpu" in xpu.fix
    generator = explain_device_error(_new("RuntimeError: Expected a 'cuda:0' generator device but found 'cuda'"))
    assert "same GPU" in generator.cause and "torch.Generator(device='cuda:0')" in generator.fix
    assert "set_default_device" not in generator.cause
    init = explain_device_error(_new("RuntimeError: CUDA error: initialization error"))
    assert "fork" in init.cause and "multiprocessing_context='spawn'" in init.fix and "index out of range" not in init.cause
    onnx = explain_device_error(_new("UserWarning: Constant folding"))
    assert "model.cpu()" in onnx.fix and "do_constant_folding=False" in onnx.fix and "token ids" not in onnx.cause
    complex_mps = explain_device_error(_new("libc++abi: terminating with"))
    assert "macOS 14" in complex_mps.cause and "fp8" not in complex_mps.cause + complex_mps.fix


@pytest.mark.parametrize(
    "message, kind, devices",
    [
        # the second probe's real look-alikes: about dtypes or quantization, never "move a tensor"
        (
            "RuntimeError: Expected object of type torch.DoubleTensor but found type torch.FloatTensor for argument #2 'weight'",
            "dtype",
            ("cpu",),  # torch.DoubleTensor names the CPU
        ),  # https://github.com/bioinform/neusomatic/issues/23 (both on the CPU)
        (
            "NotImplementedError: Could not run 'aten::add.out' with arguments from the 'QuantizedCPU' backend. This could be "
            "because the operator doesn't exist for this backend, or was omitted during the selective/custom build process "
            "(if using custom build).",
            "quantization",
            ("cpu",),
        ),  # https://github.com/pytorch/pytorch/issues/98596
        (
            "NotImplementedError: Could not run 'quantized::conv2d.new' with arguments from the 'CPU' backend. This could be "
            "because the operator doesn't exist for this backend, or was omitted during the selective/custom build process (if "
            "using custom build). If you are a Facebook employee using PyTorch on mobile, please visit "
            "https://fburl.com/ptmfixes for possible resolutions. 'quantized::conv2d.new' is only available for these "
            "backends: [QuantizedCPU, QuantizedCUDA, BackendSelect, Python].",
            "quantization",
            ("cpu",),
        ),
        # https://github.com/pytorch/pytorch/issues/34583 (a comment, the backend list shortened)
        ("RuntimeError: MPS device does not support mm for non-float inputs", "dtype", ("mps",)),
        # https://github.com/pytorch/pytorch/issues/77764 (a comment)
        (
            "Input type (torch.cuda.HalfTensor) and weight type (torch.cuda.FloatTensor) should be the same",
            "dtype",
            ("cuda",),
        ),  # https://github.com/baaivision/See3D/issues/11 (title)
    ],
)
def test_second_probe_look_alikes_stay_out(message, kind, devices):
    e = explain_device_error(message)
    assert not e.is_device_error and (e.kind, e.devices) == (kind, devices), e
    if devices:
        assert "Not a device error" not in str(e)


@pytest.mark.filterwarnings("ignore:torch.quantize_per_tensor")
def test_quantized_and_float_tensors_mixed_live():
    q = torch.quantize_per_tensor(torch.ones(2), 0.1, 0, torch.quint8)
    for action in (lambda: q + q, lambda: torch.ops.quantized.add(torch.ones(2), torch.ones(2), 0.1, 0)):
        e = explain_device_error(caught(action))  # 2.13.0: 'aten::add.out' from 'QuantizedCPU', 'quantized::add' from 'CPU'
        assert not e.is_device_error and e.kind == "quantization" and "cpu" in e.devices and "QuantStub" in e.fix


@pytest.mark.parametrize(
    "message, kind, devices",
    [
        # constructed: the misread families with other values
        ("Expected a 'cuda:1' generator device but found 'cuda'", "generator-device", ("cuda:1", "cuda")),
        # the dispatch name addmv_impl_cpu is in libtorch_cpu.so of 2.13.0, in the wording of the reports above
        ("\"addmv_impl_cpu\" not implemented for 'Half'", "dtype-unsupported-on-device", ("cpu",)),
        # https://github.com/facebookresearch/flores/issues/30 ("when doing on cpu"): the CPU layer norm's dispatch name
        ("RuntimeError: \"LayerNormKernelImpl\" not implemented for 'Half'", "dtype-unsupported-on-device", ("cpu",)),
    ],
    ids=lambda v: v if isinstance(v, str) and len(v) < 30 else None,
)
def test_second_probe_misread_rows_generalise(message, kind, devices):
    e = explain_device_error(message)
    assert e.is_device_error and (e.kind, e.devices) == (kind, devices), e


def test_second_probe_new_rows_say_the_specific_cause():
    hip = explain_device_error(_new("hipErrorNoBinaryForGpu: Unable"))
    assert "HSA_OVERRIDE_GFX_VERSION" in hip.fix and "CUDA build" in hip.fix and "rocminfo" in hip.fix
    cumsum = explain_device_error(_new("MPS does not support cumsum"))
    assert "13.3" in cumsum.cause and "torch.int32" in cumsum.fix and "FALLBACK=1 does not help" in cumsum.fix
    graphs = explain_device_error(_new("skipping cudagraphs due to skipping"))
    assert "cpu device (arg3_1)" in graphs.cause and "speed-up is lost" in graphs.cause
    nccl = explain_device_error(_new("RuntimeError: NCCL error in: /pytorch/torch/lib/c10d/ProcessGroupNCCL.cpp:825"))
    assert "two ranks on one GPU" in nccl.cause and "torch.cuda.set_device(local_rank)" in nccl.fix
    generate = explain_device_error(_new("UserWarning: You are calling .generate()"))
    assert "model.to('cuda')" in generate.fix and ".to(model.device)" in generate.fix and "not where you think" in generate.cause
    offload = explain_device_error(_new("RuntimeError: An FSDP-managed module"))
    assert "do not move the model" in offload.fix and "offload_params=True" in offload.cause
    device_id = explain_device_error(_new("inconsistent compute device"))
    assert "torch.cuda.set_device(local_rank)" in device_id.fix and "rank 3" in device_id.cause
    mps = explain_device_error(_new("pytorch_lightning.utilities.exceptions.MisconfigurationException: MPSAccelerator"))
    assert "x86_64" in mps.fix and "Rosetta" in mps.cause
    fallback = explain_device_error(_new("UserWarning: The operator 'aten::bitwise_and"))
    assert "not an error" in fallback.cause and "aten::bitwise_and.Tensor_out" in fallback.cause


def test_fsdp_without_an_accelerator_live(gloo):
    from torch.distributed.fsdp import FullyShardedDataParallel as FSDP

    if torch.accelerator.is_available():
        pytest.skip("this machine has an accelerator")
    e = explain_device_error(caught(lambda: FSDP(nn.Linear(2, 2))))
    assert e.kind == "no-accelerator" and "DDP(model)" in e.fix and "gloo" in e.fix


@pytest.mark.parametrize(
    "message, kind, devices",
    [
        # constructed from torch/_inductor/cudagraph_utils.py of 2.13.0 (check_multiple_devices_or_any_cpu_nodes)
        (
            "skipping cudagraphs due to multiple devices: device(type='cuda', index=0), device(type='cpu')",
            "compile-cudagraphs-skipped",
            ("cuda:0", "cpu"),
        ),
        (
            'skipping cudagraphs due to cpu device (primals_3). Found from : \n   File "model.py", line 12, in forward',
            "compile-cudagraphs-skipped",
            ("cpu",),
        ),
        # constructed: torch/distributed/fsdp/_init_utils.py's f-string (2.13.0), and the NCCL wording vLLM reports quote
        ("ValueError: Inconsistent compute device and `device_id` on rank 1: cuda:0 vs cuda:1", "ddp-device", ("cuda:0", "cuda:1")),
        ("NCCL error: invalid usage (run with NCCL_DEBUG=WARN for details)", "nccl-invalid-usage", ("cuda",)),
    ],
    ids=lambda v: v if isinstance(v, str) and len(v) < 30 else None,
)
def test_second_probe_new_rows_generalise(message, kind, devices):
    e = explain_device_error(message)
    assert e.is_device_error and (e.kind, e.devices) == (kind, devices), e


def test_an_allocation_larger_than_the_gpu_is_a_shape_problem():
    beyond = explain_device_error(_new("torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 55.57 GiB"))
    assert "larger than the whole GPU (12.00 GiB)" in beyond.cause and "chunks" in beyond.fix
    old_wording = explain_device_error(_new("torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 10.73"))
    assert "(10.73 GiB) is larger than the whole GPU (8.00 GiB)" in old_wording.cause
    ordinary = explain_device_error(_new("torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 32.00 MiB"))
    assert "larger than the whole GPU" not in ordinary.cause and "smaller batch" in ordinary.fix
    # constructed: ROCm's wording (https://github.com/Tongyi-MAI/Z-Image/issues/103) with a request above the card
    hip = explain_device_error(
        "HIP out of memory. Tried to allocate 30.00 GiB. GPU 0 has a total capacity of 23.98 GiB of which 1.70 GiB is free."
    )
    assert (hip.kind, hip.devices) == ("out-of-memory", ("cuda:0",)) and "larger than the whole GPU" in hip.cause


@pytest.mark.parametrize("index", range(len(_raised_here())))
def test_families_raised_live_by_this_torch(index):
    action, kind, devices = _raised_here()[index]
    exc = caught(action)
    e = explain_device_error(exc)
    assert e.is_device_error and (e.kind, e.devices) == (kind, devices), f"{type(exc).__name__}: {exc}\n{e}"


def test_w2_the_debug_only_assert_is_gone_and_the_release_wordings_are_raised():
    assert "Device index must be -1 or non-negative" not in (ROOT / "docs" / "error-messages.md").read_text()
    assert str(caught(lambda: torch.device("cuda", -2))) == "Device index must not be negative"
    assert str(caught(lambda: torch.device("cuda:-2"))) == "Invalid device string: 'cuda:-2'"


@pytest.fixture
def gloo():
    """A one-process gloo group in this process, destroyed afterwards."""
    import torch.distributed as dist

    if not dist.is_available():
        pytest.skip("this torch has no torch.distributed")
    dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
    yield dist
    dist.destroy_process_group()


def test_ddp_around_a_cpu_module_and_a_two_device_module_live(gloo):
    from torch.nn.parallel import DistributedDataParallel as DDP

    e = explain_device_error(caught(lambda: DDP(nn.Linear(2, 2), device_ids=[0])))
    assert (e.kind, e.devices) == ("ddp-device", ("cpu",)) and "before DDP(model, device_ids=[local_rank])" in e.fix
    assert "Without GPUs: DDP(model), no device_ids" in e.fix
    split = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 2, device="meta"))
    e = explain_device_error(caught(lambda: DDP(split)))
    assert (e.kind, set(e.devices)) == ("ddp-device", {"meta", "cpu"}) and "model.to(device)" in e.fix


@pytest.mark.filterwarnings("ignore:Attempted to get default timeout for nccl backend")
def test_nccl_missing_from_this_build_is_explained_live(gloo):
    exc = caught(lambda: gloo.new_group(backend="nccl"))
    if "NCCL built in" not in str(exc):
        pytest.skip(f"this torch has NCCL: {exc}")
    e = explain_device_error(exc)
    assert e.kind == "nccl-without-gpu" and "gloo" in e.fix


# --------------------------------------------------------------------------- what each new family tells the learner


def test_mps_unimplemented_op_gives_the_fallback_and_when_to_set_it():
    e = explain_device_error(NEW[0][0])
    assert "PYTORCH_ENABLE_MPS_FALLBACK=1" in e.fix and "before torch is imported" in e.fix
    assert "aten::_slow_conv2d_forward" in e.cause


def test_out_of_memory_names_the_right_tools_for_each_gpu():
    hip = explain_device_error(NEW[5][0])
    assert "rocm-smi" in hip.fix and "HIP" in hip.cause and "1.88 GiB" in hip.cause
    mps = explain_device_error(NEW[2][0])
    assert "torch.mps.empty_cache()" in mps.fix and "system failure" in mps.fix


def test_compile_and_autocast_fixes():
    fake = explain_device_error(NEW[11][0])
    assert "torch.compile" in fake.cause and "without torch.compile" in fake.fix and "register_buffer" in fake.fix
    old_gpu = explain_device_error(NEW[14][0])
    assert "capability 7.0" in old_gpu.cause and "aot_eager" in old_gpu.fix
    autocast = explain_device_error(NEW[15][0])
    assert "device_type=x.device.type" in autocast.fix
    assert "is_bf16_supported()" in explain_device_error(NEW[17][0]).fix


def test_library_placement_moves_the_inputs_not_the_model():
    for i in (18, 19, 20):
        e = explain_device_error(NEW[i][0])
        assert "inputs = inputs.to(model.device)" in e.fix and not e.fix.startswith("Move the model")
    assert "offload_folder='offload'" in explain_device_error(NEW[21][0]).fix
    assert "llm_int8_enable_fp32_cpu_offload=True" in explain_device_error(NEW[23][0]).fix


def test_ddp_and_nccl_fixes_say_which_case_is_which():
    split = explain_device_error(NEW[29][0])
    assert "split over several GPUs" in split.cause and "without device_ids" in split.fix
    assert "gloo" in explain_device_error(NEW[31][0]).fix


def test_cublas_and_cudnn_failures_point_at_the_real_causes():
    for i in (32, 34):
        e = explain_device_error(NEW[i][0])
        assert "CUDA_LAUNCH_BLOCKING=1" in e.fix and "index out of range" in e.cause and "memory" in e.cause


# --------------------------------------------------------------------------- advice in the order of what is likely


def test_a_checkpoint_from_a_gpu_on_a_machine_without_one_goes_to_the_cpu_first():
    none_here = explain_device_error(NEW[-1][0])
    assert none_here.fix.startswith("torch.load(path, map_location='cpu')") and "'cuda:0'" not in none_here.fix
    fewer = explain_device_error(
        "Attempting to deserialize object on CUDA device 1 but torch.cuda.device_count() is 1. "
        "Please use torch.load with map_location to map your storages to an existing device."
    )
    assert fewer.fix.startswith("torch.load(path, map_location='cpu')")  # torch/serialization.py, 2.13.0
    unavailable = explain_device_error(
        "Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is False. If you are running "
        "on a CPU-only machine, please use torch.load with map_location=torch.device('cpu') to map your storages to "
        "the CPU."
    )
    assert "map_location='cpu'" in unavailable.fix and "cuda:0" not in unavailable.fix


@pytest.mark.parametrize(
    "message, first",
    [
        # weights on the CPU, input on an accelerator: the model moves (issue 34's note, issue 35 point 3)
        (
            "Expected all tensors to be on the same device, but got mat2 is on cpu, different from other tensors on cuda:0 "
            "(when checking argument in method wrapper_CUDA_addmm)",
            "Move the model to the input's device: model.to('cuda:0')",
        ),
        ("Tensor for argument weight is on cpu but expected on mps", "Move the model to the input's device: model.to('mps')"),
        (
            "Input type (torch.cuda.FloatTensor) and weight type (torch.FloatTensor) should be the same",
            "Move the model to the input's device: model.to('cuda')",
        ),
        # weights on an accelerator, input on the CPU: the input moves to the model
        ("Tensor for argument input is on cpu but expected on mps", "Move the input to the model: x = x.to('mps')"),
        (
            "Input and parameter tensors are not at the same device, found input tensor at cpu and parameter tensor at cuda:0",
            "Move the input to the model: x = x.to('cuda:0')",
        ),
    ],
)
def test_model_and_input_apart_the_work_stays_on_the_accelerator(message, first):
    e = explain_device_error(message)
    assert e.fix.startswith(first), e.fix
    assert "x = x.to('cpu')" not in e.fix


@pytest.mark.parametrize(
    "message",
    [
        "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!",  # TensorIterator
        "Expected all tensors to be on the same device, but found at least two devices, mps:0 and cpu!",
        "Unhandled FakeTensor Device Propagation for aten.mm.default, found two different devices cuda:0, cpu",
    ],
)
def test_where_the_side_is_unknown_the_explanation_shows_how_to_tell(message):
    e = explain_device_error(message)
    assert "Which side is wrong?" in e.fix or "without torch.compile" in e.fix
    assert ".to('cpu')" not in e.fix.split("Which side")[0]


# --------------------------------------------------------------------------- never false: a device named is a device error

# Constructed: a property test. Each device or backend word the issue names, in sentences no family knows.
NAMES = [
    "cuda:1",
    "mps",
    "xpu:0",
    "hip",
    "meta",
    "xla:0",
    "cpu",
    "device(type='cuda', index=0)",
    "torch.cuda.FloatTensor",
    "CUDAFloatType",
    "MPSFloatType",
    "CUDA",
    "MPS",
    "XPU",
    "ROCm",
    "HIP",
    "NCCL",
    "cuDNN",
    "cuBLAS",
    "accelerator",
    "GPU",
]
SENTENCES = [
    "Something unexpected happened on {}.",
    "{} error: the frobnicator refused",
    "cannot reticulate ({})",
    "Error while running step 3 with {} enabled",
]


@pytest.mark.parametrize("name", NAMES)
def test_a_message_naming_a_device_or_backend_is_never_called_not_a_device_error(name):
    for sentence in SENTENCES:
        e = explain_device_error(sentence.format(name))
        assert e.is_device_error and "Not a device error" not in str(e) + e._repr_html_(), e
        if e.kind == "unrecognised-device-message":  # "CUDA error: ..." is a family of its own
            assert "none of the device-error families" in e.cause and e.fix.startswith("Check first:")


def test_the_fallback_names_two_devices_and_how_to_tell_which_side():
    # constructed: a wording no row knows, naming two devices
    e = explain_device_error("Frobnicate failed: operand on cuda:0 but accumulator on cpu")
    assert e.devices == ("cuda:0", "cpu") and "most often about tensors of one operation on different devices" in e.cause
    assert "Which side is wrong?" in e.fix and "does not guess" in e.cause


def _every_tested_message():
    from test_errors import SOURCE_MESSAGES
    from test_errors_torch_texts import MESSAGES

    yield from (m[0] for m in SOURCE_MESSAGES)
    yield from (m[0] for m in MESSAGES)
    yield from (w.message for w in WORDINGS)
    yield from (m for m, _ in LOOK_ALIKES)
    yield from (m[0] for m in NEW)
    yield from (f.example for f in error_families.FAMILIES)


def test_no_tested_message_that_names_a_device_is_called_not_a_device_error():
    from course_utils.errors import _named  # the engine's own reading of what a message names

    for message in _every_tested_message():
        devices, backends = _named(message)
        if devices or backends:
            assert "Not a device error" not in str(explain_device_error(message)), message


# --------------------------------------------------------------------------- generalisation: variants of each family


@pytest.mark.parametrize(
    "message, kind, devices",
    [
        # constructed from torch/_subclasses/fake_tensor.py's format (as quoted in pytorch/pytorch#106172)
        (
            "Unhandled FakeTensor Device Propagation for aten.add.Tensor, found two different devices cuda:0, cuda:7",
            "mixed-devices",
            ("cuda:0", "cuda:7"),
        ),
        (
            "Unhandled FakeTensor Device Propagation for aten.index.Tensor, found two different devices xla:0, cpu",
            "mixed-devices",
            ("xla:0", "cpu"),
        ),
        # constructed: MPS's fallback message with another operator; MPS and HIP OOM with other sizes
        ("The operator 'aten::upsample_bicubic2d.out' is not currently implemented for the MPS device.", "op-not-on-device", ("mps",)),
        ("HIP out of memory. Tried to allocate 2.00 MiB. GPU 3 has a total capacity of 255.98 GiB", "out-of-memory", ("cuda:3",)),
        ("XPU out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity of 15.11 GiB", "out-of-memory", ("xpu:0",)),
        ("User specified an unsupported autocast device_type 'mps:0'", "autocast-device-type", ("mps:0",)),
        ("Invalid device string: 'cuda:0:1'", "malformed-device-index", ("cuda",)),
        # constructed from torch/serialization.py's default_restore_location (2.13.0), a file saved on a Mac
        ("don't know how to restore data location of torch.storage.UntypedStorage (tagged with mps)", "checkpoint-device-unavailable", ("mps",)),
        (
            "Could not run 'torchvision::nms' with arguments from the 'CUDA' backend. This could be because the operator "
            "doesn't exist for this backend",
            "op-not-on-device",
            ("cuda",),
        ),
        ("Expected a 'cuda:1' generator device but found 'cuda:0'", "generator-device", ("cuda:1", "cuda:0")),
        ("cuDNN error: CUDNN_STATUS_NOT_INITIALIZED", "cuda-library-failure", ("cuda",)),
        (
            "DistributedDataParallel device_ids and output_device arguments only work with single-device/multiple-device GPU "
            "modules or CPU modules, but got device_ids [2], output_device 2, and module parameters {device(type='cuda', "
            "index=2), device(type='cuda', index=3)}.",
            "ddp-device",
            ("cuda:2", "cuda:3"),
        ),
    ],
    ids=lambda v: v if isinstance(v, str) and len(v) < 30 else None,
)
def test_families_generalise_to_unseen_values(message, kind, devices):
    e = explain_device_error(message)
    assert e.is_device_error and (e.kind, e.devices) == (kind, devices), e


# --------------------------------------------------------------------------- look-alikes stay out


LIVE_LOOK_ALIKES = [
    (lambda: torch.ones(2, 3) @ torch.ones(4, 5), "shape"),
    (lambda: torch.ones(2, dtype=torch.long) @ torch.ones(2), "dtype"),
    (lambda: (torch.ones(2) * 2).sum().backward(), "autograd"),
    (lambda: nn.Linear(2, 2).load_state_dict({"weight": torch.ones(3, 2), "bias": torch.ones(2)}), "state-dict"),
    (lambda: nn.Embedding(3, 2)(torch.tensor([5])), "index-out-of-range"),
    (lambda: torch.load(io.BytesIO(_pickle_of_a_function()), weights_only=True), "weights-only"),
]


def _pickle_of_a_function() -> bytes:
    import pickle

    return pickle.dumps(io.BytesIO, protocol=2)  # a global weights_only refuses


@pytest.mark.parametrize("index", range(len(LIVE_LOOK_ALIKES)))
def test_look_alikes_raised_live_are_not_cross_device_errors(index):
    action, kind = LIVE_LOOK_ALIKES[index]
    exc = caught(action)
    e = explain_device_error(exc)
    assert not e.is_device_error and e.kind == kind, f"{type(exc).__name__}: {exc}\n{e}"


def test_cpu_ram_exhaustion_is_its_own_family_not_a_cross_device_error():
    # c10/core/impl/alloc_cpu.cpp (2.7.1, 2.13.0, 2.14.1); raised live in test_errors_torch_texts (slow)
    e = explain_device_error(
        "DefaultCPUAllocator: can't allocate memory: you tried to allocate 4398046511104 bytes. Error code 12 (Cannot allocate memory)"
    )
    assert (e.kind, e.devices) == ("out-of-memory", ("cpu",)) and "4096.0 GiB" in e.cause


def test_a_look_alike_on_a_gpu_says_what_it_is_about():
    # libtorch_cpu.so (2.13.0): autograd's version check on a CUDA tensor (tests/errors_texts.py LOOK_ALIKES)
    e = explain_device_error(LOOK_ALIKES[2][0])
    assert not e.is_device_error and e.kind == "autograd" and e.devices == ("cuda",)
    assert str(e).splitlines()[1].startswith("  Names cuda, but the problem is not where tensors are (autograd)")


# --------------------------------------------------------------------------- the table and its page


def test_docs_page_is_generated_from_the_table():
    page = (ROOT / "docs" / "error-messages.md").read_text(encoding="utf-8")
    assert page == error_docs.render_markdown(), (
        "docs/error-messages.md differs from the table: run `make pairs` (or python -m course_authoring.error_docs --write)"
    )


def test_every_row_is_whole_and_explains_its_own_example():
    keys = [f.key for f in error_families.FAMILIES]
    assert len(keys) == len(set(keys)), "duplicate family keys"
    for f in error_families.FAMILIES:
        assert f.section in error_families.SECTIONS and f.example and f.releases and f.source, f.key
        assert f.regex.search(f.example), f"{f.key}: its pattern does not find its own example"
        assert f.reader or (f.cause and f.fix), f"{f.key}: a row without a reader states its cause and fix"
        e = explain_device_error(f.example)
        if f.reader != "wrapped":  # a wrapper's first line alone is explained by what it carries
            assert e.is_device_error == f.device_error, f"{f.key}: {e}"


def test_the_engine_is_small_and_the_knowledge_is_in_the_table():
    # counted in statements, which do not change when ruff format lays the code out anew (380 when this was written)
    engine = ast.parse((ROOT / "src" / "course_utils" / "errors.py").read_text(encoding="utf-8"))
    statements = sum(isinstance(node, ast.stmt) for node in ast.walk(engine))
    assert statements < 400 and len(error_families.FAMILIES) >= 80, statements


def test_third_probe_new_rows_say_the_specific_cause():
    barrier = explain_device_error(_new("[W404 00:15:21"))
    assert "not an error" in barrier.cause and "device_id=torch.device('cuda', local_rank)" in barrier.fix
    assert "device_ids=[local_rank]" in barrier.fix
    capture = explain_device_error(_new("RuntimeError: CUDA error: operation not permitted"))
    assert ".item()" in capture.cause and "not a crash of an earlier kernel" in capture.cause
    assert "enforce_eager=True" in capture.fix and "CUDA_LAUNCH_BLOCKING" not in capture.fix
    unjoined = explain_device_error(_new("Exception: Capture cuda graph failed"))
    assert "wait_stream" in unjoined.fix
    safetensors = explain_device_error(_new("safetensors_rust.SafetensorError: device cuda:0"))
    assert "torch.device object is refused" in safetensors.cause and "str(device)" in safetensors.fix
    home = explain_device_error(_new("OSError: CUDA_HOME"))
    assert "nvcc" in home.cause and "torch.version.cuda" in home.fix and "is_available() may be True" in home.cause
    old_numpy = explain_device_error(_new("cannot convert CUDA tensor"))
    assert ".cpu().numpy()" in old_numpy.fix


@pytest.mark.parametrize(
    "message, kind, devices",
    [
        # constructed from the f-strings read: safetensors 0.8.0 prints a torch.device with its repr (run here)
        ("safetensors_rust.SafetensorError: device device(type='cpu') is invalid", "safetensors-device", ("cpu",)),
        # the 1.9-2.4 wording of the barrier warning (pytorch/pytorch#54991's diff)
        (
            "Rank 3 using best-guess GPU 3 to perform barrier as devices used by this process are currently unknown. ",
            "barrier-device-guess",
            ("cuda:3",),
        ),
        ("CUDA error: operation would make the legacy stream depend on a capturing blocking stream", "cuda-graph-capture", ("cuda",)),
    ],
    ids=lambda v: v if isinstance(v, str) and len(v) < 30 else None,
)
def test_third_probe_new_rows_generalise(message, kind, devices):
    e = explain_device_error(message)
    assert e.is_device_error and (e.kind, e.devices) == (kind, devices), e


def test_third_probe_second_batch_says_the_specific_cause():
    nvml = explain_device_error(_new("/opt/conda/lib/python3.10/site-packages/torch/cuda/__init__.py:546"))
    assert "nvidia-smi" in nvml.fix and "--gpus all" in nvml.fix and "Driver/library version mismatch" in nvml.cause
    inductor = explain_device_error(_new("torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised:\nAss"))
    assert "backend='aot_eager'" in inductor.fix and "2.8" in inductor.cause
    misaligned = explain_device_error(_new("CUDA error: misaligned address"))
    assert ".contiguous()" in misaligned.fix and "not about which device" in misaligned.cause
    xla = explain_device_error(_new("RuntimeError: Check failed: xtensor"))
    assert "device=x.device" in xla.fix and "register_buffer" in xla.fix


def test_third_probe_third_batch_says_the_specific_cause():
    c10d = explain_device_error(_new("AssertionError: Unknown c10d backend type"))
    assert "'CUDA:NCCL'" in c10d.cause and "init_process_group('nccl'" in c10d.fix
    cudnn = explain_device_error(_new("RuntimeError: cuDNN error: CUDNN_STATUS_INTERNAL_ERROR"))
    assert "cudnn.benchmark = False" in cudnn.fix and "'[1,2,3]'" in cudnn.cause and "get_arch_list" in cudnn.fix


def test_third_probe_fourth_batch_says_the_specific_cause():
    stft = explain_device_error(_new("RuntimeError: stft input and window must be on the same device but got self on cpu"))
    assert "MelSpectrogram" in stft.cause and "torch.hann_window(n_fft, device=x.device)" in stft.fix
    rois = explain_device_error(_new("RuntimeError: rois.device().is_cpu()"))
    assert "rois = rois.to(features.device)" in rois.fix and "roi_align" in rois.cause
    controlnet = explain_device_error(
        _new(
            "RuntimeError: Expected all tensors to be on the same device, but found at "
            "least two devices, cpu and cuda:0! (when checking argument for argument mat1"
        )
    )
    assert controlnet.fix.startswith("Move the model to the input's device")


@pytest.mark.parametrize(
    "message, kind, source",
    [
        (
            "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; but got "
            "torch.cuda.FloatTensor instead (while checking arguments for embedding)",
            "dtype",
            "https://github.com/AIFSH/CosyVoice-ComfyUI/issues/70",
        ),
        (
            "RuntimeError: Expected tensor for argument #1 'indices' to have scalar type Long; but got CUDAIntTensor instead "
            "(while checking arguments for embedding)",
            "dtype",
            "https://github.com/aioz-ai/MICCAI19-MedVQA/issues/10",
        ),
        (
            "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; but got "
            "torch.cuda.HalfTensor instead (while checking arguments for embedding)",
            "dtype",
            "https://github.com/Comfy-Org/ComfyUI/issues/7370",
        ),
        (
            "RuntimeError: Input type (CUDAFloatTensor) and weight type (CUDAHalfTensor) should be the same",
            "dtype",
            "https://github.com/ayooshkathuria/pytorch-yolo-v3/issues/7 (0.4 wording)",
        ),
        (
            "RuntimeError: Expected tensor for argument #1 'grad_output' to have the same type as tensor for argument #2 "
            "'weight'; but type torch.cuda.HalfTensor does not equal torch.cuda.FloatTensor (while checking arguments for "
            "cudnn_convolution_backward_input)",
            "dtype",
            "https://github.com/jik876/hifi-gan/issues/44",
        ),
        (
            "RuntimeError: expected scalar type Half but found Float",
            "dtype",
            "https://openillumi.com/en/en-pytorch-v100-amp-runtime-error-fix (V100, fp16 LoRA fine-tuning)",
        ),
    ],
    ids=lambda v: v[:40] if isinstance(v, str) else None,
)
def test_third_probe_look_alikes_on_a_gpu_stay_look_alikes(message, kind, source):
    e = explain_device_error(message)
    assert not e.is_device_error and e.kind == kind, f"{source}: {e}"
    assert "does not say anything about devices" not in e.cause, f"{source}: a look-alike, not 'no device named'"


def test_convolution_backward_types_on_two_devices_are_a_device_error():
    # constructed: the hifi-gan wording (1.x, checkSameType) with the weight left on the CPU
    e = explain_device_error(
        "Expected tensor for argument #1 'grad_output' to have the same type as tensor for "
        "argument #2 'weight'; but type torch.cuda.FloatTensor does not equal torch.FloatTensor "
        "(while checking arguments for cudnn_convolution_backward_input)"
    )
    assert e.is_device_error and (e.kind, e.devices) == ("mixed-devices", ("cuda", "cpu")), e
    assert e.fix.startswith("Move the model to the input's device")


def test_third_probe_extension_builds_say_the_specific_cause():
    mismatch = explain_device_error(_new("RuntimeError: The detected CUDA version (11.8)"))
    assert "not the driver's 'CUDA Version'" in mismatch.cause and "export CUDA_HOME=" in mismatch.fix
    runtime = explain_device_error(_new("No CUDA runtime is found, using CUDA_HOME='/usr/local/cuda'"))
    assert "torch.version.cuda: None" in runtime.fix and "TORCH_CUDA_ARCH_LIST" in runtime.fix
    index = explain_device_error(_new("RuntimeError: The device index is out of range."))
    assert "'xpu:0'" in index.fix and "-1 is the index of a device written without one" in index.cause


@pytest.mark.parametrize(
    "message, kind",
    [
        # torch/utils/cpp_extension.py of 2.13.0 passes the format and its arguments to RuntimeError separately
        (
            "RuntimeError: ('The detected CUDA version (%s) mismatches the version that was used to compilePyTorch (%s). "
            "Please make sure to use the same CUDA versions.', '12.1', '13.0')",
            "cuda-toolkit-mismatch",
        ),
        (
            "The detected CUDA version (12.4) has a minor version mismatch with the version that was used to compile PyTorch "
            "(12.8). Most likely this shouldn't be a problem.",
            "cuda-toolkit-mismatch",
        ),
        (
            "RuntimeError: CUDA was not found on the system, please set the CUDA_HOME or the CUDA_PATHenvironment variable or "
            "add NVCC to your system PATH. The extension compilation will fail.",
            "cuda-home-unset",
        ),
    ],
)
def test_third_probe_extension_rows_read_the_2_13_wordings(message, kind):
    e = explain_device_error(message)
    assert e.is_device_error and e.kind == kind and "%s" not in e.cause, e


def test_third_probe_device_mesh_rows():
    size = explain_device_error(_new("RuntimeError: Mesh should not be bigger"))
    assert "dp * tp == dist.get_world_size()" in size.fix and "9 ranks" in size.cause
    # constructed: torch/distributed/device_mesh.py of 2.13.0 (RuntimeError with two arguments)
    index = explain_device_error(
        "RuntimeError: ('Device type with index is not supported but got cuda:0. ', \"If you "
        "maintained a 'torch.device' object, it's recommended to pass in 'device.type'.\")"
    )
    assert (index.kind, index.devices) == ("device-mesh-type", ("cuda:0",)) and "device.type" in index.fix


# --------------------------------------------------------------------------- fourth probe


def test_fourth_probe_a_device_type_without_a_module_says_how_to_name_it():
    e = explain_device_error(_new("AttributeError: 'NoneType' object has no attribute 'current_device'"))
    assert "getattr(torch, device_type)" in e.cause and "init_device_mesh('gpu'" in e.cause
    assert e.fix.startswith("Give the mesh a device type torch knows") and "print(mesh.device_type)" in e.fix


def test_fourth_probe_a_mesh_named_gpu_fails_at_first_use_live(gloo):
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.fsdp import fully_shard

    mesh = init_device_mesh("gpu", (1,))  # accepted when made (2.13.0) ...
    e = explain_device_error(caught(lambda: fully_shard(nn.Linear(2, 2), mesh=mesh)))  # ... and fails here
    assert e.is_device_error and e.kind == "device-mesh-type" and "init_device_mesh('cuda'" in e.fix, e


def test_fourth_probe_dlpack_pinned_memory_is_about_the_pinning():
    e = explain_device_error(_new("KeyError: <DLDeviceType.kDLCPUPinned: 3>"))
    assert "pinned (page-locked) memory" in e.cause and "kDLCUDAHost" in e.cause
    assert "jnp.asarray(t.numpy())" in e.fix and "t.to('cuda')" in e.fix
    # torch 2.13.0 names the same device type kDLCUDAHost (torch/_tensor.py, __dlpack_device__)
    assert explain_device_error("KeyError: <DLDeviceType.kDLCUDAHost: 3>").kind == "dlpack-device"


def test_fourth_probe_missing_cuda_headers_point_at_the_toolkit():
    e = explain_device_error(_new("/shared/shelley/khashab2/nexus"))
    assert "cannot find cuda_runtime_api.h, a header of the CUDA toolkit" in e.cause and "No tensor" in e.cause
    assert "$CUDA_HOME/include/cuda_runtime_api.h" in e.fix and "prebuilt wheel" in e.fix
    windows = explain_device_error(_new("c:\\anaconda2"))
    assert "cannot find cuda.h" in windows.cause


def test_fourth_probe_torchscript_puts_the_baked_device_first():
    e = explain_device_error(TORCHSCRIPT_92375)
    assert e.cause.startswith("in a TorchScript module") and "cuda:0" in e.cause and "cpu" in e.cause
    assert e.fix.startswith("In a traced module this is usually a device the trace baked in")
    assert "Trace again on the device it will run on" in e.fix and "x.new_zeros" in e.fix and "torch.export" in e.fix


@pytest.mark.filterwarnings("ignore::torch.jit.TracerWarning", "ignore::DeprecationWarning", "ignore::FutureWarning")
def test_fourth_probe_torchscript_live():
    class Baked(nn.Module):
        def forward(self, x):
            return x + torch.zeros(x.shape[0], device="meta")  # a device constant the trace records

    traced = torch.jit.trace(Baked(), torch.ones(3, device="meta"))
    buffer = io.BytesIO()
    torch.jit.save(traced, buffer)
    buffer.seek(0)
    loaded = torch.jit.load(buffer)
    e = explain_device_error(caught(lambda: loaded(torch.ones(3))))
    assert e.is_device_error and e.kind == "mixed-devices" and set(e.devices) == {"meta", "cpu"}, e
    assert e.fix.startswith("In a traced module") and 'device=torch.device("meta")' in e.message


@pytest.mark.parametrize(
    "message, source",
    [
        ("OSError: No such device (os error 19)", "https://github.com/zai-org/CogVideo/issues/455 (safe_open in from_pretrained)"),
        (
            "this produces the error `OSError: No such device (os error 19)`",
            "https://github.com/safetensors/safetensors/issues/485 (safe_open on a folder)",
        ),
        ("No such device (os error 19)", "https://github.com/Comfy-Org/ComfyUI/issues/4067 (ComfyUI's LoraLoader)"),
    ],
)
def test_fourth_probe_no_such_device_is_a_file_not_a_gpu(message, source):
    e = explain_device_error(message)
    assert not e.is_device_error and e.kind == "file-not-mappable", f"{source}: {e}"
    assert "not a GPU" in e.cause and "os.path.isfile(path)" in e.fix and "safetensors.torch.load(open(" in e.fix


def test_fourth_probe_no_such_device_live(tmp_path):
    safetensors = pytest.importorskip("safetensors")
    e = explain_device_error(caught(lambda: safetensors.safe_open(str(tmp_path), "pt")))  # a folder, not a file
    assert not e.is_device_error and e.kind == "file-not-mappable", e


@pytest.mark.parametrize(
    "message, kind, devices",
    [
        # https://github.com/aioz-ai/MICCAI19-MedVQA/issues/10: a dtype problem on the GPU, the device written lower-case
        (
            "RuntimeError: Expected tensor for argument #1 'indices' to have scalar type Long; but got CUDAIntTensor instead "
            "(while checking arguments for embedding)",
            "dtype",
            ("cuda",),
        ),
        # https://github.com/ayooshkathuria/pytorch-yolo-v3/issues/7 (0.4 wording): both on the GPU
        ("RuntimeError: Input type (CUDAFloatTensor) and weight type (CUDAHalfTensor) should be the same", "dtype", ("cuda",)),
        # https://github.com/t-vi/warp-ctc/issues/6: both on the CPU, named by their types
        ("Expected object of type torch.FloatTensor but found type torch.IntTensor", "dtype", ("cpu",)),
    ],
)
def test_fourth_probe_legacy_type_names_give_lower_case_devices(message, kind, devices):
    e = explain_device_error(message)
    assert (e.kind, e.devices) == (kind, devices) and not e.is_device_error, e
    assert "Names CUDA" not in str(e)


def test_fourth_probe_legacy_type_names_without_torch_prefix_are_read():
    # constructed from the 0.4 type names (CUDAIntTensor, as in the MICCAI19-MedVQA and pytorch-yolo-v3 reports above)
    e = explain_device_error("Expected object of type torch.FloatTensor but found type CUDAIntTensor for argument #2 'other'")
    assert e.is_device_error and (e.kind, e.devices) == ("mixed-devices", ("cpu", "cuda")), e


def test_fourth_probe_further_rows_say_the_specific_cause():
    vllm = explain_device_error(_new("RuntimeError: No supported device detected."))
    assert "vLLM (device='auto')" in vllm.cause and "Ray actor" in vllm.cause and "num_gpus=1" in vllm.fix
    tpu = explain_device_error(_new("pytorch_lightning.utilities.exceptions.MisconfigurationException: TPUAccelerator"))
    assert "asked for TPUs" in tpu.cause and "['cpu']" in tpu.cause and "a CPU-only torch" in tpu.fix
    ids = explain_device_error(_new("pytorch_lightning.utilities.exceptions.MisconfigurationException: You requested GPUs"))
    assert "[] means torch sees no GPU at all" in ids.cause and "accelerator='cpu'" in ids.fix
    xla = explain_device_error(_new("Input tensor is not an XLA tensor: torch.FloatTensor"))
    assert "torch.FloatTensor" in xla.cause and "never moved" in xla.cause and "model.to(device)" in xla.fix
    workers = explain_device_error(_new("RuntimeError: Bad StatusOr access"))
    assert "4 worker processes" in workers.cause and "os.environ.pop('TPU_PROCESS_ADDRESSES')" in workers.fix
    topology = explain_device_error(_new("Failed to get global TPU topology."))
    assert "several hosts" in topology.cause and "--worker=all" in topology.fix
    bnb = explain_device_error(_new("Calling `to()` is not supported for `4-bit`"))
    assert "4-bit" in bnb.cause and "cuda:0" in bnb.cause and "pip install -U bitsandbytes" in bnb.fix
    assert "device_map={'': 0}" in bnb.fix
    deepspeed = explain_device_error(_new("AssertionError: CUDA_HOME does not exist"))
    assert "DeepSpeed's op builder" in deepspeed.cause and "export CUDA_HOME=" in deepspeed.fix


def test_fourth_probe_moving_an_8_bit_model_names_its_bits():
    # constructed: huggingface/diffusers src/diffusers/models/modeling_utils.py (cuda(), bitsandbytes < 0.48.0)
    e = explain_device_error(
        "ValueError: Calling `cuda()` is not supported for `8-bit` quantized models with the installed version of "
        "bitsandbytes. The current device is `cuda:1`. If you intended to move the model, please install bitsandbytes "
        ">= 0.48.0."
    )
    assert (e.kind, e.devices) == ("library-placement", ("cuda:1",)) and "8-bit" in e.cause and "model.cuda()" in e.cause


def test_fourth_probe_an_empty_cuda_graph_says_which_device_is_current():
    e = explain_device_error(_new("/opt/conda/lib/python3.9/site-packages/torch/cuda/graphs.py:82"))
    assert e.cause.startswith("a warning") and "current GPU" in e.cause and "silently" in e.cause
    assert "with torch.cuda.device(x.device)" in e.fix and "g.replay()" in e.fix


def test_fourth_probe_flash_attention_triton_and_the_driver_say_the_specific_cause():
    flash = explain_device_error(_new("RuntimeError: FlashAttention only supports Ampere GPUs or newer."))
    assert "compute capability 8.0 or newer" in flash.cause and "T4" in flash.cause
    assert flash.fix.startswith("Use PyTorch's attention instead") and "attn_implementation='sdpa'" in flash.fix
    triton = explain_device_error(_new("RuntimeError: 0 active drivers"))
    assert "no CPU fallback" in triton.cause and "torch.cuda.is_available() is True" in triton.fix
    driver = explain_device_error(_new("C:\\Users\\ramalhais"))
    assert "older than the CUDA this torch was built with" in driver.cause and "nvidia-smi's 'CUDA Version'" in driver.fix


def test_fourth_probe_device_map_auto_in_a_distributed_run():
    e = explain_device_error(_new("ValueError: You can't train a model that has been loaded with `device_map='auto'`"))
    assert "two ways of using several GPUs were mixed" in e.cause and "DEEPSPEED" in e.cause
    assert "device_map={'': PartialState().process_index}" in e.fix and "--num_processes=1" in e.fix


def test_fourth_probe_a_4_bit_weight_quantized_twice():
    e = explain_device_error(_new("RuntimeError: Blockwise quantization only supports 16/32-bit floats"))
    assert "already 4-bit" in e.cause and "p = p.to('cuda:0')" in e.cause
    assert e.fix.startswith("Move the module, not its parameters") and "upgrade bitsandbytes" in e.fix


# --------------------------------------------------------------------------- fifth probe


def test_fifth_probe_inductor_taking_mps_for_cuda_says_compile_elsewhere():
    e = explain_device_error(_new("BackendCompilerFailed: debug_wrapper raised"))
    assert "treats every such device as CUDA" in e.cause and "'mps'" in e.cause and "CPU-only" not in e.cause
    assert e.fix == error_families._COMPILE_ELSEWHERE and "backend='aot_eager'" in e.fix
    assert explain_device_error("Torch not compiled with CUDA enabled").kind == "cuda-not-compiled"  # outside compile


def test_fifth_probe_mps_in_a_torch_older_than_1_12():
    e = explain_device_error(_new("RuntimeError: Expected one of cpu, cuda, xpu, mkldnn"))
    assert "older than 1.12" in e.cause and "not a device type" not in e.cause
    assert "torch 1.12 or newer" in e.fix and "getattr(torch.backends, 'mps', None)" in e.fix
    # a list that has mps: the name is unknown for another reason
    listed = explain_device_error(
        "Expected one of cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, maia, xla, lazy, vulkan, mps, "
        "meta, hpu, mtia, privateuseone device type at start of device string: gpu"
    )
    assert listed.kind == "bad-device-string"


def test_fifth_probe_rocm_without_a_gpu_is_not_a_kernel_failure():
    e = explain_device_error(_new("HIP error: hipErrorNoDevice"))
    assert "no AMD GPU this process may use" in e.cause and "video and render groups" in e.cause
    assert "rocminfo" in e.fix and "usermod -aG video,render" in e.fix and "CUDA_LAUNCH_BLOCKING" not in e.fix


def test_fifth_probe_sparse_tensors_are_about_the_layout():
    for start in ("RuntimeError: Could not run 'aten::sum.dim_IntList'", "RuntimeError: Could not run 'aten::gt.Scalar'"):
        e = explain_device_error(_new(start))
        assert "a sparse tensor" in e.cause and "on cuda" in e.cause and "Nothing is on the wrong device" in e.cause
        assert "t.to_dense()" in e.fix and "torch.sparse.mm" in e.fix and "print(t.layout)" in e.fix


def test_fifth_probe_quantized_ops_of_1_6_on_the_gpu():
    e = explain_device_error(_new("RuntimeError: Could not run 'quantized::conv2d_prepack'"))
    assert "quantized::conv2d_prepack" in e.cause and "run on the CPU backends only" in e.cause
    assert e.fix.startswith("Keep the quantized model, and its inputs, on the CPU")
    # the same unknown backend for an op that is not quantized stays unread
    assert explain_device_error("Could not run 'aten::add' with arguments from the 'UNKNOWN_TENSOR_TYPE_ID' backend.").kind != (
        "op-not-on-device"
    )


def test_fifth_probe_fake_tensor_metadata_names_both_devices():
    e = explain_device_error(_new("torch._subclasses.fake_tensor.MetadataMismatchError"))
    assert "real result with its fake (meta) version" in e.cause and "cpu against cuda:0" in e.cause
    assert "find_device_mismatches(model, x)" in e.fix and "SDPBackend.MATH" in e.fix


def test_fifth_probe_tensorrt_inputs_go_to_the_gpu():
    e = explain_device_error(_new("RuntimeError: [Error thrown at core/runtime/execute_engine.cpp:132]"))
    assert "an input on cpu reached an engine that needs cuda" in e.cause and "partly compiled" in e.cause
    assert "trt_model(*[x.to('cuda') for x in inputs])" in e.fix and "ir='dynamo'" in e.fix


def test_fifth_probe_onnx_export_failure_is_the_constant_folding():
    e = explain_device_error(_new("ONNX: export failure:"))
    assert e.cause.startswith("the ONNX exporter") and "'ONNX: export failure'" in e.cause
    assert e.fix.startswith("Export on the CPU") and "do_constant_folding=False" in e.fix


def test_fifth_probe_a_cut_convolution_type_message_is_still_read():
    e = explain_device_error(_new("RuntimeError: Input type (torch.cuda.FloatTensor) and weight type (torch.FloatTensor)"))
    assert "the module's weights are on cpu" in e.cause and "none of the device-error families" not in e.cause


def test_fifth_probe_diffusers_offload_without_an_accelerator():
    e = explain_device_error(_new("RuntimeError: `enable_model_cpu_offload` requires accelerator"))
    assert "model CPU offload" in e.cause and "CPU-only torch build" in e.cause and "accelerate does not" in e.cause
    assert "install a CUDA build of torch" in e.fix and "pipe.to('cpu')" in e.fix


def test_fifth_probe_ddp_takes_one_gpu_per_process():
    e = explain_device_error(_new("device_ids can only be None or contain a single element"))
    assert "one process per GPU" in e.cause and "device_ids=[0, 1, 2]" in e.cause
    assert "torchrun --nproc_per_node=N" in e.fix and "device_ids=[local_rank]" in e.fix


def test_fifth_probe_to_given_a_list_of_devices():
    e = explain_device_error(_new("to() received an invalid combination of arguments - got (list)"))
    assert e.is_device_error and "take one device" in e.cause and "got a list" in e.cause
    assert "x.to('cuda:0')" in e.fix and "start_multi_process_pool" in e.fix
    # another wrong argument to to() is not read as a list of devices
    assert explain_device_error("to() received an invalid combination of arguments - got (str, str)").kind != "bad-device-string"


def test_fifth_probe_a_list_of_backends_without_its_start():
    e = explain_device_error(_new("'aten::_slow_conv2d_forward' is only available"))
    assert "cut before its start" in e.cause and "aten::_slow_conv2d_forward has no kernel" in e.cause
    assert "PYTORCH_ENABLE_MPS_FALLBACK=1" in e.fix and "t.to_dense()" in e.fix and "print(t.device" in e.fix
    # a whole message is still read by its own row
    whole = explain_device_error(
        "Could not run 'quantized::linear' with arguments from the 'CPU' backend. 'quantized::linear' is only available "
        "for these backends: [QuantizedCPU, QuantizedCUDA]."
    )
    assert whole.kind != "op-not-on-device" or "cut before its start" not in whole.cause


def test_fifth_probe_thc_two_gpus_of_0_2():
    e = explain_device_error(_new("RuntimeError: tensors are on different GPUs"))
    assert e.cause.startswith("the tensors of one CUDA operation are on different GPUs") and ".to('cuda')" in e.fix


# --------------------------------------------------------------------------- sixth probe


def test_sixth_probe_th_addmm_reads_which_side_is_the_model():
    e = explain_device_error(_new("RuntimeError: Expected object of device type cuda but got device type cpu for argument #2 'mat1'"))
    assert "the module's weights are on cuda and its input on cpu" in e.cause
    assert e.fix.startswith("Move the input to the model: x = x.to('cuda')")


def test_sixth_probe_a_lower_case_operation_is_not_taken_for_a_dispatch_key():
    e = explain_device_error(
        _new(
            "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 "
            "and cpu! (when checking arugment"
        )
    )
    assert e.operator == "nll_loss_forward" and "(nll_loss_forward)" in e.cause and "the labels you passed to the loss" in e.cause
    weight = explain_device_error(
        "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu! "
        "(when checking argument for argument weight in method wrapper_nll_loss_forward)"
    )  # constructed from the 1.9/1.10 wording above: the loss's class weights, not a layer's
    assert "the class weights you passed to the loss" in weight.cause
    cased = explain_device_error(_new("RuntimeError: Expected all tensors to be on the same device, but found at least two devices (when"))
    assert cased.operator == "index_select"  # wrapper_CUDA__index_select: CUDA is the dispatch key


def test_sixth_probe_bmm_arguments_are_not_a_linear_layer():
    e = explain_device_error(
        _new(
            "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu! "
            "(when checking argument for argument mat2 in method wrapper_CUDA_bmm)"
        )
    )
    assert "second batch of matrices of torch.bmm(input, mat2)" in e.cause and "no nn.Linear runs bmm" in e.cause
    assert "mat2 is the weight" not in e.cause and "move `mat2` with .to('cuda:0')" in e.fix
    mm = explain_device_error(
        _new(
            "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cpu "
            "and cuda:0! (when checking argument for argument mat2 in method wrapper_CUDA_mm)"
        )
    )
    assert "mat2 is the weight" in mm.cause  # plain mm keeps F.linear's reading


def test_sixth_probe_rnn_device_words_are_read_lower_case():
    e = explain_device_error(
        _new("RuntimeError: Input and hidden tensors are not at the same device, found input tensor at cuda:0 and hidden tensor at CPU")
    )
    assert e.devices == ("cuda:0", "cpu") and "`hx` is on cpu" in e.cause and "device=x.device" in e.fix


@pytest.mark.parametrize(
    "start",
    [
        "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:1 "
        "and cuda:0! (when checking argument for argument target",
        "Expected all tensors to be on the same device, but found at least two devices, cuda:1 and cuda:0! "
        "(when checking argument for argument tensors",
        "[BUG] RuntimeErrorExpected all tensors",
    ],
)
def test_sixth_probe_two_gpus_point_at_a_model_spread_over_them(start):
    e = explain_device_error(_new(start))
    assert e.kind == "mixed-devices" and all(d.startswith("cuda:") for d in e.devices), e
    assert error_families.TWO_GPUS in e.fix and "device_map='auto'" in e.fix and "labels.to(logits.device)" in e.fix
    assert "Which side is wrong?" not in e.fix and "normally the accelerator" not in e.fix
    # one GPU and the CPU keep the question of which side is wrong
    assert (
        "Which side is wrong?"
        in explain_device_error(
            _new(
                "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 "
                "and cpu! (when checking arugment"
            )
        ).fix
    )


def test_sixth_probe_torch_where_with_a_scalar_made_on_the_cpu():
    e = explain_device_error(_new("RuntimeError: Expected condition, x and y to be on the same device"))
    assert e.devices == ("cuda:0", "cpu") and "x on cuda:0 and y on cpu" in e.cause and "torch.tensor(0.0)" in e.cause
    assert "torch.where(mask, x, 0.0)" in e.fix and "torch.tensor(0.0, device=x.device)" in e.fix


def test_sixth_probe_masked_fill_value_on_another_device():
    e = explain_device_error(_new("RuntimeError: Expected `value` to be on same device as `a`"))
    assert e.is_device_error and "fill value" in e.cause and "torch._refs" in e.cause and "PrivateUse1" in e.cause
    assert "float(value)" in e.fix and "value.to(x.device)" in e.fix


def test_sixth_probe_masked_fill_value_live():
    # torch._refs.masked_fill is the decomposition torch.compile runs; on meta a CPU value is not let through
    a, mask = torch.zeros(2, device="meta"), torch.ones(2, dtype=torch.bool, device="meta")
    e = explain_device_error(caught(lambda: torch._refs.masked_fill(a, mask, torch.tensor(1.0))))
    assert e.kind == "mixed-devices" and "fill value" in e.cause, e


def test_sixth_probe_cudnn_same_device_check_with_a_space_or_cut_short():
    spaced = explain_device_error(_new("RuntimeError:Expected tensor for argument #1 'input'"))
    assert spaced.devices == ("cuda:0", "cuda:1") and "the module's weights are on cuda:0 and its input on cuda:1" in spaced.cause
    cut = explain_device_error(_new("RuntimeError:  :expected tensor for argument #1 'input'"))
    assert "cut before it names them" in cut.cause and "`input` is the batch and `weight` the layer's own parameter" in cut.cause
    assert "x = x.to(next(model.parameters()).device)" in cut.fix and "CUDA_VISIBLE_DEVICES=1" in cut.fix


def test_sixth_probe_a_checkpoint_message_retyped_with_full_width_punctuation():
    e = explain_device_error(_new("RuntimeError\uff1a Trying to deserialize"))
    assert e.devices == ("cuda:1",) and "only 1 CUDA device(s)" in e.cause and "map_location={'cuda:1': 'cuda:0'}" in e.fix


def test_sixth_probe_cudnn_mapping_error_is_not_read_as_execution_failed():
    for start in ("RuntimeError: CuDNN error: CUDNN_STATUS_MAPPING_ERROR", "RuntimeError: CUDNN_STATUS_MAPPING_ERROR"):
        e = explain_device_error(_new(start))
        assert "could not access GPU memory" in e.cause and "batch size" in e.cause and "EXECUTION_FAILED" not in e.cause
        assert e.fix.startswith("Try a smaller batch first") and "torch.backends.cudnn.enabled = False" in e.fix


def test_sixth_probe_nccl_unhandled_cuda_error():
    for start in (
        "RuntimeError: NCCL error in: /pytorch/torch/lib/c10d/ProcessGroupNCCL.cpp:32",
        "terminate called after",
        "[rank7]: torch.distributed.DistBackendError",
    ):
        e = explain_device_error(_new(start))
        assert e.kind == "nccl-unhandled-cuda" and "a CUDA call NCCL made" in e.cause and "several ranks on one GPU" in e.cause
        assert e.fix.startswith("Rerun with NCCL_DEBUG=INFO") and "NCCL_P2P_DISABLE=1" in e.fix and "--shm-size" in e.fix


def test_sixth_probe_cuda_unknown_error_is_the_driver_not_the_tensors():
    for start in ("UserWarning: CUDA initialization: CUDA unknown error", "RuntimeError: CUDA unknown error"):
        e = explain_device_error(_new(start))
        assert e.kind == "no-gpu-visible" and "counts zero GPUs" in e.cause and "nvidia_uvm" in e.cause
        assert e.fix.startswith("Run nvidia-smi") and "sudo modprobe nvidia_uvm" in e.fix and "--gpus all" in e.fix


def test_sixth_probe_a_1_0_backend_message_about_a_layers_weight_moves_the_model():
    e = explain_device_error(_new("RuntimeError: Expected object of backend CUDA but got backend CPU for argument #2 'weight'"))
    assert "the module's weights are on cpu and its input on cuda" in e.cause
    assert e.fix.startswith("Move the model to the input's device: model.to('cuda')")
    linear = explain_device_error(_new("RuntimeError: Expected object of backend CUDA but got backend CPU for argument #2 'mat2'"))
    assert linear.fix.startswith("Move the model to the input's device") and "mat2 is the weight" in linear.cause
    back = explain_device_error(_new("RuntimeError: Expected object of backend CPU but got backend CUDA for argument #2 'weight'"))
    assert back.fix.startswith("Move the input to the model: x = x.to('cuda')")
    # another argument keeps the plain reading: an index is not a weight
    index = explain_device_error(_new("RuntimeError: Expected object of backend CUDA but got backend CPU for argument #3 'index'"))
    assert "the module's weights" not in index.cause and "move `index` with .to('cuda')" in index.fix
