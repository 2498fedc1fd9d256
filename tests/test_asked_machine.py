"""A simulated machine whose facts stay with the judge (issue 38, item 3): ``course_grader.boundary.AskedMachine``.

The grader's kernel runs an answer under ``simulated(AskedMachine(ask))``: its request names no machine, and
each fact is asked for when one of torch's functions first needs it. Here: entering asks nothing; each function
asks only what it needs; and torch answers under it exactly as under the ``SimulatedMachine`` itself, for every
kind of machine the checks simulate. Fast: no kernel (the real kernels' path is in test_grading_boundary.py and
test_grading_hidden_cases.py).
"""

from __future__ import annotations

import json
import pickle

import pytest
import torch

from course_grader.boundary import ASK, ASKED, AskedMachine, answer_question, current_ambient, encode_request, machine_facts, split_request
from course_utils.checks.machines import SimulatedBuild, SimulatedMachine, simulated

MACHINES = [
    SimulatedMachine("a laptop", cuda=0, mps=False),
    SimulatedMachine("a CUDA wheel, no driver", cuda=0, mps=False, no_cuda="no-driver"),
    SimulatedMachine("a GPU server", cuda=4, mps=False, current=2),
    SimulatedMachine("a Mac", cuda=0, mps=True),
    SimulatedMachine("an Intel GPU", cuda=0, mps=False, xpu=True),
    SimulatedMachine("a 12.8 wheel on an H100", cuda=2, mps=False, build=SimulatedBuild()),
    SimulatedMachine(
        "a ROCm wheel",
        cuda=1,
        mps=False,
        build=SimulatedBuild(cuda=None, hip="6.3", arch_list=("gfx90a",), gpu_name="AMD MI250X", capability=(9, 0)),
    ),
    SimulatedMachine(
        "a GPU too new for its wheel", cuda=1, mps=False, build=SimulatedBuild(cuda="11.8", arch_list=("sm_80",), capability=(12, 0))
    ),
]


def _asking(machine: SimulatedMachine, asked: list[str]) -> AskedMachine:
    """An AskedMachine answered from ``machine`` through JSON, as the kernel's is, noting each field asked."""
    facts = machine_facts(machine)

    def ask(field: str):
        asked.append(field)
        return json.loads(answer_question(facts, ASKED + field))

    return AskedMachine(ask)


def _outcome(call):
    try:
        return ("value", repr(call()))
    except Exception as exc:  # noqa: BLE001 (what it raises is the outcome compared)
        return ("raised", type(exc).__name__, str(exc))


def _moved_by_set_device():
    torch.cuda.set_device(1)
    return torch.cuda.current_device()


def _inside_a_device_block():
    with torch.cuda.device(1):
        inside = torch.cuda.current_device()
    return inside, torch.cuda.current_device()


QUESTIONS = {
    "cuda available": torch.cuda.is_available,
    "cuda count": torch.cuda.device_count,
    "current device": torch.cuda.current_device,
    "mps": torch.backends.mps.is_available,
    "xpu": lambda: torch.xpu.is_available(),
    "accelerator": lambda: (torch.accelerator.is_available(), torch.accelerator.current_accelerator(), torch.accelerator.device_count()),
    "version": lambda: (torch.version.cuda, torch.version.hip, torch.__version__ == torch.version.__version__),
    "arch list": torch.cuda.get_arch_list,
    "capability": torch.cuda.get_device_capability,
    "name": lambda: torch.cuda.get_device_name(0),
    "set_device": _moved_by_set_device,
    "device block": _inside_a_device_block,
}


@pytest.mark.parametrize("machine", MACHINES, ids=lambda m: m.name)
@pytest.mark.parametrize("question", sorted(QUESTIONS))
def test_torch_answers_as_under_the_machine_itself(machine, question):
    with simulated(machine):
        expected = _outcome(QUESTIONS[question])
    with simulated(_asking(machine, []), announce=False):
        got = _outcome(QUESTIONS[question])
    # the one difference: the kernel never learns the checker's words for the machine
    assert got == tuple(part.replace(f"simulated machine {machine.name!r}", "simulated machine ''") for part in expected)


@pytest.mark.parametrize("machine", MACHINES, ids=lambda m: m.name)
def test_entering_asks_nothing_and_each_function_what_it_needs(machine):
    asked, installed = [], torch.version.cuda
    with simulated(_asking(machine, asked), announce=False):
        assert asked == []
        torch.cuda.device_count()
        assert asked == ["cuda"]
        torch.backends.mps.is_available()
        assert asked == ["cuda", "mps"]
        assert torch.version.cuda == (machine.build.cuda if machine.build else installed)
        torch.cuda.device_count()  # known by now: not asked twice
        assert asked == ["cuda", "mps", "build"]


def test_a_request_names_no_machine_and_the_grader_keeps_its_facts():
    machine = SimulatedMachine("a GPU server with 4 GPUs", cuda=4, mps=False, current=3)
    with simulated(machine):
        request, _ = encode_request("call", "best_device", (), {}, current_ambient())
    facts, sent = split_request(request)  # the facts stay with the grader (runner.exchange), the rest is sent
    assert facts == machine_facts(machine) and "name" not in facts
    assert pickle.loads(sent)["ambient"].machine == ASK
    assert b"GPU server" not in sent and b"current" not in sent
    assert answer_question(facts, ASKED + "current") == "3"
    assert answer_question(facts, ASKED + "name") == answer_question(facts, "anything else") == "null"
