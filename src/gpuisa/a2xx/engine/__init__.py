"""Vectorized A2XX shader emulation (a2xx-isa.md#emulation).

:func:`run_vertex` and :func:`run_fragment` run a shader on N invocations at once:
registers are component-major ``(4, N)`` float32 arrays, so each instruction is a few
NumPy operations over all invocations; divergent control flow splits the invocations
into groups that run separately and merge again (:mod:`.control`).  The math of each
operation is in :mod:`.vector` and :mod:`.scalar`, vertex fetch in :mod:`.fetch`,
texture fetch in :mod:`.texture`; :mod:`.attributes` completes an XDK vertex shader's
fetch templates for data given by semantic (a2xx-formats.md#xdk-vertex-input).

Choices where the sources disagree or say nothing (switches in :class:`EmulatorConfig`,
presets ``"adreno"`` and ``"xenos"``):

* second operand of two-operand scalar ops: lane 2 (Z) of source 3, or lane 0 (X);
* vertex fetch stride/offset unit: bytes (Mesa, the wiki) or dwords (KGSL, Xenos);
* vertex fetch d1.30: ignored (Adreno) or Xenos' mini fetch;
* ALU d0 bit 7: ignored (Adreno ``low_precision_16b_fp``) or Xenos ``abs_constants``;
* CF / fetch address widths: Mesa's or Xenia's wider fields;
* 16-bit float vertex data: IEEE or Xenos (no inf/NaN).

Fixed choices: a vertex shader starts with its vertex index in R0.x, a pixel shader with
its interpolants in R0, R1, ...; every other register is 0.  Control flow is exact per
invocation (the hardware's 64-wide any/all decisions are not modelled).  Killed
invocations run to the end and are flagged.  MULADD is not fused (XE-U).  Components a
vertex format lacks, and the invalid destination selector 6, read 0.0.  A constant
operand's register byte is its full 8-bit index (Mesa's text ``|Cn|`` is C(n + 128)),
and constants outside C0-C511 read 0.  Stack overflows follow Xenia (a call with a full
stack, a LOOP_START with a full loop stack, and a RETURN with an empty stack fall
through or skip), except that a LOOP_START that skips its loop does not leave an entry
on the stack.  The predicate-clean bit of EXEC clauses is ignored.
"""

from .api import DEFAULT_MAX_STEPS, run_fragment, run_vertex
from .attributes import VertexAttribute
from .config import TARGETS, EmulatorConfig
from .inputs import LoopConstant, VertexFetchConstant
from .results import Alloc, FragmentResult, ShaderResult, VertexResult
from .texture import Texture

__all__ = [
    "DEFAULT_MAX_STEPS",
    "TARGETS",
    "Alloc",
    "EmulatorConfig",
    "FragmentResult",
    "LoopConstant",
    "ShaderResult",
    "Texture",
    "VertexAttribute",
    "VertexFetchConstant",
    "VertexResult",
    "run_fragment",
    "run_vertex",
]
