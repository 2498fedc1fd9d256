"""Grading beyond one machine (issue 39, item 6): ``course-grade --shard K/N`` and ``course-grade merge``.

The real exercise 01 is graded three times on the same five submissions (a solved copy, the
handed-out stubs, a wrong answer, a file that is not a notebook, a notebook with no cells): once
whole, and as shards 1/2 and 2/2; the merge of the shards must write the report the whole run
wrote. Not compared, because no two runs of the same submissions share them: ``grades.csv``'s
``seconds`` (each row's grading time) and the messages of passes and fails, which quote the cases
drawn for that judging (``hidden_cases``: a fresh secret seed each time). Every other column of
grades.csv and details.csv, and the feedback of the rows without drawn cases, byte for byte.
The refusals (a shard missing, given twice, of another set, release, settings or folder) are
checked on copies of those shards; "another set" is a real shard of exercise 09.
"""

from __future__ import annotations

import csv
import io
import json
import shutil
from pathlib import Path

import nbformat
import pytest
from notebook_runner import ROOT

from course_grader import main
from course_grader.results import Submission
from course_grader.shards import select, shard_of

EXERCISE_01 = ROOT / "exercises" / "01_device_query_exercises.ipynb"
SOLUTION_01 = ROOT / "solutions" / "01_device_query_exercises.ipynb"
ARGS = ["--jobs", "2", "--cell-timeout", "60", "--quiet"]


def _submissions(folder: Path) -> None:
    folder.mkdir()
    shutil.copy(SOLUTION_01, folder / "ada.ipynb")  # solved
    shutil.copy(EXERCISE_01, folder / "bea.ipynb")  # the stubs as handed out
    wrong = nbformat.read(SOLUTION_01, as_version=4)
    answer = next(c for c in wrong.cells if c.cell_type == "code" and "def describe_gpu" in c.source)
    answer.source = "def describe_gpu(props):\n    return ''\n"
    nbformat.write(wrong, folder / "cid.ipynb")
    (folder / "dan.ipynb").write_text("{not json", encoding="utf-8")
    nbformat.write(nbformat.v4.new_notebook(), folder / "eve.ipynb")  # empty


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("shards")
    submitted = root / "submitted"
    _submissions(submitted)
    codes = {
        name: main(["01", str(submitted), "--out", str(root / name), *ARGS, *extra])
        for name, extra in (("whole", []), ("s1", ["--shard", "1/2"]), ("s2", ["--shard", "2/2"]))
    }
    return dict(root=root, submitted=submitted, codes=codes)


def _table(path: Path, drop: str = "seconds") -> list[list[str]]:
    rows = list(csv.reader(io.StringIO(path.read_text(encoding="utf-8"), newline="")))
    k = rows[0].index(drop)
    return [r[:k] + r[k + 1 :] for r in rows]


def _details(out: Path) -> list[list[str]]:
    rows = list(csv.reader(io.StringIO((out / "details.csv").read_text(encoding="utf-8"), newline="")))
    status = rows[0].index("status")
    return [r if r[status] not in ("pass", "fail") else r[: status + 1] + r[status + 2 :] for r in rows]


def _results(path: Path) -> list[str]:
    return [ln for ln in path.read_text(encoding="utf-8").splitlines() if ln.startswith(("|", "**", "# ", "Submission"))]


def _merge(*argv, capsys) -> tuple[int, str]:
    try:
        code = main(["merge", *map(str, argv)])
    except SystemExit as exc:
        code = exc.code
    return code, capsys.readouterr().err


@pytest.mark.slow
def test_shards_and_merge_write_what_one_batch_writes(runs, capsys):
    root = runs["root"]
    assert runs["codes"] == {"whole": 0, "s1": 0, "s2": 0}
    one, two = (json.loads((root / s / "shard.json").read_text(encoding="utf-8")) for s in ("s1", "s2"))
    learners = [{r["submission"]["learner"] for r in s["rows"]} for s in (one, two)]
    assert learners == [{"ada"}, {"bea", "cid", "dan", "eve"}]  # disjoint, both graded something
    code, err = _merge(root / "s2", root / "s1", "--out", root / "merged", capsys=capsys)  # any order
    assert code == 0, err
    whole, merged = root / "whole", root / "merged"
    assert _table(merged / "grades.csv") == _table(whole / "grades.csv")
    # details.csv: every column; a pass's or a fail's message quotes the cases drawn for that judging (a fresh
    # secret seed each time, hidden_cases.Draw), which no two runs share, so those messages are left out
    assert _details(merged) == _details(whole)
    feedback = sorted(p.name for p in (whole / "feedback").iterdir())
    assert feedback == ["ada.md", "bea.md", "cid.md", "dan.md", "eve.md"]
    assert sorted(p.name for p in (merged / "feedback").iterdir()) == feedback
    for name in ("bea.md", "dan.md", "eve.md"):  # nothing drawn in them: byte for byte
        assert (merged / "feedback" / name).read_bytes() == (whole / "feedback" / name).read_bytes()
    for name in ("ada.md", "cid.md"):  # their tables of results
        assert _results(merged / "feedback" / name) == _results(whole / "feedback" / name)
    table = {r["learner"]: r for r in csv.DictReader(open(merged / "grades.csv", encoding="utf-8", newline=""))}
    assert [table["ada"][i] for i in ("01.1", "01.2", "01.3", "01.4")] == ["pass"] * 4
    assert table["cid"]["01.3"] == "fail" and table["bea"]["01.1"] == "not-attempted"
    assert table["dan"]["01.1"] == "invalid" and table["eve"]["01.1"] == "missing"
    # the counts in the summary too (its first lines name the jobs and seconds, which differ)
    tail = lambda p: (p / "summary.txt").read_text(encoding="utf-8").split("\n\n", 1)[1]  # noqa: E731
    assert tail(merged) == tail(whole)
    assert "merged from 2 shard(s)" in (merged / "summary.txt").read_text(encoding="utf-8")
    assert "shard 1/2: 1 of the folder's 5 submission(s)" in (root / "s1" / "summary.txt").read_text(encoding="utf-8")


def _copy(root: Path, name: str, new: str, change=None) -> Path:
    """A copy of shard ``name``'s folder, its shard.json changed by ``change(data)``."""
    target = root / new
    shutil.copytree(root / name, target)
    if change:
        data = json.loads((target / "shard.json").read_text(encoding="utf-8"))
        change(data)
        (target / "shard.json").write_text(json.dumps(data), encoding="utf-8")
    return target


@pytest.mark.slow
def test_a_missing_or_repeated_shard_is_refused(runs, capsys, tmp_path):
    root = runs["root"]
    code, err = _merge(root / "s1", "--out", tmp_path / "m1", capsys=capsys)
    assert code == 2 and "shard(s) 2/2 missing" in err
    again = _copy(root, "s1", "s1-again")
    code, err = _merge(root / "s1", again, root / "s2", "--out", tmp_path / "m2", capsys=capsys)
    assert code == 2 and "shard 1/2 is given 2 times" in err and "s1-again" in err
    code, err = _merge(root / "whole", root / "s2", "--out", tmp_path / "m3", capsys=capsys)
    assert code == 2 and "holds no shard.json" in err
    assert not any((tmp_path / m).exists() for m in ("m1", "m2", "m3"))


@pytest.mark.slow
@pytest.mark.parametrize(
    ("key", "change", "said"),
    [
        ("release", lambda d: d["release"].update(digest="0" * 64), "differ in the course release"),
        ("settings", lambda d: d["settings"].update(cell_timeout=5.0), "differ in the settings: cell_timeout: 60.0 against 5.0"),
        ("folder", lambda d: d["folder"].append(["zoe", "zoe.ipynb"]), "differ in the submissions folder"),
        ("split", lambda d: d.update(shard=[2, 3]), "different numbers of shards"),
    ],
)
def test_shards_of_another_release_settings_or_folder_are_refused(runs, capsys, tmp_path, key, change, said):
    """Edited copies of a real shard: a second course release cannot be made here without changing the course."""
    root = runs["root"]
    other = _copy(root, "s2", f"s2-{key}", change)
    code, err = _merge(root / "s1", other, "--out", tmp_path / "m", capsys=capsys)
    assert code == 2 and said in err, err


@pytest.mark.slow
def test_a_shard_of_another_set_is_refused(runs, capsys, tmp_path):
    """A real shard 2/2 of exercise 09, of a folder whose one file is not a notebook (so no kernel starts)."""
    folder = tmp_path / "nine"
    folder.mkdir()
    (folder / "bea.ipynb").write_text("not a notebook", encoding="utf-8")
    assert shard_of("bea", 2) == 2
    assert main(["09", str(folder), "--out", str(tmp_path / "s2-09"), "--shard", "2/2", *ARGS]) == 0
    code, err = _merge(runs["root"] / "s1", tmp_path / "s2-09", "--out", tmp_path / "m", capsys=capsys)
    assert code == 2 and "differ in the exercise notebook (set)" in err and "09_" in err and "01_device_query" in err


@pytest.mark.parametrize("bad", ["0/2", "3/2", "x", "2", "1/0", "-1/2", "1/2/3"])
def test_a_bad_shard_is_a_usage_error_saying_what_to_give(bad, capsys, tmp_path):
    with pytest.raises(SystemExit) as stop:
        main(["01", str(tmp_path), "--shard", bad])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "--shard" in err and ("K/N" in err or "1 to N" in err), err


def test_a_submission_keeps_its_shard_when_others_are_added():
    names = [f"learner{k:03d}" for k in range(60)]
    subs = [Submission(n, f"{n}.ipynb", n, None) for n in names]
    before = {s.learner: k for k in (1, 2, 3) for s in select(subs, (k, 3))[0]}
    assert sorted(before) == sorted(names) and set(before.values()) == {1, 2, 3}
    late = [Submission("aaa-late", "aaa-late.ipynb", "aaa-late", None), *subs]  # sorts first in the folder
    after = {s.learner: k for k in (1, 2, 3) for s in select(late, (k, 3))[0]}
    assert all(after[n] == before[n] for n in names)


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("{", "cannot be read"),
        ('{"format": 99}', "not a shard file of format 1"),
        ('{"format": 1, "shard": [1, 2]}', "missing: folder, exercise"),
        ('{"format": 1, "shard": "1/2", "folder": [], "exercise": {}, "release": {}, "settings": {}, "batch": {}, "rows": []}', "shard: 1/2"),
    ],
)
def test_a_file_that_is_not_a_whole_shard_is_refused(text, said, tmp_path, capsys):
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "shard.json").write_text(text, encoding="utf-8")
    code, err = _merge(tmp_path / "s", "--out", tmp_path / "m", capsys=capsys)
    assert code == 2 and said in err, err
