"""Cases for hardware facts: each ``hardware`` case feeds exactly the input one public
hardware test program feeds (named by file and test in its source), and the facts whose
only evidence is a report rather than such a program are ``model`` cases naming the
report (pica-emulation.md#evidence).

tests/pica/vectors/test_provenance.py audits every ``hardware`` case against the inputs
and results of the cited programs, copied into tests/pica/vectors/data/hardware-tests.txt.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from .catalog_facts import (
    BINARY,
    FLAG_UNIFORMS,
    INF,
    MAD,
    NAN,
    NINF,
    NZERO,
    ONE,
    S_MAX,
    TWO,
    UNARY,
    ZERO,
    splat,
)
from .model import HARDWARE, MODEL, Provenance
from .spec import F24, Group, Value, vs

AROULIN = "aroulin/3ds-gpu-tests"
FP = f"{AROULIN} fp-tests/source/main.cpp"
PANDA_LITP = "Panda3DS tests/PICA_LITP/source/main.c"

MUL = "pica-emulation.md#mul"
MIN_MAX = "pica-emulation.md#min-max"
SCALAR = "pica-emulation.md#scalar-units"
COMPARE = "pica-emulation.md#compare"

#: fp-tests' table: (index, opcode, SRC1, SRC2, SRC3 or None, case name, rule).  Scalars
#: are splatted (the test reads component x); the dot products give whole vectors.
Operand = Value | tuple[Value, Value, Value, Value]
FP_TESTS: tuple[tuple[int, str, Operand, Operand | None, Operand | None, str, str], ...] = (
    (0, "rcp", ZERO, None, None, "0", SCALAR),
    (1, "rcp", INF, None, None, "pinf", SCALAR),
    (2, "rcp", NAN, None, None, "nan", SCALAR),
    (3, "rsq", ZERO, None, None, "0", SCALAR),
    (4, "rsq", ONE, None, None, "1", SCALAR),
    (5, "rsq", -1.0, None, None, "minus-1", SCALAR),
    (6, "rsq", INF, None, None, "pinf", SCALAR),
    (7, "rsq", NINF, None, None, "ninf", SCALAR),
    (8, "rsq", NAN, None, None, "nan", SCALAR),
    (9, "max", ZERO, INF, None, "0-pinf", MIN_MAX),
    (10, "max", ZERO, NINF, None, "0-ninf", MIN_MAX),
    (11, "max", ZERO, NAN, None, "0-nan", MIN_MAX),
    (12, "max", NAN, ZERO, None, "nan-0", MIN_MAX),
    (13, "max", NINF, INF, None, "ninf-pinf", MIN_MAX),
    (14, "min", ZERO, INF, None, "0-pinf", MIN_MAX),
    (15, "min", ZERO, NINF, None, "0-ninf", MIN_MAX),
    (16, "min", ZERO, NAN, None, "0-nan", MIN_MAX),
    (17, "min", NAN, ZERO, None, "nan-0", MIN_MAX),
    (18, "min", NINF, INF, None, "ninf-pinf", MIN_MAX),
    (20, "mul", INF, ZERO, None, "inf-times-0", MUL),
    (21, "mul", ZERO, INF, None, "0-times-inf", MUL),
    (22, "mul", NAN, ZERO, None, "nan-times-0", MUL),
    (23, "mul", ZERO, NAN, None, "0-times-nan", MUL),
    (24, "mad", INF, ZERO, ONE, "inf-times-0-plus-1", MUL),
    (25, "dp4", (INF, ONE, ZERO, ONE), (ZERO, ONE, INF, ONE), None, "inf-times-0-terms", MUL),
    (26, "dp3", (INF, INF, ZERO, ZERO), (ZERO, ZERO, INF, ZERO), None, "inf-times-0-terms",
     MUL),
    (27, "dph", (INF, INF, INF, INF), (ZERO, ZERO, ZERO, ONE), None, "inf-times-0-plus-w",
     MUL),
    *((28 + 2 * i + j, op, *((ZERO, NAN) if j == 0 else (NAN, ZERO)), None,
       ("0-nan", "nan-0")[j], COMPARE)
      for i, op in enumerate(("sge", "sgei", "slt", "slti")) for j in (0, 1)),
)


def _vector(value: Operand) -> tuple[Value, Value, Value, Value]:
    return value if isinstance(value, tuple) else splat(value)  # type: ignore[return-value]


def _fp_test_groups() -> Iterator[Group]:
    for index, op, a, b, c, name, rule in FP_TESTS:
        body = (MAD if c is not None else BINARY if b is not None else UNARY).format(op=op)
        inputs = {f"v{n}": [_vector(v)] for n, v in enumerate((a, b, c)) if v is not None}
        group = Group(f"hw/{op}", vs(body))
        group.add(name, inputs, (f"op:{op}",),
                  Provenance(HARDWARE, f"{FP} tests[{index}] ({rule})"))
        yield group


#: aroulin's per-instruction tests: (file and test, opcode, SRC1, SRC2, case name, rule).
#: These tests read the result as an 8-bit colour, so the float24 value beyond that
#: resolution depends on the unit's precision.
UNIT_TESTS: tuple[tuple[str, str, tuple[float, ...], tuple[float, ...] | None, str], ...] = (
    ("rcp-tests/source/main.c Test_RCP_UseOnlyFirstComponent()", "rcp", (1.0, 10.0, 10.0, 0.0),
     None, "use-only-first-component"),
    ("rcp-tests/source/main.c Test_RCP_Simple()", "rcp", (10.0, 1.0, 1.0, 0.0), None, "simple"),
    ("rsq-tests/source/main.c Test_RSQ_UseOnlyFirstComponent()", "rsq",
     (1.0, 100.0, 100.0, 0.0), None, "use-only-first-component"),
    ("rsq-tests/source/main.c Test_RSQ_Simple()", "rsq", (100.0, 1.0, 1.0, 0.0), None,
     "simple"),
    ("ex2-tests/source/main.c vertex_list colour", "ex2", (0.0, -100.0, -100.0, 1.0), None,
     "use-only-first-component"),
    ("lg2-tests/source/main.c vertex_list colour", "lg2", (2.0, 1.0, 1.0, 1.0), None,
     "use-only-first-component"),
    ("dph-tests/source/main.c Test_DPH_W()", "dph", (0.0, 0.0, 0.0, 0.0), (0.0, 0.0, 0.0, 1.0),
     "w"),
    ("dph-tests/source/main.c Test_DPH_W2()", "dph", (0.0, 0.0, 0.0, 1.0), (0.0,) * 4,
     "w-replaced"),
    ("dph-tests/source/main.c Test_DPH_Simple3()", "dph", (0.0, 0.0, 0.0, 0.5),
     (0.0, 0.0, 0.0, 1.0), "w-replaced-by-1"),
)


def _unit_test_groups() -> Iterator[Group]:
    for test, op, a, b, name in UNIT_TESTS:
        rule = MUL if op == "dph" else SCALAR
        group = Group(f"hw/{op}-tests", vs((BINARY if b else UNARY).format(op=op)))
        inputs = {"v0": [a], **({"v1": [b]} if b else {})}
        precision = () if op == "dph" else ("special-function-precision",)
        group.add(name, inputs, (f"op:{op}",),
                  Provenance(HARDWARE, f"{AROULIN} {test} ({rule})"), unknowns=precision)
        yield group


#: Panda3DS's LITP test: each vertex's colour and the flags its comment expects.
LITP_VERTICES = ((1.0, 0.0, 0.0, 1.0), (-0.5, 1.0, 0.0, 1.0), (0.5, 0.0, 1.0, -1.0),
                 (-1.0, 64.0, 0.0, -1.0), (-1.0, 256.0, 1.0, -1.0), (-1.0, 0.0, 0.5, -1.0))


def hardware_groups() -> Iterator[Group]:
    """One case per input a public hardware test program feeds (pica-emulation.md#evidence)."""
    yield from _fp_test_groups()
    yield from _unit_test_groups()
    mova = f"{AROULIN} mova-tests/source/main.c Test_MOVA_RoundsTowardsZero() " \
           "(pica-emulation.md#flr-mov-mova)"
    group = Group("hw/mova", vs("mova a0.x, v0\nmov o0, c0[a0.x]"),
                  uniforms={"c0": splat(1.0), "c1": splat(2.0)})
    group.add("0.9-truncates-to-0", {"v0": [splat(0.9)]}, ("op:mova", "form:relative"),
              Provenance(HARDWARE, mova), unknowns=("f32-to-f24-conversion",))
    yield group
    group = Group("hw/litp", vs("litp r0, v0\nmov o0, r0\nifc cmp.x\n    mov o1, c0\n.else\n"
                                "    mov o1, c1\n.end\nifc cmp.y\n    mov o2, c0\n.else\n"
                                "    mov o2, c1\n.end"), uniforms=FLAG_UNIFORMS)
    for n, row in enumerate(LITP_VERTICES, 1):
        group.add(f"vertex-{n}", {"v0": [row]}, ("op:litp",),
                  Provenance(HARDWARE, f"{PANDA_LITP} vertex {n} ({COMPARE})"))
    yield group


def _model(family: str, body: str, cases: Sequence[tuple[str, dict]], source: str,
           tags: tuple[str, ...], uniforms: dict | None = None) -> Group:
    group = Group(family, vs(body), uniforms=uniforms or {})
    for name, inputs in cases:
        group.add(name, {k: [v] for k, v in inputs.items()}, tags, Provenance(MODEL, source))
    return group


def _pairs(values: list[tuple[str, object, object]]) -> list[tuple[str, dict]]:
    return [(n, {"v0": splat(a), "v1": splat(b)}) for n, a, b in values]


NO_PROGRAM = "no public test program feeds these inputs"


def reported_groups() -> Iterator[Group]:
    """Inputs near the hardware tests' that no program feeds, and the facts reported as
    hardware-verified without a public test program: ``model`` cases naming the rule and
    the report."""
    yield _model("model/mul", BINARY.format(op="mul"), _pairs([
        ("minus-inf-times-0", NINF, ZERO), ("0-times-minus-inf", ZERO, NINF),
        ("inf-times-minus-0", INF, NZERO), ("inf-times-inf", INF, INF),
        ("inf-times-minus-inf", INF, NINF)]), f"{MUL} ({NO_PROGRAM})", ("op:mul", "special:inf"))
    for op in ("dp3", "dp4", "dph"):
        yield _model(f"model/{op}", BINARY.format(op=op), [
            ("inf-times-0-lane-x", {"v0": (INF, ONE, ONE, ONE), "v1": (ZERO, ONE, ONE, ONE)}),
            ("0-times-minus-inf-lane-y", {"v0": (ONE, ZERO, ONE, ONE),
                                          "v1": (ONE, NINF, ONE, ONE)})],
            f"{MUL} ({NO_PROGRAM})", (f"op:{op}", "special:inf"))
    for op in ("max", "min"):
        yield _model(f"model/{op}", BINARY.format(op=op), _pairs([
            ("pinf-ninf", INF, NINF), ("subnormal-0", S_MAX, ZERO)]),
            f"{MIN_MAX} ({NO_PROGRAM})", (f"op:{op}", "special:inf"))
    for op in ("sge", "slt", "sgei", "slti"):
        yield _model(f"model/{op}", BINARY.format(op=op), _pairs([("nan-nan", NAN, NAN)]),
                     f"{COMPARE} ({NO_PROGRAM})", (f"op:{op}", "special:nan"))
    yield _model("model/dphi", BINARY.format(op="dphi"), [("w-replaced", {
        "v0": (ONE, TWO, F24(0x408000), F24(0x458000)), "v1": (ONE, ONE, ONE, F24(0x410000))})],
        f"{MUL}: DPHI is DPH with the wide operand second ({NO_PROGRAM})", ("op:dphi",))
    yield _model("model/mova", "mova a0.x, v0\nmov o0, c0[a0.x]",
                 [("1.0-is-1", {"v0": (1.0, 0.0, 0.0, 0.0)})],
                 f"pica-emulation.md#flr-mov-mova ({NO_PROGRAM})", ("op:mova", "form:relative"),
                 {"c0": splat(1.0), "c1": splat(2.0)})
    yield from _reported_facts()


def _reported_facts() -> Iterator[Group]:
    litp = f"{COMPARE} (3dbrew LITP; inputs beyond Panda3DS tests/PICA_LITP's, {NO_PROGRAM})"
    group = Group("model/litp", vs("litp r0, v0\nmov o0, r0\nifc cmp.x\n    mov o1, c0\n.else\n"
                                   "    mov o1, c1\n.end\nifc cmp.y\n    mov o2, c0\n.else\n"
                                   "    mov o2, c1\n.end"), uniforms=FLAG_UNIFORMS)
    for name, row in (("clamps-y-high", (2.0, 200.0, 5.0, 3.0)),
                      ("clamps-y-low", (-2.0, -200.0, 5.0, -3.0)),
                      ("in-range", (0.5, 1.5, 7.0, 0.25))):
        group.add(name, {"v0": [row]}, ("op:litp",), Provenance(MODEL, litp))
    yield group
    rel = ("pica-emulation.md#relative (3dbrew relative addressing, reported hardware-verified; "
           f"{NO_PROGRAM})")
    group = Group("model/relative", vs("mova a0.xy, v0\nmov o0, c10[a0.x]\nmov o1, c10[a0.y]"),
                  uniforms={f"c{n}": splat(float(n)) for n in range(96)})
    for name, x, y in (("in-range", 3, -4), ("below-minus-128-is-0", -129, 0),
                       ("above-127-is-0", 128, 0), ("wraps-to-c0", 118, -10),
                       ("beyond-c95-reads-1.0", 86, 100), ("edge-127", 127, -128)):
        group.add(name, {"v0": [(float(x), float(y), 0.0, 0.0)]}, ("op:mova", "form:relative",
                  "form:out-of-range-index"), Provenance(MODEL, rel))
    yield group
    mad = ("pica-emulation.md#relative (JayFoxRox/3ds-tests mad-encoding: MAD's wide operand "
           f"is SRC2, MADI's SRC3; that program patches its own operands, {NO_PROGRAM})")
    group = Group("model/mad-encoding", vs("mova a0.x, v2\nmov r1, v1\n"
                                           "mad o0, v0, c0[a0.x], r1\nmad o1, v0, r1, c0[a0.x]"),
                  uniforms={f"c{n}": splat(float(n + 1)) for n in range(8)})
    group.add("relative-wide-operand", {"v0": [splat(2.0)], "v1": [splat(3.0)],
                                        "v2": [(5.0, 0.0, 0.0, 0.0)]},
              ("op:mad", "op:madi", "form:relative"), Provenance(MODEL, mad))
    yield group
    bank = ("pica-emulation.md#output-banks (Azahar PR #2338, reported hardware-verified; "
            f"{NO_PROGRAM})")
    group = Group("model/gs-banking", ".gsh point c0\n.out - position o0\n.proc main\n"
                  "    setemit 0\n    mov o0, v0\n    emit\n    mov o0, v1\n    emit\n"
                  "    emit\n    end\n.end\n", tags=("geometry",))
    group.add("third-emit-sees-first-value", {"v0": [splat(1.0)], "v1": [splat(2.0)]},
              ("op:emit", "quirk:output-banking"), Provenance(MODEL, bank))
    yield group
    slots = ("pica-emulation.md#output-map: semantic slots no output component maps read 1.0 "
             f"(Azahar output_vertex.cpp, citing hardware tests; {NO_PROGRAM})")
    group = Group("model/output-map", ".out - position o0\n.out - color o1.xy\n.proc main\n"
                  "    mov o0, v0\n    mov o1, v1\n    end\n.end\n",
                  semantics=("position", "color", "texcoord0", "view"))
    group.add("unmapped-slots-read-one", {"v0": [(0.5, -0.25, 0.75, 1.0)],
                                          "v1": [(0.125, 0.375, 0.0, 0.0)]},
              ("quirk:unmapped-slots-read-one",), Provenance(MODEL, slots))
    yield group
