"""The website's building blocks (course_authoring.site, course_authoring.executed), without Sphinx or a kernel.

The built site itself is tested in a browser: tests/browser/test_site.py (`make test-site`)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import nbformat
import pytest

from course_authoring import executed, site
from course_authoring.header import Repository

ROOT = Path(__file__).resolve().parents[1]
REPO = Repository("owner", "course")
PROVENANCE = site.Provenance("PyTorch 9.9 on a test machine, no GPU (CPU only)")


def staged_map(root: Path = ROOT) -> dict[str, str]:
    return {
        "README.md": "index.md",
        "docs/ci.md": "docs/ci.md",
        "CONTRIBUTING.md": "CONTRIBUTING.md",
        "notebooks/05_error_clinic.ipynb": "notebooks/05_error_clinic.ipynb",
        "exercises/05_error_clinic_exercises.ipynb": "exercises/05_error_clinic_exercises.ipynb",
    }


@pytest.mark.parametrize(
    "page, link, expected",
    [
        ("docs/instructors.md", "[x](../README.md)", "[x](../index.md)"),
        ("docs/instructors.md", "[x](../README.md#exercises)", "[x](../index.md#exercises)"),
        ("README.md", "[x](docs/ci.md)", "[x](docs/ci.md)"),
        ("docs/authoring.md", "[x](../CONTRIBUTING.md)", "[x](../CONTRIBUTING.md)"),
        (
            "README.md",
            "[x](solutions/05_error_clinic_exercises.ipynb)",
            "[x](https://github.com/owner/course/blob/main/solutions/05_error_clinic_exercises.ipynb)",
        ),
        ("README.md", "[x](scripts)", "[x](https://github.com/owner/course/tree/main/scripts)"),
        ("notebooks/01_device_query.ipynb", "[x](05_error_clinic.ipynb#part-3)", "[x](05_error_clinic.ipynb#part-3)"),
        ("README.md", "[x](https://pytorch.org/)", "[x](https://pytorch.org/)"),
        ("README.md", "[x](#what-each-lesson-covers)", "[x](#what-each-lesson-covers)"),
        ("README.md", "[x](no/such/file.md)", "[x](no/such/file.md)"),
        # a bare name on a notebook page means what it means in the workspace, where make lab puts
        # lessons and exercises side by side: the lesson's Next line opens the exercise page
        ("notebooks/05_error_clinic.ipynb", "[x](05_error_clinic_exercises.ipynb)", "[x](../exercises/05_error_clinic_exercises.ipynb)"),
        (
            "notebooks/05_error_clinic.ipynb",
            "[x](05_error_clinic_exercises.ipynb#exercise-05-2)",
            "[x](../exercises/05_error_clinic_exercises.ipynb#exercise-05-2)",
        ),
        ("exercises/05_error_clinic_exercises.ipynb", "[x](05_error_clinic.ipynb#part-3)", "[x](../notebooks/05_error_clinic.ipynb#part-3)"),
        ("notebooks/01_device_query.ipynb", "[x](99_no_such_exercises.ipynb)", "[x](99_no_such_exercises.ipynb)"),
        ("README.md", "[x](05_error_clinic_exercises.ipynb)", "[x](05_error_clinic_exercises.ipynb)"),  # not a notebook page
    ],
)
def test_links_point_at_staged_pages_or_github(page, link, expected):
    assert site.rewrite_links(link, page, ROOT, staged_map(), REPO) == expected


def test_a_notebook_named_as_code_links_to_its_page():
    text = (
        "Notebook: `notebooks/05_error_clinic.ipynb`; [`notebooks/05_error_clinic.ipynb`](x) is a link already; "
        "`notebooks/99_none.ipynb` is no page; ``solutions/05_error_clinic_exercises.ipynb`` stays code."
    )
    linked = site.link_notebook_mentions(text, "exercises/05_error_clinic_exercises.ipynb", staged_map())
    assert linked == (
        "Notebook: [`notebooks/05_error_clinic.ipynb`](../notebooks/05_error_clinic.ipynb); "
        "[`notebooks/05_error_clinic.ipynb`](x) is a link already; `notebooks/99_none.ipynb` is no page; "
        "``solutions/05_error_clinic_exercises.ipynb`` stays code."
    )


def test_lesson_and_exercise_pages_point_to_each_other_at_the_top():
    nb = _notebook([nbformat.v4.new_markdown_cell("# Exercises 05"), nbformat.v4.new_code_cell("check('05.1')")])
    shown = site.prepare_notebook(nb, "exercises/05_error_clinic_exercises.ipynb", ROOT, staged_map(), REPO, PROVENANCE)
    assert shown.cells[1].source.startswith("**The lesson:** [05 · The cross-device error clinic](../notebooks/05_error_clinic.ipynb)")
    shown = site.prepare_notebook(nb, "notebooks/05_error_clinic.ipynb", ROOT, staged_map(), REPO, PROVENANCE)
    assert shown.cells[1].source.startswith(
        "**Its exercises:** [Exercises 05 · The cross-device error clinic](../exercises/05_error_clinic_exercises.ipynb)"
    )
    # lesson 07 has no exercise notebook: no pointer
    assert site.companion("notebooks/07_claims_checked.ipynb", ROOT, staged_map()) is None
    shown = site.prepare_notebook(nb, "notebooks/07_claims_checked.ipynb", ROOT, staged_map(), REPO, PROVENANCE)
    assert shown.cells[1].source.startswith("**Run this notebook:**")


def test_deeper_headings_become_rubrics_even_with_code_in_them():
    source = "### Deeper: `device_count` and more\n\nText with `code`."
    demoted = site.demote_deeper_headings(source)
    assert demoted.splitlines()[:3] == [":::{rubric} Deeper: `device_count` and more", ":class: deeper-title", ":::"]
    assert demoted.endswith("Text with `code`.") and "###" not in demoted


def _notebook(cells):
    nb = nbformat.v4.new_notebook()
    nb.cells = cells
    return nb


def _tagged(cell, *tags):
    cell.metadata["tags"] = list(tags)
    return cell


def test_prepare_notebook_header_places_to_type_and_deeper(monkeypatch):
    md, code = nbformat.v4.new_markdown_cell, nbformat.v4.new_code_cell
    nb = _notebook(
        [
            md("# 05 · Title"),
            _tagged(md("**Run it on a free GPU:** old links"), "course-header"),
            _tagged(code("import course_utils  # install cell"), "course-header"),
            md("## 1. Part"),
            _tagged(code("x = ...\ncheck('05.a')"), "try-it"),
            _tagged(md("### Deeper: more\n\nprose"), "deeper"),
        ]
    )
    shown = site.prepare_notebook(nb, "notebooks/05_error_clinic.ipynb", ROOT, staged_map(), REPO, PROVENANCE)
    sources = [c.source for c in shown.cells]
    assert not any("course-header" in c.metadata.get("tags", []) for c in shown.cells)
    header = sources[1]
    assert REPO.colab("notebooks/05_error_clinic.ipynb") in header and REPO.kaggle("notebooks/05_error_clinic.ipynb") in header
    assert '<a href="05_error_clinic.ipynb" download>' in header and PROVENANCE.text in header
    note, try_it = shown.cells[3], shown.cells[4]
    assert "A place to type" in note.source and site.PLACE_TO_TYPE in try_it.metadata["tags"]
    assert sources[5].startswith(":::{rubric} Deeper: more")
    assert len(nb.cells) == 6 and "course-header" in nb.cells[1].metadata["tags"]  # the input is left alone
    # the same notebook gives the same bytes: Sphinx's incremental build then skips the page
    again = site.prepare_notebook(nb, "notebooks/05_error_clinic.ipynb", ROOT, staged_map(), REPO, PROVENANCE)
    assert nbformat.writes(again) == nbformat.writes(shown)


def test_exercise_answer_cells_are_places_to_type():
    nb = _notebook(
        [
            nbformat.v4.new_markdown_cell("# Exercises 05"),
            nbformat.v4.new_code_cell("def f():\n    # YOUR CODE HERE\n    raise NotImplementedError()"),
            nbformat.v4.new_code_cell("check('05.1')"),
        ]
    )
    shown = site.prepare_notebook(nb, "exercises/05_error_clinic_exercises.ipynb", ROOT, staged_map(), REPO, PROVENANCE)
    marked = [c for c in shown.cells if site.PLACE_TO_TYPE in c.metadata.get("tags", [])]
    assert [c.source.splitlines()[0] for c in marked] == ["def f():"]


def test_a_widget_becomes_a_picture_and_a_note(monkeypatch):
    monkeypatch.setattr(site, "widget_picture", lambda source: (b"\x89PNG fake", "*static picture*, live in Jupyter"))
    widget = nbformat.v4.new_code_cell("explorer = TransferExplorer(device)\nexplorer")
    widget.outputs = [nbformat.v4.new_output("display_data", data={site.WIDGET_MIME: {"model_id": "abc"}, "text/plain": "VBox()"})]
    nb = _notebook([nbformat.v4.new_markdown_cell("# 06"), widget])
    nb.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {"state": {}}}
    shown = site.prepare_notebook(nb, "notebooks/06_transfers_and_timing.ipynb", ROOT, staged_map(), REPO, PROVENANCE)
    picture = shown.cells[2]
    assert [set(o.data) for o in picture.outputs] == [{"image/png", "text/plain"}]
    assert "live in Jupyter" in shown.cells[3].source and "widgets" not in shown.metadata


# --- executed copies ----------------------------------------------------------------------------


def _write_notebook(path: Path, n_code: int) -> Path:
    nb = _notebook([nbformat.v4.new_markdown_cell("# T")] + [nbformat.v4.new_code_cell(f"{i}") for i in range(n_code)])
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, str(path))
    return path


def _nbval_items(path: Path, outputs: list[list[dict]], exception_ok=()):
    nb = nbformat.read(str(path), as_version=4)
    parent = SimpleNamespace(fspath=path, nb=nb)
    return [
        SimpleNamespace(parent=parent, cell_num=i, test_outputs=out, options={"check_exception": i in exception_ok})
        for i, out in enumerate(outputs)
    ]


def _run(items, root):
    collected, saved = {}, None
    for item, nextitem in zip(items, [*items[1:], None]):
        saved = executed.record_nbval_cell(item, nextitem, root, collected)
    return saved


def test_nbval_outputs_become_an_executed_copy_that_lookup_finds(tmp_path):
    source = _write_notebook(tmp_path / "notebooks" / "01_x.ipynb", 2)
    stream = {"output_type": "stream", "name": "stdout", "text": "hello\n"}
    result = {"output_type": "execute_result", "data": {"text/plain": "1"}, "metadata": {}, "execution_count": 2}
    saved = _run(_nbval_items(source, [[stream], [result]]), tmp_path)
    assert saved is not None and saved.path == tmp_path / "build/executed/notebooks/01_x.ipynb"
    copy = nbformat.read(str(saved.path), as_version=4)
    nbformat.validate(copy)
    assert [c.outputs for c in copy.cells if c.cell_type == "code"] == [[stream], [result]]
    key = executed.notebook_key(source)
    assert executed.lookup(tmp_path, "notebooks/01_x.ipynb", key) == saved
    # an edited notebook no longer matches
    _write_notebook(source, 3)
    assert executed.lookup(tmp_path, "notebooks/01_x.ipynb", executed.notebook_key(source)) is None


def test_a_notebook_that_failed_under_nbval_leaves_no_copy(tmp_path):
    source = _write_notebook(tmp_path / "notebooks" / "02_x.ipynb", 2)
    error = {"output_type": "error", "ename": "RuntimeError", "evalue": "boom", "traceback": []}
    assert _run(_nbval_items(source, [[error], []]), tmp_path) is None  # not tagged raises-exception
    assert _run(_nbval_items(source, [[], None]), tmp_path) is None  # a cell that never finished
    assert not (tmp_path / "build/executed/notebooks/02_x.ipynb").exists()
    assert _run(_nbval_items(source, [[error], []], exception_ok={0}), tmp_path) is not None  # deliberate


def test_the_key_follows_the_learners_package_and_the_site_tools_live_outside_it(tmp_path, monkeypatch):
    package = tmp_path / "course_utils"
    package.mkdir()
    for name in ("__init__.py", "checks.py"):
        (package / name).write_text("# v1\n")
    monkeypatch.setattr(executed.course_utils, "__file__", str(package / "__init__.py"))
    before = executed.package_digest()
    (tmp_path / "site.py").write_text("# beside the package, as course_authoring is\n")
    assert executed.package_digest() == before
    (package / "checks.py").write_text("# v2\n")
    assert executed.package_digest() != before
    assert Path(executed.__file__).parent.name == "course_authoring", "the site's tools are no part of the key's package"
