"""Lesson 10's try-it cells: a right answer and plausible wrong ones, each failing for its reason.
Lesson: notebook 10 (models bigger than a device)."""

import warnings

import pytest
from try_it_support import Case, assert_case

RESTORE = "def restore(model, state):\n    {body}\n"

CASES = [
    Case("10.a", "layer = nn.Linear(4096, 4096, device='meta', dtype=torch.bfloat16)", "pass"),
    Case("10.a", "with torch.device('meta'):\n    layer = nn.Linear(4096, 4096, dtype=torch.bfloat16)", "pass"),
    Case("10.a", "layer = nn.Linear(4096, 4096, dtype=torch.bfloat16)", "fail", "allocated"),
    Case("10.a", "layer = nn.Linear(4096, 4096, device='meta')", "fail", "bfloat16"),
    Case("10.a", "layer = nn.Linear(4096, 4096, device='meta', dtype=torch.bfloat16).weight", "fail", "nn.Linear"),
    Case("10.b", RESTORE.format(body="model.load_state_dict(state, assign=True)\n    return model"), "pass"),
    Case("10.b", RESTORE.format(body="model.load_state_dict(state)\n    return model"), "fail", "no memory to copy into"),
    Case("10.b", RESTORE.format(body="return model.load_state_dict(state, assign=True)"), "fail", "return model"),
    Case("10.b", RESTORE.format(body="model.to_empty(device='cpu')\n    model.load_state_dict(state)\n    return model"),
         "fail", "float64"),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_case(case):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the no-op warning of a load without assign=True
        assert_case(case)
