"""Helpers for the course on where PyTorch tensors and models live, and how to move them.

Each module has one job; import what a notebook needs from here:

- ``devices``: what this machine has (``device_report``), which device to use (``pick_device``),
  what of the course it can run (``preflight``), and ``needs_cuda`` for GPU-only cells.
- ``claims``: ``raises`` proves "this raises" with the real message.
- ``checks``: ``check`` grades an exercise answer with a pass or a fail and a hint.
- ``pairing`` and ``exercises``: authoring tools behind ``make pairs`` and ``make exercises``.
"""

from course_utils.checks import check
from course_utils.claims import CaughtError, ClaimFailed, raises
from course_utils.devices import (
    choose_device,
    collect_facts,
    device_report,
    needs_cuda,
    pick_device,
    preflight,
)

__all__ = [
    "CaughtError",
    "ClaimFailed",
    "check",
    "choose_device",
    "collect_facts",
    "device_report",
    "needs_cuda",
    "pick_device",
    "preflight",
    "raises",
]
