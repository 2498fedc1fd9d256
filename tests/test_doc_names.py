"""Every course function, module and command that a doc or docstring names exists (issue 32.5).

Reads CONTRIBUTING.md, docs/*.md and the three wings' docstrings for names in backticks that look like the
course's: ``course_utils.x`` (``course_grader.x``, ``course_authoring.x``), ``make x``, ``name()``, a file of
the repository (``src/course_utils/devices.py``) and the names in CONTRIBUTING's module table. A ``name()``
passes when the package defines it, or PyTorch (torch, torch.Tensor, torch.nn.Module, torch.cuda,
torch.accelerator...) or Python's builtins have it: PyTorch's names are checked against torch itself, not
listed here.
"""

import ast
import builtins
import importlib
import re
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "course_utils"
# The learner's package and its two neighbours (issue 32.1): a doc may name any of them.
WINGS = (SRC, ROOT / "src" / "course_grader", ROOT / "src" / "course_authoring")
QUOTED = re.compile(r"``?([^`\n]+?)``?")
MODULE = re.compile(r"^course_(?:utils|grader|authoring)(?:\.\w+)+$")
PATH = re.compile(r"^(?:src|tests|scripts|docs|notebooks|solutions|exercises)/[\w/.-]+\.\w+$")
MAKE = re.compile(r"^make ([\w-]+)")
CALL = re.compile(r"^([A-Za-z_][\w.]*)\(\)$")
TORCH_HOMES = (
    torch,
    torch.Tensor,
    torch.nn.Module,
    torch.cuda,
    torch.accelerator,
    torch.backends.mps,
    torch.distributed,
    torch.optim.Optimizer,
    torch.utils.data,
    torch.utils.data.DataLoader,
    torch.nn.functional,
)


def texts():
    for path in [ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").glob("*.md"))]:
        yield path.relative_to(ROOT), path.read_text()
    for path in sorted(p for wing in WINGS for p in wing.rglob("*.py")):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                doc = ast.get_docstring(node)
                if doc:
                    yield path.relative_to(ROOT), doc


def course_names() -> set[str]:
    names = set()
    for path in (p for wing in WINGS for p in wing.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, ast.arg):  # a docstring may call a parameter: "``fn()`` runs once"
                names.add(node.arg)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
        names.add(path.stem if path.stem != "__init__" else path.parent.name)
    return names


TABLE_NAME = re.compile(r"^[a-z]+(?:_[a-z0-9]+)+$")  # snake_case with an underscore: a course function's look


def table_names(text: str) -> set:
    """Names in the rows of a module table (a line that starts with "| `"): each says what a module holds."""
    return {(None, q) for line in text.splitlines() if line.startswith("| `") for q in QUOTED.findall(line)}


def make_targets() -> set[str]:
    return set(re.findall(r"^([\w-]+):", (ROOT / "Makefile").read_text(), re.M))


def resolves(dotted: str) -> bool:
    """``course_utils.a.b``: a module, or an attribute of one."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            value = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        try:
            for part in parts[cut:]:
                value = getattr(value, part)
        except AttributeError:
            return False
        return True
    return False


def in_torch(name: str) -> bool:
    first, *rest = name.split(".")
    if first in ("nn", "F"):  # the usual aliases of torch.nn and torch.nn.functional
        return resolves("torch." + name if first == "nn" else "torch.nn.functional." + ".".join(rest))
    if first == "torch" or (rest and resolves(first)):  # torch.x, or the standard library's time.perf_counter
        return resolves(name)
    return any(hasattr(home, name) for home in TORCH_HOMES) or hasattr(builtins, name)


def missing_names() -> list[str]:
    defined, targets = course_names(), make_targets()
    missing = []
    for where, text in texts():
        for quoted in QUOTED.findall(text):
            quoted = quoted.strip()
            if MODULE.match(quoted) and not resolves(quoted):
                missing.append(f"{where}: `{quoted}`")
            elif PATH.match(quoted) and not re.search(r"[*{]|NN|NAME|\.\.\.", quoted) and not (ROOT / quoted).exists():
                missing.append(f"{where}: `{quoted}`")
            elif (m := MAKE.match(quoted)) and m[1] not in targets:
                missing.append(f"{where}: `{quoted}`")
            elif str(where).endswith(".md") and TABLE_NAME.match(quoted) and (None, quoted) in table_names(text) and quoted not in defined:
                missing.append(f"{where}: `{quoted}`")
            elif m := CALL.match(quoted):
                name = m[1]
                last = name.rpartition(".")[2]
                if "." in name:  # torch.cuda.init(), time.perf_counter(), or a method of a course variable: module.to()
                    first = name.partition(".")[0]
                    known = (
                        in_torch(name)
                        or any(resolves(f"{w.name}.{name}") for w in WINGS)
                        or (first in defined and (last in defined or in_torch(last)))
                    )
                else:
                    known = last in defined or in_torch(last)
                if not known:
                    missing.append(f"{where}: `{quoted}`")
    return sorted(set(missing))


def test_every_named_course_function_module_and_command_exists():
    missing = missing_names()
    assert not missing, "these are named in backticks but do not exist:\n" + "\n".join(missing)


def test_a_name_that_does_not_exist_is_found(tmp_path, monkeypatch):
    assert not resolves("course_utils.devices.resolve_device")
    assert resolves("course_utils.devices.pick_device") and resolves("course_utils.readiness")
    assert in_torch("torch.cuda.is_available") and not in_torch("torch.cuda.no_such_call")
    assert "resolve_device" not in course_names() and "pick_device" in course_names()
    assert (None, "resolve_device") in table_names("| `devices` | the chooser (`pick_device`, `resolve_device`) | 01 |")
