"""Run each learner's kernel in a bubblewrap sandbox on Linux, and say plainly when there is none.

Lesson: none; this is the instructors' tool (``course-grade --sandbox=auto|require|off``).
Under ``bwrap`` (Debian's ``bubblewrap``; it works unprivileged where user namespaces are
allowed) a kernel sees only what it needs, read-only: the system's programs and libraries
(``SYSTEM_PATHS``), its Python environment and the staged course package; and its own submission
folder (which holds its scratch folder), writable, and a private ``/tmp`` that vanishes with it.
Home folders, the real temporary folder (other submissions), every course checkout
(``solutions/``, ``source/``, ``release/``) and the instructor's other files are not there. It has no
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

import contextlib
import json
import os
import shutil
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
# What a probe runs inside the sandbox: the kernel's packages can be found and opened (find, not import:
# no paying for torch's import here), its own folder is writable, and only loopback is up.
PROBE_CODE = (
    "import importlib.util, pathlib, socket\n"
    "for name in ('course_utils', 'torch', 'ipykernel'):\n"
    "    open(importlib.util.find_spec(name).origin, 'rb').close()\n"
    "pathlib.Path('written').write_text('ok')\n"
    "print([name for _, name in socket.if_nameindex()])\n"
)


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
            return (
                "sandbox: bubblewrap (a kernel sees only the system's libraries, its Python environment and "
                "the staged package, read-only, and its own folder; private /tmp, no network, own process "
                "namespace)"
            )
        return (
            f"sandbox: NONE ({self.reason}); submissions run as your user and can write anywhere you can "
            "(scratch folders only; see docs/grading.md)"
        )


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

    found = {checkout_of(p) for p in (course_utils.__file__, sys.prefix, os.path.realpath(sys.prefix), *(p for p in sys.path if p))}
    return sorted(p for p in found if p is not None)


# What a kernel may read of the system, beyond its Python environment: one row per path, with why.
# A path missing on this machine is left out; a top-level link (/lib -> usr/lib on merged-/usr systems)
# is made as the same link. Everything not named here, in the environment, or the submission's own
# folder does not exist inside the sandbox: home folders, /tmp, /var, /srv, /mnt, /opt, other checkouts.
SYSTEM_PATHS = (
    ("/usr", "programs, shared libraries, fonts, time zones"),
    ("/bin", "programs (a link to usr/bin on merged-/usr systems)"),
    ("/sbin", "programs (ldconfig, which ctypes.util.find_library runs)"),
    ("/lib", "shared libraries and the dynamic loader"),
    ("/lib32", "shared libraries"),
    ("/lib64", "the dynamic loader"),
    ("/libx32", "shared libraries"),
    ("/etc/ld.so.cache", "the dynamic loader's index of libraries"),
    ("/etc/ld.so.conf", "the dynamic loader's search path"),
    ("/etc/ld.so.conf.d", "the dynamic loader's search path"),
    ("/etc/alternatives", "Debian's links for programs in /usr/bin"),
    ("/etc/localtime", "the time zone (time, datetime)"),
    ("/etc/timezone", "the time zone's name"),
    ("/etc/passwd", "user names (getpass, os.path.expanduser)"),
    ("/etc/group", "group names"),
    ("/etc/nsswitch.conf", "how names are looked up"),
    ("/etc/hosts", "localhost"),
    ("/etc/mime.types", "mimetypes"),
    ("/etc/os-release", "platform.freedesktop_os_release"),
    ("/etc/ssl", "certificates (ssl's default context, read on import by some packages)"),
    ("/etc/ca-certificates", "certificates"),
    ("/etc/fonts", "fontconfig"),
    ("/sys/devices/system/cpu", "torch counts the cores and reads their caches"),
    ("/sys/devices/system/node", "torch reads the NUMA nodes"),
)


def _home_folders() -> list[Path]:
    homes = {Path("/root"), Path("/home")}
    with contextlib.suppress(RuntimeError, KeyError):
        homes.add(Path.home())
    return [h.resolve() for h in homes]


def _kernel_sys_path() -> list[Path]:
    """The folders the kernel's Python imports from: this interpreter's sys.path, asked of a fresh one.

    A fresh ``python -c`` sees what a kernel started from it sees (stdlib, site-packages, the folders
    ``.pth`` files add, ``PYTHONPATH``, the user's site-packages where enabled), and not the folder
    this grader was started in (``sys.path[0]``), which may be a home folder.
    """
    code = "import json, sys; print(json.dumps(sys.path[1:]))"
    try:
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=PROBE_TIMEOUT, cwd="/")
        found = json.loads(done.stdout) if done.returncode == 0 else sys.path[1:]
    except (OSError, subprocess.TimeoutExpired, ValueError):
        found = sys.path[1:]
    return [Path(p) for p in found if p]


def environment_paths(package: Path | None = None) -> list[Path]:
    """What a kernel must read of its Python: the prefixes, the stdlib, site-packages, the staged package.

    Never a folder that is, or holds, a course checkout (``solutions/``; a venv kept inside a checkout
    is bound on its own), a home folder (a Python under ``~/.pyenv`` is bound, not ``~``), or the
    temporary folder. With ``package`` (the staged copy of course_utils) the kernel reads the package
    there; without it (the probe), the package's own folder.
    """
    import course_utils

    checkouts = course_checkouts()
    shut = [*checkouts, *_home_folders(), Path("/tmp"), Path(tempfile.gettempdir()).resolve(), Path("/")]
    wanted = [
        Path(sys.prefix),
        Path(sys.base_prefix),
        Path(sys.exec_prefix),
        Path(sys.base_exec_prefix),
        Path(sys.executable).parent,
        *(Path(p) for p in sysconfig.get_paths().values()),
        *_kernel_sys_path(),
    ]
    mpl = os.environ.get("MPLCONFIGDIR")
    if mpl:
        wanted.append(Path(mpl))  # matplotlib's font cache (the kernel's own HOME is empty)
    found: list[Path] = []
    for path in wanted:
        path = Path(os.path.abspath(path))
        if not path.exists():
            continue
        real = path.resolve()
        # an ancestor of what is shut (a checkout's parent, /home, /) would expose it
        if any(_under(s, real) for s in shut):
            continue
        if any(_under(real, c) for c in checkouts) and not _is_environment(real):
            continue  # the checkout's src/ (an editable install) or the checkout's root (pytest's rootdir)
        found.append(path)
    found.append(Path(package) if package is not None else Path(course_utils.__file__).parent)
    return found


def _is_environment(path: Path) -> bool:
    """Whether ``path`` is (inside) this Python's environment: the venv, even where it lies in a checkout."""
    return any(_under(path, Path(p).resolve()) for p in (sys.prefix, sys.exec_prefix))


def _ro_binds(paths: list[Path]) -> list[str]:
    """``--ro-bind`` for each path (at its real path, and at the path named where a link leads there),
    parents before children, none twice."""
    pairs: dict[Path, Path] = {}  # where the kernel sees it -> what is bound there
    for path in paths:
        path = Path(os.path.abspath(path))
        real = path.resolve()
        pairs.setdefault(real, real)
        pairs.setdefault(path, real)
    argv: list[str] = []
    kept: list[Path] = []
    for at in sorted(pairs, key=lambda p: (len(p.parts), str(p))):
        if any(_under(at, k) and pairs[k] / at.relative_to(k) == pairs[at] for k in kept):
            continue  # already visible through a bound parent
        kept.append(at)
        argv += ["--ro-bind", str(pairs[at]), str(at)]
    return argv


def system_argv() -> list[str]:
    """The bwrap options that make the system paths of ``SYSTEM_PATHS`` visible, read-only."""
    argv: list[str] = []
    for name, _why in SYSTEM_PATHS:
        path = Path(name)
        if path.is_symlink() and path.parent == Path("/"):
            argv += ["--symlink", os.readlink(path), name]
        elif path.exists():
            argv += ["--ro-bind", name, name]
    return argv


def bwrap_argv(
    bwrap: str, own: Path, work: Path, batch_root: Path | None = None, package: Path | None = None, handover: Path | None = None
) -> list[str]:
    """The bwrap command line that runs a kernel with ``own`` writable and ``work`` as its folder.

    An allow-list: the sandbox's file system starts empty and holds only the system paths of
    ``SYSTEM_PATHS``, the Python environment (``environment_paths``) and ``package`` (the staged
    copy of course_utils), read-only; a private ``/dev``, ``/proc`` and empty ``/tmp``; and ``own``,
    the submission's folder, writable. Home folders, the real temporary folder (``batch_root``,
    other submissions' folders), every course checkout and the instructor's other files do not exist
    there. ``handover`` (a folder inside ``own``: where the judge writes the files a check hands to
    the learner's function) is bound read-only at its own path: the kernel reads them where the
    judge wrote them, and cannot change them.
    """
    argv = [bwrap, *system_argv(), "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]
    argv += _ro_binds(environment_paths(package))
    own = Path(own).resolve()
    if batch_root is not None and not _under(own, Path(batch_root).resolve()):
        raise ValueError(f"the submission's folder {own} must lie inside the batch's folder {batch_root}")
    argv += ["--bind", str(own), str(own)]
    root = Path(work).resolve().parent
    if _under(root, own) and root != own:
        # the scratch folder (the kernel's log, the audit hook's log, the sockets) bound onto itself: a mount point,
        # which the kernel can write in but not rename away and put a link in its place, for the grader, outside the
        # sandbox, to open its files through
        argv += ["--bind", str(root), str(root)]
    if handover is not None:
        handover = Path(handover).resolve()
        if not _under(handover, own) or handover == own:
            raise ValueError(f"the handover folder must lie inside the submission's own folder {own}; got {handover}")
        argv += ["--ro-bind", str(handover), str(handover)]
    # bwrap made the folders above each bound path in its empty root writable; nothing else is
    argv += ["--remount-ro", "/"]
    # ipykernel exits when its parent looks gone (parent pid 1); in its own process namespace the
    # parent is bwrap's init, pid 1. JPY_PARENT_PID=1 turns that poll off; --die-with-parent and the
    # process namespace do its job instead.
    argv += [
        "--chdir",
        str(Path(work).resolve()),
        "--setenv",
        "JPY_PARENT_PID",
        "1",
        "--unshare-net",
        "--unshare-pid",
        "--unshare-ipc",
        "--unshare-uts",
        "--die-with-parent",
        "--new-session",
        "--",
    ]
    return argv


def ipc_path(own: Path) -> str:
    """Where the kernel's sockets go: inside the submission folder, short enough for a Unix socket."""
    path = str(Path(own).resolve() / IPC_NAME)
    if len(os.fsencode(path)) > SOCKET_PATH_MAX:
        raise ValueError(
            f"the scratch folder's path is too long for the kernel's sockets ({len(path)} > "
            f"{SOCKET_PATH_MAX} bytes: {path}); set TMPDIR to a shorter folder, or use --sandbox=off"
        )
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
            try:
                done = subprocess.run(
                    [*bwrap_argv(found, own, work), sys.executable, "-c", PROBE_CODE], capture_output=True, text=True, timeout=PROBE_TIMEOUT
                )
                if done.returncode != 0:
                    last = (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[-1]
                    reason = f"bwrap is installed but failed to start a kernel here ({last[:300]})"
                elif done.stdout.strip() != "['lo']" or not (work / "written").is_file():
                    reason = "bwrap started, but its network or file system was not as expected"
            except (OSError, subprocess.TimeoutExpired) as exc:
                reason = f"bwrap is installed but failed to start a kernel here ({type(exc).__name__}: {exc})"
    if reason:
        if mode == "require":
            raise SandboxUnavailable(
                f"--sandbox=require, but no sandbox is available: {reason}. "
                "Install bubblewrap on Linux (and allow unprivileged user namespaces), "
                "or use --sandbox=auto to grade without one."
            )
        return Isolation(mode, None, reason)
    return Isolation(mode, found)
