"""Scratch folders, the kernel's environment, and the clean-up that always runs.

Lesson: none; this is the instructors' tool (``course-grade``). Each submission runs with its
working folder, ``HOME``, ``TMPDIR`` and Jupyter's runtime folder inside its own scratch folder,
in its own process group that is killed when grading ends. That keeps honest mistakes (relative
paths, temp files, stray child processes) away from the instructor's files. On its own it does
NOT stop deliberate harm: without bubblewrap (module ``bubblewrap``) the code runs as the instructor's
user and can write anywhere that user can, by absolute path. What it can, the grader detects:
files that appear outside a scratch folder in the batch's temporary folder, any change to the
exercise notebook or the submissions (hashed before and after), and the writes outside its own
folder that the kernel's audit hook saw (``attempted_writes``), named per submission.
"""

from __future__ import annotations

import errno
import hashlib
import os
import re
import shutil
import site
import stat
import sys
from dataclasses import dataclass
from pathlib import Path

SCRATCH_PARTS = ("work", "home", "tmp", "runtime", "handover", "kernel.log", "kernel.json", "writes.log")
_SOCKET = re.compile(r"k-\d+$")  # the kernel's ipc sockets under bubblewrap (see bubblewrap.ipc_path)
MAX_WRITES = 50  # paths kept from a submission's write log


@dataclass(frozen=True)
class Scratch:
    """One submission's scratch folder: ``work`` (the kernel's cwd), ``home``, ``tmp``, the kernel log.

    It sits one level down in a folder of its own (``<batch>/<learner>/scratch``), so what the
    learner's code writes at ``../`` or ``../../`` is still found, and still theirs.
    """

    root: Path

    @property
    def work(self) -> Path:
        return self.root / "work"

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def tmp(self) -> Path:
        return self.root / "tmp"

    @property
    def runtime(self) -> Path:
        return self.root / "runtime"

    @property
    def handover(self) -> Path:
        """Where the judge writes the files a check hands to the learner's function (``boundary.handover_folder``).

        The kernel reads them at the same path; under bubblewrap this folder is bound read-only, so
        the kernel cannot change a file while the judge writes it, nor plant a link for it to write through."""
        return self.root / "handover"

    @property
    def log(self) -> Path:
        return self.root / "kernel.log"

    @property
    def writes(self) -> Path:
        """Where the kernel's audit hook notes each write outside the submission's own folder."""
        return self.root / "writes.log"

    @property
    def own(self) -> Path:
        """The submission's own folder in the batch, holding the scratch folder; removed at the end."""
        return self.root.parent

    def strays(self) -> list[str]:
        """What the learner's code wrote outside work/, home/ and tmp/, up to two levels above work/."""
        try:
            found = [f"../{n}" for n in os.listdir(self.root) if n not in SCRATCH_PARTS and not _SOCKET.match(n)]
            found += [f"../../{n}" for n in os.listdir(self.own) if n != self.root.name]
        except OSError:
            return []
        return sorted(found)

    def attempted_writes(self) -> list[str]:
        """The paths outside its own folder that the submission's code opened for writing, or removed,
        renamed, created, truncated (as its kernel's audit hook noted them), in order, each once.

        The log lives in the scratch folder, so code that sets out to can erase it: a path found
        here is evidence, an empty list is not proof (the sandbox, where there is one, is).
        """
        try:
            with os.fdopen(open_regular(self.writes, os.O_RDONLY), "rb") as handle:
                text = handle.read(1 << 20).decode("utf-8", "backslashreplace")
        except OSError:  # gone, or replaced by a link or a FIFO (whose open would wait for ever): nothing to read
            return []
        seen: dict[str, None] = {}
        for line in text.splitlines():
            if line.strip():
                seen.setdefault(line.strip(), None)
        return list(seen)[:MAX_WRITES]


def open_regular(path: Path, flags: int, mode: int = 0o600) -> int:
    """A descriptor of ``path`` opened by the grader in a folder the learner's code can write in: never through a
    symbolic link the code put there (``O_NOFOLLOW``), never waiting on a FIFO (``O_NONBLOCK``), and only a regular
    file (OSError otherwise). A kernel that replaced its log by a link to a file outside its sandbox had the grader
    append its output there."""
    fd = os.open(path, flags | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0), mode)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, f"not a regular file: {path}")
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def make_scratch(batch_root: Path, slug: str) -> Scratch:
    """The submission's folder, private to the user (mode 0700: the kernel's sockets and connection file are in it)."""
    scratch = Scratch(batch_root / slug / "scratch")
    scratch.own.mkdir(mode=0o700)
    for folder in (scratch.work, scratch.home, scratch.tmp, scratch.runtime, scratch.handover):
        folder.mkdir(parents=True)
    return scratch


def _matplotlib_cache() -> str | None:
    """Where matplotlib keeps its font cache for this user, so a fresh HOME does not rebuild it."""
    if os.environ.get("MPLCONFIGDIR"):
        return os.environ["MPLCONFIGDIR"]
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "matplotlib"
    return str(cache) if cache.is_dir() else None


def kernel_env(scratch: Scratch, threads: int | None = None, package: Path | None = None) -> dict[str, str]:
    """The environment of a learner's kernel: the grader's, with HOME, the temp and runtime dirs in scratch.

    ``PYTHONUSERBASE`` keeps user-installed packages importable under the new HOME;
    ``MPLCONFIGDIR`` keeps matplotlib's font cache; ``threads`` (when the instructor has not set
    ``OMP_NUM_THREADS``) shares the cores between kernels running side by side. ``package``, the
    folder ``stage_package`` made, comes first on ``PYTHONPATH``, and no other folder that holds a
    ``course_utils`` stays there: the kernel imports the staged copy, not the checkout's.
    """
    env = dict(os.environ)
    env.update(
        HOME=str(scratch.home),
        TMPDIR=str(scratch.tmp),
        TMP=str(scratch.tmp),
        TEMP=str(scratch.tmp),
        IPYTHONDIR=str(scratch.home / ".ipython"),
        PYTHONUSERBASE=site.getuserbase(),
        JUPYTER_RUNTIME_DIR=str(scratch.runtime),
        # read by the grader's first cell, which installs the audit hook that notes writes
        COURSE_GRADE_OWN=str(scratch.own),
        COURSE_GRADE_WRITES=str(scratch.writes),
    )
    if package is not None:
        kept = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p and not (Path(p) / "course_utils").exists()]
        env["PYTHONPATH"] = os.pathsep.join([str(package), *kept])
    mpl = _matplotlib_cache()
    if mpl:
        env["MPLCONFIGDIR"] = mpl
    if threads and "OMP_NUM_THREADS" not in os.environ:
        env["OMP_NUM_THREADS"] = str(threads)
    return env


PACKAGE = "package"  # <folder>/package/course_utils and course_grader: the copies of the course's packages the kernels import
# What a grading kernel imports of the course: the learner's package (the checks, the course's records)
# and the grader's (boundary.open_channel answers the judge's requests in the kernel).
STAGED = ("course_utils", "course_grader")
# Never staged: the judge's drawn cases and their expected values (issue 38); a kernel must not import them.
UNSTAGED = ("hidden_cases",)


def stage_package(folder: Path) -> Path:
    """A copy of the installed ``course_utils`` and ``course_grader`` in ``folder``, compiled and read-only;
    the path to put on sys.path.

    A kernel that imports the checkout's packages finds the checkout (``solutions/``, the tests'
    reference answers, the grader's own files) from ``course_utils.__file__`` (issue 25, attack 6).
    The copy holds the packages only: the answers are not in it (``checks.answers``).
    It is compiled here once, so the kernels write no ``__pycache__`` into it, and made read-only;
    a change to it is still found (``environment.Watch``), and the sandbox mounts it read-only.
    """
    import compileall
    import importlib

    root = Path(folder) / PACKAGE
    for name in STAGED:
        package = importlib.import_module(name)
        shutil.copytree(Path(package.__file__).resolve().parent, root / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", *UNSTAGED))
        compileall.compile_dir(root / name, quiet=1, workers=1)
    for folder, _dirs, files in os.walk(root, topdown=False):
        for name in files:
            os.chmod(os.path.join(folder, name), stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH)
        os.chmod(folder, stat.S_IRUSR | stat.S_IXUSR | stat.S_IRGRP | stat.S_IXGRP | stat.S_IROTH | stat.S_IXOTH)
    return root


def remove(path: Path) -> None:
    """Delete a scratch folder, whatever the learner's code did to its permissions; never raises."""

    def make_writable(func, name, _exc):
        try:
            os.chmod(os.path.dirname(name), stat.S_IRWXU)
            os.chmod(name, stat.S_IRWXU)
            func(name)
        except OSError:
            pass

    if sys.version_info >= (3, 12):
        shutil.rmtree(path, onexc=make_writable)
    else:
        shutil.rmtree(path, onerror=make_writable)


# kill_group and ProcessGroups (was KernelGroups) live in course_utils.processes, with launch's clean-up.


def fingerprint(paths: list[Path]) -> dict[str, str]:
    """sha256 of every file under ``paths`` (files or folders), by path: to prove nothing changed."""
    digests: dict[str, str] = {}
    for top in paths:
        files = [top] if top.is_file() else sorted(p for p in top.rglob("*") if p.is_file() and not p.is_symlink())
        for path in files:
            digest = hashlib.sha256()
            try:
                with open(path, "rb") as handle:
                    for block in iter(lambda: handle.read(1 << 20), b""):
                        digest.update(block)
                digests[os.fsencode(path).decode("utf-8", "backslashreplace")] = digest.hexdigest()
            except OSError as exc:
                digests[str(path)] = f"unreadable: {exc}"
    return digests


def changed(before: dict[str, str], after: dict[str, str]) -> list[str]:
    """What differs between two fingerprints: changed, deleted and new files."""
    out = [f"changed: {p}" for p in before if p in after and before[p] != after[p]]
    out += [f"deleted: {p}" for p in before if p not in after]
    out += [f"new: {p}" for p in after if p not in before]
    return sorted(out)
