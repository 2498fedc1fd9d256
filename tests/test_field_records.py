"""Field records: what real GPUs printed in the GPU-only cells, as others published it (issue 37).

Each record is held to the cell's point (``course_authoring.field_record_rules.POINTS``), to the releases of the cell's source quotes,
and to its provenance; the display labels it as a public report, and a course recording replaces it.
No GPU is needed.
"""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

import pytest
from torch.torch_version import TorchVersion

from course_authoring import lesson_map
from course_authoring.field_record_rules import (
    FIELD_END,
    FIELD_START,
    NO_RECORD,
    POINTS,
    TIMING_POINTS,
    field_records_markdown,
    shows_point,
)
from course_utils import lessons, recorded
from course_utils.evidence.field_records import (
    CUT,
    FLOOR,
    RECORDS,
    STANDINS,
    TIMINGS,
    FieldRecord,
    field_record,
    published_timings,
)
from course_utils.evidence.records import Cell, EvidenceFile, GpuMachine
from course_utils.evidence.sources import CLAIMS, RELEASES

ROOT = Path(__file__).resolve().parents[1]
IDS = [f"{r.key}:{r.url.rsplit('/', 2)[-2]}#{r.url.rsplit('/', 1)[-1]}" for r in RECORDS]


# ----------------------------------------------------------------- each record


@pytest.mark.parametrize("record", RECORDS, ids=IDS)
def test_a_record_shows_what_its_cell_asserts(record):
    assert record.key in CLAIMS, f"{record.key!r} is no GPU-only cell (CLAIMS in evidence/sources.py)"
    assert shows_point(record.key, record.excerpt), (
        f"the excerpt for {record.key} does not show the cell's point, {POINTS[record.key].pattern!r}:\n{record.excerpt}"
    )


@pytest.mark.parametrize("record", RECORDS, ids=IDS)
def test_a_record_has_all_its_provenance(record):
    assert re.fullmatch(r"https://\S+", record.url), f"{record.key}: the URL where it was published, got {record.url!r}"
    assert dt.date.fromisoformat(record.date) <= dt.date.today(), f"{record.key}: a real date, YYYY-MM-DD"
    assert re.fullmatch(r"\d+\.\d+(\.\d+)?([+.\w]*)", record.torch), f"{record.key}: torch as the report states it"
    TorchVersion(record.release)  # parses
    assert record.gpu.strip() and record.shows.strip(), f"{record.key}: the GPU or platform, and what it shows"
    assert record.excerpt.strip() and not record.excerpt.startswith(CUT), f"{record.key}: an excerpt, opening on its text"
    label = record.label
    assert label.startswith(f"printed on {record.gpu}") and record.url in label and label.endswith("not run by this course")


@pytest.mark.parametrize("record", RECORDS, ids=IDS)
def test_a_record_lies_in_its_cells_releases_or_says_how_its_release_differed(record):
    covered = any(q.covers(record.release) for q in CLAIMS[record.key].quotes)
    if not covered:
        assert record.differs.strip(), (
            f"{record.key}: torch {record.torch} is outside the releases of the cell's quotes "
            f"({', '.join(q.releases for q in CLAIMS[record.key].quotes)}); say in `differs` how that release differed"
        )
    if TorchVersion(record.release) < FLOOR:
        assert record.before_floor and f"older than the course's floor, {FLOOR}" in record.caveat
    assert FLOOR == RELEASES[0], "the floor is the oldest release the quotes were read in"


def test_the_release_rule_can_fail():
    quote_range = CLAIMS["06-hidden-syncs"].quotes
    assert all(q.covers("2.13.0") for q in quote_range) and not any(q.covers("2.1.0") for q in quote_range)
    old = FieldRecord(
        "06-hidden-syncs",
        "UserWarning: called a synchronizing CUDA operation",
        "https://example.org/1",
        "2024-03-01",
        "2.1.0+cu121",
        "a GPU",
        "the warning",
    )
    assert old.before_floor and not old.differs, "a record like this one fails the test above"
    assert not FieldRecord("x", "", "", "", "2.13.0", "", "").before_floor


def test_the_point_patterns_reject_an_excerpt_that_misses_the_point():
    assert not shows_point("08-nccl-error", "NCCL error: unhandled system error, NCCL version 2.19.3")
    assert not shows_point("06-hidden-syncs", "UserWarning: Synchronization debug mode is a prototype feature")
    moved_by_assignment = "net = net.to(device)\nnext(net.parameters()).device\ndevice(type='cuda', index=0)"
    assert not shows_point("03-module-cuda", moved_by_assignment), "an assigned .to() shows no in-place move"
    assert not shows_point(
        "05-linear", "found at least two devices, cuda:0 and cpu! (when checking argument for argument mat2 in method wrapper_CUDA_mm)"
    ), "mat2 of a plain mm is not the layer's input"
    with pytest.raises(ValueError, match="No pattern for cell '99-nowhere'"):
        shows_point("99-nowhere", "anything")


def test_every_pattern_is_for_a_gpu_only_cell_and_every_record_has_one():
    assert set(POINTS) <= set(CLAIMS)
    assert {r.key for r in RECORDS} <= set(POINTS)


def test_every_gpu_only_cell_has_a_field_record_or_says_why_not():
    have = {r.key for r in RECORDS}
    assert not have & set(NO_RECORD), f"listed as without a record, yet recorded: {sorted(have & set(NO_RECORD))}"
    missing = set(CLAIMS) - have - set(NO_RECORD)
    assert not missing, f"cells with neither a field record nor a reason in NO_RECORD: {sorted(missing)}"
    assert all(why.strip().endswith(".") for why in NO_RECORD.values())


def test_the_guide_lists_the_records_and_the_cells_without_one():
    text = (ROOT / "docs" / "gpu-verification.md").read_text(encoding="utf-8")
    start, end = text.find(FIELD_START), text.find(FIELD_END)
    assert 0 <= start < end, "docs/gpu-verification.md should hold the generated field-records block"
    assert text[start : end + len(FIELD_END)] == field_records_markdown(), (
        "docs/gpu-verification.md's field-records block is stale: paste field_records_markdown() in"
    )


# ----------------------------------------------------------------- shown honestly


def test_without_a_gpu_the_cell_shows_its_sentence_then_the_field_record_then_the_folded_source(tmp_path):
    record = RECORDS[0]
    shown = recorded(record.key, evidence_dir=tmp_path)
    assert shown.field == field_record(record.key) and shown.recording is None
    text = str(shown)
    lines = text.splitlines()
    assert lines[0] == CLAIMS[record.key].says
    assert lines[1] == f"Field record (a public report): {shown.field.label}:"
    assert text.index(shown.field.excerpt.splitlines()[0]) < text.index("Not yet recorded on a GPU by this course")
    html = shown._repr_html_()
    says, report, quote = (html.index(s) for s in ("<b>", "Field record (a public report)", "Not yet recorded"))
    assert says < report < quote, "the sentence, then the field record, then the source quotes"
    assert f"<a href='{shown.field.url}'>" in html and "not run by this course" in html
    assert html.count("<details>") == len(shown.quotes), "the quotes stay folded under the field record"


def test_a_course_recording_replaces_the_field_record_and_says_which_it_is(tmp_path):
    record = RECORDS[0]
    machine = GpuMachine("NVIDIA TEST GPU", 2, "000.00", "12.8", "2.13.0+cu128", "3.12.0", "2026-12-01")
    ev = EvidenceFile(machine, {record.key: Cell("notebooks/x.ipynb", "the course's own output\n")})
    (tmp_path / f"{machine.slug}.json").write_text(ev.to_json(), encoding="utf-8")
    shown = recorded(record.key, evidence_dir=tmp_path)
    assert shown.field is None and "the course's own output" in str(shown)
    assert "Recorded by this course on 2x NVIDIA TEST GPU" in str(shown) and "Field record" not in str(shown)
    assert record.url not in shown._repr_html_()


def test_the_intro_counts_recordings_and_field_records_apart():
    lesson = next(n for n in lessons.course() if n.number == "08")
    keys = [c.key for c in lesson.cells if c.needs == "cuda"]
    said = lesson_map.without_a_gpu(lesson, frozenset(), frozenset(keys[:1]))
    assert f"from a public report, not run here (1 of {len(keys)} cells)" in said and "recorded by" not in said
    both = lesson_map.without_a_gpu(lesson, frozenset(keys[:1]), frozenset(keys[:2]))
    assert f"recorded by the course (1 of {len(keys)} cells)" in both
    assert f"from a public report, not run here (1 of {len(keys)} cells)" in both, "a recorded cell counts once"
    assert "real GPU" not in lesson_map.without_a_gpu(lesson, frozenset(), frozenset())


def test_the_status_command_names_each_field_record(tmp_path):
    from course_authoring import evidence as cli

    said = cli.status(tmp_path)
    record = RECORDS[0]
    assert f"field record ({record.url}) + source quote" in said
    assert f"{len({r.key for r in RECORDS})} more with a field record" in said.splitlines()[-1]


# ----------------------------------------------------------------- published measurements beside a stand-in


@pytest.mark.parametrize("timing", TIMINGS, ids=[t.key for t in TIMINGS])
def test_a_published_measurement_shows_what_its_stand_in_imitates_with_its_provenance(timing):
    assert timing.key in STANDINS, f"{timing.key!r} names no stand-in (STANDINS in evidence/field_records.py)"
    assert TIMING_POINTS[timing.key].search(timing.excerpt), f"{timing.key}: {TIMING_POINTS[timing.key].pattern!r}"
    test_a_record_has_all_its_provenance(timing)
    if timing.before_floor:
        assert f"older than the course's floor, {FLOOR}" in timing.caveat


def test_the_timing_pattern_rejects_a_measurement_of_one_kind_of_memory():
    only_pageable = "pageable_tensor.to('cuda:0'):  0.3698 ms"
    assert not TIMING_POINTS["06-copy-variants"].search(only_pageable)
    assert set(TIMING_POINTS) == set(STANDINS)


def test_published_labels_the_figures_as_another_machines_and_names_unknown_stand_ins():
    from course_utils import published

    shown = published("06-copy-variants")
    text, html = str(shown), shown._repr_html_()
    assert "not this machine's figures" in text.splitlines()[0]
    assert all(t.url in text and t.url in html for t in published_timings("06-copy-variants"))
    assert text.count("not run by this course") == len(shown.records) >= 1
    with pytest.raises(ValueError, match="No stand-in '99-nowhere'"):
        published("99-nowhere")


def test_every_stand_in_with_published_figures_is_shown_by_a_lesson():
    lessons_text = "\n".join(p.read_text(encoding="utf-8") for p in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.py")))
    for key in STANDINS:
        assert f'published("{key}")' in lessons_text, f"no lesson shows the published measurements for {key}"
