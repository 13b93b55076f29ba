"""A PICA200 shader program: the raw instruction words and operand-descriptor words."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from ..errors import InputError


def _words(name: str, values: Iterable[int]) -> tuple[int, ...]:
    out = []
    for i, value in enumerate(values):
        if not isinstance(value, int) or isinstance(value, bool):
            raise InputError(f"{name}[{i}] is {type(value).__name__}, expected int")
        if not 0 <= value <= 0xFFFFFFFF:
            raise InputError(f"{name}[{i}] = {value} is not a 32-bit word")
        out.append(value)
    return tuple(out)


@dataclass(frozen=True, slots=True)
class Program:
    """Raw instruction words and operand-descriptor words, as uploaded to the GPU.

    ``opdescs`` holds the first word of each descriptor entry (the only one the hardware
    uses); the container keeps the rest.
    """

    code: tuple[int, ...]
    opdescs: tuple[int, ...] = ()
    # Programs key the engines' caches, several lookups per run: hashing 512 words each
    # time costs more than running a compiled shader on one vertex.
    _hash: int = field(init=False, repr=False, compare=False)

    def __init__(self, code: Iterable[int], opdescs: Iterable[int] = ()):
        object.__setattr__(self, "code", _words("code", code))
        object.__setattr__(self, "opdescs", _words("opdescs", opdescs))
        object.__setattr__(self, "_hash", hash((self.code, self.opdescs)))

    def __hash__(self) -> int:
        return self._hash
