"""nbgrader's autograde, judged across the boundary: a course test cell's verdict is reached outside the kernel.

Lesson: none; this is for instructors who run nbgrader (docs/grading.md). nbgrader runs every cell
of a submission, its locked test cells included, in the learner's kernel, where the learner's code
can rewrite a test cell as it runs (``input_transformers_post``), patch ``torch.equal`` or read a
checker's expected values. ``JudgeCourseChecks`` replaces nbgrader's ``Execute`` in
``c.Autograde.autograde_preprocessors`` (``--config`` writes it): every cell runs as before,
except the course's test cells (``result = check("NN.K")`` / ``assert result.passed, ...``, whose
source nbgrader's ``OverwriteCells`` has already put back from the source notebook). For those,
the course's checker runs here, in nbgrader's own process, and calls the learner's function in the
kernel through ``course_grader.boundary``; the verdict becomes the cell's only output: a stream
for a pass, an error (0 points, with the check's message and hint) for anything else.

The same safety as ``course-grade --sandbox require`` (issue 39): before the first cell of the
first notebook, the course's code is verified against its manifest (``course_grader.manifest``; a
difference stops the autograde, naming the files) and every lesson's checks are loaded, so the
judge runs only what it read before any learner code ran; each kernel runs under bubblewrap with
the same options as ``course-grade``'s, the whole course folder (``source/``, ``release/``,
``submitted/``, the other students' ``autograded/`` folders, the gradebook) hidden but the
student's own ``autograded/<student>/<assignment>/`` folder, the course checkouts hidden, a staged
copy of ``course_utils`` to import, and its key handed over through its stdin (``kernel_boot``).
Where the sandbox cannot start, the autograde stops, saying why and what to run instead: there
is no unsandboxed nbgrader path for the course's notebooks.

This module imports nbgrader; nothing else of the course does.
"""

from __future__ import annotations

import atexit
import math
import os
import tempfile
import time
import traceback
import uuid
from pathlib import Path

import nbformat
from nbclient.util import run_sync
from nbgrader.preprocessors import Execute
from traitlets import Bool

from course_grader.boundary import ChannelLost, channel_cell, grade
from course_grader.bubblewrap import PROBE_CODE, Isolation, SandboxUnavailable, bwrap_argv, ipc_path
from course_grader.runner import PrivateKernelManager, exchange, private_kernel, send_settings
from course_grader.sandbox import remove, stage_package
from course_utils.check_cells import check_cell_id

HANDOVER = ".course-handover"  # in the student's autograded folder: what a check hands to the learner's function

_READY: dict[str, object] = {}  # once per nbgrader process: the verified judge, the sandbox, the staged package


class NotSafeToGrade(RuntimeError):
    """The course's notebooks cannot be autograded as safely as course-grade grades them here; the message says why."""


def _prepare(allow_modified_course: bool = False) -> dict:
    """Verify the course's code, load the judge, probe the sandbox and stage the package: once, before any kernel."""
    if _READY:
        return _READY
    from course_grader.batch import verify_the_course
    from course_grader.manifest import ModifiedCourse

    try:
        isolation = _probe()
    except SandboxUnavailable as exc:
        raise NotSafeToGrade(
            f"course_utils: refusing to autograde: {exc}. nbgrader runs every cell of a submission in a kernel; "
            "without the sandbox that code runs as you and can read source/ (the solutions), release/ and the "
            "other students' folders, and rewrite the course's checks. Grade on Linux with bubblewrap "
            "(apt-get install bubblewrap), or grade the collected notebooks with "
            "`course-grade NN submitted/ --sandbox require` (docs/grading.md)."
        ) from None
    try:
        verification = verify_the_course()
    except ModifiedCourse as exc:
        raise NotSafeToGrade(f"course_utils: refusing to autograde: {exc}") from None
    if not verification.clean and not allow_modified_course:
        raise NotSafeToGrade(
            f"course_utils: refusing to autograde: {verification}. Restore what the course "
            "released (`git checkout -- src` in the checkout, or a reinstall), then autograde again"
        )
    staged = Path(tempfile.mkdtemp(prefix="course-nbgrader-package-"))
    atexit.register(remove, staged)
    _READY.update(isolation=isolation, package=stage_package(staged), verified=verification)
    return _READY


def _sandbox_argv(bwrap: str, folder: Path, root: Path | None, package: Path | None, handover: Path | None) -> list[str]:
    """course-grade's bwrap command line for a kernel in ``folder``, ``root`` hidden, the overlaid venvs bound back."""
    argv = bwrap_argv(bwrap, folder, folder, root, package, handover)
    if root is not None:
        # bwrap_argv binds back every sys.path folder under a hidden one, and nbgrader puts the course folder on
        # sys.path: bound back, source/ would be readable. Nothing under the course folder but the student's own.
        root, folder = Path(root).resolve(), Path(folder).resolve()
        kept, i = [], 0
        while i < len(argv):
            if argv[i] == "--ro-bind" and Path(argv[i + 2]).is_relative_to(root) and not Path(argv[i + 2]).is_relative_to(folder):
                i += 3
                continue
            kept.append(argv[i])
            i += 1
        argv = kept
    # bound before the checkouts are remounted read-only (bwrap makes the mount points in their tmpfs)
    at = argv.index("--remount-ro") if "--remount-ro" in argv else argv.index("--bind")
    argv[at:at] = [arg for path in _overlaid() for arg in ("--ro-bind", path, path)]
    return argv


def _probe() -> Isolation:
    """``bubblewrap.probe("require")``, run with the command line nbgrader's kernels get (the overlay bound back)."""
    import shutil
    import subprocess
    import sys

    found = shutil.which(os.environ.get("COURSE_BWRAP") or "bwrap") if sys.platform.startswith("linux") else None
    if found is None:
        raise SandboxUnavailable("bubblewrap is not installed, or this is not Linux (Debian and Ubuntu: apt-get install bubblewrap)")
    with tempfile.TemporaryDirectory(prefix="course-nbgrader-probe-") as tmp:
        folder = Path(tmp) / "own"
        folder.mkdir()
        try:
            done = subprocess.run(
                [*_sandbox_argv(found, folder, None, None, None), sys.executable, "-c", PROBE_CODE], capture_output=True, text=True, timeout=120
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise SandboxUnavailable(f"bwrap failed to start ({type(exc).__name__}: {exc})") from None
        if done.returncode != 0 or done.stdout.strip() != "['lo']" or not (folder / "written").is_file():
            last = (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[-1]
            raise SandboxUnavailable(f"bwrap is installed but failed to start a sandboxed Python here ({last[:300]})")
    return Isolation("require", found)


def _overlaid() -> list[str]:
    """The site-packages folders on this Python's path that lie in a course checkout, which the sandbox hides:
    ``make nbgrader-env``'s venv reads .venv's (torch, ipykernel) through a .pth, and so does its kernel."""
    import sys

    from course_grader.bubblewrap import course_checkouts

    checkouts = course_checkouts()
    found = []
    for entry in sys.path:
        path = Path(entry).resolve() if entry else None
        if (
            path is not None
            and path.name in ("site-packages", "dist-packages")
            and path.is_dir()
            and any(path.is_relative_to(c) for c in checkouts)
        ):
            found.append(str(path))
    return sorted(set(found))


def _course_root(notebook_folder: Path) -> Path:
    """nbgrader's course folder for a notebook at ``<root>/autograded/<student>/<assignment>/``."""
    parts = notebook_folder.resolve().parts
    if len(parts) >= 4 and parts[-3] == "autograded":
        return Path(*parts[:-3])
    raise NotSafeToGrade(
        f"course_utils: {notebook_folder} is not an nbgrader autograded/<student>/<assignment>/ "
        "folder; JudgeCourseChecks runs only inside `nbgrader autograde`"
    )


def learner_source(cells, index: int) -> str:
    """The submission's code before cell ``index``, its check cells left out, as nbgrader read it from the file.

    What ``course-grade``'s runner hands its judge as ``learner_source`` (the learner steps before a check): a
    checker reads how an answer is written there (09.1's non-blocking copies), not in what the kernel reports of
    itself, which the kernel could rewrite (issue 38, item 2). The same evidence on both paths."""
    return "\n\n".join(c.source for c in cells[:index] if c.cell_type == "code" and check_cell_id(c.source) is None)


class JudgeCourseChecks(Execute):
    """nbgrader's ``Execute``, with the course's test cells judged in this process, each kernel in the
    sandbox (see the module)."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("kernel_manager_class", PrivateKernelManager)
        super().__init__(*args, **kwargs)

    allow_modified_course = Bool(
        False,
        help="grade even when the course's code differs from what was committed "
        "or installed (grading.manifest); each notebook's autograde then logs a WARNING",
    ).tag(config=True)

    def preprocess(self, nb, resources=None, km=None):
        # before the first cell of this notebook runs: verified, the judge loaded, the sandbox there
        verified = _prepare(self.allow_modified_course)["verified"]
        if not verified.clean:
            where = (resources or {}).get("nbgrader") or {}
            self.log.warning(
                "course_utils: %s of student %s is graded with a modified course, not trustworthy: %s",
                where.get("notebook", "this notebook"),
                where.get("student", "?"),
                verified,
            )
        try:
            return super().preprocess(nb, resources, km)
        finally:
            for folder in (getattr(self, "_handover", None), *getattr(self, "_made", [])):
                if folder is not None and folder.exists():
                    remove(folder)  # nothing of the grader's stays in the student's autograded folder
            self._made = []

    async def async_start_new_kernel(self, **kwargs):
        """Start the kernel under bubblewrap: only the student's own folder visible and writable, the key via stdin."""
        ready = _prepare(self.allow_modified_course)
        self._channel = None  # the judge's comm in this kernel, opened at its first request
        folder = Path(kwargs.get("cwd") or self.resources.get("metadata", {}).get("path") or ".").resolve()
        root = _course_root(folder)
        handover = folder / HANDOVER
        handover.mkdir(exist_ok=True)
        # the kernel's sockets and connection file in a short private folder (a socket's path is short, a
        # student's folder may be long), bound into the sandbox; removed with the handover folder
        self._sockets = Path(tempfile.mkdtemp(prefix="cg-"))
        self._made = [*getattr(self, "_made", []), self._sockets]
        ipc = ipc_path(self._sockets)
        prefix = _sandbox_argv(ready["isolation"].bwrap, folder, root, ready["package"], handover)
        prefix[-1:-1] = ["--bind", str(self._sockets), str(self._sockets)]
        ours, theirs = private_kernel(self.km, self._sockets, ipc, tuple(prefix))
        if theirs is None:
            raise NotSafeToGrade(
                "course_utils: the kernel is not ipykernel's `python -m ipykernel_launcher`; its key cannot be handed over privately"
            )
        from course_grader.sandbox import Scratch, kernel_env

        env = kernel_env(Scratch(Path("/tmp")), None, ready["package"])
        for name in ("COURSE_GRADE_OWN", "COURSE_GRADE_WRITES"):
            env.pop(name, None)
        # the sandbox's own /tmp: empty, private, gone with the kernel
        env.update(HOME="/tmp", TMPDIR="/tmp", TMP="/tmp", TEMP="/tmp", IPYTHONDIR="/tmp/.ipython", JUPYTER_RUNTIME_DIR="/tmp/runtime")
        self._handover = handover
        try:
            await super().async_start_new_kernel(env=env, stdin=theirs.fileno(), **kwargs)
        except BaseException:
            ours.close()
            theirs.close()
            raise
        send_settings(self.km, ours, theirs)

    start_new_kernel = run_sync(async_start_new_kernel)

    def preprocess_cell(self, cell, resources, index):
        meta = cell.get("metadata", {}).get("nbgrader", {})
        exercise = check_cell_id(cell.source) if cell.cell_type == "code" and meta.get("grade") else None
        if exercise is None:
            return super().preprocess_cell(cell, resources, index)
        self._check_assign_resources(resources)

        def channel(request: bytes) -> bytes:
            if getattr(self, "_channel", None) is None:
                self._channel = self._open_channel(cell, index)
            ends = time.monotonic() + (self.timeout if self.timeout and self.timeout > 0 else math.inf)
            try:
                return run_sync(exchange)(self.kc, self._channel, request, lambda: ends - time.monotonic(), self.km.is_alive)
            except TimeoutError:  # this test cell earns nothing
                raise ChannelLost("timeout", f"the request ran past the limit of {self.timeout} s per cell") from None
            except Exception as exc:  # a dead kernel, a broken channel
                raise ChannelLost("died", f"{type(exc).__name__}: {exc}") from None

        channel.learner_source = learner_source(self.nb.cells, index)  # read by boundary.grade, as course-grade's
        try:
            result = grade(exercise, channel, getattr(self, "_handover", None))
            verdict, passed = str(result), result.passed
        except ChannelLost as lost:
            verdict, passed = f"FAIL [{exercise}] Not graded: the kernel was lost while the check ran ({lost.detail}).", False
        except Exception as exc:  # the judge broke (a reply's bytes cannot: boundary.decode_reply): a grader bug, never a pass
            verdict, passed = f"ERROR [{exercise}] The grader could not judge this check ({type(exc).__name__}: {exc}).", False
            self.log.error("course_utils: a grader bug judging %s; the judge's traceback:\n%s", exercise, traceback.format_exc())
        if passed:
            cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=verdict + "\n")]
        else:
            cell.outputs = [nbformat.v4.new_output("error", ename="AssertionError", evalue=verdict, traceback=verdict.splitlines())]
        cell.execution_count = None
        return cell, self.resources

    def _open_channel(self, cell, index: int) -> str:
        """Open the judge's channel in this kernel with one cell, run in the test cell's place; its comm id (as
        course-grade's runner does: ``boundary.open_channel``)."""
        comm_id = uuid.uuid4().hex
        try:
            self.execute_cell(nbformat.v4.new_code_cell(channel_cell(comm_id)), index, store_history=False)
        except Exception as exc:  # a timeout or a dead kernel: this test cell earns nothing
            raise ChannelLost("died", f"{type(exc).__name__}: {exc}") from None
        finally:
            self.nb.cells[index] = cell  # put the test cell back
        return comm_id  # a cell that failed to open it leaves requests unanswered: each reply is then unreadable


__all__ = ["JudgeCourseChecks"]
