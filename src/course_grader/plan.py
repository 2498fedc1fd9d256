"""Decide what runs in a learner's kernel: their code cells, and when the grader judges each exercise.

Lesson: none; this is the instructors' tool (``course-grade``). The learner's own check cells
(and every output stored in their file) are dropped. The grader runs, in order:

1. a preamble that notes writes outside the submission's folder (a flag for the instructor);
2. the instructor's setup cells the learner deleted (imports, usually);
3. the learner's code cells, in the learner's order;
4. for each exercise, a check step, placed right after the last learner cell that defines the
   exercise's function (at the end when none does). A check step is no cell of code: the grader
   runs the exercise's checker in its own process and calls the learner's function in the kernel
   through ``course_grader.boundary`` (one comm message per call, whose reply is data).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from course_grader.spec import ExerciseSpec
from course_grader.submissions import LearnerCell
from course_utils.check_cells import check_cell_id
from course_utils.display import truncate

# Without a sandbox, a process started in a session of its own outlives the kill of the kernel's
# process group (on Linux until the batch ends: course_grader.orphans): name the cell that may start one, for the
# instructor to look at (it grades nothing).
DETACHING = re.compile(r"\bsetsid\b|setpgrp|setpgid|start_new_session")

# The grader's first cell starts with this: an audit hook (which code in the kernel cannot remove)
# notes every path outside the submission's own folder that is opened for writing, removed,
# renamed or created, so a submission that writes by absolute path is named in its row, with or
# without the sandbox. Paths the interpreter writes by itself (bytecode caches, /dev, /proc) are
# left out. The note goes through os.write, which raises no audit event of its own.
WATCH_WRITES = r"""# course-grade: notes writes outside this submission's folder (added by the grader)
def _course_grade_watch_writes():
    import os
    import sys

    own, log = os.environ.get("COURSE_GRADE_OWN"), os.environ.get("COURSE_GRADE_WRITES")
    if not own or not log:
        return
    own = os.path.normpath(own) + os.sep
    fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    writing = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
    target = {"os.remove": 0, "os.rmdir": 0, "os.mkdir": 0, "os.truncate": 0, "os.chmod": 0, "os.chown": 0,
              "os.utime": 0, "shutil.rmtree": 0, "os.rename": 1, "os.link": 1, "os.symlink": 1,
              "shutil.copyfile": 1, "shutil.copytree": 1, "shutil.move": 1}
    seen = set()

    def note(path):
        try:
            if isinstance(path, int) or path is None:
                return
            path = os.path.normpath(os.path.join(os.getcwd(), os.fsdecode(path)))
            if (path + os.sep).startswith(own) or path.startswith(("/dev/", "/proc/")) or path in seen:
                return
            if "__pycache__" in path and path.endswith(".pyc"):
                return
            if len(seen) < 200:
                seen.add(path)
                os.write(fd, (path.replace("\n", " ") + "\n").encode("utf-8", "backslashreplace"))
        except Exception:
            pass

    def hook(event, args):
        if event == "open" and len(args) == 3 and isinstance(args[2], int) and args[2] & writing:
            note(args[0])
        elif event in target and len(args) > target[event]:
            note(args[target[event]])

    sys.addaudithook(hook)


_course_grade_watch_writes()
del _course_grade_watch_writes
"""


@dataclass(frozen=True)
class Step:
    """One cell the grader runs. ``replay``: re-run it after a kernel restart to rebuild the state."""

    kind: str  # "preamble" | "setup" | "learner" | "check"
    source: str  # "" for "check": the grader judges in its own process
    replay: bool
    exercise: str = ""  # for "check"
    cell: LearnerCell | None = None  # for "learner"

    @property
    def label(self) -> str:
        """How the feedback names this step: "code cell 5 (`while True: pass`)"."""
        if self.kind == "learner" and self.cell is not None:
            return f"code cell {self.cell.number} (`{_first_line(self.source)}`)"
        if self.kind == "setup":
            return f"the setup cell `{_first_line(self.source)}`"
        if self.kind == "check":
            return f"the check of {self.exercise}"
        return "the grader's first cell"


@dataclass(frozen=True)
class Plan:
    """The steps for one submission, and what the grader noticed building them."""

    steps: tuple[Step, ...]
    notes: tuple[str, ...]
    flags: tuple[str, ...]


def _python(source: str) -> str:
    """The cell as plain Python (IPython magics and ``!shell`` lines turned into calls)."""
    try:
        from IPython.core.inputtransformer2 import TransformerManager

        return TransformerManager().transform_cell(source)
    except Exception:
        return source


def binds(source: str, name: str) -> bool:
    """Whether the cell defines ``name`` at top level (def, class, assignment or import)."""
    try:
        tree = ast.parse(_python(source))
    except (SyntaxError, ValueError, RecursionError, MemoryError):  # the last two: a cell built to be deep
        return re.search(rf"^(async\s+)?def\s+{re.escape(name)}\b|^{re.escape(name)}\s*=", source, re.M) is not None
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == name:
            return True
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            if any((a.asname or a.name.split(".")[0]) == name for a in node.names):
                return True
        targets = node.targets if isinstance(node, ast.Assign) else ([node.target] if isinstance(node, (ast.AnnAssign, ast.AugAssign)) else [])
        if any(isinstance(n, ast.Name) and n.id == name for t in targets for n in ast.walk(t)):
            return True
    return False


def _first_line(source: str) -> str:
    line = next((ln.strip() for ln in source.splitlines() if ln.strip()), "")
    return truncate(line, 60)


def build_plan(spec: ExerciseSpec, cells: list[LearnerCell]) -> Plan:
    """The steps to run for a submission whose code cells are ``cells``."""
    notes, flags = [], []
    learner = [c for c in cells if check_cell_id(c.source) is None]
    asked = {check_cell_id(c.source) for c in cells} - {None}
    stripped = {c.source.strip() for c in learner}
    setup = [s for s in spec.setup_sources if s.strip() not in stripped]
    if setup:
        notes.append("the grader added setup cell(s) missing from the notebook: " + ", ".join(f"`{_first_line(s)}`" for s in setup))
    detaching = [c.number for c in learner if DETACHING.search(c.source)]
    if detaching:
        flags.append(f"code cell {', '.join(map(str, detaching))} starts processes meant to outlive the kernel")
    missing_checks = [i for i in spec.ids if i not in asked]
    if missing_checks and cells:
        notes.append(f"no check cell for {', '.join(missing_checks)} (the grader checked them anyway)")

    after: dict[int, list[str]] = {}  # learner position -> exercise ids checked after it; -1 = at the end
    for slot in spec.exercises:
        where = -1
        if slot.function:
            defining = [k for k, c in enumerate(learner) if binds(c.source, slot.function)]
            where = defining[-1] if defining else -1
        after.setdefault(where, []).append(slot.id)

    def check_step(ex_id: str) -> Step:
        return Step("check", "", replay=False, exercise=ex_id)

    steps = [Step("preamble", WATCH_WRITES, replay=True)]
    steps += [Step("setup", s, replay=True) for s in setup]
    for k, cell in enumerate(learner):
        steps.append(Step("learner", cell.source, replay=True, cell=cell))
        steps += [check_step(i) for i in after.get(k, [])]
    steps += [check_step(i) for i in after.get(-1, [])]
    return Plan(tuple(steps), tuple(notes), tuple(flags))
