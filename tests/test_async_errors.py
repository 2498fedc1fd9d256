"""Errors reported at the wrong line (notebook 05): the buggy steps run in a child process, and the
report says where the error surfaced. The CPU runs are real; the CUDA test needs a GPU.
Lesson: notebook 05."""

import pytest
import torch

from course_utils import async_errors
from course_utils.async_errors import BuggyRun, run_buggy_steps


@pytest.mark.slow  # a child Python that imports torch
@pytest.mark.parametrize("bug,needle", [("label", "Target 3 is out of bounds"), ("index", "index 5 is out of bounds")])
def test_on_the_cpu_the_bug_raises_at_its_own_line_and_the_device_still_works(bug, needle):
    run = run_buggy_steps("cpu", bug=bug)
    assert run.raised_at_the_bug and len(run.steps) == 3, run
    assert run.error_type == "IndexError" and needle in run.message, run
    assert run.after == "ok" and "raised at the bug itself" in str(run)


def test_a_late_error_is_said_to_be_late():
    steps = ("a", "b", "loss = F.cross_entropy(scores, labels)", "doubled = scores * 2", "print(...)")
    late = BuggyRun(
        "cuda",
        "label",
        False,
        steps,
        steps[-1],
        "AcceleratorError",
        "CUDA error: device-side assert triggered",
        "AcceleratorError: CUDA error: device-side assert",
    )
    assert not late.raised_at_the_bug and late.bug_step == steps[2]
    assert "NOT at the bug" in str(late) and str(late).count("<-- raised here") == 1


@pytest.mark.parametrize(
    "kwargs,match",
    [
        (dict(device="meta"), "'cpu' or a CUDA device"),
        (dict(device=torch.device("cpu")), "'cpu' or a CUDA device"),
        (dict(bug="shape"), "bug should be one of"),
    ],
)
def test_bad_arguments_say_what_was_expected(kwargs, match):
    with pytest.raises(ValueError, match=match):
        run_buggy_steps(**kwargs)


def test_a_child_that_dies_without_a_report_is_an_error_not_a_result(monkeypatch):
    monkeypatch.setattr(async_errors, "_CHILD", "import sys; sys.exit(3)")
    with pytest.raises(RuntimeError, match="exit code 3"):
        run_buggy_steps("cpu")


@pytest.mark.cuda
def test_on_a_gpu_the_assert_surfaces_late_unless_launches_block():
    late = run_buggy_steps("cuda")
    blocking = run_buggy_steps("cuda", launch_blocking=True)
    assert not late.raised_at_the_bug and "device-side assert" in late.message, late
    assert late.after != "ok", late  # the context is unusable afterwards
    assert blocking.raised_at_the_bug and "device-side assert" in blocking.message, blocking
