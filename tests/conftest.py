import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))


import pytest  # noqa: E402
from grading_fixtures import SANDBOX_SKIP  # noqa: E402 (the reason every sandboxed grading test skips with)


@pytest.fixture(autouse=True)
def _forget_a_reset_default_device():
    """Leave no `None` default-device context behind, before or after a test.

    ``torch.set_default_device(None)`` leaves ``device_context = None`` behind, and on PyTorch 2.7.1
    to 2.9.1 ``torch.get_default_device()`` then raises AttributeError (issue 34, W1). A test that
    resets the default device must not break a later test in the same worker that asks PyTorch.
    A ``None`` left there means what no attribute means (no default device) to every release, so it is
    removed before and after each test: a module-scoped fixture (running the solutions, say) may have
    left it before the test starts.
    """
    import torch

    context = torch._GLOBAL_DEVICE_CONTEXT

    def forget_a_none():
        if getattr(context, "device_context", "absent") is None:
            del context.device_context

    forget_a_none()
    yield
    forget_a_none()


@pytest.fixture(autouse=True, scope="session")
def _the_developers_own_edits_are_the_release():
    """Grade, in tests, with the package as it stands when the session starts, committed or not.

    ``course-grade`` refuses to grade with course code that differs from the checkout's last commit
    (``course_grader.manifest``). A developer runs the grading tests before committing, with their own
    edits in ``src/``: those differences, as found when the session starts, are accepted; any new
    one (a file changed by a test's submission, say) still refuses. The manifest's own tests use
    checkouts of their own (tests/test_grading_manifest.py) and are not touched by this.
    """
    batch = sys.modules.get("course_grader.batch")
    if batch is None:
        yield
        return
    from dataclasses import replace

    real = batch.verify_package
    baseline = set(real().mismatches)

    def as_committed(package=None):
        found = real(package)
        return replace(found, mismatches=tuple(m for m in found.mismatches if m not in baseline))

    batch.verify_package = as_committed
    try:
        yield
    finally:
        batch.verify_package = real


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """With ``COURSE_SANDBOX_REQUIRED=1`` (``.ci/run`` sets it), a test that would skip for want of a working
    bubblewrap fails instead: CI installs it, so a skip there would hide a broken sandbox behind a green run."""
    outcome = yield
    report = outcome.get_result()
    if report.skipped and os.environ.get("COURSE_SANDBOX_REQUIRED") == "1" and SANDBOX_SKIP in str(report.longrepr):
        why = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        report.outcome = "failed"
        report.longrepr = f"COURSE_SANDBOX_REQUIRED=1 (bubblewrap must work here), but {why.removeprefix('Skipped: ')}"
