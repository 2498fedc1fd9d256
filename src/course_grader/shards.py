"""Grading beyond one machine: a batch in shards, and the merge that makes one batch's report of them.

Lesson: none; this is the instructors' tool (``course-grade``, docs/instructors.md). Example::

    course-grade 10 submitted/ --shard 2/8 --out grades/10-shard-2     # on each of 8 machines, K = 1..8
    course-grade merge grades/10-shard-* --out grades/10               # once, where all of them are

A shard takes the submissions whose learner name hashes to it (sha256, so it does not depend on
the order of the folder or on which other files are in it: a late submission moves no one else),
grades them as any batch does, and writes its usual report plus ``shard.json``: the shard, the
settings it graded with, the exercise notebook (name, sha256, exercise ids), the course release
(a digest of the course's package files, and what the batch verified them against), every
submission in the folder, and each of its rows in full. ``merge`` refuses shards that are
incomplete (each of 1..N exactly once), that overlap, or that graded a different folder, exercise,
release or settings, naming what differs; otherwise it writes the grades.csv, details.csv,
feedback and summary one batch of the whole folder writes (its ``seconds`` are each row's own).
"""

from __future__ import annotations

import argparse
import hashlib
import json
from dataclasses import asdict
from pathlib import Path

from course_grader.results import BatchResult, ExerciseGrade, Shard, Submission, SubmissionGrade, one_title_each

SHARD_FILE = "shard.json"
FORMAT = 1  # of shard.json; a merge refuses another
KEYS = ("shard", "folder", "exercise", "release", "settings", "batch", "rows")  # what every shard.json holds


def parse_shard(text: str) -> tuple[int, int]:
    """``"K/N"`` as (K, N), 1 <= K <= N; argparse.ArgumentTypeError saying what was expected otherwise."""
    index, slash, count = str(text).partition("/")
    if not slash or not index.strip().isdigit() or not count.strip().isdigit():
        raise argparse.ArgumentTypeError(
            f"{text!r} is not K/N: give this machine's shard and the number of shards, "
            "e.g. --shard 1/4 (in a Slurm array: --shard "
            "$SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT)"
        )
    k, n = int(index), int(count)
    if n < 1 or not 1 <= k <= n:
        raise argparse.ArgumentTypeError(
            f"--shard {text}: K must be 1 to N and N at least 1 (shards are numbered from 1; with N={n} give 1/{n} to {n}/{n})"
        )
    return k, n


def shard_of(learner: str, count: int) -> int:
    """The shard (1..count) of the submission named ``learner``: a hash of the name, nothing else."""
    digest = hashlib.sha256(learner.encode("utf-8", "surrogatepass")).digest()
    return int.from_bytes(digest[:8], "big") % count + 1


def select(found: list[Submission], shard: tuple[int, int] | None) -> tuple[list[Submission], Shard | None]:
    """The submissions of ``shard`` (K, N), in the folder's order, and the Shard that records the whole folder;
    with no shard, all of them and None."""
    if shard is None:
        return found, None
    k, n = shard
    return ([s for s in found if shard_of(s.learner, n) == k], Shard(k, n, tuple((s.learner, s.file) for s in found)))


def release() -> dict:
    """What identifies the course release a batch graded with, the same on every machine: a sha256 over the
    course's package files (``manifest.PACKAGES``; each one's path inside its package and its contents)."""
    from course_grader.manifest import PACKAGES

    digest = hashlib.sha256()
    for folder, name in PACKAGES:
        root = folder()
        for path in sorted(p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
            digest.update(f"{name}/{path.relative_to(root).as_posix()}\0".encode())
            digest.update(hashlib.sha256(path.read_bytes()).digest())
    return {"digest": digest.hexdigest()}


def exercise_identity(exercise: Path) -> dict:
    """The exercise notebook a batch graded against: its name, a sha256 of its bytes, and its headings by id."""
    from course_grader.spec import read_spec

    spec = read_spec(Path(exercise))
    return {
        "name": spec.path.name,
        "sha256": hashlib.sha256(spec.path.read_bytes()).hexdigest(),
        "titles": {e.id: e.title for e in spec.exercises},
    }


def _row_data(row: SubmissionGrade) -> dict:
    data = asdict(row)
    data["submission"]["path"] = None if row.submission.path is None else str(row.submission.path)
    return data


def _row(data: dict) -> SubmissionGrade:
    sub = dict(data["submission"])
    sub["path"] = None if sub["path"] is None else Path(sub["path"])
    return SubmissionGrade(
        Submission(**sub), tuple(ExerciseGrade(**g) for g in data["grades"]), tuple(data["notes"]), tuple(data["flags"]), float(data["seconds"])
    )


def write_shard_file(out: Path, result: BatchResult, settings: dict, course: dict) -> Path:
    """``shard.json`` in ``out``: everything ``merge`` needs, and checks, to join this shard with the others."""
    shard = result.shard
    data = {
        "format": FORMAT,
        "shard": [shard.index, shard.count],
        "folder": [list(s) for s in shard.of],
        "exercise": {**course["exercise"], "ids": list(result.exercise_ids)},
        "release": course["release"],
        "settings": settings,
        "batch": {
            "notebook": result.exercise_notebook,
            "jobs": result.jobs,
            "seconds": result.seconds,
            "changed_files": list(result.changed_files),
            "strays": list(result.strays),
            "ended": list(result.ended),
            "isolation": result.isolation,
            "limits": result.limits,
            "copies": result.copies,
            "verified": result.verified,
        },
        "rows": [_row_data(r) for r in result.rows],
    }
    path = Path(out) / SHARD_FILE
    # ASCII, with \u escapes: a file name that is not UTF-8 leaves a lone surrogate in the submission's path
    # (os.fsdecode), which no UTF-8 file can hold and json.loads gives back exactly from its escape
    path.write_text(json.dumps(data, indent=1, ensure_ascii=True) + "\n", encoding="utf-8")
    return path


class MergeRefused(ValueError):
    """The shards cannot be joined into one batch's report; the message says what differs or is missing."""


def read_shard(folder: Path) -> dict:
    """A shard's ``shard.json``, with the folder it came from; MergeRefused when there is none or it is not one."""
    path = Path(folder) / SHARD_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise MergeRefused(f"{folder} holds no {SHARD_FILE}: give the --out folders of `course-grade ... --shard K/N` runs") from None
    except (OSError, ValueError) as exc:
        raise MergeRefused(f"{path} cannot be read ({exc})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise MergeRefused(
            f"{path} is not a shard file of format {FORMAT} (found "
            f"{data.get('format') if isinstance(data, dict) else type(data).__name__}); grade the shard "
            "again with this course-grade"
        )
    missing = [key for key in KEYS if key not in data]
    shard = data.get("shard")
    if missing or not (isinstance(shard, list) and len(shard) == 2 and all(type(x) is int for x in shard)):
        raise MergeRefused(
            f"{path} is not a whole shard file (missing: {', '.join(missing) or 'none'}; shard: {_short(shard)}); grade the shard again"
        )
    return {**data, "from": str(folder)}


def _name(shard: dict) -> str:
    k, n = shard["shard"]
    return f"shard {k}/{n} ({shard['from']})"


def check_complete(shards: list[dict]) -> None:
    """Each of shards 1..N exactly once, all of the same N."""
    counts = sorted({s["shard"][1] for s in shards})
    if len(counts) != 1:
        raise MergeRefused("the shards split the folder into different numbers of shards: " + "; ".join(_name(s) for s in shards))
    n = counts[0]
    seen: dict[int, list[str]] = {}
    for s in shards:
        seen.setdefault(s["shard"][0], []).append(s["from"])
    twice = {k: where for k, where in seen.items() if len(where) > 1}
    if twice:
        raise MergeRefused(
            "; ".join(f"shard {k}/{n} is given {len(w)} times ({', '.join(w)})" for k, w in sorted(twice.items()))
            + ": give each shard's folder once"
        )
    missing = [k for k in range(1, n + 1) if k not in seen]
    if missing:
        raise MergeRefused(
            f"shard(s) {', '.join(f'{k}/{n}' for k in missing)} missing: all {n} shards are needed "
            "(grade the missing ones with --shard K/N, on the same folder, and merge again)"
        )


# What must be the same in every shard, and how a refusal names it.
SAME = (
    ("exercise", "the exercise notebook (set)"),
    ("release", "the course release (its package files)"),
    ("settings", "the settings"),
    ("folder", "the submissions folder (its list of submissions)"),
)


def _differences(first: dict, other: dict) -> str:
    if isinstance(first, dict) and isinstance(other, dict):
        keys = [k for k in dict.fromkeys([*first, *other]) if first.get(k) != other.get(k)]
        return ", ".join(f"{k}: {_short(first.get(k))} against {_short(other.get(k))}" for k in keys)
    if isinstance(first, list) and isinstance(other, list):
        a, b = {tuple(x) for x in first}, {tuple(x) for x in other}
        return (
            f"{len(first)} against {len(other)} submissions; only in the first: {_short(sorted(a - b))}, "
            f"only in the other: {_short(sorted(b - a))}"
        )
    return f"{_short(first)} against {_short(other)}"


def _short(value) -> str:
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else value
    return text if len(text) <= 200 else text[:200] + "..."


def check_same(shards: list[dict]) -> None:
    """The same exercise, release, settings and folder in every shard; MergeRefused naming the first difference."""
    first = shards[0]
    for key, what in SAME:
        for other in shards[1:]:
            if other.get(key) != first.get(key):
                raise MergeRefused(f"{_name(first)} and {_name(other)} differ in {what}: {_differences(first.get(key), other.get(key))}")


def merged_rows(shards: list[dict]) -> list[SubmissionGrade]:
    """Every submission's row in the folder's order; MergeRefused when one is in no shard, two, or the wrong one."""
    where: dict[tuple[str, str], list[dict]] = {}
    n = shards[0]["shard"][1]
    for s in shards:
        for data in s["rows"]:
            key = (data["submission"]["learner"], data["submission"]["file"])
            if shard_of(key[0], n) != s["shard"][0]:
                raise MergeRefused(f"{_name(s)} holds {key[0]}, which belongs to shard {shard_of(key[0], n)}/{n}")
            where.setdefault(key, []).append({**data, "from": _name(s)})
    folder = [tuple(x) for x in shards[0]["folder"]]
    twice = [f"{k[0]} ({', '.join(d['from'] for d in v)})" for k, v in where.items() if len(v) > 1]
    missing = [k[0] for k in folder if k not in where]
    strangers = [k[0] for k in where if k not in set(folder)]
    if twice or missing or strangers:
        raise MergeRefused(
            "the shards do not hold each submission exactly once: "
            + "; ".join(
                part
                for part in (
                    twice and f"in two shards: {', '.join(twice[:10])}",
                    missing and f"in none: {', '.join(missing[:10])}",
                    strangers and f"not in the folder: {', '.join(strangers[:10])}",
                )
                if part
            )
        )
    return [_row(where[k][0]) for k in folder]


def merge(folders: list[Path]) -> BatchResult:
    """The shards in ``folders`` joined into the result one batch of the whole folder gives; MergeRefused otherwise."""
    if not folders:
        raise MergeRefused("no shard folders given")
    shards = [read_shard(Path(f)) for f in folders]
    check_complete(shards)
    check_same(shards)
    rows = merged_rows(shards)
    shards.sort(key=lambda s: s["shard"][0])
    first, batches = shards[0], [s["batch"] for s in shards]
    return BatchResult(
        first["batch"]["notebook"],
        tuple(first["exercise"]["ids"]),
        one_title_each(first["exercise"]["titles"], rows),
        sum(b["jobs"] for b in batches),
        sum(b["seconds"] for b in batches),
        tuple(f"{_name(s)}: {c}" for s in shards for c in s["batch"]["changed_files"]),
        tuple(x for b in batches for x in b["strays"]),
        _each(shards, "isolation"),
        _each(shards, "limits"),
        _each(shards, "copies"),
        _each(shards, "verified"),
        merged_from=len(shards),
        ended=tuple(x for b in batches for x in b.get("ended", ())),
    )


def _each(shards: list[dict], key: str) -> str:
    """One summary line for all shards: the line itself where they agree, else each shard's."""
    values = [s["batch"][key] for s in shards]
    if len(set(values)) == 1:
        return values[0]
    return "; ".join(f"shard {s['shard'][0]}/{s['shard'][1]}: {v}" for s, v in zip(shards, values))


def _merge_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="course-grade merge",
        description="Join the reports of `course-grade EXERCISE FOLDER --shard K/N` runs (K = 1..N) into the report "
        "one run on the whole folder writes. Refuses shards that are missing, given twice, or graded a different "
        "exercise, course release, settings or folder, saying what differs.",
    )
    parser.add_argument("shards", nargs="+", type=Path, help="the --out folder of each shard (each holds shard.json)")
    parser.add_argument("--out", "-o", type=Path, required=True, help="where to write the merged report")
    parser.add_argument("--quiet", action="store_true", help="no summary on the screen")
    return parser


def merge_main(argv: list[str]) -> int:
    """``course-grade merge``: 0 when merged, 1 when a shard's batch saw files change (as course-grade), 2 refused."""
    from course_grader.report import prepare_out, summary_text, write_reports

    parser = _merge_parser()
    args = parser.parse_args(argv)
    try:
        if any(args.out.resolve() == Path(f).resolve() for f in args.shards):
            raise MergeRefused(f"--out {args.out} is one of the shards' folders; give a new folder")
        result = merge(args.shards)
        prepare_out(args.out)
    except ValueError as exc:
        parser.exit(2, f"course-grade merge: refused: {exc}\n")
    write_reports(result, args.out)
    if not args.quiet:
        print(summary_text(result))
        print(f"wrote {args.out / 'grades.csv'} and the rest of the report, merged from {result.merged_from} shards")
    return 1 if result.changed_files else 0


def settings_of(args: argparse.Namespace, sandboxed: bool) -> dict:
    """The settings of a ``course-grade`` run that decide its grades: every shard must have graded with the same."""
    return {
        "cell_timeout": args.cell_timeout,
        "timeout": args.timeout,
        "judge_timeout": args.judge_timeout,
        "kernel": args.kernel or "",
        "sandbox": args.sandbox,
        "sandboxed": bool(sandboxed),
        "allow_modified_course": bool(args.allow_modified_course),
    }


__all__ = ["MergeRefused", "merge", "merge_main", "parse_shard", "select", "shard_of", "write_shard_file"]
