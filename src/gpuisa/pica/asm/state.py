"""The records the assembler keeps while it reads the sources: DVLEs, blocks, procedures."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from ..isa import NUM_GEOMETRY_OUTPUTS, NUM_OUTPUTS
from ..shbin.records import Constant, GeometryMode, Label, OutputEntry, Uniform
from .source import Tok
from .uniforms import UniformRecord

#: picasso's per-DVLE table limits (pica-assembly.md#directives, pica-assembly.md#uniform-table).
MAX_DVLE_UNIFORMS = 96
MAX_CONSTANTS = 96
MAX_OUTPUTS = 16
#: Open blocks at once (pica-assembly.md#block-patching).
MAX_BLOCKS = 32
#: Records in the global uniform list (pica-assembly.md#global-uniforms).
MAX_GLOBAL_UNIFORMS = 96


@dataclass(slots=True)
class DvleState:
    """One file's executable description while it is being assembled."""

    filename: str
    #: Where "entrypoint undefined" points without an `.entry`: line 1 of the file (as
    #: picasso reports it) or the `.unit` directive.
    origin: Tok
    entry: str = "main"
    entry_tok: Tok | None = None
    nodvle: bool = False
    is_geo: bool = False
    compat_geo: bool = False
    geo_mode: GeometryMode = GeometryMode.POINT
    fixed_start: int = 0
    variable_count: int = 0
    fixed_count: int = 0
    merge: bool = False
    uniforms: list[UniformRecord] = field(default_factory=list)
    constants: list[Constant] = field(default_factory=list)
    outputs: list[OutputEntry] = field(default_factory=list)
    output_mask: int = 0
    #: Output components claimed so far: bit 4*register + component (x = 0).
    output_used: int = 0
    input_mask: int = 0
    #: Where each input register was declared (for a duplicate-input warning).
    input_toks: dict[int, Tok] = field(default_factory=dict)
    #: gpuisa's raw directives (rawtables.py): header fields set by ``.dvle`` (Dvle field
    #: name -> value), ``.dvleuniform`` and ``.dvlelabel`` entries.
    header: dict[str, int] = field(default_factory=dict)
    raw_uniforms: list[Uniform] = field(default_factory=list)
    labels: list[Label] = field(default_factory=list)

    @property
    def raw_entry(self) -> bool:
        """``.dvle`` gave both ends of the entry point: no entry procedure is needed."""
        return "main_offset" in self.header and "endmain_offset" in self.header

    @property
    def uses_gsh_space(self) -> bool:
        """A ``.gsh MODE`` shader: its uniforms live in the private geometry space."""
        return self.is_geo and not self.compat_geo

    @property
    def output_limit(self) -> int:
        return NUM_GEOMETRY_OUTPUTS if self.is_geo else NUM_OUTPUTS


class BlockKind(Enum):
    PROC = ".proc"
    IF = "if"
    FOR = "for"
    ARRAY = ".constfa"


@dataclass(slots=True)
class Block:
    """An open block: where it started and what its ``.end`` must patch."""

    kind: BlockKind
    pos: int
    tok: Tok
    name: str | None = None
    #: IF: position of the else part once ``.else`` was seen (picasso's uExtra).
    has_else: bool = False
    else_pos: int = 0
    #: .constfa: declared size (-1 = from the elements), elements, explicit register.
    size: int = -1
    elements: list[tuple[int, int, int, int]] = field(default_factory=list)
    place: int | None = None
    place_tok: Tok | None = None
    #: The opening statement failed: close it without further checks.
    broken: bool = False


@dataclass(frozen=True, slots=True)
class Procedure:
    start: int
    length: int
    tok: Tok


@dataclass(frozen=True, slots=True)
class Relocation:
    """A flow-control word whose target is a label or a procedure name."""

    pos: int
    name: str
    tok: Tok
