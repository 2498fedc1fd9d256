"""docs/mac.md's wheel table and facts list are written from the Mac facts' tables (issue 32, item 2).

Lesson: none; ``course_authoring.mac_page``, run by ``make pairs``. The page on disk must be what the
engine writes from ``MAC_FACTS``, ``MAC_WHEEL_TAGS`` and ``MPS_NEEDS_MACOS`` now, and the engine's rules
(grouping releases, reading wheel tags, the older-macOS lines) are checked on made-up tables.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from course_authoring import mac_page
from course_utils.evidence import sources
from course_utils.evidence.sources import MAC_FACTS, MAC_WHEEL_TAGS

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / mac_page.DOC


def test_docs_mac_is_what_the_tables_write():
    text = PAGE.read_text(encoding="utf-8")
    assert mac_page.render(text) == text, "docs/mac.md is stale: run `make pairs` (python -m course_authoring.mac_page --write)"


def test_the_page_lists_every_fact_and_every_release_once():
    text = PAGE.read_text(encoding="utf-8")
    assert all(text.count(f"- **{key}**:") == 1 for key in MAC_FACTS)
    table = text[text.index(mac_page.WHEELS_START) : text.index(mac_page.WHEELS_END)]
    rows = [line for line in table.splitlines() if line.startswith("| 2.")]
    listed = [v for row in rows for v in row.split("|")[1].strip().split(", ")]
    assert sorted(listed) == sorted(MAC_WHEEL_TAGS)


def test_wheel_rows_group_consecutive_releases_with_the_same_tag_and_floor(monkeypatch):
    tags = {
        "2.7.1": "macosx_11_0_arm64",
        "2.8.0": "macosx_11_0_arm64",
        "2.10.0": "macosx_11_0_arm64",
        "2.9.1": "macosx_11_0_arm64",
        "2.12.0": "macosx_14_0_arm64",
    }
    monkeypatch.setattr(sources, "MAC_WHEEL_TAGS", tags)
    assert mac_page.wheel_rows() == [
        (("2.7.1", "2.8.0"), "macosx_11_0_arm64", (13, 0)),
        (("2.9.1", "2.10.0"), "macosx_11_0_arm64", (14, 0)),  # 2.10.0 after 2.9.1: releases sort as numbers
        (("2.12.0",), "macosx_14_0_arm64", (14, 0)),
    ]
    assert mac_page.older_macos_lines() == [
        "So on macOS 13.0, `pip install torch` picks 2.10.0 (no newer tested release has a wheel for it), "
        "whose MPS needs macOS 14.0: the newest torch with a working MPS there is 2.8.0."
    ]
    assert "| 2.12.0 | `macosx_14_0_arm64` (pip installs it only on macOS 14 or later) | macOS 14.0 |" in mac_page.wheels_markdown()


def test_an_older_macos_whose_newest_wheel_has_working_mps_says_so(monkeypatch):
    monkeypatch.setattr(sources, "MAC_WHEEL_TAGS", {"2.7.1": "macosx_11_0_arm64", "2.8.0": "macosx_14_0_arm64"})
    assert mac_page.older_macos_lines() == [
        "So on macOS 13.0, `pip install torch` picks 2.7.1 (no newer tested release has a wheel for it), whose MPS works there."
    ]


def test_a_raised_floor_below_every_wheel_says_nothing_installs(monkeypatch):
    monkeypatch.setattr(sources, "MAC_WHEEL_TAGS", {"2.7.1": "macosx_14_0_arm64", "2.8.0": "macosx_14_5_arm64"})
    assert mac_page.older_macos_lines() == ["On macOS 13.0 no tested release installs."]


def test_newest_mps_release_reads_both_tables():
    assert sources.newest_mps_release((13, 6)) == "2.8.0"  # installs up to 2.11.0; MPS works up to 2.8.0
    assert sources.newest_mps_release((13, 6), installable=True) == "2.11.0"
    assert sources.newest_mps_release((12, 7)) is None  # every tested release's MPS needs macOS 13 or later
    assert sources.newest_mps_release((15, 0)) == max(MAC_WHEEL_TAGS, key=lambda v: tuple(map(int, v.split("."))))


@pytest.mark.parametrize("tag", ["macosx_14_0_x86_64", "macosx_14_arm64", "manylinux_2_28_aarch64"])
def test_a_tag_that_is_not_a_macos_arm64_wheel_is_a_clear_error(tag):
    with pytest.raises(ValueError, match="looks like 'macosx_14_0_arm64'"):
        sources.wheel_floor(tag)


def test_a_page_without_its_markers_is_refused_with_what_to_do():
    with pytest.raises(ValueError, match="should hold the marker lines .*run make pairs"):
        mac_page.render("# Macs\n\nno markers here\n")
    reversed_markers = f"{mac_page.WHEELS_END}\n{mac_page.WHEELS_START}\n{mac_page.FACTS_START}\n{mac_page.FACTS_END}\n"
    with pytest.raises(ValueError, match="in that order"):
        mac_page.render(reversed_markers)


def test_render_keeps_the_authors_prose_and_replaces_only_the_blocks():
    page = (
        f"intro\n{mac_page.WHEELS_START}\nold table\n{mac_page.WHEELS_END}\nmiddle\n"
        f"{mac_page.FACTS_START}\nold facts\n{mac_page.FACTS_END}\nend\n"
    )
    out = mac_page.render(page)
    assert out.startswith("intro\n") and "\nmiddle\n" in out and out.endswith("\nend\n")
    assert "old table" not in out and "old facts" not in out and mac_page.render(out) == out


@pytest.mark.slow  # a child Python
def test_check_mode_fails_on_a_stale_page(tmp_path):
    (tmp_path / "docs").mkdir()
    stale = PAGE.read_text(encoding="utf-8").replace("| 2.7.1, 2.8.0 |", "| 2.7.1 |")
    (tmp_path / "docs" / "mac.md").write_text(stale, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "course_authoring.mac_page", "--check"], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert done.returncode != 0 and "stale: run make pairs" in done.stderr
