"""Which PyTorch `make lab` and `make test` install (scripts/install_torch.py, issue 33): the CPU wheel on a
Linux without an NVIDIA driver, the ordinary wheel elsewhere, a named TORCH as named, a torch already in the
venv kept, and pip's default index, said plainly, where PyTorch's CPU index cannot be reached. Each machine is
simulated: its facts are given, the index's answer is a fake or a local server, pip is a fake."""

import http.server
import importlib.util
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("install_torch", ROOT / "scripts" / "install_torch.py")
it = importlib.util.module_from_spec(_spec)
sys.modules.setdefault("install_torch", it)  # its dataclasses look their module up while they are built
_spec.loader.exec_module(it)

DEFAULT = "torch>=2.7.1"
LAPTOP = it.Machine("linux", driver=None, installed=None)  # Linux, no NVIDIA driver, a fresh venv
GPU_BOX = it.Machine("linux", driver="/proc/driver/nvidia: the NVIDIA kernel driver's entry in /proc", installed=None)


class Probe:
    """A fake index: answers (None) or not (a reason), and records what it was asked."""

    def __init__(self, answer=None):
        self.answer, self.asked = answer, []

    def __call__(self, url):
        self.asked.append(url)
        return self.answer


# ----------------------------------------------------------------- the choice, machine by machine


def test_a_linux_without_a_driver_gets_the_cpu_wheel_from_pytorchs_cpu_index():
    probe = Probe()
    choice = it.choose(DEFAULT, False, LAPTOP, probe)
    assert choice.pip_args == ("--index-url", "https://download.pytorch.org/whl/cpu", DEFAULT)
    assert probe.asked == ["https://download.pytorch.org/whl/cpu/torch/"]
    assert "without an NVIDIA driver" in choice.why and "CPU wheel" in choice.why
    # if pip then fails there, the ordinary wheel from pip's index, saying why
    assert choice.fallback.pip_args == (DEFAULT,) and choice.fallback.fallback is None
    assert "could not install torch from https://download.pytorch.org/whl/cpu" in choice.fallback.why
    assert "CUDA build" in choice.fallback.why


def test_an_unreachable_cpu_index_falls_back_to_pips_index_and_says_so():
    choice = it.choose(DEFAULT, False, LAPTOP, Probe("[Errno -2] Name or service not known"))
    assert choice.pip_args == (DEFAULT,) and choice.fallback is None
    why = choice.why
    for said in (
        "without an NVIDIA driver",
        "cannot be reached ([Errno -2] Name or service not known)",
        "Falling back to pip's default index",
        "CUDA build",
        "rm -rf .venv",
    ):
        assert said in why, f"{said!r} missing from: {why}"


@pytest.mark.parametrize(
    "machine, system",
    [
        (GPU_BOX, "NVIDIA driver"),
        (it.Machine("darwin", None, None), "macOS"),
        (it.Machine("win32", None, None), "Windows"),
    ],
)
def test_a_driver_macos_and_windows_get_the_ordinary_wheel_without_asking_the_cpu_index(machine, system):
    probe = Probe()
    choice = it.choose(DEFAULT, False, machine, probe)
    assert choice.pip_args == (DEFAULT,) and choice.fallback is None
    assert system in choice.why and "ordinary torch wheel" in choice.why
    assert probe.asked == []


@pytest.mark.parametrize("machine", [LAPTOP, GPU_BOX, it.Machine("linux", None, "2.13.0+cpu"), it.Machine("darwin", None, None)])
def test_a_named_torch_is_installed_as_named_from_pips_index(machine):
    probe = Probe()
    choice = it.choose("torch==2.14.1", True, machine, probe)  # the test matrix's CUDA build on purpose
    assert choice.pip_args == ("torch==2.14.1",) and choice.fallback is None
    assert "TORCH=torch==2.14.1 was named" in choice.why and probe.asked == []


@pytest.mark.parametrize("installed", ["2.13.0+cpu", "2.14.1", "2.7.1", "2.16.0.dev20261201+cpu"])
def test_a_torch_already_in_the_venv_that_meets_the_requirement_is_kept(installed):
    # CI pre-installs the CPU wheel 2.13.0 and README tells a learner to do the same: setup keeps it
    probe = Probe()
    choice = it.choose(DEFAULT, False, it.Machine("linux", None, installed), probe)
    assert choice.pip_args is None and f"torch {installed} is already in this environment" in choice.why
    assert probe.asked == []


def test_a_torch_too_old_for_the_requirement_is_replaced_as_on_a_fresh_machine():
    old = it.Machine("linux", None, "2.5.1")
    assert it.choose(DEFAULT, False, old, Probe()) == it.choose(DEFAULT, False, LAPTOP, Probe())
    assert it.choose("torch>=2.14", False, it.Machine("linux", None, "2.13.0+cpu"), Probe()).pip_args[0] == "--index-url"


def test_a_requirement_that_is_not_one_on_torch_says_what_was_expected():
    with pytest.raises(ValueError, match=r"(?s)expects a requirement like 'torch>=2.7.1'.*--named"):
        it.choose("not a requirement!", False, it.Machine("linux", None, "2.13.0"), Probe())
    with pytest.raises(ValueError, match="a requirement on torch"):
        it.choose("numpy>=1", False, it.Machine("linux", None, "2.13.0"), Probe())


# ----------------------------------------------------------------- reading the machine


def _fake_smi(folder: Path) -> str:
    folder.mkdir(parents=True, exist_ok=True)
    smi = folder / "nvidia-smi"
    smi.write_text("#!/bin/sh\n")
    smi.chmod(0o755)
    return str(folder)


@pytest.mark.skipif(sys.platform == "win32", reason="a POSIX file system stands in for the machine")
def test_the_driver_shows_by_nvidia_smi_by_proc_or_by_wsls_library(tmp_path):
    empty_path = str(tmp_path / "nothing-here")
    assert it.driver_sign(path=empty_path, root=tmp_path) is None
    assert it.driver_sign(path=_fake_smi(tmp_path / "bin"), root=tmp_path).startswith("nvidia-smi at ")
    (tmp_path / "proc" / "driver" / "nvidia").mkdir(parents=True)
    assert it.driver_sign(path=empty_path, root=tmp_path).startswith("/proc/driver/nvidia")
    shutil.rmtree(tmp_path / "proc")
    (tmp_path / "usr" / "lib" / "wsl" / "lib").mkdir(parents=True)
    (tmp_path / "usr" / "lib" / "wsl" / "lib" / "libcuda.so.1").touch()
    assert "WSL" in it.driver_sign(path=empty_path, root=tmp_path)


def test_the_installed_torch_is_read_from_this_environment():
    import torch

    # the distribution's version: '2.13.0+cpu' for the CPU wheel, plain '2.14.1' for PyPI's CUDA build,
    # whose torch.__version__ still says '2.14.1+cu130'
    assert it.installed_torch().split("+")[0] == torch.__version__.split("+")[0]


class _Index(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200 if self.path == "/whl/cpu/torch/" else 404)
        self.end_headers()

    def log_message(self, *args):
        pass


def test_reach_says_none_for_an_index_that_answers_and_why_for_one_that_does_not():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Index)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        base = f"http://127.0.0.1:{server.server_address[1]}"
        assert it.reach(base + "/whl/cpu/torch/") is None
        assert it.reach(base + "/elsewhere/") == "HTTP 404 Not Found"
    finally:
        server.shutdown()
        server.server_close()
    # nothing listens there any more: refused at once, with the reason
    assert "refused" in it.reach(base + "/whl/cpu/torch/").lower()


# ----------------------------------------------------------------- installing, and falling back


class Pip:
    """A fake pip: exit statuses in order, and the commands it was given."""

    def __init__(self, *codes):
        self.codes, self.commands = list(codes), []

    def __call__(self, command):
        self.commands.append(command)
        return subprocess.CompletedProcess(command, self.codes.pop(0))


def test_install_runs_pip_on_the_cpu_index_and_falls_back_when_it_fails():
    choice = it.choose(DEFAULT, False, LAPTOP, Probe())
    said, pip = [], Pip(1, 0)
    assert it.install(choice, python="py", run=pip, say=said.append) == 0
    assert pip.commands == [
        ["py", "-m", "pip", "install", "--quiet", "--index-url", it.CPU_INDEX, DEFAULT],
        ["py", "-m", "pip", "install", "--quiet", DEFAULT],
    ]
    assert said[0].startswith("PyTorch: Linux without an NVIDIA driver") and "Falling back" in said[1]
    # no fall-back needed: pip runs once; both failing: pip's status comes back
    pip = Pip(0)
    assert it.install(choice, python="py", run=pip, say=[].append) == 0 and len(pip.commands) == 1
    assert it.install(choice, python="py", run=Pip(1, 2), say=[].append) == 2


def test_a_kept_torch_runs_no_pip_at_all():
    pip = Pip()
    kept = it.choose(DEFAULT, False, it.Machine("linux", None, "2.13.0+cpu"), Probe())
    assert it.install(kept, python="py", run=pip, say=[].append) == 0 and pip.commands == []


def test_the_script_runs_in_this_venv_and_keeps_its_torch():
    # this venv holds a torch that meets the default requirement: the script says so and installs nothing
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "install_torch.py"), "--dry-run"], capture_output=True, text=True, timeout=120, check=True
    )
    assert "is already in this environment (torch>=2.7.1): kept." in done.stdout
    assert "would run: nothing" in done.stdout


# ----------------------------------------------------------------- the Makefile calls it


def _make_n(tmp_path, *args, env=None):
    base = {k: v for k, v in os.environ.items() if k not in ("TORCH", "MAKEFLAGS")}  # as a learner types it
    done = subprocess.run(
        ["make", "-n", f"VENV={tmp_path / 'venv'}", f"WORKSPACE={tmp_path / 'ws'}", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        env={**base, **(env or {})},
    )
    return [line for line in done.stdout.splitlines() if "install_torch.py" in line or "pip install" in line]


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
@pytest.mark.parametrize("target", ["lab", "test", "setup"])
def test_make_lets_the_script_choose_and_passes_a_named_torch_as_named(tmp_path, target):
    lines = _make_n(tmp_path, target)
    assert any(line.endswith('scripts/install_torch.py --torch "torch>=2.7.1"') for line in lines), lines
    assert not any('install --quiet "torch' in line for line in lines), "torch must be installed by the script only"
    named = _make_n(tmp_path, target, "TORCH=torch==2.13.0")
    assert any(line.endswith('scripts/install_torch.py --torch "torch==2.13.0" --named') for line in named), named
    from_env = _make_n(tmp_path, target, env={"TORCH": "torch==2.7.1"})
    assert any(line.endswith('--torch "torch==2.7.1" --named') for line in from_env), from_env


# ----------------------------------------------------------------- what README's first screen says


def test_readmes_first_screen_says_what_each_command_installs():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    first = readme[readme.index("## Two commands") : readme.index("## What runs on your machine")]
    for said in (
        "`make lab` PyTorch, JupyterLab",
        "`make test` the same plus the test tools",
        "**CPU wheel**",
        "Linux without an NVIDIA driver",
        "cannot be reached",
        "the ordinary wheel",
    ):
        assert said in first, f"README's first screen no longer says {said!r}"
    details = readme[readme.index("## Installing in detail") :]
    assert it.CPU_INDEX in details and f"{it.PROBE_SECONDS:.0f} seconds" in details
    assert all(path in details for path, _ in it.DRIVER_FILES[:1]), "README names the driver signs the script reads"


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_a_dry_run_of_the_matrix_removes_no_venv(tmp_path):
    """make -n still runs a recipe line that calls $(MAKE), so the matrix's loop runs under it; with MATRIX_DROP=1 in
    the environment (a matrix run's tests inherit it) its removal of each release's venv must not. It once deleted
    the venv of the release under test halfway through that release's tests."""
    kept = tmp_path / ".venv-torch-9.9.9"
    kept.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "MAKEFLAGS"}
    subprocess.run(
        ["make", "-n", "-f", str(ROOT / "Makefile"), "test-matrix", "MATRIX=9.9.9", "MATRIX_DROP=1"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
    )  # the sub-make finds no Makefile here: no matter
    assert kept.is_dir()


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_the_matrix_names_its_torch_so_it_gets_the_build_it_tests(tmp_path):
    # on Linux the matrix's ends are CUDA builds on purpose (docs/ci.md), even without a driver
    # -B: as if nothing were made yet, so a .venv-torch-2.9.1 already set up here (a matrix run's) prints its commands too
    lines = _make_n(tmp_path, "-B", "test-matrix", "MATRIX=2.9.1")
    assert any(line.endswith('scripts/install_torch.py --torch "torch==2.9.1" --named') for line in lines), lines
