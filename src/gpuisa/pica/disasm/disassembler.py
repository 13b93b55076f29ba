"""The disassembler proper: a SHBIN's or a Program's code split into units, the
operand-descriptor table checked or pinned, and the text put together (the design:
:mod:`gpuisa.pica.disasm`).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise

from ..descriptors import DescriptorTable, care_mask
from ..encoding import Instruction, decode, decode_opdesc
from ..isa import MAX_OPDESCS, Arithmetic, Flow
from ..program import Program
from ..shbin import Dvle, ShaderType, Shbin
from .structure import Line, Structure, find_structures, is_flow_word, layout_lines
from .syntax import UnitNames, instruction_text, printable_descriptor_bits
from .tables import DvlePlan, SharedSpace, header_line, plan_dvle

_INDENT = "    "


def disassemble(source: Shbin | Program | bytes | bytearray, *, raw: bool = False) -> str:
    """Disassemble a SHBIN (object or bytes) or a bare Program into assembly text.

    With ``raw``, every code line also shows its address, instruction word and
    descriptor index in a trailing comment.
    """
    if isinstance(source, bytes | bytearray | memoryview):
        source = Shbin.from_bytes(bytes(source))
    if isinstance(source, Program):
        return _Disassembly(source, (), raw).text()
    return _Disassembly(source.program, tuple(source.entries), raw, source).text()


@dataclass(slots=True)
class _Unit:
    lo: int
    hi: int
    dvle: Dvle | None
    entry: str
    names: UnitNames
    plan: DvlePlan | None = None
    #: The entry range is no procedure of the text: `.dvle main=.. endmain=..` gives it.
    raw_entry: bool = False


class _Disassembly:
    def __init__(
        self, program: Program, dvles: tuple[Dvle, ...], raw: bool, shbin: Shbin | None = None
    ):
        self.program = program
        self.dvles = dvles
        #: The SHBIN's own fields (None for a bare Program).
        self.shbin = shbin
        self.raw_mode = raw
        self.code: list[Instruction] = [decode(w) for w in program.code]
        self.notes: list[str] = []
        self.units = self._units()
        self.raw: set[int] = set()
        for unit in self.units:
            for pos in range(unit.lo, unit.hi):
                ins = self.code[pos]
                if not is_flow_word(ins.opcode) and self._symbolic(pos, unit) is None:
                    self.raw.add(pos)
        self.pinned = not self._natural_descriptors()
        if self.pinned:
            self._pin_descriptors()
        entries = {}
        for unit in self.units:
            if unit.dvle is not None and self._entry_ok(unit.dvle):
                key = (unit.dvle.main_offset, unit.dvle.endmain_offset)
                # DVLEs sharing an entry procedure (a declarations-only file) share its name
                unit.entry = entries.setdefault(key, unit.entry)
            elif unit.dvle is not None:
                unit.raw_entry = True
        if not self.dvles and self.code:
            entries[(0, len(self.code))] = "main"
        self.entry_names = entries
        self.structures: list[Structure] = find_structures(
            self.code, [(u.lo, u.hi) for u in self.units], entries, self.raw
        )
        printed = {
            (b.start, b.end) for s in self.structures for b in s.blocks if b.kind == "proc"
        }
        for unit in self.units:
            dvle = unit.dvle
            if dvle is not None and (dvle.main_offset, dvle.endmain_offset) not in printed:
                unit.raw_entry = True  # e.g. an entry range that straddles two units

    # -- units -------------------------------------------------------------------------

    def _units(self) -> list[_Unit]:
        n = len(self.code)
        if not self.dvles:
            return [_Unit(0, n, None, "main", UnitNames())]
        starts = self._unit_starts()
        ends = [*starts[1:], n]
        units = []
        shared = SharedSpace()
        for k, dvle in enumerate(self.dvles):
            entry = "main" if k == 0 else f"main{k}"
            plan = plan_dvle(dvle, shared)
            units.append(_Unit(starts[k], ends[k], dvle, entry, plan.names, plan))
        return units

    def _unit_starts(self) -> list[int]:
        """Where each DVLE's own code begins.

        picasso lays the files out in order, so each DVLE's entry point and the procedures
        only it calls come after everything earlier DVLEs reach.  Code that nothing
        reaches, between the two, goes to the later unit when that one is a geometry
        shader (a ``setemit`` in a vertex unit would turn it into a geometry shader) and
        to the earlier one otherwise.  Layouts that do not fit this put all code in the
        first unit.
        """
        reached: set[tuple[int, int]] = set()
        starts = [0]
        for k, dvle in enumerate(self.dvles):
            own = self._reachable(dvle) - reached
            if k:
                earliest = max((end for _, end in reached), default=0)
                latest = min((start for start, _ in own), default=dvle.main_offset)
                geometry = dvle.shader_type is ShaderType.GEOMETRY
                later_gets_gap = geometry and self.dvles[k - 1].shader_type is ShaderType.VERTEX
                starts.append(earliest if later_gets_gap and earliest <= latest else latest)
            reached |= own
        if any(b <= a for a, b in pairwise(starts)) or starts[-1] > len(self.code):
            return [0] + [len(self.code)] * (len(self.dvles) - 1)
        return starts

    def _reachable(self, dvle: Dvle) -> set[tuple[int, int]]:
        """(start, end) of the entry procedure and of every procedure it calls."""
        todo = [(dvle.main_offset, dvle.endmain_offset)]
        seen: set[tuple[int, int]] = set()
        while todo:
            start, end = todo.pop()
            if (start, end) in seen or not 0 <= start < end <= len(self.code):
                continue
            seen.add((start, end))
            for ins in self.code[start:end]:
                if ins.info.flow is Flow.CALL:
                    todo.append((ins["dst"], ins["dst"] + ins["num"]))
        return seen

    def _entry_ok(self, dvle: Dvle) -> bool:
        return 0 <= dvle.main_offset < dvle.endmain_offset <= len(self.code)

    # -- operand descriptors ------------------------------------------------------------

    def _symbolic(self, pos: int, unit: _Unit) -> str | None:
        return instruction_text(self.code[pos], self.program.opdescs, unit.names)

    def _descriptor_users(self):
        """(position, value the assembler builds, care mask) of each printed instruction
        that allocates a descriptor, in code order."""
        table = self.program.opdescs
        for pos, ins in enumerate(self.code):
            if pos in self.raw or not ins.info.has_descriptor:
                continue
            value = table[ins["desc"]]
            yield (
                pos,
                value & printable_descriptor_bits(ins),
                care_mask(ins.info, decode_opdesc(value).mask),
            )

    def _natural_descriptors(self) -> bool:
        """Whether picasso's allocator, fed the printed instructions, rebuilds the file's
        exact descriptor table and indices (pica-assembly.md#opdesc-allocation)."""
        table = DescriptorTable()
        assigned: dict[int, int] = {}
        try:
            for pos, value, mask in self._descriptor_users():
                if self.code[pos].info.arithmetic is Arithmetic.MAD:
                    k, swapped = table.allocate_mad(value, mask)
                    if swapped is not None:
                        for other, index in assigned.items():
                            if self.code[other].info.arithmetic is not Arithmetic.MAD:
                                assigned[other] = {k: swapped, swapped: k}.get(index, index)
                else:
                    k = table.allocate(value, mask)
                assigned[pos] = k
        except Exception:  # the allocator's own limits: the natural text cannot work
            return False
        return table.values == list(self.program.opdescs) and all(
            self.code[pos]["desc"] == k for pos, k in assigned.items()
        )

    def _pin_descriptors(self) -> None:
        table = DescriptorTable()
        for value in self.program.opdescs[:MAX_OPDESCS]:
            table.pin(value)
        for pos, value, mask in list(self._descriptor_users()):
            if table.find(value, mask) != self.code[pos]["desc"]:
                self.raw.add(pos)

    # -- text ---------------------------------------------------------------------------

    def text(self) -> str:
        out = [self._banner()]
        if self.shbin is not None and self.shbin.warnings:
            # The reader accepted values no SHBIN writer (gpuisa's or picasso's) produces:
            # the text shows them, but assembles to a file without them.
            out += [f"; reader warning: {w}" for w in self.shbin.warnings]
            out.append("; this file holds values the assembler cannot write: the text below "
                       "does not reassemble to the identical file")
        out += self._container_lines()
        for k, (unit, structure) in enumerate(zip(self.units, self.structures, strict=True)):
            if k:
                out += ["", f".unit dvle{k}"]
            code = self._code(unit, structure)
            out += self._declarations(unit, k, bool(code))
            out += code
        for note in self.notes:
            out.append(f"; warning: {note}")
        return "\n".join(out).rstrip("\n") + "\n"

    def _banner(self) -> str:
        return (
            f"; gpuisa disassembly: {len(self.code)} instruction words, "
            f"{len(self.program.opdescs)} operand descriptors, {len(self.dvles)} DVLE(s)"
        )

    def _container_lines(self) -> list[str]:
        """``.dvlp``, the pinned descriptor table and the descriptors' second words."""
        out = []
        if self.shbin is not None:
            items = []
            if self.shbin.dvlp_version:
                items.append(f"version=0x{self.shbin.dvlp_version:X}")
            if not self.dvles:
                items.append("dvles=0")
            if items:
                out.append(".dvlp " + " ".join(items))
        if self.pinned:
            out.append("; pinned descriptor table: picasso's allocator would not rebuild it")
            words = self.program.opdescs
            for i in range(0, len(words), 6):
                out.append(".opdesc " + ", ".join(f"0x{w:08X}" for w in words[i : i + 6]))
        high = self.shbin.opdesc_high if self.shbin is not None else ()
        if any(high):
            out.append("; second words of the operand descriptors (Nintendo's toolchain)")
            for i in range(0, len(high), 6):
                out.append(".opdeschigh " + ", ".join(f"0x{w:08X}" for w in high[i : i + 6]))
        if out:
            out.append("")
        return out

    def _declarations(self, unit: _Unit, k: int, has_code: bool) -> list[str]:
        dvle = unit.dvle
        if dvle is None:
            return ["", ".nodvle"] if self.shbin is not None else [""]
        kind = "geometry" if dvle.shader_type is ShaderType.GEOMETRY else "vertex"
        out = [
            "",
            f"; DVLE {k}: {kind} shader, entry "
            f"0x{dvle.main_offset:03X}-0x{dvle.endmain_offset:03X}",
        ]
        header = header_line(dvle, unit.plan.derived, unit.raw_entry)
        if header is not None:
            out.append(header)
        out += unit.plan.lines
        if not unit.raw_entry and (unit.entry != "main" or (len(out) == 2 and not has_code)):
            out.append(f".entry {unit.entry}")  # also what creates an otherwise empty DVLE
        return out

    def _code(self, unit: _Unit, structure: Structure) -> list[str]:
        lines = layout_lines(
            self.code, unit.lo, unit.hi, structure, lambda p: self._render(p, unit)
        )
        out = []
        for line in lines:
            if line.depth == 0 and line.text.startswith(".proc"):
                out.append("")
            out.append(self._line_text(line))
        return out

    def _render(self, pos: int, unit: _Unit) -> str:
        ins = self.code[pos]
        if pos not in self.raw:
            text = self._symbolic(pos, unit)
            if text is not None:
                return text
        return f".word 0x{self.program.code[pos]:08X}  ; {_describe(ins)}"

    def _line_text(self, line: Line) -> str:
        text = _INDENT * line.depth + line.text if not line.text.endswith(":") else line.text
        if not self.raw_mode or line.pos is None:
            return text
        word = self.program.code[line.pos]
        ins = self.code[line.pos]
        desc = f" d{ins['desc']}" if ins.get("desc") is not None else ""
        note = " padding NOP" if line.padding else ""
        comment = f"[{line.pos:03X}] {word:08X}{desc}{note}"
        if ";" in text:
            return f"{text}  {comment}"
        return f"{text:<40} ; {comment}"


def _describe(ins: Instruction) -> str:
    """A lossless description of a word printed raw."""
    parts = [ins.mnemonic or f"unknown opcode 0x{ins.opcode:02X}"]
    parts += [f"{k}=0x{v:X}" for k, v in ins.fields]
    if ins.extra:
        parts.append(f"unused-bits=0x{ins.extra:X}")
    return " ".join(parts)
