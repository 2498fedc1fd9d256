"""``docs/error-messages.md``, generated from the explainer's table (``course_utils.error_families``).

Lesson: none; the authors' tool behind ``make pairs`` (``python -m course_authoring.error_docs --write``).
``tests/test_errors_table.py`` fails when the page and the table drift.
"""

from __future__ import annotations

from course_utils.error_families import FAMILIES, MENTIONS, SECTIONS

SHORT_TRACEBACKS = """## Short tracebacks

A deliberate error in a lesson raises deep inside torch's own Python code; `m + c` with `m` on
`meta` printed about 100 lines of `torch/_prims_common`, `torch/_decomp` and `torch/_dynamo`
frames before its message. Each lesson with a deliberate error loads
`%load_ext course_utils.tracebacks` in its imports cell: the frames inside torch's package folder
are folded into one line (`... 12 frames inside torch hidden: run %tb for the full traceback`),
keeping the learner's lines, chained exceptions and the `ExceptionType: message` line. `%tb` shows
the whole original traceback; `%unload_ext course_utils.tracebacks` restores IPython's handling.
It composes with `%load_ext course_utils.errors` in either order (the explanation goes under the
short traceback). `tests/test_notebook_tracebacks.py` runs every such lesson and checks that each
deliberate error's message is within the first 15 lines of its output.
"""


def _markdown_cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render_markdown() -> str:
    """docs/error-messages.md, from FAMILIES: one table per section, a row per family."""
    lines = [
        "# The error messages the explainer knows",
        "",
        "<!-- Generated from src/course_utils/error_families.py by `python -m course_authoring.error_docs`; "
        "do not edit by hand (tests/test_errors_table.py fails when they differ). -->",
        "",
        "`explain_device_error(exc_or_message)` and `%load_ext course_utils.errors` (lesson 05) read a",
        "PyTorch error and say which devices are involved, why, and what to change. They try the families",
        "below in order; the first whose pattern is found explains the message. A message that matches no",
        "family but names a device or a device backend (`cuda:1`, `mps`, `device(type='cpu')`,",
        '`torch.cuda.FloatTensor`, CUDA, ROCm, NCCL, cuDNN, GPU, ...) is never called "not a device error":',
        "the explanation says no family matched, names what the message names, what that usually means",
        'and what to check first. Only a message that names no device is answered "not a device error".',
        "",
        "Every wording was read from its source, not typed from memory: a release's files, a library's",
        "source, or a public report (its URL). `tests/errors_texts.py` and `tests/test_errors*.py` test each",
        "wording with its source. Where the model's side can be told (`addmm`'s `mat2`, a convolution's",
        "`weight`, MPS's `Linear`), the fix moves the input to the model, or the model to the input's",
        "accelerator when the model was left on the CPU: never the work to the CPU.",
    ]
    for section in SECTIONS:
        rows = [f for f in FAMILIES if f.section == section]
        lines += ["", f"## {section}", "", "| Family | Wording (example values filled in) | Releases | Read in |", "|---|---|---|---|"]
        for f in rows:
            lines.append(
                f"| {_markdown_cell(f.title)} | `{_markdown_cell(f.example)}` | {_markdown_cell(f.releases)} | {_markdown_cell(f.source)} |"
            )
    lines += ["", "## When no family matches", "", "| The message names | Usually means | Check first |", "|---|---|---|"]
    for m in MENTIONS:
        lines.append(f"| {_markdown_cell(m.label)} | {_markdown_cell(m.means)} | {_markdown_cell(m.check)} |")
    lines += ["", SHORT_TRACEBACKS]
    return "\n".join(lines)


DOC = "docs/error-messages.md"

if __name__ == "__main__":  # python -m course_authoring.error_docs --write  (from the repository root; make pairs)
    import sys
    from pathlib import Path

    if sys.argv[1:] == ["--write"]:
        Path(DOC).write_text(render_markdown(), encoding="utf-8")
    else:
        print(render_markdown(), end="")
