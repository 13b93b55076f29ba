"""Cases for facts: every row of 3dbrew's floating-point table (``seed``), every
hardware result pica-emulation.md reports (``hardware``, naming the test), and one case
per OPEN point pica-emulation.md leaves to a documented choice (pica-emulation.md#evidence)."""

from __future__ import annotations

from collections.abc import Iterator

from .model import CHOICE, HARDWARE, ROUNDING_CHOICES, SEED, Provenance
from .spec import F24, Group, vs

ZERO, NZERO = F24(0x000000), F24(0x800000)
INF, NINF = F24(0x7F0000), F24(0xFF0000)
NAN = F24(0x7F8000)
ONE, TWO, HALF = F24(0x3F0000), F24(0x400000), F24(0x3E0000)
S_MAX = F24(0x00FFFF)  # the largest subnormal pattern (3dbrew's "s")
N_MIN = F24(0x010000)  # the smallest positive normal (3dbrew's "n")

SEED_PAGE = "3dbrew GPU/Shader Instruction Set, Floating-Point Behavior"
FP_TESTS = "aroulin/3ds-gpu-tests fp-tests (Citra PR #1065)"

#: Programs by shape: one operand in v0 (x component used), two operands v0 and v1.
UNARY = "{op} o0, v0"
BINARY = "mov r1, v1\n{op} o0, v0, r1"
#: A three-operand MAD: src1 v0, src2 r1 (v1), src3 r2 (v2).
MAD = "mov r1, v1\nmov r2, v2\nmad o0, v0, r1, r2"
CMP_OUT = ("mov r1, v1\ncmp v0, {opx}, {opy}, r1\nifc cmp.x\n    mov o0, c0\n.else\n"
           "    mov o0, c1\n.end")
#: c0 = 1.0 and c1 = 0.0 for the programs that turn a flag into an output.
FLAG_UNIFORMS = {"c0": (1.0, 1.0, 1.0, 1.0), "c1": (0.0, 0.0, 0.0, 0.0)}


def splat(value: object) -> tuple[object, object, object, object]:
    return (value, value, value, value)


def _one(family: str, body: str, name: str, inputs: dict, tags: tuple[str, ...],
         provenance: Provenance, uniforms: dict | None = None, note: str = "") -> Group:
    group = Group(family, vs(body), uniforms=uniforms or {})
    group.add(name, {k: [v] for k, v in inputs.items()}, tags, provenance, note)
    return group


#: 3dbrew's table, row by row: (row text as 3dbrew writes it, program, inputs, tags)
#: (pica-emulation.md#fp-table).
#: Operands are splatted over x, y, z, w.
SEED_ROWS: tuple[tuple[str, str, str, dict, tuple[str, ...]], ...] = (
    ("inf * 0", "mul", BINARY, {"v0": INF, "v1": ZERO}, ("op:mul", "special:inf")),
    ("NaN * 0", "mul", BINARY, {"v0": NAN, "v1": ZERO}, ("op:mul", "special:nan")),
    ("+inf - +inf", "add", "mov r1, v1\nadd o0, v0, -r1", {"v0": INF, "v1": INF},
     ("op:add", "special:inf", "form:negate")),
    ("rsq(rcp(-inf))", "rcp", "rcp r0, v0\nrsq o0, r0", {"v0": NINF},
     ("op:rcp", "op:rsq", "special:inf", "special:zero")),
    ("rcp(-0)", "rcp", UNARY, {"v0": NZERO}, ("op:rcp", "special:negative-zero")),
    ("rcp(0)", "rcp", UNARY, {"v0": ZERO}, ("op:rcp", "special:zero")),
    ("rcp(+inf)", "rcp", UNARY, {"v0": INF}, ("op:rcp", "special:inf")),
    ("rcp(NaN)", "rcp", UNARY, {"v0": NAN}, ("op:rcp", "special:nan")),
    ("rsq(-0)", "rsq", UNARY, {"v0": NZERO}, ("op:rsq", "special:negative-zero")),
    ("rsq(-2)", "rsq", UNARY, {"v0": F24(0xC00000)}, ("op:rsq", "special:negative")),
    ("rsq(+inf)", "rsq", UNARY, {"v0": INF}, ("op:rsq", "special:inf")),
    ("rsq(-inf)", "rsq", UNARY, {"v0": NINF}, ("op:rsq", "special:inf")),
    ("rsq(NaN)", "rsq", UNARY, {"v0": NAN}, ("op:rsq", "special:nan")),
    ("max(0, +inf)", "max", BINARY, {"v0": ZERO, "v1": INF}, ("op:max", "special:inf")),
    ("max(0, -inf)", "max", BINARY, {"v0": ZERO, "v1": NINF}, ("op:max", "special:inf")),
    ("max(0, NaN)", "max", BINARY, {"v0": ZERO, "v1": NAN}, ("op:max", "special:nan")),
    ("max(NaN, 0)", "max", BINARY, {"v0": NAN, "v1": ZERO}, ("op:max", "special:nan")),
    ("max(-inf, +inf)", "max", BINARY, {"v0": NINF, "v1": INF}, ("op:max", "special:inf")),
    ("min(0, +inf)", "min", BINARY, {"v0": ZERO, "v1": INF}, ("op:min", "special:inf")),
    ("min(0, -inf)", "min", BINARY, {"v0": ZERO, "v1": NINF}, ("op:min", "special:inf")),
    ("min(0, NaN)", "min", BINARY, {"v0": ZERO, "v1": NAN}, ("op:min", "special:nan")),
    ("min(NaN, 0)", "min", BINARY, {"v0": NAN, "v1": ZERO}, ("op:min", "special:nan")),
    ("min(-inf, +inf)", "min", BINARY, {"v0": NINF, "v1": INF}, ("op:min", "special:inf")),
    ("cmp(s, 0)", "cmp", CMP_OUT.format(opx="eq", opy="eq"), {"v0": S_MAX, "v1": ZERO},
     ("op:cmp", "special:f24-subnormal")),
    ("max(s, 0)", "max", BINARY, {"v0": S_MAX, "v1": ZERO},
     ("op:max", "special:f24-subnormal")),
    ("mul(s, 2)", "mul", BINARY, {"v0": S_MAX, "v1": TWO},
     ("op:mul", "special:f24-subnormal")),
    ("mul(n, 0.5)", "mul", BINARY, {"v0": N_MIN, "v1": HALF},
     ("op:mul", "special:f24-range-edge")),
)

#: 3dbrew rows that hardware tests contradict: the expectation follows the hardware.
SEED_OVERRIDDEN = {"max(0, -inf)": f"{FP_TESTS}: max(0, -inf) = 0 (pica-emulation.md#min-max)"}


def seed_row_name(row: str) -> str:
    words = row.lower().replace("+", " plus ").replace("-", " minus ").replace("*", " times ")
    keep = "".join(c if c.isalnum() else "-" for c in words)
    return "-".join(part for part in keep.split("-") if part)


def seed_groups() -> Iterator[Group]:
    for row, op, body, inputs, tags in SEED_ROWS:
        source = f"{SEED_PAGE}, row '{row}'"
        if row in SEED_OVERRIDDEN:
            source += f"; overridden by hardware: {SEED_OVERRIDDEN[row]}"
        uniforms = FLAG_UNIFORMS if "cmp" in body else None
        splatted = {k: splat(v) for k, v in inputs.items()}
        yield _one("seed", body.format(op=op), seed_row_name(row), splatted, tags,
                   Provenance(SEED, source), uniforms)
    # "inf * 0 = 0: including inside MUL, MAD, DP4, etc."
    row = f"{SEED_PAGE}, row 'inf * 0' (note: including inside MUL, MAD, DP4)"
    yield _one("seed", MAD, "inf-0-inside-mad", {"v0": splat(INF), "v1": splat(ZERO),
               "v2": splat(ZERO)}, ("op:mad", "special:inf"), Provenance(SEED, row))
    for op in ("dp3", "dp4", "dph"):
        yield _one("seed", BINARY.format(op=op), f"inf-0-inside-{op}",
                   {"v0": (INF, ONE, ONE, ONE), "v1": (ZERO, ZERO, ZERO, ZERO)},
                   (f"op:{op}", "special:inf"), Provenance(SEED, row))
    # "1.0 can be multiplied 63 times by 0.5 until the result compares equal zero."
    sentence = f"{SEED_PAGE}: 1.0 can be multiplied 63 times by 0.5 until it equals zero"
    for times in (62, 63):
        group = Group("seed", vs("mov r0, v0\nfor i0\n    mul r0, c0, r0\n.end\nmov o0, r0"),
                      uniforms={"c0": splat(HALF), "i0": (times - 1, 0, 1, 0)})
        group.add(f"halve-1.0-{times}-times", {"v0": [splat(ONE)]},
                  ("op:mul", "op:loop", "special:f24-range-edge"), Provenance(SEED, sentence))
        yield group


def _fmt(body: str, op: str) -> str:
    return body.format(op=op)


def _hw(family: str, op: str, body: str, cases: list[tuple[str, dict]], source: str,
        tags: tuple[str, ...], uniforms: dict | None = None) -> Group:
    group = Group(family, vs(_fmt(body, op)), uniforms=uniforms or {})
    for name, inputs in cases:
        group.add(name, {k: [v] for k, v in inputs.items()}, (f"op:{op}", *tags),
                  Provenance(HARDWARE, source))
    return group


def _pairs(values: list[tuple[str, object, object]]) -> list[tuple[str, dict]]:
    return [(n, {"v0": splat(a), "v1": splat(b)}) for n, a, b in values]


def hardware_groups() -> Iterator[Group]:
    """One group per hardware fact of pica-emulation.md (its anchor in the source text)."""
    mul_cases = _pairs([("inf-times-0", INF, ZERO), ("0-times-inf", ZERO, INF),
                        ("minus-inf-times-0", NINF, ZERO), ("0-times-minus-inf", ZERO, NINF),
                        ("inf-times-minus-0", INF, NZERO), ("nan-times-0", NAN, ZERO),
                        ("inf-times-inf", INF, INF), ("inf-times-minus-inf", INF, NINF)])
    src = f"{FP_TESTS}; 3dbrew table: inf * 0 = 0 (non-IEEE multiply, pica-emulation.md#mul)"
    yield _hw("hw/mul", "mul", BINARY, mul_cases, src, ("special:inf",))
    for op in ("dp3", "dp4", "dph"):
        cases = [("inf-times-0-lane-x", {"v0": (INF, ONE, ONE, ONE), "v1": (ZERO, ONE, ONE, ONE)}),
                 ("0-times-minus-inf-lane-y", {"v0": (ONE, ZERO, ONE, ONE),
                                               "v1": (ONE, NINF, ONE, ONE)})]
        yield _hw(f"hw/{op}", op, BINARY, cases, src, ("special:inf",))
    yield _hw("hw/mad", "mad", MAD, [("inf-times-0-plus-1", {"v0": splat(INF), "v1": splat(ZERO),
                                                            "v2": splat(ONE)})],
              src, ("special:inf",))
    minmax = (f"{FP_TESTS} (pica-emulation.md#min-max: hardware contradicts the 3dbrew row "
              "max(0, -inf))")
    for op in ("max", "min"):
        yield _hw(f"hw/{op}", op, BINARY, _pairs([
            ("0-pinf", ZERO, INF), ("0-ninf", ZERO, NINF), ("0-nan", ZERO, NAN),
            ("nan-0", NAN, ZERO), ("ninf-pinf", NINF, INF), ("pinf-ninf", INF, NINF),
            ("subnormal-0", S_MAX, ZERO)]), minmax, ("special:inf", "special:nan"))
    rcp = "aroulin/3ds-gpu-tests rcp/rsq tests; 3dbrew table (pica-emulation.md#scalar-units)"
    yield _hw("hw/rcp", "rcp", UNARY, [("pinf", {"v0": splat(INF)}),
                                       ("minus-0", {"v0": splat(NZERO)})], rcp, ())
    yield _hw("hw/rsq", "rsq", UNARY, [("minus-0", {"v0": splat(NZERO)}),
                                       ("minus-2", {"v0": splat(F24(0xC00000))})], rcp, ())
    only_x = ("aroulin/3ds-gpu-tests rcp/rsq/ex2/lg2 tests: only SRC1.x is read "
              "(pica-emulation.md#scalar-units)")
    for op in ("rcp", "rsq", "ex2", "lg2"):
        yield _hw(f"hw/{op}-x-only", op, f"{op} o0, v0.yxzw", [
            ("swizzled-x", {"v0": (F24(0x3F0000), F24(0x400000), NAN, NINF)})],
            only_x, ("form:swizzle",))
    ex2 = "aroulin/3ds-gpu-tests ex2/lg2 tests (pica-emulation.md#scalar-units)"
    yield _hw("hw/ex2", "ex2", UNARY, [("ninf", {"v0": splat(NINF)}), ("pinf", {"v0": splat(INF)}),
                                       ("nan", {"v0": splat(NAN)}),
                                       ("overflow", {"v0": splat(F24(0x450000))})], ex2,
              ("special:inf",))
    yield _hw("hw/lg2", "lg2", UNARY, [("p0", {"v0": splat(ZERO)}), ("n0", {"v0": splat(NZERO)}),
                                       ("negative", {"v0": splat(F24(0xBF0000))}),
                                       ("pinf", {"v0": splat(INF)}), ("nan", {"v0": splat(NAN)})],
              ex2, ("special:inf",))
    sge = ("aroulin/3ds-gpu-tests sge/slt tests: any NaN operand gives 0.0 "
           "(pica-emulation.md#compare)")
    for op in ("sge", "slt", "sgei", "slti"):
        yield _hw(f"hw/{op}", op, BINARY, _pairs([("nan-1", NAN, ONE), ("1-nan", ONE, NAN),
                                                  ("nan-nan", NAN, NAN)]), sge, ("special:nan",))
    dph = ("aroulin/3ds-gpu-tests dph/dphi tests: DPH is DP4 with SRC1.w = 1 "
           "(pica-emulation.md#mul)")
    for op in ("dph", "dphi"):
        yield _hw(f"hw/{op}", op, BINARY, [("w-replaced", {
            "v0": (ONE, TWO, F24(0x408000), F24(0x458000)), "v1": (ONE, ONE, ONE, F24(0x410000))})],
            dph, ())
    mova = ("aroulin/3ds-gpu-tests mova test: 0.9 -> 0 (truncation, "
            "pica-emulation.md#flr-mov-mova)")
    group = Group("hw/mova", vs("mova a0.x, v0\nmov o0, c0[a0.x]"),
                  uniforms={"c0": splat(1.0), "c1": splat(2.0)})
    group.add("0.9-truncates-to-0", {"v0": [(0.9, 0.0, 0.0, 0.0)]}, ("op:mova", "form:relative"),
              Provenance(HARDWARE, mova), unknowns=("f32-to-f24-conversion",))
    group.add("1.0-is-1", {"v0": [(1.0, 0.0, 0.0, 0.0)]}, ("op:mova", "form:relative"),
              Provenance(HARDWARE, mova))
    yield group
    litp = "Panda3DS tests/PICA_LITP (hardware); 3dbrew LITP (pica-emulation.md#compare)"
    group = Group("hw/litp", vs("litp r0, v0\nmov o0, r0\nifc cmp.x\n    mov o1, c0\n.else\n"
                                "    mov o1, c1\n.end\nifc cmp.y\n    mov o2, c0\n.else\n"
                                "    mov o2, c1\n.end"), uniforms=FLAG_UNIFORMS)
    for name, row in (("clamps-y-high", (2.0, 200.0, 5.0, 3.0)),
                      ("clamps-y-low", (-2.0, -200.0, 5.0, -3.0)),
                      ("in-range", (0.5, 1.5, 7.0, 0.25))):
        group.add(name, {"v0": [row]}, ("op:litp",), Provenance(HARDWARE, litp))
    yield group
    rel = "3dbrew relative addressing, hardware-verified (pica-emulation.md#relative)"
    group = Group("hw/relative", vs("mova a0.xy, v0\nmov o0, c10[a0.x]\nmov o1, c10[a0.y]"),
                  uniforms={f"c{n}": splat(float(n)) for n in range(96)})
    for name, x, y in (("in-range", 3, -4), ("below-minus-128-is-0", -129, 0),
                       ("above-127-is-0", 128, 0), ("wraps-to-c0", 118, -10),
                       ("beyond-c95-reads-1.0", 86, 100), ("edge-127", 127, -128)):
        group.add(name, {"v0": [(float(x), float(y), 0.0, 0.0)]}, ("op:mova", "form:relative",
                  "form:out-of-range-index"), Provenance(HARDWARE, rel))
    yield group
    mad = ("JayFoxRox/3ds-tests mad-encoding: MAD's wide operand is SRC2, MADI's SRC3 "
           "(pica-emulation.md#relative)")
    group = Group("hw/mad-encoding", vs("mova a0.x, v2\nmov r1, v1\nmad o0, v0, c0[a0.x], r1\n"
                                        "mad o1, v0, r1, c0[a0.x]"),
                  uniforms={f"c{n}": splat(float(n + 1)) for n in range(8)})
    group.add("relative-wide-operand", {"v0": [splat(2.0)], "v1": [splat(3.0)],
                                        "v2": [(5.0, 0.0, 0.0, 0.0)]},
              ("op:mad", "op:madi", "form:relative"), Provenance(HARDWARE, mad))
    yield group
    bank = "Azahar PR #2338 (hardware-verified output banking, pica-emulation.md#output-banks)"
    group = Group("hw/gs-banking", ".gsh point c0\n.out - position o0\n.proc main\n"
                  "    setemit 0\n    mov o0, v0\n    emit\n    mov o0, v1\n    emit\n"
                  "    emit\n    end\n.end\n", tags=("geometry",))
    group.add("third-emit-sees-first-value", {"v0": [splat(1.0)], "v1": [splat(2.0)]},
              ("op:emit", "quirk:output-banking"), Provenance(HARDWARE, bank))
    yield group
    slots = ("pica-emulation.md#output-map: semantic slots no output component maps read 1.0 "
             "(Azahar output_vertex.cpp, citing hardware tests)")
    group = Group("hw/output-map", ".out - position o0\n.out - color o1.xy\n.proc main\n"
                  "    mov o0, v0\n    mov o1, v1\n    end\n.end\n",
                  semantics=("position", "color", "texcoord0", "view"))
    group.add("unmapped-slots-read-one", {"v0": [(0.5, -0.25, 0.75, 1.0)],
                                          "v1": [(0.125, 0.375, 0.0, 0.0)]},
              ("quirk:unmapped-slots-read-one",), Provenance(HARDWARE, slots))
    yield group


def choice_groups() -> Iterator[Group]:
    """One case per OPEN point of pica-emulation.md, naming gpuisa's choice."""
    def choice(family: str, body: str, name: str, inputs: dict, tags: tuple[str, ...],
               point: str, chosen: str, uniforms: dict | None = None,
               unknowns: tuple[str, ...] = ()) -> Group:
        group = Group(f"choice/{family}", vs(body), uniforms=uniforms or {})
        group.add(name, {k: [v] for k, v in inputs.items()}, tags,
                  Provenance(CHOICE, point, chosen), unknowns=unknowns)
        return group

    rounding = ("pica-emulation.md#f24-rounding float24 rounding mode (OPEN; suggested hardware "
                "experiment)")
    # 0.75 and 0.5 of float24's ulp at 1.0 (2^-16): 1.5 * 2^-17 and 2^-17
    for name, b in (("above-half-ulp", F24(0x2E8000)), ("tie-half-ulp", F24(0x2E0000))):
        yield choice("rounding", BINARY.format(op="add"), f"add-1-{name}",
                     {"v0": splat(ONE), "v1": splat(b)}, ("op:add", "special:f24-rounding"),
                     rounding, ROUNDING_CHOICES["nearest-even"],
                     unknowns=("f24-rounding-mode",))
    yield choice("rounding", BINARY.format(op="mul"), "mul-1ulp-squared",
                 {"v0": splat(F24(0x3F0001)), "v1": splat(F24(0x3F0001))},
                 ("op:mul", "special:f24-rounding"), rounding,
                 ROUNDING_CHOICES["nearest-even"], unknowns=("f24-rounding-mode",))
    yield choice("summation", BINARY.format(op="dp4"), "cancelling-terms",
                 {"v0": (F24(0x5E0000), ONE, F24(0xDE0000), ONE), "v1": splat(ONE)},
                 ("op:dp4", "special:cancellation"),
                 "pica-emulation.md#mul DP4 summation order (OPEN)",
                 "left to right: ((p0 + p1) + p2) + p3", unknowns=("dot-product-summation-order",))
    yield choice("cmp-ne-nan", CMP_OUT.format(opx="ne", opy="ne"), "ne-nan-is-true",
                 {"v0": splat(NAN), "v1": splat(ONE)}, ("op:cmp", "special:nan"),
                 "pica-emulation.md#compare CMP NE with NaN (OPEN)", "IEEE: NE is true",
                 FLAG_UNIFORMS)
    for name, value in (("negative-1.5", -1.5), ("nan", NAN), ("huge", F24(0x7E0000))):
        yield choice("mova", "mova a0.x, v0\nmov o0, c0[a0.x]", f"mova-{name}",
                     {"v0": (value, 0.0, 0.0, 0.0)}, ("op:mova", "form:relative"),
                     "pica-emulation.md#flr-mov-mova MOVA of negative/NaN/huge values (OPEN)",
                     "truncate toward zero, saturate, NaN -> 0",
                     {f"c{n}": splat(float(n)) for n in range(96)})
    for name, op in (("mov", "mov"), ("sge", "sge"), ("litp", "litp")):
        body = UNARY if op != "sge" else BINARY
        yield choice("subnormal", body.format(op=op), f"{name}-keeps-subnormal",
                     {"v0": splat(S_MAX), "v1": splat(ZERO)}, (f"op:{op}", "special:f24-subnormal"),
                     "pica-emulation.md#flush flushing in MOV/SGE/SLT/LITP (OPEN)",
                     "no flushing")
    yield choice("zero-sign", BINARY.format(op="add"), "add-minus-1-plus-1",
                 {"v0": splat(-1.0), "v1": splat(1.0)}, ("op:add", "special:negative-zero"),
                 "pica-emulation.md#flush sign of zero results (OPEN)",
                 "+0 (there is no -0 in float24)")
    yield choice("loop-bytes", "mov r0, c1\nfor i0\n    add r0, c0[aL], r0\n.end\nmov o0, r0",
                 "start-200-is-unsigned", {"v0": splat(ZERO)}, ("op:loop", "form:relative"),
                 "pica-emulation.md#flow-check signedness of LOOP Y/Z (OPEN)", "unsigned bytes",
                 {"c0": splat(1.0), "c1": splat(0.0), "i0": (1, 200, 1, 0)})
    yield choice("cmp-mask", "mov r1, v1\ncmp v0, lt, gt, r1\nifc cmp.x && cmp.y\n"
                 "    mov o0, c0\n.else\n    mov o0, c1\n.end", "cmp-sets-both-flags",
                 {"v0": (0.0, 2.0, 0.0, 0.0), "v1": (1.0, 1.0, 0.0, 0.0)}, ("op:cmp",),
                 "pica-emulation.md#compare CMP and the destination mask (OPEN)",
                 "the mask is ignored", FLAG_UNIFORMS)
    yield choice("precision", UNARY.format(op="rcp"), "rcp-3", {"v0": splat(3.0)},
                 ("op:rcp",), "pica-emulation.md#scalar-units RCP/RSQ/EX2/LG2 precision (OPEN)",
                 "correctly rounded from double, then the precision mode",
                 unknowns=("special-function-precision",))
