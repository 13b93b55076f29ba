"""Checks that need no path exploration: uniforms and their declarations, per-instruction
quirks, hardware limits and DVLE tables.  ``reached`` is the set of words an entry point
can execute (all of its procedure when the exploration stopped early)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from ..analysis.effects import Effect, input_registers
from ..analysis.model import Raw, Unit
from ..encoding import decode_opdesc
from ..isa import (
    MAX_CODE_WORDS,
    MAX_OPDESCS,
    MAX_VERTEX_CODE_WORDS,
    NUM_GEOMETRY_OUTPUTS,
    NUM_INT_UNIFORMS,
    Flow,
    Kind,
    Result,
    SourceUse,
    mask_components,
    selector_components,
)
from ..shbin import ConstantKind, GeometryMode, OutputSemantic

#: picasso's per-DVLE table limits (pica-assembly.md#directives, pica-assembly.md#uniform-table).
_MAX_TABLE = {"uniforms": 96, "constants": 96, "outputs": 16}
#: b15 of a geometry shader is set by the hardware after every run (pica-emulation.md#gs-input).
_GS_HARDWARE_BOOL = 15
_KIND_BANK = {ConstantKind.FLOAT: "c", ConstantKind.INT: "i", ConstantKind.BOOL: "b"}


def _names(unit: Unit) -> dict[tuple[str, int], str]:
    """(bank, register) -> uniform name, for every register of the uniform table."""
    names = {}
    for u in unit.dvle.uniforms:
        if u.bank is not None:
            for k in range(u.count):
                names[(u.bank, u.register + k)] = u.name
    return names


def _constants(unit: Unit) -> set[tuple[str, int]]:
    return {(_KIND_BANK[c.kind], c.register) for c in unit.dvle.constants}


def uniform_checks(unit: Unit, reached: Iterable[int], effects: list[Effect],
                   units: list[Unit]) -> Iterator[Raw]:
    """PICA211-214 and PICA504 for one entry point."""
    declared = _names(unit)
    known = set(declared) | _constants(unit)
    others = [(u, _names(u)) for u in units if u.index != unit.index]
    vertex_data_below = 0
    mode = unit.dvle.geometry_mode
    if unit.geometry and mode is not GeometryMode.POINT:
        # variable/fixed mode: the vertices arrive in the float uniforms below this
        # shader's own uniforms and constants (pica-emulation.md#gs-input)
        floats = [r for bank, r in known if bank == "c"]
        vertex_data_below = min(floats) if floats else 96
    for pc in sorted(reached):
        e = effects[pc]
        wanted: list[tuple[str, int, str]] = []
        for s in e.sources:
            if s.bank == "c" and s.number >= vertex_data_below:
                what = "the base of a relative access" if s.index else "read"
                wanted.append(("c", s.number, what))
        if e.ins.info.flow is Flow.LOOP:
            wanted.append(("i", e.ins["id"] % NUM_INT_UNIFORMS, "used by 'loop'"))
        elif e.ins.info.reads_bool and not (unit.geometry and e.ins["id"] == _GS_HARDWARE_BOOL):
            wanted.append(("b", e.ins["id"], f"tested by '{e.ins.mnemonic}'"))
        for bank, reg, what in wanted:
            if (bank, reg) in known:
                continue
            elsewhere = [(u, names[(bank, reg)]) for u, names in others if (bank, reg) in names]
            if elsewhere:
                u, name = elsewhere[0]
                yield Raw("PICA214", f"{bank}{reg} ('{name}') is {what} here but declared only "
                          f"in '{u.name}', not in '{unit.name}'", ("word", pc),
                          f"declare '{name}' where entry point '{unit.entry}' can see it")
                continue
            check = {"c": "PICA211", "i": "PICA212", "b": "PICA213"}[bank]
            yield Raw(check, f"{bank}{reg} is {what} but neither declared as a uniform nor "
                      f"set by a constant of '{unit.name}'", ("word", pc))
        if vertex_data_below and input_registers(e):
            regs = ", ".join(f"v{r}" for r in sorted(input_registers(e)))
            yield Raw("PICA504", f"{regs} read by a {mode.name.lower()}-mode geometry shader, "
                      "which possibly receives its vertices in float uniforms only",
                      ("word", pc))


def instruction_checks(effects: list[Effect], reached: set[int],
                       written: dict[int, int] | None) -> Iterator[Raw]:
    """PICA401 (sources only: ``written`` descriptors), PICA402, PICA404 (every word) and
    PICA405 (reachable words)."""
    for pc, e in enumerate(effects):
        op = e.ins.opcode
        if e.ins.info.use is SourceUse.SCALAR and e.sources:
            src = e.sources[0]
            lanes = mask_components(e.dst_mask)
            reg = f"{src.bank}{src.number}"
            as_written = None if written is None or pc not in written else \
                selector_components(decode_opdesc(written[pc]).selectors[0])
            first = (as_written or src.swizzle)[0]
            ignored = [lane for lane in lanes if as_written and as_written[lane] != first]
            if ignored and not _one_value(effects, pc, src.bank, src.number,
                                          {as_written[lane] for lane in lanes}):
                meant = "".join("xyzw"[as_written[lane]] for lane in ignored)
                where = "".join("xyzw"[lane] for lane in ignored)
                yield Raw("PICA401", f"'{e.ins.mnemonic}' reads only {reg}.{'xyzw'[first]}; the "
                          f"swizzle's '{meant}' for destination '{where}' is ignored", ("word", pc),
                          f"write '{reg}.{'xyzw'[first]}' to say so, or select the component "
                          "you meant first")
            if len(lanes) > 1:
                yield Raw("PICA402", f"'{e.ins.mnemonic}' writes its single result to "
                          f"{len(lanes)} components", ("dst", pc))
        inputs = input_registers(e)
        if len(inputs) > 1:
            regs = ", ".join(f"v{r}" for r in sorted(inputs))
            yield Raw("PICA404", f"one instruction reads two different input registers "
                      f"({regs})", ("word", pc))
        if pc in reached and e.ins.info.kind is Kind.UNKNOWN:
            yield Raw("PICA405", f"opcode 0x{int(op):02X} has no known function",
                      ("word", pc))


def _one_value(effects: list[Effect], pc: int, bank: str, number: int,
               components: set[int]) -> bool:
    """Whether ``components`` of register ``bank number`` all hold one value at ``pc``:
    the last instruction before it in straight-line code that writes the register wrote
    them all with one result (a dot product or a scalar op: ``dp3 r2, r2, r2`` then
    ``rsq r2, r2``, devkitPro's normalisation idiom).  A flow-control or ``end`` word on
    the way back, where other paths may join, gives no answer (False)."""
    if bank != "r":
        return False
    wanted = sum(1 << (4 * number + c) for c in components)
    for k in range(pc - 1, -1, -1):
        e = effects[k]
        if e.ins.info.kind in (Kind.FLOW, Kind.CONTROL, Kind.UNKNOWN):
            return False
        if e.tmp_writes >> 4 * number & 0xF:
            return e.ins.info.result is Result.SCALAR and e.tmp_writes & wanted == wanted
    return False


def limit_checks(code_words: int, opdescs: int, units: list[Unit]) -> Iterator[Raw]:
    """PICA601-604."""
    if code_words > MAX_CODE_WORDS:
        yield Raw("PICA601", f"the program has {code_words} words; program memory holds "
                  f"{MAX_CODE_WORDS}", ("program", 0))
    elif code_words > MAX_VERTEX_CODE_WORDS and any(not u.geometry for u in units):
        yield Raw("PICA601", f"the program has {code_words} words; a vertex shader holds at "
                  f"most {MAX_VERTEX_CODE_WORDS}", ("program", 0))
    if opdescs > MAX_OPDESCS:
        yield Raw("PICA602", f"the program has {opdescs} operand descriptors; the hardware "
                  f"holds {MAX_OPDESCS}", ("program", 0))
    for unit in units:
        for table, limit in _MAX_TABLE.items():
            count = len(getattr(unit.dvle, table))
            if count > limit:
                yield Raw("PICA603", f"'{unit.name}' has {count} {table} (at most {limit})",
                          ("dvle", unit.index))
        if unit.geometry:
            for out in unit.dvle.outputs:
                if out.register >= NUM_GEOMETRY_OUTPUTS and out.semantic != OutputSemantic.DUMMY:
                    yield Raw("PICA603", f"geometry shader '{unit.name}' maps o{out.register}; "
                              f"only o0-o{NUM_GEOMETRY_OUTPUTS - 1} leave a geometry shader",
                              ("dvle", unit.index))
        if not unit.dvle.constants:
            yield Raw("PICA604", f"'{unit.name}' has no constant table: libctru releases "
                      "before December 2023 leave the float-uniform count uninitialised",
                      ("dvle", unit.index),
                      "add a '.constf' (any value) if you build with such a libctru")
