"""A collective one rank never joins: the run hangs until something kills it.

    python -m torch.distributed.run --standalone --nproc-per-node 2 hang_one_rank.py

Rank 0 calls all_reduce and waits for rank 1; rank 1 is stuck elsewhere (here: asleep). gloo
waits for its timeout (30 minutes unless init_process_group(timeout=...) says otherwise).
The notebook launches it with a short timeout to show that the launcher kills every process.
"""

import os
import time

print(f"local_rank={os.environ['LOCAL_RANK']} pid={os.getpid()}", flush=True)  # first, so even a slow start shows it

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402


def main() -> None:
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    if rank == 0:
        print("rank 0: all_reduce, waiting for rank 1 ...")
        dist.all_reduce(torch.ones(1))  # waits for a peer that never comes
    else:
        print("rank 1: busy elsewhere, never joins")
        time.sleep(3600)


if __name__ == "__main__":
    main()
