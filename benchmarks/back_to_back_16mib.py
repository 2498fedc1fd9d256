"""Lesson 06's two timings of one 16 MiB copy, back to back: do they agree, and if not, does the output say why?

Each run times the copy as notebook 06's core does (one intra-op thread, a warm-up copy into
the fresh destination, 30 synchronized samples), then with ``time_copy`` on the same
buffers, and prints both bandwidths with their spread (IQR as a share of the median) and
``compare``'s verdict: AGREE (medians within 10%), DISAGREE, or NOT COMPARABLE (a spread past
the 25% at which ``torch.utils.benchmark`` warns of environmental influence).

``--before`` runs the method the lesson used until issue 22 instead (the loop on torch's
default thread count, 10 samples; ``measure_copy`` on fresh buffers), to show why the two
disagreed: a host copy split over threads waits for the slowest, and on a busy machine one
thread is often descheduled.

Run: ``python benchmarks/back_to_back_16mib.py [--runs 5] [--before]``. Without an accelerator
the copies are the host-memory stand-in (CPU to CPU), and the output says so.
"""

from __future__ import annotations

import argparse
import os
import time

import torch

from course_utils.devices import check_device
from course_utils.transfer import Spread, compare, measure_copy, time_copy, torch_threads
from course_utils.transfer.results import STAND_IN


def one_run(device: torch.device, before: bool) -> str:
    src = torch.randn(4 * 2**20)  # 16 MiB of float32, as in the lesson
    dst = torch.empty_like(src, device=device)
    sync = torch.accelerator.synchronize if device.type != "cpu" else (lambda: None)
    with torch_threads(None if before else 1):
        dst.copy_(src)
        sync()
        seconds = []
        for _ in range(10 if before else 30):
            sync()
            start = time.perf_counter()
            dst.copy_(src)
            sync()
            seconds.append(time.perf_counter() - start)
    loop = Spread.of(seconds)
    one = measure_copy("h2d", src.nbytes, device=device) if before else time_copy(dst, src)
    verdict = compare(loop, one, names=("loop", "measure_copy"))
    return (
        f"loop {src.nbytes / loop.median / 1e9:6.1f} GB/s (IQR {loop.relative:5.0%})   "
        f"measure_copy {one.gbps:6.1f} GB/s (IQR {one.spread.relative:5.0%})   "
        f"{verdict.difference:4.0%} apart: {str(verdict).split(':')[0]}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--before", action="store_true", help="the method the lesson used before issue 22")
    args = parser.parse_args(argv)
    device = check_device(None)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(
        f"{'before' if args.before else 'lesson 06'} method on {device}"
        + (f" ({STAND_IN})" if device.type == "cpu" else "")
        + f", {os.cpu_count()} CPUs, load average {load:.1f}, torch threads {torch.get_num_threads()}"
    )
    for run in range(args.runs):
        print(f"run {run}: {one_run(device, args.before)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
