"""Two "machines" of two processes each: RANK counts across machines, LOCAL_RANK restarts on each.

Notebook 08 starts two torchrun launchers on this computer, one per pretend machine, that meet
at one address (the static rendezvous: the same --master-addr and --master-port, --node-rank 0
and 1):

    torchrun --nnodes 2 --node-rank 0 --nproc-per-node 2 --master-addr 127.0.0.1 --master-port P two_machines.py
    torchrun --nnodes 2 --node-rank 1 --nproc-per-node 2 --master-addr 127.0.0.1 --master-port P two_machines.py

Each process prints what torchrun told it, the GPU each rule would choose on a machine with
--gpus-per-machine GPUs (values only: no GPU is touched), and the result of an all_reduce over
all four processes on gloo with CPU tensors, which is only 0+1+2+3 = 6 if they form one group.
"""

import argparse
import os
import sys

import torch
import torch.distributed as dist


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gpus-per-machine", type=int, default=2, help="the GPUs each pretend machine has")
    args = parser.parse_args()
    gpus = args.gpus_per_machine

    rank = int(os.environ["RANK"])  # 0 .. WORLD_SIZE-1, across every machine
    local_rank = int(os.environ["LOCAL_RANK"])  # 0 .. LOCAL_WORLD_SIZE-1, on this machine only
    machine = int(os.environ["GROUP_RANK"])  # this machine's --node-rank

    # The two rules, as values: this machine has cuda:0 .. cuda:{gpus-1} and nothing else.
    from_rank, from_local_rank = f"cuda:{rank}", f"cuda:{local_rank}"
    exists = "yes" if rank < gpus else "no"

    dist.init_process_group("gloo")  # CPU tensors; gloo's address comes from MASTER_ADDR/MASTER_PORT
    total = torch.tensor([float(rank)])
    dist.all_reduce(total)  # SUM over every process of every machine
    print(
        f"pid={os.getpid()} machine={machine} rank={rank} local_rank={local_rank} world_size={os.environ['WORLD_SIZE']} "
        f"local_world_size={os.environ['LOCAL_WORLD_SIZE']} from_rank={from_rank} from_rank_exists={exists} "
        f"from_local_rank={from_local_rank} all_reduce={int(total.item())}"
    )

    dist.barrier()  # nobody tears down while a peer may still be in a collective
    dist.destroy_process_group()


def leave() -> None:
    """End without the interpreter's shutdown: gloo's threads outlive destroy_process_group
    (``ddp_basics.leave`` says why), and one running during shutdown can abort the process."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
    leave()
