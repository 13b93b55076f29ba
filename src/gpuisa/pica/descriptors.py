"""picasso's operand-descriptor table model: care masks, first-fit merge, the MAD swap.

The operand-descriptor table of a SHBIN depends on the order in which instructions
claimed entries, so both the assembler (which builds the table) and the disassembler
(which must print text that rebuilds the same table) need the exact same model.  It is
the toolchain's algorithm, not a hardware rule: pica-assembly.md#opdesc-allocation.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import EncodingError
from .isa import MAX_OPDESCS, OPDESC_LAYOUT, Kind, OpcodeInfo, SourceUse

#: How many descriptors a MAD/MADI can address (its DESC field is 5 bits wide).
MAD_DESC_LIMIT = 1 << 5


def _bits(*names: str) -> int:
    mask = 0
    for name in names:
        mask |= OPDESC_LAYOUT[name].mask
    return mask


def _component_bits(source: int, component: int) -> int:
    """The two selector bits of ``component`` (0 = x) of source 1, 2 or 3."""
    sel = OPDESC_LAYOUT[f"sel{source}"]
    return 0b11 << (sel.lsb + 6 - 2 * component)


def care_mask(info: OpcodeInfo, dst_mask: int) -> int:
    """The descriptor bits an instruction depends on (pica-assembly.md#care-masks initial mask,
    pica-assembly.md#dont-care don't-cares).

    ``dst_mask`` is the instruction's destination mask (hardware order, bit 3 = x); for
    MOVA it says which of a0.x (bit 3) and a0.y (bit 2) are written.
    """
    sources = info.sources
    if info.kind is Kind.COMPARE:
        mask = _bits("neg1", "sel1", "neg2", "sel2")
    elif info.kind is Kind.ARITHMETIC:
        names = ["mask"] + [f"{kind}{n}" for n in range(1, sources + 1) for kind in ("neg", "sel")]
        mask = _bits(*names)
    else:
        raise EncodingError(f"{info.opcode.name} has no operand descriptor")

    use = info.use
    if use is SourceUse.MASKED:
        for comp in range(4):
            if not dst_mask & (8 >> comp):
                for src in range(1, sources + 1):
                    mask &= ~_component_bits(src, comp)
    elif use is SourceUse.DP3:
        mask &= ~(_component_bits(1, 3) | _component_bits(2, 3))
    elif use is SourceUse.DPH:
        mask &= ~_component_bits(1, 3)
    elif use is SourceUse.SCALAR:
        for comp in (1, 2, 3):
            mask &= ~_component_bits(1, comp)
    elif use is SourceUse.MOVA:
        if not dst_mask & 8:
            mask &= ~_component_bits(1, 0)
        if not dst_mask & 4:
            mask &= ~_component_bits(1, 1)
        mask &= ~(_component_bits(1, 2) | _component_bits(1, 3))
    elif use is SourceUse.CMP:
        mask &= ~(_component_bits(1, 2) | _component_bits(1, 3))
    return mask


@dataclass(slots=True)
class DescriptorTable:
    """The growing table of (value, care-mask) entries, as picasso builds it."""

    values: list[int] = field(default_factory=list)
    masks: list[int] = field(default_factory=list)
    #: Indices below 32 already referenced by MAD/MADI instructions (pica-assembly.md#mad-swap).
    mad_used: set[int] = field(default_factory=set)

    def pin(self, value: int) -> int:
        """Append an entry every bit of which is significant (gpuisa's ``.opdesc``)."""
        self._check_room()
        self.values.append(value)
        self.masks.append(0xFFFFFFFF)
        return len(self.values) - 1

    def find(self, value: int, mask: int) -> int | None:
        """Index of the first entry that agrees with ``value`` on the bits both care about."""
        for i, (v, m) in enumerate(zip(self.values, self.masks, strict=True)):
            both = mask & m
            if (value & both) == (v & both):
                return i
        return None

    def allocate(self, value: int, mask: int) -> int:
        """First-fit merge in place (pica-assembly.md#first-fit): returns the entry index used."""
        i = self.find(value, mask)
        if i is None:
            self._check_room()
            self.values.append(value & 0xFFFFFFFF)
            self.masks.append(mask)
            return len(self.values) - 1
        self.values[i] = (self.values[i] & ~mask) | (value & mask)
        self.masks[i] |= mask
        return i

    def allocate_mad(self, value: int, mask: int) -> tuple[int, int | None]:
        """Allocate for a MAD/MADI (pica-assembly.md#mad-swap).

        Returns ``(index, swapped)``: when the first-fit index is 32 or more, the entry is
        swapped with the lowest index below 32 no MAD uses yet; ``swapped`` is then the
        pair's other index, and the caller must exchange the two indices in every
        non-MAD instruction already emitted.
        """
        k = self.allocate(value, mask)
        swapped = None
        if k >= MAD_DESC_LIMIT:
            free = next((w for w in range(MAD_DESC_LIMIT) if w not in self.mad_used), None)
            if free is None:
                raise EncodingError("opdesc allocation error")
            self.values[free], self.values[k] = self.values[k], self.values[free]
            self.masks[free], self.masks[k] = self.masks[k], self.masks[free]
            k, swapped = free, k
        self.mad_used.add(k)
        return k, swapped

    def _check_room(self) -> None:
        if len(self.values) >= MAX_OPDESCS:
            raise EncodingError(f"too many operand descriptors (limit is {MAX_OPDESCS})")
