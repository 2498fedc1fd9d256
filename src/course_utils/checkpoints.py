"""The device tags inside a ``torch.save`` file: read them, and rewrite them.

Lessons: notebook 03 (checkpoints across machines) and notebook 05 (the error clinic).
``checkpoint_locations(path)`` reads the device tag that ``torch.save`` wrote next to each
storage of a checkpoint, and ``retag_checkpoint`` rewrites those tags: on a machine without a GPU
it makes the file a GPU machine would have written, so ``torch.load`` shows its real errors and
``map_location`` its real fixes. Both work the same on every machine; nothing is loaded onto a
device. (They used to live in ``course_utils.placement``, which still exports them.)
"""

from __future__ import annotations

import io
import os
import pickletools
import struct
import zipfile
from collections import Counter

import torch

from course_utils.devices import as_device

# --------------------------------------------------------------------------- checkpoints
#
# torch.save writes each storage's bytes (always copied to the host first) and, in the pickle
# next to them, a record ("storage", storage type, key, location, numel) whose location is the
# device tag: "cpu", "cuda:0", "mps", "meta". torch.load hands that tag to map_location, or, with
# none, restores the storage onto that device. A checkpoint saved on cuda:0 therefore differs from
# the same tensors saved on the CPU only in those tags.


def checkpoint_locations(f) -> dict[str, int]:
    """The device tags saved in a ``torch.save`` file, with how many storages carry each.

    Meta tensors are saved without a storage (they have no data), so they are not counted.

    Reads the file with ``torch.load(f, map_location=<callable>, weights_only=True)``: the callable
    receives every storage with its saved tag and keeps it on the CPU, so this works on any machine.
    """
    seen: Counter[str] = Counter()

    def record(storage, location):
        seen[location] += 1
        return storage

    torch.load(io.BytesIO(_read_bytes(f)), map_location=record, weights_only=True)  # a caller's BytesIO keeps its position
    return dict(sorted(seen.items()))


def retag_checkpoint(src, dst, mapping: dict[str, str]) -> dict[str, int]:
    """Copy the checkpoint ``src`` to ``dst``, changing the device tags saved with its storages.

    ``mapping`` maps old tags to new ones, e.g. ``{"cpu": "cuda:0"}``: the result is the file that
    ``torch.save`` writes for the same tensors on ``cuda:0`` (the bytes of the tensors are the
    same; only the tags differ). Returns the tags of the new file, as ``checkpoint_locations`` does.
    ``src`` and ``dst`` are paths or ``io.BytesIO``. Only tags change: keys, values and every
    other string in the checkpoint stay as they are.
    """
    if not isinstance(mapping, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in mapping.items()):
        raise TypeError(f"retag_checkpoint expects mapping as a dict of str to str, e.g. {{'cpu': 'cuda:0'}}; got {mapping!r}.")
    for new in mapping.values():
        as_device(new, "retag_checkpoint(mapping)")
    raw = _read_bytes(src)
    if not zipfile.is_zipfile(io.BytesIO(raw)):
        raise ValueError(
            "retag_checkpoint expects a file written by torch.save (a zip archive); this one is not a zip. "
            "Files saved with _use_new_zipfile_serialization=False are not supported: load and save it again."
        )
    out = io.BytesIO()
    found: list[str] = []
    with zipfile.ZipFile(io.BytesIO(raw)) as zin, zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            if info.filename.endswith("data.pkl"):
                data, found = _retag_pickle(data, mapping)
            zout.writestr(info.filename, data)
    if not set(found) & set(mapping):
        raise ValueError(
            f"retag_checkpoint: no storage in this checkpoint is tagged {', '.join(sorted(mapping))}; "
            f"its tags are {sorted(set(found)) or 'none (it holds no tensors)'}. Map one of those."
        )
    if isinstance(dst, io.BytesIO):
        dst.seek(0)
        dst.truncate()
        dst.write(out.getvalue())
        dst.seek(0)
    else:
        with open(dst, "wb") as fh:
            fh.write(out.getvalue())
    return checkpoint_locations(dst)


def _read_bytes(f) -> bytes:
    if isinstance(f, (bytes, bytearray)):
        return bytes(f)
    if isinstance(f, io.BytesIO):
        return f.getvalue()
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as fh:
            return fh.read()
    raise TypeError(f"expected a path, bytes or io.BytesIO holding a checkpoint, got a {type(f).__name__}.")


_PUTS = {"PUT", "BINPUT", "LONG_BINPUT"}
_GETS = {"GET", "BINGET", "LONG_BINGET"}
_STRINGS = {"UNICODE", "BINUNICODE", "SHORT_BINUNICODE"}
_RECORD_OPS = _STRINGS | _GETS | {"GLOBAL", "STACK_GLOBAL", "BININT", "BININT1", "BININT2", "LONG1", "LONG"}
_MARK_ENDS = {"TUPLE", "LIST", "DICT", "SETITEMS", "APPENDS", "OBJ", "INST", "FROZENSET", "ADDITEMS", "POP_MARK"}


def _unicode(text: str) -> bytes:
    raw = text.encode("utf-8")
    return b"X" + struct.pack("<I", len(raw)) + raw  # BINUNICODE


def _retag_pickle(data: bytes, mapping: dict[str, str]) -> tuple[bytes, list[str]]:
    """Rewrite the location field of each storage record in torch.save's data.pkl.

    Each record is pickled as MARK, five items, TUPLE, BINPERSID. The location is the fourth item:
    a string, or a memo reference to one. A string stored in the memo may also be used elsewhere
    (a dict key "cpu"), so those other uses are rewritten to an explicit copy of the old string.
    Only opcodes that torch's weights-only unpickler accepts are written.
    """
    ops = list(pickletools.genops(data))
    end = [ops[i + 1][2] if i + 1 < len(ops) else len(data) for i in range(len(ops))]
    memo: dict[int, str] = {}
    locations = _storage_locations(ops, memo)
    found: list[str] = []
    kept_old: dict[int, str] = {}  # memo index -> the old string, where a retagged literal was memoised
    edits: list[tuple[int, int, bytes]] = []
    for j in locations:
        old = _value(ops[j], memo)
        found.append(old)
        if old in mapping:
            edits.append((ops[j][2], end[j], _unicode(mapping[old])))
            if ops[j][0].name in _STRINGS and j + 1 < len(ops) and ops[j + 1][0].name in _PUTS:
                kept_old[ops[j + 1][1]] = old
    location_set = set(locations)
    for j, (op, arg, pos) in enumerate(ops):
        if op.name in _GETS and arg in kept_old and j not in location_set:
            edits.append((pos, end[j], _unicode(kept_old[arg])))
    out = bytearray(data)
    for start, stop, replacement in sorted(edits, reverse=True):
        out[start:stop] = replacement
    return bytes(out), found


def _storage_locations(ops: list, memo: dict[int, str]) -> list[int]:
    """The index in ``ops`` of each storage record's location item; fills ``memo`` with the memoised strings."""
    marks: list[int] = []
    locations: list[int] = []
    for i, (op, arg, _pos) in enumerate(ops):
        if op.name in _PUTS and i and ops[i - 1][0].name in _STRINGS:
            memo[arg] = ops[i - 1][1]
        if op.name == "MARK":
            marks.append(i)
            continue
        if op.name not in _MARK_ENDS:
            continue
        start = marks.pop()
        after = i + 1
        while after < len(ops) and ops[after][0].name in _PUTS:
            after += 1
        if op.name != "TUPLE" or after == len(ops) or ops[after][0].name != "BINPERSID":
            continue
        items = _record_items(ops, start, i)
        if len(items) != 5 or _value(ops[items[0]], memo) != "storage":
            raise ValueError("unexpected storage record layout: not a checkpoint this helper understands")
        locations.append(items[3])
    return locations


def _record_items(ops: list, start: int, stop: int) -> list[int]:
    """The indexes of a persistent-id tuple's items between its MARK (``start``) and TUPLE (``stop``)."""
    items = []
    for j in range(start + 1, stop):
        name = ops[j][0].name
        if name in _PUTS and items:
            continue
        if name not in _RECORD_OPS:
            raise ValueError(f"unexpected {name} in a storage record: not a checkpoint this helper understands")
        items.append(j)
    return items


def _value(op_arg_pos, memo: dict[int, str]):
    op, arg, _ = op_arg_pos
    return memo.get(arg) if op.name in _GETS else arg
