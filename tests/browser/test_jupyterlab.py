"""The course as learners meet it: JupyterLab in a real browser (headless Chromium).

For every notebook in notebooks/ and solutions/ (found on disk, so new ones are covered): open it
in Lab, Run > Run All Cells, and check what the page shows: every code cell ran, no cell shows an
error except those tagged raises-exception (which must), widgets render as widgets, every check in
a solutions notebook shows PASS. A screenshot of each notebook goes to artifacts/browser/.

Lab runs on a scratch copy of the notebooks (see lab_server.py), so nothing tracked changes.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import nbformat
import pytest

import lab_page
from lab_server import ROOT

pytestmark = [pytest.mark.browser, pytest.mark.slow]

NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb")) + sorted((ROOT / "solutions").glob("*.ipynb"))
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
CHECK_CELL = re.compile(r'^check\("([^"]+)"', re.M)


def tagged(cell, tag: str) -> bool:
    return tag in (cell.get("metadata", {}).get("tags") or [])


def kernel_errors(cell) -> list[str]:
    return [f"{o.get('ename')}: {o.get('evalue')}" for o in cell.get("outputs", []) if o.get("output_type") == "error"]


def has_widget_output(cell) -> bool:
    return any(WIDGET_MIME in (o.get("data") or {}) for o in cell.get("outputs", []))


def short(text: str, limit: int = 300) -> str:
    text = text.strip()
    return text if len(text) <= limit else text[: limit - 3] + "..."


def problems_in(source: nbformat.NotebookNode, saved: nbformat.NotebookNode, cells: list[lab_page.CellView], path: str) -> list[str]:
    """Everything wrong with the page after Run All, each said with its cell index."""
    problems = []
    if len(cells) != len(source.cells):
        return [f"{path}: Lab shows {len(cells)} cells, the file has {len(source.cells)}"]
    is_solution = path.startswith("solutions/")
    for view, cell, after in zip(cells, source.cells, saved.cells):
        where = f"{path} cell {view.index}"
        expected_kind = cell.cell_type
        if view.kind != expected_kind:
            problems.append(f"{where}: Lab shows a {view.kind} cell, the file has {expected_kind}")
            continue
        if expected_kind != "code":
            continue
        first_line = short(cell.source.splitlines()[0] if cell.source else "", 80)
        if view.execution_count is None:
            problems.append(f"{where} ({first_line!r}): not executed by Run All (prompt {view.prompt!r})")
            continue
        deliberate = tagged(cell, "raises-exception")
        shown = view.errors
        if shown and not deliberate:
            problems.append(f"{where} ({first_line!r}): shows an error in Lab:\n    {short(shown[0].text, 600)}")
        if deliberate and not shown:
            problems.append(f"{where} ({first_line!r}): tagged raises-exception but shows no error in Lab")
        # The page and the kernel must agree (guards the DOM reading itself).
        if bool(kernel_errors(after)) != bool(shown):
            problems.append(
                f"{where}: the page {'shows' if shown else 'shows no'} error but the kernel sent "
                f"{kernel_errors(after) or 'none'}"
            )
        if has_widget_output(after):
            widgets = [o for o in view.outputs if o.widget_ok]
            if not widgets:
                problems.append(
                    f"{where} ({first_line!r}): the kernel sent a widget but Lab shows no rendered widget "
                    f"(.jupyter-widgets); the page shows: {short(view.text)!r}"
                )
        for out in view.outputs:
            placeholder = next((p for p in lab_page.WIDGET_PLACEHOLDERS if p in out.text), None)
            if placeholder or (out.mime == "text/plain" and lab_page.WIDGET_FALLBACK.match(out.text) and has_widget_output(after)):
                problems.append(f"{where}: a widget did not render; the page shows {short(out.text)!r}")
        if is_solution and CHECK_CELL.search(cell.source):
            if "PASS" not in view.text or "FAIL" in view.text:
                problems.append(f"{where} ({first_line!r}): the solution's check does not show PASS: {short(view.text)!r}")
    return problems


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=[f"{p.parent.name}/{p.name}" for p in NOTEBOOKS])
def test_notebook_runs_in_jupyterlab(notebook: Path, lab, browser, artifacts):
    relative = f"{notebook.parent.name}/{notebook.name}"
    source = nbformat.read(notebook, as_version=4)
    started = time.monotonic()
    # One workspace per notebook, so Lab does not reopen the previous notebook's tab.
    page = lab_page.open_notebook(browser, lab, relative, workspace=notebook.stem)
    console_errors: list[str] = []
    page.on("pageerror", lambda exc: console_errors.append(str(exc)))
    try:
        opened = time.monotonic() - started
        lab_page.hide_left_sidebar(page)
        ran = lab_page.run_all_cells(page)
        lab_page.TIMINGS.append((relative, opened, ran))
        cells = lab_page.read_cells(page)
        lab_page.save(page)
        lab_page.screenshot_notebook(page, artifacts / f"{notebook.stem}.png")
    except Exception:
        try:
            lab_page.screenshot_notebook(page, artifacts / f"{notebook.stem}.failed.png")
        except Exception:
            pass  # the original error says more than a failed screenshot
        raise
    finally:
        page.close()
        lab.shutdown_sessions()
    saved = nbformat.read(lab.root / relative, as_version=4)
    problems = problems_in(source, saved, cells, relative)
    if console_errors:
        problems.append(f"{relative}: uncaught errors in the page: {console_errors[:3]}")
    assert not problems, "\n".join(problems)
