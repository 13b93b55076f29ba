"""Control flow and the ALU slot's plumbing: co-issue, source modifiers, predication,
kills, relative addressing through a0 and aL, loops, calls and jumps with the constants
that drive them, bool-conditional execs, and every kind of export.  Most cases run
several invocations that take different paths (a2xx-isa.md#control)."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from .model import MODEL, Provenance
from .spec import Draft, draft, named

FLOW = Provenance(MODEL, "a2xx-isa.md#control, a2xx-isa.md#cf")
LOOPS = Provenance(MODEL, "a2xx-isa.md#cf-loop, a2xx-isa.md#loop-constant")
RELATIVE = Provenance(MODEL, "a2xx-isa.md#alu-relative, a2xx-isa.md#const-rel-rule")
EXPORTS = Provenance(MODEL, "a2xx-isa.md#exports, a2xx-isa.md#kill-exports")
COISSUE = Provenance(MODEL, "a2xx-isa.md#co-issue, a2xx-isa.md#alu-execution")
ONES = {0: np.ones(4, np.float32), 1: np.full(4, 2, np.float32)}  # C0 = 1, C1 = 2
NOP = "      ALU:    MAXv R0.____ = R0, R0\n"
#: Predicate-deciding values (R2.w) the divergent cases spread over their invocations.
DECIDERS = ("+1", "-1", "+0", "-0", "nan", "+inf", "-inf", "denorm")


def _w(names: tuple[str, ...]) -> np.ndarray:
    """(n, 4) rows with the named values in w and 1.5 elsewhere."""
    rows = np.full((len(names), 4), 1.5, np.float32)
    rows[:, 3] = named(*names)
    return rows


def _spread(k: int, count: int = 4) -> tuple[str, ...]:
    return tuple(DECIDERS[(k + j * 3) % len(DECIDERS)] for j in range(count))


def coissue_groups() -> Iterator[Draft]:
    templates = {
        "split-masks": "ALU:    MULv export0.xy__ = R1, R2\n      RECIP_IEEE export0.__zw = R1\n",
        "both-masks-one": "ALU:    ADDv export0.xyz_ = R1, R2\n      SQRT_IEEE export0._yzw = R1\n",
        "read-before-write": "ALU:    ADDv R1 = R1, R2\n      MULs R3.x___ = R1\n"
                             "      ALU:    MAXv export0 = R1, R3\n",
        "shared-src3": "ALU:    MULADDv export0.xyz_ = R3, R1, R2\n      ADDs export0.___w = R3\n",
        "clamp": "ALU:    ADDv export0.xyz_ = R1, R2 CLAMP\n      RECIP_IEEE export0.___w = R1 "
                 "CLAMP\n",
        "modifiers": "ALU:    MULADDv export0 = -|R1|, R2.wzyx, -R3.xxyy\n",
        "export-ps": "ALU:    MAXv R0.____ = R0, R0\n      ADDs R5.x___ = R1\n"
                     "      ALU:    MAXv export0.____ = R0, R0\n"
                     "      ADD_PREVs export0.x___ = R2\n",
    }
    values = ("+1", "-2.5", "0.5", "+inf", "nan", "-0", "denorm", "max", "0.1", "-7.75")
    for name, body in templates.items():
        for k in range(len(values)):
            rows = [named(*(values[(k + j + 3 * i) % len(values)] for j in range(4)))
                    for i in range(3)]
            yield draft(f"coissue/{name}/{k}", "EXEC_END\n      " + body,
                        {1: rows[0], 2: rows[1], 3: rows[2]},
                        tags=("quirk:co-issue", f"form:{name}"), provenance=COISSUE)
    zero_fill = "EXEC_END\n      ALU:    MAXv export1.x_z_ = R1, R1\n      MAXs export1._yz_ = R2\n"
    for k, rel in enumerate((0, 1)):
        yield draft(f"coissue/scalar-dest-rel/{rel}", zero_fill,
                    {1: named("+1", "3", "0.5", "-1"), 2: named("100", "100", "100", "100")},
                    tags=("quirk:co-issue", "quirk:scalar-dest-rel"), provenance=EXPORTS,
                    patches=(("alu", 1, {"scalar_dest_rel": rel}),),
                    note="d0 bit 14 set: components written by neither unit become 0.0"
                    if k else "components written by neither unit keep their value")


def abs_constant_groups() -> Iterator[Draft]:
    """d0 bit 7: Xenos takes |C| of constant operands, Adreno ignores the bit."""
    for k, name in enumerate(("-1", "-0", "-inf", "-nan", "-denorm", "-2.5", "+1", "-max")):
        yield draft(f"quirk/abs-constants/{k}", "EXEC_END\n      ALU:    ADDv export0 = R1, C4\n"
                    "      ALU:    MAXv export1 = C5, R1\n",
                    {1: named("+0", "+1", "-0", "0.5")},
                    floats={4: named(name, "-1", "0.5", name), 5: named("-2.5", name, "-0", "3")},
                    patches=(("alu", 1, {"abs_constants": 1}), ("alu", 2, {"abs_constants": 1})),
                    tags=("quirk:abs-constants", "op:ADDv", "op:MAXv"),
                    provenance=Provenance(MODEL, "a2xx-isa.md#adreno-vs-xenos"),
                    note="ALU d0 bit 7 set: Xenos' abs_constants, Adreno's "
                    "low_precision_16b_fp (ignored)")


def predication_groups() -> Iterator[Draft]:
    bodies = {
        "alu": "EXEC_END\n" + NOP + "      PRED_SETGTs R5.x___ = R2\n"
               "      ALU:    ADDvEQ export0 = R1, C1\n      ALU:    ADDvNE export1 = R1, C0\n",
        "scalar-setne": "EXEC_END\n" + NOP + "      PRED_SETNEs R5.x___ = R2\n"
                        "      ALU:    MULvEQ export0 = R1, C1\n",
        "vector-push": "EXEC_END\n      ALU:    PRED_SETGTE_PUSHv R5 = R2, C0\n"
                       "      ALU:    MAXvEQ export0 = R1, R1\n"
                       "      ALU:    MAXvNE export1 = R2, R2\n",
        "cond-pred-exec": "EXEC\n" + NOP + "      PRED_SETGTs R5.x___ = R2\n"
                          "COND_PRED_EXEC_END COND(1)\n      ALU:    MAXv export0 = C1, C1\n"
                          "EXEC_END\n      ALU:    MAXv export0 = R1, C0\n",
        "cond-pred-exec-0": "EXEC\n" + NOP + "      PRED_SETGTs R5.x___ = R2\n"
                            "COND_PRED_EXEC COND(0)\n      ALU:    MAXv export0 = C1, C1\n"
                            "EXEC_END\n      ALU:    ADDv export1 = R1, C0\n",
        "pred-inv": "EXEC_END\n" + NOP + "      PRED_SETEs R5.x___ = R2\n"
                    + NOP + "      PRED_SET_INVs R6.x___ = R5\n"
                    "      ALU:    ADDvEQ export0 = R1, C1\n",
    }
    for name, text in bodies.items():
        for k in range(len(DECIDERS)):
            deciders = _spread(k)
            yield draft(f"predication/{name}/{k}", text,
                        {1: np.tile(named("+1", "-2.5", "0.5", "3"), (4, 1)), 2: _w(deciders)},
                        floats=ONES, tags=("quirk:predication", f"form:{name}"),
                        provenance=FLOW, note="p0 from R2.w = " + ", ".join(deciders))


def kill_groups() -> Iterator[Draft]:
    kills = ("KILLEv", "KILLGTv", "KILLGTEv", "KILLNEv")
    for k, op in enumerate(kills * 3):
        deciders = _spread(k, 6)
        text = ("EXEC_END\n" f"      ALU:    {op} R3.____ = R0, R2\n"
                "      ALU:    MULv export0 = R0, R1\n      ALU:    MAXv export61.x___ = R0, R0\n")
        yield draft(f"kill/{op}/{k // len(kills)}", text,
                    {0: _w(deciders), 1: np.tile(named("0.5", "+1", "-1", "3"), (6, 1)),
                     2: np.zeros((6, 4), np.float32)},
                    shader="pixel", tags=("quirk:kill", f"op:{op}"), provenance=EXPORTS,
                    note="killed invocations run to the end; R0.w = " + ", ".join(deciders))
    for op in ("KILLEs", "KILLGTs", "KILLGTEs", "KILLNEs", "KILLONEs"):
        deciders = ("+1", "+0", "-1", "nan", "+inf", "-0")
        text = ("EXEC_END\n" + NOP + f"      {op} R3.x___ = R0\n"
                "      ALU:    MAXv export0 = R3, R0\n")
        yield draft(f"kill/{op}/0", text, {0: _w(deciders)}, shader="pixel",
                    tags=("quirk:kill", f"op:{op}"), provenance=EXPORTS)


def _a0_table() -> dict[int, np.ndarray]:
    return {i: np.float32(i) + np.array([0, 0.25, 0.5, 0.75], np.float32) for i in range(24)}


def a0_groups() -> Iterator[Draft]:
    values = ("+0", "0.5", "1.5", "-2.5", "3", "-7.75", "100", "-1", "nan", "+inf", "-inf",
              "max", "-max", "0.75", "-0", "denorm")
    for op in ("MOVAs", "MOVA_FLOORs"):
        for k in range(4):
            w = tuple(values[(4 * k + j) % len(values)] for j in range(4))
            text = ("EXEC_END\n" + NOP + f"      {op} R5.x___ = R1\n"
                    "      ALU:    MAXv export0 = C8, C8\n      ALU:    ADDv export1 = R2, C9\n")
            yield draft(f"relative/a0/{op}/{k}", text, {1: _w(w), 2: np.ones((4, 4), np.float32)},
                        floats=_a0_table(),
                        patches=(("alu", 2, {"const_0_rel_abs": 1, "const_1_rel_abs": 1,
                                             "relative_addr": 1}),
                                 ("alu", 3, {"const_0_rel_abs": 1, "relative_addr": 1})),
                        tags=("quirk:a0", f"op:{op}"), provenance=RELATIVE,
                        note="C[8 + a0] and C[9 + a0] with a0 from R1.w = " + ", ".join(w)
                        + " (a0 clamps to [-256, 255]; constants outside C0-C511 read 0)")


def _loop(body: str, after: str = "      ALU:    MAXv export0 = R1, R1\n") -> str:
    return ("LOOP_START ADDR(3) LOOP_ID(2)\nEXEC\n" + body + "LOOP_END ADDR(1) LOOP_ID(2)\n"
            "EXEC_END\n" + after)


def loop_groups() -> Iterator[Draft]:
    counts = (0, 1, 2, 3, 5, 8, 17, 64, 255)
    for count in counts:
        for start, step in ((0, 1), (2, 3), (200, -5), (1, 127)):
            register = count | start << 8 | (step & 0xFF) << 16
            text = _loop("      ALU:    ADDv R1 = R1, C0\n      ALU:    MAXv R2 = C0, C0\n",
                         "      ALU:    MAXv export0 = R1, R1\n"
                         "      ALU:    MAXv export1 = R2, R3\n")
            yield draft(f"loop/count-{count}/start-{start}-step-{step}", text,
                        {1: np.zeros(4, np.float32)}, floats=_a0_table(),
                        extra={"loops": {2: register}},
                        patches=(("alu", 3, {"const_0_rel_abs": 1}),),
                        tags=("flow:loop", "quirk:aL"), provenance=LOOPS,
                        note=f"loop constant i2 = {register:#010x}: count {count}, start "
                        f"{start}, step {step}; R2 = C[aL] of the last iteration")
    yield from _loop_features()


def _loop_features() -> Iterator[Draft]:
    breaking = _loop("      ALU:    ADDv R1 = R1, C0\n      ALU:    ADDv R3 = R1, -R2\n"
                     + NOP + "      PRED_SETGTEs R4.x___ = R3\n")
    for k in range(6):
        limits = named(*(("+1", "3", "100", "-1", "nan", "+inf", "0.5", "+0")[(k + j) % 8]
                         for j in range(4)))
        limit_rows = np.zeros((4, 4), np.float32)
        limit_rows[:, 3] = limits
        yield draft(f"loop/predicated-break/{k}", breaking, {2: limit_rows},
                    floats=ONES, extra={"loops": {2: 10}},
                    patches=(("cf", 2, {"is_predicated_break": 1, "condition": 1}),),
                    tags=("flow:loop", "flow:predicated-break"), provenance=LOOPS)
    repeat = ("LOOP_START ADDR(3) LOOP_ID(0)\nEXEC\n      ALU:    ADDv R1 = R1, C0\n"
              "LOOP_END ADDR(1) LOOP_ID(0)\nLOOP_START ADDR(6) LOOP_ID(1)\nEXEC\n"
              "      ALU:    ADDv R2 = R2, C0\nLOOP_END ADDR(4) LOOP_ID(1)\n"
              "EXEC_END\n      ALU:    MAXv export0 = R1, R2\n")
    for k, (a, b) in enumerate(((3, 5), (5, 3), (0, 4), (2, 2))):
        for rep in (0, 1):
            yield draft(f"loop/repeat-{rep}/{k}", repeat, {}, floats=ONES,
                        extra={"loops": {0: a, 1: b}},
                        patches=(("cf", 3, {"is_repeat": rep}),) if rep else (),
                        tags=("flow:loop", "flow:repeat"), provenance=LOOPS)
    nested = ("LOOP_START ADDR(6) LOOP_ID(0)\nLOOP_START ADDR(4) LOOP_ID(1)\nEXEC\n"
              "      ALU:    ADDv R1 = R1, C0\nLOOP_END ADDR(2) LOOP_ID(1)\nEXEC\n"
              "      ALU:    ADDv R2 = R2, C0\nLOOP_END ADDR(1) LOOP_ID(0)\n"
              "EXEC_END\n      ALU:    MAXv export0 = R1, R1\n"
              "      ALU:    MAXv export1 = R2, R2\n")
    for k, (outer, inner) in enumerate(((3 | 1 << 8 | 2 << 16, 2 | 4 << 16),
                                        (2 | 5 << 8 | 0xFF << 16, 3 | 1 << 8 | 1 << 16),
                                        (4, 0))):
        yield draft(f"loop/nested/{k}", nested, {}, floats=_a0_table(),
                    extra={"loops": {0: outer, 1: inner}},
                    patches=(("alu", 4, {"const_0_rel_abs": 1}),
                             ("alu", 5, {"const_0_rel_abs": 1})),
                    tags=("flow:loop", "flow:nested", "quirk:aL"), provenance=LOOPS)
    rel = _loop("      ALU:    MAXv R10 = C0, C0\n      ALU:    MAXv R1 = R10, R10\n")
    for k, register in enumerate((3 | 2 << 8 | 3 << 16, 4 | 10 << 8 | 0xFB << 16)):
        yield draft(f"relative/aL-dest/{k}", rel, {}, floats=_a0_table(),
                    extra={"loops": {2: register}},
                    patches=(("alu", 2, {"vector_dest_rel": 1, "const_0_rel_abs": 1}),
                             ("alu", 3, {"src1_reg": 10 | 0x40, "src2_reg": 10 | 0x40})),
                    tags=("quirk:aL", "flow:loop"), provenance=RELATIVE,
                    note="R[10 + aL] = C[aL], then R1 = R[10 + aL]")


def call_groups() -> Iterator[Draft]:
    calls = ("EXEC\n" + NOP + "      PRED_SETGTs R5.x___ = R2\n"
             "EXEC\n      ALU:    ADDv R1 = R1, C0\nCOND_CALL ADDR(5) DIR(1) FORCE_CALL\n"
             "COND_CALL ADDR(5) DIR(1) COND(1)\nEXEC_END\n      ALU:    MAXv export0 = R1, R1\n"
             "EXEC\n      ALU:    MULv R1 = R1, C1\nRETURN ADDR(0) DIR(0)\n")
    depth = ("EXEC\n" + NOP + "COND_CALL ADDR(2) DIR(1) FORCE_CALL\nEXEC\n"
             "      ALU:    ADDv R1 = R1, C0\nCOND_CALL ADDR(2) DIR(0) FORCE_CALL\n"
             "RETURN ADDR(0) DIR(0)\nEXEC_END\n      ALU:    MAXv export0 = R1, R1\n")
    jumps = ("EXEC\n" + NOP + "      PRED_SETGTs R5.x___ = R2\n"
             "COND_JMP ADDR(3) DIR(1) FORCE_CALL\nEXEC\n      ALU:    ADDv R1 = R1, C1\n"
             "COND_JMP ADDR(5) DIR(1) BOOL_ADDR(4)\nEXEC\n      ALU:    ADDv R1 = R1, C0\n"
             "COND_JMP ADDR(7) DIR(1) COND(0)\nEXEC\n      ALU:    MULv R1 = R1, C1\n"
             "EXEC_END\n      ALU:    MAXv export0 = R1, R1\n")
    bool_call = ("EXEC\n      ALU:    ADDv R1 = R1, C0\nCOND_CALL ADDR(4) DIR(1) BOOL_ADDR(9)\n"
                 "RETURN ADDR(0) DIR(0)\nEXEC_END\n      ALU:    MAXv export0 = R1, R1\n"
                 "EXEC\n      ALU:    MULv R1 = R1, C1\nRETURN ADDR(0) DIR(0)\n")
    for k in range(len(DECIDERS)):
        regs = {1: np.tile(named("+1", "3", "-2.5", "0.5"), (4, 1)), 2: _w(_spread(k))}
        yield draft(f"call/predicated/{k}", calls, regs, floats=ONES,
                    tags=("flow:call",), provenance=FLOW)
        for b4 in (0, 1):
            yield draft(f"jump/mixed/{k}-b4-{b4}", jumps, regs, floats=ONES,
                        extra={"bools": (4,) if b4 else ()}, tags=("flow:jump",), provenance=FLOW)
    yield draft("call/stack-depth-4", depth, {}, floats=ONES,
                tags=("flow:call", "quirk:call-stack"),
                provenance=Provenance(MODEL, "a2xx-isa.md#state, a2xx-isa.md#control"),
                note="recursion beyond 4 return addresses: the call falls through (Xenia)")
    for taken in (0, 1):
        for cond in (0, 1):
            yield draft(f"call/bool-b9-{taken}-cond-{cond}", bool_call, {}, floats=ONES,
                        extra={"bools": (9,) if taken else ()},
                        patches=(("cf", 1, {"condition": cond}),),
                        tags=("flow:call", "flow:return-empty"), provenance=FLOW)


def cond_exec_groups() -> Iterator[Draft]:
    for op in ("COND_EXEC", "COND_EXEC_PRED_CLEAN", "COND_EXEC_END", "COND_EXEC_PRED_CLEAN_END"):
        for value in (0, 1):
            for cond in (0, 1):
                for index in (0, 37, 255):
                    text = (f"{op} BOOL_ADDR({index}) COND({cond})\n"
                            "      ALU:    MAXv export0 = C1, C1\n"
                            "EXEC_END\n      ALU:    ADDv export1 = R1, C0\n")
                    yield draft(f"cond-exec/{op}/b{index}-{value}-cond-{cond}", text,
                                {1: named("0.5", "-1", "3", "nan")}, floats=ONES,
                                extra={"bools": (index,) if value else ()},
                                tags=(f"op:{op}", "flow:bool"), provenance=FLOW)


def export_groups() -> Iterator[Draft]:
    vertex = ("ALLOC POSITION SIZE(0x1)\nEXEC\n      ALU:    MAXv export62 = R1, R1\n"
              "      ALU:    MAXv export63 = R2, R2\nALLOC PARAM/PIXEL SIZE(0xf)\n"
              + "".join(("EXEC_END\n" if n == 12 else "EXEC\n" if n % 6 == 0 else "")
                        + f"      ALU:    MULv export{n} = R1, C{n % 2}\n" for n in range(16)))
    pixel = ("ALLOC PARAM/PIXEL SIZE(0x3)\nEXEC_END\n"
             + "".join(f"      ALU:    MULv export{n} = R0, C{n % 2}\n" for n in range(4))
             + "      ALU:    MAXv export61.x___ = R1, R1\n")
    memory = ("ALLOC MEMORY SIZE(0x4)\nEXEC_END\n      ALU:    MAXv export32 = R1, R1\n"
              + "".join(f"      ALU:    ADDv export{n} = R2, C{n % 2}\n" for n in range(33, 38))
              + "NOP\nMARK_VS_FETCH_DONE\n")
    values = ("+1", "-2.5", "nan", "+inf", "-0", "denorm", "max", "0.1")
    for k in range(4):
        rows = [named(*(values[(k + 2 * j + i) % 8] for j in range(4))) for i in range(2)]
        yield draft(f"export/vertex/{k}", vertex, {1: rows[0], 2: rows[1]}, floats=ONES,
                    tags=("export:position", "export:point-size", "export:parameters"),
                    provenance=EXPORTS)
        yield draft(f"export/pixel/{k}", pixel, {0: rows[0], 1: rows[1]}, floats=ONES,
                    shader="pixel", tags=("export:colors", "export:depth"), provenance=EXPORTS)
        yield draft(f"export/memexport/{k}", memory, {1: rows[0], 2: rows[1]}, floats=ONES,
                    tags=("export:memexport", "op:NOP", "op:MARK_VS_FETCH_DONE", "op:ALLOC"),
                    provenance=EXPORTS,
                    note="the values written to eA and eM0-eM4; the memory write itself is "
                    "not modelled (docs/a2xx-vectors-format.md, known gaps)")


#: The flow-control groups, in the suite's order.
FLOW_GROUPS = (coissue_groups, abs_constant_groups, predication_groups, kill_groups, a0_groups,
               loop_groups, call_groups, cond_exec_groups, export_groups)


def flow_groups() -> Iterator[Draft]:
    for make in FLOW_GROUPS:
        yield from make()
