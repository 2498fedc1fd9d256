"""The course's website (`make site`) in a real browser (headless Chromium).

It reads the site `make site` built (build/site/), served over HTTP as GitHub Pages serves it,
and opens every page: no console error, no request that fails or leaves the machine, every
internal link and #anchor resolves; each lesson page shows its outputs, its part anchors, its
folded Deeper blocks and its Colab/Kaggle/download links; the search finds a term of lesson 05.
Screenshots of two pages go to build/site-screenshots/.

The build is not repeated here (a cold one executes every notebook): the site must have been
built from the current files (build/site/course-site.json records what from). Otherwise the
tests skip saying so, except under COURSE_SITE_REQUIRED=1 (`make test-site`, which builds
first and which CI runs), where they fail.
"""

from __future__ import annotations

import functools
import json
import os
import re
import threading
from html.parser import HTMLParser
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from lab_server import ROOT

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SITE = ROOT / "build" / "site"
SCREENSHOTS = ROOT / "build" / "site-screenshots"
LESSONS = sorted(p.stem for p in (ROOT / "notebooks").glob("*.ipynb"))
EXERCISES = sorted(p.stem for p in (ROOT / "exercises").glob("*.ipynb"))


@pytest.fixture(scope="session")
def site_dir():
    """build/site/, when it was built from the files as they are now."""
    try:
        from course_authoring.site import INFO_FILE, sources_digest
    except ImportError as exc:  # pragma: no cover
        pytest.fail(f"course_authoring.site does not import: {exc}")
    info_file = SITE / INFO_FILE
    reason = None
    if not info_file.is_file():
        reason = f"no site at {SITE}: run `make site` first (or `make test-site`, which builds it and runs these tests)"
    elif json.loads(info_file.read_text(encoding="utf-8")).get("sources") != sources_digest(ROOT):
        reason = f"{SITE} was built from other files than these: run `make site` again (or `make test-site`)"
    if reason:
        if os.environ.get("COURSE_SITE_REQUIRED") == "1":
            pytest.fail(reason)
        pytest.skip(reason)
    return SITE


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format, *args):
        pass


@pytest.fixture(scope="session")
def site_url(site_dir):
    """The site over HTTP on 127.0.0.1 (a thread of this process), as a static host serves it."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_QuietHandler, directory=str(site_dir)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


class _Ids(HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name in ("id", "name") and value:
                self.ids.add(value)


@functools.cache
def ids_in(path: Path) -> frozenset[str]:
    parser = _Ids()
    parser.feed(path.read_text(encoding="utf-8"))
    return frozenset(parser.ids)


def html_pages(site: Path) -> list[str]:
    return sorted(p.relative_to(site).as_posix() for p in site.rglob("*.html") if "_static" not in p.parts)


class PageWatch:
    """Console errors, uncaught exceptions and failed or outside requests of one browser page."""

    def __init__(self, page, origin: str):
        self.problems: list[str] = []
        self.origin = origin
        page.on("console", lambda m: m.type == "error" and self.problems.append(f"console error: {m.text}"))
        page.on("pageerror", lambda e: self.problems.append(f"uncaught exception: {e}"))
        page.on("requestfailed", lambda r: self.problems.append(f"request failed: {r.url} ({r.failure})"))
        page.on("response", lambda r: r.status >= 400 and self.problems.append(f"HTTP {r.status}: {r.url}"))
        # Nothing may come from the internet (no CDN, no fonts, no widget manager): block and report.
        page.route(re.compile(r"^(?!" + re.escape(origin) + r"|data:|blob:|about:).*"), self._outside)

    def _outside(self, route):
        self.problems.append(f"fetched from outside the site: {route.request.url}")
        route.abort()


def _target_problem(href: str, origin: str, site: Path) -> str | None:
    """What is wrong with an internal link (a missing file or #anchor), or None."""
    parts = urlsplit(href)
    path = unquote(parts.path)
    target = site / path.lstrip("/")
    if path.endswith("/") or target.is_dir():
        target = target / "index.html"
    if not target.is_file():
        return f"{href}: no such file in the site"
    if parts.fragment and target.suffix == ".html" and unquote(parts.fragment) not in ids_in(target):
        return f"{href}: no element with id {parts.fragment!r} in {target.relative_to(site)}"
    return None


def test_every_page_renders_without_errors_and_its_links_resolve(browser, site_url, site_dir):
    pages = html_pages(site_dir)
    assert "index.html" in pages and len(pages) >= len(LESSONS) + len(EXERCISES) + 1
    problems = []
    for name in pages:
        page = browser.new_page()
        watch = PageWatch(page, site_url)
        try:
            page.goto(f"{site_url}/{name}", wait_until="load")
            page.wait_for_load_state("networkidle")
            title = page.locator("main h1").first
            if not title.count() or not title.inner_text().strip():
                problems.append(f"{name}: no title (main h1) shown")
            links = page.eval_on_selector_all("a[href]", "els => els.map(e => e.href)")
        finally:
            page.close()
        problems += [f"{name}: {p}" for p in watch.problems]
        for href in links:
            if href.startswith(site_url):
                problem = _target_problem(href[len(site_url) :] or "/", site_url, site_dir)
                if problem:
                    problems.append(f"{name}: link {problem}")
    assert not problems, "\n".join(problems)


def test_no_page_names_a_script_or_stylesheet_from_outside_the_site(site_dir):
    """What the browser test blocks at run time, read from the HTML: no CDN for MathJax, require.js,
    widgets, fonts or the theme, on any page, used or not."""
    outside = re.compile(r"<(script|link)\b[^>]*\b(src|href)=[\"'](https?:)?//[^\"']*", re.IGNORECASE)
    found = [f"{name}: {m.group(0)}" for name in html_pages(site_dir) for m in outside.finditer((site_dir / name).read_text(encoding="utf-8"))]
    assert not found, "\n".join(found)


def _code_cells_with_outputs(run: Path) -> int:
    nb = json.loads(run.read_text(encoding="utf-8"))
    return sum(1 for c in nb["cells"] if c["cell_type"] == "code" and c.get("outputs"))


@pytest.mark.parametrize("lesson", LESSONS)
def test_each_lesson_page_shows_its_outputs_links_parts_and_folded_deeper(browser, site_url, site_dir, lesson):
    page = browser.new_page()
    try:
        page.goto(f"{site_url}/notebooks/{lesson}.html", wait_until="load")
        outputs = page.locator("div.cell div.cell_output").count()
        expected = _code_cells_with_outputs(ROOT / "build" / "executed" / "notebooks" / f"{lesson}.ipynb")
        # the install cell (course-header) is not on the page, and it prints nothing here
        assert outputs >= expected - 1 and outputs >= 5, f"{lesson}: {outputs} cell outputs shown, the run has {expected}"
        for text in ("Open in Colab", "Open in Kaggle"):
            link = page.get_by_role("link", name=text).first
            assert f"notebooks/{lesson}.ipynb" in link.get_attribute("href")
        download = page.locator(f'a[download][href="{lesson}.ipynb"]').first
        assert download.count(), f"{lesson}: no download link"
        assert (site_dir / "notebooks" / f"{lesson}.ipynb").is_file()
        if f"{lesson}_exercises" in EXERCISES:  # the header and the Next line open the exercise page
            to_exercises = page.locator(f'article a[href^="../exercises/{lesson}_exercises.html"]').count()
            assert to_exercises >= 2, f"{lesson}: {to_exercises} link(s) to its exercise page, expected the header's and the Next line's"
        parts = page.eval_on_selector_all("section[id^=part-]", "els => els.map(e => e.id)")
        assert parts, f"{lesson}: no part anchor (#part-1, ...)"
        deeper = page.locator("details.deeper")
        if "deeper" in (ROOT / "notebooks" / f"{lesson}.ipynb").read_text(encoding="utf-8"):
            assert deeper.count(), f"{lesson}: the Deeper cells are not folded"
            assert deeper.first.get_attribute("open") is None, "a Deeper block is open by default"
        assert page.locator("div.cell.tag_place-to-type").count(), f"{lesson}: no try-it cell marked as a place to type"
        # exactly the deeper cells are folded: every one inside a Deeper block, no core cell in one
        unfolded = page.locator("div.cell.tag_deeper:not(details.deeper div.cell)").count()
        core_folded = page.locator("details.deeper div.cell:not(.tag_deeper)").count()
        assert (unfolded, core_folded) == (0, 0), f"{lesson}: {unfolded} Deeper cells left open, {core_folded} core cells folded"
        # a deliberate error: one line, the traceback folded under it
        for error in page.locator("div.cell.tag_raises-exception").all():
            assert error.locator("p.error-summary").count() == 1 and error.locator("details.traceback").count() == 1
    finally:
        page.close()


@pytest.mark.parametrize("exercise", EXERCISES)
def test_each_exercise_page_marks_where_answers_go(browser, site_url, site_dir, exercise):
    page = browser.new_page()
    try:
        page.goto(f"{site_url}/exercises/{exercise}.html", wait_until="load")
        places = page.locator("div.cell.tag_place-to-type")
        assert places.count() >= 1 and all("YOUR CODE HERE" in p.inner_text() for p in places.all())
        assert page.locator("section[id^=exercise-]").count() >= 1, f"{exercise}: no #exercise-NN-K anchor"
        assert page.locator("div.cell div.cell_output").count() >= places.count()  # each check's card
        # an untouched exercise is the learner's turn: a TO DO card for each check, no red FAIL (issue 33.2)
        todo = page.locator("div.course-check-not-attempted")
        assert todo.count() >= places.count() and "✎ TO DO" in todo.first.inner_text(), exercise
        assert page.locator("div.course-check-fail").count() == 0, exercise
        assert page.get_by_role("link", name="Open in Colab").first.get_attribute("href").endswith(f"exercises/{exercise}.ipynb")
        # the header's "The lesson:" and the intro's `notebooks/NN_*.ipynb` open the lesson's page
        lesson = exercise.removesuffix("_exercises")
        to_lesson = page.locator(f'article a[href^="../notebooks/{lesson}.html"]').count()
        assert to_lesson >= 2, f"{exercise}: {to_lesson} link(s) to its lesson page"
    finally:
        page.close()


def test_lesson_06_shows_the_explorer_as_a_picture_and_a_plot(browser, site_url, site_dir):
    page = browser.new_page()
    try:
        page.goto(f"{site_url}/notebooks/06_transfers_and_timing.html", wait_until="load")
        note = page.locator("p", has_text="In Jupyter it is live")
        assert note.count() == 1
        images = page.locator("div.cell_output img")
        assert images.count() >= 2  # the bandwidth plots and the explorer's picture
        assert all(images.nth(i).evaluate("img => img.naturalWidth > 0") for i in range(images.count()))
        assert not page.locator("script[type='application/vnd.jupyter.widget-view+json']").count()
    finally:
        page.close()


def test_search_finds_a_term_of_lesson_05(browser, site_url, site_dir):
    page = browser.new_page()
    try:
        page.goto(f"{site_url}/search.html?q=map_location", wait_until="load")
        results = page.locator("#search-results ul.search li a")
        results.first.wait_for(timeout=30_000)
        hrefs = results.evaluate_all("els => els.map(e => e.getAttribute('href'))")
        assert any("05_error_clinic" in h for h in hrefs), hrefs
    finally:
        page.close()


def test_screenshots_of_two_pages(browser, site_url, site_dir):
    """For a person to look at: lesson 05 at part 3 (an error, a try-it cell), and the front page."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page = browser.new_page()
    try:
        page.goto(f"{site_url}/notebooks/05_error_clinic.html#part-3", wait_until="load")
        page.wait_for_load_state("networkidle")
        page.screenshot(path=str(SCREENSHOTS / "05_error_clinic-part-3.png"))
        page.goto(f"{site_url}/notebooks/01_device_query.html", wait_until="load")
        page.wait_for_load_state("networkidle")
        page.locator("details.deeper").first.evaluate("d => d.open = true")
        page.screenshot(path=str(SCREENSHOTS / "01_device_query-full.png"), full_page=True)
    finally:
        page.close()
    assert (SCREENSHOTS / "05_error_clinic-part-3.png").stat().st_size > 10_000
