"""A batch starts from what the course released (issue 39, item 2), and the instructor's own work is no change.

``course-grade`` compares the course's package with the checkout's committed tree (or the installed
distribution's RECORD) before any kernel starts, and refuses to grade on a difference. The
attack: an unsandboxed batch in which a submission writes a backdoor into ``checks/nb09.py``
(flagged in that batch); every later batch used to judge with it and call the checkout unchanged.

The checkouts here are clones made for the test (a git repository holding a copy of the package):
changing the real checkout's files would change every other test run on this machine.
"""

from __future__ import annotations

import base64
import csv
import hashlib
import importlib.util
import marshal
import os
import shutil
import subprocess
import sys
import time
from importlib import metadata
from pathlib import Path

import pytest
from grading_fixtures import ANSWERS, cells, exercise_notebook, notebook, write
from notebook_runner import ROOT

import course_grader.batch as batch
from course_grader import BatchSettings, Limits, grade_batch, main
from course_grader.environment import EDITOR_FILES, Watch, git_internals
from course_grader.manifest import ModifiedCourse, _against_record, _bytecode, git_blob_hash, verify_imported, verify_package

BACKDOOR = "\n# course-grade test: a backdoor an earlier batch's submission left here\nPASSWORD = 'open sesame'\n"


def _git(where: Path, *args: str) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.org",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.org",
    }
    return subprocess.run(["git", "-C", str(where), *args], check=True, capture_output=True, text=True, env=env).stdout


def _clone(tmp_path: Path) -> Path:
    """A checkout of the course holding the package as this one has it, committed: its src/course_utils."""
    checkout = tmp_path / "course"
    (checkout / "src").mkdir(parents=True)
    shutil.copy(ROOT / "pyproject.toml", checkout / "pyproject.toml")
    shutil.copytree(ROOT / "src" / "course_utils", checkout / "src" / "course_utils", ignore=shutil.ignore_patterns("__pycache__"))
    _git(checkout, "init", "-q")
    _git(checkout, "add", "-A")
    _git(checkout, "commit", "-q", "-m", "the course as released")
    return checkout / "src" / "course_utils"


# --------------------------------------------------------------------------- fast: the pieces


def test_the_blob_hash_is_gits(tmp_path):
    path = tmp_path / "x.py"
    path.write_bytes(b"print('hi')\n\x00binary too\n")
    assert git_blob_hash(path) == subprocess.run(["git", "hash-object", str(path)], check=True, capture_output=True, text=True).stdout.strip()


def test_a_changed_a_planted_and_a_deleted_file_are_named(tmp_path):
    package = _clone(tmp_path)
    clean = verify_package(package)
    assert clean.clean and clean.source.startswith("git commit ") and clean.files > 50, clean
    with open(package / "checks" / "nb09.py", "a", encoding="utf-8") as handle:
        handle.write(BACKDOOR)
    (package / "checks" / "nb99.py").write_text("PLANTED = True\n", encoding="utf-8")
    (package / "checks" / "answers.py").unlink()
    found = verify_package(package)
    assert set(found.mismatches) == {
        f"changed: {package / 'checks' / 'nb09.py'}",
        f"not in the commit: {package / 'checks' / 'nb99.py'}",
        f"missing: {package / 'checks' / 'answers.py'}",
    }, found
    assert "nb09.py" in str(found) and str(found).startswith("the course's code differs from git commit")


def test_a_committed_change_moves_the_commit_the_batch_names(tmp_path):
    package = _clone(tmp_path)
    first = verify_package(package).source
    (package / "checks" / "nb09.py").write_text(BACKDOOR, encoding="utf-8")
    _git(package, "commit", "-q", "-am", "not the instructor's")
    second = verify_package(package)
    assert second.clean and second.source != first, "the summary then names a commit the instructor did not make"


def test_an_installed_copy_is_compared_with_its_record(tmp_path):
    """A wheel install has no git: its RECORD (sha256 per file) is the manifest."""
    site = tmp_path / "site-packages"
    shutil.copytree(ROOT / "src" / "course_utils", site / "course_utils", ignore=shutil.ignore_patterns("__pycache__"))
    info = site / "course_utils-0.1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: course-utils\nVersion: 0.1.0\n", encoding="utf-8")
    rows = []
    for path in sorted((site / "course_utils").rglob("*")):
        if path.is_file():
            digest = base64.urlsafe_b64encode(hashlib.sha256(path.read_bytes()).digest()).rstrip(b"=").decode()
            rows.append([str(path.relative_to(site)), f"sha256={digest}", str(path.stat().st_size)])
    rows.append([f"{info.name}/RECORD", "", ""])
    with open(info / "RECORD", "w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows(rows)
    dist = metadata.PathDistribution(info)
    package = (site / "course_utils").resolve()
    assert _against_record(package, dist).clean
    with open(package / "checks" / "nb09.py", "a", encoding="utf-8") as handle:
        handle.write(BACKDOOR)
    found = _against_record(package, dist)
    assert found.mismatches == (f"changed: {package / 'checks' / 'nb09.py'}",) and "RECORD of course-utils" in str(found)


def test_bytecode_planted_beside_an_unchanged_source_is_named(tmp_path):
    """Python loads a .pyc whose header matches the source's size and time without reading the source."""
    source = tmp_path / "nb09.py"
    source.write_text("def judge():\n    return 'honest'\n", encoding="utf-8")
    cached = Path(importlib.util.cache_from_source(str(source)))
    cached.parent.mkdir()
    st = source.stat()
    header = (
        importlib.util.MAGIC_NUMBER
        + (0).to_bytes(4, "little")
        + int(st.st_mtime).to_bytes(4, "little")
        + (st.st_size & 0xFFFFFFFF).to_bytes(4, "little")
    )
    cached.write_bytes(header + marshal.dumps(compile(source.read_text(), str(source), "exec", dont_inherit=True)))
    assert _bytecode(source, None) == "", "the honest bytecode matches its source"
    evil = compile("def judge():\n    return 'backdoor'\n", str(source), "exec", dont_inherit=True)
    cached.write_bytes(header + marshal.dumps(evil))
    sys.path.insert(0, str(tmp_path))
    try:
        assert importlib.import_module("nb09").judge() == "backdoor", "Python ran the planted bytecode"
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("nb09", None)
    assert _bytecode(source, None) == f"bytecode that is not its source's: {cached}"


def test_what_this_process_imported_matches_its_distributions():
    compared, mismatches = verify_imported()
    assert compared > 100 and mismatches == [], mismatches


def test_git_status_and_editor_swap_files_are_no_change_but_a_commit_is(tmp_path):
    package = _clone(tmp_path)
    checkout = package.parent.parent
    index = checkout / ".git" / "index"
    before = index.stat().st_mtime_ns
    time.sleep(0.02)
    os.utime(package / "checks" / "nb01.py")  # stale stat data: `git status` rewrites the index
    watch = Watch([checkout], skip=git_internals(checkout))
    _git(checkout, "status", "--porcelain")
    assert index.stat().st_mtime_ns != before, "git status did rewrite .git/index"
    for name in (".nb09.py.swp", "4913", "nb09.py~", "#nb09.py#", ".#nb09.py"):
        (package / "checks" / name).write_text("x", encoding="utf-8")
        assert EDITOR_FILES.search(name)
    assert watch.look(lambda: ["ada"]) is None
    (package / "checks" / "nb09.py").write_text(BACKDOOR, encoding="utf-8")
    _git(checkout, "commit", "-q", "-am", "a commit made during the batch")
    change = watch.look(lambda: ["mallory"])
    assert change is not None and f"changed: {package / 'checks' / 'nb09.py'}" in change.paths
    assert any("/.git/refs/heads" in p or p.endswith("/.git/HEAD") for p in change.paths), change.paths


def test_importable_names_are_never_taken_for_editor_files():
    for name in ("nb09.py", "zz-evil.pth", "_core.py", "__init__.py", "a.swp.py", "x.so", "torch"):
        assert not EDITOR_FILES.search(name), name


# --------------------------------------------------------------------------- slow: whole batches


def _grade_cli(tmp_path: Path, name: str, *extra: str) -> int:
    exercise = exercise_notebook(tmp_path / "exercises")
    return main(
        [
            str(exercise),
            str(tmp_path / "submitted"),
            "--out",
            str(tmp_path / name),
            "--jobs",
            "1",
            "--sandbox",
            "off",
            "--quiet",
            "--cell-timeout",
            "60",
            "--timeout",
            "240",
            *extra,
        ]
    )


@pytest.mark.slow
def test_a_backdoor_left_by_an_earlier_batch_makes_the_next_one_refuse(tmp_path, monkeypatch, capsys):
    """Batch 1, without the sandbox: mallory writes into checks/nb09.py (flagged). Batch 2 refuses, naming it."""
    package = _clone(tmp_path)
    checkout = package.parent.parent
    monkeypatch.setattr(batch, "verify_package", lambda package_=None: verify_package(package))
    monkeypatch.setattr(batch, "python_trees", lambda: [checkout])
    monkeypatch.setattr(batch, "busy_folders", lambda: git_internals(checkout))
    (tmp_path / "submitted").mkdir()
    target = package / "checks" / "nb09.py"
    plant = f"open({str(target)!r}, 'a').write({BACKDOOR!r})"
    write(tmp_path / "submitted" / "mallory.ipynb", notebook(cells(ANSWERS["double"], ANSWERS["greet"], extra={1: plant})))
    assert _grade_cli(tmp_path, "first") == 1
    assert f"changed: {target}" in (tmp_path / "first" / "summary.txt").read_text(encoding="utf-8")
    capsys.readouterr()

    with pytest.raises(SystemExit) as refused:
        _grade_cli(tmp_path, "second")
    assert refused.value.code == 2
    said = capsys.readouterr().err
    assert "refusing to grade" in said and f"changed: {target}" in said and "--allow-modified-course" in said
    assert not (tmp_path / "second" / "grades.csv").exists()

    assert _grade_cli(tmp_path, "third", "--allow-modified-course") == 1
    grades = (tmp_path / "third" / "grades.csv").read_text(encoding="utf-8")
    assert "graded with a modified course" in grades and "nb09.py" in grades
    summary = (tmp_path / "third" / "summary.txt").read_text(encoding="utf-8")
    assert "before grading: the course's code differs from git commit" in summary


@pytest.mark.slow
def test_git_status_and_an_editors_swap_file_during_a_batch_flag_nothing(tmp_path, monkeypatch):
    package = _clone(tmp_path)
    checkout = package.parent.parent
    monkeypatch.setattr(batch, "verify_package", lambda package_=None: verify_package(package))
    monkeypatch.setattr(batch, "python_trees", lambda: [checkout])
    monkeypatch.setattr(batch, "busy_folders", lambda: git_internals(checkout))
    os.utime(package / "checks" / "nb01.py")  # stale stat data: the `git status` below rewrites the index
    index = checkout / ".git" / "index"
    rewritten = []

    def instructor_works(done, total, row):  # after the first row, before the second submission's look
        if done == 1:
            before = index.stat().st_mtime_ns
            _git(checkout, "status", "--porcelain")
            rewritten.append(index.stat().st_mtime_ns != before)
            (package / "checks" / ".nb09.py.swp").write_bytes(b"vim was here")
            (package / "checks" / "nb09.py~").write_bytes(b"a backup")

    (tmp_path / "submitted").mkdir()
    for learner in ("ada", "bob", "cy"):
        write(tmp_path / "submitted" / f"{learner}.ipynb", notebook(cells(ANSWERS["double"], ANSWERS["greet"])))
    result = grade_batch(
        exercise_notebook(tmp_path / "exercises"),
        tmp_path / "submitted",
        BatchSettings(jobs=1, limits=Limits(cell_timeout=60, total_timeout=240), sandbox="off"),
        progress=instructor_works,
    )
    assert rewritten == [True], "git status rewrote .git/index during the batch"
    assert result.changed_files == (), result.changed_files
    assert all(not r.flags and r.passed_count == 2 for r in result.rows), result.rows
    assert result.verified.startswith("verified: the course's code matches git commit")


def test_a_batch_in_a_modified_checkout_refuses_before_any_kernel(tmp_path, monkeypatch):
    package = _clone(tmp_path)
    (package / "checks" / "nb09.py").write_text(BACKDOOR, encoding="utf-8")
    monkeypatch.setattr(batch, "verify_package", lambda package_=None: verify_package(package))
    started = []
    monkeypatch.setattr(batch, "grade_one", lambda *a, **k: started.append(1))
    (tmp_path / "submitted").mkdir()
    write(tmp_path / "submitted" / "ada.ipynb", notebook(cells()))
    with pytest.raises(ModifiedCourse, match=r"refusing to grade: .*changed: .*nb09\.py"):
        grade_batch(exercise_notebook(tmp_path / "exercises"), tmp_path / "submitted", BatchSettings(jobs=1, sandbox="off"))
    assert started == []
