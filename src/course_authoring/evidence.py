"""``python -m course_authoring.evidence``: turn a GPU run's recordings into an evidence file, or list coverage.

Lesson: none; the last step of ``scripts/gpu-verify``.

    python -m course_authoring.evidence merge build/gpu-verify/parts   # into the package's recordings/
    python -m course_authoring.evidence status            # which GPU cells are recorded, which have a field record

``merge`` asks this machine for its GPU name and count, the NVIDIA driver (``nvidia-smi``), CUDA and
torch versions, and writes ``<count>x-<gpu-name>.json`` into ``course_utils/evidence/recordings/``
(``--out`` chooses another folder). It refuses without CUDA unless
``--fake`` (the tests' fake run), which marks the file fake from top to bottom.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import platform
import shutil
import subprocess
import sys
from pathlib import Path

from course_utils.evidence.field_records import field_record
from course_utils.evidence.records import Cell, EvidenceFile, GpuMachine, default_dir, load
from course_utils.evidence.sources import QUOTES


def this_machine(fake: bool = False) -> GpuMachine:
    """The GPU machine this runs on, as an evidence file records it."""
    import torch

    today = dt.datetime.now(dt.timezone.utc).date().isoformat()
    if fake:
        return GpuMachine(
            gpu_name="FAKE GPU (no GPU: a test run)",
            gpu_count=1,
            driver="none",
            cuda=str(torch.version.cuda),
            torch=torch.__version__,
            python=platform.python_version(),
            date=today,
        )
    if not torch.cuda.is_available():
        raise SystemExit(
            f"merge: torch {torch.__version__} sees no CUDA GPU here, so these recordings are not a GPU's. "
            "Run scripts/gpu-verify on a GPU machine (or pass --fake for a test run)."
        )
    names = {torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count())}
    return GpuMachine(
        gpu_name=" + ".join(sorted(names)),
        gpu_count=torch.cuda.device_count(),
        driver=_driver(),
        cuda=str(torch.version.cuda),
        torch=torch.__version__,
        python=platform.python_version(),
        date=today,
    )


def _driver() -> str:
    smi = shutil.which("nvidia-smi")
    if smi:
        try:
            out = subprocess.run(
                [smi, "--query-gpu=driver_version", "--format=csv,noheader"], capture_output=True, text=True, timeout=60, check=True
            ).stdout.split()
            if out:
                return out[0]
        except (subprocess.SubprocessError, OSError):
            pass
    try:
        return Path("/proc/driver/nvidia/version").read_text().split("Kernel Module")[1].split()[0]
    except (OSError, IndexError):
        return "unknown"


def read_parts(parts: Path) -> dict[str, Cell]:
    """The recorder's lines, one per recorded cell; a key recorded twice must agree on its notebook."""
    cells: dict[str, Cell] = {}
    for path in sorted(parts.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                rec = json.loads(line)
                if rec["key"] in cells and cells[rec["key"]].notebook != rec["notebook"]:
                    raise SystemExit(
                        f"merge: key {rec['key']!r} is used in {cells[rec['key']].notebook} and "
                        f"{rec['notebook']}; give each GPU cell its own key."
                    )
                cells[rec["key"]] = Cell(notebook=rec["notebook"], output=rec["output"])
    return cells


def merge(parts: Path, out: Path, fake: bool = False) -> Path:
    """Write this machine's evidence file from a run's recordings; return its path."""
    cells = read_parts(parts)
    if not cells:
        raise SystemExit(f"merge: nothing recorded in {parts}: did the run load -p course_authoring.recorder?")
    machine = this_machine(fake)
    slug = ("fake-" if fake else "") + machine.slug
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{slug}.json"
    path.write_text(EvidenceFile(machine=machine, cells=cells, fake=fake).to_json(), encoding="utf-8")
    return path


def notebook_keys() -> dict[str, int]:
    """Every evidence key in the course's lessons, with the GPUs its cell needs (as ``make pairs`` last scanned them)."""
    from course_utils.lessons import course

    return {cell.key: cell.gpus for lesson in course() for cell in lesson.cells}


def status(evidence_dir: Path | None = None) -> str:
    files = load(evidence_dir)
    lines = []
    for key, count in notebook_keys().items():
        where = [f.path.name for f in files if key in f.cells]
        field = field_record(key)
        quoted = "source quote" if key in QUOTES else "NOTHING"
        how = f"recorded ({', '.join(where)})" if where else f"field record ({field.url}) + {quoted}" if field is not None else quoted
        lines.append(f"{key:<34} {count} GPU{'s' if count != 1 else ' '}  {how}")
    recorded = sum("recorded (" in line for line in lines)
    field = sum("field record (" in line for line in lines)
    lines.append(
        f"{recorded} of {len(lines)} GPU cells recorded by the course on a GPU, {field} more with a field record (a public "
        f"report, not run by the course); evidence folder {evidence_dir or default_dir()}"
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m course_authoring.evidence", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    m = sub.add_parser("merge", help="write this machine's evidence file from a run's recordings")
    m.add_argument("parts", type=Path)
    m.add_argument("--out", type=Path, default=None, help="default: the package's recordings/ folder")
    m.add_argument("--fake", action="store_true", help="a test run without a GPU: the file is marked fake")
    s = sub.add_parser("status", help="which GPU cells are recorded, which are quoted from source")
    s.add_argument("--evidence-dir", type=Path, default=None)
    args = parser.parse_args(argv)
    if args.command == "merge":
        if args.fake and args.out is None:
            parser.error("--fake needs --out: a fake run's file never goes into the course's recordings")
        print(f"wrote {merge(args.parts, args.out or Path(str(default_dir())), args.fake)}")
    else:
        print(status(args.evidence_dir))
    return 0


if __name__ == "__main__":
    sys.exit(main())
