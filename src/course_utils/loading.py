"""Where a DataLoader's samples are made: which process, which worker, which start method.

Lesson: notebook 09 (data loading and device memory). With ``num_workers > 0`` a DataLoader
runs the Dataset's ``__getitem__`` in worker processes. How those start decides what they
inherit: a *forked* worker is a copy of the notebook's process (on Linux the default, up to
Python 3.13), a *spawned* one is a fresh Python that imports the Dataset's class by name, so the
class must live in an importable module (here), not in the notebook.

- ``WhereAmI``: a Dataset whose samples say where they were made (pid, worker id).
- ``TouchesDevice``: a Dataset whose ``__getitem__`` creates a tensor on a device, the pattern
  that fails with CUDA in a forked worker.
- ``trace_workers(loader)``: iterate a loader of ``WhereAmI`` samples and return a ``WorkerTrace``.
"""

from __future__ import annotations

import multiprocessing
import os
from dataclasses import dataclass

import torch
from torch.utils.data import Dataset, get_worker_info

from course_utils.display import pre, require_int


class WhereAmI(Dataset):
    """``n`` samples; sample ``i`` is ``{"index": i, "pid": ..., "worker": ...}`` from the process that made it.

    ``worker`` is ``get_worker_info().id`` in a worker process and -1 in the main process
    (``get_worker_info()`` is None there). The values are ints, so the default collate turns a
    batch of them into int64 tensors."""

    def __init__(self, n: int = 8):
        require_int("n in WhereAmI(n)", n, expected="should be a positive number of samples", hint="Try WhereAmI(8).")
        self.n = n

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int) -> dict[str, int]:
        if not 0 <= i < self.n:
            raise IndexError(f"WhereAmI has {self.n} samples (0 to {self.n - 1}); index {i} asked for.")
        info = get_worker_info()
        return {"index": i, "pid": os.getpid(), "worker": info.id if info is not None else -1}


class TouchesDevice(Dataset):
    """``n`` samples made directly on ``device``: ``torch.full((2,), i, device=device)``.

    The anti-pattern of notebook 09: with ``device="cuda"`` and forked workers, the first
    sample fails with "Cannot re-initialize CUDA in forked subprocess" once the main process has
    used CUDA. Keep device work in the training loop (the batch moves there), or start the workers
    with ``multiprocessing_context="spawn"``."""

    def __init__(self, device: str | torch.device, n: int = 4):
        require_int("n in TouchesDevice(device, n)", n, expected="should be a positive number of samples", hint="Try TouchesDevice('cpu', 4).")
        self.device = torch.device(device)  # a bad device string fails here, in the main process
        self.n = n

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int) -> torch.Tensor:
        return torch.full((2,), float(i), device=self.device)


@dataclass(frozen=True)
class WorkerTrace:
    """Which process made each sample of a loader's pass, next to the notebook's own pid."""

    main_pid: int
    start_method: str  # the start method the loader's workers used ("fork", "spawn", "forkserver")
    samples: tuple[tuple[int, int, int], ...]  # (index, pid, worker id) per sample, in loading order

    @property
    def worker_pids(self) -> dict[int, int]:
        """Worker id -> its process id (-1 is the main process, when num_workers=0)."""
        return {worker: pid for _, pid, worker in self.samples}

    def __str__(self) -> str:
        lines = [f"notebook process: pid {self.main_pid}; start method: {self.start_method}"]
        for worker, pid in sorted(self.worker_pids.items()):
            who = "main process (no workers)" if worker == -1 else f"worker {worker}"
            indices = [i for i, _, w in self.samples if w == worker]
            lines.append(f"  {who}: pid {pid}, made samples {indices}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return str(self)

    def _repr_html_(self) -> str:
        return pre(str(self))


def start_method(loader: torch.utils.data.DataLoader) -> str:
    """The start method ``loader``'s workers use: its ``multiprocessing_context``, else Python's default."""
    context = loader.multiprocessing_context
    if context is None:
        return multiprocessing.get_start_method()
    return context.get_start_method()


def trace_workers(loader: torch.utils.data.DataLoader) -> WorkerTrace:
    """Run one pass of ``loader`` over a ``WhereAmI`` dataset and say which process made each sample."""
    if not isinstance(loader.dataset, WhereAmI):
        raise TypeError(
            f"trace_workers expects a DataLoader over WhereAmI samples (they report their pid); "
            f"got one over {type(loader.dataset).__name__}. Try DataLoader(WhereAmI(8), num_workers=2)."
        )
    samples = []
    for batch in loader:
        if not isinstance(batch, dict):
            raise TypeError(
                f"trace_workers expects batches as dicts of tensors (the default collate of WhereAmI "
                f"samples); got a {type(batch).__name__}. Leave collate_fn at its default."
            )
        columns = [torch.as_tensor(batch[k]).reshape(-1).tolist() for k in ("index", "pid", "worker")]
        samples += list(zip(*columns))
    return WorkerTrace(os.getpid(), start_method(loader), tuple(samples))
