"""Plausible wrong answers to the exercises of notebook 12, listed in ``test_checks_wrong_answers.WRONG``.

Each is a mistake from public threads: a GPU picked by nvidia-smi's index while CUDA counts fastest
first, ``is_available()`` trusted on a wheel without the GPU's architecture, an exact sm_XY match only,
an AMD GPU read as "no CUDA" (torch.version.cuda is None on ROCm) or given a "hip" device, a wheel's
CUDA version read as a GPU.
Lesson: notebook 12 (which GPU, which build)."""

import torch
from try_it_support import Case

from course_utils.builds import kernels_for

# ----------------------------------------------------------------------------- 12.1


def env_smi_index(rows, bus_id):
    """nvidia-smi's index in CUDA_VISIBLE_DEVICES, CUDA's default order left as it is."""
    return {"CUDA_VISIBLE_DEVICES": str(next(r["index"] for r in rows if r["pci.bus_id"] == bus_id))}


def env_order_only(rows, bus_id):
    """Sets the order but forgets to hide the other GPUs."""
    return {"CUDA_DEVICE_ORDER": "PCI_BUS_ID"}


def env_int_value(rows, bus_id):
    """An int where the environment holds only strings."""
    return {"CUDA_DEVICE_ORDER": "PCI_BUS_ID", "CUDA_VISIBLE_DEVICES": next(r["index"] for r in rows if r["pci.bus_id"] == bus_id)}


# ----------------------------------------------------------------------------- 12.2


def kernels_is_available():
    """Trusts is_available(): the driver sees a GPU, so the wheel must run on it."""
    return torch.cuda.is_available()


def _capability_and_list():
    return torch.cuda.get_device_capability(0), torch.cuda.get_arch_list()


def kernels_exact_match():
    """Looks for the GPU's own sm_XY only."""
    if not torch.cuda.is_available():
        return False
    (major, minor), arch_list = _capability_and_list()
    return f"sm_{major}{minor}" in arch_list


def kernels_same_major():
    """Any entry of the same major, whatever its minor."""
    if not torch.cuda.is_available():
        return False
    (major, _), arch_list = _capability_and_list()
    return any(a.startswith(f"sm_{major}") and len(a) == len(f"sm_{major}") + 1 for a in arch_list)


def kernels_no_availability_check():
    """The right rule, but asks the GPU before asking whether there is one."""
    capability, arch_list = _capability_and_list()
    return kernels_for(arch_list, capability) is not None


# ----------------------------------------------------------------------------- 12.3


def platform_by_version_cuda():
    """Reads torch.version.cuda: None on ROCm, so an AMD server looks like a CPU laptop."""
    if torch.version.cuda and torch.cuda.is_available():
        return ("cuda", "cuda")
    if torch.backends.mps.is_available():
        return ("mps", "mps")
    if hasattr(torch, "xpu") and torch.xpu.is_available():
        return ("xpu", "xpu")
    return ("cpu", "cpu")


def platform_hip_device():
    """Knows ROCm, but gives it a 'hip' device."""
    if torch.cuda.is_available():
        return ("rocm", "hip") if torch.version.hip else ("cuda", "cuda")
    if torch.backends.mps.is_available():
        return ("mps", "mps")
    if hasattr(torch, "xpu") and torch.xpu.is_available():
        return ("xpu", "xpu")
    return ("cpu", "cpu")


def platform_wheel_is_gpu():
    """Takes the wheel's CUDA version for a GPU."""
    if torch.version.hip:
        return ("rocm", "cuda")
    if torch.version.cuda:
        return ("cuda", "cuda")
    if torch.backends.mps.is_available():
        return ("mps", "mps")
    if hasattr(torch, "xpu") and torch.xpu.is_available():
        return ("xpu", "xpu")
    return ("cpu", "cpu")


def _archs():
    for arch in torch.cuda.get_arch_list():
        kind, _, number = arch.partition("_")
        number = number.rstrip("af")
        yield kind, int(number[:-1]), int(number[-1])


def kernels_ignores_ptx():
    """Reads only the sm_ entries: PTX (compute_XY), which the driver compiles for newer GPUs, is left out."""
    if not torch.cuda.is_available():
        return False
    major, minor = torch.cuda.get_device_capability(0)
    return any(kind == "sm" and m == major and n <= minor for kind, m, n in _archs())


def kernels_ptx_like_sm():
    """Treats PTX like a cubin (same major only): compute_80 is said not to run on a 9.0 GPU."""
    if not torch.cuda.is_available():
        return False
    major, minor = torch.cuda.get_device_capability(0)
    return any(m == major and n <= minor for _, m, n in _archs())


def kernels_one_digit_major():
    """Parses 'sm_XY' as major X, minor Y from the first two digits: sm_120 reads as 1.20."""
    if not torch.cuda.is_available():
        return False
    major, minor = torch.cuda.get_device_capability(0)
    for arch in torch.cuda.get_arch_list():
        number = arch.partition("_")[2]
        if int(number[0]) == major and int(number[1:].rstrip("af")) <= minor:
            return True
    return False


# (exercise id, wrong answer, a phrase its feedback must hold): tests/test_checks_wrong_answers.py runs them
def kernels_compared_as_text():
    """Compares the entries' numbers and the capability as text: "100" <= "90" and not "90" <= "120". It passed:
    the machines every run asks had no PTX whose number has another count of digits than the GPU's."""
    if not torch.cuda.is_available():
        return False
    major, minor = torch.cuda.get_device_capability(0)
    mine = f"{major}{minor}"
    for arch in torch.cuda.get_arch_list():
        kind, _, number = arch.partition("_")
        if kind == "sm" and number[:-1] == str(major) and number[-1] <= str(minor):
            return True
        if kind == "compute" and number <= mine:
            return True
    return False


WRONG = [
    ("12.2", kernels_compared_as_text, "comparing the numbers as text"),
    ("12.2", kernels_ignores_ptx, "compute_80"),
    ("12.2", kernels_ptx_like_sm, "compute_80"),
    ("12.2", kernels_one_digit_major, "returned False"),
    ("12.1", env_smi_index, "FASTEST_FIRST"),
    ("12.1", env_order_only, "leaves CUDA_VISIBLE_DEVICES unset"),
    ("12.1", env_int_value, "names and values both str"),
    ("12.2", kernels_is_available, "no kernel image"),
    ("12.2", kernels_exact_match, "same major X with a minor of Y or more"),
    ("12.2", kernels_same_major, "compare get_device_capability() with get_arch_list()"),
    ("12.2", kernels_no_availability_check, "raised AssertionError"),
    ("12.3", platform_by_version_cuda, "AMD GPUs answer to torch.cuda"),
    ("12.3", platform_hip_device, "device string is still 'cuda'"),
    ("12.3", platform_wheel_is_gpu, "not a GPU"),
]


# ----------------------------------------------------------------------------- try-its

HAS_KERNELS = "def has_kernels(arch_list, capability):\n{body}\n"
RIGHT = """    major, minor = capability
    for arch in arch_list:
        kind, _, number = arch.partition("_")
        built = (int(number[:-1]), int(number[-1]))
        if kind == "sm" and built[0] == major and built[1] <= minor:
            return True
        if kind == "compute" and built <= (major, minor):
            return True
    return False"""
EXACT = '    return f"sm_{capability[0]}{capability[1]}" in arch_list'
NO_PTX = """    return any(a.startswith("sm_") and int(a[3:-1]) == capability[0] and int(a[-1]) <= capability[1]
               for a in arch_list)"""
# PTX read as running on any GPU, or on any GPU of its major or newer: the cases' only PTX entry was older than its GPU
ANY_PTX = """    major, minor = capability
    for arch in arch_list:
        kind, _, number = arch.partition("_")
        if kind == "compute":
            return True
        if int(number[:-1]) == major and int(number[-1]) <= minor:
            return True
    return False"""
PTX_BY_MAJOR = ANY_PTX.replace('kind == "compute":', 'kind == "compute" and int(number[:-1]) <= major:')
# sm_XY and compute_XY compared as text: "100" sorts before "90"
AS_TEXT = """    major, minor = capability
    sm = [a[3:] for a in arch_list if a.startswith("sm_")]
    ptx = [a[8:] for a in arch_list if a.startswith("compute_")]
    return any(n[:-1] == str(major) and n <= f"{major}{minor}" for n in sm) or any(n <= f"{major}{minor}" for n in ptx)"""
ANY_MAJOR_UP = """    return any(int(a.split("_")[1][:-1]) <= capability[0] for a in arch_list)"""

TRY_ITS = [
    Case("12.a", HAS_KERNELS.format(body=RIGHT), "pass"),
    Case("12.a", HAS_KERNELS.format(body=EXACT), "fail", "older minor of the same major"),
    Case("12.a", HAS_KERNELS.format(body=NO_PTX), "fail", "PTX"),
    Case("12.a", HAS_KERNELS.format(body=ANY_MAJOR_UP), "fail", "do not run across majors"),
    Case("12.a", HAS_KERNELS.format(body="    return 'yes'"), "fail", "expected True or False"),
    Case("12.a", HAS_KERNELS.format(body=ANY_PTX), "fail", "never down for an older one"),
    Case("12.a", HAS_KERNELS.format(body=PTX_BY_MAJOR), "fail", "never down for an older one"),
    Case("12.a", HAS_KERNELS.format(body=AS_TEXT), "fail", "compute_100 is PTX for 10.0 and newer"),
    Case("12.b", "env = {'CUDA_DEVICE_ORDER': 'PCI_BUS_ID', 'CUDA_VISIBLE_DEVICES': '1'}", "pass"),
    Case("12.b", "env = {'CUDA_VISIBLE_DEVICES': 'GPU-8d2e41b7'}", "pass"),
    Case("12.b", "env = {'CUDA_VISIBLE_DEVICES': '1'}", "fail", "FASTEST_FIRST"),
    Case("12.b", "env = {'CUDA_DEVICE_ORDER': 'PCI_BUS_ID', 'CUDA_VISIBLE_DEVICES': '0'}", "fail", "only the"),
    Case("12.b", "env = {'CUDA_DEVICE_ORDER': 'PCI_BUS_ID', 'CUDA_VISIBLE_DEVICES': 1}", "fail", "both str"),
    Case("12.b", "env = {'CUDA_DEVICE_ORDER': 'PCI_BUS_ID'}", "fail", "unset"),
]
