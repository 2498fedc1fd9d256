"""Tensors on the wrong device: find them before the forward pass, and see what mixing devices returns.

Lesson: notebook 05 (the cross-device error clinic): part 11 (where ``meta`` does not behave like
CUDA) and part 12 (find the culprits first).

- ``find_device_mismatches(model, *inputs)`` lists every parameter, buffer, plain tensor attribute
  and input (inside tuples, lists and dicts too) that is not on the model's device, *before* the
  forward pass fails.
- ``try_mixed(label, action, reference)`` runs one mixed-device operation and says honestly what
  came back: an error, a ``meta`` result with no data, or values that are right or wrong.

Explaining the error message once it is raised is ``course_utils.errors``. Everything here runs
on a CPU-only machine; nothing changes where a tensor lives.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch
from torch import nn

from course_utils.devices import as_device, same_place
from course_utils.display import OK, PROBLEM, markup, table, tag
from course_utils.placement import placement_report

# --------------------------------------------------------------------------- finding mismatches


@dataclass(frozen=True)
class Mismatch:
    """One tensor that is not on the expected device, and what would move it."""

    name: str  # "encoder.weight", "scale", "input[0]", "input[1]['mask']"
    kind: str  # "parameter" | "buffer" | "attribute" | "input"
    device: str
    shape: tuple[int, ...]
    dtype: str
    fix: str

    @property
    def is_cpu_scalar(self) -> bool:
        """A 0-dim CPU tensor: elementwise ops accept it next to CUDA tensors, as a number."""
        return self.device == "cpu" and self.shape == ()


@dataclass(frozen=True)
class MismatchReport:
    """Every tensor of a model and its inputs that is not on the expected device."""

    expected: str
    basis: str  # why that device: "given", or "most parameters (3 of 4) are on cuda:0"
    checked: int  # how many tensors were looked at
    mismatches: tuple[Mismatch, ...]
    model_name: str = "model"

    @property
    def ok(self) -> bool:
        """True when every tensor is on the expected device."""
        return not self.mismatches

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(m.name for m in self.mismatches)

    def _headline(self) -> str:
        if self.ok:
            return f"all {self.checked} tensors are on {self.expected} ({self.basis})"
        n = len(self.mismatches)
        return f"{n} of {self.checked} tensors are NOT on {self.expected} ({self.basis})"

    def __str__(self) -> str:
        lines = [f"{self.model_name}: {self._headline()}"]
        width = max((len(m.name) for m in self.mismatches), default=0)
        for m in self.mismatches:
            note = "  (0-dim CPU: allowed as a scalar in elementwise ops)" if m.is_cpu_scalar else ""
            lines.append(f"  {m.name:<{width}}  {m.kind:<9}  on {m.device:<7}  fix: {m.fix}{note}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return str(self)

    def _repr_html_(self) -> str:
        head = tag("p", tag("b", self.model_name), ": ", tag("span", self._headline(), colour=OK if self.ok else PROBLEM))
        if self.ok:
            return head
        scalar_note = markup(" ", tag("i", "(0-dim CPU: allowed as a scalar in elementwise ops)"))
        rows = [
            (tag("code", m.name), m.kind, m.device, str(list(m.shape)), markup(tag("code", m.fix), scalar_note if m.is_cpu_scalar else ""))
            for m in self.mismatches
        ]
        return markup(head, table(rows, head=("name", "kind", "device", "shape", "fix")))


def find_device_mismatches(model: nn.Module, *inputs: Any, expected: str | torch.device | None = None) -> MismatchReport:
    """List every parameter, buffer, tensor attribute and input not on ``expected``, before running the model.

    ``expected`` defaults to the device most of the model's parameters live on (buffers if it has
    no parameters). Inputs may be tensors or tuples, lists and dicts of them, nested; anything else
    in them is ignored. A name without an index (``"cuda"``) matches every index of that type.
    """
    if not isinstance(model, nn.Module):
        tip = " Pass the model first, then its inputs." if isinstance(model, torch.Tensor) else ""
        raise TypeError(
            f"find_device_mismatches expects an nn.Module as its first argument, got a {type(model).__name__}.{tip} "
            "Example: find_device_mismatches(model, x)."
        )
    report = placement_report(model)
    if expected is None:
        target, basis = _majority_device(report, type(model).__name__)
    else:
        target, basis = as_device(expected, "find_device_mismatches(expected=...)"), "given"

    found_inputs = []
    for i, value in enumerate(inputs):
        found_inputs += _tensors_in(value, f"input[{i}]")

    mismatches = []
    for e in report.entries:
        if not same_place(torch.device(e.device), target):
            mismatches.append(Mismatch(e.name, e.kind, e.device, e.shape, e.dtype, _fix_for(e.kind, e.name, target)))
    for name, t in found_inputs:
        if not same_place(t.device, target):
            mismatches.append(
                Mismatch(name, "input", str(t.device), tuple(t.shape), str(t.dtype).removeprefix("torch."), _fix_for("input", name, target))
            )
    return MismatchReport(
        expected=str(target),
        basis=basis,
        checked=len(report.entries) + len(found_inputs),
        mismatches=tuple(mismatches),
        model_name=type(model).__name__,
    )


def _majority_device(report, name: str) -> tuple[torch.device, str]:
    for kind, pool in (("parameters", report.parameters), ("buffers", report.buffers)):
        if pool:
            counts = Counter(e.device for e in pool)
            top = max(counts.values())
            # ties go to the device of the first such tensor, in named_parameters() order
            device = next(e.device for e in pool if counts[e.device] == top)
            basis = f"most {kind} ({top} of {len(pool)}) are on {device}"
            if list(counts.values()).count(top) > 1:
                basis = f"{kind} are split evenly; chose {device}, the first one's device: pass expected= to choose"
            return torch.device(device), basis
    raise ValueError(
        f"{name} has no parameters or buffers, so it has no device to compare with. "
        "Pass the device you mean: find_device_mismatches(model, x, expected='cuda:0')."
    )


def _tensors_in(value: Any, name: str, depth: int = 0) -> list[tuple[str, torch.Tensor]]:
    if isinstance(value, torch.Tensor):
        return [(name, value)]
    if depth > 20:  # a self-referencing container; stop rather than recurse forever
        return []
    if isinstance(value, (list, tuple)):
        return [pair for i, v in enumerate(value) for pair in _tensors_in(v, f"{name}[{i}]", depth + 1)]
    if isinstance(value, dict):
        return [pair for k, v in value.items() for pair in _tensors_in(v, f"{name}[{k!r}]", depth + 1)]
    return []


def _fix_for(kind: str, name: str, target: torch.device) -> str:
    if kind == "input":
        return f"{name}.to('{target}')"
    if kind == "attribute":
        short = name.rsplit(".", 1)[-1].split("[", 1)[0]
        return f"register it: self.register_buffer('{short}', tensor), so model.to() moves it (or create it in forward() with device=x.device)"
    return f"model.to('{target}')"


# --------------------------------------------------------------------------- what a mixed operation really does


@dataclass(frozen=True)
class MixedOutcome:
    """What one operation on tensors from two devices did, checked against the right answer."""

    label: str
    outcome: str  # "raised" | "meta result" | "wrong values" | "right values"
    device: str | None  # the result's device; None when it raised
    detail: str  # the error message, or what came back

    @property
    def raised(self) -> bool:
        return self.outcome == "raised"

    def __str__(self) -> str:
        return f"{self.label}: {self.outcome.upper()} ({self.detail})"

    def __repr__(self) -> str:
        return str(self)

    def _repr_html_(self) -> str:
        # raising (as CUDA would) and the right values are the honest outcomes; the rest hide a bug
        tone = OK if self.outcome in ("raised", "right values") else PROBLEM
        return tag("p", tag("code", self.label), ": ", tag("b", self.outcome, colour=tone), f" ({self.detail})")


def try_mixed(label: str, action: Callable[[], Any], reference: torch.Tensor | None = None) -> MixedOutcome:
    """Run ``action`` (an operation mixing devices) and report honestly what came back.

    ``reference`` is the right answer computed on one device. A result that lives on ``meta`` has
    no values to check; a result elsewhere is compared with ``reference`` (same shape and values),
    because some operations mixing ``meta`` with the CPU return a CPU tensor of uninitialised
    memory, or leave an in-place target unchanged, instead of raising.
    """
    if not callable(action):
        raise TypeError(f"try_mixed expects a function to call, got {type(action).__name__}. Wrap it: lambda: a + b.")
    try:
        result = action()
    except Exception as exc:  # the honest outcome of a mixed-device op: recorded, not hidden
        return MixedOutcome(label, "raised", None, f"{type(exc).__name__}: {str(exc).strip().splitlines()[0]}")
    if not isinstance(result, torch.Tensor):
        return MixedOutcome(label, "wrong values", None, f"returned a {type(result).__name__}, not a tensor")
    device = str(result.device)
    if result.device.type == "meta":
        return MixedOutcome(label, "meta result", device, f"a meta tensor of shape {list(result.shape)}: no values at all")
    if reference is None:
        return MixedOutcome(label, "wrong values", device, f"a {device} tensor came back; no reference given, so its values are unchecked")
    right = result.shape == reference.shape and torch.equal(result.detach().cpu(), reference.detach().cpu())
    if right:
        return MixedOutcome(label, "right values", device, f"a {device} tensor equal to the reference")
    return MixedOutcome(label, "wrong values", device, f"a {device} tensor that differs from the right answer: garbage presented as a result")
