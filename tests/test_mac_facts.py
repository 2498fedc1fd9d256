"""What the course says about Apple's GPU (MPS) is in PyTorch's own files, in the releases each label names.

Lesson: issue 27's Mac facts (docs/mac.md, ``evidence.sources.MAC_FACTS``). On Linux this checks the Python
quotes (torch/mps and torch/backends/mps ship in every wheel) and what the installed torch shows of torch.mps;
the compiled messages ("mps-literal") live only in a macOS wheel's .dylib files, so
``scripts/verify-mac-facts`` runs this file again against each unpacked macOS arm64 wheel
(``COURSE_QUOTES_TORCH``, ``COURSE_QUOTES_VERSION``, as tests/test_evidence.py reads them).
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pytest
import torch
from errors_texts import LOOK_ALIKES, MACOS, WORDINGS
from torch.torch_version import TorchVersion

from course_authoring.quotes import (
    fragment_problem,
    installed_text_contains,
    mps_libraries,
)
from course_utils.evidence.sources import (
    MAC_FACTS,
    MAC_QUOTES,
    MAC_WHEEL_TAGS,
    MPS_NEEDS_MACOS,
    RELEASES,
    SourceQuote,
    mps_needs_macos,
)

OTHER_TORCH = os.environ.get("COURSE_QUOTES_TORCH")
TORCH_DIR = Path(OTHER_TORCH) if OTHER_TORCH else Path(torch.__file__).resolve().parent
TORCH_VERSION = os.environ.get("COURSE_QUOTES_VERSION", torch.__version__) if OTHER_TORCH else torch.__version__
QUOTED = sorted({(q.file, q.text, q.kind, q.since, q.until) for q in MAC_QUOTES})


@pytest.mark.parametrize("file,text,kind,since,until", QUOTED, ids=[f"{f}:{t[:30]}" for f, t, *_ in QUOTED])
def test_every_mac_quote_is_in_torch_exactly_when_its_label_says(file, text, kind, since, until):
    quote = SourceQuote(file, text, kind, since=since, until=until)
    if kind == "mps-literal" and not mps_libraries(TORCH_DIR):
        pytest.skip("a compiled MPS message: only a macOS wheel has it (scripts/verify-mac-facts checks it there)")
    here = installed_text_contains(quote, TORCH_DIR)
    if quote.covers(TORCH_VERSION):
        assert here, (
            f"torch {TORCH_VERSION} does not contain this quote from {file} ({quote.releases}): {text!r}. "
            "Read the new source and update MAC_FACTS in course_utils/evidence/sources.py and its label."
        )
    elif TorchVersion(RELEASES[0]) <= TorchVersion(TORCH_VERSION.split("+")[0]) <= RELEASES[-1]:
        assert not here, f"torch {TORCH_VERSION} has {text!r} ({file}), but the label says {quote.releases}: widen it"
    else:
        pytest.skip(f"torch {TORCH_VERSION} is outside the checked releases {RELEASES[0]}..{RELEASES[-1]}")


@pytest.mark.parametrize("quote", MAC_QUOTES, ids=[q.text[:30] for q in MAC_QUOTES])
def test_no_mac_quote_is_a_fragment(quote):
    assert fragment_problem(quote) is None, (quote.text, fragment_problem(quote))


@pytest.mark.parametrize("key", sorted(MAC_FACTS))
def test_every_mac_fact_says_something_in_at_most_two_sentences_and_has_a_quote(key):
    fact = MAC_FACTS[key]
    assert fact.quotes
    sentences = [s for s in re.split(r"(?<=[.!?])\s+(?=[A-Z])", fact.says) if s]
    assert 1 <= len(sentences) <= 2, fact.says


def test_every_release_has_exactly_one_macos_requirement_message_and_mps_needs_macos_agrees():
    messages = MAC_FACTS["mps-macos-version"].quotes
    for release in RELEASES:
        (covering,) = [q for q in messages if q.covers(release)]
        major, minor = mps_needs_macos(release)
        assert f"acOS {major}.{minor}+." in covering.text, (release, covering.text)
    assert mps_needs_macos("2.8.0") == (13, 0) and mps_needs_macos("2.9.1+cpu") == (14, 0)
    assert mps_needs_macos("2.15.0") == MPS_NEEDS_MACOS[-1][1]


def test_every_checked_release_has_a_macos_wheel_tag():
    assert set(MAC_WHEEL_TAGS) == set(RELEASES)
    assert all(re.fullmatch(r"macosx_\d+_0_arm64", tag) for tag in MAC_WHEEL_TAGS.values())


def test_a_compiled_mps_message_is_looked_for_only_in_dylibs(tmp_path):
    """The mps-literal rule: a Linux torch (no .dylib) never holds one, a macOS torch's .dylib does."""
    quote = SourceQuote("aten/x.mm", "Placeholder storage has not been allocated on MPS device!", "mps-literal")
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "libtorch_cpu.so").write_bytes(b"\0Placeholder storage has not been allocated on MPS device!\0")
    assert not installed_text_contains(quote, tmp_path)
    (tmp_path / "lib" / "libtorch_cpu.dylib").write_bytes(b"\0Placeholder storage has not been allocated on MPS device!\0")
    assert installed_text_contains(quote, tmp_path)
    literal = SourceQuote("aten/x.cpp", "Expected all tensors to be on the same device, on a Mac too.", "literal")
    (tmp_path / "lib" / "libc10.dylib").write_bytes(b"Expected all tensors to be on the same device, on a Mac too.")
    assert installed_text_contains(literal, tmp_path), "a macOS torch's plain literals live in .dylib files"


@pytest.mark.skipif(OTHER_TORCH is not None, reason="asks the running torch, not the unpacked wheel")
def test_torch_mps_has_the_memory_functions_the_course_names_and_not_cudas():
    for name in ("current_allocated_memory", "driver_allocated_memory", "recommended_max_memory", "empty_cache", "synchronize"):
        assert callable(getattr(torch.mps, name)), name
    for name in ("max_memory_allocated", "memory_summary", "memory_reserved"):
        assert not hasattr(torch.mps, name), f"torch.mps.{name} exists now: update MAC_FACTS['mps-memory']"


@pytest.mark.skipif(sys.platform == "darwin", reason="a macOS arm64 wheel is built with MPS")
def test_a_linux_torch_is_not_built_with_mps():
    assert torch.backends.mps.is_built() is False
    assert torch.backends.mps.is_available() is False


# The MPS error wordings the explainer is tested on (tests/errors_texts.py), read in the same wheels.
MPS_WORDINGS = [(w.key, w.pieces) for w in WORDINGS if w.read.startswith(MACOS)] + [
    (text[:30], (text,)) for text, read in LOOK_ALIKES if read.startswith(MACOS)
]


@pytest.mark.parametrize("key,pieces", MPS_WORDINGS, ids=[k for k, _ in MPS_WORDINGS])
def test_the_explainers_mps_wordings_are_in_every_tested_macos_wheel(key, pieces):
    if not mps_libraries(TORCH_DIR):
        pytest.skip("an MPS message: only a macOS wheel has it (scripts/verify-mac-facts checks it there)")
    quote = SourceQuote("aten/src/ATen/native/mps", "{}".join(pieces), "mps-literal")
    assert installed_text_contains(quote, TORCH_DIR), f"torch {TORCH_VERSION} lacks the MPS wording {key}: {pieces}"


def test_there_are_mps_wordings_to_check():
    assert len(MPS_WORDINGS) >= 7
