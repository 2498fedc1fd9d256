"""The package and tests pass the ruff configuration in pyproject.toml (house style, issue 16); no module
imports another's private name and each class name means one thing (issue 24)."""

import ast
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


# ------------------------------------------------------------------ names that cross modules (issue 24)

PACKAGE = ROOT / "src" / "course_utils"


def _module_name(path: Path, root: Path) -> str:
    parts = path.relative_to(root.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def private_imports(root: Path = PACKAGE) -> list[str]:
    """Every ``from course_utils.X import _name`` in a module other than X: a private name is its
    module's business, so a neighbour that needs it asks for a public one."""
    found = []
    for path in sorted(root.rglob("*.py")):
        here = _module_name(path, root)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("course_utils"):
                if node.module == here:
                    continue
                for alias in node.names:
                    if alias.name.startswith("_") and not alias.name.startswith("__"):
                        found.append(f"{path.relative_to(root)}:{node.lineno} imports {alias.name} from {node.module}")
    return found


def repeated_class_names(root: Path = PACKAGE) -> dict[str, list[str]]:
    """Class names defined in more than one place in the package, with where."""
    where: dict[str, list[str]] = {}
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                where.setdefault(node.name, []).append(f"{path.relative_to(root)}:{node.lineno}")
    return {name: places for name, places in where.items() if len(places) > 1}


def test_no_module_imports_another_modules_private_name():
    found = private_imports()
    assert not found, "make the name public where it lives, or give the importer a public helper:\n" + "\n".join(found)


def test_each_class_name_means_one_thing():
    repeated = repeated_class_names()
    assert not repeated, "rename so that each class name means one thing:\n" + "\n".join(
        f"{name}: {', '.join(places)}" for name, places in sorted(repeated.items()))


def test_the_name_rules_find_what_they_forbid(tmp_path):
    pkg = tmp_path / "course_utils"
    (pkg / "checks").mkdir(parents=True)
    (pkg / "a.py").write_text("class Machine:\n    pass\n\ndef _helper():\n    pass\n")
    (pkg / "checks" / "b.py").write_text("from course_utils.a import _helper, Machine\n\nclass Machine:\n    pass\n")
    (pkg / "c.py").write_text("from course_utils.c import _own\nfrom course_utils.a import __doc__\n")
    assert [line.split(" imports ")[1] for line in private_imports(pkg)] == ["_helper from course_utils.a"]
    assert list(repeated_class_names(pkg)) == ["Machine"]
