"""The recipes for grading on a cluster (docs/grading-at-scale.md) run the real command with arguments it accepts.

Neither Slurm nor Kubernetes nor a container engine runs here: the Slurm script is run by bash with
Slurm's variables set and ``course-grade`` replaced by a stand-in that records its arguments; the
Job's command is run by ``sh`` once per completion index the same way; every recorded command line
is then parsed by course-grade's own parser, and the shards they name must be 1..N exactly once.
The Containerfile's sources must exist. What this does not show: that a cluster accepts the files.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import tomllib
import yaml
from notebook_runner import ROOT

from course_grader.cli import _parser
from course_grader.shards import _merge_parser

SBATCH = ROOT / "scripts" / "grade-shards.sbatch"
JOB = ROOT / "wings" / "grader" / "grade-job.yaml"
CONTAINERFILE = ROOT / "wings" / "grader" / "Containerfile"


@pytest.fixture
def stand_in(tmp_path):
    """A ``course-grade`` that appends its arguments, as JSON, to a file; (its folder, the file)."""
    folder, record = tmp_path / "bin", tmp_path / "calls.jsonl"
    folder.mkdir()
    shim = folder / "course-grade"
    shim.write_text(f"#!{sys.executable}\nimport json, sys\nopen({str(record)!r}, 'a').write(json.dumps(sys.argv[1:]) + '\\n')\n")
    shim.chmod(0o755)
    return folder, record


def _calls(record: Path) -> list[list[str]]:
    return [json.loads(line) for line in record.read_text().splitlines()]


def _merge_line(text: str) -> list[str]:
    """The ``course-grade merge`` command a recipe's comments give, as arguments after ``merge``."""
    line = next(ln for ln in text.splitlines() if "course-grade merge" in ln)
    words = shlex.split(line.split("course-grade merge", 1)[1].rstrip('"'))
    return words


def test_the_slurm_script_parses_and_each_task_runs_its_shard(stand_in, tmp_path):
    folder, record = stand_in
    assert subprocess.run(["bash", "-n", str(SBATCH)]).returncode == 0
    count = 3
    for task in range(1, count + 1):
        env = {
            **os.environ,
            "SET": "10",
            "SUBMITTED": str(tmp_path),
            "COURSE": str(ROOT),
            "GRADER": str(folder / "course-grade"),
            "SLURM_ARRAY_TASK_ID": str(task),
            "SLURM_ARRAY_TASK_COUNT": str(count),
            "SLURM_CPUS_PER_TASK": "4",
        }
        done = subprocess.run(["bash", str(SBATCH)], env=env, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
    parsed = [_parser().parse_args(argv) for argv in _calls(record)]
    assert sorted(a.shard for a in parsed) == [(k, count) for k in range(1, count + 1)]
    assert {(a.exercise, a.submissions, a.sandbox, a.jobs) for a in parsed} == {("10", tmp_path, "require", 4)}
    assert sorted(a.out for a in parsed) == [ROOT / "grades" / "10" / f"shard-{k}" for k in range(1, count + 1)]
    merge = _merge_parser().parse_args(_merge_line(SBATCH.read_text()))
    assert merge.out == Path("grades/10/all") and merge.shards == [Path("grades/10/shard-*")]


def test_the_slurm_script_says_what_is_missing(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLURM_", "SET", "SUBMITTED"))}
    done = subprocess.run(["bash", str(SBATCH)], env=env, capture_output=True, text=True)
    assert done.returncode != 0 and "name the exercise set" in done.stderr
    done = subprocess.run(["bash", str(SBATCH)], env={**env, "SET": "10", "SUBMITTED": str(tmp_path)}, capture_output=True, text=True)
    assert done.returncode != 0 and "sbatch --array=1-N" in done.stderr


def test_each_pod_of_the_indexed_job_runs_its_shard(stand_in):
    folder, record = stand_in
    job = yaml.safe_load(JOB.read_text())
    assert job["apiVersion"] == "batch/v1" and job["kind"] == "Job"
    spec = job["spec"]
    assert spec["completionMode"] == "Indexed" and spec["template"]["spec"]["restartPolicy"] == "Never"
    container = spec["template"]["spec"]["containers"][0]
    env = {e["name"]: e["value"] for e in container["env"]}
    assert int(env["SHARDS"]) == spec["completions"], "SHARDS must equal completions"
    assert container["command"] == ["/bin/sh", "-c"]
    for index in range(spec["completions"]):
        done = subprocess.run(
            ["/bin/sh", "-c", container["args"][0]],
            capture_output=True,
            text=True,
            env={**os.environ, **env, "JOB_COMPLETION_INDEX": str(index), "PATH": f"{folder}{os.pathsep}{os.environ['PATH']}"},
        )
        assert done.returncode == 0, done.stderr
    parsed = [_parser().parse_args(argv) for argv in _calls(record)]
    n = spec["completions"]
    assert sorted(a.shard for a in parsed) == [(k, n) for k in range(1, n + 1)]
    assert {(a.exercise, a.sandbox) for a in parsed} == {(env["SET"], "require")}
    assert len({a.out for a in parsed}) == n
    merge = _merge_parser().parse_args(_merge_line(JOB.read_text()))
    assert merge.out == Path(f"/data/grades/{env['SET']}/all")


def test_the_containerfile_copies_what_exists_and_runs_the_grader():
    text = CONTAINERFILE.read_text()
    copies = [line.split()[1:-1] for line in text.splitlines() if line.startswith("COPY ")]
    sources = [s for c in copies for s in c]
    assert sources and all((ROOT / s).exists() for s in sources), [s for s in sources if not (ROOT / s).exists()]
    installs = re.findall(r"pip install --no-cache-dir (\. \./wings/grader)", text)
    assert installs and all((ROOT / p / "pyproject.toml").is_file() for p in installs[0].split())
    scripts = tomllib.loads((ROOT / "wings" / "grader" / "pyproject.toml").read_text())["project"]["scripts"]
    assert 'ENTRYPOINT ["course-grade"]' in text and "course-grade" in scripts
    assert "bubblewrap" in text and "scripts/install_torch.py --torch" in text
    assert "--torch" in (ROOT / "scripts" / "install_torch.py").read_text()


def test_nbgrader_collect_layout_gives_one_learner_per_student(tmp_path):
    """``nbgrader collect`` writes submitted/<student>/<assignment>/<notebook>: each student is one learner, and
    of a student's several assignments the notebook named like the exercise is graded."""
    from course_grader.submissions import find_submissions

    name = "10_models_bigger_than_a_device_exercises.ipynb"
    for student, assignments in (("ada", ("ps01", "ps10")), ("bea", ("ps10",))):
        for assignment in assignments:
            folder = tmp_path / "submitted" / student / assignment
            folder.mkdir(parents=True)
            (folder / (name if assignment == "ps10" else "01_device_query_exercises.ipynb")).write_text("{}")
    found = {s.learner: s for s in find_submissions(tmp_path / "submitted", name)}
    assert sorted(found) == ["ada", "bea"]
    assert found["ada"].file == f"ada/ps10/{name}" and found["bea"].file == f"bea/ps10/{name}"
