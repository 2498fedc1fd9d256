"""errors: the message families of issue 28, tested with the texts of their own sources (tests/errors_texts.py)."""

from __future__ import annotations

import mmap
from pathlib import Path

import pytest
import torch
from errors_texts import LOOK_ALIKES, WORDINGS

from course_utils.errors import explain_device_error

SITE = Path(torch.__file__).resolve().parents[1]


def release(version: str) -> tuple[int, ...]:
    """'2.8.0' -> (2, 8, 0); a local tag or pre-release suffix is ignored."""
    return tuple(int(part) for part in version.split("+")[0].split(".")[:3] if part.isdigit())


def torch_release() -> tuple[int, ...]:
    return release(torch.__version__)


W = {w.key: w for w in WORDINGS}
assert len(W) == len(WORDINGS), "duplicate keys in WORDINGS"


@pytest.mark.parametrize("wording", WORDINGS, ids=lambda w: w.key)
def test_each_family_is_explained_with_its_devices(wording):
    e = explain_device_error(wording.message)
    assert e.is_device_error, f"{wording.key}: not recognised: {e}"
    assert (e.kind, e.devices) == (wording.kind, wording.devices), e
    assert e.cause and e.fix and e.message == wording.message


@pytest.mark.parametrize("wording", WORDINGS, ids=lambda w: w.key)
def test_the_pieces_of_the_source_are_in_the_message(wording):
    for piece in wording.pieces:
        assert piece in wording.message, f"{wording.key}: {piece!r} is not in its message"


@pytest.mark.parametrize("wording", [w for w in WORDINGS if w.installed], ids=lambda w: w.key)
def test_pieces_are_in_the_installed_torch(wording):
    path = SITE / wording.installed
    if torch_release() < release(wording.installed_since):
        pytest.skip(f"the wording is {wording.versions}; this is torch {torch.__version__}")
    if not path.exists():
        pytest.skip(f"this torch {torch.__version__} has no {wording.installed}")
    with open(path, "rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as data:
        missing = [p for p in wording.pieces if data.find(p.encode()) < 0]
    assert not missing, f"{missing} no longer in {wording.installed} of torch {torch.__version__}"


@pytest.mark.parametrize("message, read", LOOK_ALIKES, ids=[f"look-alike-{i}" for i in range(len(LOOK_ALIKES))])
def test_look_alikes_that_mention_a_device_are_not_device_errors(message, read):
    e = explain_device_error(message)
    assert not e.is_device_error and e.kind != "mixed-devices", f"false alarm ({read}): {e}"
    if e.devices:  # issue 35: a message that names a device is never called "not a device error"
        assert "Not a device error" not in str(e) + e._repr_html_(), e


# --------------------------------------------------------------------------- what each family tells the learner


def test_mps_linear_moves_the_right_side():
    # the input left on the CPU: move it to the model on mps
    e = explain_device_error(W["mps-linear-input"].message)
    assert "the module's weights are on mps and its input on cpu" in e.cause and "x = x.to('mps')" in e.fix
    # the weight left on the CPU: the model is the one that did not move
    e = explain_device_error(W["mps-linear-weight"].message)
    assert "the module's weights are on cpu and its input on mps" in e.cause
    assert e.fix.startswith("Move the model to the input's device: model.to('mps')")


def test_mps_convolution_names_both_devices_and_the_operation():
    e = explain_device_error(W["mps-convolution"].message)
    assert (e.argument, e.operator) == ("input", "slow_conv2d_forward_mps")
    assert "x = x.to('mps:0')" in e.fix


def test_mps_float64_says_float32():
    for key in ("mps-float64-to", "mps-float64-dtype", "mps-float64-op"):
        e = explain_device_error(W[key].message)
        assert "dtype=torch.float32" in e.fix and "NumPy" in e.cause


def test_no_gpu_messages_point_at_visibility_and_a_cpu_fallback():
    for key in ("no-cuda-gpus", "no-cuda-device", "lightning-none", "ultralytics-no-cuda"):
        e = explain_device_error(W[key].message)
        assert "is_available()" in e.fix, key
    assert "CUDA_VISIBLE_DEVICES" in explain_device_error(W["no-cuda-gpus"].message).cause
    assert "accelerator='auto'" in explain_device_error(W["lightning-accelerator"].message).fix
    assert "device='cpu'" in explain_device_error(W["ultralytics-count"].message).fix


def test_architecture_messages_say_it_is_the_build_not_the_tensors():
    for key in ("no-kernel-image", "incompatible-gpu"):
        e = explain_device_error(W[key].message)
        assert "get_arch_list()" in e.fix and "get_device_capability()" in e.fix
        assert "Nothing is wrong with your tensors" in e.cause
    # the async tail of 2.7-2.12 does not hide the more specific rule
    assert explain_device_error(W["no-kernel-image"].message).kind == "gpu-architecture"


def test_old_wordings_name_the_odd_argument():
    e = explain_device_error(W["old-backend"].message)
    assert e.argument == "mat2" and "`mat2`" in e.cause and "is on cuda" in e.cause
    e = explain_device_error(W["old-cat"].message)
    assert (e.argument, e.operator) == ("tensors", "cat")
    assert explain_device_error(W["index-put-value"].message).operator == "index_put_"


def test_a_replica_error_is_explained_from_its_original_message():
    e = explain_device_error(W["replica"].message)
    assert e.cause.startswith("in DataParallel's copy of the model on cuda:1 (replica 1):")
    assert "device=x.device" in e.fix and e.argument == "mat1" and e.operator == "addmm"
    first = explain_device_error(W["replica-first-line"].message)
    assert "Original Traceback" in first.cause and first.operator == "DataParallel"


def test_a_live_replica_error_carries_the_real_inner_message():
    # torch's own ExceptionWrapper, as parallel_apply raises it, around a real cross-device error
    from torch._utils import ExceptionWrapper

    try:
        torch.ones(2, device="meta") + torch.ones(2)
    except RuntimeError:
        wrapper = ExceptionWrapper(where="in replica 0 on device 0")
    with pytest.raises(RuntimeError) as raised:
        wrapper.reraise()
    e = explain_device_error(raised.value)
    assert (e.kind, e.devices) == ("mixed-devices", ("cpu", "meta")) and e.error_type == "RuntimeError"
    assert "replica 0" in e.cause


def test_pinning_a_tensor_that_is_not_on_the_cpu_live():
    try:
        torch.ones(2, device="meta").pin_memory()
    except RuntimeError as exc:
        e = explain_device_error(exc)
    else:
        pytest.skip("this torch pinned a meta tensor")
    assert (e.kind, e.devices) == ("pin-needs-cpu", ("meta",)) and "pin_memory=True" in e.fix


def test_pinning_in_the_loader_thread_says_return_cpu_tensors():
    e = explain_device_error(W["pin-thread"].message)
    assert "pin-memory thread" in e.cause and "return CPU tensors" in e.fix


def test_duplicate_gpu_fix_sets_each_ranks_device():
    for key in ("nccl-duplicate", "nccl-multi-rank"):
        e = explain_device_error(W[key].message)
        assert "torch.cuda.set_device(local_rank)" in e.fix and "LOCAL_RANK" in e.fix


def test_generator_of_another_device_says_where_to_make_it():
    e = explain_device_error(W["generator-diffusers"].message)
    assert "torch.Generator(device=pipe.device)" in e.fix


def test_optimizer_state_fix_is_where_the_state_came_from_never_moving_state_steps():
    for key in ("fused-adamw", "fused-adam-old"):
        e = explain_device_error(W[key].message)
        assert e.argument == "state_steps" and e.operator in ("fused_adamw_", "fused_adam_")
        assert "state_steps.to" not in e.fix and "move `state_steps`" not in e.fix
        assert "map_location='cuda:0'" in e.fix and "load_state_dict" in e.fix and "build the optimizer" in e.fix
        assert "built before the model moved" in e.cause and "state is on cpu" not in e.cause


def test_a_cut_off_embedding_message_still_names_ids_and_table():
    for key in ("index-cut", "index-cut-traceback"):
        e = explain_device_error(W[key].message)
        assert (e.argument, e.operator) == ("index", "index_select")
        assert "token ids" in e.cause and "embedding table" in e.cause and "get_input_embeddings()" in e.fix
    # a whole message keeps its own two devices
    whole = explain_device_error(
        "Expected all tensors to be on the same device, but got index is on cpu, different "
        "from other tensors on cuda:0 (when checking argument in method "
        "wrapper_CUDA__index_select)"
    )
    assert whole.devices == ("cpu", "cuda:0")


def test_an_mps_convolution_type_mismatch_is_read_as_devices():
    # MPSFloatType is not renamed to a torch.* name (only CPU and CUDA types are): it must still read as mps
    e = explain_device_error(W["mps-conv-type"].message)
    assert "MPSFloatType (mps)" in e.cause and "weights are on cpu and its input on mps" in e.cause
    # issue 35: the model left on the CPU moves to the Mac's GPU; the input is not sent to the CPU (this test used
    # to expect x.to('cpu') first)
    assert e.fix.startswith("Move the model to the input's device: model.to('mps')") and "x = x.to('cpu')" not in e.fix


def test_the_mps_placeholder_and_cat_wordings_name_mps():
    assert "Apple's GPU (MPS)" in explain_device_error(W["mps-placeholder"].message).cause
    e = explain_device_error(W["mps-cat"].message)
    assert (e.argument, e.operator) == ("tensors", "cat") and "mps:0" in e.cause
