"""What this machine has, as plain frozen data: ``collect_facts()`` asks torch and the environment once.

Lesson: notebook 01 (device query). ``device_report``, ``choose_device`` and ``preflight`` only read the
``MachineFacts`` this returns, so tests build them by hand to describe machines they do not have (eight
GPUs, an Apple laptop, Colab or Kaggle without a GPU).

On a CPU-only machine this works and says so; nothing initialises CUDA unless CUDA is available, and then
``collect_facts`` creates a context on each visible GPU to read its free memory (``torch.cuda.mem_get_info``),
as ``nvidia-smi`` would show. On a CUDA build where CUDA is not available, it asks torch to initialise CUDA
once (``torch.cuda.init()``), which fails without leaving anything initialised, to record the exact message
every CUDA call will raise.
"""

from __future__ import annotations

import os
import platform
import shutil
import sys
from dataclasses import dataclass, field

import torch

GIB = 1024**3


@dataclass(frozen=True)
class AcceleratorInfo:
    """One visible accelerator, as torch numbers it (after ``CUDA_VISIBLE_DEVICES``)."""

    index: int
    kind: str  # "cuda" (NVIDIA or ROCm) | "mps" | "xpu"
    name: str
    compute_capability: tuple[int, int] | None = None
    total_memory: int | None = None  # bytes
    free_memory: int | None = None  # bytes; None where torch cannot tell
    multiprocessors: int | None = None

    @property
    def device(self) -> str:
        """The string to pass as ``device=``: ``cuda:1``, ``mps``."""
        return self.kind if self.kind == "mps" else f"{self.kind}:{self.index}"


@dataclass(frozen=True)
class MachineFacts:
    """Everything the course needs to know about this machine, as plain data."""

    torch_version: str
    cuda_build: str | None  # torch.version.cuda: None for a CPU (or ROCm) build
    hip_build: str | None = None  # torch.version.hip
    cuda_available: bool = False
    accelerators: tuple[AcceleratorInfo, ...] = ()
    current_cuda_index: int | None = None
    current_xpu_index: int | None = None  # torch.xpu.current_device() on an Intel GPU (an XPU build)
    mps_built: bool = False
    mps_available: bool = False
    nvidia_driver_present: bool = False  # an NVIDIA kernel driver or nvidia-smi is here
    in_colab: bool = False
    in_kaggle: bool = False  # a Kaggle notebook (or script) session
    cuda_visible_devices: str | None = None  # the environment variable, unparsed
    cuda_error: str | None = None  # why CUDA could not be queried, if it could not
    # On a build for an accelerator that cannot be used here (a CUDA build without a driver):
    built_accelerator: str | None = None  # torch.accelerator.current_accelerator().type: "cuda" even then
    cuda_init_error: str | None = None  # what torch.cuda.init() raised: the message every CUDA call gives
    python_version: str = field(default_factory=lambda: platform.python_version())
    system: str = field(default_factory=platform.system)
    # A Mac (system "Darwin"): what decides whether MPS can work. ``machine`` is this Python's architecture
    # ("arm64"; "x86_64" on an Intel Mac, or under Rosetta on Apple silicon, which ``rosetta`` tells apart).
    machine: str = field(default_factory=platform.machine)
    macos_version: str | None = None  # platform.mac_ver(): "14.5"
    rosetta: bool = False  # an x86_64 Python translated by Rosetta 2 (sysctl sysctl.proc_translated)
    virtual_machine: bool = False  # macOS runs in a virtual machine (sysctl kern.hv_vmm_present)
    mps_warning: str | None = None  # what torch warned when asked whether MPS is available ("Skipping device ...")

    @property
    def gpus(self) -> tuple[AcceleratorInfo, ...]:
        """The CUDA devices (NVIDIA, or AMD through ROCm) torch can use."""
        return tuple(a for a in self.accelerators if a.kind == "cuda")

    @property
    def xpus(self) -> tuple[AcceleratorInfo, ...]:
        """The Intel GPUs torch can use through its XPU backend (``torch.xpu``)."""
        return tuple(a for a in self.accelerators if a.kind == "xpu")


def collect_facts() -> MachineFacts:
    """Ask torch and the environment about this machine, once."""
    cuda_available = False
    cuda_error = None
    accelerators: list[AcceleratorInfo] = []
    current = None
    try:
        cuda_available = torch.cuda.is_available()
        if cuda_available:
            current = torch.cuda.current_device()
            for i in range(torch.cuda.device_count()):
                accelerators.append(_cuda_info(i))
    except Exception as exc:  # a broken driver must not break the report
        cuda_error = f"{type(exc).__name__}: {exc}"
        cuda_available = False

    xpus, current_xpu = _xpu_facts()
    accelerators.extend(xpus)

    mps_built = bool(getattr(torch.backends, "mps", None) and torch.backends.mps.is_built())
    mps_available, mps_warning = _mps_available(mps_built)
    if mps_available:
        accelerators.append(AcceleratorInfo(index=0, kind="mps", name=_mps_name()))

    # current_accelerator() names the accelerator this build is for, usable or not; only
    # check_available=True (PyTorch 2.7+) asks whether it can be used.
    built = torch.accelerator.current_accelerator()
    cuda_init_error = _cuda_init_error() if torch.version.cuda and not cuda_available and not cuda_error else None

    return MachineFacts(
        torch_version=torch.__version__,
        cuda_build=torch.version.cuda,
        hip_build=getattr(torch.version, "hip", None),
        cuda_available=cuda_available,
        accelerators=tuple(accelerators),
        current_cuda_index=current,
        current_xpu_index=current_xpu,
        mps_built=mps_built,
        mps_available=mps_available,
        nvidia_driver_present=bool(shutil.which("nvidia-smi")) or os.path.exists("/proc/driver/nvidia/version"),
        in_colab="google.colab" in sys.modules or "COLAB_RELEASE_TAG" in os.environ,
        in_kaggle=in_kaggle(os.environ),
        cuda_visible_devices=os.environ.get("CUDA_VISIBLE_DEVICES"),
        cuda_error=cuda_error,
        built_accelerator=built.type if built is not None else None,
        cuda_init_error=cuda_init_error,
        **_mac_facts(),
        mps_warning=mps_warning,
    )


def _mps_available(built: bool) -> tuple[bool, str | None]:
    """Whether MPS can be used here, and the warning torch gave while deciding, if any.

    PyTorch picks the first Metal GPU that supports Metal 2.0 and warns "Skipping device ... that does not
    support Metal 2.0" for any other (aten/src/ATen/mps/MPSDevice.mm; see MAC_FACTS["mps-virtual-machine"]):
    that warning is the only reason torch itself gives. It comes once per process, the first time MPS is asked.
    """
    if not built:
        return False, None
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        available = bool(torch.backends.mps.is_available())
    said = [str(w.message) for w in caught if "MPS" in str(w.message) or "Metal" in str(w.message)]
    return available, ("; ".join(said) or None)


def _xpu_facts() -> tuple[list[AcceleratorInfo], int | None]:
    """The Intel GPUs of an XPU build (``torch.xpu``, in every build since 2.4; False elsewhere) and the current one."""
    xpu = getattr(torch, "xpu", None)
    try:
        if xpu is None or not xpu.is_available():
            return [], None
        found = [
            AcceleratorInfo(index=i, kind="xpu", name=xpu.get_device_name(i), total_memory=xpu.get_device_properties(i).total_memory)
            for i in range(xpu.device_count())
        ]
        return found, xpu.current_device()
    except Exception:  # a broken driver must not break the report, as for CUDA
        return [], None


def _mps_name() -> str:
    """The Apple GPU's name ("Apple M2 Pro"), where this torch can tell (torch.backends.mps.get_name, 2.9+)."""
    try:
        return f"{torch.backends.mps.get_name()} (Metal)"
    except Exception:  # older torch has no get_name
        return "Apple GPU (Metal)"


def _mac_facts() -> dict:
    """The system and this Python's architecture; on a Mac also the macOS version, Rosetta and a virtual machine."""
    here = {"system": platform.system(), "machine": platform.machine()}
    if here["system"] != "Darwin":
        return here
    return {
        **here,
        "macos_version": platform.mac_ver()[0] or None,
        "rosetta": _sysctl("sysctl.proc_translated") == "1",
        "virtual_machine": _sysctl("kern.hv_vmm_present") == "1",
    }


def _sysctl(name: str) -> str | None:
    """``sysctl -n name`` on macOS, or None when it cannot tell (the name is unknown on this Mac)."""
    import subprocess

    try:
        done = subprocess.run(["sysctl", "-n", name], capture_output=True, text=True, timeout=5, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def in_kaggle(environ) -> bool:
    """Whether ``environ`` is a Kaggle session's.

    Kaggle's kernels set ``KAGGLE_KERNEL_RUN_TYPE`` ("Interactive" in the editor, "Batch" when a
    version is saved and run) and ``KAGGLE_URL_BASE``, which Kaggle's own client in its image reads
    (Kaggle/docker-python, patches/kaggle_web_client.py). Either one is enough.
    """
    return bool(environ.get("KAGGLE_KERNEL_RUN_TYPE") or environ.get("KAGGLE_URL_BASE"))


def _cuda_init_error() -> str | None:
    """The message torch gives when CUDA cannot start (e.g. "Found no NVIDIA driver ..."), or None.

    A failed ``torch.cuda.init()`` initialises nothing and can be retried, so asking is safe.
    PyTorch 2.7.x and 2.8.x set ``CUDA_MODULE_LOADING=LAZY`` in the environment before trying
    (``torch.cuda._lazy_init``; 2.9.1 and later do not); whatever was there is put back.
    """
    before = os.environ.get("CUDA_MODULE_LOADING")
    try:
        torch.cuda.init()
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"
    finally:
        if before is None:
            os.environ.pop("CUDA_MODULE_LOADING", None)
    return None


def _cuda_info(index: int) -> AcceleratorInfo:
    props = torch.cuda.get_device_properties(index)
    try:
        free, total = torch.cuda.mem_get_info(index)
    except Exception:  # e.g. a GPU in exclusive mode held by another process
        free, total = None, props.total_memory
    return AcceleratorInfo(
        index=index,
        kind="cuda",
        name=props.name,
        compute_capability=(props.major, props.minor),
        total_memory=total,
        free_memory=free,
        multiprocessors=props.multi_processor_count,
    )
