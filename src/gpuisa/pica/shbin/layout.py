"""Where each structure of a parsed SHBIN sat, so that it can be rewritten in place.

The reader records this for ``Shbin.to_bytes(preserve_layout=True)``: the writer then
starts from the original bytes (keeping every byte no parsed structure covers: unknown
DVLP words, filename tables, gaps, padding, trailing data) and re-serializes each
structure at its recorded position.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class DvleLayout:
    """One DVLE: absolute header offset and the raw header values of its tables."""

    offset: int
    constant_offset: int  # table offsets relative to the DVLE, as in the header
    label_offset: int
    output_offset: int
    uniform_offset: int
    symbol_offset: int
    symbol_size: int
    constant_count: int
    label_count: int
    output_count: int
    uniform_count: int
    uniform_symbols: tuple[int, ...]  # symbol-table offset of each uniform's name
    label_symbols: tuple[int, ...]  # ... and of each label's name


@dataclass(frozen=True, slots=True)
class ShbinLayout:
    """The parsed bytes plus the DVLP table positions and each DVLE's layout."""

    image: bytes
    code_offset: int  # relative to the DVLP, as in its header
    code_words: int
    opdesc_offset: int
    opdesc_count: int
    dvles: tuple[DvleLayout, ...]
