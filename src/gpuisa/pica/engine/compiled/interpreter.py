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
#: Lanes interpreted together: each instruction is decoded once for the lanes at its
#: address and its recipe runs over them in one loop (which LLVM vectorizes).  128
#: interpreted the benchmark shaders 10-20 % faster than 64 (per-instruction costs
#: shared by more lanes), 256 no faster than 128 (2026-11-25).
LANES = 128


@njit(cache=True, error_model="numpy", nogil=True)
def _operands(table, pc, k, regs, floats, float_given, a0x, a0y, al, f24, out, at,
              status, live, m):
    """Source operand k of the instruction at ``pc`` for lanes ``0 .. m - 1`` into
    ``out`` (4 components x lanes); a lane of ``at`` whose relative read hits a uniform
    that was not given stops (:data:`NEEDS_REFERENCE`)."""
    base = SRC + k * SRC_WIDTH
    bank = table[pc, base]
    number = table[pc, base + 1]
    relative = table[pc, base + 2]
    if bank == 2 and relative >= 0:
        for j in range(m):
            if at[j]:
                offset = a0x[j] if relative == 0 else (a0y[j] if relative == 1 else al[j])
                row = R.relative_row(number, offset)
                if float_given[row]:
                    for c in range(4):
                        out[c, j] = floats[row, table[pc, base + 4 + c]]
                else:
                    status[j] = NEEDS_REFERENCE
                    live[j] = False
                    at[j] = False
    elif bank == 2:
        for c in range(4):
            value = floats[number, table[pc, base + 4 + c]]
            for j in range(m):
                out[c, j] = value
    else:
        row = number if bank == 0 else 16 + number
        for c in range(4):
            selected = table[pc, base + 4 + c]
            for j in range(m):
                out[c, j] = regs[row, selected, j]
    if table[pc, base + 3]:
        for c in range(4):
            if f24:
                for j in range(m):
                    out[c, j] = R.negate24(out[c, j])
            else:
                for j in range(m):
                    out[c, j] = R.negate32(out[c, j])


@njit(cache=True, error_model="numpy", nogil=True)
def _next(pc, jump, brk, checks, ifs, n_if, calls, n_call, loops, n_loop, al):
    """(PC, aL, n_if, n_call, n_loop, hang) after the instruction at ``pc`` of one control
    state: the stack check where a stack can pop (``checks``) or a BREAK is pending, else
    the pending ``jump`` or the next word."""
    if checks or brk:
        return S.next_pc(ifs, n_if, calls, n_call, loops, n_loop, pc, jump, brk, al,
                         checks & 1 != 0, checks & 2 != 0, checks & 4 != 0 or brk)
    return (pc + 1 if jump < 0 else jump), al, n_if, n_call, n_loop, False


@njit(cache=True, error_model="numpy", nogil=True)
def _same_control(live, al, n_if, n_call, n_loop, ifs, calls, loops, m):
    """Whether every live lane has the same control state (aL, stack counts and the
    whole of each ring buffer, stale entries included)."""
    first = -1
    for j in range(m):
        if not live[j]:
            continue
        if first < 0:
            first = j
            continue
        if (al[j] != al[first] or n_if[j] != n_if[first] or n_call[j] != n_call[first]
                or n_loop[j] != n_loop[first]):
            return False
        for k in range(ifs.shape[1]):
            if ifs[j, k] != ifs[first, k]:
                return False
        for k in range(calls.shape[1]):
            if calls[j, k] != calls[first, k]:
                return False
        for k in range(loops.shape[1]):
            if loops[j, k] != loops[first, k]:
                return False
    return True


@njit(cache=True, error_model="numpy", nogil=True)
def _share(al_t, hang, at, al, status, live, m):
    """The shared control state's aL (and a hang) given to the lanes that ran the
    instruction (not to lanes that ended earlier: their aL is a result)."""
    for j in range(m):
        if at[j]:
            al[j] = al_t
            if hang:
                status[j] = NEEDS_REFERENCE
                live[j] = False


@njit(cache=True, error_model="numpy", nogil=True)
def interpret(lo, hi, entry, table, rows, written, f24, inputs, temporaries, outputs,
              address, cmp, floats, float_given, ints, bools, max_steps, status, steps,
              natives):
    regs = np.zeros((48, 4, LANES), np.float32)
    s = np.zeros((3, 4, LANES), np.float32)
    res = np.zeros((4, LANES), np.float32)
    flags = np.zeros((2, LANES), np.int64)
    addr = np.zeros((2, LANES), np.int64)
    # per lane: address registers, PC, steps, stack counts; flags, running, at the PC
    numbers = np.zeros((8, LANES), np.int64)
    a0x, a0y, al, pcs = numbers[0], numbers[1], numbers[2], numbers[3]
    executed, n_if, n_call, n_loop = numbers[4], numbers[5], numbers[6], numbers[7]
    truths = np.zeros((4, LANES), np.bool_)
    cmpx, cmpy, live, at = truths[0], truths[1], truths[2], truths[3]
    st = np.zeros(LANES, np.int8)
    ifs = np.zeros((LANES, S.IF_SIZE), np.int64)
    calls = np.zeros((LANES, S.CALL_SIZE), np.int64)
    loops = np.zeros((LANES, S.LOOP_SIZE), np.int64)
    ifs_t = np.zeros(S.IF_SIZE, np.int64)
    calls_t = np.zeros(S.CALL_SIZE, np.int64)
    loops_t = np.zeros(S.LOOP_SIZE, np.int64)
    scratch = R.make_scratch(natives)
    length = table.shape[0]
    # the stand-ins kernels.ZERO_ADDRESS, ZERO_FLAGS: start at 0, store nothing
    given_address = address.shape[0] == 3
    given_flags = cmp.shape[0] == 2
    for base in range(lo, hi, LANES):
        m = min(LANES, hi - base)
        for row in rows:
            for c in range(4):
                if row < 16:
                    source = inputs[row]
                    for j in range(m):
                        regs[row, c, j] = source[base + j, c]
                elif row < 32:
                    temporary = temporaries[row - 16]
                    for j in range(m):
                        regs[row, c, j] = temporary[base + j, c]
                else:
                    output = outputs[row - 32]
                    for j in range(m):
                        regs[row, c, j] = output[base + j, c]
        for j in range(m):
            lane = base + j
            if given_address:
                a0x[j] = address[0, lane]
                a0y[j] = address[1, lane]
                al[j] = address[2, lane]
            else:
                a0x[j] = 0
                a0y[j] = 0
                al[j] = 0
            if given_flags:
                cmpx[j] = cmp[0, lane]
                cmpy[j] = cmp[1, lane]
            else:
                cmpx[j] = False
                cmpy[j] = False
            executed[j] = 0
            st[j] = 0
            live[j] = True
            n_if[j] = 0
            n_call[j] = 0
            n_loop[j] = 0
        # Lanes run "together" on one shared control state (one PC, one set of stacks)
        # until a flow instruction's condition differs between them; then each lane
        # gets its own copy, and the lowest PC any lane waits at runs next.
        together = True
        for j in range(m):
            together &= al[j] == al[0]
        pc_t = entry
        al_t = al[0]
        n_if_t = n_call_t = n_loop_t = 0
        rejoin = False
        if not together:
            for j in range(m):
                pcs[j] = entry
        while True:
            pc = -1
            found = False
            if together:
                for j in range(m):
                    found |= live[j]
                pc = pc_t
            else:
                apart = False
                for j in range(m):
                    if live[j]:
                        if not found or pcs[j] < pc:
                            apart |= found
                            pc = pcs[j]
                            found = True
                        elif pcs[j] != pc:
                            apart = True
                if found and not apart and rejoin:
                    together = _same_control(live, al, n_if, n_call, n_loop, ifs, calls,
                                             loops, m)
                    rejoin = False
                    if together:
                        j = 0
                        while not live[j]:
                            j += 1
                        pc_t = pc
                        al_t = al[j]
                        n_if_t, n_call_t, n_loop_t = n_if[j], n_call[j], n_loop[j]
                        ifs_t[:] = ifs[j]
                        calls_t[:] = calls[j]
                        loops_t[:] = loops[j]
            if not found:
                break
            outside = pc < 0 or pc >= length
            stop = outside or table[pc, KIND] == K_FAULT or table[pc, FLAG] != 0
            for j in range(m):
                at[j] = live[j] and (together or pcs[j] == pc)
                if at[j]:
                    if executed[j] >= max_steps or outside:
                        st[j] = NEEDS_REFERENCE
                        live[j] = False
                        at[j] = False
                    else:
                        executed[j] += 1
                        if stop:
                            st[j] = NEEDS_REFERENCE
                            live[j] = False
                            at[j] = False
            if stop:
                continue
            kind = table[pc, KIND]
            if kind == K_END:
                for j in range(m):
                    if at[j]:
                        live[j] = False
                continue
            checks = table[pc, CHECKS]
            if kind == K_ALU:
                for k in range(table[pc, NSRC]):
                    _operands(table, pc, k, regs, floats, float_given, a0x, a0y, al, f24,
                              s[k], at, st, live, m)
                op = table[pc, OP]
                if f24:
                    A.alu24(op, s, res, flags, addr, table[pc, CMPX], table[pc, CMPY],
                            scratch, m)
                else:
                    A.alu32(op, s, res, flags, addr, table[pc, CMPX], table[pc, CMPY],
                            scratch, m)
                mask = table[pc, MASK]
                writes = table[pc, WRITES]
                if writes & W_REGISTER:
                    dest = table[pc, DEST]
                    for c in range(4):
                        if mask >> c & 1:
                            for j in range(m):
                                regs[dest, c, j] = res[c, j] if at[j] else regs[dest, c, j]
                if writes & W_FLAGS:
                    for j in range(m):
                        if at[j]:
                            cmpx[j] = flags[0, j] != 0
                            cmpy[j] = flags[1, j] != 0
                if writes & W_ADDRESS:
                    for j in range(m):
                        if at[j]:
                            if mask & 1:
                                a0x[j] = addr[0, j]
                            if mask & 2:
                                a0y[j] = addr[1, j]
            flow = table[pc, FLOW]
            number = table[pc, ID]
            num = table[pc, NUM]
            loop_x = loop_y = loop_z = 0
            if kind == K_FLOW and flow == F_LOOP:
                loop_x, loop_y, loop_z = ints[number, 0], ints[number, 1], ints[number, 2]
            if together and kind == K_FLOW:
                taken = False
                first = True
                for j in range(m):
                    if at[j]:
                        here = S.taken(table[pc, CONDITION], table[pc, CONDOP],
                                       table[pc, REFX], table[pc, REFY], cmpx[j], cmpy[j],
                                       bools[number], num)
                        if first:
                            taken = here
                            first = False
                        elif here != taken:
                            together = False
                if not together:  # the lanes part: each takes a copy of the control state
                    for j in range(m):
                        if not live[j]:
                            continue  # ended earlier: its aL is a result
                        pcs[j] = pc_t
                        al[j] = al_t
                        n_if[j] = n_if_t
                        n_call[j] = n_call_t
                        n_loop[j] = n_loop_t
                        ifs[j, :] = ifs_t
                        calls[j, :] = calls_t
                        loops[j, :] = loops_t
                else:
                    jump, brk, n_if_t, n_call_t, n_loop_t, al_t = S.effect(
                        flow, taken, pc, table[pc, DST], num, ifs_t, n_if_t, calls_t,
                        n_call_t, loops_t, n_loop_t, al_t, loop_x, loop_y, loop_z)
                    pc_t, al_t, n_if_t, n_call_t, n_loop_t, hang = _next(
                        pc, jump, brk, checks, ifs_t, n_if_t, calls_t, n_call_t, loops_t,
                        n_loop_t, al_t)
                    _share(al_t, hang, at, al, st, live, m)
            elif together:
                pc_t, al_t, n_if_t, n_call_t, n_loop_t, hang = _next(
                    pc, -1, False, checks, ifs_t, n_if_t, calls_t, n_call_t, loops_t,
                    n_loop_t, al_t)
                if checks:
                    _share(al_t, hang, at, al, st, live, m)
            if together:
                continue
            if kind != K_FLOW and not checks:
                for j in range(m):
                    if at[j]:
                        pcs[j] = pc + 1
                continue
            rejoin = True  # control states changed: worth comparing again
            for j in range(m):
                if not at[j]:
                    continue
                jump = -1
                brk = False
                if kind == K_FLOW:
                    taken = S.taken(table[pc, CONDITION], table[pc, CONDOP], table[pc, REFX],
                                    table[pc, REFY], cmpx[j], cmpy[j], bools[number], num)
                    jump, brk, n_if[j], n_call[j], n_loop[j], al[j] = S.effect(
                        flow, taken, pc, table[pc, DST], num, ifs[j], n_if[j], calls[j],
                        n_call[j], loops[j], n_loop[j], al[j], loop_x, loop_y, loop_z)
                pcs[j], al[j], n_if[j], n_call[j], n_loop[j], hang = _next(
                    pc, jump, brk, checks, ifs[j], n_if[j], calls[j], n_call[j], loops[j],
                    n_loop[j], al[j])
                if hang:
                    st[j] = NEEDS_REFERENCE
                    live[j] = False
        for row in written:
            for c in range(4):
                if row < 32:
                    temporary = temporaries[row - 16]
                    for j in range(m):
                        if st[j] == 0:
                            temporary[base + j, c] = regs[row, c, j]
                else:
                    output = outputs[row - 32]
                    for j in range(m):
                        if st[j] == 0:
                            output[base + j, c] = regs[row, c, j]
        for j in range(m):
            lane = base + j
            if st[j] == 0 and given_address:
                address[0, lane] = a0x[j]
                address[1, lane] = a0y[j]
                address[2, lane] = al[j]
            if st[j] == 0 and given_flags:
                cmp[0, lane] = cmpx[j]
                cmp[1, lane] = cmpy[j]
            status[lane] = st[j]
            steps[lane] = executed[j]


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
