"""The course's small Sphinx extension: pages teach as the notebooks do.

Lesson: none; this serves the website (course_authoring.site, docs/authoring.md "The website").
On every notebook page (the notebook's tags are read from the page's own source):

- the cells tagged ``deeper`` are folded, each block in an HTML ``<details>`` whose summary is
  its Deeper title (staging turned those headings into rubrics of class ``deeper-title``);
- a deliberate error (a cell tagged ``raises-exception``) shows one line, ``Type: message``,
  with the full traceback folded under it;

and on every page, a part heading ``## 3. Title`` gets the stable anchor ``#part-3`` (``## A.``
gets ``#part-a``, ``## Exercise 05.2 · Title`` gets ``#exercise-05-2``), whatever its wording
becomes.
"""

from __future__ import annotations

import re

import nbformat
from docutils import nodes
from sphinx.transforms import SphinxTransform

PART = re.compile(r"^\s*(\d+|[A-Z])\.\s")
EXERCISE = re.compile(r"^\s*Exercise\s+(\d+)\.(\d+)\b")
CELL_LINE_BASE = 10000  # MyST-NB numbers a notebook's lines (cell index + 1) * 10000 + line in the cell


class details(nodes.General, nodes.Element):
    """An HTML <details> block; its first child is a ``summary``."""


class summary(nodes.TextElement):
    """The always-visible line of a ``details`` block."""


def visit_details(self, node):
    self.body.append(self.starttag(node, "details", CLASS=" ".join(node.get("extra", []))))


def depart_details(self, node):
    self.body.append("</details>\n")


def visit_summary(self, node):
    self.body.append(self.starttag(node, "summary", ""))


def depart_summary(self, node):
    self.body.append("</summary>\n")


def _unique_id(document, wanted: str) -> str:
    candidate, n = wanted, 1
    while candidate in document.ids:
        n += 1
        candidate = f"{wanted}-{n}"
    return candidate


def _cell_index(node) -> int | None:
    """The notebook cell ``node`` came from: MyST-NB's cell_index, or decoded from its line number."""
    for sub in node.findall(include_self=True):
        line = getattr(sub, "line", None)
        if isinstance(line, int) and line >= CELL_LINE_BASE:
            return line // CELL_LINE_BASE - 1
        if isinstance(sub, nodes.Element) and sub.get("cell_index") is not None:
            return sub["cell_index"]
    return None


class PartAnchors(SphinxTransform):
    """``## 3. Title`` -> id ``part-3`` (``Exercise 05.2`` -> ``exercise-05-2``), first, so the
    heading's link and the page's table of contents use it."""

    default_priority = 200

    def apply(self):
        for section in self.document.findall(nodes.section):
            title = section.next_node(nodes.title)
            text = title.astext() if title is not None else ""
            if match := PART.match(text):
                anchor = f"part-{match.group(1).lower()}"
            elif match := EXERCISE.match(text):
                anchor = f"exercise-{match.group(1)}-{match.group(2)}"
            else:
                continue
            if anchor in self.document.ids:
                continue
            section["ids"].insert(0, anchor)
            self.document.ids[anchor] = section


class NotebookTeaching(SphinxTransform):
    """Deeper cells folded and deliberate errors compact, on notebook pages."""

    default_priority = 210

    def apply(self):
        source = self.document.get("source", "")
        if not source.endswith(".ipynb"):
            return
        nb = nbformat.read(source, as_version=4)
        self.cells = nb.cells
        self.deeper = {i for i, cell in enumerate(nb.cells) if "deeper" in cell.metadata.get("tags", [])}
        self.fold(self.document)
        self.compact_errors()

    def new_block(self, title_node=None, continues=None):
        """A folded block, titled by the Deeper rubric that starts it, or continuing an earlier one."""
        block = details(extra=["deeper"])
        if title_node is not None:
            text = title_node.astext()
            block["ids"] = [_unique_id(self.document, nodes.make_id(text))]
            self.document.ids[block["ids"][0]] = block
            block += summary("", "", *title_node.children)  # "Deeper: ...", as the notebook titles it
        elif continues is not None:  # more Deeper cells after a core cell, under the same title
            block += summary("", "", *(child.deepcopy() for child in continues.children), nodes.Text(" (continued)"))
        else:
            block += summary("", "Deeper: more on this part")
        return block

    def fold(self, parent):
        children, block, title = [], None, None
        for child in list(parent.children):
            if isinstance(child, nodes.section):
                self.fold(child)
                children.append(child)
                block = None
                continue
            if isinstance(child, nodes.title) or _cell_index(child) not in self.deeper:
                children.append(child)
                block = None
                continue
            starts = isinstance(child, nodes.rubric) and "deeper-title" in child["classes"]
            if block is None or starts:
                block = self.new_block(child if starts else None, continues=title)
                children.append(block)
            if starts:
                title = block[0]
            else:
                block += child
        parent.children = []
        parent.extend(children)

    def compact_errors(self):
        for cell in list(self.document.findall(nodes.container)):
            if "tag_raises-exception" not in cell["classes"]:
                continue
            outputs = self.cells[cell["cell_index"]].get("outputs", [])
            errors = [out for out in outputs if out.get("output_type") == "error"]
            for block in list(cell.findall(nodes.literal_block)):
                if "traceback" not in block["classes"] or not errors:
                    continue
                error = errors.pop(0)
                line = nodes.paragraph("", "", nodes.literal("", f"{error['ename']}: {error['evalue']}"),
                                       classes=["error-summary"])
                folded = details(extra=["traceback"])
                folded += summary("", "The full traceback (a deliberate error)")
                block.replace_self([line, folded])
                folded += block


def setup(app):
    app.add_node(details, html=(visit_details, depart_details))
    app.add_node(summary, html=(visit_summary, depart_summary))
    app.add_transform(PartAnchors)
    app.add_transform(NotebookTeaching)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
