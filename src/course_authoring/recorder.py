"""pytest plugin: during a GPU run, record what every GPU-only notebook cell printed.

Lesson: none; this is the machinery behind ``scripts/gpu-verify``. Load it with
``-p course_authoring.recorder`` and set ``COURSE_EVIDENCE_PARTS`` to a folder. For every
nbval cell that holds ``needs_cuda(N, ..., key="K")``, passed, and ran its GPU branch (this
machine has N GPUs or more), one JSON line ``{"key", "notebook", "output"}`` is appended to
``records.jsonl`` there. ``python -m course_authoring.evidence merge`` turns that into an evidence file.

Only the pytest process that reports results writes (the controller under pytest-xdist), and
only after every other hook has judged the cell, so a cell that the suite's rules fail (a
``raises-exception`` cell that did not raise) is never recorded.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from course_authoring.gpu_cells import gpu_cells_in_source

ENV_PARTS = "COURSE_EVIDENCE_PARTS"
PROPERTY = "course_evidence"


def output_text(outputs) -> str:
    """A cell's outputs as the text a terminal would show: streams, plain-text results, errors."""
    parts = []
    for out in outputs or []:
        kind = out.get("output_type")
        if kind == "stream":
            parts.append(out.get("text", ""))
        elif kind in ("execute_result", "display_data"):
            text = out.get("data", {}).get("text/plain")
            if text:
                parts.append(text if text.endswith("\n") else text + "\n")
        elif kind == "error":
            parts.append(f"{out.get('ename')}: {out.get('evalue')}\n")
    return "".join(parts)


def pytest_configure(config):
    folder = os.environ.get(ENV_PARTS)
    if not folder:
        raise pytest.UsageError(
            f"-p course_authoring.recorder needs {ENV_PARTS} set to a folder for the "
            "recorded outputs, e.g. build/gpu-verify/parts (scripts/gpu-verify sets it)."
        )
    # An xdist worker has `workerinput`; it forwards its reports to the controller, which writes.
    if not hasattr(config, "workerinput"):
        config.pluginmanager.register(Writer(Path(folder)), "course-evidence-writer")


class Writer:
    """Appends each recorded cell of a passed report to ``records.jsonl``, once per run."""

    def __init__(self, folder: Path):
        self.folder = folder

    def pytest_runtest_logreport(self, report):
        if not report.passed:
            return
        for name, record in report.user_properties:
            if name == PROPERTY:
                self.folder.mkdir(parents=True, exist_ok=True)
                with open(self.folder / "records.jsonl", "a", encoding="utf-8") as fh:
                    fh.write(json.dumps(record, ensure_ascii=False) + "\n")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    cell = getattr(item, "cell", None)
    if call.when != "call" or cell is None or not isinstance(getattr(item, "options", None), dict):
        return  # not an nbval cell
    found = gpu_cells_in_source(cell.source)
    if len(found) != 1 or found[0].key is None:
        return
    import torch

    have = torch.cuda.device_count() if torch.cuda.is_available() else 0
    if found[0].count > have:
        return  # the cell took its else branch here: nothing from a GPU to record
    notebook = Path(str(item.fspath)).resolve()
    try:
        notebook = notebook.relative_to(Path.cwd())
    except ValueError:
        pass
    record = {"key": found[0].key, "notebook": notebook.as_posix(), "output": output_text(item.test_outputs)}
    report.user_properties.append((PROPERTY, record))
