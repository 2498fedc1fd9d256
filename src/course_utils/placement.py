"""Where a model's tensors live: every parameter, buffer and plain tensor attribute, by device.

Lessons: notebook 03 (model placement) and notebook 05 (the cross-device error clinic).
``placement_report(model)`` lists each tensor a module holds, with its kind:

- ``"parameter"``: registered with ``nn.Parameter``; ``model.to(...)`` moves it.
- ``"buffer"``: registered with ``register_buffer`` (persistent or not); ``model.to(...)`` moves it.
- ``"attribute"``: a plain tensor stored as ``self.x = torch.tensor(...)`` (or inside a list,
  tuple or dict attribute). ``model.to(...)`` does **not** move it: the classic bug behind
  "Expected all tensors to be on the same device" after ``model.cuda()``.

``module_device(model)`` answers "which device does this model live on?", which ``nn.Module``
itself cannot (a module has no ``.device``). Both work the same on CPU-only, one-GPU and
several-GPU machines; on a CPU-only machine the ``meta`` device (or a dtype change) is enough to
see an attribute left behind.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from course_utils.devices import as_device, same_place
from course_utils.display import OK, PROBLEM, markup, table, tag


@dataclass(frozen=True)
class TensorPlace:
    """One tensor held by a module: its dotted name, kind, device, shape and dtype."""

    name: str  # "encoder.weight", "running_mean", "scale"
    kind: str  # "parameter" | "buffer" | "attribute" (a plain tensor attribute: does NOT move with .to())
    device: str  # "cpu", "cuda:0", "meta", "mps:0"
    shape: tuple[int, ...]
    dtype: str  # "float32", "int64", ...
    persistent: bool = True  # False for a buffer registered with persistent=False (not in state_dict)


@dataclass(frozen=True)
class PlacementReport:
    """Every tensor of a module and where it lives; end a notebook cell on it to see a table."""

    entries: tuple[TensorPlace, ...]
    module_name: str = "module"

    @property
    def devices(self) -> tuple[str, ...]:
        """The distinct devices, sorted: ``('cpu',)``, ``('cpu', 'cuda:0')``."""
        return tuple(sorted({e.device for e in self.entries}))

    @property
    def is_mixed(self) -> bool:
        """True when the tensors live on more than one device."""
        return len(self.devices) > 1

    @property
    def by_device(self) -> dict[str, tuple[str, ...]]:
        """Device -> the names of the tensors on it."""
        return {d: tuple(e.name for e in self.entries if e.device == d) for d in self.devices}

    @property
    def parameters(self) -> tuple[TensorPlace, ...]:
        return tuple(e for e in self.entries if e.kind == "parameter")

    @property
    def buffers(self) -> tuple[TensorPlace, ...]:
        return tuple(e for e in self.entries if e.kind == "buffer")

    @property
    def attributes(self) -> tuple[TensorPlace, ...]:
        """Plain tensor attributes: ``module.to(...)`` leaves these where they are."""
        return tuple(e for e in self.entries if e.kind == "attribute")

    def strays(self, expected: str | torch.device) -> tuple[TensorPlace, ...]:
        """The tensors that are not on ``expected``.

        ``expected`` is a device or its name. A name without an index (``"cuda"``) matches any
        index of that type (``cuda:0``, ``cuda:1``); ``"cuda:0"`` matches only ``cuda:0``.
        """
        want = as_device(expected, "strays(expected)")
        return tuple(e for e in self.entries if not same_place(torch.device(e.device), want))

    def __str__(self) -> str:
        lines = [f"{self.module_name}: {self._headline()}"]
        width = max((len(e.name) for e in self.entries), default=0)
        for e in self.entries:
            lines.append(
                f"  {e.name:<{width}}  {_kind_label(e):<24} {e.device:<8} {e.dtype:<9} {list(e.shape)}"
                + ("  <- does not move with .to()" if e.kind == "attribute" else "")
            )
        for warning in self._warnings():
            lines.append("  ! " + warning)
        return "\n".join(lines)

    def __repr__(self) -> str:
        return str(self)

    def _repr_html_(self) -> str:
        stays = markup(" ", tag("b", "(does not move with .to())"))
        rows = [
            (tag("code", e.name), markup(_kind_label(e), stays if e.kind == "attribute" else ""), e.device, e.dtype, str(list(e.shape)))
            for e in self.entries
        ]
        # plain tensor attributes are the ones .to() leaves behind: their rows are read first
        attributes = {i for i, e in enumerate(self.entries) if e.kind == "attribute"}
        warnings = [tag("li", w, colour=PROBLEM) for w in self._warnings()]
        return markup(
            tag("p", tag("b", self.module_name), ": ", tag("span", self._headline(), colour=PROBLEM if self.is_mixed else OK)),
            table(rows, head=("name", "kind", "device", "dtype", "shape"), highlight=attributes),
            tag("ul", *warnings) if warnings else "",
        )

    def _headline(self) -> str:
        if not self.entries:
            return "no tensors (no parameters, buffers or tensor attributes)"
        n = len(self.entries)
        if self.is_mixed:
            return f"MIXED placement: {n} tensors on {len(self.devices)} devices ({', '.join(self.devices)})"
        return f"{n} tensor{'s' if n != 1 else ''}, all on {self.devices[0]}"

    def _warnings(self) -> list[str]:
        out = []
        if self.is_mixed:
            spread = "; ".join(f"{d}: {_few(names)}" for d, names in self.by_device.items())
            out.append(
                f"tensors on different devices ({spread}). An operation that mixes them raises a device "
                "error (on a GPU: 'Expected all tensors to be on the same device')."
            )
        attrs = self.attributes
        if attrs:
            names = ", ".join(e.name for e in attrs)
            out.append(
                f"plain tensor attribute(s) {names}: module.to()/.cuda() will not move them, and "
                "state_dict() will not save them. Register them with self.register_buffer(name, tensor) "
                "(persistent=False to keep them out of state_dict)."
            )
        return out


def placement_report(module: nn.Module) -> PlacementReport:
    """List every parameter, registered buffer and plain tensor attribute of ``module`` and its submodules.

    Names are dotted as in ``named_parameters()``; a parameter shared by two submodules is listed
    once. A tensor kept in a list, tuple or dict attribute is listed as ``name[0]`` or ``name['key']``.
    """
    require_module(module, "placement_report")
    entries: list[TensorPlace] = []
    seen: set[int] = set()  # a tensor shared by two submodules is listed once, under its first name
    for prefix, sub in module.named_modules():
        dot = prefix + "." if prefix else ""
        for pname, p in sub._parameters.items():
            if p is not None and id(p) not in seen:
                seen.add(id(p))
                entries.append(_place(dot + pname, "parameter", p))
        non_persistent = getattr(sub, "_non_persistent_buffers_set", set())
        for bname, b in sub._buffers.items():
            if b is not None and id(b) not in seen:
                seen.add(id(b))
                entries.append(_place(dot + bname, "buffer", b, persistent=bname not in non_persistent))
        for aname, value in vars(sub).items():
            if aname.startswith("_"):
                continue  # nn.Module's own bookkeeping (_parameters, _buffers, _modules, hooks)
            for suffix, tensor in _tensors_in(value):
                entries.append(_place(dot + aname + suffix, "attribute", tensor))
    return PlacementReport(tuple(entries), module_name=type(module).__name__)


def module_device(module: nn.Module, *, default: str | torch.device | None = None) -> torch.device:
    """The one device a module's parameters and buffers live on.

    Raises ``ValueError`` naming the devices when they are spread over several (a model split over
    GPUs on purpose has no single device; move inputs per stage instead). A module with no
    parameters or buffers (``nn.ReLU()``) has no device, it runs wherever its input is: that raises
    ``ValueError`` too, unless ``default`` is given, which is then returned. Plain tensor
    attributes are not counted (``model.to()`` does not move them); ``placement_report`` shows them.
    """
    require_module(module, "module_device")
    devices = {t.device for t in module.parameters()} | {t.device for t in module.buffers()}
    if len(devices) == 1:
        return devices.pop()
    name = type(module).__name__
    if not devices:
        if default is not None:
            return as_device(default, "module_device(default=...)")
        raise ValueError(
            f"{name} has no parameters or buffers, so it has no device: it runs on whatever device its "
            "input is on. Pass default=... to module_device to get a device anyway, or ask the input's .device."
        )
    report = placement_report(module)
    spread = "; ".join(f"{d}: {_few(names)}" for d, names in report.by_device.items() if d in {str(x) for x in devices})
    raise ValueError(
        f"{name} is spread over {len(devices)} devices ({spread}). If that is not on purpose, move it "
        f"with model.to(device); to see every tensor, end a cell on placement_report(model)."
    )


# --------------------------------------------------------------------------- helpers


def require_module(module, caller: str) -> None:
    """Refuse anything but an ``nn.Module`` with a TypeError that says what to pass (lessons 03 and 10)."""
    if isinstance(module, nn.Module):
        return
    found = type(module).__name__
    if isinstance(module, torch.Tensor):
        tip = "For a tensor, read tensor.device."
    elif isinstance(module, dict):
        tip = (
            "For a state dict, use {name: t.device for name, t in state.items()}, or load it into the model "
            "first with model.load_state_dict(state)."
        )
    else:
        tip = "Pass the model itself (an nn.Module), e.g. " + caller + "(model)."
    raise TypeError(f"{caller} expects a torch.nn.Module, but got a {found}. {tip}")


def _place(name: str, kind: str, t: torch.Tensor, persistent: bool = True) -> TensorPlace:
    return TensorPlace(
        name=name,
        kind=kind,
        device=str(t.device),
        shape=tuple(t.shape),
        dtype=str(t.dtype).removeprefix("torch."),
        persistent=persistent,
    )


def _tensors_in(value) -> list[tuple[str, torch.Tensor]]:
    """Tensors directly in an attribute value, one level into lists, tuples and dicts."""
    if isinstance(value, torch.Tensor):
        return [("", value)]
    if isinstance(value, (list, tuple)):
        return [(f"[{i}]", v) for i, v in enumerate(value) if isinstance(v, torch.Tensor)]
    if isinstance(value, dict):
        return [(f"[{k!r}]", v) for k, v in value.items() if isinstance(v, torch.Tensor)]
    return []


def _few(names: tuple[str, ...], limit: int = 4) -> str:
    shown = ", ".join(names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


def _kind_label(e: TensorPlace) -> str:
    if e.kind == "buffer" and not e.persistent:
        return "buffer (non-persistent)"
    return e.kind
