"""Checks for notebook 09, data loading and device memory: its try-it cells and its exercises.

Every check runs on a CPU-only machine. Where the answer depends on the device, the check uses
the CPU and ``meta`` (and the first GPU when there is one), so naming this machine's device
does not pass; where it depends on the machine, it runs the answer on simulated machines
(``checks.machines.simulated``); ``non_blocking`` is seen through a ``TorchFunctionMode`` that records
every ``Tensor.to`` call the answer makes.
"""

from __future__ import annotations

import collections

import torch
from torch import nn
from torch.overrides import TorchFunctionMode
from torch.utils.data import DataLoader

from course_utils.checks._core import Wrong, accelerator_targets, call, cases, exercise, number, same, try_it
from course_utils.checks.machines import SimulatedMachine, simulated
from course_utils.loading import WhereAmI, start_method
from course_utils.memory import storage_bytes


def _other_devices() -> list[str]:
    """Devices to test with besides the CPU: meta always, the learner's accelerator when there is one."""
    return ["meta"] + accelerator_targets()


# --------------------------------------------------------------------------- try-it 09.a


@try_it(
    "09.a",
    "The labels follow the logits",
    name="follow",
    kind="function",
    hint="Take the device from the logits tensor, whichever it is.",
)
def _follow(follow) -> str:
    for where in ["cpu"] + _other_devices():
        labels = torch.tensor([2, 0, 3])
        # logits whose argmax is never the label: an answer that computes labels from them cannot pass by chance
        logits = torch.nn.functional.one_hot((labels + 1) % 4, 4).to(torch.float64).to(where)
        got = call(follow, labels, logits)
        shown = f"follow(<int64 labels on cpu>, <float64 logits on {where}>)"
        if type(got) is not torch.Tensor:
            raise Wrong(f"{shown} returned a {type(got).__name__}; expected a tensor.")
        if got.device != logits.device:
            raise Wrong(
                f"{shown} returned labels on {got.device}; expected {logits.device}.",
                "Do not name a device: `logits.device` is the device, whatever machine this runs on.",
            )
        if got.dtype != torch.int64:
            raise Wrong(
                f"{shown} returned dtype {got.dtype}; class labels for cross_entropy stay int64.",
                "`labels.to(logits)` copies the dtype of `logits` too: pass `.to` only its device.",
            )
        if got.shape != labels.shape or (got.device.type != "meta" and not torch.equal(got.cpu(), labels)):
            raise Wrong(
                f"{shown} returned {got.tolist() if got.device.type != 'meta' else tuple(got.shape)}; "
                f"expected the same labels, {labels.tolist()}.",
                "Move the labels; do not compute new ones.",
            )
    return "The labels went wherever the logits were (" + ", ".join(["cpu"] + _other_devices()) + "), still int64: cross_entropy can take them."


# --------------------------------------------------------------------------- try-it 09.b


@try_it(
    "09.b",
    "Workers started with spawn",
    name="spawn_loader",
    hint=("DataLoader takes the start method of its workers as an argument (multiprocessing_context), besides batch_size and num_workers."),
)
def _spawn_loader(value) -> str:
    if not isinstance(value, DataLoader):
        raise Wrong(f"`spawn_loader` should be a DataLoader; it is a {type(value).__name__}.")
    if type(value.dataset) is not WhereAmI or len(value.dataset) != 4:
        raise Wrong(f"`spawn_loader` loads a {type(value.dataset).__name__}; expected WhereAmI(4), four samples.")
    if value.batch_size != 2:
        raise Wrong(f"`spawn_loader` has batch size {value.batch_size}; expected 2.")
    if value.num_workers != 2:
        raise Wrong(f"`spawn_loader` has num_workers={value.num_workers}; expected two worker processes.")
    if value.multiprocessing_context is None:
        raise Wrong(
            f"`spawn_loader` sets no multiprocessing_context, so it uses Python's default ({start_method(value)} here), not spawn.",
            "DataLoader has an argument that chooses how its worker processes start.",
        )
    if start_method(value) != "spawn":
        raise Wrong(
            f"`spawn_loader` starts its workers with {start_method(value)!r}; expected 'spawn'.",
            "A forked worker is a copy of this process; spawn starts a fresh one.",
        )
    return "Two spawned workers: each a fresh Python that imports WhereAmI from course_utils.loading."


# --------------------------------------------------------------------------- try-it 09.c


def _lesson_model() -> nn.Module:
    # The model of the lesson's part 3, on meta: the same parameters, no memory.
    return nn.Sequential(nn.Linear(512, 1024, device="meta"), nn.ReLU(), nn.Linear(1024, 10, device="meta"))


@try_it(
    "09.c",
    "The bytes of a model's parameters",
    name="param_bytes",
    hint="A tensor's bytes are numel() * element_size(); add them up over the model's parameters.",
    writes="your line of Python",
)
def _param_bytes(value) -> str:
    params = list(_lesson_model().parameters())
    expected = sum(p.numel() * p.element_size() for p in params)
    got = number(value)
    if isinstance(value, torch.Tensor):
        raise Wrong("`param_bytes` is a tensor; expected a plain number of bytes.", "Sum Python ints: p.numel() * p.element_size() is an int.")
    if got is None:
        raise Wrong(f"`param_bytes` should be a number of bytes; it is a {type(value).__name__}.")
    if got == expected:
        return f"{expected:,} bytes: {sum(p.numel() for p in params):,} float32 numbers of 4 bytes each."
    if got == sum(p.numel() for p in params):
        raise Wrong(
            f"{int(got):,} is the number of elements, not bytes.", "Multiply each parameter's numel() by its element_size() (4 for float32)."
        )
    if got == sum(p.numel() * p.element_size() for p in params if p.dim() > 1):
        raise Wrong(
            f"{int(got):,} bytes counts the weights only; the biases are parameters too.", "Sum over model.parameters(), every one of them."
        )
    if got == len(params):
        raise Wrong(f"{int(got)} is how many parameter tensors the model has, not their bytes.")
    if got == params[0].numel() * params[0].element_size():
        raise Wrong(f"{int(got):,} bytes is the first weight alone.", "Sum over model.parameters().")
    raise Wrong(f"`param_bytes` is {value!r}, which is not the bytes the model's parameters hold.")


# --------------------------------------------------------------------------- 09.1


class _ToCalls(TorchFunctionMode):
    """Records each ``Tensor.to`` call an answer makes: whether it asked for ``non_blocking``."""

    def __init__(self):
        super().__init__()
        self.calls: list[bool] = []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func is torch.Tensor.to:
            # non_blocking is a keyword in practice; `t.to(device, dtype, True)` puts it third.
            positional = len(args) > 3 and args[3] is True or len(args) > 2 and args[2] is True
            self.calls.append(kwargs.get("non_blocking") is True or positional)
        return func(*args, **kwargs)


# A DataLoader's collate keeps a namedtuple sample a namedtuple (of batched fields), so a batch can hold one;
# at module level, so the grader's kernel finds the class by name (course_grader.boundary).
Sample = collections.namedtuple("Sample", ["features", "weight"])


def _nested(device: str) -> tuple[dict, tuple]:
    """A nested batch, and the path of the one tensor in it already on ``device`` (the practice case)."""
    image, label, mask = torch.randn(2, 3), torch.tensor([1, 0]), torch.ones(2, dtype=torch.bool)
    already = torch.zeros(2, device=device)
    features = torch.arange(4.0)
    ids, name = [7, 8], "batch-0"
    batch = {"inputs": (image, {"mask": mask, "ids": ids}), "label": label, "meta": [name, already], "step": 3, "sample": Sample(features, 0.5)}
    return batch, ("meta", 1)


def _nodes(obj, path: tuple = ()) -> list[tuple[tuple, int]]:
    """Every container and leaf of a batch with the identity of the object there: what a caller keeps."""
    found = [(path, id(obj))]
    if isinstance(obj, dict):
        items = list(obj.items())
    elif isinstance(obj, (list, tuple)):
        items = list(enumerate(obj))
    else:
        items = []
    for key, value in items:
        found += _nodes(value, (*path, key))
    return found


def _at(obj, path: tuple):
    for key in path:
        obj = obj[key]
    return obj


def _tensor_pairs(got, expected) -> list[tuple]:
    """(the answer's tensor, the batch's) at every place of a batch whose structure ``_walk`` accepted."""
    if isinstance(expected, torch.Tensor):
        return [(got, expected)]
    if isinstance(expected, dict):
        return [pair for key in expected for pair in _tensor_pairs(got[key], expected[key])]
    if isinstance(expected, (list, tuple)):
        return [pair for g, e in zip(got, expected) for pair in _tensor_pairs(g, e)]
    return []


def _kept_container(got, expected, path: str) -> str | None:
    """Where the answer handed back a dict or list of the batch itself (in a structure ``_walk`` accepted), as
    "the list at to_device(batch)['meta']", or None: filled in place, that container is the caller's batch changed."""
    if isinstance(expected, (dict, list)) and got is expected:
        return f"the {type(expected).__name__} at {path}"
    if isinstance(expected, dict):
        items = [(got[key], expected[key], f"{path}[{key!r}]") for key in expected]
    elif isinstance(expected, (list, tuple)):
        items = [(g, e, f"{path}[{i}]") for i, (g, e) in enumerate(zip(got, expected))]
    else:
        items = []
    return next((found for g, e, where in items if (found := _kept_container(g, e, where))), None)


def _walk(got, expected, path: str, device: torch.device):
    """Compare the answer's structure with the batch's, leaf by leaf; say the first difference."""
    if isinstance(expected, torch.Tensor):
        if type(got) is not torch.Tensor:
            raise Wrong(f"{path} is a {type(got).__name__}; expected a tensor there.")
        if got.device != device:
            raise Wrong(
                f"{path} is on {got.device}; expected {device}.", "Recurse into every dict, list and tuple: tensors nested inside must move too."
            )
        if got.dtype != expected.dtype or got.shape != expected.shape:
            raise Wrong(
                f"{path} changed from {expected.dtype} {tuple(expected.shape)} to "
                f"{got.dtype} {tuple(got.shape)}; moving should keep dtype and shape."
            )
        if device.type == "cpu" and not torch.equal(got, expected):
            raise Wrong(f"{path} has different values after the move.")
        return
    if isinstance(expected, dict):
        if type(got) is not dict or set(got) != set(expected):
            raise Wrong(
                f"{path} is {type(got).__name__} with keys {sorted(got) if isinstance(got, dict) else '-'}; "
                f"expected a dict with keys {sorted(expected)}."
            )
        for key in expected:
            _walk(got[key], expected[key], f"{path}[{key!r}]", device)
        return
    if isinstance(expected, (list, tuple)):
        if type(got) is not type(expected) or len(got) != len(expected):
            raise Wrong(
                f"{path} is a {type(got).__name__} of {len(got) if hasattr(got, '__len__') else '?'}; "
                f"expected a {type(expected).__name__} of {len(expected)}.",
                "Keep each container's type: a tuple stays a tuple, a list a list, a namedtuple the same namedtuple.",
            )
        for i, (g, e) in enumerate(zip(got, expected)):
            _walk(g, e, f"{path}[{i}]", device)
        return
    if got is not expected:
        raise Wrong(f"{path} was {expected!r} and came back as {got!r}; values that are not tensors pass unchanged.")


@exercise(
    "09.1",
    "Move a nested batch to the device",
    "to_device",
    hint=(
        "Recurse: a tensor moves without blocking; a dict, a list and a tuple are rebuilt, keeping their "
        "type, with their items moved (a namedtuple's class takes its fields as separate arguments); anything "
        "else comes back as it is."
    ),
)
def _to_device(to_device) -> str:
    make = cases("09.1", _nested)  # a grading run builds batches of its own drawing, in the same way
    for where in _other_devices() + ["cpu"]:
        device = torch.device(where)
        batch, already_at = make(where)
        already, before = _at(batch, already_at), _nodes(batch)
        with _ToCalls() as recorded:
            got = call(to_device, batch, device)
        if _nodes(batch) != before:
            raise Wrong(
                "to_device changed the batch it was given; build and return a new structure.",
                "Return new dicts, lists and tuples; the caller may still need the CPU batch.",
            )
        _walk(got, batch, "to_device(batch)", device)
        if kept := _kept_container(got, batch, "to_device(batch)"):
            raise Wrong(
                f"{kept[0].upper()}{kept[1:]} is the batch's own, not a new one: the copy shares it with the batch "
                "it was given, so filling it (now or later) changes that batch too.",
                "Build a new dict or list for every one you meet, and fill the new one; the caller may still need the CPU batch.",
            )
        if _at(got, already_at) is not already:
            raise Wrong(
                f"A tensor already on {device} came back as a different tensor: a needless copy.",
                "t.to(device) returns the same tensor when it is already there; do not clone.",
            )
        if where != "cpu" and not recorded.calls:
            raise Wrong(
                "to_device moved the tensors without calling .to(...).",
                "Use the tensor's own .to, the call a training loop uses, and ask it not to block.",
            )
        if not all(recorded.calls):
            raise Wrong(
                f"{recorded.calls.count(False)} of the {len(recorded.calls)} .to() calls did not ask for a non-blocking copy.",
                "With pinned batches, a non-blocking copy overlaps with the GPU's work; .to has an argument for it.",
            )
    cpu_batch, _ = make("cpu")
    got = call(to_device, cpu_batch, torch.device("cpu"))
    _walk(got, cpu_batch, "to_device(batch)", torch.device("cpu"))
    if any(mine is not theirs for mine, theirs in _tensor_pairs(got, cpu_batch)):
        raise Wrong(
            "to_device(batch, cpu) copied a tensor that was already on the CPU.",
            "t.to(device) returns the same tensor when it is already there; do not clone.",
        )
    return "Every tensor, however deep, moved with non_blocking=True; containers kept their types, other values passed."


# --------------------------------------------------------------------------- 09.2


def _after_one_step(build, make_optimizer, dtype=torch.float32):
    """A model after one real training step: (model, optimizer)."""
    torch.manual_seed(9)
    model = build().to(dtype)
    optimizer = make_optimizer([p for p in model.parameters() if p.requires_grad])
    first = next(m for m in model.modules() if isinstance(m, nn.Linear))
    x = torch.randn(4, first.in_features, dtype=dtype)
    model(x).float().pow(2).mean().backward()
    optimizer.step()
    return model, optimizer


def _frozen_first():
    model = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 2))
    model[0].requires_grad_(False)  # a frozen layer: no gradient, no optimizer state
    return model


class WithUnused(nn.Module):
    """A model whose second head is never used in forward: its parameters get no gradient (widths: in, hidden,
    out, the unused head's; a grading run draws them)."""

    def __init__(self, widths: tuple[int, int, int, int] = (5, 7, 3, 11)):
        super().__init__()
        inp, hidden, out, unused = widths
        self.body = nn.Sequential(nn.Linear(inp, hidden), nn.Tanh(), nn.Linear(hidden, out))
        self.unused_head = nn.Linear(hidden, unused)

    def forward(self, x):
        return self.body(x)


STEP_CASES = (
    ("an MLP with Adam", lambda: nn.Sequential(nn.Linear(10, 16), nn.ReLU(), nn.Linear(16, 4)), lambda ps: torch.optim.Adam(ps), torch.float32),
    ("an MLP with a frozen first layer, Adam", _frozen_first, lambda ps: torch.optim.Adam(ps), torch.float32),
    (
        "a bfloat16 model with SGD and momentum",
        lambda: nn.Sequential(nn.Linear(12, 6), nn.ReLU(), nn.Linear(6, 3)),
        lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.9),
        torch.bfloat16,
    ),
    ("a model with an unused head, AdamW", WithUnused, lambda ps: torch.optim.AdamW(ps), torch.float32),
)
# asked in every run (practice or graded): the body still trains (requires_grad), so its gradients exist, though
# the optimizer holds only the last layer and keeps no state for the body; in bfloat16, where Adam's step is still
# a float32 tensor, so counting the state in the parameters' element size is off
STEP_ALWAYS = (
    (
        "a bfloat16 MLP whose optimizer holds only the last layer, Adam",
        lambda: nn.Sequential(nn.Linear(9, 5), nn.ReLU(), nn.Linear(5, 2)),
        lambda ps: torch.optim.Adam(ps[-2:]),
        torch.bfloat16,
    ),
)


@exercise(
    "09.2",
    "Bytes held between training steps",
    "held_bytes",
    hint=(
        "Between steps memory holds the parameters, the gradients that exist, and every tensor the optimizer "
        "keeps per parameter. A tensor's bytes: t.numel() * t.element_size()."
    ),
)
def _held_bytes(held_bytes) -> str:
    rows = cases("09.2", STEP_CASES)  # a grading run draws models, optimizers and dtypes of its own
    for name, build, make_optimizer, dtype in (*rows, *STEP_ALWAYS):
        model, optimizer = _after_one_step(build, make_optimizer, dtype)
        params = list(model.parameters())
        grads = [p.grad for p in params if p.grad is not None]
        state = [v for s in optimizer.state.values() for v in s.values() if isinstance(v, torch.Tensor)]
        expected = storage_bytes(params) + storage_bytes(grads) + storage_bytes(state)
        answer = call(held_bytes, model, optimizer)
        got = number(answer)
        found = f"For {name}: held_bytes returned {answer!r}, which is not the bytes its parameters, gradients and optimizer state hold."
        if got == expected and type(answer) is int:
            continue
        if got == expected:
            raise Wrong(
                f"For {name}: held_bytes returned {answer!r}, a {type(answer).__name__}; the exercise asks for the bytes as an int.",
                "Return a plain int (sum Python ints, not tensors).",
            )
        if got is None:
            raise Wrong(found, "Return a plain int (sum Python ints, not tensors).")
        raise Wrong(found, *_held_bytes_advice(got, model, optimizer))
    if rows is not STEP_CASES:
        return f"Right for {len(rows) + len(STEP_ALWAYS)} models and optimizers: you counted what the step really left in memory."
    return (
        "Right for Adam, a frozen layer, bfloat16 with SGD momentum, an unused head and an optimizer over the "
        "last layer only: "
        "you counted what the step really left in memory."
    )


def _held_bytes_advice(got: float, model: nn.Module, optimizer) -> tuple[str, ...]:
    """What a wrong count of 09.2 left out or added, where it is a known mistake: a one-hint tuple, or () for none."""
    params = list(model.parameters())
    grads = [p.grad for p in params if p.grad is not None]
    state = [v for s in optimizer.state.values() for v in s.values() if isinstance(v, torch.Tensor)]
    expected = storage_bytes(params) + storage_bytes(grads) + storage_bytes(state)
    held = {id(p) for group in optimizer.param_groups for p in group["params"]}
    if got in (2 * storage_bytes(params), 3 * storage_bytes(params), 4 * storage_bytes(params)):
        return (
            "Do not assume a multiple of the parameters: frozen or unused parameters have no "
            "gradient and no optimizer state, and SGD keeps one buffer, Adam two plus a step. Count "
            "what is really there.",
        )
    if got == sum(t.numel() for t in params + grads + state):
        return ("That counts elements; multiply each tensor's numel() by its element_size().",)
    if got == expected - storage_bytes(grads):
        return ("You left out the gradients: p.grad for each parameter that has one.",)
    if got == expected - storage_bytes(state):
        return ("You left out the optimizer's state: the tensors in optimizer.state[p].",)
    if got == expected - storage_bytes(p.grad for p in params if p.grad is not None and id(p) not in held):
        return ("A parameter the optimizer does not hold can still have a gradient: count every p.grad of the model that is not None.",)
    in_param_size = sum(v.numel() * p.element_size() for p, s in optimizer.state.items() for v in s.values() if isinstance(v, torch.Tensor))
    if got == expected - storage_bytes(state) + in_param_size:
        return (
            "Count each state tensor in its own element_size(), not its parameter's: Adam's step is a float32 "
            "tensor whatever the parameters' dtype.",
        )
    if got == expected - storage_bytes(v for v in state if v.dim() == 0):
        return ("Adam's `step` is a tensor in the state too (one number per parameter): count every tensor in optimizer.state[p].values().",)
    return ()


# --------------------------------------------------------------------------- 09.3


MACHINES = (
    SimulatedMachine("a GPU server", cuda=2, mps=False),
    SimulatedMachine("a CPU-only laptop", cuda=0, mps=False),
    SimulatedMachine("a Mac with MPS", cuda=0, mps=True),
)
# (machine, whether the Dataset touches CUDA): each machine asked both ways
LOADER_CASES = tuple((machine, touches_cuda) for machine in MACHINES for touches_cuda in (False, True))


@exercise(
    "09.3",
    "Choose a DataLoader's settings",
    "loader_options",
    hint=(
        "Decide from what torch says when the function runs, not from this machine: pinned memory only helps "
        "with a CUDA GPU, and spawn is needed only when the workers touch CUDA."
    ),
)
def _loader_options(loader_options) -> str:
    for machine, touches_cuda in cases("09.3", LOADER_CASES):  # a grading run draws machines and questions
        with simulated(machine):
            options = call(loader_options, touches_cuda)
        shown = f"On {machine.name}, loader_options(touches_cuda={touches_cuda}) returned {options!r}"
        if type(options) is not dict or not all(type(k) is str for k in options):
            raise Wrong(f"{shown}; expected a dict of DataLoader keyword arguments.")
        unknown = set(options) - {"pin_memory", "multiprocessing_context"}
        if unknown:
            raise Wrong(
                f"{shown}; keys {sorted(unknown)} are not asked for.", "Return only pin_memory and, where needed, multiprocessing_context."
            )
        if "pin_memory" not in options or type(options["pin_memory"]) is not bool:
            raise Wrong(f"{shown}; expected pin_memory as True or False.")
        if options["pin_memory"] != (machine.cuda > 0):
            hint = (
                "Pinning needs CUDA: on MPS the DataLoader warns and turns it off, on a CPU it warns."
                if options["pin_memory"]
                else "With CUDA, pinned batches copy faster: pin_memory=True there."
            )
            raise Wrong(f"{shown}; pin_memory should be {machine.cuda > 0} there.", hint)
        context = options.get("multiprocessing_context")
        if touches_cuda and not same(context, "spawn"):
            raise Wrong(
                f"{shown}; a Dataset that touches CUDA needs workers started with 'spawn'.",
                "Forked workers cannot initialise CUDA once the parent has.",
            )
        if not touches_cuda and context is not None:
            raise Wrong(
                f"{shown}; without CUDA in the Dataset, keep Python's default start method (leave multiprocessing_context out).",
                "spawn is slower to start: every worker imports torch and your modules afresh.",
            )
        try:
            DataLoader(WhereAmI(4), num_workers=2, **options)  # the options must be accepted as they are
        except (TypeError, ValueError) as exc:
            raise Wrong(f"{shown}; DataLoader rejected them: {exc}") from None
    return "pin_memory only with CUDA, spawn only for a Dataset that touches CUDA, on every machine simulated."
