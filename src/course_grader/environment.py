"""Watch what every kernel trusts, the checkout, the Python environment, the submissions, for changes.

Lesson: none; this is the instructors' tool (``course-grade``). Without the sandbox a submission runs
as the instructor's user and can change what the next kernels load: a ``.pth`` planted in the venv's
site-packages runs at every Python start, an edited module of torch or of the course changes what
every later check sees, a changed submission changes another learner's grade (issue 25, attack 7).
No file system write goes unseen here: every file and folder under the watched trees is recorded by
its ``lstat`` (size, modification time, inode and change time; the change time cannot be set back
by an unprivileged user), before the batch and after each submission. A difference names its paths,
and the submissions graded after it are marked as not trustworthy (``batch``).

Stat, not sha256: the venv holds some 50,000 files (torch alone most of them), which a stat walk
reads in about a second on a busy 2-core machine; hashing them after each submission would cost
minutes. The exercise notebook and the submissions are also hashed before and after the batch
(``sandbox.fingerprint``).
"""

from __future__ import annotations

import importlib.machinery
import os
import re
import site
import stat
import sys
import sysconfig
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

MAX_NAMED = 20  # changed paths named per difference

Snapshot = dict[str, tuple[int, int, int, int, int]]

# Editors' swap, backup and lock files, which appear and vanish as the instructor edits during a batch:
# vim (.name.swp ... .swp, its write test "4913", name~), emacs (#name#, .#name), kate, LibreOffice,
# JetBrains' safe-write temporaries. None of these names can be imported by Python (a module name has
# no "#", "~", leading "." nor a ".sw?" suffix) nor read as a .pth, so no kernel and no check runs them.
EDITOR_FILES = re.compile(r"^\..+\.sw[a-px]$|^\.#|^#.*#$|~$|^4913$|\.kate-swp$|^\.~lock\..*#$|___jb_(tmp|old)___$")

# What git writes in a checkout's .git/ when the instructor runs `git status`, `git fetch`, `git gc`:
# the index (refreshed by `git status`) and its lock, objects, reflogs, remote-tracking refs. No kernel
# imports from .git/, and what is checked out is verified against HEAD's tree before each batch
# (grading.manifest). HEAD, the local branches and tags, packed-refs and the config stay watched: a
# commit made during a batch moves them, and would change what the next batch is verified against.
# What Python can load from a folder: modules (source, bytecode, extension), a .pth file (read in a site
# folder), an archive a .pth or sys.path can name. A folder is walked whatever its name: a package.
LOADABLE = (*importlib.machinery.all_suffixes(), ".pth", ".zip", ".egg", ".whl")
GIT_BUSY = (
    "index",
    "index.lock",
    "objects",
    "logs",
    "FETCH_HEAD",
    "ORIG_HEAD",
    "refs/remotes",
    "gc.pid",
    "gc.log",
    "fsmonitor--daemon",
    "maintenance.lock",
)


def _resolved(path: str | Path) -> Path | None:
    try:
        path = Path(path).resolve()
    except (OSError, RuntimeError):
        return None
    return path if path.exists() else None


def checkout_of(package_file: str) -> Path | None:
    """The course checkout a package file lies in (``src/course_utils/...`` under a ``pyproject.toml``), or None."""
    here = _resolved(package_file)
    if here is None:
        return None
    for parent in here.parents:
        if (parent / "pyproject.toml").is_file() and (parent / "src" / "course_utils").is_dir():
            return parent
    return None


def python_trees() -> list[Path]:
    """Where the kernels' Python finds code: the venv, the standard library, the user's site-packages, sys.path,
    Jupyter's kernel specs and configuration, the course checkout.

    Never a folder that holds the temporary folder (a grader started from /tmp has it on sys.path):
    the batch's own scratch folders, and other programs' files, change there all the time. Nor a
    sys.path folder of another checkout of the course (an editable install made from it): it only
    offers a ``course_utils``, which the staged copy shadows in every kernel.
    """
    import course_utils

    own = checkout_of(course_utils.__file__)
    wanted: list[str | Path] = [
        sys.prefix,
        sysconfig.get_paths()["stdlib"],
        *site.getsitepackages(),
        *(p for p in sys.path if p and checkout_of(p) in (None, own)),
    ]
    if site.ENABLE_USER_SITE:
        wanted.append(site.getusersitepackages())
    try:
        from jupyter_core.paths import jupyter_config_path, jupyter_path

        wanted += [*jupyter_path(), *jupyter_config_path()]  # kernel specs (a new one too), configuration
    except ImportError:
        pass
    if own is not None:
        wanted.append(own)
    temp = Path(tempfile.gettempdir()).resolve()
    # Drop a folder that holds the temporary folder before merging nested ones: merged first, a checkout
    # cloned under /tmp (and its .venv) would vanish into /tmp, and go unwatched with it.
    wanted = [w for w in wanted if (path := _resolved(w)) is not None and not temp.is_relative_to(path)]
    return _outermost(wanted)


def loose_folders() -> list[Path]:
    """The course checkout's top folder, whose files nothing imports unless Python can load them by name.

    No kernel has it on its path (each starts in its own scratch folder, with the staged package), and the
    judge has loaded all it runs before the first kernel. A log the instructor writes there during a batch
    (``course-grade ... > grading.log``, ``make test | tee test.log``) is their own work, not a change to
    what kernels trust; a module, a ``.pth`` or a folder planted there is still named (``snapshot``)."""
    import course_utils

    own = checkout_of(course_utils.__file__)
    return [own] if own is not None else []


def busy_folders() -> list[Path]:
    """Folders inside the watched trees that no kernel runs code from, left out of the watch.

    Jupyter's runtime folder (connection files) and JupyterLab's workspaces and settings, which
    running programs write as they work; the base Python's own site-packages when this Python
    does not read it (a venv without system site-packages): some 50,000 files here, half the walk;
    and the course checkout's output folders (``build/``, ``artifacts/``, ``workspace/``,
    ``transfer-results/``) and its linters' and test runners' caches (``.ruff_cache/``, ``.mypy_cache/``,
    import-linter's ``.import_linter_cache/`` and ``.grimp_cache/``, ``.pytest_cache/``): git ignores
    them, tests, linters and the learner's Lab write them while a batch runs, and no kernel and no
    check imports anything from them; and what git itself writes in the checkout's ``.git/``
    (``GIT_BUSY``: the index ``git status`` refreshes, objects, reflogs), from which nothing is
    imported either. (Editors' swap files are left out by name: ``EDITOR_FILES``.)
    """
    import course_utils

    own = checkout_of(course_utils.__file__)
    outputs = (
        [
            own / name
            for name in (
                "build",
                "artifacts",
                "workspace",
                "transfer-results",
                ".ruff_cache",
                ".mypy_cache",
                ".import_linter_cache",
                ".grimp_cache",
                ".pytest_cache",
            )
        ]
        if own
        else []
    )
    if own is not None:
        outputs += git_internals(own)
    skip = [Path(sysconfig.get_paths()["stdlib"]) / "site-packages"]
    on_path = {_resolved(p) for p in sys.path if p}
    skip = [p for p in skip if _resolved(p) not in on_path]
    try:
        from jupyter_core.paths import jupyter_config_path, jupyter_runtime_dir
    except ImportError:
        return [*skip, *outputs]
    return [*skip, *outputs, Path(jupyter_runtime_dir()), *(Path(p) / "lab" for p in jupyter_config_path())]


def git_internals(checkout: Path) -> list[Path]:
    """What git writes inside ``checkout/.git`` as the instructor works (``GIT_BUSY``); [] for a worktree's
    ``.git`` file (its git folder lies elsewhere, outside the watched trees)."""
    git = Path(checkout) / ".git"
    return [git / name for name in GIT_BUSY] if git.is_dir() else []


def _outermost(paths: list[str | Path]) -> list[Path]:
    """The existing folders among ``paths`` (files: their own path), none inside another."""
    found: list[Path] = []
    for path in map(_resolved, paths):
        if path is None or any(path == f or path.is_relative_to(f) for f in found):
            continue
        found = [f for f in found if not f.is_relative_to(path)] + [path]
    return sorted(found)


def _record(st: os.stat_result) -> tuple[int, int, int, int, int]:
    if stat.S_ISDIR(st.st_mode):
        return (0, 0, 0, st.st_ino, st.st_mode)
    return (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_mode)


def snapshot(trees: list[Path], skip: frozenset[str] = frozenset(), loose: frozenset[str] = frozenset()) -> Snapshot:
    """Every file and folder under ``trees``, by path: its lstat (symbolic links are not followed).

    A folder (or file) in ``skip`` is left out, with everything in it, and so is an editor's swap
    or backup file (``EDITOR_FILES``), wherever it lies. In a folder of ``loose`` (the checkout's
    top level), a plain file whose name Python cannot load (not ``LOADABLE``: a log, notes, a CSV
    the instructor writes there during a batch) is left out too; its folders and links are still
    recorded, and the folders walked whole. A folder is recorded by its inode and mode only: what
    changes inside it is named by its own entries, and its times change also when a skipped folder
    (``build/``, made by the tests during a batch) appears in it.
    """
    out: Snapshot = {}
    for top in trees:
        try:
            st = os.lstat(top)
        except OSError:
            continue
        out[str(top)] = _record(st)
        stack = [str(top)] if os.path.isdir(top) and not os.path.islink(top) else []
        while stack:
            folder = stack.pop()
            try:
                with os.scandir(folder) as entries:
                    for entry in entries:
                        if entry.path in skip or EDITOR_FILES.search(entry.name):
                            continue
                        if (
                            folder in loose and entry.is_file(follow_symlinks=False) and not entry.name.endswith(LOADABLE)
                        ):  # a link stays watched: it can stand for a package by any name
                            continue
                        try:
                            st = entry.stat(follow_symlinks=False)
                        except OSError:
                            continue
                        out[entry.path] = _record(st)
                        if entry.is_dir(follow_symlinks=False):
                            stack.append(entry.path)
            except OSError:
                continue
    return out


def differences(before: Snapshot, after: Snapshot) -> list[str]:
    """What changed between two snapshots: "changed: p", "new: p", "deleted: p", files before folders.

    A folder whose only change is an entry added or removed is not named again: the entry is.
    """
    new = [p for p in after if p not in before]
    gone = [p for p in before if p not in after]
    touched = {str(Path(p).parent) for p in (*new, *gone)}
    changed = [p for p in before if p in after and before[p] != after[p] and p not in touched]
    return sorted(
        [f"changed: {p}" for p in changed] + [f"new: {p}" for p in new] + [f"deleted: {p}" for p in gone],
        key=lambda line: (line.split(": ", 1)[1].endswith(os.sep), line),
    )


@dataclass(frozen=True)
class Change:
    """What changed in the watched trees while some submissions ran: the paths, and who ran then."""

    paths: tuple[str, ...]
    during: tuple[str, ...]  # the learners whose kernels ran since the last clean look

    def __str__(self) -> str:
        shown = ", ".join(self.paths[:MAX_NAMED]) + (f" and {len(self.paths) - MAX_NAMED} more" if len(self.paths) > MAX_NAMED else "")
        who = (
            (f"while grading {self.during[0]}" if len(self.during) == 1 else f"while grading one of {', '.join(self.during)}")
            if self.during
            else "while grading"
        )
        return f"the course checkout, the Python environment or the submissions changed {who}: {shown}"


class Watch:
    """The trees every kernel trusts, looked at before the batch and after each submission.

    ``look(during)`` compares with the last look: a ``Change`` when something differs (then the new
    state becomes the one to compare with, so each change is named once), else None. ``during``
    names who ran since the last look; it is called after this look's walk, so a kernel that
    started while the walk ran is named too.
    """

    def __init__(self, trees: list[Path], skip: list[Path] = (), loose: list[Path] = ()):
        self.trees = _outermost(list(trees))
        # resolved without asking that they exist: an output folder (build/) may appear during the batch
        self.skip = frozenset(str(Path(p).resolve()) for p in skip)
        self.loose = frozenset(str(Path(p).resolve()) for p in loose)
        self._last = snapshot(self.trees, self.skip, self.loose)
        self.changes: list[Change] = []

    def look(self, during: Callable[[], list[str]]) -> Change | None:
        now = snapshot(self.trees, self.skip, self.loose)
        who = during()
        found = differences(self._last, now)
        self._last = now
        if not found:
            return None
        change = Change(tuple(found), tuple(sorted(set(who))))
        self.changes.append(change)
        return change
