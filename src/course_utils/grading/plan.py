"""Decide what runs in a learner's kernel: their code cells, and the grader's own check cells.

Lesson: none; this is the instructors' tool (``course-grade``). The learner's own check cells
(and every output stored in their file) are dropped. The grader runs, in order:

1. a preamble that fingerprints the check machinery before any learner code runs;
2. the instructor's setup cells the learner deleted (imports, usually);
3. the learner's code cells, in the learner's order;
4. for each exercise, the grader's check cell, placed right after the last learner cell that
   defines the exercise's function (at the end when none does). It calls the real ``check(id)``
   and displays the result under the grader's MIME type with a random nonce the learner's code
   cannot know in advance. Only that output, in that cell, counts.
"""

from __future__ import annotations

import ast
import re
import secrets
from dataclasses import dataclass

from course_utils.check_cells import check_cell_id
from course_utils.display import truncate
from course_utils.grading.spec import ExerciseSpec
from course_utils.grading.submissions import LearnerCell

GRADE_MIME = "application/vnd.course-utils.grade+json"
TEXT_LIMIT = 2000  # characters kept of a check's message or hint

# Code a learner never needs, so its presence is worth an instructor's look.
SUSPICIOUS = (
    (re.compile(r"vnd\.course-utils|CHECK_MIME|GRADE_MIME"), "handles the check result's MIME type by hand"),
    (re.compile(r"_REGISTRY|checks\._core|checks\s+import\s+_core|sys\.modules"), "reaches into the check machinery"),
    (re.compile(r"publish_display_data|display_pub|_getframe|set_trace|pre_run_cell|post_run_cell"),
     "hooks into the kernel's display or execution"),
    (re.compile(r"\bsetsid\b|setpgrp|setpgid|start_new_session"), "starts processes meant to outlive the kernel"),
)

# The grader's first cell starts with this: an audit hook (which code in the kernel cannot remove)
# notes every path outside the submission's own folder that is opened for writing, removed,
# renamed or created, so a submission that writes by absolute path is named in its row, with or
# without the sandbox. Paths the interpreter writes by itself (bytecode caches, /dev, /proc) are
# left out. The note goes through os.write, which raises no audit event of its own.
WATCH_WRITES = r'''# course-grade: notes writes outside this submission's folder (added by the grader)
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
'''

_CELL_TEMPLATE = r'''# course-grade: {what} (added by the grader)
def _course_grade_cell(kind, exercise_id, nonce, limit, mime):
    import hashlib
    import sys
    import IPython.display as ipd

    def code_key(code):  # what the code does, and where it lives; marshal's bytes vary with refcounts
        parts = [code.co_filename, code.co_name, code.co_code, code.co_names, code.co_varnames, code.co_freevars]
        parts += [code_key(c) if hasattr(c, "co_code") else repr(c) for c in code.co_consts]
        return repr(parts)

    def code_of(obj):
        obj = getattr(obj, "fget", obj)
        code = getattr(obj, "__code__", None)
        if code is None:
            return repr(obj).encode()
        module = getattr(obj, "__globals__", {{}}).get("__name__")
        return repr((module, code_key(code), getattr(obj, "__defaults__", None))).encode()

    def short(text):
        text = str(text)
        return text if len(text) <= limit else text[:limit] + f" ... [{{len(text) - limit}} characters cut]"

    def fingerprints(core):
        digest = hashlib.sha256()
        guard = sys.modules["course_utils.checks._guard"]  # what check() trusts, and how it compares
        for obj in (core.check, core.get_exercise, core.all_exercises, core._load_all, core.call,
                    core.CheckResult.__init__, core.CheckResult.passed, ipd.display, ipd.publish_display_data,
                    core.verify, core._verify_checker, guard.verify, guard.changes, guard._Record.differences,
                    guard._fingerprint, guard.seal, guard.patched):
            digest.update(code_of(obj))
        digest.update(repr((core.CHECK_STATUSES, core.CheckResult, core.Wrong, core._NotAttempted)).encode())
        checkers = {{i: hashlib.sha256(code_of(e.checker)).hexdigest() for i, e in core._REGISTRY.items()}}
        return digest.hexdigest(), checkers

    payload = {{"nonce": nonce, "kind": kind, "exercise": exercise_id}}
    try:
        from course_utils.checks import _core as core
        if kind == "baseline":
            core.all_exercises()
            payload["core"], payload["checkers"] = fingerprints(core)
        else:
            payload["core"], checkers = fingerprints(core)
            payload["checker"] = checkers.get(exercise_id)
            known = core.all_exercises()
            if exercise_id not in known:
                raise LookupError(f"no check {{exercise_id!r}} is registered (known: {{', '.join(known) or 'none'}})")
            try:
                result = core.check(exercise_id)
            except BaseException as exc:  # SystemExit and the like, raised by the learner's code
                payload.update(status="fail", title="", hint="",
                               message=short(f"Calling your function raised {{type(exc).__name__}}: {{exc}}"))
            else:
                payload["genuine"] = type(result) is core.CheckResult and result.exercise == exercise_id
                payload.update({{k: short(getattr(result, k, "")) for k in ("title", "status", "message", "hint")}})
            # the checker calls the learner's code: fingerprint again, in case that code patched something
            payload["core_after"], checkers = fingerprints(core)
            payload["checker_after"] = checkers.get(exercise_id)
    except BaseException as exc:
        payload["grader_error"] = short(f"{{type(exc).__name__}}: {{exc}}")
    ipd.display({{mime: payload}}, raw=True)


_course_grade_cell({kind!r}, {exercise!r}, {nonce!r}, {limit}, {mime!r})
del _course_grade_cell
'''


@dataclass(frozen=True)
class Step:
    """One cell the grader runs. ``replay``: re-run it after a kernel restart to rebuild the state."""

    kind: str  # "preamble" | "setup" | "learner" | "check"
    source: str
    replay: bool
    exercise: str = ""  # for "check"
    nonce: str = ""  # for "preamble" and "check"
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


def grader_cell(kind: str, exercise: str, nonce: str) -> str:
    what = "records the check machinery" if kind == "baseline" else f'check("{exercise}")'
    return _CELL_TEMPLATE.format(what=what, kind=kind, exercise=exercise, nonce=nonce,
                                 limit=TEXT_LIMIT, mime=GRADE_MIME)


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
    except SyntaxError:
        return re.search(rf"^(async\s+)?def\s+{re.escape(name)}\b|^{re.escape(name)}\s*=", source, re.M) is not None
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == name:
            return True
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            if any((a.asname or a.name.split(".")[0]) == name for a in node.names):
                return True
        targets = node.targets if isinstance(node, ast.Assign) else (
            [node.target] if isinstance(node, (ast.AnnAssign, ast.AugAssign)) else [])
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
        notes.append("the grader added setup cell(s) missing from the notebook: "
                     + ", ".join(f"`{_first_line(s)}`" for s in setup))
    missing_checks = [i for i in spec.ids if i not in asked]
    if missing_checks and cells:
        notes.append(f"no check cell for {', '.join(missing_checks)} (the grader checked them anyway)")
    for pattern, meaning in SUSPICIOUS:
        hits = [c.number for c in learner if pattern.search(c.source)]
        if hits:
            flags.append(f"code cell {', '.join(map(str, hits))} {meaning}")

    after: dict[int, list[str]] = {}  # learner position -> exercise ids checked after it; -1 = at the end
    for slot in spec.exercises:
        where = -1
        if slot.function:
            defining = [k for k, c in enumerate(learner) if binds(c.source, slot.function)]
            where = defining[-1] if defining else -1
        after.setdefault(where, []).append(slot.id)

    def check_step(ex_id: str) -> Step:
        nonce = secrets.token_hex(16)
        return Step("check", grader_cell("check", ex_id, nonce), replay=False, exercise=ex_id, nonce=nonce)

    nonce = secrets.token_hex(16)
    steps = [Step("preamble", WATCH_WRITES + "\n\n" + grader_cell("baseline", "", nonce), replay=True, nonce=nonce)]
    steps += [Step("setup", s, replay=True) for s in setup]
    for k, cell in enumerate(learner):
        steps.append(Step("learner", cell.source, replay=True, cell=cell))
        steps += [check_step(i) for i in after.get(k, [])]
    steps += [check_step(i) for i in after.get(-1, [])]
    return Plan(tuple(steps), tuple(notes), tuple(flags))
