"""Drawn cases of exercise set 12 (which GPU, which build): servers of drawn GPUs, bus ids, UUIDs and CUDA orders
(12.1); machines of drawn wheels and GPUs (12.2); machines of every platform, in drawn numbers and order (12.3).

Each rule returns rows in the shape of the public table of ``course_utils.checks.nb12``, expected values computed
here: 12.1's by the checker itself (``builds.cuda_devices``), 12.2's by ``builds.kernels_for``, 12.3's by
``platform``. The answers of 12.2 and 12.3 take no argument, so a replay answers them by the order of the calls:
no draw asks its questions so that the public answers, in their order, are right."""

from __future__ import annotations

import dataclasses
import random

from course_utils.builds import Gpu, Server, kernels_for
from course_utils.checks.machines import SimulatedBuild, SimulatedMachine
from course_utils.checks.nb12 import CU126, CU130, KERNEL_MACHINES, PLATFORM_MACHINES

# (name as torch.cuda.get_device_name gives it, compute capability): NVIDIA's table of CUDA GPUs
_NVIDIA = (
    ("Tesla K80", (3, 7)),
    ("Tesla P100-PCIE-16GB", (6, 0)),
    ("NVIDIA GeForce GTX 1080", (6, 1)),
    ("Tesla V100-SXM2-16GB", (7, 0)),
    ("Tesla T4", (7, 5)),
    ("NVIDIA A100-SXM4-80GB", (8, 0)),
    ("NVIDIA A10", (8, 6)),
    ("NVIDIA GeForce RTX 3090", (8, 6)),
    ("NVIDIA RTX A6000", (8, 6)),
    ("NVIDIA L4", (8, 9)),
    ("NVIDIA GeForce RTX 4090", (8, 9)),
    ("NVIDIA H100 80GB HBM3", (9, 0)),
    ("NVIDIA B200", (10, 0)),
    ("NVIDIA GeForce RTX 5090", (12, 0)),
)
_SM = ("sm_50", "sm_60", "sm_61", "sm_70", "sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_100", "sm_120")
_CUDA = ("11.8", "12.1", "12.4", "12.6", "12.8", "13.0")

# --------------------------------------------------------------------------- 12.1


def _uuid(rng: random.Random) -> str:
    bits = rng.getrandbits
    return f"GPU-{bits(32):08x}-{bits(16):04x}-4{bits(12):03x}-8{bits(12):03x}-{bits(48):012x}"


def _server(rng: random.Random, size: int) -> Server:
    """``size`` GPUs of one to three models in PCI bus order; CUDA's FASTEST_FIRST puts the higher capability first,
    equal ones in a drawn order, never nvidia-smi's own order."""
    models = rng.sample(_NVIDIA[3:], rng.randint(1, 3))
    buses = sorted(rng.sample(range(1, 256), size))
    while True:
        gpus = tuple(
            Gpu(name, f"00000000:{bus:02X}:00.0", _uuid(rng), capability)
            for bus, (name, capability) in zip(buses, (rng.choice(models) for _ in range(size)))
        )
        ties = [rng.random() for _ in gpus]
        order = tuple(sorted(range(size), key=lambda i: (tuple(-c for c in gpus[i].capability), ties[i])))
        if order != tuple(range(size)):
            return Server(f"a server of {size} GPUs", gpus, fastest_first=order)


def cuda_env(rng: random.Random) -> list[tuple[Server, str]]:
    """As ``SERVERS``: 4 to 6 (server, bus id of the GPU asked for), servers of 2 to 8 GPUs. Most GPUs asked for
    have another index in CUDA's default order than in nvidia-smi's, and one has nvidia-smi index 3 or more (the
    public table's GPUs are its 0 to 2) and is not CUDA's first, so neither its nvidia-smi index nor "0" finds it."""
    rows = []
    while not rows:  # the first: a GPU at index 3 or more that CUDA's default order numbers otherwise, not first
        server = _server(rng, rng.randint(4, 8))
        moved = [i for i in range(3, len(server.gpus)) if server.fastest_first[i] != i != server.fastest_first[0]]
        if moved:
            rows.append((server, server.gpus[rng.choice(moved)].pci_bus_id))
    for _ in range(rng.randint(3, 5)):
        server = _server(rng, rng.randint(2, 8))
        moved = [i for i, j in enumerate(server.fastest_first) if i != j]
        index = rng.choice(moved) if rng.random() < 0.8 else rng.randrange(len(server.gpus))
        rows.append((server, server.gpus[index].pci_bus_id))
    rng.shuffle(rows)
    return rows


# --------------------------------------------------------------------------- 12.2


def _wheel(rng: random.Random) -> tuple[str, tuple[str, ...]]:
    """(torch.version.cuda, arch list): a release wheel's, or a build for 1 to 4 architectures, with PTX sometimes."""
    roll = rng.random()
    if roll < 0.4:
        return rng.choice((("12.6", CU126), ("13.0", CU130)))
    arch = sorted(rng.sample(_SM, rng.randint(1, 4)), key=lambda a: int(a[3:]))
    if rng.random() < 0.3:
        arch.append("compute_" + arch[-1][3:])
    return rng.choice(_CUDA), tuple(arch)


def _without_gpu(rng: random.Random, name: str, kinds=("cpu-build", "no-driver", "mac")) -> SimulatedMachine:
    kind = rng.choice(kinds)
    if kind == "no-driver":
        cuda, arch = _wheel(rng)
        return SimulatedMachine(name, cuda=0, mps=False, no_cuda="no-driver", build=SimulatedBuild(cuda, arch_list=arch))
    return SimulatedMachine(name, cuda=0, mps=kind == "mac", build=SimulatedBuild(cuda=None, arch_list=()))


def _out_of_public_order(rng: random.Random, rows: list, public: list) -> list:
    """``rows`` in a drawn order in which the public table's answers, in theirs (the last repeated), are wrong."""
    while True:
        rng.shuffle(rows)
        if any(want != public[min(k, len(public) - 1)] for k, (_, want) in enumerate(rows)):
            return rows


def _kernel_row(gpu: tuple[str, tuple[int, int]], wheel: tuple[str, tuple[str, ...]], gpus: int):
    (name, capability), (cuda, arch) = gpu, wheel
    return (
        SimulatedMachine(
            f"a {name} with a CUDA {cuda} wheel for {' '.join(arch)}",
            cuda=gpus,
            mps=False,
            build=SimulatedBuild(cuda, arch_list=arch, gpu_name=name, capability=capability),
        ),
        kernels_for(arch, capability) is not None,
    )


def _split_pair(rng: random.Random, shared: str) -> list:
    """Two machines that share their GPU model (``shared="gpu"``) or their wheel (``"wheel"``), one with kernels
    for its GPU and one without: so no answer that reads only the GPU's name or only the build is right on both."""
    while True:
        gpu, wheel = rng.choice(_NVIDIA), _wheel(rng)
        other = (gpu, _wheel(rng)) if shared == "gpu" else (rng.choice(_NVIDIA), wheel)
        pair = [_kernel_row(gpu, wheel, rng.randint(1, 8)), _kernel_row(*other, rng.randint(1, 8))]
        if pair[0][1] != pair[1][1]:
            return pair


# 12.2's plausible mistakes (tests/wrong_answers_nb12.py): only the GPU's own sm_XY counts; any sm_ entry of the
# GPU's major counts, whatever its minor
_KERNEL_MISTAKES = {
    "exact match": lambda arch, capability: f"sm_{capability[0]}{capability[1]}" in arch,
    "same major": lambda arch, capability: any(a.startswith("sm_") and int(a[3:-1]) == capability[0] for a in arch),
}


def gpu_has_kernels(rng: random.Random) -> list[tuple[SimulatedMachine, bool]]:
    """As ``KERNEL_MACHINES``: 9 machines or more, 4 to 6 (at times more) whose wheel has kernels for their GPU,
    3 to 5 (likewise) whose wheel has none (the GPU newer or older than it), 2 or 3 without a CUDA GPU; the expected answer is
    ``kernels_for(arch list, capability) is not None`` on a machine with a GPU. Among them, one GPU model with
    kernels on one machine and none on another, and one wheel likewise: the answer depends on both; and each of
    ``_KERNEL_MISTAKES`` is wrong on one machine at least, as the public rows were chosen to be."""

    def caught(row) -> set[str]:
        build = row[0].build
        return {key for key, mistake in _KERNEL_MISTAKES.items() if mistake(build.arch_list, build.capability) != row[1]}

    rows = _split_pair(rng, "gpu") + _split_pair(rng, "wheel")
    missing = set(_KERNEL_MISTAKES).difference(*map(caught, rows))
    while missing:  # rows drawn until each plausible mistake is wrong on one
        row = _kernel_row(rng.choice(_NVIDIA), _wheel(rng), rng.randint(1, 8))
        if caught(row) & missing:
            missing -= caught(row)
            rows.append(row)
    have = [want for _, want in rows]
    wanted = {True: rng.randint(4, 6) - have.count(True), False: rng.randint(3, 5) - have.count(False)}
    while any(n > 0 for n in wanted.values()):
        row = _kernel_row(rng.choice(_NVIDIA), _wheel(rng), rng.randint(1, 8))
        if wanted[row[1]] > 0:
            wanted[row[1]] -= 1
            rows.append(row)
    rows += [(_without_gpu(rng, "a machine without a CUDA GPU"), False) for _ in range(rng.randint(2, 3))]
    return _out_of_public_order(rng, rows, [want for _, want in KERNEL_MACHINES])


# --------------------------------------------------------------------------- 12.3

# the versions the public table's ROCm and XPU wheels report
_HIP = next(m.build.hip for m, want in PLATFORM_MACHINES if want[0] == "rocm")
_XPU = next(m.build.xpu for m, want in PLATFORM_MACHINES if want[0] == "xpu")
_AMD = (
    ("AMD Instinct MI300X", ("gfx942",), (9, 4)),
    ("AMD Instinct MI250X", ("gfx90a",), (9, 0)),
    ("AMD Radeon RX 7900 XTX", ("gfx1100",), (11, 0)),
)


def platform(machine: SimulatedMachine) -> tuple[str, str]:
    """The (platform, device type) of a simulated machine: a CUDA GPU (NVIDIA's, or AMD's on a ROCm wheel, both
    behind torch.cuda), else Intel's XPU, else Apple's MPS, else the CPU."""
    if machine.cuda:
        return ("rocm" if machine.build is not None and machine.build.hip else "cuda", "cuda")
    if machine.xpu:
        return ("xpu", "xpu")
    return ("mps", "mps") if machine.mps else ("cpu", "cpu")


def _platform_machine(rng: random.Random, kind: str) -> SimulatedMachine:
    if kind == "cuda":
        (gpu, capability), (cuda, arch) = rng.choice(_NVIDIA), _wheel(rng)
        return SimulatedMachine(
            f"a server of {gpu} GPUs",
            cuda=rng.randint(1, 8),
            mps=False,
            build=SimulatedBuild(cuda, arch_list=arch, gpu_name=gpu, capability=capability),
        )
    if kind == "rocm":
        gpu, arch, capability = rng.choice(_AMD)
        return SimulatedMachine(
            f"a server of {gpu} GPUs",
            cuda=rng.randint(1, 8),
            mps=False,
            build=SimulatedBuild(cuda=None, hip=_HIP, arch_list=arch, gpu_name=gpu, capability=capability),
        )
    if kind == "xpu":
        return SimulatedMachine(
            "an Intel GPU with the XPU wheel", cuda=0, mps=False, xpu=True, build=SimulatedBuild(cuda=None, arch_list=(), xpu=_XPU)
        )
    if kind == "cpu-no-driver":  # a CUDA wheel on a machine without NVIDIA's driver: the CPU, whatever the wheel
        return _without_gpu(rng, "a machine without a GPU", ("no-driver",))
    return (
        _without_gpu(rng, "a machine without a GPU", ("cpu-build", "no-driver"))
        if kind == "cpu"
        else SimulatedMachine("a Mac with Apple silicon", cuda=0, mps=True, build=SimulatedBuild(cuda=None, arch_list=()))
    )


def which_platform(rng: random.Random) -> list[tuple[SimulatedMachine, tuple[str, str]]]:
    """As ``PLATFORM_MACHINES``: 10 to 14 machines, each platform (cuda, rocm, xpu, mps, cpu) twice or more, of
    drawn GPUs, GPU counts and wheels, in a drawn order; the expected pair is ``platform(machine)``. An NVIDIA and
    an AMD server among them have the same number of GPUs; a CPU machine has a CUDA wheel and no driver."""
    kinds = ["cuda", "rocm", "xpu", "mps", "cpu", "cuda", "rocm", "xpu", "mps", "cpu-no-driver"]
    kinds += [rng.choice(("cuda", "rocm", "xpu", "mps", "cpu")) for _ in range(rng.randint(0, 4))]
    machines = [_platform_machine(rng, kind) for kind in kinds]
    # an NVIDIA and an AMD server with as many GPUs: the count does not tell the platform
    nvidia, amd = kinds.index("cuda"), kinds.index("rocm")
    machines[amd] = dataclasses.replace(machines[amd], cuda=machines[nvidia].cuda)
    rows = [(machine, platform(machine)) for machine in machines]
    return _out_of_public_order(rng, rows, [want for _, want in PLATFORM_MACHINES])


RULES = {"12.1": cuda_env, "12.2": gpu_has_kernels, "12.3": which_platform}
