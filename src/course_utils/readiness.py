"""What of the course this machine can run, and what to do about the rest: ``preflight()``.

Lesson: notebook 01 (device query). Each thing the preflight can notice is a row of ``FINDINGS``: an id,
when it applies (names of ``CONDITIONS``, each a fact about the frozen ``MachineFacts``), its severity, the message in plain words
and the advice, both templates filled from the facts (``WORDS`` names the values that are not a field of
``MachineFacts``). ``preflight(facts)`` reads the rows in order; within a group only the first row that
applies is said. A new finding is a new row and its test (tests/test_preflight.py), not new code.

What each lesson needs (0, 1 or 2 GPUs for every cell to run for real) is computed from the lessons' own
``needs_cuda`` cells by ``make pairs`` (``course_utils.lessons``); cells that need more than the machine
has still run: they say what they skipped and why.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, fields

from torch.torch_version import TorchVersion

from course_utils.display import CAUTION, LINE_BREAK, OK, PROBLEM, markup, tag
from course_utils.machine import MachineFacts, collect_facts

# The PyTorch releases the course is tested on, lowest and highest (`.ci/run`, `make test-matrix`).
# pyproject.toml requires the lowest; it sets no upper bound (see the comment there).
TESTED_TORCH = ("2.7.1", "2.14.1")
CPU_WHEEL_INSTALL = "pip install torch --index-url https://download.pytorch.org/whl/cpu"

# The free routes to a GPU, as their menus name them. Colab lends one GPU; Kaggle lends one, or two
# with "GPU T4 x2", which runs every two-GPU cell of the course. Each notebook links to both at its top.
COLAB_GPU = "Colab: Runtime > Change runtime type > T4 GPU"
KAGGLE_GPU = "Kaggle: Settings > Accelerator > GPU T4 x2"


def _lessons():
    from course_utils.lessons import course

    return course()


def runs_on_any_accelerator(cell) -> bool:
    """Whether one of a lesson's GPU-only cells runs for real on any accelerator (MPS, XPU), not only CUDA.

    Lesson: notebook 01 (``preflight`` on a Mac). The one place that reads the lessons' mark for it (issue
    27.1's device idiom: a ``needs_accelerator(...)`` cell rather than ``needs_cuda(...)``); ``course_utils.lessons``
    records it as ``GpuCell.needs == "accelerator"``. Any other cell is CUDA-only, as ``needs_cuda`` says.
    """
    return getattr(cell, "needs", "cuda") == "accelerator"


def skipped_cells(lesson, gpu_count: int, accelerator: str | None = None) -> tuple:
    """The cells of ``lesson`` that skip (and explain) with ``gpu_count`` CUDA GPUs and, besides, ``accelerator``.

    An accelerator that is not CUDA ("mps", "xpu") runs the one-device cells meant for any accelerator."""
    return tuple(c for c in lesson.cells if c.gpus > gpu_count and not (accelerator and c.gpus <= 1 and runs_on_any_accelerator(c)))


@dataclass(frozen=True)
class Finding:
    """One thing the preflight noticed: what it is and what to do about it."""

    severity: str  # "ok" | "note" | "problem"
    message: str
    fix: str = ""
    id: str = ""  # the row of FINDINGS it came from


@dataclass(frozen=True)
class Preflight:
    """In plain words: what this machine can run of the course, and what to do about the rest."""

    level: str  # "cpu-only" | "mps" | "xpu" | "one-gpu" | "multi-gpu"
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
        items = markup(
            *(
                tag(
                    "li",
                    tag("b", f.severity, colour=tones.get(f.severity)),
                    f" {f.message}",
                    markup(LINE_BREAK, tag("i", "What to do:"), f" {f.fix}") if f.fix else "",
                )
                for f in self.findings
            )
        )
        full = ", ".join(self.full_notebooks) or "none"
        partial = ", ".join(self.partial_notebooks) or "none"
        on = (
            (f"Runs on {self.accelerator} for real: {', '.join(self.accelerator_notebooks) or 'none yet'}", LINE_BREAK)
            if self.accelerator
            else ()
        )
        return markup(
            tag("p", tag("b", f"This machine: {self.level}"), f" ({self.gpu_count} CUDA GPU{'s' if self.gpu_count != 1 else ''})"),
            tag("ul", items),
            tag("p", *on, f"Runs every cell: {full}", LINE_BREAK, f"Runs to the end, skipping GPU-only cells: {partial}"),
        )


# --------------------------------------------------------------------------- the findings, one row each


@dataclass(frozen=True)
class Advice:
    """One thing the preflight can notice: when it applies, how much it matters, what it means and what to do."""

    id: str
    group: str  # within a group, only the first row that applies is said
    when: tuple[str, ...]  # names of CONDITIONS that must all hold; "not NAME" for one that must not
    severity: str  # "ok" | "note" | "problem"
    message: str  # a template: {field} of MachineFacts or a name in WORDS
    fix: str = ""
    after_problem: bool = True  # False: an all-clear, not said once a problem was found


def _gpus(f: MachineFacts) -> int:
    return len(f.gpus)


def _macos_tuple(version: str) -> tuple[int, int]:
    """A macOS version such as "14.5.1" as (14, 5), to compare with what MPS needs."""
    parts = [int(p) for p in re.findall(r"\d+", version)[:2]]
    return (parts + [0, 0])[0], (parts + [0, 0])[1]


def _mps_needs(f: MachineFacts) -> tuple[int, int]:
    from course_utils.evidence.sources import mps_needs_macos  # read only on a Mac

    return mps_needs_macos(f.torch_version)


def _mps_unavailable(f: MachineFacts) -> bool:
    """MPS is built into this torch but cannot be used (a Mac with no CUDA GPU)."""
    return _gpus(f) == 0 and f.mps_built and not f.mps_available


def _mps_here(f: MachineFacts) -> str | None:
    """The newest tested torch that installs on this Mac's macOS and whose MPS works there (the Mac tables)."""
    from course_utils.evidence.sources import newest_mps_release  # read only on a Mac

    return newest_mps_release(_macos_tuple(f.macos_version)) if f.macos_version else None


def _macos_too_old(f: MachineFacts) -> bool:
    return _mps_unavailable(f) and bool(f.macos_version) and _macos_tuple(f.macos_version) < _mps_needs(f)


def _release(f: MachineFacts) -> TorchVersion:
    return TorchVersion(f.torch_version.split("+")[0])


def _mps_said(f: MachineFacts) -> str:
    """PyTorch's own words for MPS's macOS floor in this release (MAC_FACTS: "MacOS 13.0+." in 2.7-2.8, "macOS 14.0+."
    from 2.12)."""
    from course_utils.evidence.sources import MAC_FACTS

    said = (q.pieces[0].strip() for q in MAC_FACTS["mps-macos-version"].quotes if q.covers(f.torch_version))
    return next(said, f"The MPS backend is supported on macOS {WORDS['mps_needs'](f)}+.")


def _intel_mac_newest(_f: MachineFacts) -> str:
    from course_utils.evidence.sources import INTEL_MAC_NEWEST

    return INTEL_MAC_NEWEST


# The values a template names that are not fields of MachineFacts, each computed from the facts when a row uses it.
WORDS: dict[str, Callable[[MachineFacts], str]] = {
    "gpu_name": lambda f: f.gpus[0].name,
    "xpu_name": lambda f: f.xpus[0].name,
    "gpu_count": lambda f: str(_gpus(f)),
    "gpu_names": lambda f: ", ".join(sorted({g.name for g in f.gpus})),
    "cuda_symptom": lambda f: f.cuda_init_error or "RuntimeError: Found no NVIDIA driver on your system. ...",
    "built": lambda f: f"device(type='{f.built_accelerator}')" if f.built_accelerator else "the build's accelerator",
    "intel_mac_newest": _intel_mac_newest,
    "mps_needs": lambda f: "{}.{}".format(*_mps_needs(f)),
    "mps_here": lambda f: _mps_here(f) or "none",
    "mps_said": _mps_said,
    "mps_warned": lambda f: f" torch warned: {f.mps_warning!r}." if f.mps_warning else "",
    "macos": lambda f: f.macos_version or "version unknown",
    "lowest": lambda _f: TESTED_TORCH[0],
    "highest": lambda _f: TESTED_TORCH[1],
}

# The conditions a row's ``when`` names, each one fact about the machine. A row applies when all its names hold
# ("not NAME": when NAME does not); the table is checked when this module is imported.
CONDITIONS: dict[str, Callable[[MachineFacts], bool]] = {
    "cuda_error": lambda f: bool(f.cuda_error),
    "no_gpu": lambda f: _gpus(f) == 0,
    "one_gpu": lambda f: _gpus(f) == 1,
    "several_gpus": lambda f: _gpus(f) >= 2,
    "colab": lambda f: f.in_colab,
    "kaggle": lambda f: f.in_kaggle,
    "cuda_build": lambda f: bool(f.cuda_build),
    "hip_build": lambda f: bool(f.hip_build),
    "nvidia_driver": lambda f: f.nvidia_driver_present,
    "macos": lambda f: f.system == "Darwin",
    "x86_64": lambda f: f.machine == "x86_64",
    "rosetta": lambda f: f.rosetta,
    "virtual_machine": lambda f: f.virtual_machine,
    "xpu": lambda f: bool(f.xpus),
    "mps_built": lambda f: f.mps_built,
    "mps_available": lambda f: f.mps_available,
    "mps_unavailable": _mps_unavailable,
    "macos_too_old_for_mps": _macos_too_old,
    "an_older_torch_has_mps": lambda f: _mps_here(f) is not None,
    "cuda_visible_devices_set": lambda f: f.cuda_visible_devices is not None,
    "torch_older_than_tested": lambda f: _release(f) < TESTED_TORCH[0],
    "torch_newer_than_tested": lambda f: _release(f) > TESTED_TORCH[1],
}


def holds(when: tuple[str, ...], facts: MachineFacts) -> bool:
    """Whether every condition ``when`` names holds for ``facts`` ("not NAME" holds when NAME does not)."""
    for name in when:
        negated = name.startswith("not ")
        if CONDITIONS[name.removeprefix("not ")](facts) == negated:
            return False
    return True


def unknown_conditions(rows) -> list[str]:
    """The condition names rows use that CONDITIONS lacks (a typo would otherwise make a row never apply)."""
    return [f"{row.id}: {name!r}" for row in rows for name in row.when if name.removeprefix("not ") not in CONDITIONS]


# Sentences several rows share.
_FREE_GPU = f"The CUDA-only cells need an NVIDIA GPU: open the notebook from the links at its top ({COLAB_GPU}, or {KAGGLE_GPU} for every cell)."
_CPU_UNTIL = "Until then every notebook runs to the end on the CPU, each GPU-only cell saying what it skipped."
_SKIP_TWO = "The cells that need two GPUs (device_of across devices, peer copies, NCCL with two processes) skip and say what they would show. "
_MPS_UNAVAILABLE = (
    "MPS is built into this torch but not available: torch {torch_version} needs macOS {mps_needs} or "
    'later for MPS, and this Mac runs macOS {macos_version}. Creating a tensor on mps raises "{mps_said}"'
)

FINDINGS: tuple[Advice, ...] = (
    Advice(
        "cuda-error",
        "cuda-error",
        ("cuda_error",),
        "problem",
        "torch could not query CUDA: {cuda_error}",
        "Check the driver with `nvidia-smi` in a terminal; if it fails, reinstall the NVIDIA driver and restart. If it "
        "works, restart the kernel (a crashed CUDA context does not recover).",
    ),
    # ---- no CUDA GPU: why, where the machine says so
    Advice(
        "colab-without-gpu",
        "no-gpu",
        ("no_gpu", "colab"),
        "problem",
        "running on Colab without a GPU runtime",
        "Runtime > Change runtime type > T4 GPU, then run the notebook again. Until then everything still runs on the "
        f"CPU, skipping the GPU-only cells. Two GPUs (every cell of the course): open the notebook on Kaggle instead "
        f"({KAGGLE_GPU}).",
    ),
    Advice(
        "kaggle-without-gpu",
        "no-gpu",
        ("no_gpu", "kaggle"),
        "problem",
        "running on Kaggle without a GPU accelerator",
        "Settings > Accelerator > GPU T4 x2 (two GPUs: every cell of the course runs for real), then run the notebook "
        "again. Until then everything still runs on the CPU, skipping the GPU-only cells. If the Accelerator menu is "
        "greyed out, Kaggle first asks you to verify your account by phone.",
    ),
    Advice(
        "driver-but-no-gpu",
        "no-gpu",
        ("no_gpu", "cuda_build", "nvidia_driver"),
        "problem",
        "this torch is a CUDA {cuda_build} build and an NVIDIA driver is present, but no GPU is usable",
        "Run `nvidia-smi`. If it lists GPUs, check CUDA_VISIBLE_DEVICES (now {cuda_visible_devices!r}) and that the "
        "driver supports CUDA {cuda_build} (`nvidia-smi` prints the highest CUDA version it supports); update the "
        "driver or install a torch built for an older CUDA from pytorch.org/get-started.",
    ),
    # The mode a Linux newcomer gets from a plain `pip install torch`: a CUDA build, no NVIDIA driver.
    Advice(
        "cuda-build-without-driver",
        "no-gpu",
        ("no_gpu", "cuda_build"),
        "note",
        "this torch is a CUDA {cuda_build} build, but no NVIDIA driver was found: it works as a CPU-only machine. "
        "torch.cuda.is_available() is False; every CUDA call (torch.cuda.current_device(), torch.ones(1, "
        "device='cuda'), pin_memory()) raises {cuda_symptom}; torch.accelerator.current_accelerator() still returns "
        "{built}, the accelerator this build is for, unless you pass check_available=True, which returns None.",
        "Nothing to do for the course: every notebook runs to the end on the CPU, and each GPU-only cell says what it "
        "skipped. In your own code, test torch.cuda.is_available() (or current_accelerator(check_available=True)) "
        "before using the GPU. To save several GB on a machine without an NVIDIA GPU, install the CPU wheel instead: "
        f"`{CPU_WHEEL_INSTALL}`. On a machine with an NVIDIA GPU, install its driver (`nvidia-smi` should then list "
        "the GPU) and restart the kernel.",
    ),
    # No index hard-coded in the advice: each release offers its own CUDA builds (2.9.1: cu126, cu128,
    # cu130, per pytorch.org/get-started/previous-versions), so one name goes stale.
    Advice(
        "cpu-build-on-gpu-machine",
        "no-gpu",
        ("no_gpu", "not cuda_build", "not hip_build", "nvidia_driver"),
        "problem",
        "an NVIDIA driver is present, but this torch is a CPU-only build, so it cannot use the GPU",
        "Install a CUDA build of torch into this environment: pick your OS, pip and a CUDA version your driver "
        "supports (`nvidia-smi` shows the highest) at pytorch.org/get-started/locally (older releases: "
        "pytorch.org/get-started/previous-versions) and run the pip command it shows, of the form `pip install torch "
        "--index-url https://download.pytorch.org/whl/cuXYZ`; then restart the kernel.",
    ),
    # ---- a Mac without CUDA: MPS, and if not, PyTorch's reason in words (docs/mac.md)
    Advice(
        "mps",
        "mac",
        ("no_gpu", "mps_available"),
        "ok",
        "Apple GPU found (MPS): the cells for any accelerator run on `mps` for real (tensors, copies, models, the "
        "cross-device errors, honest timing); the CUDA-only cells (the current CUDA device, streams, pinned-memory "
        "DMA, NCCL, the caching allocator's statistics) skip and say what CUDA shows. MPS has no float64: use "
        "float32 on it.",
        "Nothing to do. " + _FREE_GPU,
    ),
    Advice(
        "mac-rosetta",
        "mac",
        ("no_gpu", "macos", "x86_64", "rosetta"),
        "problem",
        "this Python is an Intel (x86_64) build running under Rosetta on an Apple-silicon Mac, so torch cannot use "
        "the GPU, and PyTorch publishes no Intel macOS wheel after {intel_mac_newest}",
        "Install an arm64 Python (python.org's macOS installer is universal2; Homebrew in /opt/homebrew is arm64; "
        "`python3 -c 'import platform; print(platform.machine())'` should print arm64), create the course's "
        "environment again with it (`make lab`), and restart the kernel.",
    ),
    Advice(
        "mac-intel",
        "mac",
        ("no_gpu", "macos", "x86_64"),
        "problem",
        "an Intel Mac: PyTorch's last macOS wheel for Intel is {intel_mac_newest}, older than the PyTorch this course "
        "is tested on ({lowest} and later), and it has no GPU backend for this Mac",
        "Run the course on Colab or Kaggle: open a notebook from the links at its top "
        f"({COLAB_GPU}; {KAGGLE_GPU} for every cell). Everything there is free and needs only a browser.",
    ),
    Advice(
        "mac-torch-without-mps",
        "mac",
        ("no_gpu", "macos", "not mps_built"),
        "note",
        "a Mac, but this torch {torch_version} is built without MPS, so it cannot use the Apple GPU",
        "Install the ordinary macOS arm64 wheel from PyPI (`pip install --force-reinstall torch`), then restart the "
        "kernel. Until then every notebook runs to the end on the CPU.",
    ),
    # An older torch whose MPS works on this macOS, where the tables have one (2.8.0 on macOS 13: MAC_WHEEL_TAGS,
    # MPS_NEEDS_MACOS, docs/mac.md).
    Advice(
        "mac-too-old-for-mps-older-torch",
        "mac",
        ("macos_too_old_for_mps", "an_older_torch_has_mps"),
        "problem",
        _MPS_UNAVAILABLE,
        "Update macOS (System Settings > General > Software Update) or keep this macOS and install torch {mps_here}, "
        "the newest release whose MPS works on macOS {macos_version} (`pip install 'torch=={mps_here}'`), then restart "
        "the kernel. " + _CPU_UNTIL,
    ),
    Advice(
        "mac-too-old-for-mps",
        "mac",
        ("macos_too_old_for_mps",),
        "problem",
        _MPS_UNAVAILABLE,
        "Update macOS (System Settings > General > Software Update), then restart the kernel. " + _CPU_UNTIL,
    ),
    Advice(
        "mac-virtual-machine",
        "mac",
        ("mps_unavailable", "virtual_machine"),
        "problem",
        "MPS is built into this torch but not available, and this macOS runs in a virtual machine: PyTorch skips a "
        "GPU that does not support Metal 2.0, as a virtual machine's often does not.{mps_warned}",
        f"Run the course on the Mac itself rather than in a virtual machine. {_CPU_UNTIL} {_FREE_GPU}",
    ),
    Advice(
        "mps-unavailable",
        "mac",
        ("mps_unavailable",),
        "problem",
        "MPS is built into this torch but torch.backends.mps.is_available() is False on this Mac (macOS {macos}, {machine}).{mps_warned}",
        "Check that this is an Apple-silicon Mac (Apple menu > About This Mac shows an M-series chip) running macOS "
        "{mps_needs} or later, outside a virtual machine, then restart the kernel. " + _CPU_UNTIL,
    ),
    # ---- what runs for real
    Advice(
        "cpu-only",
        "machine",
        ("no_gpu", "not xpu", "not mps_available", "not mps_built", "not macos"),
        "ok",
        "no accelerator: every notebook runs to the end on the CPU, and each GPU-only cell says what it skipped and what it would show",
        "For the GPU parts, a free GPU is one click away: open the notebook from the links at its top. One GPU: "
        f"{COLAB_GPU} (or Kaggle). Two GPUs, for every cell: {KAGGLE_GPU}.",
        after_problem=False,
    ),
    Advice(
        "xpu",
        "machine",
        ("no_gpu", "xpu"),
        "ok",
        "Intel GPU found (XPU): {xpu_name}. The cells for any accelerator run on `xpu` for real (tensors, copies, "
        "models, the cross-device errors, honest timing); the CUDA-only cells (the current CUDA device, streams, "
        "pinned-memory DMA, NCCL, the caching allocator's statistics) skip and say what CUDA shows.",
        "Nothing to do. " + _FREE_GPU,
    ),
    Advice(
        "one-gpu-kaggle",
        "machine",
        ("one_gpu", "kaggle"),
        "ok",
        "one GPU: {gpu_name}. Everything but the two-GPU cells runs for real.",
        _SKIP_TWO + "For them, choose Settings > Accelerator > GPU T4 x2 and run the notebook again.",
    ),
    Advice(
        "one-gpu-colab",
        "machine",
        ("one_gpu", "colab"),
        "ok",
        "one GPU: {gpu_name}. Everything but the two-GPU cells runs for real.",
        _SKIP_TWO + f"Colab lends one GPU; for two, open the notebook on Kaggle ({KAGGLE_GPU}).",
    ),
    Advice(
        "one-gpu",
        "machine",
        ("one_gpu",),
        "ok",
        "one GPU: {gpu_name}. Everything but the two-GPU cells runs for real.",
        _SKIP_TWO + f"For them, open the notebook on Kaggle from the link at its top ({KAGGLE_GPU}).",
    ),
    Advice(
        "several-gpus",
        "machine",
        ("several_gpus",),
        "ok",
        "{gpu_count} GPUs ({gpu_names}): every cell of the course runs for real.",
    ),
    # ---- settings and releases
    Advice(
        "cuda-visible-devices",
        "visible",
        ("cuda_visible_devices_set",),
        "note",
        "CUDA_VISIBLE_DEVICES={cuda_visible_devices!r}: torch sees only those GPUs, renumbered from 0",
        "Unset it (before starting Jupyter) to see every GPU.",
    ),
    Advice(
        "torch-too-old",
        "version",
        ("torch_older_than_tested",),
        "problem",
        "torch {torch_version} is older than {lowest}, the oldest PyTorch this course is tested on: parts of "
        "torch.accelerator the course uses are missing or named differently, and cells that prove a claim of this "
        "course may fail",
        f"Upgrade: `pip install 'torch>={{lowest}}'` (or `{CPU_WHEEL_INSTALL}` on a machine without an NVIDIA GPU), then restart the kernel.",
    ),
    Advice(
        "torch-newer-than-tested",
        "version",
        ("torch_newer_than_tested",),
        "note",
        "torch {torch_version} is newer than {highest}, the newest PyTorch this course is tested on",
        "It should work; if a cell's claim fails, PyTorch changed what the course describes: please report it, and "
        "meanwhile `pip install 'torch=={highest}'`.",
    ),
)

if unknown_conditions(FINDINGS):  # a typo in the table: fail at import, naming the row, not silently never apply
    raise ValueError(f"preflight rows name unknown conditions: {unknown_conditions(FINDINGS)}; add them to CONDITIONS")


class _Values(dict):
    """A template's values: the facts' fields, and each name of WORDS computed when a template asks for it."""

    def __init__(self, facts: MachineFacts):
        super().__init__((fld.name, getattr(facts, fld.name)) for fld in fields(facts))
        self.facts = facts

    def __missing__(self, name: str) -> str:
        if name not in WORDS:
            raise KeyError(f"a preflight template names {{{name}}}, which is neither a MachineFacts field nor in WORDS")
        return WORDS[name](self.facts)


def findings(facts: MachineFacts, rows: tuple[Advice, ...] = FINDINGS) -> tuple[Finding, ...]:
    """The rows that apply to ``facts``, in order, the first of each group only, with their templates filled in."""
    said: list[Finding] = []
    groups: set[str] = set()
    values = _Values(facts)
    for row in rows:
        if row.group in groups or not holds(row.when, facts):
            continue
        if not row.after_problem and any(x.severity == "problem" for x in said):
            continue
        groups.add(row.group)
        said.append(Finding(row.severity, row.message.format_map(values), row.fix.format_map(values), row.id))
    return tuple(said)


def _level(f: MachineFacts) -> str:
    n = _gpus(f)
    if n:
        return "one-gpu" if n == 1 else "multi-gpu"
    if f.xpus:
        return "xpu"
    return "mps" if f.mps_available else "cpu-only"


def preflight(facts: MachineFacts | None = None) -> Preflight:
    """Say what this machine can run of the course, and exactly what to do about each gap."""
    f = facts if facts is not None else collect_facts()
    level = _level(f)
    return Preflight(level=level, gpu_count=_gpus(f), findings=findings(f), accelerator=level if level in ("mps", "xpu") else None)
