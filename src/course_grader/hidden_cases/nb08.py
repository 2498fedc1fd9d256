"""Drawn cases of exercise set 08 (one process per device): local ranks and GPU counts, torchrun launches,
devices for DDP's device_ids, ranks that share a GPU. Each rule returns rows in the shape of the public table
of ``course_utils.checks.nb08``, the expected values computed here from the rules the exercises state."""

from __future__ import annotations

import random

import torch

from course_utils.checks.nb08 import torchrun_env

_MAX_GPUS = 16


def _device_of(local_rank: int, gpus: int) -> str:
    """The process's device: the CPU on a machine without GPUs, else the GPU its local rank numbers."""
    return f"cuda:{local_rank}" if gpus else "cpu"


def device_for_rank(rng: random.Random) -> tuple[list[tuple[int, int, str]], list[tuple[int, int]]]:
    """(RANK_CASES, RANK_REFUSED) drawn: 12 to 16 (local rank, GPUs, device), two to three of them without GPUs,
    and 3 or 4 (local rank, GPUs) with the local rank at or past the last GPU."""
    rows = [(rng.randrange(8), 0, "cpu") for _ in range(rng.randint(2, 3))]
    size = rng.randint(12, 16)
    while len(rows) < size:
        gpus = rng.randint(1, _MAX_GPUS)
        rank = rng.randrange(gpus)
        rows.append((rank, gpus, _device_of(rank, gpus)))
    rng.shuffle(rows)
    refused = []
    for _ in range(rng.randint(3, 4)):
        gpus = rng.randint(1, _MAX_GPUS)
        refused.append((rng.randint(gpus, gpus + 8), gpus))
    return rows, refused


def _launch(rng: random.Random, gpus: int, nodes: int | None = None, fewest: int = 1):
    """(what, the torchrun environment of each process, GPUs per machine, the device each process must pick):
    over ``nodes`` machines (drawn if None), ``fewest`` processes or more on each."""
    nodes = nodes or rng.randint(1, 3)
    per_node = rng.randint(fewest, gpus) if gpus else rng.randint(1, 4)
    world = nodes * per_node
    envs = [torchrun_env(node * per_node + i, i, world, per_node) for node in range(nodes) for i in range(per_node)]
    devices = tuple(torch.device(_device_of(int(env["LOCAL_RANK"]), gpus)) for env in envs)
    where = f"{gpus} GPUs each" if gpus else "no GPU"
    return f"{nodes} machine(s), {where}, {per_node} process(es) each", envs, gpus, devices


def pick_device(rng: random.Random) -> list[tuple[str, list[dict[str, str]], int, tuple[torch.device, ...]]]:
    """As ``LAUNCHES``: 4 or 5 torchrun launches over 1 to 3 machines with 2 to 8 GPUs each (one of them with
    none), and a plain ``python train.py`` (no torchrun variables) with and without a GPU."""
    # the first over 2 or 3 machines of 2 processes or more: a global RANK past the machine's GPUs, where
    # LOCAL_RANK names the GPU, and GPUs other than cuda:0
    launches = [_launch(rng, rng.randint(2, 8), rng.randint(2, 3), fewest=2)]
    launches += [_launch(rng, rng.randint(2, 8)) for _ in range(rng.randint(2, 3))] + [_launch(rng, 0)]
    gpus = rng.randint(1, 8)
    launches += [
        ("plain `python train.py` without torchrun", [{}], gpus, (torch.device("cuda:0"),)),
        ("plain `python train.py` without GPU", [{}], 0, (torch.device("cpu"),)),
    ]
    rng.shuffle(launches)
    return launches


def _device_form(rng: random.Random, kind: str, index: int):
    """The device as a str or as a torch.device, made either way."""
    if kind == "cpu":
        return rng.choice(("cpu", torch.device("cpu")))
    return rng.choice((f"cuda:{index}", torch.device("cuda", index), torch.device(f"cuda:{index}")))


def ddp_device_ids(rng: random.Random) -> list[tuple[object, list[int] | None]]:
    """As ``DEVICE_IDS_CASES``: 6 to 9 devices, two of them the CPU, the others GPUs 0 to 15."""
    rows: list[tuple[object, list[int] | None]] = [(_device_form(rng, "cpu", 0), None) for _ in range(2)]
    for index in rng.sample(range(_MAX_GPUS), rng.randint(4, 7)):
        rows.append((_device_form(rng, "cuda", index), [index]))
    rng.shuffle(rows)
    return rows


def _shared(devices: dict[int, str]) -> dict[str, list[int]]:
    """The GPUs two ranks or more chose, by one name each (``cuda`` alone is cuda:0), the CPU left out."""
    by_gpu: dict[str, list[int]] = {}
    for rank, name in devices.items():
        device = torch.device(name)
        if device.type != "cpu":
            by_gpu.setdefault(f"cuda:{device.index or 0}", []).append(rank)
    return {gpu: sorted(ranks) for gpu, ranks in by_gpu.items() if len(ranks) > 1}


def shared_gpus(rng: random.Random) -> list[tuple[dict[int, str], dict[str, list[int]]]]:
    """As ``SHARED_CASES``: 6 to 8 assignments of 2 to 8 ranks (in a drawn order) to the CPU, ``cuda`` or
    cuda:0 to cuda:3; at least one where no GPU is shared and one where one is, one where ``cuda`` and cuda:0
    are two names of it, one where two ranks are on the CPU (which is not shared)."""
    rows = []
    for _ in range(rng.randint(6, 8)):
        ranks = list(range(rng.randint(3 if len(rows) == 1 else 2, 8)))
        rng.shuffle(ranks)
        names = ["cpu", "cuda", *(f"cuda:{i}" for i in range(rng.randint(1, 4)))]
        devices = {rank: rng.choice(names) for rank in ranks}
        if len(rows) < 2:  # as in the public rows: `cuda` and cuda:0 held by two ranks (one GPU); two on the CPU
            first, second = rng.sample(ranks, 2)
            devices[first], devices[second] = ("cuda", "cuda:0") if not rows else ("cpu", "cpu")
        if len(rows) == 1 and len(ranks) > 2:  # and a GPU only one rank holds: not shared
            alone = next(rank for rank in ranks if rank not in (first, second))
            devices[alone] = rng.choice(names[2:])
            for rank in ranks:
                if rank != alone and devices[rank] != "cpu" and _shared({0: devices[rank], 1: devices[alone]}):
                    devices[rank] = "cpu"
        rows.append((devices, _shared(devices)))
    if all(shared for _, shared in rows) or not any(shared for _, shared in rows):
        return shared_gpus(rng)
    rng.shuffle(rows)
    return rows


RULES = {"08.1": device_for_rank, "08.2": pick_device, "08.3": ddp_device_ids, "08.4": shared_gpus}
