"""The A2XX / Xenos conformance case: what one case holds, as plain immutable data.

A case is one shader run over a few invocations: the program's dwords, its constants
(float, bool, loop), the registers each invocation starts with, vertex buffers and
textures where it fetches, and what it must export on each target (``adreno`` and
``xenos``, the presets of :class:`~gpuisa.a2xx.engine.EmulatorConfig`), every register
value a float32 bit pattern.  docs/a2xx-vectors-format.md is the specification.
"""

from __future__ import annotations

from dataclasses import dataclass

#: Where an expected value comes from (docs/a2xx-vectors-format.md, "Provenance").
DOCUMENT = "document"  # a row or sentence of a public document (the freedreno wiki)
EMULATOR = "emulator"  # an emulator's source at a named commit
EVIDENCE = "evidence"  # public evidence of hardware behaviour (a game fixed by a PR)
CHOICE = "documented-choice"  # sources disagree: ``choice`` and ``alternatives`` say how
MODEL = "model"  # gpuisa's reference engine following a2xx-isa.md; breadth cases
PROVENANCE_KINDS = (DOCUMENT, EMULATOR, EVIDENCE, CHOICE, MODEL)

#: The targets every case has an expectation for, in stored order.
TARGETS = ("adreno", "xenos")
SHADERS = ("vertex", "pixel")
Row = tuple[int, int, int, int]


@dataclass(frozen=True, slots=True)
class Provenance:
    """``source`` names the document row, emulator file and commit, or evidence; a
    documented choice says which answer gpuisa took (``choice``) and names the others
    (``alternatives``, each also stored as an alternative result of the case)."""

    kind: str  # one of PROVENANCE_KINDS
    source: str
    choice: str = ""


@dataclass(frozen=True, slots=True)
class Result:
    """What a run must produce: every export register written (``export62`` ...), one
    row of four float32 bit patterns per invocation, and which invocations were killed."""

    exports: tuple[tuple[int, tuple[Row, ...]], ...]
    killed: tuple[bool, ...]

    def export(self, number: int) -> tuple[Row, ...] | None:
        return dict(self.exports).get(number)


@dataclass(frozen=True, slots=True)
class VertexBuffer:
    """Bytes a vertex fetch slot (3 * const_index + const_index_sel) reads, with the
    byte swap of its fetch constant (a2xx-isa.md#vertex-fetch)."""

    slot: int
    endian: int
    data: bytes


@dataclass(frozen=True, slots=True)
class TextureData:
    """Texels (row-major, row 0 is v = 0) bound to texture fetch constant ``index``."""

    index: int
    width: int
    height: int
    filter: str
    address: str
    texels: tuple[Row, ...]


@dataclass(frozen=True, slots=True)
class Case:
    """One conformance case (see the module docstring)."""

    id: str
    tags: tuple[str, ...]
    provenance: Provenance
    note: str
    shader: str
    words: tuple[int, ...]
    source: str
    invocations: int
    registers: tuple[tuple[int, tuple[Row, ...]], ...]
    float_constants: tuple[tuple[int, Row], ...]
    bool_constants: tuple[int, ...]  # the indices that are true
    loop_constants: tuple[tuple[int, int], ...]  # index -> register value
    vertex_buffers: tuple[VertexBuffer, ...]
    textures: tuple[TextureData, ...]
    expected: dict[str, Result]
    #: Emulator switches (EmulatorConfig fields) whose Adreno and Xenos values give this
    #: case different results; empty when both targets agree.
    differences: tuple[str, ...] = ()
    #: Results of the answers a documented choice did not take: label -> result.
    alternatives: tuple[tuple[str, Result], ...] = ()

    @property
    def program_key(self) -> tuple:
        """What cases must share to run as one batch: everything but the registers."""
        return (self.shader, self.words, self.float_constants, self.bool_constants,
                self.loop_constants, self.vertex_buffers, self.textures)
