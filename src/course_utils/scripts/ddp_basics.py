"""One process per device with DistributedDataParallel: the recipe of notebook 08.

Run it the way the notebook does (two processes on this machine):

    python -m torch.distributed.run --standalone --nproc-per-node 2 ddp_basics.py [--cpu]

Each process reads LOCAL_RANK, picks its own device by hand, in the few lines a real training
script uses (cuda:LOCAL_RANK on a machine with enough GPUs, the CPU otherwise or with --cpu),
makes it the current device, builds its model there, wraps it in DistributedDataParallel with
the matching device_ids, takes one training step on its own data, and prints checksums of its
parameters. Every line is key=value pairs, so the notebook can read them back.
"""

import argparse
import os
import sys

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

from course_utils.distributed import backend_for, checksum, local_accelerator


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cpu", action="store_true", help="use the CPU (gloo) even where there are GPUs")
    args = parser.parse_args()

    # 1. Who am I on this machine? torchrun sets LOCAL_RANK = 0, 1, ... for its processes.
    local_rank = int(os.environ["LOCAL_RANK"])

    # 2. My own device: cuda:LOCAL_RANK where there is one GPU per process, else the CPU.
    #    More processes than devices would put two on one GPU, which NCCL refuses: stop and say so.
    kind, count = ("cpu", 0) if args.cpu else local_accelerator()
    if count and local_rank >= count:
        sys.exit(
            f"local rank {local_rank} has no {kind} device of its own: this machine has {count}. "
            f"Start at most {count} processes per machine (--nproc-per-node {count}), one per device."
        )
    device = torch.device(kind, local_rank) if count else torch.device("cpu")
    if device.type == "cuda":
        torch.cuda.set_device(device)  # from now on "cuda" (and NCCL) means MY GPU, not cuda:0
    elif device.type != "cpu":
        torch.accelerator.set_device_index(device.index)  # the same, for other accelerators

    # 3. Join the others: NCCL for CUDA tensors, gloo for CPU tensors.
    backend = backend_for(device)
    dist.init_process_group(backend)
    rank, world = dist.get_rank(), dist.get_world_size()
    current = torch.cuda.current_device() if device.type == "cuda" else "none"
    print(f"rank={rank} local_rank={local_rank} world_size={world} device={device} backend={backend} current_cuda_device={current}")

    # 4. Build the model on my device. Seeded by rank, so each process starts from different weights.
    torch.manual_seed(rank)
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1)).to(device)
    print(f"before_ddp={checksum(model)}")

    # 5. Wrap it: device_ids=[i] for a module on cuda:i, None for a CPU module.
    #    DDP broadcasts rank 0's parameters, so every replica starts equal.
    ddp = DDP(model, device_ids=None if device.type == "cpu" else [device.index])
    print(f"device_ids={ddp.device_ids} after_ddp={checksum(model)}")

    # 6. One step on MY data (different on each rank). backward() averages the gradients
    #    across ranks, so every replica takes the same step and stays equal.
    optimizer = torch.optim.SGD(ddp.parameters(), lr=0.1)
    x = torch.randn(32, 8, device=device)
    y = x.sum(dim=1, keepdim=True)
    loss = F.mse_loss(ddp(x), y)
    loss.backward()
    optimizer.step()
    print(f"loss={loss.item():.4f} after_step={checksum(model)}")

    # Leave together: nobody tears down while a peer may still be in a collective.
    del ddp, optimizer
    dist.barrier()
    dist.destroy_process_group()


def leave() -> None:
    """End this process without Python's interpreter shutdown, once its work is done and printed.

    Why: with gloo, destroy_process_group() does not stop the group's threads. ProcessGroupGloo
    has no shutdown() of its own (c10d's Backend::shutdown() is an empty default), so its worker
    threads and gloo's socket loop live until the C++ object is destroyed, and DDP's construction
    leaves references to the group that outlive both DDP and destroy_process_group() (in 2.13: 10
    references, none of them visible to gc). The threads therefore run while the interpreter shuts
    down, which torch/distributed/distributed_c10d.py itself warns about ("the dtor might finish
    after the Python Interpreter exits. After that grabbing the GIL ... will crash"): a thread
    that needs the GIL then is ended by CPython with pthread_exit, and its unwinding through
    C++ code aborts the process ("terminate called without an active exception", SIGABRT).
    os._exit skips that shutdown, as every torch.multiprocessing.spawn worker already does
    (multiprocessing ends its children with os._exit).
    """
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
    leave()
