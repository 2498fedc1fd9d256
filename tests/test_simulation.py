"""``course_utils.simulation``: lesson 04's programs on the simulated two-GPU machine the checks use.

The simulated machine must answer as torch.cuda does (held to exercise 04.2's table of 308 programs
and to 04.1's listing, which tests/answer_references.py holds to real GPUs), every view of a
simulated result must say SIMULATED and name PyTorch's source, and the lesson's simulated cells
must show the sequences its text predicts.
"""

from __future__ import annotations

import ast
from pathlib import Path

import nbformat
import pytest
import torch
from torch import nn
from torch.overrides import _get_current_function_mode_stack

from course_utils.checks.nb04 import LISTING, LISTING_ANSWERS, simulate_cases
from course_utils.scopes import run_scopes
from course_utils.simulation import SOURCES, SimulatedRun, on_simulated_gpus

ROOT = Path(__file__).resolve().parents[1]
LESSON = ROOT / "notebooks" / "04_current_device.ipynb"
LABEL = "SIMULATED (built from PyTorch's source: torch/cuda/__init__.py, torch/cuda/_utils.py, torch/utils/_device.py)"


def run_program(program: list[tuple]) -> list[int]:
    """Exercise 04.2's program with the real torch.cuda calls (as answer_references.replay does on GPUs)."""
    open_blocks, after = [], []
    for step in program:
        kind = step[0]
        if kind == "exit":
            open_blocks.pop().__exit__(None, None, None)
        elif kind == "set_device":
            torch.cuda.set_device(step[1])
        elif kind != "read":
            if kind == "device":
                manager = torch.cuda.device(step[1])
            elif kind == "device_of":
                manager = torch.cuda.device_of(torch.ones(1, device="cpu" if step[1] == "cpu" else f"cuda:{step[1]}"))
            else:
                manager = torch.device(step[1])
            manager.__enter__()
            open_blocks.append(manager)
        after.append(torch.cuda.current_device())
    assert not open_blocks
    return after


# --------------------------------------------------------------------------- it answers as torch.cuda does


def test_the_simulation_agrees_with_every_program_of_exercise_04_2():
    wrong = [
        (start, program, expected, got)
        for start, program, expected in simulate_cases()
        if (got := on_simulated_gpus(run_program, list(program), gpus=4, start=start).value) != list(expected)
    ]
    assert len(simulate_cases()) > 300 and wrong == []


def test_the_simulation_reads_exercise_04_1s_listing_as_pytorch_prints_it():
    after = on_simulated_gpus(run_program, LISTING).value
    reads = tuple(after[i] for i, step in enumerate(LISTING) if step[0] == "read")
    assert reads == LISTING_ANSWERS


def test_new_cuda_tensors_land_on_the_current_device_after_set_device():
    def program():
        torch.cuda.set_device(1)
        made = (torch.ones(2, device="cuda"), torch.ones(2).cuda(), torch.ones(2).to("cuda"), torch.zeros(1).cuda(0))
        with torch.device("cuda"):
            made += (torch.ones(1), nn.Linear(2, 2).weight)
        return [str(t.device) for t in made], torch.ones(2, device="cuda").is_cuda, torch.ones(2).is_cuda

    devices, cuda_is_cuda, cpu_is_cuda = on_simulated_gpus(program).value
    assert devices == ["cuda:1", "cuda:1", "cuda:1", "cuda:0", "cuda:1", "cuda:1"]
    assert cuda_is_cuda and not cpu_is_cuda


def test_device_of_a_cpu_tensor_is_a_no_op_and_of_a_gpu_tensor_switches():
    def program():
        seen = [torch.cuda.current_device()]
        with torch.cuda.device_of(torch.ones(1)):
            seen.append(torch.cuda.current_device())
        with torch.cuda.device_of(torch.ones(1, device="cuda:0")):
            seen.append(torch.cuda.current_device())
        return seen + [torch.cuda.current_device()]

    assert on_simulated_gpus(program, start=1).value == [1, 1, 0, 1]


def test_a_moved_tensor_keeps_its_values_and_comes_back_as_a_plain_cpu_tensor():
    def program():
        g = torch.arange(3.0).cuda(1)
        back = (g * 2).cpu()
        return str(g.device), str((g * 2).device), type(back) is torch.Tensor, back.tolist(), str(g.to(torch.int64).device)

    assert on_simulated_gpus(program).value == ("cuda:1", "cuda:1", True, [0.0, 2.0, 4.0], "cuda:1")


def test_moves_to_other_devices_are_real_ones():
    def program():
        x = torch.ones(2)
        return [
            str(t.device)
            for t in (
                x.to("meta"),
                x.to(torch.device("meta")),
                x.cpu(),
                x.to("cpu"),
                torch.ones(1, device="cuda").to("meta"),
                x.to(torch.float64),
            )
        ]

    assert on_simulated_gpus(program).value == ["meta", "meta", "cpu", "cpu", "meta", "cpu"]


# --------------------------------------------------------------------------- what it refuses, and what it leaves


@pytest.mark.parametrize(
    ("program", "match"),
    [
        (lambda: torch.ones(1, device="cuda:0") + torch.ones(1, device="cuda:1"), "mixes tensors on cuda:0 and cuda:1"),
        (lambda: torch.ones(2, device="cuda:0") + torch.ones(2), "mixes tensors on cpu and cuda:0"),
        (lambda: torch.ones(1, device="cuda:2"), "there is no cuda:2, it has 2"),
        (lambda: torch.cuda.set_device(5), "there is no cuda:5"),
        (lambda: torch.cuda.device(3).__enter__(), "there is no cuda:3"),
        (lambda: nn.Linear(2, 2).cuda(), "moving a module's parameters is not simulated"),
    ],
)
def test_what_it_does_not_simulate_stops_with_a_message_that_says_so(program, match):
    with pytest.raises(RuntimeError, match=match):
        on_simulated_gpus(program)


def test_a_zero_dim_cpu_tensor_may_join_a_gpu_tensor_as_in_pytorch():
    assert on_simulated_gpus(lambda: str((torch.ones(2, device="cuda") * torch.tensor(3.0)).device)).value == "cuda:0"


def test_a_simulated_tensor_never_leaves_the_simulation():
    with pytest.raises(ValueError, match=r"returned a tensor on simulated cuda:1.*str\(t.device\)"):
        on_simulated_gpus(lambda: {"t": torch.ones(1, device="cuda:1")})


@pytest.mark.parametrize(
    ("args", "kwargs", "match"),
    [
        ((42,), {}, "expects a function"),
        ((lambda: 0,), {"gpus": 0}, "1 or more"),
        ((lambda: 0,), {"start": 2}, "0 to 1"),
    ],
)
def test_bad_arguments_say_what_to_pass(args, kwargs, match):
    with pytest.raises((TypeError, ValueError), match=match):
        on_simulated_gpus(*args, **kwargs)


def test_the_real_machine_is_as_it_was_afterwards():
    before = (
        torch.cuda.is_available,
        torch.cuda.current_device,
        torch.cuda.set_device,
        torch.cuda._exchange_device,
        torch.cuda._maybe_exchange_device,
        torch.cuda.device_count(),
        len(_get_current_function_mode_stack()),
    )
    on_simulated_gpus(run_program, [("device", 1), ("set_device", 0), ("torch.device", "cuda:1"), ("exit",), ("exit",)])
    with pytest.raises(RuntimeError):
        on_simulated_gpus(lambda: torch.cuda.set_device(7))
    after = (
        torch.cuda.is_available,
        torch.cuda.current_device,
        torch.cuda.set_device,
        torch.cuda._exchange_device,
        torch.cuda._maybe_exchange_device,
        torch.cuda.device_count(),
        len(_get_current_function_mode_stack()),
    )
    assert after == before
    assert str(torch.ones(1).device) == "cpu"


# --------------------------------------------------------------------------- labelled as a simulation


def test_every_view_of_a_result_says_simulated_and_names_the_source():
    run = on_simulated_gpus(lambda: run_scopes([("device(1)", torch.cuda.device(1))]))
    assert isinstance(run, SimulatedRun)
    assert str(run).startswith(LABEL) and repr(run) == str(run)
    html = run._repr_html_()
    assert "<b>SIMULATED (built from PyTorch&#x27;s source: torch/cuda/__init__.py, " in html
    assert ", not a run: <code>&lt;lambda&gt;()</code> on 2 simulated GPUs" in html
    assert "<table" in html  # the trace's own table, inside the card
    assert run.value.cuda_devices == (0, 1, 0)


@pytest.mark.parametrize(
    ("source", "passage"),
    [
        ("torch/cuda/__init__.py", "self.prev_idx = torch.cuda._exchange_device(self.idx)"),
        ("torch/cuda/__init__.py", "self.idx = torch.cuda._maybe_exchange_device(self.prev_idx)"),
        ("torch/cuda/__init__.py", "idx = obj.get_device() if obj.is_cuda else -1"),
        ("torch/cuda/__init__.py", "device = _get_device_index(device)\n    if device >= 0:\n        torch._C._cuda_setDevice"),
        ("torch/cuda/_utils.py", "i.e., ``torch.device('cuda')``, this will return the current default CUDA"),
        ("torch/utils/_device.py", 'if func in _device_constructors() and kwargs.get("device") is None:'),
    ],
)
def test_the_source_the_simulation_follows_is_in_the_installed_torch(source, passage):
    """If PyTorch changes one of these, the simulation must be read against it again."""
    assert source in SOURCES
    text = (Path(torch.__file__).parent.parent / source).read_text(encoding="utf-8")
    # 2.7.1 writes kwargs.get('device'), later releases kwargs.get("device"): the code, not its quotes, is the point
    assert passage in text or passage.replace('"', "'") in text


# --------------------------------------------------------------------------- the lesson's simulated cells


def _lesson_values() -> tuple[dict[str, SimulatedRun], dict[str, object]]:
    """Run lesson 04's code cells in this process, as Run All would: the value each simulated cell ends on,
    by the call it shows, and the lesson's namespace (its functions)."""
    namespace: dict[str, object] = {"display": lambda *args, **kwargs: None}
    values = {}
    for cell in nbformat.read(LESSON, as_version=4).cells:
        tags = cell.metadata.get("tags", [])
        if cell.cell_type != "code" or "course-header" in tags or "raises-exception" in tags:
            continue
        source = "\n".join(line for line in cell.source.splitlines() if not line.startswith("%"))
        tree = ast.parse(source)
        last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
        exec(compile(tree, str(LESSON), "exec"), namespace)  # noqa: S102 (the course's own lesson)
        if last is not None:
            value = eval(compile(ast.Expression(last.value), str(LESSON), "eval"), namespace)  # noqa: S307
            if isinstance(value, SimulatedRun):
                values[value.program] = value
    return values, namespace


def test_the_lessons_simulated_cells_show_what_its_text_predicts():
    values, _ = _lesson_values()
    expected = {
        "ask_each_gpu(where_new_cuda_tensors_go)": {
            "cuda:0 current": {".cuda()": "cuda:0", 'device="cuda"': "cuda:0"},
            "cuda:1 current": {".cuda()": "cuda:1", 'device="cuda"': "cuda:1"},
        },
        "switch_for_a_block(1)": (1, 1, 0),
        "inside_device_of_a_gpu_tensor()": (0, "cpu", "cuda:0"),
        "set_device_inside_blocks()": (0, 1),
        "default_versus_current()": (0, "cuda:1", "cuda:0"),
    }
    assert {k: v.value for k, v in values.items() if k in expected} == expected
    trace = values["nested_trace()"].value
    # the prediction in the lesson's text: 0 1 1 0 1 1 on the way in, 1 0 1 1 0 on the way out
    assert trace.cuda_devices == (0, 1, 1, 0, 1, 1, 1, 0, 1, 1, 0)
    assert [d for d in trace.default_devices] == ["cpu"] * 5 + ["cuda:0"] + ["cpu"] * 5
    assert all(str(v).startswith(LABEL) for v in values.values()) and len(values) == 6
    assert values["inside_device_of_a_gpu_tensor()"].start == 1


@pytest.mark.cuda(2)
def test_on_two_real_gpus_the_lessons_programs_agree_with_the_simulation():
    """The same functions, run for real and simulated: the simulation is right only where these agree."""
    values, lesson = _lesson_values()
    original = torch.cuda.current_device()
    try:
        torch.cuda.set_device(0)
        real = {
            "switch_for_a_block(1)": lesson["switch_for_a_block"](1),
            "set_device_inside_blocks()": lesson["set_device_inside_blocks"](),
            "default_versus_current()": lesson["default_versus_current"](),
            "nested_trace()": lesson["nested_trace"]().cuda_devices,
        }
        torch.cuda.set_device(1)  # as the simulated cell starts it
        real["inside_device_of_a_gpu_tensor()"] = lesson["inside_device_of_a_gpu_tensor"]()
    finally:
        torch.cuda.set_device(original)
    simulated = {k: (v.value.cuda_devices if k == "nested_trace()" else v.value) for k, v in values.items() if k in real}
    assert simulated == real


# --------------------------------------------------------------------------- no answer to 04.1, 04.2 and 04.3


def simulate_on_the_simulated_gpus(start, program):
    """A 04.2 'answer' that runs the program instead of applying the rules: the check must refuse it.

    Eight GPUs: a grading run draws programs on up to 8 (hidden_cases.nb04), so any drawn ``start`` is
    one of them and the refusal, not a bad index, is what stops it."""
    return on_simulated_gpus(run_program, program, gpus=8, start=start).value


def predictions_on_the_simulated_gpus():
    after = on_simulated_gpus(run_program, LISTING).value
    return [after[i] for i, step in enumerate(LISTING) if step[0] == "read"]


def landing_device_on_the_simulated_gpus(spec, current):
    def land():
        x = torch.ones(1)
        return str((x.cuda() if spec is None else x.cuda(spec) if isinstance(spec, int) else x.to(spec)).device)

    return on_simulated_gpus(land, gpus=4, start=current).value


def test_the_simulated_gpus_would_answer_04_3_outside_its_check():
    """So the switch below is needed: on the simulated GPUs the shortcut gets every case of 04.3 right."""
    from course_utils.checks.nb04 import LANDING_CASES

    assert all(landing_device_on_the_simulated_gpus(spec, current) == expected for spec, current, expected in LANDING_CASES)


@pytest.mark.parametrize(
    ("exercise", "answer"),
    [("04.2", simulate_on_the_simulated_gpus), ("04.1", predictions_on_the_simulated_gpus), ("04.3", landing_device_on_the_simulated_gpus)],
)
def test_the_simulated_gpus_cannot_answer_the_exercises_on_the_rules(exercise, answer):
    from course_utils.checks import check

    result = check(exercise, answer)
    assert result.status != "pass"
    assert f"switched off while exercise {exercise} is checked" in str(result)
    assert on_simulated_gpus(run_program, [("device", 1), ("exit",)]).value == [1, 0]  # and on again after


def test_the_switch_goes_through_the_graders_boundary():
    """course-grade calls the answer in the kernel: the switch must travel there with the request."""
    import pickle

    from course_grader import boundary
    from course_utils.checks.machines import NoSimulatedGPUs

    assert pickle.loads(pickle.dumps(NoSimulatedGPUs("04.2"))).exercise == "04.2"
    there = boundary.grade("04.2", boundary.local_channel({"simulate": simulate_on_the_simulated_gpus}))
    assert there.status == "fail" and "switched off while exercise 04.2 is checked" in there.message


def test_a_simulated_mac_says_its_torch_is_built_with_mps():
    """01.1: an answer that asks torch.backends.mps.is_built() before is_available() is right on a real Mac, so it
    passes on the simulated one (the check refused it while the simulation left is_built() to this machine's torch)."""
    from course_utils.checks import check

    def best_device():
        if torch.cuda.is_available():
            return torch.device("cuda")
        if torch.backends.mps.is_built() and torch.backends.mps.is_available():
            return torch.device("mps")
        return torch.device("cpu")

    assert check("01.1", best_device).passed
