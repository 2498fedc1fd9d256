"""Drive JupyterLab in Chromium the way a learner does: open a notebook, Run > Run All Cells,
read what the page shows, save, take a screenshot.

Everything here reads the page (the DOM): what the learner sees. The test cross-checks it with
the notebook Lab saved, which holds what the kernel sent.
"""

from __future__ import annotations

import os
import re
import signal
import time
from dataclasses import dataclass, field
from pathlib import Path

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]
VIEWPORT = {"width": 1400, "height": 1000}
MAX_SCREENSHOT_HEIGHT = 16000
# (notebook, seconds to open it, to Run All, to check/save/screenshot/close), for pytest's summary
TIMINGS: list[tuple[str, float, float, float]] = []

# What Lab shows when the widget manager is missing or broken: the text/plain fallback of a
# widget ("HBox(children=(IntSlider(...), ...))") or a placeholder that never resolves.
WIDGET_FALLBACK = re.compile(
    r"^\s*(HBox|VBox|Box|GridBox|Tab|Accordion|Stack|IntSlider|FloatSlider|FloatLogSlider|IntRangeSlider|"
    r"SelectionSlider|Dropdown|ToggleButtons?|Checkbox|Button|Label|HTML|Output|Image|Play|Text|"
    r"RadioButtons|Select|interactive)\((children|value|description|layout|outputs|options)?",
)
WIDGET_PLACEHOLDERS = ("Loading widget...", "Error displaying widget", "Model not found")


def chromium_executable() -> Path:
    return Path(os.environ.get("COURSE_CHROMIUM") or "/usr/bin/chromium")


def launch(playwright, profile: Path, executable: Path):
    """A headless Chromium with a new empty profile; returns the persistent BrowserContext."""
    profile.mkdir(parents=True, exist_ok=True)
    # Chromium keeps its crash reports and dconf/cache files under the XDG dirs (~/.config,
    # ~/.cache) whatever the profile: point them into the scratch profile too.
    env = dict(os.environ, XDG_CONFIG_HOME=str(profile / "xdg-config"), XDG_CACHE_HOME=str(profile / "xdg-cache"))
    return playwright.chromium.launch_persistent_context(
        str(profile),
        executable_path=str(executable),
        headless=True,
        args=CHROMIUM_ARGS,
        viewport=VIEWPORT,
        env=env,
        timeout=60_000,
    )


def kill_leftover_chromium(profile: Path) -> list[int]:
    """Kill, by pid, any Chromium process still using `profile` (ours only); return the pids."""
    killed = []
    proc = Path("/proc")
    if not proc.is_dir():
        return killed
    needle = f"--user-data-dir={profile}".encode()
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if needle in cmdline:
            try:
                os.kill(int(entry.name), signal.SIGKILL)
                killed.append(int(entry.name))
            except (ProcessLookupError, PermissionError):
                pass
    return killed


@dataclass
class Output:
    mime: str | None
    text: str
    is_error: bool
    is_widget: bool
    widget_ok: bool


@dataclass
class CellView:
    """One cell as the page shows it."""

    index: int
    kind: str  # "code" | "markdown" | "raw"
    prompt: str  # "[3]:", "[*]:", "[ ]:" or "" for non-code cells
    outputs: list[Output] = field(default_factory=list)

    @property
    def execution_count(self) -> int | None:
        match = re.search(r"\[(\d+)\]", self.prompt)
        return int(match.group(1)) if match else None

    @property
    def errors(self) -> list[Output]:
        return [out for out in self.outputs if out.is_error]

    @property
    def text(self) -> str:
        return "\n".join(out.text for out in self.outputs)


# Read every cell of the current notebook in one round trip. An error output and a stderr stream
# share Lab's MIME type application/vnd.jupyter.stderr; IPython's error output is told apart by its
# traceback header ("Traceback (most recent call last)"), for syntax errors by its
# "Cell In[n], line k" header and a final "XxxError: ..." line, and under `%xmode Minimal` by a
# first line "XxxError: ...".
_READ_CELLS = r"""
() => {
  const panel = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook');
  if (!panel) return null;
  const cells = Array.from(panel.querySelectorAll(':scope .jp-Cell')).filter(c => c.closest('.jp-Notebook') === panel);
  return cells.map((cell, index) => {
    const kind = cell.classList.contains('jp-CodeCell') ? 'code'
               : cell.classList.contains('jp-MarkdownCell') ? 'markdown' : 'raw';
    // a cell whose source opens folded (tag hide-input) has no input prompt: its result's prompt counts,
    // the one that carries a number (a printed line above the result has an empty prompt of its own)
    const outPrompts = Array.from(cell.querySelectorAll('.jp-OutputArea-prompt'));
    const promptEl = cell.querySelector('.jp-InputArea-prompt')
                     || outPrompts.find(p => /\d/.test(p.textContent)) || outPrompts[0];
    const prompt = kind === 'code' && promptEl ? promptEl.textContent.trim() : '';
    const outputs = Array.from(cell.querySelectorAll('.jp-OutputArea-output')).filter(
      o => o.closest('.jp-Cell') === cell && !o.parentElement.closest('.jp-OutputArea-output'));
    return {
      index, kind, prompt,
      outputs: outputs.map(o => {
        const mime = o.getAttribute('data-mime-type');
        const text = o.innerText || '';
        const isStderr = mime === 'application/vnd.jupyter.stderr';
        const lines = text.trim().split('\n');
        const isError = isStderr && (
          /Traceback \(most recent call last\)/.test(text) ||
          (/^\s*Cell In\[\d+\], line \d+/m.test(text) && /^\w*(Error|Exception)\b.*$/m.test(text)) ||
          // `%xmode Minimal` prints no header: the error is just "SomeError: message".
          /^[\w.]*(Error|Exception)(: |$)/.test(lines[0] || ''));
        const widgetEl = o.querySelector('.jupyter-widgets');
        const isWidget = !!widgetEl || mime === 'application/vnd.jupyter.widget-view+json';
        return {mime, text, isError, isWidget, widgetOk: !!widgetEl};
      }),
    };
  });
}
"""


def read_cells(page) -> list[CellView]:
    raw = page.evaluate(_READ_CELLS) or []
    return [
        CellView(
            index=c["index"],
            kind=c["kind"],
            prompt=c["prompt"],
            outputs=[Output(o["mime"], o["text"], o["isError"], o["isWidget"], o["widgetOk"]) for o in c["outputs"]],
        )
        for c in raw
    ]


def kernel_status(page) -> str | None:
    return page.evaluate(
        "() => { const e = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook-ExecutionIndicator');"
        " return e ? e.getAttribute('data-status') : null }"
    )


def wait_for_kernel_idle(page, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while kernel_status(page) != "idle":
        if time.monotonic() > deadline:
            raise TimeoutError(f"the kernel did not become idle within {timeout:.0f} s (status: {kernel_status(page)!r})")
        page.wait_for_timeout(250)


def menu(page, top: str, item: str) -> None:
    """Click `top` in Lab's menu bar, then its entry labelled `item` (labels, not shortcuts)."""
    page.locator(".lm-MenuBar-item", has=page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(f"^{re.escape(top)}$"))).click()
    page.locator(".lm-Menu-item", has=page.locator(".lm-Menu-itemLabel", has_text=re.compile(f"^{re.escape(item)}$"))).first.click()


class LabWindow:
    """One JupyterLab browser tab for the whole session; notebooks open in it one after another
    with File > Open from Path…, as a learner opens the next lesson (Lab starts once, not per
    notebook). After a failure, `discard()` it: the next `open()` starts a fresh Lab page.
    """

    def __init__(self, context, server, workspace: str = "browser-test"):
        self.context, self.server, self.workspace = context, server, workspace
        self.page = None
        self.page_errors: list[str] = []  # uncaught exceptions in the page, in order

    def _ensure_page(self, timeout: float):
        if self.page is None or self.page.is_closed():
            self.page = self.context.new_page()
            self.page.on("pageerror", lambda exc: self.page_errors.append(str(exc)))
            # ?reset: an empty workspace (no tabs restored from an earlier page).
            self.page.goto(self.server.url(f"lab/workspaces/{self.workspace}") + "&reset", timeout=timeout * 1000)
            self.page.wait_for_selector("#jp-main-dock-panel .lm-TabBar-tab", timeout=timeout * 1000)
        return self.page

    def open(self, relative: str, timeout: float = 120.0):
        """Open `relative` (a path under Lab's root) and wait for its cells and an idle kernel.

        Before its kernel exists Lab's indicator already reads "idle", so this also waits until
        the server lists a kernel session for the notebook; running cells earlier makes Lab ask
        which kernel to use.
        """
        page = self._ensure_page(timeout)
        menu(page, "File", "Open from Path…")
        page.locator(".jp-Dialog input").fill(relative)
        page.keyboard.press("Enter")
        name = relative.rsplit("/", 1)[-1]
        page.locator(".lm-DockPanel .lm-TabBar-tab.jp-mod-current", has_text=name).wait_for(timeout=timeout * 1000)
        page.wait_for_selector(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook .jp-Cell", timeout=timeout * 1000)
        hide_left_sidebar(page)  # Open from Path shows the file in the file browser
        deadline = time.monotonic() + timeout
        while not any(s.get("path") == relative and s.get("kernel") for s in self.server.api("sessions")):
            if time.monotonic() > deadline:
                raise TimeoutError(f"Lab started no kernel for {relative} within {timeout:.0f} s")
            page.wait_for_timeout(100)
        wait_for_kernel_idle(page, max(deadline - time.monotonic(), 1.0))
        return page

    def close_current(self, timeout: float = 30.0) -> None:
        """File > Close Tab; if Lab asks about unsaved changes, discard them (the test saved)."""
        page = self.page
        tabs_before = page.locator(".lm-DockPanel .lm-TabBar-tab").count()
        page.keyboard.press("Escape")
        menu(page, "File", "Close Tab")
        page.wait_for_function(
            f"() => document.querySelector('.jp-Dialog') || document.querySelectorAll('.lm-DockPanel .lm-TabBar-tab').length < {tabs_before}",
            timeout=timeout * 1000,
        )
        if page.locator(".jp-Dialog").count():
            page.locator(".jp-Dialog button", has_text=re.compile("Discard|Don.t Save|Close")).first.click()

    def discard(self) -> None:
        if self.page is not None and not self.page.is_closed():
            self.page.close()
        self.page = None


def run_all_cells(page, timeout: float = 300.0) -> float:
    """Run > Run All Cells from the menu bar; wait until no cell is queued and the kernel is idle.

    Returns the seconds it took. Lab stops a Run All at the first error in a cell not tagged
    raises-exception; the cells after it keep an empty prompt, which the caller reports.
    """
    start = time.monotonic()
    menu(page, "Run", "Run All Cells")
    deadline = start + timeout
    settled = 0
    while settled < 2:  # twice in a row: not between two cells of the queue
        page.wait_for_timeout(200)
        cells = read_cells(page)
        busy = any("*" in c.prompt for c in cells) or kernel_status(page) != "idle"
        settled = 0 if busy else settled + 1
        if time.monotonic() > deadline:
            queued = [c.index for c in cells if "*" in c.prompt]
            raise TimeoutError(f"Run All Cells did not finish within {timeout:.0f} s; cells still queued/running: {queued}")
    return time.monotonic() - start


def save(page, timeout: float = 30.0) -> None:
    """File > Save (Ctrl+S) and wait until the tab is no longer marked dirty."""
    page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook").click(position={"x": 5, "y": 5})
    page.keyboard.press("Escape")
    page.keyboard.press("Control+s")
    page.wait_for_function(
        "() => { const t = document.querySelector('.lm-DockPanel .lm-TabBar-tab.jp-mod-current');"
        " return t && !t.classList.contains('jp-mod-dirty') }",
        timeout=timeout * 1000,
    )


def hide_left_sidebar(page) -> None:
    """Collapse the file browser (Ctrl+B, View > Appearance) so screenshots show the notebook wide."""
    hidden = "() => { const e = document.querySelector('#jp-left-stack'); return !e || e.classList.contains('lm-mod-hidden') }"
    if page.evaluate(hidden):
        return
    page.keyboard.press("Escape")
    page.keyboard.press("Control+b")
    try:
        page.wait_for_function(hidden, timeout=5000)
    except Exception:
        pass  # cosmetic: a screenshot with the file browser open still shows the notebook


_SCROLLER = "document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-WindowedPanel-outer')"


# Where the last cell ends, in page pixels, with the notebook scrolled to its top.
_CONTENT_BOTTOM = f"""() => {{
  const o = {_SCROLLER};
  if (!o) return 0;
  o.scrollTop = 0;
  const cells = o.querySelectorAll('.jp-Cell');
  const last = cells[cells.length - 1];
  return last ? last.getBoundingClientRect().bottom : 0;
}}"""


def screenshot_notebook(page, path: Path) -> Path:
    """Save a screenshot of the whole notebook, top to bottom: the window is made as tall as it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        # Cells off screen have estimated heights until painted: grow, let them paint, measure again.
        for _ in range(4):
            wanted = min(int(page.evaluate(_CONTENT_BOTTOM)) + 60, MAX_SCREENSHOT_HEIGHT)
            if abs(wanted - page.viewport_size["height"]) <= 4:
                break
            page.set_viewport_size({"width": VIEWPORT["width"], "height": max(wanted, VIEWPORT["height"])})
            page.wait_for_timeout(250)
        page.screenshot(path=str(path))
    finally:
        page.set_viewport_size(VIEWPORT)
    return path


@dataclass(frozen=True)
class PlotState:
    images: tuple[str, ...]  # the src of every <img> in the plot area (blob: URLs change with the PNG)
    text: str

    def __str__(self) -> str:
        return f"images {[src[:60] for src in self.images]}, text {self.text[:120]!r}"


def plot_state(root) -> PlotState:
    plot = root.locator(".transfer-explorer-plot").first
    images = tuple(plot.locator("img").evaluate_all("els => els.map(e => e.getAttribute('src') || '')"))
    return PlotState(images, plot.inner_text())


def size_slider(root):
    """The slider whose label reads "size" (ipywidgets' description)."""
    return root.locator(".widget-slider").filter(has=root.page.locator(".widget-label", has_text="size")).first


def slider_value(slider) -> str:
    """What the slider's readout shows (e.g. "64 MiB"), else its handle's position."""
    readout = slider.locator(".widget-readout")
    if readout.count():
        return readout.first.inner_text().strip()
    return slider.locator(".noUi-handle").first.get_attribute("aria-valuenow") or ""


def move_size_control(page, root, timeout: float = 60.0) -> tuple[str, str, PlotState, PlotState]:
    """Move a widget's "size" slider one step with the keyboard, as a learner can, and wait for
    its plot to change. Returns (value before, value after, plot before, plot after); the plot
    states are equal when nothing changed within `timeout`.
    """
    root.scroll_into_view_if_needed()
    slider = size_slider(root)
    handle = slider.locator(".noUi-handle").first
    before_value = slider_value(slider)
    at_end = handle.get_attribute("aria-valuenow") == handle.get_attribute("aria-valuemax")
    before = plot_state(root)
    handle.focus()
    page.keyboard.press("ArrowLeft" if at_end else "ArrowRight")
    deadline = time.monotonic() + timeout
    after = plot_state(root)
    while after == before and time.monotonic() < deadline:
        page.wait_for_timeout(250)
        after = plot_state(root)
    if after != before:  # an image may be swapped before the status line: let both settle
        page.wait_for_timeout(500)
        wait_for_kernel_idle(page, timeout)
        after = plot_state(root)
    after_value = slider_value(slider)
    return before_value, after_value, before, after


# Each cell of the current notebook: is it shown, and what the folding controls on it say.
# JupyterLab hides the cells under a folded heading (lm-mod-hidden, display: none) and puts a
# "N cells hidden" button (jp-showHiddenCellsButton) under the heading, whose toggle in the
# prompt area (jp-collapseHeadingButton) carries jp-mod-collapsed while it is folded.
_READ_FOLDING = r"""
() => {
  const panel = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook');
  if (!panel) return null;
  const cells = Array.from(panel.querySelectorAll(':scope .jp-Cell')).filter(c => c.closest('.jp-Notebook') === panel);
  return cells.map((cell, index) => {
    const toggle = cell.querySelector('.jp-collapseHeadingButton');
    const hiddenButton = cell.querySelector('.jp-showHiddenCellsButton');
    return {
      index,
      shown: !cell.classList.contains('lm-mod-hidden') && getComputedStyle(cell).display !== 'none',
      folded: !!(toggle && toggle.classList.contains('jp-mod-collapsed')),
      hiddenLabel: hiddenButton ? hiddenButton.innerText.trim() : '',
    };
  });
}
"""


@dataclass(frozen=True)
class FoldView:
    """One cell's folding as the page shows it."""

    index: int
    shown: bool
    folded: bool  # a heading whose toggle says folded
    hidden_label: str  # "3 cells hidden" under a folded heading, else ""


def read_folding(page) -> list[FoldView]:
    return [FoldView(c["index"], c["shown"], c["folded"], c["hiddenLabel"]) for c in page.evaluate(_READ_FOLDING) or []]


def unfold(page, index: int) -> None:
    """Click the folding toggle of heading cell `index`, as a learner does, and let Lab redraw.

    Lab shows the toggle (left of the heading, in the prompt area) while the pointer is over the cell."""
    cell = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook .jp-Cell").nth(index)
    cell.scroll_into_view_if_needed()
    cell.hover()
    cell.locator(".jp-collapseHeadingButton").first.click()
    page.wait_for_timeout(300)
