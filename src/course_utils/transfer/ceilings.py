"""PCIe reference ceilings, and this machine's own link as the driver reports it.

Lesson: notebook 06 (transfers and timing). A PCIe x16 link's theoretical payload bandwidth
per direction is ``GT/s per lane × lanes × encoding efficiency ÷ 8 bits per byte``:

- Gen3: 8 GT/s × 16 × 128/130 ÷ 8 ≈ 15.75 GB/s
- Gen4: 16 GT/s × 16 × 128/130 ÷ 8 ≈ 31.5 GB/s
- Gen5: 32 GT/s × 16 × 128/130 ÷ 8 ≈ 63.0 GB/s

(Gen1 and Gen2 use 8b/10b encoding: 4 and 8 GB/s at x16.) Real copies reach less: packet
headers and flow control take their share, so ~80-90% of the ceiling is a good result.
H100 and H200 SXM GPUs connect to the host over PCIe Gen5 x16.

``link_info()`` asks ``nvidia-smi`` for the link's current generation and width and its maximum
generation; it returns ``None`` on a machine without an NVIDIA driver, never raises. The
*current* generation can read lower than the maximum while the GPU idles (the link trains down
to save power) and rises under load.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from dataclasses import dataclass

from course_utils.display import table, tag

# Per-lane signalling rate (GT/s) and line-code efficiency of each PCIe generation.
# PCIe 6.0 (64 GT/s, PAM4 with FLIT encoding) is left out: its overhead is not a simple ratio.
GENERATIONS: dict[int, tuple[float, int, int]] = {
    1: (2.5, 8, 10),
    2: (5.0, 8, 10),
    3: (8.0, 128, 130),
    4: (16.0, 128, 130),
    5: (32.0, 128, 130),
}


@dataclass(frozen=True)
class Ceiling:
    """The theoretical one-direction payload bandwidth of a PCIe link."""

    gen: int
    lanes: int = 16

    def __post_init__(self):
        if isinstance(self.gen, bool) or self.gen not in GENERATIONS:
            raise ValueError(
                f"PCIe generation must be one of {sorted(GENERATIONS)}, got {self.gen!r}. nvidia-smi's pcie.link.gen.max tells your GPU's."
            )
        if isinstance(self.lanes, bool) or self.lanes not in (1, 2, 4, 8, 16, 32):
            raise ValueError(f"PCIe lanes must be 1, 2, 4, 8, 16 or 32, got {self.lanes!r}.")

    @property
    def gts(self) -> float:
        """Giga-transfers per second per lane (one bit per transfer)."""
        return GENERATIONS[self.gen][0]

    @property
    def encoding(self) -> str:
        _, payload, line = GENERATIONS[self.gen]
        return f"{payload}b/{line}b"

    @property
    def gbps(self) -> float:
        """GB/s (10^9 bytes per second), one direction."""
        rate, payload, line = GENERATIONS[self.gen]
        return rate * self.lanes * payload / line / 8

    @property
    def label(self) -> str:
        return f"PCIe Gen{self.gen} x{self.lanes}"

    @property
    def derivation(self) -> str:
        _, payload, line = GENERATIONS[self.gen]
        return f"{self.gts:g} GT/s × {self.lanes} lanes × {payload}/{line} ÷ 8 = {self.gbps:.2f} GB/s"

    def __str__(self) -> str:
        return f"{self.label}: {self.gbps:.2f} GB/s per direction ({self.derivation})"

    def _repr_html_(self) -> str:
        return tag("p", tag("b", self.label), f": {self.gbps:.2f} GB/s per direction ({self.derivation})")


def pcie_ceiling(gen: int, lanes: int = 16) -> Ceiling:
    """The theoretical bandwidth of a PCIe ``gen`` x``lanes`` link, one direction."""
    return Ceiling(gen, lanes)


def reference_ceilings() -> tuple[Ceiling, ...]:
    """Gen3, Gen4 and Gen5 x16: the links a GPU is usually behind."""
    return tuple(Ceiling(g) for g in (3, 4, 5))


@dataclass(frozen=True, repr=False)
class CeilingTable:
    """Several ceilings, shown as a table."""

    ceilings: tuple[Ceiling, ...]

    def __str__(self) -> str:
        return "\n".join(str(c) for c in self.ceilings)

    def __repr__(self) -> str:
        return str(self)

    def _repr_html_(self) -> str:
        rows = [(c.label, f"{c.gts:g} GT/s", c.encoding, tag("b", f"{c.gbps:.2f} GB/s")) for c in self.ceilings]
        return table(rows, head=("link", "per lane", "encoding", "ceiling, one direction"))


def ceiling_table() -> CeilingTable:
    """The reference ceilings as a table a notebook cell can end on."""
    return CeilingTable(reference_ceilings())


# --------------------------------------------------------------------------- this machine's link

QUERY = "uuid,pcie.link.gen.current,pcie.link.width.current,pcie.link.gen.max"


@dataclass(frozen=True)
class PcieLink:
    """A GPU's PCIe link as ``nvidia-smi`` reports it; a field is ``None`` when not reported."""

    gen_current: int | None
    width_current: int | None
    gen_max: int | None
    uuid: str | None = None

    @property
    def ceiling_max(self) -> Ceiling | None:
        """The ceiling at the highest generation this GPU and slot support, at the current width."""
        return _ceiling_or_none(self.gen_max, self.width_current)

    def to_dict(self) -> dict:
        return {"gen_current": self.gen_current, "width_current": self.width_current, "gen_max": self.gen_max, "uuid": self.uuid}

    @classmethod
    def from_dict(cls, data: dict) -> PcieLink:
        return cls(data.get("gen_current"), data.get("width_current"), data.get("gen_max"), data.get("uuid"))

    def __str__(self) -> str:
        def show(v):
            return "?" if v is None else str(v)

        text = f"PCIe link: Gen{show(self.gen_current)} x{show(self.width_current)} now, Gen{show(self.gen_max)} max"
        if self.ceiling_max is not None:
            text += f" (ceiling {self.ceiling_max.gbps:.1f} GB/s per direction at Gen{self.gen_max})"
        return text

    def _repr_html_(self) -> str:
        return tag("p", str(self))


def _ceiling_or_none(gen, width) -> Ceiling | None:
    try:
        return Ceiling(gen, width) if gen is not None and width is not None else None
    except ValueError:
        return None


def _int_or_none(text: str) -> int | None:
    text = text.strip()
    return int(text) if text.isdigit() else None  # "[N/A]", "[Not Supported]", "" -> None


def parse_link_csv(text: str) -> list[PcieLink]:
    """Parse ``nvidia-smi --query-gpu=<QUERY> --format=csv,noheader,nounits`` output, one link per GPU.

    Tolerates blank lines, spaces, "[N/A]"/"[Not Supported]" fields, and a header line.
    Lines with too few fields are skipped.
    """
    links = []
    for line in text.splitlines():
        fields = [f.strip() for f in line.split(",")]
        if len(fields) < 4 or fields[0].lower() == "uuid":
            continue
        uuid = fields[0] if fields[0] and not fields[0].startswith("[") else None
        links.append(PcieLink(_int_or_none(fields[1]), _int_or_none(fields[2]), _int_or_none(fields[3]), uuid))
    return links


def _torch_uuid(index: int) -> str | None:
    """``GPU-<uuid>`` of torch's ``cuda:index`` (nvidia-smi's spelling), or None if torch cannot say."""
    try:
        import torch

        uuid = getattr(torch.cuda.get_device_properties(index), "uuid", None)
    except Exception:
        return None
    if uuid is None:
        return None
    text = str(uuid)
    return text if text.startswith(("GPU-", "MIG-")) else f"GPU-{text}"


def link_info(
    index: int = 0,
    *,
    run: Callable[..., subprocess.CompletedProcess] = subprocess.run,
    uuid: str | None = None,
) -> PcieLink | None:
    """The PCIe link of torch's ``cuda:index`` from ``nvidia-smi``; ``None`` when it cannot tell.

    nvidia-smi numbers GPUs in PCI order and ignores ``CUDA_VISIBLE_DEVICES``, while torch may
    number them differently, so the GPU is matched by UUID. Without a UUID, a machine with a
    single GPU is unambiguous; with several, the answer is ``None`` rather than a guess.
    ``run`` and ``uuid`` are for tests.
    """
    try:
        done = run(["nvidia-smi", f"--query-gpu={QUERY}", "--format=csv,noheader,nounits"], capture_output=True, text=True, timeout=20)
    except (FileNotFoundError, PermissionError, subprocess.TimeoutExpired, OSError):
        return None
    if done.returncode != 0:
        return None
    links = parse_link_csv(done.stdout)
    if not links:
        return None
    wanted = uuid if uuid is not None else _torch_uuid(index)
    if wanted is not None:
        for link in links:
            if link.uuid and link.uuid.lower() == wanted.lower():
                return link
    return links[0] if len(links) == 1 else None
