"""The one check-cell detector (course_utils.check_cells) that the grader, conftest and tests share."""

import pytest

from course_utils.check_cells import check_cell_id, check_cell_ids, try_it_id


@pytest.mark.parametrize(
    "source, expected",
    [
        ('check("01.2")', "01.2"),
        ("check('01.2')", "01.2"),
        ('check("01.2")  # note', "01.2"),
        ("check('01.2');", "01.2"),
        ('# why\ncheck("01.2")\n', "01.2"),
        ("result = check('01.2')\nassert result.passed, str(result)", "01.2"),
        ('print(check("01.2"))', None),
        ('check("01.2")\nx = 1', None),
        ("", None),
        ("checks('01.2')", None),
    ],
)
def test_an_exercise_check_cell_is_only_a_check_call(source, expected):
    assert check_cell_id(source) == expected


@pytest.mark.parametrize(
    "source, expected",
    [
        ('ones = ...\ncheck("01.a")', "01.a"),
        ("ones = ...\ncheck('01.a')  # run me", "01.a"),
        ('ones = ...\ncheck("01.2")', None),
        ('check("01.a")\nones = ...', None),
        ("ones = ...", None),
    ],
)
def test_a_try_it_cell_ends_with_a_try_it_check(source, expected):
    assert try_it_id(source) == expected


def test_ids_in_order_from_cells_of_either_source_form():
    cells = [
        {"cell_type": "code", "source": 'check("01.1")'},
        {"cell_type": "markdown", "source": 'check("x.1")'},
        {"cell_type": "code", "source": ["check('01.2')", "  # note"]},
    ]
    assert check_cell_ids(cells) == ["01.1", "01.2"]
