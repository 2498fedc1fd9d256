"""The shape of a lesson: a short core path, optional material tagged ``deeper``.

The core path is every markdown cell not tagged ``deeper``; the course holds the eight
original lessons' core to 5,000 words together (about 20 minutes each) and each later lesson
to 700. Run ``python tests/test_lesson_shape.py`` for the table of words per lesson.
Lesson: every lesson notebook.
"""

import json
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
LESSONS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
FIRST_EIGHT_CORE_WORDS = 5000
LATER_LESSON_CORE_WORDS = 700


def prose_words(path: pathlib.Path) -> dict[str, int]:
    """Words of markdown prose in a notebook: {"core": n, "deeper": m}.

    The Colab/Kaggle header (cells tagged ``course-header``, written by ``make pairs``) is the
    same in every notebook and not lesson prose, so it counts for neither.
    """
    words = {"core": 0, "deeper": 0}
    for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
        tags = cell.get("metadata", {}).get("tags", [])
        if cell["cell_type"] == "markdown" and "course-header" not in tags:
            part = "deeper" if "deeper" in tags else "core"
            words[part] += len("".join(cell["source"]).split())
    return words


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


if __name__ == "__main__":
    total = {"core": 0, "deeper": 0}
    for path in LESSONS:
        words = prose_words(path)
        total = {k: total[k] + words[k] for k in total}
        print(f"{path.name:40s} core {words['core']:5d}  deeper {words['deeper']:5d}")
    print(f"{'total':40s} core {total['core']:5d}  deeper {total['deeper']:5d}")
