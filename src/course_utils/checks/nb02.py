"""Checks for notebook 02, tensor placement: its exercises ("02.1") and the lesson's try-it cells ("02.a").

Each check runs on a CPU-only machine with ``meta`` as the second device, and adds CUDA cases
where a GPU is present, so an answer that hard-codes this machine's device does not pass.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from course_utils.checks._core import LearnerRaised, Wrong, accelerator_targets, call, cases, exercise, try_it
from course_utils.scopes import default_device, restore_default_device


def _other_devices() -> list[str]:
    """Devices to test with besides the CPU: meta always, the learner's accelerator when there is one."""
    return ["meta"] + accelerator_targets()


# --------------------------------------------------------------------------- 02.1

# (the reference's dtype, its device: "cpu", or "other" for each of _other_devices(), its length, the values)
LIKE_CASES: tuple[tuple[torch.dtype, str, int, object], ...] = (
    (torch.float32, "cpu", 2, [1.0, 2.5]),
    (torch.int64, "cpu", 1, [[1, 2], [3, 4]]),
    (torch.float64, "cpu", 3, 0.5),
    (torch.float16, "other", 2, [1.0, 2.0, 3.0]),
    (torch.int32, "other", 2, [7]),
)
# asked in every run (practice or graded): float64 values that float32 cannot hold, so an answer that makes the
# tensor in the default dtype and converts it afterwards (torch.tensor(values).to(reference)) loses digits
LIKE_ALWAYS: tuple[tuple[torch.dtype, str, int, object], ...] = ((torch.float64, "cpu", 2, [0.1, 1 / 3]),)


@exercise(
    "02.1",
    "A new tensor like another",
    "like",
    hint=("torch.tensor(values) lands on the CPU with a default dtype unless you say otherwise: take both from the reference tensor."),
)
def _like(like) -> str:
    rows = (*cases("02.1", LIKE_CASES), *LIKE_ALWAYS)
    made = [(dtype, "cpu", length, values) for dtype, where, length, values in rows if where == "cpu"]
    made += [(dtype, device, length, values) for device in _other_devices() for dtype, where, length, values in rows if where == "other"]
    for dtype, device, length, values in made:
        # what is expected comes from the row, never from the arguments as the answer's call leaves them
        expected, want = torch.tensor(values, dtype=dtype), torch.device(device)
        where = f"like(<{dtype} tensor on {device}>, {values!r})"
        got = call(like, torch.zeros(length, dtype=dtype, device=device), values)
        if type(got) is not torch.Tensor:  # a subclass could answer torch.equal as it likes
            raise Wrong(f"{where} returned a {type(got).__name__}; expected a plain tensor.")
        if got.device != want:
            raise Wrong(
                f"{where} returned a tensor on {got.device}; expected {want}.",
                "Take the device from the reference tensor, not from this machine.",
            )
        if got.dtype != dtype:
            raise Wrong(f"{where} returned dtype {got.dtype}; expected {dtype}.")
        if got.shape != expected.shape:
            raise Wrong(f"{where} returned shape {tuple(got.shape)}; expected {tuple(expected.shape)}.")
        if (
            got.device.type != "meta"
            and not torch.equal(got.cpu(), expected)
            and torch.allclose(got.cpu().double(), expected.double(), rtol=1e-6, atol=0)
        ):
            raise Wrong(
                f"{where} returned values that differ from those asked for in their last digits.",
                "Make the tensor in the reference's dtype from the start: a tensor made in the default "
                "dtype (float32) and converted afterwards has already lost the digits float64 keeps.",
            )
        if got.device.type != "meta" and not torch.equal(got.cpu(), expected):
            raise Wrong(f"{where} returned {got.cpu().tolist()}; expected {expected.tolist()}.")
    devices = ", ".join(sorted({str(torch.device(device)) for _, device, _, _ in made}))
    return f"Right device, dtype, shape and values for {len(made)} references on {devices}."


# --------------------------------------------------------------------------- 02.2


@exercise(
    "02.2",
    "Move a batch, copying only what must move",
    "move_batch",
    hint=(
        "Build a new dict: move the values that are tensors with .to(device), and pass every other value "
        "through untouched. (.to already returns the same tensor when it is on the device.)"
    ),
)
def _move_batch(move_batch) -> str:
    for device in _other_devices():
        moving, staying = cases("02.2", _batch)(device)
        before = dict(moving)
        # copies: what the call leaves in the batch's own tensors is not evidence of what they held
        kept = {key: value.clone() for key, value in moving.items() if isinstance(value, torch.Tensor)}
        got = call(move_batch, moving, device)
        if not isinstance(got, dict):
            raise Wrong(f"move_batch returned a {type(got).__name__}; expected a dict.")
        if set(got) != set(before):
            raise Wrong(f"move_batch returned keys {sorted(got)}; expected {sorted(before)}.")
        if set(moving) != set(before) or any(moving[k] is not before[k] for k in before):
            raise Wrong("move_batch changed the dict it was given; return a new dict and leave the input alone.")
        for key, value in before.items():
            if key == staying:
                _not_copied(got[key], value, key, device)
            elif isinstance(value, torch.Tensor):
                _moved(got[key], kept[key], key, device)
            elif got[key] is not value:
                raise Wrong("move_batch changed a value that is not a tensor; return those as they are.")
    cpu_batch = {"x": torch.ones(2)}
    got = call(move_batch, cpu_batch, torch.device("cpu"))
    if got is cpu_batch:
        raise Wrong(
            "move_batch({'x': <cpu tensor>}, torch.device('cpu')) returned the very dict it was given; the exercise asks for a new dict.",
            "Build a new dict every time, even when no tensor has to move: a caller who changes the result should not change its own batch.",
        )
    if got["x"] is not cpu_batch["x"]:
        raise Wrong("move_batch({'x': <cpu tensor>}, torch.device('cpu')) copied the tensor; it is already there.")
    return "Tensors move (dtype kept), tensors already there are not copied, other values pass through, the input is untouched."


# --------------------------------------------------------------------------- 02.3


def _batch(device: str) -> tuple[dict, str]:
    """The practice check's batch for ``device`` and the key of its tensor already there (made afresh each time)."""
    return {
        "x": torch.randn(2, 3),
        "y": torch.arange(2),
        "ids": [4, 5],
        "name": "batch-0",
        "mask": torch.zeros(2, dtype=torch.float16, device=device),
    }, "mask"


def _moved(got, value: torch.Tensor, key: str, device: str) -> None:
    if type(got) is not torch.Tensor:
        raise Wrong(f"move_batch(batch, {device!r})[{key!r}] is a {type(got).__name__}; expected a tensor.")
    if got.device != torch.device(device):
        raise Wrong(f"move_batch(batch, {device!r})[{key!r}] is on {got.device}; expected {device}.")
    if got.dtype != value.dtype:
        raise Wrong(f"move_batch changed the dtype of {key!r} from {value.dtype} to {got.dtype}.")
    if got.shape != value.shape or got.device.type != "meta" and not torch.equal(got.cpu(), value):
        raise Wrong(
            f"move_batch(batch, {device!r})[{key!r}] does not hold the values of batch[{key!r}].",
            "Move each tensor as it is: .to(device) keeps its values.",
        )


def _not_copied(got, value: torch.Tensor, key: str, device: str) -> None:
    if got is not value:
        raise Wrong(
            f"{key!r} was already on {device}, but move_batch returned a different tensor: a needless copy.",
            "Do not pass copy=True or call .clone(): tensor.to(device) returns the same tensor when it is there.",
        )


class _Boom(Exception):
    """Raised by a test `make` to see that build_on restores the default device on the way out."""


def _boom():
    raise _Boom("make() failed on purpose")


# (where: "cpu", "meta" or "accelerators" for each of this machine's, the layer's in and out features)
BUILD_CASES: tuple[tuple[str, int, int], ...] = (("meta", 2, 3), ("accelerators", 2, 3), ("cpu", 2, 3))


def _builds_there(build_on, device: str, fan_in: int, fan_out: int) -> None:
    """Wrong unless make() sees ``device`` as the default inside build_on, and a layer made there is returned."""
    want = torch.device(device)
    seen = call(build_on, device, default_device)
    if not isinstance(seen, torch.device) or seen.type != want.type:
        raise Wrong(
            f"Inside build_on({device!r}, make), make() saw the default device {seen}; expected {device}.",
            "Moving the result afterwards is too late: the tensors must be created there.",
        )
    layer = call(build_on, device, lambda: nn.Linear(fan_in, fan_out))
    if type(layer) is not nn.Linear or (layer.in_features, layer.out_features) != (fan_in, fan_out):
        made = f"nn.Linear({layer.in_features}, {layer.out_features})" if type(layer) is nn.Linear else f"a {type(layer).__name__}"
        raise Wrong(f"build_on({device!r}, lambda: nn.Linear({fan_in}, {fan_out})) returned {made}; return what make() returned.")
    if layer.weight.device.type != want.type:
        raise Wrong(f"build_on({device!r}, lambda: nn.Linear({fan_in}, {fan_out})) made weights on {layer.weight.device}.")


@exercise(
    "02.3",
    "Build under a device, leaving nothing set",
    "build_on",
    hint=(
        "A torch.device used as a with-block sets the default device for what is built inside it, and undoes "
        "itself on the way out, even when make() raises."
    ),
)
def _build_on(build_on) -> str:
    start = default_device()
    try:
        for where, fan_in, fan_out in cases("02.3", BUILD_CASES):
            for device in accelerator_targets() if where == "accelerators" else [where]:
                _builds_there(build_on, device, fan_in, fan_out)
                if default_device() != start:
                    raise Wrong(
                        f"After build_on({device!r}, ...) the default device is {default_device()}; it was {start} before. Leave nothing set."
                    )
        try:
            call(build_on, "meta", _boom)
        except Exception as raised:  # call() wraps the learner's exception; ours is its cause
            if not isinstance(raised.__cause__, _Boom):
                raise
        else:
            raise Wrong("build_on('meta', make) returned normally although make() raised; let the error through.")
        if default_device() != start:
            raise Wrong(
                f"When make() raised, build_on left the default device at {default_device()}.",
                "Undo it in a finally block, or use `with torch.device(device):`, which does so for you.",
            )
        # asked in every run: a default set before the call (torch.set_default_device) is the default again
        # after it; an answer that puts back None or the CPU instead of what it found clears the learner's own
        torch.set_default_device("meta")
        _builds_there(build_on, "cpu", 2, 3)
        if default_device() != torch.device("meta"):
            raise Wrong(
                f"With the default device set to meta before the call, build_on('cpu', make) left it at {default_device()}.",
                "Put back the default you found (torch.get_default_device() tells it), not None or the CPU; "
                "a device used as a with-block puts it back for you.",
            )
    finally:
        # whatever the answer did, leave the default device as it was (None: nothing set, plain CPU)
        restore_default_device(start)
    return "Factories inside make() create on the device, and the default is restored, even when make() raises."


# --------------------------------------------------------------------------- 02.4


class _OnSimulatedGPU(torch.Tensor):
    """A CPU tensor that converts to NumPy as a tensor on cuda:0 does, so a CPU-only check sees the difference.

    Its ``device`` says cuda:0; ``.numpy()`` (and ``np.asarray``) raise PyTorch's own TypeError;
    ``.cpu()`` and ``.to("cpu")`` return a new plain CPU tensor (a copy, as from a GPU), keeping autograd.
    """

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        # == and not `is`: each read of a property's __get__ makes a new method-wrapper object
        if func == torch.Tensor.device.__get__:
            return torch.device("cuda", 0)
        if func is torch.Tensor.numpy and not kwargs.get("force", False):
            # the message of torch/csrc/utils/tensor_numpy.cpp for a CUDA tensor
            raise TypeError("can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory first.")
        if func is torch.Tensor.cpu or (func is torch.Tensor.to and _to_cpu(args[1:], kwargs)):
            with torch._C.DisableTorchFunctionSubclass():
                return torch.Tensor.clone(args[0]).to(*args[1:], **kwargs)  # a copy, as from a GPU
        return super().__torch_function__(func, types, args, kwargs)


def _to_cpu(args, kwargs) -> bool:
    target = kwargs.get("device", args[0] if args else None)
    return isinstance(target, (str, torch.device)) and torch.device(target).type == "cpu"


# (what, the values, dtype, how: "plain", "grad" (requires grad), "transposed" (a non-contiguous view of the
# values transposed), "simulated-gpu" and "simulated-gpu-grad" (see _OnSimulatedGPU; on a real GPU too where
# there is one))
NUMPY_CASES: tuple[tuple[str, object, torch.dtype, str], ...] = (
    ("a CPU tensor", [1.0, 2.0, 3.0], torch.float32, "plain"),
    ("a CPU tensor that requires grad", [0.5, -1.0], torch.float32, "grad"),
    ("a non-contiguous view", [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]], torch.float32, "transposed"),
    ("an int64 tensor", [0, 1, 2, 3, 4], torch.int64, "plain"),
    ("a tensor on cuda:0 (simulated)", [0.0, 0.25, 0.5, 0.75], torch.float32, "simulated-gpu"),
    ("a tensor on cuda:0 that requires grad (simulated)", [1.0, 1.0, 1.0], torch.float32, "simulated-gpu-grad"),
)


def _numpy_case(values, dtype: torch.dtype, how: str, device: str | None = None) -> torch.Tensor:
    """The tensor of a NUMPY_CASES row; ``device``: the row of a simulated GPU made on a real one."""
    t = torch.tensor(values, dtype=dtype, device=device)
    if how == "transposed":
        return t.t()
    if how.endswith("grad"):
        t.requires_grad_(True)
    return t.as_subclass(_OnSimulatedGPU) if how.startswith("simulated-gpu") and device is None else t


def _host_values(t: torch.Tensor) -> torch.Tensor:
    with torch._C.DisableTorchFunctionSubclass():
        return torch.Tensor.detach(t).cpu().clone()


def _copies(numpy_copy, what: str, t: torch.Tensor) -> None:
    """Wrong unless ``numpy_copy(t)`` is an array equal to t that shares no memory with it, t left as it was."""
    expected = _host_values(t)  # before the call: what the call leaves in t is not evidence of what it held
    try:
        got = call(numpy_copy, t)
    except LearnerRaised as raised:
        if "Tensor.cpu()" in str(raised.exc):
            raise Wrong(
                f"For {what} numpy_copy raised {type(raised.exc).__name__}: {raised.exc}",
                "NumPy reads host memory only: the tensor has to come to the CPU before NumPy can see it.",
            ) from None
        raise
    if not torch.equal(_host_values(t), expected):
        raise Wrong(f"For {what}, numpy_copy changed the tensor it was given.", "Copy the values; leave the tensor as it is.")
    if not isinstance(got, np.ndarray):
        raise Wrong(f"For {what} numpy_copy returned a {type(got).__name__}; expected a numpy.ndarray.")
    want = expected.numpy()
    if got.shape != want.shape or got.dtype != want.dtype or not np.array_equal(got, want):
        raise Wrong(f"For {what} numpy_copy returned {got!r}; expected {want!r}.")
    if type(t) is torch.Tensor and t.device.type == "cpu":
        got.flat[0] = got.flat[0] + 100
        if not torch.equal(t.detach(), expected):
            t.data.copy_(expected)
            raise Wrong(
                f"For {what}, writing to the array changed the tensor: they share memory.",
                "On the CPU, moving to the CPU is a no-op and .numpy() shares the tensor's memory: the array needs memory of its own.",
            )


@exercise(
    "02.4",
    "A NumPy copy from any device",
    "numpy_copy",
    hint=(
        "A NumPy array knows nothing of autograd and lives only in host memory, and on the CPU it can share "
        "its memory with the tensor it came from: each of those stands between any tensor and a safe copy."
    ),
)
def _numpy_copy(numpy_copy) -> str:
    rows = cases("02.4", NUMPY_CASES)
    tensors = [(what, _numpy_case(values, dtype, how)) for what, values, dtype, how in rows]
    for device in accelerator_targets():  # the simulated GPU's rows again, on a real one
        tensors += [
            (what.replace(" (simulated)", "").replace("cuda:0", device), _numpy_case(values, dtype, how, device))
            for what, values, dtype, how in rows
            if how.startswith("simulated-gpu")
        ]
    for what, t in tensors:
        _copies(numpy_copy, what, t)
    return f"Equal values and no shared memory for {len(tensors)} tensors ({', '.join(w for w, _ in tensors)})."


# --------------------------------------------------------------------------- the lesson's try-its


def _float_inputs() -> list[torch.Tensor]:
    """Tensors whose device an answer must follow: different shapes, so shape cannot come from them, and one
    float64, so the answer's float32 cannot come from x either."""
    accelerators = [torch.zeros(4, device=d) for d in accelerator_targets()]
    return [torch.zeros(2, 2), torch.zeros(5, device="meta"), *accelerators, torch.zeros(4, 1, dtype=torch.float64)]


@try_it(
    "02.a",
    "Three ones beside x",
    name="ones_beside",
    kind="function",
    hint="Take the device from the tensor you are given, not from a device name you type.",
)
def _ones_beside(ones_beside) -> str:
    for x in _float_inputs():
        got = call(ones_beside, x)
        where = f"ones_beside(<{tuple(x.shape)} tensor on {x.device}>)"
        if type(got) is not torch.Tensor:
            raise Wrong(f"{where} returned a {type(got).__name__}; expected a tensor.")
        if got.device != x.device:
            found = f"{where} returned a tensor on {got.device}; expected {x.device}, the device of x."
            if got.device.type == "cpu":
                raise Wrong(
                    found + " A factory like torch.ones without a device lands on the default device, the CPU, wherever x is.",
                    "The device has to come from x itself; look at which of torch.ones's arguments says where the new tensor goes.",
                )
            raise Wrong(
                found + " A device typed into the function is right for one x only.",
                "Do not name a device: let the x you are given say where it is.",
            )
        if tuple(got.shape) != (3,):
            hint = "`ones_like(x)` copies the shape of x as well as its device; the task asks for three values." if got.shape == x.shape else ""
            raise Wrong(f"{where} returned shape {tuple(got.shape)}; expected (3,).", hint)
        if got.dtype != torch.float32 and got.dtype == x.dtype:
            raise Wrong(
                f"{where.replace('tensor on', f'{x.dtype} tensor on')} returned dtype {got.dtype}: your ones took the "
                "dtype of x along with its device; the task asks for float32 whatever x is.",
                "Take only the device from x (new_ones, ones_like and .to(x) copy its dtype too).",
            )
        if got.dtype != torch.float32:
            raise Wrong(
                f"{where} returned dtype {got.dtype}; expected torch.float32, the default.", "Leave dtype= out, or pass dtype=torch.float32."
            )
        if got.device.type != "meta" and not torch.equal(got.cpu(), torch.ones(3)):
            raise Wrong(f"{where} returned {got.cpu().tolist()}; expected three ones.")
    devices = ", ".join(dict.fromkeys(str(x.device) for x in _float_inputs()))
    return f"Three float32 ones on the device of x, for x on {devices}, whatever the dtype of x."


def _match_cases() -> list[tuple[torch.Tensor, torch.Tensor]]:
    """(x, weight) pairs: device and dtype both change, only one changes, or neither."""
    cases = [
        (torch.arange(4.0), torch.zeros(2, 2, dtype=torch.float16, device="meta")),
        (torch.tensor([0.5, 1.5, 2.5], dtype=torch.float64), torch.zeros(3, 3)),
        (torch.tensor([1, 2, 3]), torch.zeros(1, dtype=torch.float64, device="meta")),
        (torch.tensor([4.0, 5.0]), torch.zeros(1, 1)),
    ]
    for device in accelerator_targets():
        cases.append((torch.tensor([1.0, 2.0]), torch.zeros(2, dtype=torch.float16, device=device)))
    return cases


_CONVERSIONS = ("to", "type", "float", "double", "half", "bfloat16", "int", "long", "cuda", "cpu")


def _conversions(match, x: torch.Tensor, weight: torch.Tensor) -> list[str]:
    """The conversions (``.to``, ``.float()``, ...) one call of ``match(x, weight)`` made, by name (02.b)."""
    from torch.overrides import TorchFunctionMode

    made: list[str] = []

    class Conversions(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            if getattr(func, "__name__", "") in _CONVERSIONS and getattr(func, "__objclass__", None) is torch._C.TensorBase:
                made.append(func.__name__)
            return func(*args, **(kwargs or {}))

    with Conversions():
        call(match, x, weight)
    return made


@try_it(
    "02.b",
    "Match an input to a weight, in one .to",
    name="match",
    kind="function",
    hint="`.to` accepts a tensor as well as a device or a dtype.",
)
def _match(match) -> str:
    for x, weight in _match_cases():
        got = call(match, x, weight)
        where = f"match(<{x.dtype} tensor on {x.device}>, <{weight.dtype} weight on {weight.device}>)"
        if type(got) is not torch.Tensor:
            raise Wrong(f"{where} returned a {type(got).__name__}; expected a tensor.")
        if got.device != weight.device:
            raise Wrong(
                f"{where} returned a tensor on {got.device}; expected {weight.device}, the weight's device.",
                "x.to(weight.dtype) changes only the dtype: the device must follow the weight too.",
            )
        if got.dtype != weight.dtype:
            raise Wrong(
                f"{where} returned dtype {got.dtype}; expected {weight.dtype}, the weight's dtype.",
                "x.to(weight.device) keeps the dtype of x: cast it to the weight's dtype in the same call.",
            )
        if got.shape != x.shape:
            raise Wrong(
                f"{where} returned shape {tuple(got.shape)}; expected {tuple(x.shape)}, the shape of x.",
                "Move x itself; the weight only says where and in which dtype.",
            )
        if got.device.type != "meta" and not torch.equal(got.cpu(), x.to(weight.dtype)):
            raise Wrong(
                f"{where} returned {got.cpu().tolist()}; expected the values of x, {x.tolist()}.",
                "Move x itself; a new tensor like zeros_like has the right place and dtype but not x's values.",
            )
    x, weight = _match_cases()[0]
    made = _conversions(match, x, weight)
    if len(made) > 1:
        raise Wrong(
            f"match converted x in {len(made)} steps ({', '.join('.' + name for name in made)}): each step makes "
            "another copy of x. The task asks for one call that changes device and dtype together.",
            "`.to` accepts a tensor as well as a device or a dtype, and takes both at once.",
        )
    return "x follows the weight's device and dtype, values kept, for every pair (including one where nothing changes)."
