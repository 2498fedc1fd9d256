"""How much grading costs over simply running the notebooks: course-grade vs plain nbclient.

Makes N submissions of one exercise set from its solution (some solved, some untouched, one answer
wrong in set 01, an extra cell that raises, extra work), then times both sides with the same
number of notebooks at once (``--jobs``):

- plain: each submission executed with a plain ``nbclient.NotebookClient`` (``--strip-checks``:
  with its ``check("NN.M")`` cells removed, the bare baseline of issue 39), ``--jobs`` at a time;
- graded: ``course-grade NN SUBMISSIONS --jobs J [--sandbox MODE]`` (the whole command, start-up
  and reports included), run on each half of the submissions in turn (plain A, graded A, graded B,
  plain B, so a machine whose load changes during the run biases both sides alike); with ``--whole``,
  the whole class in one command as an instructor grades it, twice (plain, graded, graded, plain), each
  side's figures the mean of its two runs; ``--repeat R`` does that R times on the same class and prints
  each block's ratio, their median and their spread.

Each side's CPU time is measured too: the machine's busy CPU seconds while the side ran (``/proc/stat``:
user, nice, system and interrupt time of every core; steal and idle left out), so run it on an otherwise idle
machine. ``getrusage`` cannot see it: the grader kills a kernel's process group, its bwrap included, and
the kernel's time is never handed up to the command. On a shared or throttled machine the wall time of
the same run moves by a quarter from one hour to the next; the CPU seconds a side spends move far less,
so their ratio says what grading costs where the wall-clock ratio cannot.

It prints per-submission seconds and the ratio graded / plain (``--target``, default 1.5; issue 39
asks 1.2 for a class of 60: ``--set 10 -n 60 --jobs 2 --sandbox require --target 1.2``, and the same with
``--strip-checks`` for the harsher baseline; docs/grading.md, "Speed", has both figures).
Run: ``.venv/bin/python benchmarks/grading_overhead.py`` (about two to three minutes on 2 cores).
"""

from __future__ import annotations

import argparse
import csv
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
CHECK_CELL = re.compile(r'\s*check\("\d\d\.\d+"\)\s*')


def notebooks(number: str) -> tuple[Path, Path]:
    """The set's solution and exercise notebooks."""
    (solution,) = (ROOT / "solutions").glob(f"{number}_*_exercises.ipynb")
    (exercise,) = (ROOT / "exercises").glob(f"{number}_*_exercises.ipynb")
    return solution, exercise


def variant(k: int, number: str = "01") -> nbformat.NotebookNode:
    """Submission k: five kinds in turn, so the batch looks like a real class."""
    solution, exercise = notebooks(number)
    if k % 5 == 0:
        return nbformat.read(exercise, as_version=4)  # untouched
    nb = nbformat.read(solution, as_version=4)
    if k % 5 == 2 and number == "01":  # one wrong answer
        for cell in nb.cells:
            if "def describe_gpu" in cell.source:
                cell.source = "def describe_gpu(props) -> str:\n    return props.name"
    elif k % 5 == 3:  # a cell that raises, and one that prints
        nb.cells.insert(3, nbformat.v4.new_code_cell("1 / 0"))
        nb.cells.insert(4, nbformat.v4.new_code_cell("print('working on it ' * 100)"))
    elif k % 5 == 4:  # some extra work
        nb.cells.insert(3, nbformat.v4.new_code_cell("sum(range(10**6))"))
    return nb


def run_plain(path: Path, shutdown: str = "graceful", strip_checks: bool = False) -> float:
    nb = nbformat.read(path, as_version=4)
    if strip_checks:
        nb.cells = [c for c in nb.cells if not (c.cell_type == "code" and CHECK_CELL.fullmatch(c.source))]
    start = time.perf_counter()
    NotebookClient(
        nb, timeout=120, kernel_name="python3", allow_errors=True, shutdown_kernel=shutdown, resources={"metadata": {"path": str(path.parent)}}
    ).execute()
    return time.perf_counter() - start


def grade(folder: Path, out: Path, args) -> tuple[float, dict[str, dict]]:
    """Run the whole command, course-grade NN FOLDER --jobs J; return its wall time and its rows."""
    command = "import sys; from course_grader import main; sys.exit(main())"
    extra = ["--sandbox", args.sandbox] if args.sandbox else []
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-c", command, args.set, str(folder), "--out", str(out), "--jobs", str(args.jobs), "--quiet", *extra],
        check=True,
        cwd=ROOT,
    )
    seconds = time.perf_counter() - start
    with open(out / "grades.csv", encoding="utf-8", newline="") as handle:
        return seconds, {r["learner"]: r for r in csv.DictReader(handle)}


def cpu_seconds() -> float:
    """The machine's busy CPU seconds so far, all cores (Linux's /proc/stat); elsewhere, this process's and its
    waited-for children's, which miss the kernels the grader kills."""
    try:
        fields = Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]
    except OSError:
        own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime
    user, nice, system, _idle, _iowait, irq, softirq = (int(f) for f in fields[:7])
    return (user + nice + system + irq + softirq) / os.sysconf("SC_CLK_TCK")


def run_all_plain(paths: list[Path], args, shutdown: str) -> dict[str, float]:
    """Each notebook with plain nbclient, ``args.jobs`` at a time (each in its own kernel)."""
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        seconds = pool.map(lambda p: run_plain(p, shutdown, args.strip_checks), paths)
        return dict(zip((p.stem for p in paths), seconds))


def arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=30, help="number of submissions (default 30)")
    parser.add_argument("--set", default="01", help="the exercise set, two digits (default 01)")
    parser.add_argument("--jobs", type=int, default=1, help="notebooks at once, on both sides (default 1)")
    parser.add_argument("--sandbox", choices=("auto", "require", "off"), help="course-grade's --sandbox")
    parser.add_argument(
        "--strip-checks", action="store_true", help="plain nbclient runs the submissions without their check cells (the bare baseline)"
    )
    parser.add_argument("--target", type=float, default=1.5, help="the ratio to stay under (default 1.5)")
    parser.add_argument(
        "--whole",
        action="store_true",
        help="grade the whole class in one command, as an instructor would, twice (plain, graded, "
        "graded, plain; each side's time is the mean of its two runs) instead of once per half "
        "(which pays course-grade's start-up twice)",
    )
    parser.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="measure R times on the same submissions, printing each block's ratio; the verdict is their median (default 1)",
    )
    parser.add_argument(
        "--immediate",
        action="store_true",
        help="plain nbclient kills its kernel at the end (shutdown_kernel='immediate'), as the "
        "grader does, instead of its default graceful shutdown (about 0.6 s per notebook)",
    )
    return parser.parse_args(argv)


def measure(args, shutdown: str) -> tuple[dict[str, float], dict[str, dict], list[dict[str, float]]]:
    """Make the class, run both sides ``args.repeat`` times; each submission's mean seconds on each side, and per
    block each side's wall and CPU seconds for the whole class."""
    with tempfile.TemporaryDirectory(prefix="grading-bench-") as tmp:
        halves = [Path(tmp) / "first", Path(tmp) / "second"]
        paths: list[list[Path]] = [[], []]
        for k in range(args.n):
            half = 0 if args.whole or k < args.n // 2 else 1
            halves[half].mkdir(exist_ok=True)
            path = halves[half] / f"learner{k:02d}.ipynb"
            nbformat.write(variant(k, args.set), path)
            paths[half].append(path)
        run_plain(paths[0][0])  # warm-up: the first kernel start reads everything from disk

        # plain A, graded A, graded B, plain B: a machine that gets busier or quieter during the
        # run biases both sides alike
        rounds = ((0, ("plain", "graded")), (1, ("graded", "plain")))
        if args.whole:  # the same class twice: each side's figures are the means of its two runs
            rounds = ((0, ("plain", "graded")), (0, ("graded", "plain")))
        runs = (2 if args.whole else 1) * args.repeat  # how often each submission runs on each side
        plain: dict[str, float] = {}
        rows: dict[str, dict] = {}
        blocks: list[dict[str, float]] = []  # per block: each side's wall and CPU seconds for the whole class
        for block in range(args.repeat):
            spent = dict.fromkeys(("plain", "graded", "plain_cpu", "graded_cpu"), 0.0)
            for k, (half, order) in enumerate(rounds):
                for what in order:
                    start, cpu = time.perf_counter(), cpu_seconds()
                    if what == "plain":
                        for name, seconds in run_all_plain(paths[half], args, shutdown).items():
                            plain[name] = plain.get(name, 0.0) + seconds / runs
                    else:
                        _, found = grade(halves[half], Path(tmp) / f"grades{block}-{k}", args)
                        for name, row in found.items():
                            row["seconds"] = float(row["seconds"]) / runs + float(rows.get(name, {}).get("seconds", 0.0))
                            rows[name] = row
                    spent[what] += (time.perf_counter() - start) / (2 if args.whole else 1)
                    spent[f"{what}_cpu"] += (cpu_seconds() - cpu) / (2 if args.whole else 1)
            blocks.append(spent)
            if args.repeat > 1:
                print(
                    f"block {block + 1}: plain {spent['plain']:.1f} s, course-grade {spent['graded']:.1f} s, ratio "
                    f"{spent['graded'] / spent['plain']:.2f}; CPU {spent['plain_cpu']:.1f} s against "
                    f"{spent['graded_cpu']:.1f} s, ratio {spent['graded_cpu'] / spent['plain_cpu']:.2f}",
                    flush=True,
                )

    return plain, rows, blocks


def report(args, shutdown: str, plain: dict[str, float], rows: dict[str, dict], blocks: list[dict[str, float]]) -> float:
    """Print the table and the totals; the ratio the target is held to."""
    print(f"{'submission':<12} {'plain s':>8} {'graded s':>9} {'ratio':>6}  grades")
    ratios = []
    for name, seconds in sorted(plain.items()):
        graded = float(rows[name]["seconds"])
        ratios.append(graded / seconds)
        grades = " ".join(v for k, v in rows[name].items() if re.fullmatch(r"\d\d\.\d+", k))
        print(f"{name:<12} {seconds:>8.2f} {graded:>9.2f} {graded / seconds:>6.2f}  {grades}")
    total = {key: sum(b[key] for b in blocks) / len(blocks) for key in blocks[0]}
    ratio = total["graded"] / total["plain"]
    bare = ", check cells removed" if args.strip_checks else ""
    print(
        f"\nplain nbclient ({shutdown} shutdown{bare}), {args.n} notebooks of set {args.set}, {args.jobs} at a time: "
        f"{total['plain']:.1f} s, {total['plain_cpu']:.1f} s of CPU"
    )
    how = "one command for the class, mean of two runs" if args.whole else "whole commands (two halves)"
    print(
        f"course-grade --jobs {args.jobs} --sandbox {args.sandbox or 'auto'}, {how}: {total['graded']:.1f} s, {total['graded_cpu']:.1f} s of CPU"
    )
    print(f"per-submission ratio graded/plain: median {statistics.median(ratios):.2f}, max {max(ratios):.2f}")
    print(f"CPU ratio graded/plain: {total['graded_cpu'] / total['plain_cpu']:.2f}")
    if args.repeat > 1:
        each = sorted(b["graded"] / b["plain"] for b in blocks)
        print(f"blocks' ratios: {', '.join(f'{r:.2f}' for r in each)}; median {statistics.median(each):.2f}")
        ratio = statistics.median(each)
    print(f"overhead ratio (whole batch): {ratio:.2f}  (target <= {args.target})")
    return ratio


def main(argv: list[str] | None = None) -> int:
    args = arguments(argv)
    shutdown = "immediate" if args.immediate else "graceful"
    ratio = report(args, shutdown, *measure(args, shutdown))
    return 0 if ratio <= args.target else 1


if __name__ == "__main__":
    sys.exit(main())
