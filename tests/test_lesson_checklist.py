"""Every lesson has every part of "Adding a lesson" (docs/authoring.md); a missing part is named.

Lesson 10 touched 16 files and still missed its what-it-needs entry and 09's "Next:" link (issue 24).
``missing_parts(root, path)`` reads only files under ``root``, without importing them, so the same
rule is tried on a copy of the repository with a lesson that lacks everything.
"""

from __future__ import annotations

import ast
import re
import runpy
import shutil
from pathlib import Path

import pytest

from course_authoring.header import README_END, README_START, TAG
from course_authoring.lesson_links import LINKS_END, LINKS_START, README_BLOCK
from course_authoring.lesson_map import COVERS_TABLE, LESSONS_TABLE, NEEDS_END, NEEDS_START

ROOT = Path(__file__).resolve().parents[1]


def lessons(root: Path) -> list[Path]:
    return sorted((root / "notebooks").glob("[0-9][0-9]_*.py"))


def registered(check_module: Path, decorator: str) -> list[str]:
    """The ids a check module registers with ``@exercise("NN.K", ...)`` or ``@try_it("NN.x", ...)``."""
    ids = []
    for node in ast.walk(ast.parse(check_module.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == decorator and node.args:
            if isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
                ids.append(node.args[0].value)
    return ids


def wrong_answer_ids(root: Path, number: str) -> list[str]:
    """The exercise id of every entry of ``WRONG`` in tests/test_checks_wrong_answers.py (lessons 01 to 09) and in
    the lesson's tests/wrong_answers_nbNN.py."""
    ids = []
    for path in (root / "tests" / "test_checks_wrong_answers.py", root / "tests" / f"wrong_answers_nb{number}.py"):
        if not path.exists():
            continue
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if (
                isinstance(node, ast.Assign)
                and any(getattr(t, "id", None) == "WRONG" for t in node.targets)
                and isinstance(node.value, ast.List)
            ):
                ids += [e.elts[0].value for e in node.value.elts if isinstance(e, ast.Tuple) and isinstance(e.elts[0], ast.Constant)]
    return ids


def try_it_case_ids(path: Path) -> list[str]:
    """The try-it id of every ``Case("NN.x", ...)`` in a lesson's tests/wrong_answers_nbNN.py."""
    if not path.exists():
        return []
    return [
        n.args[0].value
        for n in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(n, ast.Call) and getattr(n.func, "id", None) == "Case" and n.args and isinstance(n.args[0], ast.Constant)
    ]


def rule_ids(path: Path) -> list[str]:
    """The exercise ids a hidden-cases module's ``RULES = {"NN.M": rule, ...}`` draws cases for."""
    if not path.exists():
        return []
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "RULES" for t in node.targets) and isinstance(node.value, ast.Dict):
            return [k.value for k in node.value.keys if isinstance(k, ast.Constant)]
    return []


def table_numbers(readme: str, head: str) -> set[str]:
    """The lesson numbers in the first column of the table under ``head`` (or the marked block)."""
    if head not in readme:
        return set()
    rows = readme[readme.index(head) :].split("\n\n")[0].splitlines()
    return {m.group(1) for row in rows for m in [re.match(r"\|\s*(\d\d)\s*\|", row)] if m}


def next_paragraph(text: str) -> str:
    """The lesson's closing "**Next:**" paragraph, as one line ("" when it has none)."""
    start = text.find("# **Next:**")
    if start < 0:
        return ""
    lines = []
    for line in text[start:].splitlines():
        if line.strip() in ("#", "") or line.startswith("# %%"):
            break
        lines.append(line.removeprefix("# "))
    return " ".join(lines)


def missing_parts(root: Path, lesson: Path) -> list[str]:
    """What lesson ``notebooks/NN_name.py`` under ``root`` lacks of the checklist in docs/authoring.md."""
    number, stem = lesson.name[:2], lesson.stem
    missing = []
    text = lesson.read_text(encoding="utf-8")
    if not lesson.with_suffix(".ipynb").exists():
        missing.append(f"the notebook's .ipynb side, notebooks/{stem}.ipynb (make pairs)")
    if f'tags=["{TAG}"]' not in text:
        missing.append("the header cells (tag course-header; make pairs writes them)")
    if not (NEEDS_START in text and NEEDS_END in text):
        missing.append(f"the intro's needs table: the lines `# {NEEDS_START}` and `# {NEEDS_END}` in the first cell")

    checks = root / "src" / "course_utils" / "checks" / f"nb{number}.py"
    exercises = registered(checks, "exercise") if checks.exists() else []
    try_its = registered(checks, "try_it") if checks.exists() else []
    if not checks.exists():
        missing.append(f"its check module, src/course_utils/checks/nb{number}.py")
    tests = root / "tests" / f"wrong_answers_nb{number}.py"
    if not tests.exists():
        missing.append(f"its tests, tests/wrong_answers_nb{number}.py (TRY_ITS, and WRONG with exercises)")
    else:
        cases = try_it_case_ids(tests)
        untested = [i for i in try_its if i not in cases]
        if untested:
            missing.append(f"cases for try-it {', '.join(untested)} in TRY_ITS (tests/wrong_answers_nb{number}.py)")
    wrong = wrong_answer_ids(root, number)
    short = [i for i in exercises if wrong.count(i) < 2]
    if short:
        missing.append(f"two wrong answers or more for {', '.join(short)} in WRONG (tests/wrong_answers_nb{number}.py)")
    answers = root / "solutions" / "try_its" / f"{stem}.py"
    shown = answers.read_text(encoding="utf-8") if answers.exists() else ""
    unanswered = [i for i in try_its if f"# %% try-it {i}\n" not in shown]
    if unanswered:
        missing.append(f"the answer to try-it {', '.join(unanswered)} in solutions/try_its/{stem}.py (a section starting `# %% try-it NN.x`)")
    hidden = root / "src" / "course_grader" / "hidden_cases" / f"nb{number}.py"
    if exercises and not rule_ids(hidden):
        missing.append(f"the grading run's own cases, RULES in src/course_grader/hidden_cases/nb{number}.py")

    solution = root / "solutions" / f"{stem}_exercises.py"
    if exercises and not solution.exists():
        missing.append(f"the solutions notebook solutions/{stem}_exercises.py (its check module registers {', '.join(exercises)})")
    if solution.exists() and not exercises:
        missing.append(f"exercises registered in checks/nb{number}.py for solutions/{solution.name}")
    if solution.exists():
        for side in (solution.with_suffix(".ipynb"), root / "exercises" / solution.name, root / "exercises" / f"{solution.stem}.ipynb"):
            if not side.exists():
                missing.append(f"{side.relative_to(root)} (make pairs writes it from the solutions notebook)")

    needs = root / "src" / "course_utils" / "lesson_needs.py"
    entries = runpy.run_path(str(needs))["LESSONS"] if needs.exists() else ()
    if not any(e[0] == number and e[2] == f"notebooks/{stem}.ipynb" for e in entries):
        missing.append("its entry in src/course_utils/lesson_needs.py (make pairs)")

    if not README_BLOCK.search(text):
        missing.append("the readme block in its first cell (`# <!-- readme`, `# learn: ...`, `# covers: ...`, `# -->`)")
    if f"# {LINKS_START}" not in text or f"# {LINKS_END}" not in text:
        missing.append(f"the closing links' markers, `# {LINKS_START}` and `# {LINKS_END}`, in its last summary cell")
    readme = (root / "README.md").read_text(encoding="utf-8")
    for what, head in (("The lessons", LESSONS_TABLE), ("What each lesson covers", COVERS_TABLE), ("Open in Colab or Kaggle", README_START)):
        if number not in table_numbers(readme, head):
            missing.append(f'its row in README\'s table under "{what}" (make pairs)')
    if README_END not in readme:
        missing.append("README's Colab/Kaggle table end marker")

    everyone = lessons(root)
    later = [p for p in everyone if p.name > lesson.name]
    closing = next_paragraph(text)
    if not closing:
        missing.append("a closing **Next:** paragraph (make pairs)")
    elif later and f"{later[0].stem}.ipynb" not in closing:
        missing.append(f"a **Next:** link to the next lesson, {later[0].stem}.ipynb (make pairs)")
    elif not later and "last lesson" not in closing:
        missing.append("a **Next:** paragraph that says this is the last lesson (make pairs)")
    earlier = [p for p in everyone if p.name < lesson.name]
    if earlier and f"{stem}.ipynb" not in next_paragraph(earlier[-1].read_text(encoding="utf-8")):
        missing.append(f"the **Next:** link to it at the end of the lesson before, {earlier[-1].name} (make pairs)")
    return missing


@pytest.mark.parametrize("lesson", lessons(ROOT), ids=lambda p: p.name[:2])
def test_every_lesson_has_every_part_of_the_checklist(lesson):
    missing = missing_parts(ROOT, lesson)
    assert not missing, f'{lesson.name} lacks (docs/authoring.md, "Adding a lesson"):\n- ' + "\n- ".join(missing)


def test_a_lesson_without_its_parts_is_named_part_by_part(tmp_path):
    for name in ("notebooks", "tests", "solutions", "exercises"):
        shutil.copytree(ROOT / name, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__", "*.ipynb"))
    for wing in ("course_utils", "course_grader"):
        shutil.copytree(ROOT / "src" / wing, tmp_path / "src" / wing, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "README.md", tmp_path / "README.md")
    for folder in ("notebooks", "solutions", "exercises"):  # the .ipynb sides, present but not copied
        for py in (tmp_path / folder).glob("*.py"):
            py.with_suffix(".ipynb").touch()
    last = lessons(tmp_path)[-1]
    fake = tmp_path / "notebooks" / f"{int(last.name[:2]) + 1:02d}_a_lesson_in_progress.py"
    fake.write_text("# %% [markdown]\n# # A lesson in progress\n")

    missing = "\n".join(missing_parts(tmp_path, fake))
    for part in (
        ".ipynb side",
        "header cells",
        "needs table",
        "readme block",
        "closing links' markers",
        "check module",
        "its tests, tests/wrong_answers_nb",
        "lesson_needs.py",
        '"The lessons"',
        '"What each lesson covers"',
        '"Open in Colab or Kaggle"',
        "closing **Next:**",
        f"the lesson before, {last.name}",
    ):
        assert part in missing, f"the checklist did not notice the lesson lacks {part}:\n{missing}"
    assert missing_parts(tmp_path, last) == [f"a **Next:** link to the next lesson, {fake.stem}.ipynb (make pairs)"]

    n = fake.name[:2]  # with a check module that registers an exercise and a try-it, and an empty try-it test file
    (tmp_path / "src" / "course_utils" / "checks" / f"nb{n}.py").write_text(
        f'@exercise("{n}.1", "t", "f")\ndef _f(f):\n    pass\n\n@try_it("{n}.a", "t", "x")\ndef _x(x):\n    pass\n'
    )
    (tmp_path / "tests" / f"wrong_answers_nb{n}.py").write_text("TRY_ITS = []\n")
    missing = "\n".join(missing_parts(tmp_path, fake))
    for part in (
        f"cases for try-it {n}.a",
        f"two wrong answers or more for {n}.1",
        f"solutions/{fake.stem}_exercises.py",
        f"the answer to try-it {n}.a",
        f"hidden_cases/nb{n}.py",
    ):
        assert part in missing, f"the checklist did not notice the lesson lacks {part}:\n{missing}"


# A lesson of exactly the six hand-written files docs/authoring.md lists; make pairs writes everything else.
SIX_FILES = {
    "notebooks/{stem}.py": """# %% [markdown]
# # {n} · A lesson in progress
#
# You will be able to:
# - read where a tensor lives.
#
# <!-- readme (make pairs writes README's rows from these lines)
# learn: where a tensor lives, read from `.device`
# covers: where a tensor lives, read from `.device`, and nothing more yet
# -->
#
# <!-- lesson-needs:start, written by make pairs -->
# <!-- lesson-needs:end -->

# %%
import torch

from course_utils.checks import check
from course_utils.devices import pick_device

device = pick_device()

# %% [markdown]
# ## 1. Where it lives

# %% tags=["try-it"]
where = torch.zeros(2).device
check("{n}.a")

# %% [markdown]
# ## Summary
#
# - `.device` says where a tensor lives.
#
# <!-- next-links:start, written by make pairs -->
# <!-- next-links:end -->
""",
    "src/course_utils/checks/nb{n}.py": """from course_utils.checks._core import Wrong, exercise, try_it


@try_it("{n}.a", "Where it lives", "where", kind="value")
def _where(where):
    if str(where) != "cpu":
        raise Wrong("Not the CPU.")
    return "Right."


@exercise("{n}.1", "Twice", "twice")
def _twice(twice):
    if twice(2) != 4:
        raise Wrong("twice(2) should be 4.")
    return "Right."
""",
    "solutions/try_its/{stem}.py": "# %% try-it {n}.a\nwhere = torch.zeros(2).device\n",
    "tests/wrong_answers_nb{n}.py": """from try_it_support import Case

WRONG = [("{n}.1", lambda x: x, "4"), ("{n}.1", lambda x: x + 2, "4")]
TRY_ITS = [Case("{n}.a", "where = 'cpu'", "pass"), Case("{n}.a", "where = 'meta'", "fail", "CPU"),
           Case("{n}.a", "where = 0", "fail", "CPU")]
""",
    "solutions/{stem}_exercises.py": """# %% [markdown]
# # {n} · A lesson in progress: exercises

# %%
from course_utils.checks import check

# %% [markdown]
# ## Exercise {n}.1 · Twice

# %%
def twice(x):
    ### BEGIN SOLUTION
    return 2 * x
    ### END SOLUTION

# %%
check("{n}.1")
""",
    "src/course_grader/hidden_cases/nb{n}.py": 'RULES = {{"{n}.1": lambda rng: [rng.randint(1, 9)]}}\n',
}


def test_a_lesson_of_six_hand_written_files_is_complete_after_make_pairs(tmp_path):
    """docs/authoring.md's promise (issue 32, item 6): the six files, then `make pairs`, and nothing is missing,
    README's rows and the lesson before's Next link included."""
    from course_authoring import exercises, header, pairing

    for name in ("notebooks", "tests", "solutions", "exercises", "src"):
        shutil.copytree(ROOT / name, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    for name in ("README.md", "pyproject.toml"):
        shutil.copy(ROOT / name, tmp_path / name)
    last = lessons(tmp_path)[-1]
    n = f"{int(last.name[:2]) + 1:02d}"
    stem = f"{n}_a_lesson_in_progress"
    for path, text in SIX_FILES.items():
        target = tmp_path / path.format(n=n, stem=stem)
        target.write_text(text.format(n=n, stem=stem), encoding="utf-8")
    new = tmp_path / "notebooks" / f"{stem}.py"
    assert missing_parts(tmp_path, new)  # before make pairs: the generated parts are missing

    # make pairs, as the Makefile runs it, on the copy
    header.write(tmp_path)
    for folder in ("notebooks", "solutions"):
        for py in sorted((tmp_path / folder).glob("*.py")):
            pairing.write_pair(py)
    assert exercises.main(["--write", "--solutions", str(tmp_path / "solutions"), "--exercises", str(tmp_path / "exercises")]) == 0

    assert missing_parts(tmp_path, new) == []
    assert missing_parts(tmp_path, last) == []  # the lesson before now links to it
    readme = (tmp_path / "README.md").read_text(encoding="utf-8")
    assert f"| {n} | `{stem}.ipynb` | where a tensor lives, read from `.device` |" in readme
