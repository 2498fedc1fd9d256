"""docs/mac.md's generated parts, written from the Mac facts' tables in ``evidence.sources`` by ``make pairs``.

Lesson: none; the page behind issue 27's Mac facts. The facts are rows (``MAC_FACTS``: a sentence and the
passages behind it; ``MAC_WHEEL_TAGS``: each release's macOS wheel; ``MPS_NEEDS_MACOS``: the macOS each
release's MPS needs; ``INTEL_MAC_NEWEST``), and this engine writes two blocks of the page from them, each
between its marker lines; the prose around them is the author's:

- the wheel table: one row per run of releases with the same wheel tag and MPS floor, then what that means
  on the older macOS a newer wheel refuses;
- the facts list: each fact's sentence, then the passages of PyTorch that back it and the releases of each.

``python -m course_authoring.mac_page --write`` rewrites the blocks (``make pairs``), ``--check`` says
whether the page is current; ``tests/test_mac_page.py`` fails when the page and the tables drift.
"""

from __future__ import annotations

import sys
from pathlib import Path

from course_utils.evidence import sources  # the tables, read as sources.X so a test can swap one

DOC = "docs/mac.md"
FACTS_START = "<!-- mac-facts:start, generated from MAC_FACTS by make pairs (course_authoring.mac_page) -->"
FACTS_END = "<!-- mac-facts:end -->"
WHEELS_START = "<!-- mac-wheels:start, generated from MAC_WHEEL_TAGS and MPS_NEEDS_MACOS by make pairs (course_authoring.mac_page) -->"
WHEELS_END = "<!-- mac-wheels:end -->"
_OLDEST_ARM64_MACOS = (11, 0)  # Apple silicon shipped with macOS 11: a macosx_11_0 wheel installs on every such Mac


def _macos(version: tuple[int, int]) -> str:
    return f"macOS {version[0]}.{version[1]}"


def _in_order(releases) -> list[str]:
    return sorted(releases, key=lambda version: tuple(int(part) for part in version.split(".")))


def wheel_rows() -> list[tuple[tuple[str, ...], str, tuple[int, int]]]:
    """(releases, wheel tag, macOS their MPS needs), one row per run of consecutive releases that share both."""
    rows: list[tuple[list[str], str, tuple[int, int]]] = []
    for version in _in_order(sources.MAC_WHEEL_TAGS):
        tag, needs = sources.MAC_WHEEL_TAGS[version], sources.mps_needs_macos(version)
        if rows and rows[-1][1:] == (tag, needs):
            rows[-1][0].append(version)
        else:
            rows.append(([version], tag, needs))
    return [(tuple(versions), tag, needs) for versions, tag, needs in rows]


def older_macos_lines() -> list[str]:
    """For each macOS a newer wheel refuses (the major before each raised floor): which torch pip picks there,
    and the newest whose MPS works there."""
    floors = sorted({sources.wheel_floor(tag) for tag in sources.MAC_WHEEL_TAGS.values()})
    lines = []
    for floor in floors[1:]:
        older = (floor[0] - 1, 0)
        picks, works = sources.newest_mps_release(older, installable=True), sources.newest_mps_release(older)
        if picks is None:
            lines.append(f"On {_macos(older)} no tested release installs.")
            continue
        line = f"So on {_macos(older)}, `pip install torch` picks {picks} (no newer tested release has a wheel for it), "
        if works == picks:
            lines.append(line + "whose MPS works there.")
        else:
            needs = _macos(sources.mps_needs_macos(picks))
            lines.append(line + f"whose MPS needs {needs}: the newest torch with a working MPS there is {works or 'none'}.")
    return lines


def wheels_markdown() -> str:
    """docs/mac.md's table of the wheel each release gives a Mac, and what that means on an older macOS."""
    out = [WHEELS_START, "| torch | macOS arm64 wheel tag | MPS needs |", "|---|---|---|"]
    for versions, tag, needs in wheel_rows():
        floor = sources.wheel_floor(tag)
        only = "" if floor <= _OLDEST_ARM64_MACOS else f" (pip installs it only on macOS {floor[0]} or later)"
        out.append(f"| {', '.join(versions)} | `{tag}`{only} | {_macos(needs)} |")
    out += [
        "",
        *older_macos_lines(),
        f"No tested release has an Intel (x86_64) macOS wheel; the newest that has one is {sources.INTEL_MAC_NEWEST}.",
        WHEELS_END,
    ]
    return "\n".join(out)


def facts_markdown() -> str:
    """docs/mac.md's list of the Mac facts with the passages and releases behind each."""
    out = [FACTS_START]
    for key, fact in sources.MAC_FACTS.items():
        out.append(f"- **{key}**: {fact.says}")
        for q in fact.quotes:
            out.append(f"  - {q.label}" + ("" if "\n" in q.shown else f": `` {q.shown} ``"))
    out.append(FACTS_END)
    return "\n".join(out)


BLOCKS = ((WHEELS_START, WHEELS_END, wheels_markdown), (FACTS_START, FACTS_END, facts_markdown))


def render(page: str) -> str:
    """``page`` with each generated block replaced by what the tables say now; the author's prose untouched."""
    for start, end, make in BLOCKS:
        first, last = page.find(start), page.find(end)
        if not 0 <= first < last:
            raise ValueError(
                f"{DOC} should hold the marker lines {start!r} ... {end!r}, in that order, "
                "around its generated block; put them back where the block goes and run make pairs."
            )
        page = page[:first] + make() + page[last + len(end) :]
    return page


if __name__ == "__main__":  # python -m course_authoring.mac_page --write | --check  (from the repository root; make pairs)
    path = Path(DOC)
    text = path.read_text(encoding="utf-8")
    if sys.argv[1:] == ["--write"]:
        path.write_text(render(text), encoding="utf-8")
    elif sys.argv[1:] == ["--check"]:
        sys.exit(0 if render(text) == text else f"{DOC} is stale: run make pairs")
    else:
        print(render(text), end="")
