"""The package and tests pass the ruff configuration in pyproject.toml (house style, issue 16)."""

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_ruff_passes():
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    assert ruff, "ruff is missing: it comes with the test extras (pip install -e '.[test]')"
    done = subprocess.run([ruff, "check", "src", "tests", "conftest.py", "benchmarks"], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
