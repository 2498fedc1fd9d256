"""The device report: every visible accelerator with its index, name, capability, memory and SM count.

Lesson: notebook 01 (device query). ``device_report()`` reads this machine's ``MachineFacts``
(``machine.collect_facts``); tests pass facts they built by hand.
"""

from __future__ import annotations

import os
import platform
from dataclasses import dataclass

from course_utils.display import LINE_BREAK, markup, table, tag
from course_utils.machine import GIB, AcceleratorInfo, MachineFacts, collect_facts


@dataclass(frozen=True)
class DeviceReport:
    """This machine's devices, ready to show: end a notebook cell on it."""

    facts: MachineFacts

    @property
    def accelerators(self) -> tuple[AcceleratorInfo, ...]:
        return self.facts.accelerators

    @property
    def summary(self) -> str:
        f = self.facts
        n = len(f.gpus)
        if n:
            kind = "ROCm" if f.hip_build else "CUDA"
            return f"{n} {kind} GPU{'s' if n > 1 else ''} visible; current device cuda:{f.current_cuda_index}"
        if f.xpus:
            n = len(f.xpus)
            return f"{n} Intel GPU{'s' if n > 1 else ''} through XPU; current device xpu:{f.current_xpu_index}; no CUDA"
        if f.mps_available:
            return "an Apple GPU through MPS; no CUDA"
        return "no accelerator: CPU only"

    def rows(self) -> list[dict[str, str]]:
        """One row per device, the CPU last, as strings ready for a table."""
        rows = []
        for a in self.accelerators:
            rows.append(
                {
                    "device": a.device,
                    "name": a.name,
                    "compute capability": _fmt_cc(a.compute_capability),
                    "total memory": _fmt_gib(a.total_memory),
                    "free memory": _fmt_gib(a.free_memory),
                    "multiprocessors": "-" if a.multiprocessors is None else str(a.multiprocessors),
                }
            )
        rows.append(
            {
                "device": "cpu",
                "name": platform.processor() or platform.machine() or "CPU",
                "compute capability": "-",
                "total memory": "-",
                "free memory": "-",
                "multiprocessors": str(os.cpu_count() or "-"),
            }
        )
        return rows

    def __str__(self) -> str:
        f = self.facts
        build = _build(f)
        lines = [f"torch {f.torch_version} ({build}): {self.summary}"]
        for r in self.rows():
            lines.append("  " + " | ".join(f"{k}: {v}" for k, v in r.items()))
        if f.cuda_visible_devices is not None:
            lines.append(f"  CUDA_VISIBLE_DEVICES={f.cuda_visible_devices!r}")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        f = self.facts
        rows = self.rows()
        build = _build(f)
        extra = ""
        if f.cuda_visible_devices is not None:
            extra = markup(LINE_BREAK, tag("code", f"CUDA_VISIBLE_DEVICES={f.cuda_visible_devices!r}"))
        headline = tag("p", tag("b", f"torch {f.torch_version}"), f" ({build}): {self.summary}", extra)
        return markup(headline, table([list(r.values()) for r in rows], head=list(rows[0])))


def device_report(facts: MachineFacts | None = None) -> DeviceReport:
    """Every visible accelerator with its index, name, capability, memory and SM count."""
    return DeviceReport(facts if facts is not None else collect_facts())


def _fmt_gib(nbytes: int | None) -> str:
    return "-" if nbytes is None else f"{nbytes / GIB:.1f} GiB"


def _fmt_cc(cc: tuple[int, int] | None) -> str:
    return "-" if cc is None else f"{cc[0]}.{cc[1]}"


def _build(f: MachineFacts) -> str:
    """What this torch was built for, in words: "CUDA 12.6", "ROCm 6.3", "XPU build", "CPU-only build"."""
    if f.cuda_build:
        return f"CUDA {f.cuda_build}"
    if f.hip_build:
        return f"ROCm {f.hip_build}"
    return "XPU build" if f.built_accelerator == "xpu" else "CPU-only build"
