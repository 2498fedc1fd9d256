"""pairing: every .ipynb agrees with its py:percent twin, and drift of any kind is caught."""

from pathlib import Path

import nbformat

from course_utils.pairing import check_tree, compare_pair, write_pair

ROOT = Path(__file__).resolve().parents[1]

PY = '''# %% [markdown]
# # Title

# %% tags=["raises-exception"]
x = 1

# %%
y = 2
'''


def make_pair(tmp_path: Path) -> Path:
    py = tmp_path / "demo.py"
    py.write_text(PY)
    return write_pair(py)


def test_every_pair_in_the_course_agrees():
    drifts = check_tree(ROOT)
    assert not drifts, "\n".join(map(str, drifts)) + "\nRun `make pairs` (edit the .py side)."


def test_fresh_pair_agrees_and_has_stable_ids(tmp_path):
    ipynb = make_pair(tmp_path)
    assert compare_pair(ipynb) == []
    nb = nbformat.read(ipynb, as_version=4)
    assert [c.id for c in nb.cells] == ["cell-000", "cell-001", "cell-002"]
    assert nb.cells[1].metadata["tags"] == ["raises-exception"]
    first = ipynb.read_text()
    write_pair(tmp_path / "demo.py")
    assert ipynb.read_text() == first


def test_source_drift_is_caught(tmp_path):
    ipynb = make_pair(tmp_path)
    (tmp_path / "demo.py").write_text(PY.replace("y = 2", "y = 3"))
    (drift,) = compare_pair(ipynb)
    assert "cell 2 source differs" in str(drift)


def test_tag_drift_is_caught(tmp_path):
    ipynb = make_pair(tmp_path)
    nb = nbformat.read(ipynb, as_version=4)
    nb.cells[1].metadata["tags"] = []
    nbformat.write(nb, ipynb)
    assert "cell 1 tags differ" in str(compare_pair(ipynb)[0])


def test_type_and_count_drift_are_caught(tmp_path):
    ipynb = make_pair(tmp_path)
    (tmp_path / "demo.py").write_text(PY.replace("# %%\ny = 2", "# %% [markdown]\n# y = 2"))
    assert "cell 2 type differs" in str(compare_pair(ipynb)[0])
    (tmp_path / "demo.py").write_text(PY + "\n# %%\nz = 3\n")
    assert "has 3 cells, demo.py has 4" in str(compare_pair(ipynb)[0])


def test_stored_outputs_are_caught(tmp_path):
    ipynb = make_pair(tmp_path)
    nb = nbformat.read(ipynb, as_version=4)
    nb.cells[2].outputs = [nbformat.v4.new_output("stream", text="2\n")]
    nbformat.write(nb, ipynb)
    assert "stored outputs" in str(compare_pair(ipynb)[0])


def test_missing_twins_are_caught(tmp_path):
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "notebooks" / "lonely.py").write_text(PY)
    nbformat.write(nbformat.v4.new_notebook(), tmp_path / "notebooks" / "orphan.ipynb")
    problems = " ".join(map(str, check_tree(tmp_path)))
    assert "lonely.py: has no lonely.ipynb" in problems
    assert "orphan.ipynb: has no py:percent twin" in problems
