"""Try-it cells of notebook 08 (one process per device): a right answer and plausible wrong ones."""

import torch
from try_it_support import Case

FIRST = "torchrun --nnodes 2 --node-rank 0 --nproc-per-node 2 --master-addr 127.0.0.1 --master-port 29500 scripts/two_machines.py"

TRY_ITS = [
    Case("08.a", "def device_from_env(env):\n    return torch.device('cuda', int(env['LOCAL_RANK']))", "pass"),
    Case("08.a", "def device_from_env(env):\n    return torch.device('cuda', int(env['RANK']))", "fail", "does not exist there"),
    Case("08.a", "def device_from_env(env):\n    return torch.device('cuda')", "fail", "without an index"),
    Case("08.a", "def device_from_env(env):\n    return 'cuda:' + env['LOCAL_RANK']", "fail", "torch.device"),
    Case("08.a", "def device_from_env(env):\n    return torch.device('cuda', env['LOCAL_RANK'])", "fail", "raised"),
    # right for the lesson's two machines of two GPUs only: they passed
    Case("08.a", "def device_from_env(env):\n    return torch.device('cuda', int(env['RANK']) % 2)", "fail", "two GPUs only"),
    Case(
        "08.a",
        "def device_from_env(env):\n    return torch.device('cuda', int(env['RANK']) - 2 * int(env['GROUP_RANK']))",
        "fail",
        "two GPUs only",
    ),
    Case("08.a", "def device_from_env(env):\n    return torch.device('cuda:' + env['LOCAL_RANK'])", "pass"),
    Case("08.b", f"second = {FIRST.replace('--node-rank 0', '--node-rank 1')!r}", "pass"),
    Case(
        "08.b",
        "second = 'python -m torch.distributed.run --nproc-per-node=2 --nnodes=2 --node-rank=1 "
        "--master-addr=127.0.0.1 --master-port=29500 scripts/two_machines.py'",
        "pass",
    ),
    Case("08.b", f"second = {FIRST!r}", "fail", "machine 0 is taken"),
    Case(
        "08.b", f"second = {FIRST.replace('--node-rank 0', '--node-rank 1').replace('29500', '29501')!r}", "fail", "listens at 127.0.0.1:29500"
    ),
    Case("08.b", f"second = {FIRST.replace('--node-rank 0', '--node-rank 1').replace('--nnodes 2 ', '')!r}", "fail", "--nnodes"),
    Case("08.b", "second = ['torchrun', '--node-rank', '1']", "fail", "one string"),
    # the lesson's one-machine runs start with `torchrun --standalone`: copied, it passed
    Case(
        "08.b",
        f"second = {FIRST.replace('--node-rank 0', '--node-rank 1').replace('torchrun', 'torchrun --standalone')!r}",
        "fail",
        "one-machine job",
    ),
    Case(
        "08.b",
        "second = 'torchrun --nnodes 2 --node-rank 1 --nproc-per-node 2 --master-addr 127.0.0.1 --master-port 29500 scripts/ddp_basics.py'",
        "fail",
        "two_machines.py",
    ),
]


# ----------------------------------------------------------------------------- exercises (listed in WRONG)


def pick_rank_modulo_gpus(env, gpu_count):
    """RANK modulo the GPU count: LOCAL_RANK only when every machine runs one process per GPU."""
    return torch.device("cuda", int(env.get("RANK", "0")) % gpu_count) if gpu_count else torch.device("cpu")


def pick_rank_less_machines_before(env, gpu_count):
    """RANK minus the GPUs of the machines before it: negative when a machine runs fewer processes than GPUs."""
    if not gpu_count:
        return torch.device("cpu")
    return torch.device("cuda", int(env.get("RANK", "0")) - int(env.get("GROUP_RANK", "0")) * gpu_count)


def ids_last_character(device):
    """Reads the index as the name's last character: cuda:10 becomes [0]."""
    name = str(device)
    return None if name == "cpu" else [int(name[-1])]


WRONG = [
    ("08.2", pick_rank_modulo_gpus, "LOCAL_RANK"),
    ("08.2", pick_rank_less_machines_before, "must not be negative"),
    ("08.3", ids_last_character, "'cuda:10'"),
]
