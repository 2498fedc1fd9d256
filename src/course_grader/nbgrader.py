"""Make an nbgrader source notebook from a solutions notebook: answer cells and test cells marked.

Lesson: none; this is for instructors who already run nbgrader. ``solutions/`` uses nbgrader's
``### BEGIN SOLUTION`` / ``### END SOLUTION`` markers, but nbgrader's full pipeline also needs
cell metadata: the cell holding a solution region must be an "Autograded answer" cell, and a
graded check an "Autograder tests" cell. This writes a copy with both::

    python -m course_grader.nbgrader solutions/01_device_query_exercises.ipynb \\
        source/ps01/01_device_query_exercises.ipynb

Each ``check("NN.K")`` cell becomes a locked test cell worth ``--points`` (default 1)::

    result = check("01.2")
    assert result.passed, str(result)

so nbgrader's feedback shows the check's message and hint when it fails. The metadata follows
nbgrader's cell schema, version 3 (``grade_id`` may hold only letters, digits, ``_`` and ``-``).

A submission made from ``exercises/`` or ``solutions/`` carries none of that metadata, and
nbgrader alone grades it 0 without a word. ``MarkCourseCells``, an autograde preprocessor that
``--config`` puts in ``nbgrader_config.py`` (see docs/grading.md), gives such a notebook the
same grade ids this converter gives the source, says so in nbgrader's log, and stops the
autograde with an error when the notebook has no check cell to grade at all.
``--overlay VENV`` layers a venv for nbgrader over this one (``make nbgrader-env``), nbconvert's
templates included (``generate_feedback`` needs them).
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import sysconfig
from pathlib import Path

import nbformat
from nbconvert.preprocessors import Preprocessor
from traitlets import Bool, Float

from course_utils.check_cells import BEGIN, check_cell_id

SCHEMA_VERSION = 3

# The nbgrader_config.py that --config writes: the release copy gets its answers cleared as
# `make exercises` does, and autograde first marks submissions that lost nbgrader's metadata.
NBGRADER_CONFIG = """\
# nbgrader_config.py for the course's exercises (written by python -m course_grader.nbgrader --config).
c = get_config()  # noqa: F821
c.CourseDirectory.root = {root!r}
# Submissions made from exercises/ or solutions/ carry no nbgrader metadata: mark their check cells
# as the source's test cells, and stop with an error when there is nothing to grade, instead of a silent 0.
c.Autograde.sanitize_preprocessors = [
    "nbgrader.preprocessors.ClearOutput",
    "nbgrader.preprocessors.DeduplicateIds",
    "course_grader.nbgrader.MarkCourseCells",
    "nbgrader.preprocessors.OverwriteKernelspec",
    "nbgrader.preprocessors.OverwriteCells",
    "nbgrader.preprocessors.CheckCellMetadata",
]
# The course's test cells are judged in nbgrader's own process, never in the learner's kernel: the
# learner's code could rewrite a test cell as it runs (see course_grader/nbgrader_judge.py).
c.Autograde.autograde_preprocessors = [
    "course_grader.nbgrader_judge.JudgeCourseChecks",
    "nbgrader.preprocessors.IgnorePattern",
    "nbconvert.preprocessors.ClearMetadataPreprocessor",
    "nbgrader.preprocessors.LimitOutput",
    "nbgrader.preprocessors.SaveAutoGrades",
    "nbgrader.preprocessors.AssignLatePenalties",
    "nbgrader.preprocessors.CheckCellMetadata",
]
# A learner who deleted a check cell still gets that test run (and not a silent 0 for it).
c.OverwriteCells.add_missing_cells = True
# Each check runs the learner's code; give it time, as course-grade does.
c.Execute.timeout = 120
# A submission's test cells are marked as the source's, points included, so nbgrader finds their checksums right.
c.MarkCourseCells.points = {points!r}
"""


def _grade_id(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]", "_", text)


def graded_check_source(exercise: str) -> str:
    """The source of exercise ``exercise``'s nbgrader test cell: the check, and an assert that shows its result."""
    return f'result = check("{exercise}")\nassert result.passed, str(result)'


def mark_for_nbgrader(nb: nbformat.NotebookNode, points: float = 1) -> nbformat.NotebookNode:
    """A copy of ``nb`` with nbgrader metadata on its answer cells and its check cells."""
    nb = nbformat.from_dict(nb)
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        exercise = check_cell_id(cell.source)
        if exercise is not None:
            cell.source = graded_check_source(exercise)
            cell.metadata["nbgrader"] = {
                "schema_version": SCHEMA_VERSION,
                "grade": True,
                "locked": True,
                "solution": False,
                "points": points,
                "grade_id": _grade_id(f"check-{exercise}"),
            }
        elif BEGIN in cell.source:
            name = re.search(r"^\s*def\s+(\w+)", cell.source, re.M)
            cell.metadata["nbgrader"] = {
                "schema_version": SCHEMA_VERSION,
                "grade": False,
                "locked": False,
                "solution": True,
                "grade_id": _grade_id(f"answer-{name.group(1) if name else id(cell)}"),
            }
    ids = [c.metadata["nbgrader"]["grade_id"] for c in nb.cells if "nbgrader" in c.get("metadata", {})]
    if len(ids) != len(set(ids)):
        raise ValueError(
            f"two cells would get the same nbgrader grade_id: {sorted(ids)}; each exercise needs its own function name and check id"
        )
    return nb


def _defines(source: str) -> str | None:
    name = re.search(r"^(?:async\s+)?def\s+(\w+)", source, re.M)
    return name.group(1) if name else None


def has_nbgrader_metadata(nb: nbformat.NotebookNode) -> bool:
    return any("nbgrader" in cell.get("metadata", {}) for cell in nb.cells)


def mark_submission(nb: nbformat.NotebookNode, points: float = 1) -> tuple[nbformat.NotebookNode, list[str]]:
    """A submission without nbgrader metadata, marked as ``mark_for_nbgrader`` marks the source.

    Made from ``exercises/`` (the answers are plain code) or ``solutions/``: each check cell
    becomes the test cell of its exercise (nbgrader then puts back the source's locked test), and
    the code cell before it that defines a function becomes that function's answer cell, so the
    grade ids match the source's. A test cell gets the source's test and ``points`` too, so that
    nbgrader's checksum of it is the source's (else autograde warns "checksum ... has changed" on
    each). Returns the copy and the exercise ids it marked.
    """
    nb = nbformat.from_dict(nb)
    marked, previous = [], None
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        exercise = check_cell_id(cell.source)
        if exercise is None:
            previous = cell
            continue
        cell.source = graded_check_source(exercise)  # the source's test, so nbgrader's checksum of the cell agrees
        cell.metadata["nbgrader"] = {
            "schema_version": SCHEMA_VERSION,
            "grade": True,
            "locked": True,
            "solution": False,
            "points": points,
            "grade_id": _grade_id(f"check-{exercise}"),
        }
        marked.append(exercise)
        name = _defines(previous.source) if previous is not None else None
        if name and "nbgrader" not in previous.metadata:
            previous.metadata["nbgrader"] = {
                "schema_version": SCHEMA_VERSION,
                "grade": False,
                "locked": False,
                "solution": True,
                "grade_id": _grade_id(f"answer-{name}"),
            }
        previous = None
    ids = [c.metadata["nbgrader"]["grade_id"] for c in nb.cells if "nbgrader" in c.get("metadata", {})]
    for cell in nb.cells:  # a learner's duplicated cell must not make nbgrader's ids clash
        meta = cell.get("metadata", {}).get("nbgrader")
        if meta and ids.count(meta["grade_id"]) > 1 and meta["solution"]:
            del cell.metadata["nbgrader"]
            ids.remove(meta["grade_id"])
    return nb, marked


class MarkCourseCells(Preprocessor):
    """nbgrader autograde preprocessor: grade a submission that lost nbgrader's metadata, loudly.

    Configured by ``python -m course_grader.nbgrader --config`` (before ``OverwriteCells``
    in ``c.Autograde.sanitize_preprocessors``). A notebook with nbgrader metadata passes unchanged.
    One without gets its check cells marked (``mark_submission``) and a WARNING in nbgrader's log
    naming the file; one without any check cell stops the autograde with an error that says why.
    """

    enabled = Bool(True).tag(config=True)
    points = Float(1, help="points per test cell, as the source notebook was made with (--points)").tag(config=True)

    def preprocess(self, nb, resources):
        if has_nbgrader_metadata(nb):
            return nb, resources
        where = (resources.get("nbgrader") or {}).get("notebook") or "this notebook"
        student = (resources.get("nbgrader") or {}).get("student") or "?"
        nb, marked = mark_submission(nb, self.points)
        if not marked:
            raise ValueError(
                f"course_utils: the submission {where} of student {student} has no nbgrader metadata and no "
                'check cells (cells that are exactly check("NN.K")), so nbgrader would grade it 0 without '
                "a word. Hand out nbgrader's release copy (release/<assignment>/), or grade this one with "
                "course-grade."
            )
        self.log.warning(
            "course_utils: the submission %s of student %s has no nbgrader metadata (it was made from "
            "exercises/ or solutions/, not from nbgrader's release copy); its check cells %s were "
            "marked as the source's test cells so it is graded.",
            where,
            student,
            ", ".join(marked),
        )
        return nb, resources


def write_overlay(venv: Path) -> Path:
    """Make the venv ``venv`` see this environment's packages (torch, course_utils, ...) through a .pth file.

    Its own packages (nbgrader) come first on its path; this one's after them. Both must run the
    same Python version, as a venv made with this environment's ``python -m venv`` does.
    """
    python = Path(venv) / "bin" / "python"
    if not python.exists():
        raise ValueError(f"{python} does not exist; make the venv first: {sys.executable} -m venv {venv}")
    probe = "import sys, sysconfig; print(sysconfig.get_paths()['purelib']); print('%d.%d' % sys.version_info[:2])"
    purelib, version = subprocess.run([str(python), "-c", probe], check=True, capture_output=True, text=True).stdout.split()
    mine = f"{sys.version_info[0]}.{sys.version_info[1]}"
    if version != mine:
        raise ValueError(f"{venv} runs Python {version}, this environment {mine}; make it with {sys.executable} -m venv {venv}")
    pth = Path(purelib) / "course-venv.pth"
    # an import line: site.addsitedir also reads this environment's own .pth files (the editable course_utils)
    pth.write_text(f"import site; site.addsitedir({sysconfig.get_paths()['purelib']!r})\n", encoding="utf-8")
    _link_templates(Path(venv))
    return pth


def _link_templates(venv: Path) -> None:
    """Let the overlay venv find nbconvert's templates, which this environment's nbconvert installed here.

    nbconvert reads them from ``<sys.prefix>/share/jupyter/nbconvert`` (``jupyter_path``), and
    the overlay's nbconvert is this environment's: without the link ``nbgrader generate_feedback``
    fails with "No template sub-directory with name 'classic'".
    """
    mine = Path(sys.prefix) / "share" / "jupyter" / "nbconvert"
    theirs = venv / "share" / "jupyter" / "nbconvert"
    if not mine.is_dir() or theirs.exists() or theirs.is_symlink():
        return
    theirs.parent.mkdir(parents=True, exist_ok=True)
    theirs.symlink_to(mine.resolve(), target_is_directory=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Write an nbgrader source notebook from a solutions notebook.")
    parser.add_argument("solution", type=Path, nargs="?", help="a notebook from solutions/")
    parser.add_argument("target", type=Path, nargs="?", help="where to write it, e.g. source/ps01/NAME.ipynb")
    parser.add_argument("--points", type=float, default=1, help="points per check (default 1)")
    parser.add_argument(
        "--config",
        type=Path,
        metavar="COURSE_DIR",
        help="also write COURSE_DIR/nbgrader_config.py, which grades submissions without nbgrader metadata instead of giving them a silent 0",
    )
    parser.add_argument(
        "--overlay", type=Path, metavar="VENV", help="make the venv VENV (for nbgrader) see this environment's packages, then stop"
    )
    args = parser.parse_args(argv)
    if args.overlay:
        try:
            print(f"wrote {write_overlay(args.overlay)}")
        except ValueError as exc:
            parser.exit(2, f"error: {exc}\n")
        return 0
    if args.solution is None or args.target is None:
        parser.error("give a solutions notebook and the source notebook to write")
    nb = mark_for_nbgrader(nbformat.read(args.solution, as_version=4), args.points)
    args.target.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, args.target)
    print(f"wrote {args.target}")
    if args.config:
        config = args.config / "nbgrader_config.py"
        config.write_text(NBGRADER_CONFIG.format(root=str(args.config.resolve()), points=args.points), encoding="utf-8")
        print(f"wrote {config}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
