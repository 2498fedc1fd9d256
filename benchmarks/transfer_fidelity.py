"""Does course_utils.transfer measure what torch.utils.benchmark.Timer measures? Same copy, side by side.

For each size, the same preallocated buffers are timed by the course helper (``time_copy``)
and by ``torch.utils.benchmark.Timer``, in alternating order, and the ratios of the medians are
printed. Timer runs twice: with the helper's block size (``Timer.timeit(number)`` repeated, the
like-for-like comparison; goal: within 10%) and with its own ``blocked_autorange()``.

Run: ``python benchmarks/transfer_fidelity.py`` (``--strict`` exits 1 when a ratio is off by
more than ``--tolerance``). On a machine without an accelerator the copies are the host-memory
stand-in (CPU to CPU), and the output says so; on a CUDA GPU, host-to-device copies from
pageable and pinned memory, and device-to-host from pinned memory.

Both sides time the copy the same way: one intra-op thread (Timer's default, and the helper's
for the stand-in), synchronize around each timed block (Timer does so itself on a CUDA
machine), and the median over blocks.
"""

from __future__ import annotations

import argparse
import statistics
import sys

import torch
import torch.utils.benchmark as benchmark

from course_utils.devices import check_device
from course_utils.transfer.measure import KIB, MIB, make_buffers, time_copy
from course_utils.transfer.results import STAND_IN, fmt_bytes, fmt_seconds
from course_utils.transfer.timing import Timing

SIZES = (4 * KIB, 64 * KIB, 1 * MIB, 16 * MIB, 64 * MIB)


def variants(device: torch.device) -> list[tuple[str, bool]]:
    if device.type == "cpu":
        return [("h2h", False)]
    pins = [False, True] if device.type == "cuda" else [False]
    return [("h2d", p) for p in pins] + ([("d2h", True)] if device.type == "cuda" else [("d2h", False)])


def make_timer(dst: torch.Tensor, src: torch.Tensor) -> benchmark.Timer:
    return benchmark.Timer(stmt="dst.copy_(src, non_blocking=False)", globals={"dst": dst, "src": src}, num_threads=1)


def compare(device: torch.device, direction: str, pinned: bool, nbytes: int, budget_s: float, rounds: int) -> tuple[float, float, float]:
    """Medians over ``rounds`` of: the helper, Timer with the helper's blocks, Timer's own blocked_autorange.

    The three alternate in short rounds, in rotating order: on a shared machine other processes
    come and go in phases of a second or so, and a phase that hit only one side would look like
    a difference between the methods.
    """
    dst, src = make_buffers(direction, nbytes, device, pinned)
    timer = make_timer(dst, src)
    helper, same_blocks, autorange = [], [], []
    plan = {}

    def run_helper():
        result = time_copy(dst, src, timing=Timing(budget_s=budget_s))
        plan["number"], plan["blocks"] = result.copies_per_block, len(result.seconds)
        helper.append(result.median)

    def run_same_blocks():
        number, blocks = plan.get("number", 1), plan.get("blocks", 5)
        same_blocks.append(statistics.median(timer.timeit(number).median for _ in range(blocks)))

    def run_autorange():
        autorange.append(timer.blocked_autorange(min_run_time=budget_s).median)

    order = [run_helper, run_same_blocks, run_autorange]
    for i in range(rounds):
        for run in order[i % 3 :] + order[: i % 3]:
            run()
    return statistics.median(helper), statistics.median(same_blocks), statistics.median(autorange)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default=None, help="default: the current accelerator, else the CPU stand-in")
    parser.add_argument("--budget", type=float, default=0.1, help="seconds per measurement (default 0.1)")
    parser.add_argument("--rounds", type=int, default=6, help="alternating rounds per size (default 6)")
    parser.add_argument("--tolerance", type=float, default=0.10, help="allowed |ratio - 1| (default 0.10)")
    parser.add_argument("--strict", action="store_true", help="exit 1 when a ratio is outside the tolerance")
    args = parser.parse_args(argv)
    if not args.budget > 0:
        parser.error(f"--budget must be a positive number of seconds, got {args.budget}")
    if args.rounds < 1:
        parser.error(f"--rounds must be at least 1, got {args.rounds}")
    device = torch.device(args.device) if args.device else check_device(None)
    if device.type == "cuda":
        if not torch.cuda.is_available():
            parser.error(f"--device {args.device}: CUDA is not available here.")
        if device.index is None:
            device = torch.device("cuda", torch.cuda.current_device())
        torch.cuda.set_device(device)  # Timer synchronizes the *current* CUDA device
    label = f"{device}" + (f" — {STAND_IN}: CPU-to-CPU copies, not PCIe" if device.type == "cpu" else "")
    print(f"Helper median vs torch.utils.benchmark.Timer median, same buffers, on {label}")
    print(f"torch {torch.__version__}, {torch.get_num_threads()} intra-op threads available (both sides use 1)")
    print(f"{'copy':<15}{'size':>8}{'helper':>11}{'Timer, same blocks':>20}{'ratio':>7}{'Timer.blocked_autorange':>25}{'ratio':>7}")
    worst = 0.0
    for direction, pinned in variants(device):
        for nbytes in SIZES:
            ours, same, auto = compare(device, direction, pinned, nbytes, args.budget, args.rounds)
            worst = max(worst, abs(ours / same - 1))
            name = f"{direction} {'pinned' if pinned else 'pageable'}"
            print(
                f"{name:<15}{fmt_bytes(nbytes):>8}{fmt_seconds(ours):>11}{fmt_seconds(same):>20}{ours / same:>7.3f}"
                f"{fmt_seconds(auto):>25}{ours / auto:>7.3f}"
            )
    print(f"largest deviation from Timer with the same blocks: {worst:.1%} (goal: within {args.tolerance:.0%})")
    print(
        "Timer.blocked_autorange picks its own, much longer blocks (up to 10,000 copies); on a busy machine a long\n"
        "block is more often interrupted by other processes, so its median can sit above the helper's."
    )
    return 1 if (args.strict and worst > args.tolerance) else 0


if __name__ == "__main__":
    sys.exit(main())
