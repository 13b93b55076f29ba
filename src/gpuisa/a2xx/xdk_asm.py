"""Assemble Microsoft's microcode assembly listing (``xvs_3_0`` / ``xps_3_0``, the text
of :mod:`.xdk_text`) back to words (a2xx-formats.md#xdk-listing).

The listing is turned back into Xenia's listing (the slot numbers it leaves out follow
from the order of its lines) and assembled by :func:`.xna_asm.assemble_xenia`; the bits
neither text shows are then filled the way the XDK compiler fills them
(a2xx-formats.md#toolchain-defaults), each rule taken from the compiler's published
words (tests/a2xx/data/xdk-listings.txt):

* an exec's ``vc`` bit of each instruction that is a vertex fetch is set;
* a one-operand scalar operation beside a vector operation of at most two sources reads
  the shown component in all four swizzle lanes (``rsq r1.w, r1.w`` is wwww);
* an exec without instructions points at the slot after the last instruction, and one
  all-zero slot follows the last instruction.

Xenia's listing's own fills for an unused third source (r0, identity swizzle) and a
vertex fetch's ``signed_rf_mode`` (0) are the XDK's too, so they are not reported as
guesses; any other bit filled by Xenia's rules is.
"""

from __future__ import annotations

import math
import re

from ..errors import Diagnostic, InputError, SourceError, SourceLocation
from . import isa
from .encoding import (
    decode_alu,
    join_cf_slot,
    slot_from_dwords,
    slot_to_dwords,
    split_cf_slot,
)
from .isa import CfKind, CfOpcode, FetchKind, ScalarOperands
from .xna_asm import XeniaAssembly, assemble_xenia

_CF = re.compile(
    r"^(?:\(!?p0\)\s*)?(?:c?exece?|alloc|loop|endloop|c?jmp|c?call|ret|cnop)\b"
)
_HEADER = re.compile(r"^(?:x[vp]s_3_0|config|dcl_\w*|defconst|def|#)\b")
_SOURCE = re.compile(r"(?<=[\w\]])\.([xyzw]{1,3})(?=,|$)")
_DEST = re.compile(r"^((?:\(!?p0\) )?\w+ [\w\[\]+]+)\.([xyzw]{1,3})(?=,|$)")
_ABS = re.compile(r"\b([rc])(\d+)_abs\b")
_VFETCH = re.compile(r"^(\(!?p0\) )?vfetch (\S+), (\S+), [a-z]+\d*$")
_SCALAR_NAMES = {info.xna for info in isa.SCALAR_OPS.values() if info.xna} | {"movs"}
_SLOT_MASK = (1 << 96) - 1
_XDK_VALUES = (
    "an exec without instructions",
    "scalar operand: swizzle lanes",
    "vertex fetch: signed_rf_mode 0",
    "source 3 unused: r0 with the identity swizzle",
)


def looks_like_xdk_listing(text: str) -> bool:
    """Does ``text`` start (after comments) with the profile line ``xvs_3_0`` / ``xps_3_0``?"""
    return re.search(r"^\s*x[vp]s_3_0\s*$", text, re.MULTILINE) is not None


def shader_type_of(text: str) -> str | None:
    m = re.search(r"^\s*x([vp])s_3_0\s*$", text, re.MULTILINE)
    return None if m is None else ("vertex" if m[1] == "v" else "fragment")


def assemble_xdk(text: str, *, filename: str = "<input>") -> XeniaAssembly:
    """The words of an XDK listing, with the bits the text does not show filled as the
    XDK compiler fills them."""
    if not isinstance(text, str):
        raise InputError(f"assemble_xdk() takes text (str), not {type(text).__name__}")
    xenia, cf_count, last_slot, origin = to_xenia(text, filename)
    try:
        result = assemble_xenia(xenia, canary=False, filename=filename)
    except SourceError as exc:
        raise SourceError([_at_origin(d, origin, text) for d in exc.diagnostics]) from None
    words = xdk_defaults(list(result.words), cf_count, last_slot)
    # Filled by the XDK's rules above, or Xenia's conventions that are the XDK's too (no
    # difference in the three containers' words): not guesses here.
    guesses = tuple(g for g in result.guesses if not g.startswith(_XDK_VALUES))
    return XeniaAssembly(tuple(words), guesses)


_Line = tuple[str, int]  # text, line number in the XDK listing


def to_xenia(text: str, filename: str = "<input>") -> tuple[str, int, int, list[int]]:
    """Xenia's listing of an XDK listing, the number of CF clauses, the last slot and,
    for each line of Xenia's listing, the line of the XDK listing it came from."""
    entries: list[tuple[_Line, list[_Line]]] = []  # CF clause, its instruction lines
    for number, raw in enumerate(text.splitlines(), start=1):
        line = re.sub(r"//(?!\s*PredicateClean)[^\n]*", "", raw).strip()
        if not line or _HEADER.match(line):
            continue
        if line.startswith("label ") or _CF.match(line):
            entries.append(((line, number), []))
        elif not entries:
            loc = SourceLocation(filename, number, len(raw) - len(raw.lstrip()) + 1)
            message = "an instruction before the first exec (or a CF clause the XDK does not have)"
            raise SourceError([Diagnostic("error", message, loc, raw)])
        else:
            entries[-1][1].append((line, number))
    clauses = [e for e in entries if not e[0][0].startswith("label ")]
    cf_slots = math.ceil(len(clauses) / 2)
    out: list[_Line] = []
    clause = 0
    slot = cf_slots
    for (cf, number), body in entries:
        if cf.startswith("label "):
            out.append(("                " + cf, number))
            continue
        out.append((f"/* {clause // 2:4d}.{clause % 2} */       {xenia_cf(cf)}", number))
        clause += 1
        slot = _instructions(body, slot, out)
    xenia = "\n".join(line for line, _ in out) + "\n"
    return xenia, len(clauses), slot, [number for _, number in out]


def _instructions(body: list[_Line], slot: int, out: list[_Line]) -> int:
    serialize = False
    for line, number in body:
        if line == "serialize":
            serialize = True
            continue
        if line.startswith("+"):
            out.append(("              +       " + xenia_instruction(line[1:].strip()), number))
            continue
        prefix = f"/* {slot:4d}   */ "
        if serialize:
            out.append((prefix + "         serialize", number))
            prefix = " " * 13
        out.append((prefix + "         " + xenia_instruction(line), number))
        serialize = False
        slot += 1
    return slot


def _at_origin(d: Diagnostic, origin: list[int], text: str) -> Diagnostic:
    """A diagnostic about Xenia's listing, moved to the XDK listing's line."""
    index = d.location.line - 1
    if not 0 <= index < len(origin):
        return d
    number = origin[index]
    source = text.splitlines()[number - 1]
    indent = len(source) - len(source.lstrip())
    loc = SourceLocation(d.location.file, number, indent + 1)
    return Diagnostic(d.severity, d.message, loc, source, max(1, len(source.strip())))


def xenia_cf(text: str) -> str:
    return re.sub(r"^alloc export=", "alloc export = ", text)


def xenia_instruction(text: str) -> str:
    """One XDK instruction in Xenia's spelling."""
    if m := _VFETCH.match(text):
        # The XDK binds the semantic's format when the declaration is set: the words
        # carry fetch constant 95 and no format (vf95 in Xenia's text).
        return f"{m[1] or ''}vfetch_full {m[2]}, {m[3]}, vf95"
    parts = text.split(" ", 2)
    name = parts[1] if text.startswith("(") else parts[0]
    if "fetch" in name:
        return text
    text = _ABS.sub(r"\1_abs[\2]", text)
    text = _DEST.sub(lambda g: g[1] + "." + "".join(
        c if c in g[2] else "_" for c in "xyzw"), text)
    bare = name.split("_sat")[0]
    scalar = bare in _SCALAR_NAMES
    if bare == "mov":
        text = re.sub(r"\bmov(_sat)? ([^,]+), (.+)$", r"max\1 \2, \3, \3", text)
    elif bare == "movs":
        text = re.sub(r"\bmovs(_sat)? ([^,]+), (-?[\w\[\]+]+)\.([xyzw])$", r"maxs\1 \2, \3.\4\4",
                      text)
    if not scalar:
        head, _, operands = text.partition(", ")
        operands = _SOURCE.sub(lambda g: "." + g[1] + g[1][-1] * (4 - len(g[1])), operands)
        text = head + (", " + operands if operands else "")
    return text


def xdk_defaults(words: list[int], cf_count: int, end: int) -> list[int]:
    """Fill the bits the XDK compiler sets and neither listing shows (module docstring)."""
    slots = [slot_from_dwords(*words[i : i + 3]) for i in range(0, len(words), 3)]
    slots += [0] * (end + 1 - len(slots))
    cf_slots = math.ceil(cf_count / 2)
    clauses = [c for s in slots[:cf_slots] for c in split_cf_slot(s)]
    layout = isa.CF_LAYOUTS[CfKind.EXEC]
    for i, clause in enumerate(clauses[:cf_count]):
        if not isa.CF_OPS[CfOpcode(clause >> 44)].is_exec:
            continue
        values = layout.unpack(clause)
        if not values["count"]:
            values["address"] = end
        vc = 0
        for k in range(values["count"]):
            slot = values["address"] + k
            if values["serialize"] >> (2 * k) & 1 and _is_vertex_fetch(slots[slot]):
                vc |= 1 << k
            elif not values["serialize"] >> (2 * k) & 1:
                slots[slot] = _replicate_scalar_source(slots[slot])
        values["vc"] = vc
        clauses[i] = layout.pack(values, base=clause & layout.unused_mask)
    for s in range(cf_slots):
        slots[s] = join_cf_slot(clauses[2 * s], clauses[2 * s + 1])
    return [w for s in slots for w in slot_to_dwords(s)]


def _is_vertex_fetch(slot: int) -> bool:
    opcode = slot & 0x1F
    info = isa.FETCH_OPS.get(opcode)  # type: ignore[call-overload]
    return info is not None and info.kind is FetchKind.VERTEX


def _replicate_scalar_source(slot: int) -> int:
    alu = decode_alu(slot)
    info, vinfo = alu.scalar_info, alu.vector_info
    if info is None or info.operands is not ScalarOperands.A or (vinfo and vinfo.srcs == 3):
        return slot
    lane3 = isa.alu_swizzle_components(alu.src3_swiz)[3]
    field = isa.alu_swizzle_field((lane3,) * 4)
    values = isa.ALU_LAYOUT.unpack(slot)
    values["src3_swiz"] = field
    return isa.ALU_LAYOUT.pack(values, base=slot & isa.ALU_LAYOUT.unused_mask) & _SLOT_MASK
