"""The authors' verifier of the course's PyTorch quotes: is each whole, and does an installed torch hold it verbatim?

Lesson: none; ``tests/test_evidence.py`` and ``tests/test_mac_facts.py`` run it on whatever torch is
installed (CI's matrix: every supported release), ``scripts/gpu-verify`` on a GPU machine. The quotes
themselves are data in ``course_utils.evidence.sources`` (what a lesson shows); reading torch's
compiled libraries to find them is this module's job, and ships to no learner.
"""

from __future__ import annotations

import ast
import mmap
import re
import textwrap
from pathlib import Path

from course_utils.evidence.sources import PLACEHOLDER, SourceQuote

# --------------------------------------------------------------------------- the rules a quote obeys


def _parses_as_code(text: str) -> bool:
    lines = text.split("\n")
    for indent in range(0, 17, 4):  # a quote starts at its first character; its block kept its indentation
        try:
            ast.parse(textwrap.dedent("\n".join([" " * indent + lines[0]] + lines[1:])))
            return True
        except SyntaxError:
            continue
    return False


def fragment_problem(quote: SourceQuote) -> str | None:
    """Why ``quote`` is a fragment that needs the source to parse, or None when it is whole.

    Whole means: at least five words, starting at a word, a value or a quotation mark (not at
    ``") and weight type ("``), and either a complete sentence (ending ``.``, ``!`` or ``?``), a
    whole message with its run-time values marked ``{what}``, or complete lines of code.
    """
    text = quote.text.rstrip()  # a leading space is the middle of a message: keep it to catch it
    prose = re.sub(r"(?m)^\s*# ?", "", text)  # a comment block reads as its sentences
    if len(re.findall(r"\w+", prose)) < 5:
        return "fewer than five words"
    if not re.match(r"[\w`'\"{#]", text):
        return f"starts in the middle of something ({text[:12]!r})"
    if re.search(r"[.!?](\s|$)", prose) or (quote.kind != "python" and PLACEHOLDER.search(text)):
        return None
    if quote.kind == "python" and _parses_as_code(text):
        return None
    return "no complete sentence, message or line of code"


def installed_text_contains(quote: SourceQuote, torch_dir: Path | None = None) -> bool:
    """Whether the torch at ``torch_dir`` (default: the installed one) holds ``quote`` verbatim.

    Python: whitespace-insensitive, since docstrings re-wrap between releases. C++: every piece
    of the message between its {placeholders}, byte for byte, in one of the libraries.
    """
    if torch_dir is None:
        import torch

        torch_dir = Path(torch.__file__).resolve().parent
    if quote.library is not None:  # a library's Python source, under its installed package (None: not installed)
        return _library_text_contains(quote)
    if quote.kind == "python":
        path = torch_dir.parent / quote.file
        if not path.is_file():
            return False
        squash = lambda s: re.sub(r"\s+", " ", s).strip()  # noqa: E731
        return squash(quote.text) in squash(path.read_text(encoding="utf-8"))
    if quote.kind in ("literal", "cuda-literal"):
        return all(_in_some_library(piece.encode(), compiled_libraries(torch_dir)) for piece in quote.pieces)
    if quote.kind == "mps-literal":
        libraries = mps_libraries(torch_dir)
        return bool(libraries) and all(_in_some_library(piece.encode(), libraries) for piece in quote.pieces)
    if quote.kind == "nccl-literal":
        libraries = nccl_libraries(torch_dir)
        return bool(libraries) and all(_in_some_library(piece.encode(), libraries) for piece in quote.pieces)
    raise ValueError(f"SourceQuote.kind must be 'python', 'literal', 'cuda-literal', 'nccl-literal' or 'mps-literal', found {quote.kind!r}.")


def _library_text_contains(quote: SourceQuote) -> bool:
    """Whether the installed library (``quote.file``'s first part, such as accelerate) holds ``quote``, as Python."""
    import importlib.util

    spec = importlib.util.find_spec(quote.file.split("/")[0])
    if spec is None or spec.origin is None:
        return False
    path = Path(spec.origin).parent.parent / quote.file
    squash = lambda s: re.sub(r"\s+", " ", s).strip()  # noqa: E731
    return path.is_file() and squash(quote.text) in squash(path.read_text(encoding="utf-8"))


def compiled_libraries(torch_dir: Path) -> list[Path]:
    """torch's compiled libraries: ``lib/*.so*`` on Linux, ``lib/*.dylib`` in a macOS wheel."""
    lib = torch_dir / "lib"
    return sorted(lib.glob("*.so*")) + sorted(lib.glob("*.dylib"))


def mps_libraries(torch_dir: Path) -> list[Path]:
    """The libraries that hold Apple's MPS backend: a macOS wheel's ``.dylib`` files (none on Linux)."""
    return sorted((torch_dir / "lib").glob("*.dylib"))


def nccl_libraries(torch_dir: Path) -> list[Path]:
    """The NCCL libraries pip installed beside a CUDA build of torch (none beside a CPU build)."""
    nvidia = torch_dir.parent / "nvidia"
    return sorted(nvidia.glob("**/libnccl.so*")) if nvidia.is_dir() else []


def _in_some_library(needle: bytes, libraries: list[Path]) -> bool:
    for lib in libraries:
        with open(lib, "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as mm:
            if mm.find(needle) != -1:
                return True
            # GCC may build a short std::string from 16-byte chunks, the last overlapping the one
            # before it (2.12 and later: "...do you have eno" then "ave enough GPUs?"): all but at
            # most the last 16 bytes in one run, and those 16 bytes as a chunk of their own.
            if len(needle) > 32 and mm.find(needle[-16:]) != -1 and any(mm.find(needle[:n]) != -1 for n in range(len(needle) - 16, len(needle))):
                return True
    return False
