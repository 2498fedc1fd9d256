"""Run a submission's steps in a kernel of its own, surviving endless loops, crashes and floods.

Lesson: none; this is the instructors' tool (``course-grade``). Each cell gets a time limit
(and the whole submission one more). When a cell runs past its limit, or the kernel dies
(``os._exit``, a segfault), the grader kills the kernel's process group, starts a new kernel,
re-runs the cells before the lost one (their outputs are not kept twice) and goes on without
it, at most ``max_restarts`` times. Outputs are capped per cell as they arrive, so a learner who
prints a gigabyte costs one message in memory, not a gigabyte per cell in the results.

A check step runs no code of the grader's in the kernel: the judge (``course_grader.boundary.grade``)
runs the exercise's checker here, in a worker thread, and each call of the learner's function
becomes a comm message to the kernel, sent and answered on this event loop (the kernel's first
request of a life opens the channel with one cell, ``boundary.open_channel``); its reply is data. The
check's time limit (``cell_timeout``) covers all its requests together.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import os
import queue
import socket
import threading
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
import zmq
import zmq.asyncio
from jupyter_client.manager import AsyncKernelManager
from nbclient import NotebookClient
from nbclient.exceptions import CellTimeoutError, DeadKernelError
from traitlets import Bool, List, Unicode

from course_grader.boundary import EVIDENCE, REPLY_CAP, ChannelLost, JudgeLost, answer_question, channel_cell, oversized_reply, split_request
from course_grader.plan import Step
from course_grader.sandbox import Scratch, open_regular
from course_utils.display import truncate
from course_utils.processes import ProcessGroups, kill_group, signal_name

OUTPUT_CAP = 64 * 1024  # characters of output kept per cell
ERROR_TEXT_CAP = 2000
SETUP_TIMEOUT = 120.0
POLL_ALIVE = 1.0  # seconds between checks that a kernel answering a request is still alive
SIGNALS = {
    "SIGSEGV": "a segmentation fault",
    "SIGKILL": "killed, perhaps for using too much memory",
    "SIGABRT": "aborted",
    "SIGBUS": "a bus error",
    "SIGFPE": "a floating-point fault",
}


@dataclass
class StepRun:
    """What happened to one step. ``status``: ok, error, timeout, died, or not-run."""

    status: str = "not-run"
    outputs: list = field(default_factory=list)
    error: str = ""  # "ZeroDivisionError: division by zero" when the cell raised
    capped: bool = False
    detail: str = ""  # why it timed out, died or did not run
    cause: str = ""  # for a step that did not run: "timeout", "crashed" or "error"
    result: dict | None = None  # for a check step that ran: the judge's verdict (status, title, message, hint)
    slow: bool = False  # stopped, or never judged, because the submission's judge time was used up


@dataclass(frozen=True)
class Limits:
    """The time and output limits for one submission."""

    cell_timeout: float = 60.0
    total_timeout: float = 600.0
    # seconds the judge may spend on one submission's checks in all, its answers' time in the kernel
    # included: a submission whose answers are slow uses up its own, and no other's (issues 38, 39)
    judge_timeout: float = 120.0
    output_cap: int = OUTPUT_CAP
    max_restarts: int = 3


def _size(obj, limit: int) -> int:
    """Characters in a message's content, counted only up to ``limit`` (it may be huge)."""
    total, stack = 0, [obj]
    while stack and total <= limit:
        item = stack.pop()
        if isinstance(item, str):
            total += len(item)
        elif isinstance(item, dict):
            total += len(item)
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
        else:
            total += 8
    return total


class _CappedClient(NotebookClient):
    """An nbclient that keeps at most ``cap`` characters of output per cell, errors always (cut)."""

    def __init__(self, nb, cap: int, **kw):
        super().__init__(nb, **kw)
        self.cap = cap
        self.used: dict[int, int] = {}
        self.capped: set[int] = set()

    def process_message(self, msg, cell, cell_index):
        kind = msg.get("msg_type", "")
        if kind in ("stream", "display_data", "execute_result", "error", "update_display_data") or kind.startswith("comm"):
            msg = self._within_cap(msg, kind, cell_index)
            if msg is None:
                return None
        return super().process_message(msg, cell, cell_index)

    def _within_cap(self, msg, kind, index):
        content = msg.get("content") or {}
        if kind == "error":
            trace = [truncate(str(line), 500) for line in (content.get("traceback") or [])[-30:]]
            content = {**content, "evalue": truncate(str(content.get("evalue", "")), ERROR_TEXT_CAP), "traceback": trace}
            return {**msg, "content": content}
        left = self.cap - self.used.get(index, 0)
        size = _size(content, max(left, 0) + 1)
        if size <= left:
            self.used[index] = self.used.get(index, 0) + size
            return msg
        self.capped.add(index)
        if kind == "stream" and left > 0 and isinstance(content.get("text"), str):
            self.used[index] = self.cap
            return {**msg, "content": {**content, "text": content["text"][:left] + "\n[output cut by the grader]\n"}}
        return None


def _boot_source() -> str:
    """``kernel_boot``'s source, run with ``python -c``: no package import comes before its first instruction."""
    from course_grader import kernel_boot

    return Path(kernel_boot.__file__).read_text(encoding="utf-8")


class PrivateKernelManager(AsyncKernelManager):
    """A kernel manager that starts the kernel behind a command prefix (bwrap ... --) and, with
    ``key_by_stdin``, through ``kernel_boot``: the connection file it writes then holds no key."""

    sandbox_prefix = List(Unicode())
    key_by_stdin = Bool(False)

    def format_kernel_cmd(self, extra_arguments=None):
        cmd = super().format_kernel_cmd(extra_arguments)
        if self.key_by_stdin:
            at = cmd.index("ipykernel_launcher")
            rest = list(cmd[at + 1 :])
            if "-f" in rest:  # the connection file: the settings come through stdin instead
                del rest[rest.index("-f") : rest.index("-f") + 2]
            # "-m ipykernel_launcher -f FILE ARGS" becomes "-c <kernel_boot> ARGS"
            cmd = [*cmd[: at - 1], "-c", _boot_source(), *rest]
        return [*self.sandbox_prefix, *cmd]

    def write_connection_file(self, **kwargs):
        if not self.key_by_stdin:
            return super().write_connection_file(**kwargs)
        key = self.session.key
        self.session.key = b""  # on disk: ports and transport only
        try:
            return super().write_connection_file(**kwargs)
        finally:
            self.session.key = key


def private_kernel(
    km: PrivateKernelManager, folder: Path, ipc: str = "", prefix: tuple[str, ...] = (), private: bool = True
) -> tuple[socket.socket | None, socket.socket | None]:
    """Set up ``km`` to start its kernel with its connection file in ``folder``, Unix sockets at ``ipc`` (or TCP
    on localhost for ""), behind ``prefix``, and, where ``private`` and the kernel is ipykernel, the key
    through its stdin. Returns (ours, theirs): pass ``stdin=theirs.fileno()`` to the start, then
    ``send_settings(km, ours, theirs)``; (None, None) when the key goes in the file."""
    km.connection_file = str(Path(folder) / "kernel.json")
    if ipc:
        km.transport = "ipc"
        km.ip = ipc
    km.sandbox_prefix = list(prefix)
    km.key_by_stdin = private and boots_privately(km.kernel_spec.argv)
    return socket.socketpair() if km.key_by_stdin else (None, None)


def send_settings(km: PrivateKernelManager, ours: socket.socket | None, theirs: socket.socket | None) -> None:
    """After the kernel started: close its end here and hand it its settings, key included, through ours."""
    if theirs is not None:
        theirs.close()
    if ours is not None:
        with ours:
            info = km.get_connection_info()
            ours.sendall(json.dumps({**info, "key": info["key"].decode("ascii")}).encode())


def boots_privately(argv: list[str]) -> bool:
    """Whether a kernel spec's command is ipykernel's (``python -m ipykernel_launcher``), which ``kernel_boot`` replaces."""
    return (
        os.name == "posix"
        and "ipykernel_launcher" in argv
        and argv.index("ipykernel_launcher") > 0
        and (argv[argv.index("ipykernel_launcher") - 1] == "-m")
    )


@dataclass(frozen=True)
class Launch:
    """How to start a submission's kernels: plainly, or behind ``prefix``, with Unix sockets at ``ipc``.

    ``private``: the key reaches the kernel through its stdin, never a file (``kernel_boot``), where
    the kernel spec is ipykernel's."""

    prefix: tuple[str, ...] = ()  # e.g. bwrap's command line, ending in "--"
    ipc: str = ""  # the socket path prefix (ZeroMQ ipc transport); "" for TCP on localhost
    private: bool = False

    @property
    def sandboxed(self) -> bool:
        return bool(self.prefix)


def _exit_text(code: int | None, sandboxed: bool = False) -> str:
    if code is None:
        return "the kernel died"
    if sandboxed and 128 < code < 160:  # bwrap exits with 128 + the signal that killed the kernel
        code = 128 - code
    if code < 0:
        name = signal_name(code) or f"signal {-code}"
        return f"the kernel was killed by {name}" + (f" ({SIGNALS[name]})" if name in SIGNALS else "")
    return f"the kernel exited with code {code}"


@dataclass(frozen=True)
class KernelSetup:
    """Where and how a submission's kernels run: the kernel, its scratch folder and environment, the limits,
    the process groups to kill at the end, and how to start it (``Launch``)."""

    kernel_name: str
    scratch: Scratch
    env: dict
    limits: Limits
    groups: ProcessGroups
    launch: Launch = Launch()
    intruders: list[str] = field(default_factory=list)  # where to note the requests a kernel ran that the grader did not send


class _Kernel:
    """One kernel life: start it in the scratch folder, run cells, and always kill its process group."""

    def __init__(self, nb, setup: KernelSetup):
        self.client = _CappedClient(
            nb,
            setup.limits.output_cap,
            kernel_name=setup.kernel_name,
            allow_errors=True,
            interrupt_on_timeout=False,
            record_timing=False,
            startup_timeout=120,
            kernel_manager_class=PrivateKernelManager,
        )
        self.scratch, self.env, self.groups, self.launch = setup.scratch, setup.env, setup.groups, setup.launch
        self.pgid: int | None = None
        self.log = None
        self.intruders = setup.intruders  # requests the grader did not send
        self.channel: str | None = None  # the id of the comm that carries the judge's requests, once opened

    async def start(self) -> None:
        client = self.client
        client.km = km = client.create_kernel_manager()
        # the connection file and the Unix sockets in the submission's own folder (mode 0700), not in the
        # user's runtime folder; inside the sandbox's network namespace a TCP port would be out of reach
        ours, theirs = private_kernel(km, self.scratch.root, self.launch.ipc, self.launch.prefix, self.launch.private)
        try:  # the kernel can write in its scratch folder: never through a link it put there, nor into a FIFO
            self.log = os.fdopen(open_regular(self.scratch.log, os.O_WRONLY | os.O_APPEND | os.O_CREAT), "ab")
        except OSError:
            self.log = open(os.devnull, "ab")  # noqa: SIM115 (closed in close(), as the log is)
        try:
            await client.async_start_new_kernel(
                cwd=str(self.scratch.work), env=self.env, stdout=self.log, stderr=self.log, **({"stdin": theirs.fileno()} if theirs else {})
            )
        except BaseException:
            for end in (ours, theirs):
                if end is not None:
                    end.close()
            raise
        self.pgid = getattr(km.provisioner, "pgid", None)
        self.groups.add(self.pgid)
        send_settings(km, ours, theirs)
        await client.async_start_new_kernel_client()
        self._watch_for_intruders()

    def _watch_for_intruders(self) -> None:
        """Note every broadcast whose request came from a session other than the grader's own.

        The kernel broadcasts, on iopub, a status for every request it handles, naming the session
        that sent it; nbclient drops what is not its own cell's. Another process that learnt the key
        and sent requests (a neighbour's hijack) is seen here, whatever the request did."""
        client, own = self.client, {self.client.kc.session.session, self.client.km.session.session}
        channel = client.kc.iopub_channel
        receive = channel.get_msg

        async def get_msg(*args, **kwargs):
            msg = await receive(*args, **kwargs)
            parent = msg.get("parent_header") or {}
            session = parent.get("session")
            if session and session not in own and len(self.intruders) < 20:
                self.intruders.append(f"{parent.get('msg_type', '?')} from session {str(session)[:36]}")
            return msg

        channel.get_msg = get_msg

    def exit_code(self) -> int | None:
        process = getattr(getattr(self.client.km, "provisioner", None), "process", None)
        return process.poll() if process is not None else None

    async def stop(self) -> None:
        client = self.client
        try:
            if client.km is not None:
                await asyncio.wait_for(client.km.shutdown_kernel(now=True), timeout=10)
        except Exception:
            pass
        try:
            if client.kc is not None:
                client.kc.stop_channels()
        except Exception:
            pass
        kill_group(self.pgid)  # children the kernel started are in its group; kill them too
        self.groups.discard(self.pgid)
        if self.log is not None:
            self.log.close()


# (exercise id, channel, handover folder) -> the verdict's fields; the handover folder is where the
# checker writes files it hands to the learner's function, read by the kernel at the same path
Judge = Callable[[str, Callable[[bytes], bytes], Path], dict]

# Checkers patch process-wide state while they run (a simulated machine replaces torch.cuda's
# functions): one judges at a time in this process, whichever job's kernel it talks to.
_JUDGING = threading.Lock()


def judge_in_this_process(exercise_id: str, channel: Callable[[bytes], bytes], handover: Path | None = None) -> dict:
    """The default judge: the course's checker, here, calling the learner's function in the kernel.

    ``handover``: the submission's ``Scratch.handover`` (``boundary.grade``). One at a time in this
    process; ``course-grade`` gives each job a judge process of its own instead (``judges``)."""
    with _JUDGING:
        return judge_here(exercise_id, channel, handover)


def judge_here(exercise_id: str, channel: Callable[[bytes], bytes], handover: Path | None = None) -> dict:
    """``judge_in_this_process`` without the lock: for a process that judges one exercise at a time anyway."""
    from course_grader.boundary import grade
    from course_grader.results import MESSAGE_LIMIT, cut_with_note
    from course_utils.checks import all_exercises

    known = all_exercises()
    if exercise_id not in known:
        return {
            "status": "error",
            "title": "",
            "hint": "Check the exercise notebook: is it from this course's exercises/?",
            "message": f"The grader has no check {exercise_id!r} (known: {', '.join(known) or 'none'}); the "
            "checks it judges with are the course's own (course_utils/checks/nbNN.py).",
        }
    result = grade(exercise_id, channel, handover)
    return {
        "status": result.status,
        "title": result.title,
        "message": cut_with_note(result.message, MESSAGE_LIMIT),
        "hint": cut_with_note(result.hint, MESSAGE_LIMIT),
    }


def judge_failure(exc: Exception) -> dict:
    """The verdict when the judge raised ``exc`` (not ChannelLost): a grader bug only with the traceback the
    judge's own process captured (``bug``, its evidence); a judge process that ended without one
    (``boundary.JudgeLost``) leaves the exercise ungraded and ``lost``, for the instructor to regrade.

    Nothing the kernel sends reaches here: ``boundary.decode_reply`` turns whatever a reply makes the
    decoder raise into ``BadReply``, the learner's fail."""
    import traceback

    what = f"{type(exc).__name__}: {truncate(str(exc), 300)}"
    if isinstance(exc, JudgeLost):
        return {
            "status": "error",
            "title": "",
            "hint": "",
            "lost": what,
            "message": f"Not graded: the grader's judge process ended before its verdict ({what}).",
        }
    evidence = getattr(exc, "judge_traceback", "") or "".join(traceback.format_exception(exc))[-EVIDENCE:]
    return {
        "status": "error",
        "title": "",
        "hint": "This is a bug in the grader; please report it.",
        "message": f"The grader could not judge this exercise ({what}).",
        "bug": evidence,
    }


def reply_of(replies: list[bytes]) -> bytes:
    """The one reply the kernel sent to a request; b"" (unreadable) when it sent none or more than one."""
    return replies[0] if len(replies) == 1 else b""


class KernelGone(Exception):
    """The kernel died while a request waited for its reply."""


async def exchange(kc, comm_id: str, request: bytes, time_left: Callable[[], float], is_alive: Callable[[], Awaitable[bool]]) -> bytes:
    """Send one request of the judge on the comm ``comm_id`` of the kernel behind client ``kc``; the reply's bytes
    (``reply_of``: b"" when the kernel sent none or several).

    The simulated machine's facts stay here (``boundary.split_request``): while the kernel answers, it asks
    for each one it needs on its standard input, and this answers (``boundary.answer_question``). The kernel's
    broadcasts are read up to its idle status for the request; output the learner's code prints meanwhile is
    dropped, and a reply over REPLY_CAP is passed on as ``oversized_reply``. ``TimeoutError`` when
    ``time_left()`` runs out, ``KernelGone`` when ``is_alive()`` says the kernel died (asked each POLL_ALIVE
    seconds without a message): for course-grade's runner and nbgrader's judge alike."""
    facts, body = split_request(request)
    msg = kc.session.msg("comm_msg", {"comm_id": comm_id, "data": {}})
    msg["buffers"] = [body]
    kc.shell_channel.send(msg)
    msg_id, replies = msg["header"]["msg_id"], []
    iopub, stdin = kc.iopub_channel, kc.stdin_channel
    poller = zmq.asyncio.Poller()
    poller.register(iopub.socket, zmq.POLLIN)
    poller.register(stdin.socket, zmq.POLLIN)
    while True:
        remaining = time_left()
        if remaining <= 0:
            raise TimeoutError
        ready = dict(await poller.poll(1000 * min(remaining, POLL_ALIVE)))
        if not ready:
            if not await is_alive():
                raise KernelGone
            continue
        if stdin.socket in ready:  # the kernel waits for the answer: every question gets one
            with contextlib.suppress(queue.Empty):
                question = await stdin.get_msg(timeout=0)
                kc.input(answer_question(facts, str((question.get("content") or {}).get("prompt", ""))))
        if iopub.socket not in ready:
            continue
        try:
            m = await iopub.get_msg(timeout=0)
        except queue.Empty:
            continue
        if (m.get("parent_header") or {}).get("msg_id") != msg_id:
            continue  # a late broadcast of an earlier request or cell
        kind, content = m.get("msg_type"), m.get("content") or {}
        if kind == "status" and content.get("execution_state") == "idle":
            return reply_of(replies)
        if kind == "comm_msg" and content.get("comm_id") == comm_id:
            buffers = m.get("buffers") or []
            size = sum(len(b) for b in buffers)
            # too big to read: the judge says so, with its size, as the learner's failure
            replies.append(oversized_reply(size) if size > REPLY_CAP else b"".join(bytes(b) for b in buffers))


async def run_steps(
    steps: tuple[Step, ...], setup: KernelSetup, *, cancelled: threading.Event | None = None, judge: Judge = judge_in_this_process
) -> tuple[list[StepRun], list[str]]:
    """Run every step; return what happened to each, and the kernel restarts in words."""
    return await _Steps(steps, setup, cancelled or threading.Event(), judge).run()


class _Steps:
    """One submission's steps on a succession of kernels: a kernel lost to a timeout or a crash is replaced,
    the steps before it are replayed, and the rest go on, until the limits say stop."""

    def __init__(self, steps: tuple[Step, ...], setup: KernelSetup, cancelled: threading.Event, judge: Judge):
        self.steps, self.setup, self.limits, self.cancelled, self.judge = steps, setup, setup.limits, cancelled, judge
        self.nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(s.source) for s in steps])
        self.runs = [StepRun() for _ in steps]
        self.events: list[str] = []
        self.deadline = time.monotonic() + setup.limits.total_timeout
        self.lives = 0
        self.judged = 0.0  # seconds of judge time this submission has used, from each check's first request to its verdict

    async def run(self) -> tuple[list[StepRun], list[str]]:
        kernel: _Kernel | None = None
        i = 0
        try:
            while i < len(self.steps):
                if self._must_stop(i):
                    break
                if kernel is None:
                    kernel = await self._fresh_kernel(i)
                    if kernel is None:
                        break
                    if await self._replay(kernel, i):
                        await kernel.stop()
                        kernel = None
                        continue
                lost = await self._execute(kernel, i, keep=True)
                if lost:
                    await kernel.stop()
                    kernel = None
                    self._note_loss(i)
                i += 1
        finally:
            if kernel is not None:
                await kernel.stop()
        return self.runs, self.events

    def _must_stop(self, i: int) -> bool:
        """Whether grading stops before step i (interrupted, or out of time); the steps left say why."""
        if self.cancelled.is_set():
            self._give_up(i, "grading was interrupted", "error")
            return True
        if time.monotonic() >= self.deadline:
            self._give_up(i, f"the submission's total limit of {self.limits.total_timeout:g} s was used up", "timeout")
            return True
        return False

    def _give_up(self, start: int, why: str, cause: str) -> None:
        for run in self.runs[start:]:
            if run.status == "not-run":
                run.detail, run.cause = why, cause

    async def _fresh_kernel(self, i: int) -> _Kernel | None:
        """A started kernel for step i; None, with the steps left marked, when there may be no other."""
        if self.lives > self.limits.max_restarts:
            self._give_up(i, f"the kernel was lost {self.lives} times; the grader stopped restarting it", "crashed")
            return None
        self.lives += 1
        kernel = _Kernel(self.nb, self.setup)
        try:
            await kernel.start()
        except Exception as exc:
            await kernel.stop()
            self._give_up(i, f"the kernel did not start ({type(exc).__name__}: {truncate(str(exc), 300)})", "error")
            return None
        return kernel

    async def _replay(self, kernel: _Kernel, i: int) -> bool:
        """Rebuild in a new kernel the state the lost one had before step i; True if this kernel was lost too."""
        for k in range(i):
            if self.cancelled.is_set():
                return True  # grading was interrupted
            if self.steps[k].replay and self.runs[k].status in ("ok", "error"):
                lost = await self._execute(kernel, k, keep=False)
                if lost:
                    if time.monotonic() < self.deadline and not self.cancelled.is_set():
                        run = self.runs[k]
                        run.status, run.detail = lost.split(": ", 1)  # lost for itself
                        self.events.append(f"{self.steps[k].label} was lost when re-run after a restart: {run.detail}")
                    return True
        return False

    def _note_loss(self, i: int) -> None:
        goes_on = (
            i + 1 < len(self.steps)
            and self.lives <= self.limits.max_restarts
            and not self.cancelled.is_set()
            and time.monotonic() < self.deadline
        )
        self.events.append(
            f"{self.steps[i].label}: {self.runs[i].detail}"
            + ("; the grader restarted the kernel, re-ran the cells before it and went on without it" if goes_on else "")
        )

    async def _execute(self, k: _Kernel, i: int, keep: bool) -> str | None:
        """Run step i; return None, or why the kernel was lost ("timeout: ..." / "died: ...")."""
        if self.steps[i].kind == "check":
            return await self._judge_step(k, i)
        cell, run, limits = self.nb.cells[i], self.runs[i], self.limits
        left = self.deadline - time.monotonic()
        # the grader's first cell and the instructor's setup cells import the course (torch and
        # all): they get at least SETUP_TIMEOUT, so a short --cell-timeout only bites learner code
        per_cell = max(limits.cell_timeout, SETUP_TIMEOUT) if self.steps[i].kind in ("preamble", "setup") else limits.cell_timeout
        k.client.timeout = max(1, math.ceil(min(per_cell, left)))
        kept_outputs = cell.outputs
        lost = None
        try:
            await k.client.async_execute_cell(cell, i, store_history=self.steps[i].kind != "check")
        except CellTimeoutError:
            lost = (
                f"timeout: it ran past the submission's total limit of {limits.total_timeout:g} s"
                if left < per_cell
                else f"timeout: it ran past the limit of {per_cell:g} s per cell"
            )
        except DeadKernelError:
            lost = f"died: {_exit_text(k.exit_code(), self.setup.launch.sandboxed)}"
        except Exception as exc:  # a broken channel, a protocol error: the kernel is unusable
            lost = f"died: the kernel stopped answering ({type(exc).__name__}: {truncate(str(exc), 200)})"
        if not keep:
            cell.outputs = kept_outputs
            return lost
        run.outputs = list(cell.get("outputs", []))
        run.capped = i in k.client.capped
        errors = [o for o in run.outputs if o.get("output_type") == "error"]
        if lost:
            run.status, run.detail = lost.split(": ", 1)
        elif errors:
            run.status, run.error = "error", f"{errors[0].get('ename', '')}: {errors[0].get('evalue', '')}"
        else:
            run.status = "ok"
        return lost

    async def _judge_step(self, k: _Kernel, i: int) -> str | None:
        """Judge step i's exercise here, its answer called in kernel k; None, or why the kernel was lost."""
        loop = asyncio.get_running_loop()
        left = self.deadline - time.monotonic()
        judge_left = self.limits.judge_timeout - self.judged
        clock = _CheckClock(min(self.limits.cell_timeout, left, judge_left), left, judge_left)

        def channel(request: bytes) -> bytes:
            return asyncio.run_coroutine_threadsafe(self._ask(k, request, clock), loop).result()

        # the learner's code as the grader read it from the file: evidence the kernel cannot rewrite (boundary.grade)
        channel.learner_source = "\n\n".join(s.source for s in self.steps[:i] if s.kind == "learner")
        run = self.runs[i]
        if judge_left <= 0:  # used up by the checks before: this one is not judged, and the kernel is kept
            run.detail, run.cause, run.slow = self._judge_time_used(), "timeout", True
            return None
        try:
            run.result = await loop.run_in_executor(None, self.judge, self.steps[i].exercise, channel, self.setup.scratch.handover)
        except ChannelLost as lost:
            run.status, run.detail = lost.status, lost.detail
            run.slow = lost.status == "timeout" and judge_left <= min(self.limits.cell_timeout, left)
            return f"{lost.status}: {lost.detail}"
        except Exception as exc:  # the judge itself broke, or its process was lost: never a pass
            run.result = judge_failure(exc)
        finally:
            if clock.started is not None:
                self.judged += time.monotonic() - clock.started
        run.status = "ok"
        return None

    async def _ask(self, k: _Kernel, request: bytes, clock: _CheckClock) -> bytes:
        """One request of the judge, sent to kernel k as a comm message; its reply's bytes, or ChannelLost."""
        remaining = clock.remaining()
        if remaining <= 0 or self.cancelled.is_set():
            raise ChannelLost("timeout", self._over(clock))
        if k.channel is None:
            k.channel = await self._open_channel(k, remaining, clock)

        def time_left() -> float:  # the check's clock; none left once grading is interrupted
            return 0.0 if self.cancelled.is_set() else clock.remaining()

        try:
            return await exchange(k.client.kc, k.channel, request, time_left, k.client.km.is_alive)
        except TimeoutError:
            raise ChannelLost("timeout", self._over(clock)) from None
        except KernelGone:
            raise ChannelLost("died", _exit_text(k.exit_code(), self.setup.launch.sandboxed)) from None
        except Exception as exc:  # a broken channel, a protocol error: the kernel is unusable
            raise ChannelLost("died", f"the kernel stopped answering ({type(exc).__name__}: {truncate(str(exc), 200)})") from None

    async def _open_channel(self, k: _Kernel, remaining: float, clock: _CheckClock) -> str:
        """Open the judge's channel in kernel k with one cell (before its first request of this life); its comm id."""
        nb, comm_id = self.nb, uuid.uuid4().hex
        cell = nbformat.v4.new_code_cell(channel_cell(comm_id))
        nb.cells.append(cell)  # after the steps while it runs (nbclient writes outputs by index)
        index = len(nb.cells) - 1
        k.client.timeout = max(1, math.ceil(remaining))
        try:
            await k.client.async_execute_cell(cell, index, store_history=False)
        except CellTimeoutError:
            raise ChannelLost("timeout", self._over(clock)) from None
        except DeadKernelError:
            raise ChannelLost("died", _exit_text(k.exit_code(), self.setup.launch.sandboxed)) from None
        except Exception as exc:
            raise ChannelLost("died", f"the kernel stopped answering ({type(exc).__name__}: {truncate(str(exc), 200)})") from None
        finally:
            del nb.cells[index:]
            k.client.used.pop(index, None)
            k.client.capped.discard(index)
        return comm_id  # a cell that failed to open it leaves requests unanswered: each reply is then unreadable

    def _over(self, clock: _CheckClock) -> str:
        limits = self.limits
        if clock.judge_left <= min(limits.cell_timeout, clock.left):
            return (
                f"its answers used up the submission's judge time of {limits.judge_timeout:g} s "
                "(the time the checks may wait for its functions to return)"
            )
        return (
            f"it ran past the submission's total limit of {limits.total_timeout:g} s"
            if clock.left < limits.cell_timeout
            else f"it ran past the limit of {limits.cell_timeout:g} s per cell"
        )

    def _judge_time_used(self) -> str:
        return (
            f"the submission's judge time of {self.limits.judge_timeout:g} s was used up by the checks before "
            "(its answers were that slow to return)"
        )


@dataclass
class _CheckClock:
    """One check's time: ``limit`` seconds from its first request (waiting for another job's judge is not
    this check's time); ``left``: what the submission had left when the check began; ``judge_left``: what
    was left of its judge time (``Limits.judge_timeout``), charged from ``started``, the first request."""

    limit: float
    left: float
    judge_left: float = math.inf
    started: float | None = None
    ends: float | None = None

    def remaining(self) -> float:
        if self.ends is None:
            self.started = time.monotonic()
            self.ends = self.started + self.limit
        return self.ends - time.monotonic()
