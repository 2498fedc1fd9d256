"""environment.yml (conda) and pyproject.toml (pip) must ask for the same packages."""

import re

try:
    import tomllib
except ImportError:  # Python 3.10: the same parser, as pip vendors it
    from pip._vendor import tomli as tomllib
from pathlib import Path

import yaml

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
    assert listed == wanted, (
        f"only in environment.yml: {sorted(listed - wanted)}; only in pyproject.toml: {sorted(wanted - listed)}"
    )
    assert "-e ." in pip_lists[0], "environment.yml must install the course package itself (-e .)"
