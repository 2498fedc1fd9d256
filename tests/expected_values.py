"""What a check expected, recorded from the course's own answer, and whether feedback spells it out.

Issue 33.3: feedback to a wrong answer handed over the value the check expected ("h = 0 is not what
PyTorch prints (1)"; 10.3 printed the whole expected dict). The value a check expects from a case is
what the course's answer returns for it, so the tests run the check on the answer wrapped in a
``Recording`` (which keeps every value the answer returns), then look for those values in the
feedback to each plausible wrong answer (``leaked``). A value the wrong answer returned itself may
be quoted back ("you said 'cuda:0'"), so those are left out.

A value is looked for as the text a message would show: ``repr`` and ``str``, an int also with
thousands separators (``2,101,770``), a float also rounded; a sequence of numbers (04.1's
predictions) also item by item where the message could name one ("h ... (1)"). Values too short to
tell from ordinary words (``0``, ``"cpu"``, ``True``) are left out, except as items named with
their letter; an object that shows only its address is left out.
"""

from __future__ import annotations

import functools
import re

import torch

_MIN = 6  # characters: shorter renderings ("cpu", "meta", "8") are ordinary words of any message


class Recording:
    """Calls ``fn`` and keeps every value it returns, in order, and the arguments it was given."""

    def __init__(self, fn):
        functools.update_wrapper(self, fn)
        self.fn = fn
        self.returned: list = []
        self.given: list = []

    def __call__(self, *args, **kwargs):
        self.given += [*args, *kwargs.values()]
        out = self.fn(*args, **kwargs)
        self.returned.append(out)
        return out


def _leaves(value, depth: int = 0):
    if depth < 4 and isinstance(value, (list, tuple, set)):
        for v in value:
            yield from _leaves(v, depth + 1)
    elif depth < 4 and isinstance(value, dict):
        for k, v in value.items():
            yield from _leaves(k, depth + 1)
            yield from _leaves(v, depth + 1)
    else:
        yield value


def given_renderings(given: list) -> set[str]:
    """How a case's own inputs show in its description: a message must say what it asked, and a device index
    it was given shows as ``cuda:i`` ("With cuda:2 current, ..."); these are not expected values."""
    found = set()
    for leaf in _leaves(given):
        found |= renderings(leaf) | {repr(leaf), str(leaf)}
        if (type(leaf) is int or type(leaf) is str and leaf.isdigit()) and int(leaf) >= 0:
            found.add(f"cuda:{int(leaf)}")
    return found


def renderings(value) -> set[str]:
    """The texts a message could show for ``value`` (only those long enough to mean something)."""
    if value is None or isinstance(value, bool):
        return set()
    found = set()
    if isinstance(value, int):
        found |= {str(value), f"{value:,}"}
    elif isinstance(value, float):
        found |= {repr(value), f"{value:.3g}", f"{value:.6g}", f"{value:,.0f}"}
    elif isinstance(value, torch.Tensor):
        return set()  # a tensor shows as "tensor([...])", which no check writes; its values as lists are inputs
    else:
        found |= {repr(value), str(value)}
        if isinstance(value, dict):
            found |= {repr(sorted(value.items(), key=str))}
    return {t for t in found if len(t) >= _MIN and " at 0x" not in t}


def _numbers(values) -> bool:
    return isinstance(values, (list, tuple)) and all(type(v) is int for v in values)


def leaked(expected: list, own: list, feedback: str, items: str = "", given: list = ()) -> list[str]:
    """The expected values (returned by the course's answer) that ``feedback`` spells out.

    ``own`` are the values the wrong answer returned and ``given`` the arguments the check passed it (quoting
    either back is fine: a message says what was asked and what came back). ``items`` names the
    positions of a sequence answer ("abcdefgh" for 04.1): then the message may not pair a position it
    names with the right number there ("h = 0 is not what PyTorch prints (1)")."""
    mine = set().union(*(renderings(v) for v in own)) if own else set()
    mine |= given_renderings(list(given))
    said = set()
    for value in expected:
        for text in renderings(value) - mine:
            if re.search(rf"(?<![\w,.]){re.escape(text)}(?![\w]|[.,]\d)", feedback):
                said.add(text)
        if items and _numbers(value):
            for letter, right in zip(items, value):
                wrong_here = [v[items.index(letter)] for v in own if _numbers(v) and len(v) == len(value)]
                named = re.search(rf"\b{letter}\b", feedback)
                if (
                    named
                    and wrong_here
                    and wrong_here[0] != right
                    and re.search(rf"(?<![\w.:-]){right}(?![\w.:])", feedback.replace(f"{letter} = {wrong_here[0]}", ""))
                ):
                    said.add(f"{letter}'s value {right}")
    return sorted(said)
