"""What a submission can reach beyond its answers (issue 25, attacks 6 and 7): the checkout, the environment.

Attack 6: a kernel that finds the course checkout from ``course_utils.__file__`` can copy
``solutions/``. The grader gives every kernel a staged copy of the package outside the checkout,
and the sandbox hides every checkout wherever it lies. Attack 7: without the sandbox, a
submission that plants a ``.pth`` in site-packages (or edits any file of the checkout, the venv or
another submission) changes what later kernels run; the grader looks after each submission, names
the change, flags every row graded after it as not trustworthy, and exits 1.

The planted ``.pth`` goes into a stand-in site-packages folder that the watch is told to include:
planting one in the real venv would change every other test run on this machine.
"""

from __future__ import annotations

import ast
import errno
import importlib.machinery
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from grading_fixtures import ANSWERS, cells, exercise_notebook, machine_sandbox, notebook, sandbox_mark, write
from notebook_runner import ROOT

import course_grader.batch as batch
from course_grader import BatchSettings, Limits, grade_batch, main
from course_grader.bubblewrap import bwrap_argv, course_checkouts
from course_grader.environment import (
    Watch,
    busy_folders,
    checkout_of,
    differences,
    loose_folders,
    python_trees,
    snapshot,
)
from course_grader.sandbox import kernel_env, make_scratch, stage_package

SANDBOX = machine_sandbox()
needs_sandbox = sandbox_mark()

# The learner copies the answer from solutions/ when it can find the checkout: g.1 passes only then.
FIND_THE_CHECKOUT = """import pathlib, sys
import course_utils

def _solutions(extra=()):
    starts = [pathlib.Path(course_utils.__file__).resolve(), *(pathlib.Path(p) for p in extra)]
    for start in starts:
        for folder in (start, *start.parents):
            if (folder / "solutions" / "01_device_query_exercises.py").is_file():
                return folder / "solutions"
    return None

FOUND = _solutions({extra})
print("found:", FOUND)

def double(x):
    return 2 * x if FOUND is not None else -1
"""


def _finder(extra: str = "()") -> list[str]:
    code = cells(None, ANSWERS["greet"])
    code[1] = FIND_THE_CHECKOUT.format(extra=extra)  # in place of double's stub
    return code


def _grade(root: Path, sandbox: str, jobs: int = 1):
    exercise = exercise_notebook(root / "exercises")
    # The sandbox's kernel sockets live in the scratch folder, and a socket's path has a length limit
    # (bubblewrap.SOCKET_PATH_MAX) that pytest's long tmp_path (under xdist, longer still) can pass.
    scratch = Path(tempfile.mkdtemp(prefix="cg-", dir="/tmp")) if sandbox != "off" else root
    saved, tempfile.tempdir = tempfile.tempdir, str(scratch)
    try:
        return grade_batch(
            exercise, root / "submitted", BatchSettings(jobs=jobs, limits=Limits(cell_timeout=30, total_timeout=120), sandbox=sandbox)
        )
    finally:
        tempfile.tempdir = saved
        if scratch != root:
            shutil.rmtree(scratch, ignore_errors=True)


# --------------------------------------------------------------------------- fast: the pieces


def test_the_staged_package_is_outside_every_checkout_and_first_on_the_path(tmp_path):
    package = stage_package(tmp_path)
    assert (package / "course_utils" / "checks" / "nb01.py").is_file()
    # the kernel answers the judge with course_grader.boundary.open_channel: the grader's package is staged too
    assert (package / "course_grader" / "boundary.py").is_file() and not (package / "course_authoring").exists()
    assert not (package / "solutions").exists() and checkout_of(str(package / "course_utils" / "__init__.py")) is None
    assert list((package / "course_utils" / "checks" / "__pycache__").glob("nb01.*.pyc")), "compiled once, here"
    assert not os.access(package / "course_utils" / "checks" / "nb01.py", os.W_OK) or os.geteuid() == 0
    env = kernel_env(make_scratch(tmp_path, "x"), package=package)
    first, *rest = env["PYTHONPATH"].split(os.pathsep)
    assert first == str(package)
    assert not any((Path(p) / "course_utils").exists() for p in rest)


def test_the_sandbox_binds_only_the_system_the_environment_and_the_package(tmp_path):
    """Issue 38, item 4: an allow-list. Nothing is bound whole; no bound folder holds a checkout, a home
    folder or the temporary folder; the staged package and the learner's own folder are there."""
    package = stage_package(tmp_path)
    own = tmp_path / "learner" / "own"
    argv = bwrap_argv("bwrap", own, own / "work", tmp_path, package)
    here = checkout_of(__file__)
    assert here is not None and here in course_checkouts()
    bound = [Path(argv[i + 2]) for i, a in enumerate(argv) if a in ("--ro-bind", "--bind")]
    assert Path("/") not in bound and "--tmpfs" in argv and argv[argv.index("--tmpfs") + 1] == "/tmp"
    assert package.resolve() in bound and own.resolve() in bound
    shut = [
        here,
        here / "solutions",
        here / "src",
        Path.home().resolve(),
        Path("/home"),
        Path(tempfile.gettempdir()).resolve(),
        tmp_path.resolve(),
    ]
    for path in bound:
        holds = [s for s in shut if s == path or s.is_relative_to(path)]
        assert not holds, f"{path} is bound, and it holds {holds}"
    assert not any((path / "solutions").exists() for path in bound)


def test_the_handover_folder_is_bound_read_only_at_its_own_path(tmp_path):
    """Where the judge writes what a check hands over (issue 33): the kernel reads it at the judge's path."""
    scratch = make_scratch(tmp_path, "learner")
    argv = bwrap_argv("bwrap", scratch.own, scratch.work, tmp_path, None, scratch.handover)
    own, root, handover = (str(p.resolve()) for p in (scratch.own, scratch.root, scratch.handover))
    at = argv.index("--bind")
    assert argv[at : at + 3] == ["--bind", own, own]
    # the scratch folder, inside it, bound onto itself: a mount point the kernel cannot rename away (the probe of
    # 2026-12-06: a link in its place led the grader's own opens outside the sandbox)
    assert argv[at + 3 : at + 6] == ["--bind", root, root] and root.startswith(own + "/")
    assert argv.count("--bind") == 2, "nothing else becomes writable"
    assert argv[at + 6 : at + 9] == ["--ro-bind", handover, handover], "read-only, over the writable folder"
    with pytest.raises(ValueError, match="inside the submission's own folder"):
        bwrap_argv("bwrap", scratch.own, scratch.work, tmp_path, None, tmp_path / "elsewhere")


def test_a_planted_file_is_named_and_a_touched_one_too(tmp_path):
    site = tmp_path / "site-packages"
    (site / "pkg").mkdir(parents=True)
    (site / "pkg" / "mod.py").write_text("x = 1\n")
    watch = Watch([site])
    assert watch.look(lambda: ["nobody"]) is None
    (site / "zz-evil.pth").write_text("import os\n")
    change = watch.look(lambda: ["mallory"])
    assert change is not None and change.paths == (f"new: {site / 'zz-evil.pth'}",)
    assert "while grading mallory" in str(change)
    before = snapshot([site])
    (site / "pkg" / "mod.py").write_text("x = 2\n")  # same size: the change time still tells
    assert differences(before, snapshot([site])) == [f"changed: {site / 'pkg' / 'mod.py'}"]


def test_a_log_at_the_checkouts_top_is_no_change_but_anything_python_loads_is(tmp_path):
    """The instructor's ``course-grade ... > grading.log`` in the checkout is their own work (issue 39, item 2):
    in the checkout's top folder only what Python can load by name is watched; below it, everything."""
    checkout = tmp_path / "checkout"
    (checkout / "src" / "course_utils").mkdir(parents=True)
    (checkout / "README.md").write_text("# course\n")
    watch = Watch([checkout], loose=[checkout])
    (checkout / "grading.log").write_text("graded 30\n")
    (checkout / "README.md").write_text("# course, edited\n")
    assert watch.look(list) is None
    planted = ["evil.py", "evil.pth", f"evil{importlib.machinery.EXTENSION_SUFFIXES[0]}", "evil.pyc", "evil.zip"]
    for name in planted:
        (checkout / name).write_text("import os\n")
    (checkout / "evil").mkdir()
    (checkout / "linked").symlink_to(checkout / "src" / "course_utils")  # a package by another name
    (checkout / "src" / "course_utils" / "notes.txt").write_text("below the top: watched\n")
    change = watch.look(lambda: ["mallory"])
    assert change is not None and set(change.paths) == {
        *(f"new: {checkout / n}" for n in planted),
        f"new: {checkout / 'evil'}",
        f"new: {checkout / 'linked'}",
        f"new: {checkout / 'src' / 'course_utils' / 'notes.txt'}",
    }, change.paths
    assert [p.resolve() for p in loose_folders()] == [ROOT.resolve()]


def test_the_watch_never_takes_in_the_temporary_folder_and_skips_busy_ones(tmp_path, monkeypatch):
    """A grader started from /tmp has it on sys.path; scratch folders and other programs change there all the time."""
    monkeypatch.syspath_prepend(tempfile.gettempdir())
    temp = Path(tempfile.gettempdir()).resolve()
    assert not any(temp.is_relative_to(tree) for tree in python_trees())
    trees = python_trees()
    prefix = Path(sys.prefix).resolve()  # the venv: a tree of its own, or inside the checkout (.venv)
    assert checkout_of(__file__) in trees and any(prefix == t or prefix.is_relative_to(t) for t in trees)
    (tmp_path / "runtime").mkdir()
    watch = Watch([tmp_path], skip=[tmp_path / "runtime"])
    (tmp_path / "runtime" / "kernel-1.json").write_text("{}")
    assert watch.look(list) is None
    assert any(p.name == "runtime" for p in busy_folders())


# --------------------------------------------------------------------------- slow: whole batches


@pytest.mark.slow
def test_a_planted_pth_is_named_and_every_later_row_is_not_trustworthy(tmp_path, monkeypatch, capsys):
    """Attack 7 without the sandbox: mallory plants a .pth; bob, graded after her, is flagged; exit status 1."""
    site = tmp_path / "venv-site-packages"
    site.mkdir()
    monkeypatch.setattr(batch, "python_trees", lambda: [site])
    submitted = tmp_path / "submitted"
    submitted.mkdir()
    write(submitted / "ada.ipynb", notebook(cells(ANSWERS["double"], ANSWERS["greet"])))
    plant = f"open({str(site / 'zz-course.pth')!r}, 'w').write('import builtins\\n')"
    write(submitted / "mallory.ipynb", notebook(cells(ANSWERS["double"], ANSWERS["greet"], extra={1: plant})))
    write(submitted / "zoe.ipynb", notebook(cells(ANSWERS["double"], ANSWERS["greet"])))
    exercise = exercise_notebook(tmp_path / "exercises")
    code = main([str(exercise), str(submitted), "--out", str(tmp_path / "out"), "--jobs", "1", "--sandbox", "off", "--quiet"])
    assert code == 1
    summary = (tmp_path / "out" / "summary.txt").read_text(encoding="utf-8")
    assert f"new: {site / 'zz-course.pth'}" in summary and "while grading mallory" in summary
    grades = (tmp_path / "out" / "grades.csv").read_text(encoding="utf-8")
    rows = {line.split(",")[0]: line for line in grades.splitlines()[1:]}
    assert "not trustworthy" not in rows["ada"]
    assert "not trustworthy" in rows["mallory"] and "not trustworthy" in rows["zoe"]
    assert "zz-course.pth" in rows["zoe"]


@pytest.mark.slow
def test_without_the_sandbox_the_kernel_does_not_find_the_checkout_from_the_package(tmp_path):
    """Attack 6 without the sandbox: course_utils.__file__ leads to the staged copy, not to solutions/."""
    (tmp_path / "submitted").mkdir()
    write(tmp_path / "submitted" / "cat.ipynb", notebook(_finder()))
    result = _grade(tmp_path, "off")
    [row] = result.rows
    assert [g.status for g in row.grades] == ["fail", "pass"], row
    assert result.changed_files == (), "a clean batch changes nothing the watch looks at"


@pytest.mark.slow
@needs_sandbox
def test_the_sandbox_hides_solutions_wherever_the_checkout_lies(tmp_path):
    """Attack 6 under the sandbox: not from the package, not from sys.path, not by the checkout's own path."""
    if ROOT.resolve().is_relative_to(Path(tempfile.gettempdir()).resolve()):
        pytest.skip(
            "this checkout lies under the temporary folder, which the sandbox hides whole; the case this "
            "test is for, a checkout elsewhere, needs a clone outside it"
        )
    extra = repr(
        [*filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep)), str(ROOT), str(ROOT / "src"), *(str(c) for c in course_checkouts())]
    )
    (tmp_path / "submitted").mkdir()
    write(tmp_path / "submitted" / "cat.ipynb", notebook(_finder("__import__('sys').path + " + extra)))
    result = _grade(tmp_path, "require")
    [row] = result.rows
    assert [g.status for g in row.grades] == ["fail", "pass"], row
    assert result.changed_files == ()


@pytest.mark.slow
@needs_sandbox
def test_solutions_planted_in_the_instructors_folders_cannot_be_read(tmp_path):
    """Issue 38, item 4: copies of ``solutions/`` in the instructor's home folder and beside the checkout
    (where the earlier read-only ``/`` showed them) are not there for a kernel; the solved copy in the
    same batch keeps full marks."""
    planted = []
    for parent in (Path.home(), ROOT.parent):
        folder = parent / f".cg-planted-{os.getpid()}"
        try:
            (folder / "solutions").mkdir(parents=True)
        except OSError as exc:
            pytest.skip(f"cannot plant a copy of solutions/ in {parent}: {exc}")
        shutil.copy(ROOT / "solutions" / "01_device_query_exercises.py", folder / "solutions")
        planted.append(folder)
    try:
        (tmp_path / "submitted").mkdir()
        extra = repr([str(p) for p in (*planted, ROOT, Path.home())])
        write(tmp_path / "submitted" / "finder.ipynb", notebook(_finder(extra)))
        write(tmp_path / "submitted" / "solved.ipynb", notebook(cells(ANSWERS["double"], ANSWERS["greet"])))
        result = _grade(tmp_path, "require", jobs=2)
    finally:
        for folder in planted:
            shutil.rmtree(folder, ignore_errors=True)
    rows = {row.submission.learner: row for row in result.rows}
    assert [g.status for g in rows["finder"].grades] == ["fail", "pass"], rows["finder"]
    assert rows["solved"].passed_count == 2, rows["solved"]
    assert result.changed_files == ()


@pytest.mark.slow  # a child Python under bubblewrap
@needs_sandbox
def test_a_sandboxed_kernel_reads_what_is_handed_over_and_nothing_of_the_judges():
    """The kernel reads the handover folder at the judge's path, cannot write there, and sees neither the
    judge's temporary folder nor the rest of the batch's."""
    root = Path(tempfile.mkdtemp(prefix="cg-", dir="/tmp"))  # a batch folder, under the /tmp the sandbox hides
    judges = Path(tempfile.mkdtemp(prefix="cg-judge-", dir="/tmp"))
    try:
        scratch = make_scratch(root, "learner")
        (scratch.handover / "ckpt.pt").write_bytes(b"weights")
        (judges / "ckpt.pt").write_bytes(b"the judge's")
        (root / "other.pt").write_bytes(b"another learner's")
        code = (
            f"import pathlib\nprint(pathlib.Path({str(scratch.handover / 'ckpt.pt')!r}).read_bytes())\n"
            f"print([pathlib.Path(p).exists() for p in ({str(judges / 'ckpt.pt')!r}, {str(root / 'other.pt')!r})])\n"
            f"try:\n    pathlib.Path({str(scratch.handover / 'planted')!r}).write_text('x')\n    print('wrote')\n"
            "except OSError as exc:\n    print(exc.errno)\n"
            f"pathlib.Path({str(scratch.work / 'mine')!r}).write_text('x')\n"
        )
        argv = bwrap_argv(SANDBOX.bwrap, scratch.own, scratch.work, root, None, scratch.handover)
        done = subprocess.run([*argv, sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        assert done.stdout.split("\n")[:3] == ["b'weights'", "[False, False]", str(errno.EROFS)], done.stdout
        assert (scratch.work / "mine").is_file() and not (scratch.handover / "planted").exists()
    finally:
        shutil.rmtree(root, ignore_errors=True)
        shutil.rmtree(judges, ignore_errors=True)


@pytest.mark.slow
def test_importing_the_answer_from_the_course_earns_nothing(tmp_path):
    """Attack 5, as the issue ran it: the course's own reference implementation as the answer to 01.2."""
    import nbformat

    exercise = ROOT / "exercises" / "01_device_query_exercises.ipynb"
    nb = nbformat.read(exercise, as_version=4)
    stub = next(c for c in nb.cells if c.cell_type == "code" and "def visible_gpus" in c.source)
    stub.source = (
        "try:\n    from course_utils.checks.nb01 import visible_gpus_reference as visible_gpus\n"
        "except ImportError:  # then the course's answer, wherever the package can find one\n"
        "    from course_utils.checks import answers\n    found = {}\n"
        "    exec(answers.course_answer('01.2', 'visible_gpus') or 'visible_gpus = None', found)\n"
        "    visible_gpus = found['visible_gpus']\n"
    )
    (tmp_path / "submitted").mkdir()
    nbformat.write(nb, tmp_path / "submitted" / "eve.ipynb")
    saved, tempfile.tempdir = tempfile.tempdir, str(tmp_path)
    try:
        result = grade_batch(
            exercise, tmp_path / "submitted", BatchSettings(jobs=1, limits=Limits(cell_timeout=60, total_timeout=300), sandbox="off")
        )
    finally:
        tempfile.tempdir = saved
    [row] = result.rows
    assert {g.exercise: g.status for g in row.grades}["01.2"] != "pass", row
    assert row.passed_count == 0, row


@pytest.mark.slow  # a child Python
def test_the_judge_is_loaded_before_any_kernel_and_build_outputs_are_not_watched():
    """Lazy checks would be read (and compiled into the checkout) after learner code ran: the batch loads them first."""
    code = (
        "import sys; from course_grader.batch import _load_the_judge; _load_the_judge(); "
        "print(sorted(m for m in sys.modules if m.startswith('course_utils.checks.nb')))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT / "src")}
    )
    assert done.returncode == 0, done.stderr
    loaded = ast.literal_eval(done.stdout)  # a list of module names
    assert len(loaded) == len(list((ROOT / "src" / "course_utils" / "checks").glob("nb[0-9][0-9].py"))) > 0, loaded
    skipped = {p.name for p in busy_folders() if p.parent == checkout_of(__file__)}
    assert {"build", "artifacts", "workspace", ".ruff_cache", ".grimp_cache", ".pytest_cache"} <= skipped
    assert ".venv" not in skipped and "src" not in skipped


def test_an_output_folder_that_appears_during_the_batch_is_no_change(tmp_path):
    """A fresh clone has no build/ until the tests make one, mid-batch: its parent's times change, nothing else."""
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "mod.py").write_text("x = 1\n")
    watch = Watch([tmp_path], skip=[tmp_path / "build"])
    (tmp_path / "build" / "executed").mkdir(parents=True)
    (tmp_path / "build" / "executed" / "07.ipynb").write_text("{}")
    assert watch.look(lambda: ["nobody"]) is None
    (tmp_path / "src" / "evil.pth").write_text("import os\n")
    change = watch.look(lambda: ["mallory"])
    assert change is not None and change.paths == (f"new: {tmp_path / 'src' / 'evil.pth'}",)
