"""Every ALU opcode in every operand form: swizzles, negation, destination masks, relative
addressing through a0.x, a0.y and aL (in and out of range), over rows of ordinary and
special values.  Expected values are the reference model's (``model`` provenance)."""

from __future__ import annotations

import random
from collections.abc import Iterator

from ..isa import BY_MNEMONIC, OPCODES, Writes
from .catalog_facts import INF, N_MIN, NAN, NINF, NZERO, S_MAX, ZERO
from .model import MODEL, Provenance
from .spec import F24, Group, Row, vs

REFERENCE = Provenance(MODEL, "gpuisa reference engine: 3dbrew instruction semantics and "
                              "pica-emulation.md#arithmetic")



def _alu(sources: int) -> tuple[str, ...]:
    """The opcodes that write a register from ``sources`` sources, in table order (the
    I-forms are written as their base mnemonic)."""
    return tuple(i.mnemonic for i in OPCODES.values()
                 if Writes.REGISTER in i.writes and i.sources == sources
                 and not i.is_inverted_form)


#: Opcodes by operand shape.  Binary: src1 wide (may be a uniform), src2 narrow.
BINARY = _alu(2)
#: Binary opcodes whose I-form (uniform in src2) the assembler picks for ``op r, c``.
I_FORMS = tuple(op for op in BINARY if BY_MNEMONIC[op].inverted is not None)
UNARY = _alu(1)
TERNARY = _alu(3)
SWIZZLES = ("wzyx", "xxxx", "yzwx", "zwxy", "wwyy", "yxzw")
MASKS = ("x", "y", "z", "w", "xy", "xz", "xw", "yz", "yw", "zw", "xyz", "xyw", "xzw", "yzw")
#: (index register, static base, a0 values per row or aL start) for relative forms.
RELATIVE = (("a0.x", 10), ("a0.y", 40), ("aL", 20))
#: a0.x / a0.y values each relative group is run with (one row each): inside the range,
#: the wrap past c127, beyond c95 and the out-of-range values that count as 0.
INDEX_VALUES = (0, 5, -10, 60, 90, 127, -128, 128, -129, 200)
#: aL start values (LOOP Y, an unsigned byte): 0, 7, 75 (beyond c95), 127, 128 (= out of
#: range: 0), 255.
AL_STARTS = (0, 7, 75, 127, 128, 255)

_SPECIAL_ROWS: tuple[Row, ...] = (
    (ZERO, NZERO, INF, NINF),
    (NAN, S_MAX, N_MIN, F24(0x7EFFFF)),
    (1.0, -1.0, 0.5, F24(0x3F0001)),
    (F24(0x00FFFF), F24(0x80FFFF), F24(0x7E8000), F24(0xFE8000)),
    (3.0, -0.0, 2.0 ** -62, 1.5 * 2 ** 63),
    (-2.5, 0.1, 100.0, 1e-19),
)


def _random_value(rng: random.Random) -> float | F24:
    """A random float24 pattern of moderate magnitude (exponent 2^-8 .. 2^8)."""
    sign = rng.getrandbits(1) << 23
    return F24(sign | rng.randint(55, 71) << 16 | rng.getrandbits(16))


def rows(rng: random.Random, count: int, start: int) -> list[tuple[Row, Row, Row]]:
    """``count`` rows of (v0, v1, v2) values: special rows (cycled from ``start``) and
    random ones, alternating."""
    out = []
    for k in range(count):
        if k % 2 == 0:
            a = _SPECIAL_ROWS[(start + k) % len(_SPECIAL_ROWS)]
            b = _SPECIAL_ROWS[(start + k + 1) % len(_SPECIAL_ROWS)][::-1]
        else:
            a = tuple(_random_value(rng) for _ in range(4))
            b = tuple(_random_value(rng) for _ in range(4))
        c = tuple(_random_value(rng) for _ in range(4))
        out.append((a, b, c))
    return out


def _uniforms() -> dict[str, tuple[float, float, float, float]]:
    """c0-c95: distinct exact values, c[n] = (n, n + 0.25, -n, n / 2)."""
    return {f"c{n}": (float(n), n + 0.25, -float(n), n / 2) for n in range(96)}


def _group(rng: random.Random, family: str, body: str, tags: tuple[str, ...], count: int = 4,
           start: int = 0, uniforms: dict | None = None) -> Group:
    group = Group(family, vs(body), uniforms=uniforms or {}, tags=tags)
    for k, (a, b, c) in enumerate(rows(rng, count, start)):
        group.add(f"row{k}", {"v0": [a], "v1": [b], "v2": [c]}, (), REFERENCE)
    return group


def _operands(op: str) -> tuple[str, ...]:
    return ("r0", "r1", "r2")[:BY_MNEMONIC[op].sources]


def _instruction(op: str, dst: str, operands: list[str]) -> str:
    return f"{op} {dst}, {', '.join(operands)}"


_LOAD = "mov r0, v0\nmov r1, v1\nmov r2, v2\n"


def operand_groups(seed: int = 14) -> Iterator[Group]:
    rng = random.Random(seed)
    for op in (*BINARY, *UNARY, *TERNARY):
        base = _operands(op)
        yield _group(rng, f"op/{op}/plain", _LOAD + _instruction(op, "o0", list(base)),
                     ("form:plain",), 6)
        for n in range(len(base)):
            for swz in SWIZZLES:
                ops = list(base)
                ops[n] = f"{ops[n]}.{swz}"
                yield _group(rng, f"op/{op}/swizzle-src{n + 1}-{swz}",
                             _LOAD + _instruction(op, "o0", ops), ("form:swizzle",), 2, n)
            ops = list(base)
            ops[n] = f"-{ops[n]}"
            yield _group(rng, f"op/{op}/negate-src{n + 1}", _LOAD + _instruction(op, "o0", ops),
                         ("form:negate",), 3, n)
        if len(base) > 1:
            yield _group(rng, f"op/{op}/negate-all",
                         _LOAD + _instruction(op, "o0", [f"-{o}.wzyx" for o in base]),
                         ("form:negate", "form:swizzle"), 3)
        for mask in MASKS:
            yield _group(rng, f"op/{op}/mask-{mask}",
                         _LOAD + _instruction(op, f"o0.{mask}", list(base)), ("form:mask",), 2)
        yield from _relative(rng, op, base)
    yield from _mova(rng)
    yield from _cmp(rng)


def _relative_slots(op: str, count: int) -> tuple[int, ...]:
    """Which operands may be uniforms (and so be indexed): the wide slot, plus src2 of
    the binary opcodes that have an I-form and src3 for MADI."""
    if op == "mad":
        return (1, 2)
    if op in I_FORMS:
        return (0, 1)
    return (0,) if count else ()


def _relative(rng: random.Random, op: str, base: tuple[str, ...]) -> Iterator[Group]:
    for slot in _relative_slots(op, len(base)):
        for index, first in RELATIVE:
            ops = list(base)
            ops[slot] = f"c{first}[{index}]"
            text = _instruction(op, "o0", ops)
            family = f"op/{op}/relative-src{slot + 1}-{index.replace('.', '')}"
            tags = ("form:relative", f"form:index-{index}", "form:out-of-range-index")
            if index == "aL":
                for y in AL_STARTS:
                    body = f"{_LOAD}for i0\n    {text}\n.end"
                    uniforms = _uniforms() | {"i0": (0, y, 1, 0)}
                    yield _group(rng, f"{family}-start{y}", body, tags, 1, y, uniforms)
                continue
            group = Group(family, vs(f"{_LOAD}mova a0.xy, v3\n{text}"), uniforms=_uniforms(),
                          tags=tags)
            for k, (value, (a, b, c)) in enumerate(zip(INDEX_VALUES,
                                                       rows(rng, len(INDEX_VALUES), 0),
                                                       strict=True)):
                a0 = (float(value), float(-value - 1), 0.0, 0.0)
                group.add(f"index{k}", {"v0": [a], "v1": [b], "v2": [c], "v3": [a0]}, (),
                          REFERENCE)
            yield group


def _mova(rng: random.Random) -> Iterator[Group]:
    values = (0.0, 0.9, -0.9, 1.5, -1.5, 95.0, 96.0, -1.0, 127.99, -128.0, 200.0, 3.0)
    for mask in ("x", "y", "xy"):
        for swz in ("xyzw", "yxzw", "wzyx"):
            group = Group(f"op/mova/{mask}-{swz}", vs(
                f"mova a0.{mask}, -v0.{swz}\nmov o0, c10[a0.x]\nmov o1, c50[a0.y]"),
                uniforms=_uniforms(), tags=("form:mask", "form:swizzle", "form:negate"))
            for k in range(4):
                row = tuple(rng.choice(values) for _ in range(4))
                group.add(f"row{k}", {"v0": [row]}, (), REFERENCE)
            yield group


_CONDITIONS = ("eq", "ne", "lt", "le", "gt", "ge")


def _cmp(rng: random.Random) -> Iterator[Group]:
    body = ("mov r1, v1\ncmp v0{swz}, {x}, {y}, r1\nifc cmp.x\n    mov o0, c1\n.else\n"
            "    mov o0, c0\n.end\nifc cmp.y\n    mov o1, c1\n.else\n    mov o1, c0\n.end")
    values = (0.0, 1.0, -1.0, 2.0, INF, NINF, NAN, S_MAX, NZERO)
    for x in _CONDITIONS:
        for y in _CONDITIONS:
            for swz in ("", ".yxzw"):
                name = f"op/cmp/{x}-{y}{'-swizzled' if swz else ''}"
                group = Group(name, vs(body.format(swz=swz, x=x, y=y)),
                              uniforms={"c0": (0.0,) * 4, "c1": (1.0,) * 4},
                              tags=("form:swizzle",) if swz else ("form:plain",))
                for k in range(3):
                    a = tuple(rng.choice(values) for _ in range(4))
                    b = tuple(rng.choice(values) for _ in range(4))
                    group.add(f"row{k}", {"v0": [a], "v1": [b]}, (), REFERENCE)
                yield group
