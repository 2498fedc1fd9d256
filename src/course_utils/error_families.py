"""What the error explainer knows: one row per family of device error, read by ``course_utils.errors``.

Lesson: notebook 05 (the error clinic). ``explain_device_error`` tries the rows of ``FAMILIES`` in
order and the first whose ``pattern`` is found (and whose reader, if it names one, accepts the
match) explains the message; ``docs/error-messages.md`` is generated from the same rows
(``python -m course_authoring.error_docs --write``, run by ``make pairs``), and a test fails when the page and the table drift.

A row holds the knowledge, the engine only reads it:

- ``pattern``: a regular expression with named groups (``found``, ``home``, ``backend``, ...).
- ``kind``, ``devices``, ``cause``, ``fix``: the explanation. ``cause`` and ``fix`` are templates:
  ``{name}`` is a group as the message wrote it, ``{name!l}`` lower-case, ``{name!u}`` upper-case,
  ``{first_line}`` the message's first line; ``{{`` and ``}}`` are literal braces.
- ``reader``: for the families whose explanation depends on the values (which argument is the
  model's weight, whether a checkpoint's GPU count is zero), the name of one of the engine's few
  readers, with ``roles`` saying which group plays which part. A reader may return nothing, and
  the next row is tried (a convolution whose two types differ only in dtype is not a device error).
- ``example``, ``releases``, ``source``: one wording with example values, the releases or library
  versions it belongs to, and where it was read (a release file, a repository file, or a public
  report's URL). ``tests/test_errors*.py`` and ``tests/errors_texts.py`` hold every tested wording
  with its source.
- ``device_error``: False for the look-alikes: messages about shapes, dtypes, autograd or loading
  that may name a device but are not fixed by moving anything.

``MENTIONS`` is what the engine says when no row matches but the message names a device or a
device backend: what such a message usually means and what to check first, never an invented cause.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

DEV = r"[A-Za-z_]+(?::\d+)?"  # a device as messages print it: cpu, cuda:0, meta, mps:0, xla:0, privateuseone:0

SECTIONS = (
    "Two tensors on different devices",
    "Is there a GPU at all?",
    "Apple's MPS, AMD's ROCm, Intel's XPU",
    "torch.compile and autocast",
    "Libraries around PyTorch",
    "Distributed training",
    "What a device did",
    "Look-alikes: about shapes, dtypes, autograd or loading",
)
MIXED, GPU, BACKENDS, COMPILE, LIBRARIES, DISTRIBUTED, DID, LOOKALIKE = SECTIONS

_FIND = "find_device_mismatches(model, x) lists every culprit before the forward pass."
_CPU_FALLBACK = "device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')"
_MOVE_INPUTS_TO_MODEL = (
    "Move the inputs to the model instead: inputs = inputs.to(model.device) (Hugging Face "
    "models have .device; for others next(model.parameters()).device)."
)


@dataclass(frozen=True)
class Family:
    """One family of error messages: how to recognise it, what it means, what to change, where it was read."""

    key: str
    section: str
    title: str
    pattern: str
    kind: str
    devices: tuple[str, ...] = ()
    cause: str = ""
    fix: str = ""
    example: str = ""
    releases: str = ""
    source: str = ""
    reader: str | None = None
    roles: dict = field(default_factory=dict, compare=False, hash=False)
    flags: int = 0
    device_error: bool = True

    @property
    def regex(self) -> re.Pattern:
        return _compiled(self.pattern, self.flags)


_CACHE: dict[tuple[str, int], re.Pattern] = {}


def _compiled(pattern: str, flags: int) -> re.Pattern:
    key = (pattern, flags)
    if key not in _CACHE:
        _CACHE[key] = re.compile(pattern, flags)
    return _CACHE[key]


_RANGE = (
    r"Found GPU(?P<index>\d+) (?P<gpu>.+?) which is of cuda capability (?P<cc>\d+\.\d+)\.\s+Minimum and Maximum "
    r"cuda capability supported by this version of PyTorch is\s+\((?P<low>\d+\.\d+)\) - \((?P<high>\d+\.\d+)\)"
)
_RANGE_RELEASES = "2.8.0, 2.9.1, 2.10.0 (torch.cuda._check_capability)"
_RANGE_SOURCE = "torch/cuda/__init__.py of 2.8.0, 2.9.1 and 2.10.0 (incompatible_gpu_warn), raised by lesson 12 on a simulated GPU"
_RANGE_FOUND = (
    "PyTorch's start-up check found {gpu} (compute capability {cc}) outside the range of architectures this "
    "build was compiled for, {low} to {high}"
)
_NO_KERNELS = "so the build has no kernels for it, and every kernel will fail with 'no kernel image is available for execution on the device'."
_SAME_MAJOR_RULE = (
    "Compare torch.cuda.get_device_capability() with torch.cuda.get_arch_list(): code built for sm_XY "
    "runs on a GPU of the same major version X and the same or a newer minor."
)
_COMPILE_ELSEWHERE = (
    "Run uncompiled on this device (drop torch.compile, or a library's compile switch such as "
    "nnUNet_compile=f), or compile with a backend that does not generate code: "
    "torch.compile(model, backend='aot_eager'); for MPS, upgrade to torch 2.8 or newer."
)
# Two GPUs in one operation (the engine's mixed-devices reading adds it where both devices are accelerators):
# real reports in tests/test_errors_table.py's NEW (the sixth probe: nll_loss, cat, a cut title).
TWO_GPUS = (
    "Both are GPUs: usually a model spread over several GPUs (device_map='auto', or layers put on cuda:0 and "
    "cuda:1 by hand) met a tensor on another GPU, such as the labels or a tensor made in forward(). Move that "
    "tensor to the device of the one it meets (labels = labels.to(logits.device)), or keep the run on one GPU: "
    "CUDA_VISIBLE_DEVICES=0 in the shell, or device_map={'': 0}."
)
_OPTIMIZER_STATE_ARGS = "state_steps|exp_avgs|exp_avg_sqs|max_exp_avg_sqs|momentum_buffer_list|state_sums"
# the 2.7 and the 2.8 wordings of one mistake: the optimizer's state left where the model was
_OPTIMIZER_STATE_CAUSE = (
    "the optimizer's own state (`{arg}`: the step counts or running averages it keeps per parameter) is "
    "on {found}, its parameters on {home}. You never pass `{arg}` yourself: the state came from an "
    "optimizer built before the model moved (it stepped once, then model.to(...) moved the parameters), "
    "or from a checkpoint loaded without map_location and given to optimizer.load_state_dict before the "
    "model was on its device."
)
_OPTIMIZER_STATE_FIX = (
    "Fix it where the state came from: move the model first, then build the optimizer "
    "(model.to('{home}'); opt = torch.optim.AdamW(model.parameters(), ...)); when resuming, "
    "state = torch.load(path, map_location='{home}') after model.to('{home}'), then "
    "opt.load_state_dict(state['optimizer']) (load_state_dict moves the state to each parameter's device). "
    "For an optimizer already in memory, opt.load_state_dict(opt.state_dict()) does the same."
)


FAMILIES: tuple[Family, ...] = (
    # ------------------------------------------------------------------ wrappers: the error inside decides
    Family(
        "wrapped-replica",
        MIXED,
        "Wrapper: DataParallel replica",
        r"Caught (?P<etype>\w+) in replica (?P<replica>\d+) on device (?P<device>\d+)",
        "wrapped-error",
        reader="wrapped",
        roles=dict(
            where="DataParallel's copy of the model on cuda:{device} (replica {replica})",
            device="cuda:{device}",
            operator="DataParallel",
            advice=(
                " Under nn.DataParallel each GPU runs forward() on its slice of the batch: tensors made "
                "inside forward() need device=x.device (never a fixed 'cuda:0' or .cuda()), and the model "
                "must be on device_ids[0] before it is wrapped. (DistributedDataParallel is the "
                "recommended replacement.)"
            ),
        ),
        cause=(
            "{where} raised a {etype}; the error itself is the last line under 'Original Traceback' (paste it whole to have that explained)."
        ),
        fix=(
            "Read the last line of the original traceback; if it is a device error, move the tensor it names to the "
            "device of the replica's input (x.device)."
        ),
        example="Caught RuntimeError in replica 1 on device 1. (then Original Traceback ...)",
        releases="read in 2.14.1",
        source="torch/_utils.py (ExceptionWrapper), torch/nn/parallel/parallel_apply.py",
    ),
    Family(
        "wrapped-pin-thread",
        MIXED,
        "Wrapper: the DataLoader's pin-memory thread",
        r"Caught (?P<etype>\w+) in pin memory thread for device (?P<pin>\d+)",
        "wrapped-error",
        reader="wrapped",
        roles=dict(
            where="the DataLoader's pin-memory thread (for cuda:{pin})",
            device="cuda:{pin}",
            advice=" With pin_memory=True the Dataset must return CPU tensors.",
        ),
        cause="{where} raised a {etype}; the error itself is the last line under 'Original Traceback'.",
        fix="Read the last line of the original traceback.",
        example="Caught RuntimeError in pin memory thread for device 0.",
        releases="read in 2.14.1",
        source="torch/utils/data/_utils/pin_memory.py, torch/_utils.py",
    ),
    Family(
        "wrapped-worker",
        MIXED,
        "Wrapper: a DataLoader worker",
        r"Caught (?P<etype>\w+) in DataLoader worker process (?P<worker>\d+)",
        "wrapped-error",
        reader="wrapped",
        roles=dict(where="DataLoader worker process {worker}", advice=""),
        cause="{where} raised a {etype}.",
        fix="Read the last line of the original traceback.",
        example="Caught ValueError in DataLoader worker process 0.",
        releases="read in 2.14.1",
        source="torch/utils/data/_utils/worker.py, torch/_utils.py",
    ),
    # ------------------------------------------------------------------ two tensors on different devices
    Family(
        "wrapped-torchscript",
        MIXED,
        "Wrapper: the TorchScript interpreter",
        r"The following operation failed in the TorchScript interpreter\.(?=[\s\S]*^(?P<etype>\w+(?:Error|Exception)): )",
        "wrapped-error",
        reader="wrapped",
        flags=re.M,
        roles=dict(
            where="a TorchScript module (code that torch.jit.trace or torch.jit.script recorded)",
            advice_first=True,
            advice=(
                " In a traced module this is usually a device the trace baked in: torch.jit.trace records "
                "tensors made in forward() with device='cuda:0', device=x.device, .cuda() or .to('cuda') as "
                'constants (the serialized code above shows them as device=torch.device("cuda:0")), and moving '
                "the loaded module with .to() or map_location moves its parameters and buffers, not those "
                "constants. Trace again on the device it will run on (model.to(device); torch.jit.trace(model, "
                "example.to(device))); or build such tensors from the input with operations the trace follows "
                "(x.new_zeros(...), torch.zeros_like(x)) and trace again; or use torch.jit.script, which keeps "
                "device=x.device as code, or torch.export, which replaces TorchScript."
            ),
        ),
        cause="{where} raised a {etype}; the error itself is the last line, after the TorchScript tracebacks.",
        fix="Read the last line: the error the operation raised inside the TorchScript module.",
        example=(
            "The following operation failed in the TorchScript interpreter.\nTraceback of TorchScript, serialized "
            'code (most recent call last):\n  File "code/__torch__.py", line 10, in forward\n    return '
            "torch.add(x, _1)\nRuntimeError: Expected all tensors to be on the same device, but found at least two "
            "devices, cuda:0 and cpu!"
        ),
        releases="1.x-2.13 (torch.jit; raised live in 2.13.0 by a module traced on meta and run on the CPU)",
        source=(
            "torch/csrc/jit (InterpreterState); https://github.com/pytorch/pytorch/issues/92375; "
            "https://github.com/qubvel-org/segmentation_models.pytorch/issues/857"
        ),
    ),
    Family(
        "stft-window",
        MIXED,
        "stft/istft: the window on another device than the signal",
        rf"(?P<op>i?stft) input and window must be on the same device but got self on (?P<found>{DEV}) and window "
        rf"on (?P<window>{DEV})",
        "mixed-devices",
        devices=("{found!l}", "{window!l}"),
        cause=(
            "torch.{op} got the signal on {found!l} and its window on {window!l}. The window is a tensor of its "
            "own (torch.hann_window(n) is made on the CPU unless given device=), and in torchaudio it is a buffer "
            "of the transform (Spectrogram, MelSpectrogram, MFCC, InverseSpectrogram): a transform created once and "
            "never moved keeps its window on the CPU, one moved to another GPU keeps it there."
        ),
        fix=(
            "Put the signal and the transform on one device, once: mel = torchaudio.transforms.MelSpectrogram(...)"
            ".to(device) (or register it as a submodule of the model so model.to(device) moves it) and "
            "waveform = waveform.to(device); for torch.stft itself, window=torch.hann_window(n_fft, device=x.device)."
        ),
        example="RuntimeError: stft input and window must be on the same device but got self on cpu and window on cuda",
        releases="read in 2.13.0 (libtorch_cpu.so, SpectralOps); 1.x raised 'expected device cuda:0 but got device cpu'",
        source=(
            "aten SpectralOps (strings of libtorch_cpu.so, 2.13.0); https://github.com/2noise/ChatTTS/issues/741; "
            "https://github.com/pytorch/pytorch/issues/30865"
        ),
    ),
    Family(
        "torchvision-op-assert",
        MIXED,
        "torchvision ops: boxes or rois on another device than the feature map",
        r"(?P<arg>rois|boxes|scores|dets|offset|mask)\.device\(\)\.is_(?P<where>cpu|cuda)\(\) ASSERT FAILED",
        "mixed-devices",
        devices=("{where!l}",),
        cause=(
            "a torchvision detection op (roi_align, roi_pool, ps_roi_align, nms, deform_conv2d) picks its kernel by "
            "the device of its first tensor (the feature map, or boxes for nms) and then asserts that `{arg}` is "
            "on the same device; here the {where!l} kernel ran and `{arg}` was elsewhere. Usually proposals or boxes "
            "built on the CPU (torch.tensor(...) without device=) against features on the GPU, or the reverse."
        ),
        fix=(
            "Move `{arg}` to the feature map's device before the call: {arg} = {arg}.to(features.device) "
            "(features being the op's first argument)."
        ),
        example="RuntimeError: rois.device().is_cpu() ASSERT FAILED at /vision/torchvision/csrc/cpu/ROIAlign_cpu.cpp:386",
        releases="torchvision of 2020 (the csrc/cpu/ROIAlign_cpu.cpp path in the report)",
        source="https://github.com/pytorch/pytorch/issues/40756",
    ),
    Family(
        "xla-cpu-tensor",
        MIXED,
        "torch_xla: a CPU tensor in an XLA operation",
        r"Input tensor is not an XLA tensor: (?P<found>CPU|CUDA)\w*Type",
        "mixed-devices",
        devices=("xla", "{found!l}"),
        cause=(
            "an operation traced for the XLA device (a TPU, or another torch_xla backend) got a {found!l} tensor "
            "({first_line}). Usually a tensor made inside forward() without device= (torch.arange, torch.zeros, "
            "torch.tensor), or a buffer that was never moved, meets tensors already on xla."
        ),
        fix=(
            "Create it on the input's device: torch.arange(n, device=x.device); register constant tensors as "
            "buffers (self.register_buffer) so model.to(xm.xla_device()) moves them; move inputs with "
            ".to(xla_device)."
        ),
        example="RuntimeError: Check failed: xtensor: Input tensor is not an XLA tensor: CPUFloatType",
        releases="torch_xla (aten_xla_bridge); read in a 2026 report",
        source="https://github.com/tenstorrent/tt-xla/issues/3335",
    ),
    Family(
        "xla-cpu-tensor-legacy",
        MIXED,
        "torch_xla: a CPU tensor (named by its type) in an XLA operation",
        r"Input tensor is not an XLA tensor: torch\.(?P<dtype>[A-Z]\w*)Tensor\b",
        "mixed-devices",
        devices=("xla", "cpu"),
        cause=(
            "an operation running on the XLA device (a TPU, or another torch_xla backend such as AWS Trainium) got "
            "a CPU tensor, torch.{dtype}Tensor, among XLA tensors. Most often the model, or one layer of it, was "
            "never moved (its weight is the CPU tensor: 'input tensor' means any tensor input of the operation), or "
            "a batch from the DataLoader or a tensor made inside forward() without device= stayed on the CPU."
        ),
        fix=(
            "Move the model before the optimizer is made and the inputs each step: device = xm.xla_device() (or "
            "torch_xla.device()); model.to(device); x = x.to(device), or wrap the loader in "
            "pl.MpDeviceLoader(loader, device). Print the devices of the operation's tensors (input, "
            "layer.weight) to see which one is on the CPU; make tensors in forward() with device=x.device."
        ),
        example="Input tensor is not an XLA tensor: torch.FloatTensor",
        releases="torch_xla 1.x-2.x (aten_xla_bridge)",
        source=(
            "https://github.com/pytorch/xla/issues/8532; https://github.com/pytorch/xla/issues/2960; "
            "https://github.com/pytorch/xla/issues/899 (torch.LongTensor)"
        ),
    ),
    Family(
        "optimizer-state-new",
        MIXED,
        "Optimizer state on another device",
        rf"Expected all tensors to be on the same device, but got (?P<arg>{_OPTIMIZER_STATE_ARGS}) is on "
        rf"(?P<found>{DEV}), different from other tensors on (?P<home>{DEV})"
        rf"(?: \(when checking argument (?:for argument \w+ )?in method (?P<op>\w+)\))?",
        "optimizer-state",
        devices=("{found}", "{home}"),
        roles=dict(argument="arg", operator="op"),
        cause=_OPTIMIZER_STATE_CAUSE,
        fix=_OPTIMIZER_STATE_FIX,
        example="Expected all tensors to be on the same device, but got state_steps is on cpu, different from other "
        "tensors on cuda:0 (when checking argument in method wrapper_CUDA___fused_adamw_)",
        releases="2.8.0 and later (read in 2.14.1)",
        source="libtorch_cpu.so, libtorch_cuda.so of the 2.14.1 wheel",
    ),
    Family(
        "optimizer-state-old",
        MIXED,
        "Optimizer state on another device, 2.7 wording",
        rf"Expected all tensors to be on the same device, but found at least two devices, (?P<home>{DEV}) and "
        rf"(?P<found>{DEV})! \(when checking ar(?:gu|ug)ment for argument (?P<arg>{_OPTIMIZER_STATE_ARGS}) "
        rf"in method (?P<op>\w+)\)",
        "optimizer-state",
        devices=("{found}", "{home}"),
        roles=dict(argument="arg", operator="op"),
        cause=_OPTIMIZER_STATE_CAUSE,
        fix=_OPTIMIZER_STATE_FIX,
        example="Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu! (when "
        "checking argument for argument state_steps in method wrapper_CUDA___fused_adam_)",
        releases="2.7.1 and earlier 2.x",
        source="the dispatcher's check as 2.7.1 words it",
    ),
    Family(
        "mps-linear",
        MIXED,
        "MPS: an argument on the CPU",
        rf"Tensor for argument (?P<arg>\w+) is on (?P<found>{DEV}) but expected on mps",
        "mixed-devices",
        reader="mixed",
        roles=dict(devices=("mps", "found"), arg="arg", op="linear", odd="found", home="mps", weights="mps-linear"),
        example="Tensor for argument input is on cpu but expected on mps",
        releases="2.4.0, 2.7.1 to 2.14.1 (macOS arm64)",
        source="aten/src/ATen/native/mps/operations/Linear.mm",
    ),
    # W15: the message is MPSFallback.mm's, as evidence/sources.py says (issue 34)
    Family(
        "mps-convolution",
        MIXED,
        "MPS: a convolution's input and weight",
        rf"(?P<op>\w+): input\(device='(?P<data>{DEV})'\) and weight\(device='?(?P<weights>{DEV})'?\)\s+must be on "
        r"the same device",
        "mixed-devices",
        reader="mixed",
        roles=dict(devices=("data", "weights"), arg="input", op="op", odd="data", home="weights", weights="weights"),
        example="slow_conv2d_forward_mps: input(device='cpu') and weight(device=mps:0')  must be on the same device",
        releases="2.7.1 to 2.14.1 (macOS arm64)",
        source="aten/src/ATen/mps/MPSFallback.mm",
    ),
    Family(
        "fake-tensor-devices",
        COMPILE,
        "torch.compile: two devices found while tracing",
        rf"Unhandled FakeTensor Device Propagation for (?P<op>[\w.]+), found two different devices "
        rf"(?P<home>{DEV}), (?P<found>{DEV})",
        "mixed-devices",
        reader="mixed",
        roles=dict(devices=("home", "found"), op="op", odd="found", home="home"),
        cause=(
            "torch.compile (Dynamo) runs your code once on fake tensors to trace it, and found {op} with tensors on "
            "{home} and {found}: the same mistake an eager run makes, found while compiling. Usually a tensor "
            "made inside forward() without device= (torch.zeros(n), torch.arange(n)), a tensor attribute that is "
            "not a registered buffer (so model.to() left it behind), or an input that was not moved."
        ),
        fix=(
            "Run the model once without torch.compile: the eager error names the argument. Then create tensors "
            "inside forward() with device=x.device, register tensor attributes with self.register_buffer(...), and "
            "move the inputs to the model's device. " + _FIND
        ),
        example="Unhandled FakeTensor Device Propagation for aten.mm.default, found two different devices cuda:0, cpu",
        releases=(
            "raised live by 2.7.1 (torch.compile of a CPU and a meta tensor, inside 'Dynamo failed to run FX node "
            "with fake tensors'); 2.13.0 and 2.14.1 say 'Tensor device mismatch' with the TensorIterator wording"
        ),
        source="torch/_subclasses/fake_tensor.py (pytorch/pytorch#106172); https://github.com/pytorch/pytorch/issues/119665",
    ),
    Family(
        "fake-tensor-metadata-devices",
        COMPILE,
        "Tracing: a result's device differs from its fake version's",
        rf"MetadataMismatchError: Devices (?P<home>{DEV}) and (?P<found>{DEV}) are not equal",
        "mixed-devices",
        devices=("{home}", "{found}"),
        cause=(
            "while tracing (torch.export, or a compiler built on it such as Torch-TensorRT's dynamo path) PyTorch "
            "compared an operation's real result with its fake (meta) version, and the devices differ: {home} "
            "against {found}. Either a tensor in the traced code is on another device than the rest (made without "
            "device=, or an attribute model.to() did not move), or the operation's fake version gets the device "
            "wrong, a PyTorch bug."
        ),
        fix=(
            "Run the model once eagerly with the inputs on the model's device and list stray tensors: "
            "find_device_mismatches(model, x); create tensors in forward() with device=x.device. If nothing is "
            "stray, report the operation the message names to PyTorch, and avoid it meanwhile (for attention, "
            "another SDPA backend: with torch.nn.attention.sdpa_kernel(SDPBackend.MATH): ...)."
        ),
        example="torch._subclasses.fake_tensor.MetadataMismatchError: Devices cpu and cuda:0 are not equal! "
        "(_scaled_dot_product_flash_attention)",
        releases="2.6-2.x (torch/_subclasses/fake_tensor.py)",
        source="https://github.com/pytorch/TensorRT/issues/3408 (PaliGemma 2 through torch_tensorrt.dynamo)",
    ),
    Family(
        "tensorrt-input-device",
        LIBRARIES,
        "Torch-TensorRT: an input not on the GPU",
        r"Expected input tensors to have device (?P<want>\w+), found device (?P<got>\w+)",
        "mixed-devices",
        devices=("{want}", "{got}"),
        cause=(
            "a TensorRT engine runs on the GPU and takes its inputs where they are, and an input on {got} reached "
            "an engine that needs {want}. Either the inputs were not moved, or, in a partly compiled model (where "
            "PyTorch runs the parts TensorRT cannot), a PyTorch part made a tensor on the CPU (torch.zeros "
            "without device=, .cpu(), a shape turned into a tensor) and passed it to the next TensorRT part."
        ),
        fix=(
            "Move every input before calling the compiled module: trt_model(*[x.to('cuda') for x in inputs]). If "
            "they already are, run the model uncompiled to find the tensor made on the CPU inside forward() "
            "(create it with device=x.device), or compile through the dynamo path, "
            "torch_tensorrt.compile(model, ir='dynamo', ...), which in pytorch/TensorRT#2744 ran the same model."
        ),
        example="RuntimeError: [Error thrown at core/runtime/execute_engine.cpp:132] Expected inputs[i].is_cuda() to "
        "be true but got false Expected input tensors to have device cuda, found device cpu",
        releases="Torch-TensorRT 1.x-2.x (the TorchScript runtime, core/runtime/execute_engine.cpp)",
        source="https://github.com/pytorch/TensorRT/issues/2744; https://github.com/pytorch/TensorRT/pull/1416",
    ),
    Family(
        "onnx-constant-folding",
        COMPILE,
        "torch.onnx.export: constant folding across devices",
        r"(?:Constant folding in symbolic shape inference fails|ONNX: export failure): "
        r"(?P<inner>[^\n]*?on the same device[^\n]*)",
        "mixed-devices",
        devices=("*",),
        roles=dict(within="inner"),
        cause=(
            "the ONNX exporter (torch.onnx.export's TorchScript path) runs parts of the graph itself to fold them "
            "into constants, and one of them met two devices: values the exporter makes while tracing (a shape "
            "such as x.shape[0] turned into a tensor, index tensors, constants) are on the CPU, next to a model "
            "and inputs on the GPU. It comes from exporting on a GPU, not from your model's own forward pass. As "
            "a warning the export goes on without that folding; in _jit_pass_onnx_constant_fold it fails the "
            "export (YOLOv5/v7's export.py prints that as 'ONNX: export failure')."
        ),
        fix=(
            "Export on the CPU: model.cpu().eval() with CPU example inputs (an ONNX file keeps no device; the "
            "runtime that loads it chooses one). Or pass do_constant_folding=False, or use the newer exporter, "
            "torch.onnx.export(..., dynamo=True)."
        ),
        example=(
            "UserWarning: Constant folding in symbolic shape inference fails: Expected all tensors to be on the "
            "same device, but found at least two devices, cpu and cuda:0! (when checking argument for argument "
            "index in method wrapper_CUDA__index_select)"
        ),
        releases="the TorchScript-based exporter, 1.x-2.x (reported on 2.0.0+cu118)",
        source=(
            "https://github.com/pytorch/pytorch/issues/102947 (torch/csrc/jit/passes/onnx/shape_type_inference.cpp); "
            "https://github.com/WongKinYiu/yolov7/issues/1005 (do_constant_folding=False avoided it)"
        ),
    ),
    Family(
        "pin",
        MIXED,
        "Pinning a tensor that is not on the CPU",
        r"cannot pin '(?P<type>[\w.]+)' only dense CPU tensors can be pinned|Only dense CPU tensors can be pinned",
        "pin-needs-cpu",
        devices=("{pinned}",),
        roles=dict(compute="pin"),
        cause=(
            "pinning pages host (CPU) memory so it can be copied to a GPU quickly; this tensor{where}, so there "
            "is nothing to pin. Usually a Dataset (or collate_fn) that returns GPU tensors, given to a "
            "DataLoader(..., pin_memory=True), whose pin-memory step then fails."
        ),
        fix=(
            "Let the Dataset return CPU tensors and move each batch in the training loop: "
            "x = x.to(device, non_blocking=True) with pin_memory=True. If the data really lives on the GPU already, "
            "drop pin_memory=True."
        ),
        # W3: Python sees 'torch.cuda.FloatTensor': torch/csrc/Exceptions.cpp's processErrorMsg renames the
        # CPU and CUDA type names (CUDAFloatType) before the message reaches Python (issue 34)
        example="cannot pin 'torch.cuda.FloatTensor' only dense CPU tensors can be pinned",
        releases="2.7.1 to 2.14.1 (meta tensors keep 'MetaFloatType')",
        source="aten/src/ATen/native/Memory.cpp; the rename in libtorch_python.so (processErrorMsg)",
    ),
    Family(
        "legacy-backend-weight",
        MIXED,
        "Old: backend, a layer's weight as argument #2",
        r"Expected object of backend (?P<want>\w+) but got backend (?P<got>\w+) for argument #2 '(?P<arg>weight|mat2)'",
        "mixed-devices",
        reader="mixed",
        # 1.0-1.4: argument #2 is a convolution's weight (input, weight) or, under F.linear, input.matmul(weight.t())'s
        # mat2: the argument's device is the module's (a loss's class weights are argument #3)
        roles=dict(devices=("want", "got"), arg="arg", odd="got", home="want", convert="type", weights="got"),
        example="RuntimeError: Expected object of backend CUDA but got backend CPU for argument #2 'weight'",
        releases="1.0-1.4 era",
        source="https://github.com/hkzhang-git/HiNAS/issues/3; https://github.com/ondyari/FaceForensics/issues/25 (conv2d); "
        "https://github.com/Xiangyu-CAS/AICity2020-VOC-ReID/issues/1 (F.linear's matmul)",
    ),
    Family(
        "legacy-backend",
        MIXED,
        "Old: backend",
        r"Expected object of backend (?P<want>\w+) but got backend (?P<got>\w+) for (?:argument #\d+ '(?P<arg>\w+)'"
        r"|sequence element \d+ in sequence argument at position #\d+ '(?P<seq>\w+)')",
        "mixed-devices",
        reader="mixed",
        roles=dict(devices=("want", "got"), arg=("arg", "seq"), odd="got", home="want", convert="type"),
        example="Expected object of backend CUDA but got backend CPU for argument #2 'other'",
        releases="1.0-1.4 era",
        source="aten/src/ATen/Utils.h (checked_tensor_unwrap)",
    ),
    Family(
        "legacy-expected-device",
        MIXED,
        "Old: expected device ... but got device ...",
        rf"expected (?:device|backend) (?P<want>{DEV})(?: and dtype \w+)? but got (?:device|backend) "
        rf"(?P<got>{DEV})(?: and dtype \w+)?(?P<value> for value tensor)?",
        "mixed-devices",
        reader="legacy_expected",
        example="expected device cuda:0 but got device cpu (index_put_: ... for value tensor)",
        releases="1.1-1.5 era; '... for value tensor' still in 2.13.0",
        source="aten/src/ATen/native/TensorIterator.cpp (compute_types)",
    ),
    Family(
        "legacy-cat",
        MIXED,
        "Old: torch.cat",
        rf"(?:torch\.cat\(\): )?[Aa]ll input tensors must be on the same device\. Received (?P<a>{DEV}) and (?P<b>{DEV})",
        "mixed-devices",
        reader="mixed",
        roles=dict(devices=("a", "b"), arg="tensors", op="cat", odd="a", home="b"),
        example="torch.cat(): all input tensors must be on the same device. Received cpu and mps:0",
        releases="1.5-1.x (cuda/Shape.cu); MPS 2.7.1-2.9.1 (Shape.mm)",
        source="aten/src/ATen/native/cuda/Shape.cu",
    ),
    Family(
        "legacy-different-gpus",
        MIXED,
        "Old: THC",
        r"arguments are located on different GPUs|tensors are on different GPUs",
        "mixed-devices",
        reader="mixed",
        roles=dict(devices="*", fallback=("cuda",)),
        cause=(
            "the tensors of one CUDA operation are on different GPUs (or one is on the CPU); this old message names "
            "neither. An operation runs on one device."
        ),
        example="arguments are located on different GPUs at /pytorch/aten/src/THC/generic/THCTensorMathBlas.cu:255",
        releases="0.2-1.x (THC; 'tensors are on different GPUs' in 0.2)",
        source=(
            "aten/src/THC/THCGeneral.h.in (THCAssertSameGPU); "
            "https://discuss.pytorch.org/t/about-cvpr-best-paper-whats-matters-need-attention-when-dealing-with-nn-dataparallel/5155"
        ),
    ),
    Family(
        "legacy-current-device",
        MIXED,
        "Old: index_select on CUDA, a tensor off the current GPU",
        r"Input, output and indices must be on the current device",
        "mixed-devices",
        devices=("cuda",),
        roles=dict(argument="index", operator="index_select"),
        cause=(
            "CUDA's index_select (the lookup under nn.Embedding) found its input, its output and its indices not "
            "all on the current GPU. Almost always the token ids are still on the CPU while the embedding is on "
            "the GPU: input_ids.to(device) written without assigning the result (.to() returns a new tensor and "
            "leaves the old one where it was); or, with several GPUs, the model is on cuda:1 while the current "
            "device is cuda:0 (nn.DataParallel replicas, a library exporting on each GPU)."
        ),
        fix=(
            "Assign what .to() returns: input_ids = input_ids.to(model.device) (or next(model.parameters()).device); "
            "with several GPUs keep the model and its inputs on one cuda:N and make it the current device: "
            "torch.cuda.set_device(n). " + _FIND
        ),
        example="RuntimeError: Input, output and indices must be on the current device",
        releases=(
            "1.x CUDA builds (index_select_out_cuda); later releases report the same mistake first as "
            "'Expected all tensors to be on the same device ... wrapper_CUDA__index_select'"
        ),
        source="aten/src/ATen/native/cuda/Indexing.cu (1.x); https://github.com/huggingface/transformers/issues/9229",
    ),
    Family(
        "legacy-randperm-cpu",
        MIXED,
        "Old: randperm had no CUDA kernel",
        r"(?P<op>randperm) is only implemented for CPU",
        "op-not-on-device",
        devices=("cuda",),
        cause=(
            "PyTorch 0.4 could make a random permutation only on the CPU, and this call asked for one on CUDA: "
            "almost always because torch.set_default_tensor_type('torch.cuda.FloatTensor') made CUDA the default "
            "for every new tensor, including the indices a shuffling DataLoader (RandomSampler) or random_split "
            "draws with randperm."
        ),
        fix=(
            "Upgrade PyTorch (1.x and later have randperm on CUDA). On 0.4: leave the default tensor type alone and "
            "move tensors with .to(device), or ask for the CPU explicitly: torch.randperm(n, device='cpu')."
        ),
        example="RuntimeError: randperm is only implemented for CPU",
        releases="0.4 and the 0.5 pre-releases",
        source="https://github.com/pytorch/pytorch/issues/6874",
    ),
    Family(
        "same-device-new",
        MIXED,
        "Dispatcher check, new wording",
        rf"Expected all tensors to be on the same device, but got (?P<arg>\w+) is on (?P<found>{DEV}), "
        rf"different from other tensors on (?P<home>{DEV})"
        rf"(?: \(when checking argument (?:for argument \w+ )?in method (?P<op>\w+)\))?",
        "mixed-devices",
        reader="mixed",
        roles=dict(devices=("found", "home"), arg="arg", op="op", odd="found", home="home", weights="infer"),
        example="Expected all tensors to be on the same device, but got mat1 is on cpu, different from other tensors "
        "on cuda:0 (when checking argument in method wrapper_CUDA_addmm)",
        releases="2.8.0 and later (read in 2.13.0, 2.14.1)",
        source="aten/src/ATen/core/op_registration/adaption.cpp (pytorch/pytorch#155085)",
    ),
    Family(
        "same-device-old",
        MIXED,
        "Dispatcher check (2.7 and earlier) and TensorIterator",
        rf"Expected all tensors to be on the same (?:common )?device, but found at least two devices, "
        rf"(?P<home>{DEV}) and (?P<found>{DEV})!(?: \(when checking ar(?:gu|ug)ment for argument (?P<arg>\w+) "
        rf"in method (?P<op>\w+)\))?",
        "mixed-devices",
        reader="mixed",
        roles=dict(devices=("home", "found"), arg="arg", op="op", odd="found", home="home", weights="infer", sides_only_with="arg"),
        example="Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!",
        releases="TensorIterator: 1.x to 2.14.1; the dispatcher's: 2.7.1 and older (older spell it 'arugment')",
        source="aten/src/ATen/TensorIterator.cpp; adaption.cpp of 2.7.1",
    ),
    Family(
        "meta-wording",
        MIXED,
        "meta and fake tensors",
        rf"Tensor on device (?P<found>{DEV}) is not on the expected device (?P<home>{DEV})!?",
        "mixed-devices",
        devices=("{found}", "{home}"),
        # torch/_prims_common's check_same_device calls "expected" the first device it meets among the operation's
        # tensors: for nn.Linear often the module's bias, so a model on meta and an input on the CPU reads
        # "Tensor on device meta is not on the expected device cpu!". The message cannot say which is the model's.
        cause=(
            "one tensor of the operation is on {found} and another on {home}. This wording (PyTorch's "
            "check_same_device, used for meta and fake tensors) calls 'expected' the first device it met among "
            "the operation's tensors, which need not be your model's: the message does not say which tensor is "
            "the model's. (On CUDA the same mistake reads 'Expected all tensors to be on the same device'.) "
            "Where one side is meta, that tensor has no data at all: in a model loaded with Hugging Face or "
            "Accelerate (device_map, low_cpu_mem_usage, init_empty_weights), which build it on meta and fill "
            "each weight while loading, it is a weight never loaded: missing from the checkpoint, or left "
            "behind when GPU and CPU memory ran out."
        ),
        fix=(
            "Do not move a tensor just because the message calls its device unexpected. The rule: the input goes to "
            "the model, x = x.to(next(model.parameters()).device), and tensors made inside forward() use "
            "device=x.device. " + _FIND + " Ask the model where it is: next(model.parameters()).device. "
            "For meta, list the weights that were never loaded, [n for n, p in model.named_parameters() if "
            "p.is_meta], and load them (the loader's missing-keys warning, enough max_memory or an offload_folder) "
            "rather than moving anything to or from meta."
        ),
        example="Tensor on device cpu is not on the expected device meta!",
        releases="2.x (read in 2.13.0)",
        source="torch/_prims_common/__init__.py (check_same_device)",
    ),
    Family(
        "rnn-parameters",
        MIXED,
        "RNN input and parameters",
        rf"Input and parameter tensors are not at the same device, found input tensor at (?P<a>{DEV}) "
        rf"and parameter tensor at (?P<b>{DEV})",
        "mixed-devices",
        reader="mixed",
        roles=dict(devices=("a", "b"), arg="input", op="RNN", odd="a", home="b", weights="b"),
        example="Input and parameter tensors are not at the same device, found input tensor at cpu and parameter tensor at cuda:0",
        releases="1.x-2.x",
        source="aten/src/ATen/native/RNN.cpp",
    ),
    Family(
        "cross-device-copy",
        MIXED,
        "out= on another device",
        rf"Attempting to copy from device (?P<a>{DEV}) to device (?P<b>{DEV}), but cross-device copies",
        "mixed-devices",
        reader="mixed",
        roles=dict(devices=("a", "b"), arg="out", odd="a", home="b"),
        cause=("the result would have to be copied from {a} into an out= tensor on {b}, and this operation does not copy across devices."),
        fix="Pass an out= tensor on {a}, or drop out= and move the result with .to().",
        example="Attempting to copy from device cuda:0 to device cpu, but cross-device copies are not allowed!",
        releases="2.x",
        source="aten/src/ATen/native/Resize.h",
    ),
    Family(
        "foreach-optimizer",
        MIXED,
        "Foreach optimizer state",
        r"Tensors of the same index must be on the same device and the same dtype",
        "optimizer-state",
        cause=(
            "a multi-tensor (foreach) optimizer step found a parameter and its state (e.g. Adam's exp_avg, "
            "SGD's momentum_buffer) on different devices (or dtypes). Typical cause: the model was moved to another "
            "accelerator (cuda:0 to cuda:1, say) after the optimizer had already stepped, so its state stayed "
            "behind. (State left on the CPU passes this check, which lets float32 CPU tensors through for the "
            "step counters, and fails in the update instead: 'Expected all tensors to be on the same device'.)"
        ),
        fix=(
            "Move the model before creating the optimizer. If the state already exists, "
            "optimizer.load_state_dict(optimizer.state_dict()) moves it to each parameter's device; when resuming, "
            "load the checkpoint's optimizer state after model.to(device)."
        ),
        example="Tensors of the same index must be on the same device and the same dtype except `step` tensors ...",
        releases="read in 2.13.0",
        source="libtorch_python.so of the 2.13.0 wheel",
    ),
    Family(
        "rnn-hidden",
        MIXED,
        "RNN input and hidden state",
        rf"Input and hidden tensors are not at the same device, found input tensor at (?P<a>{DEV}) "
        rf"and hidden tensor at (?P<b>{DEV})",
        "mixed-devices",
        reader="mixed",
        roles=dict(devices=("a", "b"), arg="hx", op="RNN", odd="b", home="a", convert="legacy"),
        fix=(
            "Create the initial hidden (and cell) state on the input's device: h0 = torch.zeros(..., device=x.device), "
            "or pass no state at all (PyTorch then makes zeros on the right device)."
        ),
        example="Input and hidden tensors are not at the same device, found input tensor at cuda:0 and hidden tensor at cpu",
        releases="1.x-2.x",
        source="aten/src/ATen/native/RNN.cpp",
    ),
    Family(
        "where-devices",
        MIXED,
        "torch.where: condition, x and y on different devices",
        rf"Expected condition, x and y to be on the same device, but condition is on (?P<c>{DEV}) and x and y are "
        rf"on (?P<x>{DEV}) and (?P<y>{DEV}) respectively",
        "mixed-devices",
        devices=("*",),
        cause=(
            "torch.where(condition, x, y) got condition on {c!l}, x on {x!l} and y on {y!l}; all three must be on one "
            "device. Usually one of them was made on the spot without device=, such as torch.tensor(0.0) or "
            "torch.zeros_like(...) of a CPU tensor, or the mask was built from CPU data."
        ),
        fix=(
            "Pass a plain number instead of a one-element tensor: torch.where(mask, x, 0.0) (a Python scalar "
            "works on any device), or make it where x is: torch.tensor(0.0, device=x.device); move a mask with "
            "mask.to(x.device)."
        ),
        example="RuntimeError: Expected condition, x and y to be on the same device, but condition is on cuda:0 and x "
        "and y are on cuda:0 and CPU respectively",
        releases="1.x era (where_self's own check); not in the 2.13.0 wheel's libraries",
        source="https://github.com/akarasman/yolo-heatmaps/issues/13",
    ),
    Family(
        "masked-fill-value-device",
        MIXED,
        "masked_fill: the fill value is a tensor on another device",
        r"Expected `value` to be on same device as `a`",
        "mixed-devices",
        cause=(
            "masked_fill was given its fill value as a tensor on another device than the tensor it fills (`a`). "
            "This check is in PyTorch's Python version of masked_fill (torch._refs), which torch.compile and "
            "out-of-tree devices (PrivateUse1 backends) run; it lets a CPU scalar through only for CUDA and XPU "
            "tensors, where eager mode is more lenient."
        ),
        fix=("Pass the value as a Python number: x.masked_fill(mask, float(value)) (or value.item()), or move it first: value.to(x.device)."),
        example="RuntimeError: Expected `value` to be on same device as `a`",
        releases="2.x (torch/_refs/__init__.py, masked_fill)",
        source="https://github.com/pytorch/pytorch/issues/124693 (a PrivateUse1 device, hf_DistilBert)",
    ),
    Family(
        "data-parallel",
        MIXED,
        "DataParallel, model not moved",
        rf"module must have its parameters and buffers on device\s*(?P<home>{DEV})\s*\(device_ids\[0\]\)\s*"
        rf"but found one of them on device\s*:\s*(?P<found>{DEV})",
        "mixed-devices",
        reader="mixed",
        roles=dict(devices=("home", "found"), op="DataParallel", odd="found", home="home"),
        cause=("nn.DataParallel replicates the model from {home} (device_ids[0]), but a parameter or buffer of the model is still on {found}."),
        fix=(
            "Move the model before wrapping it: model = nn.DataParallel(model.to('{home}'), device_ids=...). "
            "placement_report(model) lists any tensor left behind (a plain tensor attribute needs register_buffer)."
        ),
        example="module must have its parameters and buffers on device cuda:0 (device_ids[0]) but found one of them on device: cpu",
        releases="1.x-2.x",
        source="torch/nn/parallel/data_parallel.py",
    ),
    Family(
        "legacy-argument-on",
        MIXED,
        "Old: cuDNN argument checks (CPU/GPU)",
        r"Tensor for argument #\d+ '(?P<arg>\w+)' is on (?P<found>CPU|GPU)\b.*?, but expected (?:it|them) "
        r"to be on (?P<want>CPU|GPU)(?: \(while checking arguments for (?P<op>\w+)\))?",
        "mixed-devices",
        reader="mixed",
        roles=dict(devices=("want", "found"), arg="arg", op="op", odd="found", home="want", weights="infer", convert="legacy"),
        example="Tensor for argument #2 'mat1' is on CPU, but expected it to be on GPU (while checking arguments for addmm)",
        releases="1.x era",
        source="aten/src/ATen/TensorUtils.cpp",
    ),
    Family(
        "legacy-same-device",
        MIXED,
        "Old: cuDNN argument checks (device numbers)",
        r"Expected tensor for argument #\d+ '(?P<a1>\w+)' to have the same device as tensor for argument "
        r"#\d+ '(?P<a2>\w+)'\s*; but device (?P<d1>-?\d+) does not equal (?P<d2>-?\d+)"
        r"(?: \(while checking arguments for (?P<op>\w+)\))?",
        "mixed-devices",
        reader="mixed",
        roles=dict(devices=("d2", "d1"), arg="a1", op="op", odd="d1", home="d2", weights="named-weight", convert="legacy"),
        example="Expected tensor for argument #1 'input' to have the same device as tensor for argument #2 'weight'; "
        "but device 0 does not equal 1 (while checking arguments for cudnn_convolution)",
        releases="1.x era",
        source="aten/src/ATen/TensorUtils.cpp (checkSameGPU)",
    ),
    Family(
        "legacy-same-device-cut",
        MIXED,
        "Old: cuDNN argument checks, cut before the device numbers",
        r"expected tensor for argument #\d+ '(?P<a1>\w+)' to have the same device as tensor for argument "
        r"#\d+ '(?P<a2>\w+)(?!'\s*; but device)",
        "mixed-devices",
        devices=("cuda",),
        flags=re.IGNORECASE,
        cause=(
            "PyTorch 1.x's check before a cuDNN call found `{a1}` and `{a2}` on different GPUs (or one of them on the "
            "CPU); the message was cut before it names them ('; but device 1 does not equal 0'). For a "
            "convolution, `input` is the batch and `weight` the layer's own parameter: the model is on one device and "
            "the batch on another, often because a GPU index was chosen (--gpu 1, --cuda 1) for one but not the other."
        ),
        fix=(
            "Move the batch to the model: x = x.to(next(model.parameters()).device); with several GPUs, choose the "
            "GPU once, CUDA_VISIBLE_DEVICES=1 in the shell (the process then sees it as cuda:0), rather than moving "
            "each tensor to 'cuda:1'. The whole message names both device numbers."
        ),
        example="RuntimeError:  :expected tensor for argument #1 'input' to have the same device as tensor for argument #2 'weight",
        releases="1.x era, as pasted cut",
        source="https://github.com/nshaud/DeepHyperX/issues/54",
    ),
    Family(
        "mps-placeholder",
        MIXED,
        "MPS: a tensor that is not on mps",
        r"Placeholder storage has not been allocated on MPS device",
        "mixed-devices",
        reader="mixed",
        roles=dict(devices=("mps", "cpu"), odd="cpu", home="mps"),
        cause=(
            "an operation running on Apple's GPU (MPS) was given a tensor that is still on the CPU: usually the input "
            "was not moved, or part of the model (a plain tensor attribute) was left behind. This is MPS's wording "
            "of the cross-device error."
        ),
        example="Placeholder storage has not been allocated on MPS device!",
        releases="every macOS arm64 wheel 2.7.1-2.14.1",
        source="aten/src/ATen/native/mps/OperationUtils.mm",
    ),
    Family(
        "generator-index",
        MIXED,
        "A generator without the index its device has (1.8's randperm)",
        r"Expected a '(?P<want>(?P<type>[a-z]+):\d+)' generator device but found '(?P=type)'",
        "generator-device",
        devices=("{want}", "{type}"),
        cause=(
            "both sides are the same GPU: a torch.Generator(device='{type}') has no index, and PyTorch 1.8's "
            "randperm on {type} (used by RandomSampler, random_split and shuffle=True) compared the devices "
            "exactly, index included, so '{type}' did not equal '{want}'. Other random functions accepted it, "
            "and later releases compare the device type only (pytorch/pytorch#59352)."
        ),
        fix=(
            "Give the generator its index: torch.Generator(device='{want}') (or torch.device('{type}', "
            "torch.{type}.current_device())), or upgrade PyTorch; nothing needs to move."
        ),
        example="Expected a 'cuda:0' generator device but found 'cuda'",
        releases="1.8.x (randperm_out_cuda); later releases compare the device type only",
        source="https://github.com/pytorch/pytorch/issues/58545; https://github.com/pytorch/pytorch/pull/59352",
    ),
    Family(
        "generator-device",
        MIXED,
        "A generator of another device",
        r"Expected a '(?P<want>[\w:]+)' (?:device type for generator|generator device) but found '(?P<got>[\w:]+)'",
        "generator-device",
        devices=("{want}", "{got}"),
        cause=(
            "a random operation ran on {want} but was given a random-number generator on {got}. Typical cause: "
            "torch.set_default_device('{want}') (or `with torch.device(...)`) is in effect, and a DataLoader with "
            "shuffle=True (RandomSampler, randperm) or a torch.Generator() made elsewhere lives on {got}."
        ),
        fix=(
            "Pass a generator on the same device, e.g. DataLoader(..., generator=torch.Generator(device='{want}')), "
            "or avoid a global default device: create tensors with device= instead."
        ),
        example="Expected a 'mps:0' generator device but found 'cpu'",
        releases="'device type for generator': read in 2.13.0, 2.14.1; 'generator device': read in 2.13.0",
        source="libtorch_cpu.so (check_generator); https://github.com/pytorch/pytorch/issues/110820",
    ),
    Family(
        "generator-not-accelerator",
        MIXED,
        "A generator for a device that has none",
        r"(?P<type>[A-Z][A-Z0-9_]*) device type not an accelerator\.?",
        "generator-device",
        devices=("{type!l}",),
        cause=(
            "something that needs a device's random-number generator (most often torch.Generator(device=...)) was "
            "given {type!l}, a device type with no generator of its own. Typical cause: the device came from "
            "torch.get_default_device() or x.device while a notebook had left torch.set_default_device('{type!l}') "
            "on (meta is the usual one)."
        ),
        fix=(
            "Make the generator on the CPU, torch.Generator(device='cpu').manual_seed(seed), or on a real "
            "accelerator. If a default device is left on, turn it off (torch.set_default_device(None)) or run the "
            "loop inside `with torch.device('cpu'):`."
        ),
        example="META device type not an accelerator.",
        releases="read in 2.7.1, 2.13.0 and 2.14.1, raised live (torch.Generator(device='meta'))",
        source="libc10.so and libtorch_cpu.so (the accelerator hooks); lesson 11, exercise 11.2",
    ),
    Family(
        "generator-diffusers",
        LIBRARIES,
        "Diffusers: a generator of another device",
        r"Cannot generate a (?P<device>\w+(?::\d+)?) tensor from a generator of type (?P<gen>\w+)",
        "generator-device",
        devices=("{device}", "{gen}"),
        cause=(
            "Diffusers' randn_tensor was asked for noise on {device} with a torch.Generator made on {gen}; it accepts a "
            "generator on the pipeline's device, or on the CPU, but not a {gen} generator for a {device} tensor."
        ),
        fix=(
            "Make the generator where the pipeline runs, torch.Generator(device=pipe.device).manual_seed(0), or on the "
            "CPU, torch.Generator('cpu').manual_seed(0) (the same seed then gives the same image on any device)."
        ),
        example="Cannot generate a cpu tensor from a generator of type cuda.",
        releases="diffusers 0.42.1",
        source="diffusers/utils/torch_utils.py (randn_tensor)",
    ),
    Family(
        "collective-no-backend",
        DISTRIBUTED,
        "Collective: no backend for this device type",
        r"No backend type associated with device type (?P<type>\w+)",
        "collective-device",
        devices=("{type!l}",),
        cause=(
            "a torch.distributed collective (all_reduce, broadcast, barrier, ...) got a tensor on {type}, and the "
            "process group has no backend for {type} tensors: each backend serves its own devices (NCCL: CUDA, "
            "gloo: the CPU, XCCL: Intel's XPU, HCCL: Ascend's NPU with torch_npu), and init_process_group(backend="
            "...) registered only the ones it names."
        ),
        fix=(
            "Move the tensor to the device the group serves, t = t.to(device) with this process's device, or "
            "initialise the group with a backend for each device type you use: init_process_group(backend="
            "'cpu:gloo,cuda:nccl') (an accelerator's own in place of cuda:nccl, such as 'xpu:xccl', or "
            "'npu:hccl' with torch_npu)."
        ),
        example="No backend type associated with device type cpu",
        releases="read in 2.13.0, 2.14.1; 'device type npu' in a public report",
        source="libtorch_cpu.so (c10d); https://github.com/ray-project/ray/issues/50516",
    ),
    Family(
        "collective-device",
        DISTRIBUTED,
        "Collective on the wrong device",
        r"Tensors must be CUDA and dense",
        "collective-device",
        devices=("*",),
        roles=dict(fallback=("cpu",)),
        cause=(
            "a torch.distributed collective of an NCCL process group got a tensor NCCL does not serve: NCCL takes "
            "only dense CUDA tensors (on this process's GPU), and this one is on the CPU (or is sparse); gloo takes "
            "CPU tensors."
        ),
        fix=(
            "Move the tensor to this process's device first, t = t.to(torch.device('cuda', local_rank)), or "
            "initialise the process group with backend='gloo' for CPU tensors (or 'cpu:gloo,cuda:nccl' for both)."
        ),
        example="Tensors must be CUDA and dense",
        releases="1.8.2 and 1.12.0 in a public report (NCCL's check of its tensors)",
        source="torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp; https://github.com/pytorch/examples/issues/1030",
    ),
    Family(
        "same-device-cut-embedding",
        MIXED,
        "A message cut short, under an embedding lookup",
        r"(?s)^(?=.*(?:index_select|[Ee]mbedding|argument for argument index\b|but got index\b))"
        r".*?Expected all tensors to be on the same device",
        "mixed-devices",
        devices=("*",),
        roles=dict(argument="index", operator="index_select"),
        cause=(
            "nn.Embedding looks its rows up with index_select, and the token ids (the `index`) and the embedding "
            "table (the layer's weight) are on different devices: usually the model is on the GPU and the batch "
            "of token ids is still on the CPU."
        ),
        fix=(
            "Move the token ids to the embedding table's device: ids = ids.to(model.get_input_embeddings().weight"
            ".device) (or next(model.parameters()).device); with Hugging Face, inputs = tokenizer(..., "
            "return_tensors='pt').to(model.device). " + _FIND
        ),
        example="Expected all tensors to be on the same device, but got index is on cpu, different from other tensors on",
        releases="any",
        source="the wordings above, cut before their devices",
    ),
    Family(
        "same-device-cut",
        MIXED,
        "A message cut short",
        r"Expected all tensors to be on the same device",
        "mixed-devices",
        reader="mixed",
        roles=dict(devices="*"),
        example="Expected all tensors to be on the same device, but found at least two devices,",
        releases="any",
        source="the wordings above, cut before their devices",
    ),
    Family(
        "legacy-type",
        MIXED,
        "Old: type names",
        r"Expected object of type (?:Variable\[)?(?:torch\.)?(?P<t1>[\w.]+?)\]? but found type (?:Variable\[)?"
        r"(?:torch\.)?(?P<t2>[\w.]+?)\]? for argument #\d+ '(?P<arg>\w+)'",
        "mixed-devices",
        reader="mixed",
        roles=dict(devices=("t1", "t2"), arg="arg", odd="t2", home="t1", convert="type", note="legacy-type"),
        example="Expected object of type torch.cuda.LongTensor but found type torch.LongTensor for argument #3 'other'",
        releases="0.4-1.0 era",
        source="aten/src/ATen (0.4-1.0)",
    ),
    Family(
        "legacy-device-type",
        MIXED,
        "Old: device type",
        r"Expected object of device type (?P<want>\w+) but got device type (?P<got>\w+) "
        r"for argument #\d+ '(?P<arg>\w+)'(?: in call to (?P<op>\w+))?",
        "mixed-devices",
        reader="mixed",
        roles=dict(devices=("want", "got"), arg="arg", op="op", odd="got", home="want", weights="infer"),
        example="Expected object of device type cuda but got device type cpu for argument #1 'self' in call to _th_addmm",
        releases="1.x era",
        source="aten/src/ATen (1.x)",
    ),
    Family(
        "conv-types",
        MIXED,
        "Convolution as a type mismatch",
        r"Input type \((?P<t1>[\w.]+)\) and (?P<what>weight|bias) type \((?P<t2>[\w.]+)\) should be the sam",
        "mixed-devices",
        reader="conv_types",
        example="Input type (torch.FloatTensor) and weight type (torch.cuda.FloatTensor) should be the same or input "
        "should be a MKLDNN tensor and weight is a dense tensor",
        releases="2.7.1-2.14.1 (MPS: 'MPSFloatType', not renamed)",
        source="aten/src/ATen/native/Convolution.cpp (check_input_same_type_as_parameters)",
    ),
    Family(
        "conv-backward-types",
        MIXED,
        "Convolution backward as a type mismatch (1.x)",
        r"Expected tensor for argument #\d+ '(?:grad_output|input|self)' to have the same type as tensor for argument "
        r"#\d+ '(?P<what>weight|bias)'; but type (?P<t1>[\w.]+) does not equal (?P<t2>[\w.]+)",
        "mixed-devices",
        reader="conv_types",
        example=(
            "Expected tensor for argument #1 'grad_output' to have the same type as tensor for argument #2 "
            "'weight'; but type torch.cuda.FloatTensor does not equal torch.FloatTensor (while checking "
            "arguments for cudnn_convolution_backward_input)"
        ),
        releases="1.x (aten/src/ATen/TensorUtils.cpp checkSameType); a device mismatch in it when the types' devices differ",
        source=(
            "constructed from the wording of https://github.com/jik876/hifi-gan/issues/44 (there a dtype case, "
            "both on cuda: the reader passes it on to the dtype look-alike)"
        ),
    ),
    Family(
        "index-device",
        MIXED,
        "Indexing",
        rf"indices should be either on \w+ or on the same device as the indexed tensor \((?P<home>{DEV})\)",
        "index-device",
        devices=("{home}",),
        flags=re.IGNORECASE,
        roles=dict(argument="indices", operator="index"),
        cause=(
            "the index tensor is on a device that is neither the CPU nor the indexed tensor's device ({home}). "
            "Indices may live on the CPU or on the indexed tensor's device; an index on an accelerator (CUDA, "
            "MPS) into a CPU tensor is not allowed."
        ),
        fix="Move the index to the indexed tensor's device: table[idx.to('{home}')].",
        example="indices should be either on cpu or on the same device as the indexed tensor (cuda:1)",
        releases="read in 2.13.0, 2.14.1",
        source="aten/src/ATen/native/TensorAdvancedIndexing.cpp",
    ),
    # ------------------------------------------------------------------ is there a GPU at all?
    Family(
        "checkpoint-no-backend",
        GPU,
        "Checkpoint from a GPU, no such GPU here",
        r"Attempting to deserialize object on a (?P<backend>[A-Za-z0-9]+) device but torch\.\w+\.is_available\(\) is False",
        "checkpoint-device-unavailable",
        devices=("{backend!l}",),
        cause=(
            "the checkpoint was saved from tensors on {backend!u}, and torch.load puts every tensor back on "
            "the device it was saved from, but this machine has no usable {backend!u} device."
        ),
        fix=(
            "Tell torch.load where to put the tensors: torch.load(path, map_location='cpu'), or this machine's "
            "device: torch.load(path, map_location=device); then model.to(device)."
        ),
        example="Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is False. ...",
        releases="read in 2.13.0",
        source="torch/serialization.py",
    ),
    Family(
        "checkpoint-none-counted",
        GPU,
        "Checkpoint from GPU N, no GPU here",
        r"(?:Attempting|Trying) to deserialize object on (?P<backend>[A-Za-z0-9]+) device (?P<index>\d+) but "
        r"torch\.\w+\.device_count(?:\(\)|（）) is 0\b",
        "checkpoint-device-unavailable",
        devices=("{backend!l}:{index}",),
        cause=(
            "the checkpoint holds tensors saved from {backend!l}:{index}, and torch.load restores them there, but "
            "this machine has no {backend!u} device at all (device_count() is 0)."
        ),
        fix=(
            "torch.load(path, map_location='cpu'), or this machine's device: map_location=device (never a "
            "'{backend!l}:N' index: there is none here)."
        ),
        example="Attempting to deserialize object on CUDA device 0 but torch.cuda.device_count() is 0. ...",
        releases="read in 2.13.0",
        source="torch/serialization.py (validate_cuda_device)",
    ),
    Family(
        "checkpoint-past-count",
        GPU,
        "Checkpoint from GPU N, fewer GPUs here",
        r"(?:Attempting|Trying) to deserialize object on (?P<backend>[A-Za-z0-9]+) device (?P<index>\d+) but "
        r"torch\.\w+\.device_count(?:\(\)|（）) is (?P<count>\d+)",
        "checkpoint-device-unavailable",
        devices=("{backend!l}:{index}",),
        cause=(
            "the checkpoint holds tensors saved from {backend!l}:{index}, and torch.load restores them there, but "
            "this machine has only {count} {backend!u} device(s)."
        ),
        fix=(
            "torch.load(path, map_location='cpu') and then model.to(device), or map them to a GPU that exists: "
            "map_location='{backend!l}:0' or a dict such as map_location={{'{backend!l}:{index}': '{backend!l}:0'}}."
        ),
        example="Attempting to deserialize object on CUDA device 1 but torch.cuda.device_count() is 1. ...",
        releases="read in 2.13.0",
        source="torch/serialization.py (validate_cuda_device)",
    ),
    Family(
        "checkpoint-not-registered",
        GPU,
        "Checkpoint from a device this PyTorch lacks",
        r"The (?P<backend>[A-Za-z0-9]+) device module is not registered",
        "checkpoint-device-unavailable",
        devices=("{backend!l}",),
        cause="the checkpoint was saved from a {backend!u} device, which this PyTorch does not support.",
        fix="torch.load(path, map_location='cpu').",
        example="The XPU device module is not registered",
        releases="2.x",
        source="torch/serialization.py",
    ),
    Family(
        "cuda-device-count-failed",
        GPU,
        "The CUDA runtime could not count the GPUs",
        r"Unexpected error from cudaGetDeviceCount\(\)\.(?: Did you run some cuda functions before calling "
        r"NumCudaDevices\(\) that might have already set an error\?)? Error (?P<code>\d+): "
        r"(?P<reason>[^\n]+?)(?: \(Triggered internally|\n|$)",
        "no-gpu-visible",
        devices=("cuda",),
        cause=(
            "PyTorch asked the CUDA runtime how many GPUs there are and the question itself failed (error {code}: "
            "{reason}), so torch.cuda.is_available() is False. It is the machine's driver setup, not your code "
            "or tensors: 804 'forward compatibility was attempted on non supported HW' and 803 'unsupported "
            "display driver / cuda driver combination' mean the CUDA user-space driver does not match the kernel "
            "driver (a driver updated without a reboot, or a container's CUDA compat libraries on a GPU they do "
            "not support); 802 'system not yet initialized' is an NVSwitch machine (HGX A100/H100) whose "
            "nvidia-fabricmanager is not running; 101 'invalid device ordinal' is CUDA_VISIBLE_DEVICES naming a "
            "GPU that does not exist."
        ),
        fix=(
            "Run nvidia-smi and echo $CUDA_VISIBLE_DEVICES in the same environment (container, job). Then: reboot "
            "after a driver update (803/804), drop the container's cuda-compat libraries or use an image whose CUDA "
            "the host driver supports (804), start nvidia-fabricmanager with the driver's version (802), or fix "
            "CUDA_VISIBLE_DEVICES (101). Meanwhile " + _CPU_FALLBACK + " runs on the CPU."
        ),
        example=(
            "Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling "
            "NumCudaDevices() that might have already set an error? Error 804: forward compatibility was "
            "attempted on non supported HW"
        ),
        releases="CUDA builds 1.x-2.x (also as the UserWarning 'CUDA initialization: ...')",
        source="c10/cuda/CUDAFunctions.cpp; https://github.com/chenfei-wu/TaskMatrix/issues/379",
    ),
    Family(
        "device-count-assert",
        GPU,
        "A device index outside the count PyTorch made at start-up",
        r"device >= 0 && device < num_gpus INTERNAL ASSERT FAILED",
        "invalid-device-ordinal",
        devices=("cuda",),
        cause=(
            "PyTorch counted the visible GPUs once (num_gpus) and a later call asked for a device index outside "
            "that count (often raised lazily, as 'CUDA call failed lazily at initialization'). The two disagree "
            "most often because CUDA_VISIBLE_DEVICES was set or changed inside Python after torch had started "
            "CUDA (os.environ[...] after import torch, or a library that sets it per worker), or it names GPUs "
            "that do not exist."
        ),
        fix=(
            "Set CUDA_VISIBLE_DEVICES in the shell before Python starts (CUDA_VISIBLE_DEVICES=1 python train.py), "
            "never from os.environ after import torch; compare torch.cuda.device_count() with nvidia-smi -L and "
            "use indices below the count (the visible GPUs are renumbered from 0). If both agree, it is an internal "
            "assert: report it with torch.__version__."
        ),
        example=(
            "CUDA call failed lazily at initialization with error: device >= 0 && device < num_gpus INTERNAL "
            'ASSERT FAILED at "../aten/src/ATen/cuda/CUDAContext.cpp":50, please report a bug to PyTorch.'
        ),
        releases="2.0-2.4 CUDA builds (aten/src/ATen/cuda/CUDAContext.cpp)",
        source="https://github.com/xorbitsai/inference/issues/1439; https://github.com/pytorch/pytorch/issues/107300",
    ),
    Family(
        "driver-too-old",
        GPU,
        "The NVIDIA driver older than this build's CUDA",
        r"NVIDIA driver on your system is too old(?: \(found version (?P<found>\d+)\))?"
        r"|CUDA driver version is insufficient for CUDA runtime version",
        "driver-too-old",
        devices=("cuda",),
        cause=(
            "this PyTorch was built with a newer CUDA than the installed NVIDIA driver supports, so it cannot use "
            "the GPU (torch.cuda.is_available() is False). Your tensors are not the problem."
        ),
        fix=(
            "Compare nvidia-smi's 'CUDA Version' (the newest the driver supports) with torch.version.cuda, then "
            "update the driver, or install a torch built for an older CUDA (pytorch.org/get-started, "
            "e.g. the cu118 or cu121 index)."
        ),
        example="The NVIDIA driver on your system is too old (found version 11040). Please update your GPU driver by "
        "downloading and installing a new version from the URL: http://www.nvidia.com/Download/index.aspx ...",
        releases="1.x-2.x CUDA builds (c10/cuda/CUDAFunctions.cpp)",
        source="https://github.com/lllyasviel/Fooocus/issues/1313",
    ),
    Family(
        "cuda-unknown-error",
        GPU,
        "CUDA could not start: 'CUDA unknown error'",
        r"CUDA unknown error - this may be due to an incorrectly set up environment",
        "no-gpu-visible",
        devices=("cuda",),
        cause=(
            "the NVIDIA driver failed to start CUDA in this process (cuInit returned 'unknown error'), so PyTorch "
            "counts zero GPUs: torch.cuda.is_available() is False, and the first .cuda() raises. The message's own "
            "guess, CUDA_VISIBLE_DEVICES changed after CUDA started, is one cause; in reports the usual ones are a "
            "driver or its nvidia_uvm module left in a bad state (after a laptop's suspend and resume, or a driver "
            "updated without a reboot), or a container started without GPU access. Your tensors are not the problem."
        ),
        fix=(
            "Run nvidia-smi: if it fails too, the driver is the problem. Reboot, or reload the module: "
            "sudo rmmod nvidia_uvm && sudo modprobe nvidia_uvm; in Docker, start the container with --gpus all. "
            "Set CUDA_VISIBLE_DEVICES in the shell (or at the top of the script, before anything touches CUDA), "
            "never after; then check torch.cuda.is_available() in a fresh Python."
        ),
        example="UserWarning: CUDA initialization: CUDA unknown error - this may be due to an incorrectly set up "
        "environment, e.g. changing env variable CUDA_VISIBLE_DEVICES after program start. Setting the available "
        "devices to be zero.",
        releases="1.7-2.x CUDA builds (a warning from torch.cuda.is_available(), a RuntimeError from _lazy_init)",
        source="https://github.com/pytorch/pytorch/issues/159954 (sudo modprobe -r nvidia_uvm && sudo modprobe nvidia_uvm); "
        "https://github.com/interaction-lab/BlossomNav/issues/4",
    ),
    Family(
        "checkpoint-unknown-location",
        GPU,
        "Checkpoint tagged with a device this torch cannot restore",
        r"don't know how to restore data location of \S+ \(tagged with (?P<tag>[\w:]+)\)",
        "checkpoint-device-unavailable",
        devices=("{tag!l}",),
        cause=(
            "the checkpoint's tensors are tagged with the device they were saved from, {tag}, and this PyTorch "
            "cannot put them back there (no such backend in this build)."
        ),
        fix=(
            "torch.load(path, map_location='cpu'), then model.to(device) for this machine's device; "
            "checkpoint_locations(path) (course_utils.checkpoints) shows the tags inside a file."
        ),
        example="don't know how to restore data location of torch.storage.UntypedStorage (tagged with mps)",
        releases="read in 2.13.0",
        source="torch/serialization.py (default_restore_location)",
    ),
    Family(
        "inductor-assumes-cuda",
        COMPILE,
        "torch.compile: Inductor took the device for CUDA",
        r"BackendCompilerFailed: \w+ raised:?\s*AssertionError: Torch not compiled with CUDA enabled",
        "compile-device-unsupported",
        cause=(
            "torch.compile's Inductor compiled a graph whose tensors are not on the CPU, and this PyTorch's "
            "Inductor treats every such device as CUDA; the build has no CUDA, so the device is another one: on a "
            "Mac, 'mps' (model.to('mps') or torch.set_default_device('mps')). Inductor had no MPS code generator "
            "before 2.8. The model is fine; it is the compiler that cannot target the device."
        ),
        fix=_COMPILE_ELSEWHERE,
        example="BackendCompilerFailed: debug_wrapper raised AssertionError: Torch not compiled with CUDA enabled",
        releases="2.0 (torch.compile of a model on 'mps'); from 2.2 Inductor says 'Device mps not supported'",
        source="https://github.com/pytorch/pytorch/issues/96976 (torch 2.0.0, macOS, set_default_device('mps'))",
    ),
    Family(
        "cuda-not-compiled",
        GPU,
        "CPU-only build",
        r"Torch not compiled with CUDA enabled|(?:PyTorch|Torch) (?:was )?compiled without CUDA support",
        "cuda-not-compiled",
        devices=("cuda",),
        cause=(
            "this PyTorch is a CPU-only build: it cannot use CUDA at all, whatever GPU the machine has. "
            "Something asked for CUDA: .cuda(), device='cuda', torch.cuda.current_device(), ..."
        ),
        fix=(
            "Write device-agnostic code: " + _CPU_FALLBACK + ". To use an NVIDIA GPU, install a CUDA build of torch (pytorch.org/get-started)."
        ),
        example="Torch not compiled with CUDA enabled",
        releases="read in 2.13.0, 2.14.1",
        source="torch/cuda/__init__.py",
    ),
    Family(
        "xpu-needs-ipex",
        GPU,
        "XPU before PyTorch had it: Intel's extension not imported",
        r"PyTorch is not linked with support for xpu devices",
        "backend-not-in-build",
        devices=("xpu",),
        cause=(
            "this PyTorch has no 'xpu' device of its own. Before PyTorch 2.5 (2.4 only when built from source) "
            "Intel GPUs came through Intel Extension for PyTorch (IPEX), which adds 'xpu' when it is imported, "
            "with a torch build made for it (such as 2.1.0a0+cxx11.abi with ipex 2.1.10+xpu); without that "
            "import, or with a stock torch next to it, .to('xpu') fails. From 2.5 PyTorch's own XPU wheels have it."
        ),
        fix=(
            "With IPEX: import intel_extension_for_pytorch (after import torch, before any .to('xpu')), and keep "
            "torch and IPEX at the versions IPEX's install page pairs. Or install PyTorch's XPU wheel "
            "(pip install torch --index-url https://download.pytorch.org/whl/xpu) and drop IPEX. Check with "
            "torch.xpu.is_available(); without an Intel GPU use 'cuda', 'mps' or 'cpu'."
        ),
        example="RuntimeError: PyTorch is not linked with support for xpu devices",
        releases="torch 1.13-2.4 with or without IPEX (reports: ipex 1.13.120+xpu, 2.1.10+xpu)",
        source="https://github.com/intel/intel-extension-for-pytorch/issues/392; https://github.com/intel/ipex-llm/issues/11525",
    ),
    Family(
        "backend-not-in-build",
        GPU,
        "A backend this build does not have (XPU, MPS, ...)",
        r"Torch not compiled with (?P<backend>XPU|MPS|HIP|MTIA) enabled"
        r"|PyTorch is not linked with support for (?P<linked>\w+) devices"
        r"|Cannot execute getNewGenerator\(\) without (?P<gen>\w+) backend",
        "backend-not-in-build",
        devices=("{name!l}",),
        roles=dict(alias=dict(name=("backend", "linked", "gen"))),
        cause=(
            "this PyTorch build has no {name!u} support at all: 'mps' exists only in the macOS arm64 wheels, 'xpu' "
            "only in the XPU wheels, 'cuda' only in CUDA (or ROCm) builds. Something in the code asked for "
            "'{name!l}'."
        ),
        fix=(
            "Use a device this build has: torch.accelerator.current_accelerator() (None means CPU only), or "
            "torch.backends.mps.is_available() / torch.xpu.is_available() before choosing; for {name!u} itself, "
            "install the build that has it (pytorch.org/get-started)."
        ),
        example="Torch not compiled with XPU enabled",
        releases="read in 2.13.0 (AssertionError from torch/xpu/__init__.py; 'not linked', libc10.so)",
        source="torch/xpu/__init__.py, libc10.so of the 2.13.0 CPU wheel",
    ),
    Family(
        "nvml-init",
        GPU,
        "NVML (the driver's management library) could not start",
        r"(?:Can't|Failed to) initiali[sz]e NVML(?:: (?P<why>[^\n]+))?",
        "nvml-init",
        devices=("cuda",),
        cause=(
            "NVML, the NVIDIA driver's management library (libnvidia-ml, what nvidia-smi uses), could not start. "
            "PyTorch asks NVML first to count GPUs without starting CUDA, and warns 'Can't initialize NVML' when "
            "that fails; then torch.cuda.device_count() is usually 0 and is_available() False, because the "
            "same driver is missing or unreachable: no NVIDIA driver loaded, a container started without GPU "
            "access (docker run --gpus all / the NVIDIA container toolkit), a driver upgraded without a reboot "
            "('Driver/library version mismatch'), or a container that lost its GPUs ('Unknown Error', often after "
            "the host reloaded systemd)."
        ),
        fix=(
            "Run nvidia-smi in the same environment (inside the container if there is one): until it lists the "
            "GPU, no PyTorch setting helps. Reboot after a driver update; restart the container with --gpus all; "
            "on a machine with no NVIDIA GPU the warning is harmless and the code should pick the CPU: "
            "device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')."
        ),
        example="UserWarning: Can't initialize NVML",
        releases="torch 1.13-2.13 (torch/cuda/__init__.py, _raw_device_count_nvml); nvidia-smi's 'Failed to initialize NVML'",
        source=(
            "torch/cuda/__init__.py of 2.13.0; https://github.com/pytorch/pytorch/issues/109098 (torch 2.0.1+cu117); "
            "https://docs.nvidia.com/deploy/nvml-api/group__nvmlInitializationAndCleanup.html"
        ),
    ),
    Family(
        "no-cuda-driver",
        GPU,
        "No driver",
        r"Found no NVIDIA driver on your system",
        "no-cuda-driver",
        devices=("cuda",),
        cause="this PyTorch is built for CUDA, but no NVIDIA driver is installed (or no GPU is present).",
        fix="Check `nvidia-smi`. Without a GPU, write device-agnostic code: " + _CPU_FALLBACK + ".",
        example="Found no NVIDIA driver on your system. ...",
        releases="read in 2.14.1",
        source="libc10_cuda.so",
    ),
    Family(
        "pin-no-accelerator",
        GPU,
        "Pinned memory on a machine without an accelerator",
        r"Need to provide pin_memory allocator to use pin memory"
        r"|pin_memory=True requires a CUDA or other accelerator backend",
        "no-accelerator",
        cause=(
            "pinned (page-locked) memory is allocated by an accelerator's runtime (CUDA, XPU, ...) so that copies "
            "to it are fast, and this process has none: a CPU-only torch build, or a machine without a GPU, was "
            "asked for pin_memory=True (torch.tensor(..., pin_memory=True), torch.empty(..., pin_memory=True), "
            "t.pin_memory())."
        ),
        fix=(
            "Pin only when there is an accelerator to copy to: pin_memory=torch.accelerator.is_available() (or "
            "torch.cuda.is_available()); on the CPU pinning gains nothing. DataLoader(pin_memory=True) only warns "
            "and skips it."
        ),
        example="pin_memory=True requires a CUDA or other accelerator backend; no pinned memory allocator is available on this system.",
        releases="'Need to provide pin_memory allocator ...' 2.8; the new wording read (and raised) in 2.13.0",
        source="https://github.com/pytorch/pytorch/issues/159740; libtorch_cpu.so of 2.13.0",
    ),
    Family(
        "no-accelerator",
        GPU,
        "No accelerator",
        r"Cannot access accelerator device when none is available",
        "no-accelerator",
        cause=(
            "the code asked for an accelerator device by index (.cuda(1), .to(1), device=1, pin_memory()), and this "
            "machine (or this CPU-only build) has none."
        ),
        fix="Ask torch.accelerator.is_available() (or torch.cuda.is_available()) first, and fall back to 'cpu'.",
        example="Cannot access accelerator device when none is available.",
        releases="read in 2.13.0, 2.14.1",
        source="libtorch_python.so",
    ),
    Family(
        "invalid-device-ordinal",
        GPU,
        "Device index past the last GPU",
        r"invalid device ordinal|Invalid device id",
        "invalid-device-ordinal",
        flags=re.IGNORECASE,
        cause=(
            "a device index past the last visible GPU, such as a hard-coded 'cuda:1' on a one-GPU machine "
            "(CUDA_VISIBLE_DEVICES renumbers the visible GPUs from 0), or, under torchrun or accelerate launch, "
            "more processes than visible GPUs: rank N sets cuda:N (a '[rankN]:' prefix says which)."
        ),
        fix=(
            "Do not hard-code indices: use torch.device('cuda') (the current device), or check "
            "index < torch.cuda.device_count() first; launch at most one process per visible GPU "
            "(torchrun --nproc_per_node equal to torch.cuda.device_count())."
        ),
        example="CUDA error: invalid device ordinal",
        releases="'Invalid device id' read in 2.13.0, 2.14.1; from 2.9 followed by 'GPU device may be out of range'",
        source="CUDA runtime; libc10_cuda.so",
    ),
    # W2: 'Device index must be -1 or non-negative' is TORCH_INTERNAL_ASSERT_DEBUG_ONLY in c10/core/Device.h, in no
    # release library; releases raise these two (issue 34, read in the 2.13.0 CPU wheel and raised live by the tests)
    Family(
        "device-index-range",
        GPU,
        "A device index outside [0, count)",
        r"device index is out of range\. It must be in \[0, (?P<count>\d+)\), but got (?P<index>-?\d+)",
        "invalid-device-ordinal",
        cause=(
            "a function that works on one concrete device got index {index}, outside 0..{count}-1. -1 is the index "
            "of a device written without one ('xpu', 'cuda', torch.device('xpu')): code that needs a concrete "
            "device did not resolve it to the current one (torch.from_dlpack(x, device='xpu') in 2.11, "
            "pytorch/pytorch#181140); an index of {count} or more is a device this process cannot see."
        ),
        fix=(
            "Pass the index: device='xpu:0', or torch.device('xpu', torch.xpu.current_device()) (for CUDA "
            "torch.cuda.current_device()); check the index against torch.accelerator.device_count()."
        ),
        example="RuntimeError: The device index is out of range. It must be in [0, 1), but got -1.",
        releases="2.11.0+xpu (the report); the text is not in the CPU wheel",
        source="https://github.com/pytorch/pytorch/issues/181140",
    ),
    Family(
        "negative-device-index",
        GPU,
        "Negative device index",
        r"Device index must not be negative|Invalid device string: '(?P<type>[A-Za-z_]+):-\d+'",
        "malformed-device-index",
        devices=("{type!l}",),
        cause="a device index counts from 0: a negative index is never a device.",
        fix=(
            "Write 'cuda' for the current device or 'cuda:N' with 0 <= N < torch.cuda.device_count(); build it from "
            "a variable with torch.device('cuda', n) rather than by pasting strings."
        ),
        example="Invalid device string: 'cuda:-2'",
        releases="2.7.1-2.14.1 (read in 2.13.0: libtorch_python.so, libc10.so)",
        source="torch.device('cuda', -2) and torch.device('cuda:-2'), raised live",
    ),
    Family(
        "index-as-device-string",
        GPU,
        "An index where a device string is expected",
        r"Invalid device string: '(?P<index>\d+)'",
        "malformed-device-index",
        cause=(
            "'{index}' is an index, not a device string: a device string is a type with an optional index, "
            "'cuda', 'cuda:{index}'. (torch.device({index}) takes the int, not the string.)"
        ),
        fix=("Write 'cuda:{index}', or pass the int; if the string went to torch.autocast(device_type=...), pass the type alone: device.type."),
        example="Invalid device string: '0'",
        releases="read in 2.13.0, raised live (torch.autocast(device_type='0'))",
        source="libc10.so (c10/core/Device.cpp)",
    ),
    Family(
        "device-needs-index",
        GPU,
        "A device without an index where one GPU must be named",
        r"Expected a torch\.device with a specified index or an integer, but got: ?(?P<got>[^\n]+)",
        "malformed-device-index",
        devices=("{got}",),
        cause=(
            "this function works on one particular GPU and was given only a device type ({got}), with no index: "
            "torch.device('cuda') means 'the current GPU' to tensors, but functions that act on one GPU "
            "(torch.cuda.set_device, torch.cuda.set_per_process_memory_fraction, torch.xpu's and "
            "torch.accelerator's equivalents, and libraries calling them) need to know which one."
        ),
        fix=(
            "Pass the index: torch.device('cuda', torch.cuda.current_device()) or an int (0), or 'cuda:0'; where a "
            "library built the device, pass it one with an index, or update the library."
        ),
        example="Expected a torch.device with a specified index or an integer, but got:cuda",
        releases="read in 2.13.0 (torch/_utils.py _get_device_index, torch/accelerator/_utils.py)",
        source="https://github.com/vllm-project/vllm/issues/14500; torch/_utils.py of 2.13.0",
    ),
    Family(
        "malformed-device-string",
        GPU,
        "A malformed device string",
        r"Invalid device string: '(?P<string>(?P<type>[A-Za-z_]+)?[^']*)'",
        "malformed-device-index",
        devices=("{type!l}",),
        cause="'{string}' is not of the form type[:index], such as 'cuda', 'cuda:0', 'mps', 'cpu'.",
        fix=(
            "Build the device from its parts: torch.device('cuda', n), or f'cuda:{{n}}' with a whole number n "
            "from 0 to torch.cuda.device_count() - 1."
        ),
        example="Invalid device string: 'cuda:0:1'",
        releases="read in 2.13.0, raised live",
        source="libc10.so (c10/core/Device.cpp)",
    ),
    Family(
        "not-a-cuda-device",
        GPU,
        "A CUDA function given another device",
        rf"Expected a cuda device, but got: (?P<device>{DEV})",
        "not-a-cuda-device",
        devices=("{device}",),
        cause="a torch.cuda function (such as torch.cuda.device) was given {device}, which is not a CUDA device.",
        fix="Give it a CUDA device or index; for device-agnostic code, use contextlib.nullcontext() off CUDA.",
        example="Expected a cuda device, but got: cpu",
        releases="read in 2.13.0",
        source="torch/cuda/__init__.py",
    ),
    Family(
        "mps-before-1-12",
        GPU,
        "'mps' asked of a PyTorch older than 1.12",
        r"Expected one of (?:(?!\bmps\b)[\w, ])+ device type at start of device string: mps\b",
        "old-torch",
        devices=("mps",),
        cause=(
            "this PyTorch is older than 1.12, the first release with Apple's GPU as 'mps': the device types it "
            "lists have no mps. Either torch is old on a Mac, or code that checks for 'mps' runs on Linux or "
            "Windows with an old torch, where even torch.device('mps') raises."
        ),
        fix=(
            "On an Apple silicon Mac, install torch 1.12 or newer (a macOS arm64 build). In code that runs "
            "elsewhere, test before naming the device: getattr(torch.backends, 'mps', None) is not None and "
            "torch.backends.mps.is_available(); compare device.type == 'mps' rather than building "
            "torch.device('mps')."
        ),
        example="RuntimeError: Expected one of cpu, cuda, xpu, mkldnn, opengl, opencl, ideep, hip, ve, ort, mlc, xla, "
        "lazy, vulkan, meta, hpu device type at start of device string: mps",
        releases="torch 1.10-1.11 (reported on 1.10.1+cu113); 1.12 added mps to the list",
        source="https://github.com/Sanster/IOPaint/issues/230",
    ),
    Family(
        "to-given-a-list",
        GPU,
        "A list of devices given to .to()",
        r"to\(\) received an invalid combination of arguments - got \((?P<got>list|tuple)\)",
        "bad-device-string",
        cause=(
            "Tensor.to() and Module.to() take one device (or a dtype), and got a {got}: usually a list of devices "
            "meant for several processes or GPUs, as in sentence-transformers' encode(device=['cuda:0', "
            "'cuda:1']) in a version that passes device to .to()."
        ),
        fix=(
            "Give .to() one device: x.to('cuda:0'). For several devices run one worker per device: in "
            "sentence-transformers pool = model.start_multi_process_pool(['cuda:0', 'cuda:1']) then "
            "model.encode_multi_process(texts, pool); for training, DistributedDataParallel with one process per GPU."
        ),
        example="to() received an invalid combination of arguments - got (list), but expected one of:",
        releases="any torch (the argument parser's wording); sentence-transformers 4.1.0 in the report",
        source="https://github.com/huggingface/sentence-transformers/issues/3511",
    ),
    Family(
        "bad-device-string",
        GPU,
        "An unknown device type",
        r"Expected one of [\w, ]+ device type at start of device string: (?P<name>\S+)",
        "bad-device-string",
        cause="'{name}' is not a device type PyTorch knows.",
        fix="Use 'cpu', 'cuda', 'cuda:0', 'mps' or 'meta' (NVIDIA GPUs are 'cuda', never 'gpu').",
        example="Expected one of cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, maia, xla, lazy, "
        "vulkan, mps, meta, hpu, mtia, privateuseone device type at start of device string: gpu",
        releases="read in 2.13.0",
        source="libc10.so (c10/core/Device.cpp)",
    ),
    Family(
        "no-gpu-visible",
        GPU,
        "No GPU visible",
        r"No CUDA GPUs are available|no CUDA-capable device is detected",
        "no-gpu-visible",
        devices=("cuda",),
        cause=(
            "this PyTorch has CUDA, but the process sees no GPU: CUDA_VISIBLE_DEVICES hides them (it is empty, or "
            "names a GPU that does not exist), the container or job was started without GPUs (docker --gpus, a "
            "Slurm/Kubernetes request), or the notebook's runtime has no GPU (Colab: Runtime > Change runtime type)."
        ),
        fix=(
            "Check what the process sees: nvidia-smi, echo $CUDA_VISIBLE_DEVICES, torch.cuda.device_count(). "
            "Write device-agnostic code that falls back to the CPU: " + _CPU_FALLBACK + "."
        ),
        example="No CUDA GPUs are available",
        releases="read in 2.14.1; the runtime's: CUDA 12 (12.6.77)",
        source="c10/cuda/CUDAFunctions.cpp; libcudart.so.12",
    ),
    Family(
        "gpu-architecture",
        GPU,
        "GPU architecture not in this build",
        r"no kernel image is available for execution on the device|with CUDA capability sm_(?P<arch>\d+) is not "
        r"compatible with the current PyTorch installation",
        "gpu-architecture",
        devices=("cuda",),
        cause=(
            "this PyTorch build has no compiled kernels for this GPU's architecture: the GPU is older than the build "
            "supports (its CUDA capability was dropped) or newer than the build (a new generation needs a newer CUDA "
            "build). Nothing is wrong with your tensors."
        ),
        fix=(
            "Compare torch.cuda.get_device_capability() with torch.cuda.get_arch_list(), then install a torch build "
            "whose list has your GPU's sm_XY (pytorch.org/get-started: a newer CUDA variant for a new GPU, an older "
            "release for an old one). Until then, run on the CPU."
        ),
        example="CUDA error: no kernel image is available for execution on the device",
        releases="CUDA 12 and 13 runtimes; the warning read in 2.7.1, 2.13.0, 2.14.1",
        source="libcudart.so.12; torch/cuda/__init__.py",
    ),
    Family(
        "gpu-capability-listed",
        GPU,
        "GPU architecture not in this build (PyTorch's list of what would fit)",
        r"Found GPU(?P<index>\d+) (?P<gpu>.+?) which is of compute capability \(CC\) (?P<cc>\d+\.\d+)",
        "gpu-architecture",
        devices=("cuda",),
        cause=(
            "this PyTorch build has no kernels that run on {gpu} (compute capability {cc}): each architecture "
            "it was compiled for runs only on the capabilities listed after it. CUDA still says the GPU is "
            "available; every kernel will fail with 'no kernel image is available for execution on the device'."
        ),
        fix=(
            "Install the same torch version from one of the CUDA builds the warning lists (pip install torch "
            "--index-url https://download.pytorch.org/whl/cuXXX); if it lists none, a release that supports this "
            "GPU (pytorch.org/get-started). Compare torch.cuda.get_device_capability() with "
            "torch.cuda.get_arch_list()."
        ),
        example="Found GPU0 NVIDIA GeForce RTX 5090 which is of compute capability (CC) 12.0.",
        releases="2.11.0 to 2.14.1 (torch.cuda._check_capability; a pip line per build from 2.13.0)",
        source="torch/cuda/__init__.py (_warn_unsupported_code), raised by lesson 12 on a simulated GPU",
    ),
    # 2.8.0 to 2.10.0 compared the GPU's capability with the lowest and highest entries of the build's list, numbers
    # only: one pattern, three rows, by where the GPU falls (a compute role rejects the other cases)
    Family(
        "gpu-capability-range-old",
        GPU,
        "GPU below the capability range of this build",
        _RANGE,
        "gpu-architecture",
        devices=("cuda",),
        roles=dict(compute="cc_older"),
        cause=_RANGE_FOUND + ": it is older than the oldest, {low_arch}, " + _NO_KERNELS,
        fix=(
            "Install this release from a CUDA build whose list reaches down to it (the warning after this one names "
            "them, if any), or an older release whose torch.cuda.get_arch_list() holds {cc_arch}; until then, run on "
            "the CPU. " + _SAME_MAJOR_RULE
        ),
        example=(
            "Found GPU0 NVIDIA GeForce MX350 which is of cuda capability 6.1. Minimum and Maximum cuda capability "
            "supported by this version of PyTorch is (7.0) - (12.0)"
        ),
        releases=_RANGE_RELEASES,
        source=_RANGE_SOURCE,
    ),
    Family(
        "gpu-capability-range-minor",
        GPU,
        "GPU a minor version above this build's newest (a false alarm)",
        _RANGE,
        "gpu-architecture",
        devices=("cuda",),
        roles=dict(compute="cc_same_major"),
        cause=(
            _RANGE_FOUND + ". That check compares the numbers only: code built for {high_arch} runs on a GPU "
            "of the same major version and a newer minor (NVIDIA's binary compatibility), so {gpu} runs this "
            "build's {high_arch} kernels and the warning is a false alarm. torch 2.11.0 and later check by that "
            "rule and do not warn here."
        ),
        fix=(
            "Nothing needs fixing unless PyTorch also warns that the GPU 'is not compatible with the current "
            "PyTorch installation' or a kernel fails with 'no kernel image is available'. " + _SAME_MAJOR_RULE
        ),
        example=(
            "Found GPU0 NVIDIA GB10 which is of cuda capability 12.1. Minimum and Maximum cuda capability "
            "supported by this version of PyTorch is (8.0) - (12.0)"
        ),
        releases=_RANGE_RELEASES,
        source=_RANGE_SOURCE,
    ),
    Family(
        "gpu-capability-range-new",
        GPU,
        "GPU of a newer major version than this build's newest",
        _RANGE,
        "gpu-architecture",
        devices=("cuda",),
        roles=dict(compute="cc_newer"),
        cause=_RANGE_FOUND + ": it is of a newer major version ({major}.x) than the newest, {high_arch}, " + _NO_KERNELS,
        fix=(
            "Install this release from a CUDA build whose list holds it (the warning after this one names them), or "
            "a newer release; until then, run on the CPU. " + _SAME_MAJOR_RULE
        ),
        example=(
            "Found GPU0 NVIDIA GeForce RTX 5090 which is of cuda capability 12.0. Minimum and Maximum cuda "
            "capability supported by this version of PyTorch is (5.0) - (9.0)"
        ),
        releases=_RANGE_RELEASES,
        source=_RANGE_SOURCE,
    ),
    Family(
        "gpu-capability-builds",
        GPU,
        "PyTorch names the CUDA builds that would fit this GPU",
        r"Please install PyTorch with a following CUDA\s+configurations:\s*(?P<builds>\d+\.\d+(?:\s+\d+\.\d+)*)",
        "gpu-architecture",
        devices=("cuda",),
        roles=dict(compute="cuda_builds"),
        cause=(
            "PyTorch's start-up check found a GPU outside the range of architectures this build was compiled for "
            "(the warning just before this one names the GPU and the range), and lists the CUDA versions whose "
            "builds of this same release do cover it: {builds}."
        ),
        fix=(
            "Install the same torch version from one of those builds: pip install torch==<this version> "
            "--index-url https://download.pytorch.org/whl/{tag} ({tags}). If the warning before this one is about a "
            "GPU of the build's newest major version with a newer minor, the build's kernels already run on it: "
            "see that warning's explanation."
        ),
        example=(
            "Please install PyTorch with a following CUDA configurations:  12.6 12.8 12.9 following instructions "
            "at https://pytorch.org/get-started/locally/"
        ),
        releases="2.8.0, 2.9.1, 2.10.0 (torch.cuda._check_capability)",
        source="torch/cuda/__init__.py of 2.8.0, 2.9.1 and 2.10.0 (matched_cuda_warn), raised by lesson 12 on a simulated GPU",
    ),
    Family(
        "cuda-count-not-supported",
        GPU,
        "The driver cannot answer this torch's CUDA",
        r"cudaGetDeviceCount\(\) returned cudaErrorNotSupported, likely (?:using older driver or on|running on) CPU "
        r"machine",
        "driver-too-old",
        devices=("cuda",),
        cause=(
            "a warning from torch.cuda.is_available() (which then returns False): this torch's CUDA runtime asked the "
            "NVIDIA driver for its GPUs and the driver answered 'not supported'. Either the driver is older than the "
            "CUDA this torch was built with (a cu130 wheel on a driver whose nvidia-smi says 'CUDA Version: 12.9'), "
            "or there is no NVIDIA GPU to ask (a CPU machine, a VM or container without GPU access)."
        ),
        fix=(
            "Compare nvidia-smi's 'CUDA Version' (the newest CUDA the driver supports) with torch.version.cuda: "
            "update the driver, or install the torch build for a CUDA the driver supports (the cu126 or cu128 index "
            "at pytorch.org/get-started). With no NVIDIA GPU at all, this torch runs on the CPU only."
        ),
        example=(
            "UserWarning: cudaGetDeviceCount() returned cudaErrorNotSupported, likely using older driver or on CPU "
            "machine (Triggered internally at ...\\c10\\cuda\\CUDAFunctions.cpp:88.)"
        ),
        releases="torch 2.9-2.13 (c10/cuda/CUDAFunctions.cpp, device_count_impl; 'likely running on CPU machine' in 2.9)",
        source=(
            "c10/cuda/CUDAFunctions.cpp; https://github.com/SystemPanic/vllm-windows/issues/60; https://github.com/pytorch/pytorch/pull/162412"
        ),
    ),
    Family(
        "gpu-too-old",
        GPU,
        "GPU too old for this build",
        r"Found GPU(?P<index>\d+) (?P<gpu>.+?) which is of cuda capability (?P<cc>\d+\.\d+)\.\s+PyTorch no longer "
        r"supports this GPU because it is too old",
        "gpu-architecture",
        devices=("cuda",),
        cause=(
            "{gpu} (compute capability {cc}) is older than every architecture this PyTorch build was compiled "
            "for: it has no kernels for this GPU."
        ),
        fix=(
            "Install an older torch release whose torch.cuda.get_arch_list() still holds this GPU's sm_XY "
            "(pytorch.org/get-started/previous-versions), or run on the CPU."
        ),
        example="Found GPU0 Tesla K80 which is of cuda capability 3.7. PyTorch no longer supports this GPU because it is too old.",
        releases="2.7.1 (torch.cuda._check_capability)",
        source="torch/cuda/__init__.py of 2.7.1 (old_gpu_warn), raised by lesson 12 on a simulated GPU",
    ),
    Family(
        "no-xpu-device",
        GPU,
        "No XPU visible",
        r"No XPU devices are available|XPU device count is zero",
        "no-gpu-visible",
        devices=("xpu",),
        flags=re.IGNORECASE,
        cause=(
            "this PyTorch has Intel XPU support, but the process sees no XPU: the GPU driver or Level Zero runtime is "
            "missing or too old, the user may not access the GPU (Linux: the render and video groups), or "
            "ZE_AFFINITY_MASK hides it."
        ),
        fix=(
            "Check what the process sees: torch.xpu.is_available(), torch.xpu.device_count(), xpu-smi or "
            "clinfo; on Linux add yourself to the render group. Fall back to the CPU: device = "
            "torch.device('xpu' if torch.xpu.is_available() else 'cpu')."
        ),
        example="RuntimeError: No XPU devices are available",
        releases="XPU builds 2.x",
        source="https://github.com/intel/torch-xpu-ops/issues/4787",
    ),
    Family(
        "old-torch-module",
        GPU,
        "A device API newer than this PyTorch",
        r"module 'torch' has no attribute '(?P<attr>accelerator|xpu|mps|mtia)'",
        "old-torch",
        cause=("torch.{attr} does not exist in this PyTorch: it is older than the code (torch.accelerator is not in 2.5.1, for instance)."),
        fix=(
            "Upgrade torch (pip install -U torch), or write the older form: "
            "torch.device('cuda' if torch.cuda.is_available() else 'mps' if torch.backends.mps.is_available() "
            "else 'cpu')."
        ),
        example="module 'torch' has no attribute 'accelerator'",
        releases="torch 2.5.1 and older",
        source="https://github.com/pytorch/tutorials/issues/3263",
    ),
    Family(
        "inductor-device",
        COMPILE,
        "torch.compile: Inductor has no code generator for this device",
        r"Device (?P<device>[A-Za-z_]+) not supported",
        "compile-device-unsupported",
        devices=("{device!l}",),
        cause=(
            "torch.compile's default backend, Inductor, generates kernels per device type and has no code "
            "generator for {device!l} in this PyTorch: MPS got one in 2.8 (before that, every torch.compile of a "
            "model on 'mps' failed like this), and other devices need their vendor's backend. The model itself "
            "is fine; it is the compiler that cannot target the device."
        ),
        fix=_COMPILE_ELSEWHERE,
        example="torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised:\nAssertionError: Device mps not supported",
        releases="2.2-2.7 for mps (the assert came with pytorch/pytorch#112001); still the assert in 2.13.0",
        source=(
            "torch/_inductor/graph.py of 2.13.0 (init_wrapper_code); https://github.com/MIC-DKFZ/nnUNet/issues/2244; "
            "https://github.com/ModelCloud/GPTQModel/pull/1684 (MPS support from 2.8.0)"
        ),
    ),
    Family(
        "diffusers-offload-no-accelerator",
        LIBRARIES,
        "diffusers: CPU offloading without an accelerator",
        r"`enable_(?P<which>model|sequential)_cpu_offload` requires accelerator, but not found",
        "no-accelerator",
        cause=(
            "diffusers' {which} CPU offload keeps the weights on the CPU and moves each part to an accelerator "
            "when it runs, so it needs one, and torch sees none (torch.accelerator.current_accelerator() is "
            "None): a CPU-only torch build (pip's default on Windows), or a machine or container without a "
            "visible GPU. Installing accelerate does not change that."
        ),
        fix=(
            "Check torch.cuda.is_available() (on a Mac torch.backends.mps.is_available()); for an NVIDIA GPU "
            "install a CUDA build of torch (pytorch.org/get-started). Without a GPU, drop the offload call and run "
            "the pipeline on the CPU: pipe.to('cpu')."
        ),
        example="RuntimeError: `enable_model_cpu_offload` requires accelerator, but not found",
        releases="diffusers 0.3x (torch 2.6.0 on Windows in the report)",
        source="https://github.com/VectorSpaceLab/OmniGen2/issues/41",
    ),
    Family(
        "lightning-mps",
        LIBRARIES,
        "Lightning: the MPS accelerator is not available",
        r"`?MPSAccelerator`? can not run on your system since the accelerator is not available",
        "no-gpu-visible",
        devices=("mps",),
        cause=(
            "Lightning was asked for accelerator='mps' and finds Apple's GPU unusable in this process: "
            "torch.backends.mps.is_available() is False (an Intel Mac, macOS older than 12.3, a torch without "
            "MPS), or Lightning's own check fails, which also reads platform.processor(): a Python built for x86_64 "
            "running under Rosetta on an Apple-silicon Mac reports 'i386', and DISABLE_MPS=1 switches MPS off."
        ),
        fix=(
            'Check python -c "import platform, torch; print(platform.machine(), torch.backends.mps.is_available())": '
            "'x86_64' on an M-series Mac means an x86 Python (install an arm64 Python, e.g. Miniforge's, and torch "
            "again). Or let Lightning choose: Trainer(accelerator='auto') runs on the CPU when MPS is unusable."
        ),
        example=(
            "MPSAccelerator can not run on your system since the accelerator is not available. The following "
            "accelerator(s) is available and can be passed into `accelerator` argument of `Trainer`: ['cpu']."
        ),
        releases="pytorch_lightning 1.7-2.x",
        source="https://github.com/Lightning-AI/pytorch-lightning/issues/14634",
    ),
    Family(
        "vllm-no-device",
        LIBRARIES,
        "vLLM: no supported device in this process",
        r"No supported device detected",
        "no-gpu-visible",
        devices=("cuda",),
        cause=(
            "vLLM (device='auto') looked for a platform it can run on and found none in this process: torch sees no "
            "GPU here (torch.cuda.is_available() is False: a CPU-only torch, no driver, CUDA_VISIBLE_DEVICES empty, "
            "or a Ray actor or worker started without GPUs), and this vLLM is not its CPU build. With "
            "tensor_parallel_size > 1 under Ray, the engine may run in a process that was given no GPU."
        ),
        fix=(
            "Check in the same process or actor: torch.cuda.is_available(), torch.version.cuda, "
            "os.environ.get('CUDA_VISIBLE_DEVICES'). Under Ray give the actor GPUs (@ray.remote(num_gpus=1), or the "
            "placement group's GPU bundles); in a container, start it with the GPUs (docker --gpus all). For "
            "CPU-only inference, install vLLM's CPU build."
        ),
        example="RuntimeError: No supported device detected.",
        releases="vLLM 0.3-0.4 (vllm/config.py, DeviceConfig)",
        source="https://github.com/OpenRLHF/OpenRLHF/issues/233 (vllm 0.3.2)",
    ),
    Family(
        "tpu-worker-addresses",
        BACKENDS,
        "TPU start-up: told to expect more worker processes",
        r"TPU initialization failed: Invalid --\w*worker_addresses specified\. Expected (?P<want>\d+) worker "
        r"addresses, got (?P<got>\d+)",
        "tpu-init",
        devices=("xla",),
        cause=(
            "the TPU runtime (libtpu, started by torch_xla or JAX) read from the environment that the TPU is shared "
            "by {want} worker processes, one per chip, but it was given {got} address: the TPU image (Kaggle's TPU "
            "VM sets TPU_PROCESS_ADDRESSES and related variables) describes a multi-process launch, and this program "
            "started as a single process (a notebook cell, a plain python script, a Trainer without the TPU "
            "launcher)."
        ),
        fix=(
            "Either launch one process per chip with the launcher (torch_xla.launch(fn) or xmp.spawn(fn), "
            "accelerate launch, Lightning's Trainer(accelerator='tpu', devices=...)), or, to run in this one "
            "process, remove the variable before torch_xla is imported: os.environ.pop('TPU_PROCESS_ADDRESSES') "
            "(the workaround in the reports)."
        ),
        example=(
            "RuntimeError: Bad StatusOr access: UNKNOWN: TPU initialization failed: Invalid "
            "--2a886c8_slice_builder_worker_addresses specified. Expected 4 worker addresses, got 1."
        ),
        releases="torch_xla 2.1-2.4 and JAX on Kaggle TPU VM v3-8 (libtpu)",
        source=("https://github.com/Lightning-AI/pytorch-lightning/issues/20244; https://github.com/huggingface/transformers/issues/28204"),
    ),
    Family(
        "tpu-topology",
        BACKENDS,
        "TPU start-up: the slice's topology",
        r"Failed to get global TPU topology",
        "tpu-init",
        devices=("xla",),
        cause=(
            "the TPU runtime (libtpu) could not set up the TPU slice: on a slice that spans several hosts (v4-16, "
            "v5e-16 and larger, a pod) every host must start the program together, and a run started on one worker "
            "waits for the others and gives up; on one host it means the runtime could not take the chips (another "
            "process holds them) or does not fit this VM's TPU software."
        ),
        fix=(
            "On a multi-host slice, start the program on all hosts at once: gcloud compute tpus tpu-vm ssh NAME "
            "--zone=ZONE --worker=all --command='...'. On one host, make sure no other process uses the TPU "
            "(sudo lsof -w /dev/accel* lists them; a notebook kernel counts) and that torch_xla (or jax[tpu]) is the "
            "release matching torch and the TPU VM image."
        ),
        example="Failed to get global TPU topology.",
        releases="torch_xla 2.1-2.8 and vLLM's TPU backend (libtpu)",
        source=(
            "https://github.com/google/gemma_pytorch/issues/25 (v4-16, worker 0 only); "
            "https://github.com/vllm-project/vllm/issues/16243; "
            "https://github.com/Lightning-AI/pytorch-lightning/issues/18932"
        ),
    ),
    Family(
        "lightning-tpu",
        LIBRARIES,
        "Lightning: TPUs asked for where there are none",
        r"`?TPUAccelerator`? can not run on your system since the accelerator is not available.*?`Trainer`: "
        r"(?P<available>\[[^\]]*\])",
        "no-accelerator",
        devices=("xla",),
        cause=(
            "PyTorch Lightning was asked for TPUs (Trainer(accelerator='tpu'), or a config or script that sets "
            "tpu_cores) and finds none: this is not a TPU machine or runtime, or torch_xla is missing or does not "
            "match torch. What it can use instead: {available}."
        ),
        fix=(
            "Ask for what the machine has: Trainer(accelerator='auto', devices='auto'), or accelerator='gpu' on a "
            "GPU machine (in an older config, tpu_cores=0 or None). If the list above is only ['cpu'] on a machine "
            "with an NVIDIA GPU, torch cannot use the GPU either: check torch.cuda.is_available() (a CPU-only torch "
            "build?). For a TPU, run on a TPU VM or runtime with the torch_xla release of your torch."
        ),
        example=(
            "MisconfigurationException: TPUAccelerator can not run on your system since the accelerator is not "
            "available. The following accelerator(s) is available and can be passed into `accelerator` argument of "
            "`Trainer`: ['cpu']."
        ),
        releases="pytorch_lightning 1.6-1.9, lightning 2.x (accelerator_connector.py)",
        source="https://github.com/jbohnslav/deepethogram/issues/119; https://github.com/ratsgo/nlpbook/issues/37",
    ),
    Family(
        "lightning-accelerator",
        LIBRARIES,
        "Lightning: no GPU for the requested accelerator",
        r"`?(?P<accelerator>\w+)Accelerator`? can not run on your system since the accelerator is not available"
        r"|GPUs requested but none are available|No supported gpu backend found",
        "no-gpu-visible",
        devices=("cuda",),
        cause=(
            "PyTorch Lightning was asked for a GPU accelerator (Trainer(accelerator='gpu'/'cuda', devices=...)) and "
            "this machine (or process) has none that torch can use."
        ),
        fix=(
            "Let Lightning choose: Trainer(accelerator='auto', devices='auto') runs on the CPU when no GPU is there; "
            "or check torch.cuda.is_available() and nvidia-smi if you expected one."
        ),
        example="`CUDAAccelerator` can not run on your system since the accelerator is not available. ...",
        releases="lightning 2.6.6",
        source="lightning/pytorch/trainer/connectors/accelerator_connector.py",
    ),
    Family(
        "lightning-gpu-ids",
        LIBRARIES,
        "Lightning: GPU ids past the last GPU",
        r"You requested (?:gpu|GPUs): (?P<asked>\[[^\]]*\])\s*But your machine only has: (?P<has>\[[^\]]*\])",
        "invalid-device-ordinal",
        devices=("cuda",),
        cause=(
            "Lightning was asked for GPUs {asked}, and this process sees only {has} (CUDA_VISIBLE_DEVICES renumbers the "
            "visible GPUs from 0; [] means torch sees no GPU at all: a CPU-only torch, no driver, or no GPU given to "
            "the job)."
        ),
        fix=(
            "Ask for a number of GPUs rather than their ids: Trainer(devices=1) or devices='auto' (gpus=1 in Lightning "
            "1.x); if it has none, check torch.cuda.is_available() and nvidia-smi, or train with accelerator='cpu'."
        ),
        example="You requested gpu: [0, 1]\n But your machine only has: [0]",
        releases="lightning 2.6.6",
        source="lightning/fabric/utilities/device_parser.py",
    ),
    Family(
        "ultralytics-no-device",
        LIBRARIES,
        "Ultralytics: no device of that kind",
        r"(?s)Invalid (?P<backend>[A-Z]+) 'device=(?P<device>[^']*)' requested\."
        r"(?=.*(?:Backend is not available|is_available\(\): False|device_count\(\): 0\b))",
        "no-gpu-visible",
        devices=("{backend!l}",),
        cause="Ultralytics was asked for device={device}, and this process has no usable {backend} device.",
        fix=(
            "Pass device='cpu', or leave device unset (Ultralytics then picks a GPU if there is one); check "
            "torch.cuda.is_available(), torch.cuda.device_count() and CUDA_VISIBLE_DEVICES."
        ),
        example="Invalid MPS 'device=mps' requested. Backend is not available.",
        releases="ultralytics 8.4.190",
        source="ultralytics/utils/torch_utils.py (select_device)",
    ),
    Family(
        "ultralytics-device",
        LIBRARIES,
        "Ultralytics: a device index past the last GPU",
        r"Invalid (?P<backend>[A-Z]+) 'device=(?P<device>[^']*)' requested\.",
        "invalid-device-ordinal",
        devices=("{backend!l}",),
        cause=(
            "Ultralytics was asked for device={device}, which names a {backend} device this process does not have "
            "(the visible ones are numbered from 0)."
        ),
        fix=(
            "Pass device='cpu', or leave device unset (Ultralytics then picks a GPU if there is one); check "
            "torch.cuda.is_available(), torch.cuda.device_count() and CUDA_VISIBLE_DEVICES."
        ),
        example="Invalid CUDA 'device=cuda:1' requested. Only 1 device(s) available.",
        releases="ultralytics 8.4.190",
        source="ultralytics/utils/torch_utils.py (select_device)",
    ),
    Family(
        "rocm-no-binary",
        BACKENDS,
        "ROCm: no code object for this GPU",
        r"hipErrorNoBinaryForGpu: (?:Unable to find|Coudn't find|Couldn't find) (?:code object|binary) for (?:all )?"
        r"current devices",
        "gpu-architecture",
        devices=("cuda",),
        cause=(
            "a ROCm (HIP) build of PyTorch, or of a library it loads, has no compiled code for this GPU's "
            "architecture (its gfx target), and the HIP runtime stops at the first GPU call, before any of your "
            "code runs on it. Usual reasons: a consumer AMD GPU that ROCm does not list (RX 5000/6000/7000 "
            "cards other than the listed ones, RX 500 and older), or a ROCm build of torch installed on a machine "
            "whose GPU is not an AMD one at all (an NVIDIA GPU needs the CUDA build)."
        ),
        fix=(
            "Check the GPU's target with rocminfo (gfx1031, ...) against the targets your torch's ROCm release "
            "supports. For a card close to a supported one, HSA_OVERRIDE_GFX_VERSION makes ROCm use that target's "
            "code (10.3.0 for RDNA2 cards such as gfx1031/gfx1032, 11.0.0 for RDNA3): a workaround, set before "
            "Python starts. With an NVIDIA GPU, install the CUDA build of torch instead."
        ),
        example="hipErrorNoBinaryForGpu: Unable to find code object for all current devices!",
        releases="ROCm builds (reported with torch 1.12.1+rocm5.1.1 and later)",
        source="https://github.com/l1na-forever/stable-diffusion-rocm-docker/issues/1; "
        "https://github.com/ROCm/legacy-rocm-build/issues/2061 (HSA_OVERRIDE_GFX_VERSION=10.3.0 on an RX 6600)",
    ),
    Family(
        "mps-int64-op",
        BACKENDS,
        "MPS: an operation without int64 on this macOS",
        r"MPS does not support (?P<op>\w+) op with int64 input",
        "dtype-unsupported-on-device",
        devices=("mps",),
        cause=(
            "Apple's GPU could not run {op} on int64 (torch.long) tensors on this macOS: MPS's cumulative "
            "operations on int64 need macOS 13.3 or newer, and PyTorch raises this on older systems. Integer "
            "tensors are int64 by default: token ids, attention masks and position ids from a tokenizer, "
            "torch.arange, torch.tensor of Python ints, so text models (generate() computes position ids with "
            "cumsum) meet it first."
        ),
        fix=(
            "Update macOS to 13.3 or newer together with a recent torch; until then, run that step as int32, "
            "x.to(torch.int32).{op}(dim), or on the CPU: x.cpu().{op}(dim).to('mps'). PYTORCH_ENABLE_MPS_FALLBACK=1 "
            "does not help: the operation exists on MPS, only not for int64."
        ),
        example="MPS does not support cumsum op with int64 input",
        releases="macOS arm64 wheels on macOS below 13.3 (reported through 2.5)",
        source="https://github.com/pytorch/pytorch/issues/141786; aten/src/ATen/native/mps/operations/UnaryOps.mm "
        "(pytorch/pytorch#94530 asked for this wording)",
    ),
    Family(
        "mps-fallback-warning",
        BACKENDS,
        "MPS: an operation running on the CPU instead (a warning)",
        r"The operator '(?P<op>[\w:.]+)' is not currently supported on the MPS backend and will fall back to run on "
        r"the CPU",
        "op-fallback",
        devices=("mps", "cpu"),
        cause=(
            "a UserWarning, not an error: PYTORCH_ENABLE_MPS_FALLBACK=1 is set and this PyTorch has no MPS kernel "
            "for {op}, so each call copies its tensors to the CPU, runs there and copies the result back. The "
            "results are right, only slower; your own tensors stay on mps."
        ),
        fix=(
            "Nothing is wrong. If this operation runs in a hot loop, a newer torch may have it on MPS (the warning "
            "shows once per operator); otherwise keep the fallback, or do that step on the CPU yourself where it "
            "costs least."
        ),
        example=(
            "The operator 'aten::bitwise_and.Tensor_out' is not currently supported on the MPS backend and will "
            "fall back to run on the CPU. This may have performance implications."
        ),
        releases="macOS arm64 wheels, 1.12 onwards (aten/src/ATen/mps/MPSFallback.mm)",
        source="https://github.com/pytorch/pytorch/issues/83015",
    ),
    Family(
        "mps-complex",
        BACKENDS,
        "MPS: complex numbers",
        r"Trying to convert (?P<dtype>Complex\w+) to the MPS backend but it does not have support for that dtype",
        "dtype-unsupported-on-device",
        devices=("mps",),
        cause=(
            "this PyTorch, on this macOS, has no {dtype} on Apple's GPU: complex tensors (from torch.fft, "
            "torch.stft, torch.polar, view_as_complex) reached an MPS operation. Recent PyTorch releases run "
            "complex types on MPS only on macOS 14 (Sonoma) and newer; older releases not at all."
        ),
        fix=(
            "Update macOS and torch; otherwise do the complex part on the CPU (x.cpu(), then .to('mps') for the "
            "real-valued result), or keep real and imaginary parts as two float32 tensors "
            "(torch.view_as_real)."
        ),
        example="Trying to convert ComplexFloat to the MPS backend but it does not have support for that dtype.",
        releases="macOS arm64 wheels (reported on 2.0)",
        source="https://github.com/pytorch/pytorch/issues/95976; aten/src/ATen/native/mps (checkSupportsComplex)",
    ),
    Family(
        "half-on-cpu",
        BACKENDS,
        "The CPU: a float16 kernel this release lacks",
        r"\"(?P<kernel>\w*_cpu\w*|LayerNormKernelImpl)\" not implemented for '(?P<dtype>Half)'",
        "dtype-unsupported-on-device",
        devices=("cpu",),
        cause=(
            "{kernel} is a CPU kernel (the GPU kernels of the same operation have float16), and this PyTorch has "
            "no float16 (Half) version of it: the model is in float16, which is meant for a GPU, but it runs on "
            "the CPU. Usually it was loaded with "
            "torch_dtype=torch.float16 (or .half()) and then never reached the GPU: no GPU visible, a CPU-only "
            "torch, a forgotten .to('cuda'), or device_map placing layers on the CPU."
        ),
        fix=(
            "If you meant the GPU: check torch.cuda.is_available() and move the model, model.to('cuda'). To run on "
            "the CPU, use float32 there: model.float() (or load with torch_dtype=torch.float32; bfloat16 is the "
            "CPU's low-precision type). Newer releases have more float16 CPU kernels (2.13.0 runs addmm, conv2d "
            "and layer_norm in float16)."
        ),
        example="\"addmm_impl_cpu_\" not implemented for 'Half'",
        releases="1.x-2.0 era CPU kernels (reported 2021-2024); the 2.13.0 CPU wheel has them in float16",
        source="https://github.com/huggingface/transformers/issues/27769; https://github.com/zai-org/VisualGLM-6B/issues/30; "
        "https://github.com/facebookresearch/flores/issues/30 (LayerNormKernelImpl, 'when doing on cpu')",
    ),
    Family(
        "sparse-op",
        BACKENDS,
        "A sparse tensor given to an operation with no sparse kernel",
        r"Could not run '(?P<op>[\w:.]+)' with arguments from the 'Sparse(?P<backend>CUDA|CPU|MPS|XPU|Meta)(?:TensorId)?' "
        r"backend",
        "op-not-on-device",
        devices=("{backend!l}",),
        cause=(
            "a sparse tensor (torch.sparse_coo_tensor, .to_sparse()) on {backend!l} reached {op}, which has no "
            "kernel for sparse tensors there: most operations take dense (strided) tensors only, and the sparse "
            "ones differ between the CPU and the GPU. Nothing is on the wrong device; the layout is what the "
            "operation cannot take. Typical: an adjacency matrix built sparse (GCN/GAT code) then compared, "
            "indexed, summed over a dim or passed to torch.where."
        ),
        fix=(
            "Find the sparse tensor: print(t.layout) says torch.sparse_coo rather than torch.strided. Make it "
            "dense before the operation, t = t.to_dense(), where it fits in memory; or keep it sparse and use the "
            "sparse API (torch.sparse.mm, torch.sparse.sum, t.coalesce().values()). A newer torch may have the "
            "kernel: the message lists the backends that do."
        ),
        example="RuntimeError: Could not run 'aten::nonzero' with arguments from the 'SparseCUDA' backend. "
        "'aten::nonzero' is only available for these backends: [CPU, CUDA, Autograd, Profiler, Tracer].",
        releases="1.5-2.x ('SparseCUDATensorId' in 1.5)",
        source=(
            "https://github.com/bindog/pytorch-model-parallel/issues/3; https://github.com/diegoantognini/pyGAT/issues/38 "
            "('You need to use a sparse version GAT since your input is sparse')"
        ),
    ),
    Family(
        "quantized-on-gpu",
        BACKENDS,
        "A quantized model moved to the GPU",
        r"Could not run '(?P<op>[\w:.]+)' with arguments from the '(?:QuantizedCUDA(?:TensorId)?' backend|"
        r"UNKNOWN_TENSOR_TYPE_ID' backend\. '[\w:.]+' is only available for these backends: \[QuantizedCPU\])",
        "op-not-on-device",
        devices=("cuda",),
        cause=(
            "the tensors are quantized (torch.ao.quantization's int8 tensors) and on the GPU, and PyTorch has no "
            "quantized CUDA kernel for {op}: its eager and FX quantized models run on the CPU backends only "
            "(fbgemm on x86, qnnpack on ARM). Moving a quantized or traced-quantized model with .cuda() or "
            ".to('cuda') gets this."
        ),
        fix=(
            "Keep the quantized model, and its inputs, on the CPU. For int8 on a GPU use another path: "
            "TensorRT (Torch-TensorRT), or a library built for it (bitsandbytes, torchao); or run the float model "
            "on the GPU in float16/bfloat16."
        ),
        example="Could not run 'aten::empty_strided' with arguments from the 'QuantizedCUDA' backend.",
        releases="1.x-2.x ('UNKNOWN_TENSOR_TYPE_ID' in 1.6, before quantized CUDA tensors had a backend name)",
        source="https://github.com/pytorch/serve/issues/984; https://github.com/pytorch/pytorch/issues/42288",
    ),
    Family(
        "mps-float64",
        BACKENDS,
        "MPS: no float64",
        r"Cannot convert a (?:MPS Tensor to float64 dtype|float64 Tensor to MPS) as the MPS framework doesn't support "
        r"float64|float64 is not supported on MPS",
        "mps-float64",
        devices=("mps",),
        cause=(
            "Apple's GPU (MPS) has no float64 (double) arithmetic, so a float64 tensor cannot go to 'mps'. Float64 "
            "usually comes from NumPy (its arrays are float64 by default) or from torch.tensor of Python floats "
            "with dtype=torch.float64, or .double()."
        ),
        fix=(
            "Convert to float32 as you move: t.to('mps', dtype=torch.float32) (for a model: model.float().to('mps')); "
            "from NumPy, torch.from_numpy(a).float(). Keep float64 work on the CPU."
        ),
        example="Cannot convert a float64 Tensor to MPS as the MPS framework doesn't support float64. ...",
        releases="2.7.1-2.14.1 (macOS arm64)",
        source="libtorch_cpu.dylib; fact mps-float64 in docs/mac.md",
    ),
    Family(
        "dtype-on-backend",
        BACKENDS,
        "A dtype the backend has not got (float8 on MPS)",
        r"Trying to convert (?P<dtype>\w+) to the (?P<backend>\w+) backend but it does not have support for that dtype",
        "dtype-unsupported-on-device",
        devices=("{backend!l}",),
        cause=(
            "the {backend} backend has no {dtype} tensors, so this tensor (often a checkpoint's weights stored in "
            "{dtype}, such as an fp8 model) cannot be moved there."
        ),
        fix=(
            "Load the weights in a dtype the device has (float16 or bfloat16 on MPS: pick an fp16/bf16 checkpoint, "
            "or t.to(torch.float16) before .to('{backend!l}')), or run this model where {dtype} exists (CUDA GPUs "
            "with fp8 support, or the CPU)."
        ),
        example="Trying to convert Float8_e4m3fn to the MPS backend but it does not have support for that dtype.",
        releases="macOS arm64 wheels (reported on 2.7.0)",
        source="https://github.com/pytorch/pytorch/issues/148420",
    ),
    Family(
        "mps-unimplemented",
        BACKENDS,
        "MPS: an operator not implemented",
        r"The operator '(?P<op>[\w:.]+)' is not current(?:ly)? implemented for the MPS device",
        "op-not-on-device",
        devices=("mps",),
        cause=(
            "this PyTorch has no MPS kernel for {op}: your tensors are where they should be, but Apple's GPU "
            "cannot run this one operation in this release."
        ),
        fix=(
            "Let PyTorch run just this operation on the CPU: set PYTORCH_ENABLE_MPS_FALLBACK=1 before torch is "
            "imported (in the shell, or os.environ at the very top of the notebook, then restart the kernel); it is "
            "slower for that op. A newer torch may implement it; or move this step to the CPU yourself."
        ),
        example="The operator 'aten::_slow_conv2d_forward' is not currently implemented for the MPS device. ...",
        releases="macOS arm64 wheels, 1.12 onwards (docs/mac.md records the fallback)",
        source="https://github.com/pytorch/pytorch/issues/86195",
    ),
    Family(
        "lookalike-no-such-device",
        LOOKALIKE,
        "'No such device (os error 19)': a file that cannot be memory-mapped",
        r"No such device \(os error 19\)",
        "file-not-mappable",
        device_error=False,
        cause=(
            "the 'device' here is not a GPU: os error 19 is the operating system's ENODEV, which mmap returns "
            "when a file cannot be memory-mapped. safetensors maps a checkpoint into memory to open it (safe_open, "
            "load_file, and from_pretrained or PeftModel through them), and that fails when the path is a folder "
            "rather than a .safetensors file, or when the file lies on a file system that cannot map files (some "
            "network, FUSE or Ceph mounts). The device= you pass (cpu, cuda) plays no part."
        ),
        fix=(
            "Check that the path names a .safetensors file, not the folder holding it (os.path.isfile(path)). If it "
            "is a file, copy it to a local disk (~/ or /tmp) and load it from there, or read it without mmap: "
            "safetensors.torch.load(open(path, 'rb').read()). Changing device= or map_location will not help."
        ),
        example="OSError: No such device (os error 19)",
        releases="safetensors 0.3-0.8 (the Rust io::Error of mmap; raised live by safe_open on a folder in 0.8.0)",
        source=(
            "https://github.com/safetensors/safetensors/issues/485; https://github.com/zai-org/CogVideo/issues/455; "
            "https://github.com/huggingface/diffusers/issues/3258"
        ),
    ),
    Family(
        "lookalike-quantized",
        LOOKALIKE,
        "Quantized and float tensors mixed",
        r"Could not run '(?P<qop>quantized::[\w.]+)' with arguments from the '(?:CPU|CUDA)(?:TensorId)?' backend"
        r"|Could not run '(?P<fop>[\w:.]+)' with arguments from the 'QuantizedCPU(?:TensorId)?' backend",
        "quantization",
        device_error=False,
        roles=dict(alias=dict(op=("qop", "fop"))),
        cause=(
            "a quantized and a float tensor met the wrong kind of operation ({op}): a float tensor given to a "
            "quantized operation (the input was never quantized: no QuantStub or torch.quantize_per_tensor at "
            "the model's entry), or a quantized tensor given to a float operation (no DeQuantStub before it, or a "
            "+ or torch.cat in forward() that needs FloatFunctional). The backend named is the kind of tensor, "
            "not a device to move to."
        ),
        fix=(
            "Put torch.ao.quantization.QuantStub() where the model's input enters and DeQuantStub() before float "
            "operations and the output; replace + and torch.cat between quantized tensors with "
            "torch.ao.nn.quantized.FloatFunctional (its add, cat). The quantization docs cover it under 'passing a "
            "non-quantized Tensor into a quantized kernel'."
        ),
        example="NotImplementedError: Could not run 'aten::add.out' with arguments from the 'QuantizedCPU' backend.",
        releases="1.x-2.x eager-mode quantization",
        source="https://github.com/pytorch/pytorch/issues/98596; https://github.com/pytorch/pytorch/issues/34583",
    ),
    Family(
        "backend-kernel-missing",
        BACKENDS,
        "No kernel of an operation for this backend",
        r"Could not run '(?P<op>[\w:.]+)' with arguments from the '(?P<backend>CUDA|MPS|XPU|HIP|Meta|CPU|XLA|HPU|MTIA"
        r"|PrivateUse1)' backend",
        "op-not-on-device",
        devices=("{backend!l}",),
        cause=(
            "this PyTorch (or the extension that defines {op}) has no {backend} kernel for {op}: either the build has "
            "no {backend} support at all (a CPU-only build asked for 'cuda', 'mps' or 'hip'), or an extension was "
            "built without it (torchvision's ops from a build that does not match torch's CUDA)."
        ),
        fix=(
            "Check the build: torch.__version__, torch.version.cuda, torch.version.hip, torch.cuda.is_available(), "
            "torch.backends.mps.is_available(); install matching torch and torchvision builds from the same index "
            "(pytorch.org/get-started), or run this operation on a device the build has."
        ),
        example="Could not run 'aten::empty.memory_format' with arguments from the 'MPS' backend. ...",
        releases="read live in 2.13.0 (CPU wheel, device='mps' and device='hip')",
        source="aten/src/ATen/core/dispatch/OperatorEntry.cpp (reportError), raised live",
    ),
    Family(
        "rocm-visible-devices",
        BACKENDS,
        "ROCm: HIP_VISIBLE_DEVICES lists more GPUs than ROCR_VISIBLE_DEVICES",
        r"HIP_VISIBLE_DEVICES contains more devices than ROCR_VISIBLE_DEVICES",
        "no-gpu-visible",
        devices=("cuda",),
        cause=(
            "on a ROCm build both variables are set: ROCR_VISIBLE_DEVICES filters the GPUs first, and "
            "HIP_VISIBLE_DEVICES then picks among those (numbered from 0 again), so it cannot list more."
        ),
        fix=(
            "Set only one of them (HIP_VISIBLE_DEVICES, or CUDA_VISIBLE_DEVICES, which ROCm also reads), or index "
            "HIP_VISIBLE_DEVICES within the GPUs ROCR_VISIBLE_DEVICES left: ROCR=2,3 with HIP=1 is physical GPU 3."
        ),
        example="HIP_VISIBLE_DEVICES contains more devices than ROCR_VISIBLE_DEVICES",
        releases="2.7.1, 2.13.0, 2.14.1 (torch.cuda._parse_visible_devices)",
        source="torch/cuda/__init__.py, raised live by lesson 12 with torch.version.hip set",
    ),
    Family(
        "hip-invalid-function",
        BACKENDS,
        "ROCm/CUDA: no kernel for this GPU",
        r"(?P<backend>HIP|CUDA) error: invalid device function",
        "gpu-architecture",
        devices=("cuda",),
        flags=re.IGNORECASE,
        cause=(
            "the GPU could not run a kernel of this build: it has none compiled for this GPU's architecture (an AMD "
            "gfx target, or an NVIDIA sm_XY, that the build does not list). On ROCm this is common with consumer "
            "GPUs the build does not support. (PyTorch calls AMD GPUs 'cuda' devices.)"
        ),
        fix=(
            "Compare the GPU (rocminfo or torch.cuda.get_device_properties(0).gcnArchName; nvidia-smi) with "
            "torch.cuda.get_arch_list(), and install a build that lists it. On ROCm, a close supported target can be "
            "forced with HSA_OVERRIDE_GFX_VERSION (e.g. 10.3.0 for RDNA2 cards): a workaround, not a fix."
        ),
        example="HIP error: invalid device function",
        releases="ROCm builds (reported on 2.10.0.dev rocm7.0)",
        source="https://github.com/pytorch/pytorch/issues/164346",
    ),
    # ------------------------------------------------------------------ torch.compile and autocast
    Family(
        "triton-no-driver",
        COMPILE,
        "Triton finds no GPU to compile for",
        r"0 active drivers \(\[\]\)\. There should only be one|Triton is installed but 0 active driver\(s\) found",
        "no-gpu-visible",
        devices=("cuda",),
        cause=(
            "Triton, the GPU kernel compiler (used by torch.compile for GPU code, and by libraries' own kernels: "
            "FP8 or quantized matmuls, fused attention), found no GPU backend it can drive in this process: no "
            "NVIDIA or AMD GPU usable here (a CPU-only machine, macOS, no driver, a CPU-only torch). Triton kernels "
            "have no CPU fallback, so the code that defines or launches them stops at import or first use."
        ),
        fix=(
            "Run it where torch.cuda.is_available() is True (check nvidia-smi, torch.version.cuda); on a machine "
            "without a GPU, use code paths without Triton kernels (torch.compile itself compiles CPU code with C++, "
            "not Triton; a library may have a non-Triton option, or may simply need a GPU, as DeepSeek-V3's "
            "inference kernels do)."
        ),
        example="RuntimeError: 0 active drivers ([]). There should only be one.",
        releases="triton 3.x (triton/runtime/driver.py)",
        source=(
            "https://github.com/deepseek-ai/DeepSeek-R1/issues/493; https://github.com/triton-lang/triton/issues/5570 "
            "(macOS); https://github.com/SystemPanic/vllm-windows/issues/60"
        ),
    ),
    Family(
        "cuda-graph-empty",
        COMPILE,
        "A CUDA graph captured nothing",
        r"The CUDA Graph is empty\. This us\w*ally means that the graph was\s+attempted to be captured on wrong "
        r"device or stream",
        "cuda-graph-empty",
        devices=("cuda",),
        cause=(
            "a warning: a CUDA graph capture (torch.cuda.graph, CUDAGraph.capture_begin/capture_end, or "
            "torch.compile's mode='reduce-overhead') ended with nothing recorded. A capture records only the kernels "
            "launched on the capturing stream of the current GPU, so work that ran on another GPU (the tensors on "
            "cuda:1 while cuda:0 is current) or on another stream ran eagerly but was not recorded; or the captured "
            "code did no GPU work at all (CPU tensors). Replaying the graph then does nothing, silently: the outputs "
            "stop changing."
        ),
        fix=(
            "Make the tensors' GPU current before the warm-up and the capture: with torch.cuda.device(x.device): "
            "(or torch.cuda.set_device(local_rank) at start-up under DDP); launch the work on the capture stream "
            "(other streams inside must wait on torch.cuda.current_stream()); and check that the captured code runs "
            "on CUDA tensors. After capturing, one g.replay() should change the static outputs."
        ),
        example=(
            "UserWarning: The CUDA Graph is empty. This usually means that the graph was attempted to be captured on wrong device or stream."
        ),
        releases="torch 1.10-2.13 (aten/src/ATen/cuda/CUDAGraph.cpp, capture_end; 'ususally' before 2.1)",
        source="aten/src/ATen/cuda/CUDAGraph.cpp (TORCH_WARN in capture_end); https://github.com/pytorch/pytorch/issues/93378",
    ),
    Family(
        "cudagraphs-skipped",
        COMPILE,
        "torch.compile: CUDA graphs skipped for a CPU tensor (a warning)",
        r"skipping cudagraphs due to (?:skipping cudagraphs due to )?(?P<reason>cpu device(?: \((?P<node>\w+)\))?"
        r"|mult?i?ple devices[^\n]*)",
        "compile-cudagraphs-skipped",
        devices=("*",),
        roles=dict(fallback=("cuda",)),
        cause=(
            "a warning, not an error: torch.compile (mode='reduce-overhead', or inductor's triton.cudagraphs) "
            "wanted to record this compiled graph as a CUDA graph, which needs every tensor of the graph on one "
            "GPU, and found {reason} (argN_M names an input of the graph: a parameter, a buffer or an argument "
            "you passed). So inductor runs this graph without CUDA graphs: the results are right, only the "
            "speed-up is lost."
        ),
        fix=(
            "Move that input to the GPU before the compiled call, create tensors inside forward() with "
            "device=x.device (a CPU scalar tensor can often be a Python number instead), and keep each compiled "
            "function on one GPU. TORCH_LOGS='+cudagraphs' shows the skip reasons (recent releases add the line "
            "that used the CPU tensor, after 'Found from'). If the CPU part is intended, ignore the warning."
        ),
        example="skipping cudagraphs due to cpu device (arg3_1)",
        releases="torch 2.x inductor (torch/_inductor/cudagraph_utils.py of 2.13.0; 'multple devices' in 2022's torchinductor)",
        source="https://github.com/inclusionAI/dInfer/issues/38; https://github.com/pytorch/torchdynamo/issues/748",
    ),
    Family(
        "triton-gpu-too-old",
        COMPILE,
        "torch.compile: GPU too old for Triton",
        r"Found (?P<gpu>.+?) which is too old to be supported by the triton GPU compiler",
        "compile-gpu-too-old",
        devices=("cuda",),
        cause=(
            "torch.compile's default backend (inductor) generates Triton kernels, and Triton needs CUDA capability "
            "7.0 or newer; {gpu} is older. Eager PyTorch still runs on it."
        ),
        fix=(
            "Do not compile on this GPU (drop torch.compile, or set TORCHDYNAMO_DISABLE=1), or compile without "
            "Triton: torch.compile(model, backend='aot_eager'). A GPU of capability 7.0+ runs inductor."
        ),
        example="Found Tesla P100-PCIE-16GB which is too old to be supported by the triton GPU compiler, which is used "
        "as the backend. Triton only supports devices of CUDA Capability >= 7.0, ...",
        releases="2.x (read in 2.13.0)",
        source="torch/_inductor/exc.py (GPUTooOldForTriton)",
    ),
    Family(
        "autocast-device-type",
        COMPILE,
        "autocast: a device where a device type is expected",
        r"User specified an unsupported autocast device_type '(?P<given>(?P<device>[a-z]+:\d+)?[^']*)'",
        "autocast-device-type",
        devices=("{device}",),
        cause=(
            "torch.autocast(device_type=...) takes a device type, 'cuda', 'cpu', 'mps' or 'xpu', not a device "
            "('cuda:0') nor an index ('0'); '{given}' is not one it knows."
        ),
        fix=(
            "Pass the type: torch.autocast(device_type=x.device.type) (or device.type for a torch.device). The "
            "index does not matter: autocast applies to the current device of that type."
        ),
        example="User specified an unsupported autocast device_type 'cuda:0'",
        releases=(
            "the wording is in torch/amp/autocast_mode.py of 2.7.1, 2.13.0 and 2.14.1, which raise it for a type "
            "without autocast (torch.autocast('meta', dtype=torch.bfloat16)) but take 'cuda:0' silently; "
            "reports of 'cuda:0' come from other releases"
        ),
        source="https://github.com/speechbrain/speechbrain/issues/2881",
    ),
    Family(
        "autocast-device-object",
        COMPILE,
        "autocast: a torch.device where a device type is expected",
        r"Expected `device_type` of type `str`, got: `<class 'torch\.device'>`",
        "autocast-device-type",
        cause=(
            "torch.autocast(device_type=...) was given a torch.device (x.device); it takes the device's type, "
            "a str such as 'cuda', 'cpu' or 'mps'."
        ),
        fix="Pass the type: torch.autocast(device_type=x.device.type).",
        example="Expected `device_type` of type `str`, got: `<class 'torch.device'>`",
        releases="torch/amp/autocast_mode.py of 2.7.1, 2.13.0 and 2.14.1, raised live",
        source="torch/amp/autocast_mode.py, raised by torch.autocast(x.device) in lesson 11",
    ),
    Family(
        "amp-cuda-deprecated",
        COMPILE,
        "AMP: the deprecated torch.cuda.amp names (a warning)",
        r"`torch\.cuda\.amp\.(?P<name>\w+)\(args\.\.\.\)` is deprecated\. Please use "
        r"`torch\.amp\.(?P=name)\('cuda', args\.\.\.\)` instead",
        "amp-deprecated",
        devices=("cuda",),
        cause=(
            "a FutureWarning, not an error: torch.cuda.amp.{name} still works, but the AMP names moved to torch.amp, "
            "where the device type is an argument, so the same code serves the CPU, CUDA, MPS and XPU."
        ),
        fix=("Write torch.amp.{name}('cuda', ...), or better torch.amp.{name}(x.device.type, ...) with the type taken from your tensor."),
        example="`torch.cuda.amp.GradScaler(args...)` is deprecated. Please use `torch.amp.GradScaler('cuda', args...)` instead.",
        releases="2.7.1, 2.13.0 and 2.14.1, raised live (torch/cuda/amp/grad_scaler.py, autocast_mode.py)",
        source="torch/cuda/amp/grad_scaler.py; lesson 11, part 1",
    ),
    Family(
        "amp-cuda-unavailable",
        COMPILE,
        "AMP for 'cuda' on a machine without CUDA (a warning)",
        r"CUDA is not available or torch_xla is imported\. Disabling autocast"
        r"|User provided device_type of 'cuda', but CUDA is not available\. Disabling"
        r"|GradScaler is enabled, but CUDA is not available\.\s+Disabling"
        r"|torch\.cuda\.amp\.autocast only affects CUDA ops, but CUDA is not",
        "amp-disabled",
        devices=("cuda",),
        cause=(
            "a UserWarning, not an error: autocast or GradScaler was made for 'cuda' where no CUDA GPU is available, so "
            "it switched itself off and the code runs in float32, unscaled: nothing runs in lower precision."
        ),
        fix=(
            "Take the type from your tensor, torch.autocast(device_type=x.device.type), so a CPU gets CPU autocast "
            "(bfloat16); make the GradScaler only for float16 on CUDA: "
            "torch.amp.GradScaler('cuda', enabled=x.device.type == 'cuda')."
        ),
        example="CUDA is not available or torch_xla is imported. Disabling autocast.",
        releases=(
            "raised live: 2.13.0 and 2.14.1 'CUDA is not available or torch_xla is imported. Disabling autocast.', "
            "2.7.1 'User provided device_type of 'cuda', but CUDA is not available. Disabling'; GradScaler's in "
            "all three"
        ),
        source="torch/amp/autocast_mode.py, torch/amp/grad_scaler.py",
    ),
    Family(
        "autocast-dtype",
        COMPILE,
        "autocast: a dtype this device's autocast does not cast to",
        r"In (?P<backend>\w+) autocast, but the target dtype is not supported"
        r"|Currently, Autocast(?P<old>[A-Z]+) only support (?P<allowed>\w+) as the autocast_\w+_dtype",
        "dtype-unsupported-on-device",
        devices=("{name!l}",),
        roles=dict(alias=dict(name=("backend", "old"))),
        cause=(
            "torch.autocast on {name!u} casts only to the low-precision dtypes its kernels have (the CPU: "
            "bfloat16, and float16 from 2.x; the message lists them), and the code asked for another, most "
            "often float32 meaning 'no autocast here' or float16 on the CPU. 2.x warns and runs that region "
            "without autocast; 1.x's CPU autocast raised. Your tensors' devices are not the problem."
        ),
        fix=(
            "To switch autocast off for a region, say so: torch.autocast(device_type, enabled=False), not "
            "dtype=torch.float32. Otherwise pick the dtype by device: dtype = torch.bfloat16 if "
            "device.type == 'cpu' else torch.float16, and torch.autocast(device.type, dtype=dtype)."
        ),
        example=(
            "In CPU autocast, but the target dtype is not supported. Disabling autocast.\nCPU Autocast only "
            "supports dtypes of torch.bfloat16, torch.float16 currently."
        ),
        releases="2.x warning read (and raised) in 2.13.0; 'Currently, AutocastCPU only support Bfloat16 ...' 1.10-2.0",
        source="torch/amp/autocast_mode.py of 2.13.0; https://github.com/modelscope/FunASR/issues/264; "
        "https://github.com/lllyasviel/Fooocus/issues/759",
    ),
    Family(
        "bf16-unsupported",
        COMPILE,
        "autocast: bfloat16 on a GPU without it",
        r"Current CUDA Device does not support bfloat16",
        "dtype-unsupported-on-device",
        devices=("cuda",),
        cause=(
            "autocast was asked for bfloat16, and this GPU has no bfloat16 support (GPUs before NVIDIA's Ampere, "
            "CUDA capability below 8.0: V100, T4, RTX 20xx, P100)."
        ),
        fix=(
            "Use float16 with a GradScaler: torch.autocast('cuda', dtype=torch.float16) and "
            "torch.amp.GradScaler('cuda'); or choose at run time: dtype = torch.bfloat16 if "
            "torch.cuda.is_bf16_supported() else torch.float16."
        ),
        example="Current CUDA Device does not support bfloat16. Please switch dtype to float16.",
        releases="read in 2.13.0",
        source="torch/amp/autocast_mode.py",
    ),
    # ------------------------------------------------------------------ libraries around PyTorch
    Family(
        "hf-generate-device",
        LIBRARIES,
        "Hugging Face: generate() with inputs and model on different devices",
        r"You are calling \.generate\(\) with the `?input_ids`? being on a device type different than your model's "
        r"device\. `?input_ids`? is on (?P<inputs>\w+), whereas the model is on (?P<model>\w+)",
        "mixed-devices",
        devices=("{inputs}", "{model}"),
        cause=(
            "a UserWarning from Hugging Face transformers: generate() got input_ids on {inputs} while the model "
            "(model.device, its first weights) is on {model}. transformers does not move them; the first "
            "forward step then fails with 'Expected all tensors to be on the same device' or runs slowly. Often "
            "the model is not where you think: from_pretrained without device_map leaves it on the CPU, and "
            "model.to(...) was never called."
        ),
        fix=(
            "Decide where the model should run, then put the inputs there: inputs = tokenizer(..., "
            "return_tensors='pt').to(model.device). The message's own suggestion, input_ids.to('{model}'), is "
            "right only if you meant to run on {model}; if you meant the GPU, move the model first (model.to('cuda') "
            "or device_map) and check print(model.device)."
        ),
        example=(
            "You are calling .generate() with the `input_ids` being on a device type different than your "
            "model's device. `input_ids` is on cuda, whereas the model is on cpu. ..."
        ),
        releases="transformers 4.2x-4.5x (generation/utils.py)",
        source="https://github.com/smthemex/ComfyUI_YuE/issues/30; https://github.com/huggingface/transformers/pull/19468",
    ),
    Family(
        "webui-cuda-test",
        LIBRARIES,
        "Stable Diffusion web UI: torch cannot use the GPU",
        r"Torch is not able to use GPU; add --skip-torch-cuda-test",
        "no-gpu-visible",
        devices=("cuda",),
        cause=(
            "the web UI's launcher (AUTOMATIC1111's stable-diffusion-webui and its forks) checks "
            "torch.cuda.is_available() before it starts, and it is False in the web UI's venv: a CPU-only torch "
            "there, no NVIDIA driver (or one older than the torch build's CUDA), or an AMD or Intel GPU, for which "
            "this launcher installed a CUDA build."
        ),
        fix=(
            "In the web UI's venv run python -c \"import torch; print(torch.__version__, torch.version.cuda, "
            'torch.cuda.is_available())" and nvidia-smi: install the CUDA build of torch (or update the driver) '
            "for an NVIDIA GPU, or the ROCm build (Linux) or a DirectML/ZLUDA fork for AMD. Add "
            "--skip-torch-cuda-test only if you mean to run on the CPU (with --use-cpu all), which is very slow."
        ),
        example="Torch is not able to use GPU; add --skip-torch-cuda-test to COMMANDLINE_ARGS variable to disable this check",
        releases="stable-diffusion-webui 1.x (launch_utils.py)",
        source="https://github.com/AUTOMATIC1111/stable-diffusion-webui/issues/14617",
    ),
    Family(
        "accelerate-8bit-train",
        LIBRARIES,
        "Accelerate: training a quantized model placed on other devices",
        r"You can't train a model that has been loaded in (?P<bits>\d+)-bit precision on "
        r"(?P<where>a different device than the one you're training on|multiple devices)",
        "library-placement",
        cause=(
            "Accelerate (under Trainer, TRL or PEFT scripts) trains one copy of the model per process, on that "
            "process's GPU, and a model quantized with bitsandbytes ({bits}-bit) cannot be moved after loading; "
            "this one was loaded elsewhere ({where}): device_map='auto' spreads it over all the GPUs, or puts "
            "every process's copy on GPU 0, when it is launched with torchrun or accelerate launch."
        ),
        fix=(
            "Load each process's copy on its own GPU: from_pretrained(..., device_map={{'': "
            "PartialState().process_index}}) (from accelerate import PartialState), or device_map={{'': "
            "torch.cuda.current_device()}} once each process has set its device. To train one copy split over "
            "several GPUs, run a single process (python train.py, not torchrun)."
        ),
        example="You can't train a model that has been loaded in 8-bit precision on a different device than the one "
        "you're training on. Make sure you loaded the model on the correct device using for example "
        "`device_map={'':torch.cuda.current_device()}` ...",
        releases="accelerate 0.20-1.x (accelerator.py, prepare_model)",
        source="https://github.com/yangjianxin1/Firefly/issues/256; https://github.com/huggingface/peft/issues/414",
    ),
    Family(
        "flash-attn-ampere",
        LIBRARIES,
        "FlashAttention on a GPU older than Ampere",
        r"FlashAttention only supports Ampere GPUs or newer",
        "gpu-architecture",
        devices=("cuda",),
        cause=(
            "FlashAttention's kernels (the flash-attn package, and the copies inside xformers and vLLM) run only on "
            "GPUs of compute capability 8.0 or newer (Ampere: A100, RTX 30xx; Ada; Hopper), and this process's "
            "GPU is older (Turing: T4, RTX 20xx, Quadro RTX; Volta: V100). It is raised even where you believe "
            "flash attention is off: a model config, a tool's default or a library's own choice still picked it."
        ),
        fix=(
            "Use PyTorch's attention instead: from_pretrained(..., attn_implementation='sdpa') (or 'eager'); turn "
            "off the tool's flash option where it is set (use_flash_attn=False, --flash_attn false, also in a saved "
            "config); for vLLM choose another attention backend (the VLLM_ATTENTION_BACKEND environment variable). "
            "Check the GPU with torch.cuda.get_device_capability(): if it says (8, 0) or more, the installed "
            "flash-attn build has no kernels for it or another GPU is in use (CUDA_VISIBLE_DEVICES)."
        ),
        example="RuntimeError: FlashAttention only supports Ampere GPUs or newer.",
        releases="flash-attn 2.x (csrc/flash_attn/flash_api.cpp, mha_fwd); vLLM and xformers builds of it",
        source=(
            "https://github.com/Dao-AILab/flash-attention/issues/762 (Quadro RTX 5000, Tesla T4); "
            "https://github.com/vllm-project/vllm/issues/8189"
        ),
    ),
    Family(
        "bnb-to",
        LIBRARIES,
        "Hugging Face: .to() on a bitsandbytes model",
        r"`?\.to`? is not supported for `?4-bit`? or `?8-bit`? (?:bitsandbytes )?models",
        "library-placement",
        cause=(
            "a model loaded in 4-bit or 8-bit with bitsandbytes was placed on its GPU when it was loaded "
            "(device_map), and transformers refuses to move or cast it afterwards: the quantized weights only work "
            "where they were quantized."
        ),
        fix=(
            "Do not call model.to(...) or model.cuda(); choose the GPU when loading: from_pretrained(..., "
            "quantization_config=..., device_map={{'': 0}}) (or device_map='auto'). " + _MOVE_INPUTS_TO_MODEL
        ),
        example="`.to` is not supported for `4-bit` or `8-bit` bitsandbytes models. Please use the model as it is, ...",
        releases="transformers 4.3x-4.5x",
        source="https://github.com/huggingface/transformers/issues/38717",
    ),
    Family(
        "bnb-to-old-version",
        LIBRARIES,
        "Hugging Face: moving a quantized model needs a newer bitsandbytes",
        r"Calling `(?P<call>to|cuda)\(\)` is not supported for `(?P<bits>[48])-bit` quantized models with the installed "
        r"version of bitsandbytes\. The current device is `(?P<device>[^`]+)`",
        "library-placement",
        devices=("{device}",),
        cause=(
            "a model loaded in {bits}-bit with bitsandbytes is on {device}, and model.{call}() (yours, or a pipeline's "
            "or a UI's moving or offloading it) was refused: the installed bitsandbytes is too old to move quantized "
            "weights between devices, so transformers (or diffusers) stops before breaking them."
        ),
        fix=(
            "Usually it need not move: choose the device when loading, from_pretrained(..., quantization_config=..., "
            "device_map={{'': 0}}), and move the inputs to model.device. If it must move (offloading it to the CPU, "
            "say), upgrade: pip install -U bitsandbytes (the message names the release that can: 0.43.2 for 4-bit)."
        ),
        example=(
            "ValueError: Calling `to()` is not supported for `4-bit` quantized models with the installed version of "
            "bitsandbytes. The current device is `cuda:0`. If you intended to move the model, please install "
            "bitsandbytes >= 0.43.2."
        ),
        releases="transformers 4.4x-4.5x, diffusers 0.3x (modeling_utils.py, to() and cuda())",
        source="https://github.com/huggingface/transformers/issues/35442; huggingface/diffusers modeling_utils.py",
    ),
    Family(
        "accelerate-device-map-distributed",
        LIBRARIES,
        "Accelerate: a model split by device_map in a distributed run",
        r"You can't train a model that has been loaded with `device_map='auto'` in any distributed mode",
        "device-map-distributed",
        devices=("cuda",),
        cause=(
            "two ways of using several GPUs were mixed. device_map='auto' (or 'balanced', or any map naming several "
            "GPUs) splits one copy of the model across the GPUs inside one process; a distributed run (accelerate "
            "launch or torchrun with several processes, or an accelerate config whose distributed_type is "
            "MULTI_GPU, DEEPSPEED or FSDP, even with one process) gives each process its own GPU and its own whole "
            "copy. Accelerate refuses a model spread over several devices in a distributed run."
        ),
        fix=(
            "For data parallel (one whole copy per GPU), load each process's copy onto its own GPU: "
            "from_pretrained(..., device_map={{'': PartialState().process_index}}) (from accelerate import "
            "PartialState; or LOCAL_RANK), or no device_map under DeepSpeed/FSDP, which place the model themselves. "
            "For a model too large for one GPU, keep device_map='auto' and run one plain process: python "
            "script.py, or accelerate launch --num_processes=1 with distributed_type NO in the accelerate config."
        ),
        example=(
            "ValueError: You can't train a model that has been loaded with `device_map='auto'` in any distributed "
            "mode. Please rerun your script specifying `--num_processes=1` or by launching with `python "
            "{{myscript.py}}`."
        ),
        releases="accelerate 0.2x-1.x (accelerator.py, prepare and prepare_model)",
        source=(
            "huggingface/accelerate src/accelerate/accelerator.py (verify_device_map); "
            "https://github.com/FreedomIntelligence/HuatuoGPT-II/issues/32; https://github.com/QwenLM/Qwen/issues/900"
        ),
    ),
    Family(
        "bnb-requantized",
        LIBRARIES,
        "bitsandbytes: a 4-bit weight quantized again when moved",
        r"Blockwise quantization only supports 16/32-bit floats, but got torch\.uint8",
        "library-placement",
        cause=(
            "bitsandbytes was asked to quantize a weight that is already 4-bit (packed two values a byte in uint8). "
            "A Linear4bit's weight (Params4bit) is quantized the first time it is moved to the GPU and then marked "
            "as quantized; a copy that lost the mark is taken for float data and quantized again on its next move. "
            "In bitsandbytes 0.46, keeping the result of the parameter's own .to() (p = p.to('cuda:0')) gave such "
            "a copy; putting already-quantized weights into a fresh Linear4bit through load_state_dict does too."
        ),
        fix=(
            "Move the module, not its parameters: layer.to(device) or model.to(device), and do not keep the result "
            "of a Params4bit's .to(); upgrade bitsandbytes (later releases keep the mark on the copy). Load 4-bit "
            "checkpoints with from_pretrained(..., quantization_config=BitsAndBytesConfig(load_in_4bit=True), "
            "device_map=...) rather than loading their state dict into new layers."
        ),
        example="RuntimeError: Blockwise quantization only supports 16/32-bit floats, but got torch.uint8",
        releases="bitsandbytes 0.46 (nn/modules.py, Params4bit.to and _quantize)",
        source="https://github.com/bitsandbytes-foundation/bitsandbytes/issues/1664; bitsandbytes nn/modules.py at 005a63c",
    ),
    Family(
        "accelerate-offloaded-to",
        LIBRARIES,
        "Accelerate: .to() on an offloaded model",
        r"You can't move a model that has some modules offloaded to cpu or disk",
        "library-placement",
        devices=("cpu",),
        cause=(
            "the model was dispatched by Accelerate (device_map='auto' or a device_map with 'cpu' or 'disk'): some "
            "weights live on the CPU or on disk and hooks bring them to the GPU layer by layer. Moving the whole "
            "model would break that."
        ),
        fix=(
            "Leave the model where it is and move only the inputs: inputs = inputs.to(model.device) (the device of the "
            "first layer; model.hf_device_map shows the rest). To have it all on one GPU, load it with "
            "device_map={{'': 0}} when it fits, or a smaller or quantized model when it does not."
        ),
        example="You can't move a model that has some modules offloaded to cpu or disk.",
        releases="accelerate 1.15.0.dev0 (commit 16cb6eb), 1.16.0 (raised live in lesson 10)",
        source="accelerate src/accelerate/big_modeling.py (dispatch_model)",
    ),
    Family(
        "accelerate-max-memory-key",
        LIBRARIES,
        "Accelerate: a max_memory key that is not a device it knows",
        r"Device (?P<key>.+?) is not recognized, available devices are integers\(for GPU/XPU\), 'mps', 'cpu' and 'disk'",
        "library-placement",
        devices=("cuda",),
        cause=(
            "max_memory (in infer_auto_device_map, or from_pretrained(..., device_map='auto', max_memory=...)) has the "
            "key {key}, which is none of them: Accelerate names a GPU by its index as an integer (0 for cuda:0), and "
            "the other places 'mps', 'cpu' and 'disk'; the string 'cuda:0', the string '0' and torch.device('cuda:0') "
            "are not keys it knows."
        ),
        fix=(
            "Key the budgets by integer GPU index: max_memory={{0: '20GiB', 1: '20GiB', 'cpu': '30GiB'}} (with "
            "CUDA_VISIBLE_DEVICES set, 0 is the first visible GPU)."
        ),
        example="Device cuda:0 is not recognized, available devices are integers(for GPU/XPU), 'mps', 'cpu' and 'disk'",
        releases="accelerate 1.16.0 (raised live in the tests)",
        source="accelerate src/accelerate/utils/modeling.py (get_max_memory)",
    ),
    Family(
        "offload-folder",
        LIBRARIES,
        "Hugging Face: weights offloaded to disk need a folder",
        r"had weights offloaded to the disk\. Please provide an `offload_folder`|We need an `offload_dir` to dispatch "
        r"this model|will be offloaded to disk, please pass along an `offload_folder`",
        "offload-folder",
        cause=(
            "device_map='auto' found that the model does not fit in the GPU and CPU memory it may use, and put "
            "some layers on 'disk'; disk offload needs a folder to write them to."
        ),
        fix=(
            "If you accept slow generation, give it one: from_pretrained(..., device_map='auto', "
            "offload_folder='offload'). Better: a model that fits (smaller, float16/bfloat16 instead of float32, or "
            "quantized), or more memory via max_memory={{0: '20GiB', 'cpu': '30GiB'}}."
        ),
        example="The current `device_map` had weights offloaded to the disk. Please provide an `offload_folder` for them. ...",
        releases="transformers 4.x; accelerate 1.15.0.dev0, 1.16.0",
        source="https://github.com/haotian-liu/LLaVA/issues/1553; accelerate big_modeling.py, utils/modeling.py",
    ),
    Family(
        "bnb-dispatched",
        LIBRARIES,
        "bitsandbytes: modules dispatched to the CPU or disk",
        r"Some modules are dispatched on the CPU or the disk",
        "offload-quantized",
        devices=("cpu",),
        cause=(
            "the quantized model does not fit in the GPU memory that is free, so device_map='auto' would put some "
            "layers on the CPU or disk, which bitsandbytes' 4-bit/8-bit layers cannot run from."
        ),
        fix=(
            "Free GPU memory (other models, other processes: nvidia-smi) or load a smaller model. To run the rest "
            "on the CPU in 32-bit, set BitsAndBytesConfig(llm_int8_enable_fp32_cpu_offload=True) and pass a "
            "device_map that names which modules go to 'cpu'."
        ),
        example="Some modules are dispatched on the CPU or the disk. Make sure you have enough GPU RAM to fit the quantized model. ...",
        releases="transformers 4.x",
        source="https://github.com/unslothai/unsloth/issues/1629",
    ),
    Family(
        "bnb-cuda-setup",
        LIBRARIES,
        "bitsandbytes could not load its CUDA library",
        r"CUDA Setup failed despite GPU being available",
        "library-no-gpu",
        devices=("cuda",),
        cause=(
            "bitsandbytes (before 0.43) found a GPU through torch but could not load its own compiled library "
            "for torch's CUDA version: no libbitsandbytes_cudaXYZ for that version (Windows had no official "
            "wheel before 0.43), the CUDA runtime library (libcudart) not on LD_LIBRARY_PATH, or "
            "BNB_CUDA_VERSION forcing another version. Torch and the GPU are fine; 8-bit and 4-bit layers "
            "cannot run until bitsandbytes loads."
        ),
        fix=(
            "Run python -m bitsandbytes and read its CUDA SETUP lines; then pip install -U bitsandbytes (0.43 and "
            "later ship one wheel for Linux and Windows with the CUDA versions torch uses), unset BNB_CUDA_VERSION, "
            "and compare torch.version.cuda with what bitsandbytes looked for."
        ),
        example="CUDA Setup failed despite GPU being available. Please run the following command to get more "
        "information: python -m bitsandbytes ...",
        releases="bitsandbytes 0.37-0.42 (cuda_setup/main.py, cextension.py)",
        source="https://github.com/bitsandbytes-foundation/bitsandbytes/issues/828; "
        "https://github.com/bitsandbytes-foundation/bitsandbytes/issues/305",
    ),
    Family(
        "bnb-cpu-only",
        LIBRARIES,
        "bitsandbytes without GPU support",
        r"bitsandbytes was compiled without GPU support|not available in CPU-only version of bitsandbytes",
        "library-no-gpu",
        devices=("cuda",),
        cause=(
            "the bitsandbytes installed has no GPU library for this machine (a CPU-only install, or no matching "
            "CUDA build found), so 8-bit optimizers and quantization cannot run on the GPU."
        ),
        fix=(
            "Check torch.cuda.is_available() first (no GPU: bitsandbytes' GPU features are not for this machine); "
            "with a GPU, reinstall a current bitsandbytes (pip install -U bitsandbytes) and run "
            "python -m bitsandbytes to see what it found."
        ),
        example="The installed version of bitsandbytes was compiled without GPU support. 8-bit optimizers, 8-bit "
        "multiplication, and GPU quantization are unavailable.",
        releases="bitsandbytes 0.3x-0.4x (warning); 0.50 'CPU-only version' (bitsandbytes/cextension.py)",
        source="https://github.com/bitsandbytes-foundation/bitsandbytes/issues/719",
    ),
    Family(
        "vllm-device-type",
        LIBRARIES,
        "vLLM: no device it can use",
        r"Failed to infer device type",
        "no-gpu-visible",
        cause=(
            "vLLM looked for a platform it supports (an NVIDIA or AMD GPU through torch and its driver library, "
            "a TPU, an XPU, ...) and found none it could use: no GPU visible to the process (container without "
            "--gpus, CUDA_VISIBLE_DEVICES), a CPU-only torch, or a broken NVIDIA management library."
        ),
        fix=(
            'Check what the process sees: nvidia-smi, python -c "import torch; print(torch.cuda.is_available())"; '
            "in Docker run with --gpus all. VLLM_LOGGING_LEVEL=DEBUG shows how vLLM decided."
        ),
        example="RuntimeError: Failed to infer device type",
        releases="vLLM 0.6-0.8",
        source="https://github.com/vllm-project/vllm/issues/12847 (vllm/config.py)",
    ),
    # ------------------------------------------------------------------ distributed training
    Family(
        "safetensors-device",
        LIBRARIES,
        "safetensors: a device argument it does not parse",
        r"device (?:device\(type=')?(?P<device>[A-Za-z_]+(?::\d+)?)(?:'[^)]*\))? is invalid",
        "safetensors-device",
        devices=("{device!l}",),
        cause=(
            "safetensors' load_file()/safe_open(device=...) parses the device itself: it takes a string it knows "
            "('cpu', 'cuda', 'cuda:N', 'mps', 'xpu', 'npu', ...) or an int GPU index, and nothing else. A "
            "torch.device object is refused (older versions print it as 'cpu' or 'cuda:0', so a valid-looking "
            "name is rejected; newer ones as device(type='cpu')), and the lib.rs read refuses 'mps:0' "
            "('mps' only; 0.8.0 takes it) and 'cpu:0'. The device itself is fine."
        ),
        fix=(
            "Pass a plain string or an index: load_file(path, device=str(device)) (for MPS 'mps', for the CPU "
            "'cpu'), or device=torch.cuda.current_device(); or load to the CPU and move: "
            "load_file(path, device='cpu') then model.to(device). Upgrading safetensors also helps with 'mps:0'."
        ),
        example="safetensors_rust.SafetensorError: device cuda:0 is invalid",
        releases="safetensors 0.3-0.8 (0.8.0 prints a torch.device as device(type='cpu'))",
        source=(
            "huggingface/safetensors bindings/python/src/lib.rs at 000a16f (impl FromPyObject for Device); "
            "https://github.com/safetensors/safetensors/issues/674; https://github.com/Wan-Video/Wan2.2/issues/117"
        ),
    ),
    Family(
        "cuda-headers-missing",
        LIBRARIES,
        "Building a CUDA extension: the toolkit's headers are missing",
        r"(?P<header>\b(?:cuda_runtime_api|cuda_runtime|cuda|cublas_v2|cublasLt|cusparse|cusolverDn|cudnn|curand|cufft"
        r"|cuda_fp16|cuda_bf16|nvrtc|nvToolsExt)\.h)\W{0,3}(?:No such file or directory|没有那个文件或目录|file not found)",
        "cuda-headers-missing",
        devices=("cuda",),
        cause=(
            "a C++/CUDA extension is being compiled (setup.py, a pip install of a package with CUDA code, "
            "torch.utils.cpp_extension.load) and the compiler cannot find {header}, a header of the CUDA toolkit. "
            "torch's own CUDA headers (c10/cuda/CUDAStream.h, ATen/cuda/CUDAContext.h) include it, so any extension "
            "that uses torch's CUDA API needs the toolkit's include folder; the PyTorch wheel brings the CUDA runtime "
            "libraries but not these headers, and the NVIDIA driver does not bring them either. The toolkit is "
            "missing, or installed where the build does not look (CUDA_HOME unset or naming another folder, a "
            "conda environment with the runtime only). No tensor and no GPU is at fault: torch.cuda.is_available() "
            "may well be True."
        ),
        fix=(
            "Install the CUDA toolkit, with its headers, for the CUDA version of torch.version.cuda (NVIDIA's "
            "installer, or conda install -c nvidia cuda-toolkit) and point the build at it: export "
            "CUDA_HOME=/usr/local/cuda-12.4, then check that $CUDA_HOME/include/{header} exists (a CMake or Makefile "
            "build of your own needs $CUDA_HOME/include on its include path). Or install the package's prebuilt wheel "
            "for your torch. A CPU-only torch cannot build CUDA extensions at all."
        ),
        example="fatal error: cuda_runtime_api.h: No such file or directory",
        releases="any torch with a C++/CUDA extension build (torch/utils/cpp_extension.py; the compiler's message)",
        source=(
            "https://github.com/sicxu/Deep3DFaceRecon_pytorch/issues/11; "
            "https://github.com/Yuliang-Liu/Box_Discretization_Network/issues/41; "
            "https://github.com/turboderp/exllama/issues/142"
        ),
    ),
    Family(
        "dlpack-pinned-host",
        LIBRARIES,
        "DLPack: a tensor in pinned CPU memory",
        r"kDLCPUPinned|kDLCUDAHost",
        "dlpack-device",
        devices=("cpu",),
        cause=(
            "a CPU tensor in pinned (page-locked) memory was handed over through DLPack: torch reports such a "
            "tensor's device as DLPack device type 3 (kDLCPUPinned, renamed kDLCUDAHost), not as plain CPU memory "
            "(kDLCPU, type 1), and the library importing it has no entry for that device type (JAX's "
            "jax.dlpack.from_dlpack raises KeyError for it). tensor.pin_memory() or a DataLoader with "
            "pin_memory=True made it so; the data are fine."
        ),
        fix=(
            "Hand over memory the other library accepts: a plain CPU copy (jnp.asarray(t.numpy()), or "
            "jax.dlpack.from_dlpack(torch.empty_like(t, pin_memory=False).copy_(t))), or, when JAX runs on the GPU, "
            "the tensor on the GPU (jax.dlpack.from_dlpack(t.to('cuda'))). Or do not pin tensors meant for the "
            "other library; newer JAX accepts pinned host tensors (jax-ml/jax pull request 37896)."
        ),
        example="KeyError: <DLDeviceType.kDLCPUPinned: 3>",
        releases="torch 1.10-2.13 (Tensor.__dlpack_device__: kDLCPUPinned, kDLCUDAHost in 2.13.0); jax 0.4.x",
        source=(
            "torch/_tensor.py of 2.13.0 (__dlpack_device__); https://github.com/jax-ml/jax/issues/22346; "
            "https://github.com/jax-ml/jax/pull/37896"
        ),
    ),
    Family(
        "cuda-home-unset",
        LIBRARIES,
        "Building a CUDA extension without the CUDA toolkit",
        r"CUDA_HOME environment variable is not set|CUDA was not found on the system, please set the CUDA_HOME"
        r"|CUDA_HOME does not exist, unable to compile CUDA op\(s\)",
        "cuda-home-unset",
        devices=("cuda",),
        cause=(
            "a package is compiling a CUDA extension (torch.utils.cpp_extension.CUDAExtension, a setup.py or "
            "pip install of flash-attn, apex, a custom op; DeepSpeed's op builder, at pip install or when an op such "
            "as FusedAdam is first loaded) and needs the CUDA toolkit's compiler nvcc. PyTorch "
            "looked in CUDA_HOME/CUDA_PATH, for nvcc on PATH and in /usr/local/cuda, and found none: the "
            "PyTorch wheel brings the CUDA runtime libraries but not nvcc, and the NVIDIA driver does not "
            "bring it either. It says nothing about whether the GPU works (torch.cuda.is_available() may be True)."
        ),
        fix=(
            "Install a CUDA toolkit whose version matches torch.version.cuda (or at least its major version) and "
            "point at it: export CUDA_HOME=/usr/local/cuda-12.4 (on Windows CUDA_PATH), so that "
            "$CUDA_HOME/bin/nvcc --version runs; or conda install -c nvidia cuda-nvcc; or install the package's "
            "prebuilt wheel instead of building it. A CPU-only torch cannot build CUDA extensions at all."
        ),
        example="OSError: CUDA_HOME environment variable is not set. Please set it to your CUDA install root.",
        releases="torch 1.0-2.13 (torch/utils/cpp_extension.py, _join_cuda_home)",
        source="torch/utils/cpp_extension.py of 2.13.0; https://github.com/facebookresearch/votenet/issues/2",
    ),
    Family(
        "cuda-toolkit-mismatch",
        LIBRARIES,
        "Building a CUDA extension: the toolkit's CUDA against torch's",
        r"The detected CUDA version \((?P<found>[^)]*)\) (?:mismatches|has a minor version mismatch with) the version "
        r"that was used to compile\s*PyTorch \((?P<built>[^)]*)\)",
        "cuda-toolkit-mismatch",
        devices=("cuda",),
        cause=(
            "a CUDA extension is being compiled (setup.py, pip install of a package with CUDA code) with the nvcc "
            "found at CUDA_HOME (the first version in the message) while this torch was built with another CUDA "
            "(the second, torch.version.cuda); an extension built with another major version would not load against torch's "
            "CUDA libraries. 'Detected' is the toolkit's nvcc, not the driver's 'CUDA Version' in nvidia-smi, and "
            "not what the GPU supports. torch 2.13.0 raises only for a different major version and warns for a "
            "minor one; older releases raised for any difference (11.8 against 11.7 with torch 1.13.1)."
        ),
        fix=(
            "Make the two agree: install the torch build for your toolkit (pip's cu118/cu121/cu124... index, "
            "pytorch.org/get-started), or install the toolkit that matches torch.version.cuda next to the other one "
            "and point at it: export CUDA_HOME=/usr/local/cuda-12.4, then check $CUDA_HOME/bin/nvcc --version; or "
            "install the package's prebuilt wheel for your torch."
        ),
        example=(
            "RuntimeError: The detected CUDA version (11.8) mismatches the version that was used to compile "
            "PyTorch (12.4). Please make sure to use the same CUDA versions."
        ),
        releases="torch 1.x-2.13 (torch/utils/cpp_extension.py, _check_cuda_version; 2.13.0 prints 'compilePyTorch')",
        source=(
            "torch/utils/cpp_extension.py of 2.13.0; https://github.com/icip-cas/AutoAlign/issues/25; "
            "https://github.com/open-mmlab/OpenPCDet/issues/1275 (torch 1.13.1)"
        ),
    ),
    Family(
        "cuda-runtime-not-found",
        LIBRARIES,
        "cpp_extension: a CUDA toolkit but no usable GPU in this torch",
        r"No CUDA runtime is found, using CUDA_HOME=(?P<home>'[^'\n]*'|\S+)",
        "cuda-runtime-not-found",
        devices=("cuda",),
        cause=(
            "a log line of torch.utils.cpp_extension, printed on import: it found a CUDA toolkit at {home} but "
            "torch.cuda.is_available() is False in this process. Either this torch is a CPU-only build (then no "
            "CUDA extension can be built or used with it), or it is a CUDA build on a machine or container "
            "without a GPU or driver (a docker build step, a login node), where building can still work."
        ),
        fix=(
            "Check torch.version.cuda: None means a CPU-only torch, so install the CUDA build (pytorch.org/get-"
            "started). If it names a CUDA version and you are building where there is no GPU, tell the build which "
            "GPUs to compile for: TORCH_CUDA_ARCH_LIST='8.6' (your card's torch.cuda.get_device_capability()). "
            "Otherwise run nvidia-smi: no driver, no runtime."
        ),
        example="No CUDA runtime is found, using CUDA_HOME='/usr/local/cuda'",
        releases="torch 0.4-2.13 (torch/utils/cpp_extension.py, _find_cuda_home; logger.warning in 2.13.0)",
        source=(
            "torch/utils/cpp_extension.py of 2.13.0; https://github.com/open-mmlab/mmdetection/issues/6404; "
            "https://github.com/pytorch/pytorch/pull/8244"
        ),
    ),
    Family(
        "duplicate-gpu",
        DISTRIBUTED,
        "NCCL: two ranks on one GPU",
        r"Duplicate GPU detected : rank (?P<a>\d+) and rank (?P<b>\d+) both on CUDA device (?P<bus>[0-9a-fA-F]+)"
        r"|Multiple Ranks are using the same GPU",
        "duplicate-gpu",
        devices=("cuda",),
        cause=(
            "NCCL found two processes (ranks) of one job on the same GPU. Each rank must own one GPU: every process "
            "used the default cuda:0, because it never chose its own device."
        ),
        # W9: torchrun's --nproc-per-node takes 'gpu' (one process per visible GPU; torch/distributed/run.py)
        fix=(
            "In each process, before init_process_group or any CUDA work: local_rank = int(os.environ['LOCAL_RANK']); "
            "torch.cuda.set_device(local_rank); device = torch.device('cuda', local_rank). Launch no more processes "
            "per node than GPUs: torchrun --nproc-per-node=gpu starts one per visible GPU."
        ),
        example="Duplicate GPU detected : rank 1 and rank 0 both on CUDA device 1000",
        releases="NCCL 2.21.5-2.29.7; NCCL 2.30.7 says 'Multiple Ranks are using the same GPU'",
        source="libnccl.so.2 (init.cc) of nvidia-nccl-cu12 2.21.5 and nvidia-nccl-cu13 2.30.7",
    ),
    Family(
        "nccl-invalid-usage",
        DISTRIBUTED,
        "NCCL: invalid usage, without the line that says why",
        r"NCCL error[^\n]*?invalid usage|ncclInvalidUsage",
        "nccl-invalid-usage",
        devices=("cuda",),
        cause=(
            "NCCL refused the way it was called (ncclInvalidUsage). In PyTorch training the usual reason is two "
            "ranks on one GPU: each process stayed on the default cuda:0 because it never called "
            "torch.cuda.set_device(local_rank), or more processes were launched than there are GPUs; newer NCCL "
            "names it on a 'Last error:' line ('Duplicate GPU detected'). Less often: the ranks call different "
            "collectives, or tensors of different sizes, in a different order."
        ),
        fix=(
            "Rerun with NCCL_DEBUG=WARN (or INFO) to see NCCL's own reason. In each process, before "
            "init_process_group and any CUDA work: local_rank = int(os.environ['LOCAL_RANK']); "
            "torch.cuda.set_device(local_rank); launch no more processes per node than GPUs (torchrun "
            "--nproc-per-node=gpu), and check nvidia-smi on every node."
        ),
        example=(
            "NCCL error in: /pytorch/torch/lib/c10d/ProcessGroupNCCL.cpp:825, invalid usage, NCCL version 2.7.8\n"
            "ncclInvalidUsage: This usually reflects invalid usage of NCCL library (such as too many async ops, "
            "too many collectives at once, mixing streams in a group, etc)."
        ),
        releases="NCCL 2.7-2.2x with torch 1.x-2.x",
        source="https://github.com/facebookresearch/swav/issues/61; https://github.com/NVIDIA/nccl/issues/1241 "
        "(the NCCL maintainer: several ranks on one CUDA device)",
    ),
    Family(
        "nccl-unhandled-cuda",
        DISTRIBUTED,
        "NCCL: a CUDA call inside NCCL failed",
        r"NCCL error[^\n]*?unhandled cuda error|ncclUnhandledCudaError",
        "nccl-unhandled-cuda",
        devices=("cuda",),
        flags=re.IGNORECASE,
        cause=(
            "a CUDA call NCCL made for a collective failed (ncclUnhandledCudaError); the message hides which one. In "
            "reports the usual reasons are: several ranks on one GPU (no torch.cuda.set_device(local_rank) before "
            "the first collective), an NCCL built for another CUDA than the driver supports, GPUs that cannot reach "
            "each other directly (peer-to-peer between consumer cards, or in a VM), too little shared memory in a "
            "container, or GPU memory already full."
        ),
        fix=(
            "Rerun with NCCL_DEBUG=INFO: its 'Cuda failure ...' line names the real CUDA error. In each process call "
            "torch.cuda.set_device(local_rank) before init_process_group; try NCCL_P2P_DISABLE=1 (peer-to-peer "
            "off); in Docker add --shm-size=8g or --ipc=host; keep torch's bundled NCCL (do not point "
            "LD_LIBRARY_PATH at another), or upgrade torch for a newer one."
        ),
        example="RuntimeError: NCCL error in: /pytorch/torch/lib/c10d/ProcessGroupNCCL.cpp:32, unhandled cuda error, NCCL version 2.4.8",
        releases="torch 1.x-2.x with NCCL 2.4-2.2x ('NCCL Error 1: unhandled cuda error' from torch.cuda.nccl and DataParallel)",
        source="https://github.com/fanq15/FewX/issues/74; https://github.com/NVIDIA/nccl/issues/1410; "
        "https://github.com/NVIDIA/nccl-tests/issues/6 (NCCL_DEBUG=WARN showed an NCCL built for another CUDA)",
    ),
    Family(
        "barrier-device-guess",
        DISTRIBUTED,
        "NCCL barrier: the GPU guessed from the rank",
        r"using (?:best-guess )?GPU (?P<index>\d+) to perform barrier as devices used by this process are "
        r"currently unknown",
        "barrier-device-guess",
        devices=("cuda:{index}",),
        cause=(
            "a warning, not an error: dist.barrier() on NCCL runs a small collective on one GPU, and this "
            "process had told the process group no device (no device_id in init_process_group, no collective "
            "yet), so it guessed cuda:{index} from the rank (rank % GPU count). If that GPU is not the one this "
            "rank uses, two ranks share a GPU and the barrier can hang."
        ),
        fix=(
            "In each process, before any collective: local_rank = int(os.environ['LOCAL_RANK']); "
            "torch.cuda.set_device(local_rank); dist.init_process_group('nccl', "
            "device_id=torch.device('cuda', local_rank)), or pass the device to the call: "
            "dist.barrier(device_ids=[local_rank])."
        ),
        example=(
            "[PG ID 0 PG GUID 0 Rank 0]  using GPU 0 to perform barrier as devices used by this process are "
            "currently unknown. This can potentially cause a hang if this rank to GPU mapping is incorrect."
        ),
        releases="2.5-2.9 wording quoted in the reports; 1.9-2.4: 'Rank 0 using best-guess GPU 0 to perform barrier'",
        source=(
            "https://github.com/deepspeedai/DeepSpeed/pull/7266 (ProcessGroupNCCL.cpp:4561); "
            "https://github.com/pytorch/pytorch/pull/54991 (the first wording)"
        ),
    ),
    Family(
        "c10d-unknown-backend",
        DISTRIBUTED,
        "A process-group backend name c10d does not know",
        r"Unknown c10d backend type (?P<backend>(?:(?P<device>[A-Z]+):)?[A-Z0-9_:,]+)",
        "distributed-backend-name",
        devices=("{device!l}",),
        cause=(
            "the process group's backend string '{backend}' is not one of the built-in backends (nccl, gloo, "
            "mpi, ucc, xccl) nor a plugin registered in this process. Two usual reasons: a per-device string "
            "('cuda:nccl', 'cuda:nccl,cpu:gloo'), which init_process_group accepts but code that splits or "
            "copies the group (DeviceMesh with two or more dimensions, torch.distributed.split_group) looked up "
            "whole in some releases (pytorch/pytorch#159200), or a vendor backend ('hccl' for Ascend "
            "NPUs) whose package (torch_npu, ...) was not imported before init_process_group."
        ),
        fix=(
            "Pass a plain backend name: dist.init_process_group('nccl', device_id=torch.device('cuda', "
            "local_rank)) (device_id binds the GPU; the 'cuda:' prefix is not needed for that); for a vendor "
            "backend import its package first (import torch_npu)."
        ),
        example="AssertionError: Unknown c10d backend type CUDA:NCCL",
        releases="2.x (distributed_c10d.py: new_group's and split_group's plugin lookup; read in 2.13.0)",
        source="torch/distributed/distributed_c10d.py of 2.13.0; https://github.com/pytorch/pytorch/issues/159200",
    ),
    Family(
        "device-module-none",
        DISTRIBUTED,
        "A device type torch has no module for (DeviceMesh, FSDP2)",
        r"'NoneType' object has no attribute '(?P<attr>current_device|current_stream|device_count|set_device|synchronize"
        r"|Stream|Event|get_rng_state|set_rng_state|set_rng_ctx|unset_rng_ctx|memory_summary|is_initialized)'",
        "device-mesh-type",
        cause=(
            "code looked up the module of a device type, getattr(torch, device_type) (torch.cuda for 'cuda'), and got "
            "None, then called {attr} on it: the device type it was given is not one torch has a module for. "
            "DeviceMesh, FSDP2 (fully_shard), DTensor and distributed checkpointing find a device's functions "
            "(current_device, streams, the RNG state) this way from mesh.device_type, so a mesh made with "
            "init_device_mesh('gpu', ...), ('CUDA', ...) or, before torch 2.4, ('cuda:0', ...) is accepted when it "
            "is made and fails here, at its first use."
        ),
        fix=(
            "Give the mesh a device type torch knows, lower-case and without an index: init_device_mesh('cuda', "
            "mesh_shape) (or torch.accelerator.current_accelerator().type, or the .type of a torch.device); "
            "print(mesh.device_type) to check. Bind each rank to its GPU separately, with "
            "torch.cuda.set_device(local_rank)."
        ),
        example="AttributeError: 'NoneType' object has no attribute 'current_device'",
        releases="2.2-2.13 (torch/distributed/device_mesh.py, _get_device_handle; raised live in 2.13.0 by fully_shard)",
        source=("torch/distributed/device_mesh.py of 2.13.0 (_get_device_handle); https://github.com/pytorch/pytorch/issues/124327"),
    ),
    Family(
        "device-mesh-index",
        DISTRIBUTED,
        "DeviceMesh given a device with an index",
        rf"Device type with index is not supported but got (?P<device>{DEV})",
        "device-mesh-type",
        devices=("{device!l}",),
        cause=(
            "init_device_mesh (and DeviceMesh) take a device type, 'cuda', not a device: the mesh spans one device "
            "per rank, and which GPU a rank uses is set per process, not in the mesh. {device!l} names one GPU."
        ),
        fix=(
            "Pass the type: init_device_mesh(device.type, mesh_shape) or init_device_mesh('cuda', (dp, tp)); bind "
            "each rank to its GPU first with torch.cuda.set_device(local_rank) (or "
            "init_process_group(device_id=...))."
        ),
        example=(
            "RuntimeError: ('Device type with index is not supported but got cuda:0. ', \"If you maintained a "
            "'torch.device' object, it's recommended to pass in 'device.type'.\")"
        ),
        releases="2.4 and later (torch/distributed/device_mesh.py, init_device_mesh; read in 2.13.0)",
        source="torch/distributed/device_mesh.py of 2.13.0; https://github.com/deepspeedai/DeepSpeed/pull/6614",
    ),
    Family(
        "device-mesh-size",
        DISTRIBUTED,
        "DeviceMesh larger than the process group",
        r"Mesh should not be bigger than default world size(?: (?P<world>\d+))?, but found (?P<ranks>\d+) ranks",
        "device-mesh-size",
        cause=(
            "the DeviceMesh lists {ranks} ranks but the default process group has fewer processes: a mesh holds "
            "one rank per process, so the product of mesh_shape must equal the number of processes launched "
            "(torchrun --nproc-per-node times the nodes), not the number of GPUs you wish you had."
        ),
        fix=(
            "Make the shape fit the launch: init_device_mesh('cuda', (dp, tp)) with dp * tp == "
            "dist.get_world_size(), or launch that many processes (torchrun --nproc-per-node=8 for (2, 4))."
        ),
        example="RuntimeError: Mesh should not be bigger than default world size, but found 9 ranks!",
        releases="1.13-2.13 (torch/distributed/device_mesh.py; 2.13.0 also prints the world size)",
        source="torch/distributed/device_mesh.py of 2.13.0; https://github.com/pytorch/pytorch/issues/111452 (1.13.1)",
    ),
    Family(
        "fsdp-no-accelerator",
        DISTRIBUTED,
        "FSDP on a machine without an accelerator",
        r"FSDP needs a non-CPU accelerator device, but no accelerator device is detected",
        "no-accelerator",
        cause=(
            "FullyShardedDataParallel computes on an accelerator (it gathers each shard onto the GPU for its "
            "layer): the module is on the CPU and torch finds no accelerator to use (a CPU-only machine or torch "
            "build, GPUs hidden by CUDA_VISIBLE_DEVICES, or a framework's FSDP strategy run on the CPU)."
        ),
        fix=(
            "Run FSDP where there are GPUs (torch.cuda.is_available() inside the job should be True). On the CPU "
            "use DistributedDataParallel instead: init_process_group('gloo') and DDP(model) without device_ids "
            "(Lightning: strategy='ddp', accelerator='cpu')."
        ),
        example="RuntimeError: FSDP needs a non-CPU accelerator device, but no accelerator device is detected.",
        releases="read in 2.13.0 (torch/distributed/fsdp/_init_utils.py)",
        source="https://github.com/Lightning-AI/pytorch-lightning/issues/21778",
    ),
    Family(
        "fsdp-device-id",
        DISTRIBUTED,
        "FSDP: device_id against where the module already is",
        rf"Inconsistent compute device and\s*['`]?device_id\s*['`]?\s*on rank (?P<rank>\d+): (?P<compute>{DEV}) vs "
        rf"(?P<given>{DEV})",
        "ddp-device",
        devices=("{compute}", "{given}"),
        flags=re.IGNORECASE,
        cause=(
            "FSDP on rank {rank} was given device_id={given}, but the module is already on {compute} (FSDP "
            "computes where the parameters are): the model was moved with .cuda() or .to('cuda') while the "
            "current GPU was still cuda:0, because torch.cuda.set_device(local_rank) had not been called, so "
            "every rank put its copy on GPU 0."
        ),
        fix=(
            "In each process call torch.cuda.set_device(local_rank) first. Then either leave the model on the CPU "
            "and pass FSDP(model, device_id=local_rank), which moves it, or move it yourself to "
            "torch.device('cuda', local_rank); never .to('cuda') without the index before set_device."
        ),
        example="ValueError: Inconsistent compute device and `device_id` on rank 3: cuda:0 vs cuda:3",
        releases="FSDP since 1.12 (read in 2.13.0, torch/distributed/fsdp/_init_utils.py)",
        source="https://github.com/h2oai/h2ogpt/issues/671 (as pasted there: 'inconsistent compute device and'device_id '')",
    ),
    Family(
        "fsdp-offload-moved",
        DISTRIBUTED,
        "FSDP with CPU offload: the module moved to the GPU",
        rf"An FSDP-managed module with parameter CPU offloading enabled has parameters on (?P<found>{DEV})",
        "ddp-device",
        devices=("{found}", "cpu"),
        cause=(
            "FSDP was built with CPUOffload(offload_params=True): it keeps the sharded parameters on the CPU and "
            "brings each to the GPU only for its computation, but at the first forward they are on {found}. "
            "Something moved the wrapped model after wrapping: model.cuda() or model.to(device) on the FSDP "
            "model, or a training framework's own 'move the model to its device' step."
        ),
        fix=(
            "With parameter offload, do not move the model: wrap it on the CPU and never call .to(device) or "
            ".cuda() on it afterwards (move only the inputs). If a framework moves it, turn that step off, or turn "
            "parameter offload off."
        ),
        example=(
            "RuntimeError: An FSDP-managed module with parameter CPU offloading enabled has parameters on cuda:0. "
            "Make sure to not move the module from CPU when offloading parameters."
        ),
        releases="FSDP since 1.12 (read in 2.13.0, torch/distributed/fsdp/_runtime_utils.py)",
        source="https://github.com/NVIDIA-NeMo/Speech/issues/9531",
    ),
    Family(
        "ddp-split-module",
        DISTRIBUTED,
        "DDP: device_ids with a model split over GPUs",
        r"DistributedDataParallel device_ids and output_device arguments only work with .*?but got device_ids "
        r"(?P<ids>\[[^\]]*\]|\S+?),.*?module parameters (?P<params>\{[^}]*device\(type='(?!cpu)\w+', index=(?P<a>\d+)\)"
        r"[^}]*device\(type='(?!cpu)\w+', index=(?!(?P=a)\))\d+\)[^}]*\})",
        "ddp-device",
        devices=("*",),
        roles=dict(within="params"),
        flags=re.DOTALL,
        cause=(
            "the model is split over several GPUs ({params}; device_map='auto' or model parallelism), and "
            "device_ids={ids} is only for a model that sits on one GPU."
        ),
        fix=(
            "Wrap a multi-GPU model without device_ids: DDP(model), each process owning its own set of GPUs; or "
            "give each process one whole copy: load it with device_map={{'': local_rank}} and then "
            "DDP(model, device_ids=[local_rank])."
        ),
        example="DistributedDataParallel device_ids and output_device arguments only work with single-device/"
        "multiple-device GPU modules or CPU modules, but got device_ids [1], output_device 1, and module "
        "parameters {device(type='cuda', index=0), device(type='cuda', index=1)}.",
        releases="1.x-2.x",
        source="torch/nn/parallel/distributed.py",
    ),
    Family(
        "ddp-cpu-module",
        DISTRIBUTED,
        "DDP: device_ids with a module on the CPU",
        r"DistributedDataParallel device_ids and output_device arguments only work with .*?but got device_ids "
        r"(?P<ids>\[[^\]]*\]|\S+?),.*?module parameters (?P<params>\{device\(type='cpu'\)\})",
        "ddp-device",
        devices=("cpu",),
        flags=re.DOTALL,
        cause=(
            "the module is still on the CPU (its parameters: {params}) while device_ids={ids} asks DDP for a GPU: "
            "the model was wrapped before model.to(device), or this machine has no GPU (a CPU-only machine or a "
            "Mac, where DDP runs on the CPU)."
        ),
        fix=(
            "On a GPU: model.to(torch.device('cuda', local_rank)) before DDP(model, device_ids=[local_rank]). "
            "Without GPUs: DDP(model), no device_ids, with init_process_group('gloo')."
        ),
        example="DistributedDataParallel device_ids and output_device arguments only work with single-device/"
        "multiple-device GPU modules or CPU modules, but got device_ids [0], output_device 0, and module "
        "parameters {device(type='cpu')}.",
        releases="1.x-2.x (read in 2.13.0, raised live)",
        source="torch/nn/parallel/distributed.py",
    ),
    Family(
        "ddp-device-ids",
        DISTRIBUTED,
        "DDP: device_ids with a module not on one GPU",
        r"DistributedDataParallel device_ids and output_device arguments only work with",
        "ddp-device",
        devices=("*",),
        cause=(
            "device_ids (and output_device) are for a module whose parameters all sit on one GPU; this module is on the CPU or on several GPUs."
        ),
        fix=(
            "Move the model to this process's GPU first, model.to(torch.device('cuda', local_rank)), then "
            "DDP(model, device_ids=[local_rank]); for a model on the CPU or on several GPUs, DDP(model) without "
            "device_ids."
        ),
        example="DistributedDataParallel device_ids and output_device arguments only work with single-device CUDA modules, but got device_ids 1",
        releases="1.x wording (pytorch/pytorch#46821)",
        source="torch/nn/parallel/distributed.py",
    ),
    Family(
        "ddp-one-device-id",
        DISTRIBUTED,
        "DDP: several GPUs in device_ids",
        r"device_ids can only be None or contain a single element",
        "ddp-device",
        devices=("cuda",),
        cause=(
            "DistributedDataParallel runs one process per GPU, and device_ids names that process's one GPU; it was "
            "given several, as DataParallel takes them (device_ids=[0, 1, 2]). DDP does not split a batch across "
            "GPUs inside one process."
        ),
        fix=(
            "Launch one process per GPU, torchrun --nproc_per_node=N train.py, and in each: local_rank = "
            "int(os.environ['LOCAL_RANK']); torch.cuda.set_device(local_rank); "
            "model = DDP(model.to(local_rank), device_ids=[local_rank])."
        ),
        example="device_ids can only be None or contain a single element",
        releases="1.x (torch/nn/parallel/distributed.py's assert)",
        source="https://github.com/pytorch/examples/issues/936 (DDP(model, device_ids) in examples' README)",
    ),
    Family(
        "ddp-device-types",
        DISTRIBUTED,
        "DDP: a module on two kinds of device",
        r"DistributedDataParallel's input module must be on the same type of devices, but input module parameters "
        r"locate in (?P<params>\{[^}]*\})",
        "ddp-device",
        devices=("*",),
        roles=dict(within="params"),
        cause=(
            "DistributedDataParallel wraps a module whose parameters are on one kind of device; these are on "
            "{params}: part of the model was not moved."
        ),
        fix=(
            "Move the whole model to this process's device before wrapping: model.to(device), then "
            "DDP(model, device_ids=[local_rank]) on a GPU, or DDP(model) on the CPU. "
            "placement_report(model) shows what stayed behind."
        ),
        example="DistributedDataParallel's input module must be on the same type of devices, but input module "
        "parameters locate in {'meta', 'cpu'}.",
        releases="read in 2.13.0, raised live",
        source="torch/nn/parallel/distributed.py",
    ),
    Family(
        "nccl-without-gpu",
        DISTRIBUTED,
        "NCCL without a GPU",
        r"ProcessGroupNCCL is only supported with GPUs, no GPUs found|Distributed package doesn't have NCCL built in",
        "nccl-without-gpu",
        devices=("cuda",),
        cause=(
            "backend='nccl' was asked for, and NCCL needs NVIDIA GPUs: this process sees none (CUDA_VISIBLE_DEVICES, "
            "a job or container without GPUs), or this PyTorch has no NCCL at all (CPU-only, macOS and Windows "
            "builds)."
        ),
        fix=(
            "On a machine without GPUs use gloo: dist.init_process_group('gloo') (or choose: 'nccl' if "
            "torch.cuda.is_available() else 'gloo'); if you expected GPUs, check nvidia-smi and "
            "torch.cuda.device_count() inside the job."
        ),
        example="ProcessGroupNCCL is only supported with GPUs, no GPUs found!",
        releases="1.x-2.x; 'doesn't have NCCL built in' read in 2.13.0 (torch/distributed/distributed_c10d.py)",
        source="https://github.com/meta-llama/codellama/issues/125",
    ),
    # ------------------------------------------------------------------ what a device did
    Family(
        "numpy-needs-cpu",
        DID,
        "NumPy needs the CPU",
        rf"(?:can't|cannot) convert (?P<device>{DEV}) (?:device type )?tensor to numpy",
        "numpy-needs-cpu",
        devices=("{device!l}",),
        cause="NumPy arrays live in host (CPU) memory; the tensor is on {device!l}, so .numpy() cannot share it.",
        fix="Copy it to the CPU first: t.detach().cpu().numpy() (detach() too if it requires grad).",
        example="can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory first.",
        releases="read in 2.13.0 (libtorch_python.so); 1.x: 'can't convert CUDA tensor to numpy'",
        source="torch/csrc/utils/tensor_numpy.cpp",
    ),
    Family(
        "meta-has-no-data",
        DID,
        "meta has no data",
        r"Cannot copy out of meta tensor|cannot be called on meta tensors",
        "meta-has-no-data",
        devices=("meta",),
        cause=(
            "a meta tensor has a shape and a dtype but no data, so there is nothing to copy or read. If no code of "
            "yours asked for meta, a default device was left on (torch.set_default_device('meta')): "
            "torch.get_default_device() says so, and tensors made inside torch, such as the seed a shuffling "
            "DataLoader reads with .item(), are made there."
        ),
        fix=(
            "Build the tensor on a real device (or materialise a meta model with model.to_empty(device=...) "
            "and then initialise or load its weights); turn a default device left on off with "
            "torch.set_default_device(None)."
        ),
        example="Tensor.item() cannot be called on meta tensors",
        releases="read in 2.7.1, 2.13.0 and 2.14.1, raised live",
        source="libtorch_cpu.so",
    ),
    Family(
        "no-device-attribute",
        DID,
        "A module has no .device",
        r"'(?P<cls>\w+)' object has no attribute 'device'",
        "no-device-attribute",
        cause=(
            "a {cls} object has no .device. An nn.Module has no single device (its parameters each have one); "
            "lists, tuples and dicts have none either."
        ),
        fix=(
            "For a model, ask a parameter: next(model.parameters()).device; for a container, ask the tensors in it. "
            "placement_report(model) shows every tensor of a model and its device."
        ),
        example="'Linear' object has no attribute 'device'",
        releases="any",
        source="raised live",
    ),
    Family(
        "device-of-needs-tensor",
        DID,
        "torch.cuda.device_of given a module",
        r"'(?P<cls>\w+)' object has no attribute 'is_cuda'",
        "device-of-needs-tensor",
        cause=(
            "torch.cuda.device_of accepts a tensor or a storage (it reads obj.is_cuda); a {cls} has no is_cuda. "
            "An nn.Module in particular is not accepted."
        ),
        fix=(
            "Pass a tensor: torch.cuda.device_of(next(model.parameters())), or use "
            "torch.cuda.device(module_device(model)) from course_utils.placement."
        ),
        example="'Linear' object has no attribute 'is_cuda'",
        releases="any",
        source="torch/cuda/__init__.py",
    ),
    Family(
        "to-context-manager",
        DID,
        ".to() given a context manager",
        r"to\(\) received an invalid combination of arguments - got \((?P<got>(?:device_of|device)\b[^,)]*)",
        "not-a-device",
        cause=(
            ".to() was given a {got} object. torch.cuda.device_of(...) and torch.cuda.device(...) are context "
            "managers that change the current CUDA device; they are not devices and cannot say where to move a "
            "tensor."
        ),
        fix="Pass a device: t1.to(t2.device) moves t1 to wherever t2 lives.",
        example="to() received an invalid combination of arguments - got (device_of), but expected one of: ...",
        releases="any",
        source="raised live",
    ),
    Family(
        "forked-subprocess",
        DID,
        "Forked worker",
        r"Cannot re-initialize (?P<backend>CUDA|XPU|MTIA) in forked subprocess",
        "forked-subprocess",
        devices=("{backend!l}",),
        cause=(
            "this process is a fork of one that had already started {backend}, and a forked child cannot start it "
            "again: the fork copied the parent's memory but not its {backend} context. Usually a DataLoader worker "
            "(num_workers > 0 forks on Linux with Python 3.13 and older; 3.14 starts them with forkserver) whose "
            "Dataset or collate_fn calls .cuda() / .to('cuda'), or a multiprocessing.Pool or Process doing the same."
        ),
        fix=(
            "Keep CUDA out of the workers: let the Dataset return CPU tensors and move each batch in the training "
            "loop (x = x.to(device, non_blocking=True), with DataLoader(..., pin_memory=True)). If a worker really "
            "must use the GPU, start workers with spawn: DataLoader(..., multiprocessing_context='spawn'), or "
            "torch.multiprocessing.set_start_method('spawn') under if __name__ == '__main__':."
        ),
        example="Cannot re-initialize CUDA in forked subprocess. To use CUDA with multiprocessing, you must use the 'spawn' start method",
        releases="2.7.1, 2.13.0, 2.14.1",
        source="torch/cuda/__init__.py (_lazy_init)",
    ),
    Family(
        "device-side-assert",
        DID,
        "Device-side assert",
        r"device-side assert triggered",
        "device-side-assert",
        devices=("cuda",),
        cause=(
            "an assertion failed inside a CUDA kernel, almost always an index out of range: a class label "
            "< 0 or >= the number of classes in cross_entropy / nll_loss, a token id >= num_embeddings in "
            "nn.Embedding, an index past the end in indexing or gather. Kernels run asynchronously, so the "
            "error is reported at a later call, and the line in the traceback may be innocent. The CUDA "
            "context is now unusable: every later CUDA call in this process fails the same way."
        ),
        fix=(
            "Restart the kernel (nothing on the GPU works until you do). Then find the line: run with "
            "CUDA_LAUNCH_BLOCKING=1 set before CUDA starts (in the shell, or os.environ at the very top) so the "
            "error is raised where the kernel was launched, or run the same step on the CPU, where the same bug "
            "raises at once with a clear message (e.g. 'Target 7 is out of bounds.'). Then check the values: "
            "0 <= y.min() and y.max() < num_classes."
        ),
        example="CUDA error: device-side assert triggered",
        releases="CUDA 12 and 13 runtimes",
        source="libcudart (cudaGetErrorString)",
    ),
    Family(
        "cuda-init-error",
        DID,
        "CUDA could not initialise in this process (usually a forked worker)",
        r"(?:CUDA error(?: \(3\))?|cuda runtime error \(3\)) ?: initialization error"
        r"|THCudaCheck FAIL[^\n]*error=3 : initialization error",
        "forked-subprocess",
        devices=("cuda",),
        cause=(
            "the CUDA runtime could not start in this process (cudaErrorInitializationError, error 3). In PyTorch "
            "it is most often a child process made by fork after the parent had started CUDA, which then touches "
            "the GPU: DataLoader workers (num_workers > 0 fork on Linux) whose Dataset, collate_fn or pinning "
            "code calls .cuda(), or a CUDA default (torch.set_default_tensor_type('torch.cuda.FloatTensor'), "
            "torch.set_default_device('cuda')) that makes every tensor the worker creates a CUDA one. When "
            "PyTorch's own check catches the fork first it says 'Cannot re-initialize CUDA in forked "
            "subprocess' instead. If it fails outside any worker too, the driver is at fault."
        ),
        fix=(
            "Keep CUDA out of the workers: let the Dataset return CPU tensors and move each batch in the training "
            "loop (x = x.to(device, non_blocking=True), with pin_memory=True); drop a CUDA default tensor type or "
            "device. If a worker must use the GPU: DataLoader(..., multiprocessing_context='spawn'). If even "
            "torch.zeros(1, device='cuda') in a fresh Python fails: nvidia-smi, and a reboot after a driver update."
        ),
        example="RuntimeError: CUDA error: initialization error",
        releases="0.3-1.x as 'CUDA error (3): initialization error' and THCudaCheck; any CUDA build",
        source="https://github.com/pytorch/pytorch/issues/21092; https://github.com/pytorch/pytorch/issues/33754; "
        "https://github.com/pytorch/pytorch/issues/2517",
    ),
    Family(
        "cudnn-not-supported",
        DID,
        "cuDNN: no algorithm for this input",
        r"CUDNN_STATUS_NOT_SUPPORTED",
        "cuda-library-failure",
        devices=("cuda",),
        flags=re.IGNORECASE,
        cause=(
            "cuDNN has no kernel for this call as it was given: most often an input that is not contiguous (a "
            "view made by permute, transpose, chunk or expand, as the message hints), a batch or tensor too "
            "large for cuDNN's kernels (it comes and goes with the batch size), or a dtype and layout "
            "combination this cuDNN version lacks. The devices are fine."
        ),
        fix=(
            "Make the input contiguous before the layer: x = x.contiguous(); try a smaller batch, or split it; "
            "torch.backends.cudnn.enabled = False runs the operation without cuDNN (slower), which confirms where "
            "it fails; a newer torch brings a newer cuDNN."
        ),
        example=("RuntimeError: cuDNN error: CUDNN_STATUS_NOT_SUPPORTED. This error may appear if you passed in a non-contiguous input."),
        releases="CUDA builds 0.4-2.x",
        source="https://github.com/pppLang/SKNet/issues/14; https://github.com/loeweX/Greedy_InfoMax/issues/3 "
        "(.contiguous() fixed it); https://github.com/microsoft/NeuronBlocks/issues/26 (the batch size)",
    ),
    Family(
        "gpu-busy",
        DID,
        "All GPUs busy or unavailable",
        r"(?:all )?CUDA-capable device\(?s?\)? (?:is/are|are) busy or unavailable",
        "gpu-busy-or-unavailable",
        devices=("cuda",),
        flags=re.IGNORECASE,
        cause=(
            "the driver refused to open the GPU for this process: it is in an exclusive compute mode and another "
            "process already holds it (nvidia-smi's 'Compute M.' column says E. Process; common on shared "
            "clusters), or the GPU is unavailable (a driver fault, a GPU that fell off the bus, a vGPU or MIG "
            "setup this process may not use). It happens at the first CUDA call, such as model.cuda(); your "
            "tensors are not the problem, and CUDA_LAUNCH_BLOCKING will not help."
        ),
        fix=(
            "Run nvidia-smi: see which processes hold the GPU and its compute mode. Wait for them or choose a free "
            "GPU (CUDA_VISIBLE_DEVICES=1, set before Python starts); an administrator can set the default mode "
            "(nvidia-smi -c DEFAULT). If nvidia-smi itself errors, the driver or the GPU needs a reset or a reboot."
        ),
        example="RuntimeError: CUDA error: all CUDA-capable devices are busy or unavailable",
        releases="any CUDA build; 'cuda runtime error (46)' in 0.x; 'CUDA-capable device(s) is/are busy or unavailable' from CUDA 11",
        source="https://github.com/facebookresearch/detectron2/issues/2580; https://github.com/cositools/cosipy/issues/631",
    ),
    Family(
        "cudnn-internal-error",
        DID,
        "cuDNN: an internal error, usually no memory left for it",
        r"CUDNN_STATUS_INTERNAL_ERROR",
        "cuda-library-failure",
        devices=("cuda",),
        cause=(
            "cuDNN failed inside one of its own calls (CUDNN_STATUS_INTERNAL_ERROR), which it reports when it "
            "cannot get what it needs rather than for a bug in your model. In PyTorch reports the usual causes "
            "are: GPU memory nearly full, so cuDNN's workspace or handle cannot be allocated (worse with "
            "torch.backends.cudnn.benchmark = True, which tries algorithms with large workspaces, and with another "
            "process on the same GPU); a malformed CUDA_VISIBLE_DEVICES ('[1,2,3]' instead of '1,2,3') that leaves "
            "no GPU visible; or a torch build whose CUDA or cuDNN does not support the card (an RTX 30xx or newer "
            "with a CUDA 10 build). An earlier kernel's error reported late can also surface here."
        ),
        fix=(
            "Check nvidia-smi for memory used by other processes and try a smaller batch; set "
            "torch.backends.cudnn.benchmark = False; check CUDA_VISIBLE_DEVICES is a plain comma-separated list; "
            "compare torch.cuda.get_device_capability() with torch.cuda.get_arch_list() and install a build that "
            "lists the card; rerun with CUDA_LAUNCH_BLOCKING=1 to rule out an earlier kernel; "
            "torch.backends.cudnn.enabled = False tells whether cuDNN itself is involved."
        ),
        example="RuntimeError: cuDNN error: CUDNN_STATUS_INTERNAL_ERROR",
        releases="CUDA builds 0.4-2.x ('CUDNN_STATUS_INTERNAL_ERROR' alone in 0.x, 'cuDNN error: ...' from 1.0)",
        source=(
            "https://github.com/pytorch/pytorch/issues/16831 (cudnn.benchmark); "
            "https://github.com/pytorch/pytorch/issues/1504 (CUDA_VISIBLE_DEVICES=[1,2,3]); "
            "https://github.com/yassouali/pytorch-segmentation/issues/77"
        ),
    ),
    Family(
        "cudnn-mapping-error",
        DID,
        "cuDNN: GPU memory it could not map",
        r"CUDNN_STATUS_MAPPING_ERROR",
        "cuda-library-failure",
        devices=("cuda",),
        flags=re.IGNORECASE,
        cause=(
            "cuDNN could not access GPU memory it was handed (CUDNN_STATUS_MAPPING_ERROR). In PyTorch reports it "
            "comes with the batch size (it goes away with a smaller batch, or with cuDNN switched off), with a "
            "torch build whose CUDA and cuDNN are older than the card (a CUDA 10 build on an RTX 30xx), or after "
            "an earlier kernel's error that CUDA reports late, often under nn.DataParallel. The devices of your "
            "tensors are not the problem."
        ),
        fix=(
            "Try a smaller batch first; torch.backends.cudnn.enabled = False confirms cuDNN is involved (slower, a "
            "test rather than a fix); rerun with CUDA_LAUNCH_BLOCKING=1 to rule out an earlier kernel; compare "
            "torch.cuda.get_device_capability() with torch.cuda.get_arch_list() and install a build that lists the card."
        ),
        example="RuntimeError: cuDNN error: CUDNN_STATUS_MAPPING_ERROR",
        releases="CUDA builds 0.4-2.x; the reports show three wordings: the status alone (0.4), 'CuDNN error: ...', 'cuDNN error: ...' (1.2)",
        source="https://github.com/pytorch/pytorch/issues/27588 (batch 20 fails, 10 runs, cudnn off runs); "
        "https://github.com/jeya-maria-jose/KiU-Net-pytorch/issues/3 (GPU newer than the build)",
    ),
    Family(
        "cuda-library-failure",
        DID,
        "cuBLAS and cuDNN failures",
        r"(?P<lib>CUBLAS|CUDNN)_STATUS_(?P<status>[A-Z_]+)",
        "cuda-library-failure",
        devices=("cuda",),
        flags=re.IGNORECASE,
        cause=(
            "a {lib!u} call on the GPU failed ({lib!u}_STATUS_{status!u}). It is rarely the library itself: "
            "EXECUTION_FAILED is most often an earlier kernel's error reported late (an index out of range, as "
            "in a device-side assert), ALLOC_FAILED or NOT_INITIALIZED most often memory running out, and any "
            "of them can mean a torch build that does not match the GPU or driver."
        ),
        fix=(
            "Rerun with CUDA_LAUNCH_BLOCKING=1 (set before CUDA starts) to find the real line, and run the same step "
            "on the CPU, where an index out of range raises a clear error; check the token ids and labels against "
            "the layer sizes; then try a smaller batch, and compare torch.version.cuda with nvidia-smi's driver. "
            "For cuDNN, torch.backends.cudnn.enabled = False tells whether cuDNN is involved."
        ),
        example="CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasSgemm( handle, opa, opb, m, n, k, "
        "&alpha, a, lda, b, ldb, &beta, c, ldc)`",
        releases="CUDA builds 1.x-2.x",
        source="https://github.com/seeyourmind/TKGElib/issues/9",
    ),
    Family(
        "misaligned-address",
        DID,
        "A kernel read memory at a misaligned address",
        r"(?:CUDA|cuda)[ _](?:error|Error|ERROR)[^\n]*?misaligned[ _]address|cudaErrorMisalignedAddress",
        "misaligned-address",
        devices=("cuda",),
        cause=(
            "a GPU kernel read or wrote memory at an address not aligned for its access width (CUDA error 716). "
            "It is usually a fused or custom kernel (flash "
            "attention, xformers, DeepSpeed or vLLM kernels, a compiled extension) given a tensor it did not "
            "expect: a view that starts at an odd offset, a non-contiguous slice, a head size or dimension that "
            "is not a multiple of 8. It is not about which device the tensors are on, and the GPU context is "
            "unusable afterwards."
        ),
        fix=(
            "Restart the process, rerun with CUDA_LAUNCH_BLOCKING=1 to see which kernel fails, then make its inputs "
            ".contiguous() (or .clone() a sliced view), keep sizes multiples of 8, switch that kernel off "
            "(attn_implementation='sdpa' or 'eager' in transformers, the library's flag for its fused ops), or "
            "update the library that ships it."
        ),
        example="CUDA error: misaligned address",
        releases="any CUDA build (cudaErrorMisalignedAddress = 716)",
        source=(
            "https://github.com/deepspeedai/DeepSpeedExamples/issues/530; https://github.com/efeslab/Nanoflow/issues/23; "
            "CUDA runtime API, cudaErrorMisalignedAddress"
        ),
    ),
    Family(
        "cuda-graph-capture",
        DID,
        "CUDA graph capture: an operation capture forbids",
        r"(?:operation not permitted when stream is capturing|capturing stream has unjoined work"
        r"|operation would make the legacy stream depend on a capturing blocking stream)",
        "cuda-graph-capture",
        devices=("cuda",),
        cause=(
            "a CUDA graph was being captured (torch.cuda.graph, make_graphed_callables, torch.compile's "
            "mode='reduce-overhead' or a library's CUDA graphs, as in vLLM), and the captured code did something a "
            "capture cannot record: a synchronisation or a copy to the CPU (.item(), .cpu(), .tolist(), print of "
            "a tensor, torch.cuda.synchronize()), work on another stream or another GPU, or a side stream "
            "forked from the capturing stream and never joined back ('unjoined work'). It is not a crash of an "
            "earlier kernel, and the first line in the capture that syncs is the culprit."
        ),
        fix=(
            "Keep the captured region to GPU work on one stream and one device: move .item()/.cpu()/print out "
            "of it, run the warm-up iterations before capturing, join every side stream "
            "(torch.cuda.current_stream().wait_stream(side)) before the capture ends, and set the device "
            "(torch.cuda.set_device) to the one being captured. To see whether graphs are the cause, turn them "
            "off (torch.compile without mode='reduce-overhead'; vLLM: enforce_eager=True)."
        ),
        example="RuntimeError: CUDA error: operation not permitted when stream is capturing",
        releases="any CUDA build (cudaErrorStreamCaptureUnsupported, cudaErrorStreamCaptureUnjoined)",
        source=(
            "https://github.com/NVlabs/cuHPX/issues/11; https://github.com/deepseek-ai/DeepEP/issues/62; "
            "https://github.com/pytorch/pytorch/issues/87794"
        ),
    ),
    Family(
        "reported-late",
        DID,
        "Any CUDA or HIP error reported late",
        r"(?P<backend>CUDA|HIP) kernel errors might be asynchronously reported",
        "cuda-error-reported-late",
        devices=("cuda",),
        cause=(
            "a {backend} call failed ({first_line}). Kernels run asynchronously, so the error may belong to an "
            "earlier kernel than the line in the traceback, and the GPU context may now be unusable."
        ),
        fix=(
            "Restart the kernel, then rerun with CUDA_LAUNCH_BLOCKING=1 (on ROCm: AMD_SERIALIZE_KERNEL=3), set "
            "before the GPU starts, so the error is raised at the call that caused it, or run the same step on the "
            "CPU for a clear message."
        ),
        example="the tail 'CUDA kernel errors might be asynchronously reported at some other API call, ...'",
        releases="every CUDA error in 2.7.1-2.12.0; from 2.13 only asynchronous kernel errors",
        source="c10/cuda/CUDAMiscFunctions.cpp",
    ),
    Family(
        "rocm-no-device",
        BACKENDS,
        "ROCm: no GPU this process may use",
        r"hipErrorNoDevice",
        "no-gpu-visible",
        devices=("cuda",),
        cause=(
            "a ROCm (HIP) build found no AMD GPU this process may use: the user is not in the video and render "
            "groups (so /dev/kfd and /dev/dri cannot be opened), a container was started without "
            "--device=/dev/kfd --device=/dev/dri, HIP_VISIBLE_DEVICES (or ROCR_VISIBLE_DEVICES, "
            "CUDA_VISIBLE_DEVICES) hides the GPUs, or the amdgpu kernel driver is not loaded. Nothing in the model "
            "is wrong: there was no GPU to run on."
        ),
        fix=(
            "Check what the process sees, as the same user in the same container: rocminfo, rocm-smi, "
            "ls -l /dev/kfd, groups, echo $HIP_VISIBLE_DEVICES, torch.cuda.device_count(). Then "
            "sudo usermod -aG video,render $USER (and log in again), or pass the devices to docker run."
        ),
        example="HIP error: hipErrorNoDevice",
        releases="ROCm builds of torch 1.9 and later (ROCm 4.2 container)",
        source=("https://github.com/ROCm/legacy-rocm-build/issues/1666 (title); https://github.com/ROCm/hip/issues/337 (the video group)"),
    ),
    Family(
        "cuda-error",
        DID,
        "Any other CUDA or HIP error",
        r"(?P<backend>CUDA|HIP|cuda runtime) error(?: \(\d+\))? ?: (?P<what>[^\n]+?)(?: at /|\n|$)",
        "cuda-error",
        devices=("cuda",),
        cause=(
            "a GPU call failed ({what}). The GPU reports a kernel's failure at a later call, so the line in the "
            "traceback may be innocent. Such errors usually come from an earlier kernel (an index out of range, "
            "a custom kernel writing out of bounds), from memory running out, or from the GPU and its driver (a "
            "driver that does not match the build, an unstable card); the message alone does not say which."
        ),
        fix=(
            "Restart the kernel; rerun with CUDA_LAUNCH_BLOCKING=1 (on ROCm AMD_SERIALIZE_KERNEL=3) to find the "
            "failing call; run the same step on the CPU, where a bug in the data or indices raises a clear error. "
            "If the CPU run is fine: a smaller batch, nvidia-smi (or rocm-smi), and the driver against "
            "torch.version.cuda."
        ),
        example="RuntimeError: CUDA error: unspecified launch failure",
        releases="any CUDA build; 'cuda runtime error (4) : ...' in 0.x",
        source="https://github.com/CSUBioGroup/PGMG/issues/3; 'CUDA error: ' in libc10_cuda.so of 2.7.1",
    ),
    Family(
        "mps-out-of-memory",
        DID,
        "Out of memory (MPS)",
        r"MPS backend out of memory",
        "out-of-memory",
        devices=("mps",),
        cause=(
            "Apple's GPU shares the Mac's memory with everything else, and PyTorch's MPS allocator stops at a limit "
            "(the 'max allowed' figure): your tensors plus the 'other allocations' reached it. It is not a "
            "placement mistake."
        ),
        fix=(
            "Use a smaller batch or model (float16 halves it), del what you no longer need and call "
            "torch.mps.empty_cache(), close other apps. PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.0 removes the limit, but "
            "the message itself warns it may cause system failure."
        ),
        example="MPS backend out of memory (MPS allocated: 9.57 GiB, other allocations: 17.35 GiB, max allowed: "
        "27.20 GiB). Tried to allocate 292.50 MiB on private pool. ...",
        releases="macOS arm64 wheels 2.x",
        source="https://github.com/pytorch/pytorch/issues/96814",
    ),
    Family(
        "gpu-oom-beyond-capacity",
        DID,
        "Out of memory: one allocation larger than the whole GPU",
        r"(?P<backend>CUDA|HIP|XPU) out of memory\. Tried to allocate",
        "out-of-memory",
        devices=("{gpu}",),
        roles=dict(compute="gpu_oom_beyond"),
        cause=(
            "this one allocation ({size}) is larger than the whole GPU ({total}), so no batch-size tuning of the "
            "rest and no empty_cache() can make room. A single tensor that size means a shape far larger than "
            "intended: full-resolution images or volumes, an accidental broadcast or outer product ([N, 1] "
            "against [1, N]), attention over a very long sequence (its memory grows with the square of the "
            "length), or a dimension multiplied in twice."
        ),
        fix=(
            "Print the shapes going into the failing line and work out numel() x element size; shrink the input "
            "(resize, crop, shorter sequences), fix the broadcast, or process it in chunks (torch.split, a loop "
            "over tiles). If that size is really needed, it needs a GPU with more memory, or the CPU."
        ),
        example=(
            "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 55.57 GiB. GPU 0 has a total "
            "capacty of 12.00 GiB of which 9.02 GiB is free. ..."
        ),
        releases="CUDA builds 1.x-2.x (both the '(GPU 0; 8.00 GiB total capacity; ...)' and the 2.1+ wording)",
        source="https://github.com/wxian3/NeuroLens/issues/2; https://github.com/YingqianWang/iPASSR/issues/9",
    ),
    Family(
        "gpu-out-of-memory",
        DID,
        "Out of memory (GPU: CUDA or ROCm)",
        r"(?P<backend>CUDA|HIP|XPU) out of memory|OutOfMemoryError",
        "out-of-memory",
        devices=("{gpu}",),
        roles=dict(compute="gpu_oom"),
        cause=(
            "the GPU ({name}) has no room for a new allocation{asked}: the tensors alive now (model, gradients, "
            "optimizer state, activations kept for backward, anything a variable still references), plus other "
            "processes on the same GPU, fill its memory. It is not a placement mistake, unless everything went "
            "to one GPU by accident (e.g. cuda:0 in every process)."
        ),
        fix=(
            "Use a smaller batch, free what you no longer need (del t), wrap evaluation in torch.no_grad(), "
            "accumulate loss.item() rather than the loss tensor (which keeps its graph), and check {tool} for "
            "other processes. torch.{module}.empty_cache() only returns cached blocks, not live tensors: after "
            "del, memory_allocated() falls at once and empty_cache() lowers memory_reserved(). "
            "torch.{module}.max_memory_allocated() and torch.{module}.memory_summary() show the peak."
        ),
        example="CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity of ...",
        releases="CUDA: 2.7.1, 2.14.1; HIP: ROCm builds (torch.OutOfMemoryError)",
        source="c10/cuda/CUDACachingAllocator.cpp; https://github.com/Comfy-Org/ComfyUI/issues/9529",
    ),
    Family(
        "cpu-out-of-memory",
        DID,
        "Out of memory (CPU)",
        r"DefaultCPUAllocator: (?:can't allocate memory|not enough memory): you tried to allocate (?P<nbytes>\d+) bytes",
        "out-of-memory",
        devices=("cpu",),
        roles=dict(compute="gib"),
        cause=(
            "the host (CPU) memory allocator could not get {gib} from the operating system. Far more than the "
            "machine has usually means a wrong shape (a size multiplied in twice, an outer product of two long "
            "vectors); close to it means the data itself does not fit."
        ),
        fix=(
            "Check the shape you asked for (print it before allocating). If it is right: work in chunks or "
            "smaller batches, use a smaller dtype, and del tensors you no longer need."
        ),
        example="DefaultCPUAllocator: can't allocate memory: you tried to allocate 4398046511104 bytes. ...",
        releases="2.7.1, 2.13.0, 2.14.1",
        source="c10/core/impl/alloc_cpu.cpp",
    ),
    # ------------------------------------------------------------------ look-alikes: name a device or not, not placement
    Family(
        "lookalike-shape",
        LOOKALIKE,
        "Shapes",
        r"shapes cannot be multiplied|size mismatch, m1|The size of tensor a \(\d+\) must match|Expected \d+D "
        r"\(unbatched\) or \d+D \(batched\) input|to have \d+ channels, but got \d+ channels",
        "shape",
        device_error=False,
        cause=(
            "the shapes of the operands do not fit (rows and columns of a matmul, a layer's in_features, the channel "
            "count of a convolution). Moving tensors will not fix it."
        ),
        fix="Print the shapes (x.shape, layer.weight.shape) before the failing line, and fix the one that is wrong.",
        example="mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)",
        releases="raised live in 2.13.0",
        source="libtorch_cpu.so",
    ),
    Family(
        "lookalike-state-dict",
        LOOKALIKE,
        "Loading a state_dict of other sizes",
        r"Error\(s\) in loading state_dict|size mismatch for [\w.]+: copying a param",
        "state-dict",
        device_error=False,
        cause=(
            "the checkpoint's tensors do not fit this model's (other sizes, missing or extra keys): a different "
            "architecture or configuration, not a device."
        ),
        fix="Build the model with the configuration the checkpoint was saved from; compare the keys and shapes listed.",
        example="Error(s) in loading state_dict for Linear: size mismatch for weight: copying a param with shape "
        "torch.Size([3, 2]) from checkpoint, the shape in current model is torch.Size([2, 2]).",
        releases="raised live in 2.13.0",
        source="torch/nn/modules/module.py (load_state_dict)",
    ),
    Family(
        "lookalike-index",
        LOOKALIKE,
        "An index out of range (CPU)",
        r"index out of range in self|index -?\d+ is out of bounds|Target -?\d+ is out of bounds",
        "index-out-of-range",
        device_error=False,
        cause=(
            "an index is past the end: a token id >= num_embeddings in nn.Embedding, a class label >= the number of "
            "classes, an index past a dimension. (On a GPU the same bug is a 'device-side assert'.)"
        ),
        fix="Check the values against the sizes: ids.max() < embedding.num_embeddings, 0 <= y.min(), y.max() < classes.",
        example="index out of range in self",
        releases="raised live in 2.13.0",
        source="libtorch_cpu.so",
    ),
    Family(
        "lookalike-weights-only",
        LOOKALIKE,
        "torch.load's weights_only",
        r"Weights only load failed",
        "weights-only",
        device_error=False,
        cause=(
            "torch.load (weights_only=True by default since 2.6) met a Python object it will not unpickle. This is "
            "about what the file holds, not where its tensors go."
        ),
        fix=(
            "If you trust the file: torch.load(path, weights_only=False), or allow the class with "
            "torch.serialization.add_safe_globals([...]); map_location does not change this."
        ),
        example="Weights only load failed. In PyTorch 2.6, we changed the default value of the `weights_only` argument "
        "in `torch.load` from `False` to `True`. ...",
        releases="2.6 and later (raised live in 2.13.0)",
        source="torch/serialization.py",
    ),
    Family(
        "lookalike-autograd",
        LOOKALIKE,
        "Autograd",
        r"modified by an inplace operation|does not require grad and does not have a grad_fn|Trying to backward through "
        r"the graph a second time|grad can be implicitly created only for scalar outputs",
        "autograd",
        device_error=False,
        cause="a gradient cannot be computed as asked: the graph or the tensors' requires_grad, not their device.",
        fix=(
            "Read the message's hint: clone() before an in-place change, requires_grad=True on what you "
            "differentiate, retain_graph=True for a second backward, loss.sum() before backward()."
        ),
        example="element 0 of tensors does not require grad and does not have a grad_fn",
        releases="raised live in 2.13.0",
        source="torch/csrc/autograd",
    ),
    Family(
        "lookalike-dtype",
        LOOKALIKE,
        "Dtypes",
        r"not implemented for '\w+'|expected scalar type \w+ but found \w+|expected both vectors to have same dtype"
        r"|Input type \([\w.]+\) and (?:weight|bias) type \([\w.]+\) should be the same"
        r"|expected device \S+ and dtype \w+ but got device \S+ and dtype \w+"
        r"|Expected object of (?:type|backend) \S+ but (?:found type|got backend) \S+"
        r"|does not support \w+ for non-float inputs|to have one of the following scalar types"
        r"|to have scalar type \w+; but got \S+ instead"
        r"|to have the same type as tensor for argument #\d+ '\w+'; but type \S+ does not equal",
        "dtype",
        device_error=False,
        cause=(
            "the tensors' dtypes do not fit this operation (an integer tensor where floats are needed, float32 "
            "against float64, half precision on a kernel without it); their device is fine."
        ),
        fix="Convert the dtype: x.float(), x.long(), or model.to(x.dtype) / x.to(next(model.parameters()).dtype).",
        example="dot : expected both vectors to have same dtype, but found Long and Float",
        releases="raised live in 2.13.0",
        source="libtorch_cpu.so",
    ),
    Family(
        "lookalike-sparse-pin",
        LOOKALIKE,
        "Pinning a sparse tensor",
        r"cannot pin 'Sparse\w+' only dense CPU tensors can be pinned",
        "layout",
        device_error=False,
        cause="only dense tensors can be pinned; this one is sparse (its layout, not its device, is the problem).",
        fix="Pin a dense copy (t.to_dense().pin_memory()) or leave pin_memory off for this data.",
        example="cannot pin 'SparseCPUFloatType' only dense CPU tensors can be pinned",
        releases="read in 2.13.0",
        source="aten/src/ATen/native/Memory.cpp",
    ),
    # last: the tail of a "Could not run" message whose start (naming the backend) was cut; every row that reads
    # a whole one (MPS, sparse, quantized, the look-alikes) comes first
    Family(
        "op-backends-tail",
        BACKENDS,
        "An operation's list of backends, its start cut off",
        r"'(?P<op>[\w:.]+)' is only available for these backends: ",
        "op-not-on-device",
        cause=(
            "this is the end of \"Could not run '{op}' with arguments from the '...' backend\", cut before its "
            "start: {op} has no kernel for the backend its tensors are on, and the list names the backends that "
            "have one. The part cut off names that backend: MPS (Apple's GPU), CUDA, a Sparse or Quantized one."
        ),
        fix=(
            "Find the backend: the message's first line, or print(t.device, t.layout, t.is_quantized) for the "
            "tensors given to {op}. On MPS set PYTORCH_ENABLE_MPS_FALLBACK=1 (before import torch) to run it on the "
            "CPU; make a sparse tensor dense (t.to_dense()); keep a quantized model on the CPU; for CUDA, the "
            "library that defines {op} was built without CUDA kernels (install the build that matches torch)."
        ),
        example="'aten::_slow_conv2d_forward' is only available for these backends: SparseCPU … …",
        releases="1.12-2.x (the dispatcher's wording)",
        source="https://discuss.pytorch.org/t/automatic-fallback-to-cpu/152189 (MPS in the 1.12 nightlies, cut by the poster)",
    ),
)


@dataclass(frozen=True)
class Mention:
    """A device or backend a message may name, what a message naming it usually means, and what to check first."""

    label: str  # how the explanation names it
    pattern: str
    means: str
    check: str
    flags: int = 0


# What the argument names in "(when checking argument ... mat1 ...)" usually are in your code, read by
# course_utils.errors; OPERATOR_HINTS, below, comes first where the operation the message names says more.
ARGUMENT_HINTS = {
    "mat1": "in nn.Linear (addmm) mat1 is the input batch; mat2 is the weight",
    "mat2": "in nn.Linear (addmm) mat2 is the weight and mat1 the input; in a matmul, the right operand",
    "self": "the first tensor of the operation (for nn.Linear's addmm, the bias)",
    "index": "the index tensor; for nn.Embedding (index_select) your batch of token ids",
    "weight": ("a layer's weight (a parameter of the model), or for CrossEntropyLoss/NLLLoss the class weights you passed to the loss"),
    "target": "the labels you passed to the loss",
    "tensors": "one of the tensors in the list given to torch.cat/torch.stack",
    "input": "the input tensor",
    "other": "the second operand",
}

# What an argument the dispatcher names is, where the operation it names says more than the name alone
# (ARGUMENT_HINTS, above, has the plain hints): 1.x's _th_index_select under nn.Embedding calls the table `self`, a
# layer norm's `weight` is the layer's own parameter, scatter's `index` holds no token ids (real reports in
# tests/test_errors_table.py's NEW). The first pattern found in the operator's name wins.
OPERATOR_HINTS: tuple[tuple[str, dict[str, str]], ...] = (
    (
        r"bmm",
        {
            "self": "the first batch of matrices of torch.bmm(input, mat2): a tensor your code made, e.g. attention scores",
            "mat2": "the second batch of matrices of torch.bmm(input, mat2): a tensor your code made, e.g. attention's "
            "keys or values; no nn.Linear runs bmm",
        },
    ),
    (r"nll_loss|cross_entropy", {"weight": "for CrossEntropyLoss/NLLLoss, the class weights you passed to the loss"}),
    (
        r"index_select|embedding",
        {
            "self": "in nn.Embedding's lookup (index_select), the embedding table: the model's weight",
            "index": "for nn.Embedding (index_select) your batch of token ids",
        },
    ),
    (
        r"conv",
        {"self": "the convolution's input", "input": "the convolution's input", "weight": "the convolution's weight: a parameter of the model"},
    ),
    (
        r"norm",
        {
            "weight": "the normalization layer's weight: a parameter of the model",
            "bias": "the normalization layer's bias: a parameter of the model",
        },
    ),
    (r"scatter|gather", {"index": "the index tensor given to scatter/gather, which says where each value goes"}),
)

MENTIONS: tuple[Mention, ...] = (
    Mention(
        "ROCm/HIP",
        r"\bHIP\b|\bROCm\b|\bhipErr\w*|\bhip(?::\d+)?\b",
        "the AMD GPU stack (ROCm); PyTorch calls AMD GPUs 'cuda' devices",
        "torch.version.hip, torch.cuda.is_available(), rocm-smi; rerun with AMD_SERIALIZE_KERNEL=3 to find the call",
    ),
    Mention(
        "cuDNN",
        r"\bcudnn\w*",
        "NVIDIA's convolution library, on the GPU",
        "torch.backends.cudnn.version(); whether it passes with torch.backends.cudnn.enabled = False",
        re.IGNORECASE,
    ),
    Mention(
        "cuBLAS",
        r"\bcublas\w*",
        "NVIDIA's matrix library, on the GPU",
        "rerun with CUDA_LAUNCH_BLOCKING=1; run the same step on the CPU",
        re.IGNORECASE,
    ),
    Mention(
        "NCCL",
        r"\bNCCL\b",
        "the library GPUs use to talk to each other in distributed training",
        "NCCL_DEBUG=INFO, that each rank calls torch.cuda.set_device(local_rank), nvidia-smi",
    ),
    Mention(
        "MPS",
        r"\bMPS\b|\bmps(?::\d+)?\b|\bMPS\w*Type\b|\bMetal\b",
        "Apple's GPU (Metal Performance Shaders)",
        "torch.backends.mps.is_available(); whether the same step runs on the CPU; PYTORCH_ENABLE_MPS_FALLBACK=1 for an operation MPS lacks",
    ),
    Mention("XPU", r"\bXPU\b|\bxpu(?::\d+)?\b", "Intel's GPU", "torch.xpu.is_available(), torch.xpu.device_count()", re.IGNORECASE),
    Mention(
        "XLA",
        r"\bxla(?::\d+)?\b|\bXLA\b|\bTPU\b",
        "an XLA device (TPU) through torch_xla",
        "that every tensor and the model are on the same xla device (torch_xla's device), not on cpu",
    ),
    Mention(
        "meta",
        r"\bmeta(?::\d+)?\b(?! tensor data)|\bMeta\w*Type\b",
        "the meta device: tensors with a shape and no data",
        "which tensors are on meta (placement_report(model)); a meta model needs to_empty() and real weights",
    ),
    Mention(
        "PrivateUse1",
        r"\bprivateuse(?:one|1)(?::\d+)?\b",
        "a device backend from outside PyTorch (its PrivateUse1 slot: Ascend NPUs, custom C++ extensions)",
        "torch._C._get_privateuse1_backend_name(), the backend's own is_available() and version against "
        "torch.__version__; whether the same step runs on the CPU",
        re.IGNORECASE,
    ),
    Mention(
        "CUDA",
        r"\bCUDA\b|\bcuda(?::\d+)?\b|torch\.cuda\.\w+Tensor|\bCUDA\w*(?:Type|Tensor)\b|\bQuantizedCUDA\b|\bnvidia\b"
        r"|\bnvcc\b",
        "an NVIDIA GPU through CUDA",
        "torch.cuda.is_available(), torch.version.cuda, nvidia-smi; rerun with CUDA_LAUNCH_BLOCKING=1 to find the failing call",
        re.IGNORECASE,
    ),
    Mention(
        "GPU",
        r"\bGPUs?\b|\bgpu(?::\d+)?\b",
        "a GPU (the message does not say which kind)",
        "torch.accelerator.current_accelerator() and nvidia-smi (or rocm-smi) to see what this process has",
        re.IGNORECASE,
    ),
    Mention(
        "accelerator",
        r"\baccelerators?\b",
        "an accelerator (CUDA, MPS, XPU, ...)",
        "torch.accelerator.is_available() and torch.accelerator.current_accelerator()",
        re.IGNORECASE,
    ),
    Mention(
        "cpu",
        r"\bcpu(?::\d+)?\b|device\(type='cpu'\)|\bCPU\w*Type\b|\bQuantizedCPU\b",
        "the CPU as a device (host memory)",
        "which of the tensors involved are on the CPU and which are not: print(t.device) for each",
        re.IGNORECASE,
    ),
)

# device(type='cuda', index=0) -> cuda:0, as repr(torch.device) prints inside messages
DEVICE_REPR = re.compile(r"device\(type='(?P<type>\w+)'(?:, index=(?P<index>\d+))?\)")
DEVICE_STRING = re.compile(
    r"(?<![\w./-])(?P<type>cpu|cuda|mps|xpu|hip|meta|xla|npu|hpu|mtia|ipu|privateuseone|privateuse1)"
    r"(?::(?P<index>\d+))?(?![\w/])",
    re.IGNORECASE,
)
