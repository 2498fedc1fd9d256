"""Grade submitted exercise notebooks in batch: ``course-grade EXERCISE SUBMISSIONS_DIR``.

Lesson: none; this is the instructors' tool (see docs/grading.md). Each submission runs in its
own kernel, in a scratch folder, with time and output limits. The checks run in the grader's own
process, never in the kernel: they call the learner's answers there through
``course_utils.boundary`` and get data back, never printed text. One module per job:

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
- ``report`` and ``cli``: the files and the command.
"""

from course_utils.grading.batch import grade_batch
from course_utils.grading.cli import main
from course_utils.grading.report import write_reports
from course_utils.grading.results import GRADE_STATUSES, BatchResult, ExerciseGrade, Submission, SubmissionGrade
from course_utils.grading.runner import Limits

__all__ = [
    "GRADE_STATUSES",
    "BatchResult",
    "ExerciseGrade",
    "Limits",
    "Submission",
    "SubmissionGrade",
    "grade_batch",
    "main",
    "write_reports",
]
