"""Make the learners' exercise notebooks from the solutions: ``solutions/`` is the single source.

Lesson: none; this is the instructors' tool (``make exercises``). Solution code sits between
nbgrader's markers, at any indentation::

    def best_device():
        ### BEGIN SOLUTION
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
        ### END SOLUTION

and becomes, in ``exercises/``, the same cell with the solution replaced by::

    def best_device():
        # YOUR CODE HERE
        raise NotImplementedError()

which is exactly what nbgrader's ``ClearSolutions`` writes, so instructors who run nbgrader can
use ``solutions/`` as its source folder. ``python -m course_authoring.exercises`` without ``--write``
only reports exercise notebooks that are stale (exit 1).
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import nbformat

from course_authoring.header import retarget
from course_authoring.pairing import keep_py_newer, notebook_from_text
from course_utils.check_cells import BEGIN, END, STUB

_MARKER = re.compile(r"^(\s*)(### BEGIN SOLUTION|### END SOLUTION)\s*$")


class MarkerError(ValueError):
    """Solution markers that do not pair up."""


def clear_solutions(source: str, where: str = "cell") -> str:
    """Replace every marked solution in ``source`` with the stub, keeping its indentation."""
    out: list[str] = []
    inside = False
    for lineno, line in enumerate(source.splitlines(), start=1):
        match = _MARKER.match(line)
        if match and match.group(2) == BEGIN:
            if inside:
                raise MarkerError(f"{where}, line {lineno}: {BEGIN} inside another solution; close the first with {END}")
            inside = True
            indent = match.group(1)
            out += [indent + STUB[0], indent + STUB[1]]
        elif match and match.group(2) == END:
            if not inside:
                raise MarkerError(f"{where}, line {lineno}: {END} without a {BEGIN} before it")
            inside = False
        elif not inside:
            out.append(line)
    if inside:
        raise MarkerError(f"{where}: {BEGIN} is never closed; add {END} after the solution")
    return "\n".join(out)


def exercise_texts(solution_py: Path) -> tuple[str, str]:
    """The ``.py`` and ``.ipynb`` texts of the exercise made from ``solution_py``.

    The markers are whole lines, so the ``.py`` side is cleared as text (keeping the author's
    layout byte for byte) and the ``.ipynb`` side is built from it, exactly as ``make pairs``
    builds every other pair. The Colab/Kaggle header (``course_authoring.header``) is pointed at the
    exercise notebook, so its links open the exercise rather than the answers.
    """
    py_text = clear_solutions(solution_py.read_text(encoding="utf-8"), where=str(solution_py)) + "\n"
    name = solution_py.with_suffix(".ipynb").name
    py_text = retarget(py_text, f"solutions/{name}", f"exercises/{name}")
    nb = notebook_from_text(py_text)
    return py_text, nbformat.writes(nb) + "\n"


def target_paths(solution_py: Path, exercises_dir: Path) -> tuple[Path, Path]:
    py = exercises_dir / solution_py.name
    return py, py.with_suffix(".ipynb")


def stale(solutions_dir: Path, exercises_dir: Path) -> list[str]:
    """Every exercise file that differs from what the solutions generate, and every orphan."""
    problems = []
    expected_names = set()
    for sol in sorted(solutions_dir.glob("*.py")):
        py_text, nb_text = exercise_texts(sol)
        for path, text in zip(target_paths(sol, exercises_dir), (py_text, nb_text)):
            expected_names.add(path.name)
            if not path.exists():
                problems.append(f"{path} is missing; run `make exercises`")
            elif path.read_text(encoding="utf-8") != text:
                problems.append(f"{path} is stale (differs from {sol}); run `make exercises`")
    for path in sorted(exercises_dir.glob("*")):
        if path.suffix in (".py", ".ipynb") and path.name not in expected_names:
            problems.append(f"{path} has no source in {solutions_dir}; delete it or add the solution")
    return problems


class LearnersFile(ValueError):
    """An exercise notebook in ``exercises/`` that a learner has run or saved: never overwritten."""


def looks_generated(ipynb: Path) -> bool:
    """Whether ``ipynb`` is as ``make exercises`` writes it: no outputs, the bare metadata, course ids.

    Jupyter adds outputs, execution counts and the kernel's ``language_info`` when a learner runs
    and saves a notebook, so a file with any of them is someone's work, not a stale copy.
    """
    try:
        nb = nbformat.read(ipynb, as_version=4)
    except Exception:
        return False
    return nb.metadata.get("language_info") == {"name": "python"} and all(
        re.fullmatch(r"cell-\d{3}", str(cell.get("id", ""))) and not cell.get("outputs") and not cell.get("execution_count") for cell in nb.cells
    )


def write_all(solutions_dir: Path, exercises_dir: Path) -> list[Path]:
    """Write ``exercises/`` from ``solutions/``; a notebook a learner has worked in is kept, not replaced.

    Raises ``LearnersFile`` (after writing every other file) naming each notebook kept and where
    its owner should move it: learners work in their workspace (``make lab``), not in ``exercises/``.
    """
    exercises_dir.mkdir(exist_ok=True)
    written, kept = [], []
    for sol in sorted(solutions_dir.glob("*.py")):
        py_path, ipynb_path = target_paths(sol, exercises_dir)
        py_text, nb_text = exercise_texts(sol)
        if ipynb_path.exists() and ipynb_path.read_text(encoding="utf-8") != nb_text and not looks_generated(ipynb_path):
            kept.append(ipynb_path)
            continue
        for path, text in ((py_path, py_text), (ipynb_path, nb_text)):
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                path.write_text(text, encoding="utf-8")
            written.append(path)
        keep_py_newer(py_path, ipynb_path)
    if kept:
        names = ", ".join(str(p) for p in kept)
        raise LearnersFile(
            f"not overwritten, since someone has run or saved them: {names}. Learners work in workspace/ "
            "(`make lab` makes it). To keep that work, move each file there (e.g. `mv exercises/NAME.ipynb "
            "workspace/`), then run `make exercises` again; to drop it, `git checkout exercises/`."
        )
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Generate exercises/ from solutions/.")
    parser.add_argument("--write", action="store_true", help="write exercises/ (default: only report stale files)")
    parser.add_argument("--solutions", type=Path, default=Path("solutions"))
    parser.add_argument("--exercises", type=Path, default=Path("exercises"))
    args = parser.parse_args(argv)
    try:
        if args.write:
            for p in write_all(args.solutions, args.exercises):
                print(f"wrote {p}")
            return 0
        problems = stale(args.solutions, args.exercises)
    except (MarkerError, LearnersFile) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for p in problems:
        print(p)
    print("exercises are up to date" if not problems else f"{len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
