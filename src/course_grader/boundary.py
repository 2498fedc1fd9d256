"""The process boundary of grading: the judge calls the learner's answer in the kernel, and gets data back.

Lesson: none; this is the instructors' tool (``course-grade`` and the nbgrader path). A checker of
``checks/nbNN.py`` runs in the grader's own process, unchanged. Where it calls the learner's
function, it calls a ``RemoteAnswer``: the call's arguments (and the course contexts the checker
has entered: a ``torch.device`` block, a recording ``TorchFunctionMode``) are pickled and sent to
the learner's kernel, which calls the learner's function there. A simulated machine crosses as
``ASK`` alone: its facts stay with the grader, and the kernel's ``AskedMachine`` asks for each one
when torch's functions need it (``split_request``, ``answer_question``; issue 38, item 3). The reply is
**data only**: the return value, the arguments' state after the call and the instruments' logs,
plus exceptions as (type, message): plain containers, numbers and strings pickled with no class or
function in them (``reply_bytes``; the judge's unpickler refuses every global), and the tensors they
refer to written with ``torch.save`` and read here with ``torch.load(weights_only=True)``. Objects the
judge sent come back as references to its own originals, so ``got is model`` and in-place changes mean
what they mean in the learner's notebook.

Requests travel as comm messages on a channel the grader opens in each kernel (``open_channel``;
``course-grade``'s runner and nbgrader's judge alike). The learner's kernel may replace what
answers them, or forge a reply: all it can send is data,
which the checker compares with values it computed itself, in a process the learner's code never
ran in. ``serve`` is what runs in the kernel; ``call_remote`` and ``decode_reply`` run in the judge.

A file or folder a checker hands to the learner's function (a checkpoint to load) crosses as its
path, so it must lie where the kernel can read it at that same path: the checker writes it in a
``course_utils.handover.handover_folder``, which, when grading, lies in the submission's own
handover folder (under bubblewrap the kernel sees it there, read-only; the judge's temporary
folder it never sees). A call that hands any other path is refused as the course's bug.
"""

from __future__ import annotations

import builtins
import collections
import contextlib
import dataclasses
import importlib
import io
import json
import pickle
import types
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import cloudpickle

from course_utils.handover import UnreachablePath, judging_into, refuse_unreachable

COMM_TARGET = "course-grade.judge"  # the comm that carries the judge's requests and the kernel's replies
REPLY_CAP = 4 * 1024 * 1024  # bytes of one reply, before base64: a bigger one is the learner's failure
# What the runner hands the judge in place of a reply it dropped for its size (it never reads one
# whole): the marker, then the size in bytes. A kernel that sends these bytes itself only gets that fail.
_OVERSIZED = b"course-grade: oversized reply of "
MAX_DEPTH = 40

# Classes whose instances may come back as new objects (state only, rebuilt here with __new__):
# layers, optimizers, CUDA scopes and the course's own records; nothing of the learner's notebook,
# and no class with a __del__ (it would run, on the judge's side, with attributes the kernel chose).
_OBJECT_MODULES = ("torch.nn.", "torch.optim.", "torch.cuda.", "course_utils.")
_OBJECT_CLASSES = {"contextlib.nullcontext"}
_PLAIN = (str, int, float, bool, type(None), bytes, complex)


class ChannelLost(BaseException):
    """The kernel timed out or died while answering: not a verdict, the runner's business (BaseException:
    no checker's ``except Exception`` may swallow it)."""

    def __init__(self, status: str, detail: str):
        super().__init__(f"{status}: {detail}")
        self.status, self.detail = status, detail


EVIDENCE = 4000  # characters of a judge-side traceback kept as a grader bug's evidence


class JudgeBroke(RuntimeError):
    """The judge raised in its own process: a grader bug, with the traceback captured there (``judge_traceback``)."""

    def __init__(self, what: str, judge_traceback: str):
        super().__init__(f"the judge failed ({what})")
        self.judge_traceback = judge_traceback


class JudgeLost(RuntimeError):
    """The judge process ended before its verdict: no traceback says why, and without the sandbox a kernel
    (same user) could have ended it; the row is not graded and flagged, never called the grader's bug."""


class BadReply(Exception):
    """The kernel's reply is not data the judge accepts: oversized, malformed, or an unsendable value."""


class LearnerError(Exception):
    """An exception the learner's code raised in the kernel, of a type the judge does not rebuild."""

    def __init__(self, type_name: str, message: str):
        super().__init__(message)
        self.type_name = type_name

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


# ----------------------------------------------------------------------------- the request (judge -> kernel)


def _tracked(roots) -> list:
    """Every non-plain object reachable from ``roots``, in a fixed order: what may come back by reference."""
    import torch

    seen: dict[int, object] = {}
    order: list = []
    stack = [(r, 0) for r in reversed(list(roots))]
    while stack:
        obj, depth = stack.pop()
        if obj is None or type(obj) is bool or isinstance(obj, (torch.device, torch.dtype, type)) or id(obj) in seen:
            continue
        if depth > MAX_DEPTH or len(order) > 100_000:
            continue
        seen[id(obj)] = obj
        order.append(obj)
        children: list = []
        if isinstance(obj, _PLAIN):  # tracked too: a checker may ask whether a str came back as it went
            continue
        if isinstance(obj, torch.Tensor):
            children = [obj.grad] if obj.grad is not None else []
        elif isinstance(obj, (list, tuple, set, frozenset)):
            children = list(obj)
        elif isinstance(obj, dict):
            children = [x for kv in obj.items() for x in kv]
        elif isinstance(obj, types.MethodType):
            children = [obj.__self__]
        elif isinstance(obj, types.FunctionType):
            children = [c.cell_contents for c in obj.__closure__ or () if _has_contents(c)]
        elif hasattr(obj, "__dict__") and not isinstance(obj, types.ModuleType):
            children = list(vars(obj).values())
        stack.extend((c, depth + 1) for c in reversed(children))
    return order


def _has_contents(cell) -> bool:
    try:
        cell.cell_contents  # noqa: B018 (an empty cell raises)
        return True
    except ValueError:
        return False


@dataclass(frozen=True)
class Ambient:
    """The course contexts a checker has entered around a call, as data the kernel re-enters."""

    machine: object = None  # a checks.machines.SimulatedMachine in the judge; in a request, ASK or None
    default: str | None = None  # what torch.set_default_device set (None: nothing)
    modes: tuple = ()  # ("device", "meta"): a torch.device block; ("mode", obj): a course instrument
    rng: object = None  # torch's CPU random state: a checker seeds, the answer's layers draw


def current_ambient() -> Ambient:
    """Read, in the judge, which course contexts are active right now."""
    import torch
    from torch.overrides import _get_current_function_mode_stack
    from torch.utils._device import DeviceContext

    from course_utils.checks.machines import active_machine

    machine = active_machine()
    modes = []
    context = getattr(torch._GLOBAL_DEVICE_CONTEXT, "device_context", None)
    for mode in _get_current_function_mode_stack():
        if mode is context:
            continue  # set_default_device's, sent as Ambient.default
        if isinstance(mode, DeviceContext):
            modes.append(("device", str(mode.device)))
        elif type(mode).__module__.startswith("course_utils."):
            modes.append(("mode", mode))
    return Ambient(machine, None if context is None else str(context.device), tuple(modes), torch.get_rng_state())


# A request's bytes: this tag, the length of the simulated machine's facts (4 bytes, big-endian), the facts as
# JSON, then the pickled request. The facts stay with the grader (``split_request``, in the last step before the
# kernel): the kernel asks for each one when torch's functions need it (issue 38, item 3).
_REQUEST_TAG = b"course-grade request 1\n"
ASK = "ask the judge"  # Ambient.machine in a request: a machine is simulated, its facts answered one at a time
ASKED = "course-grade asks: "  # the prompt of the kernel's question for one of the machine's facts


def split_request(data: bytes) -> tuple[dict | None, bytes]:
    """A request's bytes as (the simulated machine's facts, or None; what the kernel receives)."""
    if not data.startswith(_REQUEST_TAG):
        raise ValueError("not a request of course_grader.boundary")
    at = len(_REQUEST_TAG)
    size = int.from_bytes(data[at : at + 4], "big")
    facts = json.loads(data[at + 4 : at + 4 + size]) if size else None
    return facts, data[at + 4 + size :]


def answer_question(facts: dict | None, question: str) -> str:
    """The judge's answer, as JSON, to a kernel's question (``ASKED`` and a field) about the simulated machine."""
    field = question[len(ASKED) :] if question.startswith(ASKED) else None
    return json.dumps(facts.get(field) if facts and field in facts else None)


class AskedMachine:
    """A simulated machine whose facts stay with the grader's judge: each is asked for (``ask(field)``) when
    torch's functions first need it, then kept for the length of the call (issue 38, item 3).

    The grader's kernel runs a learner's answer under ``checks.machines.simulated(AskedMachine(ask))``: its request
    names no machine, so an answer learns what the machine is only by calling the functions the exercise teaches.
    ``ask`` returns a field of ``SimulatedMachine`` as JSON data (``machine_facts``)."""

    def __init__(self, ask):
        self._ask, self._known = ask, {}

    def _fact(self, field: str):
        if field not in self._known:
            value = self._ask(field)
            if field == "build" and isinstance(value, dict):
                from course_utils.checks.machines import SimulatedBuild

                value = SimulatedBuild(**{k: tuple(v) if isinstance(v, list) else v for k, v in value.items()})
            self._known[field] = value
        return self._known[field]

    name = property(lambda self: "")
    cuda = property(lambda self: self._fact("cuda"))
    mps = property(lambda self: self._fact("mps"))
    current = property(lambda self: self._fact("current"))
    no_cuda = property(lambda self: self._fact("no_cuda"))
    xpu = property(lambda self: self._fact("xpu"))
    build = property(lambda self: self._fact("build"))


def machine_facts(machine) -> dict:
    """What an ``AskedMachine`` may ask of ``machine`` (a ``SimulatedMachine``), as JSON data: every field but its
    name."""
    facts = dataclasses.asdict(machine)
    del facts["name"]
    return facts


def encode_request(kind: str, name: str, args: tuple = (), kwargs: dict | None = None, ambient: Ambient = Ambient()) -> tuple[bytes, list]:  # noqa: B008 (frozen)
    """The request's bytes (``split_request``), and the judge's objects in the order the reply refers to them."""
    kwargs = dict(kwargs or {})
    import torch

    facts = b""
    if ambient.machine is not None:  # the kernel gets no description, only a way to ask for each fact
        facts = json.dumps(machine_facts(ambient.machine)).encode("utf-8")
        ambient = dataclasses.replace(ambient, machine=ASK)

    tracked = _tracked([args, kwargs, ambient.modes])
    grads = [(k, t.grad) for k, t in enumerate(tracked) if isinstance(t, torch.Tensor) and t.grad is not None]
    # cloudpickle: a checker's lambdas and closures go by value (plain pickle refuses them), the rest as pickle does;
    # one pickler, so an object reached twice (an argument, a closure's cell, the tracked list) arrives as one object
    request = cloudpickle.dumps(
        {"kind": kind, "name": name, "args": args, "kwargs": kwargs, "ambient": ambient, "tracked": tracked, "grads": grads},
        protocol=pickle.HIGHEST_PROTOCOL,
    )
    return _REQUEST_TAG + len(facts).to_bytes(4, "big") + facts + request, tracked


# ----------------------------------------------------------------------------- the reply (kernel -> judge)


class _Encoder:
    """Turns values into what ``load_reply`` reads: plain data, tensors, and tags."""

    def __init__(self, tracked: list):
        import torch

        self.torch = torch
        self.index = {id(o): k for k, o in enumerate(tracked)}
        self.numbers = {(type(o), o): k for k, o in enumerate(tracked) if type(o) in (int, float, complex) and o == o}
        self.tracked = tracked

    def value(self, obj, depth: int = 0):
        torch = self.torch
        if depth > MAX_DEPTH:
            raise BadReply("the value is nested too deeply")
        if id(obj) in self.index:
            return {"@": "ref", "k": self.index[id(obj)]}
        if type(obj) in (int, float, complex) and (type(obj), obj) in self.numbers:
            # pickle keeps no identity for numbers: an equal one the judge sent counts as that one
            return {"@": "ref", "k": self.numbers[(type(obj), obj)]}
        if isinstance(obj, _PLAIN) and type(obj) in _PLAIN:
            return obj
        if type(obj) in (torch.device, torch.dtype, torch.Size):
            return {"@": "t", "v": obj} if type(obj) is not torch.Size else {"@": "size", "v": list(obj)}
        if isinstance(obj, torch.Tensor):
            return self.tensor(obj)
        if type(obj).__module__ == "numpy" and type(obj).__name__ == "ndarray":
            return self.ndarray(obj)
        if type(obj).__module__ == "numpy" and hasattr(obj, "item") and hasattr(obj, "dtype"):
            return {"@": "npscalar", "v": obj.item(), "dtype": str(obj.dtype)}
        if type(obj) in (list, tuple, set, frozenset):
            return {"@": type(obj).__name__, "v": [self.value(x, depth + 1) for x in obj]}
        if _is_course_namedtuple(type(obj)):  # a batch a check sent (09.1), rebuilt by its fields
            return {
                "@": "namedtuple",
                "cls": f"{type(obj).__module__}.{type(obj).__qualname__}",
                "v": [self.value(x, depth + 1) for x in tuple.__iter__(obj)],
            }
        if type(obj) in (dict, collections.OrderedDict, collections.defaultdict):
            factory = getattr(obj, "default_factory", None)
            if factory not in (None, dict, list, int):
                raise BadReply("a defaultdict with an unusual factory cannot be sent")
            return {
                "@": type(obj).__name__,
                "f": getattr(factory, "__name__", None),
                "v": [[self.value(k, depth + 1), self.value(v, depth + 1)] for k, v in obj.items()],
            }
        if isinstance(obj, BaseException):
            return {"@": "exc", "type": _exc_name(obj), "args": [self.value(a, depth + 1) for a in obj.args if isinstance(a, _PLAIN)]}
        name = f"{type(obj).__module__}.{type(obj).__qualname__}"
        if (
            hasattr(obj, "__dict__")
            and (name.startswith(_OBJECT_MODULES) or name in _OBJECT_CLASSES)
            and not isinstance(obj, (type, types.FunctionType, types.MethodType, types.ModuleType))
        ):
            return {"@": "obj", "cls": name, "v": self.state(obj, depth)}
        raise BadReply(f"a {type(obj).__name__} cannot be sent back to the grader")

    def state(self, obj, depth: int) -> dict:
        """An object's attributes; the ones that cannot be sent (hooks set by the class) are left out."""
        out = {}
        for key, val in vars(obj).items():
            try:
                out[key] = self.value(val, depth + 1)
            except BadReply:
                continue
        return out

    def tensor(self, t, depth: int = 0):
        torch = self.torch
        with torch._C.DisableTorchFunctionSubclass():
            plain = t.detach().as_subclass(torch.Tensor) if type(t) is not torch.Tensor else t.detach()
        base = self._view_of(plain)
        if base is not None:
            return base
        return {"@": "tensor", "v": plain, "param": isinstance(t, torch.nn.Parameter), "rg": bool(t.requires_grad)}

    def _view_of(self, t):
        """A tensor sharing memory with a tensor the judge sent comes back as a view of the judge's."""
        torch = self.torch
        if t.device.type == "meta":
            return None
        for k, o in enumerate(self.tracked):
            if isinstance(o, torch.Tensor) and o.device == t.device and o.device.type != "meta":
                try:
                    same_storage = o.untyped_storage().data_ptr() == t.untyped_storage().data_ptr()
                except Exception:
                    same_storage = False
                if same_storage and o.dtype == t.dtype and t.numel() > 0:
                    offset = (t.data_ptr() - o.untyped_storage().data_ptr()) // t.element_size()
                    return {"@": "view", "k": k, "size": list(t.shape), "stride": list(t.stride()), "offset": offset}
        return None

    def ndarray(self, array):
        import numpy as np

        torch = self.torch
        for k, o in enumerate(self.tracked):
            if isinstance(o, torch.Tensor) and o.device.type == "cpu":
                try:
                    with torch._C.DisableTorchFunctionSubclass():
                        shared = np.shares_memory(array, torch.Tensor.numpy(o.detach(), force=False))
                except Exception:
                    shared = False
                if shared:
                    return {"@": "ndview", "k": k, "v": torch.from_numpy(np.array(array))}
        return {"@": "ndarray", "v": torch.from_numpy(np.array(array, copy=True))}

    def after(self, obj):
        """What a tracked object holds after the call: its data, contents or attributes."""
        torch = self.torch
        if isinstance(obj, torch.Tensor):
            with torch._C.DisableTorchFunctionSubclass():
                data = obj.detach().as_subclass(torch.Tensor) if type(obj) is not torch.Tensor else obj.detach()
            grad = self.value(obj.grad) if obj.grad is not None else None
            return {"@": "tensor-after", "v": data, "rg": bool(obj.requires_grad), "grad": grad}
        if hasattr(obj, "__dict__") and not isinstance(obj, (type, types.FunctionType, types.MethodType, types.ModuleType)):
            return {"@": "attrs", "v": self.state(obj, 0), "keys": list(vars(obj))}
        return None


class _Unref:
    """Wraps a tracked container so that its contents, not a reference to itself, are encoded."""

    def __init__(self, obj):
        self.obj = obj


def _encode_after(enc: _Encoder, obj):
    if isinstance(obj, _Unref):
        inner = obj.obj
        kind = type(inner)
        if kind in (list, set):
            return {"@": kind.__name__, "v": [enc.value(x) for x in inner]}
        factory = getattr(inner, "default_factory", None)
        return {"@": kind.__name__, "f": getattr(factory, "__name__", None), "v": [[enc.value(k), enc.value(v)] for k, v in inner.items()]}
    return enc.after(obj)


_Encoder.after_value = _encode_after


def _is_course_namedtuple(cls: type) -> bool:
    """A namedtuple class the course defines (``checks.nb09.Sample``): its fields are all its state."""
    return (
        issubclass(cls, tuple)
        and cls.__module__.startswith("course_utils.")
        and isinstance(getattr(cls, "_fields", None), tuple)
        and cls.__bases__ == (tuple,)
    )


def _exc_name(exc: BaseException) -> str:
    cls = type(exc)
    return cls.__qualname__ if cls.__module__ == "builtins" else f"{cls.__module__}.{cls.__qualname__}"


def serve(request: bytes, namespace: dict, ask: Callable[[str], str] | None = None) -> bytes:
    """Runs in the learner's kernel: answer one request of the judge (``split_request``'s second part); returns
    the reply's bytes. ``ask``: how a simulated machine's facts are asked for (a question, ``ASKED`` and a field;
    the answer, JSON); None: the kernel's own standard input, which the grader answers."""
    req = pickle.loads(request)  # from the judge, which is trusted
    tracked = req["tracked"]
    for k, grad in req.get("grads", ()):  # pickling a tensor leaves its .grad behind
        tracked[k].grad = grad
    enc = _Encoder(tracked)
    name = req["name"]
    if req["kind"] == "probe":
        fn = namespace.get(name, _MISSING)
        reply = {
            "probe": {
                "defined": fn is not _MISSING,
                "callable": callable(fn) if fn is not _MISSING else False,
                "type": type(fn).__name__,
                "syntax": _syntax_error(name),
            }
        }
    elif req["kind"] == "value":
        value = namespace.get(name, _MISSING)
        reply = {"probe": {"defined": value is not _MISSING, "ellipsis": value is Ellipsis}}
        if value is not _MISSING and value is not Ellipsis:
            reply.update(_encoded(enc, value))
    else:
        reply = _call(namespace.get(name), req, enc, ask)
    return reply_bytes(reply)


# A reply's bytes: this tag, the length of its structure (8 bytes, big-endian), the structure, then its tensors.
# The structure is a pickle of plain containers, numbers and strings whose only other contents are persistent
# ids: a tensor by its place in the list that follows, a device or dtype by its name, a complex number by its
# parts. The judge's unpickler refuses every global, so nothing in it can name a class or a function; the tensors
# go through torch.save and torch's safe loader. (Stop 48: torch.load(weights_only=True) of the whole reply,
# about 1,500 small dicts and strings around 9 tensors, read them one opcode at a time in Python: 6 ms a reply,
# 0.3 s of each submission of set 10 in the judge. Read this way: under 1 ms.)
_REPLY_TAG = b"course-grade reply 2\n"
_PICKLED_AS_IS = frozenset({str, int, float, bool, type(None), dict, list, tuple, bytes})


class _ReplyPickler(pickle.Pickler):
    """The kernel's side: pickles a reply's structure, each tensor, device, dtype and complex as a persistent id."""

    def __init__(self, file, tensors: list):
        super().__init__(file, protocol=4)
        self.tensors = tensors
        import torch

        self._torch = torch

    def persistent_id(self, obj):
        kind = type(obj)
        if kind in _PICKLED_AS_IS:  # nearly every object of a reply: answered first
            return None
        torch = self._torch
        if kind is complex:
            return ("complex", obj.real, obj.imag)
        if kind is torch.device:
            return ("device", str(obj))
        if kind is torch.dtype:
            return ("dtype", str(obj).removeprefix("torch."))
        if isinstance(obj, torch.Tensor):
            self.tensors.append(obj)
            return ("tensor", len(self.tensors) - 1)
        return None


def reply_bytes(reply: dict) -> bytes:
    """A reply as the kernel sends it (``load_reply`` reads it): the structure's pickle, then its tensors."""
    import torch

    structure, tensors = io.BytesIO(), []
    _ReplyPickler(structure, tensors).dump(reply)
    saved = io.BytesIO()
    torch.save(tensors, saved)
    return _REPLY_TAG + len(structure.getvalue()).to_bytes(8, "big") + structure.getvalue() + saved.getvalue()


class _ReplyUnpickler(pickle.Unpickler):
    """The judge's side: builds only what pickle builds without a global (containers, numbers, strings, bytes),
    and the persistent ids ``_ReplyPickler`` writes, each checked."""

    def __init__(self, file, tensors: list):
        super().__init__(file)
        self.tensors = tensors
        import torch

        self._torch = torch

    def find_class(self, module, name):
        raise pickle.UnpicklingError(f"it names {_short(f'{module}.{name}', 100)}, and a reply names nothing")

    def persistent_load(self, pid):
        torch = self._torch
        kind = pid[0] if type(pid) is tuple and pid else None
        if kind == "tensor" and len(pid) == 2 and type(pid[1]) is int and 0 <= pid[1] < len(self.tensors):
            return self.tensors[pid[1]]
        if kind == "device" and len(pid) == 2 and type(pid[1]) is str and len(pid[1]) < 100:
            return torch.device(pid[1])
        if kind == "dtype" and len(pid) == 2 and type(pid[1]) is str and pid[1].isidentifier():
            dtype = getattr(torch, pid[1], None)
            if type(dtype) is torch.dtype:
                return dtype
        if kind == "complex" and len(pid) == 3 and all(type(x) is float for x in pid[1:]):
            return complex(pid[1], pid[2])
        raise pickle.UnpicklingError("it holds a reference the grader never writes")


def _encoded(enc: _Encoder, value) -> dict:
    """``{"result": ...}``, or ``{"unsendable": why}`` where ``value`` cannot travel back."""
    try:
        return {"result": enc.value(value)}
    except BadReply as bad:
        return {"unsendable": str(bad)}


def _call(fn, req: dict, enc: _Encoder, ask: Callable[[str], str] | None = None) -> dict:
    """Call the learner's ``fn`` under the request's ambient state; the reply: its result or what it raised,
    the tracked objects after the call, the default device and the random state."""
    import torch

    ambient: Ambient = req["ambient"]
    context = getattr(torch._GLOBAL_DEVICE_CONTEXT, "device_context", None)
    if (None if context is None else str(context.device)) != ambient.default:
        torch.set_default_device(ambient.default)
    if ambient.rng is not None:
        torch.set_rng_state(ambient.rng)
    try:
        with contextlib.ExitStack() as stack, warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the judge summarises nothing of these; the learner saw them
            if ambient.machine == ASK:
                from course_utils.checks.machines import simulated

                # not announced: active_machine() in the kernel stays None; torch's functions are what answer,
                # each fact asked for when one of them first needs it
                asking = ask or _kernel_question
                stack.enter_context(simulated(AskedMachine(lambda field: json.loads(asking(ASKED + field))), announce=False))
            for kind, what in ambient.modes:
                stack.enter_context(torch.device(what) if kind == "device" else what)
            result = fn(*req["args"], **req["kwargs"])
    except BaseException as exc:  # noqa: BLE001 (the learner's SystemExit too: it is their failure)
        reply = {
            "raised": {
                "type": _exc_name(exc),
                "message": _short(exc),
                "stub": isinstance(exc, NotImplementedError) and not exc.args,
                "cause": _exc_name(exc.__cause__) if exc.__cause__ is not None else None,
                "where": _where(exc),
            }
        }
    else:
        reply = _encoded(enc, result)
    reply["after"] = _after(enc, req["tracked"])
    reply["default_device"] = str(_default_device())
    reply["rng"] = torch.get_rng_state()
    return reply


def _after(enc: _Encoder, tracked: list) -> dict:
    """The state of each tracked object after the call, by index; objects whose state cannot travel are left out."""
    after = {}
    for k, obj in enumerate(tracked):
        try:
            state = enc.after_value(_Unref(obj) if type(obj) in (list, dict, collections.OrderedDict, collections.defaultdict, set) else obj)
        except BadReply:
            continue
        if state is not None:
            after[k] = state
    return after


_MISSING = object()


def _kernel_question(question: str) -> str:
    """Ask the grader ``question`` on the kernel's standard input, during the request it is answering."""
    from IPython import get_ipython

    kernel = get_ipython().kernel
    # ipykernel's own input() machinery (kernelbase._input_request), addressed to the request's sender: the
    # grader, which answers it (runner.exchange); a learner's input() stays refused (allow_stdin is off)
    return kernel._input_request(question, kernel._parent_ident["shell"], kernel.get_parent("shell"))


def _default_device():
    from course_utils.scopes import default_device

    return default_device()


def _short(exc: BaseException | str, limit: int = 2000) -> str:
    text = str(exc)
    return text if len(text) <= limit else text[:limit] + " ..."


def _where(exc: BaseException) -> str:
    from course_utils.checks._core import learner_line

    try:
        return learner_line(exc)
    except Exception:
        return ""


def _syntax_error(name: str) -> str | None:
    from course_utils.checks._core import syntax_error_defining

    try:
        return syntax_error_defining(name)
    except Exception:
        return None


def open_channel(comm_id: str) -> None:
    """The kernel's side of the grader's channel: answer each of the judge's requests that arrives as a
    comm message on ``comm_id``, with one comm message whose one buffer is the reply.

    A comm message skips what a request cell cost (the cell's text, IPython's transforms and history,
    a displayed reply in base64): 1.4 ms a round trip against 8.8 (docs/grading.md, "Speed").
    ``serve`` is looked up at each request."""
    from comm import create_comm

    import __main__

    channel = create_comm(comm_id=comm_id, target_name=COMM_TARGET)

    def answer(msg):
        buffers = msg.get("buffers") or []
        if len(buffers) == 1:
            channel.send({}, buffers=[serve(bytes(buffers[0]), vars(__main__))])

    channel.on_msg(answer)


def channel_cell(comm_id: str) -> str:
    """The source of the cell that opens the channel in a kernel (run once per kernel, before its first request)."""
    return f"from course_grader.boundary import open_channel as _course_grade_open\n_course_grade_open({comm_id!r})\ndel _course_grade_open\n"


# ----------------------------------------------------------------------------- reading the reply (judge)


def oversized_reply(size: int) -> bytes:
    """What the runner passes on in place of a reply of ``size`` bytes that it dropped unread."""
    return _OVERSIZED + str(int(size)).encode("ascii")


def load_reply(data: bytes) -> dict:
    """Read a reply with torch's safe loader; ``BadReply`` when it is not the data the judge expects."""
    import torch

    if isinstance(data, bytes) and data.startswith(_OVERSIZED):
        size = data[len(_OVERSIZED) :].decode("ascii", "replace")
        raise BadReply(
            f"your function's reply was about {size} bytes, more than the {REPLY_CAP // 2**20} MiB the "
            "grader reads, so all of it was left out; return what the exercise asks for, not more"
        )
    if data == b"":  # the runner's word for none, or more than one (reply_of)
        raise BadReply(
            "your notebook's kernel sent no reply to the grader's request, or more than one: hand in "
            "the notebook without code that changes how the grader's requests are answered"
        )
    if not isinstance(data, bytes) or len(data) > REPLY_CAP:
        raise BadReply(f"the reply is larger than the grader accepts ({REPLY_CAP // 2**20} MiB)")
    if not data.startswith(_REPLY_TAG) or len(data) < len(_REPLY_TAG) + 8:
        raise BadReply(
            "the reply is not what the grader sent for (hand in the notebook without code that changes how the grader's requests are answered)"
        )
    at = len(_REPLY_TAG) + 8
    size = int.from_bytes(data[at - 8 : at], "big")
    try:
        tensors = torch.load(io.BytesIO(data[at + size :]), weights_only=True, map_location="cpu" if _no_gpu() else None)
        if type(tensors) is not list or not all(type(t) is torch.Tensor for t in tensors):
            raise BadReply("the reply's tensors are not a list of plain tensors")
        reply = _ReplyUnpickler(io.BytesIO(data[at : at + size]), tensors).load()
        # the one thing a pickle without globals can still do to a tensor: BUILD calls Tensor.__setstate__, which
        # torch's own loader allows (set_), and which could also give it backward hooks: none may come back
        if any(t._backward_hooks for t in tensors):
            raise BadReply("the reply's tensors carry hooks")
    except BadReply:
        raise
    except Exception as exc:
        raise BadReply(f"the reply could not be read safely ({type(exc).__name__}: {_short(exc, 200)})") from None
    if not isinstance(reply, dict):
        raise BadReply("the reply is not what the grader sent for")
    return reply


def _no_gpu() -> bool:
    import torch

    return not torch.cuda.is_available()


class _Decoder:
    def __init__(self, tracked: list):
        import torch

        self.torch = torch
        self.tracked = tracked

    def ref(self, k):
        if type(k) is not int or not 0 <= k < len(self.tracked):
            raise BadReply("the reply refers to an object the grader never sent")
        return self.tracked[k]

    def value(self, data, depth: int = 0):
        if depth > MAX_DEPTH:
            raise BadReply("the reply is nested too deeply")
        if type(data) in _PLAIN:
            return data
        if type(data) is not dict or "@" not in data:
            raise BadReply(f"the reply holds an unexpected {type(data).__name__}")
        tag = data["@"]
        decode = self._BY_TAG.get(tag) if type(tag) is str else None  # a list as a tag is no key either
        if decode is None:
            raise BadReply(f"the reply holds an unknown tag {tag!r}")
        return decode(self, data, depth)

    # One method per tag the encoder writes, looked up in _BY_TAG below.

    def _ref_tag(self, data, depth):
        return self.ref(data["k"])

    def _torch_value(self, data, depth):
        if type(data["v"]) not in (self.torch.device, self.torch.dtype):
            raise BadReply("the reply's device or dtype is not one")
        return data["v"]

    def _size(self, data, depth):
        return self.torch.Size([int(x) for x in data["v"]])

    def _tensor_tag(self, data, depth):
        t = self._tensor(data["v"])
        if data.get("param"):
            return self.torch.nn.Parameter(t, requires_grad=bool(data.get("rg")))
        return t.requires_grad_(True) if data.get("rg") and t.is_floating_point() else t

    def _view(self, data, depth):
        base = self.ref(data["k"])
        if not isinstance(base, self.torch.Tensor):
            raise BadReply("the reply's view is of something that is not a tensor")
        try:
            return base.detach().as_strided([int(x) for x in data["size"]], [int(x) for x in data["stride"]], int(data["offset"]))
        except Exception as exc:
            raise BadReply(f"the reply's view does not fit its tensor ({exc})") from None

    def _ndarray(self, data, depth):
        torch = self.torch
        array = self._tensor(data["v"]).numpy()
        if data["@"] == "ndview":
            base = self.ref(data["k"])
            if isinstance(base, torch.Tensor) and tuple(base.shape) == array.shape:
                with torch._C.DisableTorchFunctionSubclass():
                    return torch.Tensor.numpy(base.detach())
        return array

    def _npscalar(self, data, depth):
        import numpy as np

        return np.dtype(str(data["dtype"])).type(data["v"])

    def _sequence(self, data, depth):
        items = [self.value(x, depth + 1) for x in self._list(data["v"])]
        return {"list": list, "tuple": tuple, "set": set, "frozenset": frozenset}[data["@"]](items)

    def _namedtuple(self, data, depth):
        cls = self._class(str(data["cls"]))
        if not _is_course_namedtuple(cls):
            raise BadReply(f"the reply names {data['cls']}, which is not one of the course's namedtuples")
        items = [self.value(x, depth + 1) for x in self._list(data["v"])]
        if len(items) != len(cls._fields):
            raise BadReply(f"the reply's {cls.__name__} has {len(items)} fields, not {len(cls._fields)}")
        return cls(*items)

    def _mapping(self, data, depth):
        tag = data["@"]
        pairs = [(self.value(k, depth + 1), self.value(v, depth + 1)) for k, v in self._pairs(data["v"])]
        if tag == "defaultdict":
            factory = {"dict": dict, "list": list, "int": int}.get(data.get("f"))
            return collections.defaultdict(factory, pairs)
        return (dict if tag == "dict" else collections.OrderedDict)(pairs)

    def _object(self, data, depth):
        cls = self._class(str(data["cls"]))
        obj = cls.__new__(cls)
        if isinstance(obj, self.torch.nn.Module):  # the attributes every module has, before the ones sent
            self.torch.nn.Module.__init__(obj)
        obj.__dict__.update(self._attrs(data["v"], depth))
        return obj

    def _exception_tag(self, data, depth):
        return _exception(str(data["type"]), " ".join(str(a) for a in self._list(data["args"])))

    _BY_TAG: ClassVar[dict[str, Callable]] = {
        "ref": _ref_tag,
        "t": _torch_value,
        "size": _size,
        "tensor": _tensor_tag,
        "view": _view,
        "ndarray": _ndarray,
        "ndview": _ndarray,
        "npscalar": _npscalar,
        "list": _sequence,
        "tuple": _sequence,
        "set": _sequence,
        "frozenset": _sequence,
        "namedtuple": _namedtuple,
        "dict": _mapping,
        "OrderedDict": _mapping,
        "defaultdict": _mapping,
        "obj": _object,
        "exc": _exception_tag,
    }

    def _tensor(self, t):
        if type(t) is not self.torch.Tensor:
            raise BadReply("the reply's tensor is not a plain tensor")
        return t

    @staticmethod
    def _list(v) -> list:
        if type(v) is not list:
            raise BadReply("the reply's list is not a list")
        return v

    def _pairs(self, v) -> list:
        pairs = self._list(v)
        if not all(type(p) is list and len(p) == 2 for p in pairs):
            raise BadReply("the reply's dict is malformed")
        return pairs

    def _attrs(self, v, depth: int) -> dict:
        if type(v) is not dict or not all(type(k) is str for k in v):
            raise BadReply("the reply's attributes are malformed")
        return {k: self.value(x, depth + 1) for k, x in v.items()}

    def _class(self, name: str) -> type:
        if not (name.startswith(_OBJECT_MODULES) or name in _OBJECT_CLASSES):
            raise BadReply(f"the reply holds an object of {name}, which the grader does not rebuild")
        module_name, _, qualname = name.rpartition(".")
        while module_name:
            try:
                found = importlib.import_module(module_name)
                break
            except ImportError:
                module_name, _, head = module_name.rpartition(".")
                qualname = f"{head}.{qualname}"
        else:
            raise BadReply(f"the reply names a class the grader cannot find: {name}")
        for part in qualname.split("."):
            found = getattr(found, part, None)
        if (
            not isinstance(found, type)
            or issubclass(found, BaseException)
            or any("__del__" in vars(k) for k in found.__mro__ if k is not object)
        ):
            raise BadReply(f"the reply names {name}, which is not a class the grader rebuilds")
        return found

    def apply_after(self, k, data) -> None:
        """Put what the kernel's copy of tracked object ``k`` became into the judge's original, in place."""
        torch = self.torch
        orig = self.ref(k)
        if type(data) is not dict:
            raise BadReply("the reply's state is malformed")
        tag = data.get("@")
        if tag == "tensor-after" and isinstance(orig, torch.Tensor):
            new = self._tensor(data["v"])
            with torch.no_grad():
                if new.device != orig.device or new.dtype != orig.dtype or new.shape != orig.shape:
                    orig.data = new
                elif new.device.type != "meta" and not (orig.is_sparse or orig.is_quantized):
                    with torch._C.DisableTorchFunctionSubclass():
                        if not torch.equal(torch.Tensor.detach(orig), new):
                            torch.Tensor.copy_(orig.data, new)
            if orig.is_leaf and bool(data.get("rg")) != orig.requires_grad:
                with contextlib.suppress(RuntimeError):
                    orig.requires_grad_(bool(data.get("rg")))
            grad = data.get("grad")
            if grad is not None:
                orig.grad = self.value(grad)
            return
        if tag in ("list", "set") and type(orig) in (list, set):
            items = [self.value(x) for x in self._list(data["v"])]
            if type(orig) is list:
                orig[:] = items
            else:
                orig.clear()
                orig.update(items)
            return
        if tag in ("dict", "OrderedDict", "defaultdict") and isinstance(orig, dict):
            pairs = [(self.value(a), self.value(b)) for a, b in self._pairs(data["v"])]
            orig.clear()
            orig.update(pairs)
            return
        if tag == "attrs" and hasattr(orig, "__dict__"):
            attrs = self._attrs(data["v"], 0)
            keys = set(self._list(data.get("keys", [])))
            for key in [key for key in vars(orig) if key not in keys]:
                del vars(orig)[key]  # deleted in the kernel
            vars(orig).update(attrs)
            return
        raise BadReply("the reply's state does not match the object the grader sent")


_REBUILT_EXCEPTIONS = {
    name: getattr(builtins, name)
    for name in dir(builtins)
    if isinstance(getattr(builtins, name), type) and issubclass(getattr(builtins, name), Exception)
}


def _exception(type_name: str, message: str) -> BaseException:
    """An exception like the one the learner's code raised: builtin types and the course's own rebuilt."""
    cls = _REBUILT_EXCEPTIONS.get(type_name)
    if cls is None and type_name.startswith("course_utils.") and "<" not in type_name:
        module_name, _, qualname = type_name.rpartition(".")
        try:
            found = getattr(importlib.import_module(module_name), qualname, None)
            cls = found if isinstance(found, type) and issubclass(found, Exception) else None
        except Exception:
            cls = None
    if cls is not None:
        try:
            exc = cls(message) if message or cls is not NotImplementedError else cls()
            if type(exc) is cls:
                return exc
        except Exception:
            pass
    return LearnerError(type_name, message)


def decode_reply(data: bytes, tracked: list) -> dict:
    """The reply, its values decoded and its state already put into the judge's objects.

    The bytes are the kernel's to choose (a learner can replace ``serve`` in their kernel): whatever
    they make the decoder raise is a ``BadReply``, the learner's failure, never an exception that
    reads as the grader's own bug (issue 39: a "grader bug" needs evidence from the judge's side)."""
    reply = load_reply(data)
    try:
        return _decoded(reply, tracked)
    except BadReply:
        raise
    except Exception as exc:
        raise BadReply(f"the reply is malformed ({type(exc).__name__}: {_short(exc, 200)})") from None


def _decoded(reply: dict, tracked: list) -> dict:
    dec = _Decoder(tracked)
    after = reply.get("after") or {}
    if type(after) is not dict:
        raise BadReply("the reply's state is malformed")
    for k, state in after.items():
        dec.apply_after(k, state)
    if "result" in reply:
        reply["result"] = dec.value(reply["result"])
    return reply


# ----------------------------------------------------------------------------- the proxy (judge)


Channel = Callable[[bytes], bytes]  # sends a request to the kernel, returns its reply's bytes


class RemoteAnswer:
    """Stands in, in the judge, for the learner's function: each call runs it in the kernel."""

    _course_remote = True

    def __init__(self, name: str, channel: Channel):
        self.__name__ = self.name = name
        self.channel = channel
        self.calls = 0

    def __repr__(self) -> str:
        return f"<your function {self.name}>"

    def __call__(self, *args, **kwargs):
        import torch

        from course_utils.scopes import default_device, restore_default_device

        self.calls += 1
        before = default_device()
        request, tracked = encode_request("call", self.name, args, kwargs, current_ambient())
        # a path the kernel may not read, in the arguments or the checker's instruments: the course's bug (tracked
        # once: walking a model's objects twice a request cost more than the reply's decoding, stop 48)
        refuse_unreachable(tracked)
        reply = decode_reply(self.channel(request), tracked)
        rng = reply.get("rng")
        if type(rng) is torch.Tensor and rng.dtype == torch.uint8:  # the draws the answer made count here too
            with contextlib.suppress(Exception):
                torch.set_rng_state(rng)
        after = reply.get("default_device")
        if isinstance(after, str) and after != str(before):
            # the answer left the default device changed in the kernel: so it is here, for the checker to see
            # (grade() restores the judge's own afterwards)
            with contextlib.suppress(Exception):
                restore_default_device(after)
        if "raised" in reply:
            raised = reply["raised"]
            if type(raised) is not dict:
                raise BadReply("the reply's error is malformed")
            if raised.get("stub") is True:
                raise NotImplementedError()
            exc = _exception(str(raised.get("type")), str(raised.get("message", "")))
            cause = raised.get("cause")
            if isinstance(cause, str):
                exc.__cause__ = _exception(cause, "")
            exc._course_where = str(raised.get("where") or "")
            raise exc
        if "unsendable" in reply:
            raise LearnerError("ValueError", f"your function returned a value the grader cannot read: {_short(reply['unsendable'], 300)}")
        if "result" not in reply:
            raise BadReply("the reply holds no result")
        return reply["result"]


def probe(name: str, channel: Channel, kind: str = "probe") -> dict:
    """Ask the kernel whether ``name`` is defined (and callable); for a value, fetch it."""
    request, tracked = encode_request(kind, name)
    reply = decode_reply(channel(request), tracked)
    found = reply.get("probe")
    if type(found) is not dict:
        raise BadReply("the reply's answer to a probe is malformed")
    if kind == "value":
        found = {**found, "value": reply.get("result", _MISSING), "unsendable": reply.get("unsendable")}
    return found


@contextlib.contextmanager
def _judge_modes_set_aside():
    """Serve a local request as a fresh kernel would: none of the judge's modes or default device set."""
    import torch
    from torch.overrides import _get_current_function_mode_stack

    from course_utils.checks.machines import unannounced
    from course_utils.scopes import restore_default_device

    context = getattr(torch._GLOBAL_DEVICE_CONTEXT, "device_context", None)
    judges = None if context is None else context.device
    torch.set_default_device(None)
    modes = _get_current_function_mode_stack()
    for _ in modes:
        torch._C._pop_torch_function_stack()
    try:
        with unannounced():  # nor the judge's simulated machine announced
            yield
    finally:
        torch.set_default_device(None)
        while _get_current_function_mode_stack():  # what the answer left entered
            torch._C._pop_torch_function_stack()
        for mode in modes:
            torch._C._push_on_torch_function_stack(mode)
        restore_default_device(judges)


def local_channel(namespace: dict) -> Channel:
    """A channel that serves requests in this process: what the tests use to prove the proxy faithful.

    The request is pickled and unpickled, and the reply goes through ``reply_bytes`` and ``load_reply``,
    exactly as across the real boundary."""

    def send(request: bytes) -> bytes:
        facts, request = split_request(request)
        with _judge_modes_set_aside():  # a kernel starts with none of the judge's modes entered
            return serve(request, namespace, lambda question: answer_question(facts, question))

    return send


# ----------------------------------------------------------------------------- one exercise, judged


def practice_cases(key: str) -> None:
    """A draw that draws nothing: the checkers run their public tables, as a notebook's practice check does
    (the tests that hold the boundary faithful to ``check`` in-process)."""
    return None


def grade(exercise_id: str, channel: Channel, handover: Path | None = None, draw: Callable[[str], object] | None = None):
    """Judge exercise ``exercise_id`` in this process, its answer running behind ``channel``: a CheckResult.

    ``draw``: the cases the checkers run (``course_utils.checks._core.cases``); None, what every grading run
    uses, draws them afresh from a secret seed (``course_grader.hidden_cases.Draw``).

    ``handover``: a folder the kernel reads at the same path (``course-grade``: the submission's
    ``Scratch.handover``), where the checker's ``handover_folder`` puts the files it hands over;
    None (nbgrader, whose kernel shares this machine's temporary folder): the temporary folder.
    ``ChannelLost`` (the kernel timed out or died) goes through to the runner."""

    from course_grader.hidden_cases import Draw  # the judge's only: never staged where a kernel imports
    from course_utils.checks._core import CheckResult, drawing_cases, get_exercise
    from course_utils.scopes import default_device, restore_default_device

    ex = get_exercise(exercise_id)
    start = default_device()
    draw = Draw() if draw is None else draw
    try:
        with judging_into(handover), drawing_cases(draw):  # this judging's own cases, from a fresh secret seed
            return _judge(ex, channel, draw)
    except BadReply as bad:
        return CheckResult(
            ex.id,
            ex.title,
            "fail",
            f"The grader could not read your notebook's answer: {bad}.",
            "Hand in the notebook without code that changes how its cells run.",
        )
    except UnreachablePath as bug:
        return CheckResult(
            ex.id,
            ex.title,
            "error",
            f"The check handed your function a path your notebook may not "
            f"be able to read ({_short(bug.path, 300)}): it was not made with handover_folder. "
            "This is a course bug.",
            "Please report it with this message; your answer may well be right.",
        )
    finally:
        if default_device() != start:  # an answer's set_default_device was mirrored here: undo it
            restore_default_device(start)


def _judge(ex, channel: Channel, draw: Callable[[str], object] = practice_cases):
    """``grade``'s work: probe for the learner's name, then run the checker on it (or check the value)."""
    from course_utils.checks._core import UNSET, CheckResult, check_value, missing

    if ex.kind == "value":
        found = probe(ex.function, channel, "value")
        if found.get("unsendable"):
            return CheckResult(ex.id, ex.title, "fail", f"`{ex.function}` cannot be graded: {_short(found['unsendable'], 300)}.", ex.hint)
        value = found["value"] if found.get("defined") else UNSET
        return check_value(ex, Ellipsis if found.get("ellipsis") else value)
    found = probe(ex.function, channel)
    if found.get("defined") is not True or found.get("type") == "NoneType":
        syntax = found.get("syntax")
        return missing(ex, syntax if isinstance(syntax, str) else None)
    if found.get("callable") is not True:
        return CheckResult(
            ex.id,
            ex.title,
            "fail",
            f"`{ex.function}` should be a function, but it is a {_short(found.get('type'), 80)}.",
            f"Define it with `def {ex.function}(...):`.",
        )
    # the learner's cells as the grader read them from the file (course-grade's runner and nbgrader's judge hand
    # them; None: a channel that does not), read by the source rules where the kernel's account could be rewritten
    source = getattr(channel, "learner_source", None)
    source = source if isinstance(source, str) else None
    return _kept_source_rules(ex, _on_drawn_and_public_cases(ex, channel, draw), source)


def _on_drawn_and_public_cases(ex, channel: Channel, draw: Callable[[str], object]):
    """The checker's result on this judging's drawn cases (``draw``, which ``grade`` has entered) and then, if it
    passed, on the exercise's public table (``draw.public``: the whole table, or a drawn part of a long one,
    ``hidden_cases.PUBLIC_SAMPLES``).

    Grading is the practice check and more: the drawn cases defeat a replay or a lookup of the public rows, and
    the public rows, chosen by hand to catch the plausible mistakes, fail the wrong answers a random draw may
    miss (stop 44: 01.2's "cut before the repeat" passed 147 draws in 200). An exercise without drawn cases runs
    once."""
    from course_utils.checks._core import drawing_cases, run_checker

    result = run_checker(ex, RemoteAnswer(ex.function, channel))
    if not result.passed or draw(ex.id) is None:
        return result
    with drawing_cases(getattr(draw, "public", practice_cases)):
        public = run_checker(ex, RemoteAnswer(ex.function, channel))
    if public.passed:
        return result
    return dataclasses.replace(public, message=f"On the cases the practice check in the notebook runs: {public.message}")


def _kept_source_rules(ex, result, source: str | None):
    """``result``, or a fail when it passed but the notebook's file breaks one of the exercise's source rules
    (``course_grader.source_rules``: the call it teaches, where the answer can reach it; not the course's own
    tool for the job). A checker's own fail comes first: it says more about a wrong answer."""
    from course_grader.source_rules import broken_rule
    from course_utils.checks._core import CheckResult

    broken = broken_rule(ex.id, ex.function, source) if result.status == "pass" else None
    return result if broken is None else CheckResult(ex.id, ex.title, "fail", broken.message, broken.hint)
