"""Lesson 11's try-it cells: a right answer and plausible wrong ones, each failing for its reason.
Lesson: notebook 11 (the device in the rest of your code)."""

import pytest
from try_it_support import Case, assert_case

AUTOCAST_FOR = "def autocast_for(device):\n    return {body}\n"
LOADER = "from torch.utils.data import DataLoader\nloader = {body}\n"

CASES = [
    Case("11.a", AUTOCAST_FOR.format(body="torch.autocast(device_type=device.type)"), "pass"),
    Case("11.a", AUTOCAST_FOR.format(body="torch.autocast(device.type, dtype=torch.bfloat16)"), "pass"),
    Case("11.a", AUTOCAST_FOR.format(body="torch.autocast(device_type=str(device))"), "fail", "not a device type"),
    Case("11.a", AUTOCAST_FOR.format(body="torch.autocast(device)"), "fail", "passed the torch.device itself"),
    Case("11.a", AUTOCAST_FOR.format(body="device.type"), "fail", "torch.autocast context"),
    Case("11.b", LOADER.format(body="DataLoader(range(10), shuffle=True, generator=torch.Generator(device='cpu')"
                                    ".manual_seed(11))"), "pass"),
    Case("11.b", LOADER.format(body="DataLoader(range(10), shuffle=True)"), "fail", "no generator"),
    Case("11.b", LOADER.format(body="DataLoader(range(10), generator=torch.Generator().manual_seed(11))"),
         "fail", "does not shuffle"),
    Case("11.b", LOADER.format(body="DataLoader(range(10), shuffle=True, generator=torch.Generator())"),
         "fail", "expected 11"),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_case(case):
    assert_case(case)
