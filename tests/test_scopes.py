"""scopes: the current CUDA device and the default device, traced through nested blocks."""

import threading

import pytest
import torch
from answer_references import listing_answers, random_program, replay, simulate_reference
from torch.torch_version import TorchVersion

from course_utils import scopes
from course_utils.checks import check
from course_utils.checks.nb04 import LISTING
from course_utils.scopes import (
    NO_CUDA,
    ScopeStep,
    ScopeTrace,
    default_device,
    read_devices,
    run_scopes,
    trace_current_device,
)

HAS_CUDA = torch.cuda.is_available()


def test_trace_records_the_default_device_of_a_torch_device_block():
    with trace_current_device() as t:
        with t.scope("torch.device('meta')", torch.device("meta")):
            t.mark("made " + str(torch.ones(1).device))
        t.mark("after all")
    trace = t.trace
    assert [s.step for s in trace.steps] == [
        "start",
        "inside torch.device('meta')",
        "made meta",
        "after torch.device('meta')",
        "after all",
    ]
    assert trace.default_devices == ("cpu", "meta", "meta", "cpu", "cpu")
    assert trace["made meta"].depth == 1 and trace["after all"].depth == 0
    assert str(default_device()) == "cpu"  # nothing left changed


def test_device_of_a_cpu_tensor_is_a_no_op_everywhere():
    before = read_devices()
    trace = run_scopes([("device_of(cpu tensor)", torch.cuda.device_of(torch.ones(2)))])
    assert not trace.errors
    assert trace.cuda_devices == (before[0],) * 3
    assert [s.step for s in trace.steps] == ["before", "inside device_of(cpu tensor)", "after device_of(cpu tensor)"]


@pytest.mark.skipif(HAS_CUDA, reason="checks the CPU-only behaviour")
def test_without_cuda_the_cuda_column_says_so_and_a_cuda_scope_is_recorded_not_raised():
    trace = run_scopes([("outer", torch.device("meta")), ("device(0)", lambda: torch.cuda.device(0)), ("never", torch.device("cpu"))])
    assert not trace.cuda_available
    assert all(s.cuda_device is None and s.cuda_label == NO_CUDA for s in trace.steps)
    (failed,) = trace.errors
    assert failed.step == "enter device(0)" and "RuntimeError" in failed.error
    assert [s.step for s in trace.steps] == ["before", "inside outer", "enter device(0)", "after outer"]
    assert trace.default_devices[-1] == "cpu"
    assert "could not enter" in str(trace) and "could not enter" in trace._repr_html_()
    assert "n/a (no CUDA)" in str(trace)


def test_scopes_are_left_even_when_the_body_raises():
    with pytest.raises(ZeroDivisionError):
        run_scopes([("meta", torch.device("meta"))], body=lambda: 1 / 0)
    assert str(default_device()) == "cpu"


def test_a_factory_is_called_at_its_place_in_the_nesting():
    seen = []

    def factory():
        seen.append(str(default_device()))
        return torch.device("cpu")

    trace = run_scopes([("meta", torch.device("meta")), ("cpu", factory)])
    assert seen == ["meta"]
    assert trace.default_devices == ("cpu", "meta", "cpu", "meta", "cpu")


def test_bad_input_gets_clear_errors():
    with pytest.raises(TypeError, match="list of \\(label, context manager\\) pairs"):
        run_scopes(torch.device("meta"))
    with pytest.raises(TypeError, match="item 0 should be a \\(label, context manager\\) pair"):
        run_scopes([torch.device("meta")])
    with pytest.raises(TypeError, match="should be a context manager"):
        run_scopes([("an int", 3)])
    with pytest.raises(TypeError, match="returned int"):
        run_scopes([("returns an int", lambda: 3)])
    with trace_current_device(start=None) as t:
        with pytest.raises(TypeError, match="non-empty string"):
            t.mark(3)
    assert len(t.trace) == 0
    with pytest.raises(KeyError, match="no step labelled 'x'"):
        run_scopes([])["x"]


def test_trace_shows_as_text_and_html():
    trace = ScopeTrace((ScopeStep("start", 0, "cpu"), ScopeStep("inside device(1)", 1, "cpu", depth=1)), True)
    text = str(trace)
    assert "cuda:1" in text and "  inside device(1)" in text and "n/a" not in text
    assert "<table>" in trace._repr_html_() and "cuda:1" in trace._repr_html_()


@pytest.mark.cuda(2)
def test_device_scopes_switch_and_restore_on_two_gpus():
    t1 = torch.ones(1, device="cuda:1")
    start = torch.cuda.current_device()
    trace = run_scopes(
        [
            ("device(1)", torch.cuda.device(1)),
            ("device_of(cpu)", torch.cuda.device_of(torch.ones(1))),
            ("device(0)", torch.cuda.device(0)),
            ("device_of(t1)", torch.cuda.device_of(t1)),
            ("torch.device('cuda:0')", torch.device("cuda:0")),
        ]
    )
    assert trace.cuda_devices == (start, 1, 1, 0, 1, 1, 1, 0, 1, 1, start)
    assert torch.cuda.current_device() == start


@pytest.mark.cuda
def test_current_device_is_read_on_one_gpu():
    trace = run_scopes([("device(0)", torch.cuda.device(0)), ("device(-1)", torch.cuda.device(-1))])
    assert trace.cuda_available and not trace.errors
    assert set(trace.cuda_devices) <= {0, torch.cuda.current_device()}


# --------------------------------------------------------------------------- the reference model behind 04.1-04.2's tables


def test_reference_model_follows_torch_cuda_device_rules():
    assert listing_answers() == [1, 1, 0, 0, 1, 0, 1, 1]
    assert simulate_reference(0, [("device", 0), ("set_device", 1), ("exit",)]) == [0, 1, 0]  # undone
    assert simulate_reference(0, [("device", -1), ("set_device", 1), ("exit",)]) == [0, 1, 1]  # kept
    assert simulate_reference(2, [("device", None), ("set_device", 1), ("exit",)]) == [2, 1, 2]
    assert simulate_reference(1, [("torch.device", "cuda:0"), ("exit",)]) == [1, 1]
    with pytest.raises(ValueError, match="never entered"):
        simulate_reference(0, [("exit",)])


def test_checks_reject_plausible_wrong_answers():
    def no_restore(start, program):  # forgets that exit restores the device of the entry moment
        current, out = start, []
        for step in program:
            if step[0] in ("device", "device_of") and step[1] not in ("cpu", None) and step[1] >= 0:
                current = step[1]
            elif step[0] == "set_device" and step[1] >= 0:
                current = step[1]
            out.append(current)
        return out

    assert check("04.2", answer=no_restore).status == "fail"
    assert check("04.1", answer=lambda: [1, 1, 0, 0, 1, 1, 1, 0]).status == "fail"
    assert check("04.3", answer=lambda spec, current: "cuda:0" if spec is not None and "cuda" in str(spec) else "cpu").status == "fail"
    assert check("04.4", answer=lambda device: torch.cuda.device(torch.device(device).index or 0)).status == "fail"


@pytest.mark.cuda(2)
def test_reference_model_matches_real_gpus():
    import random

    rng = random.Random(7)
    programs = [LISTING] + [random_program(rng, gpus=2) for _ in range(40)]
    for program in programs:
        assert replay(program, start=0) == simulate_reference(0, program), program


def test_default_device_is_where_factories_create_on_every_version():
    assert default_device() == torch.device("cpu")
    with torch.device("meta"):
        assert default_device() == torch.ones(1).device == torch.device("meta")
    torch.set_default_device("meta")
    try:
        assert default_device() == torch.device("meta")
    finally:
        torch.set_default_device(None)
    assert default_device() == torch.device("cpu")
    with torch.device("cuda:1"):  # entering is lazy: nothing needs CUDA until a tensor is made
        assert default_device() == torch.device("cuda:1")


def test_why_default_device_does_not_ask_get_default_device():
    # The reason default_device() exists: get_default_device() was fixed in two releases (read in
    # the wheels 2.7.1, 2.8.0, 2.9.1, 2.10.0). Before 2.8 it ignored `with torch.device(...)` in a
    # thread that never called set_default_device; before 2.10 it raised AttributeError after
    # set_default_device(None). If this fails on a supported release, PyTorch changed again:
    # update default_device(), its docstring and lesson 02's cell.
    def in_a_fresh_thread():  # set_default_device's state is per thread: none here yet
        with torch.device("meta"):
            seen.append((torch.get_default_device(), torch.ones(1).device))

    seen = []
    worker = threading.Thread(target=in_a_fresh_thread)
    worker.start()
    worker.join()
    release = TorchVersion(torch.__version__)
    assert seen == [(torch.device("meta" if release >= "2.8" else "cpu"), torch.device("meta"))]
    torch.set_default_device("meta")
    torch.set_default_device(None)
    if release >= "2.10":
        assert torch.get_default_device() == torch.device("cpu")
    else:
        with pytest.raises(AttributeError, match="'NoneType' object has no attribute 'device'"):
            torch.get_default_device()
    assert default_device() == torch.device("cpu")


def test_default_device_hands_over_to_torch_only_where_torch_survives_a_reset():
    # The gate itself, on the installed torch: default_device() may return torch's answer only on
    # a release whose get_default_device() answers after set_default_device(None). The gate at 2.8
    # (blocks fixed, reset not) failed this on 2.8.x and 2.9.x.
    torch.set_default_device("meta")
    torch.set_default_device(None)
    try:
        torch_answer = torch.get_default_device()
    except AttributeError:
        torch_answer = None
    assert scopes._GET_DEFAULT_DEVICE_IS_RIGHT == (torch_answer == torch.device("cpu")), (
        f"torch {torch.__version__}: get_default_device() after a reset gives {torch_answer}"
    )
    assert default_device() == torch.device("cpu")


def test_default_devices_own_lookup_agrees_with_a_fixed_torch(monkeypatch):
    # The lookup used before 2.10, forced on the installed torch: where that torch is fixed, both answer alike.
    monkeypatch.setattr(scopes, "_GET_DEFAULT_DEVICE_IS_RIGHT", False)
    reads = []

    def read():
        reads.append(default_device())
        if TorchVersion(torch.__version__) >= "2.10":
            assert reads[-1] == torch.get_default_device()

    read()
    with torch.device("meta"):
        read()
        with torch.device("cpu"):
            read()
    torch.set_default_device("meta")
    try:
        read()
    finally:
        torch.set_default_device(None)
    read()
    with torch.device("cuda:1"):  # entering is lazy: nothing needs CUDA until a tensor is made
        read()
    assert [str(d) for d in reads] == ["cpu", "meta", "cpu", "meta", "cpu", "cuda:1"]


def test_restoring_the_cpu_default_leaves_get_default_device_working():
    """A check that puts the default device back must not break the learner's next torch.get_default_device()
    (on 2.7 to 2.9 it raised AttributeError after torch.set_default_device(None))."""
    from course_utils.scopes import restore_default_device

    torch.set_default_device("meta")
    try:
        assert torch.empty(1).device.type == "meta"
    finally:
        restore_default_device(torch.device("cpu"))
    assert torch.get_default_device() == torch.device("cpu")
    assert getattr(torch._GLOBAL_DEVICE_CONTEXT, "device_context", "absent") == "absent"
    assert torch.empty(1).device.type == "cpu"
