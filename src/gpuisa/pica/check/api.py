"""``check(...)``: run every enabled check over sources or a SHBIN."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from numbers import Integral, Real

from ...errors import InputError
from ..analysis import flow
from ..analysis.explore import Exploration, Explorer
from ..analysis.model import Raw
from ..shbin import Shbin
from . import static
from .findings import BinarySpot, Finding, Related
from .registry import CHECKS, lookup
from .target import Target, from_shbin, from_sources

#: Sources (one text, or (name, text) pairs as for ``pica asm``), a Shbin, or SHBIN bytes.
CheckInput = str | Sequence[tuple[str, str]] | Shbin | bytes | bytearray
_SHBIN_MAGIC = b"DVLB"


def enabled_checks(enable: Iterable[str] = (), disable: Iterable[str] = ()) -> set[str]:
    """The default checks, plus ``enable``, minus ``disable`` (identifiers checked)."""
    chosen = {c.id for c in CHECKS.values() if c.default}
    chosen |= {lookup(i).id for i in enable}
    chosen -= {lookup(i).id for i in disable}
    return chosen


def check(target: CheckInput, *, name: str = "<shbin>", enable: Iterable[str] = (),
          disable: Iterable[str] = (), max_states: int | None = None,
          max_seconds: float | None = None, strict: bool = False) -> list[Finding]:
    """Every finding of the enabled checks, sorted by place.

    ``target``: assembly sources (a text, or ``(name, text)`` pairs assembled together
    with ``pica asm``'s multi-file rules), a :class:`Shbin`, or SHBIN bytes (``name``
    names it in findings).  Assembly errors raise :class:`~gpuisa.errors.SourceError`.
    ``max_states`` / ``max_seconds`` bound the path exploration of each entry point
    (PICA009 says when it stopped early).
    """
    chosen = enabled_checks(enable, disable)
    _check_limits(max_states, max_seconds)
    if isinstance(target, bytes | bytearray):
        if not bytes(target[:4]) == _SHBIN_MAGIC:
            raise InputError(f"{name}: not a SHBIN (no DVLB magic)")
        target = Shbin.from_bytes(bytes(target))
    if isinstance(target, Shbin):
        built = from_shbin(target, name)
    elif isinstance(target, str | Sequence):
        built = from_sources(target, strict=strict)
    else:
        raise InputError(f"cannot check a {type(target).__name__}: give source text, "
                         "(name, text) pairs, a Shbin or SHBIN bytes")
    raws = _raws(built, max_states, max_seconds)
    findings = [f for f in built.findings if f.check in chosen]
    seen = set()
    for raw in raws:
        key = (raw.check, raw.message, raw.anchor)
        if raw.check in chosen and key not in seen:
            seen.add(key)
            info = CHECKS[raw.check]
            related = tuple(Related(built.locate(anchor), text)
                            for anchor, text in raw.related)
            findings.append(Finding(info.id, info.severity, raw.message,
                                    built.locate(raw.anchor), raw.note, related))
    return sorted(findings, key=Finding.sort_key)


def _check_limits(max_states: object, max_seconds: object) -> None:
    """A limit that would end the path exploration at once (0, negative) or never (NaN,
    infinity) is an error: the path checks would be skipped or the run would not end."""
    if max_states is not None and (isinstance(max_states, bool) or not isinstance(
            max_states, Integral) or max_states < 1):
        raise InputError(f"max_states must be a positive integer, got {max_states!r}")
    if max_seconds is not None and (isinstance(max_seconds, bool) or not isinstance(
            max_seconds, Real) or not 0 < max_seconds < math.inf):
        raise InputError(f"max_seconds must be a positive finite number of seconds, got "
                         f"{max_seconds!r}")


def _raws(t: Target, max_states: int | None, max_seconds: float | None) -> list[Raw]:
    decoded = [e.ins for e in t.effects]
    raws: list[Raw] = []
    results: list[Exploration | None] = []
    reported: set[int] = set()
    reached_all: set[int] = set()
    for unit in t.units:
        explorer = Explorer(t.effects, geometry=unit.geometry, max_states=max_states,
                            max_seconds=max_seconds)
        ex = explorer.explore(unit.start, unit.stop)
        if not ex.complete:
            results.append(None)
            raws.append(Raw("PICA009", f"entry point '{unit.entry}' of '{unit.name}' has too "
                            "many paths to explore: the path-based checks skipped it",
                            ("entry", unit.index)))
            reached = set(range(max(unit.start, 0), min(unit.stop, len(t.effects))))
        else:
            results.append(ex)
            reached = ex.reached
            end = flow.entry_end(unit.entry, ex, decoded, unit.index)
            if end is not None:
                raws.append(end)
            raws.extend(flow.written_twice(ex, reported))
            raws.extend(flow.path_checks(unit, ex, t.effects))
        reached_all |= reached
        raws.extend(static.uniform_checks(unit, reached, t.effects, t.units))
    raws.extend(_mova(t, decoded, results))
    raws.extend(static.instruction_checks(t.effects, reached_all, t.written_descs))
    raws.extend(static.limit_checks(len(t.effects), len(t.shbin.program.opdescs), t.units))
    return raws


def _mova(t: Target, decoded, results) -> list[Raw]:
    def apart(first: int, second: int) -> str:
        spot = t.locate(("word", first))
        where = (f"0x{spot.address:03X}" if isinstance(spot, BinarySpot)
                 else f"{spot.file}:{spot.line}")
        return f"it can run right after the 'mova' at {where}"

    raws = []
    for second, note in flow.mova_pair_notes(decoded, results, apart):
        raws.append(Raw("PICA403", "two consecutive 'mova' instructions can freeze the GPU",
                        ("word", second), note))
    return raws
