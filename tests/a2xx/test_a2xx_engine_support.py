"""Helpers for the A2XX emulator tests (this module holds no tests).

Programs are written in Mesa/wiki assembly and assembled; bits the text cannot express
(relative addressing, loop break flags, fetch fields) are patched into the assembled
words with :func:`patch_alu`, :func:`patch_fetch` and :func:`patch_clause`.  Expected
values are always computed in the tests themselves with plain NumPy.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from gpuisa.a2xx import VertexResult, assemble, run_vertex
from gpuisa.a2xx.encoding import (
    decode_alu,
    decode_cf,
    decode_fetch,
    encode,
    join_cf_slot,
    slot_from_dwords,
    slot_to_dwords,
    split_cf_slot,
)

F32 = np.float32


def program(text: str) -> list[int]:
    return assemble(text)


def patch_alu(words: list[int], slot: int, **fields: int) -> list[int]:
    value = slot_from_dwords(*words[3 * slot : 3 * slot + 3])
    new = encode(dataclasses.replace(decode_alu(value), **fields))
    out = list(words)
    out[3 * slot : 3 * slot + 3] = slot_to_dwords(new)
    return out


def patch_fetch(words: list[int], slot: int, **fields: int) -> list[int]:
    value = slot_from_dwords(*words[3 * slot : 3 * slot + 3])
    new = encode(dataclasses.replace(decode_fetch(value), **fields))
    out = list(words)
    out[3 * slot : 3 * slot + 3] = slot_to_dwords(new)
    return out


def patch_clause(words: list[int], index: int, **fields: int) -> list[int]:
    """Replace fields of CF clause ``index``."""
    slot = index // 2
    value = slot_from_dwords(*words[3 * slot : 3 * slot + 3])
    clauses = list(split_cf_slot(value))
    clauses[index % 2] = encode(dataclasses.replace(decode_cf(clauses[index % 2]), **fields))
    out = list(words)
    out[3 * slot : 3 * slot + 3] = slot_to_dwords(join_cf_slot(*clauses))
    return out


def vec4s(rows: list[list[float]] | np.ndarray) -> np.ndarray:
    return np.asarray(rows, dtype=np.float32).reshape(-1, 4)


def run_alu(body: str, registers: dict[int, np.ndarray], **kwargs: object) -> VertexResult:
    """Run ``EXEC_END`` + ``body`` as a vertex shader over as many invocations as the
    register arrays have rows."""
    words = program("EXEC_END\n" + body)
    count = len(next(iter(registers.values())))
    return run_vertex(words, count, registers=registers, **kwargs)


def bits(x: np.ndarray) -> np.ndarray:
    """float32 bit patterns, for comparisons that must distinguish -0 from +0 and
    compare NaNs."""
    return np.asarray(x, dtype=np.float32).view(np.uint32)


def same_floats(actual: np.ndarray, expected: np.ndarray) -> bool:
    """Bitwise equality, except that any NaN matches any NaN."""
    a = np.asarray(actual, dtype=np.float32)
    e = np.asarray(expected, dtype=np.float32)
    if a.shape != e.shape:
        return False
    both_nan = np.isnan(a) & np.isnan(e)
    return bool(np.all(both_nan | (bits(a) == bits(e))))
