"""launch: torchrun from a notebook, every rank's output, and no process left behind."""

import importlib
import sys
import textwrap
import time
from pathlib import Path

import pytest
import torch
from torch.torch_version import TorchVersion

from course_utils.claims import ClaimFailed
from course_utils.launch import (
    COURSE_SCRIPTS,
    LaunchResult,
    RankOutput,
    error_from_stderr,
    find_script,
    launch,
)
from course_utils.processes import process_alive

# the module itself, for its seams (not the function of the same name)
L = importlib.import_module("course_utils.launch")

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
    ranks = tuple(RankOutput(i, out, err, None if timed_out else (1 if err else 0)) for i, (out, err) in enumerate(zip(outputs, errors)))
    return LaunchResult(
        "demo.py", ("python", "demo.py"), len(ranks), None if timed_out else returncode, timed_out, 1.5, 30.0, ranks, "torchrun said <this>"
    )


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


def test_expect_ok_passes_a_clean_run_and_raises_on_any_failed_rank():
    ok = make_result(["a", "b"])
    assert ok.expect_ok() is ok
    # What torchrun reported in issue 14: both ranks printed everything, then rank 1 died of SIGABRT.
    aborted = LaunchResult(
        "ddp_basics.py",
        ("python",),
        2,
        1,
        False,
        9.0,
        120.0,
        (RankOutput(0, "after_step=1.0", "", 0), RankOutput(1, "after_step=1.0", "terminate called without an active exception", -6)),
        "torchrun: exitcode -6",
    )
    assert aborted.expect_same("after_step") == "1.0"  # the checksums alone would pass this run
    with pytest.raises(ClaimFailed, match=r"succeed on every rank.*exit status 1.*rank 1: exit -6 \(SIGABRT\)"):
        aborted.expect_ok()
    with pytest.raises(ClaimFailed, match="TIMED OUT"):
        make_result(["a", "b"], timed_out=True).expect_ok()
    with pytest.raises(ClaimFailed, match="rank 1: exit 1"):
        make_result(["a", "b"], errors=("", STDERR_RANK1), returncode=1).expect_ok()


def test_expect_failure():
    result = make_result(["a", "b"], errors=("", STDERR_RANK1), returncode=1)
    assert not result.ok and [r.local_rank for r in result.ranks if not r.ok] == [1]
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


def test_exit_codes_from_torchrun_summary(tmp_path, monkeypatch):
    for rank, text in ((0, "hello 0\n"), (1, "hello 1\n")):
        folder = tmp_path / "run_x" / "attempt_0" / str(rank)
        folder.mkdir(parents=True)
        (folder / "stdout.log").write_text(text)
        (folder / "stderr.log").write_text("")
    summary = "  rank      : 1 (local_rank: 1)\n  exitcode  : 1 (pid: 9213)\n"
    ranks = L._read_ranks(tmp_path, 2, summary, 1, timed_out=False)
    # An unlisted rank exited 0 where torchrun lists every failed rank (tested from 2.13); on
    # torchrun 2.7, which lists only the first failure, its exit code is unknown.
    unlisted = 0 if TorchVersion(torch.__version__) >= "2.13" else None
    assert [(r.stdout, r.exitcode) for r in ranks] == [("hello 0\n", unlisted), ("hello 1\n", 1)]
    monkeypatch.setattr(L, "_LISTS_STOPPED_RANKS", False)
    assert L._read_ranks(tmp_path, 2, summary, 1, timed_out=False)[0].exitcode is None
    assert L._read_ranks(tmp_path, 2, "", 0, timed_out=False)[0].exitcode == 0  # a clean run is clean anywhere
    assert [r.exitcode for r in L._read_ranks(tmp_path, 2, "", None, timed_out=True)] == [None, None]


# --------------------------------------------------------------------------- launching: bad input


def test_missing_script_is_a_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="No script at .*nope.py.*launch\\('scripts/ddp_basics.py'\\)"):
        launch(tmp_path / "nope.py")


def test_the_course_scripts_ship_in_the_package_and_a_learners_copy_comes_first(tmp_path, monkeypatch):
    """Colab and Kaggle install the package alone: scripts/NAME.py must still find notebook 08's scripts."""
    monkeypatch.chdir(tmp_path)  # a notebook's folder with no scripts/ beside it
    assert find_script("scripts/ddp_basics.py") == COURSE_SCRIPTS / "ddp_basics.py"
    assert "init_process_group" in find_script("scripts/two_machines.py").read_text()
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "ddp_basics.py").write_text("print('my edited copy')\n")
    assert find_script("scripts/ddp_basics.py") == Path("scripts/ddp_basics.py")  # the learner's own copy
    for elsewhere in ("ddp_basics.py", "other/ddp_basics.py", "scripts/nope.py", COURSE_SCRIPTS.parent / "scripts" / "nope.py"):
        with pytest.raises(FileNotFoundError, match="among the course's scripts: ddp_basics.py"):
            find_script(elsewhere)


def test_the_built_wheel_carries_the_scripts():
    """pyproject's package-data: what `pip install git+...` on Colab gets."""
    tomllib = pytest.importorskip("tomllib", reason="reading pyproject.toml needs Python 3.11's tomllib")
    data = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    shipped = {p.relative_to(COURSE_SCRIPTS.parent).as_posix() for p in COURSE_SCRIPTS.glob("*.py")}
    assert shipped and all(any(Path(name).match(glob) for glob in data["course_utils"]) for name in shipped)


@pytest.mark.parametrize(
    "kwargs, message", [({"nproc": 0}, "nproc should be"), ({"nproc": True}, "nproc should be"), ({"timeout": 0}, "timeout should be")]
)
def test_bad_arguments_are_clear_errors(tmp_path, kwargs, message):
    script = tmp_path / "s.py"
    script.write_text("")
    with pytest.raises(ValueError, match=message):
        launch(script, **kwargs)


def test_torchrun_unavailable_is_a_clear_error(tmp_path, monkeypatch):
    script = tmp_path / "s.py"
    script.write_text("")
    monkeypatch.setattr(L.torch.distributed, "is_available", lambda: False)
    with pytest.raises(RuntimeError, match="torchrun is not available"):
        launch(script)


def test_command_is_local_and_uses_this_interpreter():
    command = L.torchrun_command("s.py", 2, ("--cpu",), log_dir="/tmp/logs")
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
    # 30 s: on a busy 2-core machine torchrun of a CUDA build of torch takes over 10 s to start both ranks
    result = launch(script, str(tmp_path), nproc=2, timeout=30)
    assert result.timed_out and not result.ok and result.returncode is None
    assert 30 <= time.monotonic() - started < 90
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

    monkeypatch.setattr(L, "_wait", interrupted_wait)
    with pytest.raises(interruption):
        launch(script, str(tmp_path), nproc=2, timeout=120)
    assert len(seen) == 4
    assert_all_gone(seen)


@pytest.mark.slow
def test_a_failing_rank_gives_a_result_not_an_exception(tmp_path):
    script = tmp_path / "fail.py"
    script.write_text(
        textwrap.dedent("""
        import os, sys, time
        from pathlib import Path
        rank = int(os.environ["LOCAL_RANK"])
        print(f"rank={rank} started", flush=True)
        started = Path(sys.argv[1]) / "rank0-started"
        if rank == 0:
            started.touch()
        if rank == 1:
            # Give up only once rank 0 is running, so both ranks' first lines exist on a busy machine too.
            deadline = time.monotonic() + 30
            while not started.exists() and time.monotonic() < deadline:
                time.sleep(0.05)
            raise ValueError("rank 1 gives up")
        time.sleep(60)
    """)
    )
    result = launch(script, str(tmp_path), nproc=2, timeout=90)
    assert not result.ok and not result.timed_out and result.returncode not in (0, None)
    assert result.seconds < 60  # torchrun stopped rank 0 instead of waiting for it
    assert result.errors[1].type_name == "ValueError" and result.errors[1].message == "rank 1 gives up"
    assert result.rank(1).exitcode == 1 and result.rank(0).exitcode != 0
    assert result.values("rank") == {0: "0", 1: "1"}
    assert result.expect_failure("ValueError", match="gives up").message == "rank 1 gives up"


# --------------------------------------------------------------------------- two "machines" on this computer


def test_machine_commands_meet_at_one_address_with_their_own_node_rank(tmp_path):
    commands = [L.torchrun_command("s.py", 2, log_dir=tmp_path, node=L.Node(2, n, 29999)) for n in (0, 1)]
    for node, command in enumerate(commands):
        assert "--standalone" not in command
        text = " ".join(command)
        assert f"--nnodes 2 --node-rank {node} --master-addr 127.0.0.1 --master-port 29999" in text
        assert "--nproc-per-node 2" in text
    # torchrun itself reads them that way (its own parser, of the installed PyTorch)
    from torch.distributed.run import get_args_parser

    parsed = get_args_parser().parse_args(commands[1][3:])
    assert (parsed.nnodes, parsed.node_rank, parsed.master_port, parsed.rdzv_backend) == ("2", 1, 29999, "static")


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"nnodes": 2, "node_rank": 2, "master_port": 29999}, "node_rank should be 0 to 1"),
        ({"nnodes": 2, "node_rank": 0, "master_port": None}, "free_port"),
        ({"nnodes": 0, "node_rank": 0, "master_port": 29999}, "number of machines"),
        ({"nnodes": 1, "node_rank": 0, "master_port": 29999}, "2 or more"),
    ],
)
def test_bad_machine_arguments_are_clear_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        L.Node(**kwargs)


def test_a_node_that_is_not_a_node_is_a_clear_error():
    with pytest.raises(TypeError, match="node should be a Node"):
        launch(COURSE_SCRIPTS / "two_machines.py", node=(2, 0, 29999))


def test_launch_machines_wants_two_or_more():
    with pytest.raises(ValueError, match="2 or more"):
        L.launch_machines("x.py", machines=1)


@pytest.mark.slow
@pytest.mark.skipif(not CAN_FIND_PROCESSES, reason="needs psutil or /proc to look for leftover processes")
def test_two_machines_form_one_group_and_leave_nothing_behind():
    script = COURSE_SCRIPTS / "two_machines.py"
    before = set(psutil.Process().children(recursive=True)) if psutil is not None else set()
    result = L.launch_machines(script, machines=2, nproc=2, timeout=300)
    result.expect_ok()
    assert result.values("rank") == {(0, 0): "0", (0, 1): "1", (1, 0): "2", (1, 1): "3"}
    assert result.values("local_rank") == {(0, 0): "0", (0, 1): "1", (1, 0): "0", (1, 1): "1"}
    assert set(result.values("world_size").values()) == {"4"}
    assert set(result.values("all_reduce").values()) == {"6"}  # 0+1+2+3: one group of four
    # the RANK bug, as values: on a 2-GPU machine, ranks 2 and 3 would ask for GPUs it lacks
    assert result.values("from_rank_exists") == {(0, 0): "yes", (0, 1): "yes", (1, 0): "no", (1, 1): "no"}
    assert result.values("from_local_rank")[(1, 0)] == "cuda:0"
    pids = [int(p) for p in result.values("pid").values()]
    assert len(pids) == 4 and not [pid for pid in pids if alive(pid)]
    assert result.leftover_pids == ()
    if psutil is not None:  # no torchrun launcher nor worker is left among this process's children
        assert [p for p in psutil.Process().children(recursive=True) if p not in before and alive(p.pid)] == []


@pytest.mark.slow
@pytest.mark.skipif(not CAN_FIND_PROCESSES, reason="needs psutil or /proc to look for leftover processes")
def test_a_machine_whose_partner_never_comes_is_killed_at_the_timeout(tmp_path):
    """One machine of two started alone waits at the rendezvous for ever: the timeout must end it all."""
    script = COURSE_SCRIPTS / "two_machines.py"
    result = launch(script, nproc=2, timeout=15, node=L.Node(2, 0, L.free_port()))
    assert result.timed_out and result.returncode is None
    assert result.leftover_pids == ()
