"""The explainer knows every error and warning lesson 12 shows (issue 36, item 5), raised live by the installed torch.

PyTorch's start-up checks (torch.cuda._check_capability, _check_cubins) run as they are, with torch.cuda answering
for one simulated GPU (``course_utils.builds.torch_build_warnings``); ROCm's visibility error is raised by
torch.cuda._parse_visible_devices with torch.version.hip set. The wordings that differ by release are kept as text
with the release they were read in (torch/cuda/__init__.py of 2.7.1 cu126, 2.13.0 cpu and 2.14.1 cu130), and
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
GPUS = [("NVIDIA GeForce RTX 5090", (12, 0), CU126), ("NVIDIA GeForce GTX 1080", (6, 1), CU130),
        ("Tesla K80", (3, 7), CU126)]


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


WORDINGS = [
    ("CUDA error: no kernel image is available for execution on the device", "gpu-architecture",
     "libcudart.so.12 (2.7.1 cu126), libcudart.so.13 (2.14.1 cu130)"),
    ("Found GPU0 NVIDIA GeForce RTX 5090 which is of compute capability (CC) 12.0.\nThe following list shows the CCs "
     "this version of PyTorch was built for and the hardware CCs it supports:", "gpu-architecture",
     "2.13.0, 2.14.1: _warn_unsupported_code"),
    ("Found GPU0 Tesla K80 which is of cuda capability 3.7.\n    PyTorch no longer supports this GPU because it is too "
     "old.\n    The minimum cuda capability supported by this library is 5.0.", "gpu-architecture",
     "2.7.1: _check_capability's old_gpu_warn"),
    ("NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current PyTorch installation.",
     "gpu-architecture", "2.7.1, 2.13.0, 2.14.1: _check_cubins"),
    ("HIP_VISIBLE_DEVICES contains more devices than ROCR_VISIBLE_DEVICES", "no-gpu-visible",
     "2.7.1, 2.13.0, 2.14.1: _parse_visible_devices"),
]


@pytest.mark.parametrize("message, kind, source", WORDINGS, ids=[w[0][:40] for w in WORDINGS])
def test_each_release_wording_is_explained(message, kind, source):
    e = explain_device_error(message)
    assert e.is_device_error and e.kind == kind and e.devices == ("cuda",), f"{source}: {e}"


def test_the_new_warning_names_the_gpu_and_its_capability():
    e = explain_device_error(WORDINGS[1][0])
    assert "NVIDIA GeForce RTX 5090" in e.cause and "12.0" in e.cause and "get_arch_list" in e.fix
