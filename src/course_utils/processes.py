"""Process clean-up shared by ``launch`` (torchrun from a notebook) and the grader's kernels.

Lesson: notebook 08 (``launch`` leaves no process behind) and the instructors' ``course-grade``.
A child started in a session of its own (``new_session()``) leads a process group, so it and
everything it starts can be signalled at once (``kill_group``, ``signal_process_and_group``);
processes that left the group are found by a variable in their environment (``tagged_pids``,
``terminate_tagged``). ``exit_text`` and ``signal_name`` put an exit status in words. POSIX
process groups; on Windows ``terminate_tagged`` falls back to ``taskkill /T``.
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from pathlib import Path
from typing import Any


def new_session() -> dict[str, Any]:
    """Popen arguments that start a child in a session (a process group) of its own, to kill it whole."""
    if os.name == "nt":
        return {"creationflags": subprocess.CREATE_NEW_PROCESS_GROUP}
    return {"start_new_session": True}


def process_alive(pid: int) -> bool:
    """Whether a process with this pid is running (a zombie, dead but not yet reaped, is not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # it exists, under another user
    stat = Path(f"/proc/{pid}/stat")
    try:
        text = stat.read_text()
        return not text[text.rfind(")") + 2 :].startswith("Z")
    except OSError:
        return True


def signal_process_and_group(pid: int, sig: int) -> None:
    """Send ``sig`` to ``pid``, or to its whole group when it leads one that is not ours."""
    own_group = os.getpgrp()
    try:
        group = os.getpgid(pid)
    except (ProcessLookupError, PermissionError):
        return
    try:
        if group == pid and group != own_group:  # a session/group leader of this launch: its whole group
            os.killpg(group, sig)
        else:
            os.kill(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def kill_group(pgid: int | None) -> None:
    """SIGKILL a process group: a kernel and every child it started (unless they left it); never our own."""
    if pgid and pgid > 1 and pgid != os.getpgid(0):
        try:
            os.killpg(pgid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


class ProcessGroups:
    """The process groups alive now (the grader's kernels), so an interrupted batch can kill them all."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._groups: set[int] = set()

    def add(self, pgid: int | None) -> None:
        if pgid:
            with self._lock:
                self._groups.add(pgid)

    def discard(self, pgid: int | None) -> None:
        with self._lock:
            self._groups.discard(pgid)

    def kill_all(self) -> None:
        with self._lock:
            groups = list(self._groups)
        for pgid in groups:
            kill_group(pgid)


def tagged_pids(variable: str, tag: str) -> set[int]:
    """Live (not zombie) processes whose environment has ``variable=tag``."""
    needle = f"{variable}={tag}".encode()
    me = os.getpid()
    found: set[int] = set()
    try:
        import psutil
    except ImportError:
        psutil = None
    if psutil is not None:
        for p in psutil.process_iter(["pid"]):
            try:
                if p.pid == me or p.status() == psutil.STATUS_ZOMBIE:
                    continue
                if p.environ().get(variable) == tag:
                    found.add(p.pid)
            except (psutil.Error, OSError):
                continue
        return found
    proc_root = Path("/proc")
    if not proc_root.is_dir():
        return found  # no psutil and no /proc (macOS without psutil): only the process groups are signalled
    for entry in proc_root.iterdir():
        if not entry.name.isdigit() or int(entry.name) == me:
            continue
        try:
            stat = (entry / "stat").read_text()
            if stat[stat.rfind(")") + 2 :].startswith("Z"):
                continue
            if needle in (entry / "environ").read_bytes().split(b"\0"):
                found.add(int(entry.name))
        except OSError:
            continue
    return found


def terminate_tagged(proc: subprocess.Popen, variable: str, tag: str, grace: float = 3.0) -> list[int]:
    """Stop ``proc`` and every process whose environment has ``variable=tag``; return the pids still alive.

    SIGTERM, a grace period, then SIGKILL, each to a process's whole group when it leads one. For
    ``launch``: torchrun starts each worker in a session of its own, so killing torchrun's process
    group is not enough, and a worker orphaned by a killed torchrun is no longer its descendant;
    every process of a launch carries the tag, so it is found by it.
    """
    if os.name == "nt":  # no process groups or /proc: let Windows kill the tree
        if proc.poll() is None:
            subprocess.run(["taskkill", "/T", "/F", "/PID", str(proc.pid)], capture_output=True)
        proc.wait()
        return []
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 5.0)):
        pids = set(tagged_pids(variable, tag))
        if proc.poll() is None:
            pids.add(proc.pid)
        if not pids:
            break
        for pid in pids:
            signal_process_and_group(pid, sig)
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            proc.poll()  # reap torchrun, so it does not linger as a zombie
            if proc.returncode is not None and not tagged_pids(variable, tag):
                break
            time.sleep(0.05)
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        pass
    return sorted(tagged_pids(variable, tag) | ({proc.pid} if proc.poll() is None else set()))


def signal_name(code: int) -> str | None:
    """The signal that ended a process with this status (a negative code), or None."""
    if code >= 0:
        return None
    try:
        return signal.Signals(-code).name
    except ValueError:
        return None


def exit_text(code: int | None) -> str:
    """An exit status in words: "0", "-9 (SIGKILL)" for a signal, "unknown" for None."""
    if code is None:
        return "unknown"
    name = signal_name(code)
    return f"{code} ({name})" if name else str(code)
