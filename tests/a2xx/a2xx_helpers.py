"""Hand-built A2XX words for tests, written from the bit tables of a2xx-isa.md, and the
freedreno wiki's example listing kept in data/.

Nothing here uses gpuisa: the CF slot packing follows the a2xx-isa.md#cf-slot table
directly.
"""

from __future__ import annotations

from itertools import dropwhile
from pathlib import Path

#: The freedreno wiki's complete example shader (its header names the page and revision).
WIKI_EXAMPLE = Path(__file__).parent / "data" / "freedreno-wiki-example.txt"


def wiki_example() -> str:
    """The wiki's example listing as the page prints it, without the file's header."""
    lines = WIKI_EXAMPLE.read_text(encoding="utf-8").splitlines(keepends=True)
    return "".join(dropwhile(lambda line: line.startswith("#"), lines))


# CF opcodes (a2xx-isa.md#cf-opcodes), placed at clause bits 44-47.
OP_SHIFT = 44
NOP = 0 << OP_SHIFT
EXEC, EXEC_END = 1, 2


def cf_slot(clause_a: int, clause_b: int) -> list[int]:
    """Three dwords holding two 48-bit clauses (a2xx-isa.md#cf-slot).

    Clause A: d0 = bits 0-31, d1 & 0xFFFF = bits 32-47.
    Clause B: (d1 >> 16) | (d2 << 16) = bits 0-31, d2 >> 16 = bits 32-47.
    """
    assert 0 <= clause_a < 1 << 48 and 0 <= clause_b < 1 << 48
    d0 = clause_a & 0xFFFFFFFF
    d1 = (clause_a >> 32) | ((clause_b & 0xFFFF) << 16)
    d2 = clause_b >> 16
    return [d0, d1, d2]


def exec_clause(opcode: int, address: int, count: int, sequence: int = 0) -> int:
    """An EXEC-family clause (a2xx-isa.md#cf-exec) with only address/count/sequence set."""
    return (
        (address << 0)  # bits 0-8: address
        | (count << 12)  # bits 12-14: count
        | (sequence << 16)  # bits 16-27: 2 bits per instruction
        | (opcode << OP_SHIFT)  # bits 44-47
    )


def cf_program(clauses: list[int]) -> list[int]:
    """Dwords of a CF program, padded with a NOP clause to an even count."""
    if len(clauses) % 2:
        clauses = [*clauses, NOP]
    words: list[int] = []
    for i in range(0, len(clauses), 2):
        words += cf_slot(clauses[i], clauses[i + 1])
    return words


def one_instruction(slot: tuple[int, int, int], *, fetch: bool, serialize: bool) -> list[int]:
    """Program: slot 0 = EXEC ADDR(0x1) CNT(0x1) + NOP, slot 1 = ``slot``."""
    sequence = (1 if fetch else 0) | (2 if serialize else 0)
    return cf_program([exec_clause(EXEC, 1, 1, sequence), NOP]) + list(slot)


def one_instruction_text(body: str) -> str:
    """Mesa text of :func:`one_instruction` around the instruction's line(s)."""
    return "\tEXEC ADDR(0x1) CNT(0x1)\n" + body + "\tNOP\n"
