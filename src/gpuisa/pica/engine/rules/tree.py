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
    realisations of the kernels apply)."""

    working: bool
    finite_in_range: bool = False


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
    "ex2": Rule(working=False),
    "lg2": Rule(working=False),
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


def rules_used(result: Result) -> set[str]:
    """The rules the trees of ``result`` apply."""
    found: set[str] = set()
    pending = [v for part in result for v in (part or ())]
    while pending:
        value = pending.pop()
        if isinstance(value, Node):
            found.add(value.rule)
            pending.extend(value.args)
    return found


def sources_read(result: Result) -> set[Source]:
    """The source components the trees of ``result`` read."""
    found: set[Source] = set()
    pending = [v for part in result for v in (part or ())]
    while pending:
        value = pending.pop()
        if isinstance(value, Source):
            found.add(value)
        elif isinstance(value, Node):
            pending.extend(value.args)
    return found
