"""Plausible wrong answers to the exercises of notebook 12, listed in ``test_checks_wrong_answers.WRONG``.

Each is a mistake from public threads: a GPU picked by nvidia-smi's index while CUDA counts fastest
first, ``is_available()`` trusted on a wheel without the GPU's architecture, an exact sm_XY match only,
an AMD GPU read as "no CUDA" (torch.version.cuda is None on ROCm) or given a "hip" device, a wheel's
CUDA version read as a GPU.
Lesson: notebook 12 (which GPU, which build)."""

import torch

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
    return {"CUDA_DEVICE_ORDER": "PCI_BUS_ID",
            "CUDA_VISIBLE_DEVICES": next(r["index"] for r in rows if r["pci.bus_id"] == bus_id)}


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
