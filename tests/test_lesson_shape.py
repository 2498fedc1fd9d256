"""The shape of a lesson: a short core path, optional material tagged ``deeper``.

The core path is every markdown cell not tagged ``deeper``; the course holds the eight
original lessons' core to 5,000 words together (about 20 minutes each) and each later lesson
to 700. Run ``python tests/test_lesson_shape.py`` for the table of words per lesson.
The cross-reference tests hold every "notebook NN, part K", "part K", "exercise NN.K" and
"Next:" line to something that exists (issue 22, item 4), and every Markdown link to a notebook
to one that opens in the learner's workspace (lessons and exercises side by side).
Lesson: every lesson notebook.
"""

import ast
import builtins
import json
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
LESSONS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
FIRST_EIGHT_CORE_WORDS = 5000
LATER_LESSON_CORE_WORDS = 700


def prose_words(path: pathlib.Path) -> dict[str, int]:
    """Words of markdown prose in a notebook: {"core": n, "deeper": m}.

    The Colab/Kaggle header (cells tagged ``course-header``, written by ``make pairs``) is the
    same in every notebook and not lesson prose, so it counts for neither. A word is a token with
    a letter in it: the intro's generated needs table counts for its words, not its ``|`` signs.
    """
    words = {"core": 0, "deeper": 0}
    for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
        tags = cell.get("metadata", {}).get("tags", [])
        if cell["cell_type"] == "markdown" and "course-header" not in tags:
            part = "deeper" if "deeper" in tags else "core"
            words[part] += count_words("".join(cell["source"]))
    return words


def count_words(text: str) -> int:
    """Words a reader reads: tokens with a letter in them, so a table's ``|`` and ``---`` are not words, outside
    HTML comments, which Jupyter does not show (the readme block README's rows are written from, the markers)."""
    shown = re.sub(r"<!--.*?-->", " ", text, flags=re.S)
    return sum(1 for token in shown.split() if any(ch.isalpha() for ch in token))


def test_the_first_eight_lessons_core_fits_an_evening():
    core = {p.name: prose_words(p)["core"] for p in LESSONS if p.name[:2] <= "08"}
    assert sum(core.values()) <= FIRST_EIGHT_CORE_WORDS, core


@pytest.mark.parametrize("path", [p for p in LESSONS if p.name[:2] > "08"], ids=lambda p: p.name[:2])
def test_a_later_lesson_core_stays_short(path):
    assert prose_words(path)["core"] <= LATER_LESSON_CORE_WORDS


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.name[:2])
def test_every_lesson_marks_its_optional_material(path):
    """A lesson keeps its depth for the curious, tagged so tools and learners can tell it apart."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    assert any("deeper" in c.get("metadata", {}).get("tags", []) for c in cells), path.name


def bound_names(tree: ast.AST) -> set[str]:
    """Every name a cell binds: assignments, loop and with targets, imports, defs and classes."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
    return names


def python_of(source: str) -> ast.AST:
    """A code cell as Python: IPython's %magic and !shell lines become blank lines."""
    lines = ["" if line.lstrip().startswith(("%", "!")) else line for line in source.splitlines()]
    return ast.parse("\n".join(lines))


def core_names_only_deeper_cells_define(path: pathlib.Path) -> list[tuple[int, str]]:
    """(cell number, name) for each core code cell that reads a name which, at that point, only a
    ``deeper`` cell has defined: the NameError a learner who skips the optional material would meet.

    Static, so it misses what is not a name (a default device or a seed a deeper cell set);
    that is the reason to keep state-changing cells in the core.
    """
    core, deeper, found = set(dir(builtins)), set(), []
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    for number, cell in enumerate(cells, start=1):
        if cell["cell_type"] != "code":
            continue
        tree = python_of("".join(cell["source"]))
        if "deeper" in cell.get("metadata", {}).get("tags", []):
            deeper |= bound_names(tree)
            continue
        own = bound_names(tree)
        read = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
        found += [(number, name) for name in sorted(read - own - core) if name in deeper]
        core |= own
    return found


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.name[:2])
def test_the_core_path_runs_without_the_deeper_cells(path):
    """Deeper cells are optional: skipping them must not leave a core cell with an undefined name."""
    missing = core_names_only_deeper_cells_define(path)
    assert not missing, (
        f"{path.name}: these core cells read names only a deeper cell defines, so a "
        f"learner who skips the deeper material gets a NameError (cell, name): {missing}. "
        "Define the name in a core cell, or tag the reading cell deeper too."
    )


# ----------------------------------------------------------------- Deeper blocks fold (issue 22, item 3)


def _first_line(cell: dict) -> str:
    return ("".join(cell["source"]).strip().splitlines() or [""])[0][:80]


def deeper_placement_problems(path: pathlib.Path) -> list[str]:
    """Cells that folding would get wrong: a ``deeper`` cell outside every Deeper block (it would
    stay open), and a core cell under a Deeper heading (folding would hide it; ``make pairs``
    then leaves that block open instead)."""
    from course_authoring.pairing import deeper_blocks

    cells = _cells(path)
    blocks = deeper_blocks(cells)
    inside = {i for b in blocks for i in (b.heading, *b.cells)}
    problems = []
    for b in blocks:
        heading = _first_line(cells[b.heading])
        problems += [
            f"{path.name} cell {i}: core (untagged) cell under the Deeper heading of cell {b.heading} ({heading!r}): {_first_line(cells[i])!r}"
            for i in b.core
        ]
    for i, cell in enumerate(cells):
        if "deeper" in cell.get("metadata", {}).get("tags", []) and i not in inside:
            problems.append(f"{path.name} cell {i}: tagged deeper but under no Deeper heading: {_first_line(cell)!r}")
    return problems


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.name[:2])
def test_deeper_material_sits_under_a_deeper_heading_and_nothing_else_does(path):
    """Folding a Deeper heading hides what is under it up to the next heading of its level or higher:
    that must be all of the optional material, and none of the core."""
    problems = deeper_placement_problems(path)
    assert not problems, (
        f"{len(problems)} cell(s) would fold wrongly. A Deeper block is a markdown cell starting "
        "'### Deeper: ...' (or ## / ####) and every cell after it up to the next heading of the same or a "
        "higher level; all of them must be tagged deeper. Move core cells out (or start the core again "
        "with a heading), and put deeper cells under a Deeper heading:\n" + "\n".join(problems)
    )


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.name[:2])
def test_a_deeper_heading_cell_holds_only_its_heading(path):
    """JupyterLab folds the cells below a heading, not the heading cell: prose in it stays open."""
    from course_authoring.pairing import deeper_blocks

    cells = _cells(path)
    open_words = []
    for b in deeper_blocks(cells):
        text = "".join(cells[b.heading]["source"]).strip()
        rest = len(text.split()) - len(text.splitlines()[0].split())
        if rest:
            open_words.append(
                f"{path.name} cell {b.heading} ({_first_line(cells[b.heading])!r}): {rest} words "
                "after the heading stay visible when the block is folded"
            )
    assert not open_words, (
        "Split each of these cells after its heading line (in the .py: a new "
        '`# %% [markdown] tags=["deeper"]` cell for the prose):\n' + "\n".join(open_words)
    )


# ----------------------------------------------------------------- cross-references (issue 22, item 4)

NOTEBOOK_DIRS = ("notebooks", "solutions", "exercises")
_LIST = r"[0-9A-Z]{1,2}(?:(?:, | and | or | to |–|-)[0-9A-Z]{1,2}\b)*"
_NOTEBOOK_REF = re.compile(rf"\b(?:[Nn]otebook|[Ll]esson)s? (\d\d(?:(?:, | and | or | to |–)\d\d)*)(?:,? parts? ({_LIST}))?")
_PART_REF = re.compile(rf"\b[Pp]arts? ({_LIST})\b")
_EXERCISE_REF = re.compile(r"\b[Ee]xercises? (\d\d\.\d+(?:(?:, | and | or | to |–)\d\d\.\d+)*)")
_FILE_REF = re.compile(r"([\w./-]*\d\d_[\w-]+\.ipynb)")
_PART_HEADING = re.compile(r"^#{2,3} (\d+|[A-Z])[.·:]", re.MULTILINE)
_LINK_TARGET = re.compile(r"\]\(([^)\s]+)\)")
_EXTERNAL = re.compile(r"^([a-z][a-z0-9+.-]*:|#)", re.IGNORECASE)


def _items(listed: str) -> list[str]:
    """'2 and 6' -> ['2', '6']; '1 to 3' -> ['1', '3'] (a range's two ends are what must exist)."""
    return re.split(r", | and | or | to |–|-", listed)


def _cells(path: pathlib.Path) -> list[dict]:
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def _text(cell: dict) -> str:
    return " ".join("".join(cell["source"]).split())  # one line: a reference may wrap


def _parts(path: pathlib.Path) -> set[str]:
    """The part labels of a notebook: its "## 1." (or "## A.") headings."""
    return {m.group(1) for c in _cells(path) if c["cell_type"] == "markdown" for m in _PART_HEADING.finditer("".join(c["source"]))}


def _lessons() -> dict[str, pathlib.Path]:
    return {p.name[:2]: p for p in LESSONS}


def _course_files() -> set[str]:
    return {p.name for d in ("notebooks", "exercises") for p in (ROOT / d).glob("[0-9][0-9]_*.ipynb")}


def workspace_link_problems(markdown: str) -> list[str]:
    """What is wrong with each notebook a Markdown link opens, read as the learner's workspace reads it.

    ``make lab`` copies the lessons (notebooks/) and the exercises (exercises/) side by side into
    one folder, so a link names a notebook by its bare name, and that name must exist in
    notebooks/ or exercises/ (the website resolves it the same way: course_authoring.site). A folder
    in the link, or a name in neither, opens nothing in the workspace. ``#part-K`` must be a part
    of the lesson linked, ``#exercise-NN-K`` an exercise that exists."""
    from course_utils.checks import all_exercises

    files = _course_files()
    problems = []
    for m in _LINK_TARGET.finditer(markdown):
        target = m.group(1)
        path, _, fragment = target.partition("#")
        if _EXTERNAL.match(target) or not path.endswith(".ipynb"):
            continue
        name = pathlib.PurePosixPath(path).name
        if name not in files:
            problems.append(
                f"'{target}': no lesson or exercise notebook is called {name} (the workspace holds notebooks/ and exercises/ side by side)"
            )
        elif "/" in path:
            problems.append(
                f"'{target}': the workspace holds lessons and exercises side by side in one folder, so this opens nothing there: link `{name}`"
            )
        elif part := re.fullmatch(r"part-(\w+)", fragment):
            lesson = ROOT / "notebooks" / name
            if not lesson.is_file() or part.group(1).upper() not in {k.upper() for k in _parts(lesson)}:
                problems.append(f"'{target}': {name} has no part {part.group(1)}")
        elif exercise := re.fullmatch(r"exercise-(\d\d)-(\d+)", fragment):
            if f"{exercise.group(1)}.{exercise.group(2)}" not in set(all_exercises()):
                problems.append(f"'{target}': there is no exercise {exercise.group(1)}.{exercise.group(2)}")
    return problems


@pytest.mark.parametrize(
    "markdown, wrong",
    [
        (
            "**Next:** [01_device_query_exercises.ipynb](01_device_query_exercises.ipynb); then "
            "[02_tensor_placement.ipynb](02_tensor_placement.ipynb#part-2).",
            [],
        ),
        ("[x](05_error_clinic_exercises.ipynb#exercise-05-2) [y](../README.md) [z](https://example.org/a.ipynb)", []),
        ("[x](01_device_query_exercise.ipynb)", ["no lesson or exercise notebook is called 01_device_query_exercise.ipynb"]),
        ("[x](../exercises/01_device_query_exercises.ipynb)", ["side by side in one folder"]),
        ("[x](notebooks/02_tensor_placement.ipynb)", ["side by side in one folder"]),
        ("[x](02_tensor_placement.ipynb#part-99)", ["has no part 99"]),
        ("[x](05_error_clinic_exercises.ipynb#exercise-05-99)", ["there is no exercise 05.99"]),
    ],
)
def test_a_link_resolves_as_the_workspace_lays_notebooks_out(markdown, wrong):
    problems = workspace_link_problems(markdown)
    assert len(problems) == len(wrong) and all(w in p for w, p in zip(wrong, problems)), problems


def broken_references(path: pathlib.Path) -> list[str]:
    """Every cross-reference in one notebook that points nowhere, as "file cell N: 'text': why"."""
    from course_utils.checks import all_exercises

    lessons, exercises, files = _lessons(), set(all_exercises()), _course_files()
    own = path.name[:2]
    own_parts = _parts(lessons[own]) if path.parent.name == "notebooks" and own in lessons else set()
    bad = []
    for number, cell in enumerate(_cells(path)):
        if "course-header" in cell.get("metadata", {}).get("tags", []):
            continue
        text = _text(cell)
        where = f"{path.parent.name}/{path.name} cell {number}"
        covered = []
        for m in _NOTEBOOK_REF.finditer(text):
            covered.append(m.span())
            for nn in _items(m.group(1)):
                if nn not in lessons:
                    bad.append(f"{where}: '{m.group(0)}': there is no lesson {nn}")
                    continue
                if m.group(2) and len(_items(m.group(1))) == 1:
                    parts = _parts(lessons[nn])
                    for k in _items(m.group(2)):
                        if k not in parts:
                            bad.append(
                                f"{where}: '{m.group(0)}': notebook {nn} has no part {k} "
                                f"(its parts: {', '.join(sorted(parts, key=lambda p: (len(p), p)))})"
                            )
        for m in _PART_REF.finditer(text):
            if any(start <= m.start() < end for start, end in covered):
                continue
            if path.parent.name != "notebooks":
                bad.append(f"{where}: '{m.group(0)}': an exercise notebook has no parts; say which lesson (notebook NN, part K)")
                continue
            for k in _items(m.group(1)):
                if k not in own_parts:
                    bad.append(
                        f"{where}: '{m.group(0)}': this notebook has no part {k} "
                        f"(its parts: {', '.join(sorted(own_parts, key=lambda p: (len(p), p)))})"
                    )
        for m in _EXERCISE_REF.finditer(text):
            for k in _items(m.group(1)):
                if k not in exercises:
                    bad.append(f"{where}: '{m.group(0)}': there is no exercise {k}")
        if cell["cell_type"] == "markdown" and "Next" in text:
            for m in _FILE_REF.finditer(text):
                if pathlib.PurePosixPath(m.group(1)).name not in files:
                    bad.append(f"{where}: '{m.group(1)}': no such lesson or exercise notebook")
        if cell["cell_type"] == "markdown":
            bad += [f"{where}: link {problem}" for problem in workspace_link_problems("".join(cell["source"]))]
    return bad


ALL_NOTEBOOKS = sorted(p for d in NOTEBOOK_DIRS for p in (ROOT / d).glob("[0-9][0-9]_*.ipynb"))


@pytest.mark.parametrize("path", ALL_NOTEBOOKS, ids=lambda p: f"{p.parent.name}/{p.name[:2]}")
def test_every_cross_reference_resolves(path):
    """ "notebook NN, part K", a bare "part K", "exercise NN.K", "lesson NN" and the files a Next line names."""
    bad = broken_references(path)
    assert not bad, f"{len(bad)} cross-reference(s) point nowhere; fix the text in the .py side and run `make pairs`:\n" + "\n".join(bad)


def next_link_problems(path: pathlib.Path) -> list[str]:
    """What the end of a lesson's core path lacks: a Next line naming the following lesson's notebook
    and this lesson's exercise notebook (the last lesson: its exercises, and that the course ends)."""
    own = int(path.name[:2])
    core = [
        (n, c)
        for n, c in enumerate(_cells(path))
        if c["cell_type"] == "markdown" and not {"deeper", "course-header"} & set(c.get("metadata", {}).get("tags", []))
    ]
    number, last = core[-1]
    text = _text(last)
    where = f"notebooks/{path.name} cell {number} (its last core markdown cell)"
    named = {pathlib.PurePosixPath(m.group(1)).name for m in _FILE_REF.finditer(text)}
    problems = []
    if "Next:" not in text:
        problems.append(f"{where} has no 'Next:' line")
    following = sorted((ROOT / "notebooks").glob(f"{own + 1:02d}_*.ipynb"))
    if following and following[0].name not in named:
        problems.append(f"{where}: the Next line should name the following lesson, `{following[0].name}`")
    if not following and not re.search(r"end of the course|course is (finished|complete|over)|README", text):
        problems.append(f"{where}: the last lesson should say that the course is finished, or point back to README")
    exercises = sorted((ROOT / "exercises").glob(f"{own:02d}_*_exercises.ipynb"))
    if exercises and exercises[0].name not in named:
        problems.append(f"{where}: it should name this lesson's exercises, `{exercises[0].name}`")
    return problems


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.name[:2])
def test_every_lesson_ends_with_next_links(path):
    problems = next_link_problems(path)
    assert not problems, (
        "\n".join(problems) + "\nFor example, as lesson 01 ends: **Exercises:** "
        "`exercises/01_device_query_exercises.ipynb`. **Next:** `02_tensor_placement.ipynb`."
    )


if __name__ == "__main__":
    total = {"core": 0, "deeper": 0}
    for path in LESSONS:
        words = prose_words(path)
        total = {k: total[k] + words[k] for k in total}
        print(f"{path.name:40s} core {words['core']:5d}  deeper {words['deeper']:5d}")
    print(f"{'total':40s} core {total['core']:5d}  deeper {total['deeper']:5d}")
    print("Minutes per lesson's core path: benchmarks/core_path_minutes.py")
