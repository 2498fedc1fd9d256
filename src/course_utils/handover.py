"""Files a check hands to the learner's function: written where the learner's code reads them.

Lesson: none; this is for the checks (``checks/nbNN.py``) and the grader. A checker that hands the
learner's function a file or a folder (03.3's checkpoints) passes its path. In a learner's own
notebook the checker and the answer share a process, and any path works; when grading, the
checker runs in the grader (``course_grader.boundary``) and the answer in the learner's kernel,
which under bubblewrap has a ``/tmp`` of its own and never sees the grader's. So a checker writes
such files in ``with handover_folder(prefix) as folder:``: when grading, a fresh folder in the
submission's handover folder, which the kernel reads at the same path (read-only under
bubblewrap, ``course_grader.sandbox.Scratch.handover``); otherwise one in the temporary folder. The
boundary refuses a call that hands any other path (``refuse_unreachable``): a course bug, caught
by the tests without a sandbox too.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterable, Iterator
from contextvars import ContextVar
from pathlib import Path

# Where handover_folder makes its folders (None: the temporary folder), and the folders open now.
# Set and reset around one judgement (``judging_into``) and one ``with``, in the judge's own thread.
_ROOT: ContextVar[Path | None] = ContextVar("course_handover_root", default=None)
_OPEN: ContextVar[tuple[str, ...]] = ContextVar("course_handover_open", default=())
PATH_MAX = 4096


class UnreachablePath(BaseException):
    """A checker handed the learner's function a path that is not in a ``handover_folder``: a course bug.

    A BaseException: the checks' ``call`` blames the learner for any Exception, and no checker's
    ``except Exception`` may swallow it; ``boundary.grade`` reports it as the course's error."""

    def __init__(self, path: str):
        super().__init__(path)
        self.path = path


@contextlib.contextmanager
def handover_folder(prefix: str = "check-") -> Iterator[Path]:
    """A fresh folder (resolved) for the files a checker hands to the learner's function; removed afterwards."""
    folder = Path(tempfile.mkdtemp(prefix=prefix, dir=_ROOT.get())).resolve()
    token = _OPEN.set((*_OPEN.get(), str(folder)))
    try:
        yield folder
    finally:
        _OPEN.reset(token)
        # no chmod, no link followed (TemporaryDirectory's clean-up chmods through a link it is refused at)
        shutil.rmtree(folder, ignore_errors=True)


@contextlib.contextmanager
def judging_into(root: Path | None) -> Iterator[None]:
    """While one exercise is judged: ``handover_folder`` makes its folders in ``root`` (None: the temporary folder)."""
    token = _ROOT.set(None if root is None else Path(root).resolve())
    try:
        yield
    finally:
        _ROOT.reset(token)


def refuse_unreachable(objects: Iterable) -> None:
    """Raise UnreachablePath for a path among ``objects`` that no open ``handover_folder`` holds.

    ``objects``: everything a call hands over (``boundary._tracked`` of its arguments). A path is
    an ``os.PathLike`` (a relative one too: the kernel's working folder is not the judge's), or an
    absolute ``str`` that names something on this machine.
    """
    opened = _OPEN.get()
    for obj in objects:
        if isinstance(obj, os.PathLike):
            path = os.fsdecode(os.fspath(obj))
        elif type(obj) is str and obj.startswith(os.sep) and len(obj) < PATH_MAX and "\0" not in obj and os.path.lexists(obj):
            path = obj
        else:
            continue
        full = os.path.realpath(path) if os.path.isabs(path) else ""
        if not any(full == folder or full.startswith(folder + os.sep) for folder in opened):
            raise UnreachablePath(path)
