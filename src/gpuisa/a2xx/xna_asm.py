"""Assembler for Xenia's A2XX listing, the text of its shader dumps (a2xx-isa.md#xenia-asm).

:func:`assemble_xenia` reads what ``disassemble(words, type, style="xenia")`` (or
``"xenia-canary"``) prints, and so Xenia's own ``shader_<HASH>.ucode.vert`` files.  The
listing names every slot (``/*   12   */``) and CF clause (``/*    3.1 */``), so EXEC
addresses, counts and sequence bits come from the instructions that follow each exec.
Xenia's text shows more of the microcode than Mesa's (full constant numbers, relative
addressing, the unused scalar slot, vertex-fetch prefetch counts and mini fetches,
texture dimensions); the few bits it never shows take the values listed under
a2xx-isa.md#xenia-asm, and :attr:`XeniaAssembly.guesses` says where one was needed.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from ..bits import Layout
from ..errors import Diagnostic, InputError, SourceError, SourceLocation
from . import isa
from .encoding import join_cf_slot, slot_to_dwords
from .isa import CfKind, CfOpcode, FetchDimension, ScalarOperands
from .xna_options import TextError as _Error
from .xna_options import texture_options, vertex_options

_MARKER = re.compile(r"/\*\s*(\d+)(?:\.([01]))?\s*\*/")
_LABEL = re.compile(r"^[ \t]*label L\d+[ \t]*$", re.MULTILINE)
_PRED = re.compile(r"^(\(p0\)|\(!p0\))\s*")
_SWZ = "xyzw"
_DIMENSIONS = {"1D": FetchDimension.D1, "2D": FetchDimension.D2, "3D": FetchDimension.D3,
               "Cube": FetchDimension.CUBE}
_EXPORTS_VS = {"oPos": isa.EXPORT_POSITION, "oPts": isa.EXPORT_POINT_SIZE}
_EXPORTS_PS = {"oDepth": isa.EXPORT_DEPTH}
_OPERAND = re.compile(
    r"(?P<neg>-)?(?P<bank>[rc])(?P<abs>_abs)?"
    r"(?:(?P<num>\d+)|\[(?P<inum>\d+)(?:\+(?P<rel>a0|aL))?\])(?:\.(?P<swz>[xyzw]{1,4}))?$"
)
_DEST = re.compile(r"(?P<name>r(?:\d+|\[\d+\+aL\])|[a-zA-Z]+\d*)(?:\.(?P<mask>[xyzw01_]{4}|_))?$")
_VECTOR_NAMES = {info.xna: op for op, info in isa.VECTOR_OPS.items()}
_SCALAR_NAMES: dict[str, list[isa.ScalarOpcode]] = {}
for _op, _info in isa.SCALAR_OPS.items():
    _SCALAR_NAMES.setdefault(_info.xna, []).append(_op)
_FETCH_NAMES = {info.xna: op for op, info in isa.FETCH_OPS.items() if info.xna}
_MAX_EXEC_COUNT = isa.CF_LAYOUTS[CfKind.EXEC]["count"].max


@dataclass(frozen=True, slots=True)
class XeniaAssembly:
    """The dwords of a Xenia listing, and the bits the text did not show that were filled
    with gpuisa's convention (one line each: where, which field, the value taken)."""

    words: tuple[int, ...]
    guesses: tuple[str, ...]


@dataclass(slots=True)
class _Segment:
    slot: int
    clause: int | None  # 0 or 1 for a CF clause, None for an instruction slot
    body: str
    line: int


class _Values(dict[str, int]):
    """Field values of one slot; a field set twice to different values is an error."""

    def set(self, name: str, value: int) -> None:
        if self.get(name, value) != value:
            raise _Error(f"the text gives {name} two different values")
        self[name] = value


def assemble_xenia(
    text: str, *, canary: bool | None = None, filename: str = "<input>"
) -> XeniaAssembly:
    """Assemble Xenia's listing: upstream Xenia's text (``canary=False``), xenia-canary's
    (``True``) or either (``None``).  The two show a two-operand scalar operation's
    second operand from different swizzle lanes beside a three-source vector operation
    (a2xx-isa.md#xenia-flavours); there the vector operand shows the whole swizzle, so
    the words are the same and ``None`` accepts the lane of either."""
    if not isinstance(text, str):
        raise InputError(f"assemble_xenia() takes text (str), not {type(text).__name__}")
    return _XeniaAssembler(text, filename, canary).run()


def looks_like_xenia_listing(text: str) -> bool:
    """Does ``text`` have the markers of Xenia's listing (``/*    0.0 */`` before a CF
    clause, ``/*    3   */`` before an instruction) at the start of a line?"""
    return re.search(r"^\s*" + _MARKER.pattern, text, re.MULTILINE) is not None


class _XeniaAssembler:
    def __init__(self, text: str, filename: str, canary: bool | None):
        self.text = text
        self.filename = filename
        self.canary = canary
        self.clauses: list[int] = []
        self.slots: dict[int, int] = {}
        self.guesses: dict[str, int] = {}
        self.empty_execs: list[int] = []  # clause indices of execs without instructions

    # -- structure ----------------------------------------------------------------------

    def segments(self) -> list[_Segment]:
        text = self.text
        found = list(_MARKER.finditer(text))
        if not found:
            raise self.error("no /* slot.clause */ markers: not Xenia's listing", 1)
        result = []
        for i, m in enumerate(found):
            end = found[i + 1].start() if i + 1 < len(found) else len(text)
            body = _LABEL.sub("", text[m.end() : end])
            body = re.sub(r"//[^\n]*PredicateClean=false", " PREDICATE_DIRTY", body)
            line = text.count("\n", 0, m.start()) + 1
            clause = None if m.group(2) is None else int(m.group(2))
            result.append(_Segment(int(m.group(1)), clause, body.strip(), line))
        return result

    def run(self) -> XeniaAssembly:
        segments = self.segments()
        index = 0
        while index < len(segments):
            seg = segments[index]
            if seg.clause is None:
                raise self.error("an instruction slot outside an exec", seg.line)
            if seg.slot != len(self.clauses) // 2 or seg.clause != len(self.clauses) % 2:
                raise self.error(
                    f"CF clause {seg.slot}.{seg.clause} is out of order (expected "
                    f"{len(self.clauses) // 2}.{len(self.clauses) % 2})",
                    seg.line,
                )
            index += 1
            body = []
            while index < len(segments) and segments[index].clause is None:
                body.append(segments[index])
                index += 1
            self.clauses.append(self.guarded(seg, lambda s=seg, b=body: self.cf(s, b)))
        if len(self.clauses) % 2:
            self.clauses.append(0)  # the second clause of the last CF slot: NOP
        cf_slots = len(self.clauses) // 2
        for index in self.empty_execs:
            # Its address is not shown; the end of the CF program keeps the program's
            # length (the least EXEC address) what it was.
            self.clauses[index] |= cf_slots
            self.guess("an exec without instructions: ADDR = the end of the CF program")
        words: list[int] = []
        for slot in range(max([cf_slots - 1, *self.slots]) + 1):
            if slot < cf_slots:
                value = join_cf_slot(self.clauses[2 * slot], self.clauses[2 * slot + 1])
            else:
                value = self.slots.get(slot, 0)
            words.extend(slot_to_dwords(value))
        guesses = tuple(
            what + (f" ({n} times)" if n > 1 else "") for what, n in self.guesses.items()
        )
        return XeniaAssembly(tuple(words), guesses)

    def guarded(self, seg: _Segment, action: Callable[[], int]) -> int:
        try:
            return action()
        except _Error as exc:
            raise self.error(exc.message, seg.line) from None

    def error(self, message: str, line: int) -> SourceError:
        lines = self.text.splitlines()
        source = lines[line - 1] if 0 < line <= len(lines) else None
        loc = SourceLocation(self.filename, line, 1)
        return SourceError([Diagnostic("error", message, loc, source)])

    def guess(self, what: str) -> None:
        """Count a bit the text did not show, filled by gpuisa's convention."""
        self.guesses[what] = self.guesses.get(what, 0) + 1

    # -- CF -----------------------------------------------------------------------------

    def cf(self, seg: _Segment, body: list[_Segment]) -> int:
        text = seg.body
        if not text:
            return CfOpcode.MARK_VS_FETCH_DONE << 44  # Xenia prints nothing for it
        if text == "cnop":
            return 0
        if text.startswith("alloc"):
            return self.alloc(text[5:].strip())
        pred, rest = _predicate(text)
        m = re.fullmatch(
            r"(?P<c>c?)(?P<name>exece?)(?:\s+(?P<neg>!?)b(?P<bool>\d+))?(?P<yield>,?\s*Yield=true)?"
            r"(?P<dirty>\s*PREDICATE_DIRTY)?",
            rest,
        )
        if m is not None:
            return self.exec_clause(pred, m, body)
        if body:
            raise _Error("instructions follow a CF clause that is not an exec")
        return _loop_or_jump(pred, rest)

    def alloc(self, what: str) -> int:
        values = {"buffer_select": isa.AllocBuffer.NO_ALLOC, "size": 0}
        if what == "position":
            values["buffer_select"] = isa.AllocBuffer.POSITION
        elif what in ("interpolators", "colors"):
            values["buffer_select"] = isa.AllocBuffer.PARAM_PIXEL
        elif m := re.fullmatch(r"export = (\d+)", what):
            values.update(buffer_select=isa.AllocBuffer.MEMORY, size=int(m[1]))
        elif what:
            raise _Error(f"unknown alloc {what!r}")
        values["opcode"] = CfOpcode.ALLOC
        return _pack(isa.CF_LAYOUTS[CfKind.ALLOC], values)

    def exec_clause(self, pred: bool | None, m: re.Match[str], body: list[_Segment]) -> int:
        ends = m["name"] == "exece"
        dirty = bool(m["dirty"])
        if m["c"]:
            if m["bool"] is None:
                raise _Error("cexec needs a bool constant")
            condition = isa.ExecCondition.BOOL
            clean: bool | None = not dirty
        else:
            condition = isa.ExecCondition.NONE if pred is None else isa.ExecCondition.PREDICATE
            clean = None
        opcode = next(
            (
                info.opcode
                for info in isa.CF_OPS.values()
                if info.is_exec and info.ends == ends and info.condition is condition
                and info.predicate_clean in (clean, None)
            ),
            None,
        )
        if opcode is None:
            raise _Error("no exec clause has this form")
        values = {"opcode": int(opcode), "count": len(body), "is_yield": int(bool(m["yield"]))}
        if condition is isa.ExecCondition.BOOL:
            values.update(bool_addr=int(m["bool"]), condition=int(not m["neg"]))
        else:
            values["condition"] = int(bool(pred))
        if len(body) > _MAX_EXEC_COUNT:
            raise _Error(f"an exec runs at most {_MAX_EXEC_COUNT} instructions, not {len(body)}")
        sequence = 0
        for i, seg in enumerate(body):
            if seg.slot != body[0].slot + i:
                raise self.error(f"slot {seg.slot} does not follow slot {seg.slot - 1}", seg.line)
            is_fetch, serialized, value = self.guarded_slot(seg)
            sequence |= (is_fetch | serialized << 1) << (2 * i)
            self.slots[seg.slot] = value
        values["serialize"] = sequence
        address = body[0].slot if body else 0
        if not body:
            self.empty_execs.append(len(self.clauses))
        clause = _pack(isa.CF_LAYOUTS[CfKind.EXEC], values)
        if condition is not isa.ExecCondition.BOOL and not dirty:
            clause |= 1 << isa.XENIA_PREDICATE_CLEAN_BIT
        return clause | _address(address, CfKind.EXEC)

    def guarded_slot(self, seg: _Segment) -> tuple[int, int, int]:
        try:
            return self.slot(seg)
        except _Error as exc:
            raise self.error(exc.message, seg.line) from None

    # -- instruction slots --------------------------------------------------------------

    def slot(self, seg: _Segment) -> tuple[int, int, int]:
        text = seg.body
        serialized = 0
        if text.startswith("serialize"):
            serialized, text = 1, text[len("serialize") :].strip()
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        if not lines:
            raise _Error("an empty instruction slot")
        pred, first = _predicate(lines[0])
        if not first.split():
            raise _Error("a predicate without an instruction")
        mnemonic = first.split(None, 1)[0]
        if mnemonic.startswith("vfetch"):
            return 1, serialized, self.vertex_fetch(pred, first)
        stem = re.sub(r"(1D|2D|3D|Cube)$", "", mnemonic)
        if stem in _FETCH_NAMES:
            return 1, serialized, self.texture_fetch(pred, first, stem, mnemonic[len(stem) :])
        return 0, serialized, self.alu(lines)

    def alu(self, lines: list[str]) -> int:
        v = _Values()
        vector_line = scalar_line = None
        if lines[0].startswith("+"):
            raise _Error("a scalar line (+) without a vector line")
        if len(lines) == 2:
            if not lines[1].startswith("+"):
                raise _Error("the second line of an ALU slot must start with '+'")
            vector_line, scalar_line = lines[0], lines[1][1:].strip()
        elif len(lines) == 1:
            pred, rest = _predicate(lines[0])
            name = rest.split(None, 1)[0].removesuffix("_sat")
            if rest == "nop":
                scalar_line = None
            elif name in _SCALAR_NAMES and name not in _VECTOR_NAMES:
                scalar_line = lines[0]
            else:
                vector_line = lines[0]
        else:
            raise _Error("an ALU slot has at most two lines")
        pred = _predicate(lines[0])[0]
        if pred is not None:
            v.update(pred_select=1, pred_condition=int(pred))
        vector_dest = self.vector(v, vector_line)
        self.scalar(v, scalar_line, vector_dest)
        return _pack(isa.ALU_LAYOUT, v)

    def vector(self, v: _Values, line: str | None) -> tuple[str, str] | None:
        if line is None:
            # The default vector nop: MAXv r0._, r0, r0.
            v.update(vector_opc=isa.VectorOpcode.MAXv, src1_sel=1, src2_sel=1)
            return None
        name, sat, operands = _split(_predicate(line)[1])
        if name.startswith("opcode_"):
            opcode = int(name[7:])
        elif name in _VECTOR_NAMES:
            opcode = _VECTOR_NAMES[name]
        else:
            raise _Error(f"unknown vector operation {name!r}")
        srcs = _vector_srcs(opcode)
        if len(operands) != srcs + 1:
            raise _Error(f"{name} takes {srcs} source operands, not {len(operands) - 1}")
        v.update(vector_opc=opcode, vector_clamp=int(sat))
        for i, text in enumerate(operands[1:], start=1):
            self.source(v, i, text, 4)
        if srcs == 1:
            # A one-source operation's src2 repeats src1 (as the assembler of Mesa's
            # text does: a2xx-isa.md#xenia-asm).
            for suffix in ("reg", "sel", "swiz", "reg_negate"):
                v.set(f"src2_{suffix}", v.get(f"src1_{suffix}", 0))
            self.guess("one-source vector operation: src2 repeats src1")
        return operands[0], name

    def scalar(self, v: _Values, line: str | None, vector: tuple[str, str] | None) -> None:
        vector_dest = vector[0] if vector else None
        vsrcs = _vector_srcs(v["vector_opc"])
        if line is None:
            v.update(scalar_opc=isa.ScalarOpcode.RETAIN_PREV)
            self.destinations(v, vector_dest, None)
            if vsrcs < 3:
                self.unused_src3(v)
            return
        name, sat, operands = _split(_predicate(line)[1])
        if name.startswith("opcode_"):
            candidates = [int(name[7:])]
        elif name in _SCALAR_NAMES:
            candidates = [int(op) for op in _SCALAR_NAMES[name]]
        else:
            raise _Error(f"unknown scalar operation {name!r}")
        info = isa.SCALAR_OPS.get(candidates[0])  # type: ignore[call-overload]
        kind = info.operands if info else ScalarOperands.NONE
        v["scalar_clamp"] = int(sat)
        if not operands:
            raise _Error(f"{name} needs a destination")
        self.destinations(v, vector_dest, operands[0])
        src = operands[1:]
        if kind is ScalarOperands.CONST_REG:
            self.const_reg(v, name, candidates, src)
            return
        v["scalar_opc"] = candidates[0]
        wanted = 0 if kind is ScalarOperands.NONE else 1
        if len(src) != wanted:
            raise _Error(f"{name} takes {wanted} source operand(s), not {len(src)}")
        if kind is ScalarOperands.NONE:
            if vsrcs < 3:
                self.unused_src3(v)
            return
        components = 2 if kind is ScalarOperands.AB else 1
        if vsrcs < 3:
            self.guess("scalar operand: swizzle lanes the text does not show keep the identity")
        lanes = (0, 2) if self.canary is None else (2,) if self.canary else (0,)
        self.source(v, 3, src[0], components, second_lanes=lanes if vsrcs == 3 else (0,))

    def unused_src3(self, v: _Values) -> None:
        v.setdefault("src3_sel", 1)
        self.guess("source 3 unused: r0 with the identity swizzle")

    def const_reg(
        self, v: _Values, name: str, candidates: list[int], src: list[str]
    ) -> None:
        """mulsc/addsc/subsc: a constant (lane 3) and a temporary register whose number
        is the opcode's bit 0, src3_sel and swizzle bits 2-5 (a2xx-isa.md#scalar-ops)."""
        if len(src) != 2:
            raise _Error(f"{name} takes a constant and a register")
        const, temp = _OPERAND.fullmatch(src[0]), _OPERAND.fullmatch(src[1])
        if const is None or const["bank"] != "c" or not const["swz"] or len(const["swz"]) != 1:
            raise _Error(f"{src[0]!r} is not a constant with one component")
        if temp is None or temp["bank"] != "r" or temp["rel"] or len(temp["swz"] or "") != 1:
            raise _Error(f"{src[1]!r} is not a temporary register with one component")
        number = int(temp["num"] if temp["num"] is not None else temp["inum"])
        opcode = next((op for op in candidates if op & 1 == number & 1), None)
        if opcode is None or number > 0x3F:
            raise _Error(f"{name} cannot read r{number}")
        v["scalar_opc"] = opcode
        self.constant(v, 3, const)
        v.set("src3_reg", int(const["num"] if const["num"] is not None else const["inum"]))
        v.set("src3_reg_negate", int(bool(const["neg"])))
        v.set("src3_sel", (number >> 1) & 1)
        a, b = _SWZ.index(const["swz"]), _SWZ.index(temp["swz"])
        v.set("src3_swiz", (number & 0x3C) | b | ((a - 3) & 3) << 6)

    def destinations(self, v: _Values, vector: str | None, scalar: str | None) -> None:
        vm = _DEST.fullmatch(vector) if vector is not None else None
        sm = _DEST.fullmatch(scalar) if scalar is not None else None
        if (vector is not None and vm is None) or (scalar is not None and sm is None):
            raise _Error(f"{vector if vm is None else scalar!r} is not a destination")
        export = next(
            (e for e in (_export(m["name"]) for m in (vm, sm) if m is not None) if e is not None),
            None,
        )
        if export is not None:
            v["export_data"] = 1
            v["vector_dest"] = export
            vchars = _mask_chars(vm["mask"]) if vm else "____"
            schars = _mask_chars(sm["mask"]) if sm else "____"
            const1 = _bits(vchars, "1")
            const0 = _bits(vchars, "0")
            v["vector_write_mask"] = _bits(vchars, _SWZ) | const1
            v["scalar_write_mask"] = _bits(schars, _SWZ) | const1
            v["scalar_dest_rel"] = int(bool(const0))
            if v["scalar_write_mask"]:
                # Both results go to vector_dest; scalar_dest is not shown.
                v["scalar_dest"] = export
                self.guess("export: scalar_dest = vector_dest")
            return
        for m, prefix in ((vm, "vector"), (sm, "scalar")):
            if m is None:
                continue
            number, rel = _register(m["name"])
            v[f"{prefix}_dest"] = number
            v[f"{prefix}_dest_rel"] = rel
            chars = _mask_chars(m["mask"])
            if set(chars) - set(_SWZ + "_"):
                raise _Error(f"{m.group(0)!r}: only exports write the constants 0 and 1")
            v[f"{prefix}_write_mask"] = _bits(chars, _SWZ)

    def constant(self, v: _Values, i: int, m: re.Match[str]) -> None:
        """The absolute-value and relative-addressing bits of constant operand ``i``."""
        v.set("abs_constants", int(bool(m["abs"])))
        if m["rel"]:
            slot = "const_0_rel_abs"
            if i == 2 and not v.get("src1_sel", 0):
                slot = "const_1_rel_abs"
            if i == 3 and not (v.get("src1_sel", 0) and v.get("src2_sel", 0)):
                slot = "const_1_rel_abs"
            v.set(slot, 1)
            v.set("relative_addr", int(m["rel"] == "a0"))

    def source(
        self, v: _Values, i: int, text: str, components: int, second_lanes: tuple[int, ...] = (0,)
    ) -> None:
        m = _OPERAND.fullmatch(text)
        if m is None:
            raise _Error(f"{text!r} is not a source operand")
        number = int(m["num"] if m["num"] is not None else m["inum"])
        temp = m["bank"] == "r"
        if temp:
            if m["rel"] == "a0" or number > isa.REG_INDEX_MASK:
                raise _Error(f"{text!r}: a temporary register is r0..r63, relative to aL")
            reg = number | (isa.REG_REL_BIT if m["rel"] else 0)
            reg |= isa.REG_ABS_BIT if m["abs"] else 0
        else:
            reg = number
            self.constant(v, i, m)
        if reg > 0xFF:
            raise _Error(f"{text!r}: register number {number} does not fit")
        chars = m["swz"] or ""
        if components == 4:
            if len(chars) not in (0, 4):
                raise _Error(f"{text!r}: a vector operand's swizzle has four components")
            comps = [_SWZ.index(c) for c in chars] if chars else [0, 1, 2, 3]
        else:
            if len(chars) != components:
                raise _Error(f"{text!r}: this operand has {components} component(s)")
            # Lanes the text does not show keep the identity (a2xx-isa.md#xenia-asm).
            a = _SWZ.index(chars[0])
            comps = [0, 1, 2, a]
            if components == 2:
                comps[second_lanes[0]] = b = _SWZ.index(chars[1])
            if "src3_swiz" in v:  # source 3 of a three-source vector operation
                read = isa.alu_swizzle_components(v["src3_swiz"])
                if read[3] != a or (
                    components == 2 and all(read[lane] != b for lane in second_lanes)
                ):
                    raise _Error(f"{text!r} disagrees with the vector operation's source 3")
                comps = list(read)
        v.set(f"src{i}_reg", reg)
        v.set(f"src{i}_sel", int(temp))
        v.set(f"src{i}_reg_negate", int(bool(m["neg"])))
        v.set(f"src{i}_swiz", isa.alu_swizzle_field(tuple(comps)))

    # -- fetches ------------------------------------------------------------------------

    def vertex_fetch(self, pred: bool | None, line: str) -> int:
        name, _, operands = _split(line)
        options = [o for o in operands if "=" in o]
        plain = [o for o in operands if "=" not in o]
        v = _Values(dict(isa.VERTEX_FETCH_DEFAULTS))
        v.update(opcode=isa.FetchOpcode.VTX_FETCH, prefetch_count=0, is_index_rounded=0,
                 num_format_all=0)
        if pred is not None:
            v.update(pred_select=1, pred_condition=int(pred))
        if name == "vfetch_full":
            if len(plain) != 3:
                raise _Error("vfetch_full takes a destination, a source and vfN")
            src = re.fullmatch(r"(r\d+|r\[\d+\+aL\])\.([xyzw])", plain[1])
            const = re.fullmatch(r"vf(-?\d+)", plain[2])
            if src is None or const is None or not 0 <= 95 - int(const[1]) <= 96:
                raise _Error(f"bad vertex fetch operands {plain[1]!r}, {plain[2]!r}")
            v["src_reg"], v["src_reg_am"] = _register(src[1])
            v["src_swiz"] = _SWZ.index(src[2])
            # vfN = 95 - (3 * const_index + sel), and sel 3 aliases the next index's 0:
            # take sel 0-2 except for the one number only sel 3 reaches (vf-1).
            index = 95 - int(const[1])
            v["const_index"], v["const_index_sel"] = (31, 3) if index == 96 else divmod(index, 3)
        elif name == "vfetch_mini":
            if len(plain) != 1:
                raise _Error("vfetch_mini takes only a destination")
            v["is_mini_fetch"] = 1
            self.guess("vfetch_mini: source, fetch constant and stride 0 (the full fetch's apply)")
        else:
            raise _Error(f"unknown vertex fetch {name!r}")
        v["dst_reg"], v["dst_reg_am"], v["dst_swiz"] = _fetch_dest(plain[0])
        offset = vertex_options(v, options)
        self.guess("vertex fetch: signed_rf_mode 0 (Xenia's text does not show it)")
        return _pack(isa.VERTEX_FETCH_LAYOUT, v) | offset << isa.XENIA_VERTEX_OFFSET_LSB

    def _texture_source(self, v: _Values, source: str, suffix: str) -> None:
        """A texture fetch's source register and its three selectors."""
        src = re.fullmatch(r"(r\d+|r\[\d+\+aL\])\.([xyzw]{1,3})", source)
        if src is None:
            raise _Error("bad texture fetch source")
        v["src_reg"], v["src_reg_am"] = _register(src[1])
        selectors = [_SWZ.index(c) for c in src[2]]
        if len(selectors) < 3:
            # Selectors the text does not show repeat the last one shown.
            self.guess("texture fetch: source selectors not shown repeat the last one shown")
            shown = len(selectors)
            selectors += [selectors[-1]] * (3 - len(selectors))
            if shown == 2 and suffix == "1D" and selectors[0] == selectors[1]:
                # xenia-canary shows two components of a 1D fetch only when X, Y and Z
                # are not all equal: Z must differ.
                selectors[2] = (selectors[0] + 1) & 3
        v["src_swiz"] = selectors[0] | selectors[1] << 2 | selectors[2] << 4

    def texture_fetch(self, pred: bool | None, line: str, stem: str, suffix: str) -> int:
        opcode = _FETCH_NAMES[stem]
        info = isa.FETCH_OPS[opcode]
        _, _, operands = _split(line)
        options = [o for o in operands if "=" in o]
        plain = [o for o in operands if "=" not in o]
        v = _Values(dict(isa.TEXTURE_FETCH_DEFAULTS))
        v.update(opcode=opcode, fetch_valid_only=1)
        if pred is not None:
            v.update(pred_select=1, pred_condition=int(pred))
        if info.xna_dimension_suffix:
            if suffix not in _DIMENSIONS:
                raise _Error(f"{stem} needs a dimension (1D, 2D, 3D or Cube)")
            v["dimension"] = _DIMENSIONS[suffix]
        if len(plain) != (3 if info.has_result else 1):
            raise _Error(f"wrong number of operands for {stem}{suffix}")
        if info.has_result:
            v["dst_reg"], v["dst_reg_am"], v["dst_swiz"] = _fetch_dest(plain[0])
            const = re.fullmatch(r"tf(\d+)", plain[2])
            if const is None:
                raise _Error(f"{plain[2]!r} is not a texture fetch constant tfN")
            v["const_idx"] = int(const[1])
        source = plain[1 if info.has_result else 0]
        self._texture_source(v, source, suffix)
        texture_options(v, options)
        if not info.xna_dimension_suffix:
            # The dimension is not shown; the offsets shown need at least this many axes.
            v["dimension"] = (
                FetchDimension.D3 if v.get("offset_z") else
                FetchDimension.D2 if v.get("offset_y") else FetchDimension.D1
            )
            self.guess(f"{stem}: the smallest texture dimension its offsets allow")
        return _pack(isa.TEXTURE_FETCH_LAYOUT, v)


# -- helpers ------------------------------------------------------------------------------


def _vector_srcs(opcode: int) -> int:
    info = isa.VECTOR_OPS.get(opcode)  # type: ignore[call-overload]
    return info.srcs if info else 0


def _pack(layout: Layout, values: dict[str, int]) -> int:
    try:
        for name, value in values.items():
            if not 0 <= int(value) <= layout[name].max:
                raise _Error(f"{name} {value} does not fit (0..{layout[name].max})")
        return layout.pack({k: int(x) for k, x in values.items()})
    except KeyError as exc:
        raise _Error(f"no field {exc}") from None


def _predicate(text: str) -> tuple[bool | None, str]:
    m = _PRED.match(text)
    if m is None:
        return None, text
    return m[1] == "(p0)", text[m.end() :]


def _split(text: str) -> tuple[str, bool, list[str]]:
    """Mnemonic (without ``_sat``), whether it had ``_sat``, and the operands."""
    parts = text.split(None, 1)
    if not parts:
        raise _Error("an operation is missing")
    name = parts[0]
    operands = [o.strip() for o in parts[1].split(",")] if len(parts) > 1 else []
    sat = name.endswith("_sat")
    return name.removesuffix("_sat"), sat, operands


def _register(text: str) -> tuple[int, int]:
    m = re.fullmatch(r"r(\d+)|r\[(\d+)\+aL\]", text)
    if m is None:
        raise _Error(f"{text!r} is not a temporary register")
    number = int(m[1] if m[1] is not None else m[2])
    if number > isa.REG_INDEX_MASK:
        raise _Error(f"{text!r}: temporary registers are r0..r63")
    return number, int(m[2] is not None)


def _mask_chars(mask: str | None) -> str:
    if mask is None:
        return _SWZ
    return "____" if mask == "_" else mask


def _bits(chars: str, wanted: str) -> int:
    return sum(1 << i for i, c in enumerate(chars) if c in wanted)


def _export(name: str) -> int | None:
    if name == "eA":
        return isa.EXPORT_ADDRESS
    if m := re.fullmatch(r"eM(\d)", name):
        return isa.EXPORT_DATA_FIRST + int(m[1])
    if m := re.fullmatch(r"oC(\d)", name):
        return int(m[1])
    if m := re.fullmatch(r"o(\d+)", name):
        return int(m[1])
    return _EXPORTS_VS.get(name, _EXPORTS_PS.get(name))


def _fetch_dest(text: str) -> tuple[int, int, int]:
    m = re.fullmatch(r"(r\d+|r\[\d+\+aL\])(?:\.([xyzw01_]{4}|_))?", text)
    if m is None:
        raise _Error(f"{text!r} is not a fetch destination")
    number, rel = _register(m[1])
    chars = _mask_chars(m[2])
    swizzle = 0
    for i, c in enumerate(chars):
        selector = 7 if c == "_" else 4 if c == "0" else 5 if c == "1" else _SWZ.index(c)
        swizzle |= selector << (3 * i)
    return number, rel, swizzle


def _loop_or_jump(pred: bool | None, text: str) -> int:
    if text == "ret":
        return CfOpcode.RETURN << 44
    if m := re.fullmatch(r"(end)?loop i(\d+), L(\d+)(, Repeat=true)?", text):
        values = {"opcode": CfOpcode.LOOP_END if m[1] else CfOpcode.LOOP_START,
                  "loop_id": int(m[2]), "is_repeat": int(bool(m[4]))}
        if pred is not None:
            values.update(is_predicated_break=1, condition=int(pred))
        return _pack(isa.CF_LAYOUTS[CfKind.LOOP], values) | _address(int(m[3]), CfKind.LOOP)
    m = re.fullmatch(r"(c?)(call|jmp)(?:\s+(!?)b(\d+),)?\s*L(\d+)", text)
    if m is None:
        raise _Error(f"unknown CF clause {text!r}")
    values = {"opcode": CfOpcode.COND_CALL if m[2] == "call" else CfOpcode.COND_JMP}
    if m[1]:
        if m[4] is None:
            raise _Error(f"c{m[2]} needs a bool constant")
        values.update(bool_addr=int(m[4]), condition=int(not m[3]))
    elif pred is not None:
        values.update(predicated_jmp=1, condition=int(pred))
    else:
        values["force_call"] = 1
    return _pack(isa.CF_LAYOUTS[CfKind.JMP_CALL], values) | _address(int(m[5]), CfKind.JMP_CALL)


def _address(address: int, kind: CfKind) -> int:
    if address >= 1 << isa.XENIA_ADDRESS_BITS[kind]:
        raise _Error(f"address L{address} does not fit")
    return address
