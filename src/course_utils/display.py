"""How course objects show themselves: tone colours, small HTML pieces, cut text, int arguments.

Lesson: every notebook whose cells end on a course object (a check's verdict, a report, a caught
error). Each ``_repr_html_`` in ``course_utils`` is built from the pieces here, so a colour means
the same thing in every lesson, and text is escaped in one place: a plain ``str`` is always
escaped; only ``Html`` (what these builders return) goes in as it is. ``truncate`` is the one way
the course shortens a long text, and ``require_int`` the one check of a count argument, so their
messages read the same everywhere.

This module imports only the standard library: every other module may import it, and it imports
none of them, so it can never close an import circle.
"""

from __future__ import annotations

import html
from collections.abc import Collection, Iterable, Sequence

# One colour per meaning (GitHub's Primer palette: readable on light and dark notebook themes).
OK = "#1a7f37"  # green: passed, as expected, nothing to fix
PROBLEM = "#cf222e"  # red: failed, raised, something to fix
CAUTION = "#9a6700"  # amber: skipped, simulated, a stand-in, not yet recorded: read with care
INFO = "#0969da"  # blue: a real result or an explained error, neither good nor bad news
MUTED = "#8c959f"  # grey: outside the course's subject (an error that is not about devices)
TO_DO = "#57606a"  # slate grey: not started yet, the learner's turn: neither a pass nor a failure
HIGHLIGHT = "#fff8c5"  # pale yellow background: a table row to read first

ELLIPSIS = "..."


class Html(str):
    """Text that is already HTML, escaped where it had to be; the builders below keep it as it is.

    Adding two ``Html`` with ``+`` gives a plain ``str``, which a builder would escape again: join
    pieces with ``markup`` instead. A mistake then shows as visible tags, never as live HTML.
    """


def escape(text: object) -> Html:
    """``text`` as HTML: escaped (``<`` becomes ``&lt;``), unless it is ``Html`` already."""
    return text if isinstance(text, Html) else Html(html.escape(str(text)))


def markup(*parts: object) -> Html:
    """The parts as one piece of HTML: each ``Html`` as it is, anything else escaped."""
    return Html("".join(escape(p) for p in parts))


def joined(parts: Iterable[object], separator: str = ", ") -> Html:
    """The parts with ``separator`` between them, everything escaped as ``markup`` does."""
    pieces = [escape(p) for p in parts]
    return Html(escape(separator).join(pieces))


LINE_BREAK = Html("<br>")


def tag(name: str, *content: object, colour: str | None = None, style: str = "", css_class: str = "") -> Html:
    """``<name>content</name>``, the content escaped as ``markup`` does; ``colour`` is a tone above.

    ``css_class`` names the element for a stylesheet (the website's ``site/_static/course.css``)."""
    styles = ";".join(s for s in (f"color:{colour}" if colour else "", style) if s)
    attributes = (f" class='{escape(css_class)}'" if css_class else "") + (f" style='{styles}'" if styles else "")
    return Html(f"<{name}{attributes}>{markup(*content)}</{name}>")


def card(tone: str, title: object, *body: object, dashed: bool = False, css_class: str = "") -> Html:
    """A box with a ``tone`` bar down its left side: ``title`` in bold, then ``body`` straight after.

    The shape of a verdict or an explanation: a check's PASS/FAIL, a caught error, a GPU recording.
    ``body`` continues the title's line; start it with ``LINE_BREAK`` or a block (``pre``, ``table``)
    to go below. A ``dashed`` bar marks something still to be done (a check not attempted yet).
    """
    line = "dashed" if dashed else "solid"
    return tag("div", tag("b", title), *body, style=f"border-left:4px {line} {tone};padding:.3em .6em;margin:.3em 0", css_class=css_class)


def pre(text: object, *, colour: str | None = None) -> Html:
    """Text as printed (line breaks and alignment kept), wrapped where a line is wider than the cell."""
    return tag("pre", text, colour=colour, style="margin:0;white-space:pre-wrap")


def table(
    rows: Iterable[Sequence[object]],
    head: Sequence[object] = (),
    *,
    cell_style: str = "",
    highlight: Collection[int] = (),
) -> Html:
    """A table with ``head`` as its header row (none when empty) and one row per item of ``rows``.

    Cells are escaped unless they are ``Html``. ``cell_style`` goes on every cell (notebook themes
    right-align cells; a column of code or indented text reads better left-aligned), and the rows
    numbered in ``highlight`` get the ``HIGHLIGHT`` background.
    """
    style = f" style='{cell_style}'" if cell_style else ""
    header = "<thead><tr>" + "".join(f"<th{style}>{escape(h)}</th>" for h in head) + "</tr></thead>" if head else ""
    body = "".join(
        (f"<tr style='background:{HIGHLIGHT}'>" if i in highlight else "<tr>") + "".join(f"<td{style}>{escape(c)}</td>" for c in row) + "</tr>"
        for i, row in enumerate(rows)
    )
    return Html(f"<table>{header}<tbody>{body}</tbody></table>")


def truncate(text: str, limit: int) -> str:
    """``text`` if it has at most ``limit`` characters; else its start and "...", ``limit`` in all."""
    require_int(
        "truncate(limit)",
        limit,
        minimum=len(ELLIPSIS),
        expected=f"should be {len(ELLIPSIS)} or more",
        hint="The limit counts the three dots of the ellipsis too.",
    )
    return text if len(text) <= limit else text[: limit - len(ELLIPSIS)] + ELLIPSIS


def require_int(name: str, value: object, *, minimum: int = 1, expected: str = "", hint: str = "") -> int:
    """``value``, if it is a whole number of at least ``minimum``; else a ValueError that says so.

    ``expected`` is the words after ``name`` in the message, like "should be a number of processes,
    1 or more"; ``hint`` says what to try. A bool is refused although Python counts it as an int:
    ``True`` as a count of processes or bytes is a slip. A value of the wrong type is a ValueError
    too, not a TypeError: ``"2"`` or ``1.5`` where a count belongs is a wrong value for the learner,
    and the callers always raised ValueError.
    """
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        expected = expected or f"should be a whole number, {minimum} or more"
        given = f"{value!r}" if type(value) is int else f"{value!r} (a {type(value).__name__})"
        hint = hint or f"Pass a whole number such as {max(minimum, 1)}."
        raise ValueError(f"{name} {expected}; got {given}. {hint}")
    return value
