"""Helpers for the course on where PyTorch tensors and models live, and how to move them.

The learner's package: what the lessons and exercise notebooks import, and nothing else (issue 32.1).
Its neighbours under ``src/`` depend on it, never the other way round: ``course_grader`` is the
instructors' ``course-grade`` (the judge, the process boundary, the sandbox, the nbgrader bridge) and
``course_authoring`` the authors' tools (``make pairs``, the exercises, the headers, the lesson map,
the website, the quote verifier); each is a distribution of its own (docs/authoring.md, "Three wings").

Each module has one job; import what a notebook needs from here or from the module itself:

- ``devices``: which device to use (``pick_device``, or ``usable_accelerator``); ``machine``: what this
  machine has, as data (``collect_facts``); ``machine_report``: that, ready to show (``device_report``);
  ``readiness``: what of the course it can run, and what to do about the rest (``preflight``); ``gates``: for
  GPU cells, ``needs_cuda`` (a count of CUDA GPUs) and ``needs_accelerator`` (the lesson's ``device`` when it
  is an accelerator, ``meta`` standing in for the CPU).
- ``placement``: where a model's tensors live (``placement_report``, ``module_device``).
- ``checkpoints``: the device tags of a checkpoint (``checkpoint_locations``, ``retag_checkpoint``).
- ``scopes``: the current CUDA device and default device at each step of nested blocks.
- ``errors``: ``explain_device_error`` and the IPython extension ``%load_ext course_utils.errors``.
- ``mismatches``: ``find_device_mismatches`` lists the culprits before a forward pass fails;
  ``try_mixed`` shows what an operation mixing devices really returns.
- ``transfer`` (its plots in ``transfer.plots``) and ``widgets``: honest host/device copy timing, the explorer.
- ``loading``: where a DataLoader's samples are made (``WhereAmI``, ``trace_workers``); ``memory``:
  the bytes a training step holds, part by part (``step_memory``), on any device.
- ``distributed``: one process per device under ``torchrun``; ``launch`` starts ``torchrun``
  from a notebook and leaves no process behind.
- ``claims``: ``raises`` proves "this raises" with the real message.
- ``evidence``: ``recorded`` shows what a real GPU printed in a GPU-only cell, with provenance;
  ``published`` shows a real GPU's published figures beside a lesson's stand-in.
- ``checks``: ``check`` grades an exercise answer with a pass or a fail and a hint.
- ``check_cells``: which cells are check cells and what a check shows (the checks write it, the grader
  reads it); ``handover``: files a check hands to the learner's function; ``lessons``: the lessons and
  their GPU-only cells as ``make pairs`` last scanned them (``lesson_needs``, generated).
- ``display``: the tone colours and escaped HTML pieces every ``_repr_html_`` is built from,
  ``truncate`` and ``require_int``; it imports nothing of the course, so any module may use it.

Importing the package imports none of them: each name below is looked up in its module on first
use (PEP 562), so ``import course_utils.display``, ``course-grade`` and the pytest plugin load
only what they use, and ``from course_utils import needs_cuda`` still works in a lesson.
"""

from __future__ import annotations

import importlib

# Each public name and the module that defines it: the module is imported on first use.
_HOMES = {
    "CaughtError": "claims",
    "ClaimFailed": "claims",
    "check": "checks",
    "checkpoint_locations": "checkpoints",
    "choose_device": "devices",
    "collect_facts": "machine",
    "device_report": "machine_report",
    "explain_device_error": "errors",
    "find_device_mismatches": "mismatches",
    "module_device": "placement",
    "needs_accelerator": "gates",
    "needs_cuda": "gates",
    "pick_device": "devices",
    "placement_report": "placement",
    "preflight": "readiness",
    "published": "evidence",
    "raises": "claims",
    "recorded": "evidence",
    "retag_checkpoint": "checkpoints",
    "run_scopes": "scopes",
    "trace_current_device": "scopes",
    "usable_accelerator": "devices",
}

__all__ = sorted(_HOMES)


def __getattr__(name: str):
    """``course_utils.needs_cuda`` and the like: import the defining module now, once."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'course_utils' has no attribute {name!r}; its names are: {', '.join(__all__)}")
    value = getattr(importlib.import_module(f"course_utils.{home}"), name)
    globals()[name] = value  # the next lookup is an ordinary one
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
