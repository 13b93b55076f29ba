"""Cases for facts: every row of 3dbrew's floating-point table and the special cases of
its scalar units (``seed``), and one case per OPEN point pica-emulation.md leaves to a
documented choice (pica-emulation.md#evidence).  The hardware facts are in
catalog_hardware."""

from __future__ import annotations

from collections.abc import Iterator

from .model import CHOICE, ROUNDING_CHOICES, SEED, Provenance
from .spec import F24, Group, Spec, vs

ZERO, NZERO = F24(0x000000), F24(0x800000)
INF, NINF = F24(0x7F0000), F24(0xFF0000)
NAN = F24(0x7F8000)
ONE, TWO, HALF = F24(0x3F0000), F24(0x400000), F24(0x3E0000)
S_MAX = F24(0x00FFFF)  # the largest subnormal pattern (3dbrew's "s")
N_MIN = F24(0x010000)  # the smallest positive normal (3dbrew's "n")

SEED_PAGE = "3dbrew GPU/Shader Instruction Set, Floating-Point Behavior"

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


def _case(name: str, inputs: dict, tags: tuple[str, ...], provenance: Provenance,
          note: str = "", unknowns: tuple[str, ...] = ()) -> Spec:
    """A case of a vertex shader: each input is one row (its single invocation)."""
    return Spec(name, {k: [v] for k, v in inputs.items()}, tags, provenance, note, unknowns)


def _one(family: str, body: str, case: Spec, uniforms: dict | None = None) -> Group:
    """A group of one case."""
    return Group(family, vs(body), [case], uniforms=uniforms or {})


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
SEED_OVERRIDDEN = {"max(0, -inf)": "aroulin/3ds-gpu-tests fp-tests/source/main.cpp tests[10]: "
                                   "max(0, -inf) = 0 (pica-emulation.md#min-max)"}


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
        yield _one("seed", body.format(op=op),
                   _case(seed_row_name(row), splatted, tags, Provenance(SEED, source)), uniforms)
    # "inf * 0 = 0: including inside MUL, MAD, DP4, etc."
    row = f"{SEED_PAGE}, row 'inf * 0' (note: including inside MUL, MAD, DP4)"
    yield _one("seed", MAD, _case("inf-0-inside-mad", {"v0": splat(INF), "v1": splat(ZERO),
               "v2": splat(ZERO)}, ("op:mad", "special:inf"), Provenance(SEED, row)))
    for op in ("dp3", "dp4", "dph"):
        yield _one("seed", BINARY.format(op=op),
                   _case(f"inf-0-inside-{op}",
                         {"v0": (INF, ONE, ONE, ONE), "v1": (ZERO, ZERO, ZERO, ZERO)},
                         (f"op:{op}", "special:inf"), Provenance(SEED, row)))
    # "1.0 can be multiplied 63 times by 0.5 until the result compares equal zero."
    sentence = f"{SEED_PAGE}: 1.0 can be multiplied 63 times by 0.5 until it equals zero"
    for times in (62, 63):
        group = Group("seed", vs("mov r0, v0\nfor i0\n    mul r0, c0, r0\n.end\nmov o0, r0"),
                      uniforms={"c0": splat(HALF), "i0": (times - 1, 0, 1, 0)})
        group.add(f"halve-1.0-{times}-times", {"v0": [splat(ONE)]},
                  ("op:mul", "op:loop", "special:f24-range-edge"), Provenance(SEED, sentence))
        yield group
    yield from _scalar_unit_groups()


#: The special cases of EX2 and LG2 that 3dbrew states and no public test program feeds
#: (RCP's and RSQ's are rows of its table above).
SCALAR_SPECIALS = (("ex2", "ninf", NINF), ("ex2", "pinf", INF), ("ex2", "nan", NAN),
                   ("ex2", "overflow", F24(0x450000)), ("lg2", "p0", ZERO),
                   ("lg2", "n0", NZERO), ("lg2", "negative", F24(0xBF0000)),
                   ("lg2", "pinf", INF), ("lg2", "nan", NAN))


def _scalar_unit_groups() -> Iterator[Group]:
    source = (f"{SEED_PAGE.split(',')[0]}: the special cases of RCP, RSQ, EX2 and LG2 "
              "(pica-emulation.md#scalar-units: 3dbrew only, no public test feeds them)")
    for op, name, value in SCALAR_SPECIALS:
        special = "special:nan" if value is NAN else "special:inf"
        yield _one(f"seed/{op}", UNARY.format(op=op),
                   _case(name, {"v0": splat(value)}, (f"op:{op}", special),
                         Provenance(SEED, source)))


def choice_groups() -> Iterator[Group]:
    """One case per OPEN point of pica-emulation.md, naming gpuisa's choice."""
    def chosen(point: str, choice: str) -> Provenance:
        return Provenance(CHOICE, point, choice)

    rounding = chosen("pica-emulation.md#f24-rounding float24 rounding mode (OPEN; suggested "
                      "hardware experiment)", ROUNDING_CHOICES["nearest-even"])
    # 0.75 and 0.5 of float24's ulp at 1.0 (2^-16): 1.5 * 2^-17 and 2^-17
    for name, b in (("above-half-ulp", F24(0x2E8000)), ("tie-half-ulp", F24(0x2E0000))):
        yield _one("choice/rounding", BINARY.format(op="add"),
                   _case(f"add-1-{name}", {"v0": splat(ONE), "v1": splat(b)},
                         ("op:add", "special:f24-rounding"), rounding,
                         unknowns=("f24-rounding-mode",)))
    yield _one("choice/rounding", BINARY.format(op="mul"),
               _case("mul-1ulp-squared", {"v0": splat(F24(0x3F0001)), "v1": splat(F24(0x3F0001))},
                     ("op:mul", "special:f24-rounding"), rounding,
                     unknowns=("f24-rounding-mode",)))
    yield _one("choice/summation", BINARY.format(op="dp4"),
               _case("cancelling-terms",
                     {"v0": (F24(0x5E0000), ONE, F24(0xDE0000), ONE), "v1": splat(ONE)},
                     ("op:dp4", "special:cancellation"),
                     chosen("pica-emulation.md#mul DP4 summation order (OPEN)",
                            "left to right: ((p0 + p1) + p2) + p3"),
                     unknowns=("dot-product-summation-order",)))
    yield _one("choice/cmp-ne-nan", CMP_OUT.format(opx="ne", opy="ne"),
               _case("ne-nan-is-true", {"v0": splat(NAN), "v1": splat(ONE)},
                     ("op:cmp", "special:nan"),
                     chosen("pica-emulation.md#compare CMP NE with NaN (OPEN)",
                            "IEEE: NE is true")),
               FLAG_UNIFORMS)
    for name, value in (("negative-1.5", -1.5), ("nan", NAN), ("huge", F24(0x7E0000))):
        yield _one("choice/mova", "mova a0.x, v0\nmov o0, c0[a0.x]",
                   _case(f"mova-{name}", {"v0": (value, 0.0, 0.0, 0.0)},
                         ("op:mova", "form:relative"),
                         chosen("pica-emulation.md#flr-mov-mova MOVA of negative/NaN/huge "
                                "values (OPEN)", "truncate toward zero, saturate, NaN -> 0")),
                   {f"c{n}": splat(float(n)) for n in range(96)})
    for name, op in (("mov", "mov"), ("sge", "sge"), ("litp", "litp")):
        body = UNARY if op != "sge" else BINARY
        yield _one("choice/subnormal", body.format(op=op),
                   _case(f"{name}-keeps-subnormal", {"v0": splat(S_MAX), "v1": splat(ZERO)},
                         (f"op:{op}", "special:f24-subnormal"),
                         chosen("pica-emulation.md#flush flushing in MOV/SGE/SLT/LITP (OPEN)",
                                "no flushing")))
    yield _one("choice/zero-sign", BINARY.format(op="add"),
               _case("add-minus-1-plus-1", {"v0": splat(-1.0), "v1": splat(1.0)},
                     ("op:add", "special:negative-zero"),
                     chosen("pica-emulation.md#flush sign of zero results (OPEN)",
                            "+0 (there is no -0 in float24)")))
    yield _one("choice/loop-bytes",
               "mov r0, c1\nfor i0\n    add r0, c0[aL], r0\n.end\nmov o0, r0",
               _case("start-200-is-unsigned", {"v0": splat(ZERO)}, ("op:loop", "form:relative"),
                     chosen("pica-emulation.md#flow-check signedness of LOOP Y/Z (OPEN)",
                            "unsigned bytes")),
               {"c0": splat(1.0), "c1": splat(0.0), "i0": (1, 200, 1, 0)})
    yield _one("choice/cmp-mask", "mov r1, v1\ncmp v0, lt, gt, r1\nifc cmp.x && cmp.y\n"
               "    mov o0, c0\n.else\n    mov o0, c1\n.end",
               _case("cmp-sets-both-flags", {"v0": (0.0, 2.0, 0.0, 0.0),
                                             "v1": (1.0, 1.0, 0.0, 0.0)}, ("op:cmp",),
                     chosen("pica-emulation.md#compare CMP and the destination mask (OPEN)",
                            "the mask is ignored")),
               FLAG_UNIFORMS)
    yield _one("choice/precision", UNARY.format(op="rcp"),
               _case("rcp-3", {"v0": splat(3.0)}, ("op:rcp",),
                     chosen("pica-emulation.md#scalar-units RCP/RSQ/EX2/LG2 precision (OPEN)",
                            "correctly rounded from double, then the precision mode"),
                     unknowns=("special-function-precision",)))
