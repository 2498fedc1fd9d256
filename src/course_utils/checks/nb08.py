"""Checks for the exercises of notebook 08, one process per device.

Every check is a pure function of its inputs (a LOCAL_RANK, an environment dict, a GPU count,
a device), so it means the same on a laptop without a GPU as on an eight-GPU server.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

from course_utils.checks._core import Wrong, call, cases, exercise, same, try_it


def _as_device(got: Any, what: str) -> torch.device:
    if not isinstance(got, torch.device):
        raise Wrong(
            f"{what} returned {got!r} (a {type(got).__name__}); expected a torch.device.",
            "A string names a device but is not one: torch.device builds one from a type and an index.",
        )
    return got


def _expect_value_error(fn: Callable, *args: Any) -> None:
    """The learner's function must raise ValueError for these arguments (called after ``call`` ran it once)."""
    shown = ", ".join(map(repr, args))
    try:
        got = fn(*args)
    except ValueError:
        return
    except Exception as exc:
        raise Wrong(
            f"{fn.__name__}({shown}) raised {type(exc).__name__}: {exc}; expected a ValueError.",
            "Raise ValueError yourself, with a message that says how many GPUs there are.",
        ) from None
    raise Wrong(
        f"{fn.__name__}({shown}) returned {got!r}, but that process has no GPU of its own: it should raise ValueError.",
        "When local_rank >= gpu_count > 0, two processes would share a GPU: raise ValueError instead.",
    )


# (LOCAL_RANK, GPUs on the machine, the process's device); every GPU count from none to eight
RANK_CASES: tuple[tuple[int, int, str], ...] = (
    (0, 0, "cpu"),
    (1, 0, "cpu"),
    (2, 0, "cpu"),
    (0, 1, "cuda:0"),
    (0, 2, "cuda:0"),
    (1, 2, "cuda:1"),
    (0, 4, "cuda:0"),
    (1, 4, "cuda:1"),
    (2, 4, "cuda:2"),
    (3, 4, "cuda:3"),
    (0, 8, "cuda:0"),
    (1, 8, "cuda:1"),
    (2, 8, "cuda:2"),
    (3, 8, "cuda:3"),
    (4, 8, "cuda:4"),
    (5, 8, "cuda:5"),
    (6, 8, "cuda:6"),
    (7, 8, "cuda:7"),
)
# (LOCAL_RANK, GPUs on the machine): a process past the last GPU, which must be refused with a ValueError
RANK_REFUSED: tuple[tuple[int, int], ...] = ((2, 2), (1, 1), (5, 4))


@exercise(
    "08.1",
    "Choose the device from LOCAL_RANK",
    "device_for_rank",
    hint=(
        "Three cases: no GPU at all, a local rank that has a GPU of its own, and a local rank past the last "
        "GPU (raise a ValueError that says so)."
    ),
)
def _device_for_rank(fn) -> str:
    rows, refused = cases("08.1", (RANK_CASES, RANK_REFUSED))
    for rank, count, device in rows:
        got = _as_device(call(fn, rank, count), f"device_for_rank({rank}, {count})")
        expected = torch.device(device)
        if got != expected:
            if got.type == "cuda" and got.index is None:
                raise Wrong(
                    f"device_for_rank({rank}, {count}) returned {got} without an index.",
                    "torch.device('cuda') means the current device, cuda:0 in every fresh process: give the index.",
                )
            if count == 0:
                raise Wrong(
                    f"device_for_rank({rank}, {count}) returned {got}, but that machine has no GPU.",
                    "A machine without a GPU still runs the process: on the device every machine has.",
                )
            raise Wrong(f"device_for_rank({rank}, {count}) returned {got}, which is not that process's device.")
    for rank, count in refused:
        _expect_value_error(fn, rank, count)
    return f"Right for {len(rows)} (local rank, GPU count) pairs, and it refuses a process without a GPU of its own."


def torchrun_env(rank: int, local_rank: int, world: int, local_world: int) -> dict[str, str]:
    """The variables torchrun sets in one process (values are strings, as in os.environ)."""
    return {
        "RANK": str(rank),
        "LOCAL_RANK": str(local_rank),
        "WORLD_SIZE": str(world),
        "LOCAL_WORLD_SIZE": str(local_world),
        "GROUP_RANK": str(rank // local_world),
        "MASTER_ADDR": "127.0.0.1",
        "MASTER_PORT": "29500",
        "TORCHELASTIC_RUN_ID": "demo",
    }


def _launch(nodes: int, per_node: int) -> list[dict[str, str]]:
    world = nodes * per_node
    return [torchrun_env(node * per_node + i, i, world, per_node) for node in range(nodes) for i in range(per_node)]


def _devices(*names: str) -> tuple[torch.device, ...]:
    return tuple(torch.device(name) for name in names)


# (name of the launch, environments of its processes, GPUs per machine, the device of each process)
LAUNCHES: tuple[tuple[str, list[dict[str, str]], int, tuple[torch.device, ...]], ...] = (
    ("one machine, 2 GPUs, 2 processes", _launch(1, 2), 2, _devices("cuda:0", "cuda:1")),
    ("one machine, 4 GPUs, 4 processes", _launch(1, 4), 4, _devices("cuda:0", "cuda:1", "cuda:2", "cuda:3")),
    (
        "two machines, 4 GPUs each, 8 processes",
        _launch(2, 4),
        4,
        _devices("cuda:0", "cuda:1", "cuda:2", "cuda:3", "cuda:0", "cuda:1", "cuda:2", "cuda:3"),
    ),
    ("a laptop without GPU, 2 processes", _launch(1, 2), 0, _devices("cpu", "cpu")),
    ("plain `python train.py` on a 1-GPU machine (no torchrun)", [{}], 1, _devices("cuda:0")),
    ("plain `python train.py` without GPU", [{}], 0, _devices("cpu")),
)
# asked in every run (practice or graded): two machines with more GPUs than processes, where RANK modulo the GPU
# count is not LOCAL_RANK (the second machine's first process is RANK 2: cuda:2, not cuda:0), nor is RANK minus the
# GPUs of the machines before
LAUNCHES_ALWAYS: tuple[tuple[str, list[dict[str, str]], int, tuple[torch.device, ...]], ...] = (
    ("two machines, 4 GPUs each, 2 processes each", _launch(2, 2), 4, _devices("cuda:0", "cuda:1", "cuda:0", "cuda:1")),
)


@exercise(
    "08.2",
    "Fix: every process lands on cuda:0",
    "pick_device",
    hint=("LOCAL_RANK, not RANK, numbers the processes on one machine. Environment values are strings, and a missing LOCAL_RANK means 0."),
)
def _pick_device(fn) -> str:
    launches = (*cases("08.2", LAUNCHES), *LAUNCHES_ALWAYS)
    for name, envs, gpus, devices in launches:
        for env, expected in zip(envs, devices, strict=True):
            got = _as_device(call(fn, dict(env), gpus), "pick_device(env, gpu_count)")
            if got == expected:
                continue
            rank = env.get("RANK", "absent")
            where = f"In the launch '{name}', the process with RANK={rank}, LOCAL_RANK={env.get('LOCAL_RANK', 'absent')}"
            if got.type == "cuda" and rank != "absent" and gpus and got.index == int(rank) % gpus != expected.index:
                raise Wrong(
                    f"{where} got {got}. RANK counts the processes of all machines; even taken modulo the GPU "
                    "count it is the process's number on its machine only when every machine runs one process per GPU.",
                    "Use LOCAL_RANK, the process's number on its own machine.",
                )
            if got.type == "cuda" and rank != "absent" and got.index == int(rank) != expected.index:
                raise Wrong(
                    f"{where} got {got}. RANK counts processes across all machines; this machine only has cuda:0 to cuda:{gpus - 1}.",
                    "Use LOCAL_RANK, the process's number on its own machine.",
                )
            if got.type == "cuda" and got.index in (0, None) and expected.index not in (0, None):
                raise Wrong(
                    f"{where} got {got}. Every process still lands on cuda:0: that is the bug.",
                )
            if got.type == "cuda" and got.index is None:
                raise Wrong(
                    f"{where} got {got} without an index: that is the current device, cuda:0 in every fresh process.",
                    "Give the index too: LOCAL_RANK, read from env as an int.",
                )
            raise Wrong(f"{where} got {got}, which is not that process's device.")
    return f"Every process of {len(launches)} launches gets a GPU of its own (or the CPU where there is none)."


DEVICE_IDS_CASES: tuple[tuple[Any, list[int] | None], ...] = (
    (torch.device("cpu"), None),
    ("cpu", None),
    (torch.device("cuda", 0), [0]),
    ("cuda:1", [1]),
    (torch.device("cuda:3"), [3]),
    ("cuda:7", [7]),
)
# asked in every run (practice or graded): a two-digit index (16-GPU machines have cuda:10 to cuda:15), which an
# answer reading the device string's last character gets wrong
DEVICE_IDS_ALWAYS: tuple[tuple[Any, list[int] | None], ...] = (("cuda:10", [10]), (torch.device("cuda", 15), [15]))


@exercise(
    "08.3",
    "device_ids for DistributedDataParallel",
    "ddp_device_ids",
    hint=(
        "torch.device(device) reads both forms of input. DDP wants None for a CPU module, and a list holding "
        "the GPU's index for a module on one GPU."
    ),
)
def _ddp_device_ids(fn) -> str:
    rows = (*cases("08.3", DEVICE_IDS_CASES), *DEVICE_IDS_ALWAYS)
    for device, expected in rows:
        got = call(fn, device)
        if expected is None and got is not None:
            raise Wrong(
                f"ddp_device_ids({device!r}) returned {got!r}; expected None. For a CPU module DDP raises "
                "ValueError ('device_ids and output_device arguments only work with single-device/multiple-device "
                "GPU modules or CPU modules') unless device_ids is None.",
            )
        if expected is not None and not same(got, expected):
            raise Wrong(
                f"ddp_device_ids({device!r}) returned {got!r}; expected a list holding the GPU's index.",
                "device_ids=[i] for a module on cuda:i: torch.device(device).index gives i.",
            )
    return f"Right for {len(rows)} devices: None on the CPU, [i] on cuda:i."


SHARED_CASES: tuple[tuple[dict[int, str], dict[str, list[int]]], ...] = (
    ({0: "cuda:0", 1: "cuda:0"}, {"cuda:0": [0, 1]}),
    ({0: "cuda:0", 1: "cuda:1"}, {}),
    ({0: "cpu", 1: "cpu"}, {}),
    ({0: "cuda:1", 1: "cuda:0", 2: "cuda:1", 3: "cuda:2"}, {"cuda:1": [0, 2]}),
    ({3: "cuda:1", 2: "cuda:1", 1: "cuda:0", 0: "cuda:0"}, {"cuda:0": [0, 1], "cuda:1": [2, 3]}),
    ({0: "cuda", 1: "cuda:0", 2: "cuda:1"}, {"cuda:0": [0, 1]}),
    ({0: "cuda", 1: "cuda"}, {"cuda:0": [0, 1]}),
)


@exercise(
    "08.4",
    "Find the GPUs that several ranks share",
    "shared_gpus",
    hint=(
        "Give each GPU one name (torch.device(d); 'cuda' without an index is cuda:0 in a fresh process), "
        "group the ranks by it, skip the CPU, and keep only GPUs with two or more ranks, each list sorted."
    ),
)
def _shared_gpus(fn) -> str:
    rows = cases("08.4", SHARED_CASES)
    for devices, expected in rows:
        got = call(fn, dict(devices))
        if not isinstance(got, dict):
            raise Wrong(f"shared_gpus({devices}) returned {got!r}; expected a dict {{GPU name: [ranks]}}.")
        if not same(got, expected):
            raise Wrong(f"shared_gpus({devices}) returned {got!r}, which is not the GPUs those ranks share.")
    return f"Right for {len(rows)} assignments: you would spot NCCL's 'Duplicate GPU detected' before NCCL does."


# --------------------------------------------------------------------------- the lesson's try-it cells

# The four processes of the lesson's two-machine run: two machines, two processes and two GPUs each.
TWO_MACHINES: tuple[dict[str, str], ...] = tuple(_launch(2, 2))
# and two machines of four GPUs, so that an answer built for two GPUs a machine (RANK % 2) shows
FOUR_GPUS: tuple[dict[str, str], ...] = tuple(_launch(2, 4))


@try_it(
    "08.a",
    "The device from LOCAL_RANK",
    name="device_from_env",
    kind="function",
    hint=("LOCAL_RANK numbers the processes on one machine; RANK counts across machines. An environment value is a string."),
)
def _device_from_env(fn) -> str:
    for env in TWO_MACHINES + FOUR_GPUS:
        got = _as_device(call(fn, dict(env)), f"device_from_env(RANK={env['RANK']}, LOCAL_RANK={env['LOCAL_RANK']})")
        expected = torch.device("cuda", int(env["LOCAL_RANK"]))
        if got == expected:
            continue
        where = f"For the process with RANK={env['RANK']}, LOCAL_RANK={env['LOCAL_RANK']} you chose {got}"
        if env in FOUR_GPUS and got.type == "cuda" and got.index is not None:
            raise Wrong(
                f"{where.replace('you chose', 'on machines of four GPUs, you chose')}, which is not that process's GPU: "
                "your answer was right on the lesson's machines of two GPUs only.",
                "A number typed into the function fits one layout; a variable in env numbers the processes within "
                "their machine, whatever its size.",
            )
        if got.type == "cuda" and got.index == int(env["RANK"]):
            raise Wrong(
                f"{where}; each machine has only cuda:0 and cuda:1, so that GPU does not exist there.",
                "RANK counts the processes of all machines; another variable in env numbers them within one machine.",
            )
        if got.type == "cuda" and got.index is None:
            raise Wrong(
                f"{where}, without an index: that is the current device, cuda:0 in every process.",
                "Give the index too: torch.device takes a type and an index, and LOCAL_RANK is that index.",
            )
        raise Wrong(f"{where}, which is not that process's GPU.", "The GPU's index is LOCAL_RANK, read from env as an int.")
    return "Right for the lesson's four processes (cuda:0 and cuda:1 on each machine), and on two machines of four GPUs."


def _torchrun_args(value: Any) -> list[str]:
    import shlex

    if not isinstance(value, str):
        raise Wrong(
            f"`second` should be the command as one string, but it is a {type(value).__name__}.",
            'Write it as you would type it: second = "torchrun --nnodes 2 ..."',
        )
    words = shlex.split(value)
    if words[:1] == ["torchrun"]:
        return words[1:]
    if words[1:3] == ["-m", "torch.distributed.run"]:
        return words[3:]
    raise Wrong(
        f"`second` starts with {' '.join(words[:3])!r}; expected a torchrun command.",
        "Start it with `torchrun` (or `python -m torch.distributed.run`).",
    )


@try_it(
    "08.b",
    "The second machine's torchrun command",
    name="second",
    hint="Machine 1 runs the same torchrun command as machine 0 with one option changed: which machine it is.",
    writes="the torchrun command for machine 1, as a Python string in quotes",
)
def _second_machine(value) -> str:
    from torch.distributed.run import get_args_parser

    args = _torchrun_args(value)
    try:
        parsed = get_args_parser().parse_args(args)
    except SystemExit:  # argparse's way of refusing
        raise Wrong(
            f"torchrun cannot read {value!r}: an unknown option or a missing script.",
            "Use the options of the first machine's command, and end with the script.",
        ) from None
    script = (parsed.training_script or "").replace("\\", "/")
    if not script.endswith("scripts/two_machines.py"):
        raise Wrong(f"The script is {parsed.training_script!r}; both machines must run scripts/two_machines.py.")
    if str(parsed.nnodes) != "2":
        raise Wrong(f"--nnodes is {parsed.nnodes}; the job has 2 machines, and each torchrun must say so.", "Keep --nnodes 2 on both machines.")
    if parsed.node_rank != 1:
        raise Wrong(
            f"--node-rank is {parsed.node_rank}; machine 0 is taken by the first command.",
            "--node-rank says which machine a command is for, counting from 0.",
        )
    if str(parsed.nproc_per_node) != "2":
        raise Wrong(f"--nproc-per-node is {parsed.nproc_per_node}; each machine runs 2 processes here.")
    if parsed.standalone:
        raise Wrong(
            "--standalone makes a one-machine job: torchrun then meets only itself, on this machine, and machine 1 would never join machine 0.",
            "Leave out --standalone, the option of the one-machine runs: a job of two machines meets at machine 0's address.",
        )
    if parsed.rdzv_backend != "static" or parsed.master_addr != "127.0.0.1" or parsed.master_port != 29500:
        raise Wrong(
            f"This machine would look for machine 0 at {parsed.master_addr}:{parsed.master_port} "
            f"(rendezvous {parsed.rdzv_backend}); machine 0 listens at 127.0.0.1:29500.",
            "Use the same --master-addr and --master-port as the first machine.",
        )
    return "Right: machine 1 of 2, two processes, meeting machine 0 at 127.0.0.1:29500. Its RANKs will be 2 and 3."
