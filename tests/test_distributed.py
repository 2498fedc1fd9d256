"""distributed: the helpers around each process's device choice, and the notebook's torchrun scripts that make it.

The choice itself is the learner's (exercises 08.1 to 08.4): the scripts make it by hand, and its references
are in tests/answer_references.py (tests/test_case_tables.py)."""

import os
from pathlib import Path

import pytest
import torch

from course_utils import distributed as D
from course_utils.checks import check
from course_utils.checks.nb08 import LAUNCHES, LAUNCHES_ALWAYS
from course_utils.distributed import backend_for
from course_utils.launch import launch

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = ROOT / "src" / "course_utils" / "scripts"


# --------------------------------------------------------------------------- around the device choice


def test_backend_for():
    assert backend_for("cpu") == "gloo"
    assert backend_for(torch.device("cuda", 1)) == "nccl"
    with pytest.raises(ValueError, match="No default collective backend for 'meta'"):
        backend_for("meta")


def test_pick_device_reference_gives_every_process_its_own_gpu():
    from answer_references import reference_pick

    for _, envs, gpus, _devices in (*LAUNCHES, *LAUNCHES_ALWAYS):
        per_machine: dict[str, list] = {}
        for env in envs:
            per_machine.setdefault(env.get("GROUP_RANK", "0"), []).append(reference_pick(env, gpus))
        for devices in per_machine.values():
            if gpus:
                assert len(set(devices)) == len(devices)
            else:
                assert set(devices) == {torch.device("cpu")}


def test_local_accelerator_on_this_machine():
    kind, count = D.local_accelerator()
    if torch.cuda.is_available():
        assert (kind, count) == ("cuda", torch.cuda.device_count())
    elif kind == "cpu":
        assert count == 0


def test_use_device_on_the_cpu_changes_nothing():
    assert D.use_device("cpu") == torch.device("cpu")


def test_checksum_tells_equal_and_different_models_apart():
    torch.manual_seed(0)
    a = torch.nn.Linear(3, 2)
    b = torch.nn.Linear(3, 2)
    b.load_state_dict(a.state_dict())
    assert D.checksum(a) == D.checksum(b)
    with torch.no_grad():
        b.bias += 1
    assert D.checksum(a) != D.checksum(b)


def test_source_quote_reads_the_installed_source():
    assert "device_ids" in D.source_quote(torch.nn.parallel.DistributedDataParallel, "For multi-device modules")
    assert "does not contain" in D.source_quote(backend_for, "no such phrase anywhere")


def test_the_exercises_are_registered():
    from course_utils.checks import all_exercises

    assert {"08.1", "08.2", "08.3", "08.4"} <= set(all_exercises())
    assert check("08.1", lambda rank, count: torch.device("cpu")).status == "fail"


# --------------------------------------------------------------------------- the notebook's scripts under torchrun


@pytest.mark.slow
def test_ddp_basics_keeps_replicas_in_sync_on_the_cpu():
    result = launch(SCRIPTS / "ddp_basics.py", "--cpu", nproc=2, timeout=180)
    assert result.ok, str(result)
    assert result.values("device") == {0: "cpu", 1: "cpu"} and result.values("backend") == {0: "gloo", 1: "gloo"}
    assert result.values("device_ids") == {0: "None", 1: "None"}
    before = result.values("before_ddp")
    assert before[0] != before[1]  # different seeds: different starting weights
    assert result.expect_same("after_ddp") == before[0]  # DDP broadcast rank 0's weights
    result.expect_same("after_step")
    assert result.leftover_pids == ()


@pytest.mark.slow
def test_ddp_device_ids_on_a_cpu_module_fail_under_torchrun():
    result = launch(SCRIPTS / "ddp_wrong_device_ids.py", nproc=2, timeout=180)
    err = result.expect_failure("ValueError", match="device_ids and output_device arguments only work with")
    assert "module parameters {device(type='cpu')}" in err.message


@pytest.mark.slow
@pytest.mark.cuda(2)
def test_ddp_basics_on_two_gpus_uses_nccl_and_one_gpu_per_process():
    result = launch(SCRIPTS / "ddp_basics.py", nproc=2, timeout=300)
    assert result.ok, str(result)
    assert result.values("device") == {0: "cuda:0", 1: "cuda:1"}
    assert result.values("backend") == {0: "nccl", 1: "nccl"}
    assert result.values("current_cuda_device") == {0: "0", 1: "1"}
    assert result.values("device_ids") == {0: "[0]", 1: "[1]"}
    result.expect_same("after_step")


def test_no_script_is_collected_as_a_test():
    assert not [p.name for p in SCRIPTS.glob("*.py") if p.name.startswith("test_") or p.name.endswith("_test.py")]
    assert os.access(SCRIPTS / "ddp_basics.py", os.R_OK)
