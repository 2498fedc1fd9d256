"""Lesson 11's sentences about the installed torch, each held by a test that fails when a release stops doing it.

Lesson: notebook 11 (the device in the rest of your code). The notebook runs under nbval, which proves its
cells run, not that their outputs still say what the prose says; these tests hold the prose. Each was run
on torch 2.7.1, 2.13.0 and 2.14.1 (CPU only).
"""

from __future__ import annotations

import warnings

import pytest
import torch
from torch import nn
from torch.utils.data import DataLoader

from course_utils.claims import raises


def test_part_1_autocast_refuses_a_torch_device_and_a_name_that_is_no_type():
    raises(lambda: torch.autocast(torch.device("cpu")), ValueError, match="device_type")
    raises(lambda: torch.autocast("gpu"), RuntimeError)


def test_part_1_cuda_0_is_taken_silently_and_escapes_the_checks_made_for_cuda():
    """'PyTorch 2.7.1, 2.13.0 and 2.14.1 take it without a word ... checks for CUDA only when the type is "cuda"'."""
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        amp = torch.autocast("cuda:0")
    assert (amp.device, amp.device == "cuda") == ("cuda:0", False)
    if not torch.cuda.is_available():  # the check it escaped: autocast('cuda') switches off here, 'cuda:0' does not
        assert not seen and amp._enabled
        with pytest.warns(UserWarning, match="CUDA is not available"):
            assert not torch.autocast("cuda")._enabled


def test_part_1_what_cpu_autocast_lowers():
    x, w = torch.randn(4, 4), torch.randn(4, 4)
    with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
        seen = {
            "x @ w": (x @ w).dtype,
            "linear": nn.Linear(4, 4)(x).dtype,
            "softmax": torch.softmax(x, -1).dtype,
            "x + w": (x + w).dtype,
            "loss": nn.functional.mse_loss(x @ w, w).dtype,
        }
    assert seen == {"x @ w": torch.bfloat16, "linear": torch.bfloat16, "softmax": torch.float32, "x + w": torch.float32, "loss": torch.float32}
    assert torch.get_autocast_dtype("cpu") is torch.bfloat16  # "On the CPU, autocast uses bfloat16"


def test_deeper_the_cpu_float32_list_holds_mse_loss_and_prod_not_layer_norm_or_log_softmax():
    q = torch.randn(2, 3, 8)
    with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
        b = q.bfloat16()
        got = {
            "bmm": torch.bmm(q, q.transpose(1, 2)).dtype,
            "conv1d": nn.Conv1d(3, 3, 3)(q).dtype,
            "mse_loss": nn.functional.mse_loss(b, b).dtype,
            "prod": b.prod().dtype,
            "layer_norm": nn.functional.layer_norm(b, (8,)).dtype,
            "log_softmax": torch.log_softmax(b, -1).dtype,
        }
    assert got == {
        "bmm": torch.bfloat16,
        "conv1d": torch.bfloat16,
        "mse_loss": torch.float32,
        "prod": torch.float32,
        "layer_norm": torch.bfloat16,
        "log_softmax": torch.bfloat16,
    }


@pytest.mark.filterwarnings("ignore:torch.cuda.amp.GradScaler is enabled, but CUDA is not available")
def test_part_1_the_old_names_warn_and_say_what_replaces_them():
    with pytest.warns(FutureWarning, match=r"Please use `torch\.amp\.GradScaler\('cuda', args\.\.\.\)` instead"):
        torch.cuda.amp.GradScaler()


def test_part_2_a_shuffle_under_meta_fails_at_the_loaders_seed_even_with_a_cpu_generator():
    """'A shuffling DataLoader draws twice: a seed for its workers, then the order ... reading the seed fails'."""
    loader = DataLoader(range(5), shuffle=True, generator=torch.Generator(device="cpu"))
    torch.set_default_device("meta")
    try:
        failed = raises(lambda: iter(loader), RuntimeError, match="cannot be called on meta tensors")
    finally:
        torch.set_default_device(None)
    assert "Tensor.item()" in failed.message  # the seed's .item(), before the sampler draws anything


def test_part_2_a_cpu_device_block_fixes_the_order_under_a_default_device():
    def order():
        return [int(i) for i in DataLoader(range(5), shuffle=True, generator=torch.Generator().manual_seed(0))]

    plain = order()
    torch.set_default_device("meta")
    try:
        with torch.device("cpu"):
            fixed = order()
    finally:
        torch.set_default_device(None)
    assert fixed == plain
    with torch.device("meta"):  # RandomSampler's own generator is a CPU one whatever the default device
        assert torch.Generator().device == torch.device("cpu")


def test_part_3_another_device_compiles_again_and_mixed_devices_fail_while_tracing():
    import torch._dynamo
    from torch._dynamo.utils import counters

    torch._dynamo.reset()
    counters.clear()
    scale = torch.compile(lambda t: t * 2 + 1, backend="eager")
    scale(torch.ones(3)), scale(torch.ones(3)), scale(torch.ones(3, device="meta"))
    assert counters["stats"]["unique_graphs"] == 2
    add = torch.compile(lambda a, b: a + b, backend="eager")
    mixed = raises(lambda: add(torch.ones(3), torch.ones(3, device="meta")), Exception, match="device")
    assert "meta" in mixed.message and "cpu" in mixed.message
    torch._dynamo.reset()
