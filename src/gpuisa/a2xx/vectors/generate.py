"""Turning drafts into cases: each batch of drafts that share a program runs once per
target (and once per alternative a documented choice names); where the targets disagree,
the emulator switches responsible are found by flipping them one at a time."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Iterator

from ..engine import EmulatorConfig
from .model import TARGETS, Case, Result
from .replay import SWITCHES, batches, config, run_batch
from .spec import Draft


def _differences(cases: list[Case], results: dict[str, list[Result]]) -> list[tuple[str, ...]]:
    """Per case, the switches whose Xenos value alone changes its Adreno result."""
    adreno, xenos = results["adreno"], results["xenos"]
    if all(a == x for a, x in zip(adreno, xenos, strict=True)):
        return [()] * len(cases)
    base, target = EmulatorConfig.for_target("adreno"), EmulatorConfig.for_target("xenos")
    found: list[list[str]] = [[] for _ in cases]
    for name in SWITCHES:
        value = getattr(target, name)
        if getattr(base, name) == value:
            continue
        flipped = run_batch(cases, dataclasses.replace(base, **{name: value}))
        for k, (a, f) in enumerate(zip(adreno, flipped, strict=True)):
            if a != xenos[k] and f != a:
                found[k].append(name)
    return [tuple(names) for names in found]


def build(drafts: Iterable[Draft], progress: Callable[[int], None] | None = None
          ) -> Iterator[Case]:
    """Cases with expectations, in the order of ``drafts``."""
    items = list(drafts)
    alternatives = {d.case.id: d.alternatives for d in items}
    done: dict[str, Case] = {}
    for group in batches(d.case for d in items):
        results = {t: run_batch(group, config(t)) for t in TARGETS}
        differences = _differences(group, results)
        labels = sorted({a for c in group for a in alternatives[c.id]})
        extra = {label: run_batch(group, config("adreno", label)) for label in labels}
        for k, case in enumerate(group):
            done[case.id] = dataclasses.replace(
                case, expected={t: results[t][k] for t in TARGETS},
                differences=differences[k],
                alternatives=tuple((label, extra[label][k]) for label in alternatives[case.id]))
        if progress is not None:
            progress(len(group))
    for d in items:
        yield done[d.case.id]
