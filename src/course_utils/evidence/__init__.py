"""Evidence from real GPUs: recorded outputs of the GPU-only cells, shown with their provenance.

Lesson: every notebook's GPU-only cells. ``records`` reads and writes the evidence files,
``sources`` says in plain words what each GPU-only cell shows, with the PyTorch source behind it,
``field_records`` holds what real GPUs printed there as others published it, ``show.recorded`` is the one
helper a notebook calls to show either. The authors' side lives in ``course_authoring``: ``recorder``, the
pytest plugin that records cell outputs during a GPU run, ``evidence`` (``python -m course_authoring.evidence``),
which merges a run into a file, and ``quotes``, which verifies each quote against an installed torch.
"""

from course_utils.evidence.field_records import RECORDS, FieldRecord, field_record
from course_utils.evidence.records import Cell, EvidenceFile, GpuMachine, load, parse
from course_utils.evidence.show import GpuEvidence, PublishedMeasurements, Recording, published, recorded, select
from course_utils.evidence.sources import CLAIMS, QUOTES, GpuClaim, SourceQuote

__all__ = [
    "CLAIMS",
    "QUOTES",
    "RECORDS",
    "Cell",
    "EvidenceFile",
    "FieldRecord",
    "GpuClaim",
    "GpuEvidence",
    "GpuMachine",
    "PublishedMeasurements",
    "Recording",
    "SourceQuote",
    "field_record",
    "load",
    "parse",
    "published",
    "recorded",
    "select",
]
