"""Evidence files: what real GPUs printed in the course's GPU-only cells, with their provenance.

Lesson: every notebook's GPU-only cells (``needs_cuda(..., key=...)``). A GPU run
(``scripts/gpu-verify``) writes one file per machine, ``course_utils/evidence/recordings/<slug>.json``,
inside the package, so that a pip or git install (Colab, Kaggle) ships them and reads them through
``importlib.resources``::

    {"format": 1, "fake": false,
     "machine": {"gpu_name": "NVIDIA H200", "gpu_count": 1, "driver": "580.95.05", "cuda": "13.0",
                 "torch": "2.11.0+cu130", "python": "3.12.3", "date": "2026-12-01"},
     "cells": {"02-round-trip": {"notebook": "notebooks/02_tensor_placement.ipynb",
                                 "output": "cuda:0 cpu back is t: False same values: True\\n"}}}

A file marked ``"fake": true`` comes from a fake run (the tests' fixture); it is never read from
``recordings/`` and always shown as fake.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import asdict, dataclass, field
from importlib.resources import files
from pathlib import Path
from typing import TYPE_CHECKING

from course_utils.display import require_int

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable

FORMAT = 1
ENV_DIR = "COURSE_EVIDENCE_DIR"  # read evidence from another folder (the tests' fixture)
RECORDINGS = "recordings"  # the folder inside this package that holds the real GPU runs' files
IN_CHECKOUT = Path("src", "course_utils", "evidence", RECORDINGS)  # the same folder, from a checkout's root


@dataclass(frozen=True)
class GpuMachine:
    """The machine a recording came from, as the GPU run saw it."""

    gpu_name: str
    gpu_count: int
    driver: str  # the NVIDIA driver version, as nvidia-smi reports it
    cuda: str  # torch.version.cuda: the CUDA runtime torch was built with
    torch: str
    python: str
    date: str  # YYYY-MM-DD, UTC

    @property
    def slug(self) -> str:
        """The evidence file's name: ``1x-nvidia-h200``."""
        name = re.sub(r"[^a-z0-9]+", "-", self.gpu_name.lower()).strip("-")
        return f"{self.gpu_count}x-{name}"

    @property
    def provenance(self) -> str:
        gpus = self.gpu_name if self.gpu_count == 1 else f"{self.gpu_count}x {self.gpu_name}"
        return f"{gpus}, torch {self.torch} (CUDA {self.cuda}, driver {self.driver}), {self.date}"


@dataclass(frozen=True)
class Cell:
    """One GPU-only cell's recorded text output."""

    notebook: str
    output: str


@dataclass(frozen=True)
class EvidenceFile:
    """One machine's recordings: ``cells`` maps an evidence key to what the cell printed."""

    machine: GpuMachine
    cells: dict[str, Cell] = field(default_factory=dict)
    fake: bool = False
    path: Traversable | None = None  # where it was read from (a file in the package, or a Path), for the provenance line

    def to_json(self) -> str:
        data = {
            "format": FORMAT,
            "fake": self.fake,
            "machine": asdict(self.machine),
            "cells": {k: asdict(c) for k, c in sorted(self.cells.items())},
        }
        return json.dumps(data, indent=1, ensure_ascii=False) + "\n"


def parse(text: str, path: Traversable | None = None) -> EvidenceFile:
    """Read one evidence file's JSON; a malformed file is a ValueError that names what is wrong."""
    where = str(path) if path else "evidence JSON"
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{where} is not JSON ({exc}); regenerate it with scripts/gpu-verify.") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(
            f'{where}: expected an object with "format": {FORMAT}; found {str(data)[:80]!r}. Regenerate it with scripts/gpu-verify.'
        )
    try:
        machine = GpuMachine(**data["machine"])
        cells = {str(k): Cell(**v) for k, v in data["cells"].items()}
    except (KeyError, TypeError, AttributeError) as exc:
        raise ValueError(
            f'{where}: expected "machine" ({", ".join(GpuMachine.__dataclass_fields__)}) and '
            f'"cells" (key -> notebook, output); {exc}. Regenerate it with scripts/gpu-verify.'
        ) from None
    require_int(
        f"{where}: gpu_count",
        machine.gpu_count,
        expected="must be 1 or more",
        hint="Evidence comes from a machine with a GPU: record it there with scripts/gpu-verify.",
    )
    return EvidenceFile(machine=machine, cells=cells, fake=bool(data.get("fake", False)), path=path)


def default_dir() -> Traversable:
    """``$COURSE_EVIDENCE_DIR``, else the ``recordings/`` folder inside this package, wherever it is installed."""
    if os.environ.get(ENV_DIR):
        return Path(os.environ[ENV_DIR])
    return files("course_utils.evidence") / RECORDINGS


def load(directory: Traversable | None = None) -> tuple[EvidenceFile, ...]:
    """Every evidence file in ``directory`` (default: ``default_dir()``), sorted by name.

    Fake files are refused outside an explicitly chosen folder, so a fixture copied into
    ``recordings/`` by mistake can never pass for a real GPU's output.
    """
    chosen = directory is not None or bool(os.environ.get(ENV_DIR))
    folder = default_dir() if directory is None else directory
    if not folder.is_dir():
        return ()
    found = []
    for entry in sorted((e for e in folder.iterdir() if e.name.endswith(".json")), key=lambda e: e.name):
        ev = parse(entry.read_text(encoding="utf-8"), entry)
        if ev.fake and not chosen:
            raise ValueError(
                f"{entry} is marked fake (a test fixture), but it lies in the course's recordings folder. "
                "Delete it: only real GPU runs (scripts/gpu-verify) belong there."
            )
        found.append(ev)
    return tuple(found)
