"""Unit tests of course_utils.loading and course_utils.memory (notebook 09), and the PyTorch
behaviour the lesson teaches, run on the torch under test (CI: 2.13.0 CPU, 2.7.1 and 2.14.1)."""

import multiprocessing
import os
import warnings

import pytest
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from course_utils.loading import TouchesDevice, WhereAmI, WorkerTrace, start_method, trace_workers
from course_utils.memory import StepMemory, saved_for_backward, step_memory, storage_bytes

# ----------------------------------------------------------------- what the lesson claims of PyTorch


@pytest.mark.skipif(torch.accelerator.is_available(), reason="the no-accelerator path: needs a machine without one")
def test_pin_memory_without_an_accelerator_warns_and_does_not_pin():
    ds = TensorDataset(torch.randn(4, 2), torch.arange(4))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        x, _ = next(iter(DataLoader(ds, batch_size=2, pin_memory=True)))
    assert not x.is_pinned()
    assert any("no accelerator is found" in str(w.message) for w in caught), [str(w.message) for w in caught]


def test_out_of_memory_error_exists_and_is_a_runtime_error():
    assert issubclass(torch.cuda.OutOfMemoryError, RuntimeError)
    assert torch.cuda.OutOfMemoryError is torch.OutOfMemoryError


def test_an_impossible_cpu_allocation_is_a_runtime_error_at_once():
    with pytest.raises(RuntimeError, match="can't allocate memory"):
        torch.empty(2**62, dtype=torch.uint8)


def test_the_label_left_on_the_cpu_raises_with_meta_standing_in():
    logits = nn.Linear(8, 3, device="meta")(torch.randn(4, 8, device="meta"))
    with pytest.raises(RuntimeError, match="device"):
        nn.functional.cross_entropy(logits, torch.tensor([0, 1, 2, 0]))


# ----------------------------------------------------------------- loading


def test_where_am_i_in_the_main_process_and_in_workers():
    assert WhereAmI(3)[1] == {"index": 1, "pid": os.getpid(), "worker": -1}
    trace = trace_workers(DataLoader(WhereAmI(6), batch_size=2, num_workers=2))
    assert isinstance(trace, WorkerTrace) and sorted(i for i, _, _ in trace.samples) == list(range(6))
    assert set(trace.worker_pids) == {0, 1} and os.getpid() not in trace.worker_pids.values()
    assert "worker 1" in str(trace)


def test_without_workers_the_main_process_makes_every_sample():
    trace = trace_workers(DataLoader(WhereAmI(4), batch_size=3))
    assert trace.worker_pids == {-1: os.getpid()}
    assert "main process" in str(trace)


def test_start_method_reads_the_loader_context_or_the_default():
    assert start_method(DataLoader(WhereAmI(2))) == multiprocessing.get_start_method()
    assert start_method(DataLoader(WhereAmI(2), num_workers=1, multiprocessing_context="spawn")) == "spawn"


@pytest.mark.parametrize("bad", [0, -1, 2.5, True])
def test_bad_sizes_say_what_was_expected(bad):
    with pytest.raises(ValueError, match="positive"):
        WhereAmI(bad)
    with pytest.raises(ValueError, match="positive"):
        TouchesDevice("cpu", bad)


def test_trace_workers_refuses_other_datasets_and_touches_device_makes_device_tensors():
    with pytest.raises(TypeError, match="WhereAmI"):
        trace_workers(DataLoader(TensorDataset(torch.ones(2))))
    assert TouchesDevice("meta")[3].device.type == "meta"
    assert torch.equal(TouchesDevice("cpu")[2], torch.full((2,), 2.0))


# ----------------------------------------------------------------- memory


def test_storage_bytes_counts_each_storage_once():
    base = torch.zeros(10)  # 40 bytes
    assert storage_bytes([base, base[2:5], base.view(2, 5)]) == 40
    assert storage_bytes([base, torch.zeros(3, dtype=torch.float64)]) == 64
    assert storage_bytes([torch.zeros(4, device="meta"), torch.zeros(4, device="meta")]) == 32
    with pytest.raises(TypeError, match="tensors"):
        storage_bytes([1, 2])


def test_saved_for_backward_tells_parameters_from_activations():
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    x = torch.randn(5, 4)
    out, saved = saved_for_backward(lambda: model(x).sum(), model.parameters())
    assert out.requires_grad
    params = [t for t in saved.tensors if t.is_parameter]
    assert [t.shape for t in params] == [(8, 2)]  # the second weight, saved by reference as its transpose
    # x (80 bytes) for the first weight's gradient; the ReLU output (160), saved once though used twice
    assert saved.activation_bytes == 5 * 4 * 4 + 5 * 8 * 4
    with torch.no_grad():
        assert saved_for_backward(lambda: model(x), model.parameters())[1].tensors == ()
    with pytest.raises(TypeError, match="function"):
        saved_for_backward(model(x))


def test_step_memory_counts_a_real_adam_step():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 10), nn.ReLU(), nn.Linear(10, 3))
    opt = torch.optim.Adam(model.parameters())
    x, y = torch.randn(4, 6), torch.randint(0, 3, (4,))
    memory = step_memory(model, opt, x, y)
    param_bytes = (6 * 10 + 10 + 10 * 3 + 3) * 4
    assert isinstance(memory, StepMemory)
    assert memory.parameters == param_bytes and memory.gradients == param_bytes
    assert memory.optimizer_state == 2 * param_bytes + 4 * 4  # exp_avg, exp_avg_sq; a float32 step per parameter
    assert memory.activations > 0 and memory.after_step == 4 * param_bytes + 16
    assert "optimizer state" in str(memory)


def test_step_memory_with_a_frozen_layer_holds_less():
    model = nn.Sequential(nn.Linear(6, 10), nn.ReLU(), nn.Linear(10, 3))
    model[0].requires_grad_(False)
    opt = torch.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=0.1)
    memory = step_memory(model, opt, torch.randn(4, 6), torch.randint(0, 3, (4,)))
    assert memory.gradients == (10 * 3 + 3) * 4 and memory.optimizer_state == 0
    with pytest.raises(TypeError, match="nn.Module"):
        step_memory(model, "adam", torch.randn(4, 6), torch.randint(0, 3, (4,)))
