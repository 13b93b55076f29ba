"""A differential campaign (``pica fuzz``): programs of the generator, run on gpuisa and
on an emulator behind an adapter, compared in the adapter's precision; each divergence
shrunk and filed under its cause.

Deterministic: program ``n`` of campaign seed ``s`` is a function of (s, n) alone.
Resumable: after each batch of programs the campaign's state is written to
``DIR/state.json`` (atomically), so ``--resume`` goes on after the last finished batch.
A finding is written as a case of the suite (``DIR/cases/<cause>.jsonl``, the format of
``cases.jsonl``) with its disassembly (``DIR/cases/<cause>.pica``); ``DIR/findings.jsonl``
lists them."""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ...errors import InputError
from ...fileio import write_text
from ..vectors.model import Case
from ..vectors.suite_io import case_json
from .causes import cause, slug
from .generator import NOP
from .programs import fuzz_case, with_program
from .shrink import UNSUPPORTED, Local, Runner, Verdict, shrink

STATE = "state.json"


@dataclass(frozen=True, slots=True)
class Settings:
    """What a campaign runs: the adapter, its precision, the seed and how many programs."""

    command: tuple[str, ...]
    mode: str
    seed: int
    programs: int
    timeout: float = 10.0
    batch: int = 64
    shrink_seconds: float = 30.0
    #: Divergences shrunk per signature (what differs first); the others only counted.
    shrink_per_signature: int = 3


@dataclass(slots=True)
class State:
    """Where a campaign is: the next program and the findings so far (one per cause)."""

    next: int = 0
    skipped: int = 0
    unsupported: int = 0
    findings: list[dict[str, Any]] = field(default_factory=list)
    #: How many divergences of each signature were seen (shrunk or not).
    signatures: dict[str, int] = field(default_factory=dict)

    def add(self, record: dict[str, Any]) -> bool:
        """File a finding; False if its cause was found before (it is counted there)."""
        for known in self.findings:
            if known["key"] == record["key"]:
                known["count"] += 1
                return False
        self.findings.append(record)
        return True


def load(directory: str, settings: Settings, resume: bool) -> State:
    path = os.path.join(directory, STATE)
    if not resume or not os.path.exists(path):
        return State()
    with open(path, encoding="utf-8") as handle:
        saved = json.load(handle)
    if saved.get("settings", {}).get("seed") != settings.seed or \
            saved["settings"].get("mode") != settings.mode:
        raise InputError(f"{path}: that campaign ran seed {saved['settings'].get('seed')} in "
                         f"{saved['settings'].get('mode')} mode; resume it with the same "
                         "--seed and --mode, or give another -o DIR")
    return State(saved["next"], saved["skipped"], saved["unsupported"], saved["findings"],
                 saved["signatures"])


def save(directory: str, settings: Settings, state: State) -> None:
    data = {"settings": {**dataclasses.asdict(settings), "command": list(settings.command)},
            **dataclasses.asdict(state)}
    write_text(os.path.join(directory, STATE), json.dumps(data, indent=1) + "\n")
    write_text(os.path.join(directory, "findings.jsonl"),
                      "".join(json.dumps(f) + "\n" for f in state.findings))


@dataclass(frozen=True, slots=True)
class Scan:
    """Programs ``start`` to ``end`` of a campaign run on the adapter: the divergent ones
    (in order, with their verdicts) and how many gpuisa refused or the adapter could not
    run."""

    start: int
    end: int
    divergent: tuple[tuple[Case, Verdict], ...]
    skipped: int
    unsupported: int


def scan(settings: Settings, start: int, end: int, local: Local | None = None) -> Scan:
    """Run programs ``start`` to ``end`` (one batch) and compare them."""
    runner = Runner(settings.command, settings.mode, settings.timeout, settings.batch, local)
    cases = [c for n in range(start, end) if (c := fuzz_case(settings.seed, n, (settings.mode,)))]
    records = runner.verdicts(cases)
    divergent = tuple((case, found) for case, found in zip(cases, records, strict=True)
                      if found is not None and found is not UNSUPPORTED)
    return Scan(start, end, divergent, (end - start) - len(cases),
                sum(1 for v in records if v is UNSUPPORTED))


def select(state: State, settings: Settings, scanned: Scan) -> list[tuple[Case, Verdict]]:
    """Count a scan into ``state`` and pick the divergences to shrink: the first
    ``shrink_per_signature`` of each signature, in program order (so that a campaign
    cut into shards selects what it would in one piece)."""
    state.skipped += scanned.skipped
    state.unsupported += scanned.unsupported
    chosen = []
    for case, found in scanned.divergent:
        seen = state.signatures.get(found.signature, 0)
        state.signatures[found.signature] = seen + 1
        if seen < settings.shrink_per_signature:
            chosen.append((case, found))
    state.next = scanned.end
    return chosen


def run_campaign(settings: Settings, directory: str, resume: bool = False,
                 progress: Callable[[State], None] | None = None,
                 local: Local | None = None) -> State:
    """Run (or go on with) a campaign, writing into ``directory``; ``local`` runs the
    cases in this process instead of the adapter command (gpuisa's own engines)."""
    os.makedirs(os.path.join(directory, "cases"), exist_ok=True)
    state = load(directory, settings, resume)
    runner = Runner(settings.command, settings.mode, settings.timeout, settings.batch, local)
    while state.next < settings.programs:
        end = min(state.next + settings.batch, settings.programs)
        for case, found in select(state, settings, scan(settings, state.next, end, local)):
            file_finding(state, directory, examine(case, found, runner, settings))
        save(directory, settings, state)
        if progress is not None:
            progress(state)
    return state


@dataclass(frozen=True, slots=True)
class Examined:
    """A divergence shrunk and named: its record for ``findings.jsonl`` and its files
    (path under the campaign's directory, text)."""

    record: dict[str, Any]
    files: tuple[tuple[str, str], ...]


def examine(case: Case, found: Verdict, runner: Runner, settings: Settings) -> Examined:
    """Shrink a divergence, name its cause and make its ready-to-add case."""
    small, result = shrink(case, found, runner, settings.shrink_seconds)
    key, text = cause(small, result.signature, settings.mode)
    name = slug(key)
    index = int(case.id.rsplit("/", 1)[1])
    record = {"key": key, "cause": text, "program": index, "count": 1,
              "instructions": sum(1 for w in small.code if w != NOP),
              "differences": list(result.differences[:8]), "detail": result.detail,
              "case": f"cases/{name}.jsonl"}
    small = with_program(small, small.code, small.inputs) or small  # both modes' expectations
    ready = dataclasses.replace(small, id=f"fuzz/{name}", tags=("random", "fuzz", key),
                                note=f"pica fuzz: {text}")
    header = "".join(f"; {line}\n" for line in (
        f"pica fuzz --seed {settings.seed}, program {index}: {text}",
        f"adapter: {' '.join(settings.command)} ({settings.mode})",
        *result.differences[:8]))
    return Examined(record, ((record["case"], json.dumps(case_json(ready)) + "\n"),
                             (f"cases/{name}.pica", header + small.source)))


def file_finding(state: State, directory: str, examined: Examined) -> None:
    """File a finding under its cause (its files written if the cause is new)."""
    if state.add(dict(examined.record)):
        for path, text in examined.files:
            write_text(os.path.join(directory, path), text)
