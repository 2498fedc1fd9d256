"""What PyTorch's source says a GPU-only cell shows, for cells no GPU run has recorded yet.

Lesson: every notebook's GPU-only cells. ``QUOTES[key]`` quotes the PyTorch source behind cell
``key``: the docstring, the code line or the error's string literal that decides what a GPU
prints there. Each quote names its file in the PyTorch repository and the version it was checked
against, and ``tests/test_evidence.py`` checks every quote against the installed torch: Python
quotes in the installed ``.py`` file, C++ string literals in the compiled libraries (where the
compiler keeps them verbatim). A quote that PyTorch no longer contains fails the suite.

Once a GPU run records a key, ``recorded`` shows the recording instead; the quote stays as the
fallback for machines whose evidence folder lacks it.
"""

from __future__ import annotations

import mmap
import re
from dataclasses import dataclass
from pathlib import Path

CHECKED = "2.13.0"  # the torch release every quote below was read from and checked against


@dataclass(frozen=True)
class SourceQuote:
    """A passage of PyTorch's source, verbatim: ``kind`` says how to find it in an installed torch."""

    file: str  # path in the pytorch/pytorch repository
    text: str  # verbatim; for "literal", the C++ string literal's characters
    kind: str = "python"  # "python": in the installed .py file | "literal": in the compiled libraries
    note: str = ""  # one sentence: how the quote decides this cell's output
    version: str = CHECKED

    @property
    def label(self) -> str:
        what = "C++ string literal" if self.kind == "literal" else "source"
        return f"PyTorch {self.version}, {self.file} ({what})"


def installed_text_contains(quote: SourceQuote, torch_dir: Path | None = None) -> bool:
    """Whether the installed torch still contains ``quote`` (whitespace-insensitive for Python)."""
    if torch_dir is None:
        import torch

        torch_dir = Path(torch.__file__).resolve().parent
    if quote.kind == "python":
        path = torch_dir.parent / quote.file
        if not path.is_file():
            return False
        squash = lambda s: re.sub(r"\s+", " ", s).strip()  # noqa: E731 - docstrings re-wrap between releases
        return squash(quote.text) in squash(path.read_text(encoding="utf-8"))
    if quote.kind == "literal":
        needle = quote.text.encode()
        for lib in sorted((torch_dir / "lib").glob("*.so*")):
            with open(lib, "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as mm:
                if mm.find(needle) != -1:
                    return True
        return False
    raise ValueError(f"SourceQuote.kind must be 'python' or 'literal', found {quote.kind!r}.")


QUOTES: dict[str, tuple[SourceQuote, ...]] = {}
