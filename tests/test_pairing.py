"""pairing: every .ipynb agrees with its py:percent twin, and drift of any kind is caught."""

from pathlib import Path

import nbformat

from course_authoring.pairing import HEADING_COLLAPSED, check_tree, compare_pair, deeper_blocks, write_pair

ROOT = Path(__file__).resolve().parents[1]

PY = """# %% [markdown]
# # Title

# %% tags=["raises-exception"]
x = 1

# %%
y = 2
"""


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


# ----------------------------------------------------------------- Deeper blocks open folded (issue 22, item 3)

DEEPER_PY = """# %% [markdown]
# # Title

# %% [markdown]
# ## 1. Core

# %%
core = 1

# %% [markdown] tags=["deeper"]
# ### Deeper: all optional

# %% tags=["deeper"]
optional = 1

# %% [markdown] tags=["deeper"]
# #### a sub-heading inside it

# %% [markdown]
# ### Back in the core

# %% [markdown] tags=["deeper"]
# ### Deeper: with a core cell under it

# %%
needed_later = 2

# %% [markdown]
# ## 2. Next part
"""


def test_a_deeper_block_of_optional_cells_opens_folded_and_one_with_core_cells_does_not(tmp_path):
    py = tmp_path / "deeper.py"
    py.write_text(DEEPER_PY)
    nb = nbformat.read(write_pair(py), as_version=4)
    folded = [i for i, c in enumerate(nb.cells) if c.metadata.get(HEADING_COLLAPSED)]
    assert folded == [3], "only the block whose cells are all tagged deeper folds"
    blocks = deeper_blocks(nb.cells)
    assert [(b.heading, b.cells, b.core) for b in blocks] == [(3, (4, 5), ()), (7, (8,), (8,))]
    assert compare_pair(tmp_path / "deeper.ipynb") == []


def test_folding_drift_is_caught(tmp_path):
    py = tmp_path / "deeper.py"
    py.write_text(DEEPER_PY)
    ipynb = write_pair(py)
    nb = nbformat.read(ipynb, as_version=4)
    del nb.cells[3].metadata[HEADING_COLLAPSED]  # an .ipynb written before folding, or by hand
    nbformat.write(nb, ipynb)
    assert f"cell 3 folding ({HEADING_COLLAPSED}) differs" in str(compare_pair(ipynb)[0])


HIDE_INPUT_PY = """# %% [markdown]
# A table whose code is its proof

# %% tags=["hide-input"]
table = {"A1": "false"}
table

# %%
shown = 1
"""


def test_a_cell_tagged_hide_input_opens_with_its_source_folded_and_drift_is_caught(tmp_path):
    py = tmp_path / "hidden.py"
    py.write_text(HIDE_INPUT_PY)
    ipynb = write_pair(py)
    nb = nbformat.read(ipynb, as_version=4)
    assert [c.metadata.get("jupyter", {}).get("source_hidden", False) for c in nb.cells] == [False, True, False]
    assert compare_pair(ipynb) == []
    del nb.cells[1].metadata["jupyter"]  # an .ipynb written before the tag was honoured
    nbformat.write(nb, ipynb)
    assert "cell 1 folded source (jupyter.source_hidden) differs" in str(compare_pair(ipynb)[0])


def test_the_learners_workspace_keeps_the_folding(tmp_path):
    from course_authoring.workspace import sync

    (tmp_path / "notebooks").mkdir()
    py = tmp_path / "notebooks" / "01_demo.py"
    py.write_text(DEEPER_PY)
    write_pair(py)
    sync(tmp_path, tmp_path / "workspace")
    copied = nbformat.read(tmp_path / "workspace" / "01_demo.ipynb", as_version=4)
    assert copied.cells[3].metadata.get(HEADING_COLLAPSED) is True
    assert not copied.cells[7].metadata.get(HEADING_COLLAPSED)


def test_every_foldable_deeper_block_of_the_course_is_folded_in_its_ipynb():
    unfolded = []
    for d in ("notebooks", "solutions", "exercises"):
        for path in sorted((ROOT / d).glob("*.ipynb")):
            nb = nbformat.read(path, as_version=4)
            unfolded += [
                f"{d}/{path.name} cell {b.heading}"
                for b in deeper_blocks(nb.cells)
                if b.foldable and not nb.cells[b.heading].metadata.get(HEADING_COLLAPSED)
            ]
    assert not unfolded, "these Deeper headings do not open folded; run `make pairs`:\n" + "\n".join(unfolded)
