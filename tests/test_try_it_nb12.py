"""Lesson 12's try-it cells: a right answer and plausible wrong ones, each failing for its reason.
Lesson: notebook 12 (which GPU, which build)."""

import pytest
from try_it_support import Case, assert_case

HAS_KERNELS = "def has_kernels(arch_list, capability):\n{body}\n"
RIGHT = """    major, minor = capability
    for arch in arch_list:
        kind, _, number = arch.partition("_")
        built = (int(number[:-1]), int(number[-1]))
        if kind == "sm" and built[0] == major and built[1] <= minor:
            return True
        if kind == "compute" and built <= (major, minor):
            return True
    return False"""
EXACT = '    return f"sm_{capability[0]}{capability[1]}" in arch_list'
NO_PTX = """    return any(a.startswith("sm_") and int(a[3:-1]) == capability[0] and int(a[-1]) <= capability[1]
               for a in arch_list)"""
ANY_MAJOR_UP = """    return any(int(a.split("_")[1][:-1]) <= capability[0] for a in arch_list)"""

CASES = [
    Case("12.a", HAS_KERNELS.format(body=RIGHT), "pass"),
    Case("12.a", HAS_KERNELS.format(body=EXACT), "fail", "older minor of the same major"),
    Case("12.a", HAS_KERNELS.format(body=NO_PTX), "fail", "PTX"),
    Case("12.a", HAS_KERNELS.format(body=ANY_MAJOR_UP), "fail", "do not run across majors"),
    Case("12.a", HAS_KERNELS.format(body="    return 'yes'"), "fail", "expected True or False"),
    Case("12.b", "env = {'CUDA_DEVICE_ORDER': 'PCI_BUS_ID', 'CUDA_VISIBLE_DEVICES': '1'}", "pass"),
    Case("12.b", "env = {'CUDA_VISIBLE_DEVICES': 'GPU-8d2e41b7'}", "pass"),
    Case("12.b", "env = {'CUDA_VISIBLE_DEVICES': '1'}", "fail", "FASTEST_FIRST"),
    Case("12.b", "env = {'CUDA_DEVICE_ORDER': 'PCI_BUS_ID', 'CUDA_VISIBLE_DEVICES': '0'}", "fail", "only the"),
    Case("12.b", "env = {'CUDA_DEVICE_ORDER': 'PCI_BUS_ID', 'CUDA_VISIBLE_DEVICES': 1}", "fail", "both str"),
    Case("12.b", "env = {'CUDA_DEVICE_ORDER': 'PCI_BUS_ID'}", "fail", "unset"),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_case(case):
    assert_case(case)
