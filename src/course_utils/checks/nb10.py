"""Checks for notebook 10, models bigger than a device: its try-it cells and its exercises.

Every check runs on a CPU-only machine. ``meta`` is the device that holds no data (a model built
there must be made real with ``to_empty`` or ``load_state_dict(..., assign=True)``), and the
second device of a split model; the device maps are plans, so their devices are names that need
not exist here. Where a GPU is present the checks add it as a target.
"""

from __future__ import annotations

import torch
from torch import nn

from course_utils.bigmodels import module_bytes, still_on_meta
from course_utils.checks._core import LearnerRaised, Wrong, accelerator_targets, call, cases, exercise, same, try_it

# --------------------------------------------------------------------------- shared


def _on_meta(build):
    """The module ``build()`` makes, built on meta: the same constructor calls, no memory."""
    with torch.device("meta"):
        return build()


def _targets() -> list[torch.device]:
    # meta cannot be a target (it holds no values), so the CPU is the only one on a laptop
    return [torch.device("cpu")] + [torch.device(d) for d in accelerator_targets()]


def _tensors(module: nn.Module) -> dict[str, torch.Tensor]:
    return {**dict(module.named_parameters()), **dict(module.named_buffers())}


class Block(nn.Module):
    """A residual block with a norm, nested one level, so a top-level-only answer shows."""

    def __init__(self, width: int):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.proj = nn.Linear(width, width)

    def forward(self, x):
        return x + self.proj(self.norm(x))


class _Tiny(nn.Module):
    """Embedding, two blocks, a head: the shape of a language model in a few hundred numbers."""

    def __init__(self, vocab: int = 11, width: int = 6):
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        self.blocks = nn.Sequential(Block(width), Block(width))
        self.head = nn.Linear(width, vocab, bias=False)

    def forward(self, tokens):
        return self.head(self.blocks(self.embed(tokens)))


# --------------------------------------------------------------------------- 10.a


@try_it(
    "10.a",
    "A layer that takes no memory",
    name="layer",
    hint=("nn.Linear takes device and dtype arguments, as torch.ones does; or build it inside a `with torch.device(...)` block."),
)
def _meta_layer(layer) -> str:
    if not isinstance(layer, nn.Module):
        raise Wrong(f"`layer` should be an nn.Linear, but it is a {type(layer).__name__}.", "Build it with nn.Linear(4096, 4096, ...).")
    if type(layer) is not nn.Linear or (layer.in_features, layer.out_features) != (4096, 4096):
        raise Wrong(f"`layer` is {layer!r}; the question asks for nn.Linear(4096, 4096).")
    devices = sorted({str(t.device) for t in layer.parameters()})
    if devices != ["meta"]:
        mib = module_bytes(layer) / 2**20
        raise Wrong(
            f"`layer`'s parameters are on {', '.join(devices)}: that allocated {mib:.0f} MiB of real memory.",
            "Tell the constructor where the parameters go, so that none is ever made in real memory.",
        )
    if _moved_to_meta(layer):
        raise Wrong(
            "`layer` is on meta now, but its parameters were made in real memory first and then moved there: "
            "nn.Linear(4096, 4096) built anywhere but meta allocates its parameters (64 MiB in float32) before .to() or "
            ".to_empty() moves them.",
            "Tell the constructor where the parameters go, so that none is ever made in real memory.",
        )
    dtypes = sorted({str(t.dtype) for t in layer.parameters()})
    if dtypes != ["torch.bfloat16"]:
        raise Wrong(
            f"`layer` is on meta, but its parameters are {', '.join(dtypes)}; the question asks for bfloat16.",
            "The constructor takes the dtype too, beside the device.",
        )
    return f"A {tuple(layer.weight.shape)} bfloat16 layer, {module_bytes(layer) / 2**20:.0f} MiB of parameters on paper, none of it allocated."


def _moved_to_meta(layer: nn.Module) -> bool:
    """Whether ``layer``'s meta parameters were moved there from real memory rather than made there (10.a).

    A layer made on meta initialises its parameters in place there (reset_parameters), which counts in
    each one's version counter, and a later .to(dtype) on meta keeps the same Parameter objects; moving
    from another device makes new ones, never written. Where made-on-meta shows no write (a torch that
    skips the initialisation on meta) or versions are not kept (inference mode), nothing is concluded."""
    try:
        if nn.Linear(1, 1, device="meta").weight._version == 0:
            return False
        return any(p._version == 0 for p in layer.parameters())
    except RuntimeError:  # inference tensors keep no version counter
        return False


# --------------------------------------------------------------------------- 10.b


def _checkpoint(build, dtype=torch.float32) -> dict[str, torch.Tensor]:
    torch.manual_seed(10)
    # only floating tensors change dtype: BatchNorm's num_batches_tracked stays int64, as in a real checkpoint
    return {k: v.to(dtype) if v.is_floating_point() else v for k, v in build().state_dict().items()}


@try_it(
    "10.b",
    "Give a meta model the checkpoint's values",
    name="restore",
    kind="function",
    hint=(
        "load_state_dict normally copies into the model's tensors, which a meta model cannot hold; one of its "
        "arguments puts the checkpoint's tensors in their place. It returns a report of keys, not the model."
    ),
)
def _restore(restore) -> str:
    cases = [
        ("nn.Linear(3, 2)", lambda: nn.Linear(3, 2), torch.float32),
        ("a Sequential with BatchNorm", lambda: nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4)), torch.float32),
        ("nn.Linear(3, 2) from a float64 checkpoint", lambda: nn.Linear(3, 2), torch.float64),
    ]
    for what, build, dtype in cases:
        model, state = _on_meta(build), _checkpoint(build, dtype)
        got = call(restore, model, state)
        if got is not model:
            raise Wrong(
                f"For {what}, restore returned {type(got).__name__}, not the model it was given.",
                "load_state_dict returns a report (missing and unexpected keys): end with `return model`.",
            )
        left = still_on_meta(model)
        if left:
            raise Wrong(
                f"For {what}, {', '.join(left)} are still on meta after restore: the load was a no-op "
                "(PyTorch warns: 'copying from a non-meta parameter ... to a meta parameter ... is a no-op').",
                "A meta parameter has no memory to copy into: look at load_state_dict's arguments for one "
                "that makes the model take the checkpoint's tensors themselves.",
            )
        mine = _tensors(model)
        for key, value in state.items():
            if type(mine[key]) not in (torch.Tensor, nn.Parameter):  # a subclass could make torch.equal agree
                raise Wrong(f"For {what}, {key} is a {type(mine[key]).__name__}, not a plain tensor or Parameter.")
            if mine[key].dtype != value.dtype or not torch.equal(mine[key].cpu(), value):
                raise Wrong(
                    f"For {what}, {key} is {mine[key].dtype} and does not hold the checkpoint's values ({value.dtype}).",
                    "load_state_dict can keep the checkpoint's tensors as they are: look at its arguments.",
                )
        if any(not isinstance(p, nn.Parameter) or not p.requires_grad for p in model.parameters()):
            raise Wrong(
                f"For {what}, a parameter is no longer a trainable nn.Parameter after restore.",
                "Load through load_state_dict, asking it to take the checkpoint's tensors; it keeps them Parameters with requires_grad.",
            )
    return "Three meta models now hold their checkpoints' tensors, dtype and all (float64 stayed float64)."


# --------------------------------------------------------------------------- 10.1


def _constructed(build, device: torch.device, dtype: torch.dtype) -> nn.Module:
    """The model ``build()`` makes, built right on ``device`` in ``dtype``: the values its constructor gives.

    Made from the same seed, they are what a meta model holds once it is made real properly: the
    constructors initialise every module in the order ``model.modules()`` lists them.
    """
    default = torch.get_default_dtype()
    torch.set_default_dtype(dtype)
    try:
        with torch.device(device):
            return build()
    finally:
        torch.set_default_dtype(default)


MATERIALIZE_MODELS = (
    ("nn.Sequential(Linear, BatchNorm1d, ReLU, Linear)", lambda: nn.Sequential(nn.Linear(5, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 3))),
    ("a small language model (Embedding, two blocks with LayerNorm and Linear nested inside, a head)", _Tiny),
    ("the same Sequential in float64", lambda: nn.Sequential(nn.Linear(5, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 3)).to(torch.float64)),
)
# asked in every run (practice or graded): a model that is itself a layer, so its own reset_parameters counts; and a
# BatchNorm1d without affine parameters, whose reset_parameters (its running statistics) an answer that resets only
# the modules holding parameters skips
MATERIALIZE_ALWAYS = (
    ("a bare nn.Linear (the model is itself a layer)", lambda: nn.Linear(5, 4)),
    ("Linear then BatchNorm1d(affine=False) (buffers, no parameters)", lambda: nn.Sequential(nn.Linear(5, 7), nn.BatchNorm1d(7, affine=False))),
)


def _kept_every_tensor(where: str, model: nn.Module, before: dict) -> None:
    """What a right call must leave: every parameter and buffer the model had (``before``), none taken away."""
    if sorted(_tensors(model)) != sorted(before):
        raise Wrong(
            f"{where}: the model came back with {sorted(_tensors(model))} as its parameters and buffers; it "
            f"had {sorted(before)}. Making it real keeps every one of them.",
            "to_empty replaces each tensor's storage in place; do not remove or replace modules.",
        )


@exercise(
    "10.1",
    "Make a meta model real",
    "materialize",
    hint=(
        "to_empty(device=...) gives a meta model real but uninitialised memory. Every module that can "
        "initialise its own tensors has a reset_parameters() method; nested modules too."
    ),
)
def _materialize(materialize) -> str:
    # a grading run draws models of its own and the seed they are initialised from
    models, seed = cases("10.1", (MATERIALIZE_MODELS, 101))
    state = torch.get_rng_state()
    try:
        for what, build in (*models, *MATERIALIZE_ALWAYS):
            for device in _targets():
                where = f"materialize(<{what} on meta>, {str(device)!r})"
                model = _on_meta(build)
                dtypes = {k: t.dtype for k, t in _tensors(model).items()}
                dtype = next(t.dtype for t in _tensors(model).values() if t.is_floating_point())
                torch.manual_seed(seed)
                try:
                    got = call(materialize, model, device)
                except LearnerRaised as raised:
                    # Module.to on meta raises PyTorch's NotImplementedError (a real error, not the stub's)
                    if "Cannot copy out of meta tensor" in str(raised.exc):
                        raise Wrong(
                            f"{where} called .to(): a meta tensor has no data to copy, so PyTorch refuses ({raised.exc}).",
                            "Allocate on the device with to_empty (a meta model has no data to copy), then initialise.",
                        ) from None
                    raise
                if got is not model:
                    raise Wrong(
                        f"{where} returned {type(got).__name__}; expected the model it was given, made real.",
                        "to_empty works in place and returns the model: end with `return model`.",
                    )
                left = still_on_meta(model)
                if left:
                    raise Wrong(f"{where}: {', '.join(left)} are still on meta.")
                _kept_every_tensor(where, model, dtypes)
                torch.manual_seed(seed)
                want = _tensors(_constructed(build, device, dtype))
                _holds_its_constructors_values(where, model, want, device, dtypes)
                if any(not p.requires_grad for p in model.parameters()):
                    raise Wrong(f"{where}: a parameter lost requires_grad.")
    finally:
        torch.set_rng_state(state)
    targets = " and ".join(str(d) for d in _targets())
    return (
        f"{len(models) + len(MATERIALIZE_ALWAYS)} meta models made real on {targets}: nothing left on meta, every value the "
        "constructor's, buffers included."
    )


def _holds_its_constructors_values(where: str, model: nn.Module, want: dict, device: torch.device, dtypes: dict) -> None:
    """Every tensor of the made-real ``model`` is a plain tensor or Parameter on ``device``, in its dtype, with ``want``'s values."""
    for name, tensor in _tensors(model).items():
        if type(tensor) not in (torch.Tensor, nn.Parameter):  # a subclass could make torch.equal agree
            raise Wrong(f"{where}: {name} is a {type(tensor).__name__}, not a plain tensor or Parameter.")
        if tensor.device != device or tensor.dtype != dtypes[name]:
            raise Wrong(f"{where}: {name} is {tensor.dtype} on {tensor.device}; expected {dtypes[name]} on {device}.")
        if not torch.equal(tensor, want[name]):
            raise Wrong(
                f"{where}: {name} does not hold the values its constructor would give it (with the same "
                "random seed). After to_empty the memory is uninitialised: whatever bytes were there.",
                "Call reset_parameters() on every module that has one: iterate model.modules(), which includes nested ones, in order.",
            )


# --------------------------------------------------------------------------- 10.2


def _linears(*shapes, dtype=torch.float32):
    """A builder of a Sequential of Linear layers of these (in, out) shapes, on meta."""
    return lambda: _on_meta(lambda: nn.Sequential(*(nn.Linear(i, o, dtype=dtype) for i, o in shapes)))


_MB = 1_000_000
_F, _S = "cuda:0", "cuda:1"
# (what, a builder of the model on meta, budgets, the device of each top-level layer in order, and the plans of
# the plausible wrong answers (PLAN_MISTAKES) where they differ, None where that answer runs out of devices).
# Data, not a planner: the package holds no answer to 10.2 (issue 25); tests/test_case_tables.py holds every
# plan here to the reference in tests/answer_references.py. On meta even the 10-GB model takes no memory, and
# each check builds its models afresh, so an answer that changes a model cannot change the next check.
PLAN_CASES = (
    (
        "four float32 layers of 4,004,000 bytes and a small head, two 9-MB GPUs",
        _linears((1000, 1000), (1000, 1000), (1000, 1000), (1000, 10)),
        {"cuda:0": 9 * _MB, "cuda:1": 9 * _MB},
        (_F, _F, _S, _S),
        {"numbers": (_F, _F, _F, _F), "goes back": (_F, _F, _S, _F)},
    ),
    (
        "the same, budgets exactly two layers each",
        _linears((1000, 1000), (1000, 1000), (1000, 1000), (1000, 1000)),
        {"cuda:0": 8_008_000, "cuda:1": 8_008_000},
        (_F, _F, _S, _S),
        {"numbers": (_F, _F, _F, _F), "strict fit": None},
    ),
    (
        "float16 layers (2 bytes a number), one GPU then the CPU",
        _linears((1000, 1000), (1000, 1000), (1000, 1000), dtype=torch.float16),
        {"cuda:0": 4_100_000, "cpu": 10 * _MB},
        (_F, _F, "cpu"),
        {"numbers": (_F, _F, _F)},
    ),
    (
        "a big layer between small ones: never back to an earlier device",
        _linears((500, 1000), (1000, 2000), (2000, 10)),
        {"cuda:0": 4 * _MB, "cuda:1": 20 * _MB},
        (_F, _S, _S),
        {"numbers": (_F, _F, _F), "goes back": (_F, _S, _F)},
    ),
    (
        "layers with BatchNorm (its running statistics are buffers: memory too)",
        lambda: _on_meta(lambda: nn.Sequential(nn.Linear(1000, 1000), nn.BatchNorm1d(1000), nn.Linear(1000, 1000), nn.BatchNorm1d(1000))),
        {"cuda:0": 4_004_000 + 16_000, "cuda:1": 16_008 + 4_004_000 + 16_008},
        (_F, _S, _S, _S),
        {"numbers": (_F, _F, _F, _F), "no buffers": (_F, _F, _S, _S), "strict fit": None},
    ),
    (
        "a 10 GB float16 model (on meta: no memory) over two 6 GB GPUs",
        _linears((50_000, 50_000), (50_000, 50_000), dtype=torch.float16),
        {"cuda:0": 6 * 10**9, "cuda:1": 6 * 10**9},
        (_F, _S),
        {"numbers": (_F, _F)},
    ),
)
# models that do not fit: the answer must raise ValueError
PLAN_TOO_BIG = (
    ("three 4-MB layers on two 5-MB GPUs", _linears((1000, 1000), (1000, 1000), (1000, 1000)), {"cuda:0": 5 * _MB, "cuda:1": 5 * _MB}),
    ("a layer bigger than every device", _linears((2000, 2000)), {"cuda:0": 10 * _MB, "cpu": 15 * _MB}),
)


class WithCache(nn.Linear):
    """A Linear with a non-persistent buffer (a rotary embedding's inv_freq, say): memory that state_dict() leaves
    out. No submodules, so accelerate places it whole. At module level, so the grader's kernel finds the class."""

    def __init__(self, width: int = 64, cache: int = 4096):
        super().__init__(width, width)
        self.register_buffer("cache", torch.ones(cache), persistent=False)


def _with_cache() -> nn.Module:
    """Linear(64, 64), WithCache, Linear(64, 64) on meta: 16,640, 33,024 (16,384 of them unsaved) and 16,640 bytes."""
    return _on_meta(lambda: nn.Sequential(nn.Linear(64, 64), WithCache(), nn.Linear(64, 64)))


_CACHED = "a layer with a non-persistent buffer between two Linear(64, 64) (unsaved by state_dict(), still memory)"
# asked in every run (practice or graded), in PLAN_CASES' shape: sized from state_dict(), the middle layer would
# take 16,640 bytes and the last layer would fit on cuda:0 too
PLAN_ALWAYS = (
    (_CACHED, _with_cache, {"cuda:0": 49_920, "cuda:1": 10 * _MB}, (_F, _F, _S), {"numbers": (_F, _F, _F), "no buffers": (_F, _F, _F)}),
    # BatchNorm1d(64) is 1,032 bytes (its num_batches_tracked an int64 of 8): 4 too many for cuda:0 and too many
    # for cuda:1, so it skips cuda:1; the tiny Linear(2, 20) of 240 bytes and the last layer follow it
    (
        "a BatchNorm layer too big for what is left on cuda:0 and for all of a small cuda:1, then two Linear layers",
        lambda: _on_meta(lambda: nn.Sequential(nn.Linear(64, 64), nn.BatchNorm1d(64), nn.Linear(2, 20), nn.Linear(64, 64))),
        {"cuda:0": 17_668, "cuda:1": 1_000, "cpu": 10 * _MB},
        (_F, "cpu", "cpu", "cpu"),
        {
            "numbers": (_F, _F, _F, _F),
            "no buffers": (_F, _F, _F, "cpu"),
            "one dtype": (_F, _F, _S, "cpu"),
            "goes back": (_F, "cpu", _F, "cpu"),
            "no skip": None,
        },
    ),
    # a block with layers nested inside (264,448 bytes), a ReLU without parameters, a Linear(64, 64) (16,640)
    (
        "a block of two Linear layers nested in a Sequential, a ReLU (no parameters: still a layer of the map), a Linear",
        lambda: _on_meta(lambda: nn.Sequential(nn.Sequential(nn.Linear(64, 512), nn.ReLU(), nn.Linear(512, 64)), nn.ReLU(), nn.Linear(64, 64))),
        {"cuda:0": 70_000, "cuda:1": 300_000},
        (_S, _S, _S),
        {"numbers": (_F, _F, _S), "shallow": (_F, _F, _F), "goes back": (_S, _F, _F)},
    ),
)
PLAN_MISTAKES = {
    "numbers": "counts numbers, not bytes (multiply numel() by element_size())",
    "no buffers": "counts parameters but forgets buffers (BatchNorm's running statistics take memory too)",
    "strict fit": "sends on a layer that exactly fills what is left (use <=, not <)",
    "goes back": "puts a layer back on an earlier device with room left (the activations would flow backwards)",
    "one dtype": "counts every tensor in one element size (BatchNorm's num_batches_tracked is an int64: take each tensor's own element_size())",
    "shallow": "counts only the tensors a layer holds itself, not those of the layers nested in it (parameters() recurses by default)",
    "no skip": "gives up when a layer is too big for the next device, where a later device still has room for it",
}


def _plan_of(model: nn.Module, devices) -> dict[str, torch.device]:
    """A table's plan as the answer returns it: ``{layer name: torch.device}``, in the model's order."""
    return {name: torch.device(d) for (name, _), d in zip(model.named_children(), devices, strict=True)}


@exercise(
    "10.2",
    "A device map from memory budgets",
    "plan_device_map",
    hint=(
        "Walk the children in order, sizing each by its parameters and buffers in bytes. Fill one device "
        "until the next layer does not fit, then move on (never back); out of devices: ValueError."
    ),
)
def _plan(plan) -> str:
    # a grading run draws models and budgets of its own, with their plans
    fitting, too_big = cases("10.2", (PLAN_CASES, PLAN_TOO_BIG))
    for what, build, budgets, devices, mistakes in (*fitting, *PLAN_ALWAYS):
        model = build()
        expected = _plan_of(model, devices)
        sizes = {name: module_bytes(layer) for name, layer in model.named_children()}
        wrong_plans = {PLAN_MISTAKES[k]: _plan_of(model, d) for k, d in mistakes.items() if d is not None}
        try:
            got = call(plan, model, dict(budgets))
        except LearnerRaised as raised:
            if not isinstance(raised.exc, ValueError):
                raise
            order = [0, *(list(budgets).index(str(d)) for d in devices)]
            skipped = any(b - a > 1 for a, b in zip(order, order[1:]))
            raise Wrong(
                f"For {what}, plan_device_map raised ValueError ({raised.exc}), but the model fits on these devices.",
                "A layer too big for the next device may still fit on one after it: go on down the devices before giving up."
                if skipped
                else "A layer that exactly fills what is left on a device fits (<=, not <).",
            ) from None
        if isinstance(got, dict) and any(isinstance(v, str) for v in dict.values(got)):
            raise Wrong(
                f"For {what}, plan_device_map returned device names as strings: {got!r}.", "Return torch.device objects: torch.device(name)."
            )
        if not same(got, expected):
            mistake = next((m for m, wrong in wrong_plans.items() if same(got, wrong)), None)
            raise Wrong(
                f"For {what} (layer bytes {sizes}, budgets {budgets}), plan_device_map returned {got!r}; "
                f"{_first_misplaced(got, expected)}" + (f" That is the plan of an answer that {mistake}." if mistake else ""),
                "Count bytes (numel() * element_size()) of parameters and buffers; a layer that exactly "
                "fills what is left fits; once you move to the next device, stay there.",
            )
    for what, build, budgets in too_big:
        try:
            got = call(plan, build(), dict(budgets))
        except LearnerRaised as raised:
            if isinstance(raised.exc, ValueError):
                continue
            raise
        raise Wrong(
            f"For {what}, plan_device_map returned {got!r}; the model does not fit, so it should raise ValueError.",
            "When you run out of devices, raise ValueError saying which layer did not fit.",
        )
    big = "a 10 GB model on meta" if fitting is PLAN_CASES else "models on meta"
    return (
        f"Right for {len(fitting) + len(PLAN_ALWAYS)} models (float16, buffers, exact fits, {big}), and a "
        f"ValueError for {len(too_big)} that do not fit."
    )


def _first_misplaced(got, expected: dict) -> str:
    """Which entry of the answer's plan is the first wrong one, without saying where it belongs (issue 33.3)."""
    if not isinstance(got, dict) or sorted(map(str, got)) != sorted(expected):
        return f"expected one entry per top-level layer, keyed by its name: {', '.join(map(repr, expected))}."
    name = next(n for n in expected if not same(dict.get(got, n), expected[n]))
    return f"the first layer it places wrongly is {name!r}."


# --------------------------------------------------------------------------- 10.3


class _Split(nn.Module):
    """A two-stage model; stage two on ``second``. Its optimizer steps on gradients set by hand
    (a backward pass cannot cross from meta back to the CPU: meta has no values to send)."""

    def __init__(self, second: str):
        super().__init__()
        self.first = nn.Sequential(nn.Linear(3, 4), nn.ReLU())
        self.second = nn.Linear(4, 2, device=second)


def _stepped(optimizer_class, steps: int = 1, frozen: bool = False, second_only: bool = False, **options):
    model = _Split("meta")
    if frozen:
        model.first[0].weight.requires_grad_(False)
    # second_only: an optimizer for stage two alone (fine-tuning a head), its parameters listed second first
    held = [model.second.bias, model.second.weight] if second_only else model.parameters()
    opt = optimizer_class(held, lr=0.1, **options)
    for _ in range(steps):
        for p in model.parameters():
            p.grad = torch.ones_like(p) if p.requires_grad else None
        opt.step()
    return model, opt


def _adam(where: str) -> dict[str, str]:
    return {"step": "cpu", "exp_avg": where, "exp_avg_sq": where}  # Adam keeps 'step' on the CPU


def _states(first_weight: dict, first_bias: dict, second: dict) -> dict[str, dict[str, str]]:
    """The device of each state tensor of _Split's parameters (stage two's weight and bias alike)."""
    return {"first.0.weight": first_weight, "first.0.bias": first_bias, "second.weight": second, "second.bias": second}


# (what, a maker of the model and its optimizer, the device of each state tensor of each parameter)
STATE_CASES = (
    ("Adam after one step, stage two on meta", lambda: _stepped(torch.optim.Adam), _states(_adam("cpu"), _adam("cpu"), _adam("meta"))),
    ("Adam before any step", lambda: _stepped(torch.optim.Adam, steps=0), _states({}, {}, {})),
    (
        "AdamW after two steps, the first weight frozen",
        lambda: _stepped(torch.optim.AdamW, steps=2, frozen=True),
        _states({}, _adam("cpu"), _adam("meta")),
    ),
    (
        "SGD with momentum",
        lambda: _stepped(torch.optim.SGD, momentum=0.9),
        _states({"momentum_buffer": "cpu"}, {"momentum_buffer": "cpu"}, {"momentum_buffer": "meta"}),
    ),
    ("SGD without momentum (it keeps no state)", lambda: _stepped(torch.optim.SGD), _states({}, {}, {})),
)
# asked in every run (practice or graded): an optimizer that holds some of the parameters, in another order
STATE_ALWAYS = (
    (
        "Adam over stage two only (bias listed before weight), after one step",
        lambda: _stepped(torch.optim.Adam, second_only=True),
        _states({}, {}, _adam("meta")),
    ),
)


@exercise(
    "10.3",
    "Where does each parameter's optimizer state live?",
    "optimizer_state_devices",
    hint=(
        "optimizer.state is keyed by the parameter object, not by its name: go through "
        "model.named_parameters(), and read each state tensor's own .device. A parameter without state maps "
        "to {}."
    ),
)
def _state_devices(fn) -> str:
    rows = (*cases("10.3", STATE_CASES), *STATE_ALWAYS)  # a grading run draws models, optimizers, steps of its own
    for what, make, devices in rows:
        model, opt = make()
        before = _state_identity(opt)
        expected = {name: {key: torch.device(where) for key, where in states.items()} for name, states in devices.items()}
        got = call(fn, model, opt)
        if _state_identity(opt) != before:
            raise Wrong(f"For {what}, optimizer_state_devices changed the optimizer's state: it should only read it.")
        if not isinstance(got, dict):
            raise Wrong(
                f"For {what}, optimizer_state_devices returned a {type(got).__name__}; expected a dict "
                "{parameter name: {state key: torch.device}}."
            )
        inner = [v for v in dict.values(got) if isinstance(v, dict)]
        if any(isinstance(d, str) for v in inner for d in dict.values(v)):
            raise Wrong(f"For {what}, the devices are strings: {got!r}.", "Return value.device, a torch.device.")
        if same(got, expected):
            continue
        if sorted(map(str, got)) != sorted(expected):
            raise Wrong(
                f"For {what}, the keys are {sorted(map(str, got))}; expected every parameter's name, "
                f"{sorted(expected)} ({{}} for one without state).",
                "Use model.named_parameters() for the names; optimizer.state[p] for the state.",
            )
        params = dict(model.named_parameters())
        for name, states in expected.items():
            step = states.get("step")
            if (
                step is not None
                and step != params[name].device
                and isinstance(got.get(name), dict)
                and got[name].get("step") == params[name].device
            ):
                raise Wrong(
                    f"For {what}, you give 'step' of {name} its parameter's device, {params[name].device}; that is not where Adam keeps it.",
                    "Read each state tensor's own .device: do not assume it is the parameter's.",
                )
        name = next(n for n in expected if not same(dict.get(got, n), expected[n]))
        raise Wrong(f"For {what}, optimizer_state_devices returned {got!r}; the entry for {name!r} is not what the optimizer holds.")
    return (
        f"Right for {len(rows)} optimizers on a model split over cpu and meta: moments follow their "
        "parameter, Adam's step stays on the CPU, and a parameter without state has {}."
    )


def _state_identity(optimizer) -> list[tuple[int, str, int]]:
    """Which tensor object sits under each (parameter, key) of the state: a reader leaves it as it was."""
    return sorted((id(p), str(key), id(value)) for p, state in optimizer.state.items() for key, value in state.items())


# --------------------------------------------------------------------------- 10.4

# (what, a builder of the model on meta, how many top-level layers must stay on the CPU, the smallest
# max_memory["cpu"] in bytes that keeps them there (the rest to disk; when only the last layer is left over, it
# fits too, as no room is kept for a layer that comes last), and the budgets of the plausible
# wrong answers (BUDGET_MISTAKES) where they differ). Data, not a planner: tests/test_case_tables.py holds every
# budget to the reference in tests/answer_references.py and to the installed accelerate's infer_auto_device_map
# (1.16.0: it keeps room on the CPU for the largest layer still to place, and always ends with "disk").
BUDGET_CASES = (
    (
        "six float32 Linear(256, 256) layers of 263,168 bytes, three on the CPU",
        _linears(*[(256, 256)] * 6),
        3,
        1_052_672,
        {"no reserve": 789_504, "numbers": 263_168},
    ),
    (
        "layers of 16,640, 133,120, 131,328 and 16,640 bytes, the first on the CPU",
        _linears((64, 64), (64, 512), (512, 64), (64, 64)),
        1,
        149_760,
        {"no reserve": 16_640, "numbers": 37_440},
    ),
    (
        "the same, the first two on the CPU (the largest layer is one of them)",
        _linears((64, 64), (64, 512), (512, 64), (64, 64)),
        2,
        281_088,
        {"no reserve": 149_760, "largest of all": 282_880},
    ),
    (
        "layers of 16,640, 16,640 and 133,120 bytes, the first on the CPU (the next layer is not the largest)",
        _linears((64, 64), (64, 64), (64, 512)),
        1,
        149_760,
        {"no reserve": 16_640, "next layer": 33_280},
    ),
    (
        "four float16 Linear(128, 128) layers, all on the CPU (nothing goes to disk: no room kept)",
        _linears(*[(128, 128)] * 4, dtype=torch.float16),
        4,
        132_096,
        {"always reserve": 165_120, "numbers": 66_048},
    ),
    (
        "Linear, BatchNorm1d, Linear, BatchNorm1d of width 128 (running statistics are buffers: memory too)",
        lambda: _on_meta(lambda: nn.Sequential(nn.Linear(128, 128), nn.BatchNorm1d(128), nn.Linear(128, 128), nn.BatchNorm1d(128))),
        2,
        134_152,
        {"no buffers": 133_120, "no reserve": 68_104},
    ),
)
# asked in every run (practice or graded), in BUDGET_CASES' shape: accelerate counts the unsaved buffer too
# and with one layer left over for the disk, for which accelerate keeps room all the same (then it fits too)
BUDGET_ALWAYS = (
    (_CACHED + ", the first on the CPU", _with_cache, 1, 49_664, {}),
    (
        _CACHED + ", the first two on the CPU (one layer left for the disk)",
        _with_cache,
        2,
        66_304,
        {"one to disk": 49_664, "no reserve": 49_664},
    ),
)
BUDGET_MISTAKES = {
    "no reserve": (
        "adds up the layers that stay, and forgets the room accelerate keeps on the CPU for the largest "
        "layer going to disk: with that budget the last of your layers goes to disk too"
    ),
    "largest of all": "keeps room for the largest layer of the whole model, not the largest of those going to disk",
    "next layer": "keeps room for the next layer, not for the largest of those going to disk",
    "always reserve": "keeps room for a layer even when none goes to disk (all on the CPU: nothing to bring back)",
    "numbers": "counts numbers, not bytes (multiply numel() by element_size())",
    "no buffers": "counts parameters but forgets buffers (BatchNorm's running statistics take memory too)",
    "one to disk": "keeps no room when a single layer goes to disk: accelerate keeps room for it all the same",
}


@exercise(
    "10.4",
    "A CPU budget that keeps layers off the disk",
    "cpu_budget",
    hint=(
        "Bytes of the layers that stay (parameters and buffers, numel() * element_size()), plus the room accelerate "
        "keeps on the CPU: the largest layer that goes to disk (none when no layer does)."
    ),
)
def _budget(cpu_budget) -> str:
    # a grading run draws models of its own, with their budgets
    rows = cases("10.4", BUDGET_CASES)
    for what, build, on_cpu, budget, mistakes in (*rows, *BUDGET_ALWAYS):
        model = build()
        sizes = [module_bytes(layer) for _, layer in model.named_children()]
        got = call(cpu_budget, model, on_cpu)
        if type(got) is not int:  # not bool, and not an int subclass whose == could agree with anything
            raise Wrong(
                f"For {what}, cpu_budget returned {got!r} ({type(got).__name__}); expected a whole number of bytes, an int.",
                "max_memory takes '600KB' too, but here return the bytes as an int.",
            )
        if got == budget:
            continue
        mistake = next((BUDGET_MISTAKES[k] for k, wrong in mistakes.items() if wrong == got), None)
        side = (
            "too small: accelerate would send a layer you want on the CPU to disk"
            if got < budget
            else "more than the smallest budget that does it"
        )
        raise Wrong(
            f"For {what} (layer bytes {sizes}, on_cpu={on_cpu}), cpu_budget returned {got:,}: {side}."
            + (f" That is the budget of an answer that {mistake}." if mistake else ""),
            "Count bytes of parameters and buffers; add the largest of the layers that go to disk, since "
            "accelerate keeps that much free on the CPU to bring it back (nothing when none goes).",
        )
    return (
        f"Right for {len(rows) + len(BUDGET_ALWAYS)} models: the layers that stay, plus room for the largest layer on disk "
        "(none when everything fits), buffers and float16 included."
    )
