"""``pica vectors --check``: compare another implementation's results with the suite and
say which cases diverge, grouped by what they exercise, with the instruction that
produced the first differing value in gpuisa's trace."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from ...conformance import group_key as shared_group_key
from ...conformance import summary_lines
from ...errors import InputError
from ..engine.loading import DEFAULT_ROUNDING
from ..isa import BY_MNEMONIC, Kind
from .model import Case, Expected
from .replay import case_trace
from .suite_io import hex_pattern, parse_result

#: Tags that say how a value reaches the outputs rather than what a case tests.
_PLUMBING = ("op:mova", "op:ifc", "op:loop", "op:call")


def is_nan(value: int, mode: str) -> bool:
    if mode == "f24":
        return (value >> 16) & 0x7F == 0x7F and value & 0xFFFF != 0
    return (value >> 23) & 0xFF == 0xFF and value & 0x7FFFFF != 0


def same(expected: int, got: int, mode: str) -> bool:
    """Bit equality, except that any NaN matches an expected NaN (payloads are OPEN)."""
    return expected == got or (is_nan(expected, mode) and is_nan(got, mode))


@dataclass(slots=True)
class Divergence:
    case: Case
    differences: list[str] = field(default_factory=list)
    #: (register, component) of the first differing output value, if one differs.
    first: tuple[str, int] | None = None
    #: The other float24 rounding, when the result is that rounding's expectation.
    matches: str = ""


def compare(case: Case, got: Expected, mode: str) -> Divergence | None:
    exp = case.expected[mode]
    div = Divergence(case)
    if exp.status != got.status:
        div.differences.append(f"status: expected {exp.status}, got {got.status}")
        return div
    given = dict(got.outputs)
    for name, values in exp.outputs:
        if name not in given:
            div.differences.append(f"{name}: missing from the results")
            continue
        for k, (e, g) in enumerate(zip(values, given[name], strict=True)):
            if not same(e, g, mode):
                div.differences.append(f"{name}.{'xyzw'[k]}: expected {hex_pattern(e, mode)}, "
                                       f"got {hex_pattern(g, mode)}")
                div.first = div.first or (name, k)
    if got.cmp is not None and exp.status == "ok" and tuple(got.cmp) != exp.cmp:
        div.differences.append(f"cmp: expected {list(exp.cmp)}, got {list(got.cmp)}")
    if got.address is not None and exp.status == "ok" and tuple(got.address) != exp.address:
        div.differences.append(f"a0.x, a0.y, aL: expected {list(exp.address)}, got "
                               f"{list(got.address)}")
    if case.geometry:
        _compare_geometry(exp, got, mode, div)
    given_semantics = dict(got.semantics)
    for name, values in exp.semantics if given_semantics else ():
        got_values = given_semantics.get(name)
        if got_values is None or len(got_values) != len(values):
            div.differences.append(f"semantic {name}: missing or of the wrong size")
            continue
        for k, (e, g) in enumerate(zip(values, got_values, strict=True)):
            if not same(e, g, mode):
                div.differences.append(f"semantic {name}[{k}]: expected "
                                       f"{hex_pattern(e, mode)}, got {hex_pattern(g, mode)}")
    return div if div.differences else None


def _compare_geometry(exp: Expected, got: Expected, mode: str, div: Divergence) -> None:
    if len(exp.vertices) != len(got.vertices):
        div.differences.append(f"emitted {len(got.vertices)} vertices, expected "
                               f"{len(exp.vertices)}")
    for v, (ev, gv) in enumerate(zip(exp.vertices, got.vertices, strict=False)):
        for (name, _), e_row, g_row in zip(exp.outputs, ev, gv, strict=True):
            for k, (e, g) in enumerate(zip(e_row, g_row, strict=True)):
                if not same(e, g, mode):
                    div.differences.append(f"vertex {v} {name}.{'xyzw'[k]}: expected "
                                           f"{hex_pattern(e, mode)}, got {hex_pattern(g, mode)}")
    if tuple(exp.primitives) != tuple(got.primitives):
        div.differences.append(f"primitives: expected {[list(p) for p in exp.primitives]}, "
                               f"got {[list(p) for p in got.primitives]}")


def group_key(case: Case) -> str:
    """What a divergence is filed under: a quirk, else a flow rule, else the opcode."""
    return shared_group_key(case.tags, ("quirk:", "flow:"), _PLUMBING)


def first_instruction(case: Case, mode: str, where: tuple[str, int] | None,
                      rounding: str = DEFAULT_ROUNDING) -> str:
    """``pica trace``-style line of the instruction that produced the first differing
    output value in gpuisa's trace (or the first flow instruction if that value is never
    written)."""
    record = case_trace(case, mode, rounding)
    steps = record.steps
    if where is not None:
        name, component = where
        letter = "xyzw"[component]
        for step in reversed(steps):
            if _writes(step.text, name, letter):
                return _line(step, f"produces {name}.{letter}")
    for step in steps:
        info = BY_MNEMONIC.get(step.text.split()[0])
        if info is not None and (info.kind is Kind.FLOW or info.geometry_only):
            return _line(step, "first flow-control instruction")
    return _line(steps[-1], "last instruction") if steps else "(no instruction executed)"


def _writes(text: str, register: str, letter: str) -> bool:
    """Whether an instruction's text (picasso syntax) writes ``register.letter``."""
    parts = text.split(None, 1)
    if len(parts) < 2:
        return False
    base, _, mask = parts[1].split(",")[0].strip().partition(".")
    return base == register and (not mask or letter in mask)


def _line(step: Any, why: str) -> str:
    changes = " ".join(f"{n}={v}" for n, v in step.changes) or "-"
    return (f"step {step.number}  pc {step.pc:03X}  {step.word:08X}  {step.text}  "
            f"[{changes}]  ({why})")


#: Unknown ids a report keeps (a results file of any length needs bounded memory).
UNKNOWN_KEPT = 100


@dataclass(slots=True)
class Report:
    """``unknown`` holds the first :data:`UNKNOWN_KEPT` ids that name no case of the
    suite, ``unknown_count`` how many results did."""

    mode: str
    checked: int
    missing: list[str]
    unknown: list[str]
    divergences: list[Divergence]
    unknown_count: int = 0
    #: The suite's f24 rounding (its expectations were made with it).
    rounding: str = DEFAULT_ROUNDING

    def groups(self) -> dict[str, list[Divergence]]:
        out: dict[str, list[Divergence]] = {}
        for d in self.divergences:
            out.setdefault(group_key(d.case), []).append(d)
        return dict(sorted(out.items(), key=lambda kv: (-len(kv[1]), kv[0])))


def check(cases: Iterable[Case], results: Iterable[tuple[int, Mapping[str, Any]]], mode: str,
          where: str = "results", rounding: str = DEFAULT_ROUNDING) -> Report:
    """The results compared with the cases' expectations of ``mode`` (``rounding``: the
    f24 rounding the cases were made with, :func:`.build_suite`)."""
    by_id = {case.id: case for case in cases}
    seen: set[str] = set()
    divergences, unknown = [], []
    unknown_count = 0
    for number, record in results:
        ident = record["id"]
        case = by_id.get(ident)
        if case is None:
            unknown_count += 1
            if len(unknown) < UNKNOWN_KEPT:
                unknown.append(ident)
            continue
        if ident in seen:
            raise InputError(f"{where}:{number}: case {ident} appears twice")
        seen.add(ident)
        got = parse_result(record, mode, f"{where}:{number}", case.output_names)
        div = compare(case, got, mode)
        if div is not None:
            div.matches = _other_rounding(case, got, mode, rounding)
            divergences.append(div)
    missing = [ident for ident in by_id if ident not in seen]
    return Report(mode, len(seen), missing, unknown, divergences, unknown_count, rounding)


def _other_rounding(case: Case, got: Expected, mode: str, rounding: str) -> str:
    """The float24 rounding other than ``rounding`` whose expectation ``got`` is, or ""."""
    for other, expected in case.f24_by_rounding if mode == "f24" else ():
        if other != rounding and compare(
                replace(case, expected={**case.expected, mode: expected}), got,
                mode) is None:
            return other
    return ""


def _rounded(report: Report) -> str:
    """The rounding of the expectations compared, where it is not the default."""
    if report.mode == "f24" and report.rounding != DEFAULT_ROUNDING:
        return f", {report.rounding} rounding"
    return ""


def render(report: Report, disassemble: bool = True) -> str:
    from ..disasm import disassemble as disasm

    groups = report.groups()
    lines = summary_lines(len(report.divergences), report.checked,
                          f"{report.mode} mode{_rounded(report)}", report.missing,
                          report.unknown, report.unknown_count, groups)
    for key, items in groups.items():
        lines.append("")
        lines.append(f"== {key} ({len(items)} case{'s' if len(items) != 1 else ''}) ==")
        for d in items:
            case = d.case
            p = case.provenance
            lines.append(f"case {case.id}  [{p.kind}: {p.source}]")
            if case.unknowns:
                lines.append(f"  depends on: {', '.join(case.unknowns)}")
            if d.matches:
                lines.append(f"  is the expectation of the {d.matches} rounding "
                             "(docs/rounding-experiment.md)")
            lines += [f"  {text}" for text in d.differences[:8]]
            if len(d.differences) > 8:
                lines.append(f"  ... and {len(d.differences) - 8} more")
            lines.append(f"  first differing instruction: "
                         f"{first_instruction(case, report.mode, d.first, report.rounding)}")
            if disassemble:
                from ..shbin import Shbin

                text = disasm(Shbin.from_bytes(case.shbin))
                lines += [f"    | {t}" for t in text.rstrip("\n").splitlines()]
    return "\n".join(lines) + "\n"
