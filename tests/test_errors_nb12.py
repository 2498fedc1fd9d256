"""The explainer knows every error and warning lesson 12 shows (issue 36, item 5), raised live by the installed torch.

PyTorch's start-up checks (torch.cuda._check_capability, _check_cubins) run as they are, with torch.cuda answering
for one simulated GPU (``course_utils.builds.torch_build_warnings``); ROCm's visibility error is raised by
torch.cuda._parse_visible_devices with torch.version.hip set. The wordings that differ by release are kept as text
with the release they were read in (torch/cuda/__init__.py of 2.7.1 cu126, 2.13.0 cpu and 2.14.1 cu130, and of the
2.8.0 to 2.12.0 CUDA wheels, whose first check differs: a range check to 2.10.0, a list from 2.11.0), and
"no kernel image" as the CUDA runtime words it (libcudart.so.12 of 2.7.1's cu126 wheel, libcudart.so.13 of
2.14.1's cu130 wheel), after torch's "CUDA error: " prefix.
Lesson: notebook 12 (which GPU, which build).
"""

from __future__ import annotations

import pytest

from course_utils.builds import torch_build_warnings, visible_indices
from course_utils.checks.nb12 import CU126, CU130
from course_utils.errors import explain_device_error

# (GPU, capability, arch list): what part 2 and its Deeper part show, and an old GPU on a new wheel
GPUS = [("NVIDIA GeForce RTX 5090", (12, 0), CU126), ("NVIDIA GeForce GTX 1080", (6, 1), CU130), ("Tesla K80", (3, 7), CU126)]


@pytest.mark.parametrize("name, capability, arch_list", GPUS, ids=[g[0] for g in GPUS])
def test_every_start_up_warning_of_this_release_is_explained(name, capability, arch_list):
    warned = torch_build_warnings(name, capability, arch_list)
    assert warned, "a GPU the wheel has no code for should be warned about"
    for message in warned:
        e = explain_device_error(message)
        assert e.is_device_error and (e.kind, e.devices) == ("gpu-architecture", ("cuda",)), f"{message}\n{e}"


def test_a_gpu_the_wheel_covers_gives_no_warning():
    assert torch_build_warnings("NVIDIA A10", (8, 6), CU126) == ()


def test_rocm_visibility_error_is_explained():
    with pytest.raises(RuntimeError) as raised:
        visible_indices(None, hip=True, ROCR_VISIBLE_DEVICES="0", HIP_VISIBLE_DEVICES="0,1")
    e = explain_device_error(str(raised.value))
    assert (e.kind, e.devices) == ("no-gpu-visible", ("cuda",)) and "ROCR_VISIBLE_DEVICES filters" in e.cause


# torch/cuda/__init__.py of 2.8.0, 2.9.1 and 2.10.0 (incompatible_gpu_warn), as warnings.warn prints it
RANGE = (
    "\n    Found GPU0 {gpu} which is of cuda capability {cc}.\n    Minimum and Maximum cuda capability supported by "
    "this version of PyTorch is\n    ({low}) - ({high})\n    "
)

WORDINGS = [
    (
        "CUDA error: no kernel image is available for execution on the device",
        "gpu-architecture",
        "libcudart.so.12 (2.7.1 cu126), libcudart.so.13 (2.14.1 cu130)",
    ),
    (
        "Found GPU0 NVIDIA GeForce RTX 5090 which is of compute capability (CC) 12.0.\nThe following list shows the CCs "
        "this version of PyTorch was built for and the hardware CCs it supports:",
        "gpu-architecture",
        "2.11.0 to 2.14.1: _warn_unsupported_code",
    ),
    (
        "Found GPU0 Tesla K80 which is of cuda capability 3.7.\n    PyTorch no longer supports this GPU because it is too "
        "old.\n    The minimum cuda capability supported by this library is 5.0.",
        "gpu-architecture",
        "2.7.1: _check_capability's old_gpu_warn",
    ),
    (
        RANGE.format(gpu="NVIDIA GeForce RTX 5090", cc="12.0", low="5.0", high="9.0"),
        "gpu-architecture",
        "2.8.0, 2.9.1, 2.10.0: _check_capability's incompatible_gpu_warn",
    ),
    (
        "\n    Please install PyTorch with a following CUDA\n    configurations:  12.8 12.9 following instructions at\n    "
        "https://pytorch.org/get-started/locally/\n",
        "gpu-architecture",
        "2.8.0, 2.9.1, 2.10.0: matched_cuda_warn",
    ),
    (
        "NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current PyTorch installation.",
        "gpu-architecture",
        "2.7.1 to 2.14.1: _check_cubins",
    ),
    ("HIP_VISIBLE_DEVICES contains more devices than ROCR_VISIBLE_DEVICES", "no-gpu-visible", "2.7.1 to 2.14.1: _parse_visible_devices"),
]


@pytest.mark.parametrize("message, kind, source", WORDINGS, ids=[w[0][:40] for w in WORDINGS])
def test_each_release_wording_is_explained(message, kind, source):
    e = explain_device_error(message)
    assert e.is_device_error and e.kind == kind and e.devices == ("cuda",), f"{source}: {e}"


def test_the_new_warning_names_the_gpu_and_its_capability():
    e = explain_device_error(WORDINGS[1][0])
    assert "NVIDIA GeForce RTX 5090" in e.cause and "12.0" in e.cause and "get_arch_list" in e.fix


@pytest.mark.parametrize(
    "gpu, cc, low, high, runs",
    [
        ("NVIDIA GB10", "12.1", "8.0", "12.0", True),  # DGX Spark on a cu128/cu130 build: users report it runs
        ("NVIDIA A10", "8.6", "8.0", "8.0", True),
        ("NVIDIA GeForce MX350", "6.1", "7.0", "12.0", False),
        ("NVIDIA GeForce RTX 5090", "12.0", "5.0", "9.0", False),
    ],
)
def test_the_range_warning_of_2_8_to_2_10_is_read_by_nvidias_rule(gpu, cc, low, high, runs):
    """That check compared numbers: a GPU of the newest entry's major version and a newer minor runs its code, and
    the explanation says the warning is a false alarm there, and that nothing runs elsewhere."""
    e = explain_device_error(RANGE.format(gpu=gpu, cc=cc, low=low, high=high))
    assert e.kind == "gpu-architecture" and gpu in e.cause and f"{low} to {high}" in e.cause, e
    assert ("false alarm" in e.cause) == runs and ("has no kernels" in e.cause) == (not runs), e
    assert ("Nothing needs fixing" in e.fix) == runs, e


def test_the_builds_the_range_check_names_become_index_urls():
    e = explain_device_error(WORDINGS[4][0])
    assert "12.8, 12.9" in e.cause and "https://download.pytorch.org/whl/cu129" in e.fix and "cu128 or cu129" in e.fix, e
