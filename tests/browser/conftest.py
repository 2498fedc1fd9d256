"""Session fixtures for the browser test: one JupyterLab server, one headless Chromium.

Both are skipped, with the reason in pytest's summary, where Chromium or the playwright package
is missing; both are always shut down (fixture finalizers), even when a test fails or times out.
"""

from __future__ import annotations

import os
import shutil

import lab_page
import lab_server
import pytest

ARTIFACTS = lab_server.ROOT / "artifacts" / "browser"


@pytest.fixture(scope="session")
def chromium():
    """The Chromium executable, or a skip that says what to install."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        pytest.skip(
            "the playwright package is not importable here (not installed?); "
            "`.venv/bin/pip install playwright` (no `playwright install`: the test uses the system Chromium)"
        )
    path = lab_page.chromium_executable()
    if not (path.is_file() and os.access(path, os.X_OK)):
        pytest.skip(f"Chromium not found at {path} (or $COURSE_CHROMIUM); install Debian's chromium to run the browser test")
    return path


@pytest.fixture(scope="session")
def artifacts(chromium):
    """artifacts/browser/, emptied of the screenshots of an earlier run."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for old in ARTIFACTS.glob("*.png"):
        old.unlink()
    return ARTIFACTS


@pytest.fixture(scope="session")
def lab(chromium, artifacts, tmp_path_factory):
    """The JupyterLab server; its log is kept as artifacts/browser/jupyter-lab.log."""
    server = lab_server.start(tmp_path_factory.mktemp("lab"))
    try:
        yield server
    finally:
        server.stop()
        shutil.copyfile(server.log_path, artifacts / "jupyter-lab.log")


@pytest.fixture(scope="session")
def browser(chromium, tmp_path_factory):
    """A headless Chromium (a Playwright BrowserContext with a new empty profile)."""
    from playwright.sync_api import sync_playwright

    profile = tmp_path_factory.mktemp("chromium-profile")
    playwright = sync_playwright().start()
    try:
        context = lab_page.launch(playwright, profile, chromium)
        try:
            yield context
        finally:
            context.close()
    finally:
        playwright.stop()
        lab_page.kill_leftover_chromium(profile)
        shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture(scope="session")
def lab_window(lab, browser):
    """One Lab tab for the session; notebooks open in it one after another."""
    window = lab_page.LabWindow(browser, lab)
    try:
        yield window
    finally:
        window.discard()


def pytest_terminal_summary(terminalreporter):
    if not lab_page.TIMINGS:
        return
    terminalreporter.section("JupyterLab in Chromium: seconds per notebook")
    for name, opened, ran, rest in lab_page.TIMINGS:
        terminalreporter.write_line(f"{name:<52} open {opened:5.1f}  run all {ran:5.1f}  check+save+screenshot {rest:4.1f}")
    total = sum(sum(t[1:]) for t in lab_page.TIMINGS)
    terminalreporter.write_line(f"{'total':<52} {total:.1f} (plus starting Lab and Chromium once)")
