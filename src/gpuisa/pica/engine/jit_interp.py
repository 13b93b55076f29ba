"""The JIT engine's interpreter: one Numba kernel for every program, compiled once and
cached on disk.

Compiling a program-specific kernel (:mod:`.jit_codegen`) takes about a second, which
only pays off for many vertices.  For small batches the JIT engine runs this kernel
instead: it executes a program encoded as an integer table (:func:`encode`) with the
same rules (:mod:`.jit_rules`) and stacks (:mod:`.jit_stacks`) as the compiled kernels
and the same lane contract: status :data:`.jit_codegen.NEEDS_REFERENCE` for anything the
reference engine must finish or report.

Only imported when Numba is installed.  (Comparisons are spelled ``op == A or op == B``
and conditions on compile-time constants stay nested: the forms Numba compiles to plain
branches and prunes.)
"""
# ruff: noqa: SIM102, SIM109

from __future__ import annotations

import numpy as np
from numba import njit

from ..isa import NUM_INT_UNIFORMS, Kind, Opcode
from . import jit_rules as R
from . import jit_stacks as S
from .decode import DecodedProgram
from .jit_codegen import NEEDS_REFERENCE, Analysis

# Columns of the instruction table.
(KIND, OP, DEST, MASK, CHECKS, FLAG, DST, NUM, CONDOP, REFX, REFY, ID, CMPX, CMPY,
 NSRC, SRC) = range(16)
#: Per source: bank (0 = v, 1 = r, 2 = c), number, relative index row (-1: none),
#: negate, then the four swizzle selectors.
SRC_WIDTH = 8
COLUMNS = SRC + 3 * SRC_WIDTH

# KIND values.
K_ALU, K_END, K_NOP, K_FLOW, K_FAULT = range(5)
_BANKS = {"v": 0, "r": 1, "c": 2}
#: Register rows of the per-lane register file: v0-v15, r0-r15, o0-o15.
_ROW_BASE = {"v": 0, "r": 16, "o": 32}


def encode(program: DecodedProgram, analysis: Analysis,
           missing: frozenset[tuple[str, int]]) -> np.ndarray:
    """The instruction table of ``program``: one int64 row per word."""
    table = np.zeros((max(1, len(program.steps)), COLUMNS), dtype=np.int64)
    for step in program.steps:
        row = table[step.pc]
        call, if_, loop = analysis.pops_after(step.pc)
        row[CHECKS] = call | if_ << 1 | loop << 2
        row[OP] = int(step.op)
        if step.fault is not None or step.kind in (Kind.GEOMETRY, Kind.UNKNOWN):
            row[KIND] = K_FAULT
            continue
        if step.kind in (Kind.ARITHMETIC, Kind.COMPARE):
            row[KIND] = K_ALU
            if step.dest is not None:
                row[DEST] = _ROW_BASE[step.dest[0]] + step.dest[1]
            row[MASK] = sum(1 << c for c in step.mask.tolist())
            if step.op is Opcode.CMP:
                row[CMPX], row[CMPY] = step.field("cmpx"), step.field("cmpy")
            row[NSRC] = len(step.sources)
            for k, operand in enumerate(step.sources):
                base = SRC + k * SRC_WIDTH
                row[base] = _BANKS[operand.bank]
                row[base + 1] = operand.number
                relative = operand.relative if operand.bank == "c" else None
                row[base + 2] = -1 if relative is None else relative
                row[base + 3] = operand.negate
                row[base + 4:base + 8] = operand.swizzle
                if relative is None and (operand.bank, operand.number) in missing:
                    row[FLAG] = 1
            continue
        if step.op is Opcode.END:
            row[KIND] = K_END
            continue
        if step.op is Opcode.NOP:
            row[KIND] = K_NOP
            continue
        row[KIND] = K_FLOW
        fields = dict(step.fields)
        row[DST] = fields.get("dst", 0)
        row[NUM] = fields.get("num", 0)
        row[CONDOP] = fields.get("condop", 0)
        row[REFX] = fields.get("refx", 0)
        row[REFY] = fields.get("refy", 0)
        number = fields.get("id", 0)
        if step.op is Opcode.LOOP:
            number %= NUM_INT_UNIFORMS
            row[FLAG] = ("i", number) in missing
        elif step.op in (Opcode.IFU, Opcode.CALLU, Opcode.JMPU):
            row[FLAG] = ("b", number) in missing
        row[ID] = number
    return table


_O = {name: int(value) for name, value in Opcode.__members__.items()}
ADD, MUL, MAD, DP3, DP4, DPH, DST_OP = (_O[n] for n in ("ADD", "MUL", "MAD", "DP3", "DP4",
                                                         "DPH", "DST"))
EX2, LG2, LITP, SGE, SLT, FLR, MAX, MIN = (_O[n] for n in ("EX2", "LG2", "LITP", "SGE",
                                                           "SLT", "FLR", "MAX", "MIN"))
RCP, RSQ, MOVA, MOV, CMP = (_O[n] for n in ("RCP", "RSQ", "MOVA", "MOV", "CMP"))
BREAK, BREAKC, CALL, CALLC, CALLU = (_O[n] for n in ("BREAK", "BREAKC", "CALL", "CALLC",
                                                     "CALLU"))
IFU, IFC, LOOP, JMPC, JMPU = (_O[n] for n in ("IFU", "IFC", "LOOP", "JMPC", "JMPU"))


@njit(cache=True, error_model="numpy")
def _operand(table, pc, k, regs, floats, float_given, a0x, a0y, al, f24, out):
    """Source operand k of the instruction at pc into ``out`` (4 float32); returns False
    if it reads a uniform that was not given through relative addressing."""
    base = SRC + k * SRC_WIDTH
    bank = table[pc, base]
    number = table[pc, base + 1]
    ok = True
    if bank == 2:
        relative = table[pc, base + 2]
        row = number
        if relative >= 0:
            offset = a0x if relative == 0 else (a0y if relative == 1 else al)
            row = R.relative_row(number, offset)
            ok = float_given[row]
        for c in range(4):
            out[c] = floats[row, table[pc, base + 4 + c]]
    else:
        row = number if bank == 0 else 16 + number
        for c in range(4):
            out[c] = regs[row, table[pc, base + 4 + c]]
    if table[pc, base + 3]:
        for c in range(4):
            out[c] = R.negate24(out[c]) if f24 else R.negate32(out[c])
    return ok


@njit(cache=True, error_model="numpy")
def _unit(op, s, res, f24, scratch):
    """The result of an arithmetic opcode into ``res`` (4 float32)."""
    if op == EX2 or op == LG2:
        _ufunc_unit(op, s[0, 0], res, f24, scratch)
    else:
        _alu(op, s, res, f24)


@njit(cache=True, error_model="numpy")
def _ufunc_unit(op, x, res, f24, scratch):
    if op == EX2:
        v = R.ex2_24(x, scratch) if f24 else R.ex2_f32(x, scratch)
    else:
        v = R.lg2_24(x, scratch) if f24 else R.lg2_f32(x, scratch)
    res[:] = v


@njit(cache=True, error_model="numpy")
def _alu(op, s, res, f24):
    """The result of an arithmetic opcode other than EX2/LG2 into ``res`` (4 float32)."""
    a = s[0]
    b = s[1]
    if op == ADD or op == MUL or op == MAD:
        # R.add24, R.mad32 etc. spelled out in their inlined building blocks.
        for c in range(4):
            if f24:
                if op == ADD:
                    res[c] = R.store(R.round24(R.add64(R.work24(a[c]), R.work24(b[c]))))
                else:
                    v = R.round24(R.mul64(R.work24(a[c]), R.work24(b[c])))
                    if op == MAD:
                        v = R.round24(R.add64(v, R.work24(s[2, c])))
                    res[c] = R.store(v)
            elif op == ADD:
                res[c] = R.add32(a[c], b[c])
            elif op == MUL:
                res[c] = R.mul32(a[c], b[c])
            else:
                res[c] = R.add32(R.mul32(a[c], b[c]), s[2, c])
    elif op == FLR:
        for c in range(4):
            res[c] = R.flr24(a[c]) if f24 else R.flr32(a[c])
    elif op == MAX or op == MIN or op == SGE or op == SLT:
        for c in range(4):
            if op == MAX:
                res[c] = R.pica_max(a[c], b[c])
            elif op == MIN:
                res[c] = R.pica_min(a[c], b[c])
            elif op == SGE:
                res[c] = R.sge(a[c], b[c])
            else:
                res[c] = R.slt(a[c], b[c])
    elif op == MOV:
        res[:] = a
    elif op == DP3 or op == DP4 or op == DPH:
        # R.dp4_24 etc.: products rounded and summed in order; DPH's SRC1.w is 1.0.
        terms = 3 if op == DP3 else 4
        if f24:
            t = 0.0
            for c in range(terms):
                x = 1.0 if op == DPH and c == 3 else R.work24(a[c])
                t = R.round24(R.add64(t, R.round24(R.mul64(x, R.work24(b[c])))))
            res[:] = R.store(t)
        else:
            t32 = R.ZERO32
            for c in range(terms):
                x32 = R.ONE32 if op == DPH and c == 3 else a[c]
                t32 = R.add32(t32, R.mul32(x32, b[c]))
            res[:] = t32
    elif op == RCP or op == RSQ:
        if op == RCP:
            v = R.rcp24(a[0]) if f24 else R.rcp32(a[0])
        else:
            v = R.rsq24(a[0]) if f24 else R.rsq32(a[0])
        res[:] = v
    elif op == DST_OP:
        res[0] = R.ONE32
        if f24:
            res[1] = R.dst_y24(a[1], b[1])
            res[2] = R.pass24(a[2])
            res[3] = R.pass24(b[3])
        else:
            res[1] = R.mul32(a[1], b[1])
            res[2] = a[2]
            res[3] = b[3]
    else:  # LITP
        res[0] = R.litp_xw(a[0])
        res[1] = R.litp_y(a[1])
        res[2] = R.ZERO32
        res[3] = R.litp_xw(a[3])


@njit(cache=True, error_model="numpy", nogil=True)
def interpret(lo, hi, entry, table, rows, written, f24, inputs, temporaries, outputs,
              address, cmp, floats, float_given, ints, bools, max_steps, status, steps,
              natives):
    regs = np.zeros((48, 4), np.float32)
    s = np.zeros((3, 4), np.float32)
    res = np.zeros(4, np.float32)
    ifs = np.zeros(S.IF_SIZE, np.int64)
    calls = np.zeros(S.CALL_SIZE, np.int64)
    loops = np.zeros(S.LOOP_SIZE, np.int64)
    scratch = R.make_scratch(natives)
    length = table.shape[0]
    for lane in range(lo, hi):
        for row in rows:
            for c in range(4):
                if row < 16:
                    regs[row, c] = inputs[row][lane, c]
                elif row < 32:
                    regs[row, c] = temporaries[row - 16][lane, c]
                else:
                    regs[row, c] = outputs[row - 32][lane, c]
        a0x = address[0, lane]
        a0y = address[1, lane]
        al = address[2, lane]
        cmpx = cmp[0, lane]
        cmpy = cmp[1, lane]
        n_if = 0
        n_call = 0
        n_loop = 0
        pc = entry
        executed = 0
        st = 0
        while True:
            if pc < 0 or pc >= length or executed >= max_steps:
                st = NEEDS_REFERENCE
                break
            executed += 1
            kind = table[pc, KIND]
            op = table[pc, OP]
            if kind == K_FAULT or table[pc, FLAG]:
                st = NEEDS_REFERENCE
                break
            if kind == K_END:
                break
            jump = -1
            brk = False
            if kind == K_ALU:
                ok = True
                for k in range(table[pc, NSRC]):
                    ok &= _operand(table, pc, k, regs, floats, float_given, a0x, a0y,
                                   al, f24, s[k])
                if not ok:
                    st = NEEDS_REFERENCE
                    break
                mask = table[pc, MASK]
                if op == CMP:
                    fx = R.compare(table[pc, CMPX], s[0, 0], s[1, 0])
                    fy = R.compare(table[pc, CMPY], s[0, 1], s[1, 1])
                    cmpx = fx
                    cmpy = fy
                elif op == MOVA:
                    if mask & 1:
                        a0x = R.address_from_float(s[0, 0])
                    if mask & 2:
                        a0y = R.address_from_float(s[0, 1])
                else:
                    _unit(op, s, res, f24, scratch)
                    dest = table[pc, DEST]
                    for c in range(4):
                        if mask >> c & 1:
                            regs[dest, c] = res[c]
                    if op == LITP:
                        cmpx = s[0, 0] >= 0.0
                        cmpy = s[0, 3] >= 0.0
            elif kind == K_FLOW:
                dst = table[pc, DST]
                num = table[pc, NUM]
                holds = R.condition(table[pc, CONDOP], table[pc, REFX] != 0,
                                    table[pc, REFY] != 0, cmpx, cmpy)
                number = table[pc, ID]
                if op == BREAK:
                    brk = True
                elif op == BREAKC:
                    brk = holds
                elif op == CALL or op == CALLC or op == CALLU:
                    taken = op == CALL or (op == CALLC and holds) or (
                        op == CALLU and bools[number])
                    if taken:
                        n_call = S.push_call(calls, n_call, dst + num, pc + 1)
                        jump = dst
                elif op == IFU or op == IFC:
                    taken = holds if op == IFC else bools[number]
                    if taken:
                        n_if = S.push_if(ifs, n_if, dst, dst + num)
                    else:
                        jump = dst
                elif op == LOOP:
                    n_loop = S.push_loop(loops, n_loop, dst + 1, pc + 1, ints[number, 0],
                                         ints[number, 2], al)
                    al = ints[number, 1]
                elif op == JMPC:
                    if holds:
                        jump = dst
                elif op == JMPU:
                    if bools[number] == ((num & 1) == 0):
                        jump = dst
            checks = table[pc, CHECKS]
            if checks or brk:
                pc, al, n_if, n_call, n_loop, hang = S.next_pc(
                    ifs, n_if, calls, n_call, loops, n_loop, pc, jump, brk, al,
                    checks & 1 != 0, checks & 2 != 0, checks & 4 != 0 or brk)
                if hang:
                    st = NEEDS_REFERENCE
                    break
            else:
                pc = pc + 1 if jump < 0 else jump
        if st == 0:
            for row in written:
                for c in range(4):
                    if row < 32:
                        temporaries[row - 16][lane, c] = regs[row, c]
                    else:
                        outputs[row - 32][lane, c] = regs[row, c]
            address[0, lane] = a0x
            address[1, lane] = a0y
            address[2, lane] = al
            cmp[0, lane] = cmpx
            cmp[1, lane] = cmpy
        status[lane] = st
        steps[lane] = executed



def register_rows(program: DecodedProgram) -> tuple[np.ndarray, np.ndarray]:
    """Rows of the register file to load per lane (every v, r, o the program names) and
    to store back (every r, o it writes)."""
    rows, written = set(), set()
    for step in program.steps:
        if step.fault is not None or step.kind not in (Kind.ARITHMETIC, Kind.COMPARE):
            continue
        for operand in step.sources:
            if operand.bank != "c":
                rows.add(_ROW_BASE[operand.bank] + operand.number)
        if step.dest is not None:
            row = _ROW_BASE[step.dest[0]] + step.dest[1]
            rows.add(row)
            written.add(row)
    return (np.array(sorted(rows), dtype=np.int64), np.array(sorted(written), dtype=np.int64))
