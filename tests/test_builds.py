"""course_utils.builds and the simulated wheel of checks.machines: the rules lesson 12 teaches, held here.

kernels_for is NVIDIA's compatibility rule as torch's own _check_cubins applies it (same major, older or equal
minor) plus PTX; visible_indices is torch's own parser and must leave the environment as it found it;
cuda_devices numbers GPUs as CUDA does under CUDA_DEVICE_ORDER; torch_build_warnings runs torch's start-up
checks and warns exactly when kernels_for finds nothing; a SimulatedBuild answers for torch.version and puts it back.
Lesson: notebook 12 (which GPU, which build).
"""

from __future__ import annotations

import os

import pytest
import torch
from torch.torch_version import TorchVersion

from course_utils.builds import WORKSTATION, Gpu, Server, cuda_devices, kernels_for, read_build, torch_build_warnings, visible_indices
from course_utils.checks.machines import SimulatedBuild, SimulatedMachine, simulated
from course_utils.checks.nb12 import CU126, CU130
from course_utils.errors import explain_device_error

RULES = [
    (CU126, (9, 0), "sm_90"),
    (CU126, (8, 9), "sm_86"),  # same major, the newest older minor the list holds
    (("sm_80",), (8, 6), "sm_80"),
    (("sm_86", "sm_90"), (8, 0), None),  # a newer minor does not run on an older GPU
    (CU126, (12, 0), None),  # nor across majors
    (CU130, (6, 1), None),
    (("sm_90a",), (9, 0), "sm_90a"),
    (("sm_90a",), (9, 1), None),  # an arch-specific entry runs on exactly its capability
    (("sm_80", "compute_80"), (12, 0), "compute_80"),  # PTX: the driver compiles it for newer GPUs
    (("compute_90",), (8, 9), None),
]


@pytest.mark.parametrize("arch_list, capability, want", RULES, ids=[f"{r[1]}-{r[2]}" for r in RULES])
def test_kernels_for_follows_nvidias_rule(arch_list, capability, want):
    assert kernels_for(arch_list, capability) == want


def test_a_rocm_target_is_refused_with_what_to_compare_instead():
    with pytest.raises(ValueError, match="gcnArchName"):
        kernels_for(["gfx90a"], (9, 0))


# 2.8.0 to 2.10.0: torch.cuda._check_capability warned for a GPU outside the lowest and highest entries of the list,
# comparing numbers, so also for one of the newest entry's major version and a newer minor, which runs that code
RANGE_CHECK = TorchVersion("2.8.0") <= TorchVersion(torch.__version__.split("+")[0]) < TorchVersion("2.11.0")


def _false_alarm(arch_list, capability) -> bool:
    """Whether this release's range check warns for a GPU whose code the list holds."""
    entries = [torch.cuda._extract_arch_version(a) for a in arch_list]  # as torch's range check reads them
    cc = capability[0] * 10 + capability[1]
    return RANGE_CHECK and kernels_for(arch_list, capability) is not None and not min(entries) <= cc <= max(entries)


@pytest.mark.parametrize("arch_list, capability, want", RULES[:6], ids=[f"{r[1]}" for r in RULES[:6]])
def test_torch_warns_exactly_when_no_entry_runs(arch_list, capability, want):
    """torch's own checks, run on this machine for a simulated GPU, agree with the rule the lesson teaches; on 2.8.0
    to 2.10.0 but for the range check's false alarm, which the explainer then names as one."""
    warned = torch_build_warnings("A GPU", capability, arch_list)
    if _false_alarm(arch_list, capability):
        assert "false alarm" in explain_device_error(warned[0]).cause, warned  # the range check's, first
        assert not any("is not compatible with the current PyTorch installation" in w for w in warned), warned
    else:
        assert bool(warned) == (want is None), warned


def test_the_warning_reads_as_a_cuda_wheel_of_this_release():
    warned = torch_build_warnings("NVIDIA GeForce RTX 5090", (12, 0), CU126)
    assert any("sm_120 is not compatible with the current PyTorch installation" in w for w in warned)
    assert torch.version.cuda == read_build().cuda  # put back
    # what lesson 12's Deeper part says of each release's first check: 2.7.1 warns only for a GPU too old; 2.8.0 to
    # 2.10.0 give the range and the CUDA versions whose builds fit; from 2.11.0 the list, from 2.13.0 with pip lines
    release = TorchVersion(torch.__version__.split("+")[0])
    if release < "2.8.0":
        assert not any("which is of" in w for w in warned), warned
    elif release < "2.11.0":
        assert any("which is of cuda capability 12.0" in w and "(5.0) - (9.0)" in w for w in warned), warned
        assert any("Please install PyTorch with a following CUDA" in w and "12.8" in w for w in warned), warned
    else:
        assert any("which is of compute capability (CC) 12.0" in w for w in warned), warned
        if release >= "2.13.0":
            assert any("+cu126 does not include kernels" in w for w in warned), warned


def test_read_build_matches_torch():
    build = read_build()
    assert (build.torch, build.cuda, build.hip) == (torch.__version__, torch.version.cuda, torch.version.hip)
    assert build.arch_list == tuple(torch.cuda.get_arch_list())
    assert build.platform == ("CUDA " + torch.version.cuda if torch.version.cuda else build.platform)


@pytest.mark.skipif(torch.version.cuda is None or torch.cuda.is_available(), reason="a CUDA wheel without a GPU")
def test_a_cuda_wheel_lists_its_architectures_without_a_gpu_from_2_13():
    """Lesson 12, part 1: 2.14.1 lists sm_75 ... sm_120 with no GPU; 2.7.1 answers [] until one is there."""
    listed = torch.cuda.get_arch_list()
    if TorchVersion(torch.__version__.split("+")[0]) >= "2.13.0":
        assert listed and all(a.startswith("sm_") for a in listed)
    else:
        assert listed == []


def test_visible_indices_is_torchs_parser_and_restores_the_environment(monkeypatch):
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "3")
    monkeypatch.delenv("HIP_VISIBLE_DEVICES", raising=False)
    assert visible_indices("1,0") == [1, 0]
    assert visible_indices("0,-1,2") == [0]
    assert visible_indices("0,0") == []
    assert visible_indices("GPU-8d2e,GPU-3f0c") == ["GPU-8d2e", "GPU-3f0c"]
    assert visible_indices(None) == list(range(64))
    assert visible_indices(None, hip=True, ROCR_VISIBLE_DEVICES="2,3", HIP_VISIBLE_DEVICES="1") == [1]
    assert os.environ["CUDA_VISIBLE_DEVICES"] == "3" and "HIP_VISIBLE_DEVICES" not in os.environ
    assert torch.version.hip is None or torch.version.hip == read_build().hip


def test_visible_indices_refuses_other_variables():
    with pytest.raises(ValueError, match="HIP_VISIBLE_DEVICES and ROCR_VISIBLE_DEVICES"):
        visible_indices("0", CUDA_DEVICE_ORDER="PCI_BUS_ID")


def _names(env):
    return [g.pci_bus_id[9:11] for g in cuda_devices(WORKSTATION, env)]


def test_cuda_numbers_fastest_first_unless_told_pci_order():
    assert _names({}) == ["21", "01", "41"]
    assert _names({"CUDA_DEVICE_ORDER": "PCI_BUS_ID"}) == ["01", "21", "41"]
    assert _names({"CUDA_VISIBLE_DEVICES": "1"}) == ["01"]  # nvidia-smi's 1 is not CUDA's 1
    assert _names({"CUDA_DEVICE_ORDER": "PCI_BUS_ID", "CUDA_VISIBLE_DEVICES": "1"}) == ["21"]
    assert _names({"CUDA_VISIBLE_DEVICES": "GPU-8d2e"}) == ["21"]  # a UUID prefix, whatever the order
    assert _names({"CUDA_VISIBLE_DEVICES": "2,5,0"}) == ["41"]  # stops at the first GPU past the last
    assert _names({"CUDA_VISIBLE_DEVICES": ""}) == []


def test_cuda_devices_refuses_what_it_cannot_number():
    with pytest.raises(ValueError, match="FASTEST_FIRST"):
        cuda_devices(WORKSTATION, {"CUDA_DEVICE_ORDER": "SLOWEST_FIRST"})
    with pytest.raises(ValueError, match="MIG"):
        cuda_devices(WORKSTATION, {"CUDA_VISIBLE_DEVICES": "MIG-5c1a9e2f"})
    with pytest.raises(ValueError, match="fastest_first"):
        Server("bad", (Gpu("A", "0:1", "GPU-1", (8, 0)),), fastest_first=(1,))


def test_a_simulated_build_answers_and_puts_torch_back():
    before = (torch.version.cuda, torch.version.hip, torch.cuda.get_arch_list())
    rocm = SimulatedMachine(
        "rocm",
        cuda=2,
        mps=False,
        build=SimulatedBuild(cuda=None, hip="6.4", arch_list=("gfx942",), gpu_name="AMD Instinct MI300X", capability=(9, 4)),
    )
    with simulated(rocm):
        assert (torch.version.cuda, torch.version.hip, torch.cuda.is_available()) == (None, "6.4", True)
        assert torch.cuda.get_device_capability(1) == (9, 4) and torch.cuda.get_device_name() == "AMD Instinct MI300X"
        with pytest.raises(RuntimeError, match="no cuda:2"):
            torch.cuda.get_device_capability(2)
    cpu = SimulatedMachine("cpu", cuda=0, mps=False, build=SimulatedBuild(cuda=None, arch_list=()))
    with simulated(cpu), pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
        torch.cuda.get_device_capability(0)
    assert (torch.version.cuda, torch.version.hip, torch.cuda.get_arch_list()) == before


@pytest.mark.skipif(torch.version.cuda is None or torch.cuda.is_available(), reason="a CUDA wheel without a GPU")
def test_a_cuda_wheel_names_cuda_as_its_accelerator_even_without_a_gpu():
    """Lesson 12, part 4: torch.accelerator names the wheel's accelerator; is_available() says whether it works."""
    assert torch.accelerator.current_accelerator() == torch.device("cuda")
    assert torch.accelerator.is_available() is False


@pytest.mark.skipif(torch.version.cuda is not None or torch.version.hip is not None, reason="a CPU-only wheel")
def test_a_cpu_wheel_names_no_accelerator():
    assert torch.accelerator.current_accelerator() is None and torch.cuda.get_arch_list() == []
