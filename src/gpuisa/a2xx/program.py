"""An A2XX program split into its CF program and the ALU/FETCH slots the EXECs run."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ..errors import EncodingError
from .encoding import (
    AluInstruction,
    CfClause,
    CfExec,
    FetchInstruction,
    decode_alu,
    decode_cf,
    decode_fetch,
    slots_from_words,
    split_cf_slot,
    words_from_slots,
)
from .errors import A2xxError


@dataclass(frozen=True, slots=True)
class ExecEntry:
    """One instruction an EXEC clause runs."""

    slot: int  # absolute slot index from the start of the program
    is_fetch: bool
    serialized: bool


def exec_entries(clause: CfExec) -> tuple[ExecEntry, ...]:
    return tuple(
        ExecEntry(clause.address + i, clause.is_fetch(i), clause.is_serialized(i))
        for i in range(clause.count)
    )


def clauses_of(slots: Iterable[int]) -> list[int]:
    """Every 48-bit clause of ``slots``, two per slot, in program order."""
    return [clause for slot in slots for clause in split_cf_slot(slot)]


def cf_clause_count(slots: list[int]) -> int:
    """Number of CF clauses, found the way Mesa's disassembler does (a2xx-isa.md#program).

    Scan clauses from the start until the first EXEC-type clause; its address is the
    number of CF slots.  Xenia uses the minimum over all EXECs instead; the two agree on
    well-formed programs.
    """
    for index, raw in enumerate(clauses_of(slots)):
        clause = decode_cf(raw)
        if isinstance(clause, CfExec):
            count = 2 * clause.address
            if count > 2 * len(slots):
                raise A2xxError(
                    f"CF clause {index} ({clause.info.name}) has ADDR(0x{clause.address:x}): "
                    f"the CF program would be {clause.address} slots long but the program "
                    f"has only {len(slots)} slots"
                )
            return count
    raise A2xxError(
        f"no EXEC-type CF clause in the program's {len(slots)} slots: "
        "cannot find the end of the CF program"
    )


@dataclass(frozen=True, slots=True)
class Program:
    """A decoded program: ``cf`` is the CF program, ``slots`` every 96-bit slot."""

    slots: tuple[int, ...]
    cf: tuple[CfClause, ...]
    cf_raw: tuple[int, ...]  # the 48-bit encodings of ``cf``

    @property
    def words(self) -> list[int]:
        return words_from_slots(self.slots)

    def alu(self, slot: int) -> AluInstruction:
        return decode_alu(self._slot(slot))

    def fetch(self, slot: int) -> FetchInstruction:
        try:
            return decode_fetch(self._slot(slot))
        except EncodingError as exc:
            raise A2xxError(f"slot {slot} (dword {3 * slot}): {exc}") from None

    def instruction(self, entry: ExecEntry) -> AluInstruction | FetchInstruction:
        return self.fetch(entry.slot) if entry.is_fetch else self.alu(entry.slot)

    def _slot(self, slot: int) -> int:
        if not 0 <= slot < len(self.slots):
            raise A2xxError(f"slot {slot} is beyond the program's {len(self.slots)} slots")
        return self.slots[slot]


def read_program(words: Iterable[int]) -> Program:
    """Split dwords into a :class:`Program`, checking that every EXEC's slots exist."""
    slots = slots_from_words(words)
    count = cf_clause_count(slots)
    raw = clauses_of(slots)[:count]
    cf = tuple(decode_cf(c) for c in raw)
    for index, clause in enumerate(cf):
        # Mesa reads nothing for CNT(0), so its address is not checked.
        if (
            isinstance(clause, CfExec)
            and clause.count
            and clause.address + clause.count > len(slots)
        ):
            raise A2xxError(
                f"CF clause {index} ({clause.info.name} ADDR(0x{clause.address:x}) "
                f"CNT(0x{clause.count:x})) runs slots {clause.address}.."
                f"{clause.address + clause.count - 1} but the program has only "
                f"{len(slots)} slots"
            )
    return Program(tuple(slots), cf, tuple(raw))
