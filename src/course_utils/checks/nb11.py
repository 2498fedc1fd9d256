"""Checks for notebook 11, the device in the rest of your code: its try-it cells and its exercises.

Every check runs on a CPU-only machine. autocast's settings are a rule on device names (no GPU
needed to decide them); a shuffle's order is read with ``meta`` as the default device a notebook
left on (on CUDA the same mistake raises "Expected a 'cuda' device type for generator"), and the
autocast forward runs on the CPU and, where one is present, on the machine's accelerator.
"""

from __future__ import annotations

import warnings

import torch
from torch import nn

from course_utils.checks._core import LearnerRaised, Wrong, accelerator_targets, call, cases, exercise, same, text, try_it
from course_utils.scopes import default_device, restore_default_device

_CUDA_GENERATOR = "Expected a 'cuda' device type for generator but found 'cpu'"
_MPS_BF16_OFF_MAC = "Cannot execute isOnMacOSorNewer() without MPS backend"

# --------------------------------------------------------------------------- 11.a

# (the device given, the device type autocast must get)
AUTOCAST_FOR_CASES = (
    (torch.device("cuda", 0), "cuda"),
    (torch.device("cuda", 1), "cuda"),
    (torch.device("cpu"), "cpu"),
    (torch.device("mps", 0), "mps"),
)


@try_it(
    "11.a",
    "The autocast context for a device",
    name="autocast_for",
    kind="function",
    hint="torch.autocast's first argument is a device type, a str; a torch.device has an attribute that holds it.",
)
def _autocast_for(autocast_for) -> str:
    for device, want in AUTOCAST_FOR_CASES:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # "CUDA is not available ... Disabling autocast" here
            try:
                got = call(autocast_for, device)
            except LearnerRaised as raised:
                if isinstance(raised.exc, ValueError) and "device_type" in str(raised.exc):
                    raise Wrong(
                        f"autocast_for({device!r}) passed the torch.device itself: PyTorch says {raised.exc}",
                        "Pass the device's type, a str such as 'cuda'.",
                    ) from None
                if want == "mps" and _MPS_BF16_OFF_MAC in str(raised.exc):
                    # 2.7.1 asks macOS whether bfloat16 autocast runs, for device_type == "mps" exactly, and a
                    # build without MPS cannot answer (torch/amp/autocast_mode.py): the type was right
                    continue
                raise
        if not isinstance(got, torch.autocast):
            raise Wrong(
                f"autocast_for({device!r}) returned a {type(got).__name__}; expected a torch.autocast "
                "context (use it as `with autocast_for(x.device):`)."
            )
        if text(got.device) != want:
            raise Wrong(
                f"autocast_for({device!r}) gave autocast device_type {got.device!r}; expected {want!r}. "
                + (
                    "'cuda:0' is a device, not a device type: PyTorch 2.7.1, 2.13.0 and 2.14.1 take it "
                    "silently but run autocast's CUDA checks only for exactly 'cuda', and older releases refused "
                    "it ('User specified an unsupported autocast device_type')."
                    if ":" in text(got.device)
                    else ""
                ),
                "device_type is the part before the colon: read the device's .type.",
            )
        if want == "cpu" and getattr(got, "_enabled", True) is not True:
            # the CPU is the one case that can tell: on a machine without that GPU, autocast turns itself off
            raise Wrong(
                f"autocast_for({device!r}) returned a context that is switched off (enabled=False): inside it nothing "
                "is cast, and the CPU has an autocast of its own (bfloat16).",
                "Return the context for the device as it is; autocast decides by itself where it cannot run.",
            )
    return "Right for cuda:0, cuda:1, cpu and mps:0: autocast gets the type, never the index."


# --------------------------------------------------------------------------- 11.b


@try_it(
    "11.b",
    "A DataLoader that shuffles by a seed, on a CPU generator",
    name="loader",
    hint="DataLoader takes a shuffle flag and a generator; a generator is made for one device, and seeded with its manual_seed method.",
)
def _loader(loader) -> str:
    if not isinstance(loader, torch.utils.data.DataLoader):
        raise Wrong(f"`loader` is a {type(loader).__name__}; expected a torch.utils.data.DataLoader.")
    if not same(list(loader.dataset), list(range(10))):
        raise Wrong("`loader`'s dataset is not range(10).")
    if not isinstance(loader.sampler, torch.utils.data.RandomSampler):
        raise Wrong(
            "`loader` does not shuffle: its sampler is a " + type(loader.sampler).__name__ + ".",
            "DataLoader shuffles only when asked to: look at its arguments.",
        )
    g = loader.generator
    if g is None:
        raise Wrong(
            "`loader` has no generator: its order changes every time, and under a default device its "
            "own generator is the CPU's while the draw is not (the error of part 2).",
            "Give the DataLoader a generator of its own, made for the CPU and seeded.",
        )
    if g.device != torch.device("cpu"):
        raise Wrong(f"`loader`'s generator is on {g.device}; the question asks for a CPU generator.")
    if g is torch.default_generator:
        raise Wrong(
            "`loader`'s generator is torch's global one (torch.manual_seed returns it): every random call in the "
            "notebook draws from it too, so the order depends on what ran before, not on the seed alone.",
            "Give the DataLoader a generator of its own, made for the CPU and seeded.",
        )
    if loader.sampler.generator is not g:
        raise Wrong(
            "`loader`'s sampler does not draw from the loader's generator: it shuffles by a generator of its own "
            "(or torch's global one), so the seed does not fix the order.",
            "Let DataLoader make the sampler (shuffle=...), or give the sampler the same seeded generator.",
        )
    if g.initial_seed() != 11:
        raise Wrong(
            f"`loader`'s generator was seeded with {g.initial_seed()}; expected 11.",
            "Seed the generator itself, with the seed the question gives.",
        )
    return "A shuffling DataLoader with its own CPU generator, seeded 11: the same order every run."


# --------------------------------------------------------------------------- 11.1

# (device, bf16_supported, the settings); tests/test_case_tables.py holds each row to the reference in
# tests/answer_references.py. The rule: the device type; bfloat16 on the CPU, and on a GPU that supports it,
# else float16, which needs a GradScaler.
AUTOCAST_CASES = (
    ("cuda:0", True, ("cuda", torch.bfloat16, False)),
    ("cuda:1", False, ("cuda", torch.float16, True)),
    (torch.device("cuda", 0), False, ("cuda", torch.float16, True)),
    ("cpu", True, ("cpu", torch.bfloat16, False)),
    (torch.device("cpu"), False, ("cpu", torch.bfloat16, False)),
    ("mps:0", False, ("mps", torch.float16, True)),
    ("xpu:0", True, ("xpu", torch.bfloat16, False)),
)


@exercise(
    "11.1",
    "autocast settings for a device",
    "autocast_settings",
    hint=(
        "Three parts: the device's type (torch.device(device).type), the dtype (bfloat16 on the CPU and where "
        "the GPU has it, float16 elsewhere), and a scaler exactly when the dtype is float16."
    ),
)
def _autocast_settings(fn) -> str:
    rows = cases("11.1", AUTOCAST_CASES)
    for device, bf16, (kind, dtype, scaler) in rows:
        expected = {"device_type": kind, "dtype": dtype, "scaler": scaler}
        where = f"autocast_settings({device!r}, bf16_supported={bf16})"
        got = call(fn, device, bf16)
        if not isinstance(got, dict) or sorted(map(str, got)) != sorted(expected):
            raise Wrong(f"{where} returned {got!r}; expected a dict with keys device_type, dtype and scaler, such as {expected!r}.")
        if not same(got["device_type"], kind):
            raise Wrong(
                f"{where} gave device_type {got['device_type']!r}; expected {kind!r}."
                + (" A device ('cuda:0') is not a device type: autocast wants the type." if ":" in text(got["device_type"]) else ""),
                "torch.device(device).type works for a str and a torch.device alike.",
            )
        if got["dtype"] is not dtype:
            mistake = (
                "On the CPU autocast's lower precision is bfloat16, whatever the flag says (the flag is about GPUs)."
                if kind == "cpu"
                else "This GPU has no bfloat16: use float16."
                if not bf16
                else "This GPU has bfloat16: prefer it (no scaler needed)."
            )
            raise Wrong(f"{where} gave dtype {got['dtype']!r}; expected {dtype!r}. {mistake}")
        if not same(got["scaler"], scaler):
            raise Wrong(
                f"{where} gave scaler={got['scaler']!r}; expected {scaler!r}: a GradScaler is needed for "
                "float16 (small gradients underflow), not for bfloat16."
            )
    return f"Right for {len(rows)} devices: the type (never 'cuda:0'), bfloat16 where it exists, float16 with a GradScaler where it does not."


# --------------------------------------------------------------------------- 11.2


# (n, seed): the expected order is what a shuffling DataLoader with a CPU generator seeded `seed` visits on the CPU
# (the loader draws a base seed for its workers from the generator first, then the sampler's randperm)
ORDER_CASES = ((8, 0), (8, 1), (13, 2026))


@exercise(
    "11.2",
    "A shuffle that survives a default device",
    "order_under",
    hint=(
        "The DataLoader draws a seed, and its sampler the order (torch.randperm), on the default device. A "
        "torch.device also works as a context manager: around the loop it keeps both draws on the CPU. Give the "
        "DataLoader a seeded CPU generator."
    ),
)
def _order_under(fn) -> str:
    defaults = ["cpu", "meta", *accelerator_targets()]
    start = default_device()
    for n, seed in cases("11.2", ORDER_CASES):
        with torch.device("cpu"):  # what RandomSampler draws, with the learner's default device out of the way
            shuffled = torch.utils.data.DataLoader(range(n), shuffle=True, generator=torch.Generator(device="cpu").manual_seed(seed))
            want = [int(i) for i in shuffled]
        for left_on in defaults:
            where = f"order_under({left_on!r}, {n}, {seed})"
            try:
                got = call(fn, left_on, n, seed)
            except LearnerRaised as raised:
                message = str(raised.exc).splitlines()[0].rstrip(".") if str(raised.exc) else ""
                if "not an accelerator" in message:
                    raise Wrong(
                        f"{where} raised {type(raised.exc).__name__}: {message}. It made a generator on the "
                        f"default device {left_on!r}: meta has none, and on CUDA a CUDA generator gives another "
                        "order than the CPU's for the same seed.",
                        "Keep the generator on the CPU, and the draw with it.",
                    ) from None
                if "meta" in message or "generator" in message:
                    raise Wrong(
                        f"{where} raised {type(raised.exc).__name__}: {message}. With "
                        f"{left_on!r} as the default device, the DataLoader's seed and the sampler's "
                        f'torch.randperm are drawn there (on CUDA the same code raises "{_CUDA_GENERATOR}").',
                        "Make the draw happen on the CPU whatever the default device: a torch.device is also "
                        "a context manager, and it wins over set_default_device inside its block.",
                    ) from None
                raise
            finally:
                if default_device() != start:
                    restore_default_device(start)
            _another_order(where, got, want, n, seed)
            if not same(got, want):
                raise Wrong(
                    f"{where} returned {got!r}; expected a list of {n} ints, a permutation of range({n}).",
                    "Return [int(i) for i in loader] with batch_size=1, or the sampler's indices.",
                )
    return (
        f"The same order under every default device ({', '.join(defaults)}), from a seeded CPU generator: the "
        "shuffle no longer depends on what an earlier cell left on."
    )


def _another_order(where: str, got, want: list[int], n: int, seed: int) -> None:
    """A permutation of range(n) that is not the DataLoader's order: randperm's, or another stream's."""
    if not (isinstance(got, list) and all(type(i) is int for i in got) and sorted(got) == list(range(n))) or got == want:
        return
    if got == torch.randperm(n, generator=torch.Generator(device="cpu").manual_seed(seed), device="cpu").tolist():
        raise Wrong(
            f"{where} returned {got}: torch.randperm's order straight from a generator seeded {seed}, not the "
            "DataLoader's. A DataLoader draws its workers' base seed from the generator before its sampler "
            "shuffles, so its order is another one.",
            "Let the DataLoader do the shuffling, as the exercise asks, and read the order from it.",
        )
    raise Wrong(
        f"{where} returned {got}, which is not the order a CPU generator seeded {seed} gives. "
        "An order that changes per default device or per run is not reproducible.",
        "Give the DataLoader a generator of its own, for the CPU, seeded with the seed; the global seed is not the same stream.",
    )


# --------------------------------------------------------------------------- 11.3


# the seeds of the models and inputs of 11.3: the model's parameters from torch.manual_seed, x from a generator
FORWARD_SEEDS = (0, 1)


def _model(seed: int) -> nn.Module:
    torch.manual_seed(seed)
    return nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))


@exercise(
    "11.3",
    "A forward pass under autocast",
    "autocast_forward",
    hint=(
        "A torch.autocast block around the model call, asking for bfloat16; its device type comes from x, and the "
        "output comes back to float32 after the block."
    ),
)
def _autocast_forward(fn) -> str:
    state = torch.get_rng_state()
    try:
        targets = [torch.device("cpu")] + [torch.device(d) for d in accelerator_targets()]
        for device in targets:
            for seed in cases("11.3", FORWARD_SEEDS):
                _autocast_once(fn, device, seed)
        _autocast_default_dtype(fn)
    finally:
        torch.set_rng_state(state)
    return "The model ran its linear layers in bfloat16 under autocast, on x's device type, and returned float32."


# device_type=str(x.device) ("cuda:0" on a GPU) is not asked apart from x.device.type: no tensor a CPU-only machine
# holds reports an index (meta:1 and cpu:0 tensors say meta and cpu; autocast refuses meta), and the torch releases
# the course supports parse the string as a device (torch.autocast("cpu:0") runs CPU autocast, "cuda:0" enables
# CUDA's), so on a GPU it gives the same result too, skipping only autocast's bfloat16-support test for "cuda".
def _autocast_once(fn, device: torch.device, seed: int) -> None:
    """One call of the answer, on ``device`` with the model and input of ``seed``, against bfloat16 autocast's result."""
    model = _model(seed).to(device)
    x = torch.randn(5, 16, generator=torch.Generator().manual_seed(seed)).to(device)
    with torch.autocast(device_type=device.type, dtype=torch.bfloat16):
        want = model(x).float()
    full = model(x)  # float32 throughout: what a forward without autocast gives
    where = f"autocast_forward(<model on {device}>, <x on {device}>)"
    got = call(fn, model, x)
    if any(p.dtype != torch.float32 for p in model.parameters()):
        raise Wrong(
            f"{where} left the model's parameters in "
            f"{sorted({str(p.dtype) for p in model.parameters()})}: it converted the model "
            "instead of running it under autocast.",
            "autocast lowers the precision of the operations inside its block and keeps the "
            "model's float32 weights as they are; do not call .to() or .bfloat16() on the model.",
        )
    if not isinstance(got, torch.Tensor) or type(got) is not torch.Tensor:
        raise Wrong(f"{where} returned a {type(got).__name__}; expected the output tensor.")
    if got.dtype is torch.bfloat16:
        raise Wrong(
            f"{where} returned bfloat16: autocast's output stays in the lower precision.",
            "Bring it back with .float() after the autocast block.",
        )
    if got.dtype is not torch.float32 or got.device != device or got.shape != want.shape:
        raise Wrong(f"{where} returned {got.dtype} {tuple(got.shape)} on {got.device}; expected float32 {tuple(want.shape)} on {device}.")
    if torch.equal(got, want):
        return
    if torch.allclose(got, full.detach(), rtol=1e-5, atol=1e-6):
        raise Wrong(
            f"{where} computed in float32 throughout: the linear layers did not run in bfloat16.",
            "Run the model inside a torch.autocast block that asks for bfloat16.",
        )
    raise Wrong(
        f"{where} differs from the model run under bfloat16 autocast on {device.type}.",
        "The question asks for bfloat16, the CPU's autocast precision; float16 is another one.",
    )


def _autocast_default_dtype(fn) -> None:
    """The answer asks for bfloat16 itself: it does not take whatever autocast's default dtype is."""
    # CUDA's autocast runs in float16 unless told otherwise: with the CPU's default set so too, an answer that
    # leaves out dtype= shows on a machine without a GPU
    cpu_default = torch.get_autocast_dtype("cpu")
    model = _model(0)
    x = torch.randn(5, 16, generator=torch.Generator().manual_seed(0))
    with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
        want = model(x).float()
    torch.set_autocast_dtype("cpu", torch.float16)
    try:
        got = call(fn, model, x)
    finally:
        torch.set_autocast_dtype("cpu", cpu_default)
    if not isinstance(got, torch.Tensor) or type(got) is not torch.Tensor or not torch.equal(got, want):
        raise Wrong(
            "With the CPU's autocast default set to float16 (CUDA's default), autocast_forward(<model "
            "on cpu>, <x on cpu>) did not return the bfloat16 result: it took autocast's default dtype.",
            "autocast's dtype defaults to float16 on CUDA; the question asks for bfloat16: say so.",
        )
