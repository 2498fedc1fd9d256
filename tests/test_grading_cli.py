"""``course-grade 01`` finds the exercise notebook from where it is run, not from where the package is
installed (issue 24): from any folder of a checkout, with the package installed from it or from a wheel."""

from pathlib import Path

from course_grader.cli import exercise_folders
from course_grader.spec import find_exercise_notebook

ROOT = Path(__file__).resolve().parents[1]


def test_the_nearest_exercises_folder_above_is_searched_first(tmp_path):
    (tmp_path / "exercises").mkdir()
    (tmp_path / "course" / "exercises").mkdir(parents=True)
    deep = tmp_path / "course" / "grades" / "01"
    deep.mkdir(parents=True)
    found = exercise_folders(deep)
    assert found[:3] == (deep / "exercises", tmp_path / "course" / "exercises", tmp_path / "exercises")


def test_a_number_finds_the_checkouts_exercise_from_a_folder_inside_it():
    found = find_exercise_notebook("01", exercise_folders(ROOT / "docs"))
    assert found == ROOT / "exercises" / "01_device_query_exercises.ipynb"


def test_outside_a_checkout_the_package_location_is_not_searched(tmp_path):
    """The old fallback searched beside the package's own files, which finds nothing in a wheel's install."""
    assert tmp_path / "exercises" in exercise_folders(tmp_path)
    assert not any(folder.is_relative_to(ROOT) for folder in exercise_folders(tmp_path))
