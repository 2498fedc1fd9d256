"""Grade submitted exercise notebooks in batch: ``course-grade EXERCISE SUBMISSIONS_DIR``.

Lesson: none; this is the instructors' tool (see docs/grading.md). Each submission runs in its
own kernel, in a scratch folder, with time and output limits. The checks run in the grader's own
process, never in the kernel: they call the learner's answers there through
``course_grader.boundary`` and get data back, never printed text. One module per job:

- ``spec``: read the instructor's exercise notebook (which exercises, which setup cells);
- ``submissions``: find the submissions, name them safely, read their code cells;
- ``plan``: what runs in the kernel (the learner's cells), and where each exercise is judged;
- ``runner``: run it, surviving endless loops, crashes and floods of output;
- ``sandbox``: scratch folders, the kernel's environment, clean-up, the write log;
- ``bubblewrap``: on Linux, each kernel in a bwrap sandbox (read-only file system but its own
  folder, no network, own process namespace), or a plain statement that there is none, and why;
- ``nbgrader``: the course's notebooks made ready for nbgrader, and its autograde fallback;
- ``nbgrader_judge``: nbgrader's autograde judging each course test cell in nbgrader's own process;
- ``manifest``: before any kernel, the course's code compared with what was committed or installed;
- ``kernel_boot``: start a kernel whose connection key reaches it through its stdin, never a file;
- ``verdict``: turn what ran into grades, flagging what looks forged;
- ``batch``: grade a whole folder, several kernels at a time;
- ``shards``: a folder graded in shards on several machines (``--shard K/N``), and ``course-grade merge``;
- ``report`` and ``cli``: the files and the command (``_fast_start``, imported first by ``cli``: 1.4 s less per start);
- ``boundary``: the judge's side and the kernel's side of one check call (``open_channel`` runs in the
  kernel).

Importing the package imports none of them (PEP 562): a grading kernel imports ``course_grader.boundary``
only, not the batch runner and its Jupyter dependencies.
"""

from __future__ import annotations

import importlib

# Each public name and the module that defines it: the module is imported on first use.
_HOMES = {
    "GRADE_STATUSES": "results",
    "BatchResult": "results",
    "BatchSettings": "batch",
    "ExerciseGrade": "results",
    "Limits": "runner",
    "Submission": "results",
    "SubmissionGrade": "results",
    "grade_batch": "batch",
    "main": "cli",
    "write_reports": "report",
}

__all__ = sorted(_HOMES)


def __getattr__(name: str):
    """``course_grader.main`` and the like: import the defining module now, once."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'course_grader' has no attribute {name!r}; its names are: {', '.join(__all__)}")
    value = getattr(importlib.import_module(f"course_grader.{home}"), name)
    globals()[name] = value  # the next lookup is an ordinary one
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
