"""The environment: conda and pip ask for the same packages, `make lab` installs only what a learner
needs, and the learner's workspace is theirs (no make target overwrites it, no test reads it)."""

import json
import re
import shutil
import subprocess
import sys

try:
    import tomllib
except ImportError:  # Python 3.10: the same parser, as pip vendors it
    from pip._vendor import tomli as tomllib
from pathlib import Path

import nbformat
import pytest
import yaml

from course_authoring import workspace as ws

ROOT = Path(__file__).resolve().parents[1]


def _normalise(req: str) -> str:
    name, spec = re.match(r"^\s*([A-Za-z0-9_.\-]+)\s*(.*)$", req).groups()
    return re.sub(r"[-_.]+", "-", name).lower() + spec.replace(" ", "")


def test_conda_environment_matches_pyproject():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = {_normalise(r) for r in project["dependencies"] + project["optional-dependencies"]["test"]}
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    pip_lists = [d["pip"] for d in env["dependencies"] if isinstance(d, dict) and "pip" in d]
    assert len(pip_lists) == 1, "environment.yml should have exactly one pip: list"
    listed = {_normalise(r) for r in pip_lists[0] if not r.startswith("-e")}
    assert listed == wanted, f"only in environment.yml: {sorted(listed - wanted)}; only in pyproject.toml: {sorted(wanted - listed)}"
    assert "-e ." in pip_lists[0], "environment.yml must install the course package itself (-e .)"


# ----------------------------------------------------------------- extras and make targets

TEST_TOOLS = {"pytest", "nbval", "pytest-xdist", "playwright", "pyyaml"}


def _names(reqs):
    return {_normalise(r).split(">")[0].split("=")[0].split("<")[0] for r in reqs}


def test_lab_extra_is_what_a_learner_needs_and_test_extra_holds_it():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    assert "jupyterlab" in _names(extras["lab"])
    assert not _names(extras["lab"]) & TEST_TOOLS, "make lab must not install the test tooling"
    assert not _names(project["dependencies"]) & (TEST_TOOLS | {"jupyterlab"}), (
        "the install cell on Colab/Kaggle installs the dependencies: no JupyterLab or test tools there"
    )
    assert set(extras["lab"]) <= set(extras["test"]), "make test after make lab must have everything make lab has"
    # `hf` is optional and small: accelerate alone, which `test` holds too so that nbval runs lesson 10's cells for real
    assert _names(extras["hf"]) == {"accelerate"}
    assert set(extras["hf"]) <= set(extras["test"]), "make test must run the cells make lab's accelerate runs"
    assert "accelerate" not in _names(project["dependencies"]), "accelerate is optional: an extra, not a dependency"
    assert TEST_TOOLS <= _names(extras["test"])


def _dry_run(*args, tmp_path):
    """What make would run (make -n), with a venv path that does not exist yet."""
    venv = tmp_path / "venv"
    done = subprocess.run(
        ["make", "-n", f"VENV={venv}", f"WORKSPACE={tmp_path / 'ws'}", *args], cwd=ROOT, capture_output=True, text=True, check=True
    )
    return done.stdout, venv


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_make_lab_installs_the_lab_extra_only_then_opens_the_workspace(tmp_path):
    out, venv = _dry_run("lab", tmp_path=tmp_path)
    # the learner's install: JupyterLab and Jupytext, and accelerate (optional, `hf`: lesson 10's device_map part)
    assert '-e ".[lab,hf]"' in out and ".[test]" not in out
    assert f"course_authoring.workspace --root . --workspace {tmp_path / 'ws'}" in out
    assert f"cd {tmp_path / 'ws'} && " in out and "jupyter lab" in out and "01_device_query.ipynb" in out
    # make lab's stamp does not stand for the test extras: make test installs them afterwards
    venv.mkdir()
    (venv / ".course-lab-installed").touch()
    out, _ = _dry_run("test", tmp_path=tmp_path)
    assert '-e ".[test]"' in out and "pytest" in out
    # ... and make test's stamp covers make lab (the test extras hold the lab extra)
    (venv / ".course-installed").touch()
    out, _ = _dry_run("lab", tmp_path=tmp_path)
    assert "pip install" not in out and "jupyter lab" in out


def test_the_suite_never_collects_the_workspace():
    options = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]
    assert "workspace" not in " ".join(options["testpaths"])
    assert "workspace" in options["norecursedirs"]
    assert "workspace/" in (ROOT / ".gitignore").read_text().splitlines()


# ----------------------------------------------------------------- the workspace


def _course(tmp_path):
    """A small course tree: two lessons, one exercise, one script."""
    root = tmp_path / "course"
    for folder in ("src/course_utils/scripts", "notebooks", "exercises"):
        (root / folder).mkdir(parents=True)
    for name in ("notebooks/01_a.ipynb", "notebooks/02_b.ipynb", "exercises/01_a_exercises.ipynb"):
        nb = nbformat.v4.new_notebook()
        nb.cells.append(nbformat.v4.new_markdown_cell(f"# {name}"))
        nbformat.write(nb, root / name)
    (root / "notebooks" / "01_a.py").write_text("# the .py twin: never copied\n")
    (root / "src" / "course_utils" / "scripts" / "job.py").write_text("print('job')\n")
    return root


def test_workspace_copies_notebooks_and_scripts_only(tmp_path):
    root = _course(tmp_path)
    steps = ws.sync(root, tmp_path / "ws")
    assert {s.name for s in steps if s.action == "copied"} == {"01_a.ipynb", "02_b.ipynb", "01_a_exercises.ipynb", "scripts/job.py"}
    listing = sorted(p.name for p in (tmp_path / "ws").iterdir() if not p.name.startswith("."))
    assert listing == ["01_a.ipynb", "01_a_exercises.ipynb", "02_b.ipynb", "scripts"]
    assert 'formats = "ipynb"' in (tmp_path / "ws" / ".jupytext.toml").read_text()


def test_workspace_never_overwrites_a_learners_file(tmp_path):
    root = _course(tmp_path)
    work = tmp_path / "ws"
    ws.sync(root, work)
    mine = work / "01_a_exercises.ipynb"
    mine.write_text(mine.read_text().replace("# exercises", "# my answers"))
    answers = mine.read_text()
    assert [s.action for s in ws.sync(root, work) if s.name == mine.name] == ["kept"]
    assert mine.read_text() == answers
    # The course changes the file: the learner's stays, the new one comes beside it, once.
    nb = nbformat.read(root / "exercises" / mine.name, as_version=4)
    nb.cells.append(nbformat.v4.new_markdown_cell("a new exercise"))
    nbformat.write(nb, root / "exercises" / mine.name)
    (step,) = [s for s in ws.sync(root, work) if s.name == mine.name]
    assert step.action == "updated-copy" and "01_a_exercises (updated).ipynb" in str(step)
    assert mine.read_text() == answers
    fresh = work / "01_a_exercises (updated).ipynb"
    assert "a new exercise" in fresh.read_text()
    assert [s.action for s in ws.sync(root, work) if s.name == mine.name] == ["kept"]
    # The learner works in the updated copy too; the course changes again: nothing is written.
    fresh.write_text(fresh.read_text().replace("a new exercise", "more answers"))
    nb.cells.append(nbformat.v4.new_markdown_cell("another"))
    nbformat.write(nb, root / "exercises" / mine.name)
    before = {p: p.read_bytes() for p in work.rglob("*") if p.is_file() and p.name != ws.MANIFEST}
    (step,) = [s for s in ws.sync(root, work) if s.name == mine.name]
    assert step.action == "update-waiting" and "cp " in step.detail and "(updated) (updated)" in step.detail
    assert {p: p.read_bytes() for p in work.rglob("*") if p.is_file() and p.name != ws.MANIFEST} == before


def test_workspace_recopies_only_a_deleted_file(tmp_path):
    root = _course(tmp_path)
    work = tmp_path / "ws"
    ws.sync(root, work)
    (work / "02_b.ipynb").unlink()
    steps = {s.name: s.action for s in ws.sync(root, work)}
    assert steps["02_b.ipynb"] == "copied" and steps["01_a.ipynb"] == "kept"


def test_workspace_outside_the_course_says_where_to_run(tmp_path):
    with pytest.raises(ValueError, match="Run this from the course's folder"):
        ws.sync(tmp_path, tmp_path / "ws")


@pytest.mark.slow  # make, which sets up .venv if needed
@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_make_workspace_twice_keeps_an_edited_copy(tmp_path):
    """The real target, on the real course, into a scratch workspace: the second run keeps an edit."""
    work = tmp_path / "ws"
    venv = Path(sys.prefix)
    # -o: take this environment's lab stamp as made, so make runs the copy step and installs nothing
    make = ["make", "--no-print-directory", "-o", f"{venv}/.course-lab-installed", f"VENV={venv}", f"WORKSPACE={work}", "workspace"]
    first = subprocess.run(make, cwd=ROOT, capture_output=True, text=True, check=True)
    lessons = sorted(p.name for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    assert lessons and all((work / name).exists() for name in lessons)
    assert not list(work.glob("*.py")), "the workspace holds notebooks only"
    assert (work / "scripts").is_dir()
    assert "copied" in first.stdout
    mine = work / lessons[0]
    nb = nbformat.read(mine, as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell("my_answer = 42"))
    nbformat.write(nb, mine)
    edited = mine.read_bytes()
    second = subprocess.run(make, cwd=ROOT, capture_output=True, text=True, check=True)
    assert mine.read_bytes() == edited
    assert "copied" not in second.stdout and "(updated)" not in second.stdout
    assert json.loads((work / ws.MANIFEST).read_text())[lessons[0]]


def test_make_exercises_keeps_a_notebook_someone_ran(tmp_path):
    """exercises/ is generated, but a learner who worked there must not lose it to `make exercises`."""
    from course_authoring.exercises import LearnersFile, write_all

    solutions, exercises = tmp_path / "solutions", tmp_path / "exercises"
    solutions.mkdir()
    source = ROOT / "solutions" / "01_device_query_exercises.py"
    shutil.copy(source, solutions / source.name)
    (generated,) = [p for p in write_all(solutions, exercises) if p.suffix == ".ipynb"]
    assert (tmp_path / "exercises" / generated.name).exists()
    # A stale generated file is rewritten (the usual case after a solution changes) ...
    (solutions / source.name).write_text(source.read_text() + "\n# %% [markdown]\n# a new note\n")
    write_all(solutions, exercises)
    assert "a new note" in generated.read_text()
    # ... but one a learner ran and saved (outputs, the kernel's language_info) is kept.
    nb = nbformat.read(generated, as_version=4)
    nb.metadata["language_info"] = {"name": "python", "version": "3.11.7"}
    code = next(c for c in nb.cells if c.cell_type == "code")
    code.outputs = [nbformat.v4.new_output("stream", text="my run\n")]
    nbformat.write(nb, generated)
    theirs = generated.read_bytes()
    (solutions / source.name).write_text(source.read_text() + "\n# %% [markdown]\n# another note\n")
    with pytest.raises(LearnersFile, match="mv exercises/NAME.ipynb workspace/"):
        write_all(solutions, exercises)
    assert generated.read_bytes() == theirs


def test_the_workspace_turns_jupytext_pairing_off(tmp_path):
    """Saving in the workspace must not add a .py twin beside each notebook (one entry per lesson)."""
    from jupytext.config import find_jupytext_configuration_file, load_jupytext_configuration_file

    ws.sync(ROOT, tmp_path / "ws")
    found = find_jupytext_configuration_file(str(tmp_path / "ws"))
    assert found == str(tmp_path / "ws" / ws.JUPYTEXT_CONFIG)
    config = load_jupytext_configuration_file(found)
    assert config.formats in ("ipynb", ["ipynb"])  # one format: nothing paired
    course = load_jupytext_configuration_file(str(ROOT / "jupytext.toml"))
    assert "py:percent" in str(course.formats)  # the course's own folders stay paired


def test_lab_on_the_repository_lists_each_notebook_once_and_keeps_the_scripts():
    """jupyter_server_config.py (make lab-course): the file browser's listing of notebooks/."""
    from jupyter_server.services.contents.filemanager import FileContentsManager
    from traitlets.config.loader import PyFileConfigLoader

    config = PyFileConfigLoader("jupyter_server_config.py", path=str(ROOT)).load_config()
    manager = FileContentsManager(root_dir=str(ROOT), config=config)
    listed = {entry["name"] for entry in manager.get("notebooks", content=True)["content"]}
    lessons = {p.name for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")}
    assert lessons <= listed
    assert not {name for name in listed if name.endswith(".py")}, "a .py twin is still listed"
    scripts = {entry["name"] for entry in manager.get("src/course_utils/scripts", content=True)["content"]}
    assert "ddp_basics.py" in scripts  # not a twin: it stays visible
