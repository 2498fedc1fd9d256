"""Processes a learner's code detached from its kernel: adopted while a batch runs without the sandbox, ended after.

Lesson: none; this is the instructors' tool (``course-grade --sandbox off``, or ``auto`` where bubblewrap cannot run).
The sandbox gives each kernel a process namespace of its own, so every process the kernel started ends with it.
Without it the grader kills the kernel's process group, and a process that left the group (``setsid``, a double
fork, a daemon, however its code is spelt) would live on. On Linux the grader makes itself a *child subreaper*
(``prctl(PR_SET_CHILD_SUBREAPER)``) while the batch runs: a process orphaned below it becomes its child instead of
init's, so it can still be found. When the batch ends, every child the grader did not have when the batch began is
killed, with its process group, and reaped; the report names those that were still running (``Ended``), with the
learner whose kernel's environment they carry. Elsewhere (macOS, Windows) nothing is adopted and the flag on cells
that detach (``plan.DETACHING``) is what there is.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

PR_SET_CHILD_SUBREAPER = 36  # linux/prctl.h
PR_GET_CHILD_SUBREAPER = 37
OWN_VARIABLE = b"COURSE_GRADE_OWN="  # sandbox.kernel_env sets it in every kernel: it names the submission's folder
ROUNDS = 20  # a killed process's own children are adopted in turn; each round ends one generation


@dataclass
class Adoption:
    """What a batch adopted: whether the grader could become a subreaper, and the processes it ended."""

    active: bool = False
    ended: list[str] = field(default_factory=list)  # "pid 4242 `sleep 987` (alice's kernel)", one per process


def _prctl(option: int, value: int = 0) -> int | None:
    """``prctl(option, value)``'s result, or None where there is no prctl (not Linux, no libc)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(option, value, 0, 0, 0)
    except (OSError, AttributeError):
        return None


def _is_subreaper() -> bool:
    flag = ctypes.c_int(0)
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_GET_CHILD_SUBREAPER, ctypes.byref(flag), 0, 0, 0) == 0 and bool(flag.value)
    except (OSError, AttributeError):
        return False


def children() -> dict[int, str]:
    """This process's children, read from ``/proc``: pid -> state (``S``, ``R``, ... ``Z`` for one not yet reaped)."""
    me, found = os.getpid(), {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                stat = handle.read()
        except OSError:
            continue  # gone meanwhile
        state, parent = stat[stat.rindex(b")") + 2 :].split()[:2]  # the name may hold spaces and parentheses
        if int(parent) == me:
            found[int(entry)] = state.decode()
    return found


def _described(pid: int, owner: Callable[[str], str | None]) -> str:
    """``pid 4242 `sleep 987` (alice's kernel)``: what the process runs, and whose kernel's environment it carries."""
    command, own = "", b""
    with contextlib.suppress(OSError):
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            command = handle.read(300).replace(b"\0", b" ").decode("utf-8", "backslashreplace").strip()
    with contextlib.suppress(OSError):  # another user's process, or one that made itself undumpable: unreadable
        with open(f"/proc/{pid}/environ", "rb") as handle:
            own = next((v[len(OWN_VARIABLE) :] for v in handle.read(1 << 16).split(b"\0") if v.startswith(OWN_VARIABLE)), b"")
    learner = owner(own.decode("utf-8", "backslashreplace")) if own else None
    whose = f"{learner}'s kernel" if learner else "whose kernel is unknown: its environment was changed"
    return f"pid {pid} `{command or '?'}` ({whose})"


def _end(pid: int, group: bool) -> None:
    """Kill ``pid``, and with ``group`` its process group (never the grader's own), then reap it."""
    with contextlib.suppress(OSError):
        pgid = os.getpgid(pid)
        if group and pgid != os.getpgrp():
            os.killpg(pgid, signal.SIGKILL)
    with contextlib.suppress(OSError):
        os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            if os.waitpid(pid, os.WNOHANG)[0]:
                return
        except ChildProcessError:
            return  # reaped elsewhere (a Popen of the grader's own)
        time.sleep(0.01)


def end_adopted(before: set[int], owner: Callable[[str], str | None]) -> list[str]:
    """Kill and reap every child that is not in ``before``; the running ones, described."""
    ended: list[str] = []
    for _ in range(ROUNDS):
        new = {pid: state for pid, state in children().items() if pid not in before}
        if not new:
            break
        running = [pid for pid, state in new.items() if state != "Z"]  # a zombie has already ended: only reaped
        ended += [_described(pid, owner) for pid in running]  # all of them first: ending one may end its group's others
        for pid in new:
            _end(pid, group=pid in running)
    return ended


@contextlib.contextmanager
def adopting(enabled: bool, owner: Callable[[str], str | None]) -> Iterator[Adoption]:
    """While the block runs, adopt the processes orphaned below this one (Linux); when it ends, end them.

    ``owner(path)`` names the learner whose submission folder holds ``path`` (a kernel's ``COURSE_GRADE_OWN``).
    """
    adoption = Adoption()
    if not enabled or not sys.platform.startswith("linux"):
        yield adoption
        return
    before, was = set(children()), _is_subreaper()
    adoption.active = was or _prctl(PR_SET_CHILD_SUBREAPER, 1) == 0
    try:
        yield adoption
    finally:
        if adoption.active:
            adoption.ended = end_adopted(before, owner)
            if not was:
                _prctl(PR_SET_CHILD_SUBREAPER, 0)
