"""A collective given a tensor on a device its backend does not serve.

    python -m torch.distributed.run --standalone --nproc-per-node 2 wrong_device_collective.py

A process group maps each device type to a backend. backend="nccl" registers NCCL for CUDA
tensors only (torch.distributed.Backend.backend_capability["nccl"] == ["cuda"]), so a CPU
tensor finds no backend. On a machine with a GPU per process this script does exactly that.
Without GPUs it registers gloo for CUDA tensors only (backend="cuda:gloo"), the same shape as
"nccl", and hands it the same CPU tensor: the same lookup fails with the same message.

First, though, a meta tensor: it has no data, so all_reduce returns at once without error and
without sending anything. "No error" is not "it communicated". (PyTorch 2.7 raises
NotImplementedError there instead: c10d's collectives had no meta kernels registered yet.)
"""

import os

import torch
import torch.distributed as dist

from course_utils.distributed import local_accelerator, use_device


def main() -> None:
    local_rank = int(os.environ["LOCAL_RANK"])
    world = int(os.environ["LOCAL_WORLD_SIZE"])
    kind, count = local_accelerator()
    on_gpus = kind == "cuda" and count >= world
    if on_gpus:
        use_device(torch.device(kind, local_rank))  # cuda:LOCAL_RANK: count >= world, so it exists
    backend = "nccl" if on_gpus else "cuda:gloo"  # either way: a backend for CUDA tensors only
    dist.init_process_group(backend)
    print(f"local_rank={local_rank} backend={backend}")

    meta = torch.ones(4, device="meta")
    try:
        dist.all_reduce(meta)  # returns at once: no data, nothing sent
        print(f"meta_all_reduce=returned_without_error meta_device={meta.device}")
    except NotImplementedError:  # PyTorch 2.7: c10d::allreduce_ had no meta kernel yet
        print(f"meta_all_reduce=NotImplementedError meta_device={meta.device}")

    cpu = torch.ones(4)  # the mistake: a CPU tensor for a CUDA-only backend
    dist.all_reduce(cpu)
    print(f"cpu_all_reduce={cpu.tolist()}")  # never reached
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
