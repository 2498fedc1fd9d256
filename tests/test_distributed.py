"""distributed: choosing each process's device, and a torchrun launcher that never leaves processes behind."""

import os
import sys
import textwrap
import time
from pathlib import Path

import pytest
import torch

from course_utils import distributed as D
from course_utils.checks import check
from course_utils.checks.nb08 import DEVICE_IDS_CASES, LAUNCHES, SHARED_CASES
from course_utils.claims import ClaimFailed
from course_utils.distributed import (
    LaunchResult,
    RankOutput,
    backend_for,
    ddp_device_ids,
    device_for_rank,
    error_from_stderr,
    launch,
    local_rank_from,
    process_alive,
    shared_devices,
)

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = ROOT / "notebooks" / "scripts"

try:
    import psutil
except ImportError:  # the launcher falls back to /proc; so do these tests
    psutil = None

CAN_FIND_PROCESSES = psutil is not None or Path("/proc").is_dir()


def alive(pid: int) -> bool:
    """Independent of the launcher's own bookkeeping: psutil where installed, else /proc."""
    if psutil is not None:
        try:
            return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
        except psutil.NoSuchProcess:
            return False
    return process_alive(pid)


# --------------------------------------------------------------------------- choosing the device


@pytest.mark.parametrize(
    "env, expected",
    [({}, 0), ({"LOCAL_RANK": "0"}, 0), ({"LOCAL_RANK": "3"}, 3), ({"LOCAL_RANK": " 1 "}, 1),
     ({"RANK": "5", "LOCAL_RANK": "1"}, 1)],
)
def test_local_rank_from_env(env, expected):
    assert local_rank_from(env) == expected


@pytest.mark.parametrize("raw, message", [("one", "whole number"), ("", "whole number"), ("-1", "0 or more")])
def test_bad_local_rank_is_a_clear_error(raw, message):
    with pytest.raises(ValueError, match=message):
        local_rank_from({"LOCAL_RANK": raw})


def test_device_for_rank():
    assert [device_for_rank(r, 0) for r in range(3)] == [torch.device("cpu")] * 3
    assert [device_for_rank(r, 4) for r in range(4)] == [torch.device("cuda", r) for r in range(4)]
    assert device_for_rank(1, 2, "xpu") == torch.device("xpu", 1)
    assert device_for_rank(3, 8, "cpu") == torch.device("cpu")


@pytest.mark.parametrize("rank, count, message", [
    (2, 2, "has no cuda device of its own.*--nproc-per-node 2"),
    (-1, 2, "local_rank should be an int, 0 or more"),
    (True, 2, "local_rank should be an int"),
    ("0", 2, "local_rank should be an int"),
    (0, -1, "count should be the number of devices"),
])
def test_device_for_rank_refuses(rank, count, message):
    with pytest.raises(ValueError, match=message):
        device_for_rank(rank, count)


def test_backend_for():
    assert backend_for("cpu") == "gloo"
    assert backend_for(torch.device("cuda", 1)) == "nccl"
    with pytest.raises(ValueError, match="No default collective backend for 'meta'"):
        backend_for("meta")


def test_ddp_device_ids_agrees_with_the_exercise_table():
    for device, expected in DEVICE_IDS_CASES:
        assert ddp_device_ids(device) == expected
    with pytest.raises(ValueError, match="has no index"):
        ddp_device_ids("cuda")


def test_shared_devices_agrees_with_the_exercise_table():
    for devices, expected in SHARED_CASES:
        assert shared_devices(devices) == expected
    assert shared_devices({0: torch.device("cuda", 0), 1: "meta", 2: "cuda:0"}) == {"cuda:0": [0, 2]}


def test_pick_device_reference_gives_every_process_its_own_gpu():
    from course_utils.checks.nb08 import _reference_pick

    for _, envs, gpus in LAUNCHES:
        per_machine: dict[str, list] = {}
        for env in envs:
            per_machine.setdefault(env.get("GROUP_RANK", "0"), []).append(_reference_pick(env, gpus))
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
    assert "does not contain" in D.source_quote(device_for_rank, "no such phrase anywhere")


def test_the_exercises_are_registered():
    from course_utils.checks import all_exercises

    assert {"08.1", "08.2", "08.3", "08.4"} <= set(all_exercises())
    assert check("08.1", lambda rank, count: torch.device("cpu")).status == "fail"


# --------------------------------------------------------------------------- reading results

STDERR_RANK1 = """\
[rank1]: Traceback (most recent call last):
[rank1]:   File "/x/ddp_wrong_device_ids.py", line 37, in main
[rank1]:     ddp = DDP(model, device_ids=wrong_ids)
[rank1]:           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
[rank1]: ValueError: DistributedDataParallel device_ids and output_device arguments only work with x
"""

STDERR_NCCL = """\
Traceback (most recent call last):
  File "train.py", line 9, in <module>
    dist.all_reduce(t)
torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1691, invalid usage, NCCL version 2.19.3
ncclInvalidUsage: This usually reflects invalid usage of NCCL library.
Last error:
Duplicate GPU detected : rank 0 and rank 1 both on CUDA device 2000

[W1129 14:13:17.152000 9208 api.py:1028] Sending process 9212 closing signal SIGTERM
"""

STDERR_CHAINED = """\
Traceback (most recent call last):
  File "a.py", line 1, in <module>
KeyError: 'x'

During handling of the above exception, another exception occurred:

Traceback (most recent call last):
  File "a.py", line 3, in <module>
RuntimeError: second
"""


def test_error_from_stderr():
    err = error_from_stderr(STDERR_RANK1)
    assert err.type_name == "ValueError" and err.message.startswith("DistributedDataParallel device_ids")
    nccl = error_from_stderr(STDERR_NCCL)
    assert nccl.type_name == "DistBackendError"
    assert nccl.message.splitlines()[-1] == "Duplicate GPU detected : rank 0 and rank 1 both on CUDA device 2000"
    assert error_from_stderr(STDERR_CHAINED).message == "second"
    assert error_from_stderr("just a warning\n") is None


def make_result(outputs, errors=("", ""), returncode=0, timed_out=False):
    ranks = tuple(RankOutput(i, out, err, None if timed_out else (1 if err else 0))
                  for i, (out, err) in enumerate(zip(outputs, errors)))
    return LaunchResult("demo.py", ("python", "demo.py"), len(ranks), None if timed_out else returncode, timed_out,
                        1.5, 30.0, ranks, "torchrun said <this>")


def test_values_and_expect_same():
    result = make_result(["rank=0 sum=1.5\nsum=2.5", "rank=1 sum=2.5"])
    assert result.values("sum") == {0: "2.5", 1: "2.5"}
    assert result.values("rank") == {0: "0", 1: "1"}
    assert result.values("missing") == {}
    assert result.expect_same("sum") == "2.5"
    with pytest.raises(ClaimFailed, match="same rank="):
        result.expect_same("rank")
    with pytest.raises(ClaimFailed, match=r"nothing from ranks \[1\]"):
        make_result(["x=1", "y=1"]).expect_same("x")


def test_expect_failure():
    result = make_result(["a", "b"], errors=("", STDERR_RANK1), returncode=1)
    assert not result.ok and result.failed_ranks == (1,)
    assert result.expect_failure("ValueError", match="device_ids").type_name == "ValueError"
    assert result.expect_failure(("RuntimeError", "ValueError")).message.startswith("DistributedDataParallel")
    with pytest.raises(ClaimFailed, match="expected a rank to fail with RuntimeError"):
        result.expect_failure("RuntimeError")
    with pytest.raises(ClaimFailed, match="matching 'nothing like this'"):
        result.expect_failure("ValueError", match="nothing like this")
    with pytest.raises(ValueError, match="not 5"):
        result.rank(5)


def test_result_display_escapes_and_says_how_it_ended():
    ok = make_result(["<b>bold</b>", "x"])
    assert "OK in 1.5 s" in str(ok) and "&lt;b&gt;bold&lt;/b&gt;" in ok._repr_html_()
    failed = make_result(["", ""], errors=("", STDERR_RANK1), returncode=1)
    assert "error: ValueError: DistributedDataParallel" in str(failed)
    assert "FAILED (torchrun exit status 1)" in failed._repr_html_()
    hung = make_result(["", ""], timed_out=True)
    assert "TIMED OUT after 30 s" in str(hung) and "exit code unknown" in str(hung)


def test_exit_codes_from_torchrun_summary(tmp_path):
    for rank, text in ((0, "hello 0\n"), (1, "hello 1\n")):
        folder = tmp_path / "run_x" / "attempt_0" / str(rank)
        folder.mkdir(parents=True)
        (folder / "stdout.log").write_text(text)
        (folder / "stderr.log").write_text("")
    summary = "  rank      : 1 (local_rank: 1)\n  exitcode  : 1 (pid: 9213)\n"
    ranks = D._read_ranks(tmp_path, 2, summary, 1, timed_out=False)
    assert [(r.stdout, r.exitcode) for r in ranks] == [("hello 0\n", 0), ("hello 1\n", 1)]
    assert [r.exitcode for r in D._read_ranks(tmp_path, 2, "", None, timed_out=True)] == [None, None]


# --------------------------------------------------------------------------- launching: bad input


def test_missing_script_is_a_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="No script at .*nope.py.*launch\\('scripts/ddp_basics.py'\\)"):
        launch(tmp_path / "nope.py")


@pytest.mark.parametrize("kwargs, message", [({"nproc": 0}, "nproc should be"), ({"nproc": True}, "nproc should be"),
                                             ({"timeout": 0}, "timeout should be")])
def test_bad_arguments_are_clear_errors(tmp_path, kwargs, message):
    script = tmp_path / "s.py"
    script.write_text("")
    with pytest.raises(ValueError, match=message):
        launch(script, **kwargs)


def test_torchrun_unavailable_is_a_clear_error(tmp_path, monkeypatch):
    script = tmp_path / "s.py"
    script.write_text("")
    monkeypatch.setattr(D.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(RuntimeError, match="torchrun is not available"):
        launch(script)


def test_missing_interpreter_is_a_clear_error(tmp_path):
    script = tmp_path / "s.py"
    script.write_text("")
    with pytest.raises(RuntimeError, match="cannot start the interpreter"):
        launch(script, python=str(tmp_path / "no-python"))


def test_command_is_local_and_uses_this_interpreter():
    command = D.torchrun_command("s.py", 2, ("--cpu",), log_dir="/tmp/logs")
    assert command[:3] == [sys.executable, "-m", "torch.distributed.run"]
    assert "--standalone" in command and command[-2:] == ["s.py", "--cpu"]
    assert not any("rdzv-endpoint" in part or "master-addr" in part for part in command)


# --------------------------------------------------------------------------- launching for real

# Each rank writes its pid, then starts a grandchild in a session of its own (out of reach of any
# process-group kill), writes that pid too, and sleeps: a run that hangs.
HANGING = textwrap.dedent("""
    import os, subprocess, sys, time
    folder = sys.argv[1]
    rank = os.environ["LOCAL_RANK"]
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"], start_new_session=True)
    with open(os.path.join(folder, f"pids-{rank}.tmp"), "w") as f:
        f.write(f"{os.getpid()} {child.pid}")
    os.replace(os.path.join(folder, f"pids-{rank}.tmp"), os.path.join(folder, f"pids-{rank}"))
    print(f"rank={rank} waiting", flush=True)
    time.sleep(300)
""")


def recorded_pids(folder: Path, nproc: int = 2, wait: float = 60.0) -> list[int]:
    deadline = time.monotonic() + wait
    files = [folder / f"pids-{r}" for r in range(nproc)]
    while not all(f.exists() for f in files):
        if time.monotonic() > deadline:
            raise AssertionError(f"the ranks did not start within {wait} s")
        time.sleep(0.1)
    return [int(p) for f in files for p in f.read_text().split()]


def assert_all_gone(pids: list[int]) -> None:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(alive(p) for p in pids):
        time.sleep(0.1)
    assert [p for p in pids if alive(p)] == [], "processes of the launch survived"


@pytest.mark.slow
@pytest.mark.skipif(not CAN_FIND_PROCESSES, reason="needs psutil or /proc to see processes")
def test_a_hanging_run_is_killed_at_the_timeout_with_every_process(tmp_path):
    script = tmp_path / "hang.py"
    script.write_text(HANGING)
    started = time.monotonic()
    result = launch(script, str(tmp_path), nproc=2, timeout=10)
    assert result.timed_out and not result.ok and result.returncode is None
    assert 10 <= time.monotonic() - started < 60
    pids = recorded_pids(tmp_path, wait=0)
    assert len(pids) == 4  # two workers, two grandchildren
    assert_all_gone(pids)
    assert result.leftover_pids == ()
    assert result.values("rank") == {0: "0", 1: "1"}  # output written before the kill is kept


@pytest.mark.slow
@pytest.mark.skipif(not CAN_FIND_PROCESSES, reason="needs psutil or /proc to see processes")
@pytest.mark.parametrize("interruption", [KeyboardInterrupt, RuntimeError])
def test_an_interrupted_launch_cleans_up_then_raises(tmp_path, monkeypatch, interruption):
    script = tmp_path / "hang.py"
    script.write_text(HANGING)
    seen = []

    def interrupted_wait(proc, timeout):
        seen.extend(recorded_pids(tmp_path))  # every process is up
        raise interruption("Ctrl-C in the notebook")

    monkeypatch.setattr(D, "_wait", interrupted_wait)
    with pytest.raises(interruption):
        launch(script, str(tmp_path), nproc=2, timeout=120)
    assert len(seen) == 4
    assert_all_gone(seen)


@pytest.mark.slow
def test_a_failing_rank_gives_a_result_not_an_exception(tmp_path):
    script = tmp_path / "fail.py"
    script.write_text(textwrap.dedent("""
        import os, time
        rank = int(os.environ["LOCAL_RANK"])
        print(f"rank={rank} started", flush=True)
        if rank == 1:
            raise ValueError("rank 1 gives up")
        time.sleep(60)
    """))
    result = launch(script, nproc=2, timeout=90)
    assert not result.ok and not result.timed_out and result.returncode not in (0, None)
    assert result.seconds < 60  # torchrun stopped rank 0 instead of waiting for it
    assert result.errors[1].type_name == "ValueError" and result.errors[1].message == "rank 1 gives up"
    assert result.rank(1).exitcode == 1 and result.rank(0).exitcode != 0
    assert result.values("rank") == {0: "0", 1: "1"}
    assert result.expect_failure("ValueError", match="gives up").message == "rank 1 gives up"


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
@pytest.mark.cuda
@pytest.mark.skipif(not torch.cuda.is_available() or torch.cuda.device_count() < 2, reason="needs 2 CUDA GPUs")
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
