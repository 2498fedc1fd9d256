"""The suite's own rules (root conftest.py) fail when they should: run nbval on notebooks built here.

nbval alone passes a cell tagged raises-exception that no longer raises, and a solution whose
check fails (a check never raises). The root conftest.py turns both into failures; these tests
prove it by running pytest on small notebooks in a scratch folder with a copy of that conftest.
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from grading_fixtures import SANDBOX_SKIP

ROOT = Path(__file__).resolve().parents[1]
# A pytest in a child Python, with none of pyproject's addopts (no workers, no nbval options) but its first
# plugin, which spares each child 1.5 s of building parsers nbformat never uses (course_grader._fast_start)
CHILD_PYTEST = [sys.executable, "-m", "pytest", "-p", "course_grader._fast_start"]


def build_nb(folder: Path, name: str, cells: list[tuple[str, list[str]]]) -> Path:
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = [nbformat.v4.new_code_cell(src, metadata={"tags": tags}) for src, tags in cells]
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    nbformat.write(nb, path)
    return path


def run_nbval(tmp_path: Path, *paths: Path) -> subprocess.CompletedProcess:
    shutil.copy(ROOT / "conftest.py", tmp_path / "conftest.py")
    return subprocess.run(
        [*CHILD_PYTEST, "-q", "-p", "no:cacheprovider", "--nbval-lax", "--nbval-current-env", "-o", "addopts=", *map(str, paths)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.mark.slow
def test_deliberate_error_cells_must_raise_and_solutions_must_pass(tmp_path):
    good = build_nb(tmp_path / "notebooks", "good.ipynb", [("1 / 0", ["raises-exception"]), ("x = 1", [])])
    stale_claim = build_nb(tmp_path / "notebooks", "stale_claim.ipynb", [("1 / 1", ["raises-exception"])])
    solved = build_nb(
        tmp_path / "solutions",
        "solved.ipynb",
        [
            (
                "from course_utils import check\n"
                "def best_device():\n    import torch\n    if torch.cuda.is_available():\n        return torch.device('cuda')\n"
                "    return torch.device('mps' if torch.backends.mps.is_available() else 'cpu')",
                [],
            ),
            ('check("01.1")', []),
        ],
    )
    wrong = build_nb(
        tmp_path / "solutions",
        "wrong.ipynb",
        [
            ("from course_utils import check\ndef best_device():\n    return 'cpu'", []),
            ('check("01.1")', []),
        ],
    )
    # the other spellings of a check cell must not escape the rule (one detector: course_utils.check_cells)
    quoted = build_nb(
        tmp_path / "solutions",
        "quoted.ipynb",
        [
            ("from course_utils import check\ndef best_device():\n    return 'cpu'", []),
            ("check('01.1')  # my note", []),
        ],
    )
    done = run_nbval(tmp_path, good, stale_claim, solved, wrong, quoted)
    out = done.stdout + done.stderr
    assert "stale_claim.ipynb::Cell 0" in out and "ran without raising" in out, out
    assert "the solution of exercise 01.1 should pass its check" in out, out
    assert "FAILED solutions/wrong.ipynb::Cell 1" in out, out
    assert "FAILED solutions/quoted.ipynb::Cell 1" in out, out
    assert "3 failed, 6 passed" in out, out  # good: 2 cells, solved: 2, wrong: 1 of 2, quoted: 1 of 2


@pytest.mark.slow
def test_a_try_it_cell_must_show_its_own_not_attempted_check(tmp_path):
    shipped = build_nb(
        tmp_path / "notebooks",
        "shipped.ipynb",
        [
            ("from course_utils import check", []),
            ("# Try it: the best device\ndef usable_device():\n    raise NotImplementedError()\ncheck('01.a')", ["try-it"]),
        ],
    )
    unwired = build_nb(tmp_path / "notebooks", "unwired.ipynb", [("x = ...", ["try-it"])])
    done = run_nbval(tmp_path, shipped, unwired)
    out = done.stdout + done.stderr
    assert "FAILED notebooks/unwired.ipynb::Cell 0" in out, out
    assert "1 failed" in out, out


@pytest.mark.slow
def test_the_cuda_marker_skips_by_itself_with_its_reason(tmp_path):
    (tmp_path / "test_gpu.py").write_text(
        "import pytest\n\n"
        "@pytest.mark.cuda\ndef test_one():\n    import torch\n    assert torch.cuda.is_available()\n\n"
        "@pytest.mark.cuda(2)\ndef test_two():\n    import torch\n    assert torch.cuda.device_count() >= 2\n\n"
        "@pytest.mark.cuda(0)\ndef test_bad():\n    pass\n"
    )
    shutil.copy(ROOT / "conftest.py", tmp_path / "conftest.py")
    done = subprocess.run(
        [*CHILD_PYTEST, "-rs", "-p", "no:cacheprovider", "-o", "addopts=", "-k", "one or two", str(tmp_path / "test_gpu.py")],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    out = done.stdout + done.stderr
    import torch

    gpus = torch.cuda.device_count() if torch.cuda.is_available() else 0
    assert ("needs CUDA" in out) == (gpus == 0), out
    assert ("needs 2 CUDA GPUs" in out) == (gpus < 2), out
    assert "failed" not in out, out
    bad = subprocess.run(
        [*CHILD_PYTEST, "-p", "no:cacheprovider", "-o", "addopts=", "-k", "bad", str(tmp_path / "test_gpu.py")],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert "takes a number of GPUs" in bad.stdout + bad.stderr


@pytest.mark.slow  # two pytest runs in child Pythons
def test_a_sandbox_skip_fails_where_the_sandbox_is_required(tmp_path):
    """``.ci/run`` sets COURSE_SANDBOX_REQUIRED=1 and installs bubblewrap: there a grading test that skips for
    want of a working bubblewrap fails (tests/conftest.py); elsewhere it skips, saying why. Other skips stay skips."""
    (tmp_path / "test_sandboxed.py").write_text(
        "import pytest\n\n"
        f"@pytest.mark.skipif(True, reason='{SANDBOX_SKIP}: bwrap is not installed')\n"
        "def test_graded_in_the_sandbox():\n    pass\n\n"
        "@pytest.mark.skipif(True, reason='needs CUDA')\n"
        "def test_on_a_gpu():\n    pass\n"
    )
    for helper in ("conftest.py", "grading_fixtures.py"):  # the conftest reads the wording from grading_fixtures
        shutil.copy(ROOT / "tests" / helper, tmp_path / helper)

    def run(required: str) -> tuple[int, str]:
        env = {**os.environ, "COURSE_SANDBOX_REQUIRED": required}
        done = subprocess.run(
            [*CHILD_PYTEST, "-rA", "-p", "no:cacheprovider", "-o", "addopts=", str(tmp_path / "test_sandboxed.py")],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        return done.returncode, done.stdout + done.stderr

    (failed, required), (passed, optional) = run("1"), run("")
    assert failed != 0 and passed == 0, (required, optional)
    assert f"COURSE_SANDBOX_REQUIRED=1 (bubblewrap must work here), but {SANDBOX_SKIP}" in required, required
    assert "1 skipped" in required and "needs CUDA" in required, required
    assert "2 skipped" in optional and "COURSE_SANDBOX_REQUIRED" not in optional, optional
