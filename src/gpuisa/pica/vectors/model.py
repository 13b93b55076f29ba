"""The conformance-vector case model: what one case holds, as plain immutable data.

A case is one shader run: a program (code words, operand descriptors, entry point and the
SHBIN they come from), its inputs and uniforms as raw bit patterns in both number
formats, the initial flags and address registers, and what the run must produce in each
precision mode.  Every field is a bit pattern or an integer, so a case means the same to
any emulator regardless of how it converts numbers.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...errors import InputError

#: Where an expected value comes from (docs/vectors-format.md, "Provenance").
HARDWARE = "hardware"  # a public hardware test or report, named in ``source``
SEED = "seed"  # 3dbrew "GPU/Shader Instruction Set": its floating-point table or Control Flow
CHOICE = "documented-choice"  # an OPEN point of pica-emulation.md; ``choice`` says which
MODEL = "model"  # no single fact: the reference engine's semantics (3dbrew instruction text)
PROVENANCE_KINDS = (HARDWARE, SEED, CHOICE, MODEL)

#: Precision modes, in the order expectations are stored.
MODES = ("f24", "f32")
#: The ``choice`` of the documented-choice cases about the float24 rounding mode, in a
#: suite made with each rounding (docs/vectors-format.md, "Rounding").
ROUNDING_CHOICES = {"nearest-even": "round to nearest even after every operation",
                    "truncate": "truncate toward zero after every operation (Citra PR #7372)"}
#: Case outcomes: the run ended at END, hung (the hardware would hang), or faulted.
STATUSES = ("ok", "hang", "fault")
#: What an adapter driver records for a case the emulator under test did not answer: it
#: crashed, or gave no result within the time limit; or the adapter says it cannot run the
#: case (docs/adapter-protocol.md).
ADAPTER_STATUSES = ("crash", "timeout", "unsupported")

F24_SIGN = 1 << 23
F24_EXP_ALL = 0x7F << 16


@dataclass(frozen=True, slots=True)
class Provenance:
    """Where the f24 expectation of a case comes from.  ``source`` names the hardware test,
    the 3dbrew table row or the pica-emulation.md anchor; ``choice`` (documented-choice only) names
    the value gpuisa picked for the OPEN point."""

    kind: str
    source: str
    choice: str = ""

    def __post_init__(self) -> None:
        if self.kind not in PROVENANCE_KINDS:
            raise InputError(f"unknown provenance kind {self.kind!r}")


@dataclass(frozen=True, slots=True)
class Register:
    """A register's values: one row of four components per invocation, as float32 bit
    patterns (``f32``) and float24 bit patterns (``f24``)."""

    name: str
    f32: tuple[tuple[int, int, int, int], ...]
    f24: tuple[tuple[int, int, int, int], ...]


@dataclass(frozen=True, slots=True)
class Expected:
    """What one precision mode must produce.

    ``outputs`` are the output registers of the DVLE's output map with four bit patterns
    each (float24 patterns in f24 mode, float32 in f32 mode); for geometry shaders the
    bank active at the last END.  ``vertices`` (geometry shaders) holds one entry per
    EMIT with the same registers, ``primitives`` index triples into them plus the
    winding flag.  ``pc`` is where a hang or fault happened."""

    status: str
    outputs: tuple[tuple[str, tuple[int, int, int, int]], ...]
    cmp: tuple[bool, bool]
    address: tuple[int, int, int]
    vertices: tuple[tuple[tuple[int, int, int, int], ...], ...] = ()
    primitives: tuple[tuple[int, int, int, bool], ...] = ()
    pc: int = -1
    #: Semantic attributes after the output map (``"color"`` -> its components), for the
    #: cases about the map itself (unmapped slots read 1.0, pica-emulation.md#output-map).
    semantics: tuple[tuple[str, tuple[int, ...]], ...] = ()


@dataclass(frozen=True, slots=True)
class Case:
    """One conformance case (see the module docstring and docs/vectors-format.md)."""

    id: str
    tags: tuple[str, ...]
    provenance: Provenance
    unknowns: tuple[str, ...]
    note: str
    source: str
    shbin: bytes
    code: tuple[int, ...]
    opdescs: tuple[int, ...]
    dvle: int
    entry: int
    geometry: bool
    pipeline: str  # "" or the geometry mode name when the case runs VS then GS
    inputs: tuple[Register, ...]
    float_uniforms: tuple[Register, ...]
    int_uniforms: tuple[tuple[str, tuple[int, int, int, int]], ...]
    bool_uniforms: int  # bit n = bn
    cmp: tuple[bool, bool]
    address: tuple[int, int, int]
    expected: dict[str, Expected]
    #: A case tagged ``rounding:mode-dependent``: its f24 expectation in each float24
    #: rounding, (rounding, expectation) in the order of ``floats.ROUNDING_MODES``, each
    #: for the inputs and uniforms converted to float24 by that rounding (the float32
    #: values given are the same): what a console or an emulator fed float32 values gives
    #: if it rounds that way (docs/vectors-format.md, "Rounding").
    f24_by_rounding: tuple[tuple[str, Expected], ...] = ()

    @property
    def invocations(self) -> int:
        return len(self.inputs[0].f32) if self.inputs else 1

    @property
    def output_names(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.expected[MODES[0]].outputs)

    @property
    def semantic_names(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.expected[MODES[0]].semantics)


# -- exact float24 patterns --------------------------------------------------------------


def exact_f24(f32_bits: int) -> int | None:
    """The float24 pattern whose exact value is the float32 with bits ``f32_bits``, or
    None if no pattern has that value.  Denormal patterns (exponent 0) have the exact
    value m * 2^-78; NaNs keep the top 16 payload bits (the low 7 must be zero)."""
    sign = (f32_bits >> 31) << 23
    exponent = (f32_bits >> 23) & 0xFF
    mantissa = f32_bits & 0x7FFFFF
    if exponent == 0 and mantissa == 0:
        return sign
    if exponent == 0xFF:
        if mantissa & 0x7F or (mantissa and not mantissa >> 7):
            return None
        return sign | F24_EXP_ALL | mantissa >> 7
    if exponent == 0:
        return None  # float32 denormals are below every float24 denormal (2^-78)
    if mantissa & 0x7F == 0 and 1 <= exponent - 64 <= 126:
        return sign | (exponent - 64) << 16 | mantissa >> 7
    # a float24 denormal: m * 2^-78 with 1 <= m < 2^16, i.e. exponents 2^-78 .. 2^-63
    value = int(mantissa | 0x800000)
    shift = exponent - 127 - 23 + 78  # value * 2^shift = m
    if shift >= 0:
        m = value << shift
    elif value & ((1 << -shift) - 1):
        return None
    else:
        m = value >> -shift
    return sign | m if 0 < m < 1 << 16 else None


def f32_bits(values: object) -> tuple[int, ...]:
    """float32 bit patterns of ``values`` (a flat sequence)."""
    return tuple(int(v) for v in np.asarray(values, dtype=np.float32).reshape(-1).view(np.uint32))
