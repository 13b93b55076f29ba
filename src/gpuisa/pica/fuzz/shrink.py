"""Shrinking a divergence to a minimal program and inputs, and naming its cause.

A candidate (fewer instructions, an input component set to +0) is kept while the adapter
still diverges from gpuisa *the same way*: the same signature, which is the status the
adapter reported instead of gpuisa's, or the mnemonic of the instruction that produced the
first differing output in gpuisa's trace.  Candidates are tried in batches, one adapter
process each (docs/adapter-protocol.md), so a campaign costs few process starts."""

from __future__ import annotations

import re
import struct
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..encoding import decode, decode_opdesc
from ..isa import OPCODES, Kind, SourceUse, source_register
from ..vectors.adapter import run_cases
from ..vectors.check import compare
from ..vectors.model import Case, Register
from ..vectors.replay import case_trace
from ..vectors.suite_io import parse_result
from .generator import NOP
from .programs import with_program


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
        signature = "state"  # only flags or address registers differ
    else:
        signature = _producer(case, mode, divergence.first[0])
    return Verdict(tuple(divergence.differences), signature, str(record.get("detail", "")))


def _producer(case: Case, mode: str, register: str) -> str:
    """The mnemonic of the last instruction in gpuisa's trace that wrote ``register``."""
    for step in reversed(case_trace(case, mode).steps):
        if any(name.split(".")[0] == register for name, _ in step.changes):
            return _mnemonic(step.word)
    return "outputs"


def _mnemonic(word: int) -> str:
    info = OPCODES[decode(word).opcode]
    return info.mnemonic or f"0x{int(info.opcode):02x}"


@dataclass(frozen=True, slots=True)
class Runner:
    """The adapter and how to run it."""

    command: Sequence[str]
    mode: str
    timeout: float
    batch: int = 64

    def verdicts(self, cases: Sequence[Case]) -> list[Verdict | None]:
        records = run_cases(self.command, cases, self.mode, timeout=self.timeout,
                            batch=self.batch)
        return [verdict(case, record, self.mode) for case, record in zip(cases, records,
                                                                         strict=True)]


def shrink(case: Case, found: Verdict, runner: Runner, seconds: float) -> tuple[Case, Verdict]:
    """The smallest case found within ``seconds`` on which the adapter still diverges with
    ``found``'s signature: instructions replaced by NOPs (delta debugging), then input
    components set to +0."""
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
                                         for pc, w in enumerate(case.code)))

    _ddmin([pc for pc, word in enumerate(case.code) if word != NOP], without, first_same,
           deadline)
    while time.monotonic() < deadline:
        shrunk = best[0]
        if first_same([_zeroed(shrunk, n, k) for n, reg in enumerate(shrunk.inputs)
                       for k in range(4) if reg.f32[0][k] != 0]) is None:
            break
    return best[0], best[1]


def _ddmin(items: list[int], build: Callable[[list[int]], Case | None],
           first_same: Callable[[list[Case | None]], int | None], deadline: float) -> None:
    """Delta debugging over ``items``: drop chunks (all candidates of a round in one
    batch), halving their size when none can go."""
    chunks = 2
    while len(items) > 1 and time.monotonic() < deadline:
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


def _zeroed(case: Case, register: int, component: int) -> Case | None:
    """``case`` with input component ``component`` of its ``register``-th input set to +0
    in both number formats."""
    reg = case.inputs[register]
    f32 = tuple(tuple(0 if k == component else v for k, v in enumerate(row)) for row in reg.f32)
    f24 = tuple(tuple(0 if k == component else v for k, v in enumerate(row)) for row in reg.f24)
    inputs = list(case.inputs)
    inputs[register] = Register(reg.name, f32, f24)  # type: ignore[arg-type]
    return with_program(case, case.code, tuple(inputs))


# -- causes ------------------------------------------------------------------------------------


def rules(mnemonic: str) -> list[str]:
    """The reference-page rules an opcode follows, from its columns of the ISA table."""
    info = next((i for i in OPCODES.values() if i.mnemonic == mnemonic), None)
    if info is None:
        return []
    cited = ["#".join(("pica-isa.md", f"op-{mnemonic}"))]  # the opcode's own section
    if info.kind is Kind.FLOW:
        cited.append("pica-emulation.md#flow-check")
    elif info.use is SourceUse.SCALAR:
        cited.append("pica-emulation.md#scalar-units")
    elif info.kind is Kind.COMPARE:
        cited.append("pica-emulation.md#compare")
    return cited


def _special(bits: int) -> str | None:
    value = struct.unpack("<f", struct.pack("<I", bits))[0]
    if bits == 0x80000000:
        return "-0"
    if value != value:
        return "NaN"
    if value in (float("inf"), float("-inf")):
        return "+inf" if value > 0 else "-inf"
    if bits & 0x7F800000 == 0 and bits & 0x7FFFFF:
        return "float32 denormal"
    return None


def read_values(case: Case) -> list[int]:
    """The float32 patterns the case's instructions read from inputs, uniforms and
    temporaries as they start (+0), as their swizzles and negations present them (scalar
    units: component x only): where a minimal program's special values come from."""
    given = {f"r{n}": (0, 0, 0, 0) for n in range(16)}
    given.update((reg.name, reg.f32[0]) for reg in (*case.inputs, *case.float_uniforms))
    values = []
    for word in case.code:
        instruction = decode(word)
        info = OPCODES[instruction.opcode]
        if word == NOP or not info.has_descriptor or instruction["desc"] >= len(case.opdescs):
            continue
        descriptor = decode_opdesc(case.opdescs[instruction["desc"]])
        for n, slot in enumerate(info.format.sources, start=1):
            bank, number = source_register(instruction[slot])
            row = given.get(f"{bank}{number}")
            if row is None:
                continue
            picked = descriptor.swizzle(n)[:1 if info.use is SourceUse.SCALAR else 4]
            sign = 0x80000000 if descriptor.negate[n - 1] else 0
            values += [row[k] ^ sign for k in picked]
    return values


def cause(case: Case, found: Verdict) -> tuple[str, str]:
    """(key, text) of a shrunk divergence: what deduplicates findings, and what a person
    reads.  Flow instructions still in the minimal program are the cause (the rule is
    the stack machine's); otherwise the diverging instruction and the special input
    values it still needs."""
    infos = [OPCODES[decode(w).opcode] for w in case.code if w != NOP]
    mnemonics = [_mnemonic(w) for w in case.code if w != NOP]
    flows = sorted({i.mnemonic for i in infos if i.kind is Kind.FLOW})
    specials = sorted({s for bits in read_values(case) if (s := _special(bits)) is not None})
    if found.signature.startswith("status"):
        subject = f"{found.signature} on {', '.join(m for m in mnemonics if m != 'end')}"
        cited = [r for m in set(mnemonics) for r in rules(m)]
        key = f"{found.signature}:{'+'.join(sorted(set(mnemonics)))}"
    elif flows:
        subject = f"{'/'.join(flows)} (then {found.signature})"
        cited = [r for m in flows for r in rules(m)]
        key = f"flow:{'+'.join(flows)}"
    else:
        subject = found.signature
        cited = rules(found.signature)
        key = f"{found.signature}:{'+'.join(specials)}"
    plain = not flows and not found.signature.startswith("status")
    text = subject + (f" with {', '.join(specials)}" if specials and plain else "")
    return key, f"{text} ({', '.join(dict.fromkeys(cited))})" if cited else text


def slug(key: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", key.lower()).strip("-")


