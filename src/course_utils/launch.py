"""Launching ``torchrun`` from a notebook, safely: every rank's output, and no process left behind.

Lesson: notebook 08 (one process per device). ``launch("scripts/ddp_basics.py", nproc=2)`` runs
``python -m torch.distributed.run --standalone --nproc-per-node 2 ...`` with the notebook's own
interpreter, waits at most ``timeout`` seconds and returns a ``LaunchResult``: each rank's stdout
and stderr, its exit code and its error. It always cleans up: torchrun starts in a session of its
own, every process it starts carries a tag in its environment, and on a timeout, an error or
``KeyboardInterrupt`` every tagged process (and its process group) is terminated, then killed. A
failing rank gives a result that says so, never an exception. ``processes.process_alive(pid)`` lets a
notebook check that afterwards.

The scripts it launches choose their devices with ``course_utils.distributed``.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
from torch.torch_version import TorchVersion

from course_utils.claims import CaughtError, ClaimFailed
from course_utils.display import OK, PROBLEM, card, markup, pre, require_int, table, tag
from course_utils.processes import exit_text, new_session, terminate_tagged

TAG_VARIABLE = "COURSE_LAUNCH_TAG"  # set in every process a launch starts, to find them all again

# --------------------------------------------------------------------------- results


_TRACEBACK = "Traceback (most recent call last):"
_RANK_PREFIX = re.compile(r"^\[(?:rank|default)\d+\]:\s?")
_EXCEPTION_LINE = re.compile(r"^([A-Za-z_][\w.]*)(?::\s?(.*))?$")


def error_from_stderr(stderr: str) -> CaughtError | None:
    """The exception at the end of the last Python traceback in ``stderr``, or ``None``."""
    # PyTorch prefixes each line a rank writes to stderr with "[rank0]: " (since about 2.2).
    text = "\n".join(_RANK_PREFIX.sub("", line) for line in stderr.splitlines())
    start = text.rfind(_TRACEBACK)
    if start < 0:
        return None
    lines = text[start:].splitlines()[1:]
    for i, line in enumerate(lines):
        if not line or line[0].isspace():
            continue  # a frame ("  File ...") or its source line
        match = _EXCEPTION_LINE.match(line)
        if not match:
            continue
        message = [match.group(2) or ""]
        for more in lines[i + 1 :]:  # messages may span lines (NCCL's do)
            if not more.strip() or re.match(r"^\[?[WEI]\d{4} ", more):
                break
            message.append(more)
        return CaughtError(match.group(1).rsplit(".", 1)[-1], "\n".join(message).strip())
    return None


@dataclass(frozen=True)
class RankOutput:
    """What one process printed, and how it ended."""

    local_rank: int
    stdout: str
    stderr: str
    exitcode: int | None  # None when the launch timed out before torchrun reported it

    @property
    def error(self) -> CaughtError | None:
        """The exception this process died of, read from its traceback."""
        return error_from_stderr(self.stderr)

    @property
    def ok(self) -> bool:
        return self.exitcode == 0


@dataclass(frozen=True)
class LaunchResult:
    """One torchrun launch: the command, how it ended, and each rank's output.

    End a notebook cell on it to see every rank side by side. ``values(key)`` reads the
    ``key=value`` pairs the scripts print; ``expect_ok``, ``expect_same`` and ``expect_failure`` turn what
    happened into a checked claim (they raise ``ClaimFailed`` when it did not happen).
    """

    script: str
    command: tuple[str, ...]
    nproc: int
    returncode: int | None  # torchrun's exit status; None when it was killed at the timeout
    timed_out: bool
    seconds: float
    timeout: float
    ranks: tuple[RankOutput, ...]
    launcher_output: str  # torchrun's own messages (its summary of failures, warnings)
    leftover_pids: tuple[int, ...] = ()  # processes of this launch still alive after cleanup

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.timed_out

    @property
    def status(self) -> str:
        if self.timed_out:
            return f"TIMED OUT after {self.timeout:g} s: every process of the run was killed"
        if self.returncode == 0:
            return f"OK in {self.seconds:.1f} s"
        return f"FAILED (torchrun exit status {self.returncode}) after {self.seconds:.1f} s"

    @property
    def errors(self) -> dict[int, CaughtError]:
        """Each failed rank's exception, by local rank."""
        return {r.local_rank: r.error for r in self.ranks if r.error is not None}

    def rank(self, local_rank: int) -> RankOutput:
        for r in self.ranks:
            if r.local_rank == local_rank:
                return r
        raise ValueError(f"This launch had local ranks {[r.local_rank for r in self.ranks]}, not {local_rank}.")

    def values(self, key: str) -> dict[int, str]:
        """The last ``key=value`` each rank printed, by local rank (ranks that printed none are left out)."""
        pattern = re.compile(rf"(?:^|\s){re.escape(key)}=(\S+)")
        found = {}
        for r in self.ranks:
            hits = pattern.findall(r.stdout)
            if hits:
                found[r.local_rank] = hits[-1]
        return found

    def expect_ok(self) -> LaunchResult:
        """This result, if every process exited with 0; ``ClaimFailed`` otherwise.

        For a demonstration that is meant to succeed: a rank that printed everything and then
        died (a signal at exit, say) still fails the cell, instead of passing unseen.
        """
        bad = [r.local_rank for r in self.ranks if not r.ok]
        if self.ok and not bad:
            return self
        died = ", ".join(f"rank {r.local_rank}: exit {exit_text(r.exitcode)}" for r in self.ranks if not r.ok)
        raise ClaimFailed(
            f"expected {self.script} to succeed on every rank, but it ended {self.status}"
            + (f" ({died})" if died else "")
            + ". Run the cell again; if it fails again, read each rank's "
            f"stderr with result.rank(i).stderr.\n{self._tail()}"
        )

    def expect_same(self, key: str) -> str:
        """The value every rank printed for ``key``; ``ClaimFailed`` unless all ranks printed the same."""
        found = self.values(key)
        missing = [r.local_rank for r in self.ranks if r.local_rank not in found]
        if missing or len(set(found.values())) != 1:
            raise ClaimFailed(
                f"expected every rank to print the same {key}=..., but got {found}"
                + (f" and nothing from ranks {missing}" if missing else "")
                + f". {self.status}.\n{self._tail()}"
            )
        return next(iter(found.values()))

    def expect_failure(self, expected: str | tuple[str, ...], match: str | None = None) -> CaughtError:
        """The error a rank died of, if its type is ``expected`` and its message matches ``match``.

        Raises ``ClaimFailed`` when no rank failed that way: the course never shows an error the
        running PyTorch no longer raises. Type names are compared without their module.
        """
        names = (expected,) if isinstance(expected, str) else tuple(expected)
        for r in self.ranks:
            err = r.error
            if err is not None and err.type_name in names and (match is None or re.search(match, err.message)):
                return err
        raise ClaimFailed(
            f"expected a rank to fail with {' or '.join(names)}"
            + (f" matching {match!r}" if match else "")
            + f", but the errors were {self.errors or 'none'}. {self.status}.\n{self._tail()}"
        )

    def _tail(self, lines: int = 12) -> str:
        text = self.launcher_output.strip().splitlines()
        return "\n".join(text[-lines:])

    def __str__(self) -> str:
        out = [f"torchrun {self.script}, {self.nproc} processes: {self.status}"]
        for r in self.ranks:
            out.append(f"--- local rank {r.local_rank} (exit code {exit_text(r.exitcode)}) ---")
            if r.stdout.strip():
                out.append(r.stdout.rstrip())
            if r.error is not None:
                out.append(f"error: {r.error}")
            elif r.stderr.strip() and not r.ok:
                out.append(_last_lines(r.stderr, 6))
        if self.leftover_pids:
            out.append(f"WARNING: processes {list(self.leftover_pids)} survived the cleanup")
        if not self.ok and not self.timed_out and not self.errors and self.launcher_output.strip():
            out.append("--- torchrun ---\n" + self._tail())
        return "\n".join(out)

    def __repr__(self) -> str:
        return str(self)

    def _repr_html_(self) -> str:
        tone = OK if self.ok else PROBLEM
        heads, cells = [], []
        for r in self.ranks:
            heads.append(f"local rank {r.local_rank} · exit {exit_text(r.exitcode)}")
            parts = [pre(r.stdout.rstrip())]
            if r.error is not None:
                parts.append(
                    tag("div", tag("b", r.error.type_name), ": ", tag("span", r.error.message, style="white-space:pre-wrap"), colour=PROBLEM)
                )
            elif r.stderr.strip() and not r.ok:
                parts.append(pre(_last_lines(r.stderr, 6), colour=PROBLEM))
            cells.append(markup(*parts))
        extra = []
        if self.leftover_pids:
            extra.append(tag("p", f"Processes {list(self.leftover_pids)} survived the cleanup.", colour=PROBLEM))
        if not self.ok and not self.timed_out and not self.errors and self.launcher_output.strip():
            extra.append(tag("details", tag("summary", "torchrun's output"), pre(self._tail(30))))
        # ranks side by side, their outputs top-aligned: one rank may print far more than another
        ranks = table([cells], head=heads, cell_style="vertical-align:top;text-align:left")
        return card(
            tone,
            tag("span", self.status, colour=tone),
            " · ",
            tag("code", f"torchrun {self.script}"),
            f", {self.nproc} processes",
            ranks,
            *extra,
        )


def _last_lines(text: str, n: int) -> str:
    return "\n".join(text.rstrip().splitlines()[-n:])


# --------------------------------------------------------------------------- launching


@dataclass(frozen=True)
class Node:
    """One machine of several on this computer: ``node_rank`` of ``nnodes``, meeting at 127.0.0.1:``master_port``.

    Lesson: notebook 08. ``launch_machines`` gives each of its torchruns one; ``launch(node=None)``
    is a machine on its own."""

    nnodes: int
    node_rank: int
    master_port: int | None

    def __post_init__(self):
        require_int(
            "nnodes",
            self.nnodes,
            minimum=2,
            expected="should be a number of machines, 2 or more",
            hint="Leave node=None for one machine; launch_machines() starts several.",
        )
        if not isinstance(self.node_rank, int) or not 0 <= self.node_rank < self.nnodes:
            raise ValueError(f"node_rank should be 0 to {self.nnodes - 1} for {self.nnodes} machines; got {self.node_rank!r}.")
        if not isinstance(self.master_port, int) or not 0 < self.master_port < 65536:
            raise ValueError(f"master_port should be the port machine 0 listens on (free_port() finds one); got {self.master_port!r}.")


def torchrun_command(script: str | Path, nproc: int, args: tuple[str, ...] = (), *, log_dir: str | Path, node: Node | None = None) -> list[str]:
    """The torchrun command line ``launch`` runs: ``nproc`` processes on this machine.

    With ``node=None``, a standalone rendezvous on a free local port. With a ``Node``, one
    machine (``node.node_rank``) of several that meet at 127.0.0.1:``node.master_port``: the static
    rendezvous (``--master-addr``/``--master-port``, every torchrun from 2.7.1 to 2.14.1 has it),
    which gives machine 0 RANKs 0 .. nproc-1, machine 1 the next ones, and so on."""
    if node is None:
        meeting = ["--standalone", "--nnodes", "1"]  # a rendezvous on localhost, on a free port
    else:
        meeting = [
            "--nnodes",
            str(node.nnodes),
            "--node-rank",
            str(node.node_rank),
            "--master-addr",
            "127.0.0.1",
            "--master-port",
            str(node.master_port),
        ]
    return [
        sys.executable,
        "-m",
        "torch.distributed.run",
        *meeting,
        "--nproc-per-node",
        str(nproc),
        "--max-restarts",
        "0",
        "--monitor-interval",
        "0.1",
        "--redirects",
        "3",  # each rank's stdout and stderr go to files in log_dir
        "--log-dir",
        str(log_dir),
        str(script),
        *map(str, args),
    ]


def _check_torchrun() -> None:
    if not torch.distributed.is_available():
        raise RuntimeError(
            f"torchrun is not available: this PyTorch ({torch.__version__}) was built without "
            "torch.distributed, so `python -m torch.distributed.run` cannot start. "
            "Install the ordinary PyTorch wheel for your platform (pytorch.org/get-started)."
        )


# Notebook 08's torchrun scripts ship inside the package, so the lesson runs wherever the package
# is installed (Colab and Kaggle install it alone, without the repository's folders).
COURSE_SCRIPTS = Path(__file__).with_name("scripts")


def find_script(script: str | Path) -> Path:
    """The file ``launch`` runs for ``script``.

    ``script`` itself where that file exists: a learner's own copy beside the notebook
    (``make lab`` puts the course's scripts in the workspace's ``scripts/`` to read and change).
    Otherwise ``scripts/NAME.py`` means the course's own ``NAME.py``, shipped in the package.
    """
    path = Path(script)
    if path.is_file():
        return path
    shipped = COURSE_SCRIPTS / path.name
    if not path.is_absolute() and path.parts[:-1] == ("scripts",) and shipped.is_file():
        return shipped
    names = ", ".join(sorted(p.name for p in COURSE_SCRIPTS.glob("*.py")))
    raise FileNotFoundError(
        f"No script at {path} (looked in {Path.cwd()}, and among the course's scripts: {names}). Give a path to "
        "a .py file, relative to the notebook's folder, e.g. launch('scripts/ddp_basics.py')."
    )


def launch(
    script: str | Path,
    *args: str,
    nproc: int = 2,
    timeout: float = 120.0,
    env: Mapping[str, str] | None = None,
    node: Node | None = None,
) -> LaunchResult:
    """Run ``script`` under torchrun with ``nproc`` processes; return every rank's output.

    The children get ``OMP_NUM_THREADS=1`` (two processes must not each take every core) and
    unbuffered output, plus ``env``. After ``timeout`` seconds the whole run is killed and the
    result says ``timed_out``. However the run ends (success, a failing rank, a timeout, an
    exception or Ctrl-C in the notebook), no process it started is left running.

    ``node`` (a ``Node``) makes this launch one machine of several on this computer;
    ``launch_machines`` starts them all.
    """
    script_path = find_script(script)
    require_int("nproc", nproc, expected="should be a number of processes, 1 or more", hint="The course uses 2.")
    if not isinstance(timeout, (int, float)) or timeout <= 0:
        raise ValueError(f"timeout should be a number of seconds above 0; got {timeout!r}.")
    if node is not None and not isinstance(node, Node):
        raise TypeError(f"node should be a Node(nnodes, node_rank, master_port) or None; got {node!r}.")
    _check_torchrun()

    tag = uuid.uuid4().hex
    with tempfile.TemporaryDirectory(prefix="course-torchrun-") as log_dir:
        command = torchrun_command(script_path, nproc, tuple(args), log_dir=log_dir, node=node)
        started = time.monotonic()
        proc = subprocess.Popen(
            command,
            env=_child_env(tag, env),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            errors="replace",
            **new_session(),
        )
        timed_out, output = _wait_or_kill(proc, timeout, tag)
        seconds = time.monotonic() - started
        leftovers = terminate_tagged(proc, TAG_VARIABLE, tag)  # anything a rank left behind (a daemon child, say)
        ranks = _read_ranks(Path(log_dir), nproc, output or "", proc.returncode, timed_out)
    return LaunchResult(
        script=str(script),
        command=tuple(command),
        nproc=nproc,
        returncode=None if timed_out else proc.returncode,
        timed_out=timed_out,
        seconds=seconds,
        timeout=float(timeout),
        ranks=ranks,
        launcher_output=output or "",
        leftover_pids=tuple(leftovers),
    )


def _child_env(tag: str, env: Mapping[str, str] | None) -> dict[str, str]:
    """The environment of torchrun and its ranks: one thread each, unbuffered, tagged, plus ``env``."""
    child_env = dict(os.environ)
    child_env.update({"OMP_NUM_THREADS": "1", "PYTHONUNBUFFERED": "1", TAG_VARIABLE: tag})
    if sys.platform.startswith("linux") and "GLOO_SOCKET_IFNAME" not in child_env and Path("/sys/class/net/lo").exists():
        child_env["GLOO_SOCKET_IFNAME"] = "lo"  # keep gloo's traffic on the loopback interface
    child_env.update(env or {})
    return child_env


def _wait_or_kill(proc: subprocess.Popen, timeout: float, tag: str) -> tuple[bool, str]:
    """``(timed_out, output)``: torchrun's output once it ends, or at ``timeout`` with its processes killed."""
    try:
        return False, _wait(proc, timeout)
    except subprocess.TimeoutExpired:
        terminate_tagged(proc, TAG_VARIABLE, tag)
        return True, _drain(proc)
    except BaseException:  # an error here, or KeyboardInterrupt: clean up, then let it through
        terminate_tagged(proc, TAG_VARIABLE, tag)
        _drain(proc)
        raise


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now (the system picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass(frozen=True)
class MachinesResult:
    """Several torchrun "machines" on this computer, one ``LaunchResult`` each (by node rank)."""

    machines: tuple[LaunchResult, ...]

    @property
    def ok(self) -> bool:
        return all(m.ok for m in self.machines)

    @property
    def leftover_pids(self) -> tuple[int, ...]:
        return tuple(pid for m in self.machines for pid in m.leftover_pids)

    def values(self, key: str) -> dict[tuple[int, int], str]:
        """The last ``key=value`` each process printed, by (machine, local rank)."""
        return {(node, local): value for node, m in enumerate(self.machines) for local, value in m.values(key).items()}

    def table(self, *keys: str) -> list[dict[str, str]]:
        """One row per process: the machine, then the ``keys`` it printed, in machine and local-rank order."""
        columns = [self.values(key) for key in keys]
        return [
            {"machine": str(node), **{key: col.get((node, r.local_rank), "") for key, col in zip(keys, columns)}}
            for node, m in enumerate(self.machines)
            for r in m.ranks
        ]

    def expect_ok(self) -> MachinesResult:
        """This result, if every process of every machine exited with 0; ``ClaimFailed`` otherwise."""
        for m in self.machines:
            m.expect_ok()
        return self

    def __str__(self) -> str:
        return "\n".join(f"=== machine {node} ===\n{m}" for node, m in enumerate(self.machines))

    def __repr__(self) -> str:
        return str(self)

    def _repr_html_(self) -> str:
        return markup(*(piece for node, m in enumerate(self.machines) for piece in (tag("p", tag("b", f"machine {node}")), m._repr_html_())))


def launch_machines(
    script: str | Path, *args: str, machines: int = 2, nproc: int = 2, timeout: float = 180.0, env: Mapping[str, str] | None = None
) -> MachinesResult:
    """Pretend this computer is ``machines`` machines: one torchrun per machine, ``nproc`` processes each.

    Lesson: notebook 08. Each torchrun is a ``launch`` (its own session, its processes tagged and
    killed at ``timeout``), told ``--nnodes machines --node-rank i`` and the same
    127.0.0.1:port, so they form one job of ``machines * nproc`` processes. They run side by side
    in threads; every one ends by ``timeout`` at the latest, so no process outlives the call.
    """
    require_int("machines", machines, minimum=2, expected="should be 2 or more", hint="One machine is plain launch().")
    port = free_port()
    results: list[Any] = [None] * machines

    def run(node: int) -> None:
        try:
            results[node] = launch(script, *args, nproc=nproc, timeout=timeout, env=env, node=Node(machines, node, port))
        except BaseException as exc:  # handed to the caller below
            results[node] = exc

    threads = [threading.Thread(target=run, args=(node,), name=f"torchrun-machine-{node}") for node in range(machines)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()  # each launch returns by its timeout, having killed what it started
    for result in results:
        if isinstance(result, BaseException):
            raise result
    return MachinesResult(tuple(results))


def _wait(proc: subprocess.Popen, timeout: float) -> str:
    """Wait for torchrun; its combined stdout and stderr. (A seam: tests replace it.)"""
    output, _ = proc.communicate(timeout=timeout)
    return output


def _drain(proc: subprocess.Popen) -> str:
    """What torchrun printed until it was stopped (the pipe closes once it and its workers are gone)."""
    try:
        output, _ = proc.communicate(timeout=10)
    except (subprocess.TimeoutExpired, ValueError, OSError):
        if proc.stdout is not None:
            proc.stdout.close()
        return ""
    return output or ""


_SUMMARY = re.compile(r"local_rank:\s*(\d+)\)\s*\n\s*exitcode\s*:\s*(-?\d+)")
# torchrun's failure summary names every rank that did not exit 0 on the releases tested from
# 2.13; torchrun 2.7 names only the first failure ("<NO_OTHER_FAILURES>"), not the ranks it then
# stopped. Releases in between are untested, so an unlisted rank's exit code is unknown there.
_LISTS_STOPPED_RANKS = TorchVersion(torch.__version__) >= "2.13"


def _read_ranks(log_dir: Path, nproc: int, launcher_output: str, returncode: int | None, timed_out: bool) -> tuple[RankOutput, ...]:
    failures = {int(rank): int(code) for rank, code in _SUMMARY.findall(launcher_output)}
    ranks = []
    for local_rank in range(nproc):
        stdout = _read_log(log_dir, local_rank, "stdout.log")
        stderr = _read_log(log_dir, local_rank, "stderr.log")
        if local_rank in failures:
            code = failures[local_rank]
        elif timed_out or returncode is None:
            code = None
        elif returncode == 0 or (failures and _LISTS_STOPPED_RANKS):
            code = 0  # torchrun lists every rank that did not exit 0
        else:
            code = None  # not reported: torchrun 2.7 leaves out the ranks it stopped itself
        ranks.append(RankOutput(local_rank, stdout, stderr, code))
    return tuple(ranks)


def _read_log(log_dir: Path, local_rank: int, name: str) -> str:
    # torchrun writes LOG_DIR/<run id>/attempt_0/<local rank>/stdout.log (one attempt: --max-restarts 0)
    texts = [p.read_text(encoding="utf-8", errors="replace") for p in sorted(log_dir.glob(f"**/attempt_*/{local_rank}/{name}"))]
    return "".join(texts)
