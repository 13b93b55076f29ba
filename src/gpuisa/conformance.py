"""What the conformance checkers of both ISAs (``pica vectors --check``, ``a2xx vectors
--check``) do alike: file a divergence under a tag of its case, and print the summary at
the head of a report."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence, Sized
from typing import Any

from .errors import InputError


def summary_lines(diverging: int, checked: int, what: str, missing: Sequence[str],
                  unknown: Sequence[str], unknown_count: int,
                  groups: Mapping[str, Sized]) -> list[str]:
    """The head of a report: how many cases diverge (``what`` says against which
    expectations), which have no result, which results name no case (the first
    ``unknown`` of ``unknown_count``), and the size of each group of divergences."""
    lines = [f"{diverging} of {checked} checked cases diverge ({what})"]
    if missing:
        lines.append(f"{len(missing)} cases of the suite have no result (first: {missing[0]})")
    if unknown:
        lines.append(f"{max(unknown_count, len(unknown))} results name no case of the suite "
                     f"(first: {unknown[0][:80]!r})")
    lines += [f"  {key}: {len(items)}" for key, items in groups.items()]
    return lines


def result_fields(record: Mapping[str, Any], expected: str, where: str) -> Mapping[str, Any]:
    """The fields of one result: ``record`` itself, or, for a suite record read back as
    results, its ``expected[expected]`` (``expected`` names the mode or the target)."""
    if "expected" in record:
        record = record["expected"]
        if not isinstance(record, Mapping) or expected not in record:
            raise InputError(f"{where}: 'expected' has no {expected} results")
        record = record[expected]
    if not isinstance(record, Mapping):
        raise InputError(f"{where}: a result must be a JSON object")
    return record


def group_key(tags: Sequence[str], prefixes: Iterable[str], plumbing: Iterable[str]) -> str:
    """What a divergence is filed under: the first tag with one of ``prefixes`` (in their
    order: a quirk before a flow rule), else the opcode (``op:``) the case tests rather
    than one of the ``plumbing`` opcodes that carry its value, else "other"."""
    for prefix in prefixes:
        for tag in tags:
            if tag.startswith(prefix):
                return tag
    ops = [t for t in tags if t.startswith("op:")]
    preferred = [t for t in ops if t not in plumbing]
    return (preferred or ops or ["other"])[0]
