"""devices: the report, the choice and the preflight, on machines described as plain data."""

import importlib.metadata
import os
import sys
from dataclasses import FrozenInstanceError, replace
from pathlib import Path

import pytest
import torch
from torch.torch_version import TorchVersion

from course_utils.devices import check_device, choose_device, usable_accelerator
from course_utils.gates import needs_accelerator, needs_cuda, needs_package
from course_utils.lessons import course
from course_utils.machine import GIB, AcceleratorInfo, MachineFacts, collect_facts
from course_utils.machine_report import DeviceReport, device_report
from course_utils.readiness import TESTED_TORCH, preflight

ROOT = Path(__file__).resolve().parents[1]
CPU_LAPTOP = MachineFacts(torch_version="2.13.0+cpu", cuda_build=None)


def gpus(count, name="NVIDIA H100 80GB HBM3"):
    return tuple(AcceleratorInfo(i, "cuda", name, (9, 0), 80 * GIB, 70 * GIB, 132) for i in range(count))


def cuda_machine(count, **changes):
    base = MachineFacts(
        torch_version="2.11.0+cu126",
        cuda_build="12.6",
        cuda_available=count > 0,
        accelerators=gpus(count),
        current_cuda_index=0 if count else None,
        nvidia_driver_present=True,
    )
    return replace(base, **changes)


APPLE = MachineFacts(
    torch_version="2.13.0",
    cuda_build=None,
    mps_built=True,
    mps_available=True,
    accelerators=(AcceleratorInfo(0, "mps", "Apple GPU (Metal)"),),
)


# ----------------------------------------------------------------- report


def test_report_lists_every_gpu_then_the_cpu():
    report = device_report(cuda_machine(8))
    rows = report.rows()
    assert [r["device"] for r in rows] == [f"cuda:{i}" for i in range(8)] + ["cpu"]
    assert rows[3]["compute capability"] == "9.0"
    assert rows[3]["total memory"] == "80.0 GiB" and rows[3]["free memory"] == "70.0 GiB"
    assert rows[3]["multiprocessors"] == "132"
    assert report.summary == "8 CUDA GPUs visible; current device cuda:0"


def test_report_html_is_a_table_with_escaped_names():
    facts = cuda_machine(1, accelerators=(AcceleratorInfo(0, "cuda", "<GPU & co>", (8, 0), GIB, None, 10),))
    text = device_report(facts)._repr_html_()
    assert "<table>" in text and "&lt;GPU &amp; co&gt;" in text and "<GPU" not in text
    assert "free memory" in text


def test_report_for_cpu_only_and_mps():
    assert device_report(CPU_LAPTOP).summary == "no accelerator: CPU only"
    assert [r["device"] for r in device_report(CPU_LAPTOP).rows()] == ["cpu"]
    apple = device_report(APPLE)
    assert "MPS" in apple.summary
    assert [r["device"] for r in apple.rows()] == ["mps", "cpu"]


def test_report_mentions_cuda_visible_devices():
    facts = cuda_machine(2, cuda_visible_devices="2,3")
    assert "CUDA_VISIBLE_DEVICES='2,3'" in str(device_report(facts))
    assert "CUDA_VISIBLE_DEVICES" in device_report(facts)._repr_html_()


def test_report_is_frozen():
    report = device_report(CPU_LAPTOP)
    with pytest.raises(FrozenInstanceError):
        report.facts = CPU_LAPTOP  # type: ignore[misc]
    assert isinstance(report, DeviceReport)


# ----------------------------------------------------------------- choice


@pytest.mark.parametrize(
    "facts, expected",
    [(CPU_LAPTOP, "cpu"), (APPLE, "mps"), (cuda_machine(1), "cuda:0"), (cuda_machine(4, current_cuda_index=2), "cuda:2")],
)
def test_choose_device_prefers_cuda_then_mps_then_cpu(facts, expected):
    choice = choose_device(facts)
    assert choice.device == expected
    assert choice.reason  # the fallback is always explained


def test_choose_device_explains_an_unavailable_preference():
    choice = choose_device(cuda_machine(2), prefer="cuda:5")
    assert choice.device == "cuda:0"
    assert "only 2 CUDA device(s)" in choice.reason
    choice = choose_device(CPU_LAPTOP, prefer="cuda")
    assert choice.device == "cpu" and "does not have it" in choice.reason
    assert choose_device(cuda_machine(2), prefer="cuda:1").device == "cuda:1"
    assert choose_device(cuda_machine(2), prefer="cpu").device == "cpu"


INTEL_GPUS = replace(
    CPU_LAPTOP, accelerators=tuple(AcceleratorInfo(i, "xpu", "Intel(R) Data Center GPU Max 1100") for i in range(2)), current_xpu_index=1
)


def test_report_names_an_intel_xpu_and_its_build():
    report = device_report(replace(INTEL_GPUS, torch_version="2.13.0+xpu", built_accelerator="xpu"))
    assert report.summary == "2 Intel GPUs through XPU; current device xpu:1; no CUDA"
    assert [r["device"] for r in report.rows()] == ["xpu:0", "xpu:1", "cpu"]
    assert "(XPU build)" in str(report)


def test_choose_device_takes_an_intel_xpu_and_its_current_index():
    """An XPU build's GPU is the notebook's device (lessons then run their any-accelerator cells on it, not on meta)."""
    choice = choose_device(INTEL_GPUS)
    assert choice.device == "xpu:1" and "Intel GPU" in choice.reason
    assert choose_device(INTEL_GPUS, prefer="xpu:0").device == "xpu:0"
    fallback = choose_device(INTEL_GPUS, prefer="xpu:3")
    assert fallback.device == "xpu:1" and "only 2 XPU device(s)" in fallback.reason
    assert "does not have it" in choose_device(INTEL_GPUS, prefer="cuda").reason
    assert "does not have it" in choose_device(CPU_LAPTOP, prefer="xpu").reason


def test_choose_device_rejects_a_misspelt_device_and_says_what_to_try():
    with pytest.raises(ValueError, match=r"prefer='gpu' is not a device.*never 'gpu'"):
        choose_device(CPU_LAPTOP, prefer="gpu")
    with pytest.raises(ValueError, match="is not a device"):
        choose_device(CPU_LAPTOP, prefer=3.5)


# ----------------------------------------------------------------- preflight


def test_preflight_cpu_only_runs_everything_to_the_end():
    p = preflight(CPU_LAPTOP)
    assert p.level == "cpu-only" and not p.problems
    # Every lesson has GPU-only cells today (01: the per-GPU properties and the two-GPU
    # CUDA_VISIBLE_DEVICES demonstration), so a CPU runs none of them fully.
    assert p.full_notebooks == ()
    assert p.partial_notebooks[0] == "01 device query (2 of 2 GPU-only cells)"
    assert [n[:2] for n in p.partial_notebooks] == [f"{i:02d}" for i in range(1, len(course()) + 1)]


def test_preflight_lists_what_the_notebooks_need_not_a_typed_table():
    from course_authoring.lesson_map import scan_course
    from course_utils.lessons import course

    assert course() == scan_course(ROOT), "lesson_needs.py is stale: run `make pairs`"
    one = preflight(cuda_machine(1))
    needs_two = [lesson.name for lesson in course() if lesson.needs == 2]
    assert needs_two and all(any(n.startswith(name) for n in one.partial_notebooks) for name in needs_two)
    assert set(one.full_notebooks) == {lesson.name for lesson in course() if lesson.needs <= 1}
    assert "01 device query (1 of 2 GPU-only cells)" in one.partial_notebooks


def test_preflight_levels():
    assert preflight(cuda_machine(1)).level == "one-gpu"
    multi = preflight(cuda_machine(4))
    assert multi.level == "multi-gpu" and not multi.partial_notebooks
    assert len(multi.full_notebooks) == len(course())
    assert preflight(APPLE).level == "mps"


def test_preflight_cpu_build_on_a_gpu_machine_says_to_install_a_cuda_build():
    facts = replace(CPU_LAPTOP, nvidia_driver_present=True)
    (problem,) = preflight(facts).problems
    assert "CPU-only build" in problem.message
    assert "download.pytorch.org/whl/cu" in problem.fix


def test_preflight_cuda_build_with_driver_but_no_gpu_points_at_the_driver():
    facts = cuda_machine(0, cuda_visible_devices="")
    (problem,) = preflight(facts).problems
    assert "no GPU is usable" in problem.message
    assert "nvidia-smi" in problem.fix and "CUDA_VISIBLE_DEVICES" in problem.fix


NO_DRIVER = "RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU"


def test_preflight_cuda_build_without_driver_is_a_cpu_machine_with_its_symptoms_and_fixes():
    facts = cuda_machine(0, nvidia_driver_present=False, built_accelerator="cuda", cuda_init_error=NO_DRIVER)
    p = preflight(facts)
    assert p.level == "cpu-only" and not p.problems
    (note,) = [f for f in p.findings if "no NVIDIA driver was found" in f.message]
    assert note.severity == "note" and "CUDA 12.6 build" in note.message
    assert NO_DRIVER in note.message  # the real message collect_facts recorded, not a paraphrase
    assert "device(type='cuda')" in note.message and "check_available=True" in note.message
    assert "download.pytorch.org/whl/cpu" in note.fix and "several GB" in note.fix
    assert "runs to the end on the CPU" in note.fix and "install its driver" in note.fix


def test_preflight_names_the_tested_range_only_outside_it():
    low, high = TESTED_TORCH
    assert TorchVersion(low) < TorchVersion(high)
    for inside in (f"{low}+cu126", "2.13.0+cpu", high):
        assert not [f for f in preflight(replace(CPU_LAPTOP, torch_version=inside)).findings if "tested on" in f.message]
    (old,) = preflight(replace(CPU_LAPTOP, torch_version="2.6.0+cu124")).problems
    assert "older than 2.7.1" in old.message and "torch>=2.7.1" in old.fix
    (new,) = [f for f in preflight(replace(CPU_LAPTOP, torch_version="2.15.0")).findings if "newer" in f.message]
    assert new.severity == "note" and f"torch=={high}" in new.fix


def test_preflight_colab_without_gpu_runtime():
    facts = cuda_machine(0, nvidia_driver_present=False, in_colab=True)
    (problem,) = preflight(facts).problems
    assert "Colab" in problem.message and "Change runtime type" in problem.fix


def test_preflight_colab_without_gpu_says_where_two_gpus_are():
    (problem,) = preflight(cuda_machine(0, nvidia_driver_present=False, in_colab=True)).problems
    assert "Runtime > Change runtime type > T4 GPU" in problem.fix and "GPU T4 x2" in problem.fix


@pytest.mark.parametrize(
    "environ, expected",
    [
        ({"KAGGLE_KERNEL_RUN_TYPE": "Interactive"}, True),
        ({"KAGGLE_KERNEL_RUN_TYPE": "Batch"}, True),
        ({"KAGGLE_URL_BASE": "https://www.kaggle.com"}, True),
        ({"KAGGLE_KERNEL_RUN_TYPE": ""}, False),  # set but empty is not a Kaggle session
        ({"COLAB_RELEASE_TAG": "release-colab-20251201"}, False),
        ({}, False),
    ],
)
def test_kaggle_is_recognised_from_its_environment(monkeypatch, environ, expected):
    for name in ("KAGGLE_KERNEL_RUN_TYPE", "KAGGLE_URL_BASE", "COLAB_RELEASE_TAG"):
        monkeypatch.delenv(name, raising=False)
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    assert collect_facts().in_kaggle is expected


def test_preflight_kaggle_without_gpu_names_the_accelerator_setting():
    (problem,) = preflight(cuda_machine(0, nvidia_driver_present=False, in_kaggle=True)).problems
    assert problem.message == "running on Kaggle without a GPU accelerator"
    assert "Settings > Accelerator > GPU T4 x2" in problem.fix
    assert "Colab" not in problem.message


def test_preflight_one_gpu_points_to_two_where_the_learner_is():
    kaggle = preflight(cuda_machine(1, in_kaggle=True)).findings[0].fix
    assert "Settings > Accelerator > GPU T4 x2" in kaggle and "Colab" not in kaggle
    colab = preflight(cuda_machine(1, in_colab=True)).findings[0].fix
    assert "Colab lends one GPU" in colab and "Kaggle" in colab
    laptop = preflight(cuda_machine(1)).findings[0].fix
    assert "open the notebook on Kaggle" in laptop
    assert "GPU T4 x2" not in preflight(cuda_machine(2, in_kaggle=True)).findings[0].fix  # nothing to add


def test_preflight_without_gpu_names_both_free_routes():
    (ok,) = preflight(CPU_LAPTOP).findings
    assert "T4 GPU" in ok.fix and "Colab" in ok.fix  # one GPU
    assert "Kaggle: Settings > Accelerator > GPU T4 x2" in ok.fix  # two GPUs
    assert preflight(cuda_machine(0, nvidia_driver_present=False, in_kaggle=True)).level == "cpu-only"


def test_preflight_reports_a_broken_cuda_query():
    facts = replace(CPU_LAPTOP, cuda_build="12.6", cuda_error="RuntimeError: CUDA driver initialization failed")
    assert any("could not query CUDA" in f.message for f in preflight(facts).problems)


def test_preflight_text_and_html_name_the_fix():
    facts = replace(CPU_LAPTOP, nvidia_driver_present=True)
    p = preflight(facts)
    assert "what to do:" in str(p)
    assert "What to do:" in p._repr_html_()


# ----------------------------------------------------------------- needs_cuda


def test_needs_cuda_is_falsy_with_a_reason_when_missing():
    req = needs_cuda(2, what="the two-GPU demo", facts=cuda_machine(1))
    assert not req and "SKIPPED the two-GPU demo" in str(req) and "has 1" in str(req)
    assert needs_cuda(2, facts=cuda_machine(2))
    assert needs_cuda(0, facts=CPU_LAPTOP)
    for bad in (-1, "2", 1.5, True):
        with pytest.raises(ValueError, match="0 or more"):
            needs_cuda(bad)


def test_a_skipped_requirement_displays_its_line_then_the_evidence():
    req = needs_cuda(2, what="set_device inside a scope", key="04-set-device", facts=cuda_machine(1))
    assert not req and str(req).startswith("SKIPPED set_device inside a scope")  # print(): the line alone
    shown = req.evidence()
    assert shown is not None and shown.key == "04-set-device"
    assert repr(req).splitlines()[0] == str(req) and str(shown) in repr(req)
    html = req._repr_html_()
    assert html.index("SKIPPED") < html.index("<details>"), "the SKIPPED line, then the folded source"
    ran = needs_cuda(1, what="x", key="04-set-device", facts=cuda_machine(1))
    assert ran.evidence() is None and repr(ran) == str(ran) and "<details>" not in ran._repr_html_()
    assert needs_cuda(3, facts=cuda_machine(1)).evidence() is None  # no key, nothing recorded to show
    with pytest.raises(ValueError, match="like '02-round-trip'"):
        needs_cuda(1, key="Set Device")


def test_needs_accelerator_runs_on_the_lessons_accelerator_or_on_meta_and_says_which():
    on_mps = needs_accelerator(torch.device("mps"), what="a tensor on a device", key="02-tensor-on-gpu")
    assert on_mps and on_mps.device == torch.device("mps") and "on mps" in str(on_mps) and on_mps.evidence() is None
    assert needs_accelerator("xpu:0", what="x").device == torch.device("xpu", 0)  # a name works as well as a device
    for not_one in ("cpu", torch.device("meta")):
        bare = needs_accelerator(not_one, what="a tensor on a device", key="02-tensor-on-gpu")
        assert not bare and bare.device == torch.device("meta") and "device is meta" in str(bare)
        assert "no data" in str(bare) and str(bare.evidence()) in repr(bare)


def test_needs_accelerator_takes_the_lessons_device_and_never_chooses_one(monkeypatch):
    """The gate runs where the lesson decided, even where the machine has more: a lesson told
    pick_device("cpu") on a GPU machine runs its accelerator cells on meta, and nothing asks torch again."""
    import course_utils.devices as devices

    def ask(*args, **kwargs):
        raise AssertionError("needs_accelerator chose a device again")

    monkeypatch.setattr(devices, "usable_accelerator", ask)
    monkeypatch.setattr(torch.accelerator, "current_accelerator", ask)
    assert needs_accelerator(torch.device("cpu"), what="x").device == torch.device("meta")
    assert needs_accelerator(torch.device("mps"), what="x").device == torch.device("mps")
    with pytest.raises(ValueError, match=r"lesson's device, decided once.*device = pick_device\(\)"):
        needs_accelerator(None, what="x")
    with pytest.raises(TypeError, match="expects a device name or torch.device"):
        needs_accelerator(1.5, what="x")
    with pytest.raises(TypeError):
        needs_accelerator(what="x")  # the device is required: no default that would choose one


def test_needs_accelerator_refuses_a_cuda_device_this_machine_lacks():
    have = torch.cuda.device_count() if torch.cuda.is_available() else 0
    with pytest.raises(ValueError, match=rf"lesson's device is 'cuda:{have}', but this machine has {have} CUDA GPU.*pick_device"):
        needs_accelerator(f"cuda:{have}", what="x")  # one past the last GPU: missing on every machine


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_needs_accelerator_runs_on_the_lessons_cuda_device():
    here = torch.device("cuda", torch.cuda.current_device())
    ran = needs_accelerator(here, what="x")
    assert ran and ran.device == here and f"on {here}" in str(ran)


# ----------------------------------------------------------------- this machine


def test_collect_facts_matches_torch_on_this_machine():
    facts = collect_facts()
    assert facts.torch_version == torch.__version__
    assert facts.cuda_available == torch.cuda.is_available()
    assert len(facts.gpus) == (torch.cuda.device_count() if torch.cuda.is_available() else 0)
    built = torch.accelerator.current_accelerator()
    assert facts.built_accelerator == (built.type if built is not None else None)


@pytest.mark.skipif(not (torch.version.cuda and not torch.cuda.is_available()), reason="needs a CUDA build without CUDA")
def test_collect_facts_records_why_a_cuda_build_cannot_use_cuda_and_leaves_it_uninitialised():
    loading = os.environ.get("CUDA_MODULE_LOADING")
    facts = collect_facts()
    assert not torch.cuda.is_initialized() and os.environ.get("CUDA_MODULE_LOADING") == loading
    with pytest.raises(RuntimeError) as raised:
        torch.cuda.current_device()
    assert facts.cuda_init_error == f"RuntimeError: {raised.value}"
    assert "no NVIDIA driver was found" in str(preflight(facts)) or facts.nvidia_driver_present


@pytest.mark.skipif(torch.version.cuda is not None, reason="needs a CPU build of torch")
def test_collect_facts_asks_nothing_more_of_a_cpu_build():
    assert collect_facts().cuda_init_error is None


@pytest.mark.cuda
def test_collect_facts_reads_real_gpus():
    facts = collect_facts()
    first = facts.gpus[0]
    props = torch.cuda.get_device_properties(0)
    assert first.name == props.name
    assert first.compute_capability == (props.major, props.minor)
    assert 0 < first.free_memory <= first.total_memory
    assert facts.current_cuda_index == torch.cuda.current_device()


# --------------------------------------------------------------------------- the one idiom


class _FakeAccelerator:
    """torch.accelerator as a machine with ``kind`` (or none) would answer."""

    def __init__(self, kind):
        self.kind = kind

    def current_accelerator(self, check_available=False):
        return None if self.kind is None else torch.device(self.kind)


@pytest.mark.parametrize(
    "kind, expected", [(None, None), ("mps", torch.device("mps")), ("xpu", torch.device("xpu")), ("cuda", torch.device("cuda", 1))]
)
def test_usable_accelerator_is_the_lesson_01_idiom_with_a_cuda_index(monkeypatch, kind, expected):
    monkeypatch.setattr(torch, "accelerator", _FakeAccelerator(kind))
    monkeypatch.setattr(torch.cuda, "current_device", lambda: 1)
    assert usable_accelerator() == expected


def test_usable_accelerator_and_check_device_on_this_machine():
    here = torch.accelerator.current_accelerator(check_available=True)
    assert (usable_accelerator() is None) == (here is None)
    assert check_device(None) == (usable_accelerator() or torch.device("cpu"))
    assert check_device("cpu") == torch.device("cpu") and check_device("meta") == torch.device("meta")


def test_check_device_refuses_what_this_machine_lacks_before_any_work():
    with pytest.raises(ValueError, match="'gpu' is not a device name"):
        check_device("gpu")
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match="CUDA is not available here"):
            check_device("cuda:0")
    else:
        with pytest.raises(ValueError, match="CUDA device\\(s\\) are visible"):
            check_device(f"cuda:{torch.cuda.device_count()}")


# ----------------------------------------------------------------- needs_package (an optional extra)


def test_needs_package_says_what_it_skipped_and_how_to_install_when_the_package_is_hidden(monkeypatch):
    monkeypatch.setitem(sys.modules, "accelerate", None)  # as if not installed: import accelerate fails
    req = needs_package("accelerate", extra="hf", what="accelerate's device map")
    assert not req and req.evidence() is None
    assert str(req).startswith("SKIPPED accelerate's device map: it needs accelerate")
    assert 'pip install "course-utils[hf]"' in str(req) and "make lab" in str(req)


def test_needs_package_is_met_by_an_importable_package_and_names_its_version():
    req = needs_package("torch", extra="none", what="a cell")
    assert req and str(req) == f"Running a cell with torch {importlib.metadata.version('torch')}."
    with pytest.raises(ValueError, match="module name"):
        needs_package("not a name", extra="hf")
