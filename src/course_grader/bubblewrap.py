"""Run each learner's kernel in a bubblewrap sandbox on Linux, and say plainly when there is none.

Lesson: none; this is the instructors' tool (``course-grade --sandbox=auto|require|off``).
Under ``bwrap`` (Debian's ``bubblewrap``; it works unprivileged where user namespaces are
allowed) a kernel sees the whole file system read-only, except its own submission folder
(which holds its scratch folder) and a private ``/tmp`` that vanishes with it. It has no
network (``--unshare-net``: only a loopback of its own), its own process namespace (when the
kernel ends, every process it started dies with it, ``setsid`` or not), it dies when the grader
dies (``--die-with-parent``) and cannot reach the grader's terminal (``--new-session``).

The grader talks to such a kernel over Unix sockets in the submission folder (ZeroMQ's ``ipc``
transport), because a TCP port inside the sandbox's network namespace cannot be reached from
outside. Where no sandbox can be had (not Linux, no ``bwrap``, or ``bwrap`` fails to start, e.g.
user namespaces are turned off), ``probe`` says why once per batch and the batch runs as before:
scratch folders only (see ``sandbox``).
"""

from __future__ import annotations

import os
import shutil
import site
import subprocess
import sys
import sysconfig
import tempfile
from dataclasses import dataclass
from pathlib import Path

MODES = ("auto", "require", "off")
IPC_NAME = "k"  # the kernel's sockets: <submission folder>/k-1 ... k-5
SOCKET_PATH_MAX = 100  # a Unix socket path holds at most 107 bytes on Linux; leave room for "-N"
PROBE_TIMEOUT = 60.0


class SandboxUnavailable(ValueError):
    """``--sandbox=require`` and no sandbox can be had; the message says why and what to try."""


@dataclass(frozen=True)
class Isolation:
    """How a batch's kernels are isolated: a bubblewrap sandbox, or scratch folders only (and why)."""

    mode: str  # what was asked: "auto", "require" or "off"
    bwrap: str | None  # the bwrap binary used; None when the kernels run without a sandbox
    reason: str = ""  # why there is no sandbox

    @property
    def sandboxed(self) -> bool:
        return self.bwrap is not None

    def __str__(self) -> str:
        if self.sandboxed:
            return ("sandbox: bubblewrap (file system read-only except each submission's own folder, "
                    "private /tmp, no network, own process namespace)")
        return (f"sandbox: NONE ({self.reason}); submissions run as your user and can write anywhere you can "
                "(scratch folders only; see docs/grading.md)")


def _under(path: Path, top: Path) -> bool:
    try:
        return path == top or path.is_relative_to(top)
    except ValueError:
        return False


def course_checkouts() -> list[Path]:
    """Every checkout of the course the grader's Python points at: its package's, its venv's, its sys.path's.

    The sandbox hides them whole (``solutions/``, the tests' reference answers, the grader's own
    files), wherever they lie; what a kernel needs from inside one (a venv kept in the checkout) is
    bound back read-only.
    """
    import course_utils
    from course_grader.environment import checkout_of

    found = {checkout_of(p) for p in (course_utils.__file__, sys.prefix, os.path.realpath(sys.prefix),
                                      *(p for p in sys.path if p))}
    return sorted(p for p in found if p is not None)


def _needed_read_only(hidden: tuple[Path, ...], package: Path | None = None) -> list[Path]:
    """The paths a kernel must read (Python, the venv, course_utils, ...) that a tmpfs would hide.

    With ``package`` (the staged copy of course_utils) the kernel reads the package there, and
    nothing of a course checkout but the Python environment is bound back; without it (the probe),
    the package's own folder.
    """
    import course_utils

    checkouts = course_checkouts()
    wanted = [Path(sys.prefix), Path(sys.base_prefix), Path(sys.executable).parent, Path(site.getuserbase()),
              *(Path(p) for p in sysconfig.get_paths().values())]
    # sys.path's folders, but none of a checkout (pytest puts the checkout's root there, a dev install its src)
    wanted += [Path(p) for p in sys.path if p and not any(_under(Path(p).resolve(), c) for c in checkouts)]
    wanted.append(Path(package) if package is not None else Path(course_utils.__file__).parent)
    mpl = os.environ.get("MPLCONFIGDIR")
    if mpl:
        wanted.append(Path(mpl))
    found: list[Path] = []
    for path in wanted:
        try:
            path = path.resolve()
        except OSError:
            continue
        if path.exists() and any(_under(path, top) for top in hidden) and not any(_under(path, f) for f in found):
            found = [f for f in found if not _under(f, path)] + [path]
    return sorted(found)


def _aliases(hidden: tuple[Path, ...]) -> list[tuple[Path, Path]]:
    """(target, link) for the environment's paths reached through a symbolic link that a tmpfs hides.

    A venv linked into a checkout (``.venv -> /elsewhere/.venv``): the kernel's command line names
    the link, so the link's path must still lead to the venv once the checkout is hidden.
    """
    pairs = []
    for link in (Path(sys.prefix), Path(sys.executable).parent):
        link = Path(os.path.abspath(link))
        target = link.resolve()
        if target != link and target.exists() and any(_under(link, top) for top in hidden):
            pairs.append((target, link))
    return pairs


def bwrap_argv(bwrap: str, own: Path, work: Path, batch_root: Path | None = None,
               package: Path | None = None, handover: Path | None = None) -> list[str]:
    """The bwrap command line that runs a kernel with ``own`` writable and ``work`` as its folder.

    ``/tmp``, the batch's folder (so no learner sees another's scratch folder) and every course
    checkout are empty tmpfs mounts; what the kernel needs to read from under them is bound back
    read-only: the Python environment, and ``package``, the staged copy of course_utils.
    ``handover`` (a folder inside ``own``: where the judge writes the files a check hands to the
    learner's function) is bound read-only at its own path: the kernel reads them where the judge
    wrote them, and cannot change them.
    """
    checkouts = course_checkouts()
    hidden = [Path("/tmp"), Path(tempfile.gettempdir()).resolve(), *checkouts]
    if batch_root is not None:
        hidden.append(Path(batch_root).resolve())
    hidden = sorted(set(hidden), key=lambda p: len(p.parts))
    hidden = [h for i, h in enumerate(hidden) if not any(_under(h, o) for o in hidden[:i])]
    argv = [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    for top in hidden:
        argv += ["--tmpfs", str(top)]
    for path in _needed_read_only(tuple(hidden), package):
        argv += ["--ro-bind", str(path), str(path)]
    for target, link in _aliases(tuple(hidden)):
        argv += ["--ro-bind", str(target), str(link)]
    for top in hidden:  # a checkout stays read-only, as the rest of the file system: a write there fails
        if top in checkouts:
            argv += ["--remount-ro", str(top)]
    own = Path(own).resolve()
    argv += ["--bind", str(own), str(own)]
    if handover is not None:
        handover = Path(handover).resolve()
        if not _under(handover, own) or handover == own:
            raise ValueError(f"the handover folder must lie inside the submission's own folder {own}; got {handover}")
        argv += ["--ro-bind", str(handover), str(handover)]
    # ipykernel exits when its parent looks gone (parent pid 1); in its own process namespace the
    # parent is bwrap's init, pid 1. JPY_PARENT_PID=1 turns that poll off; --die-with-parent and the
    # process namespace do its job instead.
    argv += ["--chdir", str(Path(work).resolve()), "--setenv", "JPY_PARENT_PID", "1",
             "--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
             "--die-with-parent", "--new-session", "--"]
    return argv


def ipc_path(own: Path) -> str:
    """Where the kernel's sockets go: inside the submission folder, short enough for a Unix socket."""
    path = str(Path(own).resolve() / IPC_NAME)
    if len(os.fsencode(path)) > SOCKET_PATH_MAX:
        raise ValueError(f"the scratch folder's path is too long for the kernel's sockets ({len(path)} > "
                         f"{SOCKET_PATH_MAX} bytes: {path}); set TMPDIR to a shorter folder, or use --sandbox=off")
    return path


def probe(mode: str = "auto", bwrap: str | None = None) -> Isolation:
    """Find out once whether kernels can run under bubblewrap; raise SandboxUnavailable for ``require``.

    The probe starts this Python under the same bwrap options the kernels get, so a machine
    where ``bwrap`` is installed but cannot start (no unprivileged user namespaces, a container
    without the needed mounts) falls back here, with the reason, not in every kernel.
    """
    if mode not in MODES:
        raise ValueError(f"--sandbox must be one of {', '.join(MODES)}, got {mode!r}")
    if mode == "off":
        return Isolation(mode, None, "turned off with --sandbox=off")
    reason, found = "", None
    if not sys.platform.startswith("linux"):
        reason = f"bubblewrap runs on Linux only; this is {sys.platform}"
    else:
        found = shutil.which(bwrap or os.environ.get("COURSE_BWRAP") or "bwrap")
        if found is None:
            reason = "bwrap is not installed (Debian and Ubuntu: apt-get install bubblewrap)"
    if not reason:
        with tempfile.TemporaryDirectory(prefix="course-grade-probe-") as tmp:
            own, work = Path(tmp) / "own", Path(tmp) / "own" / "work"
            work.mkdir(parents=True)
            # find, not import: the kernel's imports are checked without paying for torch's here
            code = ("import importlib.util, pathlib, socket\n"
                    "for name in ('course_utils', 'torch', 'ipykernel'):\n"
                    "    open(importlib.util.find_spec(name).origin, 'rb').close()\n"
                    "pathlib.Path('written').write_text('ok')\n"
                    "print([name for _, name in socket.if_nameindex()])\n")
            try:
                done = subprocess.run([*bwrap_argv(found, own, work), sys.executable, "-c", code],
                                      capture_output=True, text=True, timeout=PROBE_TIMEOUT)
                if done.returncode != 0:
                    last = (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[-1]
                    reason = f"bwrap is installed but failed to start a kernel here ({last[:300]})"
                elif done.stdout.strip() != "['lo']" or not (work / "written").is_file():
                    reason = "bwrap started, but its network or file system was not as expected"
            except (OSError, subprocess.TimeoutExpired) as exc:
                reason = f"bwrap is installed but failed to start a kernel here ({type(exc).__name__}: {exc})"
    if reason:
        if mode == "require":
            raise SandboxUnavailable(f"--sandbox=require, but no sandbox is available: {reason}. "
                                     "Install bubblewrap on Linux (and allow unprivileged user namespaces), "
                                     "or use --sandbox=auto to grade without one.")
        return Isolation(mode, None, reason)
    return Isolation(mode, found)
