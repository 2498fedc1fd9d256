"""The classic multi-GPU mistake: every process picks cuda:0.

    python -m torch.distributed.run --standalone --nproc-per-node 2 every_rank_on_cuda0.py [--pretend-gpus N]

buggy_device() is what many single-GPU scripts do: "cuda" (or "cuda:0") when there is a GPU.
Under torchrun every process runs that same line, so every process lands on GPU 0.
fixed_device() reads LOCAL_RANK instead.

With --pretend-gpus N (no GPU needed) each rank prints what both versions would choose on a
machine with N GPUs, touching no GPU. Without it (a GPU per process needed) the buggy version
runs for real with NCCL: both processes put their tensor on cuda:0 and call all_reduce.
"""

import argparse
import os

import torch
import torch.distributed as dist

LOCAL_RANK = int(os.environ["LOCAL_RANK"])


def buggy_device(gpu_count: int) -> torch.device:
    # BUG: the same answer in every process. (torch.device("cuda") is no better: it means the
    # current device, which is cuda:0 in every process that never called torch.cuda.set_device.)
    return torch.device("cuda:0") if gpu_count else torch.device("cpu")


def fixed_device(gpu_count: int) -> torch.device:
    return torch.device("cuda", LOCAL_RANK) if gpu_count else torch.device("cpu")  # one GPU per process


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pretend-gpus", type=int, default=None, help="print the choices for N GPUs, touch none")
    args = parser.parse_args()

    if args.pretend_gpus is not None:
        n = args.pretend_gpus
        print(f"local_rank={LOCAL_RANK} gpus={n} buggy={buggy_device(n)} fixed={fixed_device(n)}")
        return

    n = torch.cuda.device_count()
    # Before any set_device, the current device is cuda:0 in every process.
    print(f"local_rank={LOCAL_RANK} gpus={n} current_device={torch.cuda.current_device()} buggy={buggy_device(n)} fixed={fixed_device(n)}")
    dist.init_process_group("nccl")
    tensor = torch.ones(1, device=buggy_device(n))
    dist.all_reduce(tensor)  # NCCL refuses two ranks on one GPU, or the run hangs
    print(f"all_reduce={tensor.item()}")
    dist.barrier()  # leave together (see ddp_basics.py)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
