"""The checks that follow execution paths (:mod:`.explore`): outputs, registers read
before written, stacks, jumps, ``end``, ``mova`` pairs, EMIT/SETEMIT.  The assembler's
linter (:mod:`..asm.lint`) uses the functions marked as shared, so ``pica asm`` warns with
the same analysis and words."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from ..encoding import Instruction
from ..isa import EmitEffect, Flow, SourceUse, Writes, mask_components
from .effects import MISC_BITS, Effect
from .explore import Exploration
from .model import Raw, Unit, component_list, component_names

_ADDRESS_BITS = 0b00111  # a0.x, a0.y, aL
_FLAG_BITS = 0b11000  # cmp.x, cmp.y
#: Multiplying a 4-bit lane set by this repeats it for each of the 16 registers.
_EVERY_REGISTER = 0x1111_1111_1111_1111


# -- shared with the assembler's linter ------------------------------------------------------

def entry_end(entry: str, ex: Exploration, decoded: list[Instruction],
              anchor_unit: int) -> Raw | None:
    """PICA305 (no path reaches ``end``) or PICA306 (some path leaves the entry without
    it)."""
    if not any(decoded[pc].info.flow is Flow.END for pc in ex.reached):
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
                  if Writes.ADDRESS in decoded[pc].info.writes
                  and Writes.ADDRESS in decoded[pc - 1].info.writes}
    firsts: dict[int, set[int]] = {}
    for first, second in pairs:
        firsts.setdefault(second, set()).add(first)
    return firsts


def mova_pair_notes(decoded: list[Instruction], results: list[Exploration | None],
                    apart: Callable[[int, int], str]) -> Iterator[tuple[int, str]]:
    """Each ``mova`` that can run right after another one, in address order, with a note
    naming the one before it: its neighbour in memory when it is one of them, else the
    first of them, which ``apart(first, second)`` words."""
    for second, candidates in sorted(mova_pairs(decoded, results).items()):
        first = second - 1 if second - 1 in candidates else min(candidates)
        if first == second - 1:
            note = "put another instruction between them"
        elif first == second:
            note = "a loop repeats it back to back: put another instruction in the loop"
        else:
            note = apart(first, second)
        yield second, note


# -- pica check only -----------------------------------------------------------------------

def _stale_temporaries(ex: Exploration, effects: list[Effect]) -> Iterator[Raw]:
    """PICA201, once per register: at its first read before a write whose value can
    reach an output, a condition flag or an address register, with its other such reads
    as related places.  A stale component whose value goes nowhere visible (the w of
    ``mul r5, half, r14`` when only r5.xyz is used) is not reported."""
    uses: dict[int, list[tuple[int, int]]] = {}
    for pc, bits in sorted(ex.tmp_unwritten_reads.items()):
        for register in range(16):
            read = bits & 0xF << 4 * register
            if read and _reaches_a_result(effects, ex.reached, read):
                uses.setdefault(register, []).append((pc, read))
    for reads in sorted(uses.values()):
        bits = 0
        for _, read in reads:
            bits |= read
        name = component_names(bits, "r")
        (first, _), others = reads[0], reads[1:]
        more = f"; read before it is written at {len(others)} more places" if others else ""
        yield Raw("PICA201", f"{name} read before it is written on some path", ("word", first),
                  f"temporaries keep the previous invocation's value{more}",
                  tuple((("word", pc), f"{component_names(read, 'r')} also read here "
                         "before it is written") for pc, read in others))


def _reaches_a_result(effects: list[Effect], reached: set[int], bits: int) -> bool:
    """Whether the stale temporary components ``bits`` can influence an output, a
    condition flag or an address register: their influence is followed through every
    reached instruction, in any order and without overwrites ending it (an
    over-approximation: when it says no, no path carries the value anywhere visible)."""
    tainted, changed = bits, True
    while changed:
        changed = False
        for pc in sorted(reached):
            e = effects[pc]
            lanes = _tainted_lanes(e, tainted)
            if not lanes:
                continue
            if e.out_writes or e.misc_writes:
                return True
            new = e.tmp_writes & lanes * _EVERY_REGISTER
            if new & ~tainted:
                tainted |= new
                changed = True
    return False


def _tainted_lanes(e: Effect, tainted: int) -> int:
    """The destination lanes (bit c = component c) whose value depends on a ``tainted``
    temporary component this instruction reads."""
    lanes = 0
    written = mask_components(e.dst_mask) if e.dst_mask else (0, 1)  # CMP: cmp.x, cmp.y
    for source in e.sources:
        if source.bank != "r":
            continue
        stale = {c for c in range(4) if tainted >> 4 * source.number + c & 1}
        if not stale & set(source.components):
            continue
        if e.ins.info.use is SourceUse.MASKED:
            lanes |= sum(1 << lane for lane in written if source.swizzle[lane] in stale)
        else:  # dot products, scalar ops, CMP, MOVA: every lane from every component read
            lanes |= sum(1 << lane for lane in written)
    return lanes



def _mapped(unit: Unit) -> int:
    bits = 0
    for out in unit.dvle.outputs:
        if 0 <= out.register < 16:
            bits |= (out.mask & 0xF) << 4 * out.register
    return bits


def path_checks(unit: Unit, ex: Exploration, decoded_effects: list[Effect]) -> Iterator[Raw]:
    """Every path-based check of one entry point except the shared ones."""
    decoded = [e.ins for e in decoded_effects]
    yield from _output_checks(unit, ex, decoded_effects)
    yield from _stale_temporaries(ex, decoded_effects)
    for pc, bits in sorted(ex.misc_unwritten_reads.items()):
        names = ", ".join(name for bit, name in MISC_BITS.items() if bits & bit)
        check = "PICA202" if bits & _ADDRESS_BITS else "PICA203"
        yield Raw(check, f"{names} read before it is set on some path", ("word", pc))
    yield from _stack_checks(ex, decoded)
    yield from _emission_checks(unit, ex, decoded)


def _output_checks(unit: Unit, ex: Exploration,
                   decoded_effects: list[Effect]) -> Iterator[Raw]:
    """Outputs mapped but not written on a path (PICA101), written but not mapped
    (PICA102)."""
    mapped = _mapped(unit)
    point = "emit" if unit.geometry else "end"
    for pc, bits in sorted(ex.unwritten.items()):
        if bits & mapped:
            yield Raw("PICA101", f"{component_names(bits & mapped, 'o')} mapped by the DVLE "
                      f"but not written on some path to this '{point}'", ("word", pc),
                      "the vertex gets what an earlier invocation left there")
    mapped_regs = unit.dvle.output_mask
    for pc in sorted(ex.reached):
        out_writes = decoded_effects[pc].out_writes
        regs = {b // 4 for b in range(64) if out_writes >> b & 1}
        stray = sorted(r for r in regs if not mapped_regs >> r & 1)
        if stray:
            names = ", ".join(f"o{r}" for r in stray)
            yield Raw("PICA102", f"{names} written but not mapped by the output table of "
                      f"'{unit.name}'", ("dst", pc), "the value is discarded")


def _stack_checks(ex: Exploration, decoded: list[Instruction]) -> Iterator[Raw]:
    """The flow stacks' pitfalls (PICA301 to PICA304)."""
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


def _emission_checks(unit: Unit, ex: Exploration, decoded: list[Instruction]) -> Iterator[Raw]:
    """SETEMIT/EMIT in the right kind of shader and order (PICA501 to PICA503)."""
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
