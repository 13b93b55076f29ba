"""Shrinking a divergence to a minimal program and inputs, and naming its cause.

A candidate (fewer instructions, an input component set to +0) is kept while the adapter
still diverges from gpuisa *the same way*: the same signature, which is the status the
adapter reported instead of gpuisa's, or the mnemonic of the instruction that produced the
first differing output in gpuisa's trace.  Candidates are tried in batches, one adapter
process each (docs/adapter-protocol.md), so a campaign costs few process starts."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..vectors.adapter import run_cases
from ..vectors.check import compare
from ..vectors.model import Case, Expected, Register
from ..vectors.replay import case_trace
from ..vectors.suite_io import parse_result
from .causes import mnemonic
from .generator import NOP
from .programs import with_program

#: Runs cases in this process instead of an adapter's (``local(cases, mode)``, one result
#: record per case): gpuisa's own engines, as tests and mutants do.
Local = Callable[[Sequence[Case], str], list[dict[str, Any]]]


@dataclass(frozen=True, slots=True)
class Verdict:
    """How the adapter's result for one case compares with gpuisa's expectation."""

    differences: tuple[str, ...]
    signature: str
    detail: str = ""


#: The verdict on a case the adapter says it cannot run: never a finding.
UNSUPPORTED = Verdict((), "unsupported")


def verdict(case: Case, record: dict, mode: str) -> Verdict | None:
    """None when the adapter agrees; :data:`UNSUPPORTED` when it cannot run the case."""
    got = parse_result(record, mode, f"adapter result for {case.id}", case.output_names)
    if got.status == UNSUPPORTED.signature:
        return UNSUPPORTED
    divergence = compare(case, got, mode)
    if divergence is None:
        return None
    if got.status != case.expected[mode].status:
        signature = f"status {got.status}"
    elif divergence.first is None:
        signature = _state(case.expected[mode], got)  # only flags or address registers
    else:
        signature = _producer(case, mode, divergence.first[0])
    return Verdict(tuple(divergence.differences), signature, str(record.get("detail", "")))


def _state(expected: Expected, got: Expected) -> str:
    """``state`` and the address registers and flags that differ."""
    names = [name for name, e, g in zip(("a0.x", "a0.y", "aL"), expected.address, got.address,
                                        strict=True) if e != g]
    return " ".join(["state", *names, *(["cmp"] if expected.cmp != got.cmp else [])])


def _producer(case: Case, mode: str, register: str) -> str:
    """The mnemonic of the last instruction in gpuisa's trace that wrote ``register``."""
    for step in reversed(case_trace(case, mode).steps):
        if any(name.split(".")[0] == register for name, _ in step.changes):
            return mnemonic(step.word)
    return "outputs"


@dataclass(frozen=True, slots=True)
class Runner:
    """The adapter and how to run it (``local``: in this process instead)."""

    command: Sequence[str]
    mode: str
    timeout: float
    batch: int = 64
    local: Local | None = None

    def verdicts(self, cases: Sequence[Case]) -> list[Verdict | None]:
        if self.local is not None:
            records = self.local(cases, self.mode)
        else:
            records = list(run_cases(self.command, cases, self.mode, timeout=self.timeout,
                                     batch=self.batch))
        return [verdict(case, record, self.mode) for case, record in zip(cases, records,
                                                                         strict=True)]


def shrink(case: Case, found: Verdict, runner: Runner, seconds: float) -> tuple[Case, Verdict]:
    """The smallest case found within ``seconds`` on which the adapter still diverges with
    ``found``'s signature: instructions replaced by NOPs, then input components set to
    +0 (delta debugging over each).  A function of the case and the adapter's answers as
    long as it finishes within ``seconds`` (a campaign's findings do not depend on
    timing, or on how it is sharded)."""
    deadline = time.monotonic() + seconds
    best: list = [case, found]

    def first_same(candidates: list[Case | None]) -> int | None:
        """The index of the first candidate that still diverges the same way (it becomes
        the best case), or None."""
        valid = [(n, c) for n, c in enumerate(candidates) if c is not None]
        results = runner.verdicts([c for _, c in valid])
        for (n, candidate), result in zip(valid, results, strict=True):
            if result is not None and result.signature == found.signature:
                best[:] = [candidate, result]
                return n
        return None

    def without(keep: list[int]) -> Case | None:
        kept = set(keep)
        return with_program(case, tuple(w if pc in kept else NOP
                                         for pc, w in enumerate(case.code)),
                            modes=(runner.mode,))

    _ddmin([pc for pc, word in enumerate(case.code) if word != NOP], without, first_same,
           deadline)
    shrunk = best[0]
    _ddmin([(n, k) for n, reg in enumerate(shrunk.inputs) for k in range(4)
            if reg.f32[0][k] != 0], lambda keep: _zeroed(shrunk, keep, runner.mode),
           first_same, deadline, down_to=0)
    return best[0], best[1]


def _ddmin(items: list, build: Callable[[list], Case | None],
           first_same: Callable[[list[Case | None]], int | None], deadline: float,
           down_to: int = 1) -> None:
    """Delta debugging over ``items`` (instructions, input components): drop chunks (all
    candidates of a round in one batch), halving their size when none can go, down to
    ``down_to`` items."""
    chunks = 2
    while len(items) > down_to and time.monotonic() < deadline:
        size = -(-len(items) // chunks)
        rests = [items[:s] + items[s + size:] for s in range(0, len(items), size)]
        kept = first_same([build(rest) for rest in rests])
        if kept is not None:
            items = rests[kept]
            chunks = max(chunks - 1, 2)
        elif size == 1:
            return
        else:
            chunks = min(len(items), 2 * chunks)


def _zeroed(case: Case, keep: list[tuple[int, int]], mode: str) -> Case | None:
    """``case`` with every input component but those in ``keep`` (register index,
    component) set to +0 in both number formats."""
    kept = set(keep)
    inputs = []
    for n, reg in enumerate(case.inputs):
        f32, f24 = ([tuple(v if (n, k) in kept else 0 for k, v in enumerate(row))
                     for row in rows] for rows in (reg.f32, reg.f24))
        inputs.append(Register(reg.name, tuple(f32), tuple(f24)))  # type: ignore[arg-type]
    return with_program(case, case.code, tuple(inputs), modes=(mode,))
