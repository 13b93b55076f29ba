"""Naming the cause of a shrunk divergence, so that findings of one wrong rule are filed
together and the name says which rule.

The cause of a minimal program is, in order: the status the adapter gave instead of
gpuisa's (a crash, a hang) and the instructions left; else the flow instructions it
still needs and what the stack machine did with them in gpuisa's trace (an IF-stack pop,
a LOOP iteration or exit, an aL restore, a CALL return, a break: the steps of
pica-emulation.md#flow-check), with aL if an instruction reads through it; else the
diverging instruction and the special values (pica-emulation.md#fp-table) it reads."""

from __future__ import annotations

import re
import struct

from ..encoding import decode, decode_opdesc
from ..isa import (
    CALL_STACK_DEPTH,
    IF_STACK_DEPTH,
    INDEX_REGISTERS,
    LOOP_STACK_DEPTH,
    OPCODES,
    Flow,
    Kind,
    SourceUse,
    destination_register,
    source_register,
)
from ..vectors.model import Case
from ..vectors.replay import case_trace
from .generator import NOP


def mnemonic(word: int) -> str:
    info = OPCODES[decode(word).opcode]
    return info.mnemonic or f"0x{int(info.opcode):02x}"


def rules(name: str) -> list[str]:
    """The reference-page rules an opcode follows, from its columns of the ISA table."""
    info = next((i for i in OPCODES.values() if i.mnemonic == name), None)
    if info is None:
        return []
    cited = ["#".join(("pica-isa.md", f"op-{name}"))]  # the opcode's own section
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


def read_values(case: Case) -> list[tuple[str, list[int]]]:
    """Per instruction of ``case`` with operands, its mnemonic and the float32 patterns it
    reads from inputs, uniforms and temporaries as they start (+0), as its swizzles and
    negations present them (scalar units: component x only): where a minimal program's
    special values come from.  A temporary an instruction before it wrote is not read
    as it started (in program order: minimal programs are mostly straight lines)."""
    given = {f"r{n}": (0, 0, 0, 0) for n in range(16)}
    given.update((reg.name, reg.f32[0]) for reg in (*case.inputs, *case.float_uniforms))
    reads = []
    for word in case.code:
        instruction = decode(word)
        info = OPCODES[instruction.opcode]
        if word == NOP or not info.has_descriptor or instruction["desc"] >= len(case.opdescs):
            continue
        descriptor = decode_opdesc(case.opdescs[instruction["desc"]])
        values = []
        for n, slot in enumerate(info.format.sources, start=1):
            bank, number = source_register(instruction[slot])
            row = given.get(f"{bank}{number}")
            if row is None:
                continue
            picked = descriptor.swizzle(n)[:1 if info.use is SourceUse.SCALAR else 4]
            sign = 0x80000000 if descriptor.negate[n - 1] else 0
            values += [row[k] ^ sign for k in picked]
        reads.append((mnemonic(word), values))
        if "dst" in dict(instruction.fields):
            given.pop("".join(map(str, destination_register(instruction["dst"]))), None)
    return reads


def _specials(values: list[int]) -> list[str]:
    return sorted({s for bits in values if (s := _special(bits)) is not None})


def _operation(case: Case, signature: str) -> tuple[str, list[str]]:
    """The instruction a divergence of ``signature`` is filed under, and the special values
    it reads: the producer of the first differing value, unless it reads none and an
    instruction before it does (the producer only passes on what that one computed, as
    a MOVA or FLR of an RCP(-0) does)."""
    reads = read_values(case)
    own = _specials([v for name, values in reads if name == signature for v in values])
    if not own:
        for name, values in reads:
            if name != signature and (found := _specials(values)):
                return name, found
    return signature, own


#: Each stack's depth (isa.py), by the name the trace's stack text gives it.
DEPTHS = {"IF": IF_STACK_DEPTH, "CALL": CALL_STACK_DEPTH, "LOOP": LOOP_STACK_DEPTH}
#: The events of :func:`flow_events` that are quirks of the stacks' ring buffers.
OVERFLOW = "stack overflow (oldest entry dropped)"


def _stacks(text: str) -> dict[str, list[str]]:
    """The entries of each stack in a trace step's stack text
    (``engine.trace.describe_stacks``: ``IF 003>005 | LOOP 004>002 n=1 +1``), oldest
    first."""
    stacks: dict[str, list[str]] = {kind: [] for kind in DEPTHS}
    for part in text.split(" | "):
        kind, _, entries = part.partition(" ")
        if kind in stacks:
            tokens = entries.split()
            width = 3 if kind == "LOOP" else 1  # trigger>body, n=count, +step
            stacks[kind] = [" ".join(tokens[k:k + width]) for k in range(0, len(tokens), width)]
    return stacks


def _left(entry: str) -> int:
    """The iterations a LOOP entry has left."""
    return int(entry.split()[1][2:])


def flow_events(case: Case, mode: str) -> list[str]:
    """What the stack machine did in gpuisa's trace of ``case``, in order of first
    occurrence: the rules of pica-emulation.md#flow-check (and the ring buffers'
    overflow, pica-emulation.md#flow-stacks) the program exercises."""
    events: dict[str, None] = {}
    before = _stacks("-")
    for step in case_trace(case, mode).steps:
        after = _stacks(step.stacks)
        popped = {k: len(before[k]) - len(after[k]) for k in before}
        flow = OPCODES[decode(step.word).opcode].flow
        kind = flow.name if flow is not None and flow.name in DEPTHS else None
        if kind and len(before[kind]) == len(after[kind]) == DEPTHS[kind] and \
                after[kind] != before[kind] and after[kind][:-1] == before[kind][1:]:
            events[f"{kind} {OVERFLOW}"] = None
        if popped["CALL"] > 0:
            events["CALL return" if popped["CALL"] < 4 else "fourth CALL return lost"] = None
        if popped["IF"] > 0:
            events["IF-stack pop"] = None
        if popped["LOOP"] > 0:
            events["LOOP exit on BREAK" if flow is Flow.BREAK else "LOOP exit"] = None
            if after["LOOP"]:
                events["aL restore"] = None
        elif after["LOOP"] and before["LOOP"] and \
                _left(after["LOOP"][-1]) < _left(before["LOOP"][-1]):
            events["LOOP iteration (aL += step)"] = None
        before = after
    return list(events)


def reads_al(case: Case) -> bool:
    """Whether an instruction of ``case`` reads a register relative to aL."""
    for word in case.code:
        instruction = decode(word)
        if word != NOP and "idx" in dict(instruction.fields) and \
                INDEX_REGISTERS.get(instruction["idx"]) == "aL":
            return True
    return False


def cause(case: Case, signature: str, mode: str) -> tuple[str, str]:
    """(key, text) of a shrunk divergence with ``signature`` (see :mod:`.shrink`): what
    deduplicates findings, and what a person reads, citing the rules involved."""
    words = [w for w in case.code if w != NOP]
    mnemonics = [mnemonic(w) for w in words]
    flows = sorted({m for w, m in zip(words, mnemonics, strict=True)
                    if OPCODES[decode(w).opcode].kind is Kind.FLOW})
    if signature.startswith("status"):
        subject = f"{signature} on {', '.join(m for m in mnemonics if m != 'end')}"
        cited = [r for m in dict.fromkeys(mnemonics) for r in rules(m)]
        key = f"{signature}:{'+'.join(sorted(set(mnemonics)))}"
    elif flows:
        events = flow_events(case, mode)
        # aL only changes through LOOP: a read through it matters when a LOOP ran
        al = reads_al(case) and any(e.startswith("LOOP") for e in events)
        events += ["reads aL"] if al else []
        what = f": {', '.join(events)}" if events else ""
        subject = f"{'/'.join(flows)}{what} (then {signature})"
        cited = [r for m in flows for r in rules(m)]
        cited += ["pica-emulation.md#relative"] if al else []
        cited += ["pica-emulation.md#flow-stacks"] if any(OVERFLOW in e for e in events) else []
        key = f"flow:{'+'.join(flows)}:{'+'.join(events)}"
    else:
        name, specials = _operation(case, signature)
        subject = name + (f" with {', '.join(specials)}" if specials else "") + \
            (f" (then {signature})" if name != signature else "")
        cited = rules(name) + (["pica-emulation.md#fp-table"] if specials else [])
        key = f"{name}:{'+'.join(specials)}"
    return key, f"{subject} ({', '.join(dict.fromkeys(cited))})" if cited else subject


def slug(key: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", key.lower()).strip("-")
