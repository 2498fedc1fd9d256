"""Grade a folder of submissions against one exercise notebook, several at a time.

Lesson: none; this is the instructors' tool (``course-grade``). Every submission gets a row,
whatever it holds: an unreadable file, a notebook that loops or crashes, or a bug in the grader
itself (reported as such). Kernels run side by side, one per job; each job drives its own kernel
from its own thread, so a batch uses every core.
"""

from __future__ import annotations

import asyncio
import os
import queue
import shutil
import signal
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass, replace
from pathlib import Path

from course_grader.bubblewrap import Isolation, bwrap_argv, ipc_path, probe
from course_grader.copies import Published, flag_copies, published_solution
from course_grader.environment import Change, Watch, busy_folders, loose_folders, python_trees
from course_grader.judges import start_judges
from course_grader.kernel_boot import dumpable, is_dumpable
from course_grader.manifest import ModifiedCourse, Verification, verify_imported, verify_package
from course_grader.orphans import adopting
from course_grader.plan import build_plan
from course_grader.results import BatchResult, Submission, SubmissionGrade, no_controls, one_title_each
from course_grader.runner import Judge, KernelSetup, Launch, Limits, StepRun, judge_in_this_process, run_steps
from course_grader.sandbox import Scratch, changed, fingerprint, kernel_env, make_scratch, remove, stage_package
from course_grader.shards import select
from course_grader.spec import ExerciseSpec, read_spec
from course_grader.submissions import InvalidSubmission, find_submissions, read_code_cells
from course_grader.verdict import judge, unrunnable
from course_utils.display import require_int
from course_utils.processes import ProcessGroups


def cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


READ_ONLY = "Read-only file system"  # strerror(EROFS): what a write outside the sandbox's own folder gets


def _refused_writes(runs: list[StepRun]) -> list[str]:
    """Lines of the learner's outputs that show a write refused by the sandbox (from a shell, too)."""
    found = []
    for run in runs:
        for out in run.outputs:
            texts = [out.get("text"), out.get("evalue")] if isinstance(out, dict) else []
            for text in texts:
                if isinstance(text, str) and READ_ONLY in text:
                    line = next(ln for ln in text.splitlines() if READ_ONLY in ln)
                    found.append(" ".join(line.split())[:200])
    return list(dict.fromkeys(found))


def _write_flags(scratch: Scratch, runs: list[StepRun], sandboxed: bool) -> tuple[str, ...]:
    """Name what the submission wrote, or tried to write, outside its own folder."""
    paths = [no_controls(p, one_line=True) for p in scratch.attempted_writes()]  # the learner chose them: no escapes
    refused = [no_controls(r, one_line=True) for r in _refused_writes(runs)] if sandboxed else []
    flags = []
    if paths:
        shown = ", ".join(paths[:5]) + (f" and {len(paths) - 5} more" if len(paths) > 5 else "")
        flags.append(
            (
                "tried to write outside its scratch folder (the sandbox kept every file there unchanged): "
                if sandboxed
                else "wrote or tried to write outside its scratch folder, by absolute path: "
            )
            + shown
        )
    if refused and not paths:
        flags.append("tried to write outside its scratch folder, and the sandbox refused (its output shows: " + "; ".join(refused[:3]) + ")")
    return tuple(flags)


def _unsandboxed_ipc(scratch: Scratch) -> str:
    """Unix sockets in the submission's own folder (mode 0700) where the OS has them and the path fits, else ""
    (TCP on localhost; the key still never touches the disk)."""
    if os.name != "posix":
        return ""
    try:
        return ipc_path(scratch.root)
    except ValueError:
        return ""


@dataclass(frozen=True)
class Job:
    """What every submission of a batch is graded with: its folder, limits and kernel, the process groups to kill
    and the flag that cancels, the threads each kernel may use, the sandbox, and ``package``, the staged copy of
    course_utils the kernel imports (``sandbox.stage_package``)."""

    batch_root: Path
    limits: Limits
    kernel_name: str
    groups: ProcessGroups
    cancelled: threading.Event
    threads: int | None = None
    keep_scratch: bool = False
    isolation: Isolation | None = None
    package: Path | None = None
    judge_with: Judge = judge_in_this_process  # grade_batch gives each job a judge process of its own (judges)


def grade_one(submission: Submission, spec: ExerciseSpec, job: Job) -> SubmissionGrade:
    """Grade one submission in its own scratch folder and kernel; never raises."""
    start = time.monotonic()
    batch_root, isolation, package = job.batch_root, job.isolation, job.package
    if submission.path is None:
        return unrunnable(submission, spec, "invalid", submission.problem, f"Hand in one notebook named {spec.path.name}.")
    try:
        cells = read_code_cells(submission.path)
    except InvalidSubmission as exc:
        return unrunnable(
            submission, spec, "invalid", str(exc), f"Hand in the notebook file ({spec.path.name}) itself.", time.monotonic() - start
        )
    except Exception as exc:  # a grader bug reading the file: this row says so, the batch goes on (never raises)
        return unrunnable(
            submission,
            spec,
            "error",
            f"the grader failed reading this submission ({type(exc).__name__}: {exc}); this is a bug in the grader, please report it",
            "",
            time.monotonic() - start,
        )
    scratch = None
    try:
        plan = build_plan(spec, cells)
        scratch = make_scratch(batch_root, submission.slug)
        shutil.copyfile(submission.path, scratch.work / f"{submission.slug}{submission.path.suffix}")
        sandboxed = isolation is not None and isolation.sandboxed
        launch = (
            Launch(
                tuple(bwrap_argv(isolation.bwrap, scratch.own, scratch.work, batch_root, package, scratch.handover)),
                ipc_path(scratch.root),
                private=True,
            )
            if sandboxed
            else Launch(ipc=_unsandboxed_ipc(scratch), private=True)
        )
        intruders: list[str] = []
        setup = KernelSetup(job.kernel_name, scratch, kernel_env(scratch, job.threads, package), job.limits, job.groups, launch, intruders)
        runs, events = asyncio.run(run_steps(plan.steps, setup, cancelled=job.cancelled, judge=job.judge_with))
        seconds = time.monotonic() - start
        row = judge(submission, spec, plan, runs, events, cells)
        row = replace(row, flags=row.flags + _write_flags(scratch, runs, sandboxed) + _intruder_flags(intruders), seconds=seconds)
        strays = scratch.strays()
        if strays:
            row = replace(
                row, flags=row.flags + ("wrote outside its working folder: " + ", ".join(no_controls(p, one_line=True) for p in strays[:5]),)
            )
        return row
    except Exception as exc:  # a grader bug: say so, and keep the batch going
        return unrunnable(
            submission,
            spec,
            "error",
            f"the grader failed on this submission ({type(exc).__name__}: {exc}); this is a bug in the grader, please report it",
            "",
            time.monotonic() - start,
        )
    finally:
        if scratch is not None and not job.keep_scratch:
            remove(scratch.own)


def _copies(row: SubmissionGrade, sub: Submission, published: Published) -> SubmissionGrade:
    """The row, flagged where its answers are the published solution's (its grades unchanged)."""
    if sub.path is None or not published.functions:
        return row
    try:
        return flag_copies(row, published, read_code_cells(sub.path))
    except Exception:  # InvalidSubmission, or a file built to break the comparison: no flag
        return row


def _limits_text(limits: Limits, judges: list) -> str:
    """The limits every submission had, for the summary."""
    return (
        f"limits per submission: {limits.cell_timeout:g} s per cell, {limits.total_timeout:g} s in all, "
        f"{limits.judge_timeout:g} s of judge time (its answers' time in its checks); judge: "
        + ("one process per job, so a slow submission holds up only its own job" if judges else "in the grader, one check at a time across jobs")
    )


def verify_the_course(package: Path | None = None) -> Verification:
    """The course's package against its manifest, then everything the judge imports (``manifest``).

    Called before the judge is loaded and before any kernel starts: the judge's lazily loaded
    checks are read only after their files were compared."""
    found = verify_package(package)
    _load_the_judge()
    compared, mismatches = verify_imported(package)
    return Verification(found.source, found.mismatches + tuple(mismatches), found.files + compared)


def _modified(row: SubmissionGrade, verification: Verification) -> SubmissionGrade:
    """The row of a submission graded with course code that is not what was released (--allow-modified-course)."""
    return replace(row, flags=row.flags + (f"not trustworthy: graded with a modified course, {verification} (see summary.txt)",))


def _intruder_flags(intruders: list[str]) -> tuple[str, ...]:
    """A flag when another process sent requests to this submission's kernel (``runner._Kernel``)."""
    if not intruders:
        return ()
    shown = ", ".join(dict.fromkeys(intruders))
    return (
        f"not trustworthy: another process sent requests to this submission's kernel ({shown}); "
        "a neighbour's code may have changed its answers: regrade it with --sandbox require",
    )


def _untrusted(row: SubmissionGrade, first: Change) -> SubmissionGrade:
    """The row of a submission graded after the checkout, the environment or a submission changed."""
    return replace(row, flags=row.flags + (f"not trustworthy: graded after {first} (see summary.txt)",))


_STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


def _on_interrupt(notice: Callable[[], None]) -> dict | None:
    """While a batch runs, Ctrl-C and SIGTERM only call ``notice``; the main thread then stops the batch.

    The default SIGINT handler raises KeyboardInterrupt wherever the main thread happens to be, and
    inside the executor's own locks (waiting for a result) that can leave a lock held, so that the
    clean-up then waits forever for a worker. A flag read between waits cannot. Only the main
    thread may set handlers: elsewhere (a batch started from a thread) this does nothing.
    """
    if threading.current_thread() is not threading.main_thread():
        return None
    return {signum: signal.signal(signum, lambda *_: notice()) for signum in _STOP_SIGNALS}


def _restore(previous: dict | None) -> None:
    for signum, handler in (previous or {}).items():
        signal.signal(signum, signal.SIG_DFL if handler is None else handler)  # None: a handler set outside Python


def _load_the_judge() -> None:
    """Import every module the judge uses, before any learner's kernel starts.

    The checks load lazily (a lesson's module on its first check): in the grader that would read
    a checks module, or compile its ``.pyc`` into the checkout, after learner code has run, and
    without the sandbox that code could have changed the file first. Loaded now, the judge runs
    only what it read before the batch began, and writes nothing into the watched trees.
    """
    import torch

    import course_grader.boundary  # noqa: F401
    import course_grader.hidden_cases  # noqa: F401 (boundary.grade's drawn cases, imported there lazily)
    import course_grader.source_rules  # noqa: F401
    import course_utils.checks.machines  # noqa: F401
    import course_utils.scopes  # noqa: F401
    from course_utils.checks import all_exercises

    all_exercises()
    # torch loads lazily too: an optimizer's first step imports torch._dynamo and sympy (about 800 modules, a
    # second), and a meta model's first to_empty torch._refs. The checks of 03, 09 and 10 do both in the judge;
    # done here, they are read before the batch, verified with the rest, and paid once, not once per judge
    weight = torch.nn.Parameter(torch.zeros(1))
    weight.grad = torch.zeros(1)
    torch.optim.SGD([weight], lr=0.0).step()
    torch.nn.Linear(1, 1, device="meta").to_empty(device="cpu")


@dataclass(frozen=True)
class BatchSettings:
    """How ``grade_batch`` runs a batch: course-grade's options (``cli.py``), a field each."""

    jobs: int | None = None  # kernels at once; None: one per core
    limits: Limits = Limits()
    kernel_name: str | None = None  # None: the exercise notebook's own kernelspec
    keep_scratch: bool = False  # leave each submission's scratch folder, for an instructor to look into
    # "auto": each kernel under bubblewrap where it works, saying why not otherwise; "require": raise
    # SandboxUnavailable where it does not; "off": never; or an Isolation already probed
    sandbox: str | Isolation = "auto"
    allow_modified_course: bool = False  # grade a course that differs from its manifest, flagging every row
    shard: tuple[int, int] | None = None  # (K, N): only shard K of N of the submissions (shards.select)


def grade_batch(
    exercise: Path,
    submissions: Path,
    settings: BatchSettings | None = None,
    progress: Callable[[int, int, SubmissionGrade], None] | None = None,
) -> BatchResult:
    """Grade every submission in ``submissions`` against the exercise notebook ``exercise``, as ``settings`` say.

    ``progress(done, total, row)`` is called as each submission finishes. The exercise notebook and the
    submissions are hashed before and after; any change is reported in ``BatchResult.changed_files``.
    Without the sandbox the course checkout, the Python environment and the submissions are also looked at
    after each submission (``environment.Watch``): a change is named there too, and every submission graded
    from then on is flagged as not trustworthy.

    Before the first kernel, the course's code (the checks, the staged package's files, every
    module the judge imports) is compared with its manifest (``manifest``): a difference raises
    ``ModifiedCourse`` naming the files, unless ``settings.allow_modified_course``, which grades, flags
    every row and reports the difference in ``changed_files``.
    """
    settings = settings or BatchSettings()
    start = time.monotonic()
    isolation = settings.sandbox if isinstance(settings.sandbox, Isolation) else probe(settings.sandbox)
    spec = read_spec(Path(exercise))
    found, part = select(find_submissions(Path(submissions), spec.path.name), settings.shard)
    jobs = _jobs(settings.jobs)
    watched = [spec.path, Path(submissions)]
    before, verification = fingerprint(watched), _verified(settings.allow_modified_course)
    batch_root = Path(tempfile.mkdtemp(prefix="course-grade-"))
    # beside the batch's folder, not in it: no learner's folder can be named like it, and no file there is a stray
    staged = Path(tempfile.mkdtemp(prefix="course-grade-package-"))
    try:
        package = stage_package(staged)
        job = _job(settings, spec, jobs, isolation, batch_root, package)
        watch = Watch([*python_trees(), *watched, package], skip=busy_folders(), loose=loose_folders())
        batch = _Batch(spec, found, job, watch, published_solution(spec), verification)
        rows, ended = _graded(batch, jobs, progress, isolation.sandboxed)
    finally:
        if not settings.keep_scratch:
            remove(batch_root)
        remove(staged)
    changes = (
        *([] if verification.clean else [f"before grading: {verification}"]),
        *changed(before, fingerprint(watched)),
        *(str(c) for c in batch.watch.changes),
    )
    return BatchResult(
        str(spec.path),
        spec.ids,
        one_title_each({e.id: e.title for e in spec.exercises}, rows),
        jobs,
        time.monotonic() - start,
        changes,
        tuple(batch.strays),
        str(isolation),
        _limits_text(settings.limits, batch.judges),
        str(batch.published),
        f"verified: {verification}",
        part,
        ended=ended,
    )


def _job(settings: BatchSettings, spec: ExerciseSpec, jobs: int, isolation: Isolation, batch_root: Path, package: Path) -> Job:
    """What every submission's run shares: the limits, the kernel, the sandbox, the staged package, threads per kernel."""
    return Job(
        batch_root,
        settings.limits,
        settings.kernel_name or spec.kernel_name,
        ProcessGroups(),
        threading.Event(),
        threads=max(1, cores() // jobs) if jobs > 1 else None,
        keep_scratch=settings.keep_scratch,
        isolation=isolation,
        package=package,
    )


def _jobs(jobs: int | None) -> int:
    """How many kernels run at once: ``jobs``, checked, or one per core."""
    if jobs is not None:
        require_int("jobs", jobs, expected="must be at least 1", hint=f"Leave it out to use one per core ({cores()}).")
    return jobs or cores()


def _verified(allow_modified_course: bool) -> Verification:
    """The course's code against its manifest, before any kernel starts: a difference refuses the batch, unless allowed."""
    verification = verify_the_course()
    if not verification.clean and not allow_modified_course:
        raise ModifiedCourse(
            f"refusing to grade: {verification}. Restore what the course released (`git status` "
            "and `git checkout -- src` in a checkout, a reinstall otherwise), or grade anyway with "
            "--allow-modified-course, which flags every row"
        )
    return verification


def _graded(
    batch: _Batch, jobs: int, progress: Callable[[int, int, SubmissionGrade], None] | None, sandboxed: bool
) -> tuple[list[SubmissionGrade], tuple[str, ...]]:
    """The batch's rows, and the processes its kernels left running, which were ended after it: without the sandbox's
    own process namespace, a process that left its kernel's group is adopted while the batch runs (``orphans``)."""
    with adopting(not sandboxed, batch.owner_of) as adoption:
        rows = batch.run(jobs, progress)
    return rows, tuple(adoption.ended)


class _Batch:
    """A batch's submissions graded side by side, one job per thread; each row is looked at, as it comes, for
    files left outside its scratch folder and (without a sandbox) for changes to the watched trees."""

    def __init__(self, spec: ExerciseSpec, found: list[Submission], job: Job, watch: Watch, published: Published, verification: Verification):
        self.spec, self.found, self.job, self.watch, self.published = spec, found, job, watch, published
        self.verification = verification  # the course's code against its manifest, before any kernel
        self.judges: list = []
        self.free: queue.SimpleQueue = queue.SimpleQueue()  # the judge processes no job thread holds now
        self.lock, self.looking = threading.Lock(), threading.Lock()
        self.rows: dict[int, SubmissionGrade] = {}
        self.running: set[str] = set()
        self.suspects: set[str] = set()  # whose kernels ran since the last clean look at the watched trees
        self.seen_strays: set[str] = set()
        self.strays: list[str] = []

    def run(self, jobs: int, progress: Callable[[int, int, SubmissionGrade], None] | None) -> list[SubmissionGrade]:
        """Every submission's row, in the submissions' order; on Ctrl-C or an error every kernel is stopped first."""
        job = self.job
        self.judges = start_judges(jobs)  # forked now, holding the loaded judge: before any kernel or job thread starts
        for one in self.judges:
            self.free.put(one)
        pool = ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="course-grade")
        interrupted = threading.Event()
        previous = _on_interrupt(interrupted.set)
        # Without the sandbox, a kernel runs as this user: it could read every kernel's key from this process's
        # memory (/proc/<pid>/mem, ptrace). Not while the batch runs; as it was afterwards.
        was_dumpable = is_dumpable()
        if was_dumpable and not job.isolation.sandboxed:
            dumpable(False)
        try:
            futures = {pool.submit(self.work, sub): k for k, sub in enumerate(self.found)}
            pending, done = set(futures), 0
            while pending:
                finished, pending = wait(pending, timeout=0.2, return_when=FIRST_COMPLETED)
                for future in finished:
                    k, done = futures[future], done + 1
                    with self.lock:
                        self.rows[k] = self.new_strays(future.result())
                    if progress:
                        progress(done, len(self.found), self.rows[k])
                if interrupted.is_set():
                    raise KeyboardInterrupt
            if job.isolation.sandboxed:
                self.watch.look(list)  # the sandbox keeps all of it read-only: one look, before the staged package goes
        except BaseException:
            job.cancelled.set()
            job.groups.kill_all()
            pool.shutdown(wait=True, cancel_futures=True)
            raise
        finally:
            _restore(previous)
            pool.shutdown(wait=True)
            if was_dumpable:
                dumpable(True)
            job.groups.kill_all()
            for one in self.judges:
                one.close()
        return [self.rows[k] for k in sorted(self.rows)]

    def owner_of(self, path: str) -> str | None:
        """The learner whose folder in this batch holds ``path`` (a kernel's ``COURSE_GRADE_OWN``), or None."""
        try:
            slug = Path(path).relative_to(self.job.batch_root).parts[0]
        except (ValueError, IndexError):
            return None
        return next((s.learner for s in self.found if s.slug == slug), None)

    def work(self, sub: Submission) -> SubmissionGrade:
        with self.lock:
            self.running.add(sub.learner)
            self.suspects.add(sub.learner)
        mine = self.free.get() if self.judges else judge_in_this_process  # one per job: this thread's, until it is done
        try:
            row = grade_one(sub, self.spec, replace(self.job, judge_with=mine))
        finally:
            if self.judges:
                self.free.put(mine)
            with self.lock:
                self.running.discard(sub.learner)
        row = row if self.verification.clean else _modified(row, self.verification)
        return self.looked_at(_copies(row, sub, self.published))  # in this thread, before it takes the next submission

    def new_strays(self, row: SubmissionGrade) -> SubmissionGrade:
        """Files the learner's code left in the batch folder, outside every scratch folder."""
        names = set(os.listdir(self.job.batch_root)) - {s.slug for s in self.found} - self.seen_strays
        if not names:
            return row
        self.seen_strays.update(names)
        self.strays.extend(sorted(names))
        running = self.running
        others = f" (or by one running at the same time: {', '.join(sorted(running))})" if running else ""
        return replace(
            row,
            flags=row.flags
            + (
                f"wrote outside its working folder: {', '.join(no_controls(n, one_line=True) for n in sorted(names)[:5])} "
                "appeared three levels above it, "
                f"in the grader's temporary folder{others}",
            ),
        )

    def ran_since_last_look(self) -> list[str]:
        with self.lock:
            during = sorted(self.suspects)
            self.suspects.intersection_update(self.running)
        return during

    def looked_at(self, row: SubmissionGrade) -> SubmissionGrade:
        """Without a sandbox: whether the watched trees changed while this row's kernel (and others) ran."""
        if not self.job.isolation.sandboxed:
            with self.looking:
                self.watch.look(self.ran_since_last_look)
        return _untrusted(row, self.watch.changes[0]) if self.watch.changes else row
