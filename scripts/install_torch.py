"""Install PyTorch into the course's venv: the build this machine can use, saying which and why.

`make lab`, `make test` and `make setup` run it with the venv's Python, before the course package:

    .venv/bin/python scripts/install_torch.py --torch "torch>=2.7.1" [--named] [--dry-run]

On Linux, PyPI's ordinary torch wheel is the CUDA build, several GB of NVIDIA libraries that a
machine without an NVIDIA driver cannot use. So, in this order:

1. ``--named`` (TORCH= given to make): that requirement, from pip's configured index, as named
   (the test matrix relies on it: ``TORCH=torch==2.14.1`` is the CUDA build on purpose);
2. a torch already in the venv that meets the requirement is kept (README: install the wheel
   you want first, setup keeps it; CI pre-installs the CPU wheel ``torch==2.13.0`` this way);
3. macOS, Windows and a Linux with an NVIDIA driver: the ordinary wheel from pip's index;
4. a Linux without an NVIDIA driver: the CPU wheel from PyTorch's CPU index, as PyTorch's install
   page does for "CPU only". Where that index cannot be reached (checked within a few seconds)
   or pip fails there, the ordinary wheel from pip's index, saying why.

The choice is a pure function of facts (``Machine``, ``choose``) so that tests can give it every
machine; ``observe`` reads the facts of this one. Not part of the learner's runtime (it is not in
``course_utils``): it runs before the course package is installed.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import os
import shutil
import ssl
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

try:
    from packaging.requirements import InvalidRequirement, Requirement
except ImportError:  # a fresh venv has only pip, which vendors the same library
    from pip._vendor.packaging.requirements import InvalidRequirement, Requirement

CPU_INDEX = "https://download.pytorch.org/whl/cpu"
PROBE_URL = CPU_INDEX + "/torch/"  # the page pip reads first for torch on that index
PROBE_SECONDS = 5.0

# What shows an NVIDIA driver on Linux, besides `nvidia-smi` on PATH: (path, what it is).
DRIVER_FILES = (
    ("/proc/driver/nvidia", "the NVIDIA kernel driver's entry in /proc"),
    # WSL 2 takes the driver from Windows and maps its libcuda here (NVIDIA's "CUDA on WSL User
    # Guide"; microsoft/WSL issue 8587 loads /usr/lib/wsl/lib/libcuda.so.1); /proc has no entry.
    ("/usr/lib/wsl/lib/libcuda.so.1", "WSL 2's NVIDIA driver from Windows"),
)

CUDA_BUILD_NOTE = (
    "on Linux that is the CUDA build, several GB of NVIDIA libraries. The course runs on it as on a CPU\n"
    "  (notebook 01 calls this mode 'a CUDA build, no driver')."
)
SWITCH_LATER = "For the CPU wheel later: `rm -rf .venv`, then make again where that index can be reached."


@dataclass(frozen=True)
class Machine:
    """The facts the choice depends on."""

    platform: str  # sys.platform: "linux", "darwin", "win32"
    driver: str | None  # what shows an NVIDIA driver here, e.g. "/proc/driver/nvidia (...)"; None: nothing does
    installed: str | None  # the version of the torch already in this environment; None: none


@dataclass(frozen=True)
class Choice:
    """What to install and why; ``fallback`` runs when pip fails on ``pip_args``."""

    why: str
    pip_args: tuple[str, ...] | None  # after `python -m pip install`; None: nothing to install
    fallback: Choice | None = None


def meets(installed: str, requirement: str) -> bool:
    """Whether torch ``installed`` (e.g. '2.13.0+cpu') satisfies ``requirement`` (e.g. 'torch>=2.7.1')."""
    try:
        req = Requirement(requirement)
    except InvalidRequirement as error:
        raise ValueError(
            f"--torch expects a requirement like 'torch>=2.7.1', got {requirement!r} ({error}); to install a file or URL, pass it with --named."
        ) from None
    if req.name.lower() != "torch":
        raise ValueError(f"--torch expects a requirement on torch, got {requirement!r}.")
    return req.specifier.contains(installed, prereleases=True)  # a nightly already installed is kept


def choose(requirement: str, named: bool, machine: Machine, probe: Callable[[str], str | None]) -> Choice:
    """The torch to install on ``machine``. ``probe(url)`` is None when ``url`` answers, else why not;
    it is asked only on a Linux without an NVIDIA driver."""
    if named:
        return Choice(f"TORCH={requirement} was named: installing it as named, from pip's index.", (requirement,))
    if machine.installed is not None and meets(machine.installed, requirement):
        return Choice(f"torch {machine.installed} is already in this environment ({requirement}): kept.", None)
    if machine.platform != "linux":
        system = {"darwin": "macOS", "win32": "Windows"}.get(machine.platform, machine.platform)
        return Choice(f"{system}: the ordinary torch wheel from pip's index.", (requirement,))
    if machine.driver is not None:
        return Choice(
            f"Linux with an NVIDIA driver ({machine.driver}): the ordinary torch wheel from pip's index, the CUDA build.", (requirement,)
        )
    no_driver = (
        "Linux without an NVIDIA driver (no nvidia-smi on PATH, no "
        + ", no ".join(p for p, _ in DRIVER_FILES)
        + f"),\n  so the CPU wheel, from {CPU_INDEX}"
    )
    unreachable = probe(PROBE_URL)
    if unreachable is not None:
        return Choice(
            f"{no_driver}; but that index cannot be reached ({unreachable}).\n"
            f"  Falling back to pip's default index: {CUDA_BUILD_NOTE}\n  {SWITCH_LATER}",
            (requirement,),
        )
    fallback = Choice(
        f"pip could not install torch from {CPU_INDEX} (its message is above).\n  Falling back to pip's default index: {CUDA_BUILD_NOTE}",
        (requirement,),
    )
    return Choice(
        f"{no_driver}, as PyTorch's install page does for 'CPU only': no CUDA libraries to download.\n"
        "  For the CUDA build instead, name it: make lab TORCH=torch",
        ("--index-url", CPU_INDEX, requirement),
        fallback,
    )


def driver_sign(path: str | None = None, root: Path = Path("/")) -> str | None:
    """What shows an NVIDIA driver on this machine (``root`` and ``path`` stand in for / and $PATH
    in tests), or None."""
    smi = shutil.which("nvidia-smi", path=path)
    if smi:
        return f"nvidia-smi at {smi}"
    for where, what in DRIVER_FILES:
        if (root / where.lstrip("/")).exists():
            return f"{where}: {what}"
    return None


def installed_torch() -> str | None:
    try:
        return importlib.metadata.version("torch")
    except importlib.metadata.PackageNotFoundError:
        return None


def observe() -> Machine:
    """This machine's facts, with this interpreter's environment (run it with the venv's Python)."""
    return Machine(sys.platform, driver_sign() if sys.platform == "linux" else None, installed_torch())


def reach(url: str, timeout: float = PROBE_SECONDS) -> str | None:
    """None when ``url`` answers within ``timeout`` seconds, else why not, in a few words."""
    cafile = os.environ.get("PIP_CERT") or None  # pip's own certificate setting, where there is one
    try:
        context = ssl.create_default_context(cafile=cafile)
        # GET, as pip does (a HEAD could be refused where pip would be served); the body is not read
        with urllib.request.urlopen(url, timeout=timeout, context=context):
            return None
    except urllib.error.HTTPError as error:
        return f"HTTP {error.code} {error.reason}"
    except urllib.error.URLError as error:
        return str(error.reason)
    except (OSError, ValueError) as error:  # a timeout while reading, a certificate file that is not one
        return str(error) or type(error).__name__


def install(
    choice: Choice,
    python: str = sys.executable,
    run: Callable[..., subprocess.CompletedProcess] = subprocess.run,
    say: Callable[[str], None] = print,
) -> int:
    """Say ``choice.why``, run pip on it, and its fallback where pip fails; pip's exit status."""
    say(f"PyTorch: {choice.why}")
    if choice.pip_args is None:
        return 0
    code = run([python, "-m", "pip", "install", "--quiet", *choice.pip_args]).returncode
    if code != 0 and choice.fallback is not None:
        return install(choice.fallback, python, run, say)
    return code


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--torch", default="torch>=2.7.1", help="the requirement (make's TORCH)")
    parser.add_argument("--named", action="store_true", help="TORCH was given: install it as named, from pip's index")
    parser.add_argument("--dry-run", action="store_true", help="say what would be installed, install nothing")
    args = parser.parse_args(argv)
    try:
        choice = choose(args.torch, args.named, observe(), reach)
    except ValueError as error:
        parser.error(str(error))
    if args.dry_run:
        print(f"PyTorch: {choice.why}")
        print("would run:", "nothing" if choice.pip_args is None else "pip install " + " ".join(choice.pip_args))
        return 0
    return install(choice)


if __name__ == "__main__":
    sys.exit(main())
