"""Checks for the exercises and try-it cells of notebook 03, model placement.

Each check runs on a CPU-only machine, using the ``meta`` device and dtype changes for "moved"
and a checkpoint whose device tags say ``cuda:0``/``cuda:1`` (see ``placement.retag_checkpoint``),
and adds CUDA cases where a GPU is present.
"""

from __future__ import annotations

import contextlib
import functools

import torch
from torch import nn

from course_utils.checkpoints import retag_checkpoint
from course_utils.checks._core import LearnerRaised, Wrong, accelerator_targets, call, cases, exercise, meta_case, try_it
from course_utils.handover import handover_folder
from course_utils.placement import placement_report

# --------------------------------------------------------------------------- 03.1


# The practice check's buggy model: its width and the values of its tensor attributes.
BUGGY = {"width": 3, "mean": (0.5, 1.0, 2.0), "std": (1.0, 2.0, 4.0), "factor": (2.0, 0.5, 1.0), "steps": 3}


class _Shift(nn.Module):
    """Adds a fixed tensor kept, wrongly, as a plain attribute: the third level of the buggy model, so an answer
    that looks at the model and its children only (not at every submodule) shows."""

    def __init__(self, width: int):
        super().__init__()
        self.shift = torch.linspace(-1.0, 1.0, width)

    def forward(self, x):
        return x + self.shift


class _Scale(nn.Module):
    """Multiplies by a fixed tensor kept, wrongly, as a plain attribute, then shifts."""

    def __init__(self, factor: tuple[float, ...], steps: int):
        super().__init__()
        self.factor = torch.tensor(factor)
        self.steps = torch.tensor(steps)  # an integer tensor: becomes a buffer too, and keeps its dtype
        self.shift = _Shift(len(factor))

    def forward(self, x):
        return self.shift(x * self.factor)


class _Buggy(nn.Module):
    """Standardize then scale and shift: five plain tensor attributes over three levels, and two real buffers (one of
    them non-persistent: an answer that registers every tensor it finds, buffers included, makes it persistent)."""

    def __init__(self, values: dict):
        super().__init__()
        width = values["width"]
        self.mean = torch.tensor(values["mean"])
        self.std = torch.tensor(values["std"])
        self.register_buffer("offset", torch.zeros(width))
        self.register_buffer("cache", torch.zeros(width), persistent=False)
        self.linear = nn.Linear(width, width)
        self.scale = _Scale(values["factor"], values["steps"])
        self.name = "buggy"  # not a tensor: leave it alone

    def forward(self, x):
        return self.scale(self.linear((x - self.mean) / self.std)) + self.offset


def _buffers_hold(model: nn.Module, values: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """The model's buffers; Wrong unless each of ``values`` is one of them (not a Parameter), with its value."""
    buffers = dict(model.named_buffers())
    params = dict(model.named_parameters())
    for name, value in values.items():
        if name in params:
            raise Wrong(
                f"{name} became an nn.Parameter: the optimizer would train it.",
                "Make it a buffer (module.register_buffer), not nn.Parameter: it is not learned.",
            )
        if name not in buffers:
            raise Wrong(f"{name} is not a registered buffer; model.named_buffers() has {sorted(buffers)}.")
        if buffers[name].dtype != value.dtype or not torch.equal(buffers[name], value):
            raise Wrong(f"The buffer {name} holds {buffers[name]!r}; expected the attribute's value {value!r}.")
    return buffers


@exercise(
    "03.1",
    "Fix the tensor attributes of a model",
    "register_tensor_attributes",
    hint=(
        "Visit every submodule (model.modules()) and look at its plain attributes (vars(module)). "
        "register_buffer refuses a name that is already an attribute, so remove the attribute first; leave "
        "Parameters alone."
    ),
)
def _register_tensor_attributes(register_tensor_attributes) -> str:
    width = cases("03.1", BUGGY)["width"]
    model = _Buggy(cases("03.1", BUGGY))
    # copies: what the answer's call leaves in the model's own tensors is not evidence of what they held
    values = {
        name: t.clone()
        for name, t in (
            ("mean", model.mean),
            ("std", model.std),
            ("scale.factor", model.scale.factor),
            ("scale.steps", model.scale.steps),
            ("scale.shift.shift", model.scale.shift.shift),
        )
    }
    n_params = len(list(model.parameters()))
    got = call(register_tensor_attributes, model)
    if got is not model:
        raise Wrong("register_tensor_attributes should change the model in place and return that same model.", "End with `return model`.")
    left = [e.name for e in placement_report(model).attributes]
    if left:
        raise Wrong(
            f"These are still plain tensor attributes: {', '.join(left)}.",
            "Look in every submodule (model.modules()), however deep, not only the top one and its children.",
        )
    buffers = _buffers_hold(model, values)
    if "offset" not in buffers:
        raise Wrong("The buffer that was already registered, 'offset', is gone.")
    if "cache" not in buffers or "cache" in model.state_dict():
        raise Wrong(
            "The model's non-persistent buffer 'cache' is now saved by state_dict(): your code registered it again, as "
            "persistent. Existing buffers should stay as they were.",
            "Only plain tensor attributes need registering: a buffer does not live in vars(module), and getattr or dir() find buffers too.",
        )
    if len(list(model.parameters())) != n_params:
        raise Wrong("The number of parameters changed: make the tensors buffers, not nn.Parameter (they are not learned).")
    if model.name != "buggy":
        raise Wrong("An attribute that is not a tensor (model.name) was changed.")
    missing = set(values) - set(model.state_dict())
    if missing:
        raise Wrong(f"state_dict() lacks {sorted(missing)}: register them as persistent buffers (the default).")
    _moves_whole(model, width)
    clean = nn.Sequential(nn.Linear(2, 2), nn.ReLU())
    before = list(clean.state_dict())
    if call(register_tensor_attributes, clean) is not clean or list(clean.state_dict()) != before:
        raise Wrong("A model without tensor attributes should come back unchanged.")
    return "All five attributes (three levels deep) are buffers with their values, saved, and move with .to()."


def _moves_whole(model: nn.Module, width: int) -> None:
    """The fixed model converts and moves as one: to float64, then to meta, where its forward pass still runs."""
    model.to(torch.float64)
    if any(t.dtype != torch.float64 for t in (model.mean, model.scale.factor, model.scale.shift.shift)):
        raise Wrong("After model.to(torch.float64) some converted tensors are still float32.")
    model.to("meta")
    report = placement_report(model)
    if report.devices != ("meta",):
        raise Wrong(f"After model.to('meta') the model is spread over {report.devices}:\n{report}")
    try:
        shape = tuple(model(torch.ones(2, width, device="meta", dtype=torch.float64)).shape)
    except RuntimeError as exc:
        raise Wrong(f"The fixed model's forward pass on meta failed: {exc}") from None
    if shape != (2, width):
        raise Wrong("The fixed model's forward pass on meta returned the wrong shape.")


# --------------------------------------------------------------------------- 03.2


# (kind of module: see _module, its device, its width, the device where_is must say; None: no device)
WHERE_CASES: tuple[tuple[str, str, int, str | None], ...] = (
    ("linear", "cpu", 2, "cpu"),
    ("linear", "meta", 2, "meta"),
    ("buffer", "meta", 4, "meta"),
    ("batchnorm", "meta", 3, "meta"),
    ("attribute", "meta", 2, "meta"),
    ("relu", "cpu", 0, None),
)
# asked in every run (practice or graded): a layer two levels down, the top and its children holding no tensor
WHERE_ALWAYS: tuple[tuple[str, str, int, str | None], ...] = (("nested", "meta", 3, "meta"),)


def _module(kind: str, device: str, width: int) -> nn.Module:
    """The module of a WHERE_CASES row; "attribute": a plain CPU tensor attribute stays behind when it moves."""
    if kind == "buffer":
        module = nn.Module()
        module.register_buffer("table", torch.arange(width, device=device))
        return module
    if kind == "relu":
        return nn.ReLU()
    if kind == "nested":  # its only layer two levels down (WHERE_ALWAYS)
        return nn.Sequential(nn.Sequential(nn.Linear(width, width))).to(device)
    model = nn.BatchNorm1d(width) if kind == "batchnorm" else nn.Linear(width, width)
    if kind == "attribute":
        model.scale = torch.ones(width)  # not part of the model's state: .to() leaves it on the CPU
    return model.to(device)


def _said(kind: str, device: str) -> str:
    return {
        "linear": f"nn.Linear on {'the CPU' if device == 'cpu' else device}",
        "buffer": f"a module with only a buffer, on {device}",
        "batchnorm": f"nn.BatchNorm1d on {device}",
        "attribute": f"a {device} model with a plain CPU attribute",
        "relu": "nn.ReLU (no parameters, no buffers)",
        "nested": f"an nn.Linear two levels down in nn.Sequential, on {device}",
    }[kind]


@exercise(
    "03.2",
    "Where does a model live?",
    "where_is",
    hint=(
        "A model's tensors are its parameters and its buffers, and they need not agree: the exercise says what "
        "to return when there are none, when they share one device, and when they do not."
    ),
)
def _where_is(where_is) -> str:
    rows = [*cases("03.2", WHERE_CASES), *WHERE_ALWAYS, *(("linear", device, 2, device) for device in accelerator_targets())]
    modules = [
        (_said(kind, device), _module(kind, device, width), expected and torch.device(expected)) for kind, device, width, expected in rows
    ]
    for what, model, expected in modules:
        got = call(where_is, model)
        if expected is None:
            if got is not None:
                raise Wrong(f"For {what} where_is returned {got!r}; expected None: it has no tensors, so no device.")
            continue
        if not isinstance(got, torch.device) or got != expected:
            raise Wrong(
                f"For {what} where_is returned {got!r}"
                + (
                    f", a {type(got).__name__}; expected a torch.device."
                    if not isinstance(got, torch.device)
                    else ", which is not where its tensors are."
                ),
                "Look at buffers as well as parameters, and return a torch.device.",
            )
    unsaved = nn.Module()  # a buffer that state_dict() leaves out is still one of the model's tensors
    unsaved.register_buffer("cache", torch.zeros(2, device="meta"), persistent=False)
    got = call(where_is, unsaved)
    if not isinstance(got, torch.device) or got != torch.device("meta"):
        raise Wrong(
            f"For a module whose only tensor is a non-persistent buffer on meta, where_is returned {got!r}; expected meta.",
            "model.buffers() lists every buffer; state_dict() leaves out the non-persistent ones.",
        )
    _spread_raises(where_is)
    return f"Right for {len(modules) + 1} modules, and a ValueError naming the devices for two models spread over cpu and meta."


def _spread_raises(where_is) -> None:
    """Models spread over cpu and meta (by layer, or parameters against a buffer): where_is raises a ValueError naming both."""
    buffered = nn.Linear(2, 2)  # parameters on the CPU, a buffer on meta: spread too
    buffered.register_buffer("table", torch.zeros(2, device="meta"))
    for what, split in (
        ("layers on cpu and meta", nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 2).to("meta"))),
        ("its parameters on cpu and a buffer on meta", buffered),
    ):
        try:
            got = call(where_is, split)
        except Exception as raised:  # call() wraps the learner's exception; theirs is the cause
            if not isinstance(raised.__cause__, ValueError):
                raise
            said = str(raised.__cause__)
            if "cpu" not in said or "meta" not in said:
                raise Wrong(
                    f"For a model with {what}, where_is raised ValueError({said!r}), which does not name the devices.",
                    "Put the devices the model is spread over in the error's message.",
                ) from None
        else:
            raise Wrong(
                f"For a model with {what}, where_is returned {got!r}; it should raise ValueError.",
                "A model spread over several devices has no single device: say so with a ValueError; parameters and buffers count alike.",
            )


# --------------------------------------------------------------------------- 03.3


# (the seed that trains the practice check's model, its widths: in, hidden, out)
TRAINED = (3, (3, 4, 2))


def _trained_model(seed: int, dims: tuple[int, int, int]) -> nn.Module:
    torch.manual_seed(seed)
    model = _make_model(dims)
    model.train()
    model(torch.randn(8, dims[0]))  # moves the BatchNorm running statistics off their defaults
    return model


def _make_model(dims: tuple[int, int, int] = TRAINED[1]) -> nn.Module:
    fan_in, hidden, fan_out = dims
    return nn.Sequential(nn.Linear(fan_in, hidden), nn.BatchNorm1d(hidden), nn.Linear(hidden, fan_out))


@exercise(
    "03.3",
    "Load a checkpoint onto any device",
    "load_onto",
    hint=(
        "A checkpoint remembers the device its tensors were saved from, and a model keeps the device it was "
        "built on: both have to end up on the device asked for."
    ),
)
def _load_onto(load_onto) -> str:
    seed, dims = cases("03.3", TRAINED)
    trained = _trained_model(seed, dims)
    make_model = functools.partial(_make_model, dims)
    expected = {k: v.clone() for k, v in trained.state_dict().items()}
    # meta is the second device of a machine without a GPU: a model left on the CPU shows there
    targets = ["cpu", "meta"] + accelerator_targets()
    # a folder the learner's kernel reads at the same path, sandboxed or not (the judge's /tmp it may not see)
    with handover_folder(prefix="check-03.3-") as tmp:
        cpu_file = tmp / "saved_on_cpu.pt"
        torch.save(trained.state_dict(), cpu_file)
        files = {"saved on the CPU": cpu_file}
        for tag in ("cuda:0", "cuda:1"):
            files[f"saved on {tag}"] = tmp / f"saved_on_{tag.replace(':', '')}.pt"
            retag_checkpoint(cpu_file, files[f"saved on {tag}"], {"cpu": tag})
        for what, path in files.items():
            for device in targets:
                where = f"load_onto(<checkpoint {what}>, {device!r}, make_model)"
                try:
                    # loading into a meta model warns once per tensor; on a real device it would not
                    with meta_case() if device == "meta" else contextlib.nullcontext():
                        got = call(load_onto, path, device, make_model)
                except LearnerRaised as raised:
                    if device == "meta" and "copy out of meta" in str(raised.exc):
                        raise Wrong(
                            f"{where} copied the checkpoint's meta tensors into a model still on the CPU: the model "
                            "itself never moved to the device (on a GPU it would stay on the CPU).",
                            "Loading copies values into the model's tensors where they already are; it never moves "
                            "the model. Think about the order of the steps.",
                        ) from None
                    raise
                if type(got) is not nn.Sequential:  # the model make_model() built, not a look-alike
                    raise Wrong(f"{where} returned a {type(got).__name__}; expected the model make_model() built.")
                report = placement_report(got)
                if report.devices != (device,):
                    raise Wrong(f"{where} returned a model on {report.devices}; expected all of it on {device}.")
                state = nn.Module.state_dict(got)
                for key, value in expected.items():
                    if key not in state:
                        raise Wrong(f"{where}: the model has no {key}.")
                    if device != "meta" and not torch.equal(state[key].cpu(), value):
                        raise Wrong(
                            f"{where}: {key} does not hold the checkpoint's values.",
                            "The values come into the model only through its load_state_dict method.",
                        )
    return (
        f"Loaded checkpoints tagged cpu, cuda:0 and cuda:1 onto {', '.join(targets)}, "
        "with every parameter and buffer in place (values compared where a device holds data)."
    )


# --------------------------------------------------------------------------- 03.4


# (the seed of the practice check's model, its widths: in, hidden, out)
STEPPED = (4, (3, 4, 2))


class _Scaled(nn.Sequential):
    """Two layers and a learned 0-dim scale: its optimizer state (Adam's exp_avg, SGD's momentum) is 0-dim too,
    so an answer that skips every 0-dim state tensor, rather than the one called 'step', leaves it behind."""

    def __init__(self, *layers: nn.Module) -> None:
        super().__init__(*layers)
        self.scale = nn.Parameter(torch.tensor(1.5))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return super().forward(x) * self.scale


def _stepped(optimizer_class, seed: int, dims: tuple[int, int, int], two_groups: bool = False, **options):
    torch.manual_seed(seed)
    model = _Scaled(nn.Linear(dims[0], dims[1]), nn.Linear(dims[1], dims[2]))
    # two parameter groups: an answer that walks only the first group leaves the rest behind
    params = [{"params": model[0].parameters()}, {"params": [*model[1].parameters(), model.scale]}] if two_groups else model.parameters()
    opt = optimizer_class(params, lr=0.01, **options)
    for _ in range(2):
        model(torch.randn(5, dims[0])).pow(2).sum().backward()
        opt.step()
        opt.zero_grad()
    return model, opt


def _move_keeping_parameters(model: nn.Module, where) -> None:
    """``model.to(where)``, keeping each Parameter object, as a move to a GPU does.

    CPU to CUDA (or a dtype change) assigns ``param.data``, so the optimizer still holds the
    model's parameters. To ``meta`` the storage types differ and PyTorch makes new Parameters,
    which would cut the optimizer off; swapping tensors in place keeps them, like a GPU move."""
    swap = torch.__future__.get_swap_module_params_on_conversion()
    torch.__future__.set_swap_module_params_on_conversion(True)
    try:
        model.to(where)
    finally:
        torch.__future__.set_swap_module_params_on_conversion(swap)


def _params(opt) -> list[torch.Tensor]:
    return [p for group in opt.param_groups for p in group["params"]]


def _snapshot(opt, params: list[torch.Tensor]) -> list[dict[str, torch.Tensor]]:
    # .get, not [p]: optimizer.state is a defaultdict, and reading it with [p] would add entries
    return [{k: v.detach().clone() for k, v in opt.state.get(p, {}).items() if isinstance(v, torch.Tensor)} for p in params]


def _left_in_place(case: str, opt, params: list[torch.Tensor], places: list[tuple]) -> None:
    """Wrong unless the optimizer still holds the model's own parameters, where the move put them: what a right
    answer leaves (the state after the call is the kernel's account; the parameters' places are the judge's)."""
    now = _params(opt)
    if len(now) != len(params) or any(a is not b for a, b in zip(now, params)):
        raise Wrong(
            f"{case}: the optimizer no longer holds the model's parameters.",
            "Move the optimizer's state to its parameters; leave the parameters themselves alone.",
        )
    for p, (device, dtype) in zip(params, places):
        if p.device != device or p.dtype != dtype:
            raise Wrong(
                f"{case}: a parameter is now {p.dtype} on {p.device}; the model put it {dtype} on {device}.",
                "Move the optimizer's state to its parameters; leave the parameters themselves alone.",
            )


def _state_follows(case: str, places: list[tuple], before: list[dict], after: list[dict]) -> None:
    """Wrong unless each state tensor but 'step' is on its parameter's device, in its dtype, with its values."""
    for (device, dtype), old, new in zip(places, before, after):
        if set(old) != set(new):
            raise Wrong(f"{case}: the state keys changed from {sorted(old)} to {sorted(new)}.")
        for key, value in new.items():
            if key == "step":
                if value.device != old[key].device or value.dtype != old[key].dtype or not torch.equal(value, old[key]):
                    raise Wrong(f"{case}: 'step' changed to {value!r}; leave it as it was (a CPU counter by design).")
                continue
            want_dtype = dtype if old[key].is_floating_point() else old[key].dtype
            if value.device != device or value.dtype != want_dtype:
                zero_dim = " (the 0-dim state of the model's 0-dim scale: only 'step' stays behind)" if old[key].dim() == 0 else ""
                raise Wrong(f"{case}: state {key!r} is {value.dtype} on {value.device}; its parameter is {dtype} on {device}{zero_dim}.")
            if value.device.type != "meta" and not torch.equal(value.cpu().to(old[key].dtype), old[key]):
                raise Wrong(f"{case}: state {key!r} lost its values.")


def _groups_follow(case: str, places: list[tuple], before: list[dict], after: list[dict], first: int) -> None:
    """``_state_follows``, saying so when only the parameters after the first group's ``first`` ones were left behind."""
    _state_follows(case, places[:first], before[:first], after[:first])
    try:
        _state_follows(case, places[first:], before[first:], after[first:])
    except Wrong as wrong:
        raise Wrong(
            f"{wrong.message} That parameter is in the optimizer's second parameter group; the first group's state moved.",
            "An optimizer can hold several parameter groups (optimizer.param_groups is a list): visit the state of every one.",
        ) from None


@exercise(
    "03.4",
    "Move optimizer state to its parameters",
    "match_state_to_params",
    hint=(
        "Moving a model moves its parameters, not the optimizer's own tensors kept for each of them: those have "
        "to follow their parameter, except the entries the exercise says stay as they are."
    ),
)
def _match_state_to_params(match_state_to_params) -> str:
    seed, dims = cases("03.4", STEPPED)
    # meta is the second device of a machine without a GPU: state left on the CPU shows there
    moves = [("to float64", torch.float64), ("to meta", torch.device("meta"))]
    for device in accelerator_targets():
        moves.append((f"to {device}", torch.device(device)))
    # a model split over two places (pipeline style): each state tensor follows its own parameter, not the first one
    moves.append(("split: its first layer to meta, its second to float64", {0: torch.device("meta"), 1: torch.float64}))
    optimizers = [
        ("Adam", torch.optim.Adam, {}),
        ("Adam with amsgrad", torch.optim.Adam, {"amsgrad": True}),  # a third moment: max_exp_avg_sq
        ("AdamW", torch.optim.AdamW, {}),
        ("SGD with momentum", torch.optim.SGD, {"momentum": 0.9}),
        ("SGD with momentum, in two parameter groups", torch.optim.SGD, {"momentum": 0.9, "two_groups": True}),
    ]
    for name, cls, options in optimizers:
        for move, where in moves:
            model, opt = _stepped(cls, seed, dims, **options)
            params = _params(opt)
            before = _snapshot(opt, params)
            for index, there in where.items() if isinstance(where, dict) else [(None, where)]:
                _move_keeping_parameters(model if index is None else model[index], there)
            places = [(p.device, p.dtype) for p in params]
            call(match_state_to_params, opt)
            _left_in_place(f"{name}, model moved {move}", opt, params, places)
            first = len(opt.param_groups[0]["params"])
            _groups_follow(f"{name}, model moved {move}", places, before, _snapshot(opt, params), first)
            if isinstance(where, dict):  # no forward pass crosses meta and the CPU: gradients set by hand
                for p in params:
                    p.grad = torch.ones_like(p)
            else:
                x = torch.randn(5, dims[0]).to(next(model.parameters()))
                model(x).pow(2).sum().backward()
            try:
                opt.step()
            except RuntimeError as exc:
                raise Wrong(f"{name}, model moved {move}: the next optimizer.step() still fails: {exc}") from None
    return (
        f"State follows its parameters for {', '.join(n for n, _, _ in optimizers)} moved "
        f"{', '.join(m for m, _ in moves)}, values kept, 'step' left alone, and the next step runs."
    )


# --------------------------------------------------------------------------- try-it 03.a


@try_it(
    "03.a",
    "A buffer moves with its module",
    name="moved",
    hint=("A tensor that should move with a layer, without being trained, is a buffer: register it on the layer, then move the layer."),
)
def _moved(moved) -> str:
    if type(moved) is not nn.Linear:
        raise Wrong(
            f"`moved` should be the layer, an nn.Linear, but it is a {type(moved).__name__}.",
            "`.to` returns the layer itself: bind what it returns to `moved`.",
        )
    params, buffers = dict(moved.named_parameters()), dict(moved.named_buffers())
    if "scale" in params:
        raise Wrong(
            "`scale` is an nn.Parameter: it moves, but an optimizer would train it.",
            "A fixed tensor is a buffer: register it with the layer's register_buffer method.",
        )
    if "scale" not in buffers:
        plain = getattr(moved, "scale", None)
        if isinstance(plain, torch.Tensor):
            raise Wrong(
                f"`scale` is a plain tensor attribute, so .to() left it on {plain.device} while the weight went to {moved.weight.device}.",
                "Register it (register_buffer) instead of assigning it as an attribute.",
            )
        raise Wrong(
            f"`moved` has no buffer named `scale`; its buffers are {sorted(buffers)}.", "Register one (register_buffer) before moving the layer."
        )
    scale = buffers["scale"]
    if tuple(scale.shape) != (3,) or scale.dtype != torch.float32:
        raise Wrong(f"`scale` is {scale.dtype} with shape {tuple(scale.shape)}; expected torch.ones(3) (float32, shape (3,)).")
    if scale.device.type != "meta" and not torch.equal(scale, torch.ones(3, device=scale.device)):
        raise Wrong(f"`scale` holds {scale.tolist()}; expected three ones.")
    report = placement_report(moved)
    if report.devices != ("meta",):
        where = ", ".join(f"{device}: {', '.join(names)}" for device, names in report.by_device.items())
        raise Wrong(
            f"The layer is not all on meta ({where}).",
            "Register the buffer first, then move the layer and bind what .to returns: the buffer moves with the weights.",
        )
    return "`scale` is a buffer: it moved to meta with the weight and bias, and state_dict() saves it."


# --------------------------------------------------------------------------- try-it 03.b


def _run_cases() -> list[tuple[str, nn.Module]]:
    torch.manual_seed(31)
    cases = [
        ("nn.Linear on the CPU", nn.Linear(3, 2)),
        ("nn.Linear on meta", nn.Linear(3, 2).to("meta")),
        ("an nn.Sequential on meta", nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2)).to("meta")),
        ("an nn.Sequential on the CPU", nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))),
    ]
    for device in accelerator_targets():
        cases.append((f"nn.Linear on {device}", nn.Linear(3, 2).to(device)))
    return cases


def _moving_a_module(exc: BaseException) -> bool:
    """Whether ``exc`` was raised while a module moved its tensors (Module.to and friends, in Module._apply) (03.b)."""
    import traceback

    frames = traceback.extract_tb(exc.__traceback__)
    return any(f.name == "_apply" and f.filename.replace("\\", "/").endswith("torch/nn/modules/module.py") for f in frames)


@try_it(
    "03.b",
    "The input goes where the model is",
    name="run",
    kind="function",
    hint="A module has no .device of its own; its parameters do. Move the input there, not the model.",
)
def _run(run) -> str:
    cases = _run_cases()
    for what, model in cases:
        home = next(model.parameters()).device
        x = torch.randn(5, 3)
        where = f"run(<{what}>, <x on cpu>)"
        try:
            got = call(run, model, x)
        except LearnerRaised as raised:
            if isinstance(raised.exc, NotImplementedError) and "meta" in str(raised.exc) and _moving_a_module(raised.exc):
                # a meta model moved to the input's device: "Cannot copy out of meta tensor" is a NotImplementedError
                raise Wrong(
                    f"{where} tried to move the model to the input's device; meta tensors cannot be copied.",
                    "Leave the model where it is: it is the input that should travel.",
                ) from None
            if isinstance(raised.exc, NotImplementedError) and "meta" in str(raised.exc):
                raise Wrong(
                    f"{where} copied a meta tensor's data ({raised.exc}): the model's output is on meta, like the "
                    "model, and holds no data to copy to the CPU.",
                    "Return the model's output where the model made it; the task does not ask to bring it back.",
                ) from None
            raise Wrong(
                f"{where} raised {type(raised.exc).__name__}: {raised.exc}",
                "The input has to go where the model's weights are, for any model; a module has no device of its own, but what it holds does.",
            ) from None
        now = next(model.parameters()).device
        if now != home:
            raise Wrong(
                f"{where} moved the model from {home} to {now}.",
                "Move the input to the model, not the model to the input: models are big, and the optimizer holds their parameters.",
            )
        if not isinstance(got, torch.Tensor):
            raise Wrong(f"{where} returned a {type(got).__name__}; expected the model's output, a tensor.")
        if got.device != home:
            raise Wrong(
                f"{where} returned a tensor on {got.device}; the model's output is on {home}, the model's device.",
                "Do not name a device: read it from the model's parameters.",
            )
        if tuple(got.shape) != (5, 2):
            raise Wrong(
                f"{where} returned shape {tuple(got.shape)}; the model's output has shape (5, 2).", "Return model(...) of the moved input."
            )
        if home.type != "meta" and not torch.allclose(got.cpu(), model(x.to(home)).detach().cpu()):
            raise Wrong(f"{where} returned other values than the model's output for x.")
    return f"Right for {len(cases)} models on {', '.join(sorted({str(next(m.parameters()).device) for _, m in cases}))}."
