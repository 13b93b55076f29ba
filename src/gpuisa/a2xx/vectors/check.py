"""``a2xx vectors --check``: compare another implementation's results with the suite and
say which cases diverge, grouped by the opcode or quirk they exercise, each with its
provenance, the instruction that produced the first differing value in gpuisa's trace and
the program's disassembly."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ...conformance import group_key as shared_group_key
from ...conformance import summary_lines
from ...errors import InputError
from ..disasm import disassemble
from ..engine.trace import TraceStep
from .model import Case, Result
from .replay import case_trace, engine_shader
from .suite_io import parse_result

#: Tags that say how a value reaches the exports rather than what a case tests.
_PLUMBING = ("op:MAXv", "op:ALLOC", "op:NOP")
#: Unknown ids a report keeps (a results file of any length needs bounded memory).
UNKNOWN_KEPT = 100


def is_nan(value: int) -> bool:
    return (value >> 23) & 0xFF == 0xFF and value & 0x7FFFFF != 0


def same(expected: int, got: int) -> bool:
    """Bit equality, except that any NaN matches an expected NaN (payloads are open)."""
    return expected == got or (is_nan(expected) and is_nan(got))


@dataclass(slots=True)
class Divergence:
    case: Case
    differences: list[str] = field(default_factory=list)
    #: (invocation, export register or -1 for the kill flag, component) first differing.
    first: tuple[int, int, int] | None = None
    got: Result | None = None


def compare(case: Case, expected: Result, got: Result) -> Divergence | None:
    div = Divergence(case, got=got)
    given = dict(got.exports)
    for number, rows in expected.exports:
        if number not in given:
            div.differences.append(f"export{number}: missing from the results")
            div.first = div.first or (0, number, 0)
            continue
        for k, (want, have) in enumerate(zip(rows, given[number], strict=True)):
            for c, (e, g) in enumerate(zip(want, have, strict=True)):
                if not same(e, g):
                    div.differences.append(f"invocation {k} export{number}.{'xyzw'[c]}: "
                                           f"expected 0x{e:08x}, got 0x{g:08x}")
                    div.first = div.first or (k, number, c)
    for k, (e, g) in enumerate(zip(expected.killed, got.killed, strict=True)):
        if e != g:
            div.differences.append(f"invocation {k} killed: expected {int(e)}, got {int(g)}")
            div.first = div.first or (k, -1, 0)
    return div if div.differences else None


def group_key(case: Case) -> str:
    """What a divergence is filed under: a quirk, else a flow rule, else an export kind,
    else the opcode."""
    return shared_group_key(case.tags, ("quirk:", "flow:", "export:"), _PLUMBING)


def _line(step: TraceStep, why: str) -> str:
    text = step.text.replace("\n", "  ")
    return f"cf {step.cf // 2}.{step.cf % 2} slot {step.slot}  {text}  ({why})"


#: Xenia's text of a move (``max dst, rN, rN``): the suite's cases export fetched values so.
_MOVE = re.compile(r"^max \S+, (r\d+), \1\b")


def _origin(steps: list[TraceStep], index: int) -> str:
    """Where the value a move at ``steps[index]`` copies came from, as " <- ..." text."""
    move = _MOVE.match(steps[index].text)
    if move is None:
        return ""
    for step in reversed(steps[:index]):
        if step.executed and any(c.name == move[1] for c in step.changes):
            return f"\n      <- {move[1]} from {_line(step, 'the value it moves')}"
    return ""


def first_instruction(case: Case, target: str, where: tuple[int, int, int] | None) -> str:
    """The instruction of gpuisa's trace that produced the first differing value: the
    last one that changed that export (or killed the invocation), and, when that is a
    move, the one that made the register it moves (a fetch, say)."""
    invocation = where[0] if where else 0
    steps = [s for s in case_trace(case, target, invocation) if s.slot is not None]
    if where is not None:
        name = "killed" if where[1] < 0 else f"export{where[1]}"
        what = (f"kills invocation {invocation}" if where[1] < 0 else
                f"produces export{where[1]}.{'xyzw'[where[2]]} of invocation {invocation}")
        for index in range(len(steps) - 1, -1, -1):
            step = steps[index]
            if step.executed and any(c.name == name for c in step.changes):
                return _line(step, what) + _origin(steps, index)
    return _line(steps[-1], "last instruction") if steps else "(no instruction executed)"


@dataclass(slots=True)
class Report:
    target: str
    checked: int
    missing: list[str]
    unknown: list[str]
    divergences: list[Divergence]
    unknown_count: int = 0

    def groups(self) -> dict[str, list[Divergence]]:
        out: dict[str, list[Divergence]] = {}
        for d in self.divergences:
            out.setdefault(group_key(d.case), []).append(d)
        return dict(sorted(out.items(), key=lambda kv: (-len(kv[1]), kv[0])))


def check(cases: Iterable[Case], results: Iterable[tuple[int, Mapping[str, Any]]],
          target: str, where: str = "results") -> Report:
    """The results compared with the cases' expectations for ``target``."""
    by_id = {case.id: case for case in cases}
    seen: set[str] = set()
    divergences: list[Divergence] = []
    unknown: list[str] = []
    unknown_count = 0
    for number, record in results:
        case = by_id.get(record["id"])
        if case is None:
            unknown_count += 1
            if len(unknown) < UNKNOWN_KEPT:
                unknown.append(record["id"])
            continue
        if case.id in seen:
            raise InputError(f"{where}:{number}: case {case.id} appears twice")
        seen.add(case.id)
        got = parse_result(record, f"{where}:{number}", case.invocations, target)
        div = compare(case, case.expected[target], got)
        if div is not None:
            divergences.append(div)
    missing = [ident for ident in by_id if ident not in seen]
    return Report(target, len(seen), missing, unknown, divergences, unknown_count)


def _case_lines(d: Divergence, target: str, disasm: bool) -> list[str]:
    case, p = d.case, d.case.provenance
    lines = [f"case {case.id}  [{p.kind}: {p.source}]"]
    if p.choice:
        lines.append(f"  documented choice: {p.choice}")
    if case.differences:
        lines.append(f"  Adreno and Xenos differ here through: {', '.join(case.differences)}")
    for label, result in case.alternatives:
        if d.got is not None and compare(case, result, d.got) is None:
            lines.append(f"  the results match the alternative {label}: the other answer of "
                         f"the documented choice")
        elif result != case.expected[target]:
            lines.append(f"  the alternative {label} expects other values too")
    lines += [f"  {text}" for text in d.differences[:8]]
    if len(d.differences) > 8:
        lines.append(f"  ... and {len(d.differences) - 8} more")
    lines.append(f"  first differing instruction: {first_instruction(case, target, d.first)}")
    if disasm:
        text = disassemble(list(case.words), engine_shader(case))  # type: ignore[arg-type]
        lines += [f"    | {t}" for t in text.rstrip("\n").splitlines()]
    return lines


def render(report: Report, disasm: bool = True) -> str:
    groups = report.groups()
    lines = summary_lines(len(report.divergences), report.checked,
                          f"{report.target} expectations", report.missing, report.unknown,
                          report.unknown_count, groups)
    for key, items in groups.items():
        lines += ["", f"== {key} ({len(items)} case{'s' if len(items) != 1 else ''}) =="]
        for d in items:
            lines += _case_lines(d, report.target, disasm)
    return "\n".join(lines) + "\n"
