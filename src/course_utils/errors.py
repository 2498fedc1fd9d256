"""Cross-device errors: what a message means and what to change, in a notebook as they happen.

Lesson: notebook 05 (the cross-device error clinic); notebook 07 uses it on the old messages
the source articles quote.

- ``explain_device_error(exc_or_message)`` reads a real PyTorch error (the exception, or just its
  message) and says which devices are involved, why it happened and what to change. It knows the
  messages of PyTorch 0.4 through 2.14 (both wordings of "Expected all tensors to be on the same
  device", the ``meta`` device's "Tensor on device cpu is not on the expected device meta!", Apple's
  MPS, "is there a GPU at all?") and the wrappers around them (DataParallel, the DataLoader,
  Lightning, Ultralytics, Diffusers, NCCL): docs/error-messages.md lists every family with the
  releases of its wording. Anything else it says plainly is not a device error.
- ``%load_ext course_utils.errors`` in a notebook adds the explanation under the traceback of a
  device error; other errors are shown unchanged. ``%unload_ext course_utils.errors`` restores.
  With ``%load_ext course_utils.tracebacks`` too, the traceback above it is the short one.

Finding the culprits *before* the error (``find_device_mismatches``) and what a mixed-device
operation really returns (``try_mixed``) live in ``course_utils.mismatches``.

Everything here runs on a CPU-only machine; nothing changes where a tensor lives.
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable
from dataclasses import dataclass, replace

from course_utils.display import INFO, LINE_BREAK, MUTED, card, joined, markup, tag
from course_utils.tracebacks import add_after_traceback, remove_after_traceback

# --------------------------------------------------------------------------- explaining a message

_DEV = r"[A-Za-z_]+(?::\d+)?"  # cpu, cuda:0, meta, npu:1, privateuseone:0
_DEVICE_TOKEN = re.compile(
    r"\b(?:cpu|cuda|meta|mps|xpu|npu|hpu|mtia|xla|ipu|privateuseone)(?::\d+)?\b", re.IGNORECASE
)

# What the argument names in "(when checking argument ... mat1 ...)" usually are in your code.
_ARGUMENT_HINTS = {
    "mat1": "in nn.Linear (addmm) mat1 is the input batch; mat2 is the weight",
    "mat2": "in nn.Linear (addmm) mat2 is the weight and mat1 the input; in a matmul, the right operand",
    "self": "the first tensor of the operation (for nn.Linear's addmm, the bias)",
    "index": "for nn.Embedding (index_select) the index is your batch of token ids",
    "weight": "for CrossEntropyLoss/NLLLoss, the class weights you passed to the loss",
    "target": "the labels you passed to the loss",
    "tensors": "one of the tensors in the list given to torch.cat/torch.stack",
    "input": "the input tensor",
    "other": "the second operand",
}


@dataclass(frozen=True)
class DeviceErrorExplanation:
    """What a PyTorch error message means for device placement; end a notebook cell on it."""

    is_device_error: bool
    kind: str  # "mixed-devices", "index-device", ..., "not-a-device-error"
    devices: tuple[str, ...]  # the devices named in the message, in the order it names them: ("cuda:0", "cpu")
    cause: str
    fix: str
    message: str  # the original message
    error_type: str | None = None  # "RuntimeError" when an exception was given
    argument: str | None = None  # "mat1", "index": the argument PyTorch names
    operator: str | None = None  # "addmm", "index_select": the operation PyTorch names

    @property
    def first_line(self) -> str:
        text = self.message.strip()
        return text.splitlines()[0] if text else ""

    def __str__(self) -> str:
        head = f"{self.error_type}: " if self.error_type else ""
        lines = [f"{head}{self.first_line}"]
        if not self.is_device_error:
            lines.append(f"  Not a device error: {self.cause}")
            return "\n".join(lines)
        lines.append(f"  Device error ({self.kind}); devices: {', '.join(self.devices) or 'not named'}")
        if self.operator or self.argument:
            where = " ".join(p for p in (f"operation {self.operator}" if self.operator else "",
                                         f"argument {self.argument}" if self.argument else "") if p)
            lines.append(f"  Where: {where}")
        lines.append(f"  Why: {self.cause}")
        lines.append(f"  Fix: {self.fix}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return str(self)

    def _repr_html_(self) -> str:
        message = tag("code", self.first_line)
        if not self.is_device_error:
            return card(MUTED, "Not a device error.", " ", message, LINE_BREAK, self.cause)
        devices = joined(tag("code", d) for d in self.devices) or "not named"
        where = []
        if self.operator or self.argument:
            parts = []
            if self.operator:
                parts.append(markup("operation ", tag("code", self.operator)))
            if self.argument:
                parts.append(markup("argument ", tag("code", self.argument)))
            where = [LINE_BREAK, tag("b", "Where:"), " ", joined(parts, " ")]
        return card(
            INFO, "Device error", f" ({self.kind}): ", message,
            LINE_BREAK, tag("b", "Devices:"), " ", devices, *where,
            LINE_BREAK, tag("b", "Why:"), f" {self.cause}",
            LINE_BREAK, tag("b", "Fix:"), f" {self.fix}",
        )


def explain_device_error(error: BaseException | str) -> DeviceErrorExplanation:
    """Explain a PyTorch error (an exception or its message) in terms of devices.

    Returns an explanation whose ``is_device_error`` is False, saying so, for messages that are
    not about devices.
    """
    if isinstance(error, KeyError) and error.args:
        message, type_name = str(error.args[0]), type(error).__name__  # str(KeyError) adds quotes
    elif isinstance(error, BaseException):
        message, type_name = str(error), type(error).__name__
    elif isinstance(error, str):
        message, type_name = error, None
    else:
        raise TypeError(
            f"explain_device_error expects an exception or its message (a str), got {type(error).__name__}: "
            f"{error!r}. In a notebook: try: ... except Exception as e: explain_device_error(e)."
        )
    wrapper = _WRAPPER.search(message)
    if wrapper:
        return _explain_wrapped(wrapper, message, type_name)
    for rule in _RULES:  # the first rule whose pattern is found and that has an explanation wins
        match = rule.pattern.search(message)
        if match:
            result = rule.explain(match, message)
            if result is not None:
                if result["kind"] == "mixed-devices" and isinstance(error, BaseException):
                    result = _with_module_from_traceback(error, result)
                return DeviceErrorExplanation(message=message, error_type=type_name, **result)
    return DeviceErrorExplanation(
        is_device_error=False,
        kind="not-a-device-error",
        devices=(),
        cause="this message does not say anything about devices, so moving tensors will not fix it. "
        "Read it for shapes, dtypes or arguments instead.",
        fix="",
        message=message,
        error_type=type_name,
    )


# torch/_utils.py's ExceptionWrapper re-raises an error from another thread or process as
# "Caught RuntimeError in replica 0 on device 0.\nOriginal Traceback (most recent call last): ...":
# DataParallel's replicas (torch/nn/parallel/parallel_apply.py), the DataLoader's pin-memory thread
# and its worker processes. The error to explain is the last line of the original traceback.
_WRAPPER = re.compile(r"Caught (?P<etype>\w+) (?P<where>in replica (?P<replica>\d+) on device (?P<device>\d+)"
                      r"|in pin memory thread for device (?P<pin>\d+)|in DataLoader worker process (?P<worker>\d+))")


def _explain_wrapped(wrapper: re.Match, message: str, type_name: str | None) -> DeviceErrorExplanation:
    """Explain the error an ExceptionWrapper carries, saying where it was raised."""
    etype, groups = wrapper.group("etype"), wrapper.groupdict()
    if groups["replica"] is not None:
        where = f"DataParallel's copy of the model on cuda:{groups['device']} (replica {groups['replica']})"
        device = f"cuda:{groups['device']}"
        advice = (" Under nn.DataParallel each GPU runs forward() on its slice of the batch: tensors made inside "
                  "forward() need device=x.device (never a fixed 'cuda:0' or .cuda()), and the model must be on "
                  "device_ids[0] before it is wrapped. (DistributedDataParallel is the recommended replacement.)")
    elif groups["pin"] is not None:
        where, device = f"the DataLoader's pin-memory thread (for cuda:{groups['pin']})", f"cuda:{groups['pin']}"
        advice = " With pin_memory=True the Dataset must return CPU tensors."
    else:
        where, device, advice = f"DataLoader worker process {groups['worker']}", None, ""
    rest = message[wrapper.end():]
    lines = [i for i, line in enumerate(rest.splitlines()) if line.startswith(f"{etype}: ")]
    if lines:  # the original error's own message: its last line naming the caught type, to the end
        inner = explain_device_error("\n".join(rest.splitlines()[lines[-1]:])[len(etype) + 2:])
        if not inner.is_device_error:
            return replace(inner, message=message, error_type=type_name)
        return replace(inner, message=message, error_type=type_name, cause=f"in {where}: {inner.cause}",
                       fix=inner.fix + advice)
    if device is None:
        return DeviceErrorExplanation(
            is_device_error=False, kind="not-a-device-error", devices=(), message=message, error_type=type_name,
            cause=(f"this line only says that {where} raised a {etype}; the error itself is the last line under "
                   "'Original Traceback'. Paste that to have it explained."), fix="")
    return DeviceErrorExplanation(
        is_device_error=True, kind="wrapped-error", devices=(device,), message=message, error_type=type_name,
        operator="DataParallel" if groups["replica"] is not None else None,
        cause=(f"{where} raised a {etype}; the error itself is the last line under 'Original Traceback' (paste it "
               "whole to have that explained)." + advice),
        fix=("Read the last line of the original traceback; if it is a device error, move the tensor it names to "
             "the device of the replica's input (x.device)." + advice))


def _module_in_traceback(error: BaseException) -> tuple[str, str, str] | None:
    """(module class, its weights' device, its input's device) from the innermost module forward() in the traceback.

    The exception itself knows what the message may not: the frames it passed through keep their
    locals, so a forward() frame holds the module (``self``) and the input it was called with.
    """
    import torch  # here, not at import: the rest of this module reads messages without torch

    frames = []
    tb = error.__traceback__
    while tb is not None:
        frames.append(tb.tb_frame)
        tb = tb.tb_next
    for frame in reversed(frames):  # innermost first: the module whose own weights met the input
        module = frame.f_locals.get("self")
        if frame.f_code.co_name != "forward" or not isinstance(module, torch.nn.Module):
            continue
        weights = {str(p.device) for p in module.parameters(recurse=False)}
        names = frame.f_code.co_varnames[1:frame.f_code.co_argcount]
        inputs = [frame.f_locals.get(n) for n in names]
        data = {str(t.device) for t in inputs if isinstance(t, torch.Tensor)}
        if len(weights) == 1 and len(data) == 1 and weights != data:
            return type(module).__name__, weights.pop(), data.pop()
    return None


def _with_module_from_traceback(error: BaseException, result: dict) -> dict:
    """A mixed-devices explanation that names the module's weights, when the traceback shows them."""
    found = _module_in_traceback(error)
    if found is None:
        return result
    cls, weights, data = found
    if not {weights, data} <= set(result["devices"]):
        return result  # the module's devices are not the two the message is about
    return _mixed(result["devices"], result["argument"], result["operator"] or f"{cls}.forward", weights=weights)


def _op_name(raw: str | None) -> str | None:
    """'wrapper_CUDA_addmm' -> 'addmm', 'wrapper_CUDA__index_select' -> 'index_select'."""
    if not raw:
        return None
    name = re.sub(r"^wrapper_(?:[A-Za-z0-9]+_)?_?", "", raw)
    return name.lstrip("_") or raw


def _hint(argument: str | None) -> str:
    return f" ({_ARGUMENT_HINTS[argument]})" if argument in _ARGUMENT_HINTS else ""


_FIND = "find_device_mismatches(model, x) lists every culprit before the forward pass."
_RULE = ("The rule: the input goes to the model, x = x.to(next(model.parameters()).device), and tensors made "
         "inside forward() use device=x.device. " + _FIND)


def _mixed(devices: tuple[str, ...], argument: str | None = None, operator: str | None = None,
           odd_one: str | None = None, home: str | None = None, weights: str | None = None) -> dict:
    """The explanation of the "same device" family, in one place.

    ``weights`` is the device of the module's weights, where the operation tells it (addmm's mat2,
    a convolution's weight): then the fix moves the input there, never the weights to the input.
    """
    if weights is not None:
        data = next((d for d in devices if d != weights), home if odd_one == weights else odd_one)
        where = f" of {operator}" if operator else ""
        if argument and odd_one and home:
            lead = (f"`{argument}`{_hint(argument)} is on {odd_one}, the other tensors{where} on {home}: the "
                    f"module's weights are on {weights} and its input on {data}")
        else:
            lead = f"the module's weights are on {weights} and its input on {data}" + (f" (in {operator})" if operator else "")
        cause = lead + ". An operation runs on one device, and PyTorch never moves data between devices for you."
        fix = (f"Move the input to the model: x = x.to('{weights}'), or in general "
               "x = x.to(next(model.parameters()).device). Move the model instead only if you meant it to be on "
               f"{data}. " + _FIND)
        return dict(is_device_error=True, kind="mixed-devices", devices=devices, cause=cause, fix=fix,
                    argument=argument, operator=operator)
    if odd_one and home:
        who = f"`{argument}`{_hint(argument)}" if argument else "one tensor"
        cause = (f"{who} is on {odd_one}, but the other tensors of this operation"
                 f"{' (' + operator + ')' if operator else ''} are on {home}. An operation runs on one "
                 "device, and PyTorch never moves data between devices for you.")
        target = home
    else:
        cause = ("the operation" + (f" {operator}" if operator else "") + " got tensors on "
                 + " and ".join(devices or ("two devices",)) + ". An operation runs on one device, and PyTorch "
                 "never moves data between devices for you.")
        target = devices[0] if devices else "one device"
    if odd_one and home:
        who = f"`{argument}`" if argument else "the tensor on " + odd_one
        move = f"Put every tensor of this operation on one device: move {who} with .to('{home}') (or the others to {odd_one}). "
    else:
        move = f"Put every tensor of this operation on one device, e.g. x = x.to('{target}'). "
    fix = (move + "For a model, move its inputs to the model's device: x = x.to(next(model.parameters()).device), "
           "and create tensors inside forward() with device=x.device. find_device_mismatches(model, x) lists every "
           "culprit before the forward pass.")
    return dict(is_device_error=True, kind="mixed-devices", devices=devices, cause=cause, fix=fix,
                argument=argument, operator=operator)


def _type_device(type_name: str) -> str:
    """The device a legacy type name implies: torch.cuda.FloatTensor / CUDAFloatType -> cuda."""
    lowered = type_name.lower()
    for backend in ("cuda", "mps", "xpu", "meta", "hip"):
        if backend in lowered:
            return "cuda" if backend == "hip" else backend
    return "cpu"


def _type_dtype(type_name: str) -> str:
    """The dtype word of a legacy type name: torch.cuda.HalfTensor / CUDAHalfType -> Half."""
    name = type_name.rsplit(".", 1)[-1]
    for backend in ("CUDA", "CPU", "MPS", "XPU", "HIP", "Meta"):
        name = name.removeprefix(backend)
    return name.removesuffix("Tensor").removesuffix("Type")


# Operations whose arguments say which tensor is a module's weight. nn.Linear runs
# addmm(bias, input, weight.t()) (mat1 = input, mat2 = weight, self = bias) or linear(input, weight,
# bias); a convolution takes (input, weight, bias).
_INPUT_ARGS = {"addmm": "mat1", "_th_addmm": "mat1", "linear": "input"}
_WEIGHT_ARGS = {"addmm": ("mat2", "self"), "_th_addmm": ("mat2", "self"), "linear": ("weight", "bias")}


def _weights_device(op: str | None, arg: str | None, arg_device: str, other_device: str) -> str | None:
    """The device of the module's weights, where the operation and argument tell it; else None."""
    if not op or not arg:
        return None
    if "conv" in op:  # convolution, cudnn_convolution, _convolution: (input, weight, bias)
        return other_device if arg == "input" else arg_device if arg in ("weight", "bias") else None
    if _INPUT_ARGS.get(op) == arg:
        return other_device
    if arg in _WEIGHT_ARGS.get(op, ()):
        return arg_device
    return None


def _legacy_device(word: str) -> str:
    """'CPU' -> 'cpu', 'GPU' -> 'cuda', '1' -> 'cuda:1', '-1' -> 'cpu' (PyTorch 1.x's device words)."""
    word = word.strip()
    if word.lstrip("-").isdigit():
        return "cpu" if int(word) < 0 else f"cuda:{int(word)}"
    return "cuda" if word.upper() == "GPU" else word.lower()


# --------------------------------------------------------------------------- the rules, top to bottom
# Each rule is a pattern with what it says right under it: a function registered by @_rule, or a
# row of fixed text registered by _fixed. explain_device_error tries them in this order, and the
# first whose pattern is found (and whose function does not return None) explains the message; so a
# wording that names an argument comes before the generic "same device" rule, and the late-reported
# CUDA error comes after the errors (invalid ordinal, device-side assert) that carry the same tail.


@dataclass(frozen=True)
class _Rule:
    pattern: re.Pattern
    explain: Callable[[re.Match, str], dict | None]  # (the match, the whole message) -> explanation fields


_RULES: list[_Rule] = []


def _rule(pattern: str, flags: int = 0) -> Callable:
    """Register the function under this decorator as the explanation of messages ``pattern`` finds."""

    def register(explain: Callable[[re.Match, str], dict | None]) -> Callable:
        _RULES.append(_Rule(re.compile(pattern, flags), explain))
        return explain

    return register


class _Fill(string.Formatter):
    """str.format with two more conversions for a message's names: ``{name!l}`` lower-case, ``{name!u}`` upper."""

    def convert_field(self, value, conversion):
        if conversion == "l":
            return value.lower()
        if conversion == "u":
            return value.upper()
        return super().convert_field(value, conversion)


_FILL = _Fill()


def _fixed(pattern: str, kind: str, *, cause: str, fix: str, devices: tuple[str, ...] = (),
           argument: str | None = None, operator: str | None = None, flags: int = 0) -> None:
    """Register a rule whose explanation is fixed text, filled from the pattern's named groups.

    ``{name}`` is the group as the message wrote it, ``{name!l}`` lower-case, ``{name!u}`` upper-case.
    """

    def explain(m: re.Match, _: str) -> dict:
        groups = {k: v for k, v in m.groupdict().items() if v is not None}
        return dict(is_device_error=True, kind=kind, devices=tuple(_FILL.format(d, **groups) for d in devices),
                    cause=_FILL.format(cause, **groups), fix=_FILL.format(fix, **groups),
                    argument=argument, operator=operator)

    _RULES.append(_Rule(re.compile(pattern, flags), explain))


# --- the families of issue 28: optimizer state, Apple's MPS, "is there a GPU at all?", old wordings
# Each wording is quoted in tests/errors_texts.py with the release (or library version) it was read in.

# The per-tensor-list arguments of the fused/foreach optimizer kernels (_fused_adam_, _fused_adamw_,
# _fused_sgd_, _fused_adagrad_): these are the optimizer's state, which the learner never passes.
_OPTIMIZER_STATE_ARGS = "state_steps|exp_avgs|exp_avg_sqs|max_exp_avg_sqs|momentum_buffer_list|state_sums"


def _optimizer_state(found: str, home: str, arg: str, op: str | None) -> dict:
    return dict(
        is_device_error=True, kind="optimizer-state", devices=(found, home), argument=arg, operator=op,
        cause=(f"the optimizer's own state (`{arg}`: the step counts or running averages it keeps per parameter) is on "
               f"{found}, its parameters on {home}. You never pass `{arg}` yourself: the state came from an optimizer "
               "built before the model moved (it stepped once, then model.to(...) moved the parameters), or from a "
               "checkpoint loaded without map_location and given to optimizer.load_state_dict before the model "
               "was on its device."),
        fix=(f"Fix it where the state came from: move the model first, then build the optimizer "
             f"(model.to('{home}'); opt = torch.optim.AdamW(model.parameters(), ...)); when resuming, "
             f"state = torch.load(path, map_location='{home}') after model.to('{home}'), then "
             "opt.load_state_dict(state['optimizer']) (load_state_dict moves the state to each parameter's device). "
             "For an optimizer already in memory, opt.load_state_dict(opt.state_dict()) does the same."),
    )


@_rule(rf"Expected all tensors to be on the same device, but got (?P<arg>{_OPTIMIZER_STATE_ARGS}) is on "
       rf"(?P<found>{_DEV}), different from other tensors on (?P<home>{_DEV})"
       rf"(?: \(when checking argument (?:for argument \w+ )?in method (?P<op>\w+)\))?")
def _rule_optimizer_state_new(m: re.Match, _: str) -> dict:
    return _optimizer_state(m.group("found"), m.group("home"), m.group("arg"), _op_name(m.group("op")))


@_rule(rf"Expected all tensors to be on the same device, but found at least two devices, (?P<a>{_DEV}) and "
       rf"(?P<b>{_DEV})! \(when checking ar(?:gu|ug)ment for argument (?P<arg>{_OPTIMIZER_STATE_ARGS}) "
       rf"in method (?P<op>\w+)\)")
def _rule_optimizer_state_old(m: re.Match, _: str) -> dict:
    # the dispatcher's older check names the common device first, then the argument's
    return _optimizer_state(m.group("b"), m.group("a"), m.group("arg"), _op_name(m.group("op")))


@_rule(rf"Tensor for argument (?P<arg>\w+) is on (?P<found>{_DEV}) but expected on mps")
def _rule_mps_linear(m: re.Match, _: str) -> dict:
    # aten/src/ATen/native/mps/operations/Linear.mm (2.4+): nn.Linear on Apple's GPU
    arg, found = m.group("arg"), m.group("found")
    weights = "mps" if arg == "input" else found if arg in ("weight", "bias") else None
    return _mixed(("mps", found), arg, "linear", odd_one=found, home="mps", weights=weights)


@_rule(rf"(?P<op>\w+): input\(device='(?P<data>{_DEV})'\) and weight\(device='?(?P<weights>{_DEV})'?\)\s+must be on "
       r"the same device")
def _rule_mps_convolution(m: re.Match, _: str) -> dict:
    # aten/src/ATen/native/mps/operations/Convolution.mm (2.4+): a convolution on Apple's GPU
    data, weights = m.group("data"), m.group("weights")
    return _mixed((data, weights), "input", m.group("op"), odd_one=data, home=weights, weights=weights)


_fixed(r"Cannot convert a (?:MPS Tensor to float64 dtype|float64 Tensor to MPS) as the MPS framework doesn't support "
       r"float64|float64 is not supported on MPS",
    "mps-float64", devices=("mps",),
    cause=("Apple's GPU (MPS) has no float64 (double) arithmetic, so a float64 tensor cannot go to 'mps'. Float64 "
           "usually comes from NumPy (its arrays are float64 by default) or from torch.tensor of Python floats "
           "with dtype=torch.float64, or .double()."),
    fix=("Convert to float32 as you move: t.to('mps', dtype=torch.float32) (for a model: model.float().to('mps')); "
         "from NumPy, torch.from_numpy(a).float(). Keep float64 work on the CPU."),
)


_fixed(r"No CUDA GPUs are available|no CUDA-capable device is detected",
    "no-gpu-visible", devices=("cuda",),
    cause=("this PyTorch has CUDA, but the process sees no GPU: CUDA_VISIBLE_DEVICES hides them (it is empty, or "
           "names a GPU that does not exist), the container or job was started without GPUs (docker --gpus, a "
           "Slurm/Kubernetes request), or the notebook's runtime has no GPU (Colab: Runtime > Change runtime type)."),
    fix=("Check what the process sees: nvidia-smi, echo $CUDA_VISIBLE_DEVICES, torch.cuda.device_count(). "
         "Write device-agnostic code that falls back to the CPU: "
         "device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')."),
)


_fixed(r"no kernel image is available for execution on the device|with CUDA capability sm_(?P<arch>\d+) is not "
       r"compatible with the current PyTorch installation",
    "gpu-architecture", devices=("cuda",),
    cause=("this PyTorch build has no compiled kernels for this GPU's architecture: the GPU is older than the build "
           "supports (its CUDA capability was dropped) or newer than the build (a new generation needs a newer CUDA "
           "build). Nothing is wrong with your tensors."),
    fix=("Compare torch.cuda.get_device_capability() with torch.cuda.get_arch_list(), then install a torch build "
         "whose list has your GPU's sm_XY (pytorch.org/get-started: a newer CUDA variant for a new GPU, an older "
         "release for an old one). Until then, run on the CPU."),
)


_fixed(r"`(?P<accelerator>\w+)Accelerator` can not run on your system since the accelerator is not available"
       r"|GPUs requested but none are available",
    "no-gpu-visible", devices=("cuda",),
    cause=("PyTorch Lightning was asked for a GPU accelerator (Trainer(accelerator='gpu'/'cuda', devices=...)) and "
           "this machine (or process) has none that torch can use."),
    fix=("Let Lightning choose: Trainer(accelerator='auto', devices='auto') runs on the CPU when no GPU is there; "
         "or check torch.cuda.is_available() and nvidia-smi if you expected one."),
)


@_rule(r"You requested gpu: (?P<asked>\[[^\]]*\])\s*But your machine only has: (?P<has>\[[^\]]*\])")
def _rule_lightning_gpu_ids(m: re.Match, _: str) -> dict:
    # lightning/fabric/utilities/device_parser.py, _check_data_type / _sanitize_gpu_ids
    return dict(
        is_device_error=True, kind="invalid-device-ordinal", devices=("cuda",),
        cause=(f"Lightning was asked for GPUs {m.group('asked')}, and this process sees only {m.group('has')} "
               "(CUDA_VISIBLE_DEVICES renumbers the visible GPUs from 0)."),
        fix="Ask for a number of GPUs rather than their ids: Trainer(devices=1) or devices='auto'.",
    )


@_rule(r"Invalid (?P<backend>[A-Z]+) 'device=(?P<device>[^']*)' requested\.(?P<rest>.*)", flags=re.DOTALL)
def _rule_ultralytics_device(m: re.Match, _: str) -> dict:
    # ultralytics/utils/torch_utils.py, select_device
    backend, device, rest = m.group("backend"), m.group("device"), m.group("rest")
    none = re.search(r"Backend is not available|is_available\(\): False|device_count\(\): 0\b", rest)
    kind = "no-gpu-visible" if none else "invalid-device-ordinal"
    why = (f"this process has no usable {backend} device" if none else
           f"device={device} names a {backend} device this process does not have (the visible ones are numbered from 0)")
    return dict(
        is_device_error=True, kind=kind, devices=(backend.lower(),),
        cause=f"Ultralytics was asked for device={device}, and {why}.",
        fix=("Pass device='cpu', or leave device unset (Ultralytics then picks a GPU if there is one); check "
             "torch.cuda.is_available(), torch.cuda.device_count() and CUDA_VISIBLE_DEVICES."),
    )


_fixed(r"Cannot generate a (?P<device>\w+(?::\d+)?) tensor from a generator of type (?P<gen>\w+)",
    "generator-device", devices=("{device}", "{gen}"),
    cause=("Diffusers' randn_tensor was asked for noise on {device} with a torch.Generator made on {gen}; it accepts a "
           "generator on the pipeline's device, or on the CPU, but not a {gen} generator for a {device} tensor."),
    fix=("Make the generator where the pipeline runs, torch.Generator(device=pipe.device).manual_seed(0), or on the "
         "CPU, torch.Generator('cpu').manual_seed(0) (the same seed then gives the same image on any device)."),
)


@_rule(r"cannot pin '(?P<type>[\w.]+)' only dense CPU tensors can be pinned|Only dense CPU tensors can be pinned")
def _rule_pin(m: re.Match, _: str) -> dict | None:
    # aten/src/ATen/native/Memory.cpp, pin_memory: the tensor is not a dense CPU tensor
    type_name = m.group("type")
    device = _type_device(type_name) if type_name else None
    if device == "cpu" and type_name:
        return None  # a sparse (or other layout) CPU tensor: a layout problem, not a device one
    where = f" is already on {device}" if device else " is not in CPU memory"
    return dict(
        is_device_error=True, kind="pin-needs-cpu", devices=(device,) if device else (),
        cause=(f"pinning pages host (CPU) memory so it can be copied to a GPU quickly; this tensor{where}, so there "
               "is nothing to pin. Usually a Dataset (or collate_fn) that returns GPU tensors, given to a "
               "DataLoader(..., pin_memory=True), whose pin-memory step then fails."),
        fix=("Let the Dataset return CPU tensors and move each batch in the training loop: "
             "x = x.to(device, non_blocking=True) with pin_memory=True. If the data really lives on the GPU already, "
             "drop pin_memory=True."),
    )


_fixed(r"Duplicate GPU detected : rank (?P<a>\d+) and rank (?P<b>\d+) both on CUDA device (?P<bus>[0-9a-fA-F]+)"
       r"|Multiple Ranks are using the same GPU",
    "duplicate-gpu", devices=("cuda",),
    cause=("NCCL found two processes (ranks) of one job on the same GPU. Each rank must own one GPU: every process "
           "used the default cuda:0, because it never chose its own device."),
    fix=("In each process, before init_process_group or any CUDA work: local_rank = int(os.environ['LOCAL_RANK']); "
         "torch.cuda.set_device(local_rank); device = torch.device('cuda', local_rank). Launch no more processes "
         "per node than GPUs (torchrun --nproc_per_node=torch.cuda.device_count())."),
)


# PyTorch 0.4-1.x wordings, still pasted from old tutorials, forum answers and pinned environments.


@_rule(r"Expected object of backend (?P<want>\w+) but got backend (?P<got>\w+) for (?:argument #\d+ '(?P<arg>\w+)'"
       r"|sequence element \d+ in sequence argument at position #\d+ '(?P<seq>\w+)')")
def _rule_legacy_backend(m: re.Match, _: str) -> dict | None:
    # aten/src/ATen/Utils.h, checked_tensor_unwrap (PyTorch 1.0-1.4)
    want, got = _type_device(m.group("want")), _type_device(m.group("got"))
    if want == got:
        return None  # CPU against SparseCPU: a layout mismatch
    arg = m.group("arg") or m.group("seq")
    return _mixed((want, got), arg, None, odd_one=got, home=want)


@_rule(rf"expected (?:device|backend) (?P<want>{_DEV})(?: and dtype \w+)? but got (?:device|backend) "
       rf"(?P<got>{_DEV})(?: and dtype \w+)?(?P<value> for value tensor)?")
def _rule_legacy_expected_device(m: re.Match, _: str) -> dict | None:
    # TensorIterator's compute_types (PyTorch 1.1-1.4); index_put_ with accumulate=True on CUDA still says it
    want, got = _legacy_device(m.group("want")), _legacy_device(m.group("got"))
    if want == got:
        return None  # only the dtypes differ
    arg = "values" if m.group("value") else None
    return _mixed((want, got), arg, "index_put_" if arg else None, odd_one=got, home=want)


@_rule(rf"(?:torch\.cat\(\): )?[Aa]ll input tensors must be on the same device\. Received (?P<a>{_DEV}) and (?P<b>{_DEV})")
def _rule_legacy_cat(m: re.Match, _: str) -> dict:
    # aten/src/ATen/native/cuda/Shape.cu, torch.cat on CUDA (PyTorch 1.5-1.x)
    return _mixed((m.group("a"), m.group("b")), "tensors", "cat", odd_one=m.group("a"), home=m.group("b"))


@_rule(r"arguments are located on different GPUs")
def _rule_legacy_different_gpus(m: re.Match, message: str) -> dict:
    # THC's THCAssertSameGPU (aten/src/THC, PyTorch 0.4-1.x): names neither GPU
    result = _mixed(tuple(dict.fromkeys(d.lower() for d in _DEVICE_TOKEN.findall(message))) or ("cuda",), None, None)
    result["cause"] = ("the tensors of one CUDA operation are on different GPUs (or one is on the CPU); this old "
                       "message names neither. An operation runs on one device.")
    return result


@_rule(rf"Expected all tensors to be on the same device, but got (?P<arg>\w+) is on (?P<found>{_DEV}), "
       rf"different from other tensors on (?P<home>{_DEV})"
       rf"(?: \(when checking argument (?:for argument \w+ )?in method (?P<op>\w+)\))?")
def _rule_new_wording(m: re.Match, _: str) -> dict:
    arg, found, home = m.group("arg"), m.group("found"), m.group("home")
    op = _op_name(m.group("op"))
    return _mixed((found, home), arg, op, odd_one=found, home=home, weights=_weights_device(op, arg, found, home))


@_rule(rf"Expected all tensors to be on the same (?:common )?device, but found at least two devices, "
       rf"(?P<a>{_DEV}) and (?P<b>{_DEV})!(?: \(when checking ar(?:gu|ug)ment for argument (?P<arg>\w+) "
       rf"in method (?P<op>\w+)\))?")
def _rule_old_wording(m: re.Match, _: str) -> dict:
    home, other = m.group("a"), m.group("b")
    arg = m.group("arg")
    if arg:  # the dispatcher's check: the first device is the one the others share, the second is `arg`'s
        op = _op_name(m.group("op"))
        return _mixed((home, other), arg, op, odd_one=other, home=home,
                      weights=_weights_device(op, arg, other, home))
    return _mixed((home, other), None, None)


@_rule(rf"Tensor on device (?P<found>{_DEV}) is not on the expected device (?P<home>{_DEV})!?")
def _rule_meta_wording(m: re.Match, _: str) -> dict:
    # torch/_prims_common's check_same_device (meta and fake tensors, decompositions) calls "expected"
    # the first device it meets among the operation's tensors. For nn.Linear that is often the
    # module's bias: "Tensor on device meta is not on the expected device cpu!" is printed for a model
    # on meta and an input on the CPU. So the message cannot say which side is the model's.
    found, home = m.group("found"), m.group("home")
    cause = (f"one tensor of the operation is on {found} and another on {home}. This wording (PyTorch's "
             "check_same_device, used for meta and fake tensors) calls 'expected' the first device it met among "
             "the operation's tensors, which need not be your model's: the message does not say which tensor "
             "is the model's.")
    if "meta" in (found, home):
        cause += " (On CUDA the same mistake reads 'Expected all tensors to be on the same device'.)"
    fix = ("Do not move a tensor just because the message calls its device unexpected. " + _RULE
           + " Ask the model where it is: next(model.parameters()).device.")
    return dict(is_device_error=True, kind="mixed-devices", devices=(found, home), cause=cause, fix=fix,
                argument=None, operator=None)


@_rule(rf"Input and parameter tensors are not at the same device, found input tensor at (?P<a>{_DEV}) "
       rf"and parameter tensor at (?P<b>{_DEV})")
def _rule_rnn(m: re.Match, _: str) -> dict:
    return _mixed((m.group("a"), m.group("b")), "input", "RNN", odd_one=m.group("a"), home=m.group("b"))


@_rule(rf"Attempting to copy from device (?P<a>{_DEV}) to device (?P<b>{_DEV}), but cross-device copies")
def _rule_cross_copy(m: re.Match, _: str) -> dict:
    result = _mixed((m.group("a"), m.group("b")), "out", None, odd_one=m.group("a"), home=m.group("b"))
    result["cause"] = (f"the result would have to be copied from {m.group('a')} into an out= tensor on "
                       f"{m.group('b')}, and this operation does not copy across devices.")
    result["fix"] = f"Pass an out= tensor on {m.group('a')}, or drop out= and move the result with .to()."
    return result


_fixed(r"Tensors of the same index must be on the same device and the same dtype",
    "optimizer-state",
    cause=("a multi-tensor (foreach) optimizer step found a parameter and its state (e.g. Adam's exp_avg, "
           "SGD's momentum_buffer) on different devices (or dtypes). Typical cause: the model was moved to another "
           "accelerator (cuda:0 to cuda:1, say) after the optimizer had already stepped, so its state stayed "
           "behind. (State left on the CPU passes this check, which lets float32 CPU tensors through for the "
           "step counters, and fails in the update instead: 'Expected all tensors to be on the same device'.)"),
    fix=("Move the model before creating the optimizer. If the state already exists, "
         "optimizer.load_state_dict(optimizer.state_dict()) moves it to each parameter's device; when resuming, "
         "load the checkpoint's optimizer state after model.to(device)."),
)


@_rule(rf"Input and hidden tensors are not at the same device, found input tensor at (?P<a>{_DEV}) "
       rf"and hidden tensor at (?P<b>{_DEV})")
def _rule_rnn_hidden(m: re.Match, _: str) -> dict:
    result = _mixed((m.group("a"), m.group("b")), "hx", "RNN", odd_one=m.group("b"), home=m.group("a"))
    result["fix"] = ("Create the initial hidden (and cell) state on the input's device: "
                     "h0 = torch.zeros(..., device=x.device), or pass no state at all (PyTorch then makes zeros "
                     "on the right device).")
    return result


@_rule(rf"module must have its parameters and buffers on device (?P<home>{_DEV}) \(device_ids\[0\]\) "
       rf"but found one of them on device: (?P<found>{_DEV})")
def _rule_data_parallel(m: re.Match, _: str) -> dict:
    home, found = m.group("home"), m.group("found")
    result = _mixed((home, found), None, "DataParallel", odd_one=found, home=home)
    result["cause"] = (f"nn.DataParallel replicates the model from {home} (device_ids[0]), but a parameter or buffer "
                       f"of the model is still on {found}.")
    result["fix"] = (f"Move the model before wrapping it: model = nn.DataParallel(model.to('{home}'), device_ids=...). "
                     "placement_report(model) lists any tensor left behind (a plain tensor attribute needs "
                     "register_buffer).")
    return result


@_rule(r"Tensor for argument #\d+ '(?P<arg>\w+)' is on (?P<found>CPU|GPU)\b.*?, but expected (?:it|them) "
       r"to be on (?P<want>CPU|GPU)(?: \(while checking arguments for (?P<op>\w+)\))?")
def _rule_legacy_argument_on(m: re.Match, _: str) -> dict:
    found, want = _legacy_device(m.group("found")), _legacy_device(m.group("want"))
    arg, op = m.group("arg"), m.group("op")
    return _mixed((want, found), arg, op, odd_one=found, home=want, weights=_weights_device(op, arg, found, want))


@_rule(r"Expected tensor for argument #\d+ '(?P<a1>\w+)' to have the same device as tensor for argument "
       r"#\d+ '(?P<a2>\w+)'; but device (?P<d1>-?\d+) does not equal (?P<d2>-?\d+)"
       r"(?: \(while checking arguments for (?P<op>\w+)\))?")
def _rule_legacy_same_device(m: re.Match, _: str) -> dict:
    a, b = _legacy_device(m.group("d1")), _legacy_device(m.group("d2"))
    weights = a if m.group("a1") == "weight" else b if m.group("a2") == "weight" else None
    return _mixed((b, a), m.group("a1"), m.group("op"), odd_one=a, home=b, weights=weights)


@_rule(r"Placeholder storage has not been allocated on MPS device")
def _rule_mps_placeholder(m: re.Match, _: str) -> dict:
    result = _mixed(("mps", "cpu"), None, None, odd_one="cpu", home="mps")
    result["cause"] = ("an operation running on Apple's GPU (MPS) was given a tensor that is still on the CPU: "
                       "usually the input was not moved, or part of the model (a plain tensor attribute) was left "
                       "behind. This is MPS's wording of the cross-device error.")
    return result


_fixed(r"Expected a '(?P<want>\w+)' device type for generator but found '(?P<got>\w+)'",
    "generator-device", devices=("{want}", "{got}"),
    cause=("a random operation ran on {want} but was given a random-number generator on {got}. Typical cause: "
           "torch.set_default_device('{want}') (or `with torch.device(...)`) is in effect, and a DataLoader with "
           "shuffle=True (RandomSampler, randperm) or a torch.Generator() made elsewhere lives on {got}."),
    fix=("Pass a generator on the same device, e.g. DataLoader(..., generator=torch.Generator(device='{want}')), "
         "or avoid a global default device: create tensors with device= instead."),
)


@_rule(r"Tensors must be CUDA and dense|No backend type associated with device type \w+")
def _rule_collective(m: re.Match, message: str) -> dict:
    devices = tuple(dict.fromkeys(d.lower() for d in _DEVICE_TOKEN.findall(message))) or ("cpu",)
    return dict(
        is_device_error=True, kind="collective-device", devices=devices,
        cause=("a torch.distributed collective got a tensor on a device its backend does not serve: NCCL takes only "
               "CUDA tensors (on this process's GPU); gloo takes CPU tensors."),
        fix=("Move the tensor to this process's device first, t = t.to(torch.device('cuda', local_rank)), or "
             "initialise the process group with backend='gloo' for CPU tensors (or 'cpu:gloo,cuda:nccl' for both)."),
    )


@_rule(r"Expected all tensors to be on the same device")
def _rule_same_device_generic(m: re.Match, message: str) -> dict:
    # The full wordings are read above; this is what is left of them when a paste is cut short.
    devices = tuple(dict.fromkeys(d.lower() for d in _DEVICE_TOKEN.findall(message)))
    argument = re.search(r"(?:argument for argument|but got) (\w+)", message)
    if "index_select" in message or "embedding" in message.lower() or (argument and argument.group(1) == "index"):
        return _embedding_lookup(devices)
    return _mixed(devices, None, None)


def _embedding_lookup(devices: tuple[str, ...]) -> dict:
    """A cut-off message of an index_select, nn.Embedding's lookup: the token ids and the table disagree."""
    named = f" ({' and '.join(devices)})" if devices else ""
    return dict(
        is_device_error=True, kind="mixed-devices", devices=devices, argument="index", operator="index_select",
        cause=(f"nn.Embedding looks its rows up with index_select, and the token ids (the `index`) and the embedding "
               f"table (the layer's weight) are on different devices{named}: usually the model is on the GPU and the "
               "batch of token ids is still on the CPU."),
        fix=("Move the token ids to the embedding table's device: ids = ids.to(model.get_input_embeddings().weight.device) "
             "(or next(model.parameters()).device); with Hugging Face, inputs = tokenizer(..., return_tensors='pt')"
             ".to(model.device). " + _FIND),
    )


@_rule(r"Expected object of type torch\.(?P<t1>[\w.]+) but found type torch\.(?P<t2>[\w.]+) "
       r"for argument #\d+ '(?P<arg>\w+)'")
def _rule_legacy_type(m: re.Match, _: str) -> dict | None:
    want, got = _type_device(m.group("t1")), _type_device(m.group("t2"))
    if want == got:
        return None  # a dtype mismatch such as FloatTensor vs LongTensor, not a device one
    arg = m.group("arg")
    result = _mixed((want, got), arg, None, odd_one=got, home=want)
    result["cause"] += (" (This is the wording of PyTorch 0.4 and 1.0, which named devices through tensor types: "
                        "torch.cuda.LongTensor is a CUDA tensor, torch.LongTensor a CPU one.)")
    return result


@_rule(r"Expected object of device type (?P<want>\w+) but got device type (?P<got>\w+) "
       r"for argument #\d+ '(?P<arg>\w+)'(?: in call to (?P<op>\w+))?")
def _rule_legacy_device_type(m: re.Match, _: str) -> dict:
    arg = m.group("arg")
    return _mixed((m.group("want"), m.group("got")), arg, m.group("op"), odd_one=m.group("got"), home=m.group("want"))


@_rule(r"Input type \((?P<t1>[\w.]+)\) and (?P<what>weight|bias) type \((?P<t2>[\w.]+)\) should be the same")
def _rule_conv_types(m: re.Match, _: str) -> dict | None:
    a, b = _type_device(m.group("t1")), _type_device(m.group("t2"))
    if a == b:
        return None  # same device: the types differ in dtype, not device
    what = m.group("what")
    result = _mixed((a, b), "input", "convolution", odd_one=a, home=b, weights=b)
    result["cause"] = (f"the input is a {m.group('t1')} ({a}) but the module's {what} is a {m.group('t2')} ({b}): "
                       f"the convolution reports a device mismatch as a type mismatch. So the module's weights are on {b} "
                       f"and its input on {a}.")
    dtypes = _type_dtype(m.group("t1")), _type_dtype(m.group("t2"))
    if dtypes[0] != dtypes[1]:  # e.g. a half-precision model on the GPU, a float32 input on the CPU
        result["cause"] += f" Their dtypes differ too ({dtypes[0]} and {dtypes[1]})."
        result["fix"] = result["fix"].replace(f"x = x.to('{b}')", f"x = x.to('{b}', dtype=torch.{dtypes[1].lower()})"
                                              if dtypes[1] in ("Half", "Float", "Double", "BFloat16") else f"x = x.to('{b}')", 1)
    return result


_fixed(rf"indices should be either on \w+ or on the same device as the indexed tensor \((?P<home>{_DEV})\)",
    "index-device", flags=re.IGNORECASE, devices=("{home}",), argument="indices", operator="index",
    cause=("the index tensor is on a device that is neither the CPU nor the indexed tensor's device ({home}). "
           "Indices may live on the CPU or on the indexed tensor's device; an index on an accelerator (CUDA, "
           "MPS) into a CPU tensor is not allowed."),
    fix="Move the index to the indexed tensor's device: table[idx.to('{home}')].",
)


_fixed(r"Attempting to deserialize object on a (?P<backend>[A-Za-z0-9]+) device but torch\.\w+\.is_available\(\) is False",
    "checkpoint-device-unavailable", devices=("{backend!l}",),
    cause=("the checkpoint was saved from tensors on {backend!u}, and torch.load puts every tensor back on "
           "the device it was saved from, but this machine has no usable {backend!u} device."),
    fix="Tell torch.load where to put the tensors: torch.load(path, map_location='cpu') (or your device).",
)


_fixed(r"Attempting to deserialize object on (?P<backend>[A-Za-z0-9]+) device (?P<index>\d+) but "
       r"torch\.\w+\.device_count\(\) is (?P<count>\d+)",
    "checkpoint-device-unavailable", devices=("{backend!l}:{index}",),
    cause=("the checkpoint holds tensors saved from {backend!l}:{index}, and torch.load restores them there, but "
           "this machine has only {count} {backend!u} device(s)."),
    fix=("torch.load(path, map_location='{backend!l}:0') (or 'cpu'), or a dict such as "
         "map_location={{'{backend!l}:{index}': '{backend!l}:0'}}."),
)


_fixed(r"The (?P<backend>[A-Za-z0-9]+) device module is not registered",
    "checkpoint-device-unavailable", devices=("{backend!l}",),
    cause="the checkpoint was saved from a {backend!u} device, which this PyTorch does not support.",
    fix="torch.load(path, map_location='cpu').",
)


_fixed(r"Torch not compiled with CUDA enabled|(?:PyTorch|Torch) (?:was )?compiled without CUDA support",
    "cuda-not-compiled", devices=("cuda",),
    cause=("this PyTorch is a CPU-only build: it cannot use CUDA at all, whatever GPU the machine has. "
           "Something asked for CUDA: .cuda(), device='cuda', torch.cuda.current_device(), ..."),
    fix=("Write device-agnostic code: device = torch.device('cuda' if torch.cuda.is_available() else 'cpu'). "
         "To use an NVIDIA GPU, install a CUDA build of torch (pytorch.org/get-started)."),
)


_fixed(r"Found no NVIDIA driver on your system",
    "no-cuda-driver", devices=("cuda",),
    cause="this PyTorch is built for CUDA, but no NVIDIA driver is installed (or no GPU is present).",
    fix=("Check `nvidia-smi`. Without a GPU, write device-agnostic code: "
         "torch.device('cuda' if torch.cuda.is_available() else 'cpu')."),
)


_fixed(r"Cannot access accelerator device when none is available",
    "no-accelerator",
    cause="the code asked for an accelerator device (such as .cuda(1)), and this machine has none.",
    fix="Ask torch.accelerator.is_available() (or torch.cuda.is_available()) first, and fall back to 'cpu'.",
)


_fixed(r"invalid device ordinal|Invalid device id",
    "invalid-device-ordinal", flags=re.IGNORECASE,
    cause=("a device index past the last visible GPU, such as a hard-coded 'cuda:1' on a one-GPU machine "
           "(CUDA_VISIBLE_DEVICES renumbers the visible GPUs from 0)."),
    fix=("Do not hard-code indices: use torch.device('cuda') (the current device), or check "
         "index < torch.cuda.device_count() first."),
)


_fixed(r"Invalid device string: '\w+:-?\d*'|Device index must be -1 or non-negative",
    "invalid-device-ordinal",
    cause="the device string has an index that cannot exist (negative or malformed).",
    fix="Write 'cuda' for the current device or 'cuda:N' with 0 <= N < torch.cuda.device_count().",
)


_fixed(rf"can't convert (?P<device>{_DEV}) (?:device type )?tensor to numpy",
    "numpy-needs-cpu", devices=("{device!l}",),  # PyTorch 1.x said "can't convert CUDA tensor to numpy"
    cause="NumPy arrays live in host (CPU) memory; the tensor is on {device!l}, so .numpy() cannot share it.",
    fix="Copy it to the CPU first: t.detach().cpu().numpy() (detach() too if it requires grad).",
)


_fixed(r"Cannot copy out of meta tensor|cannot be called on meta tensors",
    "meta-has-no-data", devices=("meta",),
    cause="a meta tensor has a shape and a dtype but no data, so there is nothing to copy or read.",
    fix=("Build the tensor on a real device (or materialise a meta model with model.to_empty(device=...) "
         "and then initialise or load its weights)."),
)


_fixed(r"'(?P<cls>\w+)' object has no attribute 'device'",
    "no-device-attribute",
    cause=("a {cls} object has no .device. An nn.Module has no single device (its parameters each have one); "
           "lists, tuples and dicts have none either."),
    fix=("For a model, ask a parameter: next(model.parameters()).device; for a container, ask the tensors in it. "
         "placement_report(model) shows every tensor of a model and its device."),
)


_fixed(r"'(?P<cls>\w+)' object has no attribute 'is_cuda'",
    "device-of-needs-tensor",
    cause=("torch.cuda.device_of accepts a tensor or a storage (it reads obj.is_cuda); a {cls} has no is_cuda. "
           "An nn.Module in particular is not accepted."),
    fix=("Pass a tensor: torch.cuda.device_of(next(model.parameters())), or use "
         "torch.cuda.device(module_device(model)) from course_utils.placement."),
)


@_rule(r"to\(\) received an invalid combination of arguments - got \((?P<got>[^)]*)\)")
def _rule_to_with_context_manager(m: re.Match, _: str) -> dict | None:
    got = m.group("got")
    if "device_of" not in got and not re.search(r"\bdevice\b", got):
        return None
    return dict(
        is_device_error=True, kind="not-a-device", devices=(),
        cause=(f".to() was given a {got.split(',')[0].strip()} object. torch.cuda.device_of(...) and "
               "torch.cuda.device(...) are context managers that change the current CUDA device; they are not "
               "devices and cannot say where to move a tensor."),
        fix="Pass a device: t1.to(t2.device) moves t1 to wherever t2 lives.",
    )


_fixed(rf"Expected a cuda device, but got: (?P<device>{_DEV})",
    "not-a-cuda-device", devices=("{device}",),
    cause="a torch.cuda function (such as torch.cuda.device) was given {device}, which is not a CUDA device.",
    fix="Give it a CUDA device or index; for device-agnostic code, use contextlib.nullcontext() off CUDA.",
)


_fixed(r"Expected one of [\w, ]+ device type at start of device string: (?P<name>\S+)",
    "bad-device-string",
    cause="'{name}' is not a device type PyTorch knows.",
    fix="Use 'cpu', 'cuda', 'cuda:0', 'mps' or 'meta' (NVIDIA GPUs are 'cuda', never 'gpu').",
)


# The messages below are not about where a tensor is but about what a device did: a forked worker
# that touched CUDA, a kernel's assertion reported later, memory running out. Learners meet them in
# the training loop (notebook 05's clinic names them); the test corpus holds their real texts.


@_rule(r"Cannot re-initialize (?P<backend>CUDA|XPU|MTIA) in forked subprocess")
def _rule_forked_subprocess(m: re.Match, _: str) -> dict:
    # torch/cuda/__init__.py's _lazy_init raises this in a child forked after the parent had
    # initialised CUDA: a fork copies the parent's memory but not its CUDA context.
    backend = m.group("backend").lower()
    return dict(
        is_device_error=True, kind="forked-subprocess", devices=(backend,),
        cause=(f"this process is a fork of one that had already started {m.group('backend')}, and a forked child "
               f"cannot start it again: the fork copied the parent's memory but not its {m.group('backend')} "
               "context. Usually a DataLoader worker (num_workers > 0 forks on Linux with Python 3.13 and older; 3.14 "
               "starts them with forkserver) whose Dataset or collate_fn calls .cuda() / .to('cuda'), or a "
               "multiprocessing.Pool or Process doing the same."),
        fix=("Keep CUDA out of the workers: let the Dataset return CPU tensors and move each batch in the training "
             "loop (x = x.to(device, non_blocking=True), with DataLoader(..., pin_memory=True)). If a worker really "
             "must use the GPU, start workers with spawn: DataLoader(..., multiprocessing_context='spawn'), or "
             "torch.multiprocessing.set_start_method('spawn') under if __name__ == '__main__':."),
    )


@_rule(r"device-side assert triggered")
def _rule_device_side_assert(m: re.Match, _: str) -> dict:
    # "CUDA error: " + the CUDA runtime's text for cudaErrorAssert, then the tail of
    # c10/cuda/CUDAMiscFunctions.cpp saying the error may be reported at a later call and naming
    # CUDA_LAUNCH_BLOCKING=1. A device-side assert is an asynchronous kernel error, so it carries the
    # tail in every release (see _rule_reported_late for which errors do).
    return dict(
        is_device_error=True, kind="device-side-assert", devices=("cuda",),
        cause=("an assertion failed inside a CUDA kernel, almost always an index out of range: a class label "
               "< 0 or >= the number of classes in cross_entropy / nll_loss, a token id >= num_embeddings in "
               "nn.Embedding, an index past the end in indexing or gather. Kernels run asynchronously, so the "
               "error is reported at a later call, and the line in the traceback may be innocent. The CUDA "
               "context is now unusable: every later CUDA call in this process fails the same way."),
        fix=("Restart the kernel (nothing on the GPU works until you do). Then find the line: run with "
             "CUDA_LAUNCH_BLOCKING=1 set before CUDA starts (in the shell, or os.environ at the very top) so the "
             "error is raised where the kernel was launched, or run the same step on the CPU, where the same bug "
             "raises at once with a clear message (e.g. 'Target 7 is out of bounds.'). Then check the values: "
             "0 <= y.min() and y.max() < num_classes."),
    )


@_rule(r"CUDA kernel errors might be asynchronously reported")
def _rule_reported_late(m: re.Match, message: str) -> dict:
    # c10/cuda/CUDAMiscFunctions.cpp adds this tail (unless CUDA_LAUNCH_BLOCKING=1): in 2.7.1-2.12.0 to
    # every CUDA error (get_cuda_check_suffix); from 2.13 only to asynchronous kernel errors, codes 700,
    # 710, 715, 716 and 719 (get_cuda_async_error_suffix). The rules above name the common ones.
    first = message.strip().splitlines()[0] if message.strip() else ""
    return dict(
        is_device_error=True, kind="cuda-error-reported-late", devices=("cuda",),
        cause=(f"a CUDA call failed ({first}). Kernels run asynchronously, so the error may belong to an earlier "
               "kernel than the line in the traceback, and the CUDA context may now be unusable."),
        fix=("Restart the kernel, then rerun with CUDA_LAUNCH_BLOCKING=1 (set before CUDA starts) so the error is "
             "raised at the call that caused it, or run the same step on the CPU for a clear message."),
    )


def _gib(nbytes: str) -> str:
    """'4398046511104' -> '4096.0 GiB': the CPU allocator's byte count, readable."""
    return f"{int(nbytes) / 2**30:.1f} GiB"


@_rule(r"CUDA out of memory|OutOfMemoryError")
def _rule_out_of_memory(m: re.Match, message: str) -> dict:
    # c10/cuda/CUDACachingAllocator.cpp: "CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a
    # total capacity of ..." (older releases: "(GPU 0; 15.78 GiB total capacity; ...)").
    gpu = re.search(r"GPU (\d+)", message)
    size = re.search(r"Tried to allocate (\d[\d.]* ?[KMGTP]?i?B)", message)
    asked = f" (this allocation: {size.group(1)})" if size else ""
    return dict(
        is_device_error=True, kind="out-of-memory", devices=(f"cuda:{gpu.group(1)}",) if gpu else ("cuda",),
        cause=(f"the GPU has no room for a new allocation{asked}: the tensors alive now (model, gradients, "
               "optimizer state, activations kept for backward, anything a variable still references), plus "
               "other processes on the same GPU, fill its memory. It is not a placement mistake, unless "
               "everything went to one GPU by accident (e.g. cuda:0 in every process)."),
        fix=("Use a smaller batch, free what you no longer need (del t), wrap evaluation in torch.no_grad(), "
             "accumulate loss.item() rather than the loss tensor (which keeps its graph), and check nvidia-smi "
             "for other processes. torch.cuda.empty_cache() only returns cached blocks, not live tensors: after "
             "del, memory_allocated() falls at once and empty_cache() lowers memory_reserved(). "
             "torch.cuda.max_memory_allocated() and torch.cuda.memory_summary() show the peak."),
    )


@_rule(r"DefaultCPUAllocator: (?:can't allocate memory|not enough memory): you tried to allocate (?P<nbytes>\d+) bytes")
def _rule_cpu_out_of_memory(m: re.Match, _: str) -> dict:
    # c10/core/impl/alloc_cpu.cpp: the host allocator's refusal (posix_memalign failed, or malloc returned NULL).
    return dict(
        is_device_error=True, kind="out-of-memory", devices=("cpu",),
        cause=(f"the host (CPU) memory allocator could not get {_gib(m.group('nbytes'))} from the operating system. "
               "Far more than the machine has usually means a wrong shape (a size multiplied in twice, an "
               "outer product of two long vectors); close to it means the data itself does not fit."),
        fix=("Check the shape you asked for (print it before allocating). If it is right: work in chunks or "
             "smaller batches, use a smaller dtype, and del tensors you no longer need."),
    )


# --------------------------------------------------------------------------- the IPython extension
# IPython has one custom exception handler per shell; course_utils.tracebacks owns it and calls
# this extension after each traceback, so `%load_ext course_utils.tracebacks` (frames inside torch
# folded away) and this one compose, loaded or unloaded in either order.

_NAME = "course_utils.errors"
WATCHED = (RuntimeError, AssertionError, TypeError, AttributeError, ValueError, NotImplementedError)


def _explain_under(shell, etype, value, tb) -> None:
    """Under the traceback of a device error only, its explanation."""
    if not isinstance(value, WATCHED):
        return
    explanation = explain_device_error(value)
    if explanation.is_device_error:
        data, metadata = shell.display_formatter.format(explanation)
        shell.display_pub.publish(data=data, metadata=metadata)


def load_ipython_extension(ipython) -> None:
    """``%load_ext course_utils.errors``: explain device errors under their tracebacks."""
    add_after_traceback(ipython, _NAME, _explain_under)


def unload_ipython_extension(ipython) -> None:
    """``%unload_ext course_utils.errors``: restore the exception handling that was there before."""
    remove_after_traceback(ipython, _NAME)
