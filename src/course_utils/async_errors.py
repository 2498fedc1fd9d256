"""Errors reported at the wrong line: run a buggy kernel in a child process and see where it surfaces.

Lesson: notebook 05 (the error clinic, "errors reported at the wrong line"). CUDA kernels run
asynchronously, so a device-side assert (a class label out of range in ``cross_entropy``, an
index out of bounds) is reported by whichever later call next talks to the GPU, as *CUDA error:
device-side assert triggered*, and every later CUDA call in that process fails the same way.
``CUDA_LAUNCH_BLOCKING=1`` makes each launch wait for its kernel, so the error comes back at the
line that caused it. On the CPU the same bug raises at once, with a message that names it.

``run_buggy_steps(device, bug=..., launch_blocking=...)`` runs a few numbered steps, one of them
the bug, in a **child process** (a device-side assert poisons the CUDA context of the process it
happens in, so the notebook's own kernel must never run it) and returns what happened there: the
steps that ran, the step that raised, the error, and whether the device still worked afterwards.
It runs on "cpu" (the bug raises at its own step) and on a CUDA device (where it needs a GPU).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass

BUGS = {
    "label": "cross_entropy with a class label out of range (3 classes, a label 3)",
    "index": "indexing a tensor of 4 elements at position 5",
}

# The child's program. Each step is one line a training script might have; the bug is the third.
# It prints one JSON line after MARK, so its own stderr (CUDA prints the failed assertion there)
# stays apart from the report.
MARK = "@@course-utils-report@@"
_CHILD = r"""
import json, sys
import torch
import torch.nn.functional as F

device, bug, mark = torch.device(sys.argv[1]), sys.argv[2], sys.argv[3]
steps = []

def step(line, fn):
    steps.append(line)
    return fn()

report = {"steps": steps, "raised_at": None, "error_type": None, "message": None, "after": None}
try:
    scores = step("scores = torch.randn(4, 3, device=device)", lambda: torch.randn(4, 3, device=device))
    labels = step("labels = torch.tensor([0, 2, 1, 3], device=device)",
                  lambda: torch.tensor([0, 2, 1, 3], device=device))
    if bug == "label":
        out = step("loss = F.cross_entropy(scores, labels)   # the bug: label 3, classes 0-2",
                   lambda: F.cross_entropy(scores, labels))
    else:
        out = step("picked = scores[:, 0][torch.tensor([0, 5], device=device)]   # the bug: index 5 of 4",
                   lambda: scores[:, 0][torch.tensor([0, 5], device=device)])
    doubled = step("doubled = scores * 2   # an unrelated line", lambda: scores * 2)
    step("print(doubled.sum().item())   # the first line that waits for the device",
         lambda: doubled.sum().item())
except Exception as exc:
    report.update(raised_at=steps[-1], error_type=type(exc).__name__, message=str(exc))
    try:  # is the device still usable in this process?
        torch.ones(1, device=device).add(1).sum().item()
        report["after"] = "ok"
    except Exception as again:
        report["after"] = type(again).__name__ + ": " + (str(again).splitlines() or [""])[0]
print(mark + json.dumps(report), flush=True)
"""


@dataclass(frozen=True)
class BuggyRun:
    """What a child process saw when it ran the buggy steps on one device."""

    device: str
    bug: str  # a key of BUGS
    launch_blocking: bool  # CUDA_LAUNCH_BLOCKING=1 in the child's environment
    steps: tuple[str, ...]  # the steps that started, in order; the last one raised, if any did
    raised_at: str | None  # the step that raised, or None
    error_type: str | None
    message: str | None
    after: str | None  # "ok", or the error a fresh tiny operation raised afterwards
    device_log: tuple[str, ...] = ()  # the child's stderr lines about failed assertions (CUDA prints them)
    returncode: int = 0

    @property
    def bug_step(self) -> str | None:
        """The step that holds the bug (the third), if the run got that far."""
        return self.steps[2] if len(self.steps) > 2 else None

    @property
    def raised_at_the_bug(self) -> bool:
        return self.raised_at is not None and self.raised_at == self.bug_step

    def __str__(self) -> str:
        blocking = "CUDA_LAUNCH_BLOCKING=1" if self.launch_blocking else "CUDA_LAUNCH_BLOCKING unset"
        lines = [f"{BUGS[self.bug]}, on {self.device} ({blocking}):"]
        for number, line in enumerate(self.steps, 1):
            mark = "  <-- raised here" if line == self.raised_at else ""
            lines.append(f"  {number}. {line}{mark}")
        if self.raised_at is None:
            lines.append(f"  nothing raised (child exit code {self.returncode})")
        else:
            where = "at the bug itself" if self.raised_at_the_bug else "NOT at the bug (step 3): at a later line"
            first, *rest = (self.message or "").splitlines() or [""]
            lines.append(f"  raised {where}: {self.error_type}: {first}")
            lines += [f"    {line}" for line in rest if line.strip()][:4]
            lines.append(f"  afterwards, a fresh torch.ones(1) on {self.device}: {self.after}")
        lines += [f"  device log: {line}" for line in self.device_log[:2]]
        return "\n".join(lines)

    def __repr__(self) -> str:
        return str(self)


def run_buggy_steps(device: str = "cpu", *, bug: str = "label", launch_blocking: bool = False, timeout: float = 180.0) -> BuggyRun:
    """Run the buggy steps on ``device`` in a fresh Python process and report where the error surfaced.

    ``device`` is "cpu" or a CUDA device ("cuda", "cuda:0"); ``bug`` is "label" or "index".
    Nothing in this process touches the device: a device-side assert stays in the child.
    """
    if bug not in BUGS:
        raise ValueError(f"bug should be one of {', '.join(map(repr, BUGS))}, got {bug!r}.")
    if not isinstance(device, str) or not (device == "cpu" or device == "cuda" or device.startswith("cuda:")):
        raise ValueError(
            f"device should be 'cpu' or a CUDA device such as 'cuda:0', got {device!r}. (On 'meta' nothing "
            "runs, so there is nothing to report: use 'cpu' to see the bug raise at its own line.)"
        )
    env = dict(os.environ)
    env.pop("CUDA_LAUNCH_BLOCKING", None)
    if launch_blocking:
        env["CUDA_LAUNCH_BLOCKING"] = "1"
    done = subprocess.run([sys.executable, "-c", _CHILD, device, bug, MARK], env=env, capture_output=True, text=True, timeout=timeout)
    report = next((json.loads(line[len(MARK) :]) for line in done.stdout.splitlines() if line.startswith(MARK)), None)
    if report is None:
        tail = (done.stderr.strip().splitlines() or ["(no output)"])[-1]
        raise RuntimeError(
            f"The child process on {device} ended (exit code {done.returncode}) without a report; its last line of errors: {tail}"
        )
    device_log = tuple(line.strip() for line in done.stderr.splitlines() if "Assertion" in line)
    return BuggyRun(
        device=device,
        bug=bug,
        launch_blocking=launch_blocking,
        steps=tuple(report["steps"]),
        raised_at=report["raised_at"],
        error_type=report["error_type"],
        message=report["message"],
        after=report["after"],
        device_log=device_log,
        returncode=done.returncode,
    )
