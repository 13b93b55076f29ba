"""Writing cases: a :class:`Draft` is a case before its expectations, made from Mesa-syntax
assembly (:mod:`gpuisa.a2xx.asm`) with the fields the text cannot show patched into the
assembled words, and register values given as float32 numbers or bit patterns."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np
import numpy.typing as npt

from ..asm import assemble
from ..encoding import (
    decode_alu,
    decode_cf,
    decode_fetch,
    encode,
    join_cf_slot,
    slot_from_dwords,
    slot_to_dwords,
    split_cf_slot,
)
from .model import MODEL, Case, Provenance, TextureData, VertexBuffer
from .replay import bit_rows

#: Named float32 bit patterns the cases draw their operands from (tags ``special:NAME``).
SPECIALS: dict[str, int] = {
    "+0": 0x00000000, "-0": 0x80000000, "+1": 0x3F800000, "-1": 0xBF800000,
    "0.5": 0x3F000000, "1.5": 0x3FC00000, "-2.5": 0xC0200000, "3": 0x40400000,
    "0.1": 0x3DCCCCCD, "-7.75": 0xC0F80000, "100": 0x42C80000, "0.75": 0x3F400000,
    "+inf": 0x7F800000, "-inf": 0xFF800000, "nan": 0x7FC00000, "-nan": 0xFFC00000,
    "snan": 0x7F800001, "denorm": 0x00000001, "-denorm": 0x807FFFFF,
    "min-normal": 0x00800000, "max": 0x7F7FFFFF, "-max": 0xFF7FFFFF,
    "2^64": 0x5F800000, "2^-64": 0x1F800000, "2^127": 0x7F000000,
}
#: Values of SPECIALS that are not ordinary numbers (tagged ``special:<name>``).
SPECIAL_TAGS = {"+inf", "-inf", "nan", "-nan", "snan", "denorm", "-denorm", "-0",
                "min-normal", "max", "-max", "2^127", "2^-64", "2^64"}

MODEL_ENGINE = Provenance(MODEL, "a2xx-isa.md#emulation")


def f32(*patterns: int) -> np.ndarray:
    """float32 values of bit patterns."""
    return np.asarray(patterns, dtype=np.uint32).view(np.float32)


def named(*names: str) -> np.ndarray:
    return f32(*(SPECIALS[n] for n in names))


def special_tags(names: Sequence[str]) -> tuple[str, ...]:
    return tuple(sorted({f"special:{n}" for n in names if n in SPECIAL_TAGS}))


@dataclass(frozen=True, slots=True)
class Draft:
    """A case without its expectations; ``alternatives`` name the emulator settings
    (``switch=value``) whose results the case also records (a documented choice)."""

    case: Case
    alternatives: tuple[str, ...] = ()


@lru_cache(maxsize=4096)
def _assembled(text: str) -> tuple[int, ...]:
    return tuple(assemble(text, filename="<vectors>"))


def _patch(words: list[int], kind: str, index: int, values: Mapping[str, int]) -> None:
    """Set fields of ALU/fetch slot ``index`` or CF clause ``index`` in place."""
    slot = index // 2 if kind == "cf" else index
    value = slot_from_dwords(*words[3 * slot: 3 * slot + 3])
    if kind == "cf":
        clauses = list(split_cf_slot(value))
        clauses[index % 2] = encode(dataclasses.replace(decode_cf(clauses[index % 2]),
                                                        **values))
        value = join_cf_slot(*clauses)
    else:
        decode = decode_alu if kind == "alu" else decode_fetch
        value = encode(dataclasses.replace(decode(value), **values))
    words[3 * slot: 3 * slot + 3] = slot_to_dwords(value)


def _rows(values: npt.ArrayLike) -> np.ndarray:
    array = np.asarray(values, dtype=np.float32)
    return array.reshape(-1, 4)


def draft(ident: str, text: str, registers: Mapping[int, npt.ArrayLike], *,
          tags: Sequence[str], provenance: Provenance = MODEL_ENGINE, note: str = "",
          patches: Sequence[tuple[str, int, Mapping[str, int]]] = (),
          alternatives: Sequence[str] = (), **inputs: Any) -> Draft:
    """A case from assembly text ``text``.  ``inputs`` may give ``shader`` ("vertex" or
    "pixel"), ``floats`` (index -> vec4) and ``extra``: ``bools`` (true indices),
    ``loops`` (index -> register value), ``buffers`` and ``textures``."""
    extra: Mapping[str, Any] = inputs.get("extra") or {}
    shader: str = inputs.get("shader", "vertex")
    floats: Mapping[int, npt.ArrayLike] = inputs.get("floats") or {}
    words = list(_assembled(text))
    for kind, index, values in patches:
        _patch(words, kind, index, values)
    rows = {n: _rows(v) for n, v in registers.items()}
    count = len(next(iter(rows.values()))) if rows else 1
    if shader == "vertex":
        rows.setdefault(0, np.zeros((count, 4), np.float32))
    case = Case(
        id=ident, tags=tuple(tags), provenance=provenance, note=note, shader=shader,
        words=tuple(words), source=text, invocations=count,
        registers=tuple((n, bit_rows(rows[n])) for n in sorted(rows)),
        float_constants=tuple((i, bit_rows(_rows(v))[0])
                              for i, v in sorted(floats.items())),
        bool_constants=tuple(sorted(extra.get("bools", ()))),
        loop_constants=tuple(sorted(extra.get("loops", {}).items())),
        vertex_buffers=tuple(extra.get("buffers", ())),
        textures=tuple(extra.get("textures", ())),
        expected={},
    )
    return Draft(case, tuple(alternatives))


def buffer(slot: int, data: bytes, endian: int = 0) -> VertexBuffer:
    return VertexBuffer(slot, endian, bytes(data))


def texture(index: int, texels: npt.ArrayLike, filter: str = "nearest",
            address: str = "clamp") -> TextureData:
    array = np.asarray(texels, dtype=np.float32)
    height, width = array.shape[:2]
    return TextureData(index, width, height, filter, address, bit_rows(array.reshape(-1, 4)))
