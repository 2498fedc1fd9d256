"""The Colab/Kaggle header of every notebook: written from one address, current, idempotent, and
an install cell that installs the course where it is missing and does nothing where it is not."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from course_authoring import header
from course_authoring.exercises import exercise_texts
from course_authoring.header import HeaderError, Repository, repository, retarget, with_header

ROOT = Path(__file__).resolve().parents[1]
REPO = Repository("someone", "course")

LESSON = """# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 99 · A lesson
#
# You will be able to: ...

# %%
import torch
"""


def header_cells(text):
    _, cells = header.split_cells(text)
    return [c for c in cells if header._is_header(c)]


def test_every_notebook_and_the_readme_have_a_current_header():
    problems = header.stale(ROOT)
    assert not problems, "\n".join(problems)


def test_the_header_comes_right_after_the_title_in_every_notebook():
    """Checked on the .ipynb a learner opens: title first, then the links, then the install cell."""
    folders = ("notebooks", "solutions", "exercises")
    notebooks = [p for d in folders for p in sorted((ROOT / d).glob("[0-9][0-9]_*.ipynb"))]
    assert notebooks
    for path in notebooks:
        cells = nbformat.read(path, as_version=4).cells
        assert cells[0].cell_type == "markdown" and cells[0].source.startswith("# "), path.name
        links, install = cells[1], cells[2]
        assert header.TAG in links.metadata.get("tags", []) and header.TAG in install.metadata.get("tags", [])
        assert sum(header.TAG in c.metadata.get("tags", []) for c in cells) == 2, path.name
        where = f"{path.parent.name}/{path.name}"
        repo = repository(ROOT)
        assert f"({repo.colab(where)})" in links.source and f"({repo.kaggle(where)})" in links.source
        assert install.cell_type == "code" and repo.pip_source in install.source


def test_links_are_colab_and_kaggle_forms():
    assert REPO.colab("notebooks/01_x.ipynb") == ("https://colab.research.google.com/github/someone/course/blob/main/notebooks/01_x.ipynb")
    assert REPO.kaggle("notebooks/01_x.ipynb") == (
        "https://kaggle.com/kernels/welcome?src=https://github.com/someone/course/blob/main/notebooks/01_x.ipynb"
    )
    assert REPO.pip_source == "course-utils @ git+https://github.com/someone/course"


def test_header_is_idempotent_and_comes_back_after_a_merge_drops_it():
    once = with_header(LESSON, REPO, "notebooks/99_x.ipynb")
    assert with_header(once, REPO, "notebooks/99_x.ipynb") == once
    assert len(header_cells(once)) == 2
    assert once.index("# # 99 · A lesson") < once.index(header.TAG) < once.index("import torch")
    assert with_header(LESSON, REPO, "notebooks/99_x.ipynb") == once  # a rewrite without it gets it back
    # A merge that left a header cell in the middle (and one lost): one fresh header, after the title.
    _, cells = header.split_cells(once)
    shuffled = LESSON + "\n" + cells[1]
    assert with_header(shuffled, REPO, "notebooks/99_x.ipynb") == once


def test_a_new_address_rewrites_every_link():
    moved = with_header(with_header(LESSON, REPO, "notebooks/99_x.ipynb"), Repository("fork", "mine"), "notebooks/99_x.ipynb")
    assert "someone/course" not in moved and moved.count("fork/mine") == 3  # Colab, Kaggle, pip


def test_a_notebook_without_a_title_first_is_refused_with_what_to_do():
    with pytest.raises(HeaderError, match="first cell should be the markdown title cell"):
        with_header("# %%\nimport torch\n", REPO, "notebooks/99_x.ipynb")


@pytest.mark.parametrize("url", ["https://gitlab.com/a/b", "github.com/a/b", "https://github.com/a", ""])
def test_an_address_that_is_not_github_is_refused(tmp_path, url):
    (tmp_path / "pyproject.toml").write_text(f'[project]\nname = "x"\n[project.urls]\nRepository = "{url}"\n')
    with pytest.raises(HeaderError, match="not a GitHub address"):
        repository(tmp_path)


def test_a_missing_address_says_where_it_goes(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n')
    with pytest.raises(HeaderError, match=r"\[project.urls\] Repository"):
        repository(tmp_path)


def test_exercise_header_opens_the_exercise_not_the_answers(tmp_path):
    solution = tmp_path / "99_x_exercises.py"
    solution.write_text(
        with_header(LESSON + "\n# %%\n# solutions/99_x_exercises.ipynb in a body cell\n", REPO, "solutions/99_x_exercises.ipynb")
    )
    py_text, _ = exercise_texts(solution)
    (links, install) = header_cells(py_text)
    assert "exercises/99_x_exercises.ipynb" in links and "solutions/" not in links
    assert "# solutions/99_x_exercises.ipynb in a body cell" in py_text  # only the header is retargeted
    assert retarget("# %%\nsolutions/a\n", "solutions/a", "exercises/a") == "# %%\nsolutions/a\n"


def test_readme_table_has_a_row_per_lesson(tmp_path):
    table = header.readme_table(repository(ROOT), ROOT)
    lessons = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.py"))
    assert len(table.splitlines()) == 2 + len(lessons)
    assert "exercises/01_device_query_exercises.ipynb" in table
    with pytest.raises(HeaderError, match="put those two lines back"):
        header.readme_with_table("no markers here", table)


def _install_cell(path=ROOT / "notebooks" / "01_device_query.ipynb"):
    cells = nbformat.read(path, as_version=4).cells
    (cell,) = [c for c in cells if c.cell_type == "code" and header.TAG in c.metadata.get("tags", [])]
    return cell.source


def test_install_cell_does_nothing_where_course_utils_imports(monkeypatch, capsys):
    """Run as in a kernel of the course's environment: no pip, no output, even with a bogus source."""
    calls = []
    monkeypatch.setenv(header.SOURCE_VARIABLE, "/nonexistent/course-source")
    monkeypatch.setattr(subprocess, "run", lambda *a, **k: calls.append(a))
    exec(compile(_install_cell(), "install-cell", "exec"), {})
    assert calls == [] and capsys.readouterr().out == ""


def test_install_cell_installs_the_source_and_keeps_torch(monkeypatch, capsys):
    """Where course_utils is missing: one pip call, with the source and the installed torch pinned."""
    import importlib.util

    calls = []
    real_find_spec = importlib.util.find_spec
    monkeypatch.setenv(header.SOURCE_VARIABLE, "/some/checkout")
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "course_utils" else real_find_spec(name, *a))
    monkeypatch.setattr(subprocess, "run", lambda command, **k: calls.append((command, k)))
    exec(compile(_install_cell(), "install-cell", "exec"), {})
    ((command, kwargs),) = calls

    assert command[:4] == [sys.executable, "-m", "pip", "install"]
    # the distribution's version (2.14.1), not torch.__version__ (2.14.1+cu130): pip matches it to any local build
    assert "/some/checkout" in command and f"torch=={importlib.metadata.version('torch')}" in command
    assert kwargs.get("check") is True
    assert "installed course_utils from /some/checkout" in capsys.readouterr().out


def _copy_package_source(dest: Path) -> Path:
    """What pip needs to build the course package, without this checkout's venvs and build folders."""
    dest.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, dest / name)
    shutil.copytree(ROOT / "src", dest / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    return dest


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="builds a Linux venv with pip's local wheels")
def test_install_cell_in_a_fresh_environment_with_only_torch_and_jupyter(tmp_path):
    """The cell as Colab or Kaggle runs it: a Python with torch and Jupyter, no course. It installs
    the course from the local checkout (COURSE_UTILS_SOURCE), and the next cell imports it."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    # A fresh Python sees no checkout: not through PYTHONPATH either (an author may have it set to src/)
    fresh = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    torch_req = "torch==2.13.0"  # the CPU wheel CI installs (.ci/run), whatever torch runs this suite
    # --no-compile: Python compiles what the kernel imports as it imports it; pip compiling all of torch's files
    # first took 38 s of this test's 87 s, and is not what the test is about
    subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", "--no-compile", torch_req, "ipykernel", "nbclient"], check=True, timeout=900, env=fresh
    )
    listed = subprocess.run([str(python), "-m", "pip", "list", "--format=freeze"], capture_output=True, text=True, check=True, env=fresh).stdout
    assert "course-utils" not in listed and "course_utils" not in listed
    torch_before = [line for line in listed.splitlines() if line.lower().startswith("torch==")]

    source = _copy_package_source(tmp_path / "checkout")
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = [
        nbformat.v4.new_code_cell(_install_cell()),
        nbformat.v4.new_code_cell(
            "import course_utils, torch\nprint(course_utils.__file__)\n"
            "from course_utils.launch import find_script\n"  # notebook 08's scripts came too
            "print(find_script('scripts/ddp_basics.py').stat().st_size > 0)\n"
            # the learner's distribution only: no grader, no authors' tools, none of their dependencies
            "import importlib.util\n"
            "print([n for n in ('course_grader', 'course_authoring', 'jupytext', 'nbgrader') "
            "if importlib.util.find_spec(n)])\n"
            "print(course_utils.preflight().level)"
        ),
        nbformat.v4.new_code_cell(_install_cell()),  # a second run: course_utils imports now, so nothing
    ]
    (tmp_path / "nb.ipynb").write_text(nbformat.writes(nb))
    runner = (
        "import nbclient, nbformat, sys\n"
        "nb = nbformat.read(sys.argv[1], as_version=4)\n"
        "nbclient.NotebookClient(nb, timeout=900, kernel_name='python3').execute()\n"
        "nbformat.write(nb, sys.argv[1])\n"
    )
    env = dict(os.environ, **{header.SOURCE_VARIABLE: str(source)})
    env.pop("PYTHONPATH", None)
    # the fresh venv's own kernel: `python3` resolves to the interpreter that runs nbclient
    subprocess.run([str(python), "-c", runner, str(tmp_path / "nb.ipynb")], env=env, check=True, timeout=1200, cwd=tmp_path)
    done = nbformat.read(tmp_path / "nb.ipynb", as_version=4)
    text = ["".join(o.get("text", "") for o in c.outputs) for c in done.cells]
    assert f"installed course_utils from {source}" in text[0]
    assert str(venv) in text[1] and text[1].strip().endswith(("cpu-only", "one-gpu", "multi-gpu", "mps"))
    assert text[1].splitlines()[1] == "True", text[1]
    assert text[1].splitlines()[2] == "[]", text[1]
    assert text[2] == ""
    after = subprocess.run([str(python), "-m", "pip", "list", "--format=freeze"], capture_output=True, text=True, check=True, env=fresh).stdout
    assert [line for line in after.splitlines() if line.lower().startswith("torch==")] == torch_before
