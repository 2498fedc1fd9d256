"""Importing a module imports only what it uses (issue 24): each case runs in a fresh Python and reads
``sys.modules`` afterwards.

``import course_utils.display``, ``course-grade --help`` and the pytest plugin (the root conftest.py)
load neither torch nor any lesson's checks; ``check("01.1")`` loads lesson 01's checks and no other's.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import course_utils

ROOT = Path(__file__).resolve().parents[1]

# What a case prints last: the modules it loaded that a light import should not.
_REPORT = """
import json, sys
print(json.dumps(sorted(m for m in sys.modules
                        if m == "torch" or m.startswith("torch.") or m.startswith("course_utils.checks.nb"))))
"""


def heavy_modules_after(code: str) -> list[str]:
    """torch's modules and lesson check modules that a fresh Python holds after running ``code``."""
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(Path(course_utils.__file__).parents[1]), str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    done = subprocess.run([sys.executable, "-c", code + _REPORT], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.slow  # a child Python
def test_display_imports_neither_torch_nor_the_checks():
    assert heavy_modules_after("import course_utils.display") == []


@pytest.mark.slow  # a child Python
def test_importing_the_checks_loads_neither_torch_nor_a_lesson():
    """A notebook's first cell (and a grader's setup cell, under a per-cell time limit) stays quick."""
    assert heavy_modules_after("from course_utils.checks import Wrong, call, check, exercise") == []


@pytest.mark.slow  # a child Python
def test_the_package_names_load_on_first_use():
    """``from course_utils import needs_cuda`` still works: the name's module is imported then, not before."""
    loaded = heavy_modules_after(
        "import sys\nimport course_utils\nassert 'course_utils.devices' not in sys.modules\n"
        "from course_utils import needs_cuda\n"
        "assert needs_cuda.__module__ == 'course_utils.gates'\n"
    )
    assert "torch" in loaded  # gates uses torch: the name brought its module


@pytest.mark.slow  # a child Python
def test_course_grade_help_imports_neither_torch_nor_the_checks():
    """The entry point as pip installs it (pyproject's [project.scripts]), asked for its help."""
    code = (
        "import sys\nfrom importlib.metadata import entry_points\n"
        "(script,) = entry_points(group='console_scripts', name='course-grade')\n"
        "sys.argv = ['course-grade', '--help']\n"
        "try:\n    script.load()()\nexcept SystemExit as done:\n    assert done.code in (0, None), done.code\n"
    )
    assert heavy_modules_after(code) == []


@pytest.mark.slow  # a child Python
def test_the_pytest_plugin_imports_neither_torch_nor_the_checks():
    """The root conftest.py, as pytest imports it for every run (its hooks load torch only when a test asks)."""
    assert heavy_modules_after("import conftest") == []


@pytest.mark.slow  # a child Python that imports torch
def test_a_check_loads_its_own_lessons_checks_only():
    code = "from course_utils import check\nassert check('01.1', lambda: None).status != 'error'\n"
    assert [m for m in heavy_modules_after(code) if m.startswith("course_utils.")] == ["course_utils.checks.nb01"]


@pytest.mark.slow  # a child Python that imports torch
def test_a_try_it_loads_its_own_lessons_checks_only():
    code = "from course_utils.checks import check\nassert check('05.a').status == 'missing'\n"  # no call_model yet
    assert [m for m in heavy_modules_after(code) if m.startswith("course_utils.")] == ["course_utils.checks.nb05"]


def test_an_unknown_id_still_names_every_known_exercise():
    """An id of no lesson loads them all, so the message can list what there is."""
    from course_utils.checks import get_exercise

    with pytest.raises(ValueError, match=r"No exercise '99\.1'.*01\.1.*10\.1"):
        get_exercise("99.1")


def test_every_name_of_the_package_is_found_in_its_module():
    """The package's names are strings until first use: a name renamed or moved in its module fails here,
    not in a learner's ``from course_utils import ...``."""
    missing = [name for name in course_utils.__all__ if not hasattr(course_utils, name)]
    assert not missing, f"course_utils/__init__.py names these, but their modules do not define them: {missing}"
    with pytest.raises(AttributeError, match="no attribute 'pick_devcie'; its names are: .*pick_device"):
        course_utils.pick_devcie  # noqa: B018
