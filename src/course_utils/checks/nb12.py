"""Checks for notebook 12, which GPU, which build: its try-it cells and its exercises.

Every check runs on a CPU-only machine. A wheel's architectures and a GPU's capability are data
(``course_utils.builds.kernels_for`` is the reference rule); the numbering of GPUs is
``builds.cuda_devices`` on simulated servers, with PyTorch's own parser of ``CUDA_VISIBLE_DEVICES``; the
answers that read torch (12.2, 12.3) run on simulated machines (``checks.machines``) whose torch.version,
get_arch_list(), get_device_capability() and availability functions answer as that machine's would.
The exercises' tables here are the practice cases; a grading run draws its own servers and machines
(``cases("12.N", TABLE)``; issue 38).
"""

from __future__ import annotations

from course_utils.builds import WORKSTATION, Gpu, Server, cuda_devices, kernels_for
from course_utils.checks._core import LearnerRaised, Wrong, call, cases, exercise, same, text, try_it
from course_utils.checks.machines import SimulatedBuild, SimulatedMachine, simulated

# Arch lists read from release wheels without a GPU: torch 2.14.1+cu130's torch.cuda.get_arch_list(), and torch
# 2.7.1+cu126's torch._C._cuda_getArchFlags() (its get_arch_list() is [] without a GPU), the same as the 12.6 x86_64
# entry of PYTORCH_RELEASES_CODE_CC in torch/cuda/__init__.py of 2.13.0 and 2.14.1.
CU130 = ("sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120")
CU126 = ("sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90")

# --------------------------------------------------------------------------- 12.a

# (arch list, capability); the expected answer is kernels_for(...) is not None
HAS_KERNELS_CASES = (
    (CU126, (9, 0)),  # H100: its own sm_90
    (CU126, (12, 0)),  # RTX 5090: newer than the wheel
    (CU130, (6, 1)),  # GTX 1080: older than the wheel
    (("sm_80",), (8, 6)),  # A10: sm_80 code runs on 8.6
    (("sm_86", "sm_90"), (8, 0)),  # A100: sm_86 code does not run on 8.0
    (("sm_80", "compute_80"), (9, 0)),  # PTX: compiled by the driver for a newer GPU
    (CU130, (12, 0)),
    (("sm_90", "compute_86"), (8, 0)),  # PTX for 8.6 and newer: an A100 (8.0) is older
    (("sm_80", "compute_100"), (9, 0)),  # PTX for 10.0: "100" < "90" only as text
)


def _has_kernels_mistake(arch_list, capability, got) -> str:
    major, minor = capability
    sm = f"sm_{major}{minor}"
    newer_ptx = [a for a in arch_list if a.startswith("compute_") and (int(a[8:-1]), int(a[-1])) > (major, minor)]
    if got and newer_ptx:
        return (
            f"{newer_ptx[0]} is PTX for {newer_ptx[0][8:-1]}.{newer_ptx[0][-1]} and newer: the driver compiles it up for a newer "
            "GPU, never down for an older one."
        )
    if got and not any(a.startswith(f"sm_{major}") for a in arch_list if a.startswith("sm_")):
        return f"No entry is built for a {major}.x GPU; kernels do not run across majors."
    if got and sm not in arch_list:
        return f"sm_{major}X code runs on {major}.{minor} only when X <= {minor}: an older minor, not a newer one."
    if not got and sm not in arch_list and any(a.startswith("compute_") for a in arch_list):
        return "A compute_XY entry is PTX: the driver compiles it for any GPU of capability X.Y or newer."
    if not got:
        return f"{sm} is not listed, but code built for an older minor of the same major runs on {major}.{minor}."
    return ""


@try_it(
    "12.a",
    "Does this wheel have kernels for this GPU?",
    name="has_kernels",
    kind="function",
    hint="Compare the GPU's (major, minor) with each sm_XY entry: same major, and the entry's minor no newer. A "
    "compute_XY entry is PTX, which the driver compiles for newer GPUs too.",
)
def _has_kernels(has_kernels) -> str:
    for arch_list, capability in HAS_KERNELS_CASES:
        want = kernels_for(arch_list, capability) is not None
        got = call(has_kernels, list(arch_list), capability)
        if type(got) is not bool:
            raise Wrong(f"has_kernels({list(arch_list)}, {capability}) returned {got!r}; expected True or False.")
        if got != want:
            raise Wrong(
                f"has_kernels({list(arch_list)}, {capability}) returned {got}; expected {want}. "
                + _has_kernels_mistake(arch_list, capability, got)
            )
    return (
        f"Right for {len(HAS_KERNELS_CASES)} wheels and GPUs: the same major, an older or equal minor, or PTX; "
        "a GPU newer or older than the wheel gets nothing."
    )


# --------------------------------------------------------------------------- 12.b

_WANTED = 1  # nvidia-smi's GPU 1 on the workstation: the RTX 4090


def _judge_env(env, server: Server, wanted: Gpu, where: str) -> None:
    if not isinstance(env, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in env.items()):
        raise Wrong(
            f"{where} is {env!r}; expected a dict of environment variables, names and values both str, such as {{'CUDA_VISIBLE_DEVICES': '0'}}."
        )
    unknown = sorted(set(env) - {"CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER"})
    if unknown:
        raise Wrong(f"{where} sets {unknown}; only CUDA_VISIBLE_DEVICES and CUDA_DEVICE_ORDER decide the numbering.")
    if "CUDA_VISIBLE_DEVICES" not in env:
        raise Wrong(f"{where} leaves CUDA_VISIBLE_DEVICES unset: every GPU stays visible.", "List the one GPU the program should see.")
    try:
        seen = cuda_devices(server, env)
    except ValueError as exc:
        raise Wrong(f"{where}: {exc}") from None
    if seen == (wanted,):
        return
    index = text(env["CUDA_VISIBLE_DEVICES"]).strip()
    smi = [g.pci_bus_id for g in server.gpus]
    if len(seen) == 1 and index.isdigit() and env.get("CUDA_DEVICE_ORDER", "FASTEST_FIRST") == "FASTEST_FIRST":
        raise Wrong(
            f"{where}: cuda:0 would be the {seen[0].name} at {seen[0].pci_bus_id}, not the {wanted.name} at "
            f"{wanted.pci_bus_id}. nvidia-smi numbers GPUs by PCI bus id; CUDA's default order is "
            "FASTEST_FIRST, so index "
            f"{index} is another GPU there.",
            "Make CUDA number GPUs as nvidia-smi does (a CUDA_DEVICE_ORDER value), or name the GPU by its UUID.",
        )
    names = ", ".join(f"{g.name} at {g.pci_bus_id} (nvidia-smi {smi.index(g.pci_bus_id)})" for g in seen) or "none"
    raise Wrong(f"{where}: the program would see {len(seen)} GPU(s): {names}; expected only the {wanted.name} at {wanted.pci_bus_id}.")


@try_it(
    "12.b",
    "One GPU, by nvidia-smi's number",
    name="env",
    hint="nvidia-smi's numbers follow the PCI bus; CUDA's default order does not. One variable makes CUDA count "
    "as nvidia-smi does; a UUID names one GPU whatever the order.",
    writes="a dict of environment variables",
)
def _env(env) -> str:
    wanted = WORKSTATION.gpus[_WANTED]
    _judge_env(env, WORKSTATION, wanted, "env")
    return f"cuda:0 is the {wanted.name} at {wanted.pci_bus_id}, nvidia-smi's GPU {_WANTED}, and the only GPU seen."


# --------------------------------------------------------------------------- 12.1

_A = "NVIDIA RTX A6000"
SERVERS = (
    (
        Server(
            "a two-GPU desktop",
            (
                Gpu("NVIDIA GeForce RTX 3060", "00000000:01:00.0", "GPU-1a2b3c4d-0000-4000-8000-000000000001", (8, 6)),
                Gpu("NVIDIA GeForce RTX 4090", "00000000:02:00.0", "GPU-9f8e7d6c-0000-4000-8000-000000000002", (8, 9)),
            ),
            fastest_first=(1, 0),
        ),
        "00000000:01:00.0",
    ),
    (
        Server(
            "a four-GPU server",
            (
                Gpu(_A, "00000000:18:00.0", "GPU-5e6f7a8b-0000-4000-8000-000000000003", (8, 6)),
                Gpu("NVIDIA H100 PCIe", "00000000:3B:00.0", "GPU-5e6f7a8c-0000-4000-8000-000000000004", (9, 0)),
                Gpu(_A, "00000000:86:00.0", "GPU-0c1d2e3f-0000-4000-8000-000000000005", (8, 6)),
                Gpu("NVIDIA H100 PCIe", "00000000:AF:00.0", "GPU-7b8c9d0e-0000-4000-8000-000000000006", (9, 0)),
            ),
            fastest_first=(1, 3, 0, 2),
        ),
        "00000000:86:00.0",
    ),
    (WORKSTATION, "00000000:41:00.0"),
    (WORKSTATION, "00000000:21:00.0"),
)


def smi_rows(server: Server) -> list[dict]:
    """nvidia-smi --query-gpu=index,name,pci.bus_id,uuid --format=csv, as a list of dicts."""
    return [{"index": i, "name": g.name, "pci.bus_id": g.pci_bus_id, "uuid": g.uuid} for i, g in enumerate(server.gpus)]


@exercise(
    "12.1",
    "The GPU nvidia-smi names, as cuda:0",
    "cuda_env",
    hint=(
        "nvidia-smi lists GPUs by PCI bus id; a CUDA program counts fastest first unless told otherwise. Either "
        "tell CUDA to count as nvidia-smi does, or pick the GPU by something that does not depend on order."
    ),
)
def _cuda_env(cuda_env) -> str:
    servers = cases("12.1", SERVERS)
    for server, bus_id in servers:
        wanted = next(g for g in server.gpus if g.pci_bus_id == bus_id)
        env = call(cuda_env, smi_rows(server), bus_id)
        _judge_env(env, server, wanted, f"On {server.name}, cuda_env(rows, {bus_id!r})")
    return f"Right on {len(servers)} machines: the process sees exactly the GPU nvidia-smi lists at that bus id, whatever CUDA's default order."


# --------------------------------------------------------------------------- 12.2

_NEW_GPU = SimulatedBuild(cuda="12.6", arch_list=CU126, gpu_name="NVIDIA GeForce RTX 5090", capability=(12, 0))
KERNEL_MACHINES = (
    (
        SimulatedMachine(
            "an H100 server with a CUDA 13.0 wheel",
            cuda=2,
            mps=False,
            build=SimulatedBuild(cuda="13.0", arch_list=CU130, gpu_name="NVIDIA H100 80GB HBM3", capability=(9, 0)),
        ),
        True,
    ),
    (SimulatedMachine("an RTX 5090 desktop with a CUDA 12.6 wheel", cuda=1, mps=False, build=_NEW_GPU), False),
    (
        SimulatedMachine(
            "a GTX 1080 with a CUDA 13.0 wheel",
            cuda=1,
            mps=False,
            build=SimulatedBuild(cuda="13.0", arch_list=CU130, gpu_name="NVIDIA GeForce GTX 1080", capability=(6, 1)),
        ),
        False,
    ),
    (
        SimulatedMachine(
            "an A10 cloud GPU with a build for sm_80 only",
            cuda=1,
            mps=False,
            build=SimulatedBuild(cuda="12.8", arch_list=("sm_80",), gpu_name="NVIDIA A10", capability=(8, 6)),
        ),
        True,
    ),
    (
        SimulatedMachine(
            "an A100 with a build for sm_86 and sm_90",
            cuda=1,
            mps=False,
            build=SimulatedBuild(cuda="12.8", arch_list=("sm_86", "sm_90"), gpu_name="NVIDIA A100-SXM4-80GB", capability=(8, 0)),
        ),
        False,
    ),
    (SimulatedMachine("a laptop with the CPU-only wheel", cuda=0, mps=False, build=SimulatedBuild(cuda=None, arch_list=())), False),
    (
        SimulatedMachine(
            "a laptop with a CUDA wheel and no NVIDIA driver",
            cuda=0,
            mps=False,
            no_cuda="no-driver",
            build=SimulatedBuild(cuda="13.0", arch_list=CU130),
        ),
        False,
    ),
)


# machines every run asks too (practice or graded): PTX that the driver compiles for a newer GPU, and a two-digit
# major (sm_120) that the wheel does have
KERNEL_MACHINES_ALWAYS = (
    (
        SimulatedMachine(
            "a GH200 with a build for sm_80 and PTX (compute_80)",
            cuda=1,
            mps=False,
            build=SimulatedBuild(cuda="12.8", arch_list=("sm_80", "compute_80"), gpu_name="NVIDIA GH200 480GB", capability=(9, 0)),
        ),
        True,
    ),
    (
        SimulatedMachine(
            "an RTX PRO 6000 Blackwell with a CUDA 13.0 wheel",
            cuda=1,
            mps=False,
            build=SimulatedBuild(cuda="13.0", arch_list=CU130, gpu_name="NVIDIA RTX PRO 6000 Blackwell Workstation Edition", capability=(12, 0)),
        ),
        True,
    ),
    # and PTX compared as numbers: compute_90 runs on a 12.0 GPU ("90" > "120" only as text), compute_100 not on
    # a 9.0 one ("100" < "90" only as text)
    (
        SimulatedMachine(
            "an RTX 5090 with a build for sm_80, sm_90 and PTX (compute_90)",
            cuda=1,
            mps=False,
            build=SimulatedBuild(
                cuda="12.4", arch_list=("sm_80", "sm_90", "compute_90"), gpu_name="NVIDIA GeForce RTX 5090 D", capability=(12, 0)
            ),
        ),
        True,
    ),
    (
        SimulatedMachine(
            "an H100 with a build for sm_80 and PTX for 10.0 (compute_100)",
            cuda=1,
            mps=False,
            build=SimulatedBuild(cuda="13.0", arch_list=("sm_80", "compute_100"), gpu_name="NVIDIA H100 NVL", capability=(9, 0)),
        ),
        False,
    ),
)


def _compared_as_text(machine: SimulatedMachine, got: bool) -> None:
    """Raise where ``got`` (a wrong answer) is what comparing the PTX entries and the capability as text gives."""
    build = machine.build
    ptx = [a for a in build.arch_list if a.startswith("compute_")]
    if machine.cuda and ptx and _as_text_says(ptx, build.capability) == got:
        raise Wrong(
            f"On {machine.name}, gpu_has_kernels() returned {got}, but the wheel lists {' '.join(build.arch_list)} "
            f"and the GPU is {build.capability[0]}.{build.capability[1]}: that is what comparing the numbers as "
            'text says ("100" sorts before "90", and "90" after "120").',
            "Turn each entry and the capability into (major, minor) numbers before comparing: a compute_XY entry "
            "is PTX, which the driver compiles for any GPU of capability X.Y or newer.",
        )


def _as_text_says(ptx: list[str], capability: tuple[int, int]) -> bool | None:
    """What a PTX check that compares the entry's number and the capability as text answers, where that differs from
    comparing them as numbers (else the opposite of a right answer never matches: None is never a bool)."""
    mine = f"{capability[0]}{capability[1]}"
    as_text = any(a[len("compute_") :] <= mine for a in ptx)
    as_numbers = any((int(a[len("compute_") : -1]), int(a[-1])) <= capability for a in ptx)
    return as_text if as_text != as_numbers else None


@exercise(
    "12.2",
    "Can this torch run kernels on cuda:0?",
    "gpu_has_kernels",
    hint=(
        "Three questions, in order: is there a CUDA GPU at all, what is its capability, and does the wheel's arch "
        "list hold code that runs on it (the rule of try-it 12.a)."
    ),
)
def _gpu_has_kernels(fn) -> str:
    machines = (*cases("12.2", KERNEL_MACHINES), *KERNEL_MACHINES_ALWAYS)
    for machine, want in machines:
        with simulated(machine):
            try:
                got = call(fn)
            except LearnerRaised as raised:
                raise Wrong(
                    f"On {machine.name}, gpu_has_kernels() raised {type(raised.exc).__name__}: "
                    f"{str(raised.exc).splitlines()[0] if str(raised.exc) else ''}",
                    "Ask torch.cuda.is_available() before asking the GPU anything.",
                ) from None
        if type(got) is not bool:
            raise Wrong(f"On {machine.name}, gpu_has_kernels() returned {got!r}; expected True or False.")
        if got == want:
            continue
        build = machine.build
        _compared_as_text(machine, got)
        if got and machine.cuda:
            raise Wrong(
                f"On {machine.name}, gpu_has_kernels() returned True, but the wheel lists "
                f"{' '.join(build.arch_list)} and the GPU is sm_{build.capability[0]}{build.capability[1]}: "
                'torch.cuda.is_available() is True there, yet every kernel launch raises "CUDA error: no '
                'kernel image is available for execution on the device".',
                "is_available() says the driver sees a GPU, not that this wheel has code for it: compare "
                "get_device_capability() with get_arch_list().",
            )
        if got:
            raise Wrong(
                f"On {machine.name}, gpu_has_kernels() returned True, but there is no GPU there: "
                "torch.cuda.is_available() is False (torch.version.cuda is "
                f"{build.cuda!r}: a wheel's CUDA version is not a GPU)."
            )
        raise Wrong(
            f"On {machine.name}, gpu_has_kernels() returned False, but the wheel's "
            f"{kernels_for(build.arch_list, build.capability)} code runs on this "
            f"sm_{build.capability[0]}{build.capability[1]} GPU.",
            "Code built for sm_XY runs on any GPU of the same major X with a minor of Y or more.",
        )
    fooled = sum(1 for machine, want in machines if machine.cuda and not want)
    return (
        f"Right on {len(machines)} simulated machines; is_available() alone is wrong on {fooled} of them, "
        "where the GPU is newer or older than the wheel's architectures."
    )


# --------------------------------------------------------------------------- 12.3

_ROCM = SimulatedBuild(cuda=None, hip="6.4.43482", arch_list=("gfx90a", "gfx942"), gpu_name="AMD Instinct MI300X", capability=(9, 4))
PLATFORM_MACHINES = (
    (SimulatedMachine("a CUDA server", cuda=4, mps=False, build=SimulatedBuild()), ("cuda", "cuda")),
    (SimulatedMachine("an AMD server with the ROCm wheel", cuda=8, mps=False, build=_ROCM), ("rocm", "cuda")),
    (
        SimulatedMachine(
            "an Intel Arc laptop with the XPU wheel", cuda=0, mps=False, xpu=True, build=SimulatedBuild(cuda=None, arch_list=(), xpu="20250101")
        ),
        ("xpu", "xpu"),
    ),
    (SimulatedMachine("a Mac with Apple silicon", cuda=0, mps=True, build=SimulatedBuild(cuda=None, arch_list=())), ("mps", "mps")),
    (SimulatedMachine("a laptop with the CPU-only wheel", cuda=0, mps=False, build=SimulatedBuild(cuda=None, arch_list=())), ("cpu", "cpu")),
    (
        SimulatedMachine(
            "a laptop with a CUDA wheel and no NVIDIA driver", cuda=0, mps=False, no_cuda="no-driver", build=SimulatedBuild(cuda="12.8")
        ),
        ("cpu", "cpu"),
    ),
)


def _platform_mistake(machine: SimulatedMachine, got, want) -> tuple[str, str]:
    if want == ("rocm", "cuda"):
        if same(got, ("cpu", "cpu")) or (isinstance(got, tuple) and got and got[0] == "cpu"):
            return (
                "On ROCm torch.version.cuda is None, yet torch.cuda.is_available() is True: AMD GPUs answer to torch.cuda.",
                "torch.version.hip says which GPU platform the cuda namespace drives.",
            )
        if isinstance(got, tuple) and len(got) == 2 and got[1] != "cuda":
            return (
                "On ROCm the device string is still 'cuda': PyTorch's AMD GPUs are cuda:0, cuda:1, ... "
                "(torch.device('hip') parses, but it is not where ROCm puts tensors).",
                "Keep the device 'cuda'; only the platform is ROCm.",
            )
        return ("AMD GPUs answer to torch.cuda; torch.version.hip is what tells ROCm from CUDA.", "")
    if want == ("cuda", "cuda") and isinstance(got, tuple) and got and got[0] == "rocm":
        return ("torch.version.hip is None on a CUDA wheel: this is NVIDIA's CUDA.", "")
    if want == ("cpu", "cpu") and machine.build.cuda:
        return (
            f"torch.version.cuda is {machine.build.cuda!r} here, but that is the CUDA the wheel was built with, "
            "not a GPU: torch.cuda.is_available() is False.",
            "Ask the availability functions, not torch.version.",
        )
    return ("", "Ask each backend's is_available() (or torch.accelerator), then torch.version.hip for CUDA vs ROCm.")


@exercise(
    "12.3",
    "Which accelerator, which device string",
    "which_platform",
    hint=(
        "Two answers: the GPU platform (cuda, rocm, xpu, mps or cpu) and the device type to pass to torch.device. "
        "ROCm builds reuse one of the others' device types; torch.version.hip tells them apart."
    ),
)
def _which_platform(fn) -> str:
    machines = cases("12.3", PLATFORM_MACHINES)
    for machine, want in machines:
        with simulated(machine):
            try:
                got = call(fn)
            except LearnerRaised as raised:
                raise Wrong(
                    f"On {machine.name}, which_platform() raised {type(raised.exc).__name__}: {raised.exc}",
                    "Ask is_available() before using a backend.",
                ) from None
        if isinstance(got, list):
            got = tuple(got)
        if same(got, want):
            continue
        why, hint = _platform_mistake(machine, got, want)
        shown = f"platform {got[0]!r} with device type {got[1]!r}" if isinstance(got, tuple) and len(got) == 2 else repr(got)
        raise Wrong(
            f"On {machine.name}, which_platform() returned {shown}, which is not this machine's (platform, device type) pair. {why}".strip(),
            hint,
        )
    return (
        f"Right on {len(machines)} simulated machines: ROCm drives AMD GPUs through 'cuda', XPU and MPS "
        "have their own types, and a wheel's CUDA version is not a GPU."
    )
