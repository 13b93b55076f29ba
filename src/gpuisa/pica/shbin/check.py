"""Semantic checks of SHBIN contents: values that fit their fields but make no sense.

The reader reports these as warnings (errors with ``strict=True``); the canonical writer
refuses to write them.  Each problem names the record, the field and the field's byte
offset within the record's on-disk form, so the reader can point at the file offset.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..isa import MAX_CODE_WORDS, MAX_OPDESCS
from ..program import Program
from .records import (
    CONSTANT_BANK_SIZE,
    OUTPUT_REGISTERS,
    ConstantKind,
    Dvle,
    uniform_bank,
)

_BANK_LETTER = {ConstantKind.BOOL: "b", ConstantKind.INT: "i", ConstantKind.FLOAT: "c"}


@dataclass(frozen=True, slots=True)
class Problem:
    record: str  # "DVLP", "DVLE[1]", "DVLE[1].constants[3]", ...
    field: str
    delta: int  # byte offset of the field within the record
    message: str

    @property
    def path(self) -> str:
        return f"{self.record}.{self.field}"


def problems(program: Program, entries: Sequence[Dvle]) -> list[Problem]:
    found = []
    code_words = len(program.code)
    if code_words > MAX_CODE_WORDS:
        found.append(
            Problem(
                "DVLP",
                "code_size",
                0x0C,
                f"{code_words} code words exceed the {MAX_CODE_WORDS}-word shader program memory",
            )
        )
    if len(program.opdescs) > MAX_OPDESCS:
        found.append(
            Problem(
                "DVLP",
                "opdesc_count",
                0x14,
                f"{len(program.opdescs)} operand "
                f"descriptors exceed the {MAX_OPDESCS} the hardware holds",
            )
        )
    for i, dvle in enumerate(entries):
        found += _dvle_problems(f"DVLE[{i}]", dvle, code_words)
    return found


def _dvle_problems(path: str, dvle: Dvle, code_words: int) -> list[Problem]:
    found = []
    # main == code_words is allowed: an empty entry procedure at the very end of the code.
    for name, delta, value in (
        ("main_offset", 0x08, dvle.main_offset),
        ("endmain_offset", 0x0C, dvle.endmain_offset),
    ):
        if value > code_words:
            found.append(
                Problem(
                    path,
                    name,
                    delta,
                    f"word offset {value} is past the end of the {code_words}-word program",
                )
            )
    for j, const in enumerate(dvle.constants):
        size = CONSTANT_BANK_SIZE[const.kind]
        if const.register >= size:
            letter = _BANK_LETTER[const.kind]
            found.append(
                Problem(
                    f"{path}.constants[{j}]",
                    "register",
                    0x02,
                    f"{letter}{const.register} does not exist ({letter}0-{letter}{size - 1})",
                )
            )
    for j, out in enumerate(dvle.outputs):
        if out.register >= OUTPUT_REGISTERS:
            found.append(
                Problem(
                    f"{path}.outputs[{j}]",
                    "register",
                    0x02,
                    f"o{out.register} does not exist (o0-o{OUTPUT_REGISTERS - 1})",
                )
            )
    for j, uni in enumerate(dvle.uniforms):
        found += _uniform_problems(f"{path}.uniforms[{j}]", uni.first, uni.last)
    return found


def _uniform_problems(record: str, first: int, last: int) -> list[Problem]:
    bank = uniform_bank(first)
    if bank is None:
        return [
            Problem(
                record,
                "first",
                0x04,
                f"register 0x{first:02X} lies in no uniform bank "
                "(v 0x00-0x0F, c 0x10-0x6F, i 0x70-0x73, b 0x78-0x87)",
            )
        ]
    if last < first:
        return [
            Problem(
                record,
                "last",
                0x06,
                f"last register 0x{last:02X} precedes first register 0x{first:02X}",
            )
        ]
    if uniform_bank(last) != bank:
        return [
            Problem(
                record, "last", 0x06, f"range 0x{first:02X}-0x{last:02X} leaves the '{bank}' bank"
            )
        ]
    return []
