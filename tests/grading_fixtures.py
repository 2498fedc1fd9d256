"""Notebooks for the grading tests, built in code: a tiny exercise, its solution, and bad submissions.

The exercise registers its own two trivial checks in its setup cell, so each kernel starts fast
and the tests do not depend on any course notebook.
"""

from __future__ import annotations

import functools
import json
import os
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook


@functools.cache
def machine_sandbox():
    """``course_grader.bubblewrap.probe("auto")``, asked once per test process: every module of sandboxed grading
    tests asks at import, and each pytest-xdist worker imports them all (one bwrap start each, 0.1 s)."""
    from course_grader.bubblewrap import probe

    return probe("auto")


# The reason every sandboxed grading test skips with where bwrap cannot start; tests/conftest.py turns such a
# skip into a failure under COURSE_SANDBOX_REQUIRED=1 (.ci/run), so the wording lives here, once.
SANDBOX_SKIP = "needs a working bubblewrap"


def sandbox_mark() -> pytest.MarkDecorator:
    """The skip mark of a test that grades under bubblewrap: skipped, saying why, where the sandbox cannot start."""
    sandbox = machine_sandbox()
    return pytest.mark.skipif(not sandbox.sandboxed, reason=f"{SANDBOX_SKIP}: {sandbox.reason}")


SETUP = '''from course_utils.checks import Wrong, call, check, exercise


@exercise("g.1", "Double a number", "double", hint="Multiply by two.")
def _check_double(double):
    for x in (0, 1, 5):
        got = call(double, x)
        if got != 2 * x:
            raise Wrong(f"double({x}) returned {got!r}; expected {2 * x}.")
    return "All doubled."


@exercise("g.2", "Greet someone", "greet", hint="Use an f-string.")
def _check_greet(greet):
    for name in ("Ada", "Linus"):
        got = call(greet, name)
        if got != f"Hello, {name}!":
            raise Wrong(f"greet({name!r}) returned {got!r}; expected {f'Hello, {name}!'!r}.")
    return "Greets everyone."'''

# The grader judges in its own process, with the checkers registered there: register these in the
# process that imports this module (the test's), as the course's own are by checks/nbNN.py.
exec(compile(SETUP, "<grading_fixtures checks>", "exec"), {"__name__": "grading_fixtures_checks"})

STUB = "    # YOUR CODE HERE\n    raise NotImplementedError()"
DOUBLE = "def double(x):\n{body}"
GREET = "def greet(name):\n{body}"
ANSWERS = {"double": "    return 2 * x", "greet": '    return f"Hello, {name}!"'}


def cells(double: str | None = None, greet: str | None = None, extra: dict[int, str] | None = None, checks: bool = True) -> list[str]:
    """The code cells of the exercise: ``double``/``greet`` are bodies (None: the stub)."""
    code = [SETUP, DOUBLE.format(body=double or STUB), 'check("g.1")', GREET.format(body=greet or STUB), 'check("g.2")']
    if not checks:
        code = [c for c in code if not c.startswith("check(")]
    for position, source in sorted((extra or {}).items(), reverse=True):
        code.insert(position, source)
    return code


def notebook(code: list[str], outputs: dict[int, list] | None = None) -> nbformat.NotebookNode:
    nb_cells = [new_markdown_cell("# Exercises G\n\n## Exercise g.1 · Double a number")]
    for k, source in enumerate(code):
        cell = new_code_cell(source)
        cell.outputs = [nbformat.from_dict(o) for o in (outputs or {}).get(k, [])]
        nb_cells.append(cell)
    nb = new_notebook(cells=nb_cells)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return nb


def write(path: Path, nb) -> Path:
    path.write_text(nbformat.writes(nb), encoding="utf-8")
    return path


def solved() -> list[str]:
    return cells(ANSWERS["double"], ANSWERS["greet"])


def fake_pass(exercise: str) -> dict:
    """A display output that looks exactly like a passing check of ``exercise``."""
    result = {"exercise": exercise, "title": "x", "status": "pass", "message": "Correct.", "hint": "", "passed": True}
    return {
        "output_type": "display_data",
        "metadata": {},
        "data": {"text/plain": f"PASS [{exercise}]", "application/vnd.course-utils.check+json": result},
    }


def build_submissions(folder: Path, pid_file: Path) -> dict[str, str]:
    """Write every kind of submission into ``folder``; return {learner name: what it tests}."""
    folder.mkdir(parents=True, exist_ok=True)
    made = {}

    def add(name: str, what: str, nb=None, text: str | None = None, raw: bytes | None = None):
        path = folder / name
        if nb is not None:
            write(path, nb)
        elif text is not None:
            path.write_text(text, encoding="utf-8")
        else:
            path.write_bytes(raw or b"")
        made[name[: -len(".ipynb")] if name.endswith(".ipynb") else name] = what

    add("solution.ipynb", "the solution", notebook(solved()))
    add("untouched.ipynb", "the exercise as handed out", notebook(cells()))
    add("corrupt.ipynb", "truncated JSON", text='{"cells": [{"cell_type": "code", "sou')
    add("notes.txt", "not a notebook", text="I could not do it, sorry.")
    add("binary.ipynb", "not text at all", raw=b"\x89PNG\r\n\x1a\n\x00\xff\xfe")
    add("deleted.ipynb", "setup cell and check cells deleted", notebook(cells(ANSWERS["double"], ANSWERS["greet"], checks=False)[1:]))
    setup, d, c1, g, c2 = solved()
    add("reordered.ipynb", "checks above the functions, exercises swapped", notebook([setup, c2, c1, g, d]))
    add(
        "loops.ipynb",
        "a cell that never ends, and an answer that never returns",
        notebook(cells("    while True:\n        pass", ANSWERS["greet"], extra={4: "while True:\n    pass"})),
    )
    add("raises.ipynb", "a cell raising, and an answer raising", notebook(cells("    return 1 / 0", ANSWERS["greet"], extra={1: "1 / 0"})))
    add("exits.ipynb", "a cell calling os._exit", notebook(cells(ANSWERS["double"], ANSWERS["greet"], extra={3: "import os\nos._exit(1)"})))
    add("segfault.ipynb", "an answer that segfaults", notebook(cells(ANSWERS["double"], "    import ctypes\n    ctypes.string_at(0)")))
    add(
        "huge_output.ipynb",
        "100 MB printed at once, and a printing loop",
        notebook(
            cells(ANSWERS["double"], ANSWERS["greet"], extra={1: "print('x' * 10**8)", 2: "for i in range(20_000):\n    print('y' * 100)"})
        ),
    )
    add(
        "escape.ipynb",
        "writes above its working folder",
        notebook(
            cells(
                ANSWERS["double"],
                ANSWERS["greet"],
                extra={1: "open('../../escape.txt', 'w').write('out')\nopen('../escape_one_up.txt', 'w').write('out')"},
            )
        ),
    )
    add(
        "fake.ipynb",
        "displays a passing check by hand, and saved a faked PASS",
        notebook(
            cells(
                extra={
                    5: (
                        "from IPython.display import display\n"
                        "display({'application/vnd.course-utils.check+json': {'exercise': 'g.1', 'title': 'x', 'status': 'pass',"
                        " 'message': 'ok', 'hint': ''}}, raw=True)"
                    )
                }
            ),
            outputs={4: [fake_pass("g.2")]},
        ),
    )
    add(
        "monkeypatch.ipynb",
        "replaces check() in the kernel",
        notebook(
            cells(
                extra={
                    1: (
                        "import course_utils.checks._core as core\n"
                        "core.check = lambda id, answer=None: core.CheckResult(id, 'x', 'pass', 'Correct.')"
                    )
                }
            )
        ),
    )
    add(
        "patch_during_check.ipynb",
        "an answer that patches check() when the checker calls it",
        notebook(
            cells(
                "    import course_utils.checks._core as core\n"
                "    core.check = lambda id, answer=None: core.CheckResult(id, 'x', 'pass', 'Correct.')\n"
                "    return 2 * x"
            )
        ),
    )
    add(
        "closes_channel.ipynb",
        "closes every comm after g.1 is judged, the grader's channel too",
        notebook(
            cells(
                ANSWERS["double"],
                ANSWERS["greet"],
                extra={3: ("for _comm in list(get_ipython().kernel.comm_manager.comms.values()):\n    _comm.close()")},
            )
        ),
    )
    add(
        "prints_in_answer.ipynb",
        "answers that print a megabyte at every call",
        notebook(cells("    print('z' * 10**6)\n    return 2 * x", ANSWERS["greet"])),
    )
    add(
        "child.ipynb",
        "starts a child process that would outlive the kernel",
        notebook(
            cells(
                ANSWERS["double"],
                ANSWERS["greet"],
                extra={
                    1: (f"import subprocess\nchild = subprocess.Popen(['sleep', '300'])\nopen({str(pid_file)!r}, 'w').write(str(child.pid))")
                },
            )
        ),
    )
    add("spaces and ünïcode.ipynb", "a name with spaces and accents", text="not a notebook")
    add("=formula.ipynb", "a name a spreadsheet would run", text='=HYPERLINK("http://example.com")')
    odd = os.fsdecode(b"odd \xff bytes.ipynb")
    write(folder / odd, notebook(solved()))
    made[odd[: -len(".ipynb")]] = "a name that is not UTF-8"
    (folder / "carol" / "work").mkdir(parents=True)
    write(folder / "carol" / "work" / "exercise_g.ipynb", notebook(solved()))
    made["carol"] = "a folder per learner"
    (folder / "dave").mkdir()
    made["dave"] = "an empty folder"
    return made


def exercise_notebook(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    return write(folder / "exercise_g.ipynb", notebook(cells()))


def tree_digest(*paths: Path) -> dict[str, str]:
    """sha256 of every file under ``paths``, computed here, independently of the grader."""
    import hashlib

    out = {}
    for top in paths:
        for path in sorted([top] if top.is_file() else top.rglob("*")):
            if path.is_file():
                out[os.fsencode(path).hex()] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def loads(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


SLEEPER = "297.125"  # the seconds a sandboxed learner's detached child sleeps: unique, so /proc finds it


def build_sandbox_submissions(folder: Path, exercise: Path) -> dict[str, str]:
    """Submissions that try what only a sandbox stops: writes by absolute path (from Python and from a
    shell) to another learner's submission and to the instructor's exercise notebook, a child process
    that leaves the kernel's session, and the network. ``alice`` is the victim."""
    folder.mkdir(parents=True, exist_ok=True)
    victim = folder / "alice.ipynb"
    made = {"alice": "the solution, and the victim", "untouched": "the exercise as handed out"}
    write(victim, notebook(solved()))
    write(folder / "untouched.ipynb", notebook(cells()))
    escape = (
        f"for target in [{str(victim)!r}, {str(exercise)!r}]:\n"
        "    try:\n        open(target, 'a').write('overwritten')\n"
        "    except OSError as exc:\n        print(exc)\n"
        f"import subprocess\nsubprocess.run('echo x >> {exercise}', shell=True)"
    )
    write(folder / "mallory.ipynb", notebook(cells(ANSWERS["double"], ANSWERS["greet"], extra={1: escape})))
    made["mallory"] = "writes to alice's submission and the exercise notebook by absolute path"
    write(
        folder / "detached.ipynb",
        notebook(
            cells(
                ANSWERS["double"],
                ANSWERS["greet"],
                extra={1: (f"import subprocess\nsubprocess.Popen(['sleep', '{SLEEPER}'], start_new_session=True)")},
            )
        ),
    )
    made["detached"] = "starts a child in a session of its own, which a process group kill misses"
    write(
        folder / "network.ipynb",
        notebook(
            cells(
                ANSWERS["double"],
                ANSWERS["greet"],
                extra={
                    1: (
                        "import socket\ninterfaces = [name for _, name in socket.if_nameindex()]\n"
                        "assert interfaces == ['lo'], f'network interfaces: {interfaces}'"
                    )
                },
            )
        ),
    )
    made["network"] = "fails a cell when it sees any network interface but its own loopback"
    write(folder / "segfault.ipynb", notebook(cells(ANSWERS["double"], "    import ctypes\n    ctypes.string_at(0)")))
    made["segfault"] = "an answer that segfaults (bwrap reports 128 + the signal)"
    write(
        folder / "relative.ipynb",
        notebook(
            cells(
                ANSWERS["double"],
                ANSWERS["greet"],
                extra={1: "open('../../escape.txt', 'w').write('out')\nopen('../../../escape_batch.txt', 'w').write('out')"},
            )
        ),
    )
    made["relative"] = "writes one and two levels above its scratch folder"
    return made
