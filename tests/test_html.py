"""course_utils.display: the one home of the course's HTML pieces, tone colours, cut text and int checks (issue 16)."""

import ast
import re
from pathlib import Path

import pytest

from course_utils import display
from course_utils.display import (
    OK,
    PROBLEM,
    Html,
    card,
    escape,
    joined,
    markup,
    pre,
    require_int,
    table,
    tag,
    truncate,
)

PACKAGE = Path(display.__file__).resolve().parent
SCRIPT = "<script>alert('x')</script>"

# --------------------------------------------------------------------------- escaping


def test_plain_text_is_escaped_everywhere_it_can_go():
    pieces = [escape(SCRIPT), markup(SCRIPT), tag("p", SCRIPT), card(OK, SCRIPT, SCRIPT), pre(SCRIPT), table([[SCRIPT]], head=[SCRIPT])]
    for piece in pieces:
        assert "<script" not in piece and "&lt;script&gt;" in piece


def test_html_built_by_the_caller_goes_in_as_it_is():
    bold = tag("b", "x")
    assert markup(bold, " & ", bold) == "<b>x</b> &amp; <b>x</b>"
    assert table([[bold, "<i>"]]) == "<table><tbody><tr><td><b>x</b></td><td>&lt;i&gt;</td></tr></tbody></table>"


def test_joined_escapes_parts_and_separator_but_keeps_html():
    assert joined([tag("code", "a"), "<b>"], " & ") == "<code>a</code> &amp; &lt;b&gt;"
    assert joined([]) == ""


def test_adding_html_with_plus_loses_the_mark_so_it_is_escaped_again_not_trusted():
    joined = tag("b", "x") + tag("b", "y")
    assert not isinstance(joined, Html) and "&lt;b&gt;" in markup(joined)


def test_card_has_a_tone_bar_a_bold_title_and_its_body():
    shown = card(PROBLEM, "raised ValueError", pre("bad value"))
    assert shown.startswith(f"<div style='border-left:4px solid {PROBLEM};")
    assert "<b>raised ValueError</b><pre" in shown and "bad value</pre></div>" in shown


def test_tag_colour_and_style_share_one_attribute():
    assert tag("span", "ok", colour=OK) == f"<span style='color:{OK}'>ok</span>"
    assert tag("pre", "x", colour=PROBLEM, style="margin:0") == f"<pre style='color:{PROBLEM};margin:0'>x</pre>"
    assert tag("i", 3) == "<i>3</i>"


def test_table_head_cell_style_and_highlighted_rows():
    shown = table([["a", 1], ["b", 2]], head=["name", "n"], cell_style="text-align:left", highlight={1})
    assert "<thead><tr><th style='text-align:left'>name</th>" in shown
    assert shown.count("<tr style='background:") == 1 and "background:" in shown.split("<td style='text-align:left'>b")[0]
    assert "<thead>" not in table([["a"]])


def test_course_objects_escape_the_strings_a_learner_gives_them():
    from course_utils.checks._core import CheckResult
    from course_utils.claims import CaughtError
    from course_utils.mismatches import MixedOutcome
    from course_utils.scopes import ScopeStep, ScopeTrace
    from course_utils.transfer.results import Skipped

    shown = [
        CheckResult(SCRIPT, SCRIPT, "fail", SCRIPT, SCRIPT)._repr_mimebundle_()["text/html"],
        CaughtError(SCRIPT, SCRIPT)._repr_html_(),
        MixedOutcome(SCRIPT, "wrong values", "cpu", SCRIPT)._repr_html_(),
        ScopeTrace((ScopeStep(SCRIPT, None, "cpu", 1, SCRIPT),), cuda_available=False)._repr_html_(),
        Skipped(SCRIPT, SCRIPT)._repr_html_(),
    ]
    for page in shown:
        assert "<script" not in page and "&lt;script&gt;" in page


# --------------------------------------------------------------------------- truncate


@pytest.mark.parametrize("text", ["", "abc", "x" * 10])
def test_truncate_leaves_text_at_or_below_the_limit_alone(text):
    assert truncate(text, 10) == text


def test_truncate_cuts_to_exactly_the_limit_with_an_ellipsis():
    assert truncate("x" * 11, 10) == "x" * 7 + "..."
    assert len(truncate("y" * 1000, 60)) == 60
    assert truncate("abcd", 3) == "..."


def test_truncate_refuses_a_limit_the_ellipsis_does_not_fit_in():
    with pytest.raises(ValueError, match=r"truncate\(limit\) should be 3 or more; got 2"):
        truncate("abcdef", 2)


# --------------------------------------------------------------------------- require_int


def test_require_int_returns_a_good_value():
    assert require_int("n", 1) == 1
    assert require_int("n", 0, minimum=0) == 0
    assert require_int("n", 10**20) == 10**20


@pytest.mark.parametrize(
    "bad, shown",
    [
        (True, "True (a bool)"),
        (False, "False (a bool)"),
        (1.0, "1.0 (a float)"),
        ("2", "'2' (a str)"),
        (None, "None (a NoneType)"),
        (0, "0"),
        (-3, "-3"),
    ],
)
def test_require_int_refuses_bool_float_str_zero_and_negative_naming_the_parameter(bad, shown):
    with pytest.raises(ValueError) as caught:
        require_int("nbytes", bad)
    message = str(caught.value)
    assert message.startswith("nbytes should be a whole number, 1 or more; got ")
    assert f"got {shown}." in message and "Pass a whole number such as 1." in message


def test_require_int_says_what_the_caller_expects_and_what_to_try():
    with pytest.raises(ValueError, match=r"^nproc should be a number of processes, 1 or more; got 0\. The course uses 2\.$"):
        require_int("nproc", 0, expected="should be a number of processes, 1 or more", hint="The course uses 2.")
    with pytest.raises(ValueError, match="machines should be 2 or more; got 1"):
        require_int("machines", 1, minimum=2, expected="should be 2 or more")
    with pytest.raises(ValueError, match="got -1"):
        require_int("count", -1, minimum=0)


# --------------------------------------------------------------------------- one home for the colours

# A CSS hex colour (#rgb or #rrggbb) in a string; issue and PR numbers ("pytorch#155085") are
# digits after a word, so the lookbehind leaves them out, and docstrings are not searched.
HEX_COLOUR = re.compile(r"(?<![\w&])#(?:[0-9a-fA-F]{6}|[0-9a-fA-F]{3})\b")


def _strings_outside_docstrings(tree: ast.AST):
    docstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                docstrings.add(id(first.value))
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            yield node


def test_the_colour_finder_finds_colours_and_not_issue_numbers():
    tree = ast.parse('"""Fixed by #148621."""\nA = "<b style=\'color:#cf222e\'>"\nB = f"solid {x} #000"\nC = "pytorch#155085"\n')
    found = [m.group() for n in _strings_outside_docstrings(tree) for m in HEX_COLOUR.finditer(n.value)]
    assert found == ["#cf222e", "#000"]


def test_no_module_but_display_spells_a_hex_colour():
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "display.py" and path.parent == PACKAGE:
            continue
        for node in _strings_outside_docstrings(ast.parse(path.read_text(encoding="utf-8"))):
            offenders += [f"{path.relative_to(PACKAGE)}:{node.lineno}: {m.group()}" for m in HEX_COLOUR.finditer(node.value)]
    assert not offenders, "use the tones in course_utils.display instead:\n" + "\n".join(offenders)


def test_display_imports_only_the_standard_library():
    tree = ast.parse(Path(display.__file__).read_text(encoding="utf-8"))
    imported = {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    imported |= {node.module.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module}
    assert imported <= {"__future__", "html", "collections"}, imported
