"""The source interpreter of the recipes: an ``m`` (see :mod:`.recipes`) whose operations
return Numba source expressions calling :mod:`..compiled.intrinsics` (imported as ``R``), for the
compiled engine's code generator.

Component values are expression strings.  ``splat`` and the scalar units hand their
value to ``bind`` (which emits ``name = expression`` and returns the name), so that a
value used in four components is computed once; the generator supplies it.  EX2 and LG2
call NumPy's inner loops through the kernel's ``scratch`` (``R.make_scratch``).

A code generator emits an ALU instruction as: the component expressions of its sources
(swizzled, negated with ``SourceArith.negate``), then :func:`expressions`, then
``value[c]`` assigned to the destination for each component ``c`` of the mask,
``flags`` to cmp.x/cmp.y, ``address[c]`` to a0.x/a0.y for the mask's x/y.
"""

from __future__ import annotations

from collections.abc import Callable

from ...isa import Opcode
from .recipes import Result, recipe_for

_CONSTANTS = {0.0: "R.ZERO32", 1.0: "R.ONE32"}


def _unbound(expression: str) -> str:
    return expression


class SourceArith:
    """Numba source text of one precision's primitive rules."""

    def __init__(self, precision: str, bind: Callable[[str], str] = _unbound):
        self.precision = precision
        self.f24 = precision == "f24"
        self.bind = bind
        self.one = "1.0" if self.f24 else "R.ONE32"

    # -- working values
    def work(self, x: str) -> str:
        return f"R.work24({x})" if self.f24 else x

    def mul(self, a: str, b: str) -> str:
        return f"R.round24(R.mul64({a}, {b}))" if self.f24 else f"R.mul32({a}, {b})"

    def add(self, a: str, b: str) -> str:
        return f"R.round24(R.add64({a}, {b}))" if self.f24 else f"R.add32({a}, {b})"

    def first(self, p: str) -> str:
        # f24: 0 + p is p for a rounded p (scalar._first24).
        return p if self.f24 else f"R.add32(R.ZERO32, {p})"

    def rounded(self, w: str) -> str:
        return f"R.round24({w})" if self.f24 else w

    def store(self, w: str) -> str:
        return f"np.float32({w})" if self.f24 else w

    def negate(self, x: str) -> str:
        return f"R.negate{self.precision[1:]}({x})"

    # -- register values
    def max(self, a: str, b: str) -> str:
        return f"R.pica_max({a}, {b})"

    def min(self, a: str, b: str) -> str:
        return f"R.pica_min({a}, {b})"

    def sge(self, a: str, b: str) -> str:
        return f"R.sge({a}, {b})"

    def slt(self, a: str, b: str) -> str:
        return f"R.slt({a}, {b})"

    def compare(self, operator: int | str, a: str, b: str) -> str:
        """``operator``: a CMP operator value, or an expression giving one at run time."""
        operator = operator if isinstance(operator, str) else int(operator)
        return f"R.compare({operator}, {a}, {b})"

    def rcp(self, x: str) -> str:
        return self.bind(f"R.rcp{self.precision[1:]}({x})")

    def rsq(self, x: str) -> str:
        return self.bind(f"R.rsq{self.precision[1:]}({x})")

    def ex2(self, x: str) -> str:
        name = "ex2_24" if self.f24 else "ex2_f32"
        return self.bind(f"R.{name}({x}, scratch)")

    def lg2(self, x: str) -> str:
        name = "lg2_24" if self.f24 else "lg2_f32"
        return self.bind(f"R.{name}({x}, scratch)")

    def flr(self, x: str) -> str:
        return f"R.flr{self.precision[1:]}({x})"

    def address(self, x: str) -> str:
        return f"R.address_from_float({x})"

    def const(self, value: float) -> str:
        return _CONSTANTS.get(value, f"np.float32({value!r})")

    def splat(self, value: str) -> tuple[str, str, str, str]:
        name = self.bind(value)
        return (name, name, name, name)


def expressions(opcode: Opcode, precision: str, sources: list[list[str] | None],
                field: Callable[[str], int], bind: Callable[[str], str] = _unbound) -> Result:
    """The :class:`~.recipes.Result` of ``opcode`` as source expressions: ``sources`` are
    the component expressions of SRC1..SRC3 (swizzled and negated; None where absent)."""
    a, b, c = [*sources, None, None, None][:3]
    return recipe_for(opcode)(SourceArith(precision, bind), a, b, c, field)
