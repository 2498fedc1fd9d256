"""Every release the course admits is run: the scheduled workflow, the Makefile and README agree.

Lesson: none; issue 34's item 2. `.github/workflows/releases.yml` runs on GitHub's schedule, which
cannot run here: this checks what can be, that it runs the same releases as `make test-releases`
(the Makefile's MATRIX_ALL), that those are README's supported range with nothing left out
(sources.RELEASES, the releases the quote labels are checked in), and that it runs them the way
`make test-matrix` does here.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from test_macos_workflow import make_targets
from torch.torch_version import TorchVersion

from course_utils.devices import TESTED_TORCH
from course_utils.evidence.sources import RELEASES

ROOT = Path(__file__).resolve().parents[1]
WORKFLOW = ROOT / ".github/workflows/releases.yml"
MAKEFILE = (ROOT / "Makefile").read_text(encoding="utf-8")
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _workflow() -> dict:
    return yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))


def make_variable(makefile: str, name: str) -> list[str]:
    """The words of ``NAME := ...`` (or ``?=``, ``=``) in a Makefile; an error if it is not set exactly once."""
    found = re.findall(rf"^{name}\s*[:?]?=\s*(.*)$", makefile, flags=re.MULTILINE)
    if len(found) != 1:
        raise ValueError(f"the Makefile sets {name} {len(found)} times, expected once")
    return found[0].split()


def readme_range(readme: str) -> tuple[str, str]:
    """README's "**Supported PyTorch: A to B.**", as (A, B)."""
    match = re.search(r"\*\*Supported PyTorch: (\d+\.\d+\.\d+) to (\d+\.\d+\.\d+)\.\*\*", readme)
    if not match:
        raise ValueError('README has no "**Supported PyTorch: A to B.**" sentence')
    return match[1], match[2]


def test_the_workflow_runs_on_a_schedule_and_by_hand_only():
    data = _workflow()
    triggers = data.get("on", data.get(True))  # YAML 1.1 reads a bare `on` as True
    assert set(triggers) == {"schedule", "workflow_dispatch"}
    (cron,) = [entry["cron"] for entry in triggers["schedule"]]
    assert len(cron.split()) == 5, f"not a cron line: {cron!r}"


def test_the_workflow_runs_the_makefiles_releases_each_in_a_job_of_its_own():
    job = _workflow()["jobs"]["test"]
    releases = [str(v) for v in job["strategy"]["matrix"]["torch"]]
    assert releases == make_variable(MAKEFILE, "MATRIX_ALL")
    assert job["strategy"]["fail-fast"] is False, "one failing release must not cancel the others"
    runs = [step["run"] for step in job["steps"] if "run" in step]
    assert runs == ["make test-matrix MATRIX=${{ matrix.torch }}"]
    assert {"test-matrix", "test-releases"} <= make_targets(MAKEFILE)
    assert "COURSE_REQUIRE_CUDA" not in WORKFLOW.read_text(), "GitHub's runners have no GPU"


def test_the_releases_are_readmes_supported_range_with_none_left_out():
    releases = make_variable(MAKEFILE, "MATRIX_ALL")
    assert releases == sorted(releases, key=TorchVersion), "oldest first, as README reads"
    assert (releases[0], releases[-1]) == readme_range(README) == TESTED_TORCH
    assert tuple(releases) == RELEASES, "the quote labels are checked in these same releases"
    minors = [int(v.split(".")[1]) for v in releases]
    assert minors == list(range(minors[0], minors[-1] + 1)), f"a minor release is missing: {releases}"
    assert set(make_variable(MAKEFILE, "MATRIX")) <= set(releases), "make test-matrix's default runs supported releases"
    named = re.search(r"\*\*Supported PyTorch:.*?(?=\n\n)", README, flags=re.DOTALL)[0]
    assert "make test-releases" in named and all(v in named for v in releases), "README names the releases run"


def test_the_readers_catch_a_wrong_file():
    assert make_variable("MATRIX_ALL := 2.7.1 2.8.0\nMATRIX ?= 2.8.0\n", "MATRIX_ALL") == ["2.7.1", "2.8.0"]
    assert make_variable("MATRIX_ALL := 2.7.1 2.8.0\nMATRIX ?= 2.8.0\n", "MATRIX") == ["2.8.0"]
    for bad in ("", "MATRIX_ALL := 1\nMATRIX_ALL := 2\n"):
        with pytest.raises(ValueError, match="sets MATRIX_ALL"):
            make_variable(bad, "MATRIX_ALL")
    with pytest.raises(ValueError, match="Supported PyTorch"):
        readme_range("Supported PyTorch: 2.7.1 and later")
    assert readme_range("x **Supported PyTorch: 2.7.1 to 2.14.1.** y") == ("2.7.1", "2.14.1")
