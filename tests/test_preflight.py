"""preflight's findings as rows (issue 32): each simulated machine gets exactly the rows meant for it, every row is
reached by some machine, and every template names a value the engine can fill."""

import string
from dataclasses import fields, replace

import pytest

from course_utils.machine import GIB, AcceleratorInfo, MachineFacts
from course_utils.readiness import FINDINGS, WORDS, Advice, findings, preflight, unknown_conditions


def gpus(count):
    return tuple(AcceleratorInfo(i, "cuda", "NVIDIA H100 80GB HBM3", (9, 0), 80 * GIB, 70 * GIB, 132) for i in range(count))


def cuda(count, **changes):
    base = MachineFacts(
        torch_version="2.11.0+cu126",
        cuda_build="12.6",
        cuda_available=count > 0,
        accelerators=gpus(count),
        current_cuda_index=0 if count else None,
        nvidia_driver_present=True,
        system="Linux",
        machine="x86_64",
    )
    return replace(base, **changes)


CPU = MachineFacts(torch_version="2.13.0+cpu", cuda_build=None, system="Linux", machine="x86_64")
MAC = MachineFacts(torch_version="2.13.0", cuda_build=None, mps_built=True, system="Darwin", machine="arm64", macos_version="14.5")

XPU = MachineFacts(
    torch_version="2.13.0+xpu",
    cuda_build=None,
    accelerators=(AcceleratorInfo(0, "xpu", "Intel(R) Arc(TM) A770 Graphics"),),
    current_xpu_index=0,
    built_accelerator="xpu",
    system="Linux",
    machine="x86_64",
)

# Each simulated machine and the ids of the rows it must get, in order.
MACHINES = {
    "cpu only": (CPU, ["cpu-only"]),
    "one GPU": (cuda(1), ["one-gpu"]),
    "one GPU on Colab": (cuda(1, in_colab=True), ["one-gpu-colab"]),
    "one GPU on Kaggle": (cuda(1, in_kaggle=True), ["one-gpu-kaggle"]),
    "four GPUs, some hidden": (cuda(4, cuda_visible_devices="0,1,2,3"), ["several-gpus", "cuda-visible-devices"]),
    "Colab without a GPU": (cuda(0, in_colab=True, nvidia_driver_present=False), ["colab-without-gpu"]),
    "Kaggle without a GPU": (cuda(0, in_kaggle=True, nvidia_driver_present=False), ["kaggle-without-gpu"]),
    "CUDA build without a driver": (cuda(0, nvidia_driver_present=False, built_accelerator="cuda"), ["cuda-build-without-driver", "cpu-only"]),
    "CUDA build, driver, no GPU": (cuda(0, cuda_visible_devices=""), ["driver-but-no-gpu", "cuda-visible-devices"]),
    "CUDA that fails to start": (
        cuda(0, cuda_error="RuntimeError: boom", nvidia_driver_present=False),
        ["cuda-error", "cuda-build-without-driver"],
    ),
    "CPU build on a GPU machine": (replace(CPU, nvidia_driver_present=True), ["cpu-build-on-gpu-machine"]),
    "torch older than tested": (replace(CPU, torch_version="2.6.0+cpu"), ["cpu-only", "torch-too-old"]),
    "torch newer than tested": (replace(CPU, torch_version="2.15.0"), ["cpu-only", "torch-newer-than-tested"]),
    "Mac with MPS": (replace(MAC, mps_available=True, accelerators=(AcceleratorInfo(0, "mps", "Apple M2 (Metal)"),)), ["mps"]),
    "Mac on macOS 13": (replace(MAC, macos_version="13.6"), ["mac-too-old-for-mps-older-torch"]),
    "Mac on macOS 12": (replace(MAC, macos_version="12.7"), ["mac-too-old-for-mps"]),
    "Mac in a virtual machine": (replace(MAC, virtual_machine=True), ["mac-virtual-machine"]),
    "Mac, MPS unavailable": (MAC, ["mps-unavailable"]),
    "Mac, torch without MPS": (replace(MAC, mps_built=False), ["mac-torch-without-mps"]),
    "Intel GPU (XPU build)": (XPU, ["xpu"]),
    "Intel Mac": (replace(MAC, mps_built=False, machine="x86_64", torch_version="2.2.2"), ["mac-intel", "torch-too-old"]),
    "Rosetta on Apple silicon": (
        replace(MAC, mps_built=False, machine="x86_64", rosetta=True, torch_version="2.2.2"),
        ["mac-rosetta", "torch-too-old"],
    ),
}


@pytest.mark.parametrize("name", MACHINES)
def test_each_machine_gets_its_findings(name):
    facts, expected = MACHINES[name]
    assert [f.id for f in preflight(facts).findings] == expected


def test_every_row_is_reached_by_a_simulated_machine():
    reached = {f.id for facts, _ in MACHINES.values() for f in findings(facts)}
    assert reached == {row.id for row in FINDINGS}, "a row no machine reaches is dead, or lacks its test"
    assert len({row.id for row in FINDINGS}) == len(FINDINGS), "row ids are unique"


def test_every_template_names_a_fact_or_a_word():
    known = {fld.name for fld in fields(MachineFacts)} | set(WORDS)
    for row in FINDINGS:
        named = {name for text in (row.message, row.fix) for _, name, _, _ in string.Formatter().parse(text) if name}
        assert named <= known, f"{row.id} names {named - known}"
        assert row.severity in ("ok", "note", "problem"), row.id


def test_the_templates_are_filled_from_the_facts():
    text = str(preflight(cuda(0, nvidia_driver_present=False, cuda_init_error="RuntimeError: Found no NVIDIA driver")))
    assert "CUDA 12.6 build" in text and "raises RuntimeError: Found no NVIDIA driver;" in text and "{" not in text
    text = str(preflight(replace(CPU, torch_version="2.6.0+cpu")))
    assert "torch 2.6.0+cpu is older than 2.7.1" in text and "pip install 'torch>=2.7.1'" in text


def test_an_all_clear_is_not_said_after_a_problem():
    """Colab without a GPU is a problem; the CPU-only all-clear would contradict it."""
    ids = [f.id for f in preflight(cuda(0, in_colab=True, nvidia_driver_present=False)).findings]
    assert "cpu-only" not in ids


def test_a_new_row_is_read_by_the_engine():
    """A finding is data: a row the engine has never seen works without new code, and a bad template name is clear."""
    row = Advice("big-cpu", "big", ("no_gpu", "not macos"), "note", "torch {torch_version} on {system}", "None.")
    assert findings(CPU, (row,))[0].message == "torch 2.13.0+cpu on Linux"
    assert findings(CPU, (Advice("mac-only", "big", ("macos",), "note", "on a Mac"),)) == ()
    bad = Advice("bad", "bad", (), "note", "{no_such_value}")
    with pytest.raises(KeyError, match="no_such_value.*neither a MachineFacts field nor in WORDS"):
        findings(CPU, (bad,))


def test_a_misspelt_condition_is_named_not_silently_false():
    """A row whose condition names nothing in CONDITIONS would never apply; the check at import names it."""
    typo = Advice("typo", "t", ("no_gpu", "not cuda_buidl"), "note", "x")
    assert unknown_conditions((typo,)) == ["typo: 'not cuda_buidl'"]
    assert unknown_conditions(FINDINGS) == []
    with pytest.raises(KeyError):
        findings(CPU, (typo,))


def test_the_headline_counts_gpus_in_words_that_agree():
    assert "(1 CUDA GPU)</p>" in preflight(cuda(1))._repr_html_() and "(0 CUDA GPUs)</p>" in preflight(CPU)._repr_html_()
    assert str(preflight(cuda(1))).startswith("This machine: one-gpu (1 CUDA GPU)\n")


def test_an_xpu_machine_runs_the_any_accelerator_cells_on_xpu():
    """An Intel GPU is an accelerator for every needs_accelerator cell, not a CPU-only machine."""
    report = preflight(XPU)
    assert (report.level, report.accelerator, report.gpu_count) == ("xpu", "xpu", 0)
    assert "Intel(R) Arc(TM) A770 Graphics" in report.findings[0].message
