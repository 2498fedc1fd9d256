"""The course as a static website: ``make site`` (docs/authoring.md, "The website").

Lesson: none; this is the course's publishing tool. It builds ``build/site/`` in three steps:

1. **One execution per notebook.** Each lesson (``notebooks/``) and exercise (``exercises/``)
   notebook is taken from ``build/executed/`` when an execution of exactly this notebook and
   this course package is there (nbval's, left by ``make test``; see ``course_authoring.executed``),
   and executed with nbclient otherwise (then saved there too).
2. **Staging**, in ``build/site-src/``, laid out as the repository is: ``index.md`` (README),
   ``docs/*.md``, ``CONTRIBUTING.md``, and each executed notebook prepared for reading
   (:func:`prepare_notebook`): its header cells replaced by one with the Colab, Kaggle and
   download links and where the outputs come from, Deeper headings turned into the titles of
   folded blocks, a pointer before each place to type, the interactive widget replaced by a
   picture. ``_extra/`` holds the notebooks as shipped, served beside each page for download.
3. **Sphinx** with MyST-NB and sphinx-book-theme (``site/conf.py``; the page-level folding,
   part anchors and compact errors are the small extension ``site/course_site.py``), which
   never executes anything itself and downloads nothing.

``python -m course_authoring.site`` runs all three; ``--jobs`` executes that many notebooks at once.
"""

from __future__ import annotations

import argparse
import base64
import copy
import hashlib
import json
import os
import re
import shutil
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from course_authoring import executed
from course_authoring.header import TAG as HEADER_TAG
from course_authoring.header import Repository, repository
from course_utils.check_cells import STUB

SITE_DIR = Path("site")  # conf.py, the extension, the stylesheet: copied into the staging folder
STAGE_DIR = Path("build") / "site-src"
OUT_DIR = Path("build") / "site"
INFO_FILE = "course-site.json"  # in the built site: what it was built from
SETTINGS_FILE = "course-site-settings.json"  # in the staging folder: what conf.py reads from the repository
NOTEBOOK_DIRS = ("notebooks", "exercises")
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
PLACE_TO_TYPE = "place-to-type"  # the tag (and CSS class tag_place-to-type) of try-it and answer cells
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_LINK = re.compile(r"(\]\()([^)\s]+)(\))")
# `notebooks/03_model_placement.ipynb` as code, not already the text of a link: a repository path
_NOTEBOOK_MENTION = re.compile(rf"(?<!\[)`((?:{'|'.join(NOTEBOOK_DIRS)})/\d\d_[\w-]+\.ipynb)`(?!\]\()")
_EXTERNAL = re.compile(r"^([a-z][a-z0-9+.-]*:|#)", re.IGNORECASE)


class SiteError(RuntimeError):
    """The site cannot be built; the message says what to do."""


@dataclass(frozen=True)
class Page:
    """One notebook page: the repository's file and its executed copy."""

    relative: str  # notebooks/01_device_query.ipynb
    run: executed.Executed


@dataclass(frozen=True)
class BuildReport:
    """What one `make site` did: pages, which executions it reused, how long it took."""

    out: Path
    pages: tuple[Page, ...]
    executed_now: tuple[str, ...]
    seconds: float
    sphinx_warnings: int
    timings: dict = field(default_factory=dict)

    def summary(self) -> str:
        reused = [p.relative for p in self.pages if p.relative not in self.executed_now]
        return (
            f"site: {self.out}/index.html; {len(self.pages)} notebook pages, "
            f"{len(reused)} executions reused (nbval or an earlier build), {len(self.executed_now)} executed now; "
            f"{self.seconds:.0f} s ({', '.join(f'{k} {v:.0f} s' for k, v in self.timings.items())}); "
            f"{self.sphinx_warnings} Sphinx warnings"
        )


def notebook_sources(root: Path) -> list[str]:
    """Every lesson and exercise notebook, relative to ``root``, in reading order."""
    return [p.relative_to(root).as_posix() for d in NOTEBOOK_DIRS for p in sorted((root / d).glob("*.ipynb"))]


def text_sources(root: Path) -> dict[str, str]:
    """The Markdown pages: repository path -> staged path (README becomes the front page)."""
    pages = {"README.md": "index.md"}
    if (root / "CONTRIBUTING.md").is_file():
        pages["CONTRIBUTING.md"] = "CONTRIBUTING.md"
    pages.update({p.relative_to(root).as_posix(): p.relative_to(root).as_posix() for p in sorted((root / "docs").glob("*.md"))})
    return pages


def sources_digest(root: Path) -> str:
    """SHA-256 of everything the site is made of (pages, the package, site/): stale-build detection."""
    digest = hashlib.sha256(executed.package_digest().encode())
    files = [
        *notebook_sources(root),
        *text_sources(root),
        "pyproject.toml",
        *(p.relative_to(root).as_posix() for p in sorted((root / SITE_DIR).rglob("*")) if p.is_file()),
    ]
    for relative in files:
        digest.update(relative.encode() + b"\0" + (root / relative).read_bytes() + b"\0")
    return digest.hexdigest()


# --- 1. executions -------------------------------------------------------------------------------


def _execute_one(args: tuple[str, str, str]) -> executed.Executed:
    root, relative, key = args
    return executed.execute(Path(root), relative, key)


def executions(root: Path, jobs: int = 2, log=print) -> tuple[list[Page], list[str]]:
    """Each notebook's executed copy: reused when its key matches, else executed now (``jobs`` at once)."""
    package = executed.package_digest()
    keys = {rel: executed.notebook_key(root / rel, package) for rel in notebook_sources(root)}
    found = {rel: executed.lookup(root, rel, key) for rel, key in keys.items()}
    missing = [rel for rel, run in found.items() if run is None]
    for rel, run in found.items():
        if run is not None:
            log(f"  reuse   {rel} (executed by {run.executed_by})")
    if missing:
        log(f"  execute {len(missing)} notebook(s) with nbclient, {jobs} at a time: {', '.join(missing)}")
        with ProcessPoolExecutor(max_workers=max(1, jobs)) as pool:
            for run in pool.map(_execute_one, [(str(root), rel, keys[rel]) for rel in missing]):
                found[run.source] = run
    return [Page(rel, found[rel]) for rel in keys], missing


# --- 2. staging -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Provenance:
    """Where the outputs on the pages come from, in words for the page header."""

    text: str


def build_provenance() -> Provenance:
    """The build machine, as the notebooks' outputs saw it: torch version and accelerators."""
    import platform

    import torch

    if torch.cuda.is_available():
        names = sorted({torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count())})
        where = f"{torch.cuda.device_count()} CUDA GPU(s) ({', '.join(names)})"
    else:
        where = "no GPU (CPU only)"
    return Provenance(f"PyTorch {torch.__version__} on {platform.system()} {platform.machine()}, {where}")


def workspace_neighbour(page: str, name: str, staged: dict[str, str]) -> str | None:
    """The notebook a bare link ``name`` on notebook ``page`` opens in the learner's workspace.

    ``make lab`` copies lessons and exercises side by side into one folder (course_authoring.workspace),
    so a lesson links its exercises as ``01_device_query_exercises.ipynb``, a file that sits in
    ``exercises/``, not beside the lesson, in the repository. Returns the repository path of the
    notebook that name means (``exercises/01_device_query_exercises.ipynb``), or None: ``page`` is
    not a notebook, ``name`` has a folder in it, or no lesson or exercise has that name."""
    if "/" in name or Path(page).parent.as_posix() not in NOTEBOOK_DIRS:
        return None
    for folder in NOTEBOOK_DIRS:
        if f"{folder}/{name}" in staged:
            return f"{folder}/{name}"
    return None


def rewrite_links(markdown: str, page: str, root: Path, staged: dict[str, str], repo: Repository) -> str:
    """Relative Markdown links of ``page`` pointed at the staged pages, or at GitHub for other files.

    ``staged`` maps repository paths to staged paths (e.g. README.md -> index.md). A link to a
    file that the site does not show (a solution, a script) opens it on GitHub. On a notebook
    page, a bare notebook name that is not beside it is read as the workspace reads it
    (:func:`workspace_neighbour`): a lesson's ``NN_*_exercises.ipynb`` opens the exercise page."""
    base = Path(page).parent

    def replace(match: re.Match) -> str:
        target = match.group(2)
        if _EXTERNAL.match(target):
            return match.group(0)
        path, _, fragment = target.partition("#")
        resolved = os.path.normpath((base / path).as_posix()).replace(os.sep, "/")
        if resolved.startswith(".."):
            return match.group(0)
        if resolved not in staged and not (root / resolved).exists():
            resolved = workspace_neighbour(page, path, staged) or resolved
        if resolved in staged:
            new = os.path.relpath(staged[resolved], Path(staged.get(page, page)).parent).replace(os.sep, "/")
        elif (root / resolved).is_dir():
            new = f"{repo.url}/tree/main/{resolved}"
        elif (root / resolved).exists():
            new = repo.blob(resolved)
        else:
            return match.group(0)  # Sphinx reports it
        return f"{match.group(1)}{new}{'#' + fragment if fragment else ''}{match.group(3)}"

    return _LINK.sub(replace, markdown)


def link_notebook_mentions(markdown: str, page: str, staged: dict[str, str]) -> str:
    """Each `notebooks/NN_*.ipynb` or `exercises/NN_*.ipynb` named as code becomes a link to its page.

    An exercise notebook names its lesson that way (``Notebook: `notebooks/03_model_placement.ipynb```),
    a path that means nothing in the workspace; on the site it can open the page."""
    here = Path(staged.get(page, page)).parent

    def replace(match: re.Match) -> str:
        target = match.group(1)
        if target not in staged:
            return match.group(0)
        return f"[{match.group(0)}]({os.path.relpath(staged[target], here).replace(os.sep, '/')})"

    return _NOTEBOOK_MENTION.sub(replace, markdown)


@dataclass(frozen=True)
class Companion:
    """The page a notebook page points to at its top: an exercise's lesson, a lesson's exercises."""

    role: str  # "The lesson" or "Its exercises"
    relative: str  # the companion's repository path, e.g. notebooks/03_model_placement.ipynb
    title: str  # its first heading, e.g. "03 · Model placement"


def notebook_title(path: Path) -> str:
    """A notebook's first ``# `` heading (its title), or its file name."""
    nb = nbformat.read(str(path), as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            for line in cell.source.splitlines():
                if line.startswith("# "):
                    return line[2:].strip()
    return path.name


def companion(relative: str, root: Path, staged: dict[str, str]) -> Companion | None:
    """The lesson of ``exercises/NN_name_exercises.ipynb``, or the exercises of ``notebooks/NN_name.ipynb``."""
    path = Path(relative)
    if path.parent.as_posix() == "exercises" and path.stem.endswith("_exercises"):
        other, role = f"notebooks/{path.stem[: -len('_exercises')]}.ipynb", "The lesson"
    elif path.parent.as_posix() == "notebooks":
        other, role = f"exercises/{path.stem}_exercises.ipynb", "Its exercises"
    else:
        return None
    if other not in staged or not (root / other).is_file():
        return None
    return Companion(role, other, notebook_title(root / other))


def _markdown_cell(source: str, tags: list[str] | None = None):
    cell = nbformat.v4.new_markdown_cell(source, id="site-")  # numbered by prepare_notebook
    if tags:
        cell.metadata["tags"] = tags
    return cell


def header_cell(relative: str, repo: Repository, provenance: Provenance, other: Companion | None = None):
    """The links every notebook page carries, its lesson or exercises, and where its outputs come from."""
    name = Path(relative).name
    pointer = ""
    if other is not None:
        link = os.path.relpath(other.relative, Path(relative).parent).replace(os.sep, "/")
        pointer = f"**{other.role}:** [{other.title}]({link})\n\n"
    return _markdown_cell(
        pointer + f"**Run this notebook:** [Open in Colab]({repo.colab(relative)}) (Runtime > Change runtime type > T4 GPU)"
        f" · [Open in Kaggle]({repo.kaggle(relative)}) (Settings > Accelerator > GPU T4 x2)"
        f' · <a href="{name}" download>Download {name}</a>\n\n'
        f"The outputs below are from one run of this notebook on the machine that built this site: "
        f"{provenance.text}. Cells that need a GPU say what they skipped and show what a GPU shows, as in Jupyter.",
        tags=["course-site-header"],
    )


def place_to_type_note(relative: str, repo: Repository, what: str):
    name = Path(relative).name
    return _markdown_cell(
        f"✎ **{what}** In Jupyter you type in the cell below and run it; the check answers at once. "
        f"[Open in Colab]({repo.colab(relative)}) · [Open in Kaggle]({repo.kaggle(relative)}) · "
        f'<a href="{name}" download>download the notebook</a>.',
        tags=["course-site-note"],
    )


def demote_deeper_headings(source: str) -> str:
    """A Deeper cell's headings become the titles of folded blocks (a rubric, not a section).

    A section would also swallow the core cells that follow the Deeper ones; the extension folds
    exactly the cells tagged ``deeper``, starting a new block at each of these titles."""
    lines = []
    for line in source.splitlines():
        match = _HEADING.match(line)
        if match:
            # a colon fence: a backtick fence's info string may not hold the title's `code`
            lines += [":::{rubric} " + match.group(2), ":class: deeper-title", ":::"]
        else:
            lines.append(line)
    return "\n".join(lines)


def widget_picture(cell_source: str) -> tuple[bytes, str] | None:
    """A static picture for an interactive widget, and its note; None for a widget not known here.

    The transfer explorer (lesson 06) is built here, outside a kernel, and measures once as in
    the notebook: the picture is its plot from the build machine."""
    if "TransferExplorer" not in cell_source:
        return None
    from course_utils.widgets import TransferExplorer

    explorer = TransferExplorer()
    if explorer.error is not None or not explorer.image.value:
        return None
    return bytes(explorer.image.value), (
        "*A static picture:* the transfer explorer's plot after its first measurement on the machine that built "
        "this site. **In Jupyter it is live:** a size slider, the direction, pinned and `non_blocking` "
        "re-measure at once, and **Run** measures again. Open the notebook to use it."
    )


def prepare_notebook(nb, relative: str, root: Path, staged: dict[str, str], repo: Repository, provenance: Provenance):
    """``nb`` (executed) as its page shows it; the notebook itself is not changed."""
    nb = copy.deepcopy(nb)
    cells = []
    for index, cell in enumerate(nb.cells):
        tags = list(cell.metadata.get("tags", []))
        if HEADER_TAG in tags:
            continue
        if cell.cell_type == "markdown":
            cell.source = link_notebook_mentions(rewrite_links(cell.source, relative, root, staged, repo), relative, staged)
            if "deeper" in tags:
                cell.source = demote_deeper_headings(cell.source)
        elif cell.cell_type == "code":
            if "try-it" in tags:
                cells.append(place_to_type_note(relative, repo, "A place to type."))
                cell.metadata["tags"] = tags + [PLACE_TO_TYPE]
            elif relative.startswith("exercises/") and STUB[0] in cell.source:
                cells.append(place_to_type_note(relative, repo, "Your answer goes here."))
                cell.metadata["tags"] = tags + [PLACE_TO_TYPE]
            if any(WIDGET_MIME in out.get("data", {}) for out in cell.get("outputs", [])):
                picture = widget_picture(cell.source)
                if picture is None:
                    note = "*An interactive widget: it is live in Jupyter. Open the notebook to use it.*"
                    cell.outputs = []
                else:
                    png, note = picture
                    cell.outputs = [
                        nbformat.v4.new_output(
                            "display_data", data={"image/png": base64.b64encode(png).decode(), "text/plain": "<transfer explorer>"}
                        )
                    ]
                cells.append(cell)
                cells.append(_markdown_cell(note, tags=["course-site-note", "widget-note"]))
                continue
        cells.append(cell)
        if index == 0:  # the title cell; the page's own header follows it
            cells.append(header_cell(relative, repo, provenance, companion(relative, root, staged)))
    for position, cell in enumerate(cells):
        if cell.get("id", "").startswith("site-"):  # fixed ids: a page's bytes stay the same from build to build
            cell.id = f"site-{position}"
    nb.cells = cells
    if (nb.nbformat, nb.nbformat_minor) < (4, 5):
        for cell in nb.cells:
            cell.pop("id", None)  # cell ids came with nbformat 4.5
    nb.metadata.pop("widgets", None)  # no widget state: nothing for a CDN-loaded widget manager to render
    return nb


def _title(readme: Path) -> str:
    for line in readme.read_text(encoding="utf-8").splitlines():
        if line.startswith("# "):
            return line[2:].strip()
    return "The course"


def _write_if_changed(path: Path, data: bytes) -> None:
    """Write only when the content differs, so Sphinx's incremental build rebuilds only what changed."""
    if path.is_file() and path.read_bytes() == data:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def index_page(readme: str, pages: list[Page], texts: dict[str, str]) -> str:
    """README as the front page, with the site's table of contents (the sidebar)."""

    def toctree(caption: str, entries: list[str]) -> str:
        body = "\n".join(str(Path(e).with_suffix("")) for e in entries)
        return f"\n```{{toctree}}\n:hidden:\n:caption: {caption}\n:titlesonly:\n\n{body}\n```\n"

    lessons = [p.relative for p in pages if p.relative.startswith("notebooks/")]
    exercises = [p.relative for p in pages if p.relative.startswith("exercises/")]
    docs = [staged for source, staged in texts.items() if staged != "index.md"]
    return (
        readme.rstrip("\n") + "\n" + toctree("Lessons", lessons) + toctree("Exercises", exercises) + toctree("For instructors and authors", docs)
    )


def stage(root: Path, pages: list[Page], stage_dir: Path, repo: Repository, provenance: Provenance) -> None:
    """Write the Sphinx source folder (see the module's docstring)."""
    texts = text_sources(root)
    staged = {**texts, **{p.relative: p.relative for p in pages}}
    for item in sorted((root / SITE_DIR).rglob("*")):
        if item.is_file() and "__pycache__" not in item.parts:
            _write_if_changed(stage_dir / item.relative_to(root / SITE_DIR), item.read_bytes())
    settings = {"repository": repo.url, "title": _title(root / "README.md")}
    _write_if_changed(stage_dir / SETTINGS_FILE, (json.dumps(settings, indent=1) + "\n").encode())
    for source, target in texts.items():
        text = rewrite_links((root / source).read_text(encoding="utf-8"), source, root, staged, repo)
        if target == "index.md":
            text = index_page(text, pages, texts)
        _write_if_changed(stage_dir / target, text.encode())
    for page in pages:
        nb = nbformat.read(str(page.run.path), as_version=4)
        shown = prepare_notebook(nb, page.relative, root, staged, repo, provenance)
        _write_if_changed(stage_dir / page.relative, nbformat.writes(shown).encode())
        _write_if_changed(stage_dir / "_extra" / page.relative, (root / page.relative).read_bytes())


# --- 3. Sphinx ------------------------------------------------------------------------------------


def sphinx(stage_dir: Path, out: Path, jobs: int, log=print) -> int:
    """Run sphinx-build (html); return the number of warnings. Raises SiteError when it fails."""
    import subprocess

    warnings_file = out.parent / "site-warnings.txt"
    out.parent.mkdir(parents=True, exist_ok=True)
    if out.is_dir():  # no page of an earlier build left behind; the doctrees keep reading incremental
        shutil.rmtree(out)
    command = [
        sys.executable,
        "-m",
        "sphinx",
        "-b",
        "html",
        "-q",
        "-j",
        str(max(1, jobs)),
        "-w",
        str(warnings_file),
        "-d",
        str(out.parent / "site-doctrees"),
        str(stage_dir),
        str(out),
    ]
    result = subprocess.run(command)
    warnings = [line for line in warnings_file.read_text(encoding="utf-8").splitlines() if "WARNING" in line] if warnings_file.is_file() else []
    if result.returncode != 0:
        raise SiteError(f"sphinx-build failed (exit {result.returncode}); its messages are above and in {warnings_file}")
    if warnings:
        log(f"  {len(warnings)} Sphinx warning(s), in {warnings_file}")
    return len(warnings)


def build(root: Path = Path("."), out: Path | None = None, jobs: int = 2, log=print) -> BuildReport:
    """Build the website into ``out`` (default build/site) and say what it did."""
    root = Path(root).resolve()
    out = root / OUT_DIR if out is None else Path(out).resolve()
    try:
        import myst_nb  # noqa: F401
        import sphinx_book_theme  # noqa: F401
    except ImportError as exc:
        raise SiteError(
            f"the site's tools are not installed ({exc}): `.venv/bin/pip install -e '.[site]'`, or run `make site`, which does it"
        ) from None
    start = time.perf_counter()
    timings = {}
    repo = repository(root)
    pages, executed_now = executions(root, jobs, log)
    timings["executions"] = time.perf_counter() - start
    provenance = build_provenance()
    stage_dir = root / STAGE_DIR
    stage(root, pages, stage_dir, repo, provenance)
    timings["staging"] = time.perf_counter() - start - timings["executions"]
    warnings = sphinx(stage_dir, out, jobs, log)
    timings["sphinx"] = time.perf_counter() - start - timings["executions"] - timings["staging"]
    report = BuildReport(out, tuple(pages), tuple(executed_now), time.perf_counter() - start, warnings, timings)
    info = {
        "sources": sources_digest(root),
        "pages": [p.relative for p in pages],
        "executed_by": {p.relative: p.run.executed_by for p in pages},
        "executed_now": list(executed_now),
        "seconds": round(report.seconds, 1),
        "provenance": provenance.text,
    }
    (out / INFO_FILE).write_text(json.dumps(info, indent=1) + "\n", encoding="utf-8")
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", type=Path, default=Path("."))
    parser.add_argument("--out", type=Path, default=None, help="default: build/site")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="notebooks executed at once, and Sphinx's -j")
    args = parser.parse_args(argv)
    try:
        report = build(args.root, args.out, args.jobs)
    except SiteError as exc:
        print(f"make site: {exc}", file=sys.stderr)
        return 1
    print(report.summary())
    return 0


if __name__ == "__main__":
    sys.exit(main())
