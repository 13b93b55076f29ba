"""The declarations of one DVLE in disassembly: picasso's directives wherever the assembler
rebuilds the table entry from them exactly, gpuisa's raw directives where it would not
(docs/assembly-extensions.md, "Raw SHBIN fields").

* Uniforms: the longest prefix of the table that ``.in``/``.fvec``/``.ivec``/``.bool``
  (placed at their registers) rebuild -- the assembler sorts those entries by register
  and checks names and registers (pica-assembly.md#allocation) -- then ``.dvleuniform``
  for the rest, with an ``.alias`` where the name can name the register in the code.
* Outputs and constants: each entry as ``.out``/``.setf``/``.seti``/``.setb`` when that
  rebuilds it (tables keep statement order), else ``.dvleout``/``.dvleconst``.
* Labels: ``.dvlelabel`` (picasso never writes label tables).
* Header fields that the printed declarations do not give: ``.dvle KEY=VALUE``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ...floats import f24_picasso_preimage
from ..asm.operands import is_identifier, looks_like_register
from ..isa import (
    NUM_BOOL_UNIFORMS,
    NUM_FLOAT_UNIFORMS,
    NUM_GEOMETRY_OUTPUTS,
    NUM_INT_UNIFORMS,
    NUM_OUTPUTS,
    GeometryMode,
)
from ..shbin import Constant, ConstantKind, Dvle, OutputSemantic, ShaderType, Uniform
from ..shbin.records import UNIFORM_BANKS, uniform_bank
from .syntax import UnitNames

#: picasso's per-DVLE limits (pica-assembly.md#directives, pica-assembly.md#uniform-table) and its
#: global list.
MAX_DVLE_UNIFORMS = 96
MAX_GLOBAL_UNIFORMS = 96
MAX_OUTPUTS = 16
MAX_CONSTANTS = 96
#: From o7 up, ``.out`` only accepts ``dummy`` (pica-assembly.md#out).
FIRST_DUMMY_ONLY = 7
#: A ``.gsh MODE`` space holds b0-b14 (b15 is the geometry shader's own flag).
GEOMETRY_BOOLS = NUM_BOOL_UNIFORMS - 1
#: What the assembler writes into every DVLE header.
PICASSO_VERSION = 0x1002

_SEMANTIC_NAMES = {s: s.name.lower() for s in OutputSemantic}
#: Index-register names an alias must not shadow (operands.INDEX_CODES and legacy names).
_RESERVED = frozenset({"a0", "a1", "a2", "al", "lcnt"})
#: ``.dvle`` keys in printing order -> Dvle field.
HEADER_KEYS = {
    "version": "version",
    "type": "shader_type",
    "merge": "merge_outmaps",
    "inputs": "input_mask",
    "outputs": "output_mask",
    "mode": "geometry_mode",
    "fixedstart": "fixed_vertex_start",
    "variablecount": "variable_vertex_count",
    "fixedcount": "fixed_vertex_count",
    "main": "main_offset",
    "endmain": "endmain_offset",
}


def alias_name(name: str) -> str | None:
    """The identifier that declares ``name`` (picasso writes ``$`` as ``.``), or None when
    no declaration can produce exactly ``name`` or the alias would read as a register."""
    if not name or "$" in name or name.startswith("_"):
        return None
    alias = name.replace(".", "$")
    if not is_identifier(alias) or looks_like_register(alias) or alias.lower() in _RESERVED:
        return None
    return alias


def quote(name: str) -> str:
    """A name for the raw directives: letters, digits, ``_ . $`` as is, the rest ``\\xHH``."""
    return '"' + "".join(
        ch if ch.isascii() and (ch.isalnum() or ch in "_.$") else f"\\x{ord(ch):02X}"
        for ch in name
    ) + '"'


@dataclass(slots=True)
class SharedSpace:
    """The uniforms the earlier units declared in the shared (non-``.gsh``) space."""

    records: dict[str, tuple[int, int]] = field(default_factory=dict)
    used: set[int] = field(default_factory=set)
    count: int = 0


@dataclass(slots=True)
class DvlePlan:
    """Declaration lines, the names the code may use, and the header fields they give."""

    lines: list[str]
    names: UnitNames
    derived: dict[str, object]


def plan_dvle(dvle: Dvle, shared: SharedSpace) -> DvlePlan:
    geometry = dvle.shader_type is ShaderType.GEOMETRY
    fixed = geometry and dvle.geometry_mode is GeometryMode.FIXED
    derived: dict[str, object] = {
        "version": PICASSO_VERSION,
        "shader_type": ShaderType.VERTEX,
        "merge_outmaps": False,
        "input_mask": 0,
        "output_mask": 0,
        "geometry_mode": GeometryMode.POINT,
        "fixed_vertex_start": 0,
        "variable_vertex_count": 0,
        "fixed_vertex_count": 0,
    }
    natural = dvle.uniforms[: _uniform_prefix(dvle.uniforms, None if geometry else shared, fixed)]
    lines: list[str] = []
    if geometry:
        floats = [u.register for u in natural if u.bank == "c"]
        lines.append(_gsh_line(dvle, floats, derived))
    names = UnitNames(geometry=geometry)
    used: set[str] = set()
    for u in natural:
        alias = alias_name(u.name)
        used.add(alias)
        _name_registers(names, u, alias)
        if u.bank == "v":
            lines.append(f".in {alias} v{u.register}")
            derived["input_mask"] |= 1 << u.register
        else:
            directive = {"c": ".fvec", "i": ".ivec", "b": ".bool"}[u.bank]
            size = f"[{u.count}]" if u.count > 1 else ""
            lines.append(f"{directive} {alias}{size} {u.bank}{u.register}")
    for u in dvle.uniforms[len(natural) :]:
        lines.append(f".dvleuniform 0x{u.first:02X}, 0x{u.last:02X}, {quote(u.name)}")
        alias = alias_name(u.name)
        bank = u.bank
        if (
            alias is not None
            and alias not in used
            and bank in ("c", "v")
            and u.first <= u.last
            and uniform_bank(u.last) == bank
            and (bank == "c" or u.count == 1)
        ):
            used.add(alias)
            _name_registers(names, u, alias)
            lines.append(f".alias {alias} {bank}{u.register}")
    lines += _outputs(dvle, geometry, derived)
    lines += [_constant_line(j, c) for j, c in enumerate(dvle.constants)]
    lines += [
        f".dvlelabel 0x{lab.id:X}, 0x{lab.offset:X}, 0x{lab.unknown:X}, {quote(lab.name)}"
        for lab in dvle.labels
    ]
    return DvlePlan(lines, names, derived)


def header_line(dvle: Dvle, derived: dict[str, object], raw_entry: bool) -> str | None:
    """``.dvle KEY=VALUE ...`` for the header fields the text does not give by itself."""
    items = []
    for key, attr in HEADER_KEYS.items():
        value = getattr(dvle, attr)
        if attr in ("main_offset", "endmain_offset"):
            if not raw_entry:
                continue
        elif derived[attr] == value:
            continue
        items.append(f"{key}=0x{int(value):X}")
    return ".dvle " + " ".join(items) if items else None


def _name_registers(names: UnitNames, u: Uniform, alias: str) -> None:
    if u.bank == "c":
        for i in range(u.count):
            names.floats[u.register + i] = (alias, i, u.count)
    elif u.bank == "v":
        names.inputs[u.register] = alias


def _uniform_prefix(uniforms: Sequence[Uniform], shared: SharedSpace | None, fixed: bool) -> int:
    """How many leading entries the declarations rebuild (``shared`` None: a ``.gsh``
    unit's private space).  Entries of the shared space are recorded in ``shared``."""
    names: set[str] = set()
    local: set[int] = set()
    previous = -1
    for j, u in enumerate(uniforms):
        alias = alias_name(u.name)
        bank = uniform_bank(u.first)
        if (
            alias is None
            or alias in names
            or u.first < previous  # the assembler sorts its entries by register
            or bank is None
            or u.last < u.first
            or uniform_bank(u.last) != bank
            or j >= MAX_DVLE_UNIFORMS
        ):
            return j
        regs = set(range(u.first, u.last + 1))
        if bank == "v":
            if u.count != 1:
                return j
        elif shared is None:
            if not _fits_private(u, bank, regs, local, fixed):
                return j
            local |= regs
        elif not _record_shared(u, alias, regs, shared):
            return j
        names.add(alias)
        previous = u.first
    return len(uniforms)



def _fits_private(u: Uniform, bank: str, regs: set[int], local: set[int],
                  fixed: bool) -> bool:
    """Whether a ``.gsh`` unit's declarations can rebuild ``u`` in its private space."""
    if regs & local:
        return False
    if bank == "b" and u.last >= UNIFORM_BANKS["b"][0] + GEOMETRY_BOOLS:
        return False
    # `.gsh fixed cF cS` needs a register S below F
    return not (fixed and bank == "c" and u.register == 0)


def _record_shared(u: Uniform, alias: str, regs: set[int], shared: SharedSpace) -> bool:
    """Records ``u`` in the shared space, or returns False when the declarations cannot
    rebuild it there (another register under the same name, a register taken, a full
    table)."""
    known = shared.records.get(alias)
    if known is not None and known != (u.first, u.last):
        return False
    if known is None and regs & shared.used:
        return False
    if shared.count >= MAX_GLOBAL_UNIFORMS:
        return False
    if known is None:
        shared.records[alias] = (u.first, u.last)
        shared.used |= regs
    shared.count += 1
    return True

def _gsh_line(dvle: Dvle, floats: list[int], derived: dict[str, object]) -> str:
    """``.gsh MODE cF ...``: the DVLE does not record cF, the first register of the
    private float space; the lowest declared float uniform works (every uniform and
    constant is printed at its register).  Fields the line cannot give go to ``.dvle``."""
    mode = dvle.geometry_mode
    derived["shader_type"] = ShaderType.GEOMETRY
    derived["geometry_mode"] = mode
    if mode is GeometryMode.FIXED:
        first = min(floats, default=NUM_FLOAT_UNIFORMS - 1)
        start = dvle.fixed_vertex_start if dvle.fixed_vertex_start < first else 0
        derived["fixed_vertex_start"] = start
        derived["fixed_vertex_count"] = dvle.fixed_vertex_count
        return f".gsh fixed c{first} c{start} {dvle.fixed_vertex_count}"
    first = min(floats, default=0)
    if mode is GeometryMode.VARIABLE:
        derived["variable_vertex_count"] = dvle.variable_vertex_count
        return f".gsh variable c{first} {dvle.variable_vertex_count}"
    return f".gsh point c{first}"


def _outputs(dvle: Dvle, geometry: bool, derived: dict[str, object]) -> list[str]:
    limit = NUM_GEOMETRY_OUTPUTS if geometry else NUM_OUTPUTS
    used = 0
    lines = []
    for j, e in enumerate(dvle.outputs):
        name = _SEMANTIC_NAMES.get(e.semantic)
        bits = e.mask << 4 * e.register
        if (
            name is not None
            and not e.upper
            and e.mask
            and e.register < limit
            and (e.register < FIRST_DUMMY_ONLY or e.semantic is OutputSemantic.DUMMY)
            and not used & bits  # "this output collides with another one"
            and j < MAX_OUTPUTS
        ):
            used |= bits
            derived["output_mask"] |= 1 << e.register
            if geometry and e.semantic is OutputSemantic.DUMMY:
                derived["merge_outmaps"] = True  # a `.gsh MODE` shader's dummy output
            components = e.components
            mask = "" if components == "xyzw" else f".{components}"
            lines.append(f".out - {name} o{e.register}{mask}")
        else:
            lines.append(
                f".dvleout 0x{e.semantic:X}, 0x{e.register:X}, 0x{e.mask:X}, 0x{e.upper:X}"
            )
    return lines


def _float_text(bits: int) -> str:
    special = {0x000000: "0.0", 0x800000: "-0.0", 0x7F0000: "inf", 0xFF0000: "-inf"}
    if bits in special:
        return special[bits]
    return str(np.float32(f24_picasso_preimage(bits)))


def _constant_line(j: int, c: Constant) -> str:
    rest_zero = not any(c.words[1:])
    if j < MAX_CONSTANTS:
        if c.kind is ConstantKind.FLOAT and c.register < NUM_FLOAT_UNIFORMS:
            values = [_float_text(w) if w <= 0xFFFFFF else f"#0x{w:08X}" for w in c.words]
            return f".setf c{c.register}({', '.join(values)})"
        if c.kind is ConstantKind.INT and c.register < NUM_INT_UNIFORMS and rest_zero:
            return f".seti i{c.register}({', '.join(str(v) for v in c.ints)})"
        if (
            c.kind is ConstantKind.BOOL
            and c.register < NUM_BOOL_UNIFORMS
            and rest_zero
            and c.words[0] in (0, 1)
        ):
            return f".setb b{c.register} {'true' if c.words[0] else 'false'}"
    words = ", ".join(f"0x{w:X}" for w in c.words)
    return f".dvleconst {int(c.kind)}, {c.register}, {words}"
