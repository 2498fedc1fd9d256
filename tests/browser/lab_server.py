"""A JupyterLab server for the browser test, started the way `make lab` starts it.

`make lab` runs `.venv/bin/jupyter lab --port=$(PORT) notebooks/01_device_query.ipynb`. The test
runs the same `jupyter lab` from the same environment, with three differences that keep it
hermetic and the repository untouched:

- its root is a scratch COPY of notebooks/, solutions/, exercises/ and jupytext.toml, so running
  and saving notebooks (Jupytext also writes the paired .py) never changes a tracked file;
- JUPYTER_CONFIG_DIR, JUPYTER_DATA_DIR, JUPYTER_RUNTIME_DIR and IPYTHONDIR point into the scratch
  folder, so the learner's own settings, workspaces and kernels neither leak in nor get written;
- it listens on 127.0.0.1 on a free port with a known token and opens no browser, and the
  features that only reach the internet (update check, news) are off.

The server runs in its own process group; `stop()` ends the whole group, kernels included.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
COPIED = ("notebooks", "solutions", "exercises")
COPIED_FILES = ("jupytext.toml",)

# Lab's user settings written into the scratch config dir: no "receive Jupyter news?" toast
# (it would cover cells in screenshots) and no network fetches from the page.
USER_SETTINGS = {
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {
        "fetchNews": "false",
        "checkForUpdates": False,
    },
    # Every cell in the page, always: with windowing Lab may leave off-screen cells out of the DOM
    # (and does, on a busy machine, for long notebooks), so the test would count fewer cells than ran.
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {
        "windowingMode": "none",
    },
}


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def jupyter_command() -> list[str]:
    """The venv's `jupyter` script, as `make lab` calls it; `python -m jupyter` if there is none."""
    script = Path(sys.executable).with_name("jupyter")
    return [str(script)] if script.exists() else [sys.executable, "-m", "jupyter"]


def copy_course(dest: Path) -> Path:
    """Copy the course notebooks into `dest` as a fresh clone has them and return the Lab root.

    Every copied file gets the same modification time, as after `git clone`. (Jupytext refuses to
    open a pair whose .ipynb is newer than its .py unless both give the same cells; with the
    author's timestamps the test would depend on when `make pairs` last ran.)
    """
    root = dest / "course"
    root.mkdir(parents=True)
    for name in COPIED:
        if (ROOT / name).is_dir():
            shutil.copytree(
                ROOT / name,
                root / name,
                copy_function=shutil.copyfile,
                ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__"),
            )
    for name in COPIED_FILES:
        if (ROOT / name).exists():
            shutil.copyfile(ROOT / name, root / name)
    now = time.time()
    for path in root.rglob("*"):
        os.utime(path, (now, now))
    return root


@dataclass
class LabServer:
    """A running `jupyter lab`; use `start()` and always `stop()` (the fixture does)."""

    root: Path
    home: Path
    port: int
    token: str
    process: subprocess.Popen
    log_path: Path
    _threads: list[threading.Thread] = field(default_factory=list)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def url(self, path: str) -> str:
        return f"{self.base_url}/{path.lstrip('/')}?token={self.token}"

    def lab_url(self, relative: str) -> str:
        """The Lab page that opens `relative` (a path under the root), as `make lab FILE` does."""
        return self.url(f"lab/tree/{relative}")

    def api(self, path: str) -> dict:
        request = urllib.request.Request(f"{self.base_url}/api/{path}", headers={"Authorization": f"token {self.token}"})
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.loads(response.read())

    def shutdown_sessions_soon(self) -> None:
        """Shut down every kernel session in the background (the next notebook need not wait)."""
        thread = threading.Thread(target=self.shutdown_sessions, name="lab-kernel-shutdown", daemon=True)
        thread.start()
        self._threads.append(thread)

    def shutdown_sessions(self) -> None:
        """Shut down every kernel session (what Kernel > Shut Down Kernel does), freeing its memory."""
        try:
            sessions = self.api("sessions")
        except (urllib.error.URLError, OSError):
            return  # the server is gone: stop() handles what is left
        for session in sessions:
            request = urllib.request.Request(
                f"{self.base_url}/api/sessions/{session['id']}",
                method="DELETE",
                headers={"Authorization": f"token {self.token}"},
            )
            try:
                urllib.request.urlopen(request, timeout=30).close()
            except urllib.error.HTTPError as exc:
                if exc.code != 404:  # 404: already gone
                    raise
            except (urllib.error.URLError, OSError):
                return

    def log(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except OSError:
            return ""

    def stop(self) -> None:
        """End the server and every process it started (kernels), then wait for them."""
        for thread in self._threads:
            thread.join(timeout=15)
        if self.process.poll() is None:
            try:
                os.killpg(self.process.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
        # Kernels live in the same process group; make sure none outlives the server.
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        if self.process.poll() is None:
            self.process.wait(timeout=10)


def _die_with_parent() -> None:
    """In the child, before exec: ask Linux to SIGTERM the server if pytest itself is killed."""
    try:
        import ctypes

        PR_SET_PDEATHSIG = 1
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    except (OSError, AttributeError):
        pass  # not Linux: the fixture's finalizer still stops the server


def hermetic_env(home: Path) -> dict[str, str]:
    env = dict(os.environ)
    for var, sub in (
        ("JUPYTER_CONFIG_DIR", "config"),
        ("JUPYTER_DATA_DIR", "data"),
        ("JUPYTER_RUNTIME_DIR", "runtime"),
        ("IPYTHONDIR", "ipython"),
    ):
        path = home / sub
        path.mkdir(parents=True, exist_ok=True)
        env[var] = str(path)
    env.pop("JUPYTER_PATH", None)
    env.pop("JUPYTER_CONFIG_PATH", None)
    env["JUPYTER_PLATFORM_DIRS"] = "1"
    env["PYTHONUNBUFFERED"] = "1"
    settings = home / "config" / "lab" / "user-settings"
    for name, values in USER_SETTINGS.items():
        path = settings / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values))
    return env


def start(scratch: Path, timeout: float = 90.0) -> LabServer:
    """Copy the course into `scratch`, start `jupyter lab` there and wait until it answers."""
    root = copy_course(scratch)
    home = scratch / "jupyter-home"
    env = hermetic_env(home)
    port, token = free_port(), secrets.token_hex(16)
    log_path = scratch / "jupyter-lab.log"
    command = jupyter_command() + [
        "lab",
        "--no-browser",
        "--ip=127.0.0.1",
        f"--port={port}",
        "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={root}",
        "--LabApp.news_url=None",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
    ]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        command.append("--allow-root")  # CI containers run as root; Jupyter refuses without this
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            command,
            cwd=root,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,  # its own process group: stop() ends the kernels too
            preexec_fn=_die_with_parent if sys.platform.startswith("linux") else None,
        )
    server = LabServer(root=root, home=home, port=port, token=token, process=process, log_path=log_path)
    deadline = time.monotonic() + timeout
    try:
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"jupyter lab exited with code {process.returncode} before answering:\n{server.log()[-3000:]}")
            try:
                server.api("status")
                return server
            except (urllib.error.URLError, ConnectionError, OSError):
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"jupyter lab did not answer on port {port} within {timeout:.0f} s:\n{server.log()[-3000:]}")
            time.sleep(0.25)
    except BaseException:
        server.stop()
        raise
