"""One recipe per ALU opcode: its arithmetic as a composition of primitive rules.

A recipe is called as ``recipe(m, a, b, c, field)``: ``a``, ``b``, ``c`` are the four
swizzled and negated components of SRC1..SRC3 (None for a source the opcode does not
have), ``field(name)`` reads an instruction field (CMP's operators), and ``m`` is an
arithmetic object that says what the primitive rules are made of.  The same text serves
two interpreters: :mod:`.scalar` computes on Python floats (the reference engine) and
:mod:`.tree` builds trees of the rules (lowered to LLVM IR by the compiled engine).
Recipes therefore hold no control flow on values, only compositions of ``m``'s
operations:

Working values (f24: the exact float64 values of flushed operands, each result
rounded; f32: float32 values):
    ``work(x)`` an operand as arithmetic sees it; ``mul(a, b)``, ``add(a, b)`` the PICA
    product and sum, rounded; ``first(p)`` 0 + p, the first partial sum of a dot
    product; ``rounded(w)``; ``store(w)`` the register value of a working value;
    ``one`` the working value 1.
Register values (no flushing, no rounding):
    ``max``, ``min``, ``sge``, ``slt``, ``compare(operator, a, b)``; the scalar units
    ``rcp``, ``rsq``, ``ex2``, ``lg2``, ``flr``; ``address(x)`` (MOVA); ``const(v)`` a
    constant; ``splat(v)`` one value for all four components.

A recipe returns a :class:`Result`.  Sources: 3dbrew's "Instructions" table (pica-isa.md#opcodes)
and pica-emulation.md#arithmetic.
Adding an ALU opcode: its row in ``isa.py``, its recipe here, its test.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from ...isa import OPCODES, CompareOp, Opcode
from .primitives import LITP_LIMIT


class Result(NamedTuple):
    """What an ALU instruction produces: ``value`` (x, y, z, w), written to the
    destination register through its mask; ``flags`` the new (cmp.x, cmp.y); ``address``
    (a0.x, a0.y), each written if the mask enables x or y."""

    value: tuple | None = None
    flags: tuple | None = None
    address: tuple | None = None


Recipe = Callable[..., Result]
#: Opcode -> recipe; the I-forms use their base opcode's (``isa.OpcodeInfo.base_opcode``).
RECIPES: dict[Opcode, Recipe] = {}


def recipe(opcode: Opcode) -> Callable[[Recipe], Recipe]:
    """Register the decorated function as the recipe of ``opcode``."""

    def register(function: Recipe) -> Recipe:
        if opcode in RECIPES:
            raise ValueError(f"two recipes for {opcode.name}")
        RECIPES[opcode] = function
        return function

    return register


def recipe_for(opcode: Opcode) -> Recipe:
    """The recipe of ``opcode`` (an I-form: that of its base opcode)."""
    return RECIPES[OPCODES[opcode].base_opcode]


def _lanewise(function: Any, *sources: Any) -> tuple:
    """``function`` of component i of each source, for i = x, y, z, w."""
    return tuple(function(*parts) for parts in zip(*sources, strict=True))


# -- arithmetic (through working values) -----------------------------------------------------


@recipe(Opcode.ADD)
def add(m, a, b, c, field):
    """SRC1 + SRC2 per component, flushed inputs, rounded result
    (pica-emulation.md#f24-rounding)."""
    return Result(_lanewise(lambda x, y: m.store(m.add(m.work(x), m.work(y))), a, b))


@recipe(Opcode.MUL)
def mul(m, a, b, c, field):
    """SRC1 * SRC2 per component with the PICA multiply (inf * 0 = 0; pica-emulation.md#mul)."""
    return Result(_lanewise(lambda x, y: m.store(m.mul(m.work(x), m.work(y))), a, b))


@recipe(Opcode.MAD)
def mad(m, a, b, c, field):
    """SRC1 * SRC2 + SRC3, the product rounded before the addition (3dbrew: MAD "is not an
    FMA, the intermediate result is rounded"; pica-emulation.md#mul)."""
    return Result(_lanewise(
        lambda x, y, z: m.store(m.add(m.mul(m.work(x), m.work(y)), m.work(z))), a, b, c))


def _dot(m, a, b):
    """Sum of PICA products, left to right from +0: (((0 + p0) + p1) + p2) ..., each
    product and partial sum rounded (pica-emulation.md#mul: hardware order OPEN; Azahar's
    interpreter sums this way).  ``a`` and ``b`` are working values."""
    products = [m.mul(x, y) for x, y in zip(a, b, strict=True)]
    total = m.first(products[0])
    for product in products[1:]:
        total = m.add(total, product)
    return m.splat(m.store(total))


@recipe(Opcode.DP3)
def dp3(m, a, b, c, field):
    """x, y, z of both sources (pica-isa.md#op-dp3)."""
    return Result(_dot(m, [m.work(x) for x in a[:3]], [m.work(y) for y in b[:3]]))


@recipe(Opcode.DP4)
def dp4(m, a, b, c, field):
    """SRC1 · SRC2 over x, y, z, w: (((0 + p0) + p1) + p2) + p3, each product and each
    partial sum rounded (pica-emulation.md#mul)."""
    return Result(_dot(m, [m.work(x) for x in a], [m.work(y) for y in b]))


@recipe(Opcode.DPH)
def dph(m, a, b, c, field):
    """DP4 with SRC1.w replaced by 1.0 (pica-isa.md#op-dph); SRC1.w is unread."""
    return Result(_dot(m, [*(m.work(x) for x in a[:3]), m.one], [m.work(y) for y in b]))


@recipe(Opcode.DST)
def dst(m, a, b, c, field):
    """(1, SRC1.y * SRC2.y, SRC1.z, SRC2.w) (pica-isa.md#op-dst; the product is the PICA multiply,
    pica-emulation.md#mul); the passed components are flushed and rounded like any result."""
    return Result((m.const(1.0), m.store(m.mul(m.work(a[1]), m.work(b[1]))),
                   m.store(m.rounded(m.work(a[2]))), m.store(m.rounded(m.work(b[3])))))


# -- scalar units (SRC1.x, the result in every component) ------------------------------------


@recipe(Opcode.RCP)
def rcp(m, a, b, c, field):
    """1 / SRC1.x: rcp(+-0) = +inf, rcp(+inf) = 0 (pica-emulation.md#fp-table)."""
    return Result(m.splat(m.rcp(a[0])))


@recipe(Opcode.RSQ)
def rsq(m, a, b, c, field):
    """1 / sqrt(SRC1.x): rsq(+-0) = +inf, rsq(-2) = NaN, rsq(+inf) = 0, rsq(-inf) = NaN
    (pica-emulation.md#fp-table)."""
    return Result(m.splat(m.rsq(a[0])))


@recipe(Opcode.EX2)
def ex2(m, a, b, c, field):
    """2^SRC1.x: ex2(-inf) = 0, ex2(+inf) = +inf, overflow to +inf
    (pica-emulation.md#scalar-units)."""
    return Result(m.splat(m.ex2(a[0])))


@recipe(Opcode.LG2)
def lg2(m, a, b, c, field):
    """log2(SRC1.x): lg2(0) = -inf, lg2(negative) = NaN, lg2(+inf) = +inf
    (pica-emulation.md#scalar-units)."""
    return Result(m.splat(m.lg2(a[0])))


@recipe(Opcode.FLR)
def flr(m, a, b, c, field):
    """Per-component floor (toward -inf); NaN and infinities are kept
    (pica-emulation.md#flr-mov-mova)."""
    return Result(_lanewise(m.flr, a))


# -- selections and comparisons (register values: no flushing, no rounding) ------------------


@recipe(Opcode.MOV)
def mov(m, a, b, c, field):
    """A copy: no rounding and no flushing (pica-emulation.md#flush)."""
    return Result(tuple(a))


@recipe(Opcode.MAX)
def max_(m, a, b, c, field):
    """Per component ``a > b ? a : b``: a NaN in SRC1 gives SRC2, one in SRC2 gives NaN,
    max(+0, -0) = -0 (pica-emulation.md#min-max; 3dbrew's max(0, -inf) = -inf is wrong on
    hardware)."""
    return Result(_lanewise(m.max, a, b))


@recipe(Opcode.MIN)
def min_(m, a, b, c, field):
    """Per component ``a < b ? a : b`` (pica-emulation.md#min-max)."""
    return Result(_lanewise(m.min, a, b))


@recipe(Opcode.SGE)
def sge(m, a, b, c, field):
    """SRC1 >= SRC2 ? 1.0 : 0.0 per component, an IEEE comparison: NaN gives 0.0
    (pica-emulation.md#compare)."""
    return Result(_lanewise(m.sge, a, b))


@recipe(Opcode.SLT)
def slt(m, a, b, c, field):
    """SRC1 < SRC2 ? 1.0 : 0.0 per component; NaN gives 0.0; SLTI, the I-form, computes
    the same of operands it reads through the other source fields."""
    return Result(_lanewise(m.slt, a, b))


@recipe(Opcode.CMP)
def cmp(m, a, b, c, field):
    """cmp.x from the x components with operator CMPX, cmp.y from y with CMPY
    (pica-isa.md#compare-ops).  The destination mask is ignored: picasso encodes 0 there and whether
    the hardware honours it is unknown (pica-emulation.md#compare)."""
    return Result(flags=(m.compare(field("cmpx"), a[0], b[0]),
                         m.compare(field("cmpy"), a[1], b[1])))


@recipe(Opcode.LITP)
def litp(m, a, b, c, field):
    """(max(x, 0), clamp(y, -127.9961, 127.9961), 0, max(w, 0)) with cmp.x = x >= 0,
    cmp.y = w >= 0 (pica-emulation.md#compare; Panda3DS's hardware test PICA_LITP).  MIN/MAX are the
    hardware rules, so a NaN x or w gives 0 and a NaN y +127.9961 (OPEN on hardware)."""
    zero = m.const(0.0)
    y = m.max(m.min(a[1], m.const(LITP_LIMIT)), m.const(-LITP_LIMIT))
    return Result((m.max(a[0], zero), y, zero, m.max(a[3], zero)),
                  flags=(m.compare(CompareOp.GE, a[0], zero),
                         m.compare(CompareOp.GE, a[3], zero)))


@recipe(Opcode.MOVA)
def mova(m, a, b, c, field):
    """x -> a0.x, y -> a0.y (pica-emulation.md#flr-mov-mova), each only if enabled in the mask; the
    float becomes an integer by truncation toward zero, saturating to int32, NaN -> 0."""
    return Result(address=(m.address(a[0]), m.address(a[1])))


def _check_complete() -> None:
    """Every ALU opcode of the table has a recipe (checked at import)."""
    missing = [info.opcode.name for info in OPCODES.values()
               if info.has_descriptor and info.base_opcode not in RECIPES]
    if missing:
        raise ValueError(f"ALU opcodes without a recipe: {', '.join(missing)}")


_check_complete()
