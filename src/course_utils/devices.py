"""What devices this machine has, which one to use, and what of the course it can run.

Lesson: notebook 01 (device query). Everything here is built in two steps so that it can be
tested on any machine:

1. ``collect_facts()`` asks torch (and the environment) once and returns a ``MachineFacts``:
   plain, frozen data with no torch objects in it.
2. ``device_report(facts)``, ``choose_device(facts)`` and ``preflight(facts)`` only read those
   facts. Tests build ``MachineFacts`` by hand to describe machines they do not have
   (eight GPUs, an Apple laptop, Colab or Kaggle without a GPU).

On a CPU-only machine every function here works and says so; nothing initialises CUDA unless
CUDA is available, and then ``collect_facts`` creates a context on each visible GPU to read its
free memory (``torch.cuda.mem_get_info``), as ``nvidia-smi`` would show. On a CUDA build where CUDA
is not available, it asks torch to initialise CUDA once (``torch.cuda.init()``), which fails
without leaving anything initialised, to record the exact message every CUDA call will raise.
"""

from __future__ import annotations

import os
import platform
import re
import shutil
import sys
from dataclasses import dataclass, field

import torch
from torch.torch_version import TorchVersion

from course_utils.display import CAUTION, LINE_BREAK, OK, PROBLEM, markup, require_int, table, tag

GIB = 1024**3

# The PyTorch releases the course is tested on, lowest and highest (`.ci/run`, `make test-matrix`).
# pyproject.toml requires the lowest; it sets no upper bound (see the comment there).
TESTED_TORCH = ("2.7.1", "2.14.1")
CPU_WHEEL_INSTALL = "pip install torch --index-url https://download.pytorch.org/whl/cpu"

# The free routes to a GPU, as their menus name them. Colab lends one GPU; Kaggle lends one, or two
# with "GPU T4 x2", which runs every two-GPU cell of the course. Each notebook links to both at its top.
COLAB_GPU = "Colab: Runtime > Change runtime type > T4 GPU"
KAGGLE_GPU = "Kaggle: Settings > Accelerator > GPU T4 x2"


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
    mps_built: bool = False
    mps_available: bool = False
    nvidia_driver_present: bool = False  # an NVIDIA kernel driver or nvidia-smi is here
    nvidia_smi_path: str | None = None
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

    mps_built = bool(getattr(torch.backends, "mps", None) and torch.backends.mps.is_built())
    mps_available, mps_warning = _mps_available(mps_built)
    if mps_available:
        accelerators.append(AcceleratorInfo(index=0, kind="mps", name=_mps_name()))

    # current_accelerator() names the accelerator this build is for, usable or not; only
    # check_available=True (PyTorch 2.7+) asks whether it can be used.
    built = torch.accelerator.current_accelerator()
    cuda_init_error = _cuda_init_error() if torch.version.cuda and not cuda_available and not cuda_error else None

    smi = shutil.which("nvidia-smi")
    return MachineFacts(
        torch_version=torch.__version__,
        cuda_build=torch.version.cuda,
        hip_build=getattr(torch.version, "hip", None),
        cuda_available=cuda_available,
        accelerators=tuple(accelerators),
        current_cuda_index=current,
        mps_built=mps_built,
        mps_available=mps_available,
        nvidia_driver_present=bool(smi) or os.path.exists("/proc/driver/nvidia/version"),
        nvidia_smi_path=smi,
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


# --------------------------------------------------------------------------- the report


@dataclass(frozen=True)
class DeviceReport:
    """This machine's devices, ready to show: end a notebook cell on it."""

    facts: MachineFacts

    @property
    def accelerators(self) -> tuple[AcceleratorInfo, ...]:
        return self.facts.accelerators

    @property
    def summary(self) -> str:
        f = self.facts
        n = len(f.gpus)
        if n:
            kind = "ROCm" if f.hip_build else "CUDA"
            return f"{n} {kind} GPU{'s' if n > 1 else ''} visible; current device cuda:{f.current_cuda_index}"
        if f.mps_available:
            return "an Apple GPU through MPS; no CUDA"
        return "no accelerator: CPU only"

    def rows(self) -> list[dict[str, str]]:
        """One row per device, the CPU last, as strings ready for a table."""
        rows = []
        for a in self.accelerators:
            rows.append(
                {
                    "device": a.device,
                    "name": a.name,
                    "compute capability": _fmt_cc(a.compute_capability),
                    "total memory": _fmt_gib(a.total_memory),
                    "free memory": _fmt_gib(a.free_memory),
                    "multiprocessors": "-" if a.multiprocessors is None else str(a.multiprocessors),
                }
            )
        rows.append(
            {
                "device": "cpu",
                "name": platform.processor() or platform.machine() or "CPU",
                "compute capability": "-",
                "total memory": "-",
                "free memory": "-",
                "multiprocessors": str(os.cpu_count() or "-"),
            }
        )
        return rows

    def __str__(self) -> str:
        f = self.facts
        build = f"CUDA {f.cuda_build}" if f.cuda_build else (f"ROCm {f.hip_build}" if f.hip_build else "CPU-only build")
        lines = [f"torch {f.torch_version} ({build}): {self.summary}"]
        for r in self.rows():
            lines.append("  " + " | ".join(f"{k}: {v}" for k, v in r.items()))
        if f.cuda_visible_devices is not None:
            lines.append(f"  CUDA_VISIBLE_DEVICES={f.cuda_visible_devices!r}")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        f = self.facts
        rows = self.rows()
        build = f"CUDA {f.cuda_build}" if f.cuda_build else (f"ROCm {f.hip_build}" if f.hip_build else "CPU-only build")
        extra = ""
        if f.cuda_visible_devices is not None:
            extra = markup(LINE_BREAK, tag("code", f"CUDA_VISIBLE_DEVICES={f.cuda_visible_devices!r}"))
        headline = tag("p", tag("b", f"torch {f.torch_version}"), f" ({build}): {self.summary}", extra)
        return markup(headline, table([list(r.values()) for r in rows], head=list(rows[0])))


def device_report(facts: MachineFacts | None = None) -> DeviceReport:
    """Every visible accelerator with its index, name, capability, memory and SM count."""
    return DeviceReport(facts if facts is not None else collect_facts())


def _fmt_gib(nbytes: int | None) -> str:
    return "-" if nbytes is None else f"{nbytes / GIB:.1f} GiB"


def _fmt_cc(cc: tuple[int, int] | None) -> str:
    return "-" if cc is None else f"{cc[0]}.{cc[1]}"


# --------------------------------------------------------------------------- naming and choosing a device
#
# The course's one idiom, taught by hand in notebook 01 and used by every lesson and helper:
# decide the device once, at the top, and carry that torch.device everywhere after (as nanoGPT
# does). By hand, with PyTorch's own API:
#
#     device = torch.accelerator.current_accelerator() if torch.accelerator.is_available() else torch.device("cpu")
#
# Each name below has one job:
#   usable_accelerator()  the accelerator torch can use here (CUDA with its index, MPS, XPU), or None
#   pick_device()         a notebook's device, decided once and said in words (choose_device: the words)
#   check_device(device)  a device a caller named, checked against this machine before any work
#   as_device/same_place  reading a device a caller passed in
# "The accelerator" is never torch's *default device* (where factories create tensors, notebooks
# 02 and 04): that one is scopes.default_device().


def as_device(value, where: str) -> torch.device:
    """``value`` as a ``torch.device``, or a clear error naming ``where`` it came from."""
    if isinstance(value, torch.device):
        return value
    if isinstance(value, str):
        try:
            return torch.device(value)
        except RuntimeError as exc:
            raise ValueError(f"{where}: {value!r} is not a device name ({exc}). Try 'cpu', 'cuda:0' or 'meta'.") from None
    raise TypeError(f"{where} expects a device name or torch.device, got a {type(value).__name__}: {value!r}.")


def same_place(have: torch.device, want: torch.device) -> bool:
    """Whether ``have`` satisfies ``want``: a device without an index matches any of its type."""
    if have.type != want.type:
        return False
    return want.index is None or have.index == want.index


def usable_accelerator() -> torch.device | None:
    """The accelerator torch can use on this machine, or None: notebook 01's idiom, as a function.

    ``torch.accelerator.current_accelerator(check_available=True)`` (CUDA, MPS, XPU, ...; None on
    a CPU-only build and on a CUDA build without a driver). Its device has no index; a CUDA device
    gets the current one here, so a later change of the current device changes nothing. Silent,
    and it reads no ``MachineFacts``: helpers (the transfer lab, torchrun scripts) call it.
    """
    accelerator = torch.accelerator.current_accelerator(check_available=True)
    if accelerator is None:
        return None
    if accelerator.type == "cuda":
        return torch.device("cuda", torch.cuda.current_device())
    return accelerator


@dataclass(frozen=True)
class DeviceChoice:
    """The device to use and, in words, why that one."""

    device: str
    reason: str

    def __str__(self) -> str:
        return f"Using {self.device}: {self.reason}"


def choose_device(facts: MachineFacts | None = None, prefer: str | None = None) -> DeviceChoice:
    """The words behind ``pick_device``: CUDA if present (the current device), else Apple MPS, else the CPU.

    Pure over ``facts``, so tests describe machines they do not have. ``prefer`` names a device to
    use when this machine has it ("cpu" always works); when it does not, the choice falls back and
    the reason says so, instead of failing later.
    """
    f = facts if facts is not None else collect_facts()
    fallback_note = ""
    if prefer is not None:
        try:
            wanted = torch.device(prefer)
        except (RuntimeError, TypeError) as exc:
            raise ValueError(
                f"prefer={prefer!r} is not a device ({exc}). Try 'cpu', 'cuda', 'cuda:0' or 'mps' "
                "(NVIDIA GPUs are 'cuda', never 'gpu'), or leave prefer out to choose automatically."
            ) from None
        if wanted.type == "cpu":
            return DeviceChoice("cpu", "asked for the CPU")
        if wanted.type == "cuda" and f.gpus:
            index = f.current_cuda_index if wanted.index is None else wanted.index
            if index is not None and index < len(f.gpus):
                return DeviceChoice(f"cuda:{index}", f"asked for {prefer}, and it is visible")
            fallback_note = f"asked for {prefer}, but only {len(f.gpus)} CUDA device(s) are visible; "
        elif wanted.type == "mps" and f.mps_available:
            return DeviceChoice("mps", "asked for mps, and it is available")
        else:
            fallback_note = f"asked for {prefer}, but this machine does not have it; "
    if f.gpus:
        index = f.current_cuda_index or 0
        name = f.gpus[index].name if index < len(f.gpus) else "GPU"
        return DeviceChoice(f"cuda:{index}", fallback_note + f"CUDA is available ({name}, the current device)")
    if f.mps_available:
        return DeviceChoice("mps", fallback_note + "no CUDA, but Apple's MPS backend is available")
    return DeviceChoice("cpu", fallback_note + "no CUDA or MPS device is available, so the CPU (every cell still runs)")


def pick_device(prefer: str | None = None, *, announce: bool = True) -> torch.device:
    """A notebook's device, decided once at its top: CUDA, then MPS, then the CPU, saying which and why.

    Lesson: notebook 01 (the course's convenience for the idiom it teaches by hand); every lesson
    starts with ``device = pick_device()`` and carries ``device`` from then on.
    """
    choice = choose_device(prefer=prefer)
    if announce:
        print(choice)
    return torch.device(choice.device)


def check_device(device: str | torch.device | None) -> torch.device:
    """``device`` checked against this machine; None: the usable accelerator, else the CPU.

    Lesson: notebook 06 (the transfer lab checks its device once, then passes it on). The caller
    always says which device it means, ``None`` included: with no argument this would be exercise
    01.1's answer, which the package must not hold (tests/test_case_tables.py). A CUDA device
    gets its index (the current device's when none is given); one this machine cannot use is a
    ValueError that says what it has, before any work starts.
    """
    if device is None:
        return usable_accelerator() or torch.device("cpu")
    dev = as_device(device, "device")
    if dev.type == "cuda":
        if not torch.cuda.is_available():
            raise ValueError(
                f"device={str(dev)!r}, but CUDA is not available here (torch {torch.__version__}). "
                "Pass device=None to use what this machine has (the host-memory stand-in on a CPU-only machine)."
            )
        index = torch.cuda.current_device() if dev.index is None else dev.index
        if index >= torch.cuda.device_count():
            raise ValueError(f"device={str(dev)!r}, but only {torch.cuda.device_count()} CUDA device(s) are visible.")
        dev = torch.device("cuda", index)
    return dev


# --------------------------------------------------------------------------- preflight

# What each lesson needs (0, 1 or 2 GPUs for every cell to run for real) is computed from the
# lessons' own needs_cuda cells by `make pairs` (course_utils.lesson_map); cells that need more than
# the machine has still run: they say what they skipped and why.


def _lessons():
    from course_utils.lesson_map import course

    return course()


def runs_on_any_accelerator(cell) -> bool:
    """Whether one of a lesson's GPU-only cells runs for real on any accelerator (MPS, XPU), not only CUDA.

    Lesson: notebook 01 (``preflight`` on a Mac). The one place that reads the lessons' mark for it (issue
    27.1's device idiom: a ``needs_accelerator(...)`` cell rather than ``needs_cuda(...)``); ``lesson_map``
    records it as ``GpuCell.needs == "accelerator"``. Any other cell is CUDA-only, as ``needs_cuda`` says.
    """
    return getattr(cell, "needs", "cuda") == "accelerator"


def skipped_cells(lesson, gpu_count: int, accelerator: str | None = None) -> tuple:
    """The cells of ``lesson`` that skip (and explain) with ``gpu_count`` CUDA GPUs and, besides, ``accelerator``.

    An accelerator that is not CUDA ("mps", "xpu") runs the one-device cells meant for any accelerator."""
    return tuple(
        c for c in lesson.cells
        if c.gpus > gpu_count and not (accelerator and c.gpus <= 1 and runs_on_any_accelerator(c))
    )


@dataclass(frozen=True)
class Finding:
    """One thing the preflight noticed: what it is and what to do about it."""

    severity: str  # "ok" | "note" | "problem"
    message: str
    fix: str = ""


@dataclass(frozen=True)
class Preflight:
    """In plain words: what this machine can run of the course, and what to do about the rest."""

    level: str  # "cpu-only" | "mps" | "one-gpu" | "multi-gpu"
    gpu_count: int
    findings: tuple[Finding, ...]
    accelerator: str | None = None  # a usable accelerator that is not CUDA: "mps" (or "xpu")

    @property
    def full_notebooks(self) -> tuple[str, ...]:
        """Notebooks that can run every cell for real on this machine."""
        return tuple(lesson.name for lesson in _lessons() if not skipped_cells(lesson, self.gpu_count, self.accelerator))

    @property
    def partial_notebooks(self) -> tuple[str, ...]:
        """Notebooks that run to the end but skip (and explain) some cells here, with how many."""
        return tuple(
            f"{lesson.name} ({len(skipped)} of {len(lesson.cells)} GPU-only cell{'s' if len(lesson.cells) != 1 else ''})"
            for lesson in _lessons()
            if (skipped := skipped_cells(lesson, self.gpu_count, self.accelerator))
        )

    @property
    def accelerator_notebooks(self) -> tuple[str, ...]:
        """On MPS or XPU: the notebooks whose any-accelerator cells run there for real, with how many."""
        if not self.accelerator:
            return ()
        return tuple(
            f"{lesson.name} ({len(real)} cell{'s' if len(real) != 1 else ''})"
            for lesson in _lessons()
            if (real := [c for c in lesson.cells if c.gpus <= 1 and runs_on_any_accelerator(c)])
        )

    @property
    def problems(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.severity == "problem")

    def __str__(self) -> str:
        lines = [f"This machine: {self.level} ({self.gpu_count} CUDA GPU{'s' if self.gpu_count != 1 else ''})"]
        for f in self.findings:
            lines.append(f"[{f.severity}] {f.message}")
            if f.fix:
                lines.append(f"        what to do: {f.fix}")
        if self.accelerator:
            lines.append(f"Runs on {self.accelerator} for real: " + (", ".join(self.accelerator_notebooks) or "none yet"))
        lines.append("Runs every cell: " + (", ".join(self.full_notebooks) or "none"))
        if self.partial_notebooks:
            lines.append("Runs to the end, skipping GPU-only cells: " + ", ".join(self.partial_notebooks))
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        tones = {"ok": OK, "note": CAUTION, "problem": PROBLEM}
        items = markup(*(
            tag("li", tag("b", f.severity, colour=tones.get(f.severity)), f" {f.message}",
                markup(LINE_BREAK, tag("i", "What to do:"), f" {f.fix}") if f.fix else "")
            for f in self.findings
        ))
        full = ", ".join(self.full_notebooks) or "none"
        partial = ", ".join(self.partial_notebooks) or "none"
        on = (f"Runs on {self.accelerator} for real: {', '.join(self.accelerator_notebooks) or 'none yet'}",
              LINE_BREAK) if self.accelerator else ()
        return markup(
            tag("p", tag("b", f"This machine: {self.level}"), f" ({self.gpu_count} CUDA GPUs)"), tag("ul", items),
            tag("p", *on, f"Runs every cell: {full}", LINE_BREAK, f"Runs to the end, skipping GPU-only cells: {partial}"),
        )


def preflight(facts: MachineFacts | None = None) -> Preflight:
    """Say what this machine can run of the course, and exactly what to do about each gap."""
    f = facts if facts is not None else collect_facts()
    n = len(f.gpus)
    findings: list[Finding] = []

    if f.cuda_error:
        findings.append(
            Finding(
                "problem",
                f"torch could not query CUDA: {f.cuda_error}",
                "Check the driver with `nvidia-smi` in a terminal; if it fails, reinstall the NVIDIA driver "
                "and restart. If it works, restart the kernel (a crashed CUDA context does not recover).",
            )
        )

    if n == 0 and f.in_colab:
        findings.append(
            Finding(
                "problem",
                "running on Colab without a GPU runtime",
                "Runtime > Change runtime type > T4 GPU, then run the notebook again. "
                "Until then everything still runs on the CPU, skipping the GPU-only cells. "
                f"Two GPUs (every cell of the course): open the notebook on Kaggle instead ({KAGGLE_GPU}).",
            )
        )
    elif n == 0 and f.in_kaggle:
        findings.append(
            Finding(
                "problem",
                "running on Kaggle without a GPU accelerator",
                "Settings > Accelerator > GPU T4 x2 (two GPUs: every cell of the course runs for real), then run "
                "the notebook again. Until then everything still runs on the CPU, skipping the GPU-only cells. "
                "If the Accelerator menu is greyed out, Kaggle first asks you to verify your account by phone.",
            )
        )
    elif n == 0 and f.cuda_build and f.nvidia_driver_present:
        findings.append(
            Finding(
                "problem",
                f"this torch is a CUDA {f.cuda_build} build and an NVIDIA driver is present, but no GPU is usable",
                "Run `nvidia-smi`. If it lists GPUs, check CUDA_VISIBLE_DEVICES "
                f"(now {f.cuda_visible_devices!r}) and that the driver supports CUDA {f.cuda_build} "
                "(`nvidia-smi` prints the highest CUDA version it supports); update the driver or install a torch "
                "built for an older CUDA from pytorch.org/get-started.",
            )
        )
    elif n == 0 and f.cuda_build:
        findings.append(_cuda_build_without_driver(f))
    elif n == 0 and not f.cuda_build and not f.hip_build and f.nvidia_driver_present:
        findings.append(
            Finding(
                "problem",
                "an NVIDIA driver is present, but this torch is a CPU-only build, so it cannot use the GPU",
                # No index hard-coded here: each release offers its own CUDA builds (2.9.1: cu126,
                # cu128, cu130, per pytorch.org/get-started/previous-versions), so one name goes stale.
                "Install a CUDA build of torch into this environment: pick your OS, pip and a CUDA version "
                "your driver supports (`nvidia-smi` shows the highest) at pytorch.org/get-started/locally "
                "(older releases: pytorch.org/get-started/previous-versions) and run the pip command it "
                "shows, of the form `pip install torch --index-url https://download.pytorch.org/whl/cuXYZ`; "
                "then restart the kernel.",
            )
        )

    mac = _mac_finding(f) if n == 0 else None
    if mac is not None:
        findings.append(mac)
    if n == 0 and f.mps_available:
        level = "mps"
    elif n == 0:
        level = "cpu-only"
        if mac is None and not any(x.severity == "problem" for x in findings):
            findings.append(
                Finding(
                    "ok",
                    "no accelerator: every notebook runs to the end on the CPU, and each GPU-only cell says what it "
                    "skipped and what it would show",
                    "For the GPU parts, a free GPU is one click away: open the notebook from the links at its "
                    f"top. One GPU: {COLAB_GPU} (or Kaggle). Two GPUs, for every cell: {KAGGLE_GPU}.",
                )
            )
    elif n == 1:
        level = "one-gpu"
        if f.in_kaggle:
            two = "For them, choose Settings > Accelerator > GPU T4 x2 and run the notebook again."
        elif f.in_colab:
            two = f"Colab lends one GPU; for two, open the notebook on Kaggle ({KAGGLE_GPU})."
        else:
            two = f"For them, open the notebook on Kaggle from the link at its top ({KAGGLE_GPU})."
        findings.append(
            Finding(
                "ok",
                f"one GPU: {f.gpus[0].name}. Everything but the two-GPU cells runs for real.",
                "The cells that need two GPUs (device_of across devices, peer copies, NCCL with two processes) "
                "skip and say what they would show. " + two,
            )
        )
    else:
        level = "multi-gpu"
        names = ", ".join(sorted({g.name for g in f.gpus}))
        findings.append(Finding("ok", f"{n} GPUs ({names}): every cell of the course runs for real."))

    if f.cuda_visible_devices is not None:
        findings.append(
            Finding(
                "note",
                f"CUDA_VISIBLE_DEVICES={f.cuda_visible_devices!r}: torch sees only those GPUs, renumbered from 0",
                "Unset it (before starting Jupyter) to see every GPU.",
            )
        )
    version = _version_finding(f.torch_version)
    if version is not None:
        findings.append(version)
    return Preflight(level=level, gpu_count=n, findings=tuple(findings), accelerator="mps" if level == "mps" else None)


def _mac_finding(f: MachineFacts) -> Finding | None:
    """What a Mac without CUDA can use: MPS, and if not, PyTorch's reason in words (docs/mac.md).

    None on a machine that is not a Mac and has no MPS build."""
    from course_utils.evidence.sources import INTEL_MAC_NEWEST, MAC_FACTS, mps_needs_macos

    free = (f"The CUDA-only cells need an NVIDIA GPU: open the notebook from the links at its top ({COLAB_GPU}, "
            f"or {KAGGLE_GPU} for every cell).")
    if f.mps_available:
        return Finding(
            "ok",
            "Apple GPU found (MPS): the cells for any accelerator run on `mps` for real (tensors, copies, models, "
            "the cross-device errors, honest timing); the CUDA-only cells (the current CUDA device, streams, "
            "pinned-memory DMA, NCCL, the caching allocator's statistics) skip and say what CUDA shows. MPS has no "
            "float64: use float32 on it.",
            "Nothing to do. " + free,
        )
    if f.system != "Darwin" and not f.mps_built:
        return None
    if f.system == "Darwin" and f.machine == "x86_64" and f.rosetta:
        return Finding(
            "problem",
            "this Python is an Intel (x86_64) build running under Rosetta on an Apple-silicon Mac, so torch cannot "
            f"use the GPU, and PyTorch publishes no Intel macOS wheel after {INTEL_MAC_NEWEST}",
            "Install an arm64 Python (python.org's macOS installer is universal2; Homebrew in /opt/homebrew is arm64; "
            "`python3 -c 'import platform; print(platform.machine())'` should print arm64), create the course's "
            "environment again with it (`make lab`), and restart the kernel.",
        )
    if f.system == "Darwin" and f.machine == "x86_64":
        return Finding(
            "problem",
            f"an Intel Mac: PyTorch's last macOS wheel for Intel is {INTEL_MAC_NEWEST}, older than the PyTorch this "
            f"course is tested on ({TESTED_TORCH[0]} and later), and it has no GPU backend for this Mac",
            "Run the course on Colab or Kaggle: open a notebook from the links at its top "
            f"({COLAB_GPU}; {KAGGLE_GPU} for every cell). Everything there is free and needs only a browser.",
        )
    if not f.mps_built:
        return Finding(
            "note",
            f"a Mac, but this torch {f.torch_version} is built without MPS, so it cannot use the Apple GPU",
            "Install the ordinary macOS arm64 wheel from PyPI (`pip install --force-reinstall torch`), then restart "
            "the kernel. Until then every notebook runs to the end on the CPU.",
        )
    need = mps_needs_macos(f.torch_version)
    need_text = f"{need[0]}.{need[1]}"
    # PyTorch's own words for it in this release (MAC_FACTS: "MacOS 13.0+." in 2.7-2.8, "macOS 14.0+." from 2.12).
    said = next((q.pieces[0].strip() for q in MAC_FACTS["mps-macos-version"].quotes if q.covers(f.torch_version)),
                f"The MPS backend is supported on macOS {need_text}+.")
    warned = f" torch warned: {f.mps_warning!r}." if f.mps_warning else ""
    cpu = "Until then every notebook runs to the end on the CPU, each GPU-only cell saying what it skipped."
    if f.macos_version and _macos_tuple(f.macos_version) < need:
        older = (" or keep this macOS and install torch 2.8.0, the last release whose MPS works on macOS 13 "
                 "(`pip install 'torch==2.8.0'`)" if need >= (14, 0) and _macos_tuple(f.macos_version) >= (13, 0) else "")
        return Finding(
            "problem",
            f"MPS is built into this torch but not available: torch {f.torch_version} needs macOS {need_text} or "
            f"later for MPS, and this Mac runs macOS {f.macos_version}. Creating a tensor on mps raises \"{said}\"",
            f"Update macOS (System Settings > General > Software Update){older}, then restart the kernel. {cpu}",
        )
    if f.virtual_machine:
        return Finding(
            "problem",
            "MPS is built into this torch but not available, and this macOS runs in a virtual machine: PyTorch "
            f"skips a GPU that does not support Metal 2.0, as a virtual machine's often does not.{warned}",
            f"Run the course on the Mac itself rather than in a virtual machine. {cpu} {free}",
        )
    return Finding(
        "problem",
        "MPS is built into this torch but torch.backends.mps.is_available() is False on this Mac"
        f" (macOS {f.macos_version or 'version unknown'}, {f.machine}).{warned}",
        "Check that this is an Apple-silicon Mac (Apple menu > About This Mac shows an M-series chip) running macOS "
        f"{need_text} or later, outside a virtual machine, then restart the kernel. {cpu}",
    )


def _macos_tuple(version: str) -> tuple[int, int]:
    """A macOS version such as "14.5.1" as (14, 5), to compare with what MPS needs."""
    parts = [int(p) for p in re.findall(r"\d+", version)[:2]]
    return (parts + [0, 0])[0], (parts + [0, 0])[1]


def _cuda_build_without_driver(f: MachineFacts) -> Finding:
    """The mode a Linux newcomer gets from a plain `pip install torch`: a CUDA build, no NVIDIA driver."""
    symptom = f.cuda_init_error or "RuntimeError: Found no NVIDIA driver on your system. ..."
    accelerator = f"device(type='{f.built_accelerator}')" if f.built_accelerator else "the build's accelerator"
    return Finding(
        "note",
        f"this torch is a CUDA {f.cuda_build} build, but no NVIDIA driver was found: it works as a CPU-only "
        f"machine. torch.cuda.is_available() is False; every CUDA call (torch.cuda.current_device(), "
        f"torch.ones(1, device='cuda'), pin_memory()) raises {symptom}; "
        f"torch.accelerator.current_accelerator() still returns {accelerator}, the accelerator this build is for, "
        "unless you pass check_available=True, which returns None.",
        "Nothing to do for the course: every notebook runs to the end on the CPU, and each GPU-only cell says "
        "what it skipped. In your own code, test torch.cuda.is_available() (or current_accelerator(check_available="
        f"True)) before using the GPU. To save several GB on a machine without an NVIDIA GPU, install the CPU wheel "
        f"instead: `{CPU_WHEEL_INSTALL}`. On a machine with an NVIDIA GPU, install its driver "
        "(`nvidia-smi` should then list the GPU) and restart the kernel.",
    )


def _version_finding(version: str) -> Finding | None:
    """A note when this torch is outside the range the course is tested on, else None."""
    low, high = TESTED_TORCH
    release = TorchVersion(version.split("+")[0])
    if release < low:
        return Finding(
            "problem",
            f"torch {version} is older than {low}, the oldest PyTorch this course is tested on: parts of "
            "torch.accelerator the course uses are missing or named differently, and cells that prove a "
            "claim of this course may fail",
            f"Upgrade: `pip install 'torch>={low}'` (or `{CPU_WHEEL_INSTALL}` on a machine without an NVIDIA GPU), "
            "then restart the kernel.",
        )
    if release > high:
        return Finding(
            "note",
            f"torch {version} is newer than {high}, the newest PyTorch this course is tested on",
            "It should work; if a cell's claim fails, PyTorch changed what the course describes: "
            f"please report it, and meanwhile `pip install 'torch=={high}'`.",
        )
    return None


# --------------------------------------------------------------------------- needs


@dataclass(frozen=True)
class Requirement:
    """What a GPU cell needs, and whether this machine has it; falsy when it does not, with the reason.

    A cell names its needs and its evidence key once: ``if gpu := needs_cuda(1, what=..., key=...):``
    and, in the ``else`` branch, ``display(gpu)``: the SKIPPED line, then what a GPU shows there
    (``course_utils.evidence.recorded(key)``: plain words, then a real GPU's output or the PyTorch
    source behind them, folded). ``needs_accelerator`` also carries the ``device`` to run on.
    """

    met: bool
    reason: str
    key: str | None = None  # the cell's evidence key: its GPU output is recorded under it
    device: torch.device | None = None  # needs_accelerator: the accelerator, or meta when there is none

    def __bool__(self) -> bool:
        return self.met

    def __str__(self) -> str:
        return self.reason

    def evidence(self):
        """What a GPU shows in this cell (``recorded(key)``) when the machine lacks it, else None."""
        if self.met or self.key is None:
            return None
        from course_utils.evidence import recorded  # evidence reads files; import it only when shown

        return recorded(self.key)

    def __repr__(self) -> str:
        shown = self.evidence()
        return self.reason if shown is None else f"{self.reason}\n{shown}"

    def _repr_html_(self) -> str:
        shown = self.evidence()
        line = tag("p", self.reason, colour=OK if self.met else CAUTION)
        return line if shown is None else markup(line, shown._repr_html_())


def _check_key(function: str, key: str | None) -> None:
    if key is not None and not _KEY.fullmatch(str(key)):
        raise ValueError(f"{function}(key=...) expects the notebook number, a dash and lowercase words, "
                         f"like '02-round-trip'; got {key!r}.")


def needs_cuda(
    count: int = 1, *, what: str = "this cell", key: str | None = None, facts: MachineFacts | None = None
) -> Requirement:
    """Check for ``count`` CUDA GPUs before a cell whose point is CUDA's own.

    For what only CUDA has: the current CUDA device and ``device_of``, streams and events, pinned
    memory, NCCL, ``CUDA_LAUNCH_BLOCKING``, the caching allocator. Use as ``if gpu := needs_cuda(2,
    what="...", key="04-set-device"):`` with ``display(gpu)`` in the ``else`` branch (see
    ``Requirement``). ``key`` names the cell in the evidence files; a GPU run records the cell's
    output under it. ``make pairs`` counts these cells for ``preflight()``.
    """
    require_int("needs_cuda(count)", count, minimum=0, expected="should be a whole number of GPUs, 0 or more",
                hint="Example: needs_cuda(2, what='the two-GPU demo').")
    _check_key("needs_cuda", key)
    have = len(facts.gpus) if facts is not None else (torch.cuda.device_count() if torch.cuda.is_available() else 0)
    if have >= count:
        return Requirement(True, f"Running {what}: needs {count} CUDA GPU(s), this machine has {have}.", key)
    return Requirement(
        False,
        f"SKIPPED {what}: it needs {count} CUDA GPU{'s' if count != 1 else ''}, and this machine has {have}.",
        key,
    )


_ASK = object()  # needs_accelerator's default: ask this machine


def needs_accelerator(*, what: str = "this cell", key: str | None = None, accelerator=_ASK) -> Requirement:
    """The device for a cell whose point holds on every accelerator: the machine's, else ``meta``.

    For creating tensors on a device, ``.to()`` and its copies, results living with their operands,
    moving a model and its optimizer, ``map_location``, the cross-device errors, timing a copy, and
    materializing what was built on ``meta``. CUDA, MPS and XPU all count (``usable_accelerator()``).
    Use as ``gpu = needs_accelerator(what="...", key="03-module-cuda")``, run the cell on
    ``gpu.device`` and end it with ``display(gpu)``: it says which device ran the cell and, on
    ``meta`` (shapes and dtypes, no data, no real copies), what an accelerator shows there. Where
    meta cannot make the point (a copy's values, a timing), gate it like ``needs_cuda``:
    ``if gpu := needs_accelerator(...): ... else: display(gpu)``, showing meta's answer there.
    ``accelerator`` is for tests: the device ``usable_accelerator()`` would return.
    """
    _check_key("needs_accelerator", key)
    found = usable_accelerator() if accelerator is _ASK else accelerator
    if found is not None:
        return Requirement(True, f"Ran {what} on {found}, this machine's accelerator.", key, found)
    return Requirement(
        False,
        f"NO ACCELERATOR for {what}: this machine has no CUDA, MPS or XPU device, so the cell's device is meta, "
        "which keeps shapes and dtypes but holds no data (no values, no real copies or kernels).",
        key,
        torch.device("meta"),
    )


# An evidence key: the notebook's two digits, then lowercase words joined by dashes ("04-set-device").
_KEY = re.compile(r"\d\d-[a-z0-9]+(?:-[a-z0-9]+)*")
