"""The explainer on accelerate's own messages, raised live by the installed accelerate (the `hf` extra, which
the test set-up installs): lesson 10's Deeper part on Hugging Face's device_map shows each of them.

Read in accelerate 1.16.0 (src/accelerate/big_modeling.py, dispatch_model; src/accelerate/utils/modeling.py,
get_max_memory). Without accelerate these tests skip, saying so; CI installs it (pyproject's `test` extra).
"""

from __future__ import annotations

import pytest
from torch import nn

from course_utils.errors import explain_device_error

accelerate = pytest.importorskip("accelerate", reason="needs accelerate, the optional `hf` extra")


def _caught(action) -> BaseException:
    try:
        action()
    except Exception as exc:  # the test wants the real exception object
        return exc
    raise AssertionError("expected the action to raise")


def _six() -> nn.Sequential:
    return nn.Sequential(*(nn.Linear(16, 16) for _ in range(6)))


def test_to_on_a_model_offloaded_to_disk_is_refused_and_explained(tmp_path):
    model = _six()
    accelerate.dispatch_model(model, {"0": "cpu", "1": "cpu", "2": "cpu", "3": "disk", "4": "disk", "5": "disk"}, offload_dir=tmp_path)
    exc = _caught(lambda: model.to("cpu"))
    assert isinstance(exc, RuntimeError) and str(exc) == "You can't move a model that has some modules offloaded to cpu or disk."
    explained = explain_device_error(exc)
    assert explained.kind == "library-placement" and "dispatched by Accelerate" in explained.cause
    assert "move only the inputs" in explained.fix
    assert "hf_device_map" in explained.fix


def test_a_max_memory_key_that_is_no_device_accelerate_knows_is_explained():
    with accelerate.init_empty_weights():
        model = _six()
    for key in ("cuda:0", "0"):
        exc = _caught(lambda key=key: accelerate.infer_auto_device_map(model, max_memory={key: "1MB", "cpu": "1MB"}))
        assert isinstance(exc, ValueError) and f"Device {key} is not recognized" in str(exc)
        explained = explain_device_error(exc)
        assert explained.kind == "library-placement" and "integer" in explained.cause and "{0: '20GiB'" in explained.fix
    # an integer key plans, even where no GPU is there (a warning: "Device 0 is not available")
    assert accelerate.infer_auto_device_map(model, max_memory={0: "1MB", "cpu": "1MB"})


def test_disk_in_the_map_without_an_offload_dir_is_explained():
    exc = _caught(lambda: accelerate.dispatch_model(_six(), {"0": "cpu", "1": "cpu", "2": "cpu", "3": "disk", "4": "disk", "5": "disk"}))
    assert isinstance(exc, ValueError) and "We need an `offload_dir`" in str(exc)
    assert explain_device_error(exc).kind == "offload-folder"
