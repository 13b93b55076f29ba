"""An ALU instruction's recipe lowered to LLVM IR: the trees of :mod:`..rules.tree`
evaluated with the primitive rules of :mod:`.lower`, in one precision.

:class:`AluLowering` maps each rule of the recipes' ``m`` to its IR for ``f24``
(working values are exact float64s, each result rounded by ``round24`` in the
:class:`.lower.Lowering`'s rounding mode, that of the precision) or ``f32`` (float32
values); :meth:`AluLowering.lower` evaluates a traced instruction, reading
only the source components its trees use (the caller's ``read``) and computing each
equal sub-tree once.
"""

from __future__ import annotations

from collections.abc import Callable

from ..loading import Arithmetic, float24, rounding_of
from ..rules.recipes import Result
from ..rules.tree import RULES, Node, Source, rules_used
from . import textir as ir
from .irtypes import F32, F64
from .lower import Lowering

#: The rules an instruction may use to be computed in range (:meth:`AluLowering.lower`
#: with ``in_range``): those :data:`..rules.tree.RULES` declares ``finite_in_range``.
IN_RANGE_RULES = frozenset(name for name, rule in RULES.items() if rule.finite_in_range)


#: The rules whose in-range realisation differs from the exact one.
_ROUNDING = frozenset({"mul", "add", "rounded", "first"})


class AluLowering:
    """The rules of the recipes' ``m`` as IR of one precision; with ``in_range``, the
    arithmetic of instructions made of :data:`IN_RANGE_RULES` only is plain IEEE
    arithmetic (``Lowering.round24_in_range``), equal to the exact rules wherever the
    values they write are finite, and an infinity or a NaN elsewhere (the caller
    checks what such an instruction writes and reruns the lane exactly)."""

    def __init__(self, lowering: Lowering, precision: Arithmetic, in_range: bool = False):
        L = self.L = lowering
        f24 = self.f24 = float24(precision)
        if f24 and lowering.rounding != rounding_of(precision):
            raise ValueError(f"a {lowering.rounding} Lowering for {precision}")
        self.precision = precision
        self.in_range = in_range
        #: ``hoist(x, make)``: the working value ``make()`` of ``x``, where the caller may
        #: make it once for values that never change.
        self.hoist: Callable = lambda x, make: make()
        if f24:
            self.rules: dict[str, Callable] = {
                "work": lambda x: self.hoist(x, lambda: L.work24(x)),
                "mul": lambda a, b: L.round24(L.mul64(a, b)),
                "add": lambda a, b: L.round24(L.add64(a, b)), "first": lambda p: p,
                "rounded": L.round24, "store": L.store24,
                "one": lambda: L.const(F64, 1.0), "rcp": L.rcp24, "rsq": L.rsq24,
                "ex2": L.ex2_24, "lg2": L.lg2_24, "flr": L.flr24}
        else:
            self.rules = {
                "work": lambda x: x, "mul": L.mul32, "add": L.add32,
                "first": lambda p: L.add32(L.const(F32, 0.0), p),
                "rounded": lambda w: w, "store": lambda w: w,
                "one": lambda: L.const(F32, 1.0), "rcp": L.rcp32, "rsq": L.rsq32,
                "ex2": L.ex2_32, "lg2": L.lg2_32, "flr": L.flr32}
        self.rules.update({
            "max": L.pica_max, "min": L.pica_min, "sge": L.sge, "slt": L.slt,
            "compare": L.compare, "address": L.address_from_float,
            "const": lambda value: L.const(F32, value)})
        if f24:
            fast = {"mul": lambda a, b: L.round24_in_range(L.b.fmul(a, b)),
                    "add": lambda a, b: L.round24_in_range(L.b.fadd(a, b)),
                    "rounded": L.round24_in_range}
        else:
            fast = {"mul": L.b.fmul, "add": L.b.fadd,
                    "first": lambda p: L.b.fadd(L.const(F32, 0.0), p)}
        self.fast_rules = {**self.rules, **fast}
        #: f24 instructions of bounded operands (``primitives.bounded24``): rounded by
        #: Veltkamp's splitting alone, nothing to check in their results.
        self.bounded_rules = {**self.fast_rules,
                              "mul": lambda a, b: L.round24_bounded(L.b.fmul(a, b)),
                              "add": lambda a, b: L.round24_bounded(L.b.fadd(a, b)),
                              "rounded": L.round24_bounded}

    def negate(self, x: ir.Value) -> ir.Value:
        """A negated source operand (``primitives.negate24`` / ``negate32``)."""
        return self.L.negate24(x) if self.f24 else self.L.negate32(x)

    def computes_in_range(self, result: Result) -> bool:
        """Whether :meth:`lower` computes ``result`` in range."""
        used = rules_used(result)
        return (self.in_range and used <= IN_RANGE_RULES and bool(used & _ROUNDING)
                and result.flags is None and result.address is None)

    def lower(self, result: Result, read: Callable[[Source], ir.Value],
              bounded: bool = False) -> Result:
        """``result`` (trees) as IR values; ``read`` gives a source component's value
        (swizzled and negated), asked once per component the trees use.  With
        ``bounded`` (f24, every operand checked by the caller against
        ``tree.operand_bounds``) the arithmetic is that of bounded operands."""
        memo: dict = {}
        rules = self.fast_rules if self.computes_in_range(result) else self.rules
        if bounded:
            rules = self.bounded_rules

        def value(item):
            if not isinstance(item, (Node, Source)):
                return item  # a number: const's value, compare's operator
            found = memo.get(item)
            if found is None:
                if isinstance(item, Source):
                    found = read(item)
                else:
                    found = rules[item.rule](*(value(a) for a in item.args))
                memo[item] = found
            return found

        return Result(*(None if part is None else tuple(value(v) for v in part)
                        for part in result))
