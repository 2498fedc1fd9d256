"""A GPU-only cell without a GPU, as JupyterLab shows it: the plain sentence in view, the source folded.

Lesson: every GPU-only cell. ``recorded(key)`` renders an HTML card whose quotes sit in
``<details>`` elements; this proves, in headless Chromium, that Lab's sanitizer keeps them and
that they open closed: the sentence is visible, the quote is not until its summary is clicked.
"""

from __future__ import annotations

import lab_page
import nbformat
import pytest

from course_utils.evidence.sources import CLAIMS

pytestmark = [pytest.mark.browser, pytest.mark.slow]

KEY = "02-cross-device-error"


def test_the_source_is_folded_until_clicked(lab_window, artifacts):
    lab = lab_window.server
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
    nb.cells.append(nbformat.v4.new_code_cell(f"from course_utils.evidence import recorded\nrecorded({KEY!r})"))
    relative = "browser-selftest/evidence_folded.ipynb"
    (lab.root / "browser-selftest").mkdir(exist_ok=True)
    nbformat.write(nb, lab.root / relative)

    page = lab_window.open(relative)
    try:
        lab_page.run_all_cells(page)
        output = page.locator(".jp-OutputArea-output").first
        details = output.locator("details")
        assert details.count() == len(CLAIMS[KEY].quotes) == 1, "Lab's sanitizer dropped the <details> element"
        assert output.get_by_text(CLAIMS[KEY].says[:40]).is_visible(), "the plain sentence comes first, in view"
        quote = details.first.locator("pre")
        assert details.first.locator("summary").is_visible() and not quote.is_visible(), "the quote opens folded"
        output.screenshot(path=str(artifacts / "evidence-folded.png"))
        details.first.locator("summary").click()
        quote.wait_for(state="visible", timeout=10_000)
        assert "Expected all tensors to be on the same device" in quote.inner_text()
        output.screenshot(path=str(artifacts / "evidence-unfolded.png"))
    finally:
        lab_window.close_current()
