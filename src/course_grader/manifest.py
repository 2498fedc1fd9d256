"""Before any kernel starts: is the code the grader trusts what the course released?

Lesson: none; this is the instructors' tool (``course-grade``). The watch (``environment``) sees a
change made *during* a batch; it cannot see one left by an earlier batch. A submission graded
without the sandbox can write a backdoor into ``checks/nb09.py`` (flagged in that batch), and
every later batch, sandboxed or not, would then judge with it and call the checkout "unchanged"
(issue 39). So each batch first compares, file by file:

- the course's packages (``course_utils``, the checks; ``course_grader``, the judge and the kernel's side
  of the boundary; the staged copy the kernels import is made from these files) with a manifest: the checkout's committed tree
  (``git ls-tree HEAD``, git's blob hash of each working file computed here) when the package is
  an editable install of a git checkout, else the installed distribution's ``RECORD`` (sha256);
  a file the manifest does not list (a planted ``checks/nb11.py``) is a mismatch too;
- every module the judge has imported from another distribution (torch, numpy, ...) with that
  distribution's ``RECORD``;
- the bytecode the judge ran for each course module (``__pycache__``) with what its verified
  source compiles to: Python loads a ``.pyc`` whose header matches the source's size and time
  without reading the source, so a planted one would bypass the source check.

Not covered, and said so in docs/instructors.md: the standard library (no manifest to compare
with), a distribution installed without a ``RECORD``, and the grader's own modules already running
(``course_grader``): a backdoor there runs before any check can; a reinstall (or
``git checkout -- src``) is the remedy. A commit made by a submission moves ``HEAD``; the summary
names the commit each batch was verified against, so the instructor can see it is theirs.
"""

from __future__ import annotations

import base64
import csv
import functools
import hashlib
import importlib.util
import json
import marshal
import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

DISTRIBUTION = "course-utils"
MAX_NAMED = 20


class ModifiedCourse(ValueError):
    """The course's code differs from its manifest: the batch refuses to grade (``--allow-modified-course`` grades)."""


@dataclass(frozen=True)
class Verification:
    """What a batch was verified against (``source``) and what differs from it (``mismatches``, one line each)."""

    source: str  # "git commit 1a2b3c4 of /path/to/checkout" or "the RECORD of course-utils 0.1.0"
    mismatches: tuple[str, ...]
    files: int  # how many files were compared

    @property
    def clean(self) -> bool:
        return not self.mismatches

    def __str__(self) -> str:
        if self.clean:
            return f"the course's code matches {self.source} ({self.files} files compared)"
        shown = "; ".join(self.mismatches[:MAX_NAMED]) + (
            f"; and {len(self.mismatches) - MAX_NAMED} more" if len(self.mismatches) > MAX_NAMED else ""
        )
        return f"the course's code differs from {self.source}: {shown}"


def git_blob_hash(path: Path) -> str:
    """What ``git hash-object PATH`` prints: sha1 of ``blob <size>\\0`` and the bytes (no filters applied)."""
    data = Path(path).read_bytes()
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def _record_hash(path: Path, algorithm: str) -> str:
    digest = hashlib.new(algorithm)
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return base64.urlsafe_b64encode(digest.digest()).rstrip(b"=").decode("ascii")


def _git(checkout: Path, *args: str) -> bytes:
    return subprocess.run(["git", "-C", str(checkout), *args], check=True, capture_output=True, timeout=60).stdout


def _committed(checkout: Path, folder: Path) -> tuple[str, dict[str, tuple[str, str]]]:
    """HEAD's commit and, for each file under ``folder`` in HEAD's tree, its (mode, blob hash), by relative path."""
    head = _git(checkout, "rev-parse", "HEAD").decode().strip()
    listing = _git(checkout, "ls-tree", "-r", "-z", "--full-tree", "HEAD", "--", str(folder.relative_to(checkout)))
    files = {}
    for entry in filter(None, listing.split(b"\0")):
        info, name = entry.split(b"\t", 1)
        mode, kind, blob = info.decode().split()
        if kind == "blob":
            files[os.fsdecode(name)] = (mode, blob)
    return head, files


def _working_files(folder: Path) -> list[Path]:
    """Every file under ``folder`` but bytecode caches (checked apart: ``_bytecode``)."""
    out = []
    for parent, dirs, names in os.walk(folder):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        out += [Path(parent) / n for n in names]
    return sorted(out)


def _against_git(package: Path, checkout: Path) -> Verification:
    head, files = _committed(checkout, package)
    mismatches, compared = [], 0
    for path in _working_files(package):
        rel = str(path.relative_to(checkout))
        compared += 1
        if rel not in files:
            mismatches.append(f"not in the commit: {path}")
        elif path.is_symlink() or git_blob_hash(path) != files[rel][1]:
            mismatches.append(f"changed: {path}")
    present = {str(p.relative_to(checkout)) for p in _working_files(package)}
    mismatches += [f"missing: {checkout / rel}" for rel in sorted(files) if rel not in present]
    return Verification(f"git commit {head[:12]} of {checkout}", tuple(mismatches), compared)


def _record(dist: metadata.Distribution) -> dict[str, tuple[str, str]]:
    """The files a distribution's RECORD lists with a hash: normalized absolute path -> (algorithm, digest).

    Read as text (csv), not through ``dist.files``: the judge's imports span some 100 distributions
    and 100,000 RECORD lines, which ``PackagePath`` objects would take seconds to build."""
    text = dist.read_text("RECORD") or ""
    base = os.fspath(dist.locate_file(""))
    out = {}
    for row in csv.reader(text.splitlines()):
        if len(row) >= 2 and "=" in row[1]:
            algorithm, digest = row[1].split("=", 1)
            out[os.path.normpath(os.path.join(base, row[0]))] = (algorithm, digest)
    return out


def _editable(dist: metadata.Distribution) -> bool:
    text = dist.read_text("direct_url.json")
    try:
        return bool(text) and bool(json.loads(text).get("dir_info", {}).get("editable"))
    except ValueError:
        return False


def _against_record(package: Path, dist: metadata.Distribution) -> Verification:
    listed = {Path(p): h for p, h in _record(dist).items() if Path(p).is_relative_to(package)}
    mismatches, compared = [], 0
    for path in _working_files(package):
        compared += 1
        known = listed.get(Path(os.path.normpath(path)))
        if known is None:
            mismatches.append(f"not in the RECORD: {path}")
        elif _record_hash(path, known[0]) != known[1]:
            mismatches.append(f"changed: {path}")
    present = {Path(os.path.normpath(p)) for p in _working_files(package)}
    mismatches += [f"missing: {p}" for p in sorted(listed) if p not in present]
    return Verification(f"the RECORD of {dist.metadata['Name']} {dist.version}", tuple(mismatches), compared)


def package_folder() -> Path:
    import course_utils

    return Path(course_utils.__file__).resolve().parent


def grader_folder() -> Path:
    import course_grader

    return Path(course_grader.__file__).resolve().parent


# The packages a batch trusts, and the distribution each is released as: the learner's package holds the
# checks the judge runs, the grader's the judge and the kernel's side of the boundary (staged beside it).
PACKAGES = ((package_folder, DISTRIBUTION), (grader_folder, "course-grader"))


def verify_package(package: Path | None = None) -> Verification:
    """The course's packages (``course_utils`` and ``course_grader``; only ``package`` when given) against their
    manifest: the committed tree of their git checkout, else each distribution's RECORD.

    Raises ModifiedCourse when there is no manifest at all (neither a git checkout nor a RECORD):
    then nothing says what the course released.
    """
    if package is not None:
        return _verify_one(Path(package).resolve(), DISTRIBUTION)
    found = [_verify_one(folder(), name) for folder, name in PACKAGES]
    sources = list(dict.fromkeys(f.source for f in found))
    return Verification(" and ".join(sources), tuple(m for f in found for m in f.mismatches), sum(f.files for f in found))


def _verify_one(package: Path, distribution: str) -> Verification:
    from course_grader.environment import checkout_of

    checkout = checkout_of(str(package / "__init__.py"))
    if checkout is not None and (checkout / ".git").exists():
        try:
            return _against_git(package, checkout)
        except (OSError, subprocess.SubprocessError) as exc:
            raise ModifiedCourse(
                f"cannot read the committed tree of {checkout} ({exc}); the grader needs git "
                "to check the course's code against what was committed"
            ) from exc
    try:
        dist = metadata.distribution(distribution)
    except metadata.PackageNotFoundError:
        dist = None
    if dist is None or _editable(dist) or not dist.files:
        raise ModifiedCourse(
            f"no manifest for {package}: it is neither in a git checkout nor an installed "
            f"distribution with a RECORD; install the course (pip install) or grade from a clone"
        )
    return _against_record(package, dist)


def _module_files() -> dict[str, str]:
    """The file of every module imported in this process, by normalized path: module name."""
    out = {}
    for name, module in list(sys.modules.items()):
        path = getattr(module, "__file__", None)
        if isinstance(path, str) and os.path.isfile(path):
            out[os.path.normpath(os.path.abspath(path))] = name
    return out


def verify_imported(package: Path | None = None) -> tuple[int, list[str]]:
    """Every module this process imported from an installed distribution, against that distribution's RECORD,
    and the bytecode of each course module against its source. Returns (files compared, mismatches).

    The course's own sources are ``verify_package``'s; modules of the standard library have no
    manifest and are not compared (a ``.pth``/module planted in a watched tree during a batch is
    the watch's)."""
    ours = [Path(package).resolve()] if package else [folder() for folder, _ in PACKAGES]
    modules = _module_files()
    owner: dict[str, tuple[str, str, str]] = {}
    for dist in metadata.distributions():
        found = {p: d for p, d in _record(dist).items() if p in modules}
        name = dist.metadata["Name"] or "?" if found else ""
        owner.update({p: (*d, name) for p, d in found.items()})
    mismatches, compared = [], 0
    is_ours = _inside(ours)
    for path, (algorithm, value, name) in sorted(owner.items()):
        if is_ours(path):
            continue  # an installed copy of the course: verify_package compared it
        compared += 1
        try:
            ok = _record_hash(path, algorithm) == value
        except OSError:
            ok = False
        if not ok:
            mismatches.append(f"changed: {path} (module {modules[path]}, distribution {name})")
    for path, name in sorted(modules.items()):
        if path.endswith(".py") and is_ours(path):
            compared += 1
            problem = _bytecode(Path(path), sys.modules.get(name))
            if problem:
                mismatches.append(problem)
    return compared, mismatches


def _inside(folders: list[Path]) -> Callable[[str], bool]:
    """Whether a file lies, links resolved, in one of ``folders``: each folder of files resolved once (a few
    hundred, against thousands of imported files), a file itself only when it is a link."""
    folder_of = functools.lru_cache(maxsize=None)(os.path.realpath)
    prefixes = tuple(os.path.join(os.path.realpath(f), "") for f in folders)  # "/.../course_utils/"

    def inside(path: str) -> bool:
        real = os.path.realpath(path) if os.path.islink(path) else os.path.join(folder_of(os.path.dirname(path)), os.path.basename(path))
        return real.startswith(prefixes)

    return inside


def _bytecode(source: Path, module) -> str:
    """ "" when the bytecode Python would load for ``source`` is absent or what the source compiles to."""
    cached = getattr(module, "__cached__", None) or importlib.util.cache_from_source(str(source))
    try:
        data = Path(cached).read_bytes()
    except OSError:
        return ""
    try:
        loaded = marshal.loads(data[16:])
        fresh = compile(source.read_bytes(), str(source), "exec", dont_inherit=True, optimize=sys.flags.optimize)
    except (ValueError, EOFError, TypeError, SyntaxError) as exc:
        return f"unreadable bytecode: {cached} ({type(exc).__name__})"
    return "" if _same_code(loaded, fresh) else f"bytecode that is not its source's: {cached}"


def _same_code(a, b) -> bool:
    """Code objects equal in what runs (instructions, constants, names), nested ones included."""
    if type(a) is not type(b):
        return False
    if hasattr(a, "co_code"):
        if (a.co_code, a.co_names, a.co_varnames, a.co_flags, a.co_argcount) != (
            b.co_code,
            b.co_names,
            b.co_varnames,
            b.co_flags,
            b.co_argcount,
        ):
            return False
        return len(a.co_consts) == len(b.co_consts) and all(map(_same_code, a.co_consts, b.co_consts))
    if isinstance(a, (tuple, frozenset)):
        return len(a) == len(b) and all(map(_same_code, sorted(a, key=repr), sorted(b, key=repr)))
    return a == b or (isinstance(a, float) and a != a and b != b)  # a NaN constant equals itself here
