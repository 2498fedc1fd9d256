"""``course-grade``: grade a folder of submitted notebooks against an exercise notebook.

Lesson: none; this is the instructors' tool. Example::

    course-grade 01 submitted/ --out grades/01

runs each notebook in ``submitted/`` in its own kernel (one per core at a time) and writes
``grades/01/grades.csv``, ``details.csv``, ``summary.txt`` and ``feedback/<learner>.md``.
On Linux each kernel runs in a bubblewrap sandbox where ``bwrap`` works (``--sandbox=auto``);
the first line printed says whether it does, and why not. Exit status: 0 when every submission
got a row; 1 when the exercise notebook, a submission, the course checkout or the Python
environment changed while grading (it never should; the summary names what, and the rows graded
after it are flagged as not trustworthy), or when ``--allow-modified-course`` graded with course
code that differs from its manifest; 2 for a usage error (``--sandbox=require`` without a sandbox,
too), and when the course's code differs from what was committed or installed (``grading.manifest``:
the message names the files); 130 when interrupted.

Beyond one machine (``shards``): ``--shard K/N`` grades only the submissions whose learner name
hashes to shard K of N and also writes ``shard.json``; ``course-grade merge SHARD_OUT... --out DIR``
joins the N shards' reports into the one a single run writes (docs/instructors.md).
"""

from __future__ import annotations

import argparse
import signal
import sys
from pathlib import Path
from typing import TextIO

import course_grader._fast_start  # noqa: F401 (first: before anything imports jsonschema)
from course_grader.batch import BatchSettings, cores, grade_batch
from course_grader.bubblewrap import MODES, probe
from course_grader.report import prepare_out, summary_text, write_reports
from course_grader.results import SubmissionGrade
from course_grader.runner import Limits
from course_grader.shards import exercise_identity, merge_main, parse_shard, release, settings_of, write_shard_file
from course_grader.spec import find_exercise_notebook
from course_utils.display import require_int


class ProgressBar:
    """A text progress bar on stderr: redrawn in place on a terminal, one line per submission otherwise."""

    def __init__(self, stream: TextIO | None = None, width: int = 30):
        self.stream, self.width = stream or sys.stderr, width
        stream = self.stream
        self.tty = hasattr(stream, "isatty") and stream.isatty()

    def __call__(self, done: int, total: int, row: SubmissionGrade) -> None:
        what = f"{row.submission.learner[:40]}: {row.passed_count}/{row.total} passed"
        if self.tty:
            filled = self.width * done // max(total, 1)
            self.stream.write(f"\r[{'#' * filled}{'.' * (self.width - filled)}] {done}/{total} {what:<60}")
            if done == total:
                self.stream.write("\n")
        else:
            self.stream.write(f"[{done}/{total}] {what}\n")
        self.stream.flush()


def exercise_folders(start: Path) -> tuple[Path, ...]:
    """Where ``course-grade 01`` looks for the exercise notebook: ``exercises/`` here, then in each folder above.

    Nearest first, so it works from anywhere inside a checkout of the course, whether the package was
    installed from that checkout or from a wheel (which holds no notebooks): where the package lives
    says nothing about where the notebooks are."""
    start = start.resolve()
    return tuple(folder / "exercises" for folder in (start, *start.parents) if folder == start or (folder / "exercises").is_dir())


def _interrupt(signum, frame):
    raise KeyboardInterrupt


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="course-grade",
        description="Run each submitted notebook in its own kernel and grade it with the course's checks.",
        epilog="`course-grade merge SHARD_OUT... --out DIR` joins the reports of --shard runs (course-grade merge -h).",
    )
    parser.add_argument("exercise", help="the exercise notebook handed out: a path, a file name in exercises/, or its number (01)")
    parser.add_argument("submissions", type=Path, help="folder of submissions: one notebook per learner, or one folder per learner")
    parser.add_argument("--out", type=Path, help="where to write the reports (default: grades/<exercise name>)")
    parser.add_argument("--jobs", type=int, default=None, help=f"kernels at once (default: one per core, {cores()})")
    parser.add_argument("--cell-timeout", type=float, default=60.0, help="seconds per cell (default 60)")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per submission (default 600)")
    parser.add_argument(
        "--judge-timeout",
        type=float,
        default=Limits.judge_timeout,
        help="seconds the checks of one submission may wait, in all, for its functions to return "
        f"(default {Limits.judge_timeout:g}); a submission that uses them up is flagged, and no "
        "other submission waits for it",
    )
    parser.add_argument("--kernel", help="kernel name (default: the exercise notebook's, usually python3)")
    parser.add_argument(
        "--sandbox",
        choices=MODES,
        default="auto",
        help="run each kernel under bubblewrap: auto (where it works; default), require (refuse to grade without it), off",
    )
    parser.add_argument(
        "--allow-modified-course",
        action="store_true",
        help="grade even when the course's code differs from what was committed (or installed); "
        "every row is then flagged as not trustworthy and the exit status is 1",
    )
    parser.add_argument(
        "--shard",
        type=parse_shard,
        metavar="K/N",
        help="grade only shard K of N (1 <= K <= N) of the submissions, chosen by a hash of each "
        "learner's name, and write shard.json beside the report for `course-grade merge`",
    )
    parser.add_argument("--keep-scratch", action="store_true", help="keep the scratch folders and print where")
    parser.add_argument("--quiet", action="store_true", help="no progress bar and no summary on the screen")
    return parser


def _checked(args: argparse.Namespace) -> tuple[Path, Path]:
    """The exercise notebook and the reports' folder, once every option is checked; a ValueError says what is wrong."""
    exercise = find_exercise_notebook(args.exercise, exercise_folders(Path.cwd()))
    if args.jobs is not None:
        require_int("--jobs", args.jobs, expected="must be at least 1", hint=f"Leave it out to use one per core ({cores()}).")
    if args.cell_timeout <= 0 or args.timeout <= 0 or args.judge_timeout <= 0:
        raise ValueError("--cell-timeout, --timeout and --judge-timeout must be positive numbers of seconds")
    if not args.submissions.is_dir():
        raise ValueError(f"{args.submissions} is not a folder; give the folder that holds the submissions")
    out = args.out or Path("grades") / exercise.stem
    if out.resolve().is_relative_to(args.submissions.resolve()):
        raise ValueError(f"--out {out} is inside the submissions folder, which the grader never writes to; choose another folder")
    if args.kernel:
        from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel

        try:
            KernelSpecManager().get_kernel_spec(args.kernel)
        except NoSuchKernel as exc:
            raise ValueError(f"no Jupyter kernel named {args.kernel!r}; `jupyter kernelspec list` shows them") from exc
    return exercise, out


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["merge"]:
        return merge_main(argv[1:])
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        exercise, out = _checked(args)
        replaced = prepare_out(out)  # before grading: a refusal costs nothing
        isolation = probe(args.sandbox)
        # what the merge compares shards by, read before any kernel starts
        course = {"exercise": exercise_identity(exercise), "release": release()} if args.shard else None
    except ValueError as exc:
        parser.exit(2, f"course-grade: error: {exc}\n")
    # said before the first kernel starts, so an instructor without a sandbox knows at once
    if not args.quiet or not isolation.sandboxed:
        print(f"course-grade: {isolation}", file=sys.stderr)
    if replaced and not args.quiet:
        print(f"course-grade: {replaced}", file=sys.stderr)
    limits = Limits(cell_timeout=args.cell_timeout, total_timeout=args.timeout, judge_timeout=args.judge_timeout)
    progress = None if args.quiet else ProgressBar()
    previous = signal.signal(signal.SIGTERM, _interrupt)  # a kill from a batch system: clean up as for Ctrl-C
    try:
        result = grade_batch(
            exercise,
            args.submissions,
            BatchSettings(
                jobs=args.jobs,
                limits=limits,
                kernel_name=args.kernel,
                keep_scratch=args.keep_scratch,
                sandbox=isolation,
                allow_modified_course=args.allow_modified_course,
                shard=args.shard,
            ),
            progress=progress,
        )
    except KeyboardInterrupt:
        print("\ncourse-grade: interrupted; every kernel was stopped and no report was written", file=sys.stderr)
        return 130
    except ValueError as exc:
        parser.exit(2, f"course-grade: error: {exc}\n")
    finally:
        signal.signal(signal.SIGTERM, previous)
    written = write_reports(result, out)
    if args.shard:
        written.append(write_shard_file(out, result, settings_of(args, isolation.sandboxed), course))
    if not args.quiet:
        print(summary_text(result))
        print(
            f"wrote {out / 'grades.csv'}, {out / 'details.csv'}, {out / 'summary.txt'}"
            + (f", {out / 'shard.json'}" if args.shard else "")
            + f" and {len(result.rows)} feedback file(s) in {out / 'feedback'}"
        )
    return 1 if result.changed_files else 0


if __name__ == "__main__":
    sys.exit(main())
