"""The macOS workflow (.github/workflows/macos.yml) is well formed, names real make targets and valid Python.

Lesson: none; issue 27.5's CI on an Apple-silicon runner, which cannot run here: this checks what can be.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
WORKFLOW = ROOT / ".github/workflows/macos.yml"


def _workflow() -> dict:
    return yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))


def _runs() -> list[str]:
    return [step["run"] for step in _workflow()["jobs"]["test"]["steps"] if "run" in step]


def make_targets(makefile: str) -> set[str]:
    """The targets a Makefile defines (``name: ...`` at the start of a line; not ``VAR := ...``)."""
    return {m for line in makefile.splitlines() for m in re.findall(r"^([A-Za-z][\w-]*)\s*:(?!=)", line)}


def test_it_runs_on_an_apple_silicon_runner_on_every_push_and_pull_request():
    data = _workflow()
    triggers = data.get("on", data.get(True))  # YAML 1.1 reads a bare `on` as True
    assert set(triggers) == {"push", "pull_request"}
    job = data["jobs"]["test"]
    assert job["runs-on"] == "macos-14" and job["timeout-minutes"] <= 90
    assert "COURSE_REQUIRE_CUDA" not in WORKFLOW.read_text(), "a Mac has no CUDA: nothing may require it"


def test_every_make_command_is_a_target_of_the_makefile():
    targets = make_targets((ROOT / "Makefile").read_text(encoding="utf-8"))
    used = [t for run in _runs() for t in re.findall(r"\bmake\s+([\w-]+)", run)]
    assert used and "test-fast" in used
    missing = [t for t in used if t not in targets]
    assert not missing, f"macos.yml runs make {missing}, which the Makefile does not define"


def test_the_target_rule_reads_the_makefile_as_make_does():
    assert make_targets("setup: $(STAMP)\nFAST := x\n\ttest: not a target\ntest-fast: $(STAMP)\n") == {"setup", "test-fast"}


def test_it_says_whether_mps_was_usable_and_its_python_is_valid():
    runs = "\n".join(_runs())
    assert "torch.backends.mps.is_available()" in runs and "GITHUB_STEP_SUMMARY" in runs
    snippets = re.findall(r'python -c "([^"]*)"', runs) + re.findall(r"python -c '([^']*)'", runs)
    assert len(snippets) >= 3
    for code in snippets:
        ast.parse(code)
    assert "from course_utils.readiness import preflight" in runs
