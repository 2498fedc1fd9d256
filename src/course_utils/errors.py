"""Cross-device errors: what a message means and what to change, in a notebook as they happen.

Lesson: notebook 05 (the cross-device error clinic); notebook 07 uses it on the old messages
the source articles quote.

- ``explain_device_error(exc_or_message)`` reads a real PyTorch error (the exception, or just its
  message) and says which devices are involved, why it happened and what to change. What it knows
  is a table, ``course_utils.error_families.FAMILIES``: one row per family of message (PyTorch
  0.4 to 2.14, Apple's MPS, ROCm, XPU, torch.compile, autocast, DDP and NCCL, and the libraries
  around PyTorch: Hugging Face, bitsandbytes, vLLM, Lightning, Ultralytics, Diffusers), from which
  docs/error-messages.md is generated. This module is the engine that reads it.
- A message no row matches but that names a device or a device backend (``cuda:1``, ``mps``,
  ``device(type='cpu')``, ``torch.cuda.FloatTensor``, CUDA, ROCm, NCCL, cuDNN, GPU, ...) is never
  called "not a device error": the explanation says no family matched, names what it found, what
  that usually means and what to check first. Only a message that names no device is "not a device
  error"; look-alikes (shapes, dtypes, autograd, loading) that name one say what they are about.
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
from dataclasses import dataclass, replace

from course_utils.display import INFO, LINE_BREAK, MUTED, card, joined, markup, tag
from course_utils.error_families import (
    ARGUMENT_HINTS,
    DEVICE_REPR,
    DEVICE_STRING,
    FAMILIES,
    MENTIONS,
    OPERATOR_HINTS,
    TWO_GPUS,
    Family,
)
from course_utils.tracebacks import add_after_traceback, remove_after_traceback

_FIND = "find_device_mismatches(model, x) lists every culprit before the forward pass."
_WHICH_SIDE = (
    "Which side is wrong? print(next(model.parameters()).device, x.device): the model's weights left on "
    "the CPU mean a forgotten model.to(device) (for a module .to() works in place); an input or a tensor "
    "made inside forward() on the CPU means x = x.to(device) was not assigned, or device=x.device is "
    "missing."
)


@dataclass(frozen=True)
class DeviceErrorExplanation:
    """What a PyTorch error message means for device placement; end a notebook cell on it."""

    is_device_error: bool
    kind: str  # "mixed-devices", "index-device", ..., "unrecognised-device-message", "dtype", "not-a-device-error"
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
            if self.devices:  # a look-alike that names a device: say what it is about, never "not a device error"
                lines.append(f"  Names {', '.join(self.devices)}, but the problem is not where tensors are ({self.kind}): {self.cause}")
                lines.append(f"  Fix: {self.fix}")
            else:
                lines.append(f"  Not a device error: {self.cause}")
            return "\n".join(lines)
        lines.append(f"  Device error ({self.kind}); devices: {', '.join(self.devices) or 'not named'}")
        if self.operator or self.argument:
            where = " ".join(
                p for p in (f"operation {self.operator}" if self.operator else "", f"argument {self.argument}" if self.argument else "") if p
            )
            lines.append(f"  Where: {where}")
        lines.append(f"  Why: {self.cause}")
        lines.append(f"  Fix: {self.fix}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return str(self)

    def _repr_html_(self) -> str:
        message = tag("code", self.first_line)
        if not self.is_device_error:
            if self.devices:
                named = joined(tag("code", d) for d in self.devices)
                return card(
                    MUTED,
                    f"Not where tensors are ({self.kind}).",
                    " ",
                    message,
                    LINE_BREAK,
                    "Names ",
                    named,
                    f", but: {self.cause}",
                    LINE_BREAK,
                    tag("b", "Fix:"),
                    f" {self.fix}",
                )
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
            INFO,
            "Device error",
            f" ({self.kind}): ",
            message,
            LINE_BREAK,
            tag("b", "Devices:"),
            " ",
            devices,
            *where,
            LINE_BREAK,
            tag("b", "Why:"),
            f" {self.cause}",
            LINE_BREAK,
            tag("b", "Fix:"),
            f" {self.fix}",
        )


def explain_device_error(error: BaseException | str) -> DeviceErrorExplanation:
    """Explain a PyTorch error (an exception or its message) in terms of devices.

    Tries the families of ``course_utils.error_families`` in order; a message none matches is
    explained from the devices and backends it names, or, naming none, said not to be a device error.
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
    for family in FAMILIES:  # the first row whose pattern is found (and whose reader accepts it) explains
        match = family.regex.search(message)
        if not match:
            continue
        result = READERS[family.reader](match, message, family) if family.reader else _filled(match, message, family)
        if result is None:
            continue
        if isinstance(result, DeviceErrorExplanation):  # a wrapper explained the error it carries
            return replace(result, message=message, error_type=type_name)
        if result["kind"] == "mixed-devices" and isinstance(error, BaseException):
            result = _with_module_from_traceback(error, result)
        return DeviceErrorExplanation(message=message, error_type=type_name, **result)
    return DeviceErrorExplanation(message=message, error_type=type_name, **_unrecognised(message))


# --------------------------------------------------------------------------- filling a row's templates


class _Fill(string.Formatter):
    """str.format with two more conversions for a message's names: ``{name!l}`` lower-case, ``{name!u}`` upper."""

    def convert_field(self, value, conversion):
        if conversion == "l":
            return str(value).lower()
        if conversion == "u":
            return str(value).upper()
        return super().convert_field(value, conversion)


_FILL = _Fill()


def _values(m: re.Match, message: str, family: Family) -> dict[str, str] | None:
    """What a row's templates may use: its groups ("" where one did not match), ``first_line``, the
    ``alias`` roles (the first of several groups that matched) and what a ``compute`` role works out.
    None when the compute role rejects the match (the next row is tried)."""
    text = message.strip()
    values = {k: v or "" for k, v in m.groupdict().items()}
    values["first_line"] = text.splitlines()[0] if text else ""
    for name, groups in family.roles.get("alias", {}).items():
        values[name] = next((values[g] for g in groups if values.get(g)), "")
    compute = family.roles.get("compute")
    if compute:
        extra = COMPUTE[compute](values, message)
        if extra is None:
            return None
        values.update(extra)
    return values


def _fill(template: str, values: dict[str, str]) -> str:
    return _FILL.format(template, **values)


def _filled(m: re.Match, message: str, family: Family) -> dict | None:
    """The explanation a row states in its own words, its templates filled from the match."""
    values = _values(m, message, family)
    if values is None:
        return None
    roles = family.roles
    if family.devices == ("*",):  # whatever the message (or the group named by ``within``) names
        devices = _named(values.get(roles.get("within", ""), message) or message)[0] or roles.get("fallback", ())
    else:
        devices = tuple(d for d in (_fill(t, values) for t in family.devices) if d)
    if not family.device_error:  # a look-alike keeps what the message names, so it is never "not a device error"
        named = _named(message)
        devices = named[0] or named[1]
    return dict(
        is_device_error=family.device_error,
        kind=family.kind,
        devices=devices,
        cause=_fill(family.cause, values),
        fix=_fill(family.fix, values),
        argument=_role(m, roles.get("argument")),
        operator=_op_name(_role(m, roles.get("operator"))),
    )


# --------------------------------------------------------------------------- what a message names


def _named(message: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(the devices a message names, in order, e.g. ('cuda:0', 'cpu'); the backends it names, e.g. ('CUDA', 'NCCL'))."""
    found: list[tuple[int, str]] = []
    for m in DEVICE_REPR.finditer(message):
        found.append((m.start(), m["type"] + (f":{m['index']}" if m["index"] else "")))
    for m in DEVICE_STRING.finditer(message):
        found.append((m.start(), m["type"].lower() + (f":{m['index']}" if m["index"] else "")))
    for m in re.finditer(_LEGACY_TYPE, message):
        found.append((m.start(), _type_device(m.group(0))))
    devices = tuple(dict.fromkeys(d for _, d in sorted(found)))
    indexed = {d.split(":")[0] for d in devices if ":" in d}
    devices = tuple(d for d in devices if d not in indexed)  # 'CUDA ... cuda:1' names one device, cuda:1
    backends = tuple(m.label for m in MENTIONS if re.search(m.pattern, message, m.flags))
    return devices, backends


# Legacy tensor type names: torch.cuda.FloatTensor, torch.FloatTensor (the CPU), CUDAIntTensor, CPUFloatType, MPSFloatType
_LEGACY_TYPE = (
    r"torch\.(?:(?:cuda|xpu|mps)\.)?(?:Float|Double|Half|BFloat16|Long|Int|Short|Char|Byte|Bool)Tensor\b"
    r"|\b(?:CUDA|CPU|MPS|XPU|HIP|Meta)(?:Float|Double|Half|BFloat16|Long|Int|Short|Char|Byte|Bool|Complex\w*)(?:Type|Tensor)\b"
)


def _unrecognised(message: str) -> dict:
    """No row matched: honest about it, and still useful when the message names a device or a backend."""
    devices, backends = _named(message)
    if not devices and not backends:
        return dict(
            is_device_error=False,
            kind="not-a-device-error",
            devices=(),
            fix="",
            cause="this message does not say anything about devices, so moving tensors will not fix it. "
            "Read it for shapes, dtypes or arguments instead.",
        )
    mentioned = [m for m in MENTIONS if m.label in backends]
    names = ", ".join(dict.fromkeys([*devices, *(m.label for m in mentioned if m.label.lower() not in {d.split(":")[0] for d in devices})]))
    cause = (
        f"none of the device-error families the explainer knows matches this wording, but the message names "
        f"{names}: " + "; ".join(f"{m.label} is {m.means}" for m in mentioned) + "."
    )
    if len({d for d in devices}) >= 2:
        cause += (
            f" A message naming two devices ({devices[0]} and {devices[1]}) is most often about tensors of one operation on different devices."
        )
    cause += " The explainer does not guess the cause beyond that."
    fix = "Check first: " + "; ".join(m.check for m in mentioned) + "."
    if len(devices) >= 2:
        fix += " " + _WHICH_SIDE + " " + _FIND
    return dict(is_device_error=True, kind="unrecognised-device-message", devices=devices, cause=cause, fix=fix)


# --------------------------------------------------------------------------- two devices: which side moves


def _is_accelerator(device: str | None) -> bool:
    return bool(device) and device.split(":")[0] not in ("cpu", "meta")


def _hint(argument: str | None, operator: str | None = None) -> str:
    for ops, hints in OPERATOR_HINTS:  # what the argument is in the operation the message names, where it says
        if operator and argument in hints and re.search(ops, operator):
            return f" ({hints[argument]})"
    return f" ({ARGUMENT_HINTS[argument]})" if argument in ARGUMENT_HINTS else ""


_SAME_DEVICE = "An operation runs on one device, and PyTorch never moves data between devices for you."


def _mixed(
    devices: tuple[str, ...],
    argument: str | None = None,
    operator: str | None = None,
    odd_one: str | None = None,
    home: str | None = None,
    weights: str | None = None,
) -> dict:
    """The explanation of the "same device" family, in one place.

    ``weights`` is the device of the module's weights, where the operation tells it (addmm's mat2,
    a convolution's weight). The fix keeps the work on the accelerator: the input goes to a model on
    an accelerator; a model left on the CPU goes to its input's accelerator (a forgotten
    ``model.to(device)``); never everything to the CPU.
    """
    if weights is not None:
        return _mixed_with_weights(devices, weights, argument, operator, odd_one, home)
    same = _SAME_DEVICE
    if odd_one and home:
        who = f"`{argument}`{_hint(argument, operator)}" if argument else "one tensor"
        cause = (
            f"{who} is on {odd_one}, but the other tensors of this operation{' (' + operator + ')' if operator else ''} are on {home}. {same}"
        )
        name = f"`{argument}`" if argument else f"the tensor on {odd_one}"
        if _is_accelerator(odd_one) and not _is_accelerator(home):
            move = (
                f"Put every tensor of this operation on one device, the accelerator: move the others to {odd_one} "
                f"(x = x.to('{odd_one}'), or model.to('{odd_one}') if they are the model's); move {name} to "
                f"{home} only if you meant to run there. "
            )
        else:
            move = f"Put every tensor of this operation on one device: move {name} with .to('{home}'). "
    else:
        cause = (
            "the operation" + (f" {operator}" if operator else "") + " got tensors on " + " and ".join(devices or ("two devices",)) + f". {same}"
        )
        accelerators = [d for d in devices if _is_accelerator(d)]
        target = accelerators[0] if accelerators else (devices[0] if devices else "one device")
        where = "one GPU" if len(accelerators) > 1 else "normally the accelerator"
        move = f"Put every tensor of this operation on one device, {where}: .to('{target}'). "
    two_gpus = len({d for d in devices if _is_accelerator(d)}) > 1
    fix = move + (TWO_GPUS if two_gpus else _WHICH_SIDE) + " " + _FIND
    return dict(is_device_error=True, kind="mixed-devices", devices=devices, cause=cause, fix=fix, argument=argument, operator=operator)


def _mixed_with_weights(
    devices: tuple[str, ...], weights: str, argument: str | None, operator: str | None, odd_one: str | None, home: str | None
) -> dict:
    """``_mixed`` where the operation tells the module's weights from its input: move the one that is off the accelerator."""
    same = _SAME_DEVICE
    data = next((d for d in devices if d != weights), home if odd_one == weights else odd_one)
    where = f" of {operator}" if operator else ""
    if argument and odd_one and home:
        lead = (
            f"`{argument}`{_hint(argument, operator)} is on {odd_one}, the other tensors{where} on {home}: the "
            f"module's weights are on {weights} and its input on {data}"
        )
    else:
        lead = f"the module's weights are on {weights} and its input on {data}" + (f" (in {operator})" if operator else "")
    if not _is_accelerator(weights) and _is_accelerator(data):
        fix = (
            f"Move the model to the input's device: model.to('{data}') (in general model.to(device), done once "
            "before the loop; a module moves in place). The usual cause is a forgotten model.to(device), or a "
            f"layer created after it. Move the input to the CPU instead only if you meant to run on the CPU. {_FIND}"
        )
    else:
        fix = (
            f"Move the input to the model: x = x.to('{weights}'), or in general "
            "x = x.to(next(model.parameters()).device). Move the model instead only if you meant it to be on "
            f"{data}. " + _FIND
        )
    return dict(
        is_device_error=True, kind="mixed-devices", devices=devices, cause=f"{lead}. {same}", fix=fix, argument=argument, operator=operator
    )


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
        names = frame.f_code.co_varnames[1 : frame.f_code.co_argcount]
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
    if not raw.startswith("wrapper_"):
        return raw  # an operation's own name (_th_addmm, aten.mm.default)
    name = re.sub(r"^wrapper_(?:[A-Z][A-Za-z0-9]*_)?_?", "", raw)  # a dispatch key is capitalised: not nll_
    return name.lstrip("_") or raw


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


# --------------------------------------------------------------------------- the readers rows name


def _role(m: re.Match, spec) -> str | None:
    """A role's value: the first of the named groups that matched; a spec naming no group is a literal ('mps')."""
    names = spec if isinstance(spec, tuple) else (spec,)
    for name in names:
        if name in m.re.groupindex and m.group(name) is not None:
            return m.group(name)
    return None if spec is None or any(n in m.re.groupindex for n in names) else spec


def _read_mixed(m: re.Match, message: str, family: Family) -> dict | None:
    """Two devices in one operation; ``roles`` say which group is which side."""
    roles, values = family.roles, _values(m, message, family)
    convert = {"legacy": _legacy_device, "type": _type_device}.get(roles.get("convert"), lambda d: d)
    if roles.get("devices") == "*":
        devices = _named(message)[0] or tuple(roles.get("fallback", ()))
        result = _mixed(devices)
    else:
        devices = tuple(convert(_role(m, d)) for d in roles["devices"])
        odd, home = convert(_role(m, roles["odd"])), convert(_role(m, roles["home"]))
        if odd == home:
            return None  # the same device on both sides: the message is about something else (a dtype, a layout)
        arg = _role(m, roles.get("arg"))
        op = _op_name(_role(m, roles.get("op")))
        weights = roles.get("weights")
        if roles.get("sides_only_with") and not values.get(roles["sides_only_with"]):
            odd = home = weights = None  # TensorIterator's wording names no argument: its order says nothing about sides
        elif weights == "infer":
            weights = _weights_device(op, arg, odd, home)
        elif weights == "mps-linear":  # MPS's Linear.mm: the argument on the CPU is the input, or the weight/bias
            weights = "mps" if arg == "input" else odd if arg in ("weight", "bias") else None
        elif weights == "named-weight":
            weights = odd if values.get("a1") == "weight" else home if values.get("a2") == "weight" else None
        elif weights is not None:
            weights = convert(_role(m, weights))
        result = _mixed(devices, arg, op, odd_one=odd, home=home, weights=weights)
    if family.cause:
        result["cause"] = _fill(family.cause, values)
    if family.fix:
        result["fix"] = _fill(family.fix, values)
    if roles.get("note") == "legacy-type":
        result["cause"] += (
            " (This is the wording of PyTorch 0.4 and 1.0, which named devices through tensor types: "
            "torch.cuda.LongTensor is a CUDA tensor, torch.LongTensor a CPU one.)"
        )
    return result


def _read_wrapped(m: re.Match, message: str, family: Family) -> DeviceErrorExplanation:
    """torch/_utils.py's ExceptionWrapper: the error to explain is the last line of the original traceback."""
    values, roles = _values(m, message, family), family.roles
    etype, where, advice = values["etype"], _fill(roles["where"], values), _fill(roles["advice"], values)
    device = _fill(roles.get("device", ""), values)
    rest = message[m.end() :].splitlines()
    lines = [i for i, line in enumerate(rest) if line.startswith(f"{etype}: ")]
    if lines:  # the original error's own message: its last line naming the caught type, to the end
        inner = explain_device_error("\n".join(rest[lines[-1] :])[len(etype) + 2 :])
        if not inner.is_device_error:
            return inner
        fix = f"{advice.strip()} {inner.fix}" if roles.get("advice_first") else inner.fix + advice
        return replace(inner, cause=f"in {where}: {inner.cause}", fix=fix)
    if not device:
        return DeviceErrorExplanation(
            is_device_error=False,
            kind="not-a-device-error",
            devices=(),
            message=message,
            fix="",
            cause=(
                f"this line only says that {where} raised a {etype}; the error itself is the last line under "
                "'Original Traceback'. Paste that to have it explained."
            ),
        )
    return DeviceErrorExplanation(
        is_device_error=True,
        kind=family.kind,
        devices=(device,),
        message=message,
        operator=roles.get("operator"),
        cause=_fill(family.cause, {**values, "where": where}) + advice,
        fix=_fill(family.fix, values) + advice,
    )


def _read_legacy_expected(m: re.Match, message: str, _: Family) -> dict | None:
    # TensorIterator's compute_types (PyTorch 1.1-1.4); index_put_ with accumulate=True on CUDA still says it
    want, got = _legacy_device(m.group("want")), _legacy_device(m.group("got"))
    if want == got:
        return None  # only the dtypes differ
    arg = "values" if m.group("value") else None
    return _mixed((want, got), arg, "index_put_" if arg else None, odd_one=got, home=want)


def _read_conv_types(m: re.Match, message: str, _: Family) -> dict | None:
    a, b = _type_device(m.group("t1")), _type_device(m.group("t2"))
    if a == b:
        return None  # same device: the types differ in dtype, not device
    what = m.group("what")
    result = _mixed((a, b), "input", "convolution", odd_one=a, home=b, weights=b)
    result["cause"] = (
        f"the input is a {m.group('t1')} ({a}) but the module's {what} is a {m.group('t2')} ({b}): "
        f"the convolution reports a device mismatch as a type mismatch. So the module's weights are on {b} "
        f"and its input on {a}."
    )
    dtypes = _type_dtype(m.group("t1")), _type_dtype(m.group("t2"))
    if dtypes[0] != dtypes[1]:  # e.g. a half-precision model on the GPU, a float32 input on the CPU
        result["cause"] += f" Their dtypes differ too ({dtypes[0]} and {dtypes[1]})."
        if dtypes[1] in ("Half", "Float", "Double", "BFloat16"):
            result["fix"] = result["fix"].replace(f"x = x.to('{b}')", f"x = x.to('{b}', dtype=torch.{dtypes[1].lower()})", 1)
    return result


# What a ``compute`` role works out from a match, for templates to use; None rejects the match.


def _pin_values(values: dict[str, str], _: str) -> dict | None:
    device = _type_device(values["type"]) if values["type"] else ""
    if device == "cpu":
        return None  # a sparse (or other layout) CPU tensor: a layout problem, not a device one
    return dict(pinned=device, where=f" is already on {device}" if device else " is not in CPU memory")


def _gpu_oom_values(values: dict[str, str], message: str) -> dict:
    # c10/cuda/CUDACachingAllocator.cpp: "CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has ..."; ROCm
    # builds say "HIP out of memory" (the message may start with "torch.OutOfMemoryError: ", so search again)
    backend = re.search(r"(CUDA|HIP|XPU) out of memory", message)
    name = backend.group(1) if backend else "CUDA"
    gpu, size = re.search(r"GPU (\d+)", message), re.search(r"Tried to allocate (\d[\d.]* ?[KMGTP]?i?B)", message)
    module = "xpu" if name == "XPU" else "cuda"  # ROCm's AMD GPUs are 'cuda' devices in PyTorch
    return dict(
        name=name,
        module=module,
        gpu=f"{module}:{gpu.group(1)}" if gpu else module,
        asked=f" (this allocation: {size.group(1)})" if size else "",
        tool={"HIP": "rocm-smi", "XPU": "xpu-smi"}.get(name, "nvidia-smi"),
    )


def _gpu_oom_beyond_values(values: dict[str, str], message: str) -> dict | None:
    """The OOM values when one allocation is larger than the whole GPU; else None (the plain OOM row explains)."""
    asked = re.search(r"Tried to allocate (\d[\d.]*) ([KMGT]i?B)", message)
    whole = re.search(r"total capaci?ty of (\d[\d.]*) ([KMGT]i?B)|(\d[\d.]*) ([KMGT]i?B) total capacity", message)
    size = asked.groups() if asked else ("0", "B")  # no figures: never 'larger than the GPU'
    total = [g for g in (whole.groups() if whole else ()) if g] or ["inf", "B"]
    if float(size[0]) * 1024 ** "BKMGT".index(size[1][0]) <= float(total[0]) * 1024 ** "BKMGT".index(total[1][0]):
        return None
    return {**_gpu_oom_values(values, message), "size": " ".join(size), "total": " ".join(total)}


def _capability_case(case: str):
    """A compute role for torch 2.8.0-2.10.0's range warning that accepts only one ``case`` of where the GPU falls
    (older than the list, a minor above its newest entry, a newer major) and names the archs for the row's text."""

    def values(found: dict[str, str], _: str) -> dict | None:
        cc, low, high = (tuple(int(p) for p in found[k].split(".")) for k in ("cc", "low", "high"))
        where = "older" if cc < low else "same-major" if cc[0] == high[0] else "newer"
        arch = "sm_{}{}".format
        return dict(cc_arch=arch(*cc), low_arch=arch(*low), high_arch=arch(*high), major=str(cc[0])) if where == case else None

    return values


def _cuda_builds_values(values: dict[str, str], _: str) -> dict:
    versions = values["builds"].split()
    tags = ["cu" + v.replace(".", "") for v in versions]
    return dict(builds=", ".join(versions), tag=tags[-1], tags=" or ".join(tags))


COMPUTE = {
    "cc_older": _capability_case("older"),
    "cc_same_major": _capability_case("same-major"),
    "cc_newer": _capability_case("newer"),
    "cuda_builds": _cuda_builds_values,
    "pin": _pin_values,
    "gpu_oom": _gpu_oom_values,
    "gpu_oom_beyond": _gpu_oom_beyond_values,
    "gib": lambda values, _: dict(gib=f"{int(values['nbytes']) / 2**30:.1f} GiB"),
}


READERS = {"mixed": _read_mixed, "wrapped": _read_wrapped, "legacy_expected": _read_legacy_expected, "conv_types": _read_conv_types}
_UNKNOWN = {f.reader for f in FAMILIES if f.reader} - READERS.keys()
if _UNKNOWN:  # a row naming a reader the engine lacks is a bug in the table: fail at import, not on a learner's error
    raise ImportError(f"course_utils.error_families names readers the engine does not have: {sorted(_UNKNOWN)}")


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
