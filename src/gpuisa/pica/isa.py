"""The PICA200 shader instruction set, as data.

This module is the single description of the ISA: instruction formats and their fields,
the 64 opcode values, the operand-descriptor layout, register maps, index registers,
comparison operators, condition operators and hardware limits.  The encoder, decoder,
disassembler, assembler and emulators all read these tables; nothing else in gpuisa
hard-codes a bit position or an opcode number.

Source: 3dbrew "GPU/Shader Instruction Set" (the revision pica-isa.md#opcodes names).  Where
3dbrew leaves a value unknown, the comment says which evidence was used instead.
The tables are validated when this module is imported (:func:`_validate`).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum, IntEnum, IntFlag

from ..bits import Field, Layout
from ..errors import IsaTableError

WORD_BITS = 32
OPCODE_BITS = 6

# -- hardware limits -----------------------------------------------------------------------

#: Program memory of a shader unit in words (pica-emulation.md#register-files).
MAX_CODE_WORDS = 4096
#: Vertex shader program limit in words (3dbrew: Ironfall debug info; picasso enforces it).
MAX_VERTEX_CODE_WORDS = 512
#: Operand-descriptor memory in entries (3dbrew: at most 128 operand descriptors).
MAX_OPDESCS = 128
#: Control-flow stack depths (3dbrew "Control Flow").
IF_STACK_DEPTH = 8
CALL_STACK_DEPTH = 4
LOOP_STACK_DEPTH = 4
#: How many CALL-stack pops take effect per instruction (3dbrew: "the fourth update to its
#: copy of the PC is missed", the CALL four-pops bug).
CALL_POPS_EFFECTIVE = 3
#: Geometry-shader output vertex buffer entries (3dbrew SETEMIT; pica-emulation.md#emit).
GS_VERTEX_BUFFER_ENTRIES = 4

NUM_INPUTS = 16
NUM_OUTPUTS = 16
NUM_TEMPORARIES = 16
NUM_FLOAT_UNIFORMS = 96
NUM_INT_UNIFORMS = 4
NUM_BOOL_UNIFORMS = 16
#: Each register bank's letter -> how many registers it has.
BANK_SIZES = {"v": NUM_INPUTS, "r": NUM_TEMPORARIES, "o": NUM_OUTPUTS,
              "c": NUM_FLOAT_UNIFORMS, "i": NUM_INT_UNIFORMS, "b": NUM_BOOL_UNIFORMS}
#: Geometry shaders may only use o0–o6 (3dbrew "Registers"; picasso's range check).
NUM_GEOMETRY_OUTPUTS = 7


# -- instruction formats -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Format:
    """One instruction format of 3dbrew's "Instruction formats" section (pica-isa.md#formats).

    ``opcode_width`` is how many of the top bits hold the opcode (6, or 5 for CMP whose
    CMPX field takes bit 26, or 3 for MAD/MADI).  ``indexed_source`` names the source
    operand that the IDX field (relative addressing) applies to: always the one in the
    7-bit ("wide") source field.
    """

    name: str
    opcode_width: int
    layout: Layout
    indexed_source: str | None = None

    @property
    def opcode_field(self) -> Field:
        return Field("opcode", WORD_BITS - self.opcode_width, self.opcode_width)

    @property
    def unused_mask(self) -> int:
        """Bits neither the opcode nor any field uses; preserved verbatim by the codec."""
        return self.layout.unused_mask & ~self.opcode_field.mask

    @property
    def sources(self) -> tuple[str, ...]:
        return tuple(n for n in ("src1", "src2", "src3") if n in self.layout)

    def source_width(self, source: str) -> int:
        return self.layout[source].width


def _format(name: str, opcode_width: int, fields, indexed_source: str | None = None) -> Format:
    return Format(name, opcode_width, Layout(f"format {name}", fields, WORD_BITS), indexed_source)


#: Field tables transcribed from 3dbrew "Instruction formats" (offsets and sizes in bits;
#: pica-isa.md#formats).
FORMATS: dict[str, Format] = {
    f.name: f
    for f in (
        # Format 0: no operands (BREAK, NOP, END, EMIT).
        _format("0", 6, []),
        _format("1", 6, [("desc", 0, 7), ("src2", 7, 5), ("src1", 12, 7), ("idx", 19, 2),
                         ("dst", 21, 5)], "src1"),
        _format("1i", 6, [("desc", 0, 7), ("src2", 7, 7), ("src1", 14, 5), ("idx", 19, 2),
                          ("dst", 21, 5)], "src2"),
        _format("1u", 6, [("desc", 0, 7), ("src1", 12, 7), ("idx", 19, 2), ("dst", 21, 5)], "src1"),
        _format("1c", 5, [("desc", 0, 7), ("src2", 7, 5), ("src1", 12, 7), ("idx", 19, 2),
                          ("cmpy", 21, 3), ("cmpx", 24, 3)], "src1"),
        _format("2", 6, [("num", 0, 8), ("dst", 10, 12), ("condop", 22, 2), ("refy", 24, 1),
                         ("refx", 25, 1)]),
        # 3dbrew calls bits 22-25 "Constant ID (BOOL/INT)": b0-b15 for IFU/CALLU/JMPU,
        # i0-i3 for LOOP (picasso only ever writes 2 bits there for LOOP).
        _format("3", 6, [("num", 0, 8), ("dst", 10, 12), ("id", 22, 4)]),
        _format("4", 6, [("winding", 22, 1), ("primemit", 23, 1), ("vtxid", 24, 2)]),
        _format("5", 3, [("desc", 0, 5), ("src3", 5, 5), ("src2", 10, 7), ("src1", 17, 5),
                         ("idx", 22, 2), ("dst", 24, 5)], "src2"),
        _format("5i", 3, [("desc", 0, 5), ("src3", 5, 7), ("src2", 12, 5), ("src1", 17, 5),
                          ("idx", 22, 2), ("dst", 24, 5)], "src3"),
        # Opcodes 3dbrew lists as "???" (pica-isa.md#format-unknown): no known fields; all 26 low
        # bits are kept raw.
        _format("unknown", 6, []),
    )
}


# -- opcodes -------------------------------------------------------------------------------


# One line per opcode (riscv-opcodes style): value, mnemonic, format, kind, sources, use,
# inverted partner, flow effect, condition source, what it writes (reg, flags, addr), the
# register result's shape (vec, one), its rounding arithmetic, picasso's padding rule.
# Transcribed from 3dbrew's "Instructions" table and "Control Flow" section; the
# padding column from picasso's behaviour (pica-assembly.md#padding).
_OPCODE_TABLE = """
0x00 add     1       arithmetic 2 masked -    none  always  reg       vec sum     -
0x01 dp3     1       arithmetic 2 dp3    -    none  always  reg       one dot     -
0x02 dp4     1       arithmetic 2 all    -    none  always  reg       one dot     -
0x03 dph     1       arithmetic 2 dph    dphi none  always  reg       one dot     -
0x04 dst     1       arithmetic 2 all    dsti none  always  reg       vec product -
0x05 ex2     1u      arithmetic 1 scalar -    none  always  reg       one -       -
0x06 lg2     1u      arithmetic 1 scalar -    none  always  reg       one -       -
0x07 litp    1u      arithmetic 1 all    -    none  always  reg+flags vec -       -
0x08 mul     1       arithmetic 2 masked -    none  always  reg       vec product -
0x09 sge     1       arithmetic 2 masked sgei none  always  reg       vec -       -
0x0A slt     1       arithmetic 2 masked slti none  always  reg       vec -       -
0x0B flr     1u      arithmetic 1 masked -    none  always  reg       vec -       -
0x0C max     1       arithmetic 2 masked -    none  always  reg       vec -       -
0x0D min     1       arithmetic 2 masked -    none  always  reg       vec -       -
0x0E rcp     1u      arithmetic 1 scalar -    none  always  reg       one -       -
0x0F rsq     1u      arithmetic 1 scalar -    none  always  reg       one -       -
0x10 -       unknown unknown    0 none   -    none  always  -         -   -       -
0x11 -       unknown unknown    0 none   -    none  always  -         -   -       -
0x12 mova    1u      arithmetic 1 mova   -    none  always  addr      -   -       -
0x13 mov     1u      arithmetic 1 masked -    none  always  reg       vec -       -
0x14 -       unknown unknown    0 none   -    none  always  -         -   -       -
0x15 -       unknown unknown    0 none   -    none  always  -         -   -       -
0x16 -       unknown unknown    0 none   -    none  always  -         -   -       -
0x17 -       unknown unknown    0 none   -    none  always  -         -   -       -
0x18 dphi    1i      arithmetic 2 dph    dph  none  always  reg       one dot     -
0x19 dsti    1i      arithmetic 2 all    dst  none  always  reg       vec product -
0x1A sgei    1i      arithmetic 2 masked sge  none  always  reg       vec -       -
0x1B slti    1i      arithmetic 2 masked slt  none  always  reg       vec -       -
0x1C -       unknown unknown    0 none   -    none  always  -         -   -       -
0x1D -       unknown unknown    0 none   -    none  always  -         -   -       -
0x1E -       unknown unknown    0 none   -    none  always  -         -   -       -
0x1F -       unknown unknown    0 none   -    none  always  -         -   -       -
0x20 break   0       flow       0 none   -    break always  -         -   -       loop
0x21 nop     0       control    0 none   -    none  always  -         -   -       -
0x22 end     0       control    0 none   -    end   always  -         -   -       -
0x23 breakc  2       flow       0 none   -    break flags   -         -   -       loop
0x24 call    2       flow       0 none   -    call  always  -         -   -       block
0x25 callc   2       flow       0 none   -    call  flags   -         -   -       block
0x26 callu   3       flow       0 none   -    call  bool    -         -   -       block
0x27 ifu     3       flow       0 none   -    if    bool    -         -   -       -
0x28 ifc     2       flow       0 none   -    if    flags   -         -   -       -
0x29 loop    3       flow       0 none   -    loop  always  -         -   -       -
0x2A emit    0       geometry   0 none   -    none  always  -         -   -       -
0x2B setemit 4       geometry   0 none   -    none  always  -         -   -       -
0x2C jmpc    2       flow       0 none   -    jump  flags   -         -   -       block
0x2D jmpu    3       flow       0 none   -    jump  boolnum -         -   -       block
0x2E cmp     1c      compare    2 cmp    -    none  always  flags     -   -       -
0x30 madi    5i      arithmetic 3 masked mad  none  always  reg       vec mad     -
0x38 mad     5       arithmetic 3 masked madi none  always  reg       vec mad     -
"""


def _opcode_members(text: str) -> dict[str, int]:
    """Opcode name -> value, from the first two columns of the table: the mnemonic in
    upper case, ``UNKNOWN_XX`` for a value without one."""
    members = {}
    for line in text.strip().splitlines():
        value, mnemonic = line.split()[:2]
        number = int(value, 16)
        members[f"UNKNOWN_{number:02X}" if mnemonic == "-" else mnemonic.upper()] = number
    return members


#: Canonical opcode values (bits 26-31), one member per row of the table.  CMP also
#: occupies 0x2F, MADI 0x30-0x37 and MAD 0x38-0x3F because their opcode fields are
#: narrower than 6 bits.
Opcode = IntEnum("Opcode", _opcode_members(_OPCODE_TABLE), module=__name__, qualname="Opcode")


class SourceUse(Enum):
    """Which source components an opcode reads, as picasso's don't-care masking models it
    (pica-assembly.md#dont-care).  The assembler and the linter use it."""

    MASKED = "masked"  # component i of every source iff destination component i is written
    DP3 = "dp3"  # x, y, z of src1 and src2
    DPH = "dph"  # x, y, z of src1; all of src2
    SCALAR = "scalar"  # x of src1
    MOVA = "mova"  # x of src1 if a0.x is written, y if a0.y is written
    CMP = "cmp"  # x, y of src1; all of src2 (picasso keeps src2 z/w significant)
    ALL = "all"  # every component of every source
    NONE = "none"  # no register sources


class Kind(Enum):
    ARITHMETIC = "arithmetic"  # writes a register through an operand descriptor
    COMPARE = "compare"  # CMP: sets the condition flags
    FLOW = "flow"  # control flow (formats 0, 2, 3)
    GEOMETRY = "geometry"  # EMIT, SETEMIT
    CONTROL = "control"  # NOP, END
    UNKNOWN = "unknown"


class EmitEffect(Enum):
    """What a geometry instruction does to the emission state (3dbrew SETEMIT/EMIT;
    pica-emulation.md#emit)."""

    NONE = "-"
    SETUP = "setup"  # SETEMIT: selects the vertex slot, primitive and winding flags
    EMIT = "emit"  # EMIT: writes the vertex (and primitive) SETEMIT set up


class Flow(IntEnum):
    """What a control instruction does to the PC and the stacks (3dbrew "Control Flow",
    pica-emulation.md#flow-instructions).  Integer values: compiled engines receive them as
    constants."""

    NONE = 0  # falls through to PC + 1 (ALU, NOP, geometry)
    JUMP = 1  # JMPC/JMPU: pending jump to DST, taken only if no stack pops
    IF = 2  # IFC/IFU: push (DST, DST + NUM) when taken, else jump to DST
    CALL = 3  # CALL/CALLC/CALLU: push (DST + NUM, PC + 1) and jump to DST when taken
    LOOP = 4  # push (DST + 1, PC + 1, INT.x, INT.z, aL); aL = INT.y
    BREAK = 5  # BREAK/BREAKC: pending break of the top LOOP when taken
    END = 6  # END: the invocation stops, no stack check


class Condition(IntEnum):
    """Where a control instruction's condition comes from."""

    ALWAYS = 0
    FLAGS = 1  # CONDOP of REFX/REFY against the cmp flags (IFC, CALLC, JMPC, BREAKC)
    BOOL = 2  # the bool uniform ID is true (IFU, CALLU)
    BOOLNUM = 3  # JMPU: the bool uniform ID equals NOT bit 0 of NUM (pica-isa.md#op-jmpu)


class Writes(IntFlag):
    """What an opcode's result goes to (3dbrew "Instructions" table, pica-isa.md#opcodes)."""

    NONE = 0
    REGISTER = 1  # an output or temporary register, through the destination mask
    FLAGS = 2  # the condition flags cmp.x, cmp.y (CMP; LITP besides its register)
    ADDRESS = 4  # the address registers a0.x, a0.y (MOVA)


class Result(Enum):
    """The shape of a register result."""

    NONE = "-"  # no register result
    VECTOR = "vec"  # each component computed on its own (also DST, LITP)
    SCALAR = "one"  # one value, written to every component the mask selects (DP3,
    # DP4, DPH, RCP, RSQ, EX2, LG2; pica-isa.md#opcodes)


class Arithmetic(Enum):
    """The float arithmetic an opcode does, where float24 rounds (3dbrew "Instructions";
    pica-emulation.md#mul): these are the opcodes whose results depend on the rounding rule and on
    the multiply where 0 · inf = 0.  Every other opcode selects, compares or uses a
    special-function unit."""

    NONE = "-"
    SUM = "sum"  # ADD: one rounded sum
    PRODUCT = "product"  # MUL, DST: rounded products
    DOT = "dot"  # DP3, DP4, DPH: products summed, each step rounded
    MAD = "mad"  # MAD: a rounded product plus a third source, rounded again (not fused)


class Pad(Enum):
    """picasso's padding rule: after which words a block end gets a NOP of its own
    (pica-assembly.md#padding; see :func:`picasso_pads`)."""

    NONE = "-"
    BLOCK = "block"  # JMP and CALL: any ``.end`` or ``.else`` right after them
    LOOP = "loop"  # BREAK, BREAKC: the ``.end`` of a ``for`` block right after them


@dataclass(frozen=True, slots=True)
class OpcodeInfo:
    """One row of the opcode table."""

    opcode: Opcode
    mnemonic: str  # lower case, as picasso spells it ("" for unknown opcodes)
    format: Format
    kind: Kind
    sources: int  # register source operands
    use: SourceUse
    #: The partner with the other source-width arrangement (DPH <-> DPHI, MAD <-> MADI).
    inverted: Opcode | None = None
    flow: Flow = Flow.NONE
    condition: Condition = Condition.ALWAYS
    writes: Writes = Writes.NONE
    result: Result = Result.NONE
    arithmetic: Arithmetic = Arithmetic.NONE
    pad: Pad = Pad.NONE
    #: One line on what it computes ("" for unknown opcodes).
    summary: str = ""

    @property
    def reads_flags(self) -> bool:
        """The condition is CONDOP over REFX/REFY and the cmp flags."""
        return self.condition is Condition.FLAGS

    @property
    def reads_bool(self) -> bool:
        """The condition tests the bool uniform in the ID field."""
        return self.condition is Condition.BOOL or self.condition is Condition.BOOLNUM

    @property
    def inert(self) -> bool:
        """Executing it changes nothing but the PC (NOP): no register, no flow."""
        return self.kind is Kind.CONTROL and self.flow is Flow.NONE

    @property
    def emission(self) -> EmitEffect:
        """What it does to the geometry emission state."""
        return _EMISSION.get(self.opcode, EmitEffect.NONE)

    @property
    def geometry_only(self) -> bool:
        """Only a geometry shader may execute it (EMIT, SETEMIT)."""
        return self.kind is Kind.GEOMETRY

    @property
    def has_descriptor(self) -> bool:
        """Whether it reads an operand descriptor: the arithmetic and compare opcodes."""
        return "desc" in self.format.layout

    @property
    def has_operands(self) -> bool:
        """Whether the word has any field (format 0 has none: NOP, END, BREAK, EMIT)."""
        return self.format.name != "0"

    @property
    def is_inverted_form(self) -> bool:
        return self.format.name in ("1i", "5i")

    @property
    def base_opcode(self) -> Opcode:
        """The plain form of an I-form (DPHI -> DPH); itself otherwise."""
        return self.inverted if self.is_inverted_form and self.inverted is not None else self.opcode

    @property
    def base_mnemonic(self) -> str:
        """The spelling picasso treats as canonical: the I-forms are chosen automatically,
        so ``dphi`` and ``madi`` are written ``dph`` and ``mad``."""
        return OPCODES[self.base_opcode].mnemonic


#: What each instruction computes, in one line (3dbrew's "Description" column, in
#: gpuisa's words); an I-form shares its partner's line.
_SUMMARIES = """
add     dst = src1 + src2, per component
dp3     every written component = src1.xyz · src2.xyz
dp4     every written component = src1 · src2 (four components)
dph     every written component = src1.xyz · src2.xyz + src2.w (homogeneous dot)
dst     distance vector: dst = (1, src1.y · src2.y, src1.z, src2.w)
ex2     every written component = 2^src1.x
lg2     every written component = log2(src1.x)
litp    partial lighting: clamps src1 and sets cmp.x, cmp.y from its x and w
mul     dst = src1 · src2, per component
sge     dst = src1 >= src2 ? 1.0 : 0.0, per component
slt     dst = src1 < src2 ? 1.0 : 0.0, per component
flr     dst = floor(src1), per component
max     dst = max(src1, src2), per component
min     dst = min(src1, src2), per component
rcp     every written component = 1 / src1.x
rsq     every written component = 1 / sqrt(src1.x)
mova    address registers a0.x / a0.y = src1.x / src1.y converted to integers
mov     dst = src1
cmp     cmp.x = (src1.x OPX src2.x), cmp.y = (src1.y OPY src2.y)
mad     dst = src1 · src2 + src3, per component
break   leaves the innermost `for` loop
nop     does nothing
end     ends the shader invocation
breakc  leaves the innermost `for` loop if the condition holds
call    calls a procedure
callc   calls a procedure if the condition on cmp.x/cmp.y holds
callu   calls a procedure if the boolean uniform is true
ifu     opens an if block taken when the boolean uniform is true (`.else`, `.end`)
ifc     opens an if block taken when the condition holds (`.else`, `.end`)
loop    opens a loop block over an integer uniform (`.end` closes it); the loop
        counter aL indexes c registers
emit    geometry shaders: emits the vertex (and primitive) set up by `setemit`
setemit geometry shaders: selects the vertex slot the next `emit` writes; `prim` also
        emits a primitive, `inv` flips its winding
jmpc    jumps to a label if the condition holds
jmpu    jumps to a label if the boolean uniform is true (`!bN`: false)
"""


def _parse_summaries(text: str) -> dict[str, str]:
    """Mnemonic -> line; an indented line continues the one before."""
    summaries: dict[str, str] = {}
    mnemonic = ""
    for line in text.strip().splitlines():
        if line.startswith(" "):
            summaries[mnemonic] += " " + line.strip()
        else:
            mnemonic, summary = line.split(maxsplit=1)
            summaries[mnemonic] = summary
    return summaries


def _writes(text: str) -> Writes:
    if text == "-":
        return Writes.NONE
    names = {"reg": Writes.REGISTER, "flags": Writes.FLAGS, "addr": Writes.ADDRESS}
    writes = Writes.NONE
    for name in text.split("+"):
        writes |= names[name]
    return writes


def _parse_opcode_table(text: str) -> dict[Opcode, OpcodeInfo]:
    rows: dict[Opcode, OpcodeInfo] = {}
    summaries = _parse_summaries(_SUMMARIES)
    for line in text.strip().splitlines():
        (value, mnemonic, fmt, kind, sources, use, inverted, flow, condition, writes,
         result, arithmetic, pad) = line.split()
        opcode = Opcode(int(value, 16))
        rows[opcode] = OpcodeInfo(
            opcode=opcode,
            mnemonic="" if mnemonic == "-" else mnemonic,
            format=FORMATS[fmt],
            kind=Kind(kind),
            sources=int(sources),
            use=SourceUse(use),
            inverted=None if inverted == "-" else Opcode[inverted.upper()],
            flow=Flow[flow.upper()],
            condition=Condition[condition.upper()],
            writes=_writes(writes),
            result=Result(result),
            arithmetic=Arithmetic(arithmetic),
            pad=Pad(pad),
            summary=summaries.get(mnemonic) or summaries.get(inverted, ""),
        )
    return rows


#: The geometry instructions' effect on the emission state (OpcodeInfo.emission).
_EMISSION = {Opcode.SETEMIT: EmitEffect.SETUP, Opcode.EMIT: EmitEffect.EMIT}

#: Opcode -> its table row.
OPCODES: dict[Opcode, OpcodeInfo] = _parse_opcode_table(_OPCODE_TABLE)
#: Mnemonic -> table row (known opcodes only).
BY_MNEMONIC: dict[str, OpcodeInfo] = {i.mnemonic: i for i in OPCODES.values() if i.mnemonic}


def _by_value() -> tuple[OpcodeInfo, ...]:
    """Every 6-bit value 0x00-0x3F -> the row that decodes it.  A row whose opcode field is
    narrower than 6 bits claims all values that share its top bits."""
    table: list[OpcodeInfo | None] = [None] * (1 << OPCODE_BITS)
    for info in OPCODES.values():
        spread = 1 << (OPCODE_BITS - info.format.opcode_width)
        if info.opcode % spread:
            raise IsaTableError(f"{info.opcode.name}: value not aligned to its opcode width")
        for value in range(info.opcode, info.opcode + spread):
            if table[value] is not None:
                raise IsaTableError(
                    f"opcode value 0x{value:02X} claimed by {table[value].opcode.name} "
                    f"and {info.opcode.name}"
                )
            table[value] = info
    missing = [f"0x{v:02X}" for v, row in enumerate(table) if row is None]
    if missing:
        raise IsaTableError(f"opcode values not accounted for: {', '.join(missing)}")
    return tuple(table)  # type: ignore[arg-type]


#: 6-bit value (bits 26-31 of a word) -> row.  Total over 0x00-0x3F.
BY_VALUE: tuple[OpcodeInfo, ...] = _by_value()


def picasso_pads(closing: str, last: Opcode | None, start: int, position: int,
                 after_end: bool) -> bool:
    """Whether picasso inserts a NOP before closing a block (pica-assembly.md#padding).  The
    assembler applies it, and the disassembler replays it to leave those NOPs out of its text.

    ``closing`` is ``"else"`` or the kind of block an ``.end`` closes (``"proc"``,
    ``"if"``, ``"for"``); ``last`` the opcode of the last instruction (None after a
    ``.word``, which no rule looks at); ``start`` where the block's first word is (an
    IF's or FOR's own opening word); ``position`` how many words precede the closing;
    ``after_end`` whether the last statement was the ``.end`` of an IF or FOR block.
    """
    pad = OPCODES[last].pad if last is not None else Pad.NONE
    if after_end or pad is Pad.BLOCK:
        return True
    if closing == "else":
        return position - start < 2
    if position == 0:
        return False
    if closing == "for" and pad is Pad.LOOP:
        return True
    return position - start < (1 if closing == "proc" else 2)


# -- operand descriptors -------------------------------------------------------------------

#: Operand-descriptor word (3dbrew "Operand descriptors", pica-isa.md#opdesc).  Bit 31 is not
#: described; the Nintendo toolchain sets it (shbin-format.md#dvlp), so the codec preserves it.
OPDESC_LAYOUT = Layout(
    "operand descriptor",
    [
        ("mask", 0, 4),
        ("neg1", 4, 1),
        ("sel1", 5, 8),
        ("neg2", 13, 1),
        ("sel2", 14, 8),
        ("neg3", 22, 1),
        ("sel3", 23, 8),
    ],
    WORD_BITS,
)

#: Component names in selector value order (pica-isa.md#opdesc: 0 = x, 1 = y, 2 = z, 3 = w).
COMPONENTS = "xyzw"
#: Alternative letter sets accepted by picasso for the same components.
COMPONENT_ALIASES = ("xyzw", "rgba", "stpq")
#: The identity selector .xyzw (3dbrew: "component selector 0x1B is equivalent
#: to .xyzw"; pica-isa.md#opdesc).
IDENTITY_SELECTOR = 0x1B


def selector_components(selector: int) -> tuple[int, int, int, int]:
    """Component indices picked by an 8-bit selector; component 0 is in bits 6-7."""
    return tuple((selector >> (6 - 2 * i)) & 3 for i in range(4))  # type: ignore[return-value]


def components_selector(components: tuple[int, ...] | list[int]) -> int:
    """Inverse of :func:`selector_components` (exactly four components)."""
    if len(components) != 4 or any(not 0 <= c <= 3 for c in components):
        raise ValueError(f"a selector needs four components 0..3, got {components!r}")
    return sum(c << (6 - 2 * i) for i, c in enumerate(components))


def mask_components(mask: int) -> tuple[int, ...]:
    """Components written by a destination mask (pica-isa.md#opdesc: bit 3 = x, 2 = y,
    1 = z, 0 = w)."""
    return tuple(i for i in range(4) if mask & (8 >> i))


def components_mask(components) -> int:
    mask = 0
    for c in components:
        mask |= 8 >> c
    return mask


# -- registers -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RegisterBank:
    """A run of registers sharing a name prefix: raw field values base..base+count-1."""

    prefix: str
    base: int
    count: int

    def __contains__(self, raw: int) -> bool:
        return self.base <= raw < self.base + self.count


#: SRC mapping (pica-isa.md#registers: 0x00-0x0F v, 0x10-0x1F r, 0x20-0x7F c).
SOURCE_BANKS = (
    RegisterBank("v", 0x00, NUM_INPUTS),
    RegisterBank("r", 0x10, NUM_TEMPORARIES),
    RegisterBank("c", 0x20, NUM_FLOAT_UNIFORMS),
)
#: DST mapping (pica-isa.md#registers: 0x00-0x0F o, 0x10-0x1F r).
DESTINATION_BANKS = (
    RegisterBank("o", 0x00, NUM_OUTPUTS),
    RegisterBank("r", 0x10, NUM_TEMPORARIES),
)


def _register(banks: tuple[RegisterBank, ...], raw: int) -> tuple[str, int]:
    for bank in banks:
        if raw in bank:
            return bank.prefix, raw - bank.base
    raise ValueError(f"0x{raw:X} is not a register field value")


def source_register(raw: int) -> tuple[str, int]:
    """('v' | 'r' | 'c', number) for a source field value 0x00-0x7F."""
    return _register(SOURCE_BANKS, raw)


def destination_register(raw: int) -> tuple[str, int]:
    """('o' | 'r', number) for a destination field value 0x00-0x1F."""
    return _register(DESTINATION_BANKS, raw)


def register_field(banks: tuple[RegisterBank, ...], prefix: str, number: int) -> int:
    """Raw field value of register ``prefix``+``number``."""
    for bank in banks:
        if bank.prefix == prefix and 0 <= number < bank.count:
            return bank.base + number
    raise ValueError(f"no register {prefix}{number} in this field")


#: IDX field values (3dbrew "Relative addressing"; pica-isa.md#index-registers).
INDEX_REGISTERS: dict[int, str | None] = {0: None, 1: "a0.x", 2: "a0.y", 3: "aL"}
#: Relative offsets outside this range are ignored (treated as 0) by the hardware.
RELATIVE_OFFSET_RANGE = (-128, 127)
#: Index into c0-c95 wraps with this mask; beyond c95 the operand reads (1, 1, 1, 1).
RELATIVE_INDEX_MASK = 0x7F


# -- comparisons and conditions ------------------------------------------------------------


class CompareOp(IntEnum):
    """CMPX/CMPY field values (pica-isa.md#compare-ops).  6 and 7 evaluate to true."""

    EQ = 0
    NE = 1
    LT = 2
    LE = 3
    GT = 4
    GE = 5
    TRUE_6 = 6
    TRUE_7 = 7


class CondOp(IntEnum):
    """CONDOP field values (pica-isa.md#conditions)."""

    OR = 0  # cmp.x == REFX || cmp.y == REFY
    AND = 1  # cmp.x == REFX && cmp.y == REFY
    X = 2  # cmp.x == REFX
    Y = 3  # cmp.y == REFY


class GeometryMode(IntEnum):
    """DVLE geometry-shader input modes (shbin-format.md#dvle-header)."""

    POINT = 0
    VARIABLE = 1
    FIXED = 2


# -- validation ----------------------------------------------------------------------------


def _validate() -> None:
    for fmt in FORMATS.values():
        if fmt.layout.used_mask & fmt.opcode_field.mask:
            raise IsaTableError(f"format {fmt.name}: a field overlaps the opcode bits")
        if fmt.indexed_source is not None and (
            fmt.indexed_source not in fmt.layout or fmt.layout[fmt.indexed_source].width != 7
        ):
            raise IsaTableError(f"format {fmt.name}: the indexed source must be the 7-bit one")
    if set(OPCODES) != set(Opcode):
        raise IsaTableError("every Opcode member needs exactly one table row")
    for info in OPCODES.values():
        if info.inverted is not None and OPCODES[info.inverted].inverted is not info.opcode:
            raise IsaTableError(f"{info.opcode.name}: inverted partners must point at each other")
        if info.has_descriptor != (info.kind in (Kind.ARITHMETIC, Kind.COMPARE)):
            raise IsaTableError(f"{info.opcode.name}: only arithmetic and compare opcodes, "
                                "and all of them, have an operand descriptor")
        if info.has_descriptor and len(info.format.sources) != info.sources:
            raise IsaTableError(f"{info.opcode.name}: source count disagrees with its format")
        if (info.emission is not EmitEffect.NONE) != info.geometry_only:
            raise IsaTableError(f"{info.opcode.name}: geometry opcodes, and only they, "
                                "have an emission effect")
        _validate_flow(info)
        _validate_result(info)
    if any(bool(i.summary) != bool(i.mnemonic) for i in OPCODES.values()):
        raise IsaTableError("every known opcode, and only a known one, needs a summary")
    if len(BY_MNEMONIC) != sum(1 for i in OPCODES.values() if i.mnemonic):
        raise IsaTableError("duplicate mnemonic in the opcode table")


def _validate_result(info: OpcodeInfo) -> None:
    """What an opcode writes must fit its kind and format; I-form partners agree on every
    fact but their field widths; padding follows flow words only."""
    name = info.opcode.name
    if (info.writes is Writes.NONE) == info.has_descriptor:
        raise IsaTableError(f"{name}: only arithmetic and compare opcodes write something")
    if Writes.REGISTER in info.writes and "dst" not in info.format.layout:
        raise IsaTableError(f"{name}: writing a register needs the dst field")
    if (info.result is Result.NONE) != (Writes.REGISTER not in info.writes):
        raise IsaTableError(f"{name}: a register result needs a shape, and only it")
    if info.arithmetic is not Arithmetic.NONE and info.writes is not Writes.REGISTER:
        raise IsaTableError(f"{name}: rounding arithmetic produces a register result")
    if info.result is Result.SCALAR and info.use is SourceUse.MASKED:
        raise IsaTableError(f"{name}: a replicated result cannot read per written component")
    if (info.arithmetic is Arithmetic.DOT) != (
        info.result is Result.SCALAR and info.sources == 2
    ):
        raise IsaTableError(f"{name}: the dot products are the two-source scalar results")
    if info.kind is Kind.COMPARE and info.writes is not Writes.FLAGS:
        raise IsaTableError(f"{name}: a compare writes the flags only")
    if info.pad is Pad.BLOCK and info.flow not in (Flow.JUMP, Flow.CALL):
        raise IsaTableError(f"{name}: only JMP and CALL words pad any block end")
    if info.pad is Pad.LOOP and info.flow is not Flow.BREAK:
        raise IsaTableError(f"{name}: only BREAK words pad a loop's end")
    if info.inverted is not None:
        partner = OPCODES[info.inverted]
        same = ("kind", "sources", "use", "flow", "condition", "writes", "result",
                "arithmetic", "pad")
        if any(getattr(info, f) != getattr(partner, f) for f in same):
            raise IsaTableError(f"{name}: its I-form partner must have the same facts")


def _validate_flow(info: OpcodeInfo) -> None:
    """Flow effects need the fields they read: a condition from the flags needs CONDOP,
    one from a bool uniform the ID field; jumps, IFs, CALLs and LOOPs need DST."""
    fields = info.format.layout
    if (info.flow is Flow.NONE or info.flow is Flow.END) != (
        info.kind is not Kind.FLOW
    ):
        raise IsaTableError(f"{info.opcode.name}: flow effect disagrees with kind {info.kind}")
    needs = {Condition.FLAGS: "condop", Condition.BOOL: "id", Condition.BOOLNUM: "id"}
    field = needs.get(info.condition)
    if field is not None and field not in fields:
        raise IsaTableError(f"{info.opcode.name}: its condition needs the {field} field")
    if info.flow in (Flow.JUMP, Flow.IF, Flow.CALL, Flow.LOOP) and "dst" not in fields:
        raise IsaTableError(f"{info.opcode.name}: its flow effect needs the dst field")


_validate()
