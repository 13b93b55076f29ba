"""The Adreno A2XX (Xenos) shader ISA as data.

Everything other A2XX modules know about the encoding lives here: the bit layouts of the
48-bit CF clauses and the 96-bit ALU/FETCH slots, every opcode with its Mesa/freedreno and
XNA names, and the enumerations of the smaller fields.  The tables are checked when this
module loads (no overlapping fields, every value of every opcode field either defined or
explicitly declared unused), so an inconsistent edit fails at import time with
:class:`~gpuisa.errors.IsaTableError`.

Reference: a2xx-isa.md (cited below by its anchors, e.g. a2xx-isa.md#cf-exec).  Bit
positions in the 96-bit layouts are ``32 * dword + bit``: a slot is the integer
``d0 | d1 << 32 | d2 << 64``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum, IntEnum

from ..bits import Layout
from ..errors import IsaTableError

SLOT_DWORDS = 3
SLOT_BITS = 96
CF_CLAUSE_BITS = 48

# a2xx-isa.md#cf-slot: clause A is the low 48 bits of the slot, clause B the high 48 bits.
CF_SLOT = Layout("cf_slot", [("clause0", 0, 48), ("clause1", 48, 48)], SLOT_BITS)


# --------------------------------------------------------------------------------------
# Control flow (a2xx-isa.md#cf)
# --------------------------------------------------------------------------------------


class CfOpcode(IntEnum):
    NOP = 0
    EXEC = 1
    EXEC_END = 2
    COND_EXEC = 3
    COND_EXEC_END = 4
    COND_PRED_EXEC = 5
    COND_PRED_EXEC_END = 6
    LOOP_START = 7
    LOOP_END = 8
    COND_CALL = 9
    RETURN = 10
    COND_JMP = 11
    ALLOC = 12
    COND_EXEC_PRED_CLEAN = 13
    COND_EXEC_PRED_CLEAN_END = 14
    MARK_VS_FETCH_DONE = 15


class CfKind(Enum):
    """Which clause layout an opcode uses."""

    NOP = "nop"
    EXEC = "exec"
    LOOP = "loop"
    JMP_CALL = "jmp_call"
    ALLOC = "alloc"


class ExecCondition(Enum):
    """What an EXEC-family clause tests before running its block."""

    NONE = "none"
    BOOL = "bool"  # bool constant ``bool_addr`` == ``condition``
    PREDICATE = "predicate"  # p0 == ``condition``


class AddressMode(IntEnum):
    RELATIVE = 0  # aL
    ABSOLUTE = 1  # a0


class AllocBuffer(IntEnum):
    NO_ALLOC = 0
    POSITION = 1
    PARAM_PIXEL = 2
    MEMORY = 3


@dataclass(frozen=True, slots=True)
class CfOpInfo:
    opcode: CfOpcode
    kind: CfKind
    condition: ExecCondition = ExecCondition.NONE
    ends: bool = False
    # XNA "PredicateClean": None = read from clause bit 41 (plain and predicated execs),
    # otherwise fixed by the opcode (XE-U, a2xx-isa.md#xna-text).
    predicate_clean: bool | None = None

    @property
    def name(self) -> str:
        """Mesa/freedreno spelling (a2xx-isa.md#mesa-cf)."""
        return self.opcode.name

    @property
    def is_exec(self) -> bool:
        return self.kind is CfKind.EXEC


def _cf(op: CfOpcode, kind: CfKind, **kw: object) -> tuple[CfOpcode, CfOpInfo]:
    return op, CfOpInfo(op, kind, **kw)  # type: ignore[arg-type]


_B, _P = ExecCondition.BOOL, ExecCondition.PREDICATE
CF_OPS: Mapping[CfOpcode, CfOpInfo] = dict(
    [
        _cf(CfOpcode.NOP, CfKind.NOP),
        _cf(CfOpcode.EXEC, CfKind.EXEC),
        _cf(CfOpcode.EXEC_END, CfKind.EXEC, ends=True),
        _cf(CfOpcode.COND_EXEC, CfKind.EXEC, condition=_B, predicate_clean=False),
        _cf(CfOpcode.COND_EXEC_END, CfKind.EXEC, condition=_B, ends=True, predicate_clean=False),
        _cf(CfOpcode.COND_PRED_EXEC, CfKind.EXEC, condition=_P),
        _cf(CfOpcode.COND_PRED_EXEC_END, CfKind.EXEC, condition=_P, ends=True),
        _cf(CfOpcode.LOOP_START, CfKind.LOOP),
        _cf(CfOpcode.LOOP_END, CfKind.LOOP),
        _cf(CfOpcode.COND_CALL, CfKind.JMP_CALL),
        _cf(CfOpcode.RETURN, CfKind.JMP_CALL),
        _cf(CfOpcode.COND_JMP, CfKind.JMP_CALL),
        _cf(CfOpcode.ALLOC, CfKind.ALLOC),
        # Despite the name these test a bool constant (XE-U, a2xx-isa.md#cf-opcodes).
        _cf(CfOpcode.COND_EXEC_PRED_CLEAN, CfKind.EXEC, condition=_B, predicate_clean=True),
        _cf(
            CfOpcode.COND_EXEC_PRED_CLEAN_END,
            CfKind.EXEC,
            condition=_B,
            ends=True,
            predicate_clean=True,
        ),
        _cf(CfOpcode.MARK_VS_FETCH_DONE, CfKind.NOP),
    ]
)
CF_UNUSED: frozenset[int] = frozenset()

CF_OPCODE_FIELD = ("opcode", 44, 4)

# Clause layouts (48 bits).  Bits no field covers are kept verbatim by the encoder.
CF_LAYOUTS: Mapping[CfKind, Layout] = {
    CfKind.NOP: Layout("cf_nop", [CF_OPCODE_FIELD], CF_CLAUSE_BITS),
    # a2xx-isa.md#cf-exec.  The address is Mesa's 9-bit field; bits 9-11 (Xenia's wider address) are
    # reserved.  Bit 41 of bool_addr doubles as Xenia's is_predicate_clean.
    CfKind.EXEC: Layout(
        "cf_exec",
        [
            ("address", 0, 9),
            ("count", 12, 3),
            ("is_yield", 15, 1),
            ("serialize", 16, 12),
            ("vc", 28, 6),
            ("bool_addr", 34, 8),
            ("condition", 42, 1),
            ("address_mode", 43, 1),
            CF_OPCODE_FIELD,
        ],
        CF_CLAUSE_BITS,
    ),
    # a2xx-isa.md#cf-loop.  LOOP_START and LOOP_END share one layout: is_repeat only means something
    # for LOOP_START, is_predicated_break/condition only for LOOP_END (Xenia).
    CfKind.LOOP: Layout(
        "cf_loop",
        [
            ("address", 0, 10),
            ("is_repeat", 13, 1),
            ("loop_id", 16, 5),
            ("is_predicated_break", 21, 1),
            ("condition", 42, 1),
            ("address_mode", 43, 1),
            CF_OPCODE_FIELD,
        ],
        CF_CLAUSE_BITS,
    ),
    # a2xx-isa.md#cf-call-jmp.  RETURN uses this layout too (Mesa prints it like a jump).
    CfKind.JMP_CALL: Layout(
        "cf_jmp_call",
        [
            ("address", 0, 10),
            ("force_call", 13, 1),
            ("predicated_jmp", 14, 1),
            ("direction", 33, 1),
            ("bool_addr", 34, 8),
            ("condition", 42, 1),
            ("address_mode", 43, 1),
            CF_OPCODE_FIELD,
        ],
        CF_CLAUSE_BITS,
    ),
    # a2xx-isa.md#cf-alloc.  Size is FD-H's 4 bits (Xenia: 3).
    CfKind.ALLOC: Layout(
        "cf_alloc",
        [
            ("size", 0, 4),
            ("no_serial", 40, 1),
            ("buffer_select", 41, 2),
            ("alloc_mode", 43, 1),
            CF_OPCODE_FIELD,
        ],
        CF_CLAUSE_BITS,
    ),
}

# Xenia reads some CF fields wider than Mesa (a2xx-isa.md#adreno-vs-xenos); the extra bits are
# reserved (unused) in the layouts above.  Used by the XNA-style listing.
XENIA_ADDRESS_BITS: Mapping[CfKind, int] = {CfKind.EXEC: 12, CfKind.LOOP: 13, CfKind.JMP_CALL: 13}
XENIA_ALLOC_SIZE_BITS = 3
# Xenia's is_predicate_clean: clause bit 41 (bool_addr bit 7) of plain and predicated
# execs; blob compilers set it, which Mesa prints as BOOL_ADDR(0x80) (a2xx-isa.md#cf-exec).
XENIA_PREDICATE_CLEAN_BIT = 41

# EXEC sequence field: 2 bits per instruction, low bit = FETCH, high bit = serialize.
SEQUENCE_BITS_PER_INSTR = 2
SEQUENCE_FETCH = 0x1
SEQUENCE_SERIALIZE = 0x2
# Instructions an exec's sequence field describes (its 12 bits, two per instruction); a
# 7th, which the 3-bit count allows, reads as a plain ALU instruction.
EXEC_SEQUENCE_SLOTS = CF_LAYOUTS[CfKind.EXEC]["serialize"].width // SEQUENCE_BITS_PER_INSTR

ALLOC_BUFFER_NAMES: Mapping[AllocBuffer, str] = {
    AllocBuffer.NO_ALLOC: "NO ALLOC",
    AllocBuffer.POSITION: "POSITION",
    AllocBuffer.PARAM_PIXEL: "PARAM/PIXEL",
    AllocBuffer.MEMORY: "MEMORY",
}


# --------------------------------------------------------------------------------------
# ALU (a2xx-isa.md#alu)
# --------------------------------------------------------------------------------------


class VectorOpcode(IntEnum):
    ADDv = 0
    MULv = 1
    MAXv = 2
    MINv = 3
    SETEv = 4
    SETGTv = 5
    SETGTEv = 6
    SETNEv = 7
    FRACv = 8
    TRUNCv = 9
    FLOORv = 10
    MULADDv = 11
    CNDEv = 12
    CNDGTEv = 13
    CNDGTv = 14
    DOT4v = 15
    DOT3v = 16
    DOT2ADDv = 17
    CUBEv = 18
    MAX4v = 19
    PRED_SETE_PUSHv = 20
    PRED_SETNE_PUSHv = 21
    PRED_SETGT_PUSHv = 22
    PRED_SETGTE_PUSHv = 23
    KILLEv = 24
    KILLGTv = 25
    KILLGTEv = 26
    KILLNEv = 27
    DSTv = 28
    MOVAv = 29


class ScalarOpcode(IntEnum):
    ADDs = 0
    ADD_PREVs = 1
    MULs = 2
    MUL_PREVs = 3
    MUL_PREV2s = 4
    MAXs = 5
    MINs = 6
    SETEs = 7
    SETGTs = 8
    SETGTEs = 9
    SETNEs = 10
    FRACs = 11
    TRUNCs = 12
    FLOORs = 13
    EXP_IEEE = 14
    LOG_CLAMP = 15
    LOG_IEEE = 16
    RECIP_CLAMP = 17
    RECIP_FF = 18
    RECIP_IEEE = 19
    RECIPSQ_CLAMP = 20
    RECIPSQ_FF = 21
    RECIPSQ_IEEE = 22
    MOVAs = 23
    MOVA_FLOORs = 24
    SUBs = 25
    SUB_PREVs = 26
    PRED_SETEs = 27
    PRED_SETNEs = 28
    PRED_SETGTs = 29
    PRED_SETGTEs = 30
    PRED_SET_INVs = 31
    PRED_SET_POPs = 32
    PRED_SET_CLRs = 33
    PRED_SET_RESTOREs = 34
    KILLEs = 35
    KILLGTs = 36
    KILLGTEs = 37
    KILLNEs = 38
    KILLONEs = 39
    SQRT_IEEE = 40
    MUL_CONST_0 = 42
    MUL_CONST_1 = 43
    ADD_CONST_0 = 44
    ADD_CONST_1 = 45
    SUB_CONST_0 = 46
    SUB_CONST_1 = 47
    SIN = 48
    COS = 49
    RETAIN_PREV = 50


class ScalarOperands(Enum):
    """Which values a scalar op reads from source 3 (a2xx-isa.md#scalar-ops)."""

    NONE = "none"  # no operand
    A = "a"  # one lane (the W lane, or a and ps for *_PREV ops)
    AB = "ab"  # two lanes of the same source
    CONST_REG = "const_reg"  # *_CONST_0/1: a constant and a temp built from other bits


@dataclass(frozen=True, slots=True)
class VectorOpInfo:
    opcode: VectorOpcode
    xna: str
    mesa_srcs: int  # operands Mesa's disassembler prints (a2xx-isa.md#mesa-alu)
    srcs: int  # operands the operation reads (XE-U; differs from Mesa only for MOVAv)

    @property
    def name(self) -> str:
        return self.opcode.name


@dataclass(frozen=True, slots=True)
class ScalarOpInfo:
    opcode: ScalarOpcode
    xna: str
    operands: ScalarOperands

    @property
    def name(self) -> str:
        return self.opcode.name


VECTOR_OPS: Mapping[VectorOpcode, VectorOpInfo] = {
    info.opcode: info
    for info in (
        VectorOpInfo(VectorOpcode.ADDv, "add", 2, 2),
        VectorOpInfo(VectorOpcode.MULv, "mul", 2, 2),
        VectorOpInfo(VectorOpcode.MAXv, "max", 2, 2),
        VectorOpInfo(VectorOpcode.MINv, "min", 2, 2),
        VectorOpInfo(VectorOpcode.SETEv, "seq", 2, 2),
        VectorOpInfo(VectorOpcode.SETGTv, "sgt", 2, 2),
        VectorOpInfo(VectorOpcode.SETGTEv, "sge", 2, 2),
        VectorOpInfo(VectorOpcode.SETNEv, "sne", 2, 2),
        VectorOpInfo(VectorOpcode.FRACv, "frc", 1, 1),
        VectorOpInfo(VectorOpcode.TRUNCv, "trunc", 1, 1),
        VectorOpInfo(VectorOpcode.FLOORv, "floor", 1, 1),
        VectorOpInfo(VectorOpcode.MULADDv, "mad", 3, 3),
        VectorOpInfo(VectorOpcode.CNDEv, "cndeq", 3, 3),
        VectorOpInfo(VectorOpcode.CNDGTEv, "cndge", 3, 3),
        VectorOpInfo(VectorOpcode.CNDGTv, "cndgt", 3, 3),
        VectorOpInfo(VectorOpcode.DOT4v, "dp4", 2, 2),
        VectorOpInfo(VectorOpcode.DOT3v, "dp3", 2, 2),
        VectorOpInfo(VectorOpcode.DOT2ADDv, "dp2add", 3, 3),
        VectorOpInfo(VectorOpcode.CUBEv, "cube", 2, 2),
        VectorOpInfo(VectorOpcode.MAX4v, "max4", 1, 1),
        VectorOpInfo(VectorOpcode.PRED_SETE_PUSHv, "setp_eq_push", 2, 2),
        VectorOpInfo(VectorOpcode.PRED_SETNE_PUSHv, "setp_ne_push", 2, 2),
        VectorOpInfo(VectorOpcode.PRED_SETGT_PUSHv, "setp_gt_push", 2, 2),
        VectorOpInfo(VectorOpcode.PRED_SETGTE_PUSHv, "setp_ge_push", 2, 2),
        VectorOpInfo(VectorOpcode.KILLEv, "kill_eq", 2, 2),
        VectorOpInfo(VectorOpcode.KILLGTv, "kill_gt", 2, 2),
        VectorOpInfo(VectorOpcode.KILLGTEv, "kill_ge", 2, 2),
        VectorOpInfo(VectorOpcode.KILLNEv, "kill_ne", 2, 2),
        VectorOpInfo(VectorOpcode.DSTv, "dst", 2, 2),
        VectorOpInfo(VectorOpcode.MOVAv, "maxa", 1, 2),
    )
}
# 31 is Mesa's internal "no vector op"; neither value is a hardware operation.
VECTOR_UNUSED: frozenset[int] = frozenset({30, 31})
# Operands Mesa prints for an unused vector opcode: its table entry has num_srcs = 0,
# which prints src1 only (neither "== 3" nor "> 1").
MESA_UNKNOWN_VECTOR_SRCS = 1

_A, _AB = ScalarOperands.A, ScalarOperands.AB
_N, _CR = ScalarOperands.NONE, ScalarOperands.CONST_REG
SCALAR_OPS: Mapping[ScalarOpcode, ScalarOpInfo] = {
    info.opcode: info
    for info in (
        ScalarOpInfo(ScalarOpcode.ADDs, "adds", _AB),
        ScalarOpInfo(ScalarOpcode.ADD_PREVs, "adds_prev", _A),
        ScalarOpInfo(ScalarOpcode.MULs, "muls", _AB),
        ScalarOpInfo(ScalarOpcode.MUL_PREVs, "muls_prev", _A),
        ScalarOpInfo(ScalarOpcode.MUL_PREV2s, "muls_prev2", _AB),
        ScalarOpInfo(ScalarOpcode.MAXs, "maxs", _AB),
        ScalarOpInfo(ScalarOpcode.MINs, "mins", _AB),
        ScalarOpInfo(ScalarOpcode.SETEs, "seqs", _A),
        ScalarOpInfo(ScalarOpcode.SETGTs, "sgts", _A),
        ScalarOpInfo(ScalarOpcode.SETGTEs, "sges", _A),
        ScalarOpInfo(ScalarOpcode.SETNEs, "snes", _A),
        ScalarOpInfo(ScalarOpcode.FRACs, "frcs", _A),
        ScalarOpInfo(ScalarOpcode.TRUNCs, "truncs", _A),
        ScalarOpInfo(ScalarOpcode.FLOORs, "floors", _A),
        ScalarOpInfo(ScalarOpcode.EXP_IEEE, "exp", _A),
        ScalarOpInfo(ScalarOpcode.LOG_CLAMP, "logc", _A),
        ScalarOpInfo(ScalarOpcode.LOG_IEEE, "log", _A),
        ScalarOpInfo(ScalarOpcode.RECIP_CLAMP, "rcpc", _A),
        ScalarOpInfo(ScalarOpcode.RECIP_FF, "rcpf", _A),
        ScalarOpInfo(ScalarOpcode.RECIP_IEEE, "rcp", _A),
        ScalarOpInfo(ScalarOpcode.RECIPSQ_CLAMP, "rsqc", _A),
        ScalarOpInfo(ScalarOpcode.RECIPSQ_FF, "rsqf", _A),
        ScalarOpInfo(ScalarOpcode.RECIPSQ_IEEE, "rsq", _A),
        ScalarOpInfo(ScalarOpcode.MOVAs, "maxas", _AB),
        ScalarOpInfo(ScalarOpcode.MOVA_FLOORs, "maxasf", _AB),
        ScalarOpInfo(ScalarOpcode.SUBs, "subs", _AB),
        ScalarOpInfo(ScalarOpcode.SUB_PREVs, "subs_prev", _A),
        ScalarOpInfo(ScalarOpcode.PRED_SETEs, "setp_eq", _A),
        ScalarOpInfo(ScalarOpcode.PRED_SETNEs, "setp_ne", _A),
        ScalarOpInfo(ScalarOpcode.PRED_SETGTs, "setp_gt", _A),
        ScalarOpInfo(ScalarOpcode.PRED_SETGTEs, "setp_ge", _A),
        ScalarOpInfo(ScalarOpcode.PRED_SET_INVs, "setp_inv", _A),
        ScalarOpInfo(ScalarOpcode.PRED_SET_POPs, "setp_pop", _A),
        ScalarOpInfo(ScalarOpcode.PRED_SET_CLRs, "setp_clr", _N),
        ScalarOpInfo(ScalarOpcode.PRED_SET_RESTOREs, "setp_rstr", _A),
        ScalarOpInfo(ScalarOpcode.KILLEs, "kills_eq", _A),
        ScalarOpInfo(ScalarOpcode.KILLGTs, "kills_gt", _A),
        ScalarOpInfo(ScalarOpcode.KILLGTEs, "kills_ge", _A),
        ScalarOpInfo(ScalarOpcode.KILLNEs, "kills_ne", _A),
        ScalarOpInfo(ScalarOpcode.KILLONEs, "kills_one", _A),
        ScalarOpInfo(ScalarOpcode.SQRT_IEEE, "sqrt", _A),
        ScalarOpInfo(ScalarOpcode.MUL_CONST_0, "mulsc", _CR),
        ScalarOpInfo(ScalarOpcode.MUL_CONST_1, "mulsc", _CR),
        ScalarOpInfo(ScalarOpcode.ADD_CONST_0, "addsc", _CR),
        ScalarOpInfo(ScalarOpcode.ADD_CONST_1, "addsc", _CR),
        ScalarOpInfo(ScalarOpcode.SUB_CONST_0, "subsc", _CR),
        ScalarOpInfo(ScalarOpcode.SUB_CONST_1, "subsc", _CR),
        ScalarOpInfo(ScalarOpcode.SIN, "sin", _A),
        ScalarOpInfo(ScalarOpcode.COS, "cos", _A),
        ScalarOpInfo(ScalarOpcode.RETAIN_PREV, "retain_prev", _N),
    )
}
# 41 is XNA's "opcode_41"; 63 is Mesa's internal SCALAR_NONE.
SCALAR_UNUSED: frozenset[int] = frozenset({41, *range(51, 64)})

# a2xx-isa.md#alu-layout.  Register bytes (src*_reg) hold a temp (bits 0-5 index, bit 6 aL-relative,
# bit 7 abs) or a full 8-bit constant index, depending on src*_sel.
ALU_LAYOUT = Layout(
    "alu",
    [
        # dword 0
        ("vector_dest", 0, 6),
        ("vector_dest_rel", 6, 1),
        # Mesa: low_precision_16b_fp; Xenia: abs_constants (abs of constant operands).
        ("abs_constants", 7, 1),
        ("scalar_dest", 8, 6),
        ("scalar_dest_rel", 14, 1),
        ("export_data", 15, 1),
        ("vector_write_mask", 16, 4),
        ("scalar_write_mask", 20, 4),
        ("vector_clamp", 24, 1),
        ("scalar_clamp", 25, 1),
        ("scalar_opc", 26, 6),
        # dword 1
        ("src3_swiz", 32, 8),
        ("src2_swiz", 40, 8),
        ("src1_swiz", 48, 8),
        ("src3_reg_negate", 56, 1),
        ("src2_reg_negate", 57, 1),
        ("src1_reg_negate", 58, 1),
        # Mesa's 2-bit pred_select: bit 0 = condition, bit 1 = predicated.
        ("pred_condition", 59, 1),
        ("pred_select", 60, 1),
        ("relative_addr", 61, 1),  # constant relative addressing: 1 = a0, 0 = aL
        ("const_1_rel_abs", 62, 1),
        ("const_0_rel_abs", 63, 1),
        # dword 2
        ("src3_reg", 64, 8),
        ("src2_reg", 72, 8),
        ("src1_reg", 80, 8),
        ("vector_opc", 88, 5),
        ("src3_sel", 93, 1),  # 1 = temp register (R), 0 = constant (C)
        ("src2_sel", 94, 1),
        ("src1_sel", 95, 1),
    ],
    SLOT_BITS,
)

# --------------------------------------------------------------------------------------
# Encoder defaults: the vendor compiler's values for bits Mesa's text does not show
# --------------------------------------------------------------------------------------
# The assembler starts every instruction written without raw columns from these values
# and writes over them what the text says, so Mesa's text of a vendor-compiled shader
# reassembles to the vendor's words.  Every field not named here defaults to 0.
# Evidence:
#   B  - the Adreno GLES driver's programs as freedreno captured them from its command
#        stream (freedreno-zz/freedreno: fdre/freedreno.c at 01126b29, its solid-fill
#        shaders, and an early fdre/tests/cube.c, its cube shaders;
#        tests/a2xx/data/adreno-captures.txt keeps all four);
#   G  - the four GMEM save/restore shaders the vendor compiler built for the Adreno 200
#        kernel driver (linux-freedreno-a20x, drivers/mxc/amd-gpu/common/gsl_drawctxt.c:
#        gmem2sys_vtx_pgm, gmem2sys_frag_pgm, sys2gmem_vtx_pgm, sys2gmem_frag_pgm), which
#        agree with B except where the ``adreno-kernel`` toolchain says (toolchains.py);
#   MI - Mesa's first a2xx emitter (gallium/drivers/freedreno/a2xx/ir-a2xx.c), whose
#        comments record what "the adreno compiler" does;
#   MA - Mesa's current emitter (gallium/drivers/freedreno/a2xx/ir2_assemble.c).

ALU_DEFAULTS: Mapping[str, int] = {
    # No scalar line: MAXs.  B and G: d0 bits 26-31 = 5 in every vector-only slot (the
    # cube VS's MULv 0x140f0000, gmem2sys FS word 6 = 0x140f8000); MI: "adreno compiler
    # seems to always set scalar opc to MAXs if it is not used".
    "scalar_opc": ScalarOpcode.MAXs,
    # src3 neither printed as a vector operand nor as the scalar operand: register bank
    # R (temp) with register byte, swizzle and negate 0.  B and G: d2 bit 29 set where
    # src3 is unused (the cube VS's MULv R0 = R2.wwww, C7 ends 0xa1020700; gmem2sys FS
    # word 8 = 0x22000000: C0, C0 and src3_sel = 1); MI: "adreno compiler seems to always
    # set register bank for 3rd src if unused".
    "src3_sel": 1,
}
#: The ALU fields other compilers fill differently where the text shows nothing
#: (a2xx/toolchains.py gives the evidence): the XDK compiler leaves RETAIN_PREV in a
#: vector-only slot (d0 bits 26-31 = 0x32); Mesa's ir2 starts an instruction from zero
#: (ADDs, an unused third source from constant 0).
XDK_ALU_DEFAULTS: Mapping[str, int] = {**ALU_DEFAULTS, "scalar_opc": ScalarOpcode.RETAIN_PREV}
MESA_ALU_DEFAULTS: Mapping[str, int] = {**ALU_DEFAULTS, "scalar_opc": ScalarOpcode.ADDs,
                                        "src3_sel": 0}
# A one-source vector operation's unprinted src2 repeats src1 (register byte, bank,
# swizzle, negate): MA sets src2 = src1 for one-source operations, MI always passes two
# sources; G has no one-source operation, and its moves (MAXv Rn = Rm, Rm) repeat src1.
ALU_SRC2_REPEATS_SRC1 = True

# Register byte of a temp operand.
REG_INDEX_MASK = 0x3F
REG_REL_BIT = 0x40
REG_ABS_BIT = 0x80

# Export register numbers (a2xx-isa.md#exports).
EXPORT_FRAG_COLOR = 0
EXPORT_INTERPOLATORS = 16  # vertex shader exports 0-15
EXPORT_COLORS = 4  # pixel shader exports 0-3
EXPORT_ADDRESS = 32
EXPORT_DATA_FIRST = 33
EXPORT_DATA_LAST = 37
EXPORT_DEPTH = 61
EXPORT_POSITION = 62
EXPORT_POINT_SIZE = 63


def export_kind(number: int, vertex: bool) -> tuple[str | None, int]:
    """What export register ``number`` of a vertex (``vertex``) or pixel shader is: its
    kind ("param", "position", "point_size", "color", "depth", "address", "data"; None
    for a number no shader of that type exports to) and its index within the kind
    (a2xx-isa.md#exports)."""
    if number == EXPORT_ADDRESS:
        return "address", 0
    if EXPORT_DATA_FIRST <= number <= EXPORT_DATA_LAST:
        return "data", number - EXPORT_DATA_FIRST
    if vertex:
        if number < EXPORT_INTERPOLATORS:
            return "param", number
        named = {EXPORT_POSITION: "position", EXPORT_POINT_SIZE: "point_size"}
    else:
        if number < EXPORT_COLORS:
            return "color", number
        named = {EXPORT_DEPTH: "depth"}
    return named.get(number), 0


# --------------------------------------------------------------------------------------
# Swizzles (a2xx-isa.md#swizzles)
# --------------------------------------------------------------------------------------

SWIZZLE_CHARS = "xyzw"
# Fetch destination selectors: 0-3 component, 4 = 0.0, 5 = 1.0, 6 = invalid, 7 = keep.
FETCH_DST_CHARS = "xyzw01?_"
FETCH_DST_IDENTITY = 0x688


def alu_swizzle_components(field: int) -> tuple[int, int, int, int]:
    """The source component (0-3) each channel of a relative 8-bit ALU swizzle reads."""
    return tuple((i + (field >> (2 * i))) & 3 for i in range(4))  # type: ignore[return-value]


def alu_swizzle_field(components: tuple[int, ...]) -> int:
    """The relative 8-bit ALU swizzle that makes channel i read ``components[i]``."""
    field = 0
    for i, c in enumerate(components):
        field |= ((c - i) & 3) << (2 * i)
    return field


# --------------------------------------------------------------------------------------
# Fetch (a2xx-isa.md#fetch)
# --------------------------------------------------------------------------------------


class FetchOpcode(IntEnum):
    VTX_FETCH = 0
    TEX_FETCH = 1
    TEX_GET_BORDER_COLOR_FRAC = 16
    TEX_GET_COMP_TEX_LOD = 17
    TEX_GET_GRADIENTS = 18
    TEX_GET_WEIGHTS = 19
    TEX_SET_TEX_LOD = 24
    TEX_SET_GRADIENTS_H = 25
    TEX_SET_GRADIENTS_V = 26
    TEX_RESERVED_4 = 27


class FetchKind(Enum):
    VERTEX = "vertex"
    TEXTURE = "texture"


@dataclass(frozen=True, slots=True)
class FetchOpInfo:
    opcode: FetchOpcode
    kind: FetchKind
    mesa: str  # Mesa's printed name (a2xx-isa.md#mesa-fetch)
    # XNA mnemonic stem (a2xx-isa.md#xna-text; Xenia adds 1D/2D/3D/Cube to some);
    # None: XNA has no name.
    xna: str | None
    # Source components read (XE-T): 0 = as many as the texture dimension has.
    src_components: int
    has_result: bool  # writes a destination register (the set* ops do not)
    # The XNA name takes the texture dimension as a suffix, tfetch2D (Xenia).
    xna_dimension_suffix: bool = False

    @property
    def name(self) -> str:
        return self.opcode.name


_V, _T = FetchKind.VERTEX, FetchKind.TEXTURE
FETCH_OPS: Mapping[FetchOpcode, FetchOpInfo] = {
    info.opcode: info
    for info in (
        FetchOpInfo(FetchOpcode.VTX_FETCH, _V, "VERTEX", "vfetch", 1, True),
        FetchOpInfo(FetchOpcode.TEX_FETCH, _T, "SAMPLE", "tfetch", 0, True, True),
        FetchOpInfo(FetchOpcode.TEX_GET_BORDER_COLOR_FRAC, _T, "?", "getBCF", 0, True, True),
        FetchOpInfo(FetchOpcode.TEX_GET_COMP_TEX_LOD, _T, "?", "getCompTexLOD", 0, True,
                    True),
        FetchOpInfo(FetchOpcode.TEX_GET_GRADIENTS, _T, "?", "getGradients", 2, True),
        FetchOpInfo(FetchOpcode.TEX_GET_WEIGHTS, _T, "?", "getWeights", 0, True, True),
        FetchOpInfo(FetchOpcode.TEX_SET_TEX_LOD, _T, "SET_TEX_LOD", "setTexLOD", 1, False),
        FetchOpInfo(FetchOpcode.TEX_SET_GRADIENTS_H, _T, "?", "setGradientH", 3, False),
        FetchOpInfo(FetchOpcode.TEX_SET_GRADIENTS_V, _T, "?", "setGradientV", 3, False),
        FetchOpInfo(FetchOpcode.TEX_RESERVED_4, _T, "?", None, 0, True),
    )
}
FETCH_UNUSED: frozenset[int] = frozenset({*range(2, 16), *range(20, 24), *range(28, 32)})

FETCH_OPCODE_FIELD = ("opcode", 0, 5)


class SurfaceFormat(IntEnum):
    """enum a2xx_sq_surfaceformat (a2xx-isa.md#formats)."""

    FMT_1_REVERSE = 0
    FMT_1 = 1
    FMT_8 = 2
    FMT_1_5_5_5 = 3
    FMT_5_6_5 = 4
    FMT_6_5_5 = 5
    FMT_8_8_8_8 = 6
    FMT_2_10_10_10 = 7
    FMT_8_A = 8
    FMT_8_B = 9
    FMT_8_8 = 10
    FMT_Cr_Y1_Cb_Y0 = 11
    FMT_Y1_Cr_Y0_Cb = 12
    FMT_5_5_5_1 = 13
    FMT_8_8_8_8_A = 14
    FMT_4_4_4_4 = 15
    FMT_10_11_11 = 16
    FMT_11_11_10 = 17
    FMT_DXT1 = 18
    FMT_DXT2_3 = 19
    FMT_DXT4_5 = 20
    FMT_24_8 = 22
    FMT_24_8_FLOAT = 23
    FMT_16 = 24
    FMT_16_16 = 25
    FMT_16_16_16_16 = 26
    FMT_16_EXPAND = 27
    FMT_16_16_EXPAND = 28
    FMT_16_16_16_16_EXPAND = 29
    FMT_16_FLOAT = 30
    FMT_16_16_FLOAT = 31
    FMT_16_16_16_16_FLOAT = 32
    FMT_32 = 33
    FMT_32_32 = 34
    FMT_32_32_32_32 = 35
    FMT_32_FLOAT = 36
    FMT_32_32_FLOAT = 37
    FMT_32_32_32_32_FLOAT = 38
    FMT_32_AS_8 = 39
    FMT_32_AS_8_8 = 40
    FMT_16_MPEG = 41
    FMT_16_16_MPEG = 42
    FMT_8_INTERLACED = 43
    FMT_32_AS_8_INTERLACED = 44
    FMT_32_AS_8_8_INTERLACED = 45
    FMT_16_INTERLACED = 46
    FMT_16_MPEG_INTERLACED = 47
    FMT_16_16_MPEG_INTERLACED = 48
    FMT_DXN = 49
    FMT_8_8_8_8_AS_16_16_16_16 = 50
    FMT_DXT1_AS_16_16_16_16 = 51
    FMT_DXT2_3_AS_16_16_16_16 = 52
    FMT_DXT4_5_AS_16_16_16_16 = 53
    FMT_2_10_10_10_AS_16_16_16_16 = 54
    FMT_10_11_11_AS_16_16_16_16 = 55
    FMT_11_11_10_AS_16_16_16_16 = 56
    FMT_32_32_32_FLOAT = 57
    FMT_DXT3A = 58
    FMT_DXT5A = 59
    FMT_CTX1 = 60
    FMT_DXT3A_AS_1_1_1_1 = 61


SURFACE_FORMAT_UNUSED: frozenset[int] = frozenset({21, 62, 63})

# Formats Mesa's disassembler prints by name; all others print as TYPE(0x%x)
# (a2xx-isa.md#mesa-fetch).
MESA_VERTEX_FORMAT_NAMES: frozenset[SurfaceFormat] = frozenset(
    {
        SurfaceFormat.FMT_1_REVERSE,
        SurfaceFormat.FMT_8,
        SurfaceFormat.FMT_8_8,
        SurfaceFormat.FMT_8_8_8_8,
        SurfaceFormat.FMT_16,
        SurfaceFormat.FMT_16_16,
        SurfaceFormat.FMT_16_16_16_16,
        SurfaceFormat.FMT_32,
        SurfaceFormat.FMT_32_32,
        SurfaceFormat.FMT_32_32_32_32,
        SurfaceFormat.FMT_32_FLOAT,
        SurfaceFormat.FMT_32_32_FLOAT,
        SurfaceFormat.FMT_32_32_32_FLOAT,
        SurfaceFormat.FMT_32_32_32_32_FLOAT,
    }
)
# Formats a vertex fetch can use on Xenos (XE-X); XNA text names only these.
VERTEX_FORMATS: frozenset[SurfaceFormat] = frozenset(
    SurfaceFormat(v) for v in (6, 7, 16, 17, 25, 26, 31, 32, 33, 34, 35, 36, 37, 38, 57)
)


class TexFilter(IntEnum):
    POINT = 0
    LINEAR = 1
    BASEMAP = 2  # mip filter only
    USE_FETCH_CONST = 3


class AnisoFilter(IntEnum):
    DISABLED = 0
    MAX_1_1 = 1
    MAX_2_1 = 2
    MAX_4_1 = 3
    MAX_8_1 = 4
    MAX_16_1 = 5
    USE_FETCH_CONST = 7


ANISO_FILTER_UNUSED: frozenset[int] = frozenset({6})


class ArbitraryFilter(IntEnum):
    SYM_2X4 = 0
    ASYM_2X4 = 1
    SYM_4X2 = 2
    ASYM_4X2 = 3
    SYM_4X4 = 4
    ASYM_4X4 = 5
    USE_FETCH_CONST = 7


ARBITRARY_FILTER_UNUSED: frozenset[int] = frozenset({6})

# Mesa's spellings (a2xx-isa.md#mesa-fetch); USE_FETCH_CONST is never printed.
TEX_FILTER_NAMES: Mapping[TexFilter, str] = {
    TexFilter.POINT: "POINT",
    TexFilter.LINEAR: "LINEAR",
    TexFilter.BASEMAP: "BASEMAP",
}
ANISO_FILTER_NAMES: Mapping[AnisoFilter, str] = {
    AnisoFilter.DISABLED: "DISABLED",
    AnisoFilter.MAX_1_1: "MAX_1_1",
    AnisoFilter.MAX_2_1: "MAX_2_1",
    AnisoFilter.MAX_4_1: "MAX_4_1",
    AnisoFilter.MAX_8_1: "MAX_8_1",
    AnisoFilter.MAX_16_1: "MAX_16_1",
}
ARBITRARY_FILTER_NAMES: Mapping[ArbitraryFilter, str] = {
    ArbitraryFilter.SYM_2X4: "2x4_SYM",
    ArbitraryFilter.ASYM_2X4: "2x4_ASYM",
    ArbitraryFilter.SYM_4X2: "4x2_SYM",
    ArbitraryFilter.ASYM_4X2: "4x2_ASYM",
    ArbitraryFilter.SYM_4X4: "4x4_SYM",
    ArbitraryFilter.ASYM_4X4: "4x4_ASYM",
}


class SampleLocation(IntEnum):
    CENTROID = 0
    CENTER = 1


class FetchDimension(IntEnum):
    """Xenia's texture dimension bits (d2.14-15); 0 on Adreno (a2xx-isa.md#texture-fetch)."""

    D1 = 0
    D2 = 1
    D3 = 2
    CUBE = 3


# Coordinate components of each dimension (XE-T); 3D also covers stacked 2D.
DIMENSION_COMPONENTS: Mapping[FetchDimension, int] = {
    FetchDimension.D1: 1,
    FetchDimension.D2: 2,
    FetchDimension.D3: 3,
    FetchDimension.CUBE: 3,
}


# a2xx-isa.md#vertex-fetch, following M-H for the offset (22 bits at d2.8) and exp_adjust (6 bits at
# d1.24).
VERTEX_FETCH_LAYOUT = Layout(
    "vertex_fetch",
    [
        FETCH_OPCODE_FIELD,
        ("src_reg", 5, 6),
        ("src_reg_am", 11, 1),
        ("dst_reg", 12, 6),
        ("dst_reg_am", 18, 1),
        ("must_be_one", 19, 1),
        ("const_index", 20, 5),
        ("const_index_sel", 25, 2),
        ("prefetch_count", 27, 3),  # Mesa: reserved0; Xenia: prefetch count - 1
        ("src_swiz", 30, 2),
        ("dst_swiz", 32, 12),
        ("format_comp_all", 44, 1),  # 1 = signed
        ("num_format_all", 45, 1),  # 0 = normalized, 1 = integer
        ("signed_rf_mode_all", 46, 1),
        ("is_index_rounded", 47, 1),  # Mesa: reserved1
        ("format", 48, 6),
        ("exp_adjust_all", 56, 6),  # signed
        ("is_mini_fetch", 62, 1),  # Mesa: reserved3
        ("pred_select", 63, 1),
        ("stride", 64, 8),
        ("offset", 72, 22),
        ("pred_condition", 95, 1),
    ],
    SLOT_BITS,
)

# a2xx-isa.md#texture-fetch.  use_reg_lod is Mesa's 2 bits (Xenia: bit 29 only).
TEXTURE_FETCH_LAYOUT = Layout(
    "texture_fetch",
    [
        FETCH_OPCODE_FIELD,
        ("src_reg", 5, 6),
        ("src_reg_am", 11, 1),
        ("dst_reg", 12, 6),
        ("dst_reg_am", 18, 1),
        ("fetch_valid_only", 19, 1),
        ("const_idx", 20, 5),
        ("tx_coord_denorm", 25, 1),
        ("src_swiz", 26, 6),
        ("dst_swiz", 32, 12),
        ("mag_filter", 44, 2),
        ("min_filter", 46, 2),
        ("mip_filter", 48, 2),
        ("aniso_filter", 50, 3),
        ("arbitrary_filter", 53, 3),
        ("vol_mag_filter", 56, 2),
        ("vol_min_filter", 58, 2),
        ("use_comp_lod", 60, 1),
        ("use_reg_lod", 61, 2),
        ("pred_select", 63, 1),
        ("use_reg_gradients", 64, 1),
        ("sample_location", 65, 1),
        ("lod_bias", 66, 7),  # signed, units of 1/16
        ("dimension", 78, 2),  # Xenia only
        ("offset_x", 80, 5),  # signed, units of 0.5 texel
        ("offset_y", 85, 5),
        ("offset_z", 90, 5),
        ("pred_condition", 95, 1),
    ],
    SLOT_BITS,
)

FETCH_LAYOUTS: Mapping[FetchKind, Layout] = {
    FetchKind.VERTEX: VERTEX_FETCH_LAYOUT,
    FetchKind.TEXTURE: TEXTURE_FETCH_LAYOUT,
}

# A vertex fetch is either a full fetch (the program's first vertex fetch) or a "mini"
# fetch reusing its vertex address (every later one).  B: the first vertex fetch of each
# vertex shader has d0 bits 27-29 = 3 and d1 bits 14, 15 and 30 clear (0x1d481000
# 0x00393e88, 0x19a81000 0x00390a88); the later ones have 2 and d1 bit 30 set, bits 14-15
# still clear (0x11482000 0x40393a88, 0x13483000 0x40393e88).  MI/MA agree on
# prefetch_count and is_mini_fetch ("seems like every FETCH but the first has this bit
# set"), MA also on bits 14-15, and always set must_be_one.  G sets d1 bit 15 on the
# first fetch and bit 14 on the later one (toolchains.ADRENO_KERNEL).
VERTEX_FETCH_DEFAULTS: Mapping[str, int] = {
    "must_be_one": 1,
    "prefetch_count": 3,
    "is_index_rounded": 0,
    "signed_rf_mode_all": 0,
    "is_mini_fetch": 0,
    "num_format_all": 1,  # text without NORMALIZED: integer (the flag's absence)
    "dst_swiz": FETCH_DST_IDENTITY,
}
VERTEX_MINI_FETCH_DEFAULTS: Mapping[str, int] = {
    **VERTEX_FETCH_DEFAULTS,
    "prefetch_count": 2,
    "is_mini_fetch": 1,
}
# Unprinted texture filters use the fetch constant, use_comp_lod is set (Mesa prints
# LOD(0) LOD_BIAS(n) only when it is clear).  G: sys2gmem FS slot 2 = 0x10000001
# 0x1ffff688 0x00000002 (all filters 3/7, use_comp_lod 1, CENTER); MI and MA write the
# same values.
TEXTURE_FETCH_DEFAULTS: Mapping[str, int] = {
    "dst_swiz": FETCH_DST_IDENTITY,
    "mag_filter": TexFilter.USE_FETCH_CONST,
    "min_filter": TexFilter.USE_FETCH_CONST,
    "mip_filter": TexFilter.USE_FETCH_CONST,
    "aniso_filter": AnisoFilter.USE_FETCH_CONST,
    "arbitrary_filter": ArbitraryFilter.USE_FETCH_CONST,
    "vol_mag_filter": TexFilter.USE_FETCH_CONST,
    "vol_min_filter": TexFilter.USE_FETCH_CONST,
    "use_comp_lod": 1,
    "sample_location": SampleLocation.CENTER,  # Mesa always prints the location
}


# Xenia's vertex fetch offset: signed 23 bits at d2.8 (M-H's 22-bit field plus d2.30,
# which the layout keeps as reserved).
XENIA_VERTEX_OFFSET_LSB = 72
XENIA_VERTEX_OFFSET_BITS = 23

# Two's-complement fields of the fetch layouts (all others are unsigned).
SIGNED_FIELDS: frozenset[str] = frozenset(
    {"exp_adjust_all", "lod_bias", "offset_x", "offset_y", "offset_z"}
)
LOD_BIAS_DIVISOR = 16
TEXEL_OFFSET_DIVISOR = 2


def sign_extend(value: int, width: int) -> int:
    """``value`` (``width`` bits) read as two's complement."""
    sign = 1 << (width - 1)
    return (value & (sign - 1)) - (value & sign)


# Which enumeration a field's values belong to, by field name (used by the codec to turn
# raw values into enum members where they are defined).  The opcode fields are per layout
# family: see :func:`layout_enums`.
FIELD_ENUMS: Mapping[str, type[IntEnum]] = {
    "address_mode": AddressMode,
    "buffer_select": AllocBuffer,
    "vector_opc": VectorOpcode,
    "scalar_opc": ScalarOpcode,
    "format": SurfaceFormat,
    "mag_filter": TexFilter,
    "min_filter": TexFilter,
    "mip_filter": TexFilter,
    "vol_mag_filter": TexFilter,
    "vol_min_filter": TexFilter,
    "aniso_filter": AnisoFilter,
    "arbitrary_filter": ArbitraryFilter,
    "sample_location": SampleLocation,
    "dimension": FetchDimension,
}


def layout_enums(layout: Layout) -> dict[str, type[IntEnum]]:
    """The enumeration of every enumerated field of ``layout``."""
    enums = {name: FIELD_ENUMS[name] for name in layout.names if name in FIELD_ENUMS}
    if layout in CF_LAYOUTS.values():
        enums["opcode"] = CfOpcode
    elif layout in FETCH_LAYOUTS.values():
        enums["opcode"] = FetchOpcode
    return enums


# --------------------------------------------------------------------------------------
# Execution resources and constant registers (a2xx-isa.md#cf-loop, a2xx-isa.md#alu-relative,
# a2xx-isa.md#vertex-fetch, a2xx-isa.md#formats, a2xx-isa.md#emulation)
# --------------------------------------------------------------------------------------

TEMP_REGISTERS = 64
# The 8-bit ALU register byte addresses C0-C255; relative addressing can reach further
# into the 512 constants the two stages share (SQ_VS_CONST / SQ_PS_CONST, a2xx-isa.md#alu-relative).
FLOAT_CONSTANTS = 512
BOOL_CONSTANTS = 256  # SHADER_CONSTANT_BOOL_000_031 ... (32 per register)
LOOP_CONSTANTS = 32  # SHADER_CONSTANT_LOOP_00 ...
CALL_STACK_DEPTH = 4
LOOP_STACK_DEPTH = 4
# A vertex fetch names fetch constant group ``const_index`` and one of its three vertex
# constants ``const_index_sel``: Xenos vertex constant slot = const_index * 3 + sel
# (a2xx-isa.md#vertex-fetch).
VERTEX_CONSTANTS_PER_GROUP = 3
VERTEX_FETCH_SLOTS = 32 * VERTEX_CONSTANTS_PER_GROUP
TEXTURE_FETCH_CONSTANTS = 32

# Loop constant register (XE-X): count, start (initial aL), step (signed).
LOOP_CONSTANT_LAYOUT = Layout(
    "loop_constant", [("count", 0, 8), ("start", 8, 8), ("step", 16, 8)], 32
)
LOOP_ADDRESS_RANGE = (-256, 256)  # aL clamp (XE-I)
ADDRESS_REGISTER_RANGE = (-256, 255)  # a0 clamp of MOVA* (a2xx-isa.md#float-rules)

# Xenos vertex fetch constant (XE-X ``xe_gpu_vertex_fetch_t``), two dwords; address and
# size count dwords.
VERTEX_FETCH_CONSTANT_LAYOUT = Layout(
    "vertex_fetch_constant",
    [("type", 0, 2), ("address", 2, 30), ("endian", 32, 2), ("size", 34, 24)],
    64,
)


class Endian(IntEnum):
    """Byte swap a fetch constant applies to every dword read (XE-X)."""

    NONE = 0
    E8IN16 = 1
    E8IN32 = 2
    E16IN32 = 3


class VertexDataKind(Enum):
    INTEGER = "integer"  # packed integers, normalized or not per num_format_all
    HALF = "half"  # 16-bit floats
    FLOAT = "float"  # 32-bit floats


@dataclass(frozen=True, slots=True)
class VertexFormatInfo:
    """How a vertex fetch unpacks one element: ``components[i]`` = (dword, lsb, width)."""

    kind: VertexDataKind
    components: tuple[tuple[int, int, int], ...]

    @property
    def dwords(self) -> int:
        return 1 + max(dword for dword, _, _ in self.components)


def _packed(*widths: int) -> tuple[tuple[int, int, int], ...]:
    """Components of the given widths packed upwards from bit 0, 32 bits per dword."""
    out, bit = [], 0
    for width in widths:
        out.append((bit // 32, bit % 32, width))
        bit += width
    return tuple(out)


_I, _H, _F = VertexDataKind.INTEGER, VertexDataKind.HALF, VertexDataKind.FLOAT
# a2xx-isa.md#formats "Unpacking": the Xenos vertex formats (XE-X) plus FMT_8, FMT_8_8, FMT_16 and
# FMT_16_FLOAT, which Mesa's a2xx driver also uses for vertex buffers (fd2_util.c).
VERTEX_FORMAT_INFO: Mapping[SurfaceFormat, VertexFormatInfo] = {
    SurfaceFormat.FMT_8: VertexFormatInfo(_I, _packed(8)),
    SurfaceFormat.FMT_8_8: VertexFormatInfo(_I, _packed(8, 8)),
    SurfaceFormat.FMT_8_8_8_8: VertexFormatInfo(_I, _packed(8, 8, 8, 8)),
    SurfaceFormat.FMT_2_10_10_10: VertexFormatInfo(_I, _packed(10, 10, 10, 2)),
    SurfaceFormat.FMT_10_11_11: VertexFormatInfo(_I, _packed(11, 11, 10)),
    SurfaceFormat.FMT_11_11_10: VertexFormatInfo(_I, _packed(10, 11, 11)),
    SurfaceFormat.FMT_16: VertexFormatInfo(_I, _packed(16)),
    SurfaceFormat.FMT_16_16: VertexFormatInfo(_I, _packed(16, 16)),
    SurfaceFormat.FMT_16_16_16_16: VertexFormatInfo(_I, _packed(16, 16, 16, 16)),
    SurfaceFormat.FMT_16_FLOAT: VertexFormatInfo(_H, _packed(16)),
    SurfaceFormat.FMT_16_16_FLOAT: VertexFormatInfo(_H, _packed(16, 16)),
    SurfaceFormat.FMT_16_16_16_16_FLOAT: VertexFormatInfo(_H, _packed(16, 16, 16, 16)),
    SurfaceFormat.FMT_32: VertexFormatInfo(_I, _packed(32)),
    SurfaceFormat.FMT_32_32: VertexFormatInfo(_I, _packed(32, 32)),
    SurfaceFormat.FMT_32_32_32_32: VertexFormatInfo(_I, _packed(32, 32, 32, 32)),
    SurfaceFormat.FMT_32_FLOAT: VertexFormatInfo(_F, _packed(32)),
    SurfaceFormat.FMT_32_32_FLOAT: VertexFormatInfo(_F, _packed(32, 32)),
    SurfaceFormat.FMT_32_32_32_FLOAT: VertexFormatInfo(_F, _packed(32, 32, 32)),
    SurfaceFormat.FMT_32_32_32_32_FLOAT: VertexFormatInfo(_F, _packed(32, 32, 32, 32)),
}

class AluEffect(Enum):
    """What an ALU operation does besides its result (a2xx-isa.md#alu-execution)."""

    KILL = "kill"  # discards the pixel where its test holds
    PREDICATE = "predicate"  # sets the predicate p0
    ADDRESS = "address"  # loads the address register a0


_V, _S = VectorOpcode, ScalarOpcode
VECTOR_EFFECTS: Mapping[VectorOpcode, AluEffect] = {
    **dict.fromkeys((_V.PRED_SETE_PUSHv, _V.PRED_SETNE_PUSHv, _V.PRED_SETGT_PUSHv,
                     _V.PRED_SETGTE_PUSHv), AluEffect.PREDICATE),
    **dict.fromkeys((_V.KILLEv, _V.KILLGTv, _V.KILLGTEv, _V.KILLNEv), AluEffect.KILL),
    _V.MOVAv: AluEffect.ADDRESS,
}
SCALAR_EFFECTS: Mapping[ScalarOpcode, AluEffect] = {
    **dict.fromkeys((_S.PRED_SETEs, _S.PRED_SETNEs, _S.PRED_SETGTs, _S.PRED_SETGTEs,
                     _S.PRED_SET_INVs, _S.PRED_SET_POPs, _S.PRED_SET_CLRs,
                     _S.PRED_SET_RESTOREs), AluEffect.PREDICATE),
    **dict.fromkeys((_S.KILLEs, _S.KILLGTs, _S.KILLGTEs, _S.KILLNEs, _S.KILLONEs),
                    AluEffect.KILL),
    **dict.fromkeys((_S.MOVAs, _S.MOVA_FLOORs), AluEffect.ADDRESS),
}
# Vector operations with effects besides their result: they run even when nothing is
# written.
VECTOR_SIDE_EFFECTS: frozenset[VectorOpcode] = frozenset(VECTOR_EFFECTS)


# --------------------------------------------------------------------------------------
# Load-time validation
# --------------------------------------------------------------------------------------


def _check_coverage(
    what: str,
    enum: type[IntEnum],
    table: Mapping[IntEnum, object] | None,
    unused: frozenset[int],
    width: int,
) -> None:
    values = {int(m) for m in enum}
    if table is not None:
        if set(table) != set(enum):
            missing = sorted(m.name for m in set(enum) - set(table))
            raise IsaTableError(f"{what}: opcodes without a table entry: {missing}")
        for key, info in table.items():
            if getattr(info, "opcode", key) is not key:
                raise IsaTableError(f"{what}: entry {key.name} describes another opcode")
    clash = values & unused
    if clash:
        raise IsaTableError(f"{what}: values both defined and declared unused: {sorted(clash)}")
    missing_values = set(range(1 << width)) - values - unused
    if missing_values:
        raise IsaTableError(f"{what}: values neither defined nor unused: {sorted(missing_values)}")
    extra = {v for v in values | unused if not 0 <= v < 1 << width}
    if extra:
        raise IsaTableError(f"{what}: values outside the {width}-bit field: {sorted(extra)}")


def _check_field(layout: Layout, name: str, lsb: int, width: int) -> None:
    if name not in layout or (layout[name].lsb, layout[name].width) != (lsb, width):
        raise IsaTableError(f"layout {layout.name}: expected field {name} at bit {lsb}:{width}")


def _validate() -> None:
    _validate_slots()
    _validate_layouts()
    _validate_field_tables()
    _validate_xenia_and_formats()


def _validate_slots() -> None:
    """The slot sizes and the coverage of every opcode and enum field."""
    if SLOT_BITS != 32 * SLOT_DWORDS or CF_SLOT.width != SLOT_BITS:
        raise IsaTableError("a slot is three 32-bit dwords")
    if CF_SLOT.unused_mask or CF_SLOT["clause0"].width != CF_CLAUSE_BITS:
        raise IsaTableError("a CF slot holds exactly two 48-bit clauses")

    _check_coverage("CF opcodes", CfOpcode, CF_OPS, CF_UNUSED, CF_OPCODE_FIELD[2])
    _check_coverage("vector opcodes", VectorOpcode, VECTOR_OPS, VECTOR_UNUSED, 5)
    _check_coverage("scalar opcodes", ScalarOpcode, SCALAR_OPS, SCALAR_UNUSED, 6)
    _check_coverage("fetch opcodes", FetchOpcode, FETCH_OPS, FETCH_UNUSED, FETCH_OPCODE_FIELD[2])
    _check_coverage("surface formats", SurfaceFormat, None, SURFACE_FORMAT_UNUSED, 6)
    _check_coverage("texture filters", TexFilter, None, frozenset(), 2)
    _check_coverage("aniso filters", AnisoFilter, None, ANISO_FILTER_UNUSED, 3)
    _check_coverage("arbitrary filters", ArbitraryFilter, None, ARBITRARY_FILTER_UNUSED, 3)
    _check_coverage("alloc buffers", AllocBuffer, None, frozenset(), 2)


def _validate_layouts() -> None:
    """The CF, ALU and fetch layouts hold their opcode fields where the ISA puts them."""
    if set(CF_LAYOUTS) != set(CfKind):
        raise IsaTableError("every CF clause kind needs a layout")
    for layout in CF_LAYOUTS.values():
        if layout.width != CF_CLAUSE_BITS:
            raise IsaTableError(f"layout {layout.name} is not a 48-bit clause")
        _check_field(layout, *CF_OPCODE_FIELD)
    for info in CF_OPS.values():
        if info.condition is not ExecCondition.NONE and info.kind is not CfKind.EXEC:
            raise IsaTableError(f"{info.name}: only EXEC-family clauses have exec conditions")

    # ALU fields must tile the whole slot: there are no reserved ALU bits.
    if ALU_LAYOUT.unused_mask:
        raise IsaTableError("the ALU layout must cover all 96 bits")
    _check_field(ALU_LAYOUT, "vector_opc", 88, 5)
    _check_field(ALU_LAYOUT, "scalar_opc", 26, 6)

    for layout in FETCH_LAYOUTS.values():
        _check_field(layout, *FETCH_OPCODE_FIELD)
        # a2xx-isa.md#fetch: every fetch predicates through d1.31 / d2.31.
        _check_field(layout, "pred_select", 63, 1)
        _check_field(layout, "pred_condition", 95, 1)
    if set(FETCH_LAYOUTS) != {info.kind for info in FETCH_OPS.values()}:
        raise IsaTableError("every fetch kind needs a layout")


def _validate_field_tables() -> None:
    """FIELD_ENUMS, SIGNED_FIELDS and the defaults name fields that exist and fit them."""
    all_fields = {
        name
        for layout in (*CF_LAYOUTS.values(), ALU_LAYOUT, *FETCH_LAYOUTS.values())
        for name in layout.names
    }
    for name, enum in FIELD_ENUMS.items():
        if name not in all_fields:
            raise IsaTableError(f"FIELD_ENUMS names unknown field {name}")
        for layout in (*CF_LAYOUTS.values(), ALU_LAYOUT, *FETCH_LAYOUTS.values()):
            if name in layout and max(enum) > layout[name].max:
                raise IsaTableError(f"{enum.__name__} does not fit {layout.name}.{name}")
    for name in SIGNED_FIELDS:
        if not any(name in layout for layout in FETCH_LAYOUTS.values()):
            raise IsaTableError(f"SIGNED_FIELDS names unknown field {name}")

    for layout, defaults in (
        (ALU_LAYOUT, ALU_DEFAULTS),
        (VERTEX_FETCH_LAYOUT, VERTEX_FETCH_DEFAULTS),
        (VERTEX_FETCH_LAYOUT, VERTEX_MINI_FETCH_DEFAULTS),
        (TEXTURE_FETCH_LAYOUT, TEXTURE_FETCH_DEFAULTS),
    ):
        for name, value in defaults.items():
            if name not in layout or not 0 <= value <= layout[name].max:
                raise IsaTableError(f"default {name}={value} does not fit {layout.name}")


def _validate_xenia_and_formats() -> None:
    """Xenia's wider fields fit unused bits; vertex formats and swizzle helpers agree."""
    for kind, bits in XENIA_ADDRESS_BITS.items():
        layout = CF_LAYOUTS[kind]
        extra = ((1 << bits) - 1) & ~layout["address"].mask
        if layout["address"].lsb != 0 or extra & ~layout.unused_mask:
            raise IsaTableError(f"Xenia's wider {layout.name} address overlaps a field")
    xenia_offset = ((1 << XENIA_VERTEX_OFFSET_BITS) - 1) << XENIA_VERTEX_OFFSET_LSB
    if xenia_offset & ~(VERTEX_FETCH_LAYOUT["offset"].mask | VERTEX_FETCH_LAYOUT.unused_mask):
        raise IsaTableError("Xenia's vertex fetch offset overlaps a field")

    for fmt, info in VERTEX_FORMAT_INFO.items():
        if not 1 <= len(info.components) <= 4 or info.dwords > 4:
            raise IsaTableError(f"{fmt.name}: a vertex element has 1-4 components in 1-4 dwords")
        if any(lsb + width > 32 for _, lsb, width in info.components):
            raise IsaTableError(f"{fmt.name}: a component crosses a dword boundary")

    if alu_swizzle_field((0, 0, 0, 0)) != 0x6C or alu_swizzle_components(0) != (0, 1, 2, 3):
        raise IsaTableError("ALU swizzle helpers disagree with a2xx-isa.md#swizzles")


_validate()
