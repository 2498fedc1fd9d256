"""errors: explaining real device errors, and the IPython extension that does it under a traceback."""

import io
import re

import pytest
import torch
from torch import nn

from course_utils.checkpoints import retag_checkpoint
from course_utils.errors import (
    DeviceErrorExplanation,
    explain_device_error,
    load_ipython_extension,
    unload_ipython_extension,
)


def caught(action):
    try:
        action()
    except Exception as exc:  # the test wants the real exception object
        return exc
    raise AssertionError("expected the action to raise")


# --------------------------------------------------------------------------- messages written by PyTorch's source

# (message, kind, devices, argument, operator). Each message is labelled with where it comes from:
# "2.13" = the text is in the 2.13.0 wheel (libtorch_cpu.so, libtorch_python.so or its Python
# sources; checked with grep, with the device names filled in as the format string does);
# "2.7.1" / "2.8.0+" = the dispatcher check of adaption.cpp in those releases (before and after
# pytorch/pytorch's rewording of that check); "older" = a release before 2.0, as its source wrote
# it, not checked against a wheel here; "constructed" = assembled from a format string by hand.
# Entries without a label are quoted from the source files named in their group's comment and
# were not each checked against a release.
SOURCE_MESSAGES = [
    (
        "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!",  # 2.13 (TensorIterator)
        "mixed-devices",
        ("cuda:0", "cpu"),
        None,
        None,
    ),
    (
        "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cuda:1!",
        "mixed-devices",
        ("cuda:0", "cuda:1"),
        None,
        None,
    ),
    (
        "Expected all tensors to be on the same device, but got mat1 is on cpu, different from other tensors on cuda:0 "
        "(when checking argument in method wrapper_CUDA_addmm)",  # 2.8.0+
        "mixed-devices",
        ("cpu", "cuda:0"),
        "mat1",
        "addmm",
    ),
    (
        "Expected all tensors to be on the same device, but got index is on cpu, different from other tensors on cuda:0 "
        "(when checking argument in method wrapper_CUDA__index_select)",  # 2.8.0+
        "mixed-devices",
        ("cpu", "cuda:0"),
        "index",
        "index_select",
    ),
    (
        "Expected all tensors to be on the same device, but got weight is on cpu, different from other tensors on cuda:0 "
        "(when checking argument in method wrapper_CUDA_nll_loss_forward)",  # 2.8.0+
        "mixed-devices",
        ("cpu", "cuda:0"),
        "weight",
        "nll_loss_forward",
    ),
    (
        "Expected all tensors to be on the same device, but found at least two devices, cpu and cuda:0! "
        "(when checking argument for argument mat1 in method wrapper_CUDA_addmm)",  # 2.7.1 (absent from 2.13)
        "mixed-devices",
        ("cpu", "cuda:0"),
        "mat1",
        "addmm",
    ),
    (
        "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu! "
        "(when checking arugment for argument index in method wrapper__index_select)",  # older (typo fixed since)
        "mixed-devices",
        ("cuda:0", "cpu"),
        "index",
        "index_select",
    ),
    (
        "Expected all tensors to be on the same common device, but found at least two devices, cuda:1 and cuda:0! "
        "(when checking arugment for argument tensors in method wrapper__cat)",  # older
        "mixed-devices",
        ("cuda:1", "cuda:0"),
        "tensors",
        "cat",
    ),
    (
        "Expected all tensors to be on the same device, but found at least two devices, cpu and npu:0! "
        "(when checking argument for argument index in method wrapper_NPU__index_select)",  # constructed: the 2.7.1 wording, npu
        "mixed-devices",
        ("cpu", "npu:0"),
        "index",
        "index_select",
    ),
    # constructed: no known release's text; kept to show the generic rule recognises the opening words
    (
        "Expected all tensors to be on the same device. addmm: expected 'mat1' to be a CPU tensor, but got tensor on cuda:0",
        "mixed-devices",
        ("cpu", "cuda:0"),
        None,
        None,
    ),
    # 2.13 (_prims_common's check_same_device; also raised live below), then its format with cuda:0 filled in
    ("Tensor on device cpu is not on the expected device meta!", "mixed-devices", ("cpu", "meta"), None, None),
    ("Tensor on device cpu is not on the expected device cuda:0!", "mixed-devices", ("cpu", "cuda:0"), None, None),
    (
        "Expected object of type torch.cuda.LongTensor but found type torch.LongTensor for argument #3 'other'",  # older (0.4)
        "mixed-devices",
        ("cuda", "cpu"),
        "other",
        None,
    ),
    (
        "Expected object of device type cuda but got device type cpu for argument #1 'self' in call to _th_addmm",  # older (1.x)
        "mixed-devices",
        ("cuda", "cpu"),
        "self",
        "_th_addmm",
    ),
    (
        "Input type (torch.FloatTensor) and weight type (torch.cuda.FloatTensor) should be the same or input should be "
        "a MKLDNN tensor and weight is a dense tensor",
        "mixed-devices",
        ("cpu", "cuda"),
        "input",
        "convolution",
    ),
    ("Input type (CUDAFloatType) and weight type (CPUFloatType) should be the same", "mixed-devices", ("cuda", "cpu"), "input", "convolution"),
    ("indices should be either on cpu or on the same device as the indexed tensor (cpu)", "index-device", ("cpu",), "indices", "index"),
    ("indices should be either on cpu or on the same device as the indexed tensor (cuda:1)", "index-device", ("cuda:1",), "indices", "index"),
    ("Torch not compiled with CUDA enabled", "cuda-not-compiled", ("cuda",), None, None),
    (
        "Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is False. If you are running "
        "on a CPU-only machine, please use torch.load with map_location=torch.device('cpu') to map your storages to the CPU.",
        "checkpoint-device-unavailable",
        ("cuda",),
        None,
        None,
    ),
    (
        "Attempting to deserialize object on CUDA device 1 but torch.cuda.device_count() is 1. Please use torch.load "
        "with map_location to map your storages to an existing device.",
        "checkpoint-device-unavailable",
        ("cuda:1",),
        None,
        None,
    ),
    (
        "CUDA error: invalid device ordinal\nCUDA kernel errors might be asynchronously reported at some other API call, "
        "so the stacktrace below might be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1.\n"
        "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n",
        "invalid-device-ordinal",
        (),
        None,
        None,
    ),
    ("Invalid device id", "invalid-device-ordinal", (), None, None),
    (
        "can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory first.",
        "numpy-needs-cpu",
        ("cuda:0",),
        None,
        None,
    ),
    ("can't convert CUDA tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory first.", "numpy-needs-cpu", ("cuda",), None, None),
    (
        "Tensors of the same index must be on the same device and the same dtype except `step` tensors that can be CPU "
        "and float32/64 notwithstanding",
        "optimizer-state",
        (),
        None,
        None,
    ),
    (
        "Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed a driver from "
        "http://www.nvidia.com/Download/index.aspx",
        "no-cuda-driver",
        ("cuda",),
        None,
        None,
    ),
    ("Cannot access accelerator device when none is available.", "no-accelerator", (), None, None),
    # Messages learners paste from other layers and older releases (torch/nn/parallel/data_parallel.py,
    # aten/src/ATen/native/RNN.cpp, PyTorch 1.x's TensorUtils checkSameGPU/checkAllSameGPU, randperm's
    # generator check, MPS's OperationUtils, ProcessGroupNCCL, c10d's backend lookup, the CUDA caching allocator).
    (
        "module must have its parameters and buffers on device cuda:0 (device_ids[0]) but found one of them on device: cpu",
        "mixed-devices",
        ("cuda:0", "cpu"),
        None,
        "DataParallel",
    ),
    (
        "Input and hidden tensors are not at the same device, found input tensor at cuda:0 and hidden tensor at cpu",
        "mixed-devices",
        ("cuda:0", "cpu"),
        "hx",
        "RNN",
    ),
    (
        "Tensor for argument #2 'mat1' is on CPU, but expected it to be on GPU (while checking arguments for addmm)",
        "mixed-devices",
        ("cuda", "cpu"),
        "mat1",
        "addmm",
    ),
    (
        "Expected tensor for argument #1 'input' to have the same device as tensor for argument #2 'weight'; but device "
        "0 does not equal 1 (while checking arguments for cudnn_convolution)",
        "mixed-devices",
        ("cuda:1", "cuda:0"),
        "input",
        "cudnn_convolution",
    ),
    ("Expected a 'cuda' device type for generator but found 'cpu'", "generator-device", ("cuda", "cpu"), None, None),
    ("Placeholder storage has not been allocated on MPS device!", "mixed-devices", ("mps", "cpu"), None, None),
    ("Tensors must be CUDA and dense", "collective-device", ("cuda",), None, None),
    ("No backend type associated with device type cpu", "collective-device", ("cpu",), None, None),
    (
        "CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 15.78 GiB total capacity; 14.2 GiB already allocated)",
        "out-of-memory",
        ("cuda:0",),
        None,
        None,
    ),
]


@pytest.mark.parametrize(
    "message, kind, devices, argument, operator", SOURCE_MESSAGES, ids=[f"{i:02d}-{m[1]}" for i, m in enumerate(SOURCE_MESSAGES)]
)
def test_source_messages_are_explained(message, kind, devices, argument, operator):
    e = explain_device_error(message)
    assert e.is_device_error and e.kind == kind
    assert e.devices == devices  # in the order the message names them
    assert (e.argument, e.operator) == (argument, operator)
    assert e.cause and e.fix and e.message == message and e.error_type is None


def test_new_wording_says_which_argument_is_the_odd_one_out():
    e = explain_device_error(SOURCE_MESSAGES[2][0])
    assert "`mat1`" in e.cause and "is on cpu" in e.cause and "on cuda:0" in e.cause
    assert "input batch" in e.cause  # what mat1 is in nn.Linear
    assert ".to('cuda:0')" in e.fix


@pytest.mark.parametrize(
    "message, weights, data",
    [
        # addmm (nn.Linear): mat1 is the input, mat2 the weight; 2.8.0+ and 2.7.1 wordings
        (
            "Expected all tensors to be on the same device, but got mat1 is on cpu, different from other tensors on cuda:0 "
            "(when checking argument in method wrapper_CUDA_addmm)",
            "cuda:0",
            "cpu",
        ),
        (
            "Expected all tensors to be on the same device, but got mat2 is on cpu, different from other tensors on cuda:0 "
            "(when checking argument in method wrapper_CUDA_addmm)",
            "cpu",
            "cuda:0",
        ),
        (
            "Expected all tensors to be on the same device, but found at least two devices, cpu and cuda:0! "
            "(when checking argument for argument mat1 in method wrapper_CUDA_addmm)",
            "cpu",
            "cuda:0",
        ),
        # convolution: the type names say which is the weight
        (
            "Input type (torch.FloatTensor) and weight type (torch.cuda.FloatTensor) should be the same or input should be "
            "a MKLDNN tensor and weight is a dense tensor",
            "cuda",
            "cpu",
        ),
        ("Input type (CUDAFloatType) and weight type (CPUFloatType) should be the same", "cpu", "cuda"),
    ],
)
def test_where_the_operation_tells_it_the_fix_keeps_the_work_on_the_accelerator(message, weights, data):
    # issue 35: weights on the CPU and the input on an accelerator is a forgotten model.to(device): the first fix
    # moves the model, never the input (and with it the training) to the CPU; the other way round, the input moves
    e = explain_device_error(message)
    assert f"the module's weights are on {weights} and its input on {data}" in e.cause
    if weights == "cpu":
        assert e.fix.startswith(f"Move the model to the input's device: model.to('{data}')")
        assert "x = x.to('cpu')" not in e.fix and "only if you meant to run on the CPU" in e.fix
    else:
        assert e.fix.startswith(f"Move the input to the model: x = x.to('{weights}')")
        assert f".to('{data}')" not in e.fix


def test_meta_wording_alone_does_not_pick_a_side():
    # 2.13 prints this for a model on meta and an input on the CPU: "expected" is the CPU, the
    # input's side, so moving the meta tensor .to('cpu') would be the reverse of the rule.
    e = explain_device_error("Tensor on device meta is not on the expected device cpu!")
    assert e.kind == "mixed-devices" and e.devices == ("meta", "cpu")
    assert ".to('cpu')" not in e.fix and ".to('meta')" not in e.fix
    assert "x = x.to(next(model.parameters()).device)" in e.fix and "does not say which" in e.cause


@pytest.mark.parametrize("model_on, input_on", [("meta", "cpu"), ("cpu", "meta")])
def test_meta_error_with_its_traceback_names_the_modules_weights(model_on, input_on):
    model = nn.Sequential(nn.Linear(3, 4, device=model_on))
    exc = caught(lambda: model(torch.ones(2, 3, device=input_on)))
    assert str(exc).startswith("Tensor on device")  # the meta wording, which names no operation
    e = explain_device_error(exc)
    assert f"the module's weights are on {model_on} and its input on {input_on}" in e.cause
    assert e.operator == "Linear.forward"
    assert f"x = x.to('{model_on}')" in e.fix and f".to('{input_on}')" not in e.fix
    # the message alone cannot tell, and says so
    assert "does not say which" in explain_device_error(str(exc)).cause


def test_old_wording_of_the_dispatcher_check_names_the_argument_second():
    # adaption.cpp printed "<common device> and <device of argName>", so mat1 is the one on cuda:0
    e = explain_device_error(SOURCE_MESSAGES[5][0])
    assert "`mat1`" in e.cause and "is on cuda:0" in e.cause and "are on cpu" in e.cause


def test_a_dtype_only_type_mismatch_is_not_a_device_error():
    for message in (
        "Input type (torch.cuda.DoubleTensor) and weight type (torch.cuda.FloatTensor) should be the same",
        "Expected object of type torch.FloatTensor but found type torch.LongTensor for argument #2 'mat2'",
    ):
        assert not explain_device_error(message).is_device_error


# --------------------------------------------------------------------------- messages this PyTorch raises, live


def _meta_state_adam_step():
    model = nn.Linear(3, 2)
    opt = torch.optim.Adam(model.parameters(), foreach=True)
    model(torch.ones(1, 3)).sum().backward()
    opt.step()
    for state in opt.state.values():
        state["exp_avg"] = state["exp_avg"].to("meta")
    opt.step()


def _load_gpu_checkpoint():
    saved, gpu = io.BytesIO(), io.BytesIO()
    torch.save({"w": torch.ones(2)}, saved)
    retag_checkpoint(saved, gpu, {"cpu": "cuda:0"})
    return torch.load(gpu)


LIVE = [
    (lambda: torch.ones(2, device="meta") + torch.ones(2), "mixed-devices", ("cpu", "meta")),
    (lambda: torch.cat([torch.ones(2), torch.ones(2, device="meta")]), "mixed-devices", ("meta", "cpu")),
    (lambda: nn.Linear(3, 1)(torch.ones(2, 3, device="meta")), "mixed-devices", ("cpu", "meta")),
    (lambda: nn.LSTM(2, 2)(torch.ones(1, 1, 2, device="meta")), "mixed-devices", ("meta", "cpu")),
    (lambda: nn.GRU(3, 4)(torch.zeros(2, 1, 3), torch.zeros(1, 1, 4, device="meta")), "mixed-devices", ("cpu", "meta")),
    (lambda: torch.ones(2, device="meta").numpy(), "numpy-needs-cpu", ("meta",)),
    (lambda: torch.ones(2, device="meta").cpu(), "meta-has-no-data", ("meta",)),
    (lambda: torch.ones(2, device="meta").sum().item(), "meta-has-no-data", ("meta",)),
    (lambda: nn.Linear(3, 1).device, "no-device-attribute", ()),
    (lambda: torch.cuda.device_of(nn.Linear(3, 1)), "device-of-needs-tensor", ()),
    (lambda: torch.ones(2).to(torch.cuda.device_of(torch.ones(2))), "not-a-device", ()),
    (lambda: torch.cuda.device("cpu"), "not-a-cuda-device", ("cpu",)),
    (lambda: torch.device("gpu"), "bad-device-string", ()),
    (_meta_state_adam_step, "optimizer-state", ()),
]
if not torch.cuda.is_available():
    LIVE += [
        (lambda: torch.ones(2).cuda(), None, ("cuda",)),  # CPU build: not compiled; CUDA build, no driver
        (_load_gpu_checkpoint, "checkpoint-device-unavailable", ("cuda",)),
    ]


@pytest.mark.parametrize("action, kind, devices", LIVE, ids=[f"live-{i:02d}" for i in range(len(LIVE))])
def test_live_errors_are_explained(action, kind, devices):
    exc = caught(action)
    e = explain_device_error(exc)
    assert e.is_device_error, f"not recognised: {type(exc).__name__}: {exc}"
    if kind is not None:
        assert e.kind == kind
    assert e.devices == devices
    assert e.error_type == type(exc).__name__
    assert e == explain_device_error(str(exc)).__class__(**{**e.__dict__})  # frozen data, comparable


def test_not_device_errors_say_so_plainly():
    # messages that name no device; the shape error is a look-alike family of its own (kind "shape")
    for exc, kind in (
        (caught(lambda: torch.ones(2, 3) @ torch.ones(4, 5)), "shape"),
        (caught(lambda: 1 / 0), "not-a-device-error"),
        (caught(lambda: torch.ones(2).item()), "not-a-device-error"),
    ):
        e = explain_device_error(exc)
        assert not e.is_device_error and e.kind == kind and e.devices == ()
        assert str(e).splitlines()[1].startswith("  Not a device error")
        assert "Not a device error" in e._repr_html_()


def test_a_message_naming_a_device_is_never_called_not_a_device_error():
    # issue 35: KeyError('cuda') (a dict of devices without that key) names cuda; no family matches, so the
    # explanation says so, names cuda and what to check, and invents no cause (this test used to expect
    # "not a device error" here)
    e = explain_device_error(KeyError("cuda"))
    assert e.is_device_error and e.kind == "unrecognised-device-message" and e.devices == ("cuda",)
    assert "none of the device-error families" in e.cause and "torch.cuda.is_available()" in e.fix
    assert "Not a device error" not in str(e) + e._repr_html_()


def test_exception_and_message_give_the_same_explanation():
    exc = caught(lambda: torch.ones(2, device="meta") * torch.ones(2))
    a, b = explain_device_error(exc), explain_device_error(str(exc))
    assert (a.kind, a.devices, a.cause, a.fix) == (b.kind, b.devices, b.cause, b.fix)
    assert a.error_type == "RuntimeError" and b.error_type is None


def test_bad_input_is_a_clear_type_error():
    for bad in (3, None, b"Torch not compiled with CUDA enabled", ["message"]):
        with pytest.raises(TypeError, match="expects an exception or its message"):
            explain_device_error(bad)


def test_explanation_shows_as_text_and_html():
    e = explain_device_error(caught(lambda: torch.ones(2, device="meta") + torch.ones(2)))
    text = str(e)
    assert text.startswith("RuntimeError: Tensor on device cpu") and "Why:" in text and "Fix:" in text
    page = e._repr_html_()
    assert "<code>meta</code>" in page and "Fix:" in page
    assert "<script" not in explain_device_error("<script>x</script>")._repr_html_()
    assert isinstance(e, DeviceErrorExplanation)
    with pytest.raises(AttributeError):
        e.kind = "other"


# --------------------------------------------------------------------------- the IPython extension

ANSI = re.compile(r"\x1b\[[0-9;]*m")


@pytest.fixture
def shell():
    from IPython.core.interactiveshell import InteractiveShell

    ip = InteractiveShell.instance()
    yield ip
    InteractiveShell.clear_instance()


def run(shell, capsys, code):
    capsys.readouterr()
    result = shell.run_cell(code, store_history=False)
    return result, ANSI.sub("", capsys.readouterr().out)


def test_extension_adds_the_explanation_under_a_device_error(shell, capsys):
    shell.run_line_magic("load_ext", "course_utils.errors")
    try:
        result, out = run(shell, capsys, "import torch\ntorch.ones(2, device='meta') + torch.ones(2)")
        assert not result.success and isinstance(result.error_in_exec, RuntimeError)
        traceback_at = out.index("RuntimeError: Tensor on device cpu is not on the expected device meta!")
        assert "Traceback" in out[:traceback_at]
        assert out.index("Device error (mixed-devices)") > traceback_at
        assert "Fix: Do not move a tensor just because the message calls its device unexpected" in out
        # a model on meta, its input on the CPU: the traceback shows the module, so its weights are named
        _, out = run(shell, capsys, "import torch\ntorch.nn.Linear(3, 1, device='meta')(torch.ones(2, 3))")
        assert "the module's weights are on meta and its input on cpu" in out
        assert "x = x.to('meta')" in out and ".to('cpu')" not in out
    finally:
        shell.run_line_magic("unload_ext", "course_utils.errors")


def test_extension_leaves_other_errors_unchanged_and_unload_restores(shell, capsys):
    before = (shell.custom_exceptions, shell.CustomTB)
    _, plain_div = run(shell, capsys, "1/0")
    _, plain_attr = run(shell, capsys, "[].foo")
    shell.run_line_magic("load_ext", "course_utils.errors")
    shell.run_line_magic("reload_ext", "course_utils.errors")
    result, div = run(shell, capsys, "1/0")
    _, attr = run(shell, capsys, "[].foo")
    assert isinstance(result.error_in_exec, ZeroDivisionError)
    assert div == plain_div and attr == plain_attr
    assert "Device error" not in div + attr
    shell.run_line_magic("unload_ext", "course_utils.errors")
    assert (shell.custom_exceptions, shell.CustomTB) == before
    _, after = run(shell, capsys, "import torch\ntorch.ones(2, device='meta') + torch.ones(2)")
    assert "not on the expected device meta" in after and "Device error" not in after


def test_unloading_without_loading_is_harmless(shell):
    before = (shell.custom_exceptions, shell.CustomTB)
    unload_ipython_extension(shell)
    load_ipython_extension(shell)
    load_ipython_extension(shell)
    unload_ipython_extension(shell)
    assert (shell.custom_exceptions, shell.CustomTB) == before


# --------------------------------------------------------------------------- the checks of exercises 05.x

KIND_TO_FIX = {
    "mixed-devices": "move-to-one-device",
    "index-device": "index-to-table-device",
    "checkpoint-device-unavailable": "map-location",
    "numpy-needs-cpu": "cpu-before-numpy",
    "invalid-device-ordinal": "existing-device-index",
    "cuda-not-compiled": "cpu-or-cuda-build",
    "no-cuda-driver": "cpu-or-cuda-build",
    "optimizer-state": "optimizer-after-move",
    "not-a-device-error": "not-a-device-error",
}


def fix_for(message: str) -> str:
    """05.1's answer, read off the explainer: look-alikes (shape, dtype, ...) are all 'not-a-device-error' there."""
    e = explain_device_error(message)
    return KIND_TO_FIX[e.kind] if e.is_device_error else "not-a-device-error"


def test_exercise_05_1_messages_agree_with_explain_device_error():
    from course_utils.checks.nb05 import MESSAGES, MESSAGES_ALWAYS

    for message, fix in (*MESSAGES, *MESSAGES_ALWAYS):
        assert fix_for(message) == fix, message


def test_exercise_05_checks_reject_plausible_wrong_answers():
    from course_utils.checks import check

    assert check("05.1", answer=lambda message: "move-to-one-device").status == "fail"
    assert check("05.1", answer=fix_for).status == "pass"

    def top_level_only(model, *inputs):
        device = next(model.parameters()).device
        return tuple(x.to(device) if isinstance(x, torch.Tensor) else x for x in inputs)

    assert check("05.2", answer=top_level_only).status == "fail"
    assert check("05.3", answer=lambda table, index: str(torch.device(table))).status == "fail"
    assert check("05.3", answer=lambda table, index: str(torch.device(index))).status == "fail"
    if not torch.cuda.is_available():
        assert check("05.4", answer=lambda data, device: torch.load(io.BytesIO(data))).status == "fail"
    assert check("05.4", answer=lambda data, device: torch.load(io.BytesIO(data), map_location="cpu")).status == "fail"
