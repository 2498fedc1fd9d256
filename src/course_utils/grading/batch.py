"""Grade a folder of submissions against one exercise notebook, several at a time.

Lesson: none; this is the instructors' tool (``course-grade``). Every submission gets a row,
whatever it holds: an unreadable file, a notebook that loops or crashes, or a bug in the grader
itself (reported as such). Kernels run side by side, one per job; each job drives its own kernel
from its own thread, so a batch uses every core.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import replace
from pathlib import Path
from typing import Callable

from course_utils.grading.plan import build_plan
from course_utils.grading.results import BatchResult, Submission, SubmissionGrade
from course_utils.grading.runner import Limits, run_steps
from course_utils.grading.sandbox import KernelGroups, changed, fingerprint, kernel_env, make_scratch, remove
from course_utils.grading.spec import ExerciseSpec, read_spec
from course_utils.grading.submissions import InvalidSubmission, find_submissions, read_code_cells
from course_utils.grading.verdict import judge, unrunnable


def cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def grade_one(submission: Submission, spec: ExerciseSpec, *, batch_root: Path, limits: Limits, kernel_name: str,
              groups: KernelGroups, cancelled: threading.Event, threads: int | None = None,
              keep_scratch: bool = False) -> SubmissionGrade:
    """Grade one submission in its own scratch folder and kernel; never raises."""
    start = time.monotonic()
    if submission.path is None:
        return unrunnable(submission, spec, "invalid", submission.problem,
                          f"Hand in one notebook named {spec.path.name}.")
    try:
        cells = read_code_cells(submission.path)
    except InvalidSubmission as exc:
        return unrunnable(submission, spec, "invalid", str(exc), f"Hand in the notebook file ({spec.path.name}) itself.",
                          time.monotonic() - start)
    scratch = None
    try:
        plan = build_plan(spec, cells)
        scratch = make_scratch(batch_root, submission.slug)
        shutil.copyfile(submission.path, scratch.work / f"{submission.slug}{submission.path.suffix}")
        runs, events = asyncio.run(run_steps(plan.steps, kernel_name=kernel_name, scratch=scratch,
                                             env=kernel_env(scratch, threads), limits=limits, groups=groups,
                                             cancelled=cancelled))
        row = judge(submission, spec, plan, runs, events, cells, time.monotonic() - start)
        strays = scratch.strays()
        if strays:
            row = replace(row, flags=row.flags + (
                "wrote outside its working folder: " + ", ".join(strays[:5]),))
        return row
    except Exception as exc:  # a grader bug: say so, and keep the batch going
        return unrunnable(submission, spec, "error", f"the grader failed on this submission ({type(exc).__name__}: "
                          f"{exc}); this is a bug in the grader, please report it", "", time.monotonic() - start)
    finally:
        if scratch is not None and not keep_scratch:
            remove(scratch.own)


def grade_batch(exercise: Path, submissions: Path, *, jobs: int | None = None, limits: Limits = Limits(),
                kernel_name: str | None = None, keep_scratch: bool = False,
                progress: Callable[[int, int, SubmissionGrade], None] | None = None) -> BatchResult:
    """Grade every submission in ``submissions`` against the exercise notebook ``exercise``.

    ``jobs`` kernels run at once (default: one per core). ``progress(done, total, row)`` is
    called as each submission finishes. The exercise notebook and the submissions are hashed
    before and after; any change is reported in ``BatchResult.changed_files``.
    """
    start = time.monotonic()
    spec = read_spec(Path(exercise))
    found = find_submissions(Path(submissions), spec.path.name)
    if jobs is not None and jobs < 1:
        raise ValueError(f"jobs must be at least 1, got {jobs}; leave it out to use one per core ({cores()}).")
    jobs = jobs or cores()
    watched = [spec.path, Path(submissions)]
    before = fingerprint(watched)
    batch_root = Path(tempfile.mkdtemp(prefix="course-grade-"))
    groups, cancelled, lock = KernelGroups(), threading.Event(), threading.Lock()
    rows: dict[int, SubmissionGrade] = {}
    running: set[str] = set()
    seen_strays: set[str] = set()
    strays_all: list[str] = []
    threads = max(1, cores() // jobs) if jobs > 1 else None

    def work(k: int, sub: Submission) -> SubmissionGrade:
        with lock:
            running.add(sub.learner)
        try:
            return grade_one(sub, spec, batch_root=batch_root, limits=limits, kernel_name=kernel_name or spec.kernel_name,
                             groups=groups, cancelled=cancelled, threads=threads, keep_scratch=keep_scratch)
        finally:
            with lock:
                running.discard(sub.learner)

    def new_strays(row: SubmissionGrade) -> SubmissionGrade:
        """Files the learner's code left in the batch folder, outside every scratch folder."""
        names = set(os.listdir(batch_root)) - {s.slug for s in found} - seen_strays
        if not names:
            return row
        seen_strays.update(names)
        strays_all.extend(sorted(names))
        others = f" (or by one running at the same time: {', '.join(sorted(running))})" if running else ""
        return replace(row, flags=row.flags + (
            f"wrote outside its working folder: {', '.join(sorted(names)[:5])} appeared three levels above it, "
            f"in the grader's temporary folder{others}",))

    pool = ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="course-grade")
    try:
        futures = {pool.submit(work, k, sub): k for k, sub in enumerate(found)}
        for done, future in enumerate(as_completed(futures), start=1):
            k = futures[future]
            with lock:
                rows[k] = new_strays(future.result())
            if progress:
                progress(done, len(found), rows[k])
    except BaseException:
        cancelled.set()
        groups.kill_all()
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    finally:
        pool.shutdown(wait=True)
        groups.kill_all()
        if not keep_scratch:
            remove(batch_root)
    after = fingerprint(watched)
    return BatchResult(str(spec.path), spec.ids, tuple(rows[k] for k in sorted(rows)), jobs,
                       time.monotonic() - start, tuple(changed(before, after)), tuple(strays_all))
