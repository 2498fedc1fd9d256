"""The package and tests pass the ruff configuration in pyproject.toml (house style, issue 16); no module
imports another's private name, each class name means one thing, and the imports run one way: no circle
between modules, none between the package's rooms (its top-level modules and folders), and no lesson's
checks import another lesson's (issue 24)."""

import ast
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_ruff_passes():
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    assert ruff, "ruff is missing: it comes with the test extras (pip install -e '.[test]')"
    done = subprocess.run([ruff, "check", "--no-cache", "src", "tests", "conftest.py", "benchmarks"], cwd=ROOT,
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


# ------------------------------------------------------------------ imports run one way (issue 24)


def import_graph(root: Path = PACKAGE) -> dict[str, set[str]]:
    """Which course modules each module of the package imports, anywhere in it (a function's lazy
    import counts: it runs too). ``from course_utils import executed`` imports the module ``executed``."""
    modules = {_module_name(path, root): path for path in sorted(root.rglob("*.py"))}
    graph: dict[str, set[str]] = {}
    for here, path in modules.items():
        package = here if path.name == "__init__.py" else here.rpartition(".")[0]
        targets = graph.setdefault(here, set())
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets.update(alias.name for alias in node.names if alias.name in modules)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:  # a relative import, from the package ``here`` is in
                    base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1] + ([base] if base else []))
                for alias in node.names:
                    name = f"{base}.{alias.name}"
                    targets.add(name if name in modules else base)
        targets.intersection_update(modules)
        targets.discard(here)
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected parts of more than one node (Tarjan's algorithm): each is a circle of imports."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            part = []
            while True:
                top = stack.pop()
                part.append(top)
                if top == node:
                    break
            if len(part) > 1:
                found.append(sorted(part))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def rooms(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """The same imports between rooms: ``course_utils.transfer.plots`` is in the room ``course_utils.transfer``.

    A circle of rooms is an import from a lower layer back up to a higher one (the transfer CLI once
    imported the top-level plots.py, which imported transfer/), even when no two modules form a circle."""
    def room(module: str) -> str:
        return ".".join(module.split(".")[:2])

    joined: dict[str, set[str]] = {}
    for source, targets in graph.items():
        joined.setdefault(room(source), set()).update(room(t) for t in targets if room(t) != room(source))
    return joined


def lesson_check_imports(graph: dict[str, set[str]]) -> list[str]:
    """Lesson check modules (``checks/nbNN.py``) that import another lesson's: each loads on its own lesson's
    first check, so one lesson's checks are never another's library (shared parts go in ``checks/machines.py``)."""
    def lesson(module: str) -> bool:
        return module.rpartition(".")[2].startswith("nb") and ".checks." in module

    return [f"{source} imports {target}" for source, targets in sorted(graph.items()) if lesson(source)
            for target in sorted(targets) if lesson(target)]


def test_no_circle_of_imports_between_modules():
    found = circles(import_graph())
    assert not found, "each line's modules import one another, in a circle:\n" + "\n".join(", ".join(c) for c in found)


def test_no_import_runs_back_up_between_rooms():
    found = circles(rooms(import_graph()))
    assert not found, ("each line's rooms (top-level modules and folders of the package) import one another; move "
                       "the module that closes the circle into the room it serves:\n" + "\n".join(", ".join(c) for c in found))


def test_no_lessons_checks_import_another_lessons():
    found = lesson_check_imports(import_graph())
    assert not found, "put what two lessons share in checks/machines.py (or a module of its own):\n" + "\n".join(found)


def test_the_import_rules_find_what_they_forbid(tmp_path):
    pkg = tmp_path / "course_utils"
    (pkg / "transfer").mkdir(parents=True)
    (pkg / "checks").mkdir()
    for init in (pkg, pkg / "transfer", pkg / "checks"):
        (init / "__init__.py").write_text("")
    (pkg / "plots.py").write_text("from course_utils.transfer.results import Sweep\n")
    (pkg / "transfer" / "results.py").write_text("Sweep = 1\n")
    (pkg / "transfer" / "cli.py").write_text("def main():\n    from course_utils import plots\n")
    (pkg / "a.py").write_text("from .b import x\n")
    (pkg / "b.py").write_text("import course_utils.a\nx = 1\n")
    (pkg / "checks" / "nb01.py").write_text("from course_utils.checks.nb02 import helper\n")
    (pkg / "checks" / "nb02.py").write_text("def helper():\n    pass\n")
    graph = import_graph(pkg)
    assert graph["course_utils.transfer.cli"] == {"course_utils.plots"}
    assert circles(graph) == [["course_utils.a", "course_utils.b"]]
    assert circles(rooms(graph)) == [["course_utils.a", "course_utils.b"], ["course_utils.plots", "course_utils.transfer"]]
    assert lesson_check_imports(graph) == ["course_utils.checks.nb01 imports course_utils.checks.nb02"]
