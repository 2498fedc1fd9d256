"""Lesson 07's claim tables: every claim judged in the core, proved by code, attributed, glossed.

Lesson: notebook 07 (claims checked). The notebook itself proves each verdict when it runs (nbval);
these tests hold its shape: both source articles' claims (A1-A16, B1-B12) each get one row in a
core table, each has its full proof in a folded Deeper block, every Japanese (or Chinese)
quotation carries an English gloss, and the cross-references resolve. The helpers the tables are
built from (``claim``, ``holds``, ``ClaimTable``) are tested at the end.
"""

import json
import pathlib
import re

import pytest

from course_utils.claims import CaughtError, ClaimFailed, ClaimTable, claim, holds, raises

ROOT = pathlib.Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "notebooks" / "07_claims_checked.ipynb"
LABELS = [f"A{i}" for i in range(1, 17)] + [f"B{i}" for i in range(1, 13)]
ROW = re.compile(r'(?:article|claim)\(\s*"([AB]\d+)",\s*"[^"]*",\s*"([a-z ]+)"')
HEADING = re.compile(r"^(#{1,6})\s+(.*)$", re.M)
QUOTE = re.compile(r"「[^」]*」")
CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uff00-\uffef]")


def cells():
    """The lesson's cells, less the generated Colab/Kaggle header, with their tags."""
    found = []
    for cell in json.loads(NOTEBOOK.read_text(encoding="utf-8"))["cells"]:
        tags = cell.get("metadata", {}).get("tags", [])
        if "course-header" not in tags:
            found.append((cell["cell_type"], "".join(cell["source"]), tags))
    return found


def fold_problems(notebook_cells) -> list[str]:
    """Cells that break the folding rule: a Deeper block opens with a "Deeper:" heading, all its
    cells are tagged deeper, and core resumes only under a new heading of the same or higher level
    (JupyterLab folds a heading's section, so a core cell under a Deeper heading would be hidden)."""
    problems, open_level = [], None
    for number, (kind, source, tags) in enumerate(notebook_cells):
        deeper = "deeper" in tags
        headings = HEADING.findall(source) if kind == "markdown" else []
        if headings and open_level is not None and len(headings[0][0]) <= open_level:
            open_level = None
        if headings and headings[0][1].startswith("Deeper:"):
            open_level = len(headings[0][0])
            if not source.lstrip().startswith("#"):
                problems.append(f"cell {number}: a Deeper heading that does not open its cell")
        if open_level is not None and not deeper:
            problems.append(f"cell {number}: a core cell inside a Deeper heading's section: {source[:60]!r}")
        if deeper and open_level is None:
            problems.append(f"cell {number}: tagged deeper but not under a Deeper heading: {source[:60]!r}")
    return problems


def test_every_claim_has_one_verdict_in_the_core_tables():
    core_code = "\n".join(s for kind, s, tags in cells() if kind == "code" and "deeper" not in tags)
    rows = ROW.findall(core_code)
    assert [label for label, _ in rows] == LABELS
    assert {verdict for _, verdict in rows} <= {"true", "false", "misleading"}


def test_every_claim_has_its_full_proof_in_a_deeper_block():
    deeper_headings = " ".join(h for kind, s, tags in cells() if "deeper" in tags for _, h in HEADING.findall(s) if h.startswith("Deeper:"))
    missing = [label for label in LABELS if not re.search(rf"\b{label}\b", deeper_headings)]
    assert not missing


def test_deeper_blocks_fold_without_hiding_core_cells():
    assert not fold_problems(cells())


def test_the_fold_rule_finds_a_core_cell_under_a_deeper_heading():
    broken = [
        ("markdown", "## Core", []),
        ("markdown", "### Deeper: more", ["deeper"]),
        ("code", "x = 1", []),
        ("markdown", "#### A sub-heading", ["deeper"]),
        ("code", "y = 2", ["deeper"]),
    ]
    assert len(fold_problems(broken)) == 1
    mended = broken[:2] + [("markdown", "### Back to the core", [])] + broken[2:3]
    assert not fold_problems(mended)


def test_every_japanese_quotation_carries_an_english_gloss():
    unglossed = []
    for kind, source, _ in cells():
        for quote in QUOTE.finditer(source):
            after = source[quote.end() : quote.end() + 4].lstrip()
            if not after.startswith(('("', "(“")):
                unglossed.append(quote.group())
        rest = QUOTE.sub("", source)
        for line in rest.splitlines():
            if CJK.search(line) and not (kind == "code" and '# "' in line):
                unglossed.append(line)
    assert not unglossed


def test_the_core_names_its_sources():
    core = "\n".join(s for kind, s, tags in cells() if kind == "markdown" and "deeper" not in tags)
    assert "Dive-into-DL-PyTorch" in core and "translation" in core and "d2l-ai/d2l-en" in core
    assert "device_of" in core


def test_cross_references_resolve_and_the_lesson_ends_with_next():
    text = "\n".join(s for _, s, _ in cells())
    for number, parts in re.findall(r"notebooks? (\d\d), parts? ([\d, and]+)", text):
        target = next((ROOT / "notebooks").glob(f"{number}_*.py"))
        have = set(re.findall(r"^# ## (\d+)\.", target.read_text(encoding="utf-8"), re.M))
        assert set(re.findall(r"\d+", parts)) <= have, (number, parts)
    last = cells()[-1][1]
    assert "**Next:**" in last and "[08_one_process_per_device.ipynb](08_one_process_per_device.ipynb)" in last
    assert (ROOT / "notebooks" / "08_one_process_per_device.ipynb").exists()
    assert "no exercises notebook" in last and not list((ROOT / "exercises").glob("07_*"))


# The helpers the tables are built from.


def test_holds_returns_its_text_or_fails():
    assert holds(True, "fine") == "fine"
    with pytest.raises(ClaimFailed, match="running it here says otherwise"):
        holds(False, "x is on the CPU")


def test_a_claim_keeps_what_its_proof_showed():
    row = claim("A9", "it works", "false", lambda: raises(lambda: {}["k"], KeyError), source="s", taught="03")
    assert row.shown == "raised KeyError: 'k'" and row.verdict == "false"
    both = claim("B1", "it works", "true", lambda: (holds(1, "one"), CaughtError("E", "two\nmore")), source="s", taught="01")
    assert both.shown == "one; raised E: two"


def test_a_claim_whose_proof_stops_holding_fails_the_cell():
    with pytest.raises(ClaimFailed, match=r"A1 \(it raises\): the verdict 'false' no longer holds"):
        claim("A1", "it raises", "false", lambda: raises(lambda: 1, ValueError), source="s", taught="02")


@pytest.mark.parametrize("verdict, proof, error", [("maybe", lambda: "x", ValueError), ("true", "x", TypeError)])
def test_a_claim_refuses_an_unknown_verdict_or_a_proof_that_is_not_a_function(verdict, proof, error):
    with pytest.raises(error):
        claim("A1", "says", verdict, proof, source="s", taught="02")


def test_a_table_counts_its_verdicts_and_escapes_html():
    table = ClaimTable(
        (claim("A1", "<b>", "true", lambda: "ok", source="s", taught="02"), claim("A2", "y", "false", lambda: "no", source="s", taught="04"))
    )
    assert repr(table).splitlines()[-1] == "2 claims, each proved by running it here: 1 true, 1 false."
    assert "&lt;b&gt;" in table._repr_html_() and "<b>" not in repr(table).splitlines()[0].split("->")[1]
