"""device_ids that do not match where the module lives.

    python -m torch.distributed.run --standalone --nproc-per-node 2 ddp_wrong_device_ids.py [--gpu]

Default (CPU, gloo): the module is on the CPU but device_ids=[LOCAL_RANK] was copied from a GPU
recipe. DistributedDataParallel refuses at construction with a ValueError: for CPU modules
device_ids must be None.

--gpu (a GPU per process, NCCL): the module is on this process's GPU, cuda:LOCAL_RANK, but
device_ids=[0]. DDP accepts it and moves every forward input to device_ids[0], cuda:0, so on
rank 1 the forward pass mixes cuda:0 inputs with cuda:1 weights.
"""

import argparse
import os

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

from course_utils.distributed import backend_for, use_device


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gpu", action="store_true", help="the GPU variant (needs one GPU per process)")
    args = parser.parse_args()

    local_rank = int(os.environ["LOCAL_RANK"])
    device = use_device(torch.device("cuda", local_rank)) if args.gpu else torch.device("cpu")
    dist.init_process_group(backend_for(device))
    model = nn.Linear(4, 2).to(device)
    wrong_ids = [0] if args.gpu else [local_rank]
    print(f"local_rank={local_rank} module_device={device} device_ids={wrong_ids}")

    ddp = DDP(model, device_ids=wrong_ids)  # CPU: ValueError here
    out = ddp(torch.randn(3, 4, device=device))  # GPU: inputs moved to cuda:0; rank 1 fails here
    print(f"output_device={out.device}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
