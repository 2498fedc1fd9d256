"""``python -m course_utils.transfer``: measure this machine's copies; print a table, write JSON and plots.

Lesson: notebook 06 (transfers and timing). For an instructor collecting a class's numbers:
each learner runs this and hands in the ``--out`` folder. ``transfer.json`` records the machine
(device name, torch version, the stand-in flag, the PCIe link when the driver reports it) next
to every raw sample. On a machine without an accelerator the numbers are a host-memory stand-in,
and the table, the JSON and the plot titles all say so.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import torch

from course_utils.devices import check_device
from course_utils.transfer.measure import sweep
from course_utils.transfer.results import STAND_IN_NOTE, Sweep
from course_utils.transfer.timing import Instruments


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, got {text!r}")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m course_utils.transfer",
        description="Time host-to-device, device-to-host and device-to-device copies (pageable and pinned, "
        "blocking and non_blocking) over sizes from 4 KiB to 256 MiB. Without an accelerator, times a "
        "host-memory stand-in and says so.",
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=Path("transfer-results"),
        help="folder for transfer.json, bandwidth.png and variants.png (default: ./transfer-results)",
    )
    parser.add_argument("--quick", action="store_true", help="sizes up to 16 MiB and a 2 s budget")
    parser.add_argument(
        "--device", default=None, help="device to measure, e.g. cuda:1 (default: the current accelerator, else the CPU stand-in)"
    )
    parser.add_argument(
        "--budget", type=_positive_float, default=None, help="seconds to spend measuring, about (default: 4.5, or 2 with --quick)"
    )
    parser.add_argument("--no-plots", action="store_true", help="write the JSON only")
    return parser


def _check_device(parser: argparse.ArgumentParser, text: str | None) -> torch.device:
    try:
        return check_device(text)
    except ValueError as exc:
        parser.error(f"--device {text}: {exc} Or leave --device out: then the accelerator, else the CPU stand-in, is measured.")


def write_plots(result: Sweep, out: Path) -> list[Path]:
    """bandwidth.png and variants.png in ``out``, drawn on pyplot-free figures (no GUI needed)."""
    from matplotlib.figure import Figure

    from course_utils.transfer.plots import plot_bandwidth, plot_variants

    paths = []
    for name, draw in (("bandwidth.png", plot_bandwidth), ("variants.png", plot_variants)):
        fig = Figure(figsize=(11, 5), layout="constrained")  # wide: the legend sits right of the axes
        draw(result, fig.add_subplot())
        path = out / name
        fig.savefig(path, dpi=110)
        paths.append(path)
    return paths


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.out.exists() and not args.out.is_dir():
        parser.error(f"--out {args.out} exists and is a file; give a folder (it is created if missing).")
    dev = _check_device(parser, args.device)
    budget = args.budget if args.budget is not None else (2.0 if args.quick else 4.5)

    def progress(done: int, total: int) -> None:
        print(f"\r  measured {done}/{total}", end="", file=sys.stderr, flush=True)

    print(f"Measuring copies on {dev} (about {budget:g} s)...", file=sys.stderr)
    result = sweep(dev, quick=args.quick, budget_s=budget, instruments=Instruments(progress=progress))
    print(file=sys.stderr)
    print(result)
    args.out.mkdir(parents=True, exist_ok=True)
    json_path = args.out / "transfer.json"
    json_path.write_text(json.dumps(result.to_dict(), indent=1) + "\n", encoding="utf-8")
    written = [json_path] + ([] if args.no_plots else write_plots(result, args.out))
    print("\nwrote " + ", ".join(str(p) for p in written))
    if result.stand_in:
        print("NOTE: " + STAND_IN_NOTE)
    return 0


if __name__ == "__main__":
    sys.exit(main())
