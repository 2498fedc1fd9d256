"""What each lesson needs is computed from the notebooks, and every place that says it agrees.

``make pairs`` writes it into ``course_utils/lesson_needs.py`` (read by ``preflight()``), each
lesson's intro table and README's two lesson tables; a notebook that gains or loses a GPU-only
cell makes all of them stale, and ``header.stale`` (``make check-pairs``) says so.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from course_authoring import header, lesson_map
from course_utils import lessons

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def course_copy(tmp_path):
    """The files ``header.expected`` reads, copied: notebooks, solutions, README, pyproject, the module."""
    for folder in ("notebooks", "solutions"):
        (tmp_path / folder).mkdir()
        for path in (ROOT / folder).glob("[0-9][0-9]_*.py"):
            shutil.copy(path, tmp_path / folder / path.name)
    for name in ("README.md", "pyproject.toml", header.NEEDS_MODULE):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / name, tmp_path / name)
    return tmp_path


def test_the_generated_module_matches_the_notebooks():
    assert lessons.course() == lesson_map.scan_course(ROOT), "run `make pairs`"
    assert [lesson.number for lesson in lessons.course()] == [p.name[:2] for p in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.py"))]


def test_every_gpu_cell_is_found_with_its_part_and_count():
    by_key = {c.key: (lesson.number, c) for lesson in lessons.course() for c in lesson.cells}
    # 01: the per-GPU property listing (part 1, core) and the in-process CUDA_VISIBLE_DEVICES demo (part 4, deeper).
    assert by_key["01-gpu-properties"][1] == lessons.GpuCell("01-gpu-properties", 1, "the per-GPU property listing", "1", False)
    assert by_key["01-visible-devices-after-init"][1].gpus == 2 and by_key["01-visible-devices-after-init"][1].deeper
    assert by_key["07-device-of-switch"][1].part == "A"
    # any accelerator: gated (if gpu := needs_accelerator(...)) and not (gpu = needs_accelerator(...))
    assert by_key["02-round-trip"][1].needs == by_key["03-module-cuda"][1].needs == "accelerator"
    assert by_key["03-module-cuda"][1].what == "Module.to(device) in place" and by_key["04-set-device"][1].needs == "cuda"
    assert all(key.startswith(number + "-") for key, (number, _) in by_key.items())
    assert sum(len(lesson.cells) for lesson in lessons.course()) == len(by_key)


def test_readme_and_intro_say_what_the_notebooks_need():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for lesson in lessons.course():
        assert f"| {lesson.number} | `notebooks/{Path(lesson.notebook).name}` |" in readme
        row = next(line for line in readme.splitlines() if line.startswith(f"| {lesson.number} | `notebooks/"))
        assert row.endswith(f"| {lesson_map.runs_for_real_with(lesson.cells)} |"), row
        intro = (ROOT / "notebooks" / (Path(lesson.notebook).stem + ".py")).read_text(encoding="utf-8")
        assert f"# {lesson_map.NEEDS_START}" in intro.split("# %%")[1], "the table belongs in the first cell"


def test_a_new_gpu_cell_makes_every_place_stale(course_copy):
    assert header.stale(course_copy) == []
    lesson = course_copy / "notebooks" / "10_models_bigger_than_a_device.py"
    lesson.write_text(
        lesson.read_text(encoding="utf-8") + '\n# %%\nif gpu := needs_cuda(2, what="another demo", key="10-another"):\n'
        "    pass\nelse:\n    display(gpu)\n",
        encoding="utf-8",
    )
    problems = header.stale(course_copy)
    stale_files = sorted(p.split(":")[0] for p in problems)
    assert stale_files == ["README.md", "notebooks/10_models_bigger_than_a_device.py", header.NEEDS_MODULE]
    header.write(course_copy)
    assert header.stale(course_copy) == []
    assert "| 1 needs a CPU" not in (course_copy / "README.md").read_text()
    assert "2 need 2 GPUs" in (course_copy / "README.md").read_text()


def test_a_readme_row_removed_by_hand_comes_back_from_the_lesson(course_copy):
    """README's lesson rows are written from each lesson's readme block (course_authoring.lesson_links)."""
    readme = course_copy / "README.md"
    text = readme.read_text(encoding="utf-8")
    kept = [line for line in text.split("\n") if not line.startswith("| 09 | `notebooks/")]
    readme.write_text("\n".join(kept), encoding="utf-8")
    assert header.expected(course_copy)[readme] == text


def test_a_lesson_without_its_readme_block_is_an_error_that_says_what_to_add(course_copy):
    lesson = course_copy / "notebooks" / "09_data_loading_and_memory.py"
    text = lesson.read_text(encoding="utf-8")
    lesson.write_text(text.replace("# <!-- readme", "# <!-- gone"), encoding="utf-8")
    with pytest.raises(lesson_map.MakePairsError, match=r"09_data_loading_and_memory.py: the first cell should hold a readme block"):
        header.expected(course_copy)


def test_a_lesson_without_its_closing_links_markers_is_an_error_that_says_where_they_go(course_copy):
    lesson = course_copy / "notebooks" / "09_data_loading_and_memory.py"
    text = lesson.read_text(encoding="utf-8")
    lesson.write_text(text.replace("next-links:end", "gone"), encoding="utf-8")
    with pytest.raises(lesson_map.MakePairsError, match="next-links:start"):
        header.expected(course_copy)


def test_an_intro_without_its_markers_is_an_error_that_says_where_they_go(course_copy):
    lesson = course_copy / "notebooks" / "02_tensor_placement.py"
    lesson.write_text(lesson.read_text(encoding="utf-8").replace(lesson_map.NEEDS_END, "gone"), encoding="utf-8")
    with pytest.raises(lesson_map.MakePairsError, match="lesson-needs:end"):
        header.expected(course_copy)


def test_the_without_a_gpu_paragraph_is_true_about_recordings():
    lesson = next(n for n in lessons.course() if n.number == "02")
    keys = [c.key for c in lesson.cells if c.needs == "cuda"]
    nothing = lesson_map.without_a_gpu(lesson, frozenset())
    assert "folds away the PyTorch source behind it" in nothing and "real GPU" not in nothing
    assert "shows what a real GPU printed there" in lesson_map.without_a_gpu(lesson, frozenset(keys))
    assert f"(1 of {len(keys)} cells)" in lesson_map.without_a_gpu(lesson, frozenset(keys[:1]))


def test_accelerator_cells_are_counted_apart_from_cuda_cells():
    cells = (
        lessons.GpuCell("02-a", 1, "a tensor on a device", "1", False, "accelerator"),
        lessons.GpuCell("02-b", 1, "the current CUDA device", "1", False),
        lessons.GpuCell("02-c", 2, "two GPUs", "2", True),
    )
    lesson = lessons.Lesson("02", "t", "notebooks/02_x.ipynb", (lessons.Part("1", "One"), lessons.Part("2", "Two")), cells)
    assert lesson_map.cell_counts(cells) == "1 needs 1 accelerator, 1 needs 1 GPU, 1 needs 2 GPUs"
    assert lesson_map.runs_for_real_with(cells[:1]) == "1 accelerator" and lesson_map.runs_for_real_with(cells) == "2 GPUs"
    assert lesson_map.part_rows(lesson) == [("1", "1 GPU", "1 (1 accelerator) and 1 (1 GPU)"), ("2", "2 GPUs", "in Deeper: 1 (2 GPUs)")]
    assert [c.key for c in lesson.skipped_with(0)] == ["02-a", "02-b", "02-c"]
    assert [c.key for c in lesson.skipped_with(0, accelerator=True)] == ["02-b", "02-c"]  # a Mac: MPS runs 02-a
    assert [c.key for c in lesson.skipped_with(1)] == ["02-c"]
    said = lesson_map.without_a_gpu(lesson, frozenset())
    assert said.startswith("1 cell runs on any accelerator, else meta.") and "SKIPPED" in said
    only = lessons.Lesson("02", "t", "notebooks/02_x.ipynb", (), cells[:1])
    assert "SKIPPED" not in lesson_map.without_a_gpu(only, frozenset())
    assert "'accelerator')" in lesson_map.module_text((lesson,))
