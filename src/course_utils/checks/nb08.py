"""Checks for the exercises of notebook 08, one process per device.

Every check is a pure function of its inputs (a LOCAL_RANK, an environment dict, a GPU count,
a device), so it means the same on a laptop without a GPU as on an eight-GPU server.
"""

from __future__ import annotations

from typing import Any, Callable

import torch

from course_utils.checks._core import Wrong, call, exercise, same
from course_utils.checks._guard import seal
from course_utils.distributed import device_for_rank, local_rank_from


def _as_device(got: Any, what: str) -> torch.device:
    if not isinstance(got, torch.device):
        raise Wrong(
            f"{what} returned {got!r} (a {type(got).__name__}); expected a torch.device.",
            "Wrap the name: return torch.device('cuda', local_rank), not the string 'cuda:0'.",
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


@exercise(
    "08.1",
    "Choose the device from LOCAL_RANK",
    "device_for_rank",
    hint="No GPU: torch.device('cpu'). Otherwise torch.device('cuda', local_rank), "
    "and ValueError when local_rank >= gpu_count.",
)
def _device_for_rank(fn) -> str:
    cases = [(rank, count) for count in (0, 1, 2, 4, 8) for rank in range(max(count, 3)) if rank < count or not count]
    for rank, count in cases:
        got = _as_device(call(fn, rank, count), f"device_for_rank({rank}, {count})")
        expected = device_for_rank(rank, count)
        if got != expected:
            if got.type == "cuda" and got.index is None:
                raise Wrong(
                    f"device_for_rank({rank}, {count}) returned {got} without an index; expected {expected}.",
                    "torch.device('cuda') means the current device, cuda:0 in every fresh process: give the index.",
                )
            raise Wrong(f"device_for_rank({rank}, {count}) returned {got}; expected {expected}.")
    for rank, count in ((2, 2), (1, 1), (5, 4)):
        _expect_value_error(fn, rank, count)
    return f"Right for {len(cases)} (local rank, GPU count) pairs, and it refuses a process without a GPU of its own."


def torchrun_env(rank: int, local_rank: int, world: int, local_world: int) -> dict[str, str]:
    """The variables torchrun sets in one process (values are strings, as in os.environ)."""
    return {
        "RANK": str(rank), "LOCAL_RANK": str(local_rank), "WORLD_SIZE": str(world),
        "LOCAL_WORLD_SIZE": str(local_world), "GROUP_RANK": str(rank // local_world),
        "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": "29500", "TORCHELASTIC_RUN_ID": "demo",
    }


def _launch(nodes: int, per_node: int) -> list[dict[str, str]]:
    world = nodes * per_node
    return [torchrun_env(node * per_node + i, i, world, per_node) for node in range(nodes) for i in range(per_node)]


# (name of the launch, environments of its processes, GPUs per machine)
LAUNCHES: tuple[tuple[str, list[dict[str, str]], int], ...] = (
    ("one machine, 2 GPUs, 2 processes", _launch(1, 2), 2),
    ("one machine, 4 GPUs, 4 processes", _launch(1, 4), 4),
    ("two machines, 4 GPUs each, 8 processes", _launch(2, 4), 4),
    ("a laptop without GPU, 2 processes", _launch(1, 2), 0),
    ("plain `python train.py` on a 1-GPU machine (no torchrun)", [{}], 1),
    ("plain `python train.py` without GPU", [{}], 0),
)


def _reference_pick(env: dict[str, str], gpu_count: int) -> torch.device:
    return device_for_rank(local_rank_from(env), gpu_count)


@exercise(
    "08.2",
    "Fix: every process lands on cuda:0",
    "pick_device",
    hint="Read env['LOCAL_RANK'] (a string: int() it; absent means 0), not RANK, "
    "and return torch.device('cuda', local_rank) when there are GPUs.",
)
def _pick_device(fn) -> str:
    for name, envs, gpus in LAUNCHES:
        for env in envs:
            got = _as_device(call(fn, dict(env), gpus), "pick_device(env, gpu_count)")
            expected = _reference_pick(env, gpus)
            if got == expected:
                continue
            rank = env.get("RANK", "absent")
            where = f"In the launch '{name}', the process with RANK={rank}, LOCAL_RANK={env.get('LOCAL_RANK', 'absent')}"
            if got.type == "cuda" and rank != "absent" and got.index == int(rank) != expected.index:
                raise Wrong(
                    f"{where} got {got}; expected {expected}. RANK counts processes across all machines; "
                    f"this machine only has cuda:0 to cuda:{gpus - 1}.",
                    "Use LOCAL_RANK, the process's number on its own machine.",
                )
            if got.type == "cuda" and got.index in (0, None) and expected.index not in (0, None):
                raise Wrong(
                    f"{where} got {got}; expected {expected}. Every process still lands on cuda:0: that is the bug.",
                )
            raise Wrong(f"{where} got {got}; expected {expected}.")
    return f"Every process of {len(LAUNCHES)} launches gets a GPU of its own (or the CPU where there is none)."


DEVICE_IDS_CASES: tuple[tuple[Any, list[int] | None], ...] = (
    (torch.device("cpu"), None),
    ("cpu", None),
    (torch.device("cuda", 0), [0]),
    ("cuda:1", [1]),
    (torch.device("cuda:3"), [3]),
    ("cuda:7", [7]),
)


@exercise(
    "08.3",
    "device_ids for DistributedDataParallel",
    "ddp_device_ids",
    hint="torch.device(device) accepts both forms. CPU module: None. Module on cuda:i: [i], a list with one int.",
)
def _ddp_device_ids(fn) -> str:
    for device, expected in DEVICE_IDS_CASES:
        got = call(fn, device)
        if expected is None and got is not None:
            raise Wrong(
                f"ddp_device_ids({device!r}) returned {got!r}; expected None. For a CPU module DDP raises "
                "ValueError ('device_ids and output_device arguments only work with single-device/multiple-device "
                "GPU modules or CPU modules') unless device_ids is None.",
            )
        if expected is not None and not same(got, expected):
            raise Wrong(
                f"ddp_device_ids({device!r}) returned {got!r}; expected {expected!r}, a list holding the GPU's index.",
                "device_ids=[i] for a module on cuda:i: torch.device(device).index gives i.",
            )
    return f"Right for {len(DEVICE_IDS_CASES)} devices: None on the CPU, [i] on cuda:i."


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
    hint="Group ranks by torch.device(d); 'cuda' without an index is cuda:0 in a fresh process; skip 'cpu'; "
    "keep only GPUs with two or more ranks, each list sorted.",
)
def _shared_gpus(fn) -> str:
    for devices, expected in SHARED_CASES:
        got = call(fn, dict(devices))
        if not isinstance(got, dict):
            raise Wrong(f"shared_gpus({devices}) returned {got!r}; expected a dict such as {expected!r}.")
        if not same(got, expected):
            raise Wrong(f"shared_gpus({devices}) returned {got!r}; expected {expected!r}.")
    return f"Right for {len(SHARED_CASES)} assignments: you would spot NCCL's 'Duplicate GPU detected' before NCCL does."


# Record this module as the file wrote it: check() compares with this record every time.
seal(__name__)
