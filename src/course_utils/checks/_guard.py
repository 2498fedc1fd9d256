"""Put back what a check replaced for the length of a block: the simulated machines' patching.

Lesson: the checks of notebooks 01 and 09 (through ``checks.machines.simulated``). This module
once also held a tripwire that fingerprinted what the checks trust, to notice a notebook that
patched ``torch.equal`` or a checker; grading no longer needs it, because the learner's code
never runs in the process that judges (``boundary.py``, docs/grading.md). In a learner's
own notebook, a practice check fooled by their own code fools only them.
"""

from __future__ import annotations

import contextlib


@contextlib.contextmanager
def patched(owner, **fakes):
    """Replace attributes of ``owner`` for the length of a block (a simulated machine), then put the
    originals back, whatever happened inside."""
    originals = {name: getattr(owner, name) for name in fakes}
    for name, fake in fakes.items():
        setattr(owner, name, fake)
    try:
        yield
    finally:
        for name, original in originals.items():
            setattr(owner, name, original)
