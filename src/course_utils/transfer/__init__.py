"""How long moving data between host and device takes, measured honestly.

Lesson: notebook 06 (transfers and timing). One job per module:

- ``timing``: synchronize, clock, work, synchronize, clock (``time_blocks``), and planning repeats.
- ``results``: ``Transfer`` and ``Sweep``, frozen results with raw samples, statistics, JSON.
- ``spread``: the IQR against the median, by torch.utils.benchmark's rule, and two timings compared.
- ``measure``: ``measure_copy`` (one copy), ``time_copy`` (into buffers you have) and ``sweep`` (sizes × variants, within a time budget).
- ``pinning``: what ``pin_memory()`` costs and when it pays (``measure_pinning``).
- ``pitfalls``: the non_blocking device-to-host stale read (``detect_stale_read``, ``stale_read_demo``).
- ``overlap``: a copy on a side stream hidden behind a matmul (``measure_overlap``).
- ``ceilings``: PCIe Gen3/4/5 reference bandwidths and this machine's link (``link_info``).
- ``fake``: ``FakeAsyncDevice``, a simulated stream on a simulated clock, for CPU-only machines.
- ``explore``: the logic behind ``course_utils.widgets.TransferExplorer``.
- ``plots``: bandwidth against size, and the variants side by side (matplotlib; not imported here).

``python -m course_utils.transfer`` runs a sweep and writes a table, JSON and plots.
Without an accelerator every copy is a host-memory stand-in, labelled as such everywhere.
"""

from course_utils.transfer.ceilings import Ceiling, PcieLink, ceiling_table, link_info, pcie_ceiling, reference_ceilings
from course_utils.transfer.fake import FakeAsyncDevice
from course_utils.transfer.measure import SIZES, Variants, measure_copy, sweep, time_copy, torch_threads
from course_utils.transfer.overlap import Overlap, measure_overlap, to_device_on_side_stream
from course_utils.transfer.pinning import PinningCost, measure_pinning
from course_utils.transfer.pitfalls import StaleRead, detect_stale_read, stale_read_demo
from course_utils.transfer.results import STAND_IN, MeasuringMachine, Skipped, Sweep, Transfer, machine_info
from course_utils.transfer.spread import AGREE_TOLERANCE, Agreement, Spread, compare
from course_utils.transfer.timing import Instruments, Timing, no_sync, synchronizer, time_blocks

__all__ = [
    "AGREE_TOLERANCE",
    "Agreement",
    "Ceiling",
    "FakeAsyncDevice",
    "Instruments",
    "MeasuringMachine",
    "Overlap",
    "PcieLink",
    "PinningCost",
    "SIZES",
    "STAND_IN",
    "Skipped",
    "Spread",
    "StaleRead",
    "Sweep",
    "Timing",
    "Transfer",
    "Variants",
    "ceiling_table",
    "compare",
    "detect_stale_read",
    "link_info",
    "machine_info",
    "measure_copy",
    "measure_overlap",
    "measure_pinning",
    "no_sync",
    "pcie_ceiling",
    "reference_ceilings",
    "stale_read_demo",
    "sweep",
    "synchronizer",
    "time_blocks",
    "time_copy",
    "to_device_on_side_stream",
    "torch_threads",
]
