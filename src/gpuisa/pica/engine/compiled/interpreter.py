"""The JIT engine's interpreter: one Numba kernel for every program, compiled once and
cached on disk.

Compiling a program-specific kernel (:mod:`.codegen`) takes about a second, which
only pays off for many vertices.  For small batches the JIT engine runs this kernel
instead: it executes a program encoded as an integer table (:func:`encode`) with the
same recipes and stack machine as the compiled kernels and the same lane contract:
status :data:`.codegen.NEEDS_REFERENCE` for anything the reference engine must
finish or report.

The ALU is :mod:`.interpreter_alu` (the recipes, generated when first imported), control flow
the stack machine of :mod:`..flow.stacks` (compiled through :mod:`.stacks`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...isa import NUM_INT_UNIFORMS, Flow, Kind, Writes
from ..decode import DecodedProgram
from . import interpreter_alu as A
from . import intrinsics as R
from . import stacks as S
from .codegen import NEEDS_REFERENCE, Analysis

# Columns of the instruction table.
(KIND, OP, DEST, MASK, CHECKS, FLAG, DST, NUM, CONDOP, REFX, REFY, ID, CMPX, CMPY,
 WRITES, FLOW, CONDITION, NSRC, SRC) = range(19)
#: Per source: bank (0 = v, 1 = r, 2 = c), number, relative index row (-1: none),
#: negate, then the four swizzle selectors.
SRC_WIDTH = 8
COLUMNS = SRC + 3 * SRC_WIDTH

W_REGISTER, W_FLAGS, W_ADDRESS = int(Writes.REGISTER), int(Writes.FLAGS), int(Writes.ADDRESS)
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
            row[WRITES] = int(step.info.writes)
            if "cmpx" in step.info.format.layout:  # CMP's operators
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
        if step.info.flow is Flow.END:
            row[KIND] = K_END
            continue
        if step.info.inert:
            row[KIND] = K_NOP
            continue
        row[KIND] = K_FLOW
        row[FLOW] = int(step.info.flow)
        row[CONDITION] = int(step.info.condition)
        fields = dict(step.fields)
        row[DST] = fields.get("dst", 0)
        row[NUM] = fields.get("num", 0)
        row[CONDOP] = fields.get("condop", 0)
        row[REFX] = fields.get("refx", 0)
        row[REFY] = fields.get("refy", 0)
        number = fields.get("id", 0)
        if step.info.flow is Flow.LOOP:
            number %= NUM_INT_UNIFORMS
            row[FLAG] = ("i", number) in missing
        elif step.info.reads_bool:
            row[FLAG] = ("b", number) in missing
        row[ID] = number
    return table


F_LOOP = int(Flow.LOOP)


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


@njit(cache=True, error_model="numpy", nogil=True)
def interpret(lo, hi, entry, table, rows, written, f24, inputs, temporaries, outputs,
              address, cmp, floats, float_given, ints, bools, max_steps, status, steps,
              natives):
    regs = np.zeros((48, 4), np.float32)
    s = np.zeros((3, 4), np.float32)
    res = np.zeros(4, np.float32)
    flags = np.zeros(2, np.int64)
    addr = np.zeros(2, np.int64)
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
                if f24:
                    A.alu24(op, s, res, flags, addr, table[pc, CMPX], table[pc, CMPY],
                            scratch)
                else:
                    A.alu32(op, s, res, flags, addr, table[pc, CMPX], table[pc, CMPY],
                            scratch)
                writes = table[pc, WRITES]
                if writes & W_REGISTER:
                    dest = table[pc, DEST]
                    for c in range(4):
                        if mask >> c & 1:
                            regs[dest, c] = res[c]
                if writes & W_FLAGS:
                    cmpx = flags[0] != 0
                    cmpy = flags[1] != 0
                if writes & W_ADDRESS:
                    if mask & 1:
                        a0x = addr[0]
                    if mask & 2:
                        a0y = addr[1]
            elif kind == K_FLOW:
                number = table[pc, ID]
                num = table[pc, NUM]
                loop_x = loop_y = loop_z = 0
                if table[pc, FLOW] == F_LOOP:
                    loop_x, loop_y, loop_z = ints[number, 0], ints[number, 1], ints[number, 2]
                taken = S.taken(table[pc, CONDITION], table[pc, CONDOP], table[pc, REFX],
                                table[pc, REFY], cmpx, cmpy, bools[number], num)
                jump, brk, n_if, n_call, n_loop, al = S.effect(
                    table[pc, FLOW], taken, pc, table[pc, DST], num, ifs, n_if, calls,
                    n_call, loops, n_loop, al, loop_x, loop_y, loop_z)
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
