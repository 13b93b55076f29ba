"""The checks that follow execution paths (:mod:`.explore`): outputs, registers read
before written, stacks, jumps, ``end``, ``mova`` pairs, EMIT/SETEMIT.  The assembler's
linter (:mod:`..asm.lint`) uses the functions marked as shared, so ``pica asm`` warns with
the same analysis and words."""

from __future__ import annotations

from collections.abc import Iterator

from ..encoding import Instruction
from ..isa import EmitEffect, Opcode
from .effects import MISC_BITS
from .explore import Exploration
from .model import Raw, Unit, component_list, component_names

_ADDRESS_BITS = 0b00111  # a0.x, a0.y, aL
_FLAG_BITS = 0b11000  # cmp.x, cmp.y


# -- shared with the assembler's linter ------------------------------------------------------

def entry_end(entry: str, ex: Exploration, decoded: list[Instruction],
              anchor_unit: int) -> Raw | None:
    """PICA305 (no path reaches ``end``) or PICA306 (some path leaves the entry without
    it)."""
    if not any(decoded[pc].opcode is Opcode.END for pc in ex.reached):
        return Raw("PICA305", f"entry point '{entry}' contains no 'end' instruction",
                   ("entry", anchor_unit), "the shader never finishes: the GPU hangs")
    if ex.falls_off:
        return Raw("PICA306", f"entry point '{entry}' can reach its end without executing "
                   "'end'", ("entry", anchor_unit),
                   "the shader then runs past its last instruction")
    return None


def written_twice(ex: Exploration, reported: set[int]) -> Iterator[Raw]:
    """PICA103, once per word over all entry points (``reported`` is shared)."""
    for pc in sorted(ex.twice):
        if pc not in reported:
            reported.add(pc)
            yield Raw("PICA103", f"{component_list(ex.twice[pc], 'o')} written twice on "
                      "the same path", ("dst", pc))


def mova_pairs(decoded: list[Instruction],
               results: list[Exploration | None]) -> dict[int, set[int]]:
    """Second ``mova`` -> the ``mova`` words it can run right after; neighbours in memory
    are assumed when some exploration stopped early (None)."""
    pairs: set[tuple[int, int]] = set()
    for result in results:
        if result is not None:
            pairs |= result.mova_pairs
    if any(result is None for result in results):
        pairs |= {(pc - 1, pc) for pc in range(1, len(decoded))
                  if decoded[pc].opcode is Opcode.MOVA and decoded[pc - 1].opcode is Opcode.MOVA}
    firsts: dict[int, set[int]] = {}
    for first, second in pairs:
        firsts.setdefault(second, set()).add(first)
    return firsts


# -- pica check only -----------------------------------------------------------------------

def _mapped(unit: Unit) -> int:
    bits = 0
    for out in unit.dvle.outputs:
        if 0 <= out.register < 16:
            bits |= (out.mask & 0xF) << 4 * out.register
    return bits


def path_checks(unit: Unit, ex: Exploration, decoded: list[Instruction],
                out_writes: list[int]) -> Iterator[Raw]:
    """Every path-based check of one entry point except the shared ones."""
    mapped = _mapped(unit)
    point = "emit" if unit.geometry else "end"
    for pc, bits in sorted(ex.unwritten.items()):
        if bits & mapped:
            yield Raw("PICA101", f"{component_names(bits & mapped, 'o')} mapped by the DVLE "
                      f"but not written on some path to this '{point}'", ("word", pc),
                      "the vertex gets what an earlier invocation left there")
    mapped_regs = unit.dvle.output_mask
    for pc in sorted(ex.reached):
        regs = {b // 4 for b in range(64) if out_writes[pc] >> b & 1}
        stray = sorted(r for r in regs if not mapped_regs >> r & 1)
        if stray:
            names = ", ".join(f"o{r}" for r in stray)
            yield Raw("PICA102", f"{names} written but not mapped by the output table of "
                      f"'{unit.name}'", ("dst", pc), "the value is discarded")
    for pc, bits in sorted(ex.tmp_unwritten_reads.items()):
        yield Raw("PICA201", f"{component_names(bits, 'r')} read before it is written on "
                  "some path", ("word", pc), "temporaries keep the previous invocation's value")
    for pc, bits in sorted(ex.misc_unwritten_reads.items()):
        names = ", ".join(name for bit, name in MISC_BITS.items() if bits & bit)
        check = "PICA202" if bits & _ADDRESS_BITS else "PICA203"
        yield Raw(check, f"{names} read before it is set on some path", ("word", pc))
    for pc, stacks in sorted(ex.overflows.items()):
        for name in sorted(stacks):
            yield Raw("PICA301", f"the {name} stack can overflow here: pushing onto it when "
                      "full drops its oldest entry", ("word", pc))
    for pc in sorted(ex.break_without_loop):
        yield Raw("PICA302", f"'{decoded[pc].mnemonic}' can execute outside any LOOP: the GPU "
                  "hangs", ("word", pc))
    for pc in sorted(ex.jump_overridden):
        yield Raw("PICA303", f"'{decoded[pc].mnemonic}' is the last instruction of a scope: "
                  "the stack pop after it wins and its jump is never taken", ("word", pc),
                  "put a 'nop' after it")
    for pc, kinds in sorted(ex.scopes_together.items()):
        for kind in sorted(kinds):
            yield Raw("PICA304", f"two {kind} scopes end on this instruction: the outer one "
                      "never sees its end", ("word", pc), "put a 'nop' between the ends")
    emits = [pc for pc in ex.reached if decoded[pc].info.geometry_only]
    if unit.geometry:
        for pc in sorted(ex.emit_without_setemit):
            yield Raw("PICA501", "'emit' can execute before any 'setemit' on some path",
                      ("word", pc))
        if not any(decoded[pc].info.emission is EmitEffect.EMIT for pc in emits):
            yield Raw("PICA502", f"geometry shader entry point '{unit.entry}' never executes "
                      "'emit'", ("entry", unit.index))
    else:
        for pc in sorted(emits):
            yield Raw("PICA503", f"'{decoded[pc].mnemonic}' in vertex shader '{unit.name}'",
                      ("word", pc), "declare a geometry shader with '.gsh'")

