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
from .generator import NOP
from .programs import fuzz_case
from .shrink import UNSUPPORTED, Runner, Verdict, cause, shrink, slug

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


def run_campaign(settings: Settings, directory: str, resume: bool = False,
                 progress: Callable[[State], None] | None = None) -> State:
    """Run (or go on with) a campaign, writing into ``directory``."""
    os.makedirs(os.path.join(directory, "cases"), exist_ok=True)
    state = load(directory, settings, resume)
    runner = Runner(settings.command, settings.mode, settings.timeout, settings.batch)
    while state.next < settings.programs:
        end = min(state.next + settings.batch, settings.programs)
        cases = [c for n in range(state.next, end) if (c := fuzz_case(settings.seed, n))]
        state.skipped += (end - state.next) - len(cases)
        records = runner.verdicts(cases)
        state.unsupported += sum(1 for v in records if v is UNSUPPORTED)
        for case, found in zip(cases, records, strict=True):
            if found is None or found is UNSUPPORTED:
                continue
            seen = state.signatures.get(found.signature, 0)
            state.signatures[found.signature] = seen + 1
            if seen < settings.shrink_per_signature:
                _finding(case, found, runner, settings, state, directory)
        state.next = end
        save(directory, settings, state)
        if progress is not None:
            progress(state)
    return state


def _finding(case: Case, found: Verdict, runner: Runner, settings: Settings, state: State,
             directory: str) -> None:
    small, result = shrink(case, found, runner, settings.shrink_seconds)
    key, text = cause(small, result)
    name = slug(key)
    index = int(case.id.rsplit("/", 1)[1])
    record = {"key": key, "cause": text, "program": index, "count": 1,
              "instructions": sum(1 for w in small.code if w != NOP),
              "differences": list(result.differences[:8]), "detail": result.detail,
              "case": f"cases/{name}.jsonl"}
    if not state.add(record):
        return
    ready = dataclasses.replace(small, id=f"fuzz/{name}", tags=("random", "fuzz", key),
                                note=f"pica fuzz: {text}")
    write_text(os.path.join(directory, "cases", f"{name}.jsonl"),
                      json.dumps(case_json(ready)) + "\n")
    header = "".join(f"; {line}\n" for line in (
        f"pica fuzz --seed {settings.seed}, program {index}: {text}",
        f"adapter: {' '.join(settings.command)} ({settings.mode})",
        *result.differences[:8]))
    write_text(os.path.join(directory, "cases", f"{name}.pica"), header + small.source)
