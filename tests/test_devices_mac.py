"""A Mac's GPU is a GPU (issue 27): preflight, the facts it reads and the checks' device choice, without a Mac.

Every Mac here is simulated: ``SimulatedMachine(...).facts(...)`` (course_utils.checks.machines) describes it as
``MachineFacts``, and ``simulated(...)`` makes torch's availability functions answer as it would.
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import pytest
import torch

import course_utils.machine as machine
import course_utils.readiness as readiness
from course_utils.checks._core import accelerator_targets, all_try_its, learner_accelerator
from course_utils.checks.machines import SimulatedMachine, simulated
from course_utils.evidence.sources import INTEL_MAC_NEWEST, MAC_FACTS
from course_utils.lessons import GpuCell, Lesson, course
from course_utils.machine import MachineFacts, collect_facts
from course_utils.readiness import preflight, runs_on_any_accelerator, skipped_cells

ROOT = Path(__file__).resolve().parents[1]
MAC = SimulatedMachine("a Mac with Apple silicon", cuda=0, mps=True)
NOT_AVAILABLE = {"mps_available": False, "accelerators": ()}
VM_WARNING = "Skipping device Apple Paravirtual device that does not support Metal 2.0"


def only(findings, severity):
    (finding,) = [f for f in findings if f.severity == severity]
    return finding


# ----------------------------------------------------------------- preflight on a Mac


def test_a_mac_with_mps_runs_the_any_accelerator_cells_on_mps_and_says_what_differs():
    p = preflight(MAC.facts())
    assert p.level == "mps" and p.accelerator == "mps" and p.gpu_count == 0 and not p.problems
    ok = only(p.findings, "ok")
    assert "run on `mps` for real" in ok.message and "CUDA-only cells" in ok.message
    assert "float64" in ok.message, "where MPS differs in a way a learner meets, preflight says so"
    assert "Kaggle" in ok.fix and "Colab" in ok.fix
    assert "Runs on mps for real:" in str(p) and "Runs on mps for real:" in p._repr_html_()


@pytest.mark.parametrize(
    "torch_version, macos, said, suggests_2_8",
    [
        ("2.13.0", "13.6.1", "The MPS backend is supported on macOS 14.0+.", True),
        ("2.9.1", "13.2", "The MPS backend is supported on MacOS 14.0+.", True),
        ("2.9.1", "12.7", "The MPS backend is supported on MacOS 14.0+.", False),
        ("2.8.0", "12.7", "The MPS backend is supported on MacOS 13.0+.", False),
    ],
)
def test_a_mac_too_old_for_this_torch_gets_pytorchs_own_words_and_the_way_out(torch_version, macos, said, suggests_2_8):
    p = preflight(MAC.facts(torch_version=torch_version, macos_version=macos, **NOT_AVAILABLE))
    assert p.level == "cpu-only" and p.accelerator is None
    problem = only(p.findings, "problem")
    need = "13.0" if torch_version == "2.8.0" else "14.0"
    assert f"needs macOS {need} or later" in problem.message and f"runs macOS {macos}" in problem.message
    assert f'"{said}"' in problem.message
    assert "Software Update" in problem.fix
    assert ("torch==2.8.0" in problem.fix) is suggests_2_8


def test_the_words_preflight_quotes_are_the_recorded_ones():
    recorded = {q.pieces[0].strip() for q in MAC_FACTS["mps-macos-version"].quotes}
    for version in ("2.7.1", "2.10.0", "2.14.1"):
        problem = only(preflight(MAC.facts(torch_version=version, macos_version="11.0", **NOT_AVAILABLE)).findings, "problem")
        (quoted,) = re.findall(r'raises "([^"]+)"', problem.message)
        assert quoted in recorded


def test_a_mac_in_a_virtual_machine_names_it_and_shows_torchs_warning():
    facts = MAC.facts(virtual_machine=True, mps_warning=VM_WARNING, **NOT_AVAILABLE)
    problem = only(preflight(facts).findings, "problem")
    assert "virtual machine" in problem.message and VM_WARNING in problem.message
    assert "on the Mac itself" in problem.fix


def test_mps_unavailable_for_no_reason_preflight_knows_still_says_what_to_check():
    problem = only(preflight(MAC.facts(**NOT_AVAILABLE)).findings, "problem")
    assert "is_available() is False" in problem.message and "macOS 15.1" in problem.message
    assert "M-series" in problem.fix and "virtual machine" in problem.fix


def test_an_intel_mac_is_told_that_no_tested_torch_exists_for_it():
    facts = MAC.facts(machine="x86_64", torch_version=INTEL_MAC_NEWEST, mps_built=False, **NOT_AVAILABLE)
    p = preflight(facts)
    intel, too_old = (f for f in p.findings if f.severity == "problem")
    assert "Intel Mac" in intel.message and INTEL_MAC_NEWEST in intel.message and "Colab" in intel.fix
    assert "older than" in too_old.message
    assert p.level == "cpu-only"


def test_an_intel_python_under_rosetta_is_told_to_install_an_arm64_python():
    facts = MAC.facts(machine="x86_64", rosetta=True, mps_built=False, **NOT_AVAILABLE)
    problem = only(preflight(facts).findings, "problem")
    assert "Rosetta" in problem.message and "arm64" in problem.fix


def test_a_mac_torch_built_without_mps_says_to_install_the_ordinary_wheel():
    note = only(preflight(MAC.facts(mps_built=False, **NOT_AVAILABLE)).findings, "note")
    assert "built without MPS" in note.message and "pip install" in note.fix


def test_a_linux_laptop_gets_no_mac_finding():
    laptop = SimulatedMachine("a laptop", cuda=0, mps=False).facts(system="Linux", machine="x86_64")
    p = preflight(laptop)
    assert p.level == "cpu-only" and not p.problems
    assert not any("Mac" in f.message or "MPS" in f.message for f in p.findings)


def test_a_gpu_server_is_not_asked_about_macs():
    p = preflight(SimulatedMachine("a GPU server", cuda=2, mps=False).facts())
    assert p.level == "multi-gpu" and p.accelerator is None and "Runs on" not in str(p)


# ----------------------------------------------------------------- which lessons run for real on MPS


def MarkedCell(key, gpus, what, part, deeper, any_accelerator=False):  # noqa: N802 - reads as the cell it makes
    return GpuCell(key, gpus, what, part, deeper, needs="accelerator" if any_accelerator else "cuda")


def _lesson(number, *cells):
    return Lesson(number, "t", f"notebooks/{number}_t.ipynb", (), tuple(cells))


def test_cells_for_any_accelerator_run_on_mps_and_cuda_only_cells_skip(monkeypatch):
    generic = MarkedCell("02-a", 1, "a tensor on the accelerator", "1", False, any_accelerator=True)
    cuda_only = MarkedCell("02-b", 1, "the current CUDA device", "2", False)
    two = MarkedCell("02-c", 2, "two devices", "3", True, any_accelerator=True)
    lessons = (_lesson("02", generic, cuda_only, two), _lesson("03", generic))
    monkeypatch.setattr(readiness, "_lessons", lambda: lessons)
    assert skipped_cells(lessons[0], 0, "mps") == (cuda_only, two), "a two-device cell needs two devices, even on a Mac"
    assert skipped_cells(lessons[0], 0, None) == (generic, cuda_only, two)
    mac = preflight(MAC.facts())
    assert mac.accelerator_notebooks == ("02 t (1 cell)", "03 t (1 cell)")
    assert mac.full_notebooks == ("03 t",)
    assert mac.partial_notebooks == ("02 t (2 of 3 GPU-only cells)",)
    laptop = preflight(SimulatedMachine("a laptop", cuda=0, mps=False).facts(system="Linux"))
    assert laptop.full_notebooks == () and laptop.accelerator_notebooks == ()


def test_the_lessons_any_accelerator_cells_are_the_ones_a_mac_runs():
    cells = [c for lesson in course() for c in lesson.cells]
    marked = [c for c in cells if runs_on_any_accelerator(c)]
    assert marked, "the lessons mark cells with needs_accelerator(...): a Mac runs them"
    assert all(c.needs == "accelerator" for c in marked)
    p = preflight(MAC.facts())
    assert len(p.accelerator_notebooks) == len({c.key[:2] for c in marked})
    assert "Runs on mps for real: none yet" not in str(p)


# ----------------------------------------------------------------- collect_facts on a (simulated) Mac


def test_collect_facts_reads_a_mac_its_version_and_why_mps_is_unavailable(monkeypatch):
    def unavailable():
        warnings.warn(VM_WARNING, UserWarning, stacklevel=1)
        return False

    monkeypatch.setattr(machine.platform, "system", lambda: "Darwin")
    monkeypatch.setattr(machine.platform, "machine", lambda: "arm64")
    monkeypatch.setattr(machine.platform, "mac_ver", lambda: ("14.4.1", ("", "", ""), "arm64"))
    monkeypatch.setattr(machine, "_sysctl", {"kern.hv_vmm_present": "1", "sysctl.proc_translated": "0"}.get)
    monkeypatch.setattr(torch.backends.mps, "is_built", lambda: True)
    monkeypatch.setattr(torch.backends.mps, "is_available", unavailable)
    facts = collect_facts()
    assert (facts.system, facts.machine, facts.macos_version) == ("Darwin", "arm64", "14.4.1")
    assert facts.mps_built and not facts.mps_available and facts.virtual_machine and not facts.rosetta
    assert facts.mps_warning == VM_WARNING
    assert "virtual machine" in only(preflight(facts).findings, "problem").message


def test_collect_facts_lists_a_usable_mps_device(monkeypatch):
    monkeypatch.setattr(torch.backends.mps, "is_built", lambda: True)
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: True)
    # asking Metal for the name where no GPU is usable is not safe: the stand-in answers (2.9.1+ have get_name)
    monkeypatch.setattr(torch.backends.mps, "get_name", lambda: "Apple M2", raising=False)
    facts = collect_facts()
    assert facts.mps_available and [a.device for a in facts.accelerators if a.kind == "mps"] == ["mps"]
    assert [a.name for a in facts.accelerators if a.kind == "mps"] == ["Apple M2 (Metal)"]
    assert facts.mps_warning is None


def test_collect_facts_off_a_mac_asks_no_mac_questions(monkeypatch):
    monkeypatch.setattr(machine.platform, "system", lambda: "Linux")
    monkeypatch.setattr(machine, "_sysctl", lambda name: pytest.fail(f"asked sysctl {name} off a Mac"))
    facts = collect_facts()
    assert facts.macos_version is None and not facts.virtual_machine and not facts.rosetta


def test_sysctl_answers_none_when_it_cannot_tell():
    assert machine._sysctl("no.such.sysctl.name.course") is None


def test_macos_versions_compare_as_numbers():
    assert readiness._macos_tuple("13.6.1") == (13, 6) < (14, 0) <= readiness._macos_tuple("14") == (14, 0)
    assert readiness._macos_tuple("15.10") > readiness._macos_tuple("15.9")


def test_facts_without_a_mac_field_are_what_they_were():
    facts = MachineFacts(torch_version="2.13.0+cpu", cuda_build=None)
    assert facts.macos_version is None and facts.mps_warning is None and not facts.virtual_machine


# ----------------------------------------------------------------- checks run the answer on the learner's accelerator


@pytest.mark.parametrize(
    "machine, expected",
    [
        (SimulatedMachine("a GPU server", cuda=2, mps=False), "cuda:0"),
        (MAC, "mps:0"),
        (SimulatedMachine("a PC with an Intel GPU", cuda=0, mps=False, xpu=True), "xpu:0"),
        (SimulatedMachine("a laptop", cuda=0, mps=False), None),
    ],
)
def test_checks_add_the_learners_own_accelerator(machine, expected):
    with simulated(machine):
        assert learner_accelerator() == expected
        assert accelerator_targets() == ([expected] if expected else [])


# Where a check may ask torch.cuda alone: notebooks 01 and 04 are about torch.cuda itself (its simulated machines,
# the current CUDA device), and pinned memory is CUDA's; a CPU matmul needs no synchronize of any device.
CUDA_ONLY_FILES = ("nb01.py", "nb04.py")
CUDA_ONLY_LINES = ("pin_memory", "synchronize")


def cuda_only_choices(text: str) -> list[str]:
    """The lines of a check module that decide by torch.cuda.is_available() alone, outside CUDA's own topics."""
    return [
        line.strip()
        for line in text.splitlines()
        if "torch.cuda.is_available()" in line
        and not any(word in line for word in CUDA_ONLY_LINES)
        and not line.lstrip("( ").startswith(('"', "'"))
    ]  # PyTorch's own message, quoted


def test_no_check_chooses_its_devices_by_asking_cuda_alone():
    """A check that adds cuda:0 only when CUDA is there skips a Mac's GPU: accelerator_targets() adds it."""
    offenders = [
        f"{path.name}: {line}"
        for path in sorted((ROOT / "src/course_utils/checks").glob("nb*.py"))
        if path.name not in CUDA_ONLY_FILES
        for line in cuda_only_choices(path.read_text(encoding="utf-8"))
    ]
    assert not offenders, "use accelerator_targets() from checks._core instead:\n" + "\n".join(offenders)


def test_the_rule_catches_the_old_pattern():
    assert cuda_only_choices('    return ["meta"] + (["cuda:0"] if torch.cuda.is_available() else [])')
    assert not cuda_only_choices('    options = {"pin_memory": torch.cuda.is_available()}')
    assert not cuda_only_choices('    return ["meta"] + accelerator_targets()')
    assert not cuda_only_choices('    ("Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is False."')


@pytest.mark.skipif(learner_accelerator() is None, reason="needs an accelerator (CUDA, MPS or XPU): macos.yml, gpu.yml")
def test_a_try_it_runs_the_answer_on_the_learners_accelerator_too():
    """On a real accelerator the answer meets it as a third device (macos.yml runs this where MPS works).

    (On a machine without one the checks' guard refuses a stand-in for learner_accelerator, rightly: the
    Linux tests above check the choice under simulation, and that every check module asks for it.)"""
    seen = []

    def ones_beside(x):
        seen.append(str(x.device))
        return torch.ones(3, device=x.device)

    message = all_try_its()["02.a"].checker(ones_beside)
    assert seen == ["cpu", "meta", learner_accelerator()], seen
    assert learner_accelerator() in message


def test_collect_facts_tells_rosetta_from_an_intel_mac(monkeypatch):
    monkeypatch.setattr(machine.platform, "system", lambda: "Darwin")
    monkeypatch.setattr(machine.platform, "machine", lambda: "x86_64")
    for translated, rosetta in (("1", True), ("0", False), (None, False)):
        monkeypatch.setattr(machine, "_sysctl", {"sysctl.proc_translated": translated}.get)
        facts = collect_facts()
        assert facts.machine == "x86_64" and facts.rosetta is rosetta
        assert ("Rosetta" in str(preflight(facts))) is rosetta
