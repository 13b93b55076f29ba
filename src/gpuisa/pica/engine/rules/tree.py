"""The recipes as data: each ALU instruction's arithmetic as a tree of primitive rules.

:func:`trace` runs an opcode's recipe (:mod:`.recipes`) on an ``m`` whose operations
build :class:`Node` records instead of computing, so that a code generator can ask what
an instruction computes (which rules, which source components it reads) and lower it
(:mod:`..compiled.alu`), without parsing any text.  Equal sub-trees are equal values
(frozen records), so evaluating a tree with a memo computes each once: a dot product's
sum, used in four components, or an operand used twice.

Leaves are :class:`Source` (component ``component`` of source ``index`` as the ALU
reads it: swizzled and negated) and ``const``/``one`` nodes.  The rule names are those
of :data:`RULES`, where what a code generator needs to know about each is declared.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ...isa import Opcode
from . import primitives as P
from .recipes import Result, recipe_for


@dataclass(frozen=True, slots=True)
class Source:
    """Component ``component`` (0-3, after the swizzle) of source ``index`` (0-2)."""

    index: int
    component: int


@dataclass(frozen=True, slots=True)
class Node:
    """The rule ``rule`` (a key of :data:`RULES`) applied to ``args`` (nodes, sources,
    or, for ``const`` and ``compare``'s operator, plain numbers)."""

    rule: str
    args: tuple


@dataclass(frozen=True, slots=True)
class Rule:
    """What a code generator needs to know about a rule of the recipes' ``m``:
    ``working`` whether its result is a working value (f24: an exact float64) rather
    than a register value, and ``finite_in_range`` whether, on finite operands whose
    results round to finite values, it is plain IEEE arithmetic (the in-range
    realisations of the kernels apply), ``numpy`` whether it is defined by NumPy's
    inner loops (EX2, LG2: compiled code calls them, :mod:`..compiled.numpyloops`)."""

    working: bool
    finite_in_range: bool = False
    numpy: bool = False


#: Every operation of the recipes' ``m`` (:mod:`.recipes` says what each means).
RULES: dict[str, Rule] = {
    "work": Rule(working=True, finite_in_range=True),
    "mul": Rule(working=True, finite_in_range=True),
    "add": Rule(working=True, finite_in_range=True),
    "first": Rule(working=True, finite_in_range=True),
    "rounded": Rule(working=True, finite_in_range=True),
    "one": Rule(working=True, finite_in_range=True),
    "store": Rule(working=False, finite_in_range=True),
    "const": Rule(working=False, finite_in_range=True),
    "max": Rule(working=False),
    "min": Rule(working=False),
    "sge": Rule(working=False),
    "slt": Rule(working=False),
    "compare": Rule(working=False),
    "rcp": Rule(working=False),
    "rsq": Rule(working=False),
    "ex2": Rule(working=False, numpy=True),
    "lg2": Rule(working=False, numpy=True),
    "flr": Rule(working=False),
    "address": Rule(working=False),
}


def _node(rule: str) -> Callable[..., Node]:
    return lambda *args: Node(rule, args)


class _Tracer:
    """An ``m`` whose operations build :class:`Node` records."""

    def __init__(self) -> None:
        for rule in RULES:
            if not hasattr(type(self), rule):
                setattr(self, rule, _node(rule))
        self.one = Node("one", ())

    @staticmethod
    def splat(value: Node) -> tuple[Node, Node, Node, Node]:
        return (value, value, value, value)

    @staticmethod
    def compare(operator: int, a, b) -> Node:
        return Node("compare", (int(operator), a, b))

    @staticmethod
    def const(value: float) -> Node:
        return Node("const", (float(value),))


_SOURCES = tuple(tuple(Source(k, c) for c in range(4)) for k in range(3))


def trace(opcode: Opcode, sources: int, field: Callable[[str], int]) -> Result:
    """The :class:`~.recipes.Result` of ``opcode`` (an instruction with ``sources``
    register sources and fields ``field``) as trees of :class:`Node`."""
    operands = [*_SOURCES[:sources], None, None, None][:3]
    return recipe_for(opcode)(_Tracer(), *operands, field)


def _reached(result: Result) -> set[object]:
    """Everything the trees of ``result`` reach: their nodes, the sources they read and
    the constants they hold, each once."""
    found: set[object] = set()
    pending = [v for part in result for v in (part or ())]
    while pending:
        value = pending.pop()
        if value not in found:
            found.add(value)
            if isinstance(value, Node):
                pending.extend(value.args)
    return found


def rules_used(result: Result) -> set[str]:
    """The rules the trees of ``result`` apply."""
    return {v.rule for v in _reached(result) if isinstance(v, Node)}


def sources_read(result: Result) -> set[Source]:
    """The source components the trees of ``result`` read."""
    return {v for v in _reached(result) if isinstance(v, Source)}


def _nodes(result: Result) -> set[Node]:
    return {v for v in _reached(result) if isinstance(v, Node)}


def _factor(value) -> Source | None:
    """The source a product's factor reads (None: the constant 1.0); raises for a
    factor that is not a working value of a source."""
    if isinstance(value, Node) and value.rule == "one":
        return None
    if isinstance(value, Node) and value.rule == "work" and isinstance(value.args[0], Source):
        return value.args[0]
    raise ValueError("a factor that is not a source")


def operand_bounds(result: Result, uniform: Callable[[Source], bool]
                   ) -> dict[Source, int] | None:
    """The bound k of each source component ``result`` reads that the bounded arithmetic
    needs (``primitives.bounded24(x, k)``; ``uniform`` tells which sources are
    uniforms).  A uniform's bound is ``primitives.BOUND_UNIFORM`` (what a bounded
    kernel's run guarantees), a register value's ``primitives.BOUND_ADDEND``, tightened
    for a factor so that the bounds of the two factors of every product add up to at
    most ``primitives.PRODUCT_BOUND`` (the partner a uniform, another register value
    bounded by ``primitives.BOUND_FACTOR``, or DPH's constant 1.0).  None where the
    proof of ``primitives.bounded24`` does not apply (more than four products, or a
    product of something other than sources)."""
    bounds = {s: P.BOUND_UNIFORM if uniform(s) else P.BOUND_ADDEND
              for s in sources_read(result)}
    products = [n for n in _nodes(result) if n.rule == "mul"]
    if len(products) > 4:
        return None
    try:
        factors = [(_factor(a), _factor(b)) for a, b in (n.args for n in products)]
    except ValueError:
        return None
    for a, b in factors:
        for name, partner in ((a, b), (b, a)):
            if name is None or uniform(name):
                continue
            partner_bound = (0 if partner is None else P.BOUND_UNIFORM if uniform(partner)
                             else P.BOUND_FACTOR)
            bounds[name] = min(bounds[name], P.PRODUCT_BOUND - partner_bound)
    return bounds
