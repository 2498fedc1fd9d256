"""Helpers for the course on where PyTorch tensors and models live, and how to move them.

Each module has one job; import what a notebook needs from here or from the module itself:

- ``devices``: what this machine has (``device_report``), which device to use (``pick_device``),
  what of the course it can run (``preflight``), and ``needs_cuda`` for GPU-only cells.
- ``placement``: where a model's tensors live (``placement_report``, ``module_device``).
- ``checkpoints``: the device tags of a checkpoint (``checkpoint_locations``, ``retag_checkpoint``).
- ``scopes``: the current CUDA device and default device at each step of nested blocks.
- ``errors``: ``explain_device_error`` and the IPython extension ``%load_ext course_utils.errors``.
- ``mismatches``: ``find_device_mismatches`` lists the culprits before a forward pass fails;
  ``try_mixed`` shows what an operation mixing devices really returns.
- ``transfer``, ``plots``, ``widgets``: honest host/device copy timing, its plots, the explorer.
- ``loading``: where a DataLoader's samples are made (``WhereAmI``, ``trace_workers``); ``memory``:
  the bytes a training step holds, part by part (``step_memory``), on any device.
- ``distributed``: one process per device under ``torchrun``; ``launch`` starts ``torchrun``
  from a notebook and leaves no process behind.
- ``claims``: ``raises`` proves "this raises" with the real message.
- ``evidence``: ``recorded`` shows what a real GPU printed in a GPU-only cell, with provenance.
- ``checks``: ``check`` grades an exercise answer with a pass or a fail and a hint.
- ``grading``: ``course-grade``, batch grading of a class's submissions.
- ``pairing`` and ``exercises``: authoring tools behind ``make pairs`` and ``make exercises``.
- ``display``: the tone colours and escaped HTML pieces every ``_repr_html_`` is built from,
  ``truncate`` and ``require_int``; it imports nothing of the course, so any module may use it.
"""

from course_utils.checkpoints import checkpoint_locations, retag_checkpoint
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
from course_utils.errors import explain_device_error
from course_utils.evidence import recorded
from course_utils.mismatches import find_device_mismatches
from course_utils.placement import module_device, placement_report
from course_utils.scopes import run_scopes, trace_current_device

__all__ = [
    "CaughtError",
    "ClaimFailed",
    "check",
    "checkpoint_locations",
    "choose_device",
    "collect_facts",
    "device_report",
    "explain_device_error",
    "find_device_mismatches",
    "module_device",
    "needs_cuda",
    "pick_device",
    "placement_report",
    "preflight",
    "raises",
    "recorded",
    "retag_checkpoint",
    "run_scopes",
    "trace_current_device",
]
