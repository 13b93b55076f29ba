"""Deliberately wrong engines: the reference engine with one rule changed.

A mutant wraps one of the engine's rules (a function of :mod:`..rules.scalar`'s
arithmetic, or the stack check :func:`...flow.stacks.next_pc`) and changes what it does
in one situation; the rest of the engine is the reference engine itself, not a copy.
They exist to show that differential testing (``pica fuzz``) finds, shrinks and names a
wrong rule: ``python -m gpuisa.pica.vectors.gpuisa_adapter --mutate NAME`` is such an
engine behind the adapter protocol (docs/adapter-protocol.md).

:func:`mutated` installs a mutant for the duration of a ``with`` block, in this process,
and only the reference engine follows it (the compiled engine's kernels are made from
the rules once): run mutants with ``engine="reference"``, in a process or thread of
their own (the adapter's process).
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from ...flow import stacks
from ..rules import scalar

# The namespaces of :mod:`..rules.scalar` whose operations a mutant replaces: f32 and each
# f24 rounding.
_ARITHMETICS = tuple(scalar.ARITHMETIC.values())


@dataclass(frozen=True, slots=True)
class Mutant:
    """One changed rule: its name (``--mutate NAME``), the rule it breaks (a citation of
    the reference pages), what it does instead, and what it replaces: (object,
    attribute, a function of the original that returns the replacement)."""

    name: str
    rule: str
    does: str
    replaces: tuple[tuple[object, str, Callable[[Callable], Callable]], ...]


def _rcp_negative_zero(original: Callable) -> Callable:
    def rcp(x):
        if x == 0.0 and math.copysign(1.0, x) < 0:
            return -math.inf  # IEEE's 1 / -0, where the PICA gives +inf
        return original(x)
    return rcp


def _ex2_infinity_nan(original: Callable) -> Callable:
    def ex2(x):
        return math.nan if x in (math.inf, -math.inf) else original(x)
    return ex2


def _mul_inf_zero_nan(original: Callable) -> Callable:
    def mul(a, b):
        if (a == 0.0 and b in (math.inf, -math.inf)) or (b == 0.0 and a in (math.inf,
                                                                            -math.inf)):
            return math.nan  # IEEE's inf * 0, where the PICA gives +0
        return original(a, b)
    return mul


def _if_never_pops(original: Callable) -> Callable:
    def next_pc(ifs, n_if, calls, n_call, loops, n_loop, pc, jump, breaking, al, check_call,
                check_if, check_loop):
        return original(ifs, n_if, calls, n_call, loops, n_loop, pc, jump, breaking, al,
                        check_call, False, check_loop)
    return next_pc


def _loop_al_restored_early(original: Callable) -> Callable:
    def next_pc(ifs, n_if, calls, n_call, loops, n_loop, pc, jump, breaking, al, check_call,
                check_if, check_loop):
        top = (n_loop - 1) * stacks.LOOP_WIDTH
        last_starts = (n_loop > 0 and not breaking and loops[top + stacks.TRIGGER] == pc + 1
                       and loops[top + stacks.COUNT] == 1)
        new_pc, al, n_if, n_call, n_loop, hang = original(
            ifs, n_if, calls, n_call, loops, n_loop, pc, jump, breaking, al, check_call,
            check_if, check_loop)
        if last_starts:
            al = loops[top + stacks.SAVED_AL]  # the exit's restore, one iteration early
        return new_pc, al, n_if, n_call, n_loop, hang
    return next_pc


def _in_arithmetic(attribute: str, wrap: Callable[[Callable], Callable]) -> tuple:
    return tuple((m, attribute, wrap) for m in _ARITHMETICS)


#: Every mutant, by name.
MUTANTS = {m.name: m for m in (
    Mutant("rcp-negative-zero", "pica-emulation.md#fp-table",
           "RCP(-0) = -inf (IEEE) instead of +inf", _in_arithmetic("rcp", _rcp_negative_zero)),
    Mutant("ex2-infinity-nan", "pica-emulation.md#fp-table",
           "EX2(+-inf) = NaN instead of +inf and +0", _in_arithmetic("ex2", _ex2_infinity_nan)),
    Mutant("mul-inf-zero-nan", "pica-emulation.md#mul",
           "inf * 0 = NaN (IEEE) instead of +0", _in_arithmetic("mul", _mul_inf_zero_nan)),
    Mutant("if-never-pops", "pica-emulation.md#flow-check",
           "the IF stack is never popped (a true IF runs on into its else part)",
           ((stacks, "next_pc", _if_never_pops),)),
    Mutant("loop-al-restored-early", "pica-emulation.md#flow-check",
           "aL is restored to its saved value when a LOOP's last iteration starts, not at "
           "its end", ((stacks, "next_pc", _loop_al_restored_early),)),
)}

_LOCK = threading.Lock()


@contextmanager
def mutated(name: str) -> Iterator[Mutant]:
    """The reference engine with mutant ``name`` installed for the ``with`` block (one
    mutant at a time in a process: others wait)."""
    mutant = MUTANTS[name]
    with _LOCK:
        saved = [(target, attribute, getattr(target, attribute))
                 for target, attribute, _ in mutant.replaces]
        try:
            for target, attribute, wrap in mutant.replaces:
                setattr(target, attribute, wrap(getattr(target, attribute)))
            yield mutant
        finally:
            for target, attribute, original in reversed(saved):
                setattr(target, attribute, original)
