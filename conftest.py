"""Suite-wide rules, for the unit tests and for nbval's notebook runs alike.

- COURSE_REQUIRE_CUDA=1 makes the whole run fail at once when CUDA is absent, so a
  misconfigured GPU runner cannot pass by silently skipping every CUDA test.
- A notebook cell tagged ``raises-exception`` must really raise: nbval only *allows* an error
  there, so without this hook a deliberate-error cell that stopped raising would pass.
"""

import os

import pytest


def pytest_configure(config):
    if os.environ.get("COURSE_REQUIRE_CUDA") == "1":
        import torch

        if not torch.cuda.is_available():
            raise pytest.UsageError(
                "COURSE_REQUIRE_CUDA=1 but torch.cuda.is_available() is False "
                f"(torch {torch.__version__}, built for CUDA {torch.version.cuda}). "
                "This runner is meant to have a GPU: check the driver (nvidia-smi) and that a CUDA build "
                "of torch is installed, or unset COURSE_REQUIRE_CUDA to run the CPU suite."
            )


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if call.when != "call" or not report.passed:
        return
    options = getattr(item, "options", None)
    if isinstance(options, dict) and options.get("check_exception"):
        outputs = getattr(item, "test_outputs", None) or []
        if not any(out.get("output_type") == "error" for out in outputs):
            report.outcome = "failed"
            report.longrepr = (
                f"{item.name}: this cell is tagged raises-exception (a deliberate error), "
                "but it ran without raising. The notebook claims an error PyTorch no longer raises: "
                "update the text and the cell."
            )
