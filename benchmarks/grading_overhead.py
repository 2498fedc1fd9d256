"""How much grading costs over simply running the notebooks: course-grade --jobs 1 vs plain nbclient.

Makes 30 submissions of exercises/01 from the solution (some solved, some untouched, one answer
wrong, an extra cell that raises, extra work), then times, on one kernel at a time:

- plain: each submission executed with a plain ``nbclient.NotebookClient``, one after another;
- graded: ``course-grade 01 SUBMISSIONS --jobs 1`` (the whole command, start-up and reports
  included), run on each half of the submissions in turn (plain A, graded A, graded B, plain B,
  so a machine whose load changes during the run biases both sides alike).

It prints per-submission seconds and the ratio graded / plain; the target is at most 1.5.
Run: ``.venv/bin/python benchmarks/grading_overhead.py`` (about two to three minutes on 2 cores).
"""

from __future__ import annotations

import argparse
import csv
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
SOLUTION = ROOT / "solutions" / "01_device_query_exercises.ipynb"
EXERCISE = ROOT / "exercises" / "01_device_query_exercises.ipynb"
TARGET = 1.5


def variant(k: int) -> nbformat.NotebookNode:
    """Submission k: five kinds in turn, so the batch looks like a real class."""
    if k % 5 == 0:
        return nbformat.read(EXERCISE, as_version=4)  # untouched
    nb = nbformat.read(SOLUTION, as_version=4)
    if k % 5 == 2:  # one wrong answer
        for cell in nb.cells:
            if "def describe_gpu" in cell.source:
                cell.source = "def describe_gpu(props) -> str:\n    return props.name"
    elif k % 5 == 3:  # a cell that raises, and one that prints
        nb.cells.insert(3, nbformat.v4.new_code_cell("1 / 0"))
        nb.cells.insert(4, nbformat.v4.new_code_cell("print('working on it ' * 100)"))
    elif k % 5 == 4:  # some extra work
        nb.cells.insert(3, nbformat.v4.new_code_cell("sum(range(10**6))"))
    return nb


def run_plain(path: Path, shutdown: str = "graceful") -> float:
    nb = nbformat.read(path, as_version=4)
    start = time.perf_counter()
    NotebookClient(nb, timeout=120, kernel_name="python3", allow_errors=True, shutdown_kernel=shutdown,
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    return time.perf_counter() - start


def grade(folder: Path, out: Path) -> tuple[float, dict[str, dict]]:
    """Run the whole command, course-grade 01 FOLDER --jobs 1; return its wall time and its rows."""
    command = "import sys; from course_grader import main; sys.exit(main())"
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", command, "01", str(folder), "--out", str(out), "--jobs", "1", "--quiet"],
                   check=True, cwd=ROOT)
    seconds = time.perf_counter() - start
    with open(out / "grades.csv", encoding="utf-8", newline="") as handle:
        return seconds, {r["learner"]: r for r in csv.DictReader(handle)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=30, help="number of submissions (default 30)")
    parser.add_argument("--immediate", action="store_true",
                        help="plain nbclient kills its kernel at the end (shutdown_kernel='immediate'), as the "
                        "grader does, instead of its default graceful shutdown (about 0.6 s per notebook)")
    args = parser.parse_args(argv)
    shutdown = "immediate" if args.immediate else "graceful"
    with tempfile.TemporaryDirectory(prefix="grading-bench-") as tmp:
        halves = [Path(tmp) / "first", Path(tmp) / "second"]
        paths: list[list[Path]] = [[], []]
        for k in range(args.n):
            half = 0 if k < args.n // 2 else 1
            halves[half].mkdir(exist_ok=True)
            path = halves[half] / f"learner{k:02d}.ipynb"
            nbformat.write(variant(k), path)
            paths[half].append(path)
        run_plain(paths[0][0])  # warm-up: the first kernel start reads everything from disk

        # plain A, graded A, graded B, plain B: a machine that gets busier or quieter during the
        # run biases both sides alike
        plain: dict[str, float] = {}
        rows: dict[str, dict] = {}
        plain_total = graded_total = 0.0
        for half, order in ((0, ("plain", "graded")), (1, ("graded", "plain"))):
            for what in order:
                if what == "plain":
                    start = time.perf_counter()
                    for path in paths[half]:
                        plain[path.stem] = run_plain(path, shutdown)
                    plain_total += time.perf_counter() - start
                else:
                    seconds, found = grade(halves[half], Path(tmp) / f"grades{half}")
                    graded_total += seconds
                    rows.update(found)

    print(f"{'submission':<12} {'plain s':>8} {'graded s':>9} {'ratio':>6}  grades")
    ratios = []
    for name, seconds in sorted(plain.items()):
        graded = float(rows[name]["seconds"])
        ratios.append(graded / seconds)
        grades = " ".join(rows[name][i] for i in ("01.1", "01.2", "01.3", "01.4"))
        print(f"{name:<12} {seconds:>8.2f} {graded:>9.2f} {graded / seconds:>6.2f}  {grades}")
    ratio = graded_total / plain_total
    print(f"\nplain nbclient ({shutdown} shutdown), {args.n} notebooks one after another: {plain_total:.1f} s")
    print(f"course-grade --jobs 1, whole commands (two halves):  {graded_total:.1f} s")
    print(f"per-submission ratio graded/plain: median {statistics.median(ratios):.2f}, max {max(ratios):.2f}")
    print(f"overhead ratio (whole batch): {ratio:.2f}  (target <= {TARGET})")
    return 0 if ratio <= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
