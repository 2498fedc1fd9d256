"""The exercise pipeline: solutions/ is the source, exercises/ is generated and never stale,
every solution passes every check and every untouched exercise fails every check.

"Every solution passes" is enforced where the solutions already run, under nbval: the root
conftest.py fails a solutions/ check cell that does not display a passing result
(tests/test_suite_rules.py proves that rule fails when it should)."""

import re

import pytest
from notebook_runner import ROOT, check_cell_ids, check_results

from course_authoring.exercises import MarkerError, clear_solutions, stale
from course_utils.checks import all_exercises

SOLUTIONS = sorted((ROOT / "solutions").glob("*.ipynb"))
EXERCISES = sorted((ROOT / "exercises").glob("*.ipynb"))
COURSE_ID = re.compile(r"^\d\d\.\d+$")


def test_clear_solutions_keeps_indentation_and_the_rest():
    source = "def f():\n    x = 1\n    ### BEGIN SOLUTION\n    return x\n    ### END SOLUTION\n\nprint(f)"
    assert clear_solutions(source) == ("def f():\n    x = 1\n    # YOUR CODE HERE\n    raise NotImplementedError()\n\nprint(f)")


@pytest.mark.parametrize(
    "source, message",
    [
        ("### BEGIN SOLUTION\nx = 1", "never closed"),
        ("x = 1\n### END SOLUTION", "without a ### BEGIN SOLUTION"),
        ("### BEGIN SOLUTION\n### BEGIN SOLUTION\n### END SOLUTION", "inside another solution"),
    ],
)
def test_unbalanced_markers_are_clear_errors(source, message):
    with pytest.raises(MarkerError, match=message):
        clear_solutions(source, where="demo.py")


def test_exercises_are_not_stale():
    problems = stale(ROOT / "solutions", ROOT / "exercises")
    assert not problems, "\n".join(problems)


def test_staleness_is_detected(tmp_path):
    solutions, exercises = tmp_path / "solutions", tmp_path / "exercises"
    solutions.mkdir()
    exercises.mkdir()
    (solutions / "a.py").write_text("# %%\ndef f():\n    ### BEGIN SOLUTION\n    return 1\n    ### END SOLUTION\n")
    assert any("missing" in p for p in stale(solutions, exercises))
    from course_authoring.exercises import write_all

    write_all(solutions, exercises)
    assert stale(solutions, exercises) == []
    assert "raise NotImplementedError()" in (exercises / "a.py").read_text()
    (solutions / "a.py").write_text((solutions / "a.py").read_text().replace("return 1", "return 2"))
    (exercises / "b.py").write_text("# %%\n")
    problems = " ".join(stale(solutions, exercises))
    assert "is stale" not in problems  # the stub hides the solution, so the exercise is unchanged
    assert "b.py has no source" in problems
    (solutions / "a.py").write_text((solutions / "a.py").read_text().replace("def f", "def g"))
    assert any("a.py is stale" in p for p in stale(solutions, exercises))


def test_no_solution_leaks_into_exercises():
    for path in (ROOT / "exercises").glob("*"):
        assert "BEGIN SOLUTION" not in path.read_text(encoding="utf-8"), path


def test_every_course_exercise_has_a_check_cell_in_exactly_one_solution_notebook():
    asked = [i for p in SOLUTIONS for i in check_cell_ids(p)]
    registered = {i for i in all_exercises() if COURSE_ID.match(i)}
    assert sorted(asked) == sorted(set(asked)), "an exercise is checked twice"
    assert set(asked) == registered


@pytest.mark.slow
@pytest.mark.parametrize("path", EXERCISES, ids=lambda p: p.name)
def test_every_untouched_exercise_fails_every_check(path):
    results = check_results(path)
    assert [r.exercise for r in results] == check_cell_ids(path)
    passed = [str(r) for r in results if r.passed]
    assert not passed, "a check passes on an unsolved exercise:\n" + "\n".join(passed)
    assert {r.status for r in results} == {"not-attempted"}
